"""Character automata (regex.char_dfa): `CharDFA` against `re.fullmatch`, trimming, overlays."""

from __future__ import annotations

import re

import pytest

from tokenguide.regex.char_dfa import CharDFA, compile_char_dfa, overlay, trimmed


@pytest.mark.parametrize("regex", ["a{0,3}b", "(?:[^\"\\\\]|\\\\.){0,5}\"", "x|中+|é?y", "[^a]*", "(?=ab)a.", "a\\Z|b"])
def test_char_dfa_matches_re_fullmatch(regex):
    d = compile_char_dfa(regex)
    texts = ["", "a", "b", "ab", "aab", "aaab", "aaaab", "\"", "ab\"", "\\\"\"", "x", "中", "中中", "y", "éy",
             "\n", "a\n", "\x00", "\U0010ffff"]
    for text in texts:
        assert d.accepts(text) == (re.fullmatch(regex, text) is not None), (regex, text)


def test_trimmed_drops_dead_states_and_keeps_the_empty_language():
    # state 1 is dead (no way to acceptance), state 2 unreachable
    d = trimmed([[(97, 97, 1), (98, 98, 3)], [(97, 97, 1)], [(97, 97, 3)], []], [False, False, False, True])
    assert d.edges == [((98, 98, 1),), ()] and d.finals == frozenset({1})
    empty = trimmed([[(97, 97, 1)], []], [False, False])
    assert empty.edges == [()] and empty.finals == frozenset()
    assert isinstance(compile_char_dfa("[^\\x00-\\U0010ffff]"), CharDFA)
    assert compile_char_dfa("[^\\x00-\\U0010ffff]").edges == [()]


def test_overlay_pairs_targets_and_marks_gaps():
    assert overlay(((0, 9, 1),), ((5, 20, 2),)) == {(1, -1), (1, 2), (-1, 2)}
    assert overlay((), ((3, 4, 7),)) == {(-1, 7)}
    assert overlay(((1, 1, 5), (3, 3, 6)), ((1, 3, 8),)) == {(5, 8), (-1, 8), (6, 8)}
    assert overlay((), ()) == set()
