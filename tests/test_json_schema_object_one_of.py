"""oneOf over closed objects that share members (one_of.closed_objects_exclusive): an object
valid for one branch is valid for another exactly when all its keys are the other's and it has
the other's required keys, so "this branch and no other" is the branch with key-presence
conditions. Buildkite's notify items are the model: eight closed objects sharing `if`, where `{}`
and `{"if": ...}` match every branch and are invalid. Before, the branches were subtracted as
automata and refused past 2,000 states. Oracle: jsonschema, on both paths, over every key subset.

Also: oneOf over open objects on the grammar path (one_of.open_objects_exclusive, a retry: each
branch with one way per other branch that its own keys fail it), the plain negation of a oneOf
(logic.plain_negation), and branches told apart by one required member's values."""

from __future__ import annotations

import itertools
import json

import jsonschema
import pytest

from benchmark_modules import load

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.one_of import closed_objects_exclusive, open_objects_exclusive

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


# ---- open objects (one_of.open_objects_exclusive, grammar path) ---------------------------------

SECRET = {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"secure": {"type": "string"}},
                                         "required": ["secure"], "additionalProperties": False}]}
# a recursive member beside the oneOf: subtracting one whole branch from another by lookahead
# needs an automaton of the object, which the recursion refuses; the rewrite negates only the
# branches' own members, so the grammar path retries with it (travis' deployments, whose
# automata were too large instead)
TREE = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/definitions/tree"}}}}
# travis' npm deployment: an api_key or an api_token, not both (each may still appear invalid)
NPM = {"definitions": {"secret": SECRET, "tree": TREE}, "type": "object", "required": ["provider"],
       "properties": {"provider": {"const": "npm"}, "tree": {"$ref": "#/definitions/tree"}},
       "oneOf": [{"properties": {"api_key": {"$ref": "#/definitions/secret"}}, "required": ["api_key"]},
                 {"properties": {"api_token": {"$ref": "#/definitions/secret"}}, "required": ["api_token"]}]}
OPEN_VALUES = {"provider": ["npm"], "api_key": ["k", {"secure": "s"}, {"secure": 1}, 3],
               "api_token": ["t", {"secure": "s"}, None], "email": ["e"],
               "other": [0], "tree": [{"kids": [{}]}, {"kids": [1]}]}
OPEN_KEYS = ["provider", "tree", "api_key", "api_token", "other"]


def test_open_one_of_agrees_with_jsonschema():
    """Grammar path (the rewrite is its own; the regex path subtracts the branches by lookahead,
    in one skeleton's key order). Keys in the output format's order: each branch's own, then
    the keys it does not declare. Before, refused: a lookahead over a recursive $ref."""
    schema = NPM
    compiled = compile_json_schema(schema, path="grammar")
    oracle = jsonschema.Draft7Validator(schema)
    order = KeyOrder(schema)
    verdicts = set()
    docs = []
    for r in range(len(OPEN_KEYS) + 1):
        for combo in itertools.combinations(OPEN_KEYS, r):
            docs += [dict(zip(combo, vs)) for vs in itertools.product(*[OPEN_VALUES[n] for n in combo])]
    for doc in docs:
        want = oracle.is_valid(doc)
        verdicts.add(want)
        assert compiled.accepts(json.dumps(order.reorder(doc), separators=(",", ":"))) == want, doc
    assert verdicts == {True, False}


def test_open_rewrite_declines_other_shapes():
    """additionalProperties with a schema (it applies to different keys in each branch): None."""
    from tokenguide.json_schema.emit import Emitter
    from tokenguide.json_schema.normalize import Normalizer

    norm = Normalizer({}, 1, True, grammar=True)
    em = Emitter(norm, " ?")
    a = norm.flatten({"type": "object", "properties": {"a": {}}, "required": ["a"]}, "#/oneOf/0")
    b = norm.flatten({"type": "object", "properties": {"b": {}}, "required": ["b"],
                      "additionalProperties": {"type": "string"}}, "#/oneOf/1")
    assert open_objects_exclusive(em, [a, b]) is None
    both = open_objects_exclusive(em, [a, a])
    assert both == []  # the two branches accept the same objects: none is in exactly one


# ---- the plain negation of a oneOf (logic.plain_negation) -------------------------------------

@pytest.mark.parametrize("subs", [
    [{"required": ["a"]}, {"required": ["b"]}],
    [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}}, {"required": ["c"]}],
])
def test_plain_negation_of_one_of_agrees_with_jsonschema(subs):
    """A oneOf fails when no branch holds or when two do: the negation adds each pair."""
    from tokenguide.json_schema.logic import plain_negation
    from tokenguide.json_schema.normalize import Normalizer

    schema = {"oneOf": subs}
    negated = plain_negation(Normalizer(schema, 1, False), schema, "#", 0)
    assert negated is not None
    compiled = compile_json_schema(negated, path="grammar")
    oracle = jsonschema.Draft7Validator(schema)
    values = {"a": [1], "b": ["s", 2], "c": [None]}
    docs: list = [1, "x", []]
    for r in range(4):
        for combo in itertools.combinations("abc", r):
            docs += [dict(zip(combo, vs)) for vs in itertools.product(*[values[n] for n in combo])]
    order = KeyOrder(negated)
    for doc in docs:
        text = json.dumps(order.reorder(doc), separators=(",", ":"))
        assert compiled.accepts(text) == (not oracle.is_valid(doc)), doc


def _five_deep(inner: dict) -> dict:
    for key in "edcba":
        inner = {"type": "object", "properties": {key: inner}, "required": [key]}
    return inner


def _nested(leaf, depth: int):
    for key in "abcde"[:depth][::-1]:
        leaf = {key: leaf}
    return leaf


def test_deep_branch_against_a_required_name():
    """oneOf [five objects deep, required z]: subtracting the deep branch by lookahead tells
    free-form values apart below what the grammar path writes out (refused before); the
    rewrite asks of `{"z": ...}` only that `a` be absent or not the deep object."""
    schema = {"oneOf": [_five_deep({"type": "array", "maxItems": 0}), {"required": ["z"]}]}
    compiled = compile_json_schema(schema, path="grammar")
    oracle = jsonschema.Draft202012Validator(schema)
    order = KeyOrder(schema)
    docs: list = [{}, {"z": 1}, 1, "s", None]
    for depth in range(6):
        for leaf in ([], [1], {}, 3):
            x = _nested(leaf, depth)
            docs += [x, {"z": 1, **x} if isinstance(x, dict) else x]
            if depth >= 2:
                y = _nested({"q": leaf}, depth - 1)
                docs += [y, {"z": 1, **y}]
    verdicts = set()
    for doc in docs:
        want = oracle.is_valid(doc)
        verdicts.add(want)
        assert compiled.accepts(json.dumps(order.reorder(doc), separators=(",", ":"))) == want, doc
    assert verdicts == {True, False}


# ---- branches told apart by one required member's values (one_of.pairwise_disjoint) -----------

WHEN = {"type": "object", "properties": {"when": {"enum": ["delayed", "manual", "always"]}, "start_in": {"type": "string"},
                                         "x": {"type": "integer"}},
        "oneOf": [{"properties": {"when": {"enum": ["delayed"]}}, "required": ["when", "start_in"]},
                  {"properties": {"when": {"not": {"enum": ["delayed"]}}}}]}


def test_a_member_one_branch_requires_with_values_the_other_excludes():
    """GitLab CI's jobs: `when: delayed` needs `start_in`, any other `when` (or none) does not.
    Only the first branch requires `when`, and the second excludes its value: no object is in
    both, so no lookahead (the gitlab-ci job's, over 38 members, took 50 s to be refused)."""
    from tokenguide.json_schema.emit import Emitter
    from tokenguide.json_schema.normalize import Node, Normalizer
    from tokenguide.json_schema.one_of import pairwise_disjoint

    norm = Normalizer(WHEN, 1, False)
    em = Emitter(norm, " ?")
    flats = [norm.flatten(b, f"#/oneOf/{i}") for i, b in enumerate(WHEN["oneOf"])]
    base = norm.flatten({k: v for k, v in WHEN.items() if k != "oneOf"}, "#")
    assert pairwise_disjoint(em, flats, base)
    # the other way round: neither requires `when`, so `{}` is in both
    loose = [norm.flatten({"properties": {"when": {"enum": ["delayed"]}}}, "#/oneOf/0"), flats[1]]
    assert not pairwise_disjoint(em, loose, Node({}, "#"))
    oracle = jsonschema.Draft7Validator(WHEN)
    order = KeyOrder(WHEN)
    values = {"when": ["delayed", "manual", 3], "start_in": ["1d"], "x": [1]}
    docs: list = []
    for r in range(4):
        for combo in itertools.combinations(values, r):
            docs += [dict(zip(combo, vs)) for vs in itertools.product(*[values[n] for n in combo])]
    for path in ("grammar", "regex"):
        compiled = compile_json_schema(WHEN, path=path)
        for doc in docs:
            want = oracle.is_valid(doc)
            assert compiled.accepts(json.dumps(order.reorder(doc), separators=(",", ":"))) == want, (path, doc)
