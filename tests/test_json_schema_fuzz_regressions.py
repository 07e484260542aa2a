"""Wrong answers the differential fuzzer (benchmarks/fuzz_json_schema.py) found, each on its
minimised schema, judged against jsonschema on both compile paths where both apply."""

from __future__ import annotations

import json
import warnings

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from grammar_oracle import acceptor  # noqa: E402


def check(schema, instances, paths=("auto", "regex")):
    """Each instance's compact JSON is accepted exactly when jsonschema says it is valid, on every
    path in `paths` that compiles the schema (at least one must)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema)
    compiled_any = False
    for path in paths:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = compile_json_schema(schema, path=path)
        except UnsupportedSchemaError:
            continue
        compiled_any = True
        accepts = acceptor(compiled)
        for x in instances:
            text = json.dumps(x, separators=(",", ":"))
            assert accepts(text) == validator.is_valid(x), (path, compiled.path, text)
    assert compiled_any


def test_min_properties_above_max_properties_accepts_no_object():
    """fuzz seed 118: {"minProperties": 2, "maxProperties": 1} accepted {"a": 0}."""
    check({"properties": {"count": {"minProperties": 2, "maxProperties": 1}}},
          [{"count": {"key/with~slash": 0}}, {"count": {}}, {"count": {"a": 1, "b": 2}}, {"count": 1}, {}])
    check({"minProperties": 3, "maxProperties": 2, "properties": {"a": {}}}, [1, "x", {}, {"a": 1}, {"a": 1, "b": 2}])


def test_not_required_rejects_non_objects():
    """fuzz seeds 137, 251: {"not": {"required": [""]}} accepted 0 (required holds for non-objects)."""
    check({"properties": {"version": {"not": {"required": [""]}}}}, [{"version": 0}, {"version": {}},
                                                                    {"version": {"": 1}}, {"version": "a"}])
    check({"items": {"not": {"required": [""]}}}, [[""], [{}], [{"": 0}], []])
    check({"type": ["object", "string"], "not": {"required": ["id", "x"]}},
          ["a", {}, {"id": 1}, {"id": 1, "x": 2}, 0])


def test_items_of_one_all_of_branch_apply_to_the_prefix_of_the_other():
    """fuzz seed 355: the oneOf's overlap (allOf of both branches) let the prefixItems positions
    escape the other branch's `items`, so [true] was subtracted and rejected."""
    check({"oneOf": [{"type": "array", "prefixItems": [{"type": "boolean"}], "items": {"type": "number"}},
                     {"type": "array", "items": {"type": "string"}}]},
          [[True], [True, 1], ["a"], [], [True, "a"]], paths=("auto", "regex"))
    check({"allOf": [{"type": "array", "prefixItems": [{"type": "boolean"}]}, {"items": {"type": "string"}}]},
          [[True], [], ["a"]])
    check({"allOf": [{"prefixItems": [{"type": "integer"}, {"type": "string"}]},
                     {"prefixItems": [{"minimum": 3}], "items": {"maxLength": 2}}]},
          [[3, "ab"], [3, "abc"], [2], [4, "a", 5], [4, "a", "abc"]])
    draft7 = "http://json-schema.org/draft-07/schema#"
    check({"$schema": draft7, "allOf": [{"items": [{"type": "integer"}], "additionalItems": {"type": "string"}},
                                         {"items": [{"minimum": 3}, {"maxLength": 1}]}]},
          [[3, "a"], [3, "ab"], [3, "a", "bc"], [3, "a", 5], [2]])
    check({"$schema": draft7, "allOf": [{"items": [{"type": "boolean"}]}, {"items": {"type": "string"}}]},
          [[True], [], ["a"]])


def test_keywords_of_later_drafts_are_ignored_as_the_named_draft_does():
    """fuzz seed 394: a draft-04 schema's propertyNames (draft 6 on) was applied, so the schema was
    refused as accepting no value; const (draft 6) and prefixItems (2020-12) likewise."""
    draft4 = "http://json-schema.org/draft-04/schema#"
    check({"$schema": draft4, "type": "object", "required": ["items"], "propertyNames": {"maxLength": 0}},
          [{"items": False}, {}])
    check({"$schema": draft4, "const": 1}, [1, 2, "a"])
    check({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "prefixItems": [{"type": "string"}]},
          [[1], ["a"], []])
    check({"$schema": "http://json-schema.org/draft-06/schema#", "const": 1, "propertyNames": {"maxLength": 1}},
          [1, 2])


def test_a_string_no_value_satisfies_is_an_impossible_member_on_the_grammar_path():
    """fuzz (grammar path): a lexeme whose intersection is empty (maxLength 0 with a pattern that
    needs a character) wrote a rule for a start state with no moves and Lark refused the grammar
    ("Rule 'x0_0' used but not defined"); the member now cannot occur, as on the regex path."""
    schema = {"type": "object", "additionalProperties": False,
              "patternProperties": {"^x-": {"type": "string", "maxLength": 0, "pattern": "^a"}}}
    check(schema, [{}, {"x-": ""}, {"x-a": "a"}, {"y": 1}], paths=("auto", "regex", "engine"))
    check({"type": "object", "properties": {"a": {"type": "string", "maxLength": 1, "pattern": "^ab"}},
           "additionalProperties": {}}, [{}, {"a": "a"}, {"a": "ab"}, {"b": [1, {"c": []}]}],
          paths=("auto", "engine"))
    with pytest.raises(UnsupportedSchemaError, match="no string satisfies") as info:
        compile_json_schema({"type": "string", "maxLength": 0, "pattern": "^a"}, path="engine")
    assert "accepts no value" in str(info.value) and "'maxLength' at #/maxLength" in str(info.value)


def test_an_object_union_with_a_branch_declaring_no_properties():
    """Seed 5599 (small schemas): anyOf of an object with a property and an object with none
    raised KeyError 'properties' while the grammar path wrote the union as one object."""
    schema = {"$schema": "http://json-schema.org/draft-07/schema#",
              "anyOf": [{"type": "object", "properties": {"0": {"const": 0}}}, {"type": "object"}]}
    check(schema, [{}, {"0": 0}, {"0": 1}, {"a": 1}, {"0": 0, "b": [1]}, [], 1, "x"], paths=("auto", "engine"))
