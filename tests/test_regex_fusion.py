"""regex.fusion: `(?=X T)Y` over JSON strings becomes one automaton, with the language `re` gives.

Oracle: `re.fullmatch` on the same regex text, over JSON string texts with and without escapes,
of lengths around the bounds; the fused tree is also checked to be fused (a "dfa" node, no
lookaround left where none needs to be) so a regression to the slow path shows.
"""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest

from tokenguide import Guide
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.text import STRING, STRING_CHAR, rep, string_intersection, value_intersection
from tokenguide.regex import compile_regex
from tokenguide.regex import parser as regex_parser
from tokenguide.regex.dfa import char_automaton
from tokenguide.regex.fusion import fuse_string_lookaheads
from tokenguide.regex.lazy import LazyByteDFA, lazy_regex


def quoted(body: str) -> str:
    return f'"(?:{body})"'


def fused(pattern: str) -> tuple:
    tree = regex_parser.parse(pattern)
    return fuse_string_lookaheads(tree, lambda sub: char_automaton(sub), 100_000)


def kinds(tree: tuple) -> set[str]:
    out, stack = set(), [tree]
    while stack:
        n = stack.pop()
        out.add(n[0])
        if n[0] in ("seq", "alt"):
            stack.extend(n[1])
        elif n[0] == "rep":
            stack.append(n[1])
        elif n[0] == "look":
            stack.append(n[2])
    return out


def texts(seed: int, n: int) -> list[str]:
    """JSON string texts (quotes included), raw and escaped characters, lengths 0..9, and some
    texts that are no single string token (two tokens, an open one, a trailing character)."""
    rnd = random.Random(seed)
    pieces = ["a", "b", "@", ".", "-", "é", "日", "\\\"", "\\\\", "\\n", "\\u00e9", " ", "1"]
    out = ['""', '"a"', '"ab"', '"abc"', '"a@b.c"']
    for _ in range(n):
        body = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 9)))
        out.append(f'"{body}"')
    out += ['"a""b"', '"a', 'a"', '"a"x', '"a",', '"\\"', '"a\\"b"']
    return out


LENGTH = quoted(rep(STRING_CHAR, 2, 4))
BODIES = [quoted("[a-z]+@[a-z]+(?:\\.[a-z]+)*"), quoted("(?:[ab]|\\\\\"|é)*"), quoted('a[^"\\\\]*'), STRING,
          quoted("(?:[^\"\\\\]|\\\\u00e9)+")]


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("make", [string_intersection, value_intersection], ids=["string", "value"])
def test_fused_intersections_match_re(body, make):
    """The automaton of `(?=LENGTH)BODY` (and with VALUE_END after LENGTH) accepts exactly what
    re.fullmatch does, alone and followed by a delimiter or other text; and it was fused."""
    pattern = make(body, LENGTH)
    tree = fused(pattern)
    assert "dfa" in kinds(tree)
    assert ("look" in kinds(tree)) == (make is value_intersection)  # only VALUE_END is left
    for wrapped in (pattern, f"{pattern}(?:,|\\]|x)?", f"\\[{pattern}(?:,{pattern})*\\]"):
        dfa, rx = compile_regex(wrapped), re.compile(wrapped)
        cases = texts(len(wrapped), 150)
        cases += [f"{a}{s}" for a, s in itertools.product(cases[:20], ["", ",", "]", "x"])]
        cases += [f"[{a},{b}]" for a, b in itertools.product(cases[:12], repeat=2)]
        for s in cases:
            assert dfa.accepts(s.encode()) == (rx.fullmatch(s) is not None), (wrapped, s)


def test_lookaheads_that_are_not_over_strings_stay():
    """A lookahead whose body or follower is not a complete string token stays a lookahead, and
    the language is still re's."""
    stay = ('(?="a)"ab"', '(?=[a-z]+)abc', '(?="a.*")"ab"', '(?="a+)"a*"(?:x)?', '(?=a"a")"a"')
    fuse = ('(?="a"b)"a"b', '(?="a")"a"x', '(?="a+")"a*"(?:x)?')  # T after X: kept as (?=T)
    for pattern in stay + fuse:
        assert ("dfa" in kinds(fused(pattern))) == (pattern in fuse), pattern
        dfa, rx = compile_regex(pattern), re.compile(pattern)
        for s in ['"a"', '"ab"', 'abc', '"a"b', '"aa"', '"a"x', '""', '"a"bx', '"aaa"x']:
            assert dfa.accepts(s.encode()) == (rx.fullmatch(s) is not None), (pattern, s)


def test_nested_intersections_fuse_one_after_the_other():
    """Two checks on one string (pattern and length, as constrained_string writes them): both
    lookaheads fused, the language re's."""
    inner = string_intersection(quoted("[a-c]+"), quoted('a[^"\\\\]*'))
    pattern = string_intersection(inner, LENGTH)
    tree = fused(pattern)
    assert "look" not in kinds(tree) and "dfa" in kinds(tree)
    dfa, rx = compile_regex(pattern), re.compile(pattern)
    for s in texts(3, 300) + ['"ab"', '"abc"', '"abcc"', '"abccc"', '"ba"', '"a"']:
        assert dfa.accepts(s.encode()) == (rx.fullmatch(s) is not None), s


def test_a_fused_regex_without_lookarounds_left_is_built_lazily():
    """lazy_regex fuses first: a string intersection leaves no lookaround, so the automaton is
    built lazily (LazyByteDFA), states only as they are reached."""
    pattern = "\\{\"e\":" + string_intersection(quoted("[a-z]+@[a-z]+"), quoted(rep(STRING_CHAR, 0, 300))) + "\\}"
    auto = lazy_regex(pattern)
    assert isinstance(auto, LazyByteDFA)
    rx = re.compile(pattern)
    for s in ['{"e":"a@b"}', '{"e":"' + "a" * 296 + '@b"}', '{"e":"' + "a" * 297 + '@b"}', '{"e":"a@"}', '{"e":"@b"}']:
        assert auto.accepts(s.encode()) == (rx.fullmatch(s) is not None), s[:20]


def test_email_with_a_long_max_length_compiles_and_guides(gpt2_vocabulary):
    """format email with maxLength 1024 (Github_easy o9778's shape): over 100,000 states through
    the lookahead before, now its minimal product; a guide walks a valid document and refuses
    a string one character too long, as jsonschema's length rule says."""
    schema = {"type": "object", "properties": {"email": {"type": "string", "format": "email", "maxLength": 64}},
              "required": ["email"], "additionalProperties": False}
    big = {**schema, "properties": {"email": {"type": "string", "format": "email", "maxLength": 1024}}}
    assert compile_regex(compile_json_schema(big).regex).num_states > 20_000
    compiled = compile_json_schema(schema)
    rx = re.compile(compiled.regex)
    guide = Guide.from_json_schema(schema, gpt2_vocabulary)
    for local, ok in (("a" * 10, True), ("a" * 59, True), ("a" * 60, False), ("", False)):
        text = json.dumps({"email": f"{local}@b.co"}, separators=(",", ":"))
        assert (rx.fullmatch(text) is not None) == ok, len(local)
        guide.reset()
        accepted = True
        for ch in text.encode():  # one byte at a time: GPT-2 has a token for every byte
            tid = gpt2_vocabulary.tokens[bytes([ch])][0]
            if tid not in set(guide.get_tokens()):
                accepted = False
                break
            guide.advance(tid, return_tokens=False)
        assert (accepted and guide.is_finished()) == ok, len(local)


def test_fusion_keeps_the_automaton_canonical():
    """The same language gives the same minimal automaton whether fused or not (small bound:
    the lookahead path can build it too)."""
    a = compile_regex(value_intersection(quoted("[ab]+"), LENGTH))
    b = compile_regex(quoted("[ab]{2,4}"))
    assert (a.table, a.finals, a.classes) == (b.table, b.finals, b.classes)


def test_deeply_nested_regexes_keep_their_lookaheads():
    """The rewrite recurses along group nesting: past its depth bound the tree is left as it is
    (no RecursionError), and the language is the same either way."""
    inner = string_intersection(quoted("[ab]+"), LENGTH)

    def nest(depth: int) -> str:
        pattern = inner
        for k in range(depth):  # alternations keep their nesting in the tree
            pattern = f"(?:{pattern}|z{k % 10})"
        return pattern

    assert "look" in kinds(fused(nest(600))) and "look" not in kinds(fused(nest(20)))
    rx = re.compile(inner)
    for depth in (20, 600):
        dfa = compile_regex(nest(depth))
        for s in ['"ab"', '"abab"', '"ababa"', '"a"', "z3", "z9", "z", '"ab"z1']:
            want = rx.fullmatch(s) is not None or s in {f"z{k}" for k in range(min(depth, 10))}
            assert dfa.accepts(s.encode()) == want, (depth, s)
