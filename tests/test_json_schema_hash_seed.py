"""Outputs do not depend on PYTHONHASHSEED: a schema compiled in subprocesses under different
seeds gives the same grammar / regex text, and a grammar refusal names the same terminals
(Lark numbers its LALR states in an order that depends on the seed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lark")

SRC = str(Path(__file__).resolve().parents[1] / "py_src")

# a schema with the shapes that go through sets and dicts: if/then in an allOf, overlapping
# oneOf, patternProperties, a not, enums of several types; and a recursive $ref (grammar path)
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
for schema, path in (({SCHEMA!r}, "grammar"), ({SCHEMA!r}, "regex"), ({RECURSIVE!r}, "grammar")):
    try:
        c = compile_json_schema(schema, path=path)
        print(path, c.path, c.grammar or c.regex)
    except Exception as exc:
        print(path, type(exc).__name__, exc)
"""

# two states each accept a pair of terminals that can both match (T1/T2 after T5, T6/T7 at the
# start): the refusal names the pair first in name order, whatever Lark's state numbering
CHECK = """
from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema.grammar_checks import check_grammar
terms = {"a": "T1", "a[bc]": "T2", "q": "T5", "m": "T6", "m[n]": "T7"}
text = "start: T5 T1 | T5 T2 | T6 | T7 T1\\n" + "".join(f"{n}: /{r}/\\n" for r, n in terms.items())
try:
    check_grammar(text, terms, set())
    print("accepted")
except UnsupportedSchemaError as exc:
    print(exc)
"""


def run(code: str, seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": SRC}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_compiled_text_is_the_same_under_two_hash_seeds():
    first = run(COMPILE, 1)
    assert first.startswith("grammar grammar ") and "\nregex regex " in first and first.count("grammar grammar ") == 2
    assert run(COMPILE, 2) == first


def test_refusal_names_the_same_terminals_under_two_hash_seeds():
    outs = [run(CHECK, seed) for seed in (1, 2, 4)]  # the unsorted check named T6 and T7 under seed 4
    assert "terminals T1 and T2 can both match" in outs[0]
    assert outs[1] == outs[0] and outs[2] == outs[0]
