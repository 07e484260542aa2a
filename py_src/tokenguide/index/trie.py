"""The vocabulary as a byte trie in pre-order arrays: one concept, built once per vocabulary.

Tokens are sorted by their bytes, so every subtree is a contiguous range of keys; the index
walks this trie once per automaton state. `preorder_trie` is shared with the CFG guide's
character trie.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Iterable, Iterator

from ..vocabulary import require_vocabulary
from .bitsets import selector_mask

if TYPE_CHECKING:
    from ..vocabulary import Vocabulary

__all__ = ["PreparedVocabulary", "TokenTrie", "prepare_vocabulary", "preorder_trie"]


def preorder_trie(keys: list, root_label) -> tuple[list, list[int], list[int], list[int], list[int], list[int]]:
    """The trie of sorted, distinct `keys` (bytes or str) in pre-order arrays.

    Returns (labels, depths, ends, parents, ends_key, keys_before): node i is reached by
    `labels[i]` at depth `depths[i]`, its subtree ends before node `ends[i]`, `ends_key[i]` is 1
    where a key ends, and the keys of node i's subtree are keys_before[i] .. keys_before[ends[i]].
    Node 0 is the root (label `root_label`).
    """
    labels = [root_label]
    depths = [0]
    ends = [0]
    parents = [0]
    ends_key = [0]
    path = [0]
    prev = keys[0][:0] if keys else b""
    for key in keys:
        common = 0
        limit = min(len(prev), len(key))
        while common < limit and prev[common] == key[common]:
            common += 1
        while len(path) - 1 > common:
            ends[path.pop()] = len(labels)
        for d in range(common, len(key)):
            labels.append(key[d])
            depths.append(d + 1)
            ends.append(0)
            parents.append(path[-1])
            ends_key.append(0)
            path.append(len(labels) - 1)
        ends_key[path[-1]] = 1
        prev = key
    n = len(labels)
    while path:
        ends[path.pop()] = n
    keys_before = [0] * (n + 1)
    count = 0
    for i in range(n):
        keys_before[i] = count
        count += ends_key[i]
    keys_before[n] = count
    return labels, depths, ends, parents, ends_key, keys_before


_DENSE_POSITIONS = 1 << 24  # larger vocab sizes (sparse, absurd ids) get a dict instead of an array


class _SparsePositions(dict):
    """token id -> key for vocabularies whose ids are too spread out for a dense array."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def __missing__(self, token_id: int) -> int:
        return -1

    def __len__(self) -> int:
        return self.size


class TokenTrie:
    """Sorted keys (token byte strings, or their byte-class sequences) as a trie in pre-order arrays.

    Keys are numbered in sorted order, so every subtree holds a contiguous range of keys.
    Node i has `labels[i]` (the symbol read to reach it), `depths[i]`, `parents[i]`, `ends[i]` (the
    first node after its subtree), `below[i]` (a bit mask of the symbols in its subtree,
    below the node itself), `children[i]` (the mask of its children's symbols), `ends_key[i]`, and `keys_before[i]` (how many keys end at
    nodes before i): the keys of the subtree of i are keys_before[i] .. keys_before[ends[i]].
    Node 0 is the root. `flat_ids[id_start[k]:id_start[k + 1]]` are the token ids of key k,
    ascending; `position[token_id]` is the key of a token, or -1.
    """

    def __init__(self, keys: list[bytes], ids: list, vocab_size: int):
        self.num_keys = len(keys)
        self._prefix: tuple[list[int], list[int]] | None = None
        self._gather = None
        flat = array("I")
        id_start = [0]
        for key_ids in ids:
            flat.extend(sorted(key_ids))
            id_start.append(len(flat))
        self.flat_ids = flat
        self.id_start = id_start
        position = array("i", [-1]) * vocab_size if vocab_size <= _DENSE_POSITIONS else _SparsePositions(vocab_size)
        for k, key_ids in enumerate(ids):
            for t in key_ids:
                position[t] = k
        self.position = position
        labels, depths, ends, parents, ends_key, keys_before = preorder_trie(keys, 0)
        n = len(labels)
        below = [0] * n
        children = [0] * n
        for i in range(n - 1, 0, -1):
            bit = 1 << labels[i]
            below[parents[i]] |= below[i] | bit
            children[parents[i]] |= bit
        self.labels = labels
        self.depths = depths
        self.parents = parents
        self.ends = ends
        self.below = below
        self.children = children
        self.ends_key = ends_key
        self.keys_before = keys_before
        self.max_depth = max(depths)
        self.root_child = [0] * 256  # symbol -> depth-1 node, 0 when none
        i = 1
        while i < n:
            self.root_child[labels[i]] = i
            i = ends[i]

    @property
    def num_nodes(self) -> int:
        return len(self.labels)

    @property
    def one_id_per_key(self) -> bool:
        """True when every key has exactly one token id (key k is flat position k)."""
        return len(self.flat_ids) == self.num_keys

    def count_ids(self, los, his) -> int:
        """How many token ids the key ranges los[i]..his[i]-1 hold (C-level sums, no Python loop)."""
        if self.one_id_per_key:
            return sum(his) - sum(los)
        id_start = self.id_start
        return sum(map(id_start.__getitem__, his)) - sum(map(id_start.__getitem__, los))

    def by_token(self, flat_values: bytes | bytearray) -> bytes:
        """`flat_values` (one byte per flat position in key order, plus a last 0) re-read in token id
        order: byte t of the result is the value at token t's flat position, 0 for ids outside the
        trie. One C-level gather (an itemgetter over every token id, built once per trie)."""
        gather = self._gather
        if gather is None:
            size = len(self.position)
            flat = self.flat_ids
            where = array("I", [len(flat)]) * size  # ids outside the trie read the padding byte (0)
            for j, t in enumerate(flat):
                where[t] = j
            gather = self._gather = itemgetter(*where) if size > 1 else (lambda values: (values[where[0]],))
        return bytes(gather(flat_values))

    def expand_sparse(self, ranges: list[tuple[int, int, int]]) -> tuple[array, array]:
        """Token ids ascending and their next states for (first key, end key, next) ranges: by sorting."""
        flat, id_start = self.flat_ids, self.id_start
        segments = [(flat[id_start[lo] : id_start[hi]], ns) for lo, hi, ns in ranges]
        tokens = array("I", sorted(chain.from_iterable(seg for seg, _ in segments)))
        targets = {ns for _, ns in segments}
        if len(targets) == 1:
            return tokens, array("I", [targets.pop()]) * len(tokens)
        by_id: dict[int, int] = {}
        for seg, ns in segments:
            by_id.update(dict.fromkeys(seg, ns))
        return tokens, array("I", map(by_id.__getitem__, tokens))

    def key_ids(self, keys) -> Iterator[int]:
        """The token ids of the keys `keys` (key numbers), key by key, each key's ascending."""
        flat = self.flat_ids
        if self.one_id_per_key:
            return map(flat.__getitem__, keys)
        id_start = self.id_start
        return chain.from_iterable(flat[id_start[k] : id_start[k + 1]] for k in keys)

    def ids_mask(self, ids: Iterable[int], count: int) -> int:
        """The token ids `ids` as a bitmask integer (bit t set = token t); `count`, about how many
        there are, only picks the way: a few are shifted in, many (over 1/16 of the vocabulary) set
        one byte per id and packed by one C-level pass, the rest set as bits of a packed bitmap."""
        if count <= 8:
            mask = 0
            for t in ids:
                mask |= 1 << t
            return mask
        size = len(self.position)
        if count * 16 > size:
            flags = bytearray(size)
            for t in ids:
                flags[t] = 1
            return selector_mask(flags)
        bitmap = bytearray((size + 7) // 8)
        for t in ids:
            bitmap[t >> 3] |= 1 << (t & 7)
        return int.from_bytes(bitmap, "little")

    def range_mask(self, lo: int, hi: int) -> int:
        """The token ids of keys lo..hi-1 as a bitmask integer (bit t set = token t).

        Whole blocks come from prefix masks (one XOR), the ragged ends from `ids_mask`. Blocks
        hold about 256 ids each, and a key with more ids than that is a block of its own, so a
        range costs a few C-level operations on vocab_size bits plus at most ~512 ids in Python.
        """
        bounds, prefix = self._prefix_masks()
        first = bisect_left(bounds, lo)
        last = bisect_right(bounds, hi) - 1
        if first > last:
            return self._keys_mask(lo, hi)
        return prefix[last] ^ prefix[first] | self._keys_mask(lo, bounds[first]) | self._keys_mask(bounds[last], hi)

    def ranges_mask(self, los, his) -> int:
        """The token ids of the ascending, disjoint key ranges los[i]..his[i]-1 as a bitmask integer.

        Adjacent ranges are merged; when they hold more than half the ids, the ranges between them
        are set instead and the result complemented. Ranges of at least 1024 ids come from the
        block masks (`range_mask`), the ids of the others from `ids_mask`."""
        id_start = self.id_start
        merged_lo: list[int] = []
        merged_hi: list[int] = []
        last = -1
        for lo, hi in zip(los, his):
            if lo == last:
                merged_hi[-1] = hi
            else:
                merged_lo.append(lo)
                merged_hi.append(hi)
            last = hi
        count = sum(map(id_start.__getitem__, merged_hi)) - sum(map(id_start.__getitem__, merged_lo))
        total = len(self.flat_ids)
        invert = 2 * count > total
        if invert:  # the gaps between the ranges, within the ordinary tokens
            merged_lo, merged_hi = [0] + merged_hi, merged_lo + [self.num_keys]
            count = total - count
        flat = self.flat_ids
        wide = 0
        narrow = []
        for lo, hi in zip(merged_lo, merged_hi):
            a = id_start[lo]
            b = id_start[hi]
            if b - a >= _WIDE_RANGE:
                wide |= self.range_mask(lo, hi)
                count -= b - a
            elif a < b:
                narrow.append(flat[a:b])
        mask = self.ids_mask(chain.from_iterable(narrow), count) | wide
        return self._prefix_masks()[1][-1] ^ mask if invert else mask

    def _keys_mask(self, lo: int, hi: int) -> int:
        a = self.id_start[lo]
        b = self.id_start[hi] if lo < hi else a
        return self.ids_mask(self.flat_ids[a:b], b - a) if a < b else 0

    def _prefix_masks(self) -> tuple[list[int], list[int]]:
        """(block boundaries as key numbers, prefix[j] = the ids of the keys below boundary j),
        built once: prefix[-1] holds every id of the trie."""
        if self._prefix is None:
            bounds = [0]
            id_start = self.id_start
            for k in range(self.num_keys):
                heavy = id_start[k + 1] - id_start[k] >= _BLOCK
                if heavy and bounds[-1] != k:
                    bounds.append(k)
                if heavy or id_start[k + 1] - id_start[bounds[-1]] >= _BLOCK:
                    bounds.append(k + 1)
            if bounds[-1] != self.num_keys:
                bounds.append(self.num_keys)
            prefix = [0]
            for j in range(1, len(bounds)):
                prefix.append(prefix[-1] | self._keys_mask(bounds[j - 1], bounds[j]))
            self._prefix = (bounds, prefix)
        return self._prefix

    @property
    def bitsets_fit(self) -> bool:
        """True when a bitmask over all ids is small enough to use (dense ids, not a sparse 2e9 range)."""
        return len(self.position) <= max(1 << 22, 64 * len(self.flat_ids))


_BLOCK = 256  # token ids per prefix-mask block
_WIDE_RANGE = 1024  # a key range holding at least this many ids is taken through the block masks


class PreparedVocabulary:
    """A vocabulary's ordinary tokens sorted by bytes, as a byte trie; built once per vocabulary,
    with the trie's block masks (where bit sets fit), which the first mask would otherwise build."""

    def __init__(self, vocabulary: "Vocabulary"):
        items = vocabulary.tokens
        pairs = sorted((t, ids) for t, ids in (items.items() if isinstance(items, dict) else items) if t)
        self.tokens = [t for t, _ in pairs]
        self.ids = [list(ids) for _, ids in pairs]
        self.vocab_size = vocabulary.vocab_size
        self.trie = TokenTrie(self.tokens, self.ids, vocabulary.vocab_size)
        if self.trie.bitsets_fit:
            self.trie._prefix_masks()


_PREPARED: list[tuple[object, PreparedVocabulary]] = []
_PREPARED_KEEP = 4


def prepare_vocabulary(vocabulary: "Vocabulary") -> PreparedVocabulary:
    """The PreparedVocabulary of `vocabulary`, cached for the last few vocabularies used."""
    require_vocabulary(vocabulary, "vocabulary", "prepare_vocabulary")
    for i, (known, prepared) in enumerate(_PREPARED):
        if known is vocabulary:
            if i:
                _PREPARED.insert(0, _PREPARED.pop(i))
            return prepared
    prepared = PreparedVocabulary(vocabulary)
    _PREPARED.insert(0, (vocabulary, prepared))
    del _PREPARED[_PREPARED_KEEP:]
    return prepared
