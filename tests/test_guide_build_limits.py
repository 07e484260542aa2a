"""Limits met while building a guide: deep group nesting, state limits (eager, lazy, mid-generation).

Deep nesting is parsed by re's own parser in slices (regex.sre.parse) and converted and built
without recursion, so nesting is no limit of the language; the oracle is re.fullmatch (with
Python's recursion limit raised for re itself when the pattern is deeper than re can parse).
"""

from __future__ import annotations

import json
import random
import re
import sys
import warnings
from contextlib import contextmanager

import pytest

from tokenguide.errors import RegexError, RegexNestingError
from tokenguide.guides.stateful import Guide
from tokenguide.json_schema import compile_json_schema
from tokenguide.regex import sre
from tokenguide.regex.dfa import compile_regex
from tokenguide.regex.lazy import lazy_regex
from tokenguide.regex.parser import MAX_GROUP_DEPTH


@contextmanager
def deep_re():
    """Let the oracle (re itself, which recurses per group level) parse deep patterns."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def texts_for(pattern: str, extra: list[str], seed: int = 0) -> list[str]:
    """Random strings over the pattern's own characters, plus `extra` (strings that match)."""
    rng = random.Random(seed)
    alphabet = sorted({c for c in pattern if c.isalnum() or c in "() #"}) + ["~"]
    out = ["", *extra]
    for text in extra:  # near misses: one character dropped, added or changed
        for _ in range(5):
            if text:
                i = rng.randrange(len(text))
                out += [text[:i] + text[i + 1 :], text[:i] + rng.choice(alphabet) + text[i:], text[:i] + "~" + text[i + 1 :]]
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(400)]
    return out


def assert_exact(pattern: str, texts: list[str]) -> None:
    """The eager and the lazy automaton accept exactly what re.fullmatch accepts, on `texts`."""
    with deep_re():
        rx = re.compile(pattern)
    eager, lazy = compile_regex(pattern), lazy_regex(pattern)
    hits = 0
    for text in texts:
        want = rx.fullmatch(text) is not None
        hits += want
        data = text.encode()
        assert eager.accepts(data) == want, (pattern[:80], text)
        assert lazy.accepts(data) == want, (pattern[:80], text)
    assert 0 < hits < len(texts)  # the sample holds both members and non-members


DEEP = 3 * sre.SLICE_DEPTH + 7  # several slices, far past the old limit of 100


@pytest.mark.parametrize(
    "pattern, members",
    [
        ("(" * DEEP + "a" + ")" * DEEP, ["a"]),
        ("".join(f"(?:x{i % 10}" for i in range(DEEP)) + "y" + ")?" * DEEP,
         ["".join(f"x{i % 10}" for i in range(k)) + "y" * (k == DEEP) for k in (0, 1, 5, 41, 80, DEEP)]),
        ("(?i:" + "(a|" * DEEP + "b" + ")" * DEEP + ")", ["a", "A", "b", "B"]),
        ("(?:" + "(?:q|" * 45 + "z" + ")" * 45 + ")+" + "(?=" * 120 + "w" + ")" * 120 + "w", ["zw", "qw", "zqzw"]),
        # groups at a slice boundary that re's parser merges into a class ("X|Y|c" -> [XYc])
        ("(?:" * (sre.SLICE_DEPTH - 1) + "(?:(a))|(b)|c|(?:de)" + ")" * (sre.SLICE_DEPTH - 1), ["a", "b", "c", "de"]),
        # verbose mode: whitespace and comments (which may hold parentheses) inside deep groups
        ("(?x: " + "( a # com(ment\n" * 90 + "b" + ")?" * 90 + ")", ["ab", "aab", "a" * 90 + "b", ""]),
        # brackets, escapes, comments and named groups do not open groups
        ("(?P<n1>" + "(" * 100 + r"[)(]\(" + ")" * 100 + ")(?#c(o)" + r"\)", ["(()", ")()"]),
    ],
)
def test_deep_nesting_is_exact(pattern, members):
    assert sre.outline(pattern).max_depth > sre.SLICE_DEPTH  # parsed in slices
    assert_exact(pattern, texts_for(pattern, members))


def test_nesting_deeper_than_re_itself_can_parse():
    """Past Python's own recursion limit (re raises RecursionError near 490 levels)."""
    depth = 2_000
    nested = "(?:x" * depth + ")?" * depth  # x{0,2000}
    with pytest.raises(RecursionError):
        re.compile(nested)
    eager = compile_regex(nested)
    flat = compile_regex(f"x{{0,{depth}}}")
    assert eager == flat
    for k in (0, 1, 999, depth, depth + 1):
        assert lazy_regex(nested).accepts(b"x" * k) == (k <= depth)


def test_pathological_nesting_is_a_named_error_at_its_position():
    deep = "a" + "(?:" * (MAX_GROUP_DEPTH + 1) + ")" * (MAX_GROUP_DEPTH + 1)
    with pytest.raises(RegexNestingError) as info:
        lazy_regex(deep)
    assert info.value.limit == MAX_GROUP_DEPTH and info.value.pos == 1 + 3 * MAX_GROUP_DEPTH
    assert f"nested more than {MAX_GROUP_DEPTH:,} deep; flatten the regex" in str(info.value)


@pytest.mark.parametrize(
    "pattern",
    [
        "(" * 130 + "a{3,1}" + ")" * 130,  # an error inside a slice
        "(" * 90 + "(?:b)*" * 3 + "x**" + ")" * 90,  # an error after inner slices
        "(" * 130 + "a" + ")" * 129,  # unclosed
        "(" * 130 + "a" + ")" * 131,  # one ) too many
        "(" * 130 + "[a" + ")" * 130,  # unterminated class
        "(?P<g>" + "(" * 130 + "a" + ")" * 130 + ")(?P<g>b)",  # a group name used twice
        "(" * 130 + "(?#x" + ")" * 129,  # unterminated comment
    ],
)
def test_deep_syntax_errors_are_re_errors_at_re_positions(pattern):
    with deep_re():
        with pytest.raises(re.error) as oracle:
            re.compile(pattern)
    with pytest.raises(RegexError) as info:
        compile_regex(pattern)
    assert info.value.pos == oracle.value.pos, (str(info.value), oracle.value)
    assert oracle.value.msg.split(" ")[0] in str(info.value)


def test_deep_refused_constructs_stay_refused():
    for pattern, what in [
        ("(" * 100 + "(?<=a)b" + ")" * 100, "lookbehind"),
        ("(" * 100 + "a++" + ")" * 100, "possessive"),
        ("(" * 100 + r"\bb" + ")" * 100, "word boundary"),
    ]:
        with pytest.raises(RegexError, match=what):
            compile_regex(pattern)


def many_optional_properties(n: int) -> dict:
    return {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(n)}, "additionalProperties": False}


def test_schema_whose_regex_nests_deeply_builds_on_the_regex_path(gpt2_vocabulary):
    """150 optional properties nest their regex about 150 deep (the grammar path refuses them:
    too many optional parts in a row), so the guide needs the deep regex."""
    schema = many_optional_properties(150)
    compiled = compile_json_schema(schema)
    assert compiled.path == "regex" and sre.outline(compiled.regex).max_depth > 100
    guide = Guide.from_json_schema(schema, gpt2_vocabulary)
    assert guide.compiled.path == "regex"
    rx = re.compile(compiled.regex)
    for instance in ({}, {"p0": 1, "p149": -2}, {f"p{i}": i for i in range(0, 150, 7)}):
        text = json.dumps(instance, separators=(",", ":"))
        assert rx.fullmatch(text)
        assert walk_text(guide, text, gpt2_vocabulary), text
    for bad in ('{"p149":1,"p0":2}', '{"p0":1,}', '{"q":1}'):
        assert rx.fullmatch(bad) is None
        assert not walk_text(guide, bad, gpt2_vocabulary), bad


def walk_text(guide: Guide, text: str, vocabulary) -> bool:
    """Feed `text` one byte-token at a time (GPT-2 has a token per byte); True if it ends final."""
    guide.reset()
    byte_token = byte_tokens(vocabulary)
    for b in text.encode():
        if byte_token[b] not in guide.get_tokens():
            return False
        guide.advance(byte_token[b], return_tokens=False)
    return guide.is_finished()


_BYTE_TOKENS: dict[int, list[int]] = {}


def byte_tokens(vocabulary) -> list[int]:
    """The id of the one-byte token of each byte value."""
    found = _BYTE_TOKENS.get(id(vocabulary))
    if found is None:
        found = [-1] * 256
        for token_id in range(vocabulary.vocab_size):
            data = vocabulary.id_to_bytes(token_id)
            if data is not None and len(data) == 1 and found[data[0]] < 0:
                found[data[0]] = token_id
        _BYTE_TOKENS[id(vocabulary)] = found
    return found


warnings.filterwarnings("ignore", category=UserWarning, module="tokenguide")
