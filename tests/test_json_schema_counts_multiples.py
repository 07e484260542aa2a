"""minProperties/maxProperties over large members, multipleOf 1/q and past 1e16 on numbers, and
uniqueItems over items no other item can equal (the keywords the differential fuzzer found
refused): each judged on both compile paths against jsonschema (multipleOf: Decimal
arithmetic, the meaning the compiler documents, with jsonschema's float check where the two
agree), on generated valid and invalid instances."""

from __future__ import annotations

import itertools
import json
import random
import re
import warnings
from decimal import Decimal

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema  # noqa: E402
import tokenguide.json_schema.objects as objects_module  # noqa: E402
from grammar_oracle import acceptor  # noqa: E402


def compiled(schema, path):
    """compile_json_schema on `path`, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_json_schema(schema, path=path)


def judge(schema, instances, paths=("regex", "engine")):
    """Each instance's compact JSON (keys in the schema's order) is accepted on every path exactly
    when jsonschema says it is valid; returns how many instances were valid (so callers can
    check both verdicts occurred)."""
    validator = jsonschema.Draft202012Validator(schema)
    order = list(schema.get("properties", {}))
    valid = 0
    for path in paths:
        accepts = acceptor(compiled(schema, path))
        for x in instances:
            if isinstance(x, dict):
                x = {k: x[k] for k in sorted(x, key=lambda k: (order.index(k) if k in order else len(order)))}
            text = json.dumps(x, separators=(",", ":"))
            want = validator.is_valid(x)
            valid += want
            assert accepts(text) == want, (path, text)
    return valid


# -- minProperties / maxProperties ------------------------------------------------------------------

INNER = {"type": "object", "properties": {k: {"type": t} for k, t in zip("pqrs", ["string", "integer", "boolean",
                                                                                  "null"])}}
MEMBER_VALUES = [1, "x", True, None, 2.5, {"p": "a", "q": 1}, {"r": False}, {"p": 3}, [], {}]


def objects(names, n, seed):
    """`n` random objects over the keys `names` with values of several types."""
    rnd = random.Random(seed)
    return [{k: rnd.choice(MEMBER_VALUES) for k in rnd.sample(names, rnd.randint(0, len(names)))} for _ in range(n)]


@pytest.mark.parametrize("bounds", [{"minProperties": 2}, {"maxProperties": 3}, {"minProperties": 1, "maxProperties": 2},
                                    {"minProperties": 3, "maxProperties": 3}])
@pytest.mark.parametrize("additional", [{"type": "number"}, False])
def test_counted_members_too_large_to_write_out(bounds, additional):
    """Members too large for the written-out count automaton (before: 'minProperties/maxProperties
    with this many properties make the regex too large'): the regex path counts them with
    lookaheads, the grammar path with one rule per (member, count)."""
    schema = {"type": "object", "properties": {n: INNER for n in "abcdef"}, "required": ["b"],
              "additionalProperties": additional, **bounds}
    valid = judge(schema, objects(list("abcdef") + ["zz", "yy"], 100, 1)
                  + [{"b": {}}, {"b": {}, "a": {}}, {"a": {}, "b": {"p": "x"}, "c": {}}, {"b": {}, "zz": 1.5, "yy": 2},
                     {"a": {}, "b": {}, "c": {}, "d": {}}])
    assert valid > 0


def test_counted_lookaheads_on_small_objects(monkeypatch):
    """The lookahead spelling, forced on objects small enough to check densely: every subset of
    the keys, against jsonschema."""
    monkeypatch.setattr(objects_module, "MAX_REGEX_CHARS", 1)
    names = ["a", "b", "c", "x-1"]
    instances = [dict.fromkeys(sub, v) for r in range(5) for sub in itertools.combinations(names, r)
                 for v in (1, {"p": "t"})]
    for lo, hi in [(0, 0), (1, None), (2, 3), (0, 2), (4, 4), (3, 2)]:
        for extra in ({}, {"additionalProperties": False}, {"patternProperties": {"^x-": {"type": "integer"}}}):
            schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {}, "c": INNER},
                      "minProperties": lo, **extra}
            if hi is not None:
                schema["maxProperties"] = hi
            try:
                regex = build_regex_from_schema(schema)
            except UnsupportedSchemaError as exc:  # minProperties above maxProperties, or above the keys
                assert "accepts no value" in str(exc)
                assert not any(jsonschema.Draft202012Validator(schema).is_valid(x) for x in instances)
                continue
            rx = re.compile(regex)
            v = jsonschema.Draft202012Validator(schema)
            for x in instances:
                assert bool(rx.fullmatch(json.dumps(x, separators=(",", ":")))) == v.is_valid(x), (schema, x)


# -- multipleOf on numbers ---------------------------------------------------------------------------

BOUNDS = [None, -100, -1.5, -0.25, 0, 0.001, 0.5, 0.75, 2.75, 123.456]


def spellings(d: Decimal) -> set[str]:
    """Plain JSON spellings of `d`: as written, normalised, and with one more trailing zero."""
    t = format(d, "f")
    return {t, format(d.normalize(), "f"), t + ("0" if "." in t else ".0")}


@pytest.mark.parametrize("step", [0.5, 0.25, 0.2, 0.05, 0.125, 0.0625, 0.002])
def test_number_multiple_of_unit_fractions(step):
    """multipleOf 1/q (q = 2^a 5^b) on numbers, over ranges: x is accepted iff in range and x / step
    is whole in decimal arithmetic."""
    rnd = random.Random(step)
    m = Decimal(repr(step))
    values = [Decimal(rnd.randint(-30000, 30000)) / Decimal(rnd.choice([1, 10, 100, 1000, 10000])) for _ in range(60)]
    values += [Decimal(repr(b)) + k * m for b in BOUNDS if b is not None for k in (-1, 0, 1)]
    for lo, hi in itertools.product(BOUNDS, BOUNDS):
        schema: dict = {"type": "number", "multipleOf": step}
        if lo is not None:
            schema["minimum"] = lo
        if hi is not None:
            schema["exclusiveMaximum"] = hi
        try:
            rx = re.compile(build_regex_from_schema(schema))
        except UnsupportedSchemaError as exc:
            assert "accepts no value" in str(exc) and lo is not None and hi is not None
            continue
        for d in values:
            inside = (lo is None or d >= Decimal(repr(lo))) and (hi is None or d < Decimal(repr(hi)))
            for text in spellings(d):
                assert (rx.fullmatch(text) is not None) == (inside and d % m == 0), (schema, text)


def test_number_multiple_of_binary_fractions_agree_with_jsonschema_floats_on_both_paths():
    """For 0.5, 0.25, 0.125 jsonschema's float division is exact, so it is the oracle itself."""
    rnd = random.Random(7)
    numbers = [rnd.randint(-4000, 4000) / rnd.choice([1, 2, 4, 8, 10, 100]) for _ in range(80)] + [0, -0.0, 1e-05]
    for step in (0.5, 0.25, 0.125):
        for extra in ({}, {"minimum": -3.5, "maximum": 20}):
            schema = {"type": "number", "multipleOf": step, **extra}
            assert 0 < judge(schema, numbers) < 2 * len(numbers)


def test_number_integer_divisors_past_1e16():
    """multipleOf 2, 4, 5, 8, 16, 25, 100 on numbers unbounded above: json.dumps writes |x| >= 1e16 with
    an exponent, and those spellings are multiples exactly when the integer they name is."""
    rnd = random.Random(3)
    ints = [rnd.randint(1, 10 ** rnd.choice([16, 17, 18, 20, 25])) * rnd.choice([1, 10, 1000, 3, 1024])
            for _ in range(400)]
    texts = {json.dumps(float(n)) for n in ints} | {json.dumps(-float(n)) for n in ints} | {"1e16", "2E+17", "5e16"}
    for m in (2, 4, 5, 8, 25, 100):
        for extra in ({}, {"minimum": 0}):
            try:
                rx = re.compile(build_regex_from_schema({"type": "number", "multipleOf": m, **extra}))
            except UnsupportedSchemaError as exc:  # a digit automaton too large for the range
                assert exc.keyword == "multipleOf"
                continue
            for text in texts:
                d = Decimal(text)
                inside = not extra or d >= 0
                assert (rx.fullmatch(text) is not None) == (inside and d % m == 0), (m, extra, text)


def test_number_multiples_still_refused_name_keyword_and_pointer():
    """Decimals whose multiples depend on the integer part, and ranges cutting the exponent class."""
    for schema in ({"type": "number", "multipleOf": 0.3}, {"type": "number", "multipleOf": 2.5},
                   {"type": "number", "multipleOf": 3}, {"type": "number", "multipleOf": 2, "maximum": 1e20}):
        with pytest.raises(UnsupportedSchemaError) as err:
            build_regex_from_schema({"properties": {"n": schema}})
        assert (err.value.keyword, err.value.pointer) == ("multipleOf", "#/properties/n/multipleOf")


# -- uniqueItems --------------------------------------------------------------------------------------

ITEMS = ["a", "b", 1, 2, 0, 2.5, True, False, None, {"a": 1}, {}, [1], []]


@pytest.mark.parametrize("schema", [
    {"type": "array", "prefixItems": [{"type": "integer"}, {"type": ["object", "boolean"],
                                                           "properties": {"a": {"type": "integer"}}}],
     "items": False, "minItems": 2, "uniqueItems": True},
    {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}, {"type": ["array", "object"]}],
     "items": False, "maxItems": 2, "uniqueItems": True},
    {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer", "minimum": 0, "maximum": 2},
     "uniqueItems": True},
    {"type": "array", "prefixItems": [{"enum": ["a", "b"]}, {"type": "boolean"}], "items": {"type": "number"},
     "maxItems": 3, "uniqueItems": True},
])
def test_unique_items_apart_by_type(schema):
    """Items with unbounded values that no other item can equal (their types apart, occurring once)
    need no distinctness check; the others keep theirs."""
    rnd = random.Random(json.dumps(schema))
    instances = [[rnd.choice(ITEMS) for _ in range(rnd.randint(0, 4))] for _ in range(300)]
    instances += [["a", 1, 1], ["a", 0, 2], [1, True], [2.5, "x"], ["a", True, 1.5], ["a", False, 3, 3]]
    valid = judge(schema, instances)
    assert valid > 0


@pytest.mark.parametrize("schema,pointer", [
    ({"type": "array", "items": {"type": "string"}, "uniqueItems": True}, "#/uniqueItems"),  # repeats
    ({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "number"}], "items": False, "uniqueItems": True},
     "#/uniqueItems"),  # 1 and 1.0 are equal
    ({"type": "array", "prefixItems": [{"type": "string"}, {"anyOf": [{"type": "string"}, {"type": "null"}]}],
      "items": False, "uniqueItems": True}, "#/uniqueItems"),
])
def test_unique_items_that_may_be_equal_stay_refused(schema, pointer):
    """(without value checks: compile_json_schema's default checks the first on the values)"""
    for path in ("regex", "engine"):
        with pytest.raises(UnsupportedSchemaError) as err:
            compile_json_schema(schema, path=path, value_checks=False)
        assert (err.value.keyword, err.value.pointer) == ("uniqueItems", pointer)
