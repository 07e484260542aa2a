"""Unions of closed objects written as one object (json_schema.object_unions, required_sets.sets_body)
where a member name stands at more than one place of the merged order:

- names two branches order both ways (`x` before `y` in one, after in the other): one copy per
  place, and reading the name is one transition whatever place each branch takes it at (two
  copies as alternatives of one state were a Reduce/Reduce collision: buildkite's block and
  input steps, `blocked_state` before and after `branches`);
- a name whose schemas differ and hold arrays or objects (buildkite's `notify`), where a required
  member read before it tells the branches apart: one copy per schema instead of cells, which
  would negate one array schema by the other;
- a value lexeme with few values (an enum less a `not`) written as its texts (`finite_texts`).

Judged against jsonschema with the schema-order rule as the oracle: a document is valid when a
branch validates it and its keys come in that branch's declared order. The acceptor is Lark's
own parser of the grammar (grammar_oracle)."""

from __future__ import annotations

from typing import Any

import itertools
import json
import random
import warnings
from unittest import mock

import jsonschema
import pytest
from grammar_oracle import grammar_acceptor

from tokenguide.json_schema import compile_json_schema, object_unions
from tokenguide.json_schema.lexemes import finite_texts, lexeme_dfa

_CLOSED = {"type": "object", "additionalProperties": False}

# x and y ordered both ways, every member optional: {"x": "s"} and {"y": 1, "x": "s"} read alike
# up to where the orders part
BOTH_WAYS = {"anyOf": [
    {**_CLOSED, "properties": {"x": {"type": "string"}, "y": {"type": "integer"}, "a": {"type": "boolean"}}},
    {**_CLOSED, "properties": {"y": {"type": "integer"}, "x": {"type": "string"}, "b": {"type": "null"}}},
]}
BOTH_WAYS_ONE_OF = {"oneOf": BOTH_WAYS["anyOf"]}

# `n` is arrays of integers in a group (which requires `g` before it) and arrays of strings in a
# command (which has no `g`): the required `g` read before `n` says which copy may follow
APART = {"type": "array", "items": {"anyOf": [
    {**_CLOSED, "properties": {"g": {"type": "string"}, "n": {"type": "array", "items": {"type": "integer"}},
                               "s": {"type": "array"}}, "required": ["g"]},
    {**_CLOSED, "properties": {"n": {"type": "array", "items": {"type": "string"}}, "c": {"type": "string"}}},
]}}

# both branches may be alive where `a` is read (nothing required before it): no copies (cells)
TOGETHER = {"anyOf": [
    {**_CLOSED, "properties": {"a": {"type": "array", "items": {"type": "integer"}}, "b": {}}},
    {**_CLOSED, "properties": {"a": {"type": "array", "items": {"type": "string"}}, "c": {"type": "string"}}},
]}

VALUES = {"x": ["s", "t", "", 1], "y": [1, 2, -3, "s"], "a": [True, False, True, None], "b": [None, None, None, 0],
          "g": ["grp", "h", 3], "n": [[1, 2], ["u"], [], ["u", "v"], [3], [1, "u"], "n"], "s": [[], [{}], [1]], "c": ["cmd", "d", []]}


def _documents(keys: list[str], rnd: random.Random, count: int) -> list[dict]:
    """Objects over subsets of `keys` in every order, values from VALUES (valid and not)."""
    out = []
    for size in range(len(keys) + 1):
        for subset in itertools.combinations(keys, size):
            for order in itertools.permutations(subset):
                for _ in range(count):
                    out.append({k: rnd.choice(VALUES[k]) for k in order})
    return out


def _valid_in_order(schema: dict, doc) -> bool:
    """Some branch validates `doc` with its keys in that branch's declared order."""
    branches = schema.get("anyOf") or schema.get("oneOf")
    fits = []
    for b in branches:
        order = list(b["properties"])
        keys = list(doc) if isinstance(doc, dict) else []
        ranked = [order.index(k) for k in keys if k in order]
        fits.append(jsonschema.Draft7Validator(b).is_valid(doc) and ranked == sorted(ranked))
    return sum(fits) == 1 if "oneOf" in schema else any(fits)


def _text(x) -> str:
    return json.dumps(x, separators=(",", ":"))


def _grammar(schema: dict) -> Any:
    """The engine path's compile of `schema` (a CompiledSchema, read by grammar_acceptor)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_json_schema(schema, path="engine")


@pytest.mark.parametrize("schema", [BOTH_WAYS, BOTH_WAYS_ONE_OF], ids=["anyOf", "oneOf"])
def test_names_ordered_both_ways_are_one_transition(schema):
    accepts = grammar_acceptor(_grammar(schema))
    docs = _documents(["x", "y", "a", "b"], random.Random(1), 6) + ["s", 1, None, []]
    valid = [d for d in docs if _valid_in_order(schema, d)]
    assert 20 < len(valid) < len(docs) - 20
    assert [d for d in docs if accepts(_text(d)) != _valid_in_order(schema, d)] == []


def test_names_ordered_both_ways_compile_on_the_grammar_path():
    compiled = compile_json_schema(BOTH_WAYS, path="engine")
    accepts = grammar_acceptor(compiled)
    for doc, ok in [({"x": "s", "y": 1}, True), ({"y": 1, "x": "s"}, True), ({"x": "s", "y": 1, "b": None}, False),
                    ({"y": 1, "x": "s", "a": True}, False), ({"x": "s"}, True), ({}, True), ({"a": True, "x": "s"}, False)]:
        assert accepts(_text(doc)) is ok, doc


def _copies_made(schema: dict) -> list:
    made = []
    real = object_unions._schema_copies

    def spy(em, branches):
        out = real(em, branches)
        made.append(out)
        return out

    with mock.patch.object(object_unions, "_schema_copies", spy):
        grammar = _grammar(schema)
    return made, grammar


def test_members_with_structured_schemas_apart_by_a_required_member_get_copies():
    made, grammar = _copies_made(APART)
    assert any(c.get("n") for copies in made for c in copies)  # one copy of `n` per schema
    accepts = grammar_acceptor(grammar)
    rnd = random.Random(2)
    items = _documents(["g", "n", "s", "c"], rnd, 3)
    validator = jsonschema.Draft7Validator(APART)
    good = [x for x in items if validator.is_valid([x])]  # (pairs mostly of valid items: both kinds)
    docs = [[x] for x in items] + [[rnd.choice(good), rnd.choice(good if rnd.random() < 0.7 else items)]
                                   for _ in range(300)] + [[], {}]

    def valid(doc) -> bool:
        return validator.is_valid(doc) and all(_valid_in_order(APART["items"], x) for x in doc)

    assert 20 < sum(map(valid, docs)) < len(docs) - 20
    assert [d for d in docs if accepts(_text(d)) != valid(d)] == []


def test_members_both_branches_may_read_get_no_copies():
    made, grammar = _copies_made(TOGETHER)
    assert made and not any(c for copies in made for c in copies)
    compiled = compile_json_schema(TOGETHER, path="engine")
    accepts = grammar_acceptor(compiled)
    docs = _documents(["a", "b", "c"], random.Random(3), 1) + [{"a": [1, "u"]}, {"a": []}]
    docs = [{k: v for k, v in d.items() if k != "a"} | ({"a": d["a"]} if "a" in d else {}) for d in docs]
    docs = [dict(sorted(d.items())) for d in docs]  # (both branches declare `a` first)
    assert [d for d in docs if accepts(_text(d)) != _valid_in_order(TOGETHER, d)] == []


def test_finite_texts():
    assert finite_texts(lexeme_dfa('"(?:block|input)"')) == [b'"block"', b'"input"']
    assert finite_texts(lexeme_dfa("a*")) is None  # infinitely many
    assert finite_texts(lexeme_dfa("[a-z]")) is None  # more than 16
    assert finite_texts(lexeme_dfa("[a-z]"), limit=26) == [bytes([c]) for c in range(ord("a"), ord("z") + 1)]
    assert finite_texts(lexeme_dfa("x{300}")) is None  # longer than 256 bytes
    assert finite_texts(lexeme_dfa("")) == [b""]


@pytest.mark.parametrize("value, texts", [
    ({"type": "string", "enum": ["block", "input", "wait"], "not": {"pattern": "^i"}}, ["block", "wait"]),
    ({"type": "string", "maxLength": 3, "pattern": "^[ab]+$", "not": {"pattern": "a$"}},
     ["aab", "ab", "abb", "b", "bab", "bb", "bbb"]),
])
def test_a_value_lexeme_of_few_values_is_written_as_its_texts(value, texts):
    """`not` with a pattern makes a value lexeme (rules over single characters: `x0`); with few
    values left they are literal text, one terminal with the key before them."""
    schema = {**_CLOSED, "properties": {"type": value, "k": {"type": "integer"}}, "required": ["type"]}
    compiled = compile_json_schema(schema, path="engine")
    accepts = grammar_acceptor(compiled)
    validator = jsonschema.Draft7Validator(schema)
    words = texts + ["input", "a", "aa", "ba", "abab", "", "blocks", "wai"]
    docs = [{"type": w} for w in words] + [{"type": w, "k": 1} for w in words] + [{"k": 1}, {}, {"type": 1}]
    assert [d for d in docs if accepts(_text(d)) != validator.is_valid(d)] == []
