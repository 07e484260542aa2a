"""Ambiguous readings never multiply: the engine joins the rows begun at one place of the text.

An ambiguous grammar has many readings of a text (exponentially many for `w: "a" | "aa"`), and
a value lexeme with holes once had a reading per character; the engine keeps one Earley set per
place (the rows lexemes ending at the same byte begin are one row), so the pairs alive after
each byte stay few. Checked structurally (pairs per byte), and the language against Lark's
Earley parser and jsonschema.
"""

from __future__ import annotations

import itertools
import json

import jsonschema
import lark
import pytest

from tokenguide.engine import Matcher
from tokenguide.grammars.lark_reader import read_lark
from tokenguide.json_schema import compile_json_schema
from tokenguide.vocabulary import Vocabulary

BYTES = Vocabulary(256, {bytes((b,)): b for b in range(256)})
MOST_PAIRS = 16  # far above what a joined reading needs, far below what multiplied readings reach


def walk(matcher: Matcher, data: bytes) -> tuple:
    """The pairs after `data`, checking after every byte that few are alive."""
    pairs = matcher.initial_state.pairs
    for i, b in enumerate(data):
        pairs = matcher.step_pairs(pairs, b)
        assert len(pairs) <= MOST_PAIRS, f"{len(pairs)} readings alive after {data[:i + 1]!r}"
        if not pairs:
            break
    return pairs


AMBIGUOUS = [
    'start: w+\nw: "a" | "aa"\n',
    'start: w+\nw: A | B\nA: /a+/\nB: /a/\n',
    'start: e\ne: e "+" e | "x" | "(" e ")"\n',
    'start: x*\nx: "ab" | "a" | "b" | y\ny: "a" "b"\n',
]


@pytest.mark.parametrize("text", AMBIGUOUS)
def test_ambiguous_grammar_language_with_few_readings(text):
    matcher = Matcher(read_lark(text), BYTES)
    oracle = lark.Lark(text, parser="earley", lexer="dynamic")
    alphabet = sorted(set("".join(c for c in text if c in "abx+()")))
    for n in range(0, 7):
        for chars in itertools.product(alphabet, repeat=n):
            s = "".join(chars)
            try:
                oracle.parse(s)
                expected = True
            except lark.exceptions.LarkError:
                expected = False
            walk(matcher, s.encode())
            assert matcher.accepts_bytes(s.encode()) == expected, (text, s)


def test_long_ambiguous_text_stays_linear():
    matcher = Matcher(read_lark(AMBIGUOUS[0]), BYTES)
    assert walk(matcher, b"a" * 400)
    assert matcher.accepts_bytes(b"a" * 400)
    nested = Matcher(read_lark(AMBIGUOUS[2]), BYTES)
    text = "+".join(["(x+x)"] * 40).encode()
    assert walk(nested, text)
    assert nested.accepts_bytes(text)


# Snowplow's igluctl actions (sp_209): an array of anyOf objects whose members have an
# overlapping oneOf, written as a value lexeme with holes; reading four items took minutes
ACTIONS = {
    "type": ["array", "null"],
    "items": {"type": "object", "anyOf": [
        {"type": "object", "required": ["action", "registry", "isPublic", "apikey"], "properties": {
            "action": {"enum": ["push"], "type": "string"},
            "apikey": {"oneOf": [{"format": "uuid"}, {"pattern": "^\\$[A-Z0-9-_]+"}]},
            "isPublic": {"type": "boolean"},
            "registry": {"type": "string"}}},
        {"type": "object", "required": ["action", "uploadFormat", "bucketPath", "profile", "region"], "properties": {
            "action": {"enum": ["s3cp"], "type": "string"},
            "bucketPath": {"pattern": "^s3://", "type": "string"},
            "profile": {"type": ["string", "null"]},
            "region": {"type": ["string", "null"]},
            "uploadFormat": {"enum": ["jsonpath", "jsonschema"], "type": "string"}}},
    ]},
}
PUSH = {"action": "push", "apikey": "123e4567-e89b-12d3-a456-426614174000", "isPublic": False,
        "registry": "http://registry.example.com"}
COPY = {"action": "s3cp", "bucketPath": "s3://my-bucket/my-path", "profile": None, "region": "us-east-1",
        "uploadFormat": "jsonpath"}


def test_value_lexeme_with_holes_reads_each_text_once():
    compiled = compile_json_schema(ACTIONS)
    assert compiled.path == "engine"
    matcher = Matcher(compiled.engine, BYTES)
    validator = jsonschema.Draft202012Validator(ACTIONS, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    cases = [
        [PUSH, COPY] * 4,
        [COPY, PUSH, PUSH],
        [dict(PUSH, apikey="$KEY-1")],
        [dict(PUSH, apikey="not a key")],
        [dict(COPY, bucketPath="gs://b")],
        [dict(COPY, uploadFormat="csv"), PUSH],
        [dict(PUSH, action="s3cp")],
        None,
        [],
    ]
    for doc in cases:
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        walk(matcher, text.encode())
        assert compiled.accepts(text) == validator.is_valid(doc), text
