"""unevaluatedProperties / unevaluatedItems (module json_schema.unevaluated), judged against
jsonschema's 2020-12 and 2019-09 validators on every small instance over a pool of names and
values, on both compile paths; and the named refusals where branches decide what is evaluated."""

from __future__ import annotations

import itertools
import json

import jsonschema
import pytest
from grammar_oracle import acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema

D2019 = "https://json-schema.org/draft/2019-09/schema"

OBJECTS = {
    "own properties only": {"type": "object", "properties": {"a": {"type": "integer"}},
                            "unevaluatedProperties": False},
    "allOf members evaluate": {"type": "object", "properties": {"a": {"type": "integer"}},
                               "allOf": [{"properties": {"b": {"type": "string"}}}],
                               "unevaluatedProperties": False},
    "$ref target evaluates": {"$defs": {"base": {"properties": {"b": {"type": "string"}},
                                                 "patternProperties": {"^x": {"type": "null"}}}},
                              "$ref": "#/$defs/base", "properties": {"a": {"type": "integer"}},
                              "unevaluatedProperties": {"type": "boolean"}},
    "additionalProperties in a member evaluates the rest": {
        "allOf": [{"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}],
        "unevaluatedProperties": False},
    "nested unevaluated in a member": {
        "allOf": [{"properties": {"a": {"type": "integer"}}, "unevaluatedProperties": {"type": "string"}}],
        "properties": {"b": {"type": "null"}}, "unevaluatedProperties": False},
    "untyped, 2019-09": {"$schema": D2019, "properties": {"a": {"type": "integer"}},
                         "allOf": [{"properties": {"b": True}}], "unevaluatedProperties": {"type": "null"}},
    "not and required do not evaluate": {"type": "object", "properties": {"a": {"type": "integer"}},
                                         "not": {"required": ["b"]}, "dependentRequired": {"a": ["c"]},
                                         "unevaluatedProperties": {"type": "string"}},
}
NAMES = ["a", "b", "c", "x1"]
VALUES = [1, "s", None, True]

ARRAYS = {
    "prefixItems only": {"type": "array", "prefixItems": [{"type": "integer"}], "unevaluatedItems": False},
    "prefix from allOf, rest as a schema": {"allOf": [{"prefixItems": [{"type": "integer"}, {"type": "string"}]}],
                                            "unevaluatedItems": {"type": "null"}},
    "items evaluates every item": {"allOf": [{"items": {"type": ["integer", "string"]}}], "unevaluatedItems": False},
    "2019-09 items array": {"$schema": D2019, "type": "array", "items": [{"type": "string"}],
                            "unevaluatedItems": {"type": "integer"}},
}


def _objects() -> list:
    out: list = [None, 3, "a", [1]]
    for k in range(0, 4):
        for names in itertools.combinations(NAMES, k):
            for values in itertools.product(VALUES, repeat=k):
                if k <= 2 or len(set(map(type, values))) == 1:
                    out.append(dict(zip(names, values)))
    return out


def _arrays() -> list:
    out: list = [None, {"a": 1}, "s"]
    for k in range(0, 4):
        out.extend(list(v) for v in itertools.product(VALUES, repeat=k))
    return out


def _spellings(x) -> list[str]:
    """Compact JSON texts of x with its top-level keys in every order (the output order is the
    compiler's; the language must hold a valid instance in one of them, an invalid one in none)."""
    if isinstance(x, dict) and x:
        return [json.dumps(dict(p), separators=(",", ":")) for p in itertools.permutations(x.items())]
    return [json.dumps(x, separators=(",", ":"))]


def _disagreements(schema: dict, path: str, instances: list) -> list:
    accepts = acceptor(compile_json_schema(schema, path=path))
    validator = jsonschema.validators.validator_for(schema)(schema)
    wrong = []
    for x in instances:
        if validator.is_valid(x) != any(accepts(t) for t in _spellings(x)):
            wrong.append(x)
    return wrong


CASES = {**{("object", n): s for n, s in OBJECTS.items()}, **{("array", n): s for n, s in ARRAYS.items()}}


@pytest.mark.parametrize("path", ["regex", "engine"])
@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: f"{c[0]}: {c[1]}")
def test_unevaluated_keywords_agree_with_jsonschema(case, path):
    schema = CASES[case]
    instances = _objects() if case[0] == "object" else _arrays()
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert 0 < sum(validator.is_valid(x) for x in instances) < len(instances)  # both kinds
    assert _disagreements(schema, path, instances) == []


def test_draft_7_ignores_unevaluated_properties():
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"a": {"type": "integer"}}, "unevaluatedProperties": False}
    assert _disagreements(schema, "regex", _objects()) == []
    assert acceptor(compile_json_schema(schema))('{"a":1,"b":2}')


REFUSED = {
    "anyOf branches evaluate": ({"type": "object", "anyOf": [{"properties": {"a": True}}, {"properties": {"b": True}}],
                                 "unevaluatedProperties": False}, "unevaluatedProperties", "#/unevaluatedProperties",
                                "#/anyOf"),
    "if evaluates": ({"type": "object", "if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]},
                      "unevaluatedProperties": False}, "unevaluatedProperties", "#/unevaluatedProperties", "#/if"),
    "oneOf in a member": ({"allOf": [{"oneOf": [{"properties": {"a": True}}, {"required": ["b"]}]}],
                           "unevaluatedProperties": False}, "unevaluatedProperties", "#/unevaluatedProperties",
                          "oneOf"),
    "contains beside unevaluatedItems": ({"type": "array", "contains": {"type": "integer"},
                                          "unevaluatedItems": False}, "unevaluatedItems", "#/unevaluatedItems",
                                         "contains"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_branch_dependent_evaluation_is_refused_by_name(name):
    schema, keyword, pointer, mention = REFUSED[name]
    for path in ("regex", "engine"):
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema(schema, path=path)
        assert info.value.keyword == keyword and info.value.pointer == pointer
        assert mention in str(info.value) and "not supported" in str(info.value)
