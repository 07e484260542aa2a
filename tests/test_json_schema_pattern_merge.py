"""allOf of schemas with patternProperties (normalize merge: both maps together, each key takes
every matching pattern's schema): differential against `jsonschema` on generated objects on
the regex path and on the engine path (the engine's recogniser as the acceptor: the key-class
intersections written without lookaheads); what additionalProperties would change stays
refused by name."""

from __future__ import annotations

import itertools
import json
import random
import re

import grammar_oracle
import jsonschema
import pytest

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema

SCHEMAS = {
    "two patterns": {"type": "object", "allOf": [
        {"type": "object", "patternProperties": {"a": {"type": "number", "minimum": 10}}},
        {"type": "object", "patternProperties": {"b": {"type": "number", "minimum": 3}}}], "minProperties": 1},
    "one pattern in both": {"type": "object", "patternProperties": {"^x": {"type": "integer"}},
                            "allOf": [{"patternProperties": {"^x": {"minimum": 5}, "^1": {"type": "array"}}}]},
    "closed, the other's patterns false": {
        "type": "object", "patternProperties": {"^[0-9]$": {"type": "array", "minItems": 2}},
        "additionalProperties": False, "allOf": [{"patternProperties": {"^(1|4)$": False}}]},
    "with properties": {"type": "object", "properties": {"ab": {"type": "integer"}}, "allOf": [
        {"patternProperties": {"^a": {"minimum": 3}}}, {"patternProperties": {"b$": {"maximum": 20}}}]},
    "patterns beside the other side's additionalProperties": {"type": "object", "allOf": [
        {"properties": {"a": {"type": "integer"}}, "patternProperties": {"^x": {"type": "integer"}}},
        {"properties": {"ab": {}}, "additionalProperties": {"type": ["integer", "string"], "minimum": 5}}]},
}

KEYS = ["a", "b", "ab", "x1", "xy", "1", "4", "5", "c"]
VALUES = [1, 5, 12, 30, "s", [1, 2], [1], None]


def _objects(seed: int, n: int = 120) -> list[dict]:
    rnd = random.Random(seed)
    out: list[dict] = [{}]
    for size in (1, 2, 3):
        for _ in range(n // 3):
            keys = rnd.sample(KEYS, size)
            out.append({k: rnd.choice(VALUES) for k in keys})
    return out


def _texts(obj: dict) -> list[str]:
    """The object in every key order (the regex path writes undeclared keys in any order, a
    declared one first)."""
    return [json.dumps(dict(p)) for p in itertools.permutations(obj.items())]


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_pattern_properties_merged_match_jsonschema(name):
    schema = SCHEMAS[name]
    rx = re.compile(build_regex_from_schema(schema))
    lark_ok = grammar_oracle.acceptor(compile_json_schema(schema, path="engine"))
    v = jsonschema.Draft202012Validator(schema)
    seen = {True: 0, False: 0}
    for obj in _objects(len(name)):
        want = v.is_valid(obj)
        seen[want] += 1
        texts = _texts(obj)
        assert any(rx.fullmatch(t) for t in texts) == want, obj
        assert all(bool(rx.fullmatch(t)) <= want for t in texts), obj
        assert any(lark_ok(t) for t in texts) == want, obj
        assert all(lark_ok(t) <= want for t in texts), obj
    assert seen[True] and seen[False]


def test_closed_schema_with_other_patterns_that_allow_keys_is_refused():
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"type": "object", "patternProperties": {"^a": {}}, "additionalProperties": False,
                                 "allOf": [{"patternProperties": {"^b": {"type": "string"}}}]})
    assert (err.value.keyword, err.value.pointer) == ("patternProperties", "#/allOf/0")
    assert "additionalProperties" in str(err.value)


def test_patterns_beside_additional_properties_naming_a_matching_key_stay_refused():
    """The other side declares `xy`, which `^x` matches: `xy` must not take that side's
    additionalProperties, so the pattern's schema cannot take it along (still refused by name)."""
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"type": "object", "allOf": [
            {"patternProperties": {"^x": {"type": "integer"}}},
            {"properties": {"xy": {}}, "additionalProperties": {"minimum": 5}}]})
    assert err.value.keyword == "patternProperties" and "additionalProperties" in str(err.value)
