"""Refusals and checks inside merged members name where the user wrote them.

A member declared by two merged schemas (allOf, or a oneOf branch merged with the names the
other branches declare) is a conjunction of both; each part must keep its own JSON pointer, not
one under an `allOf` the user never wrote (the unique check looks its arrays up by pointer).
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.normalize import Conjunction, Normalizer

REGEX_FORMAT = {"type": "string", "format": "regex"}  # (refused with value_checks=False: a keyword to point at)


def _resolve(schema: dict, pointer: str):
    """The value at `pointer` in `schema` (KeyError/IndexError when it is not there)."""
    node = schema
    for part in pointer.lstrip("#").split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


@pytest.mark.parametrize("path", ["regex", "engine"])
@pytest.mark.parametrize("schema, where", [
    # oneOf branches that may overlap ({} is both): each is merged with the others' names
    ({"oneOf": [{"type": "object", "properties": {"a": REGEX_FORMAT}},
                {"type": "object", "properties": {"b": {"type": "integer"}}}]},
     "#/oneOf/0/properties/a/format"),
    # the same name in two allOf parts
    ({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                {"properties": {"a": REGEX_FORMAT}}]},
     "#/allOf/1/properties/a/format"),
    # a pattern in two allOf parts
    ({"type": "object", "allOf": [{"patternProperties": {"^x": {"type": "string"}}},
                                  {"patternProperties": {"^x": REGEX_FORMAT}}]},
     "#/allOf/1/patternProperties/^x/format"),
])
def test_refusal_inside_a_merged_member_names_the_written_place(schema, where, path):
    with pytest.raises(UnsupportedSchemaError) as exc:
        compile_json_schema(schema, path=path, value_checks=False)
    assert exc.value.keyword == "format"
    assert exc.value.pointer == where
    assert _resolve(schema, exc.value.pointer) == "regex"


@pytest.mark.parametrize("path", ["regex", "engine"])
def test_unique_array_inside_overlapping_oneof_branches_is_checked(path):
    """The unique check finds an array under a oneOf whose branches overlap (it was refused as
    'no place of a document reaches this array': the merged member's pointer was invented)."""
    schema = {"oneOf": [
        {"type": "object", "additionalProperties": False,
         "properties": {"tags": {"type": "array", "uniqueItems": True, "items": {"type": "string"}}}},
        {"type": "object", "additionalProperties": False, "properties": {"n": {"type": "integer"}}},
    ]}
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    oracle = jsonschema.Draft202012Validator(schema)
    cases = [{"tags": ["a", "b"]}, {"tags": ["a", "a"]}, {"n": 1}, {}, {"tags": []}, {"tags": ["a"], "n": 1}]
    for value in cases:
        text = json.dumps(value, separators=(",", ":"))
        assert compiled.accepts(text) == oracle.is_valid(value), text


def test_conjunction_parts_flatten_at_their_own_pointers():
    norm = Normalizer({}, depth=3, lenient=False)
    node = norm.flatten(Conjunction([({"minLength": 2}, "#/x/a"), ({"maxLength": 5}, "#/y/b")]), "#/x/a")
    assert node.kptr("minLength") == "#/x/a/minLength"
    assert node.kptr("maxLength") == "#/y/b/maxLength"
