"""Unique arrays whose uniqueness depends on a sibling's value (ValueChecks.discriminator).

GitHub issue forms: a form item's `type` (required, a string, declared first everywhere) picks
its members by `if: {properties: {type: {const: ...}}}`; a dropdown's options must be distinct,
checkboxes' options (objects, same path) need not be. The check reads the `type` value before
the rest and narrows the alternatives by it. Oracles: jsonschema on whole documents, the masks
at the places where the value decides, random GPT-2 generations that never strand and end valid.
"""

from __future__ import annotations

import json

import pytest
from test_json_schema_arrays import dumps, valid
from test_json_schema_unique_values import assert_agrees, char_vocabulary, greedy, guide_accepts, random_generations

from tokenguide import Guide
from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.value_checks import ValueChecks

PATHS = ("regex", "engine")
LABELS = {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}
FORM = {
    "type": "object", "required": ["body"], "additionalProperties": False,
    "properties": {"body": {"type": "array", "items": {"$ref": "#/$defs/item"}}},
    "$defs": {
        "kind": {"type": "string", "enum": ["dropdown", "checkboxes", "markdown"]},
        "item": {
            "type": "object", "required": ["type"], "properties": {"type": {"$ref": "#/$defs/kind"}},
            "allOf": [
                {"if": {"properties": {"type": {"const": "dropdown"}}},
                 "then": {"properties": {"type": True, "options": {**LABELS, "uniqueItems": True}},
                          "additionalProperties": False}},
                {"if": {"properties": {"type": {"const": "checkboxes"}}},
                 "then": {"properties": {"type": True, "options": {"type": "array", "items": {
                     "type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"],
                     "additionalProperties": False}}}, "additionalProperties": False}},
                {"if": {"properties": {"type": {"const": "markdown"}}},
                 "then": {"properties": {"type": True, "value": {"type": "string"}}, "additionalProperties": False}},
            ]}},
}


def documents() -> list:
    items = [{"type": "dropdown", "options": ["a", "b"]}, {"type": "dropdown", "options": ["a", "a"]},
             {"type": "checkboxes", "options": [{"label": "x"}, {"label": "x"}]},
             {"type": "checkboxes", "options": ["a", "b"]}, {"type": "markdown", "value": "v"},
             {"type": "markdown", "options": ["a"]}, {"type": "dropdown", "options": [{"label": "x"}]}]
    return [{"body": [i]} for i in items] + [{"body": [items[0], items[2], items[4]]},
                                             {"body": [items[2], items[1]]}, {"body": []}]


@pytest.mark.parametrize("path", PATHS)
def test_documents_agree_with_jsonschema(path):
    compiled = compile_json_schema(FORM, path=path)
    assert compiled.checks is not None
    judged = [0, 0]
    for v in documents():
        want = valid(FORM, v)
        assert compiled.accepts(dumps(v)) == want, v
        judged[want] += 1
    assert min(judged) >= 3, judged


@pytest.mark.parametrize("path", PATHS)
def test_masks_follow_the_value_read_first(path):
    vocab, tokens = char_vocabulary([])
    guide = Guide.from_json_schema(FORM, vocab, whitespace_pattern="", path=path)

    def allowed(prefix: str) -> set[str]:
        guide.reset()
        for ch in prefix:
            guide.advance(tokens.index(ch), return_tokens=False)
        return {tokens[i] if i < len(tokens) else "EOS" for i in guide.get_tokens()}

    # a dropdown's second option cannot end equal to the first; it can grow into another one
    assert allowed('{"body":[{"type":"dropdown","options":["a","a') == set("abcdefghijklmnopqrstuvwxyz")
    assert '"' in allowed('{"body":[{"type":"dropdown","options":["a","b')
    # checkboxes repeat objects freely
    assert "}" in allowed('{"body":[{"type":"checkboxes","options":[{"label":"x"},{"label":"x"')
    # the next item starts over: its own type decides
    assert "]" in allowed('{"body":[{"type":"dropdown","options":["a","b"]},{"type":"dropdown","options":["a","b"')


@pytest.mark.parametrize("path", PATHS)
def test_gpt2_random_generations_never_strand_and_end_valid(gpt2_vocabulary, path):
    vocab = gpt2_vocabulary
    guide = Guide.from_json_schema(FORM, vocab, path=path, whitespace_pattern="")
    finished = random_generations(guide, vocab, 11, 10, 160, 1.0, (b'"', b"]", b"}"), 0.6)
    for text in finished:
        assert valid(FORM, json.loads(text)), text
    ended = len(finished)
    assert ended >= 3
    assert not guide_accepts(guide, greedy(vocab, dumps({"body": [{"type": "dropdown", "options": ["a", "a"]}]})))
    assert guide_accepts(guide, greedy(vocab, dumps(
        {"body": [{"type": "checkboxes", "options": [{"label": "x"}, {"label": "x"}]}]})))


def test_discriminator_needs_the_member_required_first_and_a_string():
    options = "#/$defs/item/allOf/0/then/properties/options/uniqueItems"
    check = ValueChecks(FORM, lambda *a: None)
    assert check.refusal(options) is None  # (explores the places)
    item = check.child_index(check.child_key(check.root, "body"), 0)
    assert check.discriminator(item) == "type"
    for change in ({"required": []}, {"properties": {"label": {"type": "string"}, "type": {"$ref": "#/$defs/kind"}}}):
        schema = json.loads(json.dumps(FORM))
        schema["$defs"]["item"].update(change)
        other = ValueChecks(schema, lambda *a: None)
        assert "another schema that applies there" in other.refusal(options)
        at = other.child_index(other.child_key(other.root, "body"), 0)
        assert other.discriminator(at) is None
        with pytest.raises(UnsupportedSchemaError) as exc:
            compile_json_schema(schema)
        assert exc.value.keyword == "uniqueItems" and "another schema that applies there" in str(exc.value)


def test_any_key_order_keeps_the_refusal():
    """With property_order="any" the type may come after options: no narrowing, refused by name."""
    with pytest.raises(UnsupportedSchemaError) as exc:
        compile_json_schema(FORM, property_order="any")
    assert exc.value.keyword == "uniqueItems"


# ---- a member one of whose alternatives accepts anything, under every alternative of its object

JOB = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}


def hidden_keys(kind: str) -> dict:
    """GitLab CI's shape: keys starting with a dot are any YAML anchor (`anyOf [job, {}]`), other
    keys jobs whose tags are distinct."""
    return {"type": "object", "additionalProperties": {"$ref": "#/$defs/job"}, "$defs": {"job": JOB},
            "patternProperties": {"^[.]": {kind: [{"$ref": "#/$defs/job"}, {"description": "an anchor"}]}}}


@pytest.mark.parametrize("path", PATHS)
def test_a_member_that_may_be_anything_needs_no_check_inside(path):
    schema = hidden_keys("anyOf")
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    docs = [{".a": {"tags": ["x", "x"]}}, {".a": [1, 1]}, {"b": {"tags": ["x", "x"]}}, {"b": {"tags": ["x", "y"]}},
            {".a": {"tags": ["x", "x"]}, "b": {"tags": ["y", "y"]}}, {".a": 1, "b": {"tags": []}}]
    assert_agrees(compiled, schema, docs)


def test_oneof_with_an_alternative_that_accepts_anything_is_no_free_member():
    """`oneOf [job, {}]` holds for values that are no job: the member is not free there."""
    schema = hidden_keys("oneOf")
    check = ValueChecks(schema, lambda *a: None)
    assert check.refusal("#/$defs/job/properties/tags/uniqueItems") is not None


def test_a_free_alternative_under_one_object_alternative_only_is_no_free_member():
    """The member x is free under A only; whether A or B holds depends on y, so x is not free."""
    unique = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    schema = {"anyOf": [
        {"type": "object", "properties": {"x": {}, "y": unique}, "required": ["y"]},
        {"type": "object", "properties": {"x": unique, "y": {"type": "integer"}}, "required": ["y"]}]}
    check = ValueChecks(schema, lambda *a: None)
    assert "another schema that applies there" in check.refusal("#/anyOf/1/properties/x/uniqueItems")
