"""Value lexemes on the engine path (RuleSink.value_lexeme / union): `not`, overlapping
oneOf and if/then/else values, and anyOf/oneOf unions of objects, as rules from one exact
automaton. Judged against jsonschema, against the regex path on the same texts, and with
Lark's own parser of the grammar as the acceptor (grammar_oracle)."""

from __future__ import annotations

import json
import random
import re
import warnings

import jsonschema
import pytest
from grammar_oracle import acceptor
from random_json import random_values
from test_json_schema_logic import CASES, spellings

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema

#: cases of test_json_schema_logic that the grammar path must now take (each needs a lookahead)
MUST_COMPILE = ["not range", "not range of numbers", "not length", "not multipleOf 1", "not enum of numbers",
                "oneOf number ranges", "oneOf prefix numbers", "oneOf strings", "oneOf in items",
                "not in items", "if inside properties", "if else only", "not array items", "oneOf three overlapping"]


def _wrong(schema, accepts, instances) -> list:
    """The instances on which `accepts` (text -> bool) and jsonschema disagree (a valid instance
    must be accepted in some key order, an invalid one in none)."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [x for x in instances if validator.is_valid(x) != any(accepts(t) for t in spellings(x))]


def _instances(seed: int, n: int, leaves: list, keys: str = "abcd") -> list:
    """`n` random JSON values (nesting up to 4 deep) over `leaves` and object keys from `keys`."""
    return random_values(random.Random(seed), n, leaves, keys, leaf=0.45, array=0.2, array_len=3)


LEAVES = [0, 1, 3, 5, 7, 12, -2, 2.5, 0.5, "", "a", "ab", "abcd", "99", None, True, False]


@pytest.mark.parametrize("name", sorted(CASES))
def test_lookahead_cases_on_the_grammar_path(name):
    schema, instances = CASES[name]
    try:
        grammar = compile_json_schema(schema, path="engine")
    except UnsupportedSchemaError as exc:
        assert name not in MUST_COMPILE, str(exc)
        if "accepts no value" in str(exc):  # then jsonschema rejects every instance too
            assert _wrong(schema, lambda text: False, instances) == []
        else:
            assert exc.keyword and exc.pointer and exc.pointer.startswith("#")
        return
    accepts = acceptor(grammar)
    assert _wrong(schema, accepts, instances) == []
    regex = re.compile(compile_json_schema(schema, path="regex").regex)
    texts = [t for x in instances for t in spellings(x)]
    assert [accepts(t) for t in texts] == [regex.fullmatch(t) is not None for t in texts]


@pytest.mark.parametrize("name", MUST_COMPILE)
def test_lookahead_values_beside_free_form_take_the_exact_grammar_path(name):
    """A free-form sibling sends the schema to the grammar path ("auto"), which must now be
    exact rather than fall back to the depth-capped regex."""
    inner, instances = CASES[name]
    schema = {"type": "object", "properties": {"v": inner, "free": {}}, "additionalProperties": False}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a depth-capped fallback warns
        compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    deep = {"a": [[[[{"b": [1]}]]]]}
    wrapped = [{"v": x, "free": deep} for x in instances] + [{"free": deep}, {"v": instances[0], "x": 1}]
    assert _wrong(schema, acceptor(compiled), wrapped) == []


SP343_LIKE = {
    "type": "object", "additionalProperties": False, "required": ["messages"],
    "properties": {"messages": {"type": "array", "items": {"anyOf": [
        {"type": "object", "additionalProperties": False, "required": ["field", "error"],
         "properties": {"error": {"type": "string"}, "field": {"type": "string", "maxLength": 3},
                        "value": {"type": ["string", "null"]}}},
        {"type": "object", "additionalProperties": False, "required": ["json", "error"],
         "properties": {"error": {"enum": ["A", "B"]}, "json": {}}},
        {"type": "object", "additionalProperties": False, "required": ["b"],
         "properties": {"a": {"type": "integer", "minimum": 3}, "b": {"type": "string"}, "c": {"type": "number"},
                        "d": {"type": "boolean"}, "e": {"type": "integer"}}},
        {"type": "object", "additionalProperties": False, "required": ["a"],
         "properties": {"a": {"type": "string"}, "c": {"type": "number", "maximum": 2}, "d": {"type": "null"}}},
    ]}}},
}


def test_anyof_of_objects_in_items_is_exact_on_the_grammar_path():
    """sp_343's shape: anyOf of closed objects with optional members (one free-form) in array
    items. Inline, Lark would expand it into thousands of alternatives, and rules per branch
    are ambiguous; one automaton for the union, its free-form member a hole, is exact."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = compile_json_schema(SP343_LIKE, path="engine")
        auto = compile_json_schema(SP343_LIKE)  # the engine path, where the first Lark grammar is refused
    assert compiled.path == "engine" and not compiled.depth_capped
    assert auto.path == "engine" and not auto.depth_capped
    lark_accepts, engine_accepts = acceptor(compiled), acceptor(auto)

    def accepts(text):
        assert lark_accepts(text) == engine_accepts(text), text
        return lark_accepts(text)
    leaves = LEAVES + ["A", "B", "abc"]
    items = _instances(7, 400, leaves, "abcdefjv") + [
        {"field": "ab", "error": "x"}, {"field": "abcd", "error": "x"}, {"json": [[[{"a": [{}]}]]], "error": "A"},
        {"json": 1, "error": "C"}, {"b": "s", "a": 3, "e": 1}, {"b": "s", "a": 2}, {"a": "s", "c": 2, "d": None},
        {"a": "s", "c": 2.5}, {"a": 4, "b": "s", "c": 1.5, "d": True, "e": -1}, {"error": "x", "field": "a", "value": None}]
    instances = [{"messages": [x]} for x in items] + [{"messages": items[-10:]}, {"messages": []}, {}]
    assert _wrong(SP343_LIKE, accepts, instances) == []
    assert sum(accepts(json.dumps(x, separators=(",", ":"))) for x in instances) >= 5  # not vacuous


def test_union_lexemes_agree_with_the_regex_path():
    """The same unions without free-form members: both paths apply and accept the same texts."""
    schema = json.loads(json.dumps(SP343_LIKE).replace('"json": {}', '"json": {"type": "array", "items": {"type": "integer"}}'))
    grammar = acceptor(compile_json_schema(schema, path="engine"))
    regex = re.compile(compile_json_schema(schema, path="regex").regex)
    items = _instances(11, 300, LEAVES + ["A", "B"], "abcdefjv")
    texts = [t for x in items for t in spellings({"messages": [x]})]
    assert [grammar(t) for t in texts] == [regex.fullmatch(t) is not None for t in texts]


def test_lookahead_over_a_recursive_ref_is_refused_by_name():
    """A recursive $ref under a lookahead stays refused (its rule is no prefix-free hole); a
    free-form value there is written out around holes (test_json_schema_lookahead_holes)."""
    tree = {"type": "array", "items": {"$ref": "#/$defs/t"}}
    schema = {"$defs": {"t": tree}, "type": "object", "not": {"properties": {"b": {"minimum": 3}}, "minProperties": 1},
              "properties": {"a": {"$ref": "#/$defs/t"}, "b": {"type": "integer"}}}
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="engine")
    assert (info.value.keyword, info.value.pointer) == ("not", "#/not") and "recursive $ref" in str(info.value)
    for free in ({"if": {"type": "integer"}, "then": {"minimum": 3}}, {"oneOf": [{"type": "integer"}, {"minimum": 3}]}):
        assert compile_json_schema(free, path="engine").path == "engine"
