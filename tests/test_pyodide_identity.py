"""Indexes built inside Pyodide (Python 3.14) are byte-for-byte the ones CPython builds."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "tests" / "pyodide" / "run_pytest.mjs"
WHEELS = REPO / ".cache" / "wheels"

REGEXES = [
    r"\d{3}-\d{2}-\d{4}",
    r"\w+@\w+\.(com|org)",
    r"(?i)[a-zé]+\s?😀?",
    r'"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt]){0,8}"',
    r"(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?",
]

SCRIPT = """
import hashlib, json, sys
sys.path.insert(0, {py_src!r})
from tokenguide.vocabulary import Vocabulary
from tokenguide.index import Index
vocab = Vocabulary.from_file({vocab!r})
out = [hashlib.sha256(Index(r, vocab).to_bytes()).hexdigest() for r in {regexes!r}]
open({out!r}, "w").write(json.dumps(out))
"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "emscripten", reason="drives Pyodide from CPython"),
]


def test_gpt2_indexes_identical_in_pyodide(gpt2_vocab_path, gpt2_vocabulary, tmp_path):
    if shutil.which("node") is None or not WHEELS.is_dir():
        pytest.skip("node or .cache/wheels missing: run `python3 build.py test`")
    from tokenguide.index import Index

    out = tmp_path / "hashes.json"
    script = tmp_path / "build_in_pyodide.py"
    script.write_text(SCRIPT.format(py_src=str(REPO / "py_src"), vocab=str(gpt2_vocab_path), regexes=REGEXES, out=str(out)))
    res = subprocess.run(["node", str(HARNESS), str(REPO), str(WHEELS), "--exec", str(script)],
                         capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, res.stdout + res.stderr
    theirs = json.loads(out.read_text())
    ours = [hashlib.sha256(Index(r, gpt2_vocabulary).to_bytes()).hexdigest() for r in REGEXES]
    assert ours == theirs
