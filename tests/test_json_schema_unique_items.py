"""uniqueItems on both compile paths against jsonschema, on every array up to a bound over
small pools (valid and invalid items, equal items spelled apart: 1 and 1.0, objects in either
key order); the engine path's value lexeme for unique arrays too many to write out; contains
that distinct items cannot satisfy (no array, whatever the items); and the refusals left,
each naming keyword, pointer and a fix (the differential fuzzer's shapes)."""

from __future__ import annotations

import itertools

import pytest
from grammar_oracle import acceptor
from test_json_schema_arrays import arrays_of, canonical, dumps, json_equal, valid

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema

PATHS = ("regex", "engine")


def judge(schema, values, paths=PATHS) -> int:
    """On each path: a valid value is accepted in its canonical spelling (integer-valued floats
    as integers), compact and with json.dumps' default separators; no spelling of an invalid
    value is accepted. Returns how many values are valid."""
    n_valid = sum(valid(schema, v) for v in values)
    for path in paths:
        accepts = acceptor(compile_json_schema(schema, path=path))
        for v in values:
            want = valid(schema, v)
            canon = [dumps(canonical(v)), dumps(canonical(v), compact=False)]
            other = [dumps(v), dumps(v, compact=False)]
            assert [accepts(t) for t in canon] == [want, want], (path, v, want)
            assert want or not any(accepts(t) for t in other), (path, v, "accepted but invalid")
    return n_valid


def distinct(values) -> bool:
    return all(not json_equal(a, b) for a, b in itertools.combinations(values, 2))


def test_enum_items_of_every_type_every_array_up_to_max_items():
    """Numbers equal by value (1, 1.0), arrays item by item, objects member by member (written
    in the enum's key order); true is not 1. The pool mixes no booleans into arrays
    (jsonschema's sorting slips there)."""
    schema = {"type": "array", "uniqueItems": True, "maxItems": 3,
              "items": {"enum": [1, "a", None, True, [1, "a"], {"k": 1, "j": "a"}]}}
    pool = [1, 1.0, "a", "b", None, True, False, [1, "a"], [1.0, "a"], ["a", 1], {"k": 1.0, "j": "a"}, {"k": 1}]
    values = arrays_of(pool, 3) + [[1, "a", None, True], [1, "a", None, None]]
    n = judge(schema, values)
    assert n == sum(len(v) <= 3 and distinct(v) and valid({"items": schema["items"]}, v) for v in values) > 100


def test_bounded_integers_with_prefix_items_and_max_items():
    schema = {"type": "array", "uniqueItems": True, "maxItems": 4, "minItems": 1,
              "prefixItems": [{"enum": [0, "z"]}, {"type": "boolean"}],
              "items": {"type": "integer", "minimum": -1, "maximum": 2}}
    assert judge(schema, arrays_of([-1, 0, 0.0, 2, 3, "z", True, False], 4)) > 50


def test_boolean_null_and_const_items_up_to_the_bound():
    schema = {"type": "array", "uniqueItems": True, "items": {"type": ["boolean", "null"]}}
    assert judge(schema, arrays_of([True, False, None, 0, "x"], 4)) == 1 + 3 + 6 + 6
    const = {"type": "array", "uniqueItems": True, "items": {"const": 2.5}}
    assert judge(const, arrays_of([2.5, 2, "2.5"], 3)) == 2


def test_an_escaped_spelling_of_an_equal_string_is_not_a_second_value():
    """"\\u0061" is "a" to JSON Schema (so ["a", "\\u0061"] repeats a value) and is not a
    spelling the output format writes: refused in either order, as ["a", "a"] is."""
    schema = {"type": "array", "uniqueItems": True, "items": {"enum": ["a", "b", "é"]}}
    for path in PATHS:
        accepts = acceptor(compile_json_schema(schema, path=path))
        assert accepts('["a","b"]') and accepts('["é","a"]') and accepts('["b", "é", "a"]')
        for text in ('["a","\\u0061"]', '["\\u0061","a"]', '["a","a"]', '["\\u0061"]', '["\\u00e9","é"]'):
            assert not accepts(text), (path, text)
    assert not valid(schema, ["a", "\u0061"])


def test_unique_arrays_too_many_to_write_out_are_a_value_lexeme_on_the_engine_path():
    """Six values, up to six items: 1,957 arrays (over the 256 written out one by one). Refused on
    the grammar path before ("needs lookaheads, which the grammar path cannot write"); now the
    array with its lookaheads is one value lexeme, beside a free-form member."""
    items = {"type": "array", "uniqueItems": True, "items": {"enum": [0, 1, 2, "x", None, False]}}
    schema = {"type": "object", "properties": {"t": items, "p": {}}, "required": ["t"]}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    pool = [0, 0.0, 1, 2, 2.00, "x", None, False, True, 3]
    values = arrays_of(pool, 3) + [list(p) for p in itertools.permutations([0, 1, 2, "x", None, False])][:40]
    values += [[0, 1, 2, "x", None, False, 1], [0, 1, 2, "x", None, False, 3], [False, None, "x", 2, 1.0, 0]]
    assert judge(items, values, ("engine",)) > 300
    accepts = acceptor(compiled)
    assert accepts('{"t":[2,"x",0,false,null,1],"p":[[{"a":[1]}]]}')
    assert not accepts('{"t":[2,"x",0,false,null,2.0],"p":1}')


def test_a_unique_lexeme_over_the_state_limit_is_refused_by_name():
    schema = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9}, "uniqueItems": True}
    with pytest.raises(UnsupportedSchemaError, match="value lexeme.*2,000 states.*lower maxItems") as info:
        compile_json_schema(schema, path="engine", value_checks=False)
    assert (info.value.keyword, info.value.pointer) == ("uniqueItems", "#/uniqueItems")
    assert compile_json_schema(schema, path="regex").path == "regex"  # lookaheads there
    checked = compile_json_schema(schema, path="engine")  # (by default: on the values)
    assert checked.checks is not None and checked.accepts("[1,2]") and not checked.accepts("[1,1]")


def test_items_whose_automaton_is_too_large_are_refused_by_name():
    # the item automaton of the values check is built whole (a lookahead); past the regex
    # compiler's limits it was a StateLimitError out of compile_json_schema (AWS KinesisFirehose)
    big = {"type": "string", "pattern": "^(?!x)(a{1,1500}b){1,1500}$"}
    schema = {"type": "array", "uniqueItems": True, "items": {
        "type": "object", "additionalProperties": False, "properties": {"p": big, "q": {"type": "string"}}}}
    with pytest.raises(UnsupportedSchemaError, match="automaton of its items is too large") as info:
        compile_json_schema(schema)
    assert (info.value.keyword, info.value.pointer) == ("uniqueItems", "#/uniqueItems")


#: contains that distinct items cannot satisfy, whatever the items (fuzzer seeds 356 and 214)
NO_ARRAY = [
    {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array", "maxItems": 5, "uniqueItems": True,
     "contains": {"const": 1}, "minContains": 2},
    {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array", "uniqueItems": True,
     "contains": {"enum": [1, "a"]}, "minContains": 3},
    {"type": "array", "maxItems": 3, "uniqueItems": True, "contains": {"type": "string"},
     "items": {"type": "object", "properties": {"v": {}, "o": {"type": "string"}}, "additionalProperties": False}},
]


@pytest.mark.parametrize("array", NO_ARRAY)
def test_contains_that_distinct_items_cannot_satisfy_accepts_no_array(array):
    """Refused before (uniqueItems over unbounded items); now exact: no array, and the schema
    around it accepts what it accepts without one."""
    with pytest.raises(UnsupportedSchemaError, match="accepts no value.*contains"):
        compile_json_schema(array)
    schema = {"$schema": array.get("$schema", "https://json-schema.org/draft/2020-12/schema"),
              "type": "object", "properties": {"t": array, "n": {"type": "integer"}}}
    pool = [1, 1.0, "a", "b", {}, {"v": [1]}, {"o": "s"}]
    values = [{}, {"n": 1}, {"n": "x"}] + [{"t": a} for a in arrays_of(pool, 3)] + [{"n": 2, "t": []}]
    assert judge(schema, values) == 2


def test_contains_that_distinct_items_can_satisfy_stays_as_it_was():
    """minContains within the values contains accepts: counted as before (enumerated)."""
    schema = {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array", "uniqueItems": True,
              "items": {"enum": [1, 2, "a"]}, "contains": {"enum": [1, "a"]}, "minContains": 2}
    # [1, "a"] in either order, 1 or 1.0; and with 2 anywhere
    assert judge(schema, arrays_of([1, 1.0, 2, "a", "b"], 3)) == 4 + 12


#: an item that occurs once, with unbounded values, that other (finite) items may equal only in
#: strings, booleans or null (fuzzer seed 918: a string of up to 5 characters after a const)
SHARED = [
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "uniqueItems": True,
     "prefixItems": [{"const": "é"}, {"type": "string", "maxLength": 5}],
     "items": {"type": "integer", "minimum": 0, "maximum": 3}},
    {"type": "array", "uniqueItems": True, "maxItems": 3, "prefixItems": [{"type": ["string", "integer", "null"]}],
     "items": {"enum": ["é", "e", None, True]}},
    {"type": "array", "uniqueItems": True, "prefixItems": [{"enum": ["e", True]}, {"type": ["boolean", "string"],
                                                                                     "pattern": "^e"}],
     "items": False},
]
SHARED_POOL = ["é", "e", "", "éé", "ex", 0, 1, 1.0, 3, None, True, False, [1]]


@pytest.mark.parametrize("schema", SHARED)
def test_an_unbounded_item_that_others_may_equal_in_finitely_many_values(schema):
    """Refused before (uniqueItems over unbounded items); now its values that another item may
    take are values of their own, the rest one value no other item has."""
    assert judge(schema, arrays_of(SHARED_POOL, 3) + [["é", "e", 0, 1, 2, 3], ["é", "e", 0, 1, 2, 3.0]]) > 5


@pytest.mark.parametrize("schema,good,twice", [
    (SHARED[0], '["é",\t"e",\t2]', '["é",\t"é"]'),  # the values apart are a lookahead
    ({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9}, "uniqueItems": True},
     "[0,\t1]", "[0,\t0]"),  # one lookahead per value
])
def test_unique_lookaheads_need_json_whitespace(schema, good, twice):
    """A lookahead sees a value end only at JSON whitespace or punctuation: with "a" as
    whitespace, `[0,0a]` (that is [0,0]) was accepted. Refused by name; JSON whitespace is exact."""
    with pytest.raises(UnsupportedSchemaError, match="whitespace") as info:
        compile_json_schema(schema, path="regex", whitespace_pattern="[ a]?")
    assert (info.value.keyword, info.value.pointer) == ("uniqueItems", "#/uniqueItems")
    accepts = acceptor(compile_json_schema(schema, path="regex", whitespace_pattern="[ \t]?"))
    assert accepts(good) and not accepts(twice)


def test_written_out_unique_arrays_keep_any_whitespace():
    """Short unique arrays are written out without lookaheads: any whitespace pattern is exact."""
    schema = {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": True}
    accepts = acceptor(compile_json_schema(schema, path="regex", whitespace_pattern="[ a]?"))
    assert accepts('["a",a"b"a]') and not accepts('["a",a"a"]')


def test_too_many_arrays_with_shared_values_are_refused_by_name():
    """Over 256 arrays to write out, the distinctness lookaheads would nest the item's: refused."""
    schema = {"type": "array", "uniqueItems": True, "prefixItems": [{"type": "string"}],
              "items": {"enum": ["a", "b", "c", "d", "e", "f"]}, "maxItems": 6}
    for path in PATHS:
        with pytest.raises(UnsupportedSchemaError, match="lower maxItems") as info:
            compile_json_schema(schema, path=path, value_checks=False)
        assert (info.value.keyword, info.value.pointer) == ("uniqueItems", "#/uniqueItems")


@pytest.mark.parametrize("schema,pointer,items", [
    # seed 876: strings repeat
    ({"type": "array", "items": {"type": ["null", "boolean", "string"]}, "uniqueItems": True},
     "#/uniqueItems", "#/items"),
    # seed 605: integers bounded on one side only
    ({"type": "array", "items": {"type": "integer", "maximum": 100, "multipleOf": 2}, "uniqueItems": True},
     "#/uniqueItems", "#/items"),
    # seed 440: two unbounded integer positions may be equal
    ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer", "exclusiveMinimum": -1},
                                       {"type": "integer"}], "items": {"type": "boolean"}, "uniqueItems": True},
     "#/uniqueItems", "#/prefixItems/1"),
    # a string that occurs once may equal a string another item may take, which is not finite
    ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "string", "maxLength": 5}], "items": False,
      "uniqueItems": True}, "#/uniqueItems", "#/prefixItems/0"),
    # one that may occur twice (the rest of the items)
    ({"type": "array", "prefixItems": [{"const": "é"}], "items": {"type": "string"}, "maxItems": 3,
      "uniqueItems": True}, "#/uniqueItems", "#/items"),
    # one that shares numbers with another (1 and 1.0 spelled apart: no exact lookahead)
    ({"type": "array", "prefixItems": [{"enum": [1, 2]}, {"type": "number"}], "items": False,
      "uniqueItems": True}, "#/uniqueItems", "#/prefixItems/1"),
    # seed 473: free-form items, at most 5
    ({"type": "array", "minItems": 1, "maxItems": 5, "uniqueItems": True}, "#/uniqueItems", "#/items"),
    # seed 742: open objects
    ({"type": "array", "items": {"type": "object", "properties": {"x": {"const": None}}}, "uniqueItems": True},
     "#/uniqueItems", "#/items"),
])
def test_unique_items_over_unbounded_values_stay_refused_by_name(schema, pointer, items):
    """Distinct items over an infinite set of values is not a regular language (nor one an
    LALR grammar writes): with value_checks off, each path refuses, naming keyword, pointer, the
    items and a fix."""
    for path in PATHS:
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema(schema, path=path, value_checks=False)
        assert (info.value.keyword, info.value.pointer) == ("uniqueItems", pointer)
        assert f"the items at {items}" in str(info.value) and "enum/const" in str(info.value)
