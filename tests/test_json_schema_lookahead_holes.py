"""Free-form values inside value lexemes (module json_schema.holes): written out a few levels
deep around a hole for one complete array or object, checked to read one way only. Judged
against jsonschema on instances nesting deeper than any regex-path cap, with Lark's own
parser of the grammar as the acceptor (grammar_oracle)."""

from __future__ import annotations

import itertools
import json
import random
import warnings

import jsonschema
import pytest
from grammar_oracle import acceptor
from random_json import chain

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema import holes
from tokenguide.json_schema.rule_sink import RuleSink
from tokenguide.json_schema.lexemes import HOLE_CHARS, MARKER
from tokenguide.json_schema.text import VALUE_END, value_difference

LEAVES = [0, 1, 3, -2, 2.5, "", "a", "ab", None, True, False]


def _deep(seed: int, n: int) -> list:
    """`n` random JSON values, a third of them with a chain of arrays/objects 5-8 deep in them
    (deeper than the regex path's free-form cap). The schemas below declare keys of "abcd" at
    the top two levels only: deeper objects have keys "x"/"y", in an order that does not matter."""
    rnd = random.Random(seed)

    def gen(depth: int, limit: int):
        r = rnd.random()
        if depth >= limit or r < 0.35:
            return rnd.choice(LEAVES)
        if r < 0.55:
            return [gen(depth + 1, limit) for _ in range(rnd.randint(0, 2))]
        keys = "abcd" if depth < 2 else "xy"
        return {rnd.choice(keys): gen(depth + 1, limit) for _ in range(rnd.randint(0, 2 if depth else 3))}

    out = []
    for i in range(n):
        x = gen(0, 4)
        if i % 3 == 0:
            deep = chain(rnd, rnd.randint(5, 8), LEAVES + [[], {}], "xy")
            x = {**(x if isinstance(x, dict) else {}), rnd.choice("abcd"): {"x": deep}}
        out.append(x)
    return out


def _texts(x, depth: int = 0) -> list[str]:
    """Compact JSON texts of `x`, with the keys of its objects in the top two levels in every
    order (a grammar writes declared properties first, in schema order)."""
    if isinstance(x, dict):
        orders = itertools.permutations(x) if depth < 2 else [list(x)]
        return ["{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in zip(keys, values)) + "}"
                for keys in orders for values in itertools.product(*(_texts(x[k], depth + 1) for k in keys))]
    if isinstance(x, list):
        return ["[" + ",".join(vs) + "]" for vs in itertools.product(*(_texts(v, depth + 1) for v in x))]
    return [json.dumps(x, separators=(",", ":"))]


def _wrong(schema, accepts, instances) -> list:
    """The instances on which `accepts` and jsonschema disagree (a valid instance must be
    accepted in some key order, an invalid one in none)."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [x for x in instances if validator.is_valid(x) != any(accepts(t) for t in _texts(x))]


CASES = {
    "oneOf open objects by required keys": {"oneOf": [{"type": "object", "required": ["a"]},
                                                      {"type": "object", "required": ["b"]}]},
    "not required": {"type": "object", "not": {"required": ["a"]}},
    "if required then": {"type": "object", "if": {"required": ["a"]},
                         "then": {"properties": {"b": {"type": "integer"}}, "required": ["b"]}},
    "oneOf regular object beside free-form": {"oneOf": [
        {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "integer"}},
                                                "required": ["b"], "additionalProperties": False}}},
        {"type": "object", "required": ["c"]}]},
    "anyOf overlapping open objects": {"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "number"}}}}}]},
    "not empty array": {"not": {"type": "array", "maxItems": 0}},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_free_form_lookahead_values_are_exact_on_the_engine_path(name):
    schema = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a depth-capped fallback warns
        compiled = compile_json_schema(schema)
        lark_grammar = compile_json_schema(schema, path="engine")
    assert compiled.path == "engine" and not compiled.depth_capped
    assert lark_grammar.path == "engine"
    instances = _deep(len(name), 250) + [[], {}, [[]], {"a": {}}, {"b": []}]
    valid = [jsonschema.validators.validator_for(schema)(schema).is_valid(x) for x in instances]
    assert 0 < sum(valid) < len(valid)  # both kinds (deep ones among the valid)
    assert _wrong(schema, acceptor(compiled), instances) == []
    assert _wrong(schema, acceptor(lark_grammar), instances) == []


def _not_empty_array_text(k: int) -> tuple[str, int]:
    """The lexeme text of "any value but []" with free-form values written out to level k."""
    hole = HOLE_CHARS[0]
    main = holes.free_form_text("", k, f"\\x{hole:02x}")
    return value_difference(main, r"\[\]"), hole


def test_the_check_finds_where_a_hole_would_hide_text_from_a_lookahead():
    """At level 0 the hole stands for `[]` too, which the lookahead `(?!\\[\\])` cannot see:
    the check finds the state that moves both on the hole and on `[`; one level deeper, none."""
    text, hole = _not_empty_array_text(0)
    assert VALUE_END in text
    assert holes.decomposition_conflict(text, hole) is not None
    text, hole = _not_empty_array_text(1)
    assert holes.decomposition_conflict(text, hole) is None


def test_without_the_check_the_hole_lets_a_lookahead_miss(monkeypatch):
    """With the check removed, level 0 is taken and `[]` (which `not` excludes) gets through:
    the check is what keeps the grammar exact."""
    schema = CASES["not empty array"]
    good = acceptor(compile_json_schema(schema, path="engine"))
    assert not good("[]") and good("[[]]") and good("{}")
    monkeypatch.setattr(holes, "decomposition_conflict", lambda text, hole: None)
    bad = acceptor(compile_json_schema(schema, path="engine"))
    assert bad("[]")


def test_lookahead_free_text_reaches_nested_assertions():
    """U holds the text without assertions, and each assertion's prefix, body and marker,
    nested ones inside another assertion's body too."""
    import re
    u = holes.lookahead_free_text(r"a(?:b(?!c(?=d)e)f)*g")
    mark = chr(holes.MARKER)
    rx = re.compile(u)
    assert rx.fullmatch("abfbfg") and rx.fullmatch("abfbce" + mark) and rx.fullmatch("abcd" + mark)
    assert not rx.fullmatch("ace" + mark) and not rx.fullmatch("abce")
    assert holes.lookahead_free_text(r"(?<=a)b") is None  # a group syntax it does not read


def test_too_deep_a_lookahead_over_a_free_form_value_is_refused_by_name():
    """A lookahead that tells values apart below the deepest level written out is refused,
    naming the keyword and its pointer; auto falls back to the (depth-capped) regex path."""
    inner: dict = {"type": "array", "maxItems": 0}  # at level 5: the hole of a free-form value there
    for key in "edcba":
        inner = {"type": "object", "properties": {key: inner}, "required": [key]}
    schema = {"not": {**inner, "minProperties": 1}}  # not a plain negation (json_schema.negation)
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="engine")
    assert (info.value.keyword, info.value.pointer) == ("not", "#/not")
    assert "'not'" in str(info.value)  # (the value written out around its holes is too large to tell apart)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert compile_json_schema(schema).depth_capped


def test_a_check_too_large_to_run_is_refused_by_name(monkeypatch):
    """When the automaton of the check cannot be built within its bound, the lexeme is refused
    (naming the keyword and its pointer) rather than taken unchecked."""
    monkeypatch.setattr(holes, "U_STATES", 3)
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(CASES["not empty array"], path="engine")
    assert (info.value.keyword, info.value.pointer) == ("not", "#/not") and "cannot be checked" in str(info.value)


class _Ref:
    """A stand-in for a recursive $ref target (RuleSink.rule_ref reads its pointer)."""

    def __init__(self, ptr: str) -> None:
        self.ptr = ptr


def _union_of_rules(n: int) -> tuple[RuleSink, str]:
    """A sink and the placeholder regex of an alternation of `n` recursive rules and a free-form value."""
    sink = RuleSink("[ ]?")
    parts = [sink.rule_ref(_Ref(f"#/$defs/t{i}")) for i in range(n)] + [sink.any_value()]
    return sink, "(?:" + "|".join(parts) + ")"


def test_the_compound_hole_takes_the_last_hole_character_but_never_the_marker():
    sink, regex = _union_of_rules(len(HOLE_CHARS) - 1)
    text, filled = holes.lexeme_text(sink, regex, "anyOf", "#/anyOf", True)
    assert filled[sink.compound_value()] == f"\\x{HOLE_CHARS[-1]:02x}" and "\\x01" in text
    assert len(set(filled.values())) == len(HOLE_CHARS) and f"\\x{MARKER:02x}" not in filled.values()
    sink, regex = _union_of_rules(len(HOLE_CHARS))
    with pytest.raises(UnsupportedSchemaError) as info:
        holes.lexeme_text(sink, regex, "anyOf", "#/anyOf", True)
    assert (info.value.keyword, info.value.pointer) == ("anyOf", "#/anyOf") and "too many rules" in str(info.value)


def test_no_level_that_reads_one_way_is_refused_by_name(monkeypatch):
    """When every level tried conflicts, the lexeme is refused naming the keyword and pointer."""
    monkeypatch.setattr(holes, "MAX_FREE_DEPTH", 0)  # "any value but []" needs level 1
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(CASES["not empty array"], path="engine")
    assert (info.value.keyword, info.value.pointer) == ("not", "#/not")
    assert "free-form value that no text written out 0 levels deep tells apart" in str(info.value)
