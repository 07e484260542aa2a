"""anyOf/oneOf unions of objects whose members are objects and arrays, on the engine path
(Snowplow sp_343: over 4,000 states as one automaton's text, so "auto" once fell back to the
depth-capped regex and rejected a valid deep instance). Judged against jsonschema on mutants of
valid instances, deep free-form values among them, with the engine's recogniser (grammar_oracle)."""

from __future__ import annotations

import copy
import json
import random
import warnings

import jsonschema
import pytest
from grammar_oracle import acceptor
from random_json import chain, nesting, random_values

from tokenguide.json_schema import compile_json_schema

_OBJ = {"type": "object"}
LEAVES = [0, 7, -3, 2.5, "", "A", "B", "x", "ValidationError", "a long text!", None, True, False]
KEYS = ["kind", "field", "json", "k", "deep", "n", "m", "extra", "zz"]

# sp_343 in small: branches sharing their first key (a string, an enum, a typeless anyOf of
# objects whose other values are free-form), a free-form member, arrays of objects inside
BAD_ROWS = {"type": "array", "items": {"anyOf": [
    {**_OBJ, "properties": {"kind": {"type": "string"}, "field": {"type": "string", "maxLength": 8}},
     "required": ["kind", "field"], "additionalProperties": False},
    {**_OBJ, "properties": {"kind": {"enum": ["A", "B"]}, "json": {}}, "required": ["kind", "json"],
     "additionalProperties": False},
    {**_OBJ, "properties": {"kind": {"anyOf": [
        {"properties": {"k": {"enum": ["x"]}, "deep": {"type": "array", "items": {
            **_OBJ, "properties": {"n": {"type": "integer"}}}}}, "required": ["k"], "additionalProperties": False},
        {"properties": {"m": {"type": ["array", "null"]}}, "required": ["m"], "additionalProperties": False}]},
        "extra": {"type": "string"}}, "additionalProperties": False}]}}
BAD_ROWS_SEEDS = [
    [{"kind": "parse", "field": "event"}, {"kind": "A", "json": {"a": [1, {"b": None}]}}],
    [{"kind": {"k": "x", "deep": [{"n": 1}, {}]}, "extra": "s"}, {"kind": {"m": [[], {"q": [1]}]}}],
    [{"kind": {"m": None}}, {"kind": "B", "json": "text"}, {"kind": 3}, {"kind": [1, [2]]}, {}],
]

CASES = {
    "bad rows": (BAD_ROWS, BAD_ROWS_SEEDS),
}


def _mutants(rnd: random.Random, seeds: list, n: int) -> list:
    """The seeds, and `n` copies of them with one value replaced (by a random value, a chain of
    arrays/objects 5-7 deep, or a scalar), one member deleted or an undeclared member added (last,
    where the output format puts undeclared members)."""
    out = [copy.deepcopy(s) for s in seeds]
    pool = random_values(rnd, 64, LEAVES, KEYS, leaf=0.4, array=0.3, array_len=2, deep=0.15)
    for _ in range(n):
        x = copy.deepcopy(rnd.choice(seeds))
        places = []  # (container, key) of every value below the root

        def walk(v):
            items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
            for k, sub in items:
                places.append((v, k))
                walk(sub)

        walk(x)
        if not places:
            out.append(x)
            continue
        where, key = rnd.choice(places)
        r = rnd.random()
        if r < 0.5:
            where[key] = rnd.choice(pool) if r < 0.3 else chain(rnd, rnd.randint(5, 7), LEAVES, KEYS)
        elif r < 0.75:
            del where[key]
        elif isinstance(where, dict):
            where["zz"] = rnd.choice(LEAVES)
        else:
            where.append(rnd.choice(pool))
        out.append(x)
    return out


def _text(x) -> str:
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def _wrong(schema, accepts, instances) -> list:
    """Where `accepts` (on the compact text, keys as written: schema order) and jsonschema disagree."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [x for x in instances if validator.is_valid(x) != accepts(_text(x))]


@pytest.mark.parametrize("name", sorted(CASES))
def test_unions_of_nested_objects_take_the_exact_grammar_path(name):
    schema, seeds = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a depth-capped fallback warns
        compiled = compile_json_schema(schema, path="engine")
        auto = compile_json_schema(schema)  # the engine path, where the first Lark grammar is refused
    assert compiled.path == "engine" and not compiled.depth_capped
    assert auto.path == "engine" and not auto.depth_capped
    instances = _mutants(random.Random(name), seeds, 400)
    validator = jsonschema.validators.validator_for(schema)(schema)
    valid = [x for x in instances if validator.is_valid(x)]
    assert len(instances) // 5 < len(valid) < len(instances) - len(instances) // 5  # both kinds
    assert max(map(nesting, valid)) >= 6  # deeper than the regex path's free-form cap
    assert _wrong(schema, acceptor(compiled), instances) == []
    assert _wrong(schema, acceptor(auto), instances) == []


# anyOf/oneOf unions of objects with nested members, on the engine path
VALUE_RULE_CASES = {
    "bad rows": (BAD_ROWS, BAD_ROWS_SEEDS),
    "const tags": ({"anyOf": [
        {**_OBJ, "properties": {"t": {"const": "a"}, "body": {**_OBJ, "properties": {"x": {"type": "integer"}},
                                                               "required": ["x"], "additionalProperties": False}},
         "required": ["t", "body"], "additionalProperties": False},
        {**_OBJ, "properties": {"t": {"const": "b"}, "body": {"type": "array", "items": {}},
                                "tags": {"type": "array", "items": {"type": "string"}}},
         "required": ["t"], "additionalProperties": False}]},
        [{"t": "a", "body": {"x": 1}}, {"t": "b", "body": [[{"k": 1}], 2]}, {"t": "b", "tags": ["x", "A"]}]),
    "oneOf rows": ({"type": "array", "items": {"oneOf": [
        {**_OBJ, "properties": {"kind": {"type": "string"}, "json": {}}, "required": ["kind"],
         "additionalProperties": False},
        {**_OBJ, "properties": {"kind": {"enum": ["A", "B"]}, "sub": {**_OBJ, "properties": {
            "n": {"type": "integer"}, "free": {}}}}, "required": ["kind", "sub"], "additionalProperties": False}]}},
        [[{"kind": "x", "json": [1, {"a": []}]}, {"kind": "A", "sub": {"n": 1, "free": {"k": [[]]}}}],
         [{"kind": "A"}, {"kind": "B", "json": None}]]),
    "typeless branches": ({"anyOf": [
        {"properties": {"k": {"properties": {"deep": {"type": "array", "items": {"type": "integer"}}}}},
         "required": ["k"]},
        {"properties": {"m": {}}, "required": ["m"], "additionalProperties": False}]},
        [{"k": {"deep": [1, 2]}, "zz": [{}]}, {"m": {"n": [1]}}, {"k": 3}, "x", [1]]),
}


@pytest.mark.parametrize("name", sorted(VALUE_RULE_CASES))
def test_unions_with_nested_member_values_are_exact(name):
    schema, seeds = VALUE_RULE_CASES[name]
    accepts = acceptor(compile_json_schema(schema, path="engine"))
    instances = _mutants(random.Random(name), seeds, 300)
    validator = jsonschema.validators.validator_for(schema)(schema)
    valid = sum(validator.is_valid(x) for x in instances)
    assert 0 < valid < len(instances)
    assert _wrong(schema, accepts, instances) == []


AMBIGUOUS = {"type": "array", "items": {"anyOf": [
    {**_OBJ, "properties": {"a": {**_OBJ, "properties": {"x": {"type": "integer"}}}, "b": {}},
     "additionalProperties": False},
    {**_OBJ, "properties": {"a": {**_OBJ, "properties": {"y": {"type": "string"}}}, "c": {"type": "string"}},
     "additionalProperties": False}]}}


def test_two_member_objects_that_read_one_text_stay_exact():
    """Both branches' `a` objects accept {} (and {"x": 1, "y": "s"}): the engine keeps both
    readings live."""
    seeds = [[{"a": {}}, {"a": {"x": 1, "y": "s"}, "b": [[{}]]}, {"a": {"y": "t"}, "c": "u"}]]
    for path, taken in (("auto", "engine"), ("engine", "engine")):
        compiled = compile_json_schema(AMBIGUOUS, path=path)
        assert compiled.path == taken and not compiled.depth_capped
        assert _wrong(AMBIGUOUS, acceptor(compiled), _mutants(random.Random(5), seeds, 300)) == []
