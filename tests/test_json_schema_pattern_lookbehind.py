"""`pattern` with a one-character lookbehind inside it (`(?<!-)`, `(?<=c)`): a condition on the
last character the items before it match, written into them (patterns.py `_behind`): AWS's
"no hyphen at the end of a label" `((?!-)[A-Za-z0-9-]{1,63}(?<!-)\\.)+` and FSx's
`[a-z0-9].*(?<!-):`. Judged against jsonschema (Python's re reads these lookbehinds as
ECMA-262 does) on both paths, on strings built to hit both sides, escapes included; longer
lookbehinds before the end, and ones that may look before their group, stay refused by name."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest
from grammar_oracle import acceptor
from test_json_schema_pattern_lookahead import pattern_agrees_with_jsonschema

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema

PATTERNS = [
    "^([a-z0-9-]{1,5}(?<!-)\\.)+$",
    "^(?:(?!-)[a-z0-9-]{1,4}(?<!-)\\.)+com$",
    "^a.*(?<!-):",  # a free repeat before it: its last repetition or nothing
    "^(ab|a-|b)(?<=b)x",  # alternatives: the ones ending in b
    "^x-*(?<!-)y",  # a repeat that may be empty: then the `x` before it is the character
    "^(a(?=b)|b)(?<!a)",  # a lookahead between: the character is further back
    '^[a"\\\\]+(?<=")$',  # serialized content: `\\"` is one character
    "^q(?<=[^a-z])",  # no match is possible: the pattern accepts no string
]
ALPHABET = ["a", "b", "x", "y", "-", ".", ":", "com", "a.", '"', "\\", "\n", "é", "q"]


def _strings(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out = ["", "a.", "a-.", "ab-.a.", "ab.com", "-a.com", "a-.com", "a:", "a-:", "a:-", "abx", "a-x", "bx",
           "xy", "x-y", "x--y", "ab", "b", 'a"', 'a"a', '\\"', "a\\"]
    for _ in range(n):
        out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 7))))
    return [s + "a" if s.endswith("\n") else s for s in out]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("path", ["regex", "engine"])
def test_a_one_character_lookbehind_agrees_with_jsonschema(pattern, path):
    schema = {"type": "string", "pattern": pattern}
    oracle = jsonschema.Draft202012Validator(schema)
    empty = pattern == PATTERNS[-1]
    if empty:  # (the schema accepts no value)
        with pytest.raises(UnsupportedSchemaError):
            compile_json_schema(schema, path=path)
        assert not any(oracle.is_valid(s) for s in _strings(0, 100))
        return
    pattern_agrees_with_jsonschema(pattern, path, _strings(PATTERNS.index(pattern), 400))


def test_an_aws_jdbc_url_pattern_agrees_with_jsonschema():
    pattern = ("^jdbc:(redshift|postgresql)://((?!-)[A-Za-z0-9-]{1,63}(?<!-)\\.)+(redshift(-serverless)?)\\."
               "([a-zA-Z0-9\\.\\-]+):\\d{1,5}/[a-zA-Z0-9_$-]+$")
    schema = {"type": "object", "properties": {"url": {"type": "string", "pattern": pattern}}}
    oracle = jsonschema.Draft202012Validator(schema)
    with pytest.raises(UnsupportedSchemaError, match="lookahead"):  # (under an unbounded repeat)
        compile_json_schema(schema, path="engine")
    for path in ("regex", "auto"):  # auto: the regex path, where the engine path refuses
        accepts = acceptor(compile_json_schema(schema, path=path))
        for host in ("a", "a-b", "-a", "a-", "a.b", "a-.b", "x" * 63, "x" * 64):
            for tail in ("redshift.eu:5439/db", "redshift-serverless.x:1/d", "postgres.x:1/d"):
                doc = {"url": f"jdbc:redshift://{host}.{tail}"}
                assert accepts(json.dumps(doc, separators=(",", ":"))) == oracle.is_valid(doc), (path, doc)


@pytest.mark.parametrize("pattern, why", [
    ("^a(?<=ab)b", "more than one character"),
    ("(?<!a)b", "look before its group"),
    ("^a(b|(?<=a)c)", "look before its group"),
])
def test_other_lookbehinds_stay_refused_by_name(pattern, why):
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema({"type": "object", "properties": {"p": {"type": "string", "pattern": pattern}}})
    assert (info.value.keyword, info.value.pointer) == ("pattern", "#/properties/p/pattern")
    assert why in str(info.value)
