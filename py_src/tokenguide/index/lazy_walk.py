"""A lazy automaton state's tokens: one walk of the vocabulary's byte trie, packed as a bitmask.

`LazyTrieWalker.walk(state)` gives the (first key, end key, next state) ranges of the tokens
allowed from `state`, as `walker.TrieWalker` does, over an automaton whose rows are made on
demand (`regex.lazy`): dead branches are skipped and a subtree whose bytes all loop on the state
it reached is one range. A row's byte masks are made by C-level passes, not per byte.
`ranges_mask` turns such ranges into the token-id bitmask.
"""

from __future__ import annotations

from array import array
from typing import Any

from .trie import TokenTrie

__all__ = ["LazyTrieWalker", "ranges_mask"]

_BITS = bytes.maketrans(b"\x00\x01", b"01")
#: a key range holding at least this many ids is taken through the trie's block masks
_WIDE_RANGE = 1024


def _byte_mask(flags: bytes) -> int:
    """The int whose bit b is set where flags[b] is 1 (flags: bytes of 0 and 1)."""
    return int(flags[::-1].translate(_BITS), 2)


class LazyTrieWalker:
    """Walks a token trie (keyed by bytes) through an automaton with `row(state)` (256 next
    states, -1 dead), one start state at a time; rows and their masks are kept per state."""

    def __init__(self, automaton: Any, trie: TokenTrie):
        self.automaton = automaton
        self.trie = trie
        self.rows: dict[int, list[int]] = {}
        self.leave: dict[int, int] = {}  # state -> bytes that do not loop back to it
        self.live: dict[int, int] = {}  # state -> bytes that lead anywhere

    def _row(self, state: int) -> list[int]:
        row = self.rows[state] = self.automaton.row(state)
        self.live[state] = _byte_mask(bytes(map((-1).__lt__, row)))
        self.leave[state] = _byte_mask(bytes(map(state.__ne__, row)))
        return row

    def _leave(self, state: int) -> int:
        self._row(state)
        return self.leave[state]

    def walk(self, start: int) -> tuple[array, array, array]:
        """(first key, end key, next state) ranges of the keys allowed from `start`, ascending."""
        t = self.trie
        labels, depths, ends, below = t.labels, t.depths, t.ends, t.below
        ends_key, before, children = t.ends_key, t.keys_before, t.children
        rows, leave, live = self.rows, self.leave, self.live
        los, his, nexts = array("I"), array("I"), array("I")
        stack = [start] * (t.max_depth + 1)
        row = rows.get(start) or self._row(start)
        root_child = t.root_child
        for label in range(256):
            if row[label] < 0 or not root_child[label]:
                continue
            i = root_child[label]
            stop = ends[i]
            while i < stop:
                d = depths[i]
                r = rows.get(stack[d - 1])
                if r is None:
                    r = self._row(stack[d - 1])
                ns = r[labels[i]]
                if ns < 0:
                    i = ends[i]
                    continue
                if not children[i]:
                    # a leaf: its key ends here (the state's row is not needed, nor made)
                    lo = before[i]
                    hi = lo + 1
                    i += 1
                elif below[i] & (leave[ns] if ns in leave else self._leave(ns)):
                    # some byte below leaves the state: look inside (unless no child can follow);
                    # this node's own key, if any, ends here
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
                    # every byte below loops on `ns`: the whole subtree ends there
                    lo = before[i]
                    hi = before[ends[i]]
                    i = ends[i]
                if nexts and nexts[-1] == ns and his[-1] == lo:
                    his[-1] = hi
                else:
                    los.append(lo)
                    his.append(hi)
                    nexts.append(ns)
        return los, his, nexts


def ranges_mask(trie: TokenTrie, los, his) -> int:
    """The token ids of the key ranges los[i]..his[i]-1 as a bitmask integer (bit t: token t).

    Narrow ranges set their ids in one shared bitmap (one conversion at the end), wide ones come
    from the trie's block masks (`TokenTrie.range_mask`)."""
    flat, id_start = trie.flat_ids, trie.id_start
    bitmap = bytearray((len(trie.position) + 7) // 8)
    wide = 0
    for lo, hi in zip(los, his):
        a = id_start[lo]
        b = id_start[hi]
        if b - a >= _WIDE_RANGE:
            wide |= trie.range_mask(lo, hi)
        else:
            for t in flat[a:b]:
                bitmap[t >> 3] |= 1 << (t & 7)
    return int.from_bytes(bitmap, "little") | wide
