"""Outputs do not depend on PYTHONHASHSEED: a schema compiled in subprocesses under different
seeds gives the same engine grammar (as Lark text) / regex text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lark")

SRC = str(Path(__file__).resolve().parents[1] / "py_src")

# a schema with the shapes that go through sets and dicts: if/then in an allOf, overlapping
# oneOf, patternProperties, a not, enums of several types; and a recursive $ref (engine path)
SCHEMA = {
    "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                                                      "tag": {"enum": ["a", 1, None, True]}}}},
    "type": "object",
    "properties": {
        "kind": {"enum": ["x", "y", "z"]},
        "val": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "number", "maximum": 10}]},
        "name": {"type": "string", "not": {"pattern": "^_"}},
    },
    "patternProperties": {"^x-": {"type": "string"}},
    "allOf": [{"if": {"properties": {"kind": {"const": "x"}}}, "then": {"required": ["val"]}},
              {"if": {"properties": {"kind": {"const": "y"}}}, "then": {"required": ["name"]}}],
}

RECURSIVE = {**{k: v for k, v in SCHEMA.items() if k != "allOf"}, "properties": {**SCHEMA["properties"], "name": {"type": "string"},
                                       "tree": {"$ref": "#/$defs/node"}}}

COMPILE = f"""
from tokenguide.json_schema import compile_json_schema
for schema, path in (({SCHEMA!r}, "engine"), ({SCHEMA!r}, "regex"), ({RECURSIVE!r}, "engine")):
    try:
        c = compile_json_schema(schema, path=path)
        print(path, c.path, c.engine.to_lark() if c.engine is not None else c.regex)
    except Exception as exc:
        print(path, type(exc).__name__, exc)
"""

def run(code: str, seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": SRC}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_compiled_text_is_the_same_under_two_hash_seeds():
    first = run(COMPILE, 1)
    assert first.startswith("engine engine ") and "\nregex regex " in first and first.count("engine engine ") == 2
    assert run(COMPILE, 2) == first
