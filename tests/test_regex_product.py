"""regex.product.disjoint (the product walk the JSON Schema layer uses to prove two key languages
share no string), checked against brute force: every string over the regexes' alphabet up to the
length past which a common string would have a shorter one, tried with re.fullmatch."""

from __future__ import annotations

import itertools
import re

import pytest

from tokenguide.regex import ByteDFA, compile_regex
from tokenguide.regex.product import disjoint

# regexes over the letters a and b only, so any string they match is over {a, b}
SMALL = ["a", "b", "ab", "a*", "b*", "a+", "(aa)*", "a(aa)*", "a*b", "ba*", "(ab|ba)*", "[ab]{2}", "a?b?", "",
         "(a|b)*bb", "aab", "b(ab)*"]


def _common_string(x: str, y: str, longest: int) -> str | None:
    """A string over {a, b} of at most `longest` letters that both regexes fully match."""
    rx, ry = re.compile(x), re.compile(y)
    for n in range(longest + 1):
        for letters in itertools.product("ab", repeat=n):
            s = "".join(letters)
            if rx.fullmatch(s) and ry.fullmatch(s):
                return s
    return None


@pytest.mark.parametrize("x, y", list(itertools.combinations_with_replacement(SMALL, 2)))
def test_disjoint_agrees_with_brute_force(x, y):
    a, b = compile_regex(x), compile_regex(y)
    # a shortest common string visits each pair of states at most once, so has fewer letters than pairs
    longest = a.num_states * b.num_states
    assert longest <= 16, "keep the brute force small"
    witness = _common_string(x, y, longest)
    assert disjoint(a, b, max_pairs=10_000) is (witness is None), witness
    assert disjoint(b, a, max_pairs=10_000) is (witness is None), witness


def test_multibyte_characters_are_compared_byte_by_byte():
    # é is C3 A9, è is C3 A8: the product shares the first byte and must still tell them apart
    assert disjoint(compile_regex("é+"), compile_regex("è+"), max_pairs=100)
    assert not disjoint(compile_regex("[à-ÿ]"), compile_regex("é|x"), max_pairs=100)
    assert disjoint(compile_regex("[^a]*"), compile_regex("a+"), max_pairs=100)
    assert not disjoint(compile_regex("[^a]*"), compile_regex("\\w{2}"), max_pairs=100)


def test_an_empty_language_is_disjoint_from_everything():
    nothing = compile_regex("a(?!a)a")
    assert disjoint(nothing, compile_regex(".*"), max_pairs=10)
    no_states = ByteDFA(bytes(256), [], frozenset())
    assert disjoint(no_states, compile_regex(".*"), max_pairs=10)
    assert disjoint(compile_regex(".*"), no_states, max_pairs=10)


def test_a_search_past_max_pairs_proves_nothing():
    # disjoint (they end in different letters), but only after walking 31 pairs of states
    a, b = compile_regex("a{0,30}b"), compile_regex("a{0,30}c")
    assert disjoint(a, b, max_pairs=100)
    assert not disjoint(a, b, max_pairs=5)
