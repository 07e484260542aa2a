"""Walking the token trie through a byte automaton: one state's token ranges at a time.

Dead branches are skipped, and a subtree whose bytes all loop on the state it reached is taken
whole, as one range of tokens. When many states would each walk much of the trie, the tokens
are first collapsed by the automaton's byte classes (`class_trie`).
"""

from __future__ import annotations

from array import array

from ..regex.dfa import ByteDFA
from .trie import PreparedVocabulary, TokenTrie

__all__ = ["TrieWalker", "class_trie"]


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
    lead anywhere.
    """

    def __init__(self, dfa: ByteDFA, trie: TokenTrie, by_class: bool):
        self.trie = trie
        self.visited = 0
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
        walker.rows = _LazyRows(automaton)
        walker.leave = _LazyMasks(walker.rows, loops=True)
        walker.live = _LazyMasks(walker.rows, loops=False)
        return walker

    def walk(self, start: int) -> tuple[array, array, array]:
        """(first key, end key, next state) ranges of the keys allowed from `start`."""
        t = self.trie
        ends, root_child = t.ends, t.root_child
        los, his, nexts = array("I"), array("I"), array("I")
        stack = [start] * (t.max_depth + 1)
        row = self.rows[start]
        steps = 0
        # Only the root's children whose symbol leads somewhere are entered; each is
        # walked in pre-order up to the end of its subtree.
        for label in [c for c in range(len(row)) if row[c] >= 0]:
            i = root_child[label]
            if i:
                steps += self._walk_subtree(i, ends[i], stack, los, his, nexts)
        self.visited += steps
        return los, his, nexts

    def _walk_subtree(self, i: int, stop: int, stack: list, los: array, his: array, nexts: array) -> int:
        """Walk nodes i..stop-1 (one subtree of the root) from stack[0]; returns the steps taken."""
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

