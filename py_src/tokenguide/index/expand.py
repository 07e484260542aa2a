"""Expanding trie-built states to (token ids ascending, next states), sharing work between states.

A state built by the trie walk holds (first key, end key, next state) ranges in the trie's key
order. Its targets are numbered by first appearance, one byte per range ("codes", see bitsets);
the ranges and codes are then turned into the allowed token ids ascending and one code per token:
for a state that allows much of the vocabulary by painting codes in key order and reading them
back in token order (one gather), else by sorting. States of a counted repetition (`.{0,40}` and
the like) share one range pattern (the same ranges and codes, other targets), so a
`RangeExpander` remembers recent patterns: for the others only the next states are computed.
"""

from __future__ import annotations

from array import array
from collections import deque
from itertools import compress
from operator import itemgetter, sub

from .bitsets import ByteLRU, nexts_from_codes
from .trie import TokenTrie

__all__ = ["RangeExpander"]

_SINGLE = [bytes([i]) for i in range(256)]
_PATTERN_CACHE_BYTES = 32 << 20  # remembered patterns: 5 bytes per allowed token each
_CACHED_FROM = 16  # ranges from which a state's pattern is remembered


class RangeExpander:
    """Expands the key ranges of trie-built states over one trie, remembering recent range patterns.

    Meant to live for one pass over an index (a file write) or as long as one index.
    """

    def __init__(self, trie: TokenTrie, eos_token_id: int):
        self.trie = trie
        self.eos = eos_token_id
        self._patterns = ByteLRU(_PATTERN_CACHE_BYTES)

    def expand(self, los: array, his: array, nexts: array, final_loop: int | None) -> tuple[array, array]:
        """(token ids ascending, next states) of the ranges los[i]..his[i]-1 -> nexts[i], plus an eos
        transition to `final_loop` when it is not None (a final state's self-loop)."""
        targets = list(dict.fromkeys(nexts))
        if final_loop is not None and final_loop not in targets:
            targets.append(final_loop)
        if len(targets) > 255:
            return self._by_sorting(los, his, nexts, final_loop)
        number = dict(zip(targets, range(1, len(targets) + 1)))
        codes = bytes(map(number.__getitem__, nexts))
        eos_code = number[final_loop] if final_loop is not None else 0
        if len(codes) < _CACHED_FROM:
            tokens, picked = self._pattern(los, his, codes, eos_code)
            return tokens, nexts_from_codes(picked, targets)
        key = (los.tobytes(), his.tobytes(), codes, eos_code)
        found = self._patterns.get(key)
        if found is None:
            tokens, picked = self._pattern(los, his, codes, eos_code)
            self._patterns.put(key, tokens.tobytes() + picked)
        else:
            size = len(found) // 5
            tokens = array("I")
            tokens.frombytes(found[: 4 * size])
            picked = found[4 * size :]
        return tokens, nexts_from_codes(picked, targets)

    def _flat_ranges(self, los, his):
        """The ranges as flat positions (start, end) of `trie.flat_ids`."""
        trie = self.trie
        if trie.one_id_per_key:
            return los, his
        id_start = trie.id_start
        return array("I", map(id_start.__getitem__, los)), array("I", map(id_start.__getitem__, his))

    def _covered(self, los, his, codes: bytes) -> tuple[list[int], bytes]:
        """Every flat position the ranges cover, with its range's code (C-level maps; a Python step
        only for each range of more than one position, few in practice)."""
        starts, ends = self._flat_ranges(los, his)
        widths = list(map(sub, ends, starts))
        positions = list(starts)
        if max(widths, default=1) == 1:
            return positions, codes
        per_position = bytearray(codes)
        for s, e, c in compress(zip(starts, ends, codes), map((1).__lt__, widths)):
            positions.extend(range(s + 1, e))
            per_position += _SINGLE[c] * (e - s - 1)
        return positions, bytes(per_position)

    def _pattern(self, los, his, codes: bytes, eos_code: int) -> tuple[array, bytes]:
        """(token ids ascending, their codes) for one range pattern."""
        trie = self.trie
        positions, per_position = self._covered(los, his, codes)
        if len(positions) * 8 > len(trie.flat_ids) and trie.bitsets_fit:
            flat = bytearray(len(trie.flat_ids) + 1)
            deque(map(flat.__setitem__, positions, per_position), maxlen=0)
            by_token = trie.by_token(flat)
            if eos_code:
                by_token = bytearray(by_token)
                by_token[self.eos] = eos_code
            tokens = array("I", compress(range(len(by_token)), by_token))
            return tokens, bytes(compress(by_token, by_token))
        ids = array("I", map(trie.flat_ids.__getitem__, positions))
        if eos_code:
            ids.append(self.eos)
            per_position += _SINGLE[eos_code]
        if len(ids) < 2:
            return ids, bytes(per_position)
        order = itemgetter(*sorted(range(len(ids)), key=ids.__getitem__))
        return array("I", order(ids)), bytes(order(per_position))

    def _by_sorting(self, los, his, nexts, final_loop) -> tuple[array, array]:
        """More than 255 targets (no byte codes): pairs sorted by token id."""
        starts, ends = self._flat_ranges(los, his)
        flat_ids = self.trie.flat_ids
        ids = array("I")
        targets = array("I")
        for s, e, n in zip(starts, ends, nexts):
            ids.extend(flat_ids[s:e])
            targets.extend(array("I", [n]) * (e - s))
        if final_loop is not None:
            ids.append(self.eos)
            targets.append(final_loop)
        if len(ids) < 2:
            return ids, targets
        order = itemgetter(*sorted(range(len(ids)), key=ids.__getitem__))
        return array("I", order(ids)), array("I", order(targets))
