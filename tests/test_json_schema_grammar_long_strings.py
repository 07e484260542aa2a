"""Long counted strings (minLength/maxLength in the hundreds or thousands) on the grammar path:
blocks of STRING_BLOCK characters and a tail, one rule per block count (strings.counted_string),
instead of one terminal whose automaton outgrows the checks.

Oracles: `jsonschema` (validity), Lark itself (tests/grammar_oracle.py) and the regex path
(`re.fullmatch`, which writes the count whole).
"""

from __future__ import annotations

import json
import random

import pytest

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("lark")

import grammar_oracle  # noqa: E402

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from tokenguide.json_schema.strings import MAX_STRING_BLOCKS, STRING_BLOCK  # noqa: E402

K = STRING_BLOCK
CHARS = ["a", "é", "\n", '"', "\\", "\x01", "/", "\U0001f600", " "]


def tree(string: dict) -> dict:
    """A recursive schema (so the grammar path) with one string property `s`."""
    return {"$defs": {"n": {"type": "object", "properties": {
        "s": {"type": "string", **string}, "kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
        "additionalProperties": False}}, "$ref": "#/$defs/n"}


def lengths(lo: int, hi: int | None) -> list[int]:
    """Lengths at the bounds and at block boundaries, on both sides."""
    out = {0, 1, lo, hi or lo + 3 * K}
    for b in range(1, (hi or lo + 3 * K) // K + 2):
        out.update((b * K - 1, b * K, b * K + 1))
    return sorted(n for x in out for n in (x - 1, x, x + 1) if n >= 0)


def text_of(n: int, rng: random.Random) -> str:
    return "".join(rng.choice(CHARS) if rng.random() < 0.3 else "x" for _ in range(n))


@pytest.mark.parametrize("lo,hi", [(0, 3 * K + 5), (K + 3, 5 * K), (2 * K + 1, None), (4 * K, 4 * K), (0, 2 * K + 1)])
def test_long_strings_match_jsonschema_lark_and_the_regex_path(lo, hi):
    string = {"minLength": lo} | ({} if hi is None else {"maxLength": hi})
    schema = tree(string)
    compiled = compile_json_schema(schema, path="grammar")
    assert compiled.path == "grammar"
    assert f"{{{K}}}" in compiled.grammar  # written as blocks (not one count of hi characters)
    lark_ok = grammar_oracle.acceptor(compiled)
    regex_ok = grammar_oracle.acceptor(compile_json_schema(schema, path="regex"))
    validator = jsonschema.Draft202012Validator(schema)
    rng = random.Random(lo * 7 + (hi or 1))
    seen = {True: 0, False: 0}
    for n in lengths(lo, hi):
        s = text_of(n, rng)
        for inst in ({"s": s}, {"s": s, "kids": [{"s": s[: max(lo, 0)]}, {}]}):
            text = json.dumps(inst, ensure_ascii=False, separators=(",", ":"))
            valid = validator.is_valid(inst)
            seen[valid] += 1
            assert lark_ok(text) == valid, (n, text[:80])
            if "kids" not in inst:
                assert regex_ok(text) == valid, (n, text[:80])
    assert seen[True] and seen[False]


def test_short_counts_stay_one_terminal():
    grammar = compile_json_schema(tree({"maxLength": 2 * K}), path="grammar").grammar
    assert f"{{0,{2 * K}}}" in grammar


@pytest.mark.parametrize("kw,lengths", [("minLength", {"minLength": (MAX_STRING_BLOCKS + 1) * K}),
                                        ("maxLength", {"minLength": K, "maxLength": (MAX_STRING_BLOCKS + 1) * K})])
def test_lengths_past_the_block_rules_are_refused_by_keyword(kw, lengths):
    """A minLength past the block rules, or a maxLength past them beside a minLength of a block
    or more (a maxLength alone is counted digit by digit: test_json_schema_grammar_expansion)."""
    schema = tree(lengths)
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="grammar")
    assert (info.value.keyword, info.value.pointer) == (kw, f"#/$defs/n/properties/s/{kw}")
    with pytest.warns(UserWarning, match=kw):
        lenient = compile_json_schema(schema, path="grammar", lenient=True)
    assert grammar_oracle.acceptor(lenient)('{"s":"' + "x" * 10 + '"}')
