"""anyOf/oneOf of required-name sets on one object (module json_schema.required_sets): one
chain of members whose state is the set of branches still satisfiable, instead of a union of
objects sharing every member (which fell back to the depth-capped regex: Glaiveai2K
calculate_area, Github o65442). Judged against jsonschema on objects with every subset of the
declared members, extra members nesting deeper than the regex path's cap, and non-objects."""

from __future__ import annotations

import json
import random
import warnings

import jsonschema
import pytest
from grammar_oracle import acceptor
from random_json import chain, nesting
from spies import record_results

from tokenguide.json_schema import compile_json_schema, required_sets

LEAVES = [0, 2.5, -1, "", "s", None, True, [], {}]
NUMBERS = {"type": "number"}

CASES = {
    "anyOf sets, open object": {"type": "object", "properties": {
        "base": NUMBERS, "height": NUMBERS, "length": NUMBERS, "radius": NUMBERS, "width": NUMBERS},
        "anyOf": [{"required": ["length", "width"]}, {"required": ["radius"]}, {"required": ["base", "height"]}]},
    "oneOf sets, closed, with a required name": {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string"}, "b": NUMBERS, "c": NUMBERS, "d": {"type": "boolean"}},
        "additionalProperties": False, "oneOf": [{"required": ["b"]}, {"required": ["c"]}, {"required": ["b", "d"]}]},
    "untyped anyOf sets with an empty set": {"properties": {"p": NUMBERS, "q": {}}, "additionalProperties": {"type": "array"},
                                            "anyOf": [{"required": ["p", "q"]}, {"required": []}]},
    "untyped oneOf sets": {"properties": {"p": NUMBERS, "q": {"type": "string"}},
                           "oneOf": [{"required": ["p"]}, {"required": ["q"]}]},
    "typed branches are not required-only": {"properties": {"p": NUMBERS, "q": {"type": "string"}},
                                             "anyOf": [{"type": "object", "required": ["p"]}, {"type": "object", "required": ["q"]}]},
    "typed oneOf branches with dependencies, closed (a GitHub workflow step)": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": False, "properties": {
            "id": {"type": "string"}, "uses": {"type": "string"}, "run": {"type": "string"}, "shell": {"type": "string"},
            "wait": {"type": "boolean"}},
        "dependencies": {"shell": ["run"]},
        "oneOf": [{"type": "object", "properties": {"uses": True}, "required": ["uses"]},
                  {"type": "object", "properties": {"run": True}, "required": ["run"]},
                  {"type": "object", "properties": {"wait": {"description": "x"}}, "required": ["wait"]}]},
    "oneOf of anyOf of not-required (a GitHub action's composite steps)": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": False,
        "properties": {"name": {"type": "string"}, "run": {"type": "string"}, "shell": {"type": "string"},
                       "uses": {"type": "string"}},
        "oneOf": [{"anyOf": [{"not": {"properties": {"run": True}, "required": ["run"]}},
                             {"not": {"properties": {"shell": {"description": "x"}}, "required": ["shell"]}}]},
                  {"not": {"properties": {"uses": True}, "required": ["uses"]}}]},
    "not both of two names, typed, twice (GitHub workflow pull_request filters)": {
        "type": "object", "additionalProperties": False,
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}, "d": NUMBERS},
        "allOf": [{"not": {"type": "object", "required": ["a", "b"]}}, {"not": {"type": "object", "required": ["c", "d"]}}]},
    "untyped nested anyOf inside anyOf branches": {
        "properties": {"a": NUMBERS, "b": NUMBERS, "c": NUMBERS},
        "anyOf": [{"anyOf": [{"required": ["a"]}, {"anyOf": [{"required": ["b"]}, {"not": {"required": ["c"]}}]}]},
                  {"required": ["a", "b", "c"]}],
        "oneOf": [{"required": ["b"]}, {"anyOf": [{"required": ["c"]}, {"required": ["a"]}]}]},
    "forbidden names in branches, two groups, open object": {
        "properties": {"a": NUMBERS, "b": NUMBERS, "c": NUMBERS},
        "anyOf": [{"properties": {"a": False}}, {"required": ["b"]}],
        "oneOf": [{"required": ["a"]}, {"required": ["c"]}, {"properties": {"b": False}, "required": ["c"]}]},
    "a forbidden undeclared name in an open object is distributed instead": {
        "properties": {"a": NUMBERS, "b": NUMBERS}, "anyOf": [{"properties": {"zz": False}}, {"required": ["a"]}]},
    "branches restating a declared member by $ref (dependabot's directory/directories)": {
        "type": "object", "additionalProperties": False,
        "properties": {"d": {"type": "string"}, "ds": {"type": "number"}, "x": NUMBERS},
        "oneOf": [{"properties": {"d": {"$ref": "#/properties/d"}}, "required": ["d"]},
                  {"properties": {"ds": {"$ref": "#/properties/ds"}}, "required": ["ds"]}]},
    "inside a oneOf branch": {"oneOf": [{"type": ["string", "null"], "minLength": 2}, {
        "type": "object", "properties": {"s": {"type": "string"}, "l": {"type": "string"}, "c": {"type": "string"}},
        "anyOf": [{"required": ["s"]}, {"required": ["l", "c"]}]}]},
}


def _instances(rnd: random.Random, schema: dict, n: int) -> list:
    """Objects with a random subset of the declared members (in schema order), values of their
    type or not, then sometimes extra members holding chains 5-7 deep; and some non-objects."""
    node = schema if "properties" in schema else schema["oneOf"][1]
    declared = list(node["properties"])
    out: list = ["ab", "a", None, 3, [[[[[[1]]]]]]]
    for _ in range(n):
        x = {}
        for name in declared:
            if rnd.random() < 0.5:
                t = node["properties"][name].get("type")
                right = {"number": 1.5, "string": "v", "boolean": False}.get(t, [[{"k": []}]])
                x[name] = right if rnd.random() < 0.9 else rnd.choice(LEAVES)
        if rnd.random() < 0.4:
            x["zz"] = chain(rnd, rnd.randint(5, 7), LEAVES, "xy") if rnd.random() < 0.7 else rnd.choice(LEAVES)
        out.append(x)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_required_sets_are_exact_on_the_grammar_path(name):
    schema = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a depth-capped fallback warns
        compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(schema)(schema)
    instances = _instances(random.Random(name), schema, 300)
    valid = [x for x in instances if validator.is_valid(x)]
    assert 15 <= len(valid) <= len(instances) - 15  # both kinds
    wrong = [x for x in instances if validator.is_valid(x) != accepts(json.dumps(x, separators=(",", ":")))]
    assert wrong == []


def test_free_form_extras_make_auto_take_the_engine_path():
    schema = CASES["anyOf sets, open object"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    deep = {"radius": 1, "zz": chain(random.Random(1), 7, [0], "xy")}
    assert nesting(deep) == 8 and acceptor(compiled)(json.dumps(deep, separators=(",", ":")))


def test_exactly_one_of_many_keys_with_dependencies_is_one_object():
    """Distributed, each oneOf branch minus the others was a value lexeme over the whole step,
    refused as too long (SchemaStore's github-workflows); here it is one chain of members."""
    names = [f"k{i}" for i in range(8)]
    schema = {"type": "object", "additionalProperties": False,
              "properties": {**{n: {"type": "string"} for n in names}, "with": {"type": "object"}, "shell": {}},
              "dependencies": {"shell": ["k1"], "with": ["k0"]},
              "oneOf": [{"type": "object", "properties": {n: True}, "required": [n]} for n in names]}
    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    validator = jsonschema.Draft7Validator(schema)
    rnd = random.Random(3)
    for _ in range(300):
        x = {n: "v" for n in list(schema["properties"]) if rnd.random() < 0.2}
        if "with" in x:
            x["with"] = {"a": [[[{"b": None}]]]}
        assert validator.is_valid(x) == accepts(json.dumps(x, separators=(",", ":"))), x


def test_past_its_bound_the_union_of_branches_is_written_instead(monkeypatch):
    """Beyond MAX_SET_STATES continuations the branches are distributed as before: same language."""
    schema = CASES["oneOf sets, closed, with a required name"]
    as_sets = compile_json_schema(schema, path="engine")
    monkeypatch.setattr(required_sets, "MAX_SET_STATES", 2)
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.engine.to_lark() != as_sets.engine.to_lark()
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(schema)(schema)
    instances = _instances(random.Random(7), schema, 200)
    assert [x for x in instances if validator.is_valid(x) != accepts(json.dumps(x, separators=(",", ":")))] == []


@pytest.mark.parametrize("name", ["oneOf of anyOf of not-required (a GitHub action's composite steps)",
                                  "not both of two names, typed, twice (GitHub workflow pull_request filters)",
                                  "untyped nested anyOf inside anyOf branches",
                                  "typed oneOf branches with dependencies, closed (a GitHub workflow step)",
                                  "forbidden names in branches, two groups, open object",
                                  "branches restating a declared member by $ref (dependabot's directory/directories)"])
def test_presence_shapes_are_written_as_one_object(monkeypatch, name):
    """These shapes take the one-object writing (not the distributed union the other cases may get)."""
    results = record_results(monkeypatch, required_sets, "required_sets_value")
    compile_json_schema(CASES[name], path="engine")
    assert any(isinstance(r, str) for r in results)


def test_a_branch_saying_more_about_a_member_is_no_presence_branch(monkeypatch):
    """A branch whose member schema is not the declared one (another $ref, or more keywords)
    constrains the value: distributed, not written as one object."""
    for other in ({"$ref": "#/properties/b"}, {"$ref": "#/properties/a", "minLength": 2}, {"type": "string"}):
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                  "properties": {"a": {"type": "string"}, "b": {"type": "string", "maxLength": 1}},
                  "oneOf": [{"properties": {"a": other}, "required": ["a"]}, {"required": ["b"]}]}
        results = record_results(monkeypatch, required_sets, "required_sets_value")
        accepts = acceptor(compile_json_schema(schema, path="engine"))
        assert results[0] is False, other
        for x in ({"a": "xyz"}, {"a": "x"}, {"b": "y"}, {"a": "x", "b": "y"}, {}):
            assert accepts(json.dumps(x, separators=(",", ":"))) == jsonschema.Draft202012Validator(schema).is_valid(x)


def test_a_oneof_inside_a_branch_is_not_a_disjunction(monkeypatch):
    """`oneOf` inside a branch counts its matches: not multiplied out, the union is distributed."""
    schema = {"properties": {"a": NUMBERS, "b": NUMBERS},
              "anyOf": [{"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"required": ["a", "b"]}]}
    results = record_results(monkeypatch, required_sets, "required_sets_value")
    accepts = acceptor(compile_json_schema(schema, path="engine"))
    assert results[0] is False  # the outer anyOf; its branches' own oneOf may then take it, merged
    for x in ({"a": 1}, {"b": 1}, {"a": 1, "b": 2}, {}, 5):
        assert accepts(json.dumps(x, separators=(",", ":"))) == jsonschema.Draft202012Validator(schema).is_valid(x)
