"""`contains` on the engine path when its items need a lookahead to be told apart (hits and
misses that are no plain merge of schemas, or a value lexeme beside the other side's rules):
the whole array is one value lexeme (arrays._Splitter.array_lexeme). Judged against jsonschema,
with Lark's own parser of the grammar as the acceptor, and against the regex path."""

from __future__ import annotations

import itertools
import json
import re

import jsonschema
import pytest
from grammar_oracle import acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema


def _arrays(pool: list, max_len: int) -> list[list]:
    """Every array of up to `max_len` items from `pool`."""
    return [list(c) for n in range(max_len + 1) for c in itertools.product(pool, repeat=n)]


STRINGS = ["", "a", "ab", "ba", "abc", "b"]
INTEGERS = [0, 1, 2, 3, 4, 6, -3]

CASES = {
    "pattern hits, twice": ({"type": "array", "items": {"type": "string"}, "contains": {"pattern": "^a"},
                             "minContains": 2}, STRINGS, 4),
    "pattern hits, at most one": ({"type": "array", "items": {"type": "string", "maxLength": 2},
                                   "contains": {"pattern": "b$"}, "maxContains": 1}, STRINGS, 4),
    "integer minimum": ({"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 3}},
                        INTEGERS, 3),
    "not multipleOf": ({"type": "array", "items": {"type": "integer", "maximum": 100},
                        "contains": {"not": {"multipleOf": 3}}, "minContains": 2}, INTEGERS, 3),
    "prefix items": ({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"},
                      "contains": {"anyOf": [{"pattern": "^b"}, {"minimum": 4}]}}, ["b", "a", 4, 1], 3),
}


def _schema(schema: dict) -> dict:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


@pytest.mark.parametrize("name", sorted(CASES))
def test_contains_with_lookaheads_is_exact_on_the_grammar_path(name):
    schema, pool, max_len = CASES[name]
    schema = _schema(schema)
    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    validator = jsonschema.Draft202012Validator(schema)
    regex = re.compile(compile_json_schema(schema, path="regex").regex)
    verdicts = set()
    for value in _arrays(pool, max_len):
        text = json.dumps(value, separators=(",", ":"))
        expected = validator.is_valid(value)
        verdicts.add(expected)
        assert accepts(text) == expected, text
        assert (regex.fullmatch(text) is not None) == expected, text
    assert verdicts == {True, False}  # the pool reaches both sides


def test_contains_in_an_open_object_takes_the_grammar_path():
    """A free-form sibling sends the schema to the grammar path ("auto"): the contains array
    must be exact there, not a reason to fall back to the depth-capped regex."""
    schema = _schema({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "contains": {"pattern": "^a"}}}})
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    accepts = acceptor(compiled)
    deep = {"x": [[[[{"y": [[1]]}]]]]}
    for tags, ok in ((["b", "ab"], True), (["b", "ba"], False), ([], False)):
        assert accepts(json.dumps({"tags": tags, **deep}, separators=(",", ":"))) == ok


def test_contains_array_lexeme_refusals_name_the_keyword():
    too_many = _schema({"type": "array", "items": {"type": "string", "maxLength": 30}, "contains": {"pattern": "^a"},
                        "minContains": 100})
    with pytest.raises(UnsupportedSchemaError, match="2,000 states") as info:
        compile_json_schema(too_many, path="engine")
    assert info.value.keyword == "contains" and info.value.pointer == "#/contains"
    # items holding a rule that is not regular (a recursive $ref) cannot be told apart
    recursive = _schema({"$defs": {"t": {"type": ["integer", "array"], "items": {"$ref": "#/$defs/t"}}},
                         "type": "array", "items": {"$ref": "#/$defs/t"}, "contains": {"minimum": 3}})
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(recursive, path="engine")
    assert info.value.keyword == "contains"
    # in lenient mode contains is ignored there, with a warning
    with pytest.warns(UserWarning, match="contains"):
        lenient = compile_json_schema(too_many, path="engine", lenient=True)
    assert acceptor(lenient)('["b"]')
