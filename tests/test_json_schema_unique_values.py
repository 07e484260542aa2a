"""uniqueItems checked on the values (json_schema.value_checks, guides.value_checks): arrays of
strings or integers that must hold distinct items, which no regex or grammar can say.

Oracles: jsonschema for whole documents (CompiledSchema.accepts, on both paths); for masks, the
set of prefixes of every valid document of a finite language (each mask must allow exactly the
tokens that keep the text a prefix of one, EOS exactly on documents); on GPT-2's vocabulary,
jsonschema's verdict on documents with and without repeated items, and random generations that
must never strand and must end valid. The refusals left name keyword, pointer and the reason."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from test_json_schema_arrays import dumps, valid

from tokenguide import Guide
from tokenguide.errors import ArgumentError, InvalidTokenError, UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.value_checks import ValueChecks
from tokenguide.vocabulary import Vocabulary

PATHS = ("regex", "engine")
STRINGS = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
TAGS = {
    "type": "object",
    "properties": {
        "tags": {"$ref": "#/$defs/tags"},
        "ids": {"type": "array", "items": {"type": "integer", "minimum": 0}, "uniqueItems": True, "maxItems": 4},
        "more": {"anyOf": [{"$ref": "#/$defs/tags"}, {"type": "string"}]},
    },
    "required": ["tags"],
    "additionalProperties": False,
    "$defs": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "uniqueItems": True}},
}
NESTED = {"type": "array", "items": {"type": "array", "items": {"type": ["string", "boolean", "null"]}, "maxItems": 2},
          "uniqueItems": True}


def documents() -> list:
    """Values for TAGS and friends: with and without repeated items, at several places."""
    words = ["", "a", "b", "ab", "abc", "a b", "é", 'q"', "abcd"]
    out: list = []
    for n in range(4):
        for combo in itertools.product(["a", "b", "ab", "é"], repeat=n):
            out.append({"tags": list(combo)})
    out += [{"tags": [w]} for w in words] + [{"tags": ["a"], "ids": ids} for ids in
                                             ([0, 1], [1, 1], [10, 1, 0], [3, 3, 4], [1, 2, 3, 4, 5], [-1])]
    out += [{"tags": [], "more": m} for m in (["x", "y"], ["x", "x"], "x", ["abcd"])]
    out += [[], ["a"], ["a", "a"], [1, 1], [[1], [1]], [["a"], ["a", None]], [["a"], ["a"]], [[], []],
            [[True, None], [None, True]], [[True, None], [True, None]]]
    return out


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("schema", [STRINGS, TAGS, NESTED], ids=["strings", "tags", "nested"])
def test_documents_agree_with_jsonschema(schema, path):
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    judged = [0, 0]
    for v in documents():
        for text in (dumps(v), dumps(v, compact=False)):
            assert compiled.accepts(text) == valid(schema, v), (text, valid(schema, v))
        judged[valid(schema, v)] += 1
    assert min(judged) >= 2, judged


def test_value_checks_is_an_option_and_off_refuses():
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(STRINGS, value_checks=False)
    assert (info.value.keyword, info.value.pointer) == ("uniqueItems", "#/uniqueItems")
    with pytest.raises(ArgumentError, match="value_checks"):
        compile_json_schema(STRINGS, value_checks="yes")
    # a whitespace pattern that is not JSON whitespace alone: no check (it could hide an equal item)
    with pytest.raises(UnsupportedSchemaError, match="not regular"):
        compile_json_schema(STRINGS, whitespace_pattern="[ a]?", path="regex")


U = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}


@pytest.mark.parametrize("schema,pointer,why", [
    ({"anyOf": [U, {"type": "array", "items": {"type": "integer"}}]}, "#/anyOf/0/uniqueItems",
     "accepts arrays with equal items"),
    ({"properties": {"a": {"$ref": "#/$defs/u"}, "b": {"not": {"$ref": "#/$defs/u"}}}, "$defs": {"u": U}},
     "#/$defs/u/uniqueItems", "under a `not`"),
    ({"type": "array", "items": {"type": "object", "maxProperties": 2}, "uniqueItems": True}, "#/uniqueItems",
     "members are bounded"),
    ({"type": "array", "uniqueItems": True, "items": {"type": "object", "additionalProperties": False, "properties": {
        "m": {"type": "object", "patternProperties": {"^(a|b)$": {"type": "integer"}}, "additionalProperties": False}}}},
     "#/uniqueItems", "names too few"),  # (a map that may run out of new names)
    ({"type": "array", "uniqueItems": True, "items": {"type": "object", "additionalProperties": False, "properties": {
        "m": {"anyOf": [{"type": "object", "additionalProperties": False, "properties": {"a": {"type": "string"}}},
                        {"type": "object", "additionalProperties": {"type": "string"}}]}}}},
     "#/uniqueItems", "maps under several alternatives"),  # (a map or a closed object at one place)
    ({"type": "array", "uniqueItems": True, "items": {"type": "object", "additionalProperties": False, "properties": {
        "m": {"type": "object", "additionalProperties": {"type": "integer"},
              "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}}},
     "#/uniqueItems", "may pick between schemas"),  # (one more member may make both branches hold)
    ({"type": "array", "uniqueItems": True, "items": {"type": "object", "additionalProperties": False, "properties": {
        "m": {"type": "object"}}}},
     "#/uniqueItems", "any JSON value"),  # (a map of free-form values: the item automaton caps their nesting)
    ({"type": "array", "items": {"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "additionalProperties": False},
        {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}, "additionalProperties": False},
    ]}, "uniqueItems": True}, "#/uniqueItems", "in different orders"),
    ({"type": "array", "uniqueItems": True, "items": {"type": "array", "uniqueItems": True, "maxItems": 2,
                                                      "items": {"type": "number", "minimum": 0, "maximum": 1}}},
     "#/uniqueItems", "not a small finite set"),  # (inner arrays of bounded numbers: texts counted are not values)
    ({"type": "array", "items": {"type": "string"}, "contains": {"const": "a"}, "uniqueItems": True},
     "#/uniqueItems", "contains beside it"),
    ({"type": "array", "items": {"type": "array", "items": {"type": "array"}, "maxItems": 3}, "uniqueItems": True},
     "#/uniqueItems", "any JSON value"),  # (arrays of at most three: not free, and their items are anything)
    ({"$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}, "uniqueItems": True}}, "$ref": "#/$defs/t"},
     "#/$defs/t/uniqueItems", "recursive"),
])
def test_what_cannot_be_checked_exactly_is_refused_by_name(schema, pointer, why):
    for path in PATHS:
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema(schema, path=path)
        assert (info.value.keyword, info.value.pointer) == ("uniqueItems", pointer), str(info.value)
        assert why in str(info.value) and pointer in str(info.value)


def test_the_check_itself_refuses_an_array_under_not():
    """Whatever the emitter does, the check never takes an array a `not` reaches (through $ref),
    nor one under `contains` (an item may match it or not: the other alternative lets items
    repeat), nor one it meets at no place of a document (under propertyNames)."""
    schema = {"properties": {"a": {"$ref": "#/$defs/u"}, "b": {"not": {"items": {"$ref": "#/$defs/u"}}}},
              "$defs": {"u": U}}
    check = ValueChecks(schema, lambda *a: None)
    assert "under a `not`" in check.take("#/$defs/u/uniqueItems") and not check.dropped
    check = ValueChecks({"items": {"type": "array"}, "contains": U}, lambda *a: None)
    assert "accepts arrays with equal items" in check.refusal("#/contains/uniqueItems")
    check = ValueChecks({"propertyNames": U}, lambda *a: None)
    assert "no place of a document reaches" in check.refusal("#/propertyNames/uniqueItems")
    check = ValueChecks({"properties": {"a": U}}, lambda *a: None)
    assert check.take("#/properties/a/uniqueItems") is None and check.dropped


def test_an_if_alternative_with_unique_arrays_on_both_sides_is_checked():
    """The array sits in `then` and `else` alike: every alternative requires distinct items."""
    schema = {"if": {"properties": {"k": {"const": 1}}}, "then": {"properties": {"a": U}},
              "else": {"properties": {"a": {"allOf": [U, {"maxItems": 2}]}}}}
    compiled = compile_json_schema(schema)
    # (keys in the order the output format writes them: "a", declared first, then "k")
    for v in ({"a": ["x", "y", "z"], "k": 1}, {"a": ["x", "x"], "k": 1}, {"a": ["x", "y", "z"], "k": 2},
              {"a": ["y", "y"], "k": 2}, {"a": ["y"], "k": 2}, {"a": ["y", "z", "x"]}):
        assert compiled.accepts(dumps(v)) == valid(schema, v), v


PEOPLE = {"type": "array", "uniqueItems": True, "items": {"anyOf": [
    {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}, "n": {"type": "integer"}},
     "required": ["name"], "additionalProperties": False},
    {"type": "object", "properties": {"entity": {"type": "string"}, "email": {"type": "string"}},
     "required": ["entity"], "additionalProperties": False},
    {"type": "string"}]}}


@pytest.mark.parametrize("path", PATHS)
def test_closed_objects_as_items(path, gpt2_vocabulary):
    """Closed objects (citation-file-format's persons and entities): one spelling per value, so
    checked like strings; the same object twice is refused, key order never differs."""
    compiled = compile_json_schema(PEOPLE, path=path)
    ann, bob, org = {"name": "ann"}, {"name": "bob", "email": "b@x", "n": 2}, {"entity": "org", "email": "o@x"}
    docs = [[ann, bob], [ann, ann], [ann, bob, org, "ann"], [org, org], [bob, {"name": "bob", "email": "b@x", "n": 3}],
            [bob, {"name": "bob", "email": "b@x", "n": 2}], ["x", "x"], [ann, {"name": "ann", "n": 1}]]
    guide = Guide.from_json_schema(PEOPLE, gpt2_vocabulary, path=path)
    for v in docs:
        want = valid(PEOPLE, v)
        for text in (dumps(v), dumps(v, compact=False)):
            assert compiled.accepts(text) == want, text
        assert guide_accepts(guide, greedy(gpt2_vocabulary, dumps(v))) == want, v
    with pytest.raises(UnsupportedSchemaError, match="any order"):
        compile_json_schema(PEOPLE, path=path, property_order="any")


OPEN = {"type": "array", "uniqueItems": True, "items": {
    "type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "integer"}}, "required": ["name"]}}


@pytest.mark.parametrize("path", PATHS)
def test_open_objects_as_items(path, gpt2_vocabulary):
    """Objects that may take other keys (compose-spec's volumes, Travis's notifications): equal
    in any key order; one not closed yet can always become new (a key no item has), so only its
    closing brace is ever refused."""
    compiled = compile_json_schema(OPEN, path=path)
    guide = Guide.from_json_schema(OPEN, gpt2_vocabulary, path=path)
    docs = ['[{"name":"a"},{"name":"b"}]', '[{"name":"a"},{"name":"a"}]', '[{"name":"a","x":1,"y":2},{"name":"a","y":2,"x":1}]',
            '[{"name":"a","x":1,"y":2},{"name":"a","y":2,"x":1.0}]', '[{"name":"a","x":[1,{"p":2,"q":3}]},'
            '{"name":"a","x":[1,{"q":3,"p":2}]}]', '[{"name":"a","x":[1,{"p":2,"q":3}]},{"name":"a","x":[{"q":3,"p":2},1]}]',
            '[{"name":"a","n":1},{"name":"a","n":1,"z":null}]']
    for text in docs:
        want = valid(OPEN, json.loads(text))
        assert compiled.accepts(text) == want, text
        assert guide_accepts(guide, greedy(gpt2_vocabulary, text)) == want, text
    vocab, tokens = char_vocabulary(["}]"])
    g = Guide.from_json_schema(OPEN, vocab, path=path, whitespace_pattern="")
    for ch in '[{"name":"a","x":1},{"name":"a","x":1':
        g.advance(tokens.index(ch), return_tokens=False)
    allowed = {tokens[i] for i in g.get_tokens() if i < len(tokens)}
    assert "}" not in allowed and "}]" not in allowed and "," in allowed and "2" in allowed


PREFIX = {"type": "array", "uniqueItems": True, "prefixItems": [{"type": "string", "maxLength": 1}, {"type": "integer"}],
          "items": {"type": "string"}}


@pytest.mark.parametrize("path", PATHS)
def test_prefix_items_take_their_own_automata(path):
    """Each prefixItems position is searched in its own item automaton, against every item seen:
    after ["a",1, the third item may not be "a" (a one-letter first item, the rest any string)."""
    compiled = compile_json_schema(PREFIX, path=path)
    for v in (["a", 1, "b"], ["a", 1, "a"], ["a", 1, "ab", "ab"], ["a", 1, "1"], ["a"], ["ab"]):
        assert compiled.accepts(dumps(v)) == valid(PREFIX, v), v
    vocab, tokens = char_vocabulary(['a"', '"a"'])
    g = Guide.from_json_schema(PREFIX, vocab, path=path, whitespace_pattern="")
    for ch in '["a",1,"':
        g.advance(tokens.index(ch), return_tokens=False)
    allowed = {tokens[i] for i in g.get_tokens() if i < len(tokens)}
    assert "a" in allowed and 'a"' not in allowed and "b" in allowed
    g.reset()
    for ch in '["':
        g.advance(tokens.index(ch), return_tokens=False)
    allowed = {tokens[i] for i in g.get_tokens() if i < len(tokens)}
    assert 'a"' in allowed and '"a"' not in allowed


NUMBERS = {"type": "array", "uniqueItems": True, "items": {"anyOf": [
    {"type": "number"}, {"type": "array", "items": {"type": "number"}, "maxItems": 2},
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"enum": ["x"]}}, "required": ["a", "b"],
     "additionalProperties": False}]}}


@pytest.mark.parametrize("path", PATHS)
def test_numbers_are_compared_by_value(path, gpt2_vocabulary):
    """1, 1.0, 10e-1 and 1E0 are one value wherever they sit in an item (citation-file-format's
    post codes may be numbers)."""
    compiled = compile_json_schema(NUMBERS, path=path)
    texts = ["[1,1.0]", "[1,1.5]", "[1,10e-1]", "[0,-0]", "[0,-0.0]", "[[1,2],[1.0,2e0]]", "[[1,2],[2,1]]",
             '[{"a":1,"b":"x"},{"a":1.00,"b":"x"}]', '[{"a":1,"b":"x"},{"a":1.01,"b":"x"}]', "[1e400,1E400]",
             "[123456789012345678901234567890,123456789012345678901234567891]", "[1,[1],true,[true]]"]
    guide = Guide.from_json_schema(NUMBERS, gpt2_vocabulary, path=path)
    for text in texts:
        v = json.loads(text)
        want = valid(NUMBERS, v) if "e400" not in text else False  # (Python reads both as inf)
        if text == "[1,[1],true,[true]]":
            want = False  # (true is no number here)
        assert compiled.accepts(text) == want, text
        assert guide_accepts(guide, greedy(gpt2_vocabulary, text)) == want, text


@pytest.mark.parametrize("path", PATHS)
def test_a_number_that_can_only_end_equal_strands_nothing(path):
    """After {"a":1,"b":"x"}, the item {"a":1.0 may go on (1.05) but not end: its only ending
    is "b":"x"}, equal to the first."""
    vocab, tokens = char_vocabulary([])
    guide = Guide.from_json_schema(NUMBERS, vocab, path=path, whitespace_pattern="")
    for ch in '[{"a":1,"b":"x"},{"a":1.0':
        guide.advance(tokens.index(ch), return_tokens=False)
    allowed = {tokens[i] for i in guide.get_tokens() if i < len(tokens)}
    assert "," not in allowed and "5" in allowed and "0" in allowed and "}" not in allowed
    guide.advance(tokens.index("5"), return_tokens=False)
    assert "," in {tokens[i] for i in guide.get_tokens() if i < len(tokens)}


BOUNDED = {"type": "array", "uniqueItems": True, "items": {"type": "number", "minimum": 0, "maximum": 1}}
HALVES = {"type": "array", "uniqueItems": True, "items": {"anyOf": [
    {"type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.5},
    {"type": "object", "properties": {"w": {"type": "number", "maximum": 2, "minimum": 1, "multipleOf": 0.5},
                                      "k": {"enum": [1, 2.5, "x"]}},
     "required": ["w"], "additionalProperties": False}]}}


def _allowed_after(schema, prefix: str, path: str) -> set[str]:
    vocab, tokens = char_vocabulary([])
    guide = Guide.from_json_schema(schema, vocab, path=path, whitespace_pattern="")
    for ch in prefix:
        guide.advance(tokens.index(ch), return_tokens=False)
    return {tokens[i] if i < len(tokens) else "EOS" for i in guide.get_tokens()}


@pytest.mark.parametrize("path", PATHS)
def test_bounded_numbers_with_fractions_strand_nothing(path):
    """With at most 1, after [1, the item 1 may not end but may go on (1e-5, 1.0e-5 are new); after [0.5,0, the item may end (0 is new) or go
    on (0.25); with 0, 0.5 and 1 written (halves), no fourth half can begin: only an object may."""
    assert _allowed_after(BOUNDED, "[1,1", path) == {".", "e", "E"}
    assert _allowed_after(BOUNDED, "[0.5,0", path) == {".", ",", "]"}
    assert _allowed_after(BOUNDED, "[1,0.", path) == set("0123456789")
    assert _allowed_after(HALVES, "[0,0.5,1,", path) == {"{"}
    assert _allowed_after(HALVES, "[0.5,0", path) >= {",", "]", "."}
    assert _allowed_after(HALVES, "[0.5,0.", path) == {"0"}  # (0.5 again: 0.50, 0.5e0, 0.5e-1 is no half)
    # an object's number and an enum's numbers, compared by value: w 1.0 is w 1
    assert _allowed_after(HALVES, '[{"w":1},{"w":1.0', path) & {"}", ","} == {","}
    assert _allowed_after(HALVES, '[{"w":1,"k":2.5},{"w":1,"k":', path) == {"1", '"'}  # (2.5 again: no)
    assert "}" in _allowed_after(HALVES, '[{"w":1,"k":2.5},{"w":1.5,"k":2.5', path)


@pytest.mark.parametrize("path", PATHS)
def test_bounded_numbers_agree_with_jsonschema(path, gpt2_vocabulary):
    """Documents judged as jsonschema judges them (1 and 1.0 are one value), through the
    compiled schema and through a GPT-2 guide; random GPT-2 walks never strand and end valid."""
    texts = ["[1,1.0]", "[1,1e0]", "[0.5,5e-1]", "[0,-0]", "[0,0.5,1]", "[0.25,0.5]", "[1,0.1e1]", "[2]",
             '[{"w":1},{"w":1.0}]', '[{"w":1},{"w":1.5}]', '[{"w":1,"k":1},{"w":1,"k":1.0}]',
             '[{"w":1,"k":1},{"w":1,"k":"x"}]', '[0,{"w":1},0.0]', '[{"w":2,"k":2.5},{"w":2.0,"k":25e-1}]']
    for schema in (BOUNDED, HALVES):
        compiled = compile_json_schema(schema, path=path)
        assert compiled.checks is not None
        assert_texts_agree(schema, compiled, Guide.from_json_schema(schema, gpt2_vocabulary, path=path),
                           gpt2_vocabulary, texts)
    guide = Guide.from_json_schema(HALVES, gpt2_vocabulary, path=path, whitespace_pattern="")
    finished = random_generations(guide, gpt2_vocabulary, 5, 12, 60, 0.2, (b"]", b"}", b","), 0.6)
    for text in finished:
        assert valid(HALVES, json.loads(text)), text
    assert len(finished) >= 3, finished


@pytest.mark.parametrize("path", PATHS)
def test_bounded_numbers_beside_inner_arrays_of_fresh_items(path):
    """Items with a bounded number and an inner array of distinct strings (which can always take
    a new one): the inner array is left to its own check, the number compared by value."""
    schema = {"type": "array", "uniqueItems": True, "items": {
        "type": "object", "additionalProperties": False, "required": ["v"],
        "properties": {"v": {"type": "number", "minimum": 0, "maximum": 10},
                       "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}}
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    assert_agrees(compiled, schema, [[{"v": 1}, {"v": 1.5}], [{"v": 1}, {"v": 1.0}], [{"v": 1, "tags": ["a", "a"]}],
                                     [{"v": 1, "tags": ["a"]}, {"v": 1, "tags": ["a"]}],
                                     [{"v": 1, "tags": ["a"]}, {"v": 1.0, "tags": ["b", "a"]}]])
    assert _allowed_after(schema, '[{"v":10},{"v":10', path) == {",", "."}  # (10.0 is 10; the tags may differ)


MAPS = {"type": "array", "uniqueItems": True, "items": {
    "type": "object", "additionalProperties": False, "required": ["id"], "properties": {
        "id": {"enum": ["a", "b"]},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "tags": {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "integer", "minimum": 0, "maximum": 1}},
                 "additionalProperties": False}}}}


@pytest.mark.parametrize("path", PATHS)
def test_maps_inside_items_are_compared_in_any_key_order(path, gpt2_vocabulary):
    """Closed items holding maps (AWS API Gateway usage plans' throttle maps, EMR's properties):
    two items whose maps differ only in key order, or in a key repeated (the last one counts),
    are equal, through the compiled schema and a GPT-2 guide alike."""
    compiled = compile_json_schema(MAPS, path=path)
    assert compiled.checks is not None
    guide = Guide.from_json_schema(MAPS, gpt2_vocabulary, path=path)
    texts = ['[{"id":"a","tags":{"x":1,"y":0}},{"id":"a","tags":{"y":0,"x":1}}]',
             '[{"id":"a","tags":{"x":1,"y":0}},{"id":"a","tags":{"y":1,"x":1}}]',
             '[{"id":"a","tags":{"x":1,"x":0}},{"id":"a","tags":{"x":0}}]',
             '[{"id":"a","tags":{"x":1,"x":0}},{"id":"a","tags":{"x":1}}]',
             '[{"id":"a","tags":{}},{"id":"a"}]', '[{"id":"a","tags":{}},{"id":"a","tags":{}}]',
             '[{"id":"a","env":{"p":"1","q":"2"}},{"id":"a","env":{"q":"2","p":"1"}}]',
             '[{"id":"a","env":{"p":"1"},"tags":{"x":1}},{"id":"a","env":{"p":"2"},"tags":{"x":1}}]',
             '[{"id":"a","env":{"p":"1","p":"2"},"tags":{"x":1}},{"id":"a","env":{"p":"2"},"tags":{"x":1}}]',
             '[{"id":"a","tags":{"b":{"c":1}}}]']
    assert_texts_agree(MAPS, compiled, guide, gpt2_vocabulary, texts)


def test_a_map_of_bounded_names_is_checked_where_no_document_uses_them_up():
    """Names of 1..20 letters (26**20 of them, AWS Security Hub's control parameters: 1..128
    characters) leave a new one for any document; 1..3 letters (18,278) might not."""
    def schema(pattern: str) -> dict:
        return {"type": "array", "uniqueItems": True, "items": {
            "type": "object", "additionalProperties": False, "properties": {"m": {
                "type": "object", "patternProperties": {pattern: {"type": "integer"}}, "additionalProperties": False}}}}
    compiled = compile_json_schema(schema("^[a-z]{1,20}$"), path="engine")
    assert compiled.checks is not None
    for text in ('[{"m":{"a":1,"b":2}},{"m":{"b":2,"a":1}}]', '[{"m":{"a":1,"b":2}},{"m":{"b":2}}]'):
        assert compiled.accepts(text) == valid(schema("^[a-z]{1,20}$"), json.loads(text)), text
    with pytest.raises(UnsupportedSchemaError, match="names too few"):
        compile_json_schema(schema("^[a-z]{1,3}$"), path="engine")


def test_a_closed_map_is_spelled_in_one_order():
    """order_free.canonical_object: members by their names' texts, a repeated name once with its
    last value, values untouched (strings holding `,` `}` `"`, nested objects and arrays); two
    texts get one spelling exactly when json.loads reads them as one value."""
    from tokenguide.json_schema.order_free import canonical_object

    texts = ['{}', '{"b":1,"a":2}', '{"a":2,"b":1}', '{"a":1,"a":2}', '{"a":2}', '{"a\\"b":",}\\"","a":[1,{"z":0,"y":1}]}',
             '{"a":[1,{"z":0,"y":1}],"a\\"b":",}\\""}', '{"a":[1,{"y":1,"z":0}],"a\\"b":",}\\""}', '{"é":{},"e":null}',
             '{"e":null,"é":{}}', '{"x":"1","x":1}', '{"x":1}']
    for t in texts:
        assert json.loads(canonical_object(t.encode())) == json.loads(t), t
    def members(text: str) -> dict:  # (nested objects keep their order: each map is rewritten as it closes)
        return {k: json.dumps(v) for k, v in json.loads(text).items()}

    for a, b in itertools.combinations(texts, 2):
        assert (canonical_object(a.encode()) == canonical_object(b.encode())) == (members(a) == members(b)), (a, b)


@pytest.mark.parametrize("path", PATHS)
def test_a_map_never_strands_its_item(path, gpt2_vocabulary):
    """While a map is open its item can always become new (a name no item has there): only the
    brace that would close it on an item seen is refused, whatever the order its keys came in."""
    first = '[{"id":"a","tags":{"y":0,"x":1}},'
    assert _allowed_after(MAPS, first + '{"id":"a","tags":{"x":1,"y":0', path) & {"}", ","} == {","}
    assert _allowed_after(MAPS, first + '{"id":"a","tags":{"x":1,"y":1', path) & {"}", ","} == {"}", ","}
    assert _allowed_after(MAPS, first + '{"id":"a","tags":{"x":1,"y":1,"y":0', path) & {"}", ","} == {","}
    assert _allowed_after(MAPS, '[{"id":"a","tags":{}},{"id":"a","tags":{', path) & {"}", '"'} == {'"'}
    assert _allowed_after(MAPS, '[{"id":"a"},{"id":"a"', path) == {","}
    assert _allowed_after(MAPS, '[{"id":"a","env":{"q":"","p":"1"}},{"id":"a","env":{"p":"1","q":""}', path) == {","}
    assert "}" in _allowed_after(MAPS, first + '{"id":"b"', path)
    guide = Guide.from_json_schema(MAPS, gpt2_vocabulary, path=path, whitespace_pattern="")
    finished = random_generations(guide, gpt2_vocabulary, 11, 12, 80, 0.2, (b"}", b"]", b","), 0.6)
    for text in finished:
        assert valid(MAPS, json.loads(text)), text
    assert len(finished) >= 3, finished


# ---- masks against a finite language ----------------------------------------------------------

def char_vocabulary(extra: list[str]) -> tuple[Vocabulary, list[str]]:
    tokens = sorted({chr(c) for c in range(32, 127)} | set(extra))
    return Vocabulary(len(tokens), {t: i for i, t in enumerate(tokens)}), tokens


def check_masks_exact(schema, docs: set[str], extra: list[str], path: str, probes: int | None = None,
                      only: list[str] | None = None) -> int:
    """Walk the guide over prefixes of `docs` (all, or `probes` random ones): each mask is exactly
    the tokens t with prefix + t a prefix of a document, EOS exactly on a document."""
    vocab, tokens = char_vocabulary(extra)
    prefixes = {d[:i] for d in docs for i in range(len(d) + 1)}
    guide = Guide.from_json_schema(schema, vocab, whitespace_pattern="", path=path)
    assert guide.compiled.checks is not None
    todo = sorted(prefixes) if only is None else only
    if probes is not None:
        todo = random.Random(7).sample(todo, min(probes, len(todo)))
    for p in todo:
        guide.reset()
        for ch in p:
            guide.advance(tokens.index(ch), return_tokens=False)
        got = set(guide.get_tokens())
        want = {i for i, t in enumerate(tokens) if p + t in prefixes}
        if p in docs:
            want.add(len(tokens))
        assert got == want, (p, sorted(tokens[i] if i < len(tokens) else "EOS" for i in got ^ want))
    return len(todo)


@pytest.mark.parametrize("path", PATHS)
def test_masks_are_exact_over_integers(path):
    """0..99 (too many sets of values to write out), at most 2 items: `0` after `[0,` is refused
    (it cannot grow), `5` after `[5,` is not (50..59), nor `1` after `[10,`."""
    schema = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 99}, "uniqueItems": True,
              "maxItems": 2}
    docs = {dumps(list(v)) for n in range(3) for v in itertools.permutations(range(100), n)}
    assert check_masks_exact(schema, docs, ["[1", "0,", ",1", "0]", "10", "99]"], path, probes=400) == 400


@pytest.mark.parametrize("path", PATHS)
def test_masks_are_exact_over_integers_already_taken(path):
    """0..20, at most 3: after [20,2, a `2` cannot start the third item (2 and 20 are taken, 21..29
    too large), after [1,2, a `1` can (10..19); multi-digit tokens follow the items as written."""
    schema = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 20}, "uniqueItems": True,
              "maxItems": 3}
    docs = {dumps(list(v)) for n in range(4) for v in itertools.permutations(range(21), n)}
    only = ["[20,2,", "[1,2,", "[2,20,", "[0,", "[10,1,", "[10,1,1"]
    extra = ["20", ",2", "1,", "10", "0]", "2]"]
    assert check_masks_exact(schema, docs, extra, path, only=only) == len(only)
    assert check_masks_exact(schema, docs, extra, path, probes=300) == 300


@pytest.mark.parametrize("path", PATHS)
def test_masks_are_exact_over_short_strings(path):
    """Strings over a 300-value enum (too many to write out), at most 2 items, with tokens that
    cross items (`","`) and close them (`"]`): `"a` after `["a","` is refused only where no
    longer word starts with it."""
    words = ["".join(p) for n in (1, 2) for p in itertools.product("abcdefghijklmnopq", repeat=n)][:300]
    schema = {"type": "array", "items": {"enum": words}, "uniqueItems": True, "maxItems": 2}
    docs = {dumps(list(v)) for n in range(3) for v in itertools.permutations(words, n)}
    probes = sorted({"[", '["a","', '["q","', '["qa","q', '["a","a', '["p","p'})
    vocab_extra = ['","', '"]', '"a"', "ab", '"a', ',"', '"q"]']
    assert check_masks_exact(schema, docs, vocab_extra, path, probes=500) == 500
    assert check_masks_exact(schema, docs, vocab_extra, path, only=probes) == len(probes)


@pytest.mark.parametrize("path", PATHS)
def test_masks_are_exact_when_every_value_is_used(path):
    """Seven strings (a pattern with a length: not a value set the regex writes out): once all
    seven are written, no comma; the last one's letters only where they still lead to a new one."""
    words = ["".join(p) for n in range(3) for p in itertools.product("ab", repeat=n)]
    schema = {"type": "array", "items": {"type": "string", "maxLength": 2, "pattern": "^[ab]*$"}, "uniqueItems": True}
    docs = {dumps(list(v)) for n in range(8) for v in itertools.permutations(words, n)}
    full = dumps(words)
    only = [full[:i] for i in range(len(full))] + ['["a","b","aa","ab","ba","bb","', '["a","b","aa","ab","ba","bb",""']
    extra = ['","', '"]', '"a"', "ab", '"a', ',"', '""']
    assert check_masks_exact(schema, docs, extra, path, probes=300) == 300
    assert check_masks_exact(schema, docs, extra, path, only=only) == len(only)


@pytest.mark.parametrize("path", PATHS)
def test_masks_are_exact_over_closed_objects(path):
    """Items {"k": one of 300 words}, closed, at most 2: an object repeating the first one cannot
    be closed, nor its word ended where no longer word starts with it."""
    words = ["".join(p) for n in (1, 2) for p in itertools.product("abcdefghijklmnopq", repeat=n)][:300]
    schema = {"type": "array", "uniqueItems": True, "maxItems": 2, "items": {
        "type": "object", "properties": {"k": {"enum": words}}, "required": ["k"], "additionalProperties": False}}
    docs = {dumps([{"k": w} for w in v]) for n in range(3) for v in itertools.permutations(words, n)}
    only = ['[{"k":"a"},{"k":"a', '[{"k":"qa"},{"k":"q', '[{"k":"qa"},{"k":"qk', '[{"k":"b"},']
    extra = ['"}', '"},', '{"k":"', '"a"}', "}]"]
    assert check_masks_exact(schema, docs, extra, path, probes=300) == 300
    assert check_masks_exact(schema, docs, extra, path, only=only) == len(only)


# ---- GPT-2 -------------------------------------------------------------------------------------

def greedy(vocab: Vocabulary, text: str) -> list[int]:
    longest = max(len(b) for b in vocab.tokens)
    data, out, i = text.encode(), [], 0
    while i < len(data):
        n = next(n for n in range(min(longest, len(data) - i), 0, -1) if data[i:i + n] in vocab.tokens)
        out.append(vocab.tokens[data[i:i + n]][0])
        i += n
    return out


def assert_agrees(compiled, schema: dict, docs: list) -> None:
    """Every document is accepted exactly when jsonschema finds it valid, and both verdicts occur."""
    verdicts = set()
    for v in docs:
        want = valid(schema, v)
        verdicts.add(want)
        assert compiled.accepts(dumps(v)) == want, v
    assert verdicts == {True, False}


def assert_texts_agree(schema: dict, compiled, guide: Guide, vocab: Vocabulary, texts: list[str]) -> None:
    """Every JSON text is accepted by the compiled schema and by the guide (fed its greedy
    tokens) exactly when jsonschema finds its value valid, and both verdicts occur."""
    verdicts = set()
    for text in texts:
        want = valid(schema, json.loads(text))
        verdicts.add(want)
        assert compiled.accepts(text) == want, text
        assert guide_accepts(guide, greedy(vocab, text)) == want, text
    assert verdicts == {True, False}


def random_generations(guide: Guide, vocab: Vocabulary, seed: int, runs: int, steps: int, stop: float,
                       closers: tuple, close: float) -> list[bytes]:
    """Texts of `runs` random walks through `guide` (at most `steps` tokens; EOS taken with
    chance `stop` when allowed; with chance `close`, a token ending in one of `closers`): each
    mask must allow something (never stranded); the texts of the walks that finished."""
    rng = random.Random(seed)
    finished = []
    for _ in range(runs):
        guide.reset()
        text = b""
        for _ in range(steps):
            allowed = guide.get_tokens()
            assert allowed, f"stranded after {text!r}"
            if vocab.eos_token_id in allowed and rng.random() < stop:
                break
            closing = [t for t in allowed if t != vocab.eos_token_id and vocab.id_to_bytes(t)[-1:] in closers]
            pick = rng.choice(closing if closing and rng.random() < close else allowed)
            if pick == vocab.eos_token_id:
                break
            guide.advance(pick, return_tokens=False)
            text += vocab.id_to_bytes(pick)
        if guide.is_finished():
            finished.append(text)
    return finished


def guide_accepts(guide: Guide, ids: list[int]) -> bool:
    guide.reset()
    for t in ids:
        if t not in guide.get_tokens():
            return False
        guide.advance(t, return_tokens=False)
    return guide.is_finished()


@pytest.mark.parametrize("path", PATHS)
def test_gpt2_documents_agree_with_jsonschema(gpt2_vocabulary, path):
    guide = Guide.from_json_schema(TAGS, gpt2_vocabulary, path=path)
    judged = [0, 0]
    for v in documents():
        if not isinstance(v, dict):
            continue
        text = dumps(v)
        want = valid(TAGS, v)
        assert guide_accepts(guide, greedy(gpt2_vocabulary, text)) == want, text
        judged[want] += 1
    assert min(judged) >= 10


@pytest.mark.parametrize("path", PATHS)
def test_gpt2_random_generations_never_strand_and_end_valid(gpt2_vocabulary, path):
    schema = {"type": "array", "items": {"type": "string", "maxLength": 2, "pattern": "^[ab]*$"},
              "uniqueItems": True}
    words = ["".join(p) for n in range(3) for p in itertools.product("ab", repeat=n)]
    vocab = gpt2_vocabulary
    guide = Guide.from_json_schema(schema, vocab, path=path, whitespace_pattern="")
    assert guide.compiled.checks is not None
    finished = random_generations(guide, vocab, 3, 12, 200, 0.3, (b'"', b"]"), 0.5)
    for text in finished:
        assert valid(schema, json.loads(text)), text
    ended = len(finished)
    assert ended >= 3
    # all 7 values written: no eighth item can begin, so the comma is refused
    full = dumps(words)
    assert guide_accepts(guide, greedy(vocab, full))
    guide.reset()
    for t in greedy(vocab, full[:-1]):
        guide.advance(t, return_tokens=False)
    comma = greedy(vocab, ",")[0]
    assert comma not in guide.get_tokens() and greedy(vocab, "]")[0] in guide.get_tokens()


def test_rollback_and_refused_tokens(gpt2_vocabulary):
    guide = Guide.from_json_schema(STRINGS, gpt2_vocabulary)
    for t in greedy(gpt2_vocabulary, '["x","y","x'):
        guide.advance(t, return_tokens=False)
    before = guide.mask_bytes()
    quote, close, y = (greedy(gpt2_vocabulary, x)[0] for x in ('"', '"]', "y"))
    assert quote not in guide.get_tokens() and close not in guide.get_tokens() and y in guide.get_tokens()
    with pytest.raises(InvalidTokenError, match="not allowed"):
        guide.advance(quote)
    guide.advance(y)
    assert quote in guide.get_tokens()  # "xy" is new
    guide.rollback_state(1)
    assert guide.mask_bytes() == before


def test_the_check_goes_along_on_both_paths():
    """Guide.from_json_schema runs the engine path (whatever the regex automaton's state limit):
    the check goes along (a guide without it would accept repeated items); on the regex path too."""
    vocab, tokens = char_vocabulary([])
    guide = Guide.from_json_schema(STRINGS, vocab, lazy=False, max_states=3, use_cache=False)
    assert guide.compiled.path == "engine" and guide.compiled.checks is not None
    assert guide.accepts_tokens([tokens.index(c) for c in '["a","b"]'])
    assert not guide.accepts_tokens([tokens.index(c) for c in '["a","a"]'])
    eager = Guide.from_json_schema(STRINGS, vocab, lazy=False, use_cache=False, path="regex")  # (a RegexGuide inside)
    assert eager.compiled.path == "regex" and eager.accepts_tokens([tokens.index(c) for c in '["a","b"]'])
    assert not eager.accepts_tokens([tokens.index(c) for c in '["a","a"]'])


def test_canonical_number_is_one_spelling_per_value():
    from decimal import Decimal

    from tokenguide.json_schema.json_values import canonical_number

    same = [["1", "1.0", "10e-1", "1E0", "0.1e1", "100e-2"], ["0", "-0", "0.0", "-0.0e5"], ["1500", "1.5e3", "15E+2"],
            ["-0.00012", "-1.2e-4", "-12E-5"], ["1e4000000000000000000", "10E3999999999999999999"]]
    for group in same:
        assert len({canonical_number(x) for x in group}) == 1, group
    spellings = [x for g in same[:-1] for x in g]  # (Decimal cannot hold the last group's exponents)
    for a, b in itertools.combinations(spellings, 2):
        assert (canonical_number(a) == canonical_number(b)) == (Decimal(a) == Decimal(b)), (a, b)
    for bad in ("1.", "-", "1e", ".5", "01x"):
        with pytest.raises(ValueError):
            canonical_number(bad)


@pytest.mark.parametrize("path", PATHS)
def test_unique_arrays_inside_open_object_items(path, gpt2_vocabulary):
    """An open object's member may itself be an array left to the check: each array is followed
    on its own (the inner one's items, the outer one's objects)."""
    schema = {"type": "array", "uniqueItems": True, "items": {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}}
    compiled = compile_json_schema(schema, path=path)
    guide = Guide.from_json_schema(schema, gpt2_vocabulary, path=path)
    for text in ('[{"tags":["a","b"]},{"tags":["b","a"]}]', '[{"tags":["a","a"]}]', '[{"tags":["a"]},{"tags":["a"]}]',
                 '[{"tags":["a"],"x":1},{"x":1,"tags":["a"]}]', '[{"tags":[]},{}]'):
        want = valid(schema, json.loads(text))
        assert compiled.accepts(text) == want, text
        assert guide_accepts(guide, greedy(gpt2_vocabulary, text)) == want, text


@pytest.mark.parametrize("path", PATHS)
def test_an_array_merged_in_by_allof_through_a_ref_is_checked(path):
    """`tags` declared in `base`, merged into `svc` beside svc's own `name` by allOf, the root a
    $ref to svc: the emitter names the array by where it is written (base), as the check does
    (it was refused as "reached from no place": the member's pointer was lost in the $ref's merge)."""
    schema = {"$ref": "#/$defs/svc", "$defs": {
        "base": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                                           "uniqueItems": True}}},
        "svc": {"type": "object", "allOf": [{"$ref": "#/$defs/base"}], "properties": {"name": {"type": "string"}}}}}
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    verdicts = set()
    for tags in ([], ["a"], ["a", "b"], ["a", "a"], ["b", "a", "b"], ["", "x", ""]):
        for v in ({"tags": tags}, {"name": "n", "tags": tags}):
            assert compiled.accepts(dumps(v)) == valid(schema, v), v
            verdicts.add(valid(schema, v))
    assert verdicts == {True, False}


# compose-spec's volumes/ports: a string, or an object closed but for `x-` extension members
PORTS = {"type": "array", "uniqueItems": True, "items": {"oneOf": [
    {"type": "string", "enum": ["a", "b"]},
    {"type": "object", "properties": {"p": {"type": "integer"}}, "additionalProperties": False,
     "patternProperties": {"^x-": {}}}]}}


@pytest.mark.parametrize("path", PATHS)
def test_strings_beside_objects_open_to_extension_members(path, gpt2_vocabulary):
    """Items that are an enum's strings or objects open to `x-` members: the strings are searched
    in their automaton, an object not closed yet can always become new (an `x-` name no item
    has). After ["a","b", no string can be new, so only `{` may start the third item."""
    compiled = compile_json_schema(PORTS, path=path)
    assert compiled.checks is not None
    docs = [["a", "b"], ["a", "a"], [{"p": 1}, {"p": 1}], [{"p": 1}, {"p": 2}], ["a", {"p": 1, "x-q": [1]}, "b"],
            [{"p": 1, "x-q": 1}, {"p": 1, "x-q": 1.0}], [{"x-a": {"m": 1, "n": 2}}, {"x-a": {"n": 2, "m": 1}}],
            [{"p": 1, "x-a": 1}, {"p": 1, "x-b": 1}], [{"q": 1}], ["a", "b", {}], ["c"]]
    guide = Guide.from_json_schema(PORTS, gpt2_vocabulary, path=path)
    verdicts = set()
    for v in docs:
        want = valid(PORTS, v)
        verdicts.add(want)
        assert compiled.accepts(dumps(v)) == want, v
        assert guide_accepts(guide, greedy(gpt2_vocabulary, dumps(v))) == want, v
    assert verdicts == {True, False}
    vocab, tokens = char_vocabulary([])
    g = Guide.from_json_schema(PORTS, vocab, path=path, whitespace_pattern="")
    for ch in '["a","b",':
        g.advance(tokens.index(ch), return_tokens=False)
    assert {tokens[i] for i in g.get_tokens() if i < len(tokens)} == {"{"}
    for ch in '{"p":1},{"p":1':
        g.advance(tokens.index(ch), return_tokens=False)
    allowed = {tokens[i] for i in g.get_tokens() if i < len(tokens)}
    assert "}" not in allowed and "," in allowed  # the same object again is refused, `,"x-...` is not


def test_objects_open_to_extensions_only_where_every_closed_side_allows_one_family():
    """open_objects: an infinite family of names each schema allows with any value, or not open."""
    from tokenguide.json_schema.value_kinds import open_objects

    ext = {"type": "object", "additionalProperties": False, "patternProperties": {"^x-": {}}}
    assert open_objects([ext]) and open_objects([{"type": "object"}])
    assert open_objects([ext, {"type": "object", "additionalProperties": False, "patternProperties": {"^x-": True}}])
    assert not open_objects([ext, {"type": "object", "additionalProperties": False, "patternProperties": {"^y-": {}}}])
    assert not open_objects([{"type": "object", "additionalProperties": False, "patternProperties": {"^x-$": {}}}])
    assert not open_objects([{**ext, "patternProperties": {"^x-": {"type": "string"}}}])
    assert not open_objects([{**ext, "maxProperties": 3}])
    assert not open_objects([{"oneOf": [{"type": "object"}, {"required": ["a"]}]}, {"type": "object"}])
    assert open_objects([{"oneOf": [{"type": "object"}, {"type": "string"}]}, {"type": "object"}])
    assert not open_objects([{"type": ["object", "string"]}])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("items", [None, {}, {"description": "anything"}])
def test_items_that_may_be_any_value(path, items):
    """Items that may be any JSON value: equal by value (key order, 1 and 1.0), and only true,
    false and null can be stranded (a string, number, array or object not ended can always
    become new): after [true,false,null, no item may start with t, f or n."""
    schema = {"type": "array", "uniqueItems": True, **({} if items is None else {"items": items})}
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    docs = [[1, "1", [1], {"1": 1}], [1, 1.0], [{"a": 1, "b": [2]}, {"b": [2], "a": 1}], [[1, 2], [2, 1]],
            [True, 1], [None, None], ["a", "a"], [[], {}], [[[]], [[]]], [0, -0], [True, False, None, "x"]]
    assert_agrees(compiled, schema, docs)
    vocab, tokens = char_vocabulary([])
    g = Guide.from_json_schema(schema, vocab, path=path, whitespace_pattern="")
    for ch in "[true,false,null,":
        g.advance(tokens.index(ch), return_tokens=False)
    allowed = {tokens[i] for i in g.get_tokens() if i < len(tokens)}
    assert not allowed & {"t", "f", "n"} and {'"', "[", "{", "0", "-", "7"} <= allowed
    for ch in '"a",1,':
        g.advance(tokens.index(ch), return_tokens=False)
    for ch in '"a':  # the same string again cannot end here, but may go on
        g.advance(tokens.index(ch), return_tokens=False)
    allowed = {tokens[i] for i in g.get_tokens() if i < len(tokens)}
    assert '"' not in allowed and "b" in allowed


@pytest.mark.parametrize("path", PATHS)
def test_a_position_no_item_can_take_ends_the_array(path):
    """prefixItems whose second schema accepts no value (an ipv4 of at most 5 characters) beside
    items that may be anything after it (fuzzer seed 5068): no item can stand there, so arrays
    end before it; the schema is not empty and nothing is refused."""
    schema = {"type": "array", "uniqueItems": True, "prefixItems": [
        {"type": "null"}, {"type": "string", "maxLength": 5, "format": "ipv4"}, {"type": "string"}]}
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    for v in ([], [None], [None, "1.2.3.4"], [None, None], ["x"]):
        assert compiled.accepts(dumps(v)) == valid(schema, v), v


def form(required: bool = True, kinds: tuple = ("pick", "note"), if_required: bool = False) -> dict:
    """GitHub issue forms' shape: the members an item may have chosen by `if` on its `kind`, the
    kinds an enum. Only the `pick` kind's options must be distinct; when the `if`s cover every
    kind of a required `kind`, no document takes none of the `then`s (where options are free)."""
    return {"type": "object", "required": ["kind"] if required else [], "properties": {"kind": {"$ref": "#/$defs/kind"}},
            "$defs": {"kind": {"enum": list(kinds)}},
            "allOf": [{"if": {"properties": {"kind": {"const": "pick"}}, **({"required": ["kind"]} if if_required else {})},
                       "then": {"properties": {"kind": True, "options": U}, "additionalProperties": False}},
                      {"if": {"properties": {"kind": {"const": "note"}}, **({"required": ["kind"]} if if_required else {})},
                       "then": {"properties": {"kind": True, "text": {"type": "string"}}, "additionalProperties": False}}]}


@pytest.mark.parametrize("schema", [form(), form(required=False)], ids=["kind-required", "kind-optional"])
def test_ifs_on_a_members_every_value_leave_no_other_alternative(schema):
    """(`kind` optional: absent, it passes both `if`s, and the `note` kind's `then` forbids options.)"""
    compiled = compile_json_schema(schema)
    assert compiled.checks is not None
    docs = [{"kind": "pick", "options": ["a", "b"]}, {"kind": "pick", "options": ["a", "a"]}, {"kind": "pick"},
            {"kind": "note", "text": "x"}, {"kind": "note", "options": []}, {"kind": "other"}, {},
            {"kind": "pick", "options": ["a", "b", "a"]}, {"kind": "pick", "options": []}]
    assert_agrees(compiled, schema, docs)


def test_ifs_that_leave_an_alternative_open_are_refused():
    """`kind` absent fails `if`s that require it: then no `then` applies and options may repeat
    items; `kind` is not required, so which applies is not known before options is written."""
    schema = form(required=False, if_required=True)
    check = ValueChecks(schema, lambda *a: None)
    why = check.refusal("#/allOf/0/then/properties/options/uniqueItems")
    assert why is not None and "another schema that applies there" in why


@pytest.mark.parametrize("path", PATHS)
def test_a_kind_no_if_takes_is_told_apart_by_its_value(path):
    """A third kind fails both `if`s, and its options may repeat items; `kind` is required and
    written first, so its value (read before options) says whether options must be distinct
    (ValueChecks.discriminator)."""
    schema = form(kinds=("pick", "note", "other"))
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    docs = [{"kind": "pick", "options": ["a", "a"]}, {"kind": "pick", "options": ["a", "b"]},
            {"kind": "other", "options": ["a", "a"]}, {"kind": "other", "options": ["a", "b"]},
            {"kind": "note", "options": ["a"]}, {"kind": "note", "text": "t"}, {"kind": "other"}]
    assert_agrees(compiled, schema, docs)
