"""`pattern` with ECMA-262 lookaheads, `(?=...)` and `(?!...)` (AWS CloudFormation's tag keys
`^(?!aws:)...`, "no two dots" `^(?!.*\\.\\.)`, the tempered token `((?!ab).)*`): a lookahead is
regular, so both paths write it exactly, the regex path as a lookahead over the serialized
string content, the engine path as the automaton of the string (a lexeme; for a key, a
lookahead-free regex). Judged against jsonschema (Python's re reads these patterns as ECMA-262
does) on strings built to hit both sides, escapes and line terminators included."""

from __future__ import annotations

import itertools
import json
import random

import jsonschema
import pytest
from grammar_oracle import acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.patterns import ecma_search, pattern_complement

PATTERNS = [
    "^(?!aws:)[a-zA-Z+-=._:/]+$",
    # literal prefixes refused before a counted class: written without a lookahead (_unprefixed)
    "^(?!aws:)(?!ab)[a-z:\\n]{1,5}$",
    "^(?!aws:.*)[a-zA-Z0-9\\s:\"]{0,130}$",
    "^(?!.*\\.\\.)[a-z.]+$",
    "^((?!ab).)*$",
    "(?=x$)",
    "^a(?=b)",
    "^(?!\\s)(?!.*\\s$).+$",
    "(?!a)b",
    "^(?=.*[0-9])(?=.*[a-z]).{3,}$",
    "^(?!(?:x|y\"))",
    "a(?!$)",
]
ALPHABET = ["a", "b", "x", "y", "0", ".", ":", " ", "\n", '"', "\\", "aws:", "é"]


def _strings(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out = ["", "aws:", "aws:x", "ab", "a.b", "a..b", " a", "a ", "x", "b", "ab1", "a1b2", 'y"', "a\n"]
    for _ in range(n):
        out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))))
    # (Python's `$` also matches before a final newline, ECMA-262's does not: no string ends with one)
    return [s + "a" if s.endswith("\n") else s for s in out]


def pattern_agrees_with_jsonschema(pattern: str, path: str, strings: list[str]) -> None:
    """`{"type": "string", "pattern": pattern}` compiled on `path` accepts exactly the strings
    jsonschema does (so does `ecma_search`), and `strings` meet both verdicts."""
    schema = {"type": "string", "pattern": pattern}
    oracle = jsonschema.Draft202012Validator(schema)
    accepts = acceptor(compile_json_schema(schema, path=path))
    verdicts = set()
    for s in strings:
        verdicts.add(oracle.is_valid(s))
        assert accepts(json.dumps(s, ensure_ascii=False)) == oracle.is_valid(s), s
        assert ecma_search(pattern, s) == oracle.is_valid(s), s
    assert verdicts == {True, False}


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("path", ["regex", "engine"])
def test_a_pattern_with_a_lookahead_agrees_with_jsonschema(pattern, path):
    pattern_agrees_with_jsonschema(pattern, path, _strings(PATTERNS.index(pattern), 150))


@pytest.mark.parametrize("path", ["regex", "engine"])
@pytest.mark.parametrize("extra", [False, {"type": "string"}])
def test_pattern_properties_with_a_lookahead_agree_with_jsonschema(path, extra):
    schema = {"type": "object", "properties": {"aws:name": {"type": "boolean"}},
              "patternProperties": {"^(?!aws:)[a-z:]+$": {"type": "integer"}}, "additionalProperties": extra}
    oracle = jsonschema.Draft202012Validator(schema)
    accepts = acceptor(compile_json_schema(schema, path=path))
    keys = ["ab", "aws:x", "aws:name", "b:c", "AWS", "a b", "aws"]
    values = [1, "s", True]
    docs = [{}] + [{k: v} for k in keys for v in values] + \
        [{k1: v1, k2: v2} for (k1, v1), (k2, v2) in itertools.combinations(itertools.product(keys[:4], values[:2]), 2)
         if k1 != k2]
    verdicts = set()
    for doc in docs:
        verdicts.add(oracle.is_valid(doc))
        assert accepts(json.dumps(doc, separators=(",", ":"))) == oracle.is_valid(doc), doc
    assert verdicts == {True, False}


def test_a_pattern_of_lookaheads_alone_is_not_taken_for_one_every_string_matches():
    """An empty match of `(?=x)` needs an `x` after it: not every string has one (a pattern of
    width 0 without anchors was taken to match every string)."""
    assert pattern_complement("(?=x)") is False
    assert pattern_complement("x*") is None
    schema = {"type": "object", "patternProperties": {"(?=x)": {"type": "integer"}}, "additionalProperties": False}
    oracle = jsonschema.Draft202012Validator(schema)
    for path in ("regex", "engine"):
        accepts = acceptor(compile_json_schema(schema, path=path))
        for doc in ({}, {"ax": 1}, {"ab": 1}, {"x": "s"}):
            assert accepts(json.dumps(doc, separators=(",", ":"))) == oracle.is_valid(doc), (path, doc)


def test_refused_literal_prefixes_before_a_class_are_written_without_a_lookahead():
    from tokenguide.json_schema.patterns import pattern_to_string_body
    from tokenguide.json_schema.text import has_lookahead

    for pattern in ("^(?!aws:)[a-z:]{1,128}$", "^(?!aws:.*)(?!memorydb:)[a-z:]*$", PATTERNS[2]):
        assert not has_lookahead(pattern_to_string_body(pattern)), pattern
    assert has_lookahead(pattern_to_string_body("^(?!a.b)[a-z.]{1,9}$"))  # (a `.` inside: as before)
    # as patternProperties keys of a recursive schema (the grammar path: keys are terminals)
    schema = {"$ref": "#/$defs/t", "$defs": {"t": {"type": "object", "additionalProperties": False,
              "patternProperties": {"^(?!aws:)[a-zA-Z0-9\\s+\\-=._:/@]{1,128}$": {"$ref": "#/$defs/t"}}}}}
    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    oracle = jsonschema.Draft202012Validator(schema)
    docs = [{}, {"a": {}}, {"aws:x": {}}, {"aws": {"aw": {}}}, {"x" * 128: {}}, {"x" * 129: {}}, {"a\tb": {"": {}}},
            {"awsx:": {"b": {"aws:": {}}}}, {"é": {}}]
    for doc in docs:
        assert accepts(json.dumps(doc, ensure_ascii=False, separators=(",", ":"))) == oracle.is_valid(doc), doc
    assert {oracle.is_valid(d) for d in docs} == {True, False}


@pytest.mark.parametrize("pattern", ["(?<=a)b", "(?<!a)b", "(?=(a))\\1"])
def test_lookbehinds_and_backreferences_stay_refused_by_name(pattern):
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema({"type": "object", "properties": {"p": {"type": "string", "pattern": pattern}}})
    assert (info.value.keyword, info.value.pointer) == ("pattern", "#/properties/p/pattern")


# Patterns of AWS CloudFormation's resource schemas that were refused: `$` inside a group, a
# lookbehind before the final `$`, `(?s)` (re's reading: `.` takes every character), and a
# surrogate pair escape (one code point, as in ECMA-262's `u` mode). The oracle is re, with `$`
# as `\Z` (ECMA's end of input) and the pair as the code point it spells.
READINGS = {
    "^app-([0-9a]{2}$)": "^app-([0-9a]{2}\\Z)",
    "a(b$|c)": "a(b\\Z|c)",
    # a `^` that only zero-width items come before, in a start-anchored pattern, always holds
    "^(^arn:[a-z]+)$": "^(^arn:[a-z]+)\\Z",
    "^(?=^[a-z0-9-]+$).{3,5}$": "^(?=^[a-z0-9-]+\\Z).{3,5}\\Z",
    "^(^a|b)": "^(^a|b)",
    "(?s).*x": "(?s).*x",
    "^(?s:a.b)$": "^(?s:a.b)\\Z",
    "^(?s).+x$": "(?s)^.+x\\Z",
    "^[0-9a-z\\.\\-]*(?<!\\.)$": "^[0-9a-z\\.\\-]*(?<!\\.)\\Z",
    "^[a-z]*(?<=ab)$": "^[a-z]*(?<=ab)\\Z",
    # a search that a `^` pins to the start before any character is read (AWS)
    # (ECMA's `.` stops at \r, re's does not: the reading spells it out)
    "(?=^.{2,4}$)(?!^[0-9.]+$)(^([a-z0-9.]|-)*$)":
        "(?=^[^\\n\\r\\u2028\\u2029]{2,4}\\Z)(?!^[0-9.]+\\Z)(^([a-z0-9.]|-)*\\Z)",
    "^(^ab:[a-z]$)|(^b[a-z]*$)$": "^(^ab:[a-z]\\Z)|(^b[a-z]*\\Z)\\Z",
    "(^a|^b)[^a]": "(^a|^b)[^a]",
    "^[\\u0020-\\uD7FF\\uE000-\\uFFFD\\uD800\\uDC00-\\uDBFF\\uDFFF\\r\\n\\t]*$":
        "^[\\u0020-\\uD7FF\\uE000-\\uFFFD\\U00010000-\\U0010FFFF\\r\\n\\t]*\\Z",
}


@pytest.mark.parametrize("pattern", sorted(READINGS))
@pytest.mark.parametrize("path", ["regex", "engine"])
def test_anchors_lookbehinds_dotall_and_surrogate_pairs_agree_with_re(pattern, path):
    import re

    oracle = re.compile(READINGS[pattern])
    accepts = acceptor(compile_json_schema({"type": "string", "pattern": pattern}, path=path))
    rng = random.Random(len(pattern))
    chars = ["a", "b", "ab", "x", "arn:", "0", ".", "-", "\n", "\r", "😀", "\ufffe", "\u0001", "Z"]
    verdicts = set()
    for _ in range(300):
        s = ("app-" if pattern.startswith("^app") else "") + "".join(rng.choice(chars) for _ in range(rng.randint(0, 5)))
        verdicts.add(oracle.search(s) is not None)
        assert accepts(json.dumps(s, ensure_ascii=False)) == (oracle.search(s) is not None), s
        assert ecma_search(pattern, s) == (oracle.search(s) is not None), s
    assert verdicts == {True, False}


@pytest.mark.parametrize("pattern", ["^a(?<=ab)b", "^a?^b", "(?i)a", "a(?s).+$", "(?!^a)^?b"])
def test_other_anchors_and_flags_stay_refused_by_name(pattern):
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema({"type": "string", "pattern": pattern})
    assert (info.value.keyword, info.value.pointer) == ("pattern", "#/pattern")

