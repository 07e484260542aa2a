"""The grammar checks on character automata (grammar_checks over regex.char_dfa) against the
criteria they replaced: the same questions asked of the minimal byte DFAs (`compile_regex`), in
the byte-level code the checks used before, over many random small terminals and pairs; and
`CharDFA` against `re.fullmatch`."""

from __future__ import annotations

import random
import re

import pytest

from tokenguide.json_schema import grammar_checks as gc
from tokenguide.regex.char_dfa import CharDFA, compile_char_dfa, overlay, trimmed
from tokenguide.regex.dfa import compile_regex

ATOMS = ["a", "b", " ", "é", "中", "[ab]", "[^a]", "[a-é]", "[ -b]", "\\ ", "[ ]", "(?:)", "[^\\x00-\\U0010ffff]"]


def random_regex(rng: random.Random, depth: int = 0) -> str:
    """A small random regex over a few ASCII and non-ASCII characters, spaces and classes."""
    roll = rng.random()
    if depth > 2 or roll < 0.35:
        return rng.choice(ATOMS)
    if roll < 0.6:
        return "".join(random_regex(rng, depth + 1) for _ in range(rng.randint(2, 3)))
    if roll < 0.75:
        return "(?:" + "|".join(random_regex(rng, depth + 1) for _ in range(rng.randint(2, 3))) + ")"
    inner = "(?:" + random_regex(rng, depth + 1) + ")"
    lo = rng.randint(0, 2)
    return inner + rng.choice(["?", "*", "+", f"{{{lo},{lo + rng.randint(0, 2)}}}", f"{{{lo}}}"])


def terminal(rng: random.Random) -> str:
    """A random terminal shaped like the grammar path's: optional spaces before or after."""
    body = random_regex(rng)
    return rng.choice(["", " ?", " "]) + body + rng.choice(["", " ?", " ", " ? ?"])


# -- the byte-level criteria the checks used before (minimal trimmed byte DFAs) -------------

def old_prefix_safe(d, greedy_space: bool) -> bool:
    for f in d.finals:
        live = d.live_bytes(f)
        if not live:
            continue
        g = d.next_state(f, 0x20)
        if live != b" " or g not in d.finals or d.live_bytes(g) or not greedy_space:
            return False
    return True


def old_needs_leading_space(d) -> bool:
    q1 = d.next_state(0, 0x20)
    if q1 < 0:
        return False
    seen = {(q1, 0)}
    todo = [(q1, 0)]
    while todo:
        a, b = todo.pop()
        if a in d.finals and b not in d.finals:
            return True
        for byte in range(256):
            na = d.next_state(a, byte)
            if na < 0:
                continue
            nb = d.next_state(b, byte)
            if nb < 0:
                return True
            if (na, nb) not in seen:
                seen.add((na, nb))
                todo.append((na, nb))
    return False


def old_prefix_related(a, b) -> bool:
    seen = {(0, 0)}
    todo = [(0, 0)]
    pairs = {(a.classes[c], b.classes[c]) for c in range(256)}
    while todo:
        x, y = todo.pop()
        if x in a.finals or y in b.finals:
            return True
        for ca, cb in pairs:
            nx, ny = a.table[x][ca], b.table[y][cb]
            if nx >= 0 and ny >= 0 and (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return False


def test_single_terminal_checks_agree_with_byte_criteria():
    rng = random.Random(1913)
    counts = {"empty": 0, "unsafe": 0, "leading": 0}
    for _ in range(400):
        regex = terminal(rng)
        old, new = compile_regex(regex), compile_char_dfa(regex)
        assert (0 in new.finals) == (0 in old.finals), regex
        counts["empty"] += 0 in old.finals
        for greedy in (False, True):
            assert gc.prefix_safe(new, greedy) == old_prefix_safe(old, greedy), (regex, greedy)
        counts["unsafe"] += not old_prefix_safe(old, True)
        assert gc.needs_leading_space(new) == old_needs_leading_space(old), regex
        counts["leading"] += old_needs_leading_space(old)
    assert all(20 < v < 380 for v in counts.values()), counts  # both answers well represented


def test_pair_checks_agree_with_byte_criteria():
    rng = random.Random(2026)
    related = same = 0
    for _ in range(500):
        x = terminal(rng)
        # a pair of equal languages now and then: the same regex spelled another way
        y = rng.choice([terminal(rng), terminal(rng), f"(?:{x})", f"(?:{x}|{x})", f"(?:{x}){{1}}"])
        old_x, old_y = compile_regex(x), compile_regex(y)
        new_x, new_y = compile_char_dfa(x), compile_char_dfa(y)
        expected = old_prefix_related(old_x, old_y)
        assert gc.prefix_related(new_x, new_y) == expected, (x, y)
        assert gc.prefix_related(new_y, new_x) == old_prefix_related(old_y, old_x), (y, x)
        related += expected
        assert gc.same_language(new_x, new_y) == (old_x == old_y), (x, y)
        same += old_x == old_y
    assert 50 < related < 450 and 50 < same < 450, (related, same)


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


def test_check_automaton_refuses_by_state_limit(monkeypatch):
    from tokenguide.errors import StateLimitError

    monkeypatch.setattr(gc, "TERMINAL_MAX_STATES", 50)
    gc.check_automaton.cache_clear()
    try:
        with pytest.raises(StateLimitError):
            gc.check_automaton("a{0,60}")
    finally:
        gc.check_automaton.cache_clear()


@pytest.mark.parametrize("text, terms, trailing, message", [
    ("start: T0\nT0: /b+/\n", {"a+": "T0"}, set(), "Lark reads terminal T0 differently"),
    ("start: T1 T2\nT1: /a ?/\nT2: / b/\n", {"a ?": "T1", " b": "T2"}, {"T1"}, "terminal T2 needs a leading space"),
    ("start: T0 | T1\nT0: /a/\nT1: /ab/\n", {"a": "T0", "ab": "T1"}, set(), "terminals T0 and T1 can both match"),
    ("start: T0\nT0: /a(?:b|bc)/\n", {"a(?:b|bc)": "T0"}, set(), "T0 has matches that are prefixes of other"),
    ("start: T0\nT0: /a ?/\n", {"a ?": "T0"}, set(), "T0 has matches that are prefixes of other"),
    ("start: T0\nT0: /a{0,80}b/\n", {"a{0,80}b": "T0"}, set(), "a terminal's automaton is too large"),
])
def test_check_grammar_refusals(monkeypatch, text, terms, trailing, message):
    from tokenguide.errors import UnsupportedSchemaError

    monkeypatch.setattr(gc, "TERMINAL_MAX_STATES", 50)
    gc.check_automaton.cache_clear()
    try:
        with pytest.raises(UnsupportedSchemaError, match=re.escape(message)):
            gc.check_grammar(text, terms, trailing)
    finally:
        gc.check_automaton.cache_clear()


@pytest.mark.parametrize("lark_text", ["a|a", "[a]", "\\x61", "(?:a)"])
def test_check_grammar_accepts_other_spellings_of_one_language(lark_text):
    # Lark's text differs from ours (whether the parse trees do or not): only the language counts
    gc.check_grammar(f"start: T0 T1\nT0: /{lark_text}/\nT1: /b ?/\n", {"a": "T0", "b ?": "T1"}, {"T1"})
