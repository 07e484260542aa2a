"""multipleOf on integers, any divisor and range (json_schema/multiples.py): differential tests
against `jsonschema` on both paths (re.fullmatch on the regex, Lark on the grammar)."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from grammar_oracle import grammar_acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema
from tokenguide.json_schema.multiples import multiples_of

CASES = [
    {"type": "integer", "multipleOf": 3},
    {"type": "integer", "multipleOf": 12, "minimum": 0},
    {"type": "integer", "multipleOf": 4, "minimum": 16, "maximum": 100},
    {"type": "integer", "multipleOf": 7, "minimum": -50, "exclusiveMaximum": 300},
    {"type": "integer", "multipleOf": 2.5},
    {"type": "integer", "multipleOf": 6, "maximum": -5},
    {"type": "integer", "multipleOf": 16, "exclusiveMinimum": 3},
    {"type": "number", "multipleOf": 3, "minimum": -1000, "maximum": 1000},
]

TEXTS = [str(n) for n in range(-130, 130)] + ["6.0", "-12.00", "7.5", "1e+20", "012", "-0", "3000000", "3000001"]


def _expected(schema: dict, text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False  # not JSON ("012")
    if schema["type"] == "integer" and not re.fullmatch(r"-?(?:0|[1-9][0-9]*)", text) or text == "-0":
        return False  # the output format: integers without fraction or exponent, no -0
    if schema["type"] == "number" and "e" in text:
        return False  # outside +-1e16 only plain spellings
    return jsonschema.Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize("schema", CASES, ids=lambda s: json.dumps(s, separators=(",", ":")))
def test_multiple_of_matches_jsonschema_on_both_paths(schema):
    rx = re.compile(build_regex_from_schema(schema))
    lark = grammar_acceptor(compile_json_schema(schema, path="engine"))
    for text in TEXTS:
        want = _expected(schema, text)
        assert bool(rx.fullmatch(text)) == want, text
        assert lark(text) == want, text
    # inside objects, through the default whitespace
    wrapped = {"type": "object", "properties": {"n": schema}, "required": ["n"], "additionalProperties": False}
    wrx = re.compile(build_regex_from_schema(wrapped))
    good = [t for t in TEXTS if _expected(schema, t)]
    bad = [t for t in TEXTS[:260] if not _expected(schema, t)]
    assert good and bad
    for text in good[::5] + bad[::9]:
        assert bool(wrx.fullmatch(f'{{"n": {text}}}')) == (text in good), text


@pytest.mark.parametrize("m", [2, 3, 4, 6, 8, 12, 15, 16, 20, 24, 25, 40])
def test_unbounded_multiples_are_exact(m):
    for lo in (0, 1, 7):
        rx = re.compile(multiples_of(lo, None, m))
        assert [n for n in range(0, 5000) if rx.fullmatch(str(n))] == [n for n in range(lo, 5000) if n % m == 0]
        assert not rx.fullmatch("0" + str(m)) and not rx.fullmatch("")


def test_bounded_multiples_are_exact():
    for lo, hi, m in ((0, 500, 97), (0, 1000, 13), (100, 10000, 9), (5, 5, 5), (6, 6, 5)):
        r = multiples_of(lo, hi, m)
        got = [] if r is None else [n for n in range(0, hi + 50) if re.fullmatch(r, str(n))]
        assert got == [n for n in range(lo, hi + 1) if n % m == 0]


def test_too_large_divisor_is_refused_by_name():
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"properties": {"a": {"type": "integer", "multipleOf": 11}}})
    assert (err.value.keyword, err.value.pointer) == ("multipleOf", "#/properties/a/multipleOf")
    assert "multipleOf 11" in str(err.value) and "range" in str(err.value)


def test_integer_multiples_on_numbers_need_a_range_below_1e16():
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"type": "number", "multipleOf": 3})
    assert (err.value.keyword, err.value.pointer) == ("multipleOf", "#/multipleOf") and "1e16" in str(err.value)


def test_bad_multiple_of_value_is_refused():
    for bad in (0, -3, "3", True):
        with pytest.raises(UnsupportedSchemaError) as err:
            build_regex_from_schema({"type": "integer", "multipleOf": bad})
        assert err.value.keyword == "multipleOf"


def test_all_of_multiples_merge_to_their_lcm_on_both_paths():
    schema = {"type": "integer", "allOf": [{"multipleOf": 4}, {"multipleOf": 6}], "minimum": -100, "maximum": 100}
    rx = re.compile(build_regex_from_schema(schema))
    lark = grammar_acceptor(compile_json_schema(schema, path="engine"))
    v = jsonschema.Draft202012Validator(schema)
    for n in range(-130, 130):
        assert bool(rx.fullmatch(str(n))) == lark(str(n)) == v.is_valid(n), n
    # 0.3 and 0.25 together: multiples of 1.5 (not among the decimal divisors supported): refused by name
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"type": "number", "allOf": [{"multipleOf": 0.3}, {"multipleOf": 0.25}]})
    assert err.value.keyword == "multipleOf" and "1.5" in str(err.value)
