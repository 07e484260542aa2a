"""not, overlapping oneOf, if/then/else and dependentSchemas on the regex path: the regex's
verdict on the compact JSON text of an instance equals the `jsonschema` validator's, on chosen
and on generated instances; the refusals name their keyword and JSON pointer."""

from __future__ import annotations

import itertools
import json
import re
import warnings

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from grammar_oracle import acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema
from tokenguide.json_schema.logic import CANONICAL_NUMBER, json_whitespace_only


def compact(x) -> str:
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def spellings(x) -> list[str]:
    """Compact JSON texts of `x` with its objects' keys in every order (the regexes write
    declared properties first, in schema order: the instance's own order may not be that one)."""
    if isinstance(x, dict):
        out = []
        for keys in itertools.islice(itertools.permutations(x), 24):
            for values in itertools.islice(itertools.product(*(spellings(x[k]) for k in keys)), 8):
                out.append("{" + ",".join(f"{compact(k)}:{v}" for k, v in zip(keys, values)) + "}")
        return out
    if isinstance(x, list):
        return ["[" + ",".join(vs) + "]" for vs in itertools.islice(itertools.product(*map(spellings, x)), 8)]
    return [compact(x)]


def disagreements(schema, instances, regex=None) -> list:
    """The instances on which the regex and jsonschema disagree: a valid instance must match in
    some key order, an invalid one in none."""
    regex = build_regex_from_schema(schema) if regex is None else regex
    rx = re.compile(regex)
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [(x, validator.is_valid(x)) for x in instances
            if validator.is_valid(x) != any(rx.fullmatch(t) for t in spellings(x))]


NUMBERS = [0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 100, -1, -5, 0.5, 2.5, 9.75, 10.5, -0.25, 1e-05, 3.5e-07, 10 ** 16]
INTEGRAL_FLOATS = [0.0, 3.0, 5.0, 7.0, 10.0, 12.0, -5.0, 1e16]
SCALARS = NUMBERS + [None, True, False, "", "a", "b", "ab", "a99", "99", "abcd", "9"]

CASES = {
    # not: by complement
    "not range": ({"type": "integer", "not": {"minimum": 5, "maximum": 10}}, NUMBERS),
    "not range of numbers": ({"type": "number", "not": {"exclusiveMinimum": 2, "maximum": 10}}, NUMBERS),
    "not pattern, any type": ({"not": {"type": "string", "pattern": "99"}}, SCALARS + [[], [1], {}, {"a": 1}]),
    "not pattern beside pattern": ({"type": "string", "pattern": "^a", "not": {"pattern": "9$"}}, SCALARS),
    "not length": ({"type": "string", "not": {"maxLength": 2}}, SCALARS),
    "not multipleOf 1": ({"type": "number", "not": {"multipleOf": 1}}, NUMBERS),
    "not enum of numbers": ({"type": ["integer", "string"], "not": {"enum": [1, "a", 1e16]}}, SCALARS),
    "not const small float": ({"type": "number", "not": {"const": 1e-05}}, NUMBERS),
    "not const object": ({"type": "object", "properties": {"a": {"type": "integer"}},
                          "not": {"const": {"a": 1}}}, [{}, {"a": 1}, {"a": 2}, {"b": 1}]),
    "not nested object": ({"type": "object", "properties": {"c": {"type": ["string", "integer"]}},
                           "not": {"properties": {"c": {"not": {"type": "string", "pattern": "99"}}}}},
                          [{}, {"c": "99"}, {"c": "a"}, {"c": 99}, {"d": 1}, {"c": "199", "d": 2}]),
    "not required and value": ({"type": "object", "not": {"required": ["k"], "properties": {"k": {"const": 1}}}},
                               [{}, {"k": 1}, {"k": 2}, {"x": 1, "k": 1}, {"x": 1}, {"k": 1, "x": 1}]),
    "two nots merged": ({"allOf": [{"not": {"const": 1}}, {"not": {"const": 2}}], "type": "integer"}, NUMBERS),
    "not anyOf": ({"type": "string", "not": {"anyOf": [{"pattern": "^....$"}, {"pattern": "ab"}]}}, SCALARS),
    "not allOf": ({"type": "string", "not": {"allOf": [{"pattern": "a"}, {"pattern": "b"}]}}, SCALARS),
    "not array items": ({"type": "array", "items": {"type": "integer"}, "not": {"items": {"maximum": 3}}},
                        [[], [1], [5], [1, 5], [5, 1], [1, 2, 3], ["a"]]),
    "not in items": ({"type": "array", "items": {"type": "integer", "not": {"multipleOf": 5}}},
                     [[], [1], [5], [1, 10], [3, 4], [0]]),
    # oneOf with overlapping branches
    "oneOf integer / minimum": ({"oneOf": [{"type": "integer"}, {"minimum": 3}]}, SCALARS),
    "oneOf number ranges": ({"oneOf": [{"type": "number", "maximum": 10}, {"type": "integer", "minimum": 5}]},
                            NUMBERS),
    "oneOf prefix numbers": ({"oneOf": [{"type": "integer", "maximum": 1}, {"type": "integer", "minimum": 1,
                                                                          "maximum": 12}]}, NUMBERS),
    "oneOf strings": ({"oneOf": [{"type": "string", "maxLength": 2}, {"type": "string", "pattern": "^a"}]}, SCALARS),
    "oneOf of optional properties": (
        {"type": "object", "oneOf": [{"properties": {"a": {"type": "integer"}}},
                                     {"properties": {"b": {"type": "integer"}}}]},
        [{}, {"a": 1}, {"b": 2}, {"a": "x"}, {"b": "y"}, {"a": 1, "b": "y"}, {"a": "x", "b": 2}, {"a": 1, "b": 2},
         {"c": 1}]),
    "oneOf closed objects": (
        {"oneOf": [{"type": "object", "properties": {"a": {}}, "additionalProperties": False},
                   {"type": "object", "properties": {"b": {}}, "additionalProperties": False}]},
        [{}, {"a": 1}, {"b": 1}, {"a": 1, "b": 1}, {"c": 1}, 3]),
    "oneOf in items": ({"type": "array", "items": {"oneOf": [{"type": "string", "maxLength": 3},
                                                             {"type": "string", "pattern": "^a"}]}},
                       [[], ["abcd"], ["a"], ["b"], ["abc", "bcde"], ["bcde"]]),
    "oneOf array / objects": ({"oneOf": [{"type": "array", "items": {"type": "integer"}},
                                         {"maxItems": 1, "required": ["x"], "properties": {"y": {"const": 2}}}]},
                              [[], [1], [1, 2], ["a"], ["a", "b"], {"x": 1}, {}, "s", {"x": 1, "y": 2}, {"y": 2}]),
    "not inside oneOf": ({"oneOf": [{"not": {"type": "integer", "minimum": 3}}, {"type": "integer"}]}, SCALARS),
    "oneOf beside anyOf": ({"anyOf": [{"type": "integer"}, {"type": "string"}],
                            "oneOf": [{"minimum": 2}, {"maximum": 5}, {"maxLength": 1}]}, SCALARS),
    "oneOf three overlapping": ({"type": "integer", "oneOf": [{"multipleOf": 2}, {"multipleOf": 5},
                                                             {"enum": [1, 2, 3, 10]}]}, NUMBERS),
    # if / then / else
    "if then else objects": (
        {"type": "object", "properties": {"k": {"type": "string"}, "x": {}, "y": {}},
         "if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}},
        [{"k": "a", "x": 1}, {"k": "a"}, {"k": "b", "y": 1}, {"k": "b", "x": 1}, {}, {"y": 2}, {"x": 1}]),
    "if inside properties": (
        {"type": "object", "properties": {"p": {"if": {"type": "integer"}, "then": {"minimum": 3},
                                                "else": {"type": "string"}}}},
        [{"p": 1}, {"p": 3}, {"p": "s"}, {"p": None}, {"p": 2.5}, {}]),
    "if then only": ({"type": "integer", "if": {"minimum": 10}, "then": {"maximum": 11}}, NUMBERS),
    "if else only": ({"type": "integer", "if": {"minimum": 10}, "else": {"maximum": 3}}, NUMBERS),
    "if alone": ({"type": "integer", "if": {"minimum": 10}}, NUMBERS),
    "then without if": ({"type": "integer", "then": {"minimum": 10}, "else": {"maximum": 1}}, NUMBERS),
    "if on strings": ({"type": "string", "if": {"pattern": "^a"}, "then": {"pattern": "b$"},
                       "else": {"maxLength": 1}}, SCALARS),
    "patterns of allOf": ({"allOf": [{"pattern": "^a"}, {"pattern": "b"}, {"not": {"pattern": "9"}}]}, SCALARS),
    "patterns of nested allOf": ({"type": "object", "properties": {"a": {"pattern": "^a"}},
                                  "if": {"required": ["a"]}, "then": {"properties": {"a": {"pattern": "b"}}}},
                                 [{}, {"a": "ab"}, {"a": "a"}, {"a": "b"}, {"a": 1}, {"b": "a"}]),
    # dependentSchemas / dependencies with schema values
    "dependentSchemas": (
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
         "dependentSchemas": {"a": {"required": ["b"], "properties": {"b": {"minimum": 2}}}}},
        [{}, {"a": 1}, {"a": 1, "b": 1}, {"a": 1, "b": 2}, {"b": 1}, {"a": "x", "b": 5}]),
    "dependencies schema": (
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
         "properties": {"a": {}, "b": {"type": "string"}},
         "dependencies": {"a": {"not": {"required": ["b"]}}, "b": ["a"]}},
        [{}, {"a": 1}, {"a": 1, "b": "x"}, {"b": "x"}, {"c": 1}]),
    "dependentSchemas with not": (
        {"type": "object", "properties": {"a": {}, "n": {"type": "integer"}},
         "dependentSchemas": {"a": {"properties": {"n": {"not": {"multipleOf": 2}}}}}},
        [{}, {"a": 1}, {"a": 1, "n": 2}, {"a": 1, "n": 3}, {"n": 2}]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_agrees_with_jsonschema(name):
    schema, instances = CASES[name]
    assert disagreements(schema, instances) == []


@pytest.mark.parametrize("schema", [
    {"type": "number", "not": {"exclusiveMinimum": 2, "maximum": 10}},
    {"type": "number", "not": {"type": "integer", "minimum": 5}},
    {"oneOf": [{"type": "number", "maximum": 10}, {"type": "number", "minimum": 5}]},
    {"type": "number", "if": {"minimum": 5}, "then": {"maximum": 10}, "else": {"not": {"const": 3}}},
])
def test_integral_floats(schema):
    """json.dumps writes 5.0 as "5.0": accepted where a number may be 5, also under a lookahead,
    and read as the integer it is by the lookahead side (except 1e16, refused by the spelling)."""
    assert [x for x, _ in disagreements(schema, INTEGRAL_FLOATS + NUMBERS) if x != 1e16] == []


# ---- generated instances -------------------------------------------------------------------

_numbers = st.one_of(st.integers(-3, 15), st.integers(-12, 60).map(lambda n: n / 4).filter(lambda x: x != int(x)))
_scalars = st.one_of(st.none(), st.booleans(), _numbers, st.text("ab9", max_size=5))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "k", "n", "x"]), inner, max_size=3)),
    max_leaves=6)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_instances_agree(data):
    name = data.draw(st.sampled_from(sorted(CASES)))
    schema, _ = CASES[name]
    values = [v for v in data.draw(st.lists(_values, min_size=1, max_size=8)) if nesting(v) <= 2]  # depth cap
    assert disagreements(schema, values, _REGEXES.setdefault(name, build_regex_from_schema(schema))) == []


_REGEXES: dict[str, str] = {}


def nesting(v) -> int:
    if isinstance(v, (list, dict)):
        return 1 + max(map(nesting, v.values() if isinstance(v, dict) else v), default=0)
    return 0


# ---- spellings and whitespace ----------------------------------------------------------------

def test_numbers_under_a_lookahead_are_canonical():
    """Where a value is tested against a lookahead, numbers are plain decimals (or json.dumps'
    small exponent form): "1e2" for 100 would escape the exact range regexes of the other side."""
    rx = re.compile(build_regex_from_schema({"type": "number", "not": {"type": "integer", "minimum": 5}}))
    assert rx.fullmatch("1") and rx.fullmatch("1.0") and rx.fullmatch("7.5") and rx.fullmatch("1.5e-05")
    assert not rx.fullmatch("7") and not rx.fullmatch("7.0") and not rx.fullmatch("7.00") and not rx.fullmatch("1e2")
    assert re.fullmatch(CANONICAL_NUMBER, "1.50") and not re.fullmatch(CANONICAL_NUMBER, "-0")
    assert not re.fullmatch(CANONICAL_NUMBER, "-0.0") and not re.fullmatch(CANONICAL_NUMBER, "1E-05")


def test_whitespace_between_tokens_still_works():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "not": {"properties": {"a": {"const": 1}}}}
    rx = re.compile(build_regex_from_schema(schema, whitespace_pattern=r"[ \t\n]*"))
    assert rx.fullmatch('{ "a" :\n2 }') and not rx.fullmatch('{ "a" :\n1 }') and not rx.fullmatch('{"a":1\t}')


@pytest.mark.parametrize("ws,ok", [("", True), (r"[ ]?", True), (r"[ \t\n\r]*", True), (r"(?:\r?\n)?[ ]{0,4}", True),
                                   (r"\s*", False), (r".?", False), (r"[^x]", False), ("x", False), (r"[ -~]", False)])
def test_json_whitespace_only(ws, ok):
    assert json_whitespace_only(ws) is ok


# ---- refusals ----------------------------------------------------------------------------------

def refusal(schema, **kw) -> UnsupportedSchemaError:
    with pytest.raises(UnsupportedSchemaError) as info:
        build_regex_from_schema(schema, **kw)
    return info.value


def test_refuses_whitespace_that_may_match_more():
    err = refusal({"type": "integer", "not": {"minimum": 3}}, whitespace_pattern=r"\s?")
    assert (err.keyword, err.pointer) == ("not", "#/not") and "JSON whitespace" in str(err)


def test_engine_path_reads_lookahead_values_as_the_regex_does():
    """On the engine path a value with lookaheads is a value lexeme (its lookaheads as
    intersections and complements); the regex path keeps the lookahead: one language."""
    schema = {"type": "integer", "not": {"minimum": 3}}
    engine = compile_json_schema(schema, path="engine")
    assert engine.path == "engine" and engine.accepts("2") and engine.accepts("-7") and not engine.accepts("3")
    regex = compile_json_schema(schema, path="regex")
    assert regex.path == "regex" and re.fullmatch(regex.regex, "2") and not re.fullmatch(regex.regex, "3")
    auto = compile_json_schema(schema)  # the engine path: the same language
    assert auto.path == "engine" and auto.accepts("2") and auto.accepts("-7") and not auto.accepts("3")


def _five_deep(inner: dict) -> dict:
    """`inner` as the value of a chain of five required properties (objects 5 levels deep)."""
    for key in "edcba":
        inner = {"type": "object", "properties": {key: inner}, "required": [key]}
    return inner


#: a lookahead telling free-form values apart 5 levels down, below what the grammar path
#: writes out around its holes (json_schema.holes)
DEEP = _five_deep({"type": "array", "maxItems": 0})


@pytest.mark.parametrize("schema,keyword,pointer", [
    # (minProperties: not a branch the grammar path's open-object rewrite takes, see
    # test_json_schema_object_one_of: without it, this oneOf compiles)
    ({"oneOf": [DEEP, {"required": ["z"], "minProperties": 2}]}, "oneOf", "#/oneOf/0"),
    ({"if": {**DEEP, "minProperties": 1}, "then": {"minProperties": 2}}, "if", "#/if"),  # not a plain negation
    ({"type": "object", "properties": {"k": {}}, "not": {"properties": {"k": DEEP}, "minProperties": 1}}, "not", "#/not"),
])
def test_grammar_path_refusals_name_keyword_and_pointer(schema, keyword, pointer):
    """A lookahead over a free-form value that tells values apart too deep: refused by keyword
    and pointer."""
    with pytest.raises(UnsupportedSchemaError, match="engine path") as info:
        compile_json_schema(schema, path="engine")
    assert (info.value.keyword, info.value.pointer) == (keyword, pointer)


def test_refuses_too_many_overlapping_branches():
    err = refusal({"type": "integer", "oneOf": [{"minimum": i} for i in range(9)]})
    assert (err.keyword, err.pointer) == ("oneOf", "#/oneOf") and "at most 8" in str(err)


def test_not_contains_beside_contains_is_items_outside_it():
    """Once refused (two contains cannot be merged); `not contains` is now `items: {not}`."""
    schema = {"type": "array", "contains": {"type": "integer"}, "not": {"contains": {"type": "string"}}}
    validator = jsonschema.Draft202012Validator(schema)
    for path in ("regex", "engine"):
        compiled = compile_json_schema(schema, path=path)
        accepts = acceptor(compiled)
        for x in ([], [1], ["a"], [1, "a"], [1, 2.5, None], [[], 3], [{}], "a", 1):
            assert accepts(json.dumps(x, separators=(",", ":"))) == validator.is_valid(x), (path, x)


def test_refuses_order_it_cannot_keep():
    err = refusal({"type": "object", "not": {"enum": [{"a": 1, "b": 2}]}})
    assert (err.keyword, err.pointer) == ("not", "#/not") and "order" in str(err)


def test_refuses_if_it_cannot_merge():
    err = refusal({"type": "array", "contains": {"type": "integer"}, "if": {"minItems": 1},
                   "then": {"contains": {"type": "string"}}})
    assert (err.keyword, err.pointer) == ("then", "#/then") and "cannot be merged" in str(err)


def test_refuses_not_of_unsupported_keyword_with_its_pointer():
    err = refusal({"type": "integer", "not": {"multipleOf": 11}})
    assert (err.keyword, err.pointer) == ("multipleOf", "#/not/multipleOf") and "'not' at #/not" in str(err)


def test_lenient_mode_ignores_and_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        regex = build_regex_from_schema({"type": "integer", "not": {"minimum": 3}}, whitespace_pattern=r"\s?",
                                        lenient=True)
    assert re.fullmatch(regex, "5") and any("not at #/not" in str(w.message) for w in caught)


def test_lenient_mode_ignores_an_if_it_cannot_merge():
    schema = {"type": "array", "contains": {"type": "integer"}, "if": {"minItems": 1}, "then": {"contains": {}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        regex = build_regex_from_schema(schema, lenient=True)
    assert re.fullmatch(regex, "[1]") and re.fullmatch(regex, '["a",1]') and not re.fullmatch(regex, '["a"]')
    assert any("then at #/then" in str(w.message) for w in caught)


def test_not_everything_accepts_nothing():
    err = refusal({"type": "integer", "not": {}})
    assert "accepts no value" in str(err)


# ---- through tokenguide's own automaton compiler ------------------------------------------------

INDEX_CASES = ["not range", "oneOf number ranges", "oneOf strings", "if on strings", "not inside oneOf",
               "oneOf of optional properties"]


@pytest.mark.parametrize("name", INDEX_CASES)
def test_index_accepts_what_the_regex_does(name):
    """The lookaheads compile exactly in tokenguide's Index: one token per character, and a
    few multi-character tokens that cross a value's end."""
    from tokenguide import Index, Vocabulary

    schema, instances = CASES[name]
    regex = build_regex_from_schema(schema)
    texts = [t for x in instances for t in spellings(x)]
    texts += [t[:-1] for t in texts if len(t) > 1] + [t + "0" for t in texts] + ["1e2", '"ab', "10.0"]
    chars = sorted({c for t in texts for c in t} | {chr(c) for c in range(32, 127)})
    tokens = {c: i for i, c in enumerate(chars)}
    for extra in ('5,', '":', "0}", '1"', "99"):
        tokens.setdefault(extra, len(tokens))
    index = Index(regex, Vocabulary(len(tokens), tokens))
    for t in texts:
        state = index.initial_state
        for c in t:
            state = index.get_next_state(state, tokens[c]) if state is not None else None
        got = state is not None and index.is_final_state(state)
        assert got == (re.fullmatch(regex, t) is not None), t


@pytest.mark.parametrize("name", ["oneOf of optional properties", "not required and value", "if then else objects",
                                  "dependentSchemas", "not nested object"])
def test_any_property_order(name):
    """property_order="any": every key order of a valid instance matches, none of an invalid one."""
    schema, instances = CASES[name]
    rx = re.compile(build_regex_from_schema(schema, property_order="any"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    for x in instances:
        assert all((rx.fullmatch(t) is not None) == validator.is_valid(x) for t in spellings(x)), x


@pytest.mark.parametrize("schema,alphabet,max_len", [
    ({"type": "integer", "not": {"minimum": 3, "maximum": 12}}, "-0123", 3),
    ({"oneOf": [{"type": "integer", "maximum": 1}, {"type": "integer", "minimum": 1, "maximum": 12}]}, "-012", 3),
    ({"type": "string", "if": {"pattern": "^a"}, "then": {"pattern": "b$"}, "else": {"maxLength": 1}}, 'ab"', 5),
])
def test_guide_from_json_schema(schema, alphabet, max_len):
    """Guide.from_json_schema against re.fullmatch on every text over `alphabet` up to `max_len`
    characters, one character per token."""
    from tokenguide import Guide, Vocabulary

    mapping = {c: i for i, c in enumerate(alphabet)}
    vocab = Vocabulary(len(alphabet), mapping)
    rx = re.compile(build_regex_from_schema(schema))
    guide = Guide.from_json_schema(schema, vocab)
    accepted = 0
    for n in range(1, max_len + 1):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            ids = [mapping[c] for c in text]
            guide.reset()
            taken = guide.accepts_tokens(ids)
            if taken:
                for t in ids:
                    guide.advance(t)
            assert (taken and guide.is_finished()) == (rx.fullmatch(text) is not None), text
            accepted += rx.fullmatch(text) is not None
    assert accepted > 3


@pytest.mark.parametrize("schema", [
    {"$schema": "http://json-schema.org/draft-04/schema#", "if": {"const": 1}, "then": False},
    {"$schema": "http://json-schema.org/draft-06/schema#", "type": "integer", "if": {"minimum": 3}, "else": False},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer", "if": {"minimum": 3}, "else": False},
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
     "dependencies": {"a": ["b"], "b": {"required": ["c"]}}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "dependencies": {"a": ["b"]}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "dependentSchemas": {"a": False},
     "dependentRequired": {"b": ["c"]}},
    {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object", "dependentSchemas": {"a": False},
     "dependentRequired": {"b": ["c"]}},
])
def test_keywords_of_other_drafts_are_ignored(schema):
    """With a `$schema` naming the draft: if/then/else from draft 7, dependencies up to draft 7,
    dependentSchemas/dependentRequired from 2019-09, as that draft's validator reads them."""
    assert disagreements(schema, [1, 2, 5, "a", {}, {"a": 1}, {"b": 1}, {"a": 1, "b": 2}, {"b": 1, "c": 2}]) == []


def test_without_schema_both_dependency_spellings_apply():
    """No `$schema`: dependencies applies too (validators default to 2020-12, which ignores it;
    the regex keeps the stricter reading, so it never writes what the older drafts reject)."""
    rx = re.compile(build_regex_from_schema({"type": "object", "dependencies": {"a": {"required": ["b"]}},
                                             "dependentRequired": {"c": ["a"]}}))

    def accepted(x) -> bool:
        return any(rx.fullmatch(t) for t in spellings(x))

    assert accepted({"b": 1}) and accepted({"a": 1, "b": 2}) and accepted({"c": 1, "a": 1, "b": 2})
    assert not accepted({"a": 1}) and not accepted({"c": 1}) and not accepted({"c": 1, "a": 1})
