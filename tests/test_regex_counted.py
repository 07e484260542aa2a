"""Counted repetitions (regex.nfa): large X{lo,hi} built as one template whose copies are made
when reached. Same language as `re.fullmatch`, the same automata as unrolling (eager: equal
ByteDFAs; lazy: equal rows in the same numbering), few states for a first row, clear limits."""

from __future__ import annotations

import random
import re

import pytest

from tokenguide.errors import StateLimitError
from tokenguide.regex import nfa as nfa_mod
from tokenguide.regex import parser as regex_parser
from tokenguide.regex.dfa import compile_regex
from tokenguide.regex.lazy import LazyByteDFA, lazy_regex
from tokenguide.regex.nfa import build_nfa, epsilon_closure, estimate_size, without_empty

# The JSON string character of the JSON Schema regexes (escapes included).
JSON_CHAR = r'(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})'

LARGE = [
    (r"x{0,5000}", "xy"),
    (r"(a{1,63}\.){0,127}", "a."),
    (r"[é-ÿ一-龥a]{2,3000}", "éa一z"),
    (r"(ab?){0,1000}c?", "abc"),
    (r"x{1200,1300}", "x"),
    (r"(ab){600,}c", "abc"),
    (r"(x{0,600}y){0,600}", "xy"),
    (r"([0-9]{1,3}(,[0-9]{3}){0,250})?", "1,2"),
    (r"(){0,1500}x", "x"),
]


def _samples(pattern: str, alphabet: str, rng: random.Random) -> list[str]:
    """Random strings over the pattern's alphabet, near the counts' boundaries and at random."""
    out = ["", alphabet[0], alphabet * 2]
    counts = [int(n) for n in re.findall(r"\d+", pattern)] + [1, 2, 7]
    for _ in range(40):
        n = rng.choice(counts) * rng.choice((1, 2)) + rng.choice((-1, 0, 0, 1))
        n = max(0, min(n, 12_000))
        if rng.random() < 0.5:  # runs of one pattern piece, then a random tail
            piece = rng.choice([alphabet[:2], alphabet[0], alphabet[-1:], alphabet])
            text = (piece * (n // max(1, len(piece)) + 1))[:n]
            text += "".join(rng.choice(alphabet) for _ in range(rng.randrange(3)))
        else:
            text = "".join(rng.choice(alphabet) for _ in range(min(n, 300)))
        out.append(text)
    return out


@pytest.mark.parametrize("pattern,alphabet", LARGE)
def test_large_counts_match_re_fullmatch_lazy_and_eager(pattern, alphabet):
    tree = regex_parser.parse(pattern)
    assert estimate_size(tree, counted=True) < estimate_size(tree) // 10  # counted, not unrolled
    rng = random.Random(pattern)
    lazy = lazy_regex(pattern)
    assert isinstance(lazy, LazyByteDFA) and lazy._nfa.virtual > 0
    eager = None if "y){0,600}" in pattern or "一" in pattern else compile_regex(pattern)
    for text in _samples(pattern, alphabet, rng):
        expected = re.fullmatch(pattern, text) is not None
        data = text.encode()
        assert lazy.accepts(data) == expected, (pattern, len(text), text[:40])
        if eager is not None:
            assert eager.accepts(data) == expected, (pattern, len(text), text[:40])


def _explore(dfa, limit: int = 3000) -> list[list[int]]:
    """Rows of the states reached breadth first from 0 (at most `limit` states)."""
    rows = []
    i = 0
    while i < min(dfa.num_states, limit):
        rows.append(list(dfa.row(i)))
        i += 1
    return rows


@pytest.mark.parametrize(
    "pattern",
    [r"x{0,50}", r"(a{1,6}\.){0,12}b", r"(ab|c){2,9}d?", r"[é-ÿa]{3,20}", r"(xy?){4,}z", r"((a|bc){2,5}d){0,6}",
     r"[^\s\S]|x{0,30}", r"(x[^\s\S]|y){0,40}z", r"(x{0,3}|[^\s\S]){2,30}"],
)
def test_counted_is_the_same_automaton_as_unrolled(pattern, monkeypatch):
    """Counting every repetition gives the same eager ByteDFA and the same lazy rows, state for state."""
    unrolled_dfa = compile_regex(pattern)
    unrolled_lazy = _explore(lazy_regex(pattern))
    monkeypatch.setattr(nfa_mod, "COUNTED_MIN", 0)
    counted = lazy_regex(pattern)
    assert counted._nfa.virtual > 0
    assert compile_regex(pattern) == unrolled_dfa
    assert _explore(counted) == unrolled_lazy


def test_lazy_and_eager_agree_on_random_bytes():
    """Liveness too: after every prefix, both automata are dead or alive together (invalid UTF-8 included)."""
    rng = random.Random(7)
    pattern = r"(ab?|[é-ÿ]){0,1500}c"
    lazy, eager = lazy_regex(pattern), compile_regex(pattern)
    pieces = [b"a", b"b", b"c", "é".encode(), "ÿ".encode(), b"\xc3", b"\xff", b"ab"]
    for _ in range(150):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randrange(40)))
        for cut in range(len(data) + 1):
            a, b = lazy.walk(data[:cut]), eager.walk(data[:cut])
            assert (a < 0) == (b < 0), (data, cut)
            if a < 0:
                break
            assert lazy.is_final(a) == (b in eager.finals)


def test_json_string_of_maxlength_32767_is_lazy_and_small():
    """The JSONSchemaBench case: a first row and a few characters create a handful of copy states."""
    pattern = f'"{JSON_CHAR}{{0,327670}}"'
    tree = regex_parser.parse(pattern)
    assert estimate_size(tree) > nfa_mod.NFA_LIMIT  # unrolled, it would be refused
    lazy = LazyByteDFA(tree, pattern=pattern)
    row = lazy.row(lazy.walk(b'"'))
    assert row[ord("a")] >= 0 and row[ord('"')] >= 0 and row[0x01] < 0
    assert lazy.accepts('"ab\\u00e9\\n\\"é"'.encode()) and not lazy.accepts(b'"\\x"')
    assert lazy._nfa.virtual < 200
    assert lazy.walk(b'"' + b"a" * 1000) >= 0


def test_json_string_length_boundary():
    pattern = f'"{JSON_CHAR}{{0,400}}"'
    lazy = lazy_regex(pattern)
    assert lazy.accepts(b'"' + b"\\u0041" * 400 + b'"') and not lazy.accepts(b'"' + b"\\u0041" * 401 + b'"')
    assert not lazy.fresh().accepts(b'"' + b"a" * 401 + b'"')
    assert lazy.fresh().accepts(b'"' + b"a" * 399 + b"\\n" + b'"')


@pytest.mark.parametrize(
    "pattern", [r"[^\s\S]", r"x|[^\s\S]", r"(x[^\s\S])*y", r"(?=[^\s\S])|a", r"(?![^\s\S])a", r"([^\s\S]|){0,3}b",
                r"([^\s\S]x){1,2}|c", r"(?:)"],
)
def test_without_empty_keeps_the_language(pattern):
    tree = regex_parser.parse(pattern)
    pruned = without_empty(tree)
    assert compile_regex(pattern) == _compile_tree_of(pruned)
    for text in ["", "a", "b", "c", "x", "xy", "y", "ab"]:
        assert _compile_tree_of(pruned).accepts(text.encode()) == (re.fullmatch(pattern, text) is not None)


def _compile_tree_of(tree):
    from tokenguide.regex.dfa import compile_tree

    return compile_tree(tree)


def test_counted_with_an_empty_set_has_no_live_dead_ends():
    """Copies must reach the end: a dead branch inside or after a counted repetition leads nowhere."""
    lazy = lazy_regex(r"(x[^\s\S]|y){0,2000}z")
    assert lazy.walk(b"x") < 0 and lazy.walk(b"yyy") >= 0 and lazy.accepts(b"yyz")
    dead = lazy_regex(r"x{0,3000}[^\s\S]")
    assert dead.walk(b"x") < 0 and not dead.is_final(0)


def test_copy_limit_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(nfa_mod, "COPY_LIMIT", 500)
    with pytest.raises(StateLimitError, match=r"more than 500 copy states.*reduce the repetition counts") as info:
        lazy_regex(r"(x?){0,5000}")  # every copy is reached from the start over empty matches
    assert info.value.pattern == r"(x?){0,5000}"


def test_estimate_limit_still_refuses_unrolled_trees():
    """Lookaheads keep the unrolled NFA (their threads need every state): the estimate refuses it up front."""
    with pytest.raises(StateLimitError, match=r"automaton pieces \(limit 2,000,000\); reduce the repetition counts"):
        compile_regex(r"(?=a)x{0,3000000}")
    with pytest.raises(StateLimitError, match="max_states=2,000 "):
        compile_regex(r"x{0,3000000}", max_states=2000)  # counted: the DFA's own limit


def test_closure_expands_copies_on_demand():
    tree = regex_parser.parse(r"(ab){0,100000}")
    nfa, start, end = build_nfa(tree, counted=True)
    assert len(nfa.eps) < 20 and nfa.eps.count(None) > 0
    first = epsilon_closure(nfa, (start,))
    assert end in first and nfa.virtual < 10
    assert all(nfa.eps[s] is not None for s in first)


def test_json_schema_max_length_guide_builds(gpt2_vocabulary):
    """Github_trivial o9803's schema: refused before (2.3 M pieces unrolled), a lazy guide now."""
    from tokenguide import Guide

    guide = Guide.from_json_schema({"type": "string", "maxLength": 32767}, gpt2_vocabulary, path="regex")
    mask = guide.mask_bytes()
    allowed = {gpt2_vocabulary.id_to_bytes(i) for i in range(len(mask) * 8) if mask[i >> 3] >> (i & 7) & 1}
    assert b'"' in allowed and b"a" not in allowed and all(t.startswith(b'"') for t in allowed)
