"""A lazy automaton state's tokens: one walk of the vocabulary's byte trie, packed as a bitmask.

`LazyTrieWalker.walk(state)` gives the (first key, end key, next state) ranges of the tokens
allowed from `state`, as `walker.TrieWalker` does, over an automaton whose rows are made on
demand (`regex.lazy`): dead branches are skipped and a subtree whose bytes all loop on the state
it reached is one range. A row's byte masks are made by C-level passes, not per byte.
`TokenTrie.ranges_mask` turns such ranges into the token-id bitmask.
"""

from __future__ import annotations

from array import array
from typing import Any

from .bitsets import selector_mask
from .trie import TokenTrie

__all__ = ["LazyTrieWalker"]

_ALL_BYTES = (1 << 256) - 1
#: kept segments (ranges in all) and segment masks (bytes in all) per walker; past them, start again
MAX_SEGMENT_RANGES = 2_000_000
MAX_SEGMENT_MASK_BYTES = 64 << 20
#: a segment with at least this many token ids keeps its own mask
SEGMENT_MASK_IDS = 256


class LazyTrieWalker:
    """Walks a token trie (keyed by bytes) through an automaton with `row(state)` (256 next
    states, -1 dead), one start state at a time; rows and their masks are kept per state."""

    def __init__(self, automaton: Any, trie: TokenTrie):
        self.automaton = automaton
        self.trie = trie
        # state -> (row, bytes that do not loop back to it, bytes that lead anywhere)
        self.info: dict[int, tuple[list[int], int, int]] = {}
        self._segments: dict[tuple[int, int], tuple[array, array, array]] = {}
        self._canonical: dict[int, int] = {}  # state -> the equivalent state walked for it
        self._signatures: dict[tuple, int] = {}
        self._stored = 0  # ranges held by _segments
        self._masks: dict[int, tuple[tuple, int]] = {}  # id(segment) -> (segment, its mask)
        self._mask_bytes = 0

    def _info(self, state: int) -> tuple[list[int], int, int]:
        row = self.automaton.row(state)
        own = getattr(self.automaton, "row_masks", None)
        if own is not None:
            leave, live = own(state)
        else:
            leave, live = selector_mask(bytes(map(state.__ne__, row))), selector_mask(bytes(map((-1).__lt__, row)))
        found = self.info[state] = (row, leave, live)
        return found

    def canonical(self, state: int) -> int:
        """The first state seen with the same finality and the same row once each byte that leads
        a state back to itself is read as such: the two are equivalent (what one reads, the other
        reads, into the same states or back into itself), so their walks are the same."""
        found = self._canonical.get(state)
        if found is None:
            row, leave, _ = self.info.get(state) or self._info(state)
            if leave == _ALL_BYTES:
                key = (self.automaton.is_final(state), tuple(row))
            else:
                key = (self.automaton.is_final(state), tuple([-2 if x == state else x for x in row]))
            found = self._canonical[state] = self._signatures.setdefault(key, state)
        return found

    def walk(self, start: int) -> tuple[array, array, array]:
        """(first key, end key, next state) ranges of the keys allowed from `start`, ascending; the
        next states are those of an equivalent state's walk where one was walked (`canonical`)."""
        los, his, nexts = array("I"), array("I"), array("I")
        for seg in self.segments(start):
            los.extend(seg[0])
            his.extend(seg[1])
            nexts.extend(seg[2])
        return los, his, nexts

    def segments(self, start: int) -> list[tuple[array, array, array]]:
        """The ranges of `walk(start)` cut at the root's children: one (los, his, nexts) per child
        that `start` can read, in key order. The subtree of a child walked from the state its
        byte leads to is kept: another start state reaching that state there takes it as is."""
        t = self.trie
        start = self.canonical(start)
        row = self.info[start][0]
        root_child, children = t.root_child, t.children
        memo = self._segments
        canonical = self._canonical
        out = []
        for label in range(256):
            ns = row[label]
            if ns < 0 or not root_child[label]:
                continue
            if children[root_child[label]]:  # (the walk below needs its row anyway)
                ns = canonical.get(ns) if ns in canonical else self.canonical(ns)
            key = (ns, label)
            seg = memo.get(key)
            if seg is None:
                seg = self._subtree(root_child[label], ns)
                if self._stored > MAX_SEGMENT_RANGES:
                    memo.clear()
                    self._masks.clear()
                    self._stored = self._mask_bytes = 0
                memo[key] = seg
                self._stored += len(seg[0]) + 1
            if seg[0]:
                out.append(seg)
        return out

    def mask(self, start: int) -> int:
        """The token-id bitmask of the keys allowed from `start` (EOS not included): a large
        segment met from a second start state keeps its mask, united with the others; the rest
        are set together."""
        trie = self.trie
        masks = self._masks
        found = 0
        small_lo: list[int] = []
        small_hi: list[int] = []
        for seg in self.segments(start):
            key = id(seg)
            m = masks.get(key)
            if m is not None and m[1] is not None:
                found |= m[1]
                continue
            los, his = seg[0], seg[1]
            if m is not None and trie.count_ids(los, his) >= SEGMENT_MASK_IDS:
                # a segment met again (from another start state) keeps its own mask
                m = trie.ranges_mask(los, his)
                masks[key] = (seg, m)
                self._mask_bytes += len(trie.position) // 8
                found |= m
                continue
            if m is None:
                masks[key] = (seg, None)  # (the segment kept keeps its id from being reused)
            small_lo.extend(los)
            small_hi.extend(his)
        if self._mask_bytes > MAX_SEGMENT_MASK_BYTES:
            masks.clear()
            self._mask_bytes = 0
        return found | trie.ranges_mask(small_lo, small_hi) if small_lo else found

    def _subtree(self, i: int, ns: int) -> tuple[array, array, array]:
        """The ranges of the subtree of node `i` (at depth 1), reached in state `ns`."""
        t = self.trie
        labels, depths, ends, below = t.labels, t.depths, t.ends, t.below
        ends_key, before, children = t.ends_key, t.keys_before, t.children
        infos = self.info
        los, his, nexts = array("I"), array("I"), array("I")
        rows = [None] * (t.max_depth + 1)  # rows[d]: the row of the state at depth d of the path
        stop = ends[i]
        last_next = last_hi = -1
        first = True
        while i < stop:
            if first:
                first = False
                d = 1
            else:
                d = depths[i]
                ns = rows[d - 1][labels[i]]
                if ns < 0:
                    i = ends[i]
                    continue
            if not children[i]:
                # a leaf: its key ends here (the state's row is not needed, nor made)
                lo = before[i]
                hi = lo + 1
                i += 1
            else:
                info = infos.get(ns)
                if info is None:
                    info = self._info(ns)
                if below[i] & info[1]:
                    # some byte below leaves the state: look inside (unless no child can
                    # follow); this node's own key, if any, ends here
                    if children[i] & info[2]:
                        rows[d] = info[0]
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
                    # every byte below loops on `ns`: the whole subtree ends there
                    lo = before[i]
                    hi = before[ends[i]]
                    i = ends[i]
            if ns == last_next and lo == last_hi:
                his[-1] = hi
            else:
                los.append(lo)
                his.append(hi)
                nexts.append(ns)
                last_next = ns
            last_hi = hi
        return los, his, nexts
