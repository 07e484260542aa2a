"""`ir.windows.within_window`: on every text of at most `width` bytes, the relaxed lexeme has the
same finality and liveness as the original (checked on their automata, byte by byte)."""

from __future__ import annotations

import random

import pytest

from tokenguide.ir.derivatives import LexemeDFA
from tokenguide.ir.lexemes import from_regex, inter, neg
from tokenguide.ir.windows import within_window

PATTERNS = [
    r'"[a-z ]{1,200}"',
    r'"(?:[^"\\]|\\.){3,300}"',
    r"(?:ab){50,90}c",
    r"[0-9]{0,12}(?:\.[0-9]{40,})?",
    r"x{1000}",
    r"(?:a|bc){2,5}(?:é{20,30})?z",
    r"(?:a?){70,80}b",  # a nullable item: left as it is
]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("width", [4, 16])
def test_same_verdicts_inside_the_window(pattern, width):
    expr = from_regex(pattern)
    relaxed = within_window(expr, width)
    exact, seen = LexemeDFA(expr), LexemeDFA(relaxed)
    rng = random.Random(pattern + str(width))
    alphabet = list(b'abcxz" .\\0123456789') + list("é".encode())
    for _ in range(3000):
        a, b = exact.initial, seen.initial
        for _ in range(rng.randint(1, width)):
            byte = rng.choice(alphabet)
            a, b = exact.row(a)[byte], seen.row(b)[byte]
            assert (a < 0) == (b < 0), (pattern, width)
            if a < 0:
                break
            assert exact.is_final(a) == seen.is_final(b), (pattern, width)


def test_counts_past_the_window_are_relaxed_and_short_ones_kept():
    assert within_window(from_regex(r"a{1,200}"), 16) is from_regex(r"a+")
    assert within_window(from_regex(r"a{1,10}"), 16) is from_regex(r"a{1,10}")
    assert within_window(from_regex(r"a{300}"), 16) is from_regex(r"a{17,}")


def test_intersections_and_complements_are_left_alone():
    expr = inter(from_regex(r"[a-z]{1,200}"), neg(from_regex(r"abc")))
    assert within_window(expr, 8) is expr
