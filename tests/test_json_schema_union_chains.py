"""anyOf/oneOf of object branches written as one chain of members (object_unions), and the key
order of oneOf branches subtracted by lookahead (one_of.overlapping).

Buildkite's steps are the model: closed objects that order shared names both ways (`depends_on`
before `allow_dependency_failure` in one, after in another), give one name different schemas
(`label` a string here, a string or null there; `block` a string or a nested step object), and
stand beside plain strings in one union. Each branch's objects must be accepted in its own order
(the output format's: benchmarks/json_key_order.py), every invalid array rejected. Oracle:
jsonschema over every combination of the listed member values."""

from __future__ import annotations

import itertools

import jsonschema
import pytest
from benchmark_modules import load
from schema_oracle import assert_agrees

from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.object_unions import order_with_copies

KeyOrder = load("json_key_order").KeyOrder

BLOCK = {"type": "object", "additionalProperties": False,
         "properties": {"adf": {"type": "boolean"}, "block": {"type": "string"}, "label": {"type": "string"},
                        "deps": {"type": "array"}}}
NESTED = {"type": "object", "additionalProperties": False, "properties": {"block": {"$ref": "#/definitions/block"}}}
WAIT = {"type": "object", "additionalProperties": False,
        "properties": {"adf": {"type": "boolean"}, "wait": {"type": ["string", "null"]},
                       "label": {"type": ["string", "null"]}}}
GROUP = {"type": "object", "additionalProperties": False, "required": ["group"],
         "properties": {"deps": {"type": "array"}, "group": {"type": "string"},
                        "label": {"$ref": "#/definitions/group/properties/group"}, "adf": {"type": "boolean"}}}
VALUES = {"adf": [True], "block": ["b", {"label": "x"}, {}], "label": ["l", None], "wait": [None], "deps": [[]],
          "group": ["g"], "x": [1]}


def _steps(kind: str, branches: list) -> dict:
    return {"definitions": {"block": BLOCK, "group": GROUP}, "type": "array", "items": {kind: branches}}


CASES = {
    "orders both ways": [{"$ref": "#/definitions/block"}, {"$ref": "#/definitions/group"}],
    "different schemas": [{"$ref": "#/definitions/block"}, NESTED, WAIT],
    "steps": [{"$ref": "#/definitions/block"}, NESTED, WAIT, {"$ref": "#/definitions/group"}, {"enum": ["wait"]}],
}


def _documents() -> list:
    keys = list(VALUES)
    docs: list = [["wait"], ["x"], [3]]
    for r in range(len(keys) + 1):
        for combo in itertools.combinations(keys, r):
            docs += [[dict(zip(combo, vs))] for vs in itertools.product(*[VALUES[k] for k in combo])]
    return docs


@pytest.mark.parametrize("kind", ["anyOf", "oneOf"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_union_chain_agrees_with_jsonschema(name, kind):
    """Before: orders both ways and schemas that differ wrote the union branch by branch (or
    refused it), and the oneOf's lookaheads rejected WAIT's `{"wait": null, "label": "l"}` in its
    own order (they wrote every branch in one skeleton's order: `label` before `wait`)."""
    schema = _steps(kind, CASES[name])
    assert_agrees(compile_json_schema(schema, path="engine"), jsonschema.Draft7Validator(schema), _documents(),
                  KeyOrder(schema).reorder)


def test_order_with_copies():
    """Each list keeps its order; a name two lists order both ways stands twice."""
    order, copies = order_with_copies([["adf", "block", "deps"], ["block"], ["deps", "group", "adf"]])
    assert [n.split("\x00")[0] for n in order] == ["adf", "block", "deps", "group", "adf"]
    for names, taken in zip([["adf", "block", "deps"], ["block"], ["deps", "group", "adf"]], copies):
        assert [order.index(taken[n]) for n in names] == sorted(order.index(taken[n]) for n in names)
    assert copies[0]["adf"] != copies[2]["adf"] and copies[0]["deps"] == copies[2]["deps"]
