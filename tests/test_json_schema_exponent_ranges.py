"""Number ranges that cut the magnitudes json.dumps writes with an exponent (|x| >= 1e16,
0 < |x| < 1e-4): per exponent, the mantissas in range (numbers.exponent_part). Differential
against `jsonschema` on json.dumps texts, regex path and grammar path."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import jsonschema
import pytest
from grammar_oracle import grammar_acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema

SCHEMAS = [
    {"type": "number", "minimum": 1e-09, "maximum": 4.294967295},
    {"type": "number", "minimum": 0.00001},
    {"type": "number", "maximum": 1e20},
    {"type": "number", "exclusiveMinimum": -3.5e-7, "exclusiveMaximum": 2.5e18},
    {"type": "number", "minimum": -1e30, "maximum": -2e16},
    {"type": "number", "minimum": 5e-5, "maximum": 5e-5},
    {"type": "number", "exclusiveMinimum": 1e-4},
    {"type": "number", "exclusiveMinimum": 2e-6, "exclusiveMaximum": 3e-6},
]

VALUES = sorted({float(Decimal(m).scaleb(e) * s) for e in range(-12, 33, 2) for m in ("1", "2.5", "3", "4.294967295", "9.99")
                 for s in (1, -1)} | {1e-9, 5e-5, 1e-4, 2e-6, 3e-6, 1e16, 2e16, 1e20, 2.5e18, -3.5e-7, 0.0, 1.0})


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: json.dumps(s, separators=(",", ":")))
def test_exponent_classes_cut_by_a_bound_match_jsonschema(schema):
    rx = re.compile(build_regex_from_schema(schema))
    lark = grammar_acceptor(compile_json_schema(schema, path="engine"))
    v = jsonschema.Draft202012Validator(schema)
    for x in VALUES:
        text = json.dumps(x)
        assert bool(rx.fullmatch(text)) == v.is_valid(x), text
        assert lark(text) == v.is_valid(x), text
    # other mantissa spellings of the same value: a trailing zero, upper-case E, a padded exponent
    if v.is_valid(1e-9) and v.is_valid(2e-9):
        assert rx.fullmatch("2.50E-009") and lark("2.50E-009")


def test_multiple_of_with_a_cut_big_class_is_refused_by_name():
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"type": "number", "multipleOf": 0.5, "maximum": 1e20})
    assert err.value.keyword in ("maximum", "multipleOf")
    with pytest.raises(UnsupportedSchemaError) as err:
        build_regex_from_schema({"type": "number", "multipleOf": 0.1, "maximum": 1e20})
    assert (err.value.keyword, err.value.pointer) == ("maximum", "#/maximum") and "1e16" in str(err.value)
