"""Schemas the engine path once refused for size (Lark expands optional parts inline, so
objects nested in objects multiply their alternatives): now written as member rules
(member_rules, GrammarSink.member_rules) and exact. Judged against jsonschema with Lark's own
parser of the grammar text as the acceptor (grammar_oracle), and against the regex path."""

from __future__ import annotations

import json
import random
import re
import warnings

import jsonschema
import pytest
from grammar_oracle import acceptor
from random_json import chain, nesting, random_values
from test_json_schema_logic import spellings

from tokenguide.json_schema import compile_json_schema

#: a machine manifest: open objects (additionalProperties free-form) nested in an open object,
#: each with optional declared properties (one required), in schema order
MANIFEST = {
    "type": "object",
    "properties": {
        "boot": {"type": "object", "properties": {"extras": {"type": "string"}}},
        "sys": {"type": "object", "properties": {"loader": {"enum": ["grub", "lilo"]}}},
        "vol": {"type": "object", "required": ["backing"], "properties": {
            "backing": {"enum": ["raw", "vdi"]},
            "parts": {"type": "object", "properties": {"kind": {"enum": ["none", "gpt"]}}},
        }},
    },
}

#: two levels of open objects with two optional members each, and a closed one inside
LEVELS = {
    "type": "object",
    "properties": {
        "a": {"type": "object", "properties": {
            "x": {"type": "object", "properties": {"p": {"type": "integer"}, "q": {"type": "boolean"}}},
            "y": {"type": "string"},
        }},
        "b": {"type": "object", "additionalProperties": False, "properties": {
            "x": {"type": ["string", "null"]}, "y": {"type": "object", "properties": {"p": {"type": "number"}}},
        }},
        "c": {"type": "boolean"},
    },
}

SCHEMAS = {"manifest": MANIFEST, "levels": LEVELS}
KEYS = ["boot", "sys", "vol", "extras", "loader", "backing", "parts", "kind", "a", "b", "c", "x", "y", "p", "q", "zz"]
LEAVES = ["grub", "lilo", "raw", "vdi", "none", "gpt", "", "s", 0, 3, -1, 2.5, None, True, False]


def _deep(rnd: random.Random, depth: int):
    """A free-form value nested `depth` arrays/objects deep."""
    return chain(rnd, depth, LEAVES, KEYS)


def _instances(seed: int, n: int) -> list:
    """`n` random values over the schemas' keys and leaves, some with free-form values 5-7 deep."""
    return random_values(random.Random(seed), n, LEAVES, KEYS, leaf=0.3, deep=0.06, array=0.06, array_len=2)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_nested_open_objects_take_the_exact_grammar_path(name):
    """Refused before ("a rule would expand into more than 600 alternatives"), so "auto" fell
    back to the depth-capped regex. The Lark grammar's retries take them (path="engine"); "auto"
    takes the engine path."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a depth-capped fallback warns
        compiled = compile_json_schema(SCHEMAS[name])
    assert compiled.path == "engine" and not compiled.depth_capped and "engine path takes it" in compiled.reason
    assert compile_json_schema(SCHEMAS[name], path="engine").path == "engine"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_member_rules_agree_with_jsonschema_and_the_regex_path(name):
    schema = SCHEMAS[name]
    accepts = acceptor(compile_json_schema(schema, path="engine"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    instances = _instances(sorted(SCHEMAS).index(name), 400)
    valid = [x for x in instances if validator.is_valid(x)]
    assert len(valid) >= 40 and sum(nesting(x) >= 6 for x in valid) >= 5  # the sample tests something
    wrong = [x for x in instances if validator.is_valid(x) != any(accepts(t) for t in spellings(x))]
    assert wrong == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # depth-capped
        regex = re.compile(compile_json_schema(schema, path="regex").regex)
    for x in instances:
        for text in spellings(x):
            by_regex = regex.fullmatch(text) is not None
            if by_regex or nesting(x) <= 2:  # deeper, the capped regex may reject a valid instance
                assert accepts(text) == by_regex, text


def test_deep_free_form_values_in_the_manifest():
    """A valid manifest whose free-form member nests 8 deep is accepted; the same with a
    declared value out of its enum is not."""
    accepts = acceptor(compile_json_schema(MANIFEST))
    deep = {"k": [[{"m": [[[[{"n": 1}]]]]}]]}
    good = {"boot": {"extras": "x", "more": deep}, "vol": {"backing": "raw", "parts": {"kind": "gpt", "o": deep}}}
    bad = {"boot": {"extras": "x", "more": deep}, "vol": {"backing": "ext4", "parts": {"o": deep}}}
    assert accepts(json.dumps(good, separators=(",", ":")))
    assert accepts(json.dumps(good))  # the default whitespace: one optional space between tokens
    assert not accepts(json.dumps(bad, separators=(",", ":")))
    assert not accepts(json.dumps({"vol": {"parts": {}}}, separators=(",", ":")))  # backing required


def _wide_event(n: int) -> dict:
    """A wide event record (modelled on Snowplow's enriched events): `n` optional properties,
    most strings or nulls of a bounded length, some integers/booleans, two free-form contexts."""
    props: dict = {}
    for i in range(n):
        kind = i % 5
        if kind == 3:
            props[f"f{i}"] = {"type": ["integer", "null"]}
        elif kind == 4:
            props[f"f{i}"] = {"type": ["boolean", "null"]}
        else:
            props[f"f{i}"] = {"type": ["string", "null"], "maxLength": (255, 128, 40)[kind]}
    props["contexts"] = {"type": ["object", "null"]}
    props["derived"] = {"type": ["object", "null"]}
    props["event_id"] = {"type": "string", "maxLength": 36}
    return {"type": "object", "additionalProperties": False, "properties": props}


WIDE = _wide_event(130)


def _value(rnd: random.Random, schema: dict):
    """A random value for a property of WIDE: mostly of its type, at its length bound or one
    past it, sometimes of another type."""
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    kind = rnd.choice(types) if rnd.random() < 0.9 else rnd.choice(["string", "integer", "boolean", "object"])
    if kind == "string":
        top = schema.get("maxLength", 300)
        return rnd.choice("xyzé") * rnd.choice([0, 1, top - 1, top, top, top + 1])
    return {"integer": lambda: rnd.choice([0, -3, 12]), "boolean": lambda: rnd.random() < 0.5, "null": lambda: None,
            "object": lambda: rnd.choice([{}, {"a": [1.5, None]}])}[kind]()


def test_a_wide_event_record_takes_the_exact_grammar_path():
    """Refused before ("more than 700 alternatives once Lark expands its optional parts": 130
    members written as left-linear rules are about 820), so "auto" fell back to the
    depth-capped regex."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = compile_json_schema(WIDE)
    assert compiled.path == "engine" and not compiled.depth_capped
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(WIDE)(WIDE)
    rnd = random.Random(7)
    names = list(WIDE["properties"])
    cases = []
    for _ in range(150):
        keep = sorted(rnd.sample(range(len(names)), rnd.randint(0, 6)) + ([names.index("event_id")] * (rnd.random() < 0.9)))
        x = {names[i]: _value(rnd, WIDE["properties"][names[i]]) for i in dict.fromkeys(keep)}
        if rnd.random() < 0.4:
            x["contexts"] = _deep(rnd, rnd.randint(5, 7)) if rnd.random() < 0.7 else {"k": _deep(rnd, 6)}
        cases.append({k: x[k] for k in names if k in x})  # schema order: the grammar's order
    assert sum(validator.is_valid(x) for x in cases) >= 30
    texts = [json.dumps(x, separators=(",", ":"), ensure_ascii=False) for x in cases]
    assert [accepts(t) for t in texts] == [validator.is_valid(x) for x in cases]


def test_long_counted_values_have_one_terminal_for_all_their_keys():
    """A member whose value counts to 32 or more (a string's maxLength) is its key's terminal,
    then one terminal for the value that every member with that value shares: the automaton is
    built and checked once, not once per key. Same language: judged by jsonschema."""
    schema = {"type": "object", "properties": {k: {"type": ["string", "null"], "maxLength": 100} for k in "abcdef"},
              "additionalProperties": {"type": "integer"}}
    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(schema)(schema)
    rnd = random.Random(3)
    values = [None, "", "q" * 100, "q" * 101, 5, "é" * 100, True]
    for _ in range(200):
        x = {k: rnd.choice(values) for k in sorted(rnd.sample("abcdefgh", rnd.randint(0, 4)))}
        x = {k: x[k] for k in "abcdef" if k in x} | {k: x[k] for k in "gh" if k in x}
        assert accepts(json.dumps(x, separators=(",", ":"), ensure_ascii=False)) == validator.is_valid(x), x


@pytest.mark.parametrize("lo,hi", [(0, 65535), (1, 65535), (0, 40000), (7, 34816), (0, 32896), (3, 2**31)])
def test_huge_max_length_on_the_grammar_path(lo, hi):
    """maxLength past 32,768 (refused before: "a string length over 32,768 characters"): the
    block count bounded digit by digit. Judged by jsonschema on strings of lengths around
    every block and digit boundary, with escapes and non-ASCII characters (one character each)."""
    schema = {"type": "string", "minLength": lo, "maxLength": hi}
    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(schema)(schema)
    near = {0, 1, lo - 1, lo, lo + 1, 127, 128, 129, 2047, 2048, 2049, 32767, 32768, 32769, 65535, 65536, 100000}
    near |= {n for n in range(hi - 260, hi + 3) if n < 70000}
    rnd = random.Random(lo)
    for n in sorted(x for x in near if x >= 0):
        text = "".join(rnd.choice("ab\n\"é\\") if rnd.random() < 0.01 else "a" for _ in range(n))
        assert accepts(json.dumps(text, ensure_ascii=False)) == validator.is_valid(text), (n, lo, hi)


def test_huge_max_length_beside_a_free_form_value_is_exact():
    """A schema with maxLength 65535 and a free-form member ("auto" takes the grammar path for
    it) fell back to the depth-capped regex; now the engine path takes it."""
    schema = {"type": "object", "properties": {"body": {"type": "string", "maxLength": 65535}, "meta": {}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    accepts = acceptor(compiled)
    meta = {"k": [[{"m": [[[[{"n": 1}]]]]}]]}
    assert accepts(json.dumps({"body": "x" * 65535, "meta": meta}, separators=(",", ":")))
    assert not accepts(json.dumps({"body": "x" * 65536, "meta": meta}, separators=(",", ":")))
