"""uniqueItems and contains / minContains / maxContains: the regex (re.fullmatch on compact and
default-separator json.dumps texts) against jsonschema, on handwritten and generated arrays;
the engine path (Lark) where it applies; every refusal names its keyword and pointer."""

from __future__ import annotations

import itertools
import json
import re
import warnings

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema
from grammar_oracle import lark_parser

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def dumps(value, compact: bool = True) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else None)


def json_equal(a, b) -> bool:
    """JSON Schema equality (1 == 1.0, true != 1, objects whatever their key order)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def valid(schema, value) -> bool:
    """jsonschema's verdict for the schema's draft."""
    return jsonschema.validators.validator_for(schema)(schema).is_valid(value)


def canonical(v):
    """`v` with integer-valued floats as integers: the spelling the output format promises to
    accept (an `integer` schema does not accept 1.0); JSON Schema equality cannot tell them apart."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, list):
        return [canonical(x) for x in v]
    if isinstance(v, dict):
        return {k: canonical(x) for k, x in v.items()}
    return v


def agrees(rx: re.Pattern, schema, v, both_spacings: bool = True) -> None:
    """Valid values are accepted in canonical spelling; every accepted spelling is valid."""
    want = valid(schema, v)
    assert valid(schema, canonical(v)) == want
    texts = [dumps(v), dumps(canonical(v))] + ([dumps(v, compact=False)] if both_spacings else [])
    hits = [rx.fullmatch(t) is not None for t in texts]
    assert not any(hits) or want, (schema, v, "accepted but invalid")
    assert hits[1] == want, (schema, v, want)
    if both_spacings:
        assert (rx.fullmatch(dumps(canonical(v), compact=False)) is not None) == want, (schema, v, want)


def check(schema, values, both_spacings: bool = True) -> str:
    """Assert the regex accepts exactly the valid values; returns the regex."""
    regex = build_regex_from_schema(schema)
    rx = re.compile(regex)
    for v in values:
        agrees(rx, schema, v, both_spacings)
    return regex


def raises_unsupported(schema, keyword: str, pointer: str, **kw) -> UnsupportedSchemaError:
    with pytest.raises(UnsupportedSchemaError) as info:
        build_regex_from_schema(schema, **kw)
    assert info.value.keyword == keyword, str(info.value)
    assert info.value.pointer == pointer, str(info.value)
    assert keyword in str(info.value) and pointer in str(info.value)
    return info.value


def arrays_of(pool, max_len: int = 5):
    """Every array of up to `max_len` items from `pool` (small pools) as a list."""
    out = []
    for n in range(max_len + 1):
        out.extend(list(c) for c in itertools.product(pool, repeat=n))
    return out


# -- uniqueItems --------------------------------------------------------------------------------


def test_unique_enum_strings_every_arrangement():
    schema = {"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": True}
    check(schema, arrays_of(["a", "b", "c", "d"], 4))


def test_unique_numbers_by_value_not_spelling():
    schema = {"type": "array", "items": {"enum": [1, 2, "1", True, None]}, "uniqueItems": True}
    rx = re.compile(check(schema, arrays_of([1, 1.0, 2, "1", True, False, None], 3)))
    assert rx.fullmatch("[1,1.00]") is None and rx.fullmatch("[1.0,2.0]") and rx.fullmatch("[1,true]")
    assert rx.fullmatch('[true,1,"1",null,2]') and rx.fullmatch("[2,2.0]") is None


def test_unique_booleans_null_and_integer_range():
    check({"type": "array", "items": {"type": ["boolean", "null"]}, "uniqueItems": True},
          arrays_of([True, False, None, 0], 4))
    schema = {"type": "array", "items": {"type": "integer", "minimum": -2, "exclusiveMaximum": 3},
              "uniqueItems": True}
    check(schema, arrays_of([-3, -2, 0, 1, 2, 3], 3) + [[-2, -1, 0, 1, 2], [-2, -1, 0, 1, 2, 0]])


def test_unique_lookahead_construction_for_many_arrangements():
    # 8 values, up to 8 items: too many arrays to write out, so each item forbids a later equal one
    schema = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 7}, "uniqueItems": True,
              "minItems": 2}
    regex = check(schema, arrays_of([0, 5, 7, 8], 3) + [list(range(8)), list(range(8)) + [3], [7, 6, 5, 4, 3, 2, 1, 0]])
    assert "(?!" in regex


def test_unique_nested_arrays_and_objects_of_finite_values():
    schema = {"type": "array", "uniqueItems": True,
              "items": {"type": "array", "items": {"enum": [1, "x"]}, "maxItems": 2}}
    check(schema, [[[1], [1.0]], [[1], ["x"]], [[1, "x"], ["x", 1]], [[1, "x"], [1.0, "x"]], [[], []], [[], [1]]])
    obj = {"type": "array", "uniqueItems": True, "items": {"enum": [{"a": 1, "b": 2}, {"b": 2, "a": 1.0}, {"a": 2}]}}
    rx = re.compile(check(obj, [[{"a": 1, "b": 2}, {"a": 2}], [{"a": 1, "b": 2}, {"b": 2, "a": 1}]]))
    assert rx.fullmatch('[{"b":2,"a":1.0},{"a":1,"b":2}]') is None
    closed = {"type": "array", "uniqueItems": True, "minItems": 1,
              "items": {"type": "object", "properties": {"a": {"enum": [1, 2]}, "b": {"type": "boolean"}},
                        "required": ["a"], "additionalProperties": False}}
    objs = [{"a": 1}, {"a": 1.0}, {"a": 2, "b": True}, {"a": 1, "b": False}, {"b": True}, {"a": 3}]
    check(closed, arrays_of(objs, 3))
    open_objects = {"type": "array", "uniqueItems": True, "items": {"properties": {"a": {"const": 1}}}}
    raises_unsupported(open_objects, "uniqueItems", "#/uniqueItems")


def test_unique_with_prefix_items_and_bounds():
    schema = {"type": "array", "prefixItems": [{"enum": ["a", 1]}, {"const": 1}],
              "items": {"enum": ["a", "b", 1.0]}, "uniqueItems": True, "maxItems": 3}
    check(schema, arrays_of(["a", 1, 1.0, "b"], 4))
    too_many = {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": True, "minItems": 3}
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema(too_many)


def test_unique_false_and_at_most_one_item_are_no_ops():
    plain = build_regex_from_schema({"type": "array", "items": {"type": "string"}})
    assert build_regex_from_schema({"type": "array", "items": {"type": "string"}, "uniqueItems": False}) == plain
    check({"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 1}, [[], ["a"], ["a", "a"]])


def test_unique_refusals_name_what_would_make_them_supported():
    err = raises_unsupported({"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                             "uniqueItems", "#/uniqueItems")
    assert "enum" in str(err) and "maxItems" in str(err)
    raises_unsupported({"properties": {"tags": {"type": "array", "uniqueItems": True}}},
                       "uniqueItems", "#/properties/tags/uniqueItems")
    raises_unsupported({"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 3}, "uniqueItems": True},
                       "uniqueItems", "#/uniqueItems")
    big = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 99}, "uniqueItems": True}
    assert "sets of values" in str(raises_unsupported(big, "uniqueItems", "#/uniqueItems"))
    grammar = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9}, "uniqueItems": True}
    with pytest.raises(UnsupportedSchemaError, match="engine path") as info:
        compile_json_schema(grammar, path="engine", value_checks=False)
    assert info.value.keyword == "uniqueItems" and info.value.pointer == "#/uniqueItems"


def test_unique_lenient_ignores_it_with_a_warning():
    schema = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        regex = build_regex_from_schema(schema, lenient=True)
    assert any("uniqueItems at #/uniqueItems" in str(w.message) for w in caught)
    assert re.fullmatch(regex, '["a","a"]')


def test_unique_follows_json_equality_where_jsonschema_sorting_slips():
    """jsonschema's uniq sorts items and compares neighbours, so [[1],[true],[1]] passes there
    (sorting keeps [true] between the two [1]); pairwise JSON equality, which we follow, rejects it."""
    schema = {"type": "array", "items": {"enum": [[1], [True]]}, "uniqueItems": True}
    rx = re.compile(build_regex_from_schema(schema))
    assert rx.fullmatch("[[1],[true],[1]]") is None and rx.fullmatch("[[1],[true]]") and rx.fullmatch("[[1],[1.0]]") is None


VALUE_POOL = [0, 1, 1.0, 2, 2.5, True, False, None, "a", "b", "1", [1], [1.0], ["a"], [], {"a": 1}, {"a": 1.0}]


@SETTINGS
@given(st.lists(st.sampled_from(VALUE_POOL), max_size=6))
def test_unique_generated_arrays(items):
    schema = {"type": "array", "uniqueItems": True,
              "items": {"enum": [0, 1, 2.5, True, None, "a", "1", [1], [], {"a": 1}]}}
    regex = build_regex_from_schema(schema)
    want = valid(schema, items)
    agrees(re.compile(regex), schema, items)
    # jsonschema sorts comparable items and compares neighbours: for these values it agrees with
    # pairwise JSON equality (no list mixes booleans with equal numbers), checked here
    assert want == (all(not json_equal(a, b) for a, b in itertools.combinations(items, 2))
                    and valid({"items": schema["items"]}, items))


# -- contains -----------------------------------------------------------------------------------


def test_contains_type_without_lookahead():
    schema = {"type": "array", "items": {"type": ["string", "integer"]}, "contains": {"type": "string"}}
    regex = check(schema, arrays_of(["a", 1, 2.5], 3))
    assert "(?=" not in regex and "(?!" not in regex


def test_contains_min_max_counts():
    schema = {"type": "array", "items": {"type": "integer"}, "contains": {"const": 3},
              "minContains": 2, "maxContains": 3}
    check(schema, arrays_of([3, 3.0, 1, -3], 5))
    zero = {"type": "array", "items": {"type": "integer"}, "contains": {"const": 3}, "minContains": 0,
            "maxContains": 1}
    check(zero, arrays_of([3, 1], 4))
    always = {"type": "array", "contains": {"const": 3}, "minContains": 0}
    assert build_regex_from_schema(always) == build_regex_from_schema({"type": "array"})


def test_contains_with_items_ranges_uses_exact_lookaheads():
    schema = {"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5, "maximum": 8}}
    check(schema, arrays_of([4, 5, 8, 9, 100], 3))
    strings = {"type": "array", "items": {"type": "string"}, "contains": {"pattern": "^a"},
               "maxContains": 1}
    check(strings, arrays_of(["a", "ab", "abc", "b", ""], 3))


def test_contains_with_prefix_items_and_item_bounds():
    schema = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
              "items": {"type": "boolean"}, "contains": {"enum": ["x", 7, True]}, "minContains": 2,
              "minItems": 2, "maxItems": 4}
    check(schema, arrays_of(["x", "y", 7, 8, True, False], 4) + [["x", 7, True, False, True]])
    # items past maxItems are never split (an object contains schema there would be refused)
    short = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "object"}], "maxItems": 1,
             "items": {"type": "object"}, "contains": {"enum": ["x", {"a": 1, "b": 2}]}}
    check(short, [["x"], ["y"], [], ["x", {}]])
    draft4_tuple = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array",
                    "items": [{"type": "integer"}, {"type": "string"}], "additionalItems": False,
                    "contains": {"type": "string"}}
    check(draft4_tuple, [[1], [1, "a"], ["a", 1], [1, "a", "b"], []])


@pytest.mark.parametrize("bounds", [(0, None), (1, 1), (2, None), (0, 5), (3, 3)])
@pytest.mark.parametrize("contains", [(1, None), (2, 2), (0, 1), (1, 3)])
def test_contains_together_with_min_max_items(bounds, contains):
    schema = {"type": "array", "items": {"enum": ["h", "m"]}, "contains": {"const": "h"},
              "minItems": bounds[0], "minContains": contains[0]}
    if bounds[1] is not None:
        schema["maxItems"] = bounds[1]
    if contains[1] is not None:
        schema["maxContains"] = contains[1]
    values = arrays_of(["h", "m"], 6)
    try:
        check(schema, values, both_spacings=False)
    except UnsupportedSchemaError as exc:
        assert "accepts no value" in str(exc)
        assert not any(valid(schema, v) for v in values)


def test_contains_drafts():
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "contains": {"const": "x"},
          "maxContains": 1}
    check(d7, [["x", "x"], [2], ["x"]])  # draft 7 has no maxContains
    d4 = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "array", "contains": {"const": 1}}
    check(d4, [[], [2], [1]])  # draft 4 has no contains
    d2019 = {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array",
             "contains": {"const": "x"}, "maxContains": 1}
    check(d2019, [["x", "x"], [2], ["x"], [2, "x", {"x": 1}]])


def test_contains_nested_and_in_all_of():
    inner = {"type": "array", "items": {"type": "integer"}, "contains": {"const": 0}}
    schema = {"type": "array", "items": {"anyOf": [inner, {"type": "string"}]}, "contains": {"type": "string"}}
    check(schema, [[[0]], ["a"], [[1, 0], "b"], [[0, 0], [1, 1], "c"], [], ["a", [0]], [[2], "a"]])
    all_of = {"type": "array", "allOf": [{"contains": {"type": "string"}, "minContains": 2},
                                         {"contains": {"type": "string"}, "maxContains": 2}],
              "items": {"type": ["string", "null"]}}
    check(all_of, arrays_of(["a", None], 4))
    unique = {"type": "array", "items": {"enum": ["a", "b"]}, "allOf": [{"uniqueItems": False}, {"uniqueItems": True}]}
    check(unique, arrays_of(["a", "b"], 3))


def test_contains_with_unique_items():
    schema = {"type": "array", "items": {"enum": ["a", "b", "c", 1, 2]}, "uniqueItems": True,
              "contains": {"type": "string"}, "minContains": 2, "maxContains": 2}
    check(schema, arrays_of(["a", "b", "c", 1, 2], 4), both_spacings=False)


def test_contains_on_the_grammar_path():
    from lark import Lark
    from lark.exceptions import LarkError

    schema = {"type": "array", "items": {"type": ["string", "integer"]}, "contains": {"type": "string"},
              "maxContains": 2}
    parser = lark_parser(compile_json_schema(schema, path="engine"))
    for v in arrays_of(["a", 1], 4):
        try:
            parser.parse(dumps(v))
            ok = True
        except LarkError:
            ok = False
        assert ok == valid(schema, v), v


def test_contains_refusals():
    objects = {"type": "array", "items": {"type": "object"}, "contains": {"enum": [{"a": 1, "b": 2}]}}
    raises_unsupported(objects, "contains", "#/contains")
    # items minus contains by lookahead (logic.py, canonical number spellings): 1.5 misses, 1 hits
    numbers = build_regex_from_schema({"type": "array", "items": {"type": "number"}, "contains": {"type": "integer"}})
    assert re.fullmatch(numbers, "[1.5,1]") and not re.fullmatch(numbers, "[1.5]")
    # free items that miss are spelled canonically (logic.py), so 1e0 is neither a hit nor a miss
    free = build_regex_from_schema({"type": "array", "contains": {"const": 1}})
    assert re.fullmatch(free, '[2,"a",1.0]') and not re.fullmatch(free, "[2]") and not re.fullmatch(free, "[1e0]")
    nested = {"type": "array", "items": {"type": "array"}, "contains": {"contains": {"const": "x"}}}
    raises_unsupported(nested, "contains", "#/contains")  # "no item contains x" needs not-contains
    grammar = {"type": "array", "items": {"type": "string", "maxLength": 30}, "contains": {"pattern": "^a"},
               "minContains": 100}  # its array lexeme (test_json_schema_contains_lexeme.py) is too large
    with pytest.raises(UnsupportedSchemaError, match="engine path") as info:
        compile_json_schema(grammar, path="engine")
    assert info.value.keyword == "contains" and info.value.pointer == "#/contains"
    bad = {"type": "array", "contains": {"type": "string"}, "minContains": -1}
    raises_unsupported(bad, "minContains", "#/minContains")
    raises_unsupported({"type": "array", "contains": {}, "maxContains": "2"}, "maxContains", "#/maxContains")
    two = {"type": "array", "allOf": [{"contains": {"type": "string"}}, {"contains": {"type": "integer"}}]}
    raises_unsupported(two, "contains", "#/allOf/1/contains")
    huge = {"type": "array", "items": {"enum": ["h", "m"]}, "contains": {"const": "h"}, "minContains": 100,
            "maxContains": 200, "maxItems": 400}
    assert "characters" in str(raises_unsupported(huge, "contains", "#/contains"))
    empty = {"type": "array", "items": {"type": "integer"}, "contains": {"type": "string"}}
    with pytest.raises(UnsupportedSchemaError, match="minContains/maxContains"):
        build_regex_from_schema(empty)
    with pytest.raises(UnsupportedSchemaError, match="maxContains 1 is below minContains 2"):
        build_regex_from_schema({"type": "array", "contains": {}, "minContains": 2, "maxContains": 1})


def test_contains_lenient_ignores_what_it_cannot_tell_apart():
    objects = {"type": "array", "items": {"type": "object"}, "contains": {"enum": [{"a": 1, "b": 2}]}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        regex = build_regex_from_schema(objects, lenient=True)
    assert any("contains at #/contains" in str(w.message) for w in caught)
    assert re.fullmatch(regex, "[]") and re.fullmatch(regex, '[{"b":1}]')


CONTAINS_POOL = [0, 1, 3, 3.0, -3, 7, "a", "ab", "", True, None, [3], [3, 3.0], [3, 1], []]
CONTAINS_SCHEMAS = [
    {"type": "array", "contains": {"type": "integer", "minimum": 2}, "items": {"type": ["integer", "string"]}},
    {"type": "array", "contains": {"enum": ["a", None, True]}, "minContains": 2, "maxItems": 4},
    {"type": "array", "contains": {"type": "string", "minLength": 1}, "maxContains": 1},
    {"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": ["string", "integer"]},
     "contains": {"const": 3}, "minContains": 1, "maxContains": 2, "minItems": 2},
    {"type": "array", "contains": {"type": "array", "items": {"const": 3}, "minItems": 1},
     "items": {"type": ["array", "string"], "items": {"type": "integer"}}},
]


@SETTINGS
@given(st.lists(st.sampled_from(CONTAINS_POOL), max_size=6), st.sampled_from(range(len(CONTAINS_SCHEMAS))))
def test_contains_generated_arrays(items, which):
    schema = CONTAINS_SCHEMAS[which]
    agrees(re.compile(build_regex_from_schema(schema)), schema, items)


# -- through the token automaton ------------------------------------------------------------

GUIDE_TOKENS = ['[', ']', ',', ' ', '"', 'a', 'b', 'c', '1', '3', '.', '0', 'x', '"a"', '"b"', ',"', '1.0', '3]']


def guide_accepts(guide, ids, text: str) -> bool:
    """Feed `text` to the guide from its start, longest tokens first."""
    from tokenguide.errors import InvalidTokenError

    guide.reset()
    i = 0
    while i < len(text):
        tok = next(t for t in sorted(GUIDE_TOKENS, key=len, reverse=True) if text.startswith(t, i))
        try:
            guide.advance(ids[tok])
        except InvalidTokenError:
            return False
        i += len(tok)
    return guide.is_finished()


@pytest.mark.parametrize("schema", [
    {"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": True, "minItems": 1},
    {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 3}, "uniqueItems": True},
    {"type": "array", "items": {"type": ["integer", "string"]}, "contains": {"const": 3}, "maxContains": 1},
    {"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 3}, "minContains": 2},
])
def test_guides_follow_the_regex(schema):
    from tokenguide import Guide, Vocabulary

    ids = {t: i for i, t in enumerate(GUIDE_TOKENS)}
    guide = Guide.from_json_schema(schema, Vocabulary(len(GUIDE_TOKENS), dict(ids)), max_rollback=0)
    pool = ["a", "b", "x", 1, 3, 3.0, 0, 10, 13]
    regex = re.compile(build_regex_from_schema(schema))
    seen = 0
    for v in arrays_of(pool, 3):
        text = dumps(v)
        want = regex.fullmatch(text) is not None
        assert guide_accepts(guide, ids, text) == want, (schema, text)
        seen += want
    assert seen > 3
