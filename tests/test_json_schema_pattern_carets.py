"""`pattern` with a `^` inside it (patterns.py `_caret_free`): in a search, a `^` holds only
where the match starts the string, so the pattern is a match there (each such `^` read as
nothing) or one after some character, where every `^` fails. AWS Route 53 and Lambda write
`(?!^[0-9]+$)([a-zA-Z0-9-_]+)`: "not all digits". A `^` read after a character of the match
never holds (AWS's `.../placement-group/^.{1,255}$`). Judged against jsonschema (Python's re
reads `^` as ECMA-262 does without the m flag) on both paths; a `^` that may or may not come
after a character (in a repeat, after an optional item) stays refused by name."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest
from test_json_schema_pattern_lookahead import pattern_agrees_with_jsonschema

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema

PATTERNS = [
    "(?!^[0-9]+$)([a-zA-Z0-9-_' ']+)",  # Route 53 firewall domain lists
    "((?!^[0-9]+$)([a-zA-Z0-9-_]+))",  # Lambda URL qualifiers
    "(^a|b)c",
    "(?:^|/)ab",
    "^x|(?!^y)z",
    "(?:a|b^)c",  # `b^` never holds: only `ac`
    "(?=^a)b?",  # a positive lookahead at the start pins the match there
    # with a `$` alternative at the end, the pattern splits into two searches sharing the caret's
    # group: reading one's carets changed the other's in place (it accepted `x5xab-`)
    "(?:^|-)ab(?:$|-)",
    "(?:^|/)[0-9](?:$|/)",
]
ALPHABET = ["a", "b", "c", "0", "9", "x", "y", "z", "/", "-", "_", " ", "'", "é", "\n"]


def _strings(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out = ["", "0", "123", "12a", "a12", "ac", "bc", "xac", "ab", "/ab", "x/ab", "xab", "x", "yz", "z", "xz", "y",
           "bc", "abc", "b", "ba", "-", "9-"]
    out += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))) for _ in range(n)]
    return [s + "a" if s.endswith("\n") else s for s in out]  # (re's `$` also holds before a final newline)


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("path", ["regex", "engine"])
def test_a_caret_inside_a_search_agrees_with_jsonschema(pattern, path):
    pattern_agrees_with_jsonschema(pattern, path, _strings(PATTERNS.index(pattern), 200))


@pytest.mark.parametrize("path", ["regex", "engine"])
def test_a_caret_after_a_character_of_the_match_never_holds(path):
    """AWS EC2 capacity reservations: `...:placement-group/^.{1,255}$` matches no string, so the
    member is valid only when absent."""
    schema = {"type": "object", "properties": {
        "arn": {"type": "string", "pattern": "^arn:aws:ec2:[a-z]+:placement-group/^.{1,255}$"}, "n": {"type": "integer"}}}
    compiled = compile_json_schema(schema, path=path)
    oracle = jsonschema.Draft202012Validator(schema)
    for doc in ('{}', '{"n":1}', '{"arn":"arn:aws:ec2:x:placement-group/^a"}', '{"arn":"arn:aws:ec2:x:placement-group/a"}'):
        assert compiled.accepts(doc) == oracle.is_valid(json.loads(doc)), doc


@pytest.mark.parametrize("pattern", ["(a|^)+b", "a?^b", "^(a?^b)", "(^)*b"])
def test_a_caret_that_may_follow_a_character_or_not_is_refused_by_name(pattern):
    for path in ("regex", "engine"):
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema({"type": "string", "pattern": pattern}, path=path)
        assert info.value.keyword == "pattern" and "anchor" in str(info.value)


@pytest.mark.parametrize("schema", [
    {"type": "string", "pattern": "^([+-]?\\d{4})((-?)(0[1-9]|1[0-2])\\3(0[1-9]|[12]\\d))?$"},  # AWS ISO 8601 dates
    {"type": "string", "pattern": "^(a|b)c{0,50}\\1$", "maxLength": 10},  # (and where repeats are loosened)
])
def test_a_backreference_in_an_anchored_pattern_is_refused_by_name(schema):
    """Reading an anchored pattern's widths met the backreference before its refusal (re looks
    the group's width up in a parser state): an IndexError out of compile_json_schema."""
    for path in ("regex", "engine"):
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema(schema, path=path)
        assert info.value.keyword == "pattern" and "not regular" in str(info.value)
