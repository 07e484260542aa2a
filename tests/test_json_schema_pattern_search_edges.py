"""A searched `pattern` (no `^` or no `$`) whose edge is a counted repeat: the free text before
or after the match absorbs any repeat past the minimum, so the pattern is written with the
minimum (patterns.py `_search_edges`). AWS writes such bounds into unanchored ARN patterns
(`arn:[a-z0-9-.]{1,63}:...:[^/].{0,1023}`); written whole, their automata passed the grammar
path's limits. Judged against jsonschema (Python's re reads these patterns as ECMA-262 does for
the characters used: no `\\r`, U+2028 or U+2029) on strings built to sit on both sides."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest
from grammar_oracle import acceptor
from test_json_schema_pattern_lookahead import pattern_agrees_with_jsonschema

from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.patterns import pattern_to_string_body

PATTERNS = [
    "[a-z]{2,40}x",  # front: as `[a-z]{2}x`
    "x[a-z]{0,40}",  # back: the repeat may go entirely
    "(a[b:]{1,30})",  # a group at both edges is opened
    "[ab]{1,50}:[ab]{2,60}",
    "^(^$)|([\\u0009\\u000A\\u000D\\u0020-\\u00FF]{1,1023}/$)$",  # AWS Lookout Prefix
    "arn:[a-z0-9-\\.]{1,63}:[a-z0-9-\\.]{0,63}:[^/].{0,1023}",
    "b{3,9}?a",  # lazy repeats read alike
    "^a{2,5}",  # anchored front, free back: `^a{2}`
    "ba{2,5}$",  # anchored back, a literal at the front: the bound stays
]
ALPHABET = ["a", "b", "x", "y", ":", "/", "-", ".", "arn:", "é", "\n", "\t", '"', "\\"]


def _strings(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out = ["", "a", "ab", "abx", "x", "xa", "bbb", "bbba", "aa", "aaaaaa", "a:bb", "a:b", "b:bb", "/",
           "q/", "arn:a::x", "arn:a:b:/", "arn:a::xy", "aaaaaaaaaa", "baa", "xbaaa", "baaaaaa"]
    for _ in range(n):
        out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 9))))
    # (Python's `$` also matches before a final newline, ECMA-262's does not: no string ends with one)
    return [s + "a" if s.endswith("\n") else s for s in out]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_searched_pattern_with_counted_edges_agrees_with_jsonschema(pattern):
    pattern_agrees_with_jsonschema(pattern, "regex", _strings(PATTERNS.index(pattern), 300))


def test_long_counted_runs_at_a_search_edge_are_written_with_their_minimum():
    assert pattern_to_string_body("[a-z]{2,40}x").count("{2}") == 1
    assert "{" not in pattern_to_string_body("x[a-z]{0,40}")  # the run is gone
    assert "1023" not in pattern_to_string_body(PATTERNS[4])
    arn = pattern_to_string_body(PATTERNS[5])
    assert "1023" not in arn and "{1,63}" in arn and "{0,63}" in arn  # the inner runs stay
    # both edges are free in `^a{2,5}` only at its back: the back repeat gives way
    assert "{2}" in pattern_to_string_body("^a{2,5}")
    # anchored edges, or an edge that is not a repeat, keep their bounds
    assert "{2,5}" in pattern_to_string_body("^a{2,5}b") and "{2,5}" in pattern_to_string_body("ba{2,5}$")


def test_an_unanchored_arn_pattern_fits_the_grammar_path_in_a_recursive_schema():
    # before, the 1,023-fold `.` (any JSON string character, escapes included) made a lexeme
    # over the grammar path's limits and the schema fell back to the depth-capped regex path
    arn = PATTERNS[5]
    schema = {"$defs": {"node": {"type": "object", "additionalProperties": False, "properties": {
        "arn": {"type": "string", "pattern": arn, "maxLength": 2048},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine"
    accepts = acceptor(compiled)
    oracle = jsonschema.Draft202012Validator(schema)
    deep: dict = {"arn": "arn:aws::x"}
    for _ in range(30):
        deep = {"kids": [deep, {"arn": "zarn:a:b:c:d"}]}
    docs = [deep, {"arn": "arn:aws::/"}, {"arn": "arn::x"}, {"arn": "arn:a:b:" + "q" * 1500},
            {"kids": [{"arn": "arn:" + "a" * 64 + "::x"}]}, {"kids": [{"arn": "xx"}]}]
    for doc in docs:
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        assert accepts(text) == oracle.is_valid(doc), text
    assert {oracle.is_valid(d) for d in docs} == {True, False}
