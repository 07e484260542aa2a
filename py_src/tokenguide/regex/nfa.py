"""Thompson NFA over code-point sets, built from the parser's tree (one concept, shared by the
eager minimal DFA in `dfa` and the lazy byte automaton in `lazy`).

Lookaheads and `\\Z` add two zero-width edge kinds (only `dfa` follows them, see `looks`): a
look edge spawns an obligation that the lookahead's body must (not) match a prefix of the rest,
and an end edge can only be taken at the end of the text.
"""

from __future__ import annotations

from typing import Iterable

from .ranges import ALL
from .trampoline import run_nested

__all__ = ["NFA", "epsilon_closure", "estimate_size"]


def estimate_size(node: tuple) -> int:
    """Rough number of NFA states the tree expands to (repetitions unrolled), checked before building."""
    sizes: list[int] = []  # sizes of the subtrees done, in the order they were finished
    stack: list[tuple[tuple, bool]] = [(node, False)]
    while stack:
        n, children_done = stack.pop()
        kind = n[0]
        if kind in ("chars", "end"):
            sizes.append(2)
            continue
        children = n[1] if kind in ("seq", "alt") else (n[2] if kind == "look" else n[1],)
        if not children_done:
            stack.append((n, True))
            stack.extend((c, False) for c in children)
            continue
        k = len(children)
        inner = sum(sizes[len(sizes) - k :])
        del sizes[len(sizes) - k :]
        if kind == "look":  # the body runs as its own automaton, followed by any text
            sizes.append(6 + inner)
        elif kind in ("seq", "alt"):
            sizes.append(2 + inner)
        else:
            lo, hi = n[2], n[3]
            sizes.append(2 + inner * max(1, (hi if hi is not None else lo + 1)))
    return sizes[0]


class NFA:
    """Thompson NFA over code-point sets: `eps[s]` epsilon targets, `edges[s]` (ranges, target) pairs."""

    def __init__(self) -> None:
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[tuple, int]]] = []
        self.has_empty_set = False  # an empty character set makes some states dead ends
        #: Lookahead k: (positive, start, end) of its body followed by any text, a fragment of its own;
        #: a nested lookahead gets a smaller k than the one around it.
        self.looks: list[tuple[bool, int, int]] = []
        self.look_edges: dict[int, list[tuple[int, int]]] = {}  # state -> [(lookahead k, target)]
        self.end_edges: dict[int, list[int]] = {}  # state -> targets reachable only at the end of the text
        self.look_ids: dict[tuple, int] = {}

    def new(self) -> int:
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1

    def fragment(self, node: tuple) -> tuple[int, int]:
        """(start, end) states of a new fragment for `node`, built depth-first with an explicit
        stack (any nesting depth): `_build` yields the child nodes it needs, and is sent back
        each child's (start, end)."""
        def expand(child: tuple) -> tuple:
            if child[0] == "chars":  # the common leaf, without a generator
                return None, self._chars(child)
            return self._build(child), None

        return run_nested(self._build(node), expand)

    def _chars(self, node: tuple) -> tuple[int, int]:
        s, e = self.new(), self.new()
        if node[1]:
            self.edges[s].append((node[1], e))
        else:
            self.has_empty_set = True
        return s, e

    def _build(self, node: tuple):
        kind = node[0]
        if kind == "chars":
            return self._chars(node)
        if kind == "seq":
            s = cur = self.new()
            for child in node[1]:
                cs, ce = yield child
                self.eps[cur].append(cs)
                cur = ce
            return s, cur
        if kind == "look":  # equal lookaheads (JSON Schema repeats them) share one body
            key = (bool(node[1]), _frozen(node[2]))
            k = self.look_ids.get(key)
            if k is None:
                bs, be = yield ("seq", [node[2], ("rep", ("chars", ALL), 0, None)])
                k = self.look_ids[key] = len(self.looks)
                self.looks.append((bool(node[1]), bs, be))
            s, e = self.new(), self.new()
            self.look_edges.setdefault(s, []).append((k, e))
            return s, e
        if kind == "end":
            s, e = self.new(), self.new()
            self.end_edges.setdefault(s, []).append(e)
            return s, e
        if kind == "alt":
            s, e = self.new(), self.new()
            if not node[1]:
                self.has_empty_set = True
            for child in node[1]:
                cs, ce = yield child
                self.eps[s].append(cs)
                self.eps[ce].append(e)
            return s, e
        # repetition
        child, lo, hi = node[1], node[2], node[3]
        s = cur = self.new()
        for _ in range(lo):
            cs, ce = yield child
            self.eps[cur].append(cs)
            cur = ce
        if hi is None:
            loop = self.new()
            self.eps[cur].append(loop)
            cs, ce = yield child
            self.eps[loop].append(cs)
            self.eps[ce].append(loop)
            return s, loop
        e = self.new()
        for _ in range(hi - lo):
            cs, ce = yield child
            self.eps[cur].append(e)
            self.eps[cur].append(cs)
            cur = ce
        self.eps[cur].append(e)
        return s, e


def _frozen(node: tuple) -> tuple:
    """A flat hashable key of a tree (its nodes in preorder, with their arity), so equal trees
    get equal keys without nested tuples (whose hashing and comparison recurse)."""
    out: list = []
    stack = [node]
    while stack:
        n = stack.pop()
        kind = n[0]
        if kind in ("seq", "alt"):
            out.append((kind, len(n[1])))
            stack.extend(reversed(n[1]))
        elif kind == "rep":
            out.append((kind, n[2], n[3]))
            stack.append(n[1])
        elif kind == "look":
            out.append((kind, n[1]))
            stack.append(n[2])
        else:
            out.append(n)
    return tuple(out)


def epsilon_closure(nfa: NFA, states: Iterable[int]) -> frozenset[int]:
    """Every NFA state reachable from `states` through epsilon moves."""
    seen = set(states)
    stack = list(seen)
    eps = nfa.eps
    while stack:
        for t in eps[stack.pop()]:
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return frozenset(seen)
