"""oneOf over closed objects that share members (one_of.closed_objects_exclusive): an object
valid for one branch is valid for another exactly when all its keys are the other's and it has
the other's required keys, so "this branch and no other" is the branch with key-presence
conditions. Buildkite's notify items are the model: eight closed objects sharing `if`, where `{}`
and `{"if": ...}` match every branch and are invalid. Before, the branches were subtracted as
automata and refused past 2,000 states. Oracle: jsonschema, on both paths, over every key subset."""

from __future__ import annotations

import itertools
import json

import jsonschema
import pytest

from benchmark_modules import load

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.one_of import closed_objects_exclusive

CHECK = {"type": "object", "additionalProperties": False, "required": ["path", "line"],
         "properties": {"path": {"type": "string"}, "line": {"type": "integer"}, "level": {"enum": ["notice", "failure"]},
                        "message": {"type": "string"}, "title": {"type": "string"}, "details": {"type": "string"}}}
NOTIFY = {
    "definitions": {"if": {"type": "string"},
                    "check": {"type": "object", "additionalProperties": False,
                              "properties": {"name": {"type": "string"},
                                             "annotations": {"type": "array", "items": CHECK}}}},
    "type": "array",
    "items": {"oneOf": [
        {"enum": ["github_check", "github_commit_status"]},
        {"type": "object", "properties": {"email": {"type": "string"}, "if": {"$ref": "#/definitions/if"}},
         "additionalProperties": False},
        {"type": "object", "properties": {"webhook": {"type": "string"}, "if": {"$ref": "#/definitions/if"}},
         "additionalProperties": False},
        {"type": "object", "properties": {"github_check": {"$ref": "#/definitions/check"},
                                          "if": {"$ref": "#/definitions/if"}}, "additionalProperties": False},
    ]},
}
# branch 0 inside branch 1 (every object of 0 is one of 1's), and required sets that differ
NESTED = {"oneOf": [
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "additionalProperties": False},
]}
REQUIRED = {"oneOf": [
    {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x"],
     "additionalProperties": False},
    {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["y"],
     "additionalProperties": False},
    {"type": "object", "properties": {"x": {"type": "integer"}, "z": {"type": "null"}}, "required": ["z"],
     "additionalProperties": False},
]}
KeyOrder = load("json_key_order").KeyOrder
VALUES = {"email": ["e", 1], "webhook": ["w"], "if": ["c", 2], "github_check": [{}, {"name": "n"}, {"name": 3},
          {"annotations": [{"path": "p", "line": 1}]}, {"annotations": [{"path": "p"}]}],
          "a": [1, "s"], "b": ["t"], "x": [1], "y": [2, "s"], "z": [None], "other": [0]}


def documents(keys: list[str]) -> list:
    out: list = ["github_check", "nope", 5, None, []]
    for r in range(len(keys) + 1):
        for combo in itertools.combinations(keys, r):
            out += [dict(zip(combo, vs)) for vs in itertools.product(*[VALUES[n] for n in combo])]
    return out


CASES = {"notify": (NOTIFY, ["email", "webhook", "if", "github_check", "other"]),
         "nested": (NESTED, ["a", "b", "other"]),
         "required": (REQUIRED, ["x", "y", "z", "other"])}


@pytest.mark.parametrize("path", ["grammar", "regex"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_closed_one_of_agrees_with_jsonschema(name, path):
    schema, keys = CASES[name]
    compiled = compile_json_schema(schema, path=path)
    oracle = jsonschema.Draft7Validator(schema)
    order = KeyOrder(schema)
    verdicts = set()
    for v in documents(keys):
        doc = [v] if name == "notify" else v
        want = oracle.is_valid(doc)
        verdicts.add(want)
        # keys in the output format's order: each branch's own (what the benchmarks judge)
        assert compiled.accepts(json.dumps(order.reorder(doc), separators=(",", ":"))) == want, doc
    assert verdicts == {True, False}


def test_each_branch_keeps_its_own_key_order():
    """Before, the branches were subtracted from one another in one skeleton's key order, where
    `if` came before `webhook` (the second branch's own member)."""
    compiled = compile_json_schema(NOTIFY, path="grammar")
    assert compiled.accepts('[{"webhook":"w","if":"c"}]') and not compiled.accepts('[{"if":"c","webhook":"w"}]')
    assert not compiled.accepts('[{"if":"c"}]') and compiled.accepts('[{"email":"e","if":"c"}]')


def test_shared_member_with_different_schemas_is_not_rewritten():
    """`k` is a string in one branch and an integer in the other: `{"k": ...}` is in one branch
    or the other by its value, which key presence cannot say."""
    schema = {"oneOf": [
        {"type": "object", "properties": {"k": {"type": "string"}, "a": {}}, "additionalProperties": False},
        {"type": "object", "properties": {"k": {"type": "integer"}, "b": {}}, "additionalProperties": False},
    ]}
    oracle = jsonschema.Draft7Validator(schema)
    try:
        compiled = compile_json_schema(schema, path="grammar")
    except UnsupportedSchemaError as exc:
        assert exc.keyword == "oneOf"
        return
    for v in ({}, {"k": "s"}, {"k": 1}, {"k": None}, {"k": "s", "a": 1}, {"k": 1, "a": 1}, {"a": 1, "b": 1}):
        assert compiled.accepts(json.dumps(v, separators=(",", ":"))) == oracle.is_valid(v), v


def test_same_text_under_another_base_uri_is_not_the_same_member():
    """Both branches write `{"$ref": "#/$defs/v"}`, but each is a resource of its own ($id), so
    the refs name a string in one and an integer in the other. The verdicts are written out:
    jsonschema 4 does not resolve these refs (PointerToNowhere in the root resource)."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "http://example.com/root.json",
              "oneOf": [{"$id": "a.json", "type": "object", "additionalProperties": False,
                         "$defs": {"v": {"type": "string"}}, "properties": {"k": {"$ref": "#/$defs/v"}, "a": {}}},
                        {"$id": "b.json", "type": "object", "additionalProperties": False,
                         "$defs": {"v": {"type": "integer"}}, "properties": {"k": {"$ref": "#/$defs/v"}, "b": {}}}]}
    verdicts = {"{}": False, '{"k":"s"}': True, '{"k":1}': True, '{"k":null}': False, '{"k":"s","a":1}': True,
                '{"k":1,"b":1}': True, '{"k":"s","b":1}': False, '{"a":1}': True}
    for path in ("grammar", "regex"):
        compiled = compile_json_schema(schema, path=path)
        assert {text: compiled.accepts(text) for text in verdicts} == verdicts, path


def test_other_keywords_leave_the_rewrite():
    """A branch with minProperties is not "keys and required" only: the rewrite answers None."""
    from tokenguide.json_schema.emit import Emitter
    from tokenguide.json_schema.normalize import Node, Normalizer

    norm = Normalizer({}, 1, False)
    em = Emitter(norm, " ?")
    a = norm.flatten({"type": "object", "properties": {"a": {}}, "additionalProperties": False}, "#/oneOf/0")
    b = norm.flatten({"type": "object", "properties": {"a": {}}, "additionalProperties": False, "minProperties": 1},
                     "#/oneOf/1")
    base = Node({}, "#")
    assert closed_objects_exclusive(em, [a, a], base) == []  # each inside the other: no object is in exactly one
    assert closed_objects_exclusive(em, [a, b], base) is None
