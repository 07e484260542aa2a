"""Walking the token trie through a byte automaton: one state's token ranges at a time.

Dead branches are skipped, and a subtree whose bytes all loop on the state it reached is taken
whole, as one range of tokens. When many states would each walk much of the trie, the tokens
are first collapsed by the automaton's byte classes (`class_trie`). A state whose walk would
repeat a long one already made (the states of a counted repetition, of repeated array items) is
not walked: if the automaton maps every state that walk met onto this state's counterparts with
the same transitions (or onto nothing, where this state's count runs out sooner), its ranges are
the earlier ones without the keys that run out, with the next states mapped.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from itertools import accumulate, compress, islice, repeat
from operator import add, ge, itemgetter, mul, ne, sub
from typing import Callable

from ..regex.dfa import ByteDFA
from .trie import PreparedVocabulary, TokenTrie

__all__ = ["TrieWalker", "class_trie"]

_SHARE_FROM = 2_000  # trie steps from which a walk is kept for other states to reuse
_SHARE_KEEP = 16  # walks kept per row shape (the most recent)
_CUT_FROM = 20_000  # trie steps from which keys are cut from a kept walk (below, only whole walks are reused)
_CUT_COST = 4  # a cut subtree costs about as much as this many trie steps (walking instead when more)
_CUT_KEEP = 64  # cut results kept per kept walk


def class_trie(dfa: ByteDFA, prepared: PreparedVocabulary) -> TokenTrie | None:
    """The vocabulary keyed by the automaton's byte classes: tokens that read the same
    class sequence behave alike in every state and share one key. Tokens with a byte no
    state accepts are left out. None when the classes cannot be numbered below 255."""
    k = dfa.num_classes
    if k >= 255:
        return None
    live = [any(row[c] >= 0 for row in dfa.table) for c in range(k)]
    translate = bytes(dfa.classes[b] if live[dfa.classes[b]] else 255 for b in range(256))
    keys = [token.translate(translate) for token in prepared.tokens]
    if len(set(keys)) * 2 > len(keys):
        return None  # too little to gain
    keyed: dict[bytes, list[int]] = {}
    for key, ids in zip(keys, prepared.ids):
        if 255 in key:
            continue
        found = keyed.get(key)
        if found is None:
            keyed[key] = list(ids)
        else:
            found.extend(ids)
    keys = sorted(keyed)
    return TokenTrie(keys, [keyed[key] for key in keys], prepared.vocab_size)


class TrieWalker:
    """Walks a token trie through one automaton, one start state at a time.

    `rows[s][label]` is the next state for a trie label (a byte, or a byte class);
    `leave[s]` is the mask of labels that do not loop back to s, `live[s]` of those that
    lead anywhere. With `share`, long walks are kept and reused for states that mirror them.
    """

    def __init__(self, dfa: ByteDFA, trie: TokenTrie, by_class: bool, share: bool = True):
        self.trie = trie
        self.visited = 0
        self.shared = 0  # states whose ranges were mapped from another state's walk
        self.targets: list[int] = []  # the last walk's next states, each once, in order of first range
        self.cut = 0  # of those, states whose ranges are that walk's less the keys that run out
        self.table = dfa.table if share else None  # None: every state is walked
        self._kept: dict[tuple, list] = {}  # row shape -> [(start, states met, steps, ranges, node states)]
        # node -> tag + the state the walk reached there (a visited node), tag = walks begun * states;
        # a kept walk keeps a copy, so its nodes at given states can be found again
        self._at = [-1] * trie.num_nodes
        self._tag = 0
        if by_class:
            self.rows = dfa.table
            label_mask = [1 << c for c in range(dfa.num_classes)]
            all_labels = (1 << dfa.num_classes) - 1
        else:
            classes = dfa.classes
            self.rows = [list(map(row.__getitem__, classes)) for row in dfa.table]
            label_mask = [0] * dfa.num_classes
            for b in range(256):
                label_mask[classes[b]] |= 1 << b
            all_labels = (1 << 256) - 1
        self.leave = []
        self.live = []
        for s, row in enumerate(dfa.table):
            loop = 0
            live = 0
            for c, t in enumerate(row):
                if t == s:
                    loop |= label_mask[c]
                if t >= 0:
                    live |= label_mask[c]
            self.leave.append(all_labels ^ loop)
            self.live.append(live)

    @classmethod
    def over_lazy(cls, automaton, trie: TokenTrie) -> "TrieWalker":
        """A walker over a byte trie whose automaton rows are computed on demand
        (`automaton.row(state)`, e.g. regex.lazy.LazyByteDFA): rows and masks are filled per state."""
        walker = cls.__new__(cls)
        walker.trie = trie
        walker.visited = 0
        walker.shared = 0
        walker.targets = []
        walker.cut = 0
        walker.table = None  # rows on demand: no walk is reused
        walker._kept = {}
        walker._at = [-1] * trie.num_nodes
        walker._tag = 0
        walker.rows = _LazyRows(automaton)
        walker.leave = _LazyMasks(walker.rows, loops=True)
        walker.live = _LazyMasks(walker.rows, loops=False)
        return walker

    def walk(self, start: int) -> tuple[array, array, array]:
        """(first key, end key, next state) ranges of the keys allowed from `start`."""
        shape = None
        if self.table is not None:
            row = self.table[start]
            shape = tuple(-2 if n == start else n >= 0 for n in row)
            found = self._reuse(self._kept.get(shape, ()), start)
            if found is not None:
                return found
        t = self.trie
        ends, root_child = t.ends, t.root_child
        los: list[int] = []
        his: list[int] = []
        nexts: list[int] = []
        stack = [start] * (t.max_depth + 1)
        row = self.rows[start]
        steps = 0
        met = {start}
        tag = self._tag
        self._tag += len(self.table) if self.table is not None else 0
        # Only the root's children whose symbol leads somewhere are entered; each is
        # walked in pre-order up to the end of its subtree.
        entered = [i for i in map(root_child.__getitem__, [c for c in range(len(row)) if row[c] >= 0]) if i]
        for i in entered:
            steps += self._walk_subtree(i, ends[i], stack, los, his, nexts, met.add, tag)
        self.visited += steps
        met.update(nexts)
        los, his, nexts = array("I", los), array("I", his), array("I", nexts)
        if shape is not None and steps >= _SHARE_FROM:
            kept = self._kept.setdefault(shape, [])
            first, end = entered[0], ends[entered[-1]]  # the nodes walked lie in first..end-1
            at = [tag + start, *self._at[first:end]] if steps >= _CUT_FROM else None
            kept.insert(0, _KeptWalk(start, met, steps, (los, his, nexts), tag, first, at, len(self.table)))
            del kept[_SHARE_KEEP:]
        self.targets = list(dict.fromkeys(nexts))
        return los, his, nexts

    def _reuse(self, kept_walks: list, start: int) -> tuple[array, array, array] | None:
        """The ranges from `start` made of a kept walk's, or None when the automaton maps no kept
        walk's states onto this start's (see _mapping). A walk reused whole comes first; else the
        longest one whose keys that run out are cheaper to cut than walking."""
        cuttable = []
        for kept in kept_walks:
            found = self._mapping(kept.start, start, kept.met)
            if found is None:
                continue
            mapping, lost = found
            if not lost:
                return self._mapped(kept, kept.ranges, mapping)
            if kept.has_cuts:
                cuttable.append((kept, mapping, lost))
        cuttable.sort(key=lambda found: -found[0].steps)
        for kept, mapping, lost in cuttable:
            ranges = kept.without(self.trie, lost)
            if ranges is None:  # as many cuts from the other walks, most likely
                return None
            self.cut += 1
            return self._mapped(kept, ranges, mapping)
        return None

    def _mapped(self, kept: "_KeptWalk", ranges: tuple, mapping: dict[int, int]) -> tuple[array, array, array] | None:
        """`ranges` (a kept walk's) with their next states mapped (a C-level gather of the mapped
        distinct targets, made once per kept ranges)."""
        los, his, nexts = ranges
        targets, gather = kept.gather(nexts)
        try:
            targets = list(map(mapping.__getitem__, targets))
        except KeyError:  # not expected (every kept key's next state is mapped): walk instead
            return None
        nexts = array("I", gather(targets)) if len(nexts) > 1 else array("I", targets)
        self.targets = targets  # distinct counterparts stay distinct, in the same order
        self.visited += kept.steps
        self.shared += 1
        return los, his, nexts

    def _mapping(self, source: int, start: int, met: set) -> tuple[dict[int, int], set[tuple[int, int]]] | None:
        """({state: counterpart}, lost edges) taking `source` to `start` and the states in `met` (the
        states the walk from `source` reached) one-to-one to states that answer every symbol that walk
        can read alike, or to nothing (lost: where `start`'s automaton dies, e.g. a count running out
        sooner); None when there is no such mapping. A lost edge (x, a) is a mapped state x and a lost
        state a it leads to. A walk from `start` then gives the keys the source's walk gave, less those
        whose path takes a lost edge, with the next states mapped.

        For a mapped state x and its counterpart y, class by class (a = x's target, b = y's): a dead
        target needs a dead one; a target in `met` needs its counterpart, or a dead b where a is lost
        (a state is mapped or lost, not both). A target outside `met` was never read by that walk (every
        state a key's path meets is in `met`), so it does not count. A lost state's own targets do
        not count either: every key through it is dropped. The keys of `start` are exactly the kept
        ones: along a kept key's path each state's counterpart reads the same symbol to the next
        state's counterpart; a dropped key first meets a lost state from a mapped state whose
        counterpart dies on that symbol. Kept keys keep the source's runs: a cut makes a gap, and
        distinct states keep distinct counterparts."""
        table = self.table
        mapping = {source: start}
        taken = {start}
        lost: set[int] = set()
        lost_edges: set[tuple[int, int]] = set()
        todo = [source]
        while todo:
            x = todo.pop()
            y = mapping[x]
            for a, b in zip(table[x], table[y]):
                if a < 0:
                    if b >= 0:
                        return None
                elif a in met:
                    if b < 0:
                        if a in mapping:
                            return None
                        lost.add(a)
                        lost_edges.add((x, a))
                    else:
                        found = mapping.get(a)
                        if found is None:
                            if b in taken or a in lost:
                                return None
                            mapping[a] = b
                            taken.add(b)
                            todo.append(a)
                        elif found != b:
                            return None
        return mapping, lost_edges

    def _walk_subtree(self, i: int, stop: int, stack: list, los: list, his: list, nexts: list, meet, tag: int) -> int:
        """Walk nodes i..stop-1 (one subtree of the root) from stack[0], appending its ranges; returns
        the steps taken. Every state reached is either a range's next state or given to `meet`, and
        noted (plus `tag`) in `self._at` at its node."""
        t = self.trie
        labels, depths, ends, below = t.labels, t.depths, t.ends, t.below
        ends_key, before, children = t.ends_key, t.keys_before, t.children
        rows, leave, live, at = self.rows, self.leave, self.live, self._at
        steps = 0
        while i < stop:
            steps += 1
            d = depths[i]
            ns = rows[stack[d - 1]][labels[i]]
            if ns < 0:
                i = ends[i]
                continue
            at[i] = ns + tag
            if below[i] & leave[ns]:
                # Some symbol below leaves the state: look inside (unless no child can follow);
                # this node's own key, if any, ends here.
                if children[i] & live[ns]:
                    stack[d] = ns
                    nxt = i + 1
                else:
                    nxt = ends[i]
                if not ends_key[i]:
                    meet(ns)
                    i = nxt
                    continue
                lo = before[i]
                hi = lo + 1
                i = nxt
            else:
                # Every symbol below loops on `ns`: the whole subtree ends there.
                lo = before[i]
                hi = before[ends[i]]
                i = ends[i]
            if nexts and nexts[-1] == ns and his[-1] == lo:
                his[-1] = hi
            else:
                los.append(lo)
                his.append(hi)
                nexts.append(ns)
        return steps


class _KeptWalk:
    """A long walk kept for reuse: its start, the states it met, its steps and ranges, and the state
    it reached at each node it walked (`at[i - first + 1]` for node i, plus `tag`; `at[0]` is the
    root's, the start), indexed by edge the first time keys are cut from it."""

    def __init__(self, start: int, met: set, steps: int, ranges: tuple, tag: int, first: int, at: list | None,
                 states: int):
        self.start = start
        self.states = states
        self.met = met
        self.steps = steps
        self.ranges = ranges
        self.tag = tag
        self.first = first
        self.at = at
        self._entries: list[int] | None = None
        self._cut: dict[frozenset, tuple[array, array, array] | None] = {}
        self._gathers: dict[int, tuple[list[int], Callable | None]] = {}  # id(next states) -> see gather

    def gather(self, nexts: array) -> tuple[list[int], Callable | None]:
        """(the distinct states of `nexts`, one of this walk's next-state arrays, in order of first
        appearance; a function taking their counterparts, in that order, to `nexts` mapped, None
        for fewer than two ranges)."""
        found = self._gathers.get(id(nexts))
        if found is None:
            targets = list(dict.fromkeys(nexts))
            number = {t: k for k, t in enumerate(targets)}
            getter = itemgetter(*map(number.__getitem__, nexts)) if len(nexts) > 1 else None
            found = self._gathers[id(nexts)] = (targets, getter)
        return found

    def _by_edge(self, trie: TokenTrie) -> list[int]:
        """Every node this walk reached at a state other than its parent's, as one sorted list of
        ((parent's state * states + state) * nodes + node): the nodes entered by one edge are a slice."""
        tag, at, first = self.tag, self.at, self.first
        nodes = list(compress(range(first, first + len(at) - 1), map(tag.__le__, islice(at, 1, None))))
        here = list(map(at.__getitem__, map(sub, nodes, repeat(first - 1))))
        # a parent before `first` is the root (the nodes walked are whole subtrees of the root)
        parents = map(max, repeat(0), map(sub, map(trie.parents.__getitem__, nodes), repeat(first - 1)))
        there = list(map(at.__getitem__, parents))
        moved = list(map(ne, here, there))
        size, states = trie.num_nodes, self.states
        edges = map(add, map(mul, map(sub, compress(there, moved), repeat(tag)), repeat(states)),
                    map(sub, compress(here, moved), repeat(tag)))
        entries = list(map(add, map(mul, edges, repeat(size)), compress(nodes, moved)))
        entries.sort()
        self.at = None  # no longer needed
        return entries

    @property
    def has_cuts(self) -> bool:
        """True when keys can still be cut from this walk (its nodes noted or indexed)."""
        return self.at is not None or self._entries is not None

    def without(self, trie: TokenTrie, edges: set) -> tuple[array, array, array] | None:
        """This walk's ranges less the keys of the subtrees it entered by one of `edges`; None when
        walking would be cheaper (many cuts for the steps left). Kept per set of edges."""
        key = frozenset(edges)
        if key in self._cut:
            return self._cut[key]
        cut_lo, cut_hi, removed = self._cuts(trie, edges)
        found = None
        if _CUT_COST * len(cut_lo) < self.steps - removed:
            found = _without(*self.ranges, cut_lo, cut_hi) if cut_lo else self.ranges
        if len(self._cut) < _CUT_KEEP:
            self._cut[key] = found
        return found

    def _cuts(self, trie: TokenTrie, edges: set) -> tuple[list[int], list[int], int]:
        """(first keys, end keys), ascending and disjoint, of the subtrees this walk entered by one of
        `edges` (outermost ones only), and how many trie nodes they hold."""
        if self._entries is None:
            self._entries = self._by_edge(trie)
        entries, size, states = self._entries, trie.num_nodes, self.states
        nodes: list[int] = []
        for x, a in edges:
            low = (x * states + a) * size
            nodes.extend(map(sub, entries[bisect_left(entries, low) : bisect_left(entries, low + size)], repeat(low)))
        nodes.sort()
        if not nodes:
            return [], [], 0
        ends = list(map(trie.ends.__getitem__, nodes))
        reach = list(accumulate(ends, max))  # nodes before the end of an earlier cut are inside it
        outer = [True, *map(ge, islice(nodes, 1, None), reach)]
        nodes, ends = list(compress(nodes, outer)), list(compress(ends, outer))
        before = trie.keys_before
        return list(map(before.__getitem__, nodes)), list(map(before.__getitem__, ends)), sum(ends) - sum(nodes)


def _without(los: array, his: array, nexts: array, cut_lo: list[int], cut_hi: list[int]) -> tuple[array, array, array]:
    """The ranges less the keys of the cuts (ascending, disjoint, non-empty key intervals): the runs of
    ranges no cut meets are copied whole; a Python step per cut that meets a range."""
    n = len(los)
    first = map(bisect_right, repeat(his, len(cut_lo)), cut_lo)  # first range ending after the cut's start
    stop = map(bisect_left, repeat(los, len(cut_hi)), cut_hi)  # first range starting at or after its end
    cuts = list(zip(first, stop, cut_lo, cut_hi))
    out_lo, out_hi, out_n = array("I"), array("I"), array("I")
    done = 0  # ranges before it are written; its keys from `start` on are not yet
    start = los[0] if n else 0
    for f, s, a, b in cuts:
        if f >= s:
            continue  # the cut meets no range
        if f > done:
            out_lo.append(start)
            out_hi.append(his[done])
            out_n.append(nexts[done])
            out_lo.extend(los[done + 1 : f])
            out_hi.extend(his[done + 1 : f])
            out_n.extend(nexts[done + 1 : f])
            start = los[f]
        if start < a:
            out_lo.append(start)
            out_hi.append(a)
            out_n.append(nexts[f])
        if his[s - 1] > b:  # the last range met goes on after the cut
            done, start = s - 1, b
        else:
            done = s
            start = los[s] if s < n else 0
    if done < n:
        out_lo.append(start)
        out_hi.append(his[done])
        out_n.append(nexts[done])
        out_lo.extend(los[done + 1 :])
        out_hi.extend(his[done + 1 :])
        out_n.extend(nexts[done + 1 :])
    return out_lo, out_hi, out_n

class _LazyRows(dict):
    """state -> its 256-entry row, asked of the automaton the first time."""

    def __init__(self, automaton):
        super().__init__()
        self.automaton = automaton

    def __missing__(self, state: int) -> list[int]:
        row = self[state] = self.automaton.row(state)
        return row


class _LazyMasks(dict):
    """state -> bit mask of the bytes that leave it (loops=True) or that lead anywhere (loops=False)."""

    def __init__(self, rows: _LazyRows, loops: bool):
        super().__init__()
        self.rows = rows
        self.loops = loops

    def __missing__(self, state: int) -> int:
        row = self.rows[state]
        if self.loops:
            mask = sum(1 << b for b in range(256) if row[b] != state)
        else:
            mask = sum(1 << b for b in range(256) if row[b] >= 0)
        self[state] = mask
        return mask

