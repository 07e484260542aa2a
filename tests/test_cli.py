"""Command line: build / inspect / walk, progress bar, exit statuses and error messages."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tokenguide import cli
from tokenguide.vocabulary.byte_level import encode_byte_level
from tokenguide.cli import ProgressBar, find_token_path, main, show_bytes
from tokenguide.index import Index
from tokenguide.vocabulary import Vocabulary

REPO = Path(__file__).resolve().parents[1]
needs_processes = pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")

# A small ByteLevel vocabulary: letters, digits, a few merges, and "😀" / "é" split into partial UTF-8.
SMALL_TOKENS = [
    b"a", b"b", b"c", b"ab", b"abc", b"@", b".", b" ", b" a",
    *[str(d).encode() for d in range(10)], b"12", b"123",
    b"\xf0\x9f", b"\x98\x80", b"\xc3", b"\xa9", b"x",
]
EOS = len(SMALL_TOKENS)


@pytest.fixture
def vocab_file(tmp_path) -> Path:
    data = {encode_byte_level(t): i for i, t in enumerate(SMALL_TOKENS)}
    data["<|endoftext|>"] = EOS
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_clean_error(err: str) -> None:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if not line.startswith("note: ")]
    assert lines[0].startswith("tokenguide ") and "error:" in lines[0], err


# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------


def test_build_writes_the_same_index_as_the_api(tmp_path, vocab_file, capsys):
    out_file = tmp_path / "ab.outlines"
    regex = r"(ab|c)+@[0-9]{1,3}"
    code, out, err = run(["build", "--regex", regex, "--vocab", vocab_file, "-o", out_file], capsys)
    assert code == 0, err
    assert str(out_file) in out and "states" in out
    assert "note: EOS is id" in err  # the vocab.json does not say: the guess is shown
    expected = Index(regex, Vocabulary.from_file(vocab_file))
    assert out_file.read_bytes() == expected.to_bytes()
    assert Index.load(out_file) == expected


def test_build_eos_by_id_and_by_text(tmp_path, vocab_file, capsys):
    for eos in (str(EOS), "<|endoftext|>"):
        out_file = tmp_path / f"e{len(eos)}.outlines"
        code, _, err = run(["build", "--regex", "a+", "--vocab", vocab_file, "--eos", eos, "-o", out_file], capsys)
        assert code == 0, err
        assert "note:" not in err
        assert Index.load(out_file).eos_token_id == EOS
    # Another id as EOS: "x" (last ordinary token) becomes EOS and is no longer an ordinary token.
    out_file = tmp_path / "x.outlines"
    code, _, err = run(["build", "--regex", "a+", "--vocab", vocab_file, "--eos", "x", "-o", out_file], capsys)
    assert code == 0, err
    assert Index.load(out_file).eos_token_id == SMALL_TOKENS.index(b"x")


def test_build_eos_unicode_digit_is_token_text(tmp_path, capsys):
    # "²" is a digit to str.isdigit but not to int(): it is a token text, as in the API.
    vocab = tmp_path / "v.json"
    vocab.write_text(json.dumps({"a": 0, "²": 1, "2": 2, "<|endoftext|>": 3}), encoding="utf-8")
    for eos, expected in (("²", 1), ("2", 2), ("02", 2), ("<|endoftext|>", 3), ("٣", None)):
        out_file = tmp_path / "e.outlines"
        code, _, err = run(["build", "--regex", "a+", "--vocab", vocab, "--eos", eos, "-o", out_file], capsys)
        if expected is None:  # an Arabic-Indic digit that is not a token: a clean error, not a crash
            assert code == 1
            assert_clean_error(err)
            assert "٣" in err
        else:
            assert code == 0, err
            assert Index.load(out_file).eos_token_id == expected
            assert Vocabulary.from_file(vocab, eos=eos if eos != "02" else 2).eos_token_id == expected


def test_build_eos_huge_id_is_a_clean_error(tmp_path, vocab_file, capsys):
    out_file = tmp_path / "h.outlines"
    for eos in ("9" * 5000, "4294967296"):
        code, _, err = run(["build", "--regex", "a+", "--vocab", vocab_file, "--eos", eos, "-o", out_file], capsys)
        assert code == 1
        assert_clean_error(err)
        assert "eos" in err.lower() and len(err) < 500
    assert not out_file.exists()


def test_build_interrupted_is_one_clean_line(tmp_path, vocab_file, capsys, monkeypatch):
    def interrupt(self, stage, done, total):
        if stage == "states":
            raise KeyboardInterrupt

    monkeypatch.setattr(ProgressBar, "__call__", interrupt)
    out_file = tmp_path / "i.outlines"
    code, out, err = run(["build", "--regex", "(ab|c)+@[0-9]{1,3}", "--vocab", vocab_file, "-o", out_file], capsys)
    assert code == 130
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "tokenguide build: interrupted (no file written)"
    assert out == "" and not out_file.exists()


def test_build_help_says_long_builds_show_progress_and_can_be_interrupted(capsys):
    code, out, _ = run(["build", "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    assert "'.{5000}' on GPT-2" in text and "takes seconds" in text
    assert "Ctrl-C" in text and "130" in text and "progress" in text


@needs_processes
def test_build_sigint_during_a_long_gpt2_build(tmp_path, gpt2_vocab_path):
    """A real Ctrl-C (SIGINT) in the middle of `.{5000}` on GPT-2: clean message, status 130, no file."""
    import signal

    out_file = tmp_path / "long.outlines"
    env = {"PYTHONPATH": str(REPO / "py_src"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokenguide", "build", "--regex", ".{5000}", "--vocab", str(gpt2_vocab_path),
         "--progress", "-o", str(out_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        # A run started as a background job inherits SIGINT ignored, and Python then installs no
        # KeyboardInterrupt handler: give the child the default disposition a terminal's Ctrl-C meets.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen = b""
    while b"automaton" not in seen:  # the bar is drawn: the (seconds-long) build is under way
        chunk = proc.stderr.read1(4096)
        assert chunk, f"build ended before its progress bar was drawn: {seen!r}"
        seen += chunk
    proc.send_signal(signal.SIGINT)
    out, rest = proc.communicate(timeout=120)
    err = (seen + rest).decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.rstrip().endswith("tokenguide build: interrupted (no file written)")
    assert not out_file.exists()


def test_build_ascii_flag(tmp_path, vocab_file, capsys):
    out_file = tmp_path / "d.outlines"
    code, _, err = run(["build", "--regex", r"\d+", "--ascii", "--vocab", vocab_file, "-o", out_file], capsys)
    assert code == 0, err
    assert Index.load(out_file) == Index(r"\d+", Vocabulary.from_file(vocab_file), ascii=True)


def test_build_progress_bar_when_asked(tmp_path, vocab_file, capsys):
    out_file = tmp_path / "p.outlines"
    code, _, err = run(["build", "--regex", "(ab|c)+", "--vocab", vocab_file, "--progress", "-o", out_file], capsys)
    assert code == 0
    assert "\r" in err and "states" in err and err.endswith("\n")
    # Not a terminal and no --progress: no bar.
    code, _, err = run(["build", "--regex", "(ab|c)+", "--vocab", vocab_file, "-o", out_file], capsys)
    assert code == 0 and "\r" not in err


def test_build_errors_are_one_clean_line(tmp_path, vocab_file, capsys):
    out_file = tmp_path / "z.outlines"
    cases = [
        ["build", "--regex", "a(b", "--vocab", vocab_file, "-o", out_file],  # bad regex
        ["build", "--regex", "a+", "--vocab", tmp_path / "missing.json", "-o", out_file],  # missing vocab
        ["build", "--regex", "a+", "--vocab", vocab_file, "--eos", "nosuchtoken", "-o", out_file],  # bad eos
        ["build", "--regex", "z+", "--vocab", vocab_file, "-o", out_file],  # vocabulary cannot spell it
        ["build", "--regex", "a+", "--vocab", vocab_file, "-o", tmp_path / "no" / "dir" / "x.outlines"],
        ["build", "--regex", "a{1,200000}", "--vocab", vocab_file, "--max-states", "50", "-o", out_file],
    ]
    for argv in cases:
        code, out, err = run(argv, capsys)
        assert code == 1, (argv, err)
        assert_clean_error(err)
    assert not out_file.exists()
    code, _, err = run(cases[1], capsys)
    assert "missing.json" in err


def test_build_usage_errors_exit_2(tmp_path, vocab_file, capsys):
    out_file = tmp_path / "u.outlines"
    for argv in (
        ["build", "--vocab", vocab_file, "-o", out_file],  # no source
        ["build", "--regex", "a", "--json-schema", "s.json", "--vocab", vocab_file, "-o", out_file],  # both
        ["build", "--regex", "a", "--vocab", vocab_file],  # no output
        ["build", "--regex", "a", "--vocab", vocab_file, "--max-states", "0", "-o", out_file],
        ["frobnicate"],
        [],
    ):
        code, _, err = run(argv, capsys)
        assert code == 2, argv
        assert "usage:" in err


def test_build_json_schema_hook(tmp_path, vocab_file, capsys):
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "integer"}', encoding="utf-8")
    out_file = tmp_path / "s.outlines"
    code, _, err = run(["build", "--json-schema", schema, "--vocab", vocab_file, "-o", out_file], capsys)
    if importlib.util.find_spec("tokenguide.json_schema") is None:
        assert code == 1
        assert_clean_error(err)
        assert "json_schema" in err
    else:
        assert code == 0, err
        assert Index.load(out_file).num_states > 0
        schema.write_text('{"type": "integer",', encoding="utf-8")  # not JSON
        code, _, err = run(["build", "--json-schema", schema, "--vocab", vocab_file, "-o", out_file], capsys)
        assert code == 1
        assert_clean_error(err)


def test_help_for_every_command(capsys):
    for argv in (["--help"], ["build", "--help"], ["inspect", "--help"], ["walk", "--help"]):
        code, out, _ = run(argv, capsys)
        assert code == 0
        assert out.startswith("usage: tokenguide")


@needs_processes
def test_python_dash_m_entry_point(tmp_path):
    env = {"PYTHONPATH": str(REPO / "py_src"), "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-m", "tokenguide", "--help"], capture_output=True, text=True, env=env)
    assert res.returncode == 0 and "build" in res.stdout
    res = subprocess.run(
        [sys.executable, "-m", "tokenguide", "inspect", str(tmp_path / "nope.outlines")],
        capture_output=True, text=True, env=env,
    )
    assert res.returncode == 1
    assert "Traceback" not in res.stderr and "nope.outlines" in res.stderr


# ---------------------------------------------------------------------------------------------
# inspect
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def built(tmp_path, vocab_file):
    path = tmp_path / "built.outlines"
    index = Index(r"(ab|c)+@[0-9]{1,3}", Vocabulary.from_file(vocab_file))
    index.save(path)
    return path, index


def test_inspect(built, vocab_file, capsys):
    path, index = built
    code, out, err = run(["inspect", path], capsys)
    assert code == 0, err
    data = path.read_bytes()
    assert f"file size:         {len(data):,} bytes" in out
    assert f"vocab_size:        {index.vocab_size:,}" in out
    assert f"initial state:     {index.initial_state}" in out
    assert f"transitions:       {index.num_transitions:,}" in out
    assert f"final states:      {len(index.final_states):,}: [{', '.join(map(str, sorted(index.final_states)))}]" in out
    busiest = max(index.states(), key=lambda s: (len(index.state_transitions(s)[0]), -s))
    assert f"  state {busiest}: {len(index.state_transitions(busiest)[0]):,} transitions" in out
    assert '"ab"' not in out  # no vocabulary: ids only
    code, out, err = run(["inspect", path, "--vocab", vocab_file], capsys)
    assert code == 0, err
    assert '"ab"' in out and "<|endoftext|> (eos)" in out
    code, out, err = run(["inspect", path, "--top", "2"], capsys)
    assert "(top 2)" in out
    assert sum(line.startswith("  state ") for line in out.splitlines()) == 2


def test_inspect_errors(tmp_path, built, vocab_file, capsys):
    path, _ = built
    bad = tmp_path / "bad.outlines"
    bad.write_bytes(path.read_bytes()[:-3])
    code, _, err = run(["inspect", bad], capsys)
    assert code == 1
    assert_clean_error(err)
    assert "gzip_trailer" in err
    for target in (tmp_path / "missing.outlines", tmp_path):
        code, _, err = run(["inspect", target], capsys)
        assert code == 1
        assert_clean_error(err)
        assert str(target) in err
    # A vocabulary that is not the one the index was built with.
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"a": 0, "b": 1, "<|endoftext|>": 2}), encoding="utf-8")
    code, _, err = run(["inspect", path, "--vocab", other], capsys)
    assert code == 1
    assert_clean_error(err)
    assert "vocab_size" in err


# ---------------------------------------------------------------------------------------------
# walk
# ---------------------------------------------------------------------------------------------


def test_walk_found_and_final(built, vocab_file, capsys):
    path, index = built
    code, out, err = run(["walk", path, "--vocab", vocab_file, "--text", "abcab@123"], capsys)
    assert code == 0, err
    assert "is final" in out
    # Shortest path: "abc" "ab" "@" "123" = 4 tokens.
    assert out.startswith("4 tokens spell")
    assert '"123"' in out


def test_walk_prefix_and_not_found(built, vocab_file, capsys):
    path, _ = built
    code, out, _ = run(["walk", path, "--vocab", vocab_file, "--text", "ab@"], capsys)
    assert code == 0
    assert "not final" in out
    code, out, _ = run(["walk", path, "--vocab", vocab_file, "--text", "ab@x"], capsys)
    assert code == 1
    assert "longest prefix some path spells is 3 bytes" in out
    code, out, _ = run(["walk", path, "--vocab", vocab_file, "--text", ""], capsys)
    assert code == 0 and out.startswith("0 tokens")


def test_walk_errors(tmp_path, built, vocab_file, capsys):
    path, _ = built
    code, _, err = run(["walk", tmp_path / "nope.outlines", "--vocab", vocab_file, "--text", "a"], capsys)
    assert code == 1
    assert_clean_error(err)
    code, _, err = run(["walk", path, "--text", "a"], capsys)
    assert code == 2


def test_walk_text_with_undecodable_argv_bytes(built, vocab_file, capsys):
    """`--text $'1\\xff'` reaches Python as "1\\udcff" (surrogateescape): searched as the bytes b"1\\xff"."""
    path, _ = built
    code, out, err = run(["walk", path, "--vocab", vocab_file, "--text", "ab@1\udcff"], capsys)
    assert code == 1, err
    assert "Traceback" not in err
    assert 'no token path spells "ab@1\\xff" (5 bytes)' in out
    assert "longest prefix some path spells is 4 bytes" in out
    # A lone surrogate that is not an escaped byte is not text: a clean error naming the option.
    code, out, err = run(["walk", path, "--vocab", vocab_file, "--text", "ab\ud800"], capsys)
    assert code == 1
    assert_clean_error(err)
    assert "--text" in err and "position 2" in err and "surrogate" in err


@needs_processes
def test_walk_text_with_undecodable_argv_bytes_from_a_real_argv(built, vocab_file):
    path, _ = built
    env = {"PYTHONPATH": str(REPO / "py_src"), "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    res = subprocess.run(
        [sys.executable.encode(), b"-m", b"tokenguide", b"walk", bytes(path), b"--vocab", bytes(vocab_file),
         b"--text", b"ab@1\xff"],
        capture_output=True, env=env,
    )
    assert res.returncode == 1, res.stderr
    assert b"Traceback" not in res.stderr
    assert b'no token path spells "ab@1\\xff"' in res.stdout


def test_find_token_path_multibyte_and_choice_of_end_state(vocab_file):
    vocab = Vocabulary.from_file(vocab_file)
    index = Index("(😀|é)+x?", vocab)
    text = "😀é😀".encode()
    path, end, reached = find_token_path(index, vocab, text)
    assert reached == len(text)
    assert b"".join(vocab.id_to_bytes(t) for t, _, _ in path) == text
    state = index.initial_state
    for token, before, after in path:
        assert before == state and index.get_next_state(state, token) == after
        state = after
    assert end == state and index.is_final_state(end)
    # "😀" needs two tokens; no path spells a lone partial character followed by "x".
    path, _, reached = find_token_path(index, vocab, b"\xf0\x9fx")
    assert path is None and reached == 2

    # Every path that spells the same bytes ends in the same (deterministic) automaton state.
    index = Index("(12|1)(3|23x)?", vocab)
    path, end, _ = find_token_path(index, vocab, b"123")
    assert [vocab.id_to_bytes(t) for t, _, _ in path] == [b"123"]
    assert index.is_final_state(end)


def test_find_token_path_is_shortest(vocab_file):
    vocab = Vocabulary.from_file(vocab_file)
    index = Index("[0-9]+", vocab)
    path, _, _ = find_token_path(index, vocab, b"1231231")
    assert [vocab.id_to_bytes(t) for t, _, _ in path] == [b"123", b"123", b"1"]


def test_walk_gpt2(tmp_path, gpt2_vocab_path, capsys):
    out_file = tmp_path / "g.outlines"
    code, _, err = run(["build", "--regex", r"[A-Z][a-z]+ (is|was) \d{2}", "--vocab", gpt2_vocab_path, "-o", out_file], capsys)
    assert code == 0, err
    code, out, _ = run(["walk", out_file, "--vocab", gpt2_vocab_path, "--text", "Alice was 42"], capsys)
    assert code == 0 and "is final" in out
    code, out, _ = run(["walk", out_file, "--vocab", gpt2_vocab_path, "--text", "alice was 42"], capsys)
    assert code == 1
    code, out, _ = run(["inspect", out_file, "--vocab", gpt2_vocab_path], capsys)
    assert code == 0 and "<|endoftext|>" in out


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def test_show_bytes():
    assert show_bytes(b"ab") == '"ab"'
    assert show_bytes(" é".encode()) == '" é"'
    assert show_bytes(b"\xf0\x9f") == '"\\xf0\\x9f"'
    assert show_bytes(b'a"\\\n\t\x00') == '"a\\"\\\\\\n\\t\\x00"'


def test_progress_bar_throttles(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(cli.time, "monotonic", lambda: now[0])
    stream = io.StringIO()
    bar = ProgressBar(stream, enabled=True)
    for done in range(1000):
        bar("states", done, 1000)
        now[0] += 0.001  # 1 ms per step: ~10 draws per second of simulated time
    bar("states", 1000, 1000)  # the last update is always drawn
    bar.close()
    draws = stream.getvalue().count("\r")
    assert 9 <= draws <= 13
    assert stream.getvalue().rstrip().endswith("1,000/1,000")
    # A new stage is drawn at once.
    stream = io.StringIO()
    bar = ProgressBar(stream, enabled=True)
    bar("vocabulary", 0, 1)
    bar("states", 0, 5)
    assert stream.getvalue().count("\r") == 2
    # Disabled: nothing at all.
    stream = io.StringIO()
    bar = ProgressBar(stream, enabled=False)
    bar("states", 1, 2)
    bar.close()
    assert stream.getvalue() == ""


@needs_processes
def test_example_script_create_index_binary(tmp_path, vocab_file):
    out_file = tmp_path / "t.outlines"
    res = subprocess.run(
        [sys.executable, str(REPO / "tools/create_index_binary.py"), "(ab|c)+", str(vocab_file), str(out_file)],
        capture_output=True, text=True,
    )
    assert res.returncode == 0, res.stderr
    assert "wrote" in res.stdout
    assert Index.load(out_file) == Index("(ab|c)+", Vocabulary.from_file(vocab_file))
