"""Wide objects on the engine path: many optional properties become left-linear member rules.

Once, Lark expanded k optional members into 2**k alternatives and the Lark grammar path (since
replaced by the engine) refused (">600 alternatives"), so "auto" fell back to the depth-capped
regex, which rejects deeper valid instances. Oracles: `jsonschema` (validity), the regex path
(`re.fullmatch`, same language where both apply), and the engine's recogniser.
"""

from __future__ import annotations

import itertools
import json
import re
import warnings

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from grammar_oracle import lark_accepts, lark_parser  # noqa: E402
from random_json import nesting  # noqa: E402

CHARS = '{}[]:," abcdefghijklmnopqrstuvwxyz0123456789-.ABCDEFGHIJKLMNOPQRSTUVWXYZ_'


def dumps(v, compact: bool = True) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":")) if compact else json.dumps(v, ensure_ascii=False)


def validator(schema):
    """jsonschema's validator, with format checking (ipv4 and date here: standard library)."""
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def guide_accepts(guide, text: str) -> bool:
    """Feed `text` one character token at a time to a reset guide; accepted when every token is
    allowed and EOS is allowed at the end."""
    guide.reset()
    for ch in text:
        tok = CHARS.index(ch)
        if tok not in guide.get_tokens():
            return False
        guide.advance(tok)
    return len(CHARS) in guide.get_tokens()


def char_guide(schema):
    from tokenguide.guides.stateful import Guide
    from tokenguide.vocabulary import Vocabulary

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no depth-capped fallback
        guide = Guide.from_json_schema(schema, Vocabulary(len(CHARS), {ch: i for i, ch in enumerate(CHARS)}))
    assert guide.index is None  # the grammar path
    return guide


def nested(depth: int):
    v: object = 1
    for i in range(depth):
        v = [v] if i % 2 else {"k": v}
    return v


def check_language(schema, docs, guide=None, regex_too=True):
    """Every doc (and its spaced spelling) is accepted by the grammar iff jsonschema says valid;
    the regex path agrees on docs that do not nest past its cap; so does the CFG guide."""
    grammar = compile_json_schema(schema, path="engine")
    p = lark_parser(grammar)
    regex = compile_json_schema(schema, path="regex").regex if regex_too else None
    valid_seen = invalid_seen = 0
    for doc in docs:
        valid = validator(schema).is_valid(doc)
        valid_seen += valid
        invalid_seen += not valid
        for text in (dumps(doc), dumps(doc, compact=False)):
            assert lark_accepts(p, text) == valid, text
            if regex is not None and nesting(doc) < 3:
                assert (re.fullmatch(regex, text) is not None) == valid, text
        if guide is not None:
            assert guide_accepts(guide, dumps(doc)) == valid, dumps(doc)
    assert valid_seen and invalid_seen  # the docs exercise both answers
    return grammar


def subsets(names, values, limit=None):
    """Objects with every subset of `names` (in order), up to `limit` subsets."""
    out = []
    for mask in itertools.islice(itertools.product((0, 1), repeat=len(names)), limit):
        out.append({n: values[n] for n, keep in zip(names, mask) if keep})
    return out


def test_many_optional_free_form_members_take_the_grammar_path():
    # 14 optional arrays (free-form items): the former refusal (2**14 alternatives inline)
    names = [f"p{i}" for i in range(14)]
    schema = {"type": "object", "properties": {n: {"type": "array"} for n in names}, "additionalProperties": False}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    docs = [{"p0": [], "p13": [nested(6)]}, {n: [] for n in names}, {"p3": [[1]], "p9": []}, {}]
    docs += [{"p1": 1}, {"p14": []}, {"p2": [], "p2 ": []}]
    docs += subsets(names[:5], {n: [nested(i)] for i, n in enumerate(names)})
    guide = char_guide(schema)
    check_language(schema, docs, guide)
    # schema order: a later property before an earlier one is outside the output format
    p = lark_parser(compiled)
    assert not lark_accepts(p, '{"p3":[],"p1":[]}') and not guide_accepts(guide, '{"p3":[],"p1":[]}')
    assert not lark_accepts(p, '{"p1":[],"p1":[]}') and not lark_accepts(p, '{"p1":[],}')


def test_optional_members_with_additional_properties():
    names = ["a", "b", "c", "d", "e", "f"]
    schema = {"type": "object", "properties": {n: {"type": ["string", "null"]} for n in names}
              | {"g": {"type": "integer", "minimum": 0}}}
    assert compile_json_schema(schema).path == "engine"  # free-form additional properties
    values = {n: (None if i % 2 else "x") for i, n in enumerate(names)} | {"g": 3}
    docs = subsets(names + ["g"], values)
    docs += [{"zz": nested(7)}, {"a": "x", "zz": {"q": [1]}, "yy": 2}, {"b": None, "g": -1}, {"g": "1"}]
    docs += [{"a": 1}, {"c": "y", "f": None, "other": [nested(5)]}]
    check_language(schema, docs, char_guide(schema))
    # extra properties come after the declared ones (the output format's order)
    p = lark_parser(compile_json_schema(schema, path="engine"))
    assert not lark_accepts(p, '{"zz":1,"a":"x"}') and lark_accepts(p, '{"a":"x","zz":1}')


def test_required_members_among_many_optional_ones():
    # optional members before and after the first required one, extras after all of them
    props = {n: {"type": "array", "items": {"type": "integer"}} for n in "abcdefgh"}
    schema = {"type": "object", "properties": props, "required": ["c", "f"]}
    values = {n: [i, i + 1] for i, n in enumerate("abcdefgh")}
    docs = subsets(list("abcdefgh"), values)[::3]
    docs += [{"c": [], "f": [], "x": nested(6)}, {"c": [1], "f": ["1"]}, {"a": [], "c": [], "f": [], "x": 1}]
    check_language(schema, docs, char_guide(schema))
    # a required property that is not declared, and no extra properties
    typed = {"type": "object", "properties": {n: {"items": {}} for n in "abcde"}, "required": ["a", "z"],
             "additionalProperties": {"type": "integer"}}
    docs = [{"a": [], "z": 1}, {"a": [nested(5)], "b": [], "e": [1], "z": None}, {"a": []}, {"z": 1},
            {"a": [], "c": 2, "z": 3}, {"a": [], "z": 1, "q": 1}, {"a": [], "d": [], "z": 1, "q": "1"}]
    check_language(typed, docs)


def test_wide_objects_stay_fast_to_check_and_deterministic():
    # 40 optional members: right-linear rules (linear in the number of members), not refused
    schema = {"type": "object", "properties": {f"k{i:02}": {"type": "array"} for i in range(40)}}
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.engine.to_lark() == compile_json_schema(schema, path="engine").engine.to_lark()
    docs = [{"k00": [], "k39": [nested(4)]}, {f"k{i:02}": [] for i in range(0, 40, 3)}, {"k05": 1}]
    check_language(schema, docs, regex_too=False)


def test_remaining_refusal_still_falls_back_to_the_capped_regex():
    # a lookahead telling free-form values apart below the levels the grammar path writes out
    # around its holes (`not` of an object 5 levels deep under a free member): still refused
    deep: dict = {"type": "array", "maxItems": 0}
    for key in "edcb":
        deep = {"type": "object", "properties": {key: deep}, "required": [key]}
    schema = {"type": "object", "properties": {"free": {}, "v": {"type": "object", "properties": {"k": {}},
                                                                 "not": {"properties": {"k": deep},
                                                                         "minProperties": 1}}}}
    # (written deeper, the text passes lexemes.MAX_DFA_TEXT before the levels run out)
    with pytest.raises(UnsupportedSchemaError, match="lookahead over a free-form value|an automaton is built from"):
        compile_json_schema(schema, path="engine")
    with pytest.warns(UserWarning, match="depth-capped"):
        compiled = compile_json_schema(schema)
    assert compiled.path == "regex" and compiled.depth_capped and "engine path refuses it (" in compiled.reason


# -- strings whose keywords intersect (pattern or format with lengths): lexeme rules ---------

def string_docs(texts):
    return [{"s": t, "free": nested(5)} for t in texts] + [{"s": 1}, {"free": []}]


def test_pattern_with_max_length_becomes_rules_from_the_exact_automaton():
    # the regex path intersects by lookahead; the grammar path writes the intersection's DFA
    schema = {"type": "object", "properties": {"s": {"type": "string", "maxLength": 8, "pattern": r"^(\d+\.\d+.*)$"},
                                               "free": {}}}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    texts = ["1.2", "12.345", "1.2abcde", "1.2abcdef", "1.", "a1.2", "1.2\"x", "1.2\\n", "12345678", "1.2\u00e9\u4e2d",
             "1.2\U0001f600", "1.2\t", "0.0.0.0.", "1234.567"]
    docs = string_docs(texts)
    check_language(schema, docs, regex_too=True)
    guide = char_guide(schema)
    for doc in docs:  # the CFG guide over the ASCII texts its vocabulary can spell
        text = dumps(doc)
        if all(ch in CHARS for ch in text):
            assert guide_accepts(guide, text) == validator(schema).is_valid(doc), text


def test_format_with_min_length_and_non_ascii_pattern():
    schema = {"type": "object", "properties": {"s": {"type": "string", "minLength": 3, "maxLength": 4,
                                                     "pattern": "^[a-zé中]+$"}, "free": {}}}
    assert compile_json_schema(schema).path == "engine"
    check_language(schema, string_docs(["ab", "abc", "abcd", "abcde", "éé中", "中中中中中", "ab中", "abZ", "\U0001f600abc"]))
    dated = {"type": "object", "properties": {"s": {"type": "string", "format": "date", "maxLength": 9}, "free": {}}}
    p = lark_parser(compile_json_schema(dated, path="engine"))
    assert not lark_accepts(p, '{"s":"2020-01-01"}')  # 10 characters: none fits
    hosts = {"type": "object", "properties": {"s": {"type": "string", "format": "ipv4", "maxLength": 8}, "free": {}}}
    check_language(hosts, string_docs(["1.2.3.4", "10.2.3.4", "10.20.3.4", "1.2.3", "01.2.3.4"]), regex_too=False)


def test_lexeme_rules_refuse_automata_that_are_too_large():
    # hostname's 253-character limit times its label automaton: refused, naming the keyword
    schema = {"type": "object", "properties": {"h": {"type": "string", "format": "hostname"}, "free": {}}}
    with pytest.raises(UnsupportedSchemaError, match="more than 2,000 states") as info:
        compile_json_schema(schema, path="engine")
    assert info.value.keyword == "format" and info.value.pointer == "#/properties/h/format"


