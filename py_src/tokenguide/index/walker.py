"""Walking the token trie through a byte automaton: one state's token ranges at a time.

Dead branches are skipped, and a subtree whose bytes all loop on the state it reached is taken
whole, as one range of tokens. When many states would each walk much of the trie, the tokens
are first collapsed by the automaton's byte classes (`class_trie`). A state whose walk would
repeat a long one already made (the states of a counted repetition, of repeated array items) is
not walked: if the automaton maps every state that walk met onto this state's counterparts with
the same transitions, its ranges are the earlier ones with the next states mapped.
"""

from __future__ import annotations

from array import array

from ..regex.dfa import ByteDFA
from .trie import PreparedVocabulary, TokenTrie

__all__ = ["TrieWalker", "class_trie"]

_SHARE_FROM = 20_000  # trie steps from which a walk is kept for other states to reuse
_SHARE_KEEP = 16  # walks kept per row shape (the most recent)


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
        self.table = dfa.table if share else None  # None: every state is walked
        self._kept: dict[tuple, list] = {}  # row shape -> [(start, states met, steps, ranges)]
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
        walker.table = None  # rows on demand: no walk is reused
        walker._kept = {}
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
            for source, met, steps, (los, his, nexts) in self._kept.get(shape, ()):
                mapping = self._mapping(source, start, met)
                if mapping is not None:
                    self.visited += steps
                    self.shared += 1
                    return los, his, array("I", map(mapping.__getitem__, nexts))
        t = self.trie
        ends, root_child = t.ends, t.root_child
        los: list[int] = []
        his: list[int] = []
        nexts: list[int] = []
        stack = [start] * (t.max_depth + 1)
        row = self.rows[start]
        steps = 0
        met = {start}
        # Only the root's children whose symbol leads somewhere are entered; each is
        # walked in pre-order up to the end of its subtree.
        for label in [c for c in range(len(row)) if row[c] >= 0]:
            i = root_child[label]
            if i:
                steps += self._walk_subtree(i, ends[i], stack, los, his, nexts, met.add)
        self.visited += steps
        met.update(nexts)
        los, his, nexts = array("I", los), array("I", his), array("I", nexts)
        if shape is not None and steps >= _SHARE_FROM:
            kept = self._kept.setdefault(shape, [])
            kept.insert(0, (start, met, steps, (los, his, nexts)))
            del kept[_SHARE_KEEP:]
        return los, his, nexts

    def _mapping(self, source: int, start: int, met: set) -> dict[int, int] | None:
        """{state: counterpart} taking `source` to `start` and every state in `met` (the states the walk
        from `source` reached) one-to-one to states that answer every symbol that walk can read
        alike; None when there is none. A walk from `start` then meets exactly the counterparts, so
        its ranges are the source's with the next states mapped.

        For a state x of `met` and its counterpart y, class by class (a = x's target, b = y's): a
        dead target needs a dead one; a target in `met` needs its counterpart; a live target outside
        `met` was never reached, so the walk never reads that class at x, and it only counts for
        x's loop mask (which decides the subtrees taken whole): b must not loop on y either."""
        table = self.table
        mapping = {source: start}
        taken = {start}
        todo = [source]
        while todo:
            x = todo.pop()
            y = mapping[x]
            for a, b in zip(table[x], table[y]):
                if a < 0:
                    if b >= 0:
                        return None
                elif a in met:
                    found = mapping.get(a)
                    if found is None:
                        if b < 0 or b in taken:
                            return None
                        mapping[a] = b
                        taken.add(b)
                        todo.append(a)
                    elif found != b:
                        return None
                elif b == y:
                    return None
        return mapping

    def _walk_subtree(self, i: int, stop: int, stack: list, los: list, his: list, nexts: list, meet) -> int:
        """Walk nodes i..stop-1 (one subtree of the root) from stack[0], appending its ranges; returns
        the steps taken. Every state reached is either a range's next state or given to `meet`."""
        t = self.trie
        labels, depths, ends, below = t.labels, t.depths, t.ends, t.below
        ends_key, before, children = t.ends_key, t.keys_before, t.children
        rows, leave, live = self.rows, self.leave, self.live
        steps = 0
        while i < stop:
            steps += 1
            d = depths[i]
            ns = rows[stack[d - 1]][labels[i]]
            if ns < 0:
                i = ends[i]
                continue
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

