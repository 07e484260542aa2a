"""Trimmed character automata (code-point interval edges) and the language questions asked of them.

The grammar path's checks ask only questions about languages (empty match, prefix relations,
equality), which any trimmed DFA answers. The character automaton (`dfa.char_automaton`) answers
them without spelling every edge in UTF-8 bytes and minimizing again, which is most of a byte
DFA's cost on long counted strings. UTF-8 is a prefix code that maps characters one to one, so
every answer here is the byte automaton's answer too.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Callable

from . import parser as regex_ast
from .dfa import DEFAULT_MAX_STATES, char_automaton

__all__ = ["CharDFA", "compile_char_dfa", "overlay"]

Edges = tuple[tuple[int, int, int], ...]


class CharDFA:
    """A trimmed DFA over code points: state 0 is initial, every state is reachable and can reach
    acceptance (the empty language: one state, no edges), `edges[q]` is q's sorted, disjoint
    (lo, hi, target) intervals."""

    __slots__ = ("edges", "finals", "_starts")

    def __init__(self, edges: list[Edges], finals: frozenset[int]):
        self.edges = edges
        self.finals = finals
        self._starts = [[lo for lo, _, _ in row] for row in edges]

    @property
    def num_states(self) -> int:
        return len(self.edges)

    def step(self, state: int, code_point: int) -> int:
        """The state after `code_point` from `state`, or -1 when there is no edge."""
        row = self.edges[state]
        i = bisect_right(self._starts[state], code_point) - 1
        if i >= 0 and row[i][1] >= code_point:
            return row[i][2]
        return -1

    def accepts(self, text: str) -> bool:
        state = 0
        for ch in text:
            state = self.step(state, ord(ch))
            if state < 0:
                return False
        return state in self.finals

    def __repr__(self) -> str:
        return f"CharDFA(states={self.num_states}, finals={len(self.finals)})"


def trimmed(char_edges: list[list[tuple[int, int, int]]], char_accept: list[bool]) -> CharDFA:
    """The reachable states of a character automaton that can reach acceptance, renumbered in
    their original order (state 0 stays 0)."""
    n = len(char_edges)
    reverse: list[list[int]] = [[] for _ in range(n)]
    for s, row in enumerate(char_edges):
        for _, _, t in row:
            reverse[t].append(s)
    alive = list(char_accept)
    stack = [s for s in range(n) if alive[s]]
    while stack:
        for p in reverse[stack.pop()]:
            if not alive[p]:
                alive[p] = True
                stack.append(p)
    if not n or not alive[0]:
        return CharDFA([()], frozenset())
    number = [-1] * n
    reach = [0]
    number[0] = 0
    i = 0
    while i < len(reach):  # breadth first over live states: keeps only the reachable ones
        for _, _, t in char_edges[reach[i]]:
            if alive[t] and number[t] < 0:
                number[t] = 0  # numbered below, in original order
                reach.append(t)
        i += 1
    keep = sorted(reach)
    for k, s in enumerate(keep):
        number[s] = k
    edges = [tuple((lo, hi, number[t]) for lo, hi, t in char_edges[s] if alive[t]) for s in keep]
    return CharDFA(edges, frozenset(number[s] for s in keep if char_accept[s]))


def compile_char_dfa(
    pattern: str, *, max_states: int = DEFAULT_MAX_STATES, checkpoint: Callable[[], None] | None = None
) -> CharDFA:
    """The trimmed character automaton of a Python regex (fullmatch semantics): the language of
    `dfa.compile_regex(pattern)`, on code points. StateLimitError past `max_states`."""
    tree = regex_ast.parse(pattern)
    edges, accept = char_automaton(tree, max_states=max_states, checkpoint=checkpoint, pattern=pattern)
    return trimmed(edges, accept)


def overlay(a: Edges, b: Edges) -> set[tuple[int, int]]:
    """The (target in a, target in b) pairs over the code points either row has an edge for,
    -1 on the side without one."""
    out: set[tuple[int, int]] = set()
    i = j = 0
    na, nb = len(a), len(b)
    pos = 0
    big = 1 << 30
    while i < na or j < nb:
        alo = max(a[i][0], pos) if i < na else big
        blo = max(b[j][0], pos) if j < nb else big
        lo = min(alo, blo)
        ta = a[i][2] if alo == lo else -1
        tb = b[j][2] if blo == lo else -1
        hi = min(a[i][1] if ta >= 0 else alo - 1, b[j][1] if tb >= 0 else blo - 1)
        out.add((ta, tb))
        pos = hi + 1
        if i < na and a[i][1] < pos:
            i += 1
        if j < nb and b[j][1] < pos:
            j += 1
    return out
