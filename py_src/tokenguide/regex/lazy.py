"""A lazy deterministic automaton over UTF-8 bytes: subset states are created when first reached.

As in the lazy DFAs of RE2 and regex-automata, nothing is determinized up front: a state is a
set of NFA states (at a character boundary), or such a set plus the code-point interval that
the UTF-8 bytes read so far still allow (inside a character). Its 256-entry row is computed the
first time it is asked for, and kept. It accepts exactly the language of `dfa.compile_regex`
(valid UTF-8 whose text `re.fullmatch`es; dead prefixes lead nowhere), but is neither minimal
nor canonically numbered, so it serves masks and walks, never files.

Lookaheads and `\\Z` (`parser.has_lookaround`) are not built lazily: whether a state can still
reach acceptance then depends on every pending lookahead, which only the whole automaton knows.
`LazyByteDFA` refuses such trees with `LookaheadNeedsEagerError`, and `lazy_regex` gives them
an `EagerRows`: the eager minimal `dfa.compile_tree` automaton behind the same interface.
"""

from __future__ import annotations

import copy
from bisect import bisect_right

from ..errors import RegexError, StateLimitError
from . import parser as regex_ast
from .dfa import DEFAULT_MAX_STATES, MEMORY_BUDGET, ByteDFA, compile_tree, fused_tree
from .partition import atoms
from .nfa import NFA, build_nfa, epsilon_closure

__all__ = ["EagerRows", "LazyByteDFA", "LookaheadNeedsEagerError", "lazy_regex"]

_MAX_CP = 0x10FFFF
_ALL_BYTES = (1 << 256) - 1
# lead byte -> (first code point of its block, continuation bytes, smallest valid code point)
_LEADS = {}
for _b in range(0xC2, 0xF5):
    if _b < 0xE0:
        _LEADS[_b] = ((_b & 0x1F) << 6, 1, 0x80)
    elif _b < 0xF0:
        _LEADS[_b] = ((_b & 0x0F) << 12, 2, 0x800)
    else:
        _LEADS[_b] = ((_b & 0x07) << 18, 3, 0x10000)


def lazy_regex(
    pattern: str, *, ascii: bool = False, max_states: int = DEFAULT_MAX_STATES
) -> "LazyByteDFA | EagerRows":
    """The lazy byte automaton of a Python regex (fullmatch semantics); with lookaheads or `\\Z`,
    the eager automaton behind the same interface (exact liveness needs all of it)."""
    tree = regex_ast.parse(pattern, ascii=ascii)
    # strings intersected by lookaheads become one automaton first: often no lookaround is left
    tree = fused_tree(tree, max_states=max_states)
    if regex_ast.has_lookaround(tree):
        return EagerRows(compile_tree(tree, max_states=max_states, pattern=pattern, fused=True))
    return LazyByteDFA(tree, max_states=max_states, pattern=pattern)


class LookaheadNeedsEagerError(RegexError):
    """A tree with lookaheads or `\\Z` was given to LazyByteDFA: build `dfa.compile_tree` (or call
    `lazy_regex`, which does) instead."""


class EagerRows:
    """An eager `ByteDFA` with LazyByteDFA's interface (`row`, `is_final`, `walk`, `accepts`,
    `num_states`); rows are expanded to 256 entries on first use."""

    initial = 0

    def __init__(self, dfa: ByteDFA):
        self.dfa = dfa
        self.finals = dfa.finals
        self._rows: dict[int, list[int]] = {}

    @property
    def num_states(self) -> int:
        return self.dfa.num_states

    def row(self, state: int) -> list[int]:
        """The 256 next states of `state` (-1: the text can no longer match)."""
        found = self._rows.get(state)
        if found is None:
            found = self._rows[state] = list(map(self.dfa.table[state].__getitem__, self.dfa.classes))
        return found

    def is_final(self, state: int) -> bool:
        return state in self.finals

    def walk(self, data: bytes, state: int = 0) -> int:
        """State after reading `data` from `state`, or -1 when it dies."""
        return self.dfa.walk(data, state)

    def accepts(self, data: bytes) -> bool:
        return self.dfa.accepts(data)


class LazyByteDFA:
    """State 0 is initial; `row(s)[b]` is the state after byte b, -1 when the text can no longer match.

    `is_final(s)`, `walk(data, s)` and `accepts(data)` as on ByteDFA. States are numbered in the
    order they are first reached.
    """

    initial = 0

    def __init__(self, tree: tuple, *, max_states: int = DEFAULT_MAX_STATES, pattern: str | None = None):
        if regex_ast.has_lookaround(tree):
            raise LookaheadNeedsEagerError(
                "a lookahead or \\Z needs the whole automaton to know which states can still match; "
                "use lazy_regex (it builds the eager automaton for such regexes) or dfa.compile_tree",
                pattern,
            )
        nfa, start, self._end = build_nfa(tree, counted=True, pattern=pattern)
        self._nfa = nfa
        self._pattern = pattern
        self.max_states = min(max_states, MEMORY_BUDGET // 6_000)
        alive = self._alive(nfa, self._end)
        atoms_of, intervals = atoms(nfa)
        pieces = sorted((lo, hi, a) for a, ivs in enumerate(intervals) for lo, hi in ivs)
        self._piece_lo = [lo for lo, _, _ in pieces]
        self._piece_hi = [hi for _, hi, _ in pieces]
        self._piece_atom = [a for _, _, a in pieces]
        self._ascii_atom = [self._atom_at(cp) for cp in range(128)]
        # the ASCII bytes of each atom, atoms in the order of their first byte (a row made atom by
        # atom numbers new states exactly as one made byte by byte), and per UTF-8 lead byte its
        # block of code points with the atoms found there: a row costs one step per atom and one
        # set test per lead byte
        by_atom: dict[int, list[int]] = {}
        for b, a in enumerate(self._ascii_atom):
            if a >= 0:
                by_atom.setdefault(a, []).append(b)
        self._ascii_groups = [(a, members, sum(1 << b for b in members)) for a, members in by_atom.items()]
        self._wide_atoms = frozenset(a for lo, hi, a in pieces if hi >= 0x80)
        self._lead_blocks = []
        for lead, (base, left, valid_lo) in _LEADS.items():
            block_lo = max(base, valid_lo)
            block_hi = min(base + 64**left - 1, _MAX_CP)
            if block_lo <= block_hi:
                self._lead_blocks.append((lead, block_lo, block_hi, left, self._atoms_within(block_lo, block_hi)))
        self._alive_nfa = alive
        self._atoms_of = atoms_of
        self._atom_edges: dict[int, list[tuple[int, int]]] = {}  # NFA state -> (atom, alive target), on demand
        self._closures: dict[int, frozenset[int]] = {}  # NFA state -> its epsilon closure, on demand
        first = epsilon_closure(nfa, (start,))
        self._first = first if alive is None else frozenset(s for s in first if alive[s])
        self._start_cache()

    def _start_cache(self) -> None:
        """Empty the states (the cache that max_states bounds) and create the initial one."""
        self._subsets: list[frozenset[int]] = []
        self._subset_id: dict[frozenset[int], int] = {}
        self._moves: list[dict[int, int] | None] = []  # subset id -> {atom: target subset id}
        self._keys: list[tuple[int, int, int, int]] = []  # state -> (subset, lo, hi, continuation bytes left)
        self._state_of: dict[tuple[int, int, int, int], int] = {}
        self._rows: list[list[int] | None] = []
        self._row_masks: dict[int, tuple[int, int]] = {}
        self.finals: set[int] = set()
        self._state(self._subset(self._first), -1, -1, 0)

    def fresh(self) -> "LazyByteDFA":
        """The same automaton with an empty state cache (only the initial state), sharing the NFA:
        where a walk goes on once this one has met max_states (`carry` moves states over)."""
        twin = copy.copy(self)
        twin._start_cache()
        return twin

    def carry(self, state: int, source: "LazyByteDFA") -> int:
        """This automaton's number for `state` of `source` (a `fresh` twin): the same subset and position."""
        subset, lo, hi, rem = source._keys[state]
        return self._state(self._subset(source._subsets[subset]), lo, hi, rem)

    # -- construction ------------------------------------------------------------------------
    @staticmethod
    def _alive(nfa: NFA, end: int) -> list[bool] | None:
        """NFA states from which the end can be reached (over epsilons and non-empty character sets),
        None for all of them.

        In a Thompson NFA every state reaches the end unless some character set is empty, so
        the reverse search only runs for trees with an empty set (never with counted repetitions,
        `build_nfa` drops what cannot match first)."""
        if not nfa.has_empty_set:
            return None
        back: list[list[int]] = [[] for _ in nfa.eps]
        for s, targets in enumerate(nfa.eps):
            for t in targets:
                back[t].append(s)
        for s, edges in enumerate(nfa.edges):
            for ranges, t in edges:
                if ranges:
                    back[t].append(s)
        alive = [False] * len(nfa.eps)
        alive[end] = True
        stack = [end]
        while stack:
            for p in back[stack.pop()]:
                if not alive[p]:
                    alive[p] = True
                    stack.append(p)
        return alive

    def _atoms_within(self, lo: int, hi: int) -> frozenset[int]:
        """The atoms of the code points lo..hi."""
        i = max(0, bisect_right(self._piece_lo, lo) - 1)
        found = set()
        while i < len(self._piece_lo) and self._piece_lo[i] <= hi:
            if self._piece_hi[i] >= lo:
                found.add(self._piece_atom[i])
            i += 1
        return frozenset(found)

    def _atom_at(self, cp: int) -> int:
        i = bisect_right(self._piece_lo, cp) - 1
        return self._piece_atom[i] if i >= 0 and cp <= self._piece_hi[i] else -1

    def _subset(self, members: frozenset[int]) -> int:
        found = self._subset_id.get(members)
        if found is None:
            found = self._subset_id[members] = len(self._subsets)
            self._subsets.append(members)
            self._moves.append(None)
        return found

    def _state(self, subset: int, lo: int, hi: int, rem: int) -> int:
        key = (subset, lo, hi, rem)
        if rem and lo % 64**rem == 0 and hi - lo + 1 == 64**rem:
            i = bisect_right(self._piece_lo, lo) - 1
            if i >= 0 and self._piece_hi[i] >= hi:
                # a whole block of code points of one atom: every continuation is valid and ends
                # in that atom, wherever the block lies (a class of all of Unicode counted N times
                # is N states per continuation, not 64**rem per block)
                key = (subset, -2, self._piece_atom[i], rem)
        found = self._state_of.get(key)
        if found is None:
            found = len(self._keys)
            if found >= self.max_states:
                raise StateLimitError(
                    f"the automaton needs more than max_states={self.max_states:,} states; "
                    "simplify the regex or raise max_states",
                    self._pattern,
                )
            self._state_of[key] = found
            self._keys.append((subset, lo, hi, rem))  # (a block's first one stands for its atom's)
            self._rows.append(None)
            if rem == 0 and self._end in self._subsets[subset]:
                self.finals.add(found)
        return found

    def _subset_moves(self, subset: int) -> dict[int, int]:
        moves = self._moves[subset]
        if moves is None:
            buckets: dict[int, set[int]] = {}
            for s in self._subsets[subset]:
                edges = self._atom_edges.get(s)
                if edges is None:
                    alive, atoms_of = self._alive_nfa, self._atoms_of
                    edges = self._atom_edges[s] = [
                        (a, t)
                        for ranges, t in self._nfa.edges[s]
                        if alive is None or alive[t]
                        for a in atoms_of[ranges]
                    ]
                for atom, t in edges:
                    buckets.setdefault(atom, set()).add(t)
            closure = self._closure
            moves = {a: self._subset(closure(targets)) for a, targets in buckets.items()}
            self._moves[subset] = moves
        return moves

    def _closure(self, targets: set[int]) -> frozenset[int]:
        """The epsilon closure of `targets`: the union of each one's closure, kept per NFA state."""
        if len(targets) == 1:
            (t,) = targets
            found = self._closures.get(t)
            if found is None:
                found = self._closures[t] = epsilon_closure(self._nfa, targets)
            return found
        closures = self._closures
        parts = []
        for t in targets:
            found = closures.get(t)
            if found is None:
                found = closures[t] = epsilon_closure(self._nfa, (t,))
            parts.append(found)
        return frozenset().union(*parts)

    def _after(self, subset: int, lo: int, hi: int, rem: int) -> int:
        """The state for code points lo..hi still to be completed by `rem` bytes, -1 if none can match."""
        moves = self._subset_moves(subset)
        if rem == 0:
            target = moves.get(self._atom_at(lo))
            return -1 if target is None else self._state(target, -1, -1, 0)
        i = max(0, bisect_right(self._piece_lo, lo) - 1)
        n = len(self._piece_lo)
        while i < n and self._piece_lo[i] <= hi:
            if self._piece_hi[i] >= lo and self._piece_atom[i] in moves:
                return self._state(subset, lo, hi, rem)
            i += 1
        return -1

    def char_successors(self, state: int) -> set[int]:
        """The states one whole code point after `state` (a state between code points): the
        graph of characters, where a class of every code point is one edge instead of the
        thousands of states its bytes take; cycles and reachability are the same."""
        subset, _, _, rem = self._keys[state]
        if rem:
            raise ValueError(f"state {state} is inside a code point")
        return {self._state(t, -1, -1, 0) for t in self._subset_moves(subset).values()}

    def ascii_step(self, state: int, byte: int) -> int:
        """The state after ASCII `byte` from `state` (between code points), -1 if none, without
        building the whole row (whose lead bytes make states inside code points)."""
        subset, _, _, rem = self._keys[state]
        if rem or byte >= 0x80:
            raise ValueError(f"ascii_step: state {state} / byte {byte}")
        target = self._subset_moves(subset).get(self._ascii_atom[byte])
        return -1 if target is None else self._state(target, -1, -1, 0)

    def row(self, state: int) -> list[int]:
        """The 256 next states of `state` (computed on first use)."""
        row = self._rows[state]
        if row is not None:
            return row
        subset, lo, hi, rem = self._keys[state]
        row = [-1] * 256
        if rem == 0:
            moves = self._subset_moves(subset)
            loop = live = 0
            for atom, members, bits in self._ascii_groups:
                target = moves.get(atom)
                if target is not None:
                    nxt = self._state(target, -1, -1, 0)
                    for b in members:
                        row[b] = nxt
                    live |= bits
                    if nxt == state:
                        loop |= bits
            keys = moves.keys()
            if not keys.isdisjoint(self._wide_atoms):
                for lead, block_lo, block_hi, left, block_atoms in self._lead_blocks:
                    if not keys.isdisjoint(block_atoms):
                        row[lead] = self._state(subset, block_lo, block_hi, left)
                        live |= 1 << lead  # (a lead byte leads inside a character: never a loop)
            self._row_masks[state] = (_ALL_BYTES ^ loop, live)
        else:
            size = 64 ** (rem - 1)
            base = lo - lo % (size * 64)
            for c in range(64):
                sub_lo = max(base + c * size, lo)
                sub_hi = min(base + c * size + size - 1, hi)
                if sub_lo <= sub_hi:
                    row[0x80 + c] = self._after(subset, sub_lo, sub_hi, rem - 1)
        self._rows[state] = row
        return row

    def row_masks(self, state: int) -> tuple[int, int]:
        """(bytes that do not lead `state` back to itself, bytes that lead anywhere) as 256-bit
        masks, made with the row."""
        found = self._row_masks.get(state)
        if found is None:
            row = self.row(state)
            found = self._row_masks.get(state)
            if found is None:  # a row inside a character: made byte by byte
                loop = live = 0
                for b, nxt in enumerate(row):
                    if nxt >= 0:
                        live |= 1 << b
                        if nxt == state:
                            loop |= 1 << b
                found = self._row_masks[state] = (_ALL_BYTES ^ loop, live)
        return found

    # -- queries -----------------------------------------------------------------------------
    @property
    def num_states(self) -> int:
        """States created so far."""
        return len(self._keys)

    def is_final(self, state: int) -> bool:
        return state in self.finals

    def walk(self, data: bytes, state: int = 0) -> int:
        """State after reading `data` from `state`, or -1 when it dies."""
        for b in data:
            state = self.row(state)[b]
            if state < 0:
                return -1
        return state

    def accepts(self, data: bytes) -> bool:
        state = self.walk(data)
        return state >= 0 and state in self.finals
