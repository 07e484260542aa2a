"""JSON Schema to regex: every keyword against re.fullmatch on json.dumps-serialized samples."""

from __future__ import annotations

import datetime
import ipaddress
import json
import re
import uuid
import warnings
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, int_range_regex

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def rx(schema, **kw) -> re.Pattern:
    return re.compile(build_regex_from_schema(schema, **kw))


def accepts(pattern: re.Pattern, value) -> bool:
    return pattern.fullmatch(dumps(value)) is not None


def raises_unsupported(schema, keyword: str, pointer: str, **kw) -> UnsupportedSchemaError:
    with pytest.raises(UnsupportedSchemaError) as info:
        build_regex_from_schema(schema, **kw)
    assert info.value.keyword == keyword, str(info.value)
    assert info.value.pointer == pointer, str(info.value)
    assert keyword in str(info.value) and pointer in str(info.value)
    return info.value


# -- API ----------------------------------------------------------------------------------------


def test_schema_as_string_or_dict_gives_same_regex():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    assert build_regex_from_schema(json.dumps(schema)) == build_regex_from_schema(schema)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(UnsupportedSchemaError, match="not valid JSON"):
        build_regex_from_schema("{nope")
    with pytest.raises(UnsupportedSchemaError, match="object or a boolean"):
        build_regex_from_schema("[1, 2]")
    with pytest.raises(ValueError, match="max_recursion_depth"):
        build_regex_from_schema({}, max_recursion_depth=-1)
    with pytest.raises(ValueError, match="whitespace_pattern"):
        build_regex_from_schema({}, whitespace_pattern="[")
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema(False)
    with pytest.raises(UnsupportedSchemaError, match="unknown type"):
        build_regex_from_schema({"type": "strnig"})
    with pytest.raises(UnsupportedSchemaError, match="does not resolve"):
        build_regex_from_schema({"$ref": "#/definitions/missing"})


# -- types --------------------------------------------------------------------------------------

SAMPLES = [None, True, False, 0, -3, 17, 2.5, -0.125, 1e20, "", "text", [], [1, "a"], {}, {"k": [None]}]


@pytest.mark.parametrize("type_name,pred", [
    ("null", lambda v: v is None),
    ("boolean", lambda v: isinstance(v, bool)),
    ("integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    ("number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)),
    ("string", lambda v: isinstance(v, str)),
    ("array", lambda v: isinstance(v, list)),
    ("object", lambda v: isinstance(v, dict)),
])
def test_each_type(type_name, pred):
    p = rx({"type": type_name})
    for v in SAMPLES:
        assert accepts(p, v) == pred(v), (type_name, v)


def test_type_list_and_true_and_empty_schema():
    p = rx({"type": ["string", "null"]})
    assert [accepts(p, v) for v in ("x", None, 1, [])] == [True, True, False, False]
    for schema in ({}, True, {"description": "anything", "x-unknown": 1}):
        p = rx(schema)
        assert all(accepts(p, v) for v in SAMPLES)


def test_free_form_values_nest_to_the_depth_limit():
    p = rx({}, max_recursion_depth=3)  # free-form values: max_recursion_depth - 1 non-empty levels
    assert accepts(p, [[1, {}]])
    assert accepts(p, {"a": {"b": []}})
    assert not accepts(p, [[[1]]])
    assert accepts(rx({}, max_recursion_depth=4), [[[1]]])


# -- strings ------------------------------------------------------------------------------------


def test_string_escapes_are_canonical_json_dumps():
    p = rx({"type": "string"})
    for s in ['"', "\\", "\n\r\t\b\f", "\x00\x01\x1f\x7f", "é☃𝄞", "a/b", "\u2028"]:
        assert accepts(p, s), repr(s)
    for text in [r'"\u0041"', r'"\/"', r'"\u001F"', '"\x01"', '"a"b"', r'"\"', '"\n"']:
        assert not p.fullmatch(text), text


@SETTINGS
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
       st.integers(0, 6), st.one_of(st.none(), st.integers(0, 8)))
def test_string_length_counts_code_points_escapes_as_one(s, lo, hi):
    schema = {"type": "string", "minLength": lo}
    if hi is not None:
        schema["maxLength"] = hi
    if hi is not None and hi < lo:
        with pytest.raises(UnsupportedSchemaError):
            build_regex_from_schema(schema)
        return
    assert accepts(rx(schema), s) == (lo <= len(s) and (hi is None or len(s) <= hi))


def test_pattern_is_an_unanchored_ecma_search():
    p = rx({"type": "string", "pattern": "ab+c"})
    assert accepts(p, "xxabbcyy") and accepts(p, "abc") and not accepts(p, "ac")
    p = rx({"type": "string", "pattern": "^ab+c$"})
    assert accepts(p, "abbc") and not accepts(p, "xabc") and not accepts(p, "abc\n")
    p = rx({"type": "string", "pattern": "^a|b$"})
    assert accepts(p, "axx") and accepts(p, "xxb") and not accepts(p, "xax")


def test_pattern_character_semantics():
    digits = rx({"type": "string", "pattern": r"^\d+$"})
    assert accepts(digits, "0123") and not accepts(digits, "١٢")  # ECMA \d is ASCII
    dot = rx({"type": "string", "pattern": "^.$"})
    assert accepts(dot, "é") and accepts(dot, '"') and not accepts(dot, "\n")
    word = rx({"type": "string", "pattern": r"^[\w-]+$"})
    assert accepts(word, "a_b-9") and not accepts(word, "é")
    neg = rx({"type": "string", "pattern": r'^[^a]$'})
    assert accepts(neg, '"') and accepts(neg, "\\") and accepts(neg, "\t") and not accepts(neg, "a")


def test_pattern_with_unicode_and_json_special_characters():
    p = rx({"type": "string", "pattern": '^"é\\\\n"☃$'})  # quote, e-acute, backslash, n, quote, snowman
    assert accepts(p, '"é\\n"☃') and not accepts(p, '"é\n"☃')
    p = rx({"type": "string", "pattern": "^[\t\n]+$"})
    assert accepts(p, "\t\n\t") and not accepts(p, " ")


def test_pattern_with_length_limits():
    p = rx({"type": "string", "pattern": "^[a-z]+$", "maxLength": 3, "minLength": 2})
    assert [accepts(p, s) for s in ("a", "ab", "abc", "abcd", "aB")] == [False, True, True, False, False]
    p = rx({"type": "string", "pattern": "^x[0-9]*y$", "maxLength": 4})
    assert accepts(p, "x12y") and not accepts(p, "x123y") and accepts(p, "xy")
    assert rx({"type": "string", "pattern": "^[0-9]{3}$", "maxLength": 3}).fullmatch('"123"')
    p = rx({"type": "string", "pattern": "a+", "maxLength": 3})  # a length lookahead
    assert accepts(p, "xa") and accepts(p, "aaa") and not accepts(p, "xaaa") and not accepts(p, "bc")


def test_pattern_that_is_not_regular_is_unsupported():
    # (a lookahead is regular: tests/test_json_schema_pattern_lookahead.py; a lookbehind of more than one character before the end is refused)
    raises_unsupported({"properties": {"p": {"type": "string", "pattern": "^a(?<=ba)"}}}, "pattern", "#/properties/p/pattern")
    raises_unsupported({"type": "string", "pattern": r"(a)\1"}, "pattern", "#/pattern")
    raises_unsupported({"type": "string", "pattern": r"\p{Script=Greek}"}, "pattern", "#/pattern")  # (\p{L} is read)


# -- enum / const ---------------------------------------------------------------------------------


def test_enum_with_unicode_escapes_and_regex_metacharacters():
    values = ["a.b*", "(x)|[y]", "é☃", 'q"uote', "back\\slash", "new\nline", "", 3, None, True, [1, "x"], {"k": "v"}]
    p = rx({"enum": values})
    for v in values:
        assert accepts(p, v), v
    for v in ["aXb*", "a.b", "x", 4, False, [1], {"k": "w"}, "new\\nline"]:
        assert not accepts(p, v), v


def test_const_and_enum_numbers_match_by_value():
    p = rx({"const": 2})
    assert p.fullmatch("2") and p.fullmatch("2.0") and not p.fullmatch("20") and not p.fullmatch("2.5")
    p = rx({"enum": [1.5, -0.25]})
    assert p.fullmatch("1.5") and p.fullmatch("1.50") and p.fullmatch("-0.25") and not p.fullmatch("0.25")


def test_enum_is_filtered_by_sibling_keywords():
    p = rx({"type": "string", "enum": ["a", 1, "bbbb"], "maxLength": 3})
    assert accepts(p, "a") and not accepts(p, 1) and not accepts(p, "bbbb")
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema({"type": "integer", "enum": ["a"]})


def test_big_enum():
    values = [f"value {i} (x+{i})?" for i in range(2000)]
    p = rx({"enum": values})
    assert all(accepts(p, v) for v in values[::97]) and not accepts(p, "value 2000 (x+2000)?")


# -- integers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lo,hi", [(0, 0), (1, 9), (5, 123), (8, 10), (99, 101), (0, 1000), (-5, 5), (-123, -7),
                                    (-1000, -999), (-10, 0), (None, -3), (7, None), (None, None), (10, 99), (100, 199)])
def test_integer_ranges_exhaustive_around_the_bounds(lo, hi):
    p = re.compile(int_range_regex(lo, hi))
    span = range(-1100, 1100)
    for n in span:
        assert (p.fullmatch(str(n)) is not None) == ((lo is None or n >= lo) and (hi is None or n <= hi)), n
    assert not p.fullmatch("-0") and not p.fullmatch("01") and not p.fullmatch("+1")


@SETTINGS
@given(st.one_of(st.none(), st.integers(-10**7, 10**7)), st.one_of(st.none(), st.integers(-10**7, 10**7)),
       st.lists(st.integers(-10**8, 10**8), min_size=1, max_size=20))
def test_integer_ranges_property(lo, hi, values):
    schema: dict = {"type": "integer"}
    if lo is not None:
        schema["minimum"] = lo
    if hi is not None:
        schema["maximum"] = hi
    if lo is not None and hi is not None and lo > hi:
        with pytest.raises(UnsupportedSchemaError):
            build_regex_from_schema(schema)
        return
    p = rx(schema)
    for v in values + [x for x in (lo, hi) if x is not None] + [x + d for x in (lo, hi) if x is not None for d in (-1, 1)]:
        assert accepts(p, v) == ((lo is None or v >= lo) and (hi is None or v <= hi)), v


def test_integer_exclusive_bounds_in_both_draft_spellings():
    for schema in ({"type": "integer", "exclusiveMinimum": -3, "exclusiveMaximum": 10},
                   {"type": "integer", "minimum": -3, "exclusiveMinimum": True, "maximum": 10, "exclusiveMaximum": True}):
        p = rx(schema)
        assert [n for n in range(-6, 14) if accepts(p, n)] == list(range(-2, 10))
    p = rx({"type": "integer", "minimum": 0.5, "maximum": 3.5})
    assert [n for n in range(-2, 6) if accepts(p, n)] == [1, 2, 3]


def test_integer_multiple_of():
    p = rx({"type": "integer", "multipleOf": 1})
    assert accepts(p, 7)
    for k in (2, 4, 5, 8, 10, 25, 40, 125):
        p = rx({"type": "integer", "multipleOf": k})
        assert [n for n in range(-1200, 1200) if accepts(p, n)] == [n for n in range(-1200, 1200) if n % k == 0], k
        assert accepts(p, 10**20) and accepts(p, -(10**20) - k) and not accepts(p, 10**20 + 1)
    p = rx({"type": "integer", "multipleOf": 4, "minimum": 0})  # other divisors: test_json_schema_multiples.py
    assert [n for n in range(-20, 20) if accepts(p, n)] == [0, 4, 8, 12, 16]
    raises_unsupported({"type": "integer", "multipleOf": 11}, "multipleOf", "#/multipleOf")


# -- numbers --------------------------------------------------------------------------------------

BOUNDS = [Decimal(x) for x in ("-100", "-1.5", "-1", "-0.25", "0", "0.001", "0.5", "1", "2.75", "10", "123.456")]


@SETTINGS
@given(st.sampled_from(BOUNDS + [None]), st.sampled_from(BOUNDS + [None]), st.booleans(), st.booleans(),
       st.lists(st.one_of(st.floats(-200, 200, allow_nan=False), st.sampled_from([float(b) for b in BOUNDS]),
                          st.integers(-300, 300)), min_size=1, max_size=15))
def test_number_ranges_property(lo, hi, lo_x, hi_x, values):
    schema: dict = {"type": "number"}
    if lo is not None:
        schema["exclusiveMinimum" if lo_x else "minimum"] = float(lo)
    if hi is not None:
        schema["exclusiveMaximum" if hi_x else "maximum"] = float(hi)
    try:
        p = rx(schema)
    except UnsupportedSchemaError as exc:
        # only ranges that cut numbers json.dumps writes with an exponent, or empty ranges
        assert exc.keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", None)
        return
    for v in values:
        d = Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
        inside = (lo is None or (d > lo if lo_x else d >= lo)) and (hi is None or (d < hi if hi_x else d <= hi))
        assert accepts(p, v) == inside, (schema, v)


def test_number_spellings_and_exponent_classes():
    p = rx({"type": "number", "minimum": 0})
    for text in ("0", "0.0", "-0", "-0.0", "12.5", "1e+20", "1e-05", "2.5E17", "1e16"):
        assert p.fullmatch(text), text
    # exponents only where json.dumps uses them (|x| >= 1e16, |x| < 1e-4); other magnitudes are plain
    for text in ("-1", "-1e-05", "-1e+20", "01", "1.", ".5", "+1", "2.5E3", "10e15"):
        assert not p.fullmatch(text), text
    p = rx({"type": "number", "minimum": -90, "maximum": 90})
    assert p.fullmatch("-90") and p.fullmatch("90.0") and p.fullmatch("1e-07") and not p.fullmatch("90.01")
    assert not p.fullmatch("1e+20")
    p = rx({"type": "number", "minimum": 0.00001})  # part of an exponent class: test_json_schema_exponent_ranges.py
    assert p.fullmatch("1e-05") and p.fullmatch("2.5e-05") and not p.fullmatch("9.99e-06")
    p = rx({"type": "number", "maximum": 1e20})
    assert p.fullmatch("1e+20") and p.fullmatch("-1e+300") and not p.fullmatch("1.01e+20")
    p = rx({"type": "number", "exclusiveMinimum": 3})
    assert p.fullmatch("1e+300") and p.fullmatch("3.000001") and not p.fullmatch("3") and not p.fullmatch("1e-05")
    raises_unsupported({"type": "number", "multipleOf": 0.3}, "multipleOf", "#/multipleOf")


@SETTINGS
@given(st.sampled_from(BOUNDS + [None]), st.sampled_from(BOUNDS + [None]), st.sampled_from([0.1, 0.01, 0.001]),
       st.lists(st.decimals(-200, 200, places=4, allow_nan=False, allow_infinity=False), min_size=1, max_size=15))
def test_number_multiple_of_decimal_property(lo, hi, step, values):
    schema: dict = {"type": "number", "multipleOf": step}
    if lo is not None:
        schema["minimum"] = float(lo)
    if hi is not None:
        schema["maximum"] = float(hi)
    try:
        p = rx(schema)
    except UnsupportedSchemaError as exc:
        assert exc.keyword is None and "accepts no value" in str(exc)
        step_d = Decimal(repr(step))
        assert lo is not None and hi is not None and (lo / step_d).to_integral_value(rounding="ROUND_CEILING") * step_d > hi
        return
    step_d = Decimal(repr(step))
    for d in values + [Decimal("1e16"), Decimal("-2.5e17")]:
        text = format(d, "f") if abs(d) < 10**16 else repr(float(d))
        inside = (lo is None or d >= lo) and (hi is None or d <= hi)
        assert (p.fullmatch(text) is not None) == (inside and d % step_d == 0), (schema, text)


# -- objects --------------------------------------------------------------------------------------


@pytest.mark.parametrize("required", [[], ["a"], ["c"], ["b", "d"], ["a", "b", "c", "d"]])
def test_object_optional_properties_every_subset(required):
    names = ["a", "b", "c", "d"]
    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in names}, "required": required,
              "additionalProperties": False}
    p = rx(schema)
    for mask in range(16):
        subset = [n for i, n in enumerate(names) if mask >> i & 1]
        obj = {n: i for i, n in enumerate(subset)}
        assert accepts(p, obj) == set(required).issubset(subset), obj
    assert not accepts(p, {"b": 1, "a": 2})  # declared order only
    assert not accepts(p, {"a": 1, "a2": 2})


def test_many_optional_properties_stay_linear():
    names = [f"p{i}" for i in range(60)]
    schema = {"type": "object", "properties": {n: {"type": "boolean"} for n in names}, "additionalProperties": False}
    regex = build_regex_from_schema(schema)
    assert len(regex) < 60 * 200
    p = re.compile(regex)
    assert accepts(p, {}) and accepts(p, {"p3": True, "p59": False}) and not accepts(p, {"p59": True, "p3": True})


def test_additional_properties_default_true_follow_declared_ones():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}
    p = rx(schema)
    assert accepts(p, {"a": 1, "b": "x", "zz": [1, {"q": None}]})
    assert accepts(p, {"a": 1, "zz": 1, "yy": "2"})
    assert not p.fullmatch('{"a":1,"a":2}')  # a declared name cannot come back as an extra
    assert not p.fullmatch('{"a":1,"b":"x","b":"y"}')
    assert not accepts(p, {"a": 1, "b": 2})
    assert not accepts(p, {"zz": 1, "a": 1})  # extras come after declared properties
    p = rx({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}})
    assert accepts(p, {"a": "s", "x": 1}) and not accepts(p, {"x": "s"})


def test_keys_with_escapes_and_unicode():
    names = ['q"uote', "back\\slash", "new\nline", "é☃", "a/b", ""]
    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in names}, "required": names}
    p = rx(schema)
    obj = {n: i for i, n in enumerate(names)}
    assert accepts(p, obj)
    assert accepts(p, {**obj, "new\\nline": 9})  # different key (backslash n): allowed as an extra
    assert not p.fullmatch(dumps(obj)[:-1] + ',"é☃":1}')


def test_empty_object_and_required_undeclared_property():
    p = rx({"type": "object", "additionalProperties": False})
    assert p.fullmatch("{}") and p.fullmatch("{ }") and not accepts(p, {"a": 1})
    p = rx({"type": "object", "required": ["id"], "properties": {"name": {"type": "string"}}})
    assert accepts(p, {"name": "x", "id": [1]}) and not accepts(p, {"name": "x"})
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema({"type": "object", "required": ["id"], "additionalProperties": False})


@pytest.mark.parametrize("lo,hi", [(1, None), (0, 1), (2, 3), (4, 4)])
def test_min_max_properties(lo, hi):
    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in "abc"}, "minProperties": lo}
    if hi is not None:
        schema["maxProperties"] = hi
    p = rx(schema)
    for mask in range(8):
        for extras in range(3):
            obj = {n: 1 for i, n in enumerate("abc") if mask >> i & 1}
            obj.update({f"x{j}": 2 for j in range(extras)})
            assert accepts(p, obj) == (lo <= len(obj) and (hi is None or len(obj) <= hi)), obj


def test_pattern_properties_and_property_names():
    p = rx({"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False})
    assert accepts(p, {"x-a": 1, "x-b": 2}) and not accepts(p, {"y": 1}) and not accepts(p, {"x-a": "s"})
    p = rx({"type": "object", "properties": {"id": {"type": "string"}},
            "patternProperties": {"^[0-9]+$": {"type": "boolean"}}, "additionalProperties": False})
    assert accepts(p, {"id": "a", "12": True}) and not accepts(p, {"id": "a", "1x": True})
    p = rx({"type": "object", "patternProperties": {"^ab": {"type": "integer"}}})  # exact with a lookahead
    assert accepts(p, {"abc": 1, "b": "s", "a": None}) and not accepts(p, {"abx": "s"})
    # other properties: those the pattern matches take its schema, the rest additionalProperties
    p = rx({"type": "object", "patternProperties": {"^x": {"type": "integer"}}})
    assert accepts(p, {"xa": 1, "b": "s", "": None}) and not accepts(p, {"xa": "s"}) and not accepts(p, {"x": []})
    p = rx({"type": "object", "patternProperties": {"^[a-z]{2}$": {"type": "null"}}, "additionalProperties": {"type": "boolean"}})
    assert accepts(p, {"ab": None, "abc": True, "A": False, "a\nb": True}) and not accepts(p, {"ab": True})
    assert not accepts(p, {"abc": None})
    p = rx({"type": "object", "patternProperties": {r"\w": {"type": "string"}}})
    assert accepts(p, {"a-": "s", "-": 1, "": 2}) and not accepts(p, {"-a": 1})
    # a pattern that matches every key applies to declared and other properties alike
    p = rx({"type": "object", "properties": {"id": {"type": "integer"}}, "patternProperties": {".*": {"minimum": 0}}})
    assert accepts(p, {"id": 3, "n": 2}) and not accepts(p, {"id": -3}) and not accepts(p, {"n": -1})
    assert accepts(p, {"n": "s"}) and not p.fullmatch('{"id":1,"id":2}')
    p = rx({"type": "object", "propertyNames": {"maxLength": 2}, "additionalProperties": {"type": "null"}})
    assert accepts(p, {"ab": None}) and not accepts(p, {"abc": None})


# -- arrays ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("lo,hi", [(0, None), (1, None), (2, 4), (0, 0), (3, 3)])
def test_array_lengths(lo, hi):
    schema = {"type": "array", "items": {"type": "integer"}, "minItems": lo}
    if hi is not None:
        schema["maxItems"] = hi
    p = rx(schema)
    for n in range(7):
        assert accepts(p, list(range(n))) == (n >= lo and (hi is None or n <= hi)), n
    assert not accepts(p, ["x"] * max(lo, 1))


def test_nested_arrays_and_tuples():
    p = rx({"type": "array", "items": {"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}}})
    assert accepts(p, [[[True], []], []]) and not accepts(p, [[True]])
    p = rx({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False, "minItems": 1})
    assert accepts(p, ["a"]) and accepts(p, ["a", 1]) and not accepts(p, []) and not accepts(p, ["a", 1, 2])
    p = rx({"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": {"type": "null"}})
    assert accepts(p, []) and accepts(p, ["a", 1, None, None]) and not accepts(p, ["a", 1, 2])
    p = rx({"type": "array", "items": {"type": "null"}, "uniqueItems": True, "maxItems": 1})
    assert accepts(p, [None])
    raises_unsupported({"type": "array", "uniqueItems": True}, "uniqueItems", "#/uniqueItems")
    p = rx({"type": "array", "contains": {"type": "null"}})  # exact: tests/test_json_schema_arrays.py
    assert accepts(p, [1, None]) and not accepts(p, [1, 2])


# -- formats --------------------------------------------------------------------------------------


@SETTINGS
@given(st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32))
def test_date_format_matches_calendar(y, m, d):
    text = f"{y:04d}-{m:02d}-{d:02d}"
    try:
        datetime.date(max(y, 1), m, d) if y else datetime.date(2000, m, d)
        valid = True
    except ValueError:
        valid = False
    assert (DATE.fullmatch(json.dumps(text)) is not None) == valid, text


DATE = re.compile(build_regex_from_schema({"type": "string", "format": "date"}))


def test_time_and_date_time_formats():
    p = rx({"type": "string", "format": "date-time"})
    for s in ("2024-02-29T23:59:60Z", "1999-12-31t00:00:00.123+05:30", "2000-01-01T12:00:00-00:00"):
        assert accepts(p, s), s
    for s in ("2023-02-29T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01 12:00:00Z", "2024-01-01T12:00:00"):
        assert not accepts(p, s), s
    p = rx({"type": "string", "format": "time"})
    assert accepts(p, "08:30:00Z") and not accepts(p, "8:30:00Z")


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**128 - 1))
def test_ip_formats_match_ipaddress(v4, v6):
    p4 = rx({"type": "string", "format": "ipv4"})
    p6 = rx({"type": "string", "format": "ipv6"})
    a4 = str(ipaddress.IPv4Address(v4))
    a6 = ipaddress.IPv6Address(v6)
    assert accepts(p4, a4) and not accepts(p6, a4)
    assert accepts(p6, a6.compressed) and accepts(p6, a6.exploded) and not accepts(p4, a6.compressed)
    assert not accepts(p4, a4 + ".1") and not accepts(p6, a6.exploded + ":1")


def test_other_formats():
    p = rx({"type": "string", "format": "uuid"})
    assert accepts(p, str(uuid.UUID(int=12345))) and not accepts(p, "1234")
    p = rx({"type": "string", "format": "email"})
    assert accepts(p, "a.b+c@example.co") and not accepts(p, "a@") and not accepts(p, "ab.example.com")
    p = rx({"type": "string", "format": "hostname"})
    assert accepts(p, "a-b.example.com") and not accepts(p, "-a.com") and not accepts(p, "a..b")
    p = rx({"type": "string", "format": "uri"})
    assert accepts(p, "https://example.com/a?b=c#d") and not accepts(p, "no scheme") and not accepts(p, "/rel")
    assert accepts(rx({"type": "string", "format": "my-own-format"}), "anything")  # unknown: annotation
    raises_unsupported({"type": "string", "format": "idn-hostname"}, "format", "#/format")


# -- $ref, combinators ----------------------------------------------------------------------------


def test_local_refs_in_every_spelling():
    schema = {
        "$defs": {"pos": {"type": "integer", "minimum": 1}},
        "definitions": {"a/b": {"type": "string"}, "t~x": {"type": "null"}, "sp ace": {"type": "boolean"}},
        "type": "array",
        "prefixItems": [{"$ref": "#/$defs/pos"}, {"$ref": "#/definitions/a~1b"}, {"$ref": "#/definitions/t~0x"},
                        {"$ref": "#/definitions/sp%20ace"}],
        "items": False,
    }
    p = rx(schema)
    assert accepts(p, [1, "s", None, True]) and not accepts(p, [0, "s", None, True])


def test_ref_by_id_and_anchor_and_remote():
    p = rx({"$id": "http://x.test/root.json", "definitions": {"n": {"$anchor": "num", "type": "number"}},
            "type": "array", "items": {"$ref": "http://x.test/root.json#/definitions/n"}})
    assert accepts(p, [1.5]) and not accepts(p, ["a"])
    assert accepts(rx({"definitions": {"n": {"$anchor": "num", "type": "number"}}, "$ref": "#num"}), 3)
    raises_unsupported({"properties": {"a": {"$ref": "http://elsewhere.test/s.json"}}}, "$ref", "#/properties/a")


def test_recursive_ref_is_unrolled():
    schema = {"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}},
                                 "required": ["v"], "additionalProperties": False}}, "$ref": "#/$defs/node"}
    p = rx(schema, max_recursion_depth=3)

    def chain(n):
        return {"v": 0} if n == 1 else {"v": n, "next": chain(n - 1)}

    assert accepts(p, chain(1)) and accepts(p, chain(3)) and not accepts(p, chain(4))
    assert accepts(rx(schema, max_recursion_depth=5), chain(5))


def test_ref_siblings_depend_on_draft():
    base = {"definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 2}},
            "required": ["a"], "additionalProperties": False}
    assert not accepts(rx(base), {"a": "abc"})
    assert accepts(rx({**base, "$schema": "http://json-schema.org/draft-07/schema#"}), {"a": "abc"})


def test_all_of_is_merged():
    schema = {"allOf": [{"type": "object", "properties": {"a": {"type": "integer", "minimum": 0}}, "required": ["a"]},
                        {"properties": {"a": {"maximum": 5}, "b": {"type": "string"}}}]}
    p = rx(schema)
    assert accepts(p, {"a": 3, "b": "x"}) and not accepts(p, {"a": 6}) and not accepts(p, {"b": "x"})
    assert accepts(p, {"a": 1, "c": 1}) and not accepts(p, {"a": 1, "b": 2})
    # additionalProperties sees only the properties declared beside it, not those inside allOf
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema({**schema, "additionalProperties": False})
    p = rx({"allOf": [{"type": "object", "properties": {"a": {}}, "additionalProperties": False},
                      {"properties": {"b": {}}}]})
    assert accepts(p, {"a": 1}) and not accepts(p, {"a": 1, "b": 2})
    p = rx({"allOf": [{"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
                      {"properties": {"b": {"minimum": 5}}}]})
    assert accepts(p, {"a": "s", "b": 6, "c": 1}) and not accepts(p, {"b": "s"}) and not accepts(p, {"b": 4})
    assert not accepts(p, {"c": "s"})


def test_any_of_and_one_of():
    p = rx({"anyOf": [{"type": "integer", "maximum": 0}, {"type": "string", "maxLength": 1}]})
    assert accepts(p, -4) and accepts(p, "a") and not accepts(p, 4) and not accepts(p, "ab")
    tagged = {"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind"]},
    ]}
    p = rx(tagged)
    assert accepts(p, {"kind": "a", "x": 1}) and accepts(p, {"kind": "b", "y": "s"}) and not accepts(p, {"kind": "c"})
    p = rx({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
            "oneOf": [{"properties": {"t": {"enum": [1]}}, "required": ["t"]}, {"properties": {"t": {"enum": [2]}}, "required": ["t"]}]})
    assert accepts(p, {"id": 1, "t": 2}) and not accepts(p, {"id": 1, "t": 3})
    # overlapping branches: each minus the others, by lookahead (test_json_schema_logic.py)
    p = rx({"oneOf": [{"type": "integer"}, {"type": "number"}]})
    assert accepts(p, 1.5) and not accepts(p, 1)
    p = rx({"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 2}]})
    assert accepts(p, "abc") and not accepts(p, "ab")


def test_one_of_rewritten_type_by_type():
    # branches without "type" accept every non-object in both: only objects can match exactly one
    schema = {"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "additionalProperties": False,
              "oneOf": [{"required": ["a"]}, {"required": ["b", "c"]}, {"required": ["c"]}]}
    p = rx(schema)
    for mask in range(8):
        obj = {n: 1 for i, n in enumerate("abc") if mask >> i & 1}
        matches = sum(set(r).issubset(obj) for r in (["a"], ["b", "c"], ["c"]))
        assert accepts(p, obj) == (matches == 1), obj
    p = rx({"oneOf": [{"required": ["a"]}, {"type": "string"}]})
    assert accepts(p, {"a": 1}) and not accepts(p, {"b": 1}) and not accepts(p, "s") and accepts(p, 5)
    p = rx({"oneOf": [{"type": "string"}, {"minimum": 3}]})  # strings match both branches
    assert not accepts(p, "abc") and accepts(p, 7) and not accepts(p, 2) and accepts(p, None) and accepts(p, [1])


def test_dependencies_in_both_spellings():
    props = {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}
    for schema in ({"type": "object", "properties": props, "dependencies": {"a": ["b"], "c": {"required": ["a"]}}},
                   {"type": "object", "properties": props, "dependentRequired": {"a": ["b"]},
                    "dependentSchemas": {"c": {"required": ["a"]}}}):
        p = rx({**schema, "additionalProperties": False})
        for mask in range(8):
            obj = {n: 1 for i, n in enumerate("abc") if mask >> i & 1}
            expected = ("a" not in obj or "b" in obj) and ("c" not in obj or "a" in obj)
            assert accepts(p, obj) == expected, obj
    p = rx({"type": "object", "dependencies": {"x": {"properties": {"y": {"type": "string"}}}}})
    # y is declared (inside the dependent schema), x only required: declared properties come first
    assert accepts(p, {"y": 1}) and accepts(p, {"y": "s", "x": 1}) and not accepts(p, {"y": 1, "x": 1})


# -- whitespace -----------------------------------------------------------------------------------


def test_whitespace_default_and_override():
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}, "b": {"type": "null"}},
              "required": ["a", "b"], "additionalProperties": False}
    value = {"a": [1, 2], "b": None}
    p = rx(schema)
    assert accepts(p, value) and p.fullmatch(json.dumps(value)) and p.fullmatch('{ "a" : [ 1 , 2 ] , "b" : null }')
    assert not p.fullmatch('{"a":  [1,2],"b":null}') and not p.fullmatch('{"a":[1,2],\n"b":null}')
    compact_only = rx(schema, whitespace_pattern="")
    assert accepts(compact_only, value) and not compact_only.fullmatch(json.dumps(value))
    pretty = rx(schema, whitespace_pattern=r"[ \n]*")
    assert pretty.fullmatch(json.dumps(value, indent=2))
    alt = rx(schema, whitespace_pattern=r" |\n")  # no empty match: exactly one space or newline at each place
    assert alt.fullmatch('{ "a" :\n[ 1 ,\n2 ] , "b" : null }')
    assert not alt.fullmatch(dumps(value))


# -- unsupported keywords and lenient mode ----------------------------------------------------------


def test_simple_not_is_rewritten():
    p = rx({"not": {"type": ["object", "null"]}})
    assert [accepts(p, v) for v in ({}, None, 1, "a", [])] == [False, False, True, True, True]
    p = rx({"type": "string", "not": {"enum": ["intramural", 'q"']}})
    assert [accepts(p, v) for v in ("intramural", 'q"', "intramurals", "")] == [False, False, True, True]
    p = rx({"not": {"const": True}})
    assert [accepts(p, v) for v in (True, False, None)] == [False, True, True]
    p = rx({"type": "object", "not": {"required": ["a", "b"]}})
    assert [accepts(p, v) for v in ({"a": 1}, {"a": 1, "b": 2}, {})] == [True, False, True]
    assert accepts(rx({"type": "string", "not": {"type": "integer"}}), "s")
    with pytest.raises(UnsupportedSchemaError, match="accepts no value"):
        build_regex_from_schema({"not": {}})


@pytest.mark.parametrize("schema,keyword,pointer", [
    ({"type": "object", "not": {"enum": [{"a": 1, "b": 2}]}}, "not", "#/not"),
    ({"type": "integer", "oneOf": [{"minimum": i} for i in range(9)]}, "oneOf", "#/oneOf"),
    ({"not": {"type": "integer", "multipleOf": 11}}, "multipleOf", "#/not/multipleOf"),
    ({"properties": {"a": {"type": "array", "contains": {"type": "string"}, "if": {"minItems": 1},
                           "then": {"contains": {"type": "integer"}}}}}, "then", "#/properties/a/then"),
    ({"type": "object", "anyOf": [{"properties": {"a": True}}, {"properties": {"b": True}}],
      "unevaluatedProperties": False}, "unevaluatedProperties", "#/unevaluatedProperties"),
    ({"type": "array", "items": {"type": "array", "uniqueItems": True}}, "uniqueItems", "#/items/uniqueItems"),
    ({"$defs": {"n": {"type": "number", "multipleOf": 0.75}}, "$ref": "#/$defs/n"}, "multipleOf", "#/$defs/n/multipleOf"),
])
def test_unsupported_keywords_name_keyword_and_pointer(schema, keyword, pointer):
    raises_unsupported(schema, keyword, pointer)


def test_keywords_for_other_types_are_irrelevant():
    p = rx({"type": "string", "uniqueItems": True, "dependencies": {"a": ["b"]}, "multipleOf": 3})
    assert accepts(p, "x")


def test_lenient_mode_ignores_and_warns():
    schema = {"type": "object", "properties": {"a": {"type": "array", "uniqueItems": True, "items": {"type": "integer"}},
                                               "b": {"type": "object", "not": {"enum": [{"x": 1, "y": 2}]}}},
              "required": ["a"]}
    with pytest.warns(UserWarning) as record:
        p = rx(schema, lenient=True)
    text = str(record[0].message)
    assert "uniqueItems at #/properties/a/uniqueItems" in text and "not at #/properties/b/not" in text
    assert accepts(p, {"a": [1, 1]}) and accepts(p, {"a": [], "b": {"x": 1, "y": 2}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_regex_from_schema({"type": "integer"}, lenient=True)  # nothing ignored: no warning


# -- the core compiles what we emit ---------------------------------------------------------------

CORE_SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}, "age": {"type": "integer", "minimum": -3,
     "maximum": 120}, "tags": {"type": "array", "items": {"enum": ["a", "é", 'q"']}, "maxItems": 2}}, "required": ["name"]},
    {"type": "object", "properties": {"when": {"type": "string", "format": "date"}, "ok": {"type": "boolean"}},
     "additionalProperties": False},
    {"anyOf": [{"type": "number", "minimum": 0, "maximum": 1.5}, {"type": "null"}]},
]
CORE_SAMPLES = [
    {"name": "bob", "age": 7}, {"name": "bob", "age": 121}, {"name": "é☃", "tags": ["é", 'q"'], "x": [1]},
    {"age": 1}, {"when": "2024-02-29", "ok": True}, {"when": "2023-02-29"}, {}, 0.5, 1.5, 1.75, None, "x",
    {"name": "abcdef"}, {"name": "a\nb", "age": -3},
]


@pytest.mark.parametrize("schema", CORE_SCHEMAS)
def test_core_automaton_agrees_with_re(schema):
    from tokenguide import regex as automaton
    regex = build_regex_from_schema(schema)
    dfa = automaton.compile_regex(regex)
    p = re.compile(regex)
    for v in CORE_SAMPLES:
        for text in (dumps(v), json.dumps(v, ensure_ascii=False)):
            assert dfa.accepts(text.encode("utf-8")) == (p.fullmatch(text) is not None), text


def test_integer_range_regex_is_small():
    assert len(int_range_regex(-999999, 999999)) < 60
    assert len(int_range_regex(12345, 987654321)) < 400


def test_index_and_guide_from_json_schema():
    import json as _json

    from tokenguide.guides import RegexGuide
    from tokenguide.index import Index
    from tokenguide.vocabulary import Vocabulary

    chars = '{}[]:," abcdefghijklmnopqrstuvwxyz0123456789-.'
    vocab = Vocabulary(len(chars), {c: i for i, c in enumerate(chars)})
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 20}}, "required": ["n"]}
    index = Index.from_json_schema(_json.dumps(schema), vocab, whitespace_pattern="")
    state = index.initial_state
    for ch in '{"n":17}':
        state = index.get_next_state(state, chars.index(ch))
        assert state is not None, ch
    assert index.is_final_state(state)
    state = index.initial_state
    for ch in '{"n":2':
        state = index.get_next_state(state, chars.index(ch))
    assert index.get_next_state(state, chars.index("1")) is None  # 21 > maximum
    guide = RegexGuide.from_json_schema(schema, vocab, whitespace_pattern="")
    assert guide.get_next_instruction(guide.initial_state).tokens == [chars.index("{")]


def test_empty_string_range_names_the_length_keywords_not_ref_unrolling():
    with pytest.raises(UnsupportedSchemaError) as info:
        build_regex_from_schema({"type": "string", "minLength": 5, "maxLength": 2})
    assert "minLength 5 is greater than maxLength 2" in str(info.value)
    assert "$ref" not in str(info.value)
    with pytest.raises(UnsupportedSchemaError) as info:
        build_regex_from_schema({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}, "minItems": 1}},
                                 "$ref": "#/$defs/n"})
    assert "recursive $ref" in str(info.value) and "max_recursion_depth" in str(info.value)


def test_user_schema_is_never_modified():
    import copy

    schema = {
        "$defs": {"pos": {"type": "integer", "minimum": 0}},
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/pos"}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                       "c": {"type": "string", "not": {"enum": ["x", "y"]}}},
        "allOf": [{"properties": {"a": {"maximum": 9}}}, {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}],
        "dependentRequired": {"a": ["b"]},
    }
    before = copy.deepcopy(schema)
    build_regex_from_schema(schema)
    assert schema == before


def test_empty_containers_take_one_optional_space():
    for schema, empty in (({"type": "object", "additionalProperties": False}, "{}"),
                          ({"type": "array", "maxItems": 0}, "[]")):
        rx = re.compile(build_regex_from_schema(schema))
        assert rx.fullmatch(empty) and rx.fullmatch(empty[0] + " " + empty[1])
        assert not rx.fullmatch(empty[0] + "  " + empty[1])
