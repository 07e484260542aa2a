"""Branches that test a member's value (json_schema.required_sets.Literal): `if: {properties:
{detach: {const: true}}}` with key-presence `then`/`else` stays one chain of members, the
member's value split into the values the conditions name and the rest (woodpecker-ci's
commands step: not detached, it needs `commands` or `entrypoint`). Distributed instead, the two
copies of a wide object collided in LALR (Reduce/Reduce). Oracle: jsonschema, both paths."""

from __future__ import annotations

import itertools
import warnings
import json

import jsonschema
import pytest

from tokenguide.json_schema import compile_json_schema

WIDE = {f"opt{i}": {"type": "object", "properties": {"k": {"type": "string"}}, "additionalProperties": False}
        for i in range(6)}
STEP = {"type": "object", "additionalProperties": False, "required": ["image"],
        "properties": {"image": {"type": "string"}, "commands": {"type": "array", "items": {"type": "string"}},
                       **WIDE, "detach": {"type": "boolean"}, "entrypoint": {"type": "string"},
                       "failure": {"enum": ["fail", "ignore", "cancel"]}},
        "allOf": [{"if": {"properties": {"detach": {"const": True}}}, "then": {},
                   "else": {"anyOf": [{"required": ["commands"]}, {"required": ["entrypoint"]}]}}]}
KIND = {"type": "object", "required": ["kind"], "additionalProperties": False,
        "properties": {"kind": {"enum": ["a", "b", "c"]}, "x": {"type": "string"}, "y": {"type": "integer"}, **WIDE},
        "if": {"properties": {"kind": {"enum": ["a", "b"]}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}
VALUES = {"image": ["i"], "commands": [["c"]], "detach": [True, False, "t"], "entrypoint": ["e"], "opt0": [{"k": "v"}],
          "opt5": [{}], "failure": ["cancel", "x"], "kind": ["a", "c", "z"], "x": ["s"], "y": [1]}


def documents(schema: dict) -> list:
    names = [n for n in schema["properties"] if n in VALUES]
    out = []
    for r in range(5):
        for combo in itertools.combinations(names, r):
            out += [dict(zip(combo, vs)) for vs in itertools.product(*[VALUES[n] for n in combo])]
    return out


@pytest.mark.parametrize("path", ["engine", "regex"])
@pytest.mark.parametrize("name", ["step", "kind"])
def test_value_conditions_agree_with_jsonschema(name, path):
    schema = {"step": STEP, "kind": KIND}[name]
    compiled = compile_json_schema(schema, path=path)
    oracle = jsonschema.Draft202012Validator(schema)
    verdicts = set()
    for v in documents(schema):
        want = oracle.is_valid(v)
        verdicts.add(want)
        assert compiled.accepts(json.dumps(v, separators=(",", ":"))) == want, v
    assert verdicts == {True, False}


def test_the_wide_step_is_one_chain_on_the_grammar_path():
    """Distributed, the two copies of the wide object met in LALR and were refused."""
    compiled = compile_json_schema(STEP, path="engine")
    assert compiled.path == "engine"


PLUGIN = {"type": "object", "additionalProperties": False, "required": ["image"],
          "properties": {"image": {"type": "string"}, **WIDE, "settings": {"type": "object"}, "detach": {"type": "boolean"},
                         "failure": {"type": "string", "enum": ["fail", "ignore"]}}}
UNION = {"anyOf": [STEP, PLUGIN]}
VALUES["settings"] = [{}]


@pytest.mark.parametrize("kind", ["anyOf", "oneOf"])
def test_object_union_with_an_if_and_values_told_apart(kind):
    """woodpecker-ci's step: anyOf a commands step (with the `if` above, failure may be
    `cancel`) and a plugin step (settings; failure fail or ignore), as one object whose members
    drop the branches they fail (object_unions, the grammar path); the oneOf too. (The regex
    path writes an overlapping oneOf's objects in another key order: its lookaheads' skeleton.)"""
    schema = {kind: [STEP, PLUGIN]}
    compiled = compile_json_schema(schema, path="engine")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no depth-capped fallback)
        auto = compile_json_schema(schema)  # the engine path (its conditionals retry for the oneOf)
    assert auto.path == "engine" and not auto.depth_capped
    oracle = jsonschema.Draft202012Validator(schema)
    names = ["image", "commands", "opt0", "settings", "detach", "entrypoint", "failure"]  # (both branches' order)
    verdicts = set()
    for r in range(5):
        for combo in itertools.combinations(names, r):
            for vs in itertools.product(*[VALUES[n] for n in combo]):
                v = dict(zip(combo, vs))
                want = oracle.is_valid(v)
                verdicts.add(want)
                assert compiled.accepts(json.dumps(v, separators=(",", ":"))) == want, v
                assert auto.accepts(json.dumps(v, separators=(",", ":"))) == want, v
    assert verdicts == {True, False}
