"""json_schema.failed_ifs: which `if`s count as discriminators, and which conjunctions their
failure proves empty (used by value_checks; the end-to-end cases are in
test_json_schema_unique_values.py)."""

from __future__ import annotations

import pytest

from tokenguide.json_schema.failed_ifs import FailedIfs, discriminator
from tokenguide.json_schema.json_values import value_key

KIND = {"properties": {"kind": {"const": "a"}}}


@pytest.mark.parametrize("test, want", [
    (KIND, ("kind", frozenset({("s", "a")}), True)),
    ({"properties": {"kind": {"enum": ["a", 1]}}, "required": ["kind"]},
     ("kind", frozenset({("s", "a"), ("n", "1e0")}), False)),
    ({"properties": {"n": {"const": 1.0}}, "$comment": "x"}, ("n", frozenset({("n", "1e0")}), True)),
])
def test_discriminator_shapes(test, want):
    assert discriminator(test, value_key) == want


@pytest.mark.parametrize("test", [
    {"properties": {"kind": {"const": "a"}, "other": {"const": 1}}},  # two members
    {"properties": {"kind": {"const": "a", "type": "string"}}},  # more than the value
    {"properties": {"kind": {"type": "string"}}},  # no value listed
    {"properties": {"kind": {"const": "a"}}, "required": ["other"]},  # requires another member
    {"properties": {"kind": {"const": "a"}}, "type": "object"},  # fails on non-objects too
    {"properties": {"kind": {"enum": "a"}}},  # not an enum
    True, [], {"properties": []},
])
def test_other_ifs_are_not_discriminators(test):
    assert discriminator(test, value_key) is None


def marked(objs: dict, ifs: dict) -> tuple[FailedIfs, dict]:
    """A FailedIfs over `objs` (pointer -> schema; `$ref`s name pointers in it) with the `if`s
    `ifs` (pointer of the object holding it -> the `if`) marked failed."""
    fails = FailedIfs(lambda ref, ptr: (objs[ref], ref) if ref in objs else None, value_key)
    markers = {}
    for ptr, test in ifs.items():
        (c,) = fails.mark(ptr, test, [frozenset()], objs)
        markers[ptr] = next(iter(c))
    return fails, markers


def test_a_required_member_whose_every_value_failed_leaves_nothing():
    objs = {"#": {"required": ["kind"], "properties": {"kind": {"$ref": "#/k"}}},
            "#/k": {"$ref": "#/k2"}, "#/k2": {"enum": ["a", "b"]}}
    fails, m = marked(objs, {"#/1": KIND, "#/2": {"properties": {"kind": {"const": "b"}}}})
    assert fails and not fails.satisfiable(frozenset({"#", m["#/1"], m["#/2"]}), objs)
    assert fails.satisfiable(frozenset({"#", m["#/1"]}), objs)  # "b" is left
    assert fails.satisfiable(frozenset({m["#/1"], m["#/2"]}), objs)  # no enum: other values are left


def test_values_compare_as_json_values():
    objs = {"#": {"properties": {"n": {"enum": [1, 2]}}}}
    fails, m = marked(objs, {"#/1": {"properties": {"n": {"enum": [1.0, 2.0]}}}})
    assert not fails.satisfiable(frozenset({"#", m["#/1"]}), objs)  # failing needs n present


def test_an_if_that_requires_its_member_fails_when_it_is_absent():
    objs = {"#": {"properties": {"kind": {"enum": ["a"]}}}}
    fails, m = marked(objs, {"#/1": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]}})
    assert fails.satisfiable(frozenset({"#", m["#/1"]}), objs)  # kind absent
    objs["#"]["required"] = ["kind"]
    assert not fails.satisfiable(frozenset({"#", m["#/1"]}), objs)


def test_false_and_unresolved_member_schemas():
    objs = {"#": {"required": ["kind"], "properties": {"kind": False}}}
    fails, m = marked(objs, {"#/1": KIND})
    assert not fails.satisfiable(frozenset({"#", m["#/1"]}), objs)  # no value at all
    objs["#"]["properties"]["kind"] = {"$ref": "#/missing"}
    assert fails.satisfiable(frozenset({"#", m["#/1"]}), objs)  # unknown: never proved empty
    fails2, _ = marked(objs, {})
    assert not fails2 and fails2.mark("#/x", {"type": "object"}, [frozenset()], objs) == [frozenset()]
