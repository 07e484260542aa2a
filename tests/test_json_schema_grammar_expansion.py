"""Schemas the grammar path once refused for size (Lark expands optional parts inline, so
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
    if depth == 0:
        return rnd.choice(LEAVES)
    inner = _deep(rnd, depth - 1)
    return [inner] if rnd.random() < 0.5 else {rnd.choice(KEYS): inner}


def _instances(seed: int, n: int) -> list:
    """`n` random values over the schemas' keys and leaves, some with free-form values 5-7 deep."""
    rnd = random.Random(seed)

    def gen(depth: int):
        r = rnd.random()
        if depth > 3 or r < 0.3:
            return rnd.choice(LEAVES)
        if r < 0.36:
            return _deep(rnd, rnd.randint(5, 7))
        if r < 0.42:
            return [gen(depth + 1) for _ in range(rnd.randint(0, 2))]
        return {rnd.choice(KEYS): gen(depth + 1) for _ in range(rnd.randint(0, 3))}

    return [gen(0) for _ in range(n)]


def _depth(x) -> int:
    """How many arrays/objects deep `x` nests."""
    if isinstance(x, dict):
        return 1 + max(map(_depth, x.values()), default=0)
    if isinstance(x, list):
        return 1 + max(map(_depth, x), default=0)
    return 0


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_nested_open_objects_take_the_exact_grammar_path(name):
    """Refused before ("a rule would expand into more than 600 alternatives"), so "auto" fell
    back to the depth-capped regex."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a depth-capped fallback warns
        compiled = compile_json_schema(SCHEMAS[name])
    assert compiled.path == "grammar" and not compiled.depth_capped
    assert compile_json_schema(SCHEMAS[name], path="grammar").grammar == compiled.grammar


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_member_rules_agree_with_jsonschema_and_the_regex_path(name):
    schema = SCHEMAS[name]
    accepts = acceptor(compile_json_schema(schema, path="grammar"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    instances = _instances(sorted(SCHEMAS).index(name), 400)
    valid = [x for x in instances if validator.is_valid(x)]
    assert len(valid) >= 40 and sum(_depth(x) >= 6 for x in valid) >= 5  # the sample tests something
    wrong = [x for x in instances if validator.is_valid(x) != any(accepts(t) for t in spellings(x))]
    assert wrong == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # depth-capped
        regex = re.compile(compile_json_schema(schema, path="regex").regex)
    for x in instances:
        for text in spellings(x):
            by_regex = regex.fullmatch(text) is not None
            if by_regex or _depth(x) <= 2:  # deeper, the capped regex may reject a valid instance
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
