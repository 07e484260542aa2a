"""A regex with lookaheads written back without them: its exact automaton, by state elimination.

A grammar terminal cannot hold a lookahead, but a lookahead confined to one JSON string (a key
that matches one pattern and not another, say) describes a regular language. `lookahead_free`
builds the minimal DFA of such a regex (tokenguide's compiler decides lookaheads exactly), reads
its moves one code point at a time (`lexemes.char_moves`) and eliminates states, cheapest
first, into one regex for the same strings, so that grammar mode (the engine path) can make it (part of) a
terminal. Automata or regexes past the bounds below give None (the caller refuses).
"""

from __future__ import annotations

from typing import Iterable

from ..regex import ranges as R
from .lexemes import char_moves, lexeme_dfa
from .text import group, group_marks, ranges_to_class

__all__ = ["eliminate", "lookahead_free", "MAX_ELIMINATED_STATES", "MAX_ELIMINATED_CHARS"]

MAX_ELIMINATED_STATES = 1_000  # automaton states eliminated; beyond, the regex grows too long
MAX_ELIMINATED_CHARS = 20_000  # regex text; beyond, the terminal's checks slow down
MAX_NESTING = 60  # groups inside groups: regex parsers recurse on them (a counted key nests per count)


def _union(a: str | None, b: str) -> str:
    """Alternation of two edge regexes ("" is the empty string, None no edge)."""
    if a is None or a == b:
        return b
    if a == "" or b == "":
        rest = b if a == "" else a
        return rest if rest.endswith(")?") and rest.startswith("(?:") and _is_group(rest[:-1]) else f"(?:{rest})?"
    return f"(?:{a}|{b})"


def _is_group(p: str) -> bool:
    return group(p) == p and p.startswith("(?:")


def _seq(a: str, b: str) -> str:
    """Concatenation of two edge regexes, each grouped when it is an alternation."""
    return _atom(a) + _atom(b)


def _atom(p: str) -> str:
    """`p` safe to concatenate: an alternation at its top level is grouped."""
    return f"(?:{p})" if _depths(p)[1] else p


def _depths(p: str) -> tuple[int, bool]:
    """The deepest nesting of groups in regex text `p`, and whether `|` occurs outside every group."""
    depth = top = 0
    bar = False
    for _, c in group_marks(p):
        if c == "(":
            depth += 1
            top = max(top, depth)
        elif c == ")":
            depth -= 1
        elif depth == 0:
            bar = True
    return top, bar


def eliminate(edges: dict[int, dict[int, str]], start: int, finals: Iterable[int], limit: int) -> str | None:
    """The regex of an automaton's language by state elimination, cheapest state first.

    `edges[s][t]` is the regex of the moves from state s to state t (states are the keys of
    `edges`, non-negative integers, so that the order of the work, and the regex, is the same
    in every run). None when no final state is reachable or when a regex on the way passes `limit`
    characters (the caller refuses: the automaton is too large to write out)."""
    begin, end = -1, -2  # the added start and final states
    out: dict[int, dict[int, str]] = {q: dict(moves) for q, moves in edges.items()}
    out[begin], out[end] = {start: ""}, {}
    into: dict[int, set[int]] = {q: set() for q in out}
    for q, moves in edges.items():
        for t in moves:
            into[t].add(q)
    into[start].add(begin)
    for f in finals:
        out[f][end] = _union(out[f].get(end), "")
        into[end].add(f)
    todo = set(edges)
    while todo:
        k = min(todo, key=lambda q: (len(into[q] - {q}) * len(set(out[q]) - {q}), q))
        todo.discard(k)
        loop = out[k].pop(k, None)
        into[k].discard(k)
        star = "" if loop is None else group(loop) + "*"
        for i in into[k]:
            head = out[i].pop(k)
            for j, tail in out[k].items():
                piece = _seq(_seq(head, star), tail)
                out[i][j] = _union(out[i].get(j), piece)
                into[j].add(i)
                if len(out[i][j]) > limit:
                    return None
        for j in out[k]:
            into[j].discard(k)
        del out[k], into[k]
    return out[begin].get(end)


def lookahead_free(regex: str, reserved: tuple[int, int] | None = None, max_states: int = MAX_ELIMINATED_STATES,
                   max_chars: int = MAX_ELIMINATED_CHARS) -> str | None:
    """A regex without lookarounds for the strings `regex` fullmatches (exactly), or None when
    its automaton or the regex would be too large (`max_states`, `max_chars`), when it matches
    nothing, or when a single character of `reserved` (an inclusive code point range, such as
    grammar mode's placeholders) would have to be written as a literal."""
    d = lexeme_dfa(regex)
    if d is None or not d.finals or d.num_states > max_states:
        return None
    memo: dict = {}
    edges: dict[int, dict[int, str]] = {}
    for q in range(d.num_states):
        edges[q] = {}
        for t, ranges in char_moves(d, q, memo).items():
            rs = R.normalize(ranges)
            if reserved is not None and any(lo == hi and reserved[0] <= lo <= reserved[1] for lo, hi in rs):
                return None
            edges[q][t] = ranges_to_class(rs)
    text = eliminate(edges, 0, d.finals, max_chars)
    if not text or _depths(text)[0] > MAX_NESTING:
        return None  # only the empty string (no terminal can be empty), or too deep to parse
    return text
