"""guides.cfg.lalr: Lark's LALR(1) tables computed on integers must be Lark's tables exactly.

The oracle is Lark's own analyzer (`Lark(..., parser="lalr")` unpatched). Tables are compared
in a canonical form (states numbered breadth-first from the start state, transitions by symbol
name, reductions by rule), over the package's grammars, grammars the JSON Schema grammar path
writes, and random grammars with nullable, recursive and cyclic rules (where LALR's reads and
includes relations have cycles).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lark import Lark
from lark.exceptions import GrammarError as LarkGrammarError

from grammar_oracle import schema_lark

from tokenguide.grammars import GRAMMAR_PATH
from tokenguide.guides.cfg.grammar import build_lark, clear_lark_cache, parse_table
from tokenguide.guides.cfg.lalr import canonical_table, closure_of



def lark_table(text: str, strict: bool = False):
    """Lark's own table for `text` (its analyzer, not ours), or the GrammarError text."""
    try:
        parser = Lark(text, parser="lalr", lexer="contextual", maybe_placeholders=False, strict=strict,
                      import_paths=[GRAMMAR_PATH])
    except LarkGrammarError as exc:
        return ("error", type(exc).__name__)
    return canonical_table(parse_table(parser))


def our_table(text: str, strict: bool = False):
    clear_lark_cache()
    try:
        parser = build_lark(text, strict=strict)
    except LarkGrammarError as exc:
        return ("error", type(exc).__name__)
    return canonical_table(parse_table(parser))


@pytest.mark.parametrize("name", ["json", "arithmetic", "csv"])
def test_package_grammars(name):
    text = Path(GRAMMAR_PATH, f"{name}.lark").read_text()
    assert our_table(text) == lark_table(text)


SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"},
                                      "c": {"type": "array", "items": {"$ref": "#"}}}},
    {"anyOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
               {"type": "array", "items": {"type": "number"}}]},
    {"type": "object", "additionalProperties": True, "properties": {"k": {"enum": [1, 2, "three"]}}},
    {"$defs": {"node": {"type": "object", "properties": {"value": {}, "next": {"$ref": "#/$defs/node"}},
                        "required": ["value"]}}, "$ref": "#/$defs/node"},
    {"type": "object", "properties": {n: {"type": ["string", "null"]} for n in "abcdefg"}},
]


@pytest.mark.parametrize("index", range(len(SCHEMAS)))
def test_json_schema_grammars(index):
    text = schema_lark(f"lalr_{index}")  # (the grammar path's text for SCHEMAS[index])
    assert our_table(text, strict=True) == lark_table(text, strict=True)


def random_grammar(rng: random.Random) -> str:
    """A random grammar over a few terminals: nullable rules, left and right recursion, cycles."""
    names = [f"r{i}" for i in range(rng.randint(2, 6))]
    symbols = names + ['"a"', '"b"', '"c"', '"d"']
    small = rng.random() < 0.5  # (fewer and shorter alternatives: more grammars without conflicts)
    lines = []
    for i, name in enumerate(names):
        alts = set()
        for _ in range(rng.randint(1, 2 if small else 3)):
            alts.add(" ".join(rng.choice(symbols) for _ in range(rng.randint(0, 3 if small else 4))))
        if i + 1 < len(names):  # every rule reachable from the start
            alts.add(f'"a" {names[i + 1]}')
        lines.append(f"{'start' if i == 0 else name}: " + " | ".join(sorted(alts)))
    text = "\n".join(lines).replace(" r0", " start").replace("r0 ", "start ")
    return text + "\n"


@pytest.mark.parametrize("seed", range(300))
def test_random_grammars(seed):
    text = random_grammar(random.Random(seed))
    assert our_table(text) == lark_table(text), text


def test_closure_of_cycles_and_chains():
    # 0 -> 1 -> 2 -> 0 (a cycle), 3 -> 0, 4 alone; a long chain that recursion would not survive
    base = [1, 2, 4, 8, 16]
    assert closure_of(base, [[1], [2], [0], [0], []]) == [7, 7, 7, 15, 16]
    n = 50_000
    chain = closure_of([1 << (i % 7) for i in range(n)], [[i + 1] if i + 1 < n else [] for i in range(n)])
    assert chain[0] == 127 and chain[-1] == 1 << ((n - 1) % 7)


_NUMBERING = r"""
import sys
from tokenguide.guides.cfg.grammar import build_lark, parse_table
text = TEXT
table = parse_table(build_lark(text))
print(sorted((s, sorted((k, str(a), b if str(a) == "Shift" else str(b)) for k, (a, b) in row.items()))
             for s, row in table.states.items()), table.start_states, table.end_states)
try:
    build_lark('start: x "a" | y "a"\nx: "b"\ny: "b"\n', strict=True)
except Exception as exc:
    print(exc)
"""


def test_state_numbers_and_conflicts_are_the_same_under_every_hash_seed():
    """States are numbered, and conflicts reported, in symbol-name order: not in the order sets of
    Lark's symbols iterate in, which PYTHONHASHSEED changes (Lark's own numbering follows addresses)."""
    import os
    import subprocess
    import sys

    src = str(Path(__file__).resolve().parents[1] / "py_src")
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=src)
        code = _NUMBERING.replace("TEXT", repr(schema_lark("numbering")), 1)
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.add(run.stdout)
    (out,) = outputs
    assert "Reduce/Reduce collision" in out and "'start': 0" in out
