"""oneOf disjointness proved in more shapes (one_of.py): through nested anyOf/oneOf groups, keys
a closed object's patternProperties cannot match, and per-branch overlap sets (a branch is
checked only against the branches it may overlap). Differential against `jsonschema` on both
paths where both apply."""

from __future__ import annotations

import itertools
import json
import re

import jsonschema
import pytest
from grammar_oracle import grammar_acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema

NESTED = {"oneOf": [
    {"oneOf": [{"type": "object", "required": ["size"], "properties": {"size": {"type": "number"}},
                "additionalProperties": False},
               {"type": "string", "pattern": "px$"}]},
    {"type": "object", "required": ["ref"], "properties": {"ref": {"type": "string"}}, "additionalProperties": False},
]}
# a closed object whose patterns cannot match the other branch's required key
CLOSED = {"oneOf": [NESTED["oneOf"][1], {"type": "object", "patternProperties": {"^[0-9]+x$": {"type": "integer"}},
                                         "additionalProperties": False, "minProperties": 1}]}

VALUES = [{"size": 3}, {"size": "a"}, {"ref": "r"}, {"ref": 1}, {"size": 3, "ref": "r"}, {"2x": 1}, {"2x": "a"},
          {"2x": 1, "ref": "r"}, {}, "12px", "12", 5, None, [], {"3x": 2, "10x": 4}, {"size": 1.5, "2x": 1}]


def _texts(v) -> list[str]:
    if isinstance(v, dict):
        return [json.dumps(dict(p)) for p in itertools.permutations(v.items())]
    return [json.dumps(v)]


def test_nested_groups_and_closed_patterns_are_disjoint_on_both_paths():
    rx = re.compile(build_regex_from_schema(NESTED))
    lark = grammar_acceptor(compile_json_schema(NESTED, path="engine"))  # no lookahead needed: disjoint
    v = jsonschema.Draft202012Validator(NESTED)
    assert {v.is_valid(x) for x in VALUES} == {True, False}
    for x in VALUES:
        texts = _texts(x)
        assert any(rx.fullmatch(t) for t in texts) == v.is_valid(x), x
        assert any(lark(t) for t in texts) == v.is_valid(x), x


def test_closed_pattern_keys_prove_disjoint_without_lookahead():
    regex = build_regex_from_schema(CLOSED)
    assert "(?=" not in regex and "(?!" not in regex
    rx = re.compile(regex)
    v = jsonschema.Draft202012Validator(CLOSED)
    for x in VALUES:
        assert any(rx.fullmatch(t) for t in _texts(x)) == v.is_valid(x), x


def test_a_branch_is_checked_only_against_those_it_may_overlap():
    # ten branches: nine disjoint consts and one range meeting two of them
    schema = {"oneOf": [{"const": k} for k in range(9)] + [{"type": "integer", "minimum": 7}]}
    rx = re.compile(build_regex_from_schema(schema))
    v = jsonschema.Draft202012Validator(schema)
    for x in list(range(-3, 14)) + ["7", None]:
        assert bool(rx.fullmatch(json.dumps(x))) == v.is_valid(x), x


def test_too_many_mutually_overlapping_branches_are_refused():
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"oneOf": [{"const": 0}] + [{"type": "integer", "minimum": i} for i in range(8)]})
    assert (err.value.keyword, err.value.pointer) == ("oneOf", "#/oneOf") and "9 branches" in str(err.value)


SELECTOR = {"oneOf": [
    {"type": "object", "required": ["ref"], "properties": {"ref": {"type": "string"}}, "additionalProperties": False},
    {"type": "object", "patternProperties": {"^[0-9]x$": {"type": "integer"}}, "additionalProperties": False,
     "minProperties": 1},
    {"type": "object", "patternProperties": {"^[a-z]{2,3}$": {"oneOf": [
        {"type": "string"}, {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}]}},
     "additionalProperties": False, "minProperties": 1},
]}


def test_closed_selectors_disjoint_patterns_and_an_overlap_checked_by_lookahead():
    # branches 1 and 2: no key matches both patterns (disjoint); 0 and 2 overlap on {"ref": "..."}
    # (checked by lookahead: branch 2's patterns fold into the names closed branch 0 declares)
    rx = re.compile(build_regex_from_schema(SELECTOR))
    v = jsonschema.Draft202012Validator(SELECTOR)
    values = [{"ref": "a"}, {"ref": 5}, {"ref": {"size": 1}}, {"ref": {"size": "x"}}, {"2x": 1}, {"2x": "a"},
              {"2x": 1, "ab": "s"}, {"ab": "s"}, {"ab": {"size": 2}}, {"ab": {"size": "x"}}, {}, {"abcd": "s"},
              {"ab": "s", "cd": {"size": 3}}, "ref", 3]
    assert {v.is_valid(x) for x in values} == {True, False}
    for x in values:
        texts = _texts(x)
        assert any(rx.fullmatch(t) for t in texts) == v.is_valid(x), x
        assert all(bool(rx.fullmatch(t)) <= v.is_valid(x) for t in texts), x

