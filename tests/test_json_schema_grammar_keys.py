"""Keys that need a lookahead (patternProperties with additionalProperties, propertyNames) on the
grammar path: written without one from their exact automaton (json_schema.automaton_regex).

Oracles: `re.fullmatch` of the lookahead regex (the same language), `jsonschema` (validity) and
Lark itself (tests/grammar_oracle.py: the grammar's language is what Lark's parser accepts).
"""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("lark")

import grammar_oracle  # noqa: E402

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from tokenguide.json_schema.automaton_regex import lookahead_free  # noqa: E402
from tokenguide.json_schema.text import STRING, not_in_keys, value_difference, value_intersection  # noqa: E402

LOOKAHEADS = [
    value_difference('"' + not_in_keys(["a", "abc", "b"]) + '"', '"abc.+"'),
    value_difference(STRING, '"(?:iglu:|x).*"'),
    value_intersection('"[a-z]+"', '"(?:[^"\\\\]|\\\\.){0,5}"'),
    value_difference('"[a-d]"', '(?:"a"|"b")'),
    value_intersection('"(?:é|[0-9])+"', '"[^"]{2,3}"'),
]
ALPHABET = ['a', 'b', 'c', 'x', 'i', 'g', 'l', 'u', ':', '0', 'é', '\\"', '\\n', '\\\\', 'z']


def keys(n: int, seed: int) -> list[str]:
    """Quoted candidate keys: every short one over ALPHABET, then random longer ones."""
    out = ['"' + "".join(p) + '"' for k in range(3) for p in itertools.product(ALPHABET, repeat=k)]
    rng = random.Random(seed)
    out += ['"' + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(3, 9))) + '"' for _ in range(n)]
    return out + ['"abc"', '"abcd"', '"iglu:x"', '"aaaaa"', '"aaaaaa"', '"é0"', '"é0é"', '"é0é0"']


@pytest.mark.parametrize("regex", LOOKAHEADS)
def test_lookahead_free_is_the_same_language(regex):
    plain = lookahead_free(regex)
    assert plain is not None and "(?=" not in plain and "(?!" not in plain
    a, b = re.compile(regex), re.compile(plain)
    for k in keys(400, len(regex)):
        assert (a.fullmatch(k) is None) == (b.fullmatch(k) is None), k


def test_lookahead_free_refuses_what_it_cannot_write():
    assert lookahead_free(value_difference('"a"', '"a"')) is None  # nothing left
    assert lookahead_free('"[a-z]{1,300}"') is None  # nests one group per count
    assert lookahead_free('"\U000f0005"', (0xF0000, 0xFFFFF)) is None  # a reserved character


def tree(extra: dict) -> dict:
    """A recursive schema (so the grammar path) whose objects take `extra`'s key keywords."""
    return {"$defs": {"n": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}},
                                                             "id": {"type": "integer"}}, **extra}},
            "$ref": "#/$defs/n"}


SCHEMAS = [
    {"patternProperties": {"^abc.+$": {"type": "string"}}},
    {"patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}},
    {"patternProperties": {"^[a-e]$": True}, "additionalProperties": False},
    {"propertyNames": {"maxLength": 3}, "patternProperties": {"^i": {"type": "integer"}}},
    {"patternProperties": {"^i": {"type": "integer"}, "d$": {"type": "string"}}, "additionalProperties": False},
]
NAMES = ["kids", "id", "a", "b", "e", "f", "abc", "abcd", "abcé", "x", "xy", "i", "id2", "d", "idd", "zz", "ab\"c", ""]
VALUES = [0, "s", True, None, [], {}]


def ordered(obj: dict) -> dict:
    """`obj` with its keys in the output format's order: declared properties first, in order."""
    return {k: obj[k] for k in sorted(obj, key=lambda k: ("kids", "id", k).index(k) if k in ("kids", "id") else 2)}


def instances(seed: int) -> list:
    """Objects of a few members (names and values from the lists above), some nested in kids."""
    rng = random.Random(seed)
    out: list = []
    for _ in range(300):
        obj = {rng.choice(NAMES): rng.choice(VALUES) for _ in range(rng.randint(0, 3))}
        if "kids" in obj or rng.random() < 0.3:
            inner = {rng.choice(NAMES): rng.choice(VALUES) for _ in range(rng.randint(0, 2))}
            inner.pop("kids", None)
            obj["kids"] = [ordered(inner)]
        out.append(ordered(obj))
    return out


@pytest.mark.parametrize("extra", SCHEMAS)
def test_grammar_keys_match_jsonschema_and_the_regex_path(extra):
    schema = tree(extra)
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.path == "engine"
    lark_ok = grammar_oracle.acceptor(compiled)
    regex_ok = grammar_oracle.acceptor(compile_json_schema(schema, path="regex"))
    validator = jsonschema.Draft202012Validator(schema)
    seen = {True: 0, False: 0}
    for inst in instances(len(json.dumps(extra))):
        text = json.dumps(inst, ensure_ascii=False, separators=(",", ":"))
        valid = validator.is_valid(inst)
        seen[valid] += 1
        assert lark_ok(text) == valid, text
        if "kids" not in inst or not inst["kids"][0]:
            assert regex_ok(text) == valid, text  # within the regex path's depth cap
    assert seen[True] and seen[False]


def test_auto_path_takes_the_exact_grammar_for_recursive_pattern_keys():
    compiled = compile_json_schema(tree(SCHEMAS[0]))
    assert compiled.path == "engine" and not compiled.depth_capped


def test_keys_too_large_to_write_are_still_refused_by_keyword():
    schema = tree({"patternProperties": {"^[a-z]{1,300}$": {"type": "string"}}})
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="engine")
    assert info.value.keyword == "patternProperties"
