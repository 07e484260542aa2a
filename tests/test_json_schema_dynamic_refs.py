"""`$dynamicRef` (2020-12) and `$recursiveRef` (2019-09) in a one-resource document are `$ref`s
(normalize.Normalizer: the dynamic scope holds that resource alone): judged against jsonschema's
validator of the named draft on trees nested deeper than any regex cap; the other draft's
spelling is ignored as its validator ignores it; the ambiguous cases are refused by name."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest
from grammar_oracle import acceptor
from random_json import nesting

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema

D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"

TREES = {
    "$dynamicRef to a dynamic anchor": {
        "$schema": D2020, "$dynamicAnchor": "node", "type": "object", "required": ["v"],
        "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$dynamicRef": "#node"}}},
        "additionalProperties": False},
    "$dynamicRef by pointer, no $schema": {
        "$defs": {"n": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"$dynamicRef": "#/$defs/n"}]}}},
        "$ref": "#/$defs/n"},
    "$recursiveRef under 2019-09": {
        "$schema": D2019, "$recursiveAnchor": True, "type": "object", "required": ["v"],
        "properties": {"v": {"type": "string"}, "kids": {"type": "array", "items": {"$recursiveRef": "#"}}},
        "additionalProperties": False},
}


def _tree(rnd: random.Random, depth: int, leaf: object, wrong: float) -> object:
    if depth == 0 or rnd.random() < 0.08:
        return leaf if rnd.random() >= wrong else "x"
    if isinstance(leaf, list):  # array trees
        return [_tree(rnd, depth - 1, leaf, wrong) if rnd.random() < 0.6
                else ("x" if rnd.random() < wrong else rnd.randint(0, 9)) for _ in range(rnd.randint(0, 3))]
    node = {"v": leaf if rnd.random() >= wrong else None}
    if rnd.random() < 0.8:
        node["kids"] = [_tree(rnd, depth - 1, leaf, wrong) for _ in range(rnd.randint(0, 2))]
    return node


@pytest.mark.parametrize("name", sorted(TREES))
def test_dynamic_references_agree_with_jsonschema(name):
    schema = TREES[name]
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(schema)(schema)
    rnd = random.Random(name)
    leaf = [] if "$defs" in schema else (1 if "2020" in schema.get("$schema", "") else "s")
    instances = [_tree(rnd, rnd.randint(1, 9), leaf, 0.12) for _ in range(300)] + [None, 3, "s", [], {}]
    valid = [x for x in instances if validator.is_valid(x)]
    assert 30 < len(valid) < len(instances) - 30
    assert max(nesting(x) for x in valid) >= 6  # deeper than any depth cap
    wrong = [x for x in instances if validator.is_valid(x) != accepts(json.dumps(x, separators=(",", ":")))]
    assert wrong == []


def test_the_other_drafts_spelling_is_ignored():
    for schema in ({"$schema": D2020, "type": "object", "properties": {"a": {"$recursiveRef": "#"}}},
                   {"$schema": D2019, "type": "object", "properties": {"a": {"$dynamicRef": "#"}}}):
        accepts = acceptor(compile_json_schema(schema))
        validator = jsonschema.validators.validator_for(schema)(schema)
        for x in ({"a": "anything"}, {"a": [1, {"b": None}]}, {}, 3):
            assert accepts(json.dumps(x, separators=(",", ":"))) == validator.is_valid(x) == isinstance(x, dict)


REFUSED = {
    "embedded resources": ({"$schema": D2020, "$defs": {"r": {"$id": "https://example.com/r", "$dynamicAnchor": "n",
                                                             "items": {"$dynamicRef": "#n"}}},
                            "$ref": "https://example.com/r"}, "$dynamicRef", "#/$defs/r/items/$dynamicRef",
                           "embedded $id resources"),
    "$recursiveRef without $schema": ({"type": "array", "items": {"$recursiveRef": "#"}}, "$recursiveRef",
                                      "#/items/$recursiveRef", "name the draft"),
    "beside $ref": ({"$defs": {"a": {"type": "integer"}}, "items": {"$ref": "#/$defs/a", "$dynamicRef": "#"}},
                    "$dynamicRef", "#/items/$dynamicRef", "keep one of them"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_ambiguous_dynamic_references_are_refused_by_name(name):
    schema, keyword, pointer, hint = REFUSED[name]
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema)
    assert info.value.keyword == keyword and info.value.pointer == pointer and hint in str(info.value)
    with pytest.warns(UserWarning):
        lenient = compile_json_schema(schema, lenient=True)
    assert lenient.path in ("regex", "engine")
