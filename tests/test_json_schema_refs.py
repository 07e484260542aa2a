"""`$ref` resolution (refs.py) against jsonschema: $defs/definitions, $id bases that resolve
inside the document, nested $id, $anchor and plain-name $id, draft-dependent siblings, escaped
pointers; remote references are refused by name."""

from __future__ import annotations

import json
import re
import warnings

import jsonschema
import pytest
from hypothesis import given, settings, strategies as st

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema
from tokenguide.json_schema.refs import join_uri

CANDIDATES = [None, True, 0, 1, -3, 2.5, "", "a", "ab", "abc", "abcdef", "2024-01-01", [], [1], [1, "a"], ["a", "b"],
              [[1]], {}, {"a": 1}, {"a": "x"}, {"a": 1, "b": "y"}, {"b": [1, 2]}, {"n": {"n": None}}]


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def agree(schema, candidates=CANDIDATES, **kw) -> int:
    """Assert the regex and jsonschema agree on every candidate; return how many are valid."""
    rx = re.compile(build_regex_from_schema(schema, **kw))
    validator = jsonschema.validators.validator_for(schema)(schema)
    valid = 0
    for x in candidates:
        want = validator.is_valid(x)
        assert (rx.fullmatch(dumps(x)) is not None) == want, (schema, x, want)
        valid += want
    return valid


ROOT = "https://example.com/schemas/root.json"


@pytest.mark.parametrize("schema", [
    # $defs and definitions, referenced from anywhere, referencing each other
    {"$defs": {"s": {"type": "string"}, "list": {"type": "array", "items": {"$ref": "#/$defs/s"}}},
     "anyOf": [{"$ref": "#/$defs/list"}, {"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}}]},
    {"definitions": {"n": {"type": "integer", "minimum": 0}},
     "type": "object", "additionalProperties": {"$ref": "#/definitions/n"}},
    # a root $id with a remote-looking base, referenced absolutely
    {"$id": ROOT, "definitions": {"x": {"type": "integer"}}, "type": "array",
     "items": {"$ref": "https://example.com/schemas/root.json#/definitions/x"}},
    # a relative $ref to an embedded resource, and the absolute spelling of the same URI
    {"$id": ROOT, "$defs": {"o": {"$id": "other.json", "type": "string", "maxLength": 2}},
     "type": "array", "prefixItems": [{"$ref": "other.json"}, {"$ref": "https://example.com/schemas/other.json"}]},
    # nested $id changing the base, and a pointer read inside the embedded resource
    {"$id": "https://example.com/a/", "$defs": {"b": {"$id": "b/", "$defs": {
        "c": {"$id": "c.json", "$defs": {"d": {"type": "integer"}}, "$ref": "#/$defs/d"}}}},
     "$ref": "b/c.json"},
    {"$id": "https://example.com/a/", "$defs": {"b": {"$id": "b/", "$defs": {"c": {"$id": "c.json", "type": "string"}},
                                                      "$ref": "c.json"}},
     "type": "array", "items": {"$ref": "https://example.com/a/b/"}},
    # $anchor, in the root resource and in an embedded one
    {"$defs": {"n": {"$anchor": "num", "type": "number"}}, "$ref": "#num"},
    {"$id": ROOT, "$defs": {"o": {"$id": "other.json", "$defs": {"t": {"$anchor": "t", "type": "string"}}}},
     "$ref": "other.json#t"},
    # a urn base
    {"$id": "urn:example:root", "$defs": {"x": {"type": "boolean"}}, "$ref": "urn:example:root#/$defs/x"},
    # escaped pointers: ~0, ~1 and percent-encoding
    {"$defs": {"a/b": {"type": "integer"}, "t~x": {"type": "string"}, "sp ace": {"type": "array"}, "p%c": {"type": "null"}},
     "anyOf": [{"$ref": "#/$defs/a~1b"}, {"$ref": "#/$defs/t~0x"}, {"$ref": "#/$defs/sp%20ace"}, {"$ref": "#/$defs/p%25c"}]},
])
def test_refs_agree_with_jsonschema(schema):
    assert agree(schema) > 0


DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT4 = "http://json-schema.org/draft-04/schema#"


@pytest.mark.parametrize("schema", [
    {"$schema": DRAFT7, "definitions": {"s": {"$id": "#str", "type": "string"}}, "$ref": "#str"},
    {"$schema": DRAFT4, "definitions": {"s": {"id": "#str", "type": "string"}}, "$ref": "#str"},
    {"$schema": DRAFT4, "id": "http://example.com/root.json", "definitions": {"s": {"id": "s.json", "type": "integer"}},
     "type": "array", "items": {"$ref": "s.json"}},
])
def test_plain_name_ids_of_drafts_4_to_7(schema):
    assert agree(schema) > 0


@pytest.mark.parametrize("draft,ignored", [(DRAFT4, True), (DRAFT7, True), ("https://json-schema.org/draft/2019-09/schema", False),
                                           ("https://json-schema.org/draft/2020-12/schema", False), (None, False)])
def test_ref_siblings_by_draft(draft, ignored):
    schema = {"definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 2}},
              "required": ["a"]}
    if draft:
        schema["$schema"] = draft
    candidates = [{"a": "x"}, {"a": "xyz"}, {"a": 1}, {}]
    agree(schema, candidates)
    rx = re.compile(build_regex_from_schema(schema))
    assert (rx.fullmatch('{"a":"xyz"}') is not None) == ignored


def test_id_beside_ref_is_ignored_in_draft_7_and_a_base_in_2020_12():
    defs = {"x": {"$id": "http://example.com/x.json", "type": "integer"}}
    d7 = {"$schema": DRAFT7, "$id": "http://example.com/root.json", "definitions": {
        "inner": {"$id": "http://example.com/dir/inner.json", "$ref": "x.json"}, **defs},
          "allOf": [{"$ref": "#/definitions/inner"}]}
    assert agree(d7) > 0  # the $ref resolves against root.json: http://example.com/x.json
    d2020 = {"$id": "http://example.com/root.json", "$defs": {
        "inner": {"$id": "http://example.com/dir/inner.json", "$ref": "../x.json"}, **defs}, "$ref": "#/$defs/inner"}
    assert agree(d2020) > 0  # the $ref resolves against inner.json's own $id


def test_recursive_ref_through_an_embedded_resource():
    schema = {"$id": ROOT, "$defs": {"tree": {"$id": "tree.json", "type": "object", "properties": {
        "v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "tree.json"}}}, "additionalProperties": False}},
              "$ref": "tree.json"}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine"
    capped = compile_json_schema(schema, path="regex")  # the recursion is found through the resource
    assert capped.depth_capped and "recursive $ref unrolled" in capped.reason
    agree(schema, [{"v": 1}, {"v": 1, "kids": [{"v": 2}]}, {"v": "x"}, {"kids": [{"v": "x"}]}, {"w": 1}])


def test_remote_references_are_refused_by_name():
    for ref in ("https://elsewhere.example/s.json", "other.json", "#/$defs/missing"):
        with pytest.raises(UnsupportedSchemaError) as info:
            build_regex_from_schema({"$id": ROOT, "$defs": {}, "properties": {"a": {"$ref": ref}}})
        assert info.value.keyword == "$ref" and info.value.pointer == "#/properties/a" and ref.split("/")[-1] in str(info.value)
    with pytest.raises(UnsupportedSchemaError, match="remote reference 'other.json'.*example.com/schemas/other.json"):
        build_regex_from_schema({"$id": ROOT, "$ref": "other.json"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rx = re.compile(build_regex_from_schema({"properties": {"a": {"$ref": "https://x.example/y"}}}, lenient=True))
    assert rx.fullmatch('{"a":[1]}') and any("$ref at #/properties/a" in str(w.message) for w in caught)


def test_broken_references_say_what_and_where():
    with pytest.raises(UnsupportedSchemaError, match=r"unknown anchor 'nope'.*\(at #/items\).*\$anchor"):
        build_regex_from_schema({"type": "array", "items": {"$ref": "#nope"}})
    with pytest.raises(UnsupportedSchemaError, match=r"no 'b' at #/\$defs/a \(at #\)"):
        build_regex_from_schema({"$defs": {"a": {}}, "$ref": "#/$defs/a/b"})
    with pytest.raises(UnsupportedSchemaError, match=r"\$ref must be a string \(at #\)"):
        build_regex_from_schema({"$ref": 3})


def test_anchors_are_scoped_to_their_resource():
    schema = {"$id": ROOT, "$defs": {
        "a": {"$id": "a.json", "$defs": {"x": {"$anchor": "x", "type": "string"}}},
        "b": {"$id": "b.json", "$defs": {"x": {"$anchor": "x", "type": "integer"}}}},
              "type": "array", "prefixItems": [{"$ref": "a.json#x"}, {"$ref": "b.json#x"}], "items": False}
    assert agree(schema, [["s", 1], [1, "s"], ["s", "t"], ["s"]]) == 2


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["", "a/", "a/b.json", "https://h.example/p/q.json", "urn:x:y"]),
       st.sampled_from(["#f", "c.json", "../c.json", "/abs.json", "https://o.example/z", "urn:a:b#/x", "?q"]))
def test_join_uri_follows_rfc3986_for_hierarchical_bases(base, ref):
    out = join_uri(base, ref)
    if ref.startswith("#"):
        assert out == base + ref
    elif ":" in ref.split("/")[0]:
        assert out == ref
    elif base.startswith("https:"):
        from urllib.parse import urljoin

        assert out == urljoin(base, ref)


def test_refs_in_properties_merged_from_allof_keep_their_base():
    """allOf merges `properties` of both sides; each member keeps the pointer of where it is
    written, so a `$ref` inside it resolves even when embedded `$id` resources make base URIs
    matter (it was refused as "base URI unknown")."""
    schema = {"type": "object", "properties": {"k": {"$ref": "#/$defs/d"}},
              "allOf": [{"properties": {"m": {"$ref": "#/$defs/d"}}}],
              "$defs": {"d": {"type": "integer"}, "e": {"$id": "e.json"}}}

    def accepts(compiled, text: str) -> bool:
        if compiled.path == "regex":
            return re.fullmatch(compiled.regex, text) is not None
        return compiled.accepts(text)  # the engine's recogniser

    validator = jsonschema.Draft202012Validator(schema)
    for path in ("regex", "engine"):
        compiled = compile_json_schema(schema, path=path)
        assert compiled.path == path
        for text in ('{"k":1,"m":2}', '{"k":1}', '{"m":2}', '{"k":"x","m":2}', '{"k":1,"m":"x"}', '{"k":1,"m":2.5}'):
            assert accepts(compiled, text) == validator.is_valid(json.loads(text)), (path, text)


def _grammar_agrees(schema, docs) -> int:
    """compile_json_schema(path="engine") and jsonschema agree on each document (compact JSON);
    returns how many are valid (so a test can see both verdicts were met)."""
    from grammar_oracle import acceptor  # noqa: PLC0415 - tests/ helper

    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(schema)(schema)
    valid = 0
    for doc in docs:
        want = validator.is_valid(doc)
        assert accepts(dumps(doc)) == want, (doc, want)
        valid += want
    return valid


NODE = {"type": "object", "properties": {
    "name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
    "link": {"allOf": [{"$ref": "#/$defs/node"}, {"$ref": "#/$defs/leaf"}]}}}
LEAF = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}, "additionalProperties": False}


def test_recursive_ref_merged_with_a_closed_schema_is_written_out_one_level():
    """Inside its own recursion, `node` and `leaf` together: node's schema written out one level
    and merged with leaf (leaf closes the object, so the recursion stops there). It was refused
    as "a recursive $ref combined with other constraints"."""
    schema = {"$defs": {"node": NODE, "leaf": LEAF}, "$ref": "#/$defs/node"}
    docs = [{}, {"name": "a"}, {"link": {"name": "abc"}}, {"link": {"name": "abcd"}}, {"link": {"kids": []}},
            {"link": {}}, {"kids": [{"link": {"name": "x"}}, {"kids": [{"name": "deep"}]}]},
            {"kids": [{"link": {"name": "xxxx"}}]}, {"kids": [{"link": {"link": {}}}]}, {"link": 1}, {"name": 2}]
    assert 0 < _grammar_agrees(schema, docs) < len(docs)


def test_recursive_ref_constrained_again_inside_its_recursion_is_refused_by_name():
    """`tree` and "required n" together where tree's items are that pair again: writing tree
    out one level meets the same pair, which would need a rule of its own; refused by name
    instead of recursing."""
    tree = {"type": "object", "properties": {"n": {"type": "integer"}, "kids": {
        "type": "array", "items": {"allOf": [{"$ref": "#/$defs/tree"}, {"required": ["n"]}]}}}}
    schema = {"$defs": {"tree": tree}, "$ref": "#/$defs/tree"}
    with pytest.raises(UnsupportedSchemaError, match="constrain it again inside its own recursion") as err:
        compile_json_schema(schema, path="engine")
    assert err.value.keyword == "$ref" and err.value.pointer == "#/$defs/tree"


def test_the_same_recursive_schema_twice_is_one_conjunct():
    """A member declared alike by `properties` and by a matching `patternProperties` (and an
    allOf naming one $ref twice): the same schema twice is one conjunct, not a recursive $ref
    combined with itself (Washington Post ANS `promo_items`)."""
    pick = {"oneOf": [{"$ref": "#/$defs/node"}, {"type": "string"}]}
    node = {"type": "object", "properties": {"basic": pick, "v": {"type": "integer"},
                                             "twice": {"allOf": [{"$ref": "#/$defs/node"}, {"$ref": "#/$defs/node"}]}},
            "patternProperties": {"^b": pick}, "additionalProperties": False}
    schema = {"$defs": {"node": node}, "$ref": "#/$defs/node"}
    docs = [{}, {"basic": "x"}, {"basic": {"v": 1}}, {"basic": {"basic": {"basic": "y"}}}, {"bx": {"v": 2}},
            {"twice": {"v": 1}}, {"twice": {"twice": {"bz": "q"}}}, {"basic": 1}, {"v": "1"}, {"c": 1},
            {"twice": {"v": "x"}}, {"basic": {"zz": 1}}]
    assert 0 < _grammar_agrees(schema, docs) < len(docs)
