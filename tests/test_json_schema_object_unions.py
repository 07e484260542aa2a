"""anyOf/oneOf of plain object branches sharing their members, as one object (module
json_schema.object_unions): a GitHub-workflow-like job is either a normal job or a reusable
workflow call, both starting with the same optional members. Distributed, the two objects' common
members are one terminal in two rules (LALR conflicts); as one object they compile and stay
exact. Judged against jsonschema on objects with random subsets of every branch's members."""

from __future__ import annotations

import json
import random
import warnings

import jsonschema
import pytest
from grammar_oracle import acceptor
from spies import record_results

from tokenguide.json_schema import compile_json_schema, object_unions
from tokenguide.json_schema.object_unions import merged_order

DRAFT7 = "http://json-schema.org/draft-07/schema#"
NEEDS = {"description": "jobs first", "type": "array", "items": {"type": "string"}}


def _jobs(kind: str, extra_call: dict | None = None) -> dict:
    common = {"name": {"type": "string"}, "needs": {"$ref": "#/definitions/needs"}}
    normal = {"type": "object", "additionalProperties": False, "required": ["runs-on"], "properties": {
        **common, "runs-on": {"type": "string"}, "steps": {"type": "array", "items": {"type": "object"}},
        "if": {"anyOf": [{"type": "boolean"}, {"type": "string"}]}, "timeout": {"type": "number"},
        **{f"opt{i}": {"type": "string"} for i in range(6)}}}
    call = {"type": "object", "additionalProperties": False, "required": ["uses"], "properties": {
        **common, "if": {"anyOf": [{"type": "boolean"}, {"type": "string"}], "description": "when"},
        "uses": {"type": "string"}, "with": {"type": "object"}, "secrets": {"type": "object"},
        **(extra_call or {})}}
    return {"$schema": DRAFT7, "definitions": {"needs": NEEDS, "normal": normal, "call": call},
            "type": "object", "additionalProperties": {kind: [{"$ref": "#/definitions/normal"}, {"$ref": "#/definitions/call"}]}}


CASES = {
    "oneOf, closed": _jobs("oneOf"),
    "anyOf, closed": _jobs("anyOf"),
    "oneOf where both branches may match": {
        "$schema": DRAFT7, "oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}},
            {"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "number"}}, "required": ["c"]}]},
}
VALUES = {"string": "v", "number": 2.5, "boolean": True, "array": ["x"], "object": {"k": [{"d": None}]}}
LEAVES = [0, "s", None, [], {}, [1], {"k": 1}]


def _right(sub: dict):
    """A value of member schema `sub` (its type, or the needs array)."""
    if "$ref" in sub:
        return ["build"]
    if "anyOf" in sub:
        return True
    return VALUES[sub["type"]]


def _instances(schema: dict, seed: str) -> list:
    """Objects built from one branch's members (values of the member's type, sometimes not),
    sometimes with a member of another branch or an undeclared one; and some non-objects."""
    rnd = random.Random(seed)
    defs = schema.get("definitions", {})
    branches = [defs[b["$ref"].rsplit("/", 1)[-1]] for b in next(iter(schema["additionalProperties"].values()))] \
        if "definitions" in schema else schema["oneOf"]
    order = merged_order([list(b["properties"]) for b in branches]) + ["zz"]
    out: list = [None, "x", 1, []]
    for _ in range(400):
        props = rnd.choice(branches)["properties"]
        picked = {n for n in props if rnd.random() < 0.5}
        if rnd.random() < 0.2:
            picked.add(rnd.choice(order))
        obj = {}
        for n in order:
            if n in picked:
                sub = props.get(n) or next((b["properties"][n] for b in branches if n in b["properties"]), None)
                obj[n] = _right(sub) if sub is not None and rnd.random() < 0.9 else rnd.choice(LEAVES)
        out.append({"job": obj} if "definitions" in schema else obj)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_object_unions_are_exact(name):
    schema = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no depth-capped fallback
        compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    validator = jsonschema.Draft7Validator(schema)
    instances = _instances(schema, name)
    valid = [x for x in instances if validator.is_valid(x)]
    assert 20 <= len(valid) <= len(instances) - 20
    wrong = [x for x in instances if validator.is_valid(x) != accepts(json.dumps(x, separators=(",", ":")))]
    assert wrong == []


def test_a_name_with_different_schemas_is_distributed_as_before():
    """`with` is an object in one branch, a string in the other: not one object (the union as
    written, whatever it compiles to, is still exact)."""
    schema = _jobs("oneOf", {"timeout": {"type": "string"}})
    try:
        compiled = compile_json_schema(schema, path="engine")
    except Exception as exc:  # the distributed union may be refused: a named refusal, not a wrong answer
        assert "engine path" in str(exc)
        return
    accepts = acceptor(compiled)
    validator = jsonschema.Draft7Validator(schema)
    for x in _instances(schema, "different"):
        assert validator.is_valid(x) == accepts(json.dumps(x, separators=(",", ":"))), x


@pytest.mark.parametrize("schema, one_object", [(CASES["oneOf, closed"], True), (CASES["anyOf, closed"], True)])
def test_which_unions_become_one_object(monkeypatch, schema, one_object):
    """The shared-members unions are written as one object (a union with a member of two
    meanings, distributed by the engine's member chains, may merge in parts: its language is
    test_a_name_with_different_schemas_is_distributed_as_before's)."""
    results = record_results(monkeypatch, object_unions, "union_as_one_object")
    try:
        compile_json_schema(schema, path="engine")
    except Exception:
        assert not one_object
    assert any(isinstance(r, str) for r in results) == one_object


def test_merged_order_keeps_every_branchs_order():
    assert merged_order([["a", "b", "d"], ["a", "c", "d"]]) == ["a", "b", "c", "d"]
    assert merged_order([["x", "y"], ["z"], ["y", "w"]]) == ["x", "y", "w", "z"] or \
        merged_order([["x", "y"], ["z"], ["y", "w"]]) == ["x", "y", "z", "w"]
    assert merged_order([["a", "b"], ["b", "a"]]) is None
    assert merged_order([]) == []
