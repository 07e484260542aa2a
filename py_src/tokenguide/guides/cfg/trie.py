"""Token texts as a character trie, and the walk that finds every viable token in one pass.

The trie is in pre-order arrays (built by `index.trie.preorder_trie`), so a node's subtree is a
contiguous range of keys and of nodes: a walk that learns a whole subtree's answer jumps over it.
"""

from __future__ import annotations

from itertools import compress
from typing import Callable, Optional

from ...index.trie import preorder_trie
from .chars import HELD_BASE
from .machine import UNKNOWN, ConfigurationMachine

__all__ = ["CharTrie", "TrieSkeleton", "walk"]


class TrieSkeleton:
    """Token texts as a character trie in pre-order arrays, without character classes: the
    vocabulary's half of a `CharTrie`, the same for every grammar (see `tokens.TokenTexts`).

    Keys (distinct texts) are sorted, so the keys of node i's subtree are
    `keys_before[i] .. keys_before[ends[i]]`. `labels[i]` is the character read to reach node i,
    `depths[i]` its depth, `ends[i]` the first node after its subtree, `ends_key[i]` whether a
    key ends at i. `flat_ids[id_start[k]:id_start[k + 1]]` are the token ids of key k.
    `alphabet` is the sorted distinct labels and `codes[i]` the position of `labels[i]` in it
    (0 for the root), so a grammar classifies each distinct character once, not each node.
    """

    __slots__ = ("keys", "flat_ids", "id_start", "labels", "depths", "ends", "ends_key", "keys_before",
                 "max_depth", "alphabet", "codes", "_present")

    def __init__(self, pieces: dict[str, list[int]]):
        keys = sorted(pieces)
        self.keys = keys
        flat: list[int] = []
        id_start = [0]
        for key in keys:
            flat.extend(sorted(pieces[key]))
            id_start.append(len(flat))
        self.flat_ids = flat
        self.id_start = id_start
        labels, depths, ends, _parents, ends_key, keys_before = preorder_trie(keys, "")
        self.labels = labels
        self.depths = depths
        self.ends = ends
        self.ends_key = ends_key
        self.keys_before = keys_before
        self.max_depth = max(depths)
        self.alphabet = sorted(set(labels[1:]))
        position = {ch: j for j, ch in enumerate(self.alphabet)}
        position[""] = 0  # the root's label
        self.codes = list(map(position.__getitem__, labels))
        self._present: Optional[bytearray] = None

    def present(self) -> bytearray:
        """The token ids of the keys as a 0/1 selector indexed by id (built once, never modified)."""
        if self._present is None:
            flat = self.flat_ids
            present = bytearray(max(flat) + 1 if flat else 0)
            for t in flat:
                present[t] = 1
            self._present = present
        return self._present


class CharTrie:
    """Token texts as a character trie in pre-order arrays, with a grammar's character classes.

    The arrays of `TrieSkeleton` (keys, flat_ids, id_start, labels, depths, ends, ends_key,
    keys_before, max_depth), plus `classes[i]`, the class of node i's label (-1 for the root),
    and `below_of(i)`, the bit mask of character classes in node i's subtree (below i), computed
    when first asked and kept in `below` (-1: not computed yet). A token ending inside a UTF-8
    character has its held bytes at the end of its key, as `chars.held_label` characters.
    """

    def __init__(self, pieces: dict[str, list[int]], class_of: Callable[[str], int]):
        self._attach(TrieSkeleton(pieces), class_of)

    @classmethod
    def from_skeleton(cls, skeleton: TrieSkeleton, class_of: Callable[[str], int]) -> "CharTrie":
        """The trie of a prepared skeleton (shared, not copied) under the classes of `class_of`."""
        trie = cls.__new__(cls)
        trie._attach(skeleton, class_of)
        return trie

    def _attach(self, skeleton: TrieSkeleton, class_of: Callable[[str], int]) -> None:
        self.skeleton = skeleton
        self.keys = skeleton.keys
        self.flat_ids = skeleton.flat_ids
        self.id_start = skeleton.id_start
        self.labels = skeleton.labels
        self.depths = skeleton.depths
        self.ends = skeleton.ends
        self.ends_key = skeleton.ends_key
        self.keys_before = skeleton.keys_before
        self.max_depth = skeleton.max_depth
        table = [class_of(ch) for ch in skeleton.alphabet]
        classes = list(map(table.__getitem__, skeleton.codes)) if table else [0] * len(skeleton.codes)
        classes[0] = -1
        self.classes = classes
        self.below = [-1] * len(classes)

    def below_of(self, i: int) -> int:
        """The bit mask of the character classes of the nodes in node i's subtree, i excluded."""
        found = self.below[i]
        if found < 0:
            found = 0
            for k in set(self.classes[i + 1 : self.ends[i]]):
                found |= 1 << k
            self.below[i] = found
        return found

    @property
    def num_nodes(self) -> int:
        return len(self.labels)

    def ids_of_ranges(self, ranges: list[tuple[int, int]]) -> list[int]:
        """Sorted token ids of the keys in `ranges` (ascending, disjoint (lo, hi) key ranges).

        Large answers are built as "every id but the excluded ones" with itertools.compress,
        which avoids sorting tens of thousands of ids at every step."""
        selected = self._selector(ranges)
        if isinstance(selected, list):
            return selected
        return list(compress(range(len(selected)), selected))

    def _selector(self, ranges: list[tuple[int, int]]):
        """The ids of `ranges`: a sorted list when few, else a 0/1 bytearray indexed by id
        ("every id but the excluded ones", so the cost follows the smaller side)."""
        flat, id_start = self.flat_ids, self.id_start
        total = sum(id_start[hi] - id_start[lo] for lo, hi in ranges)
        if total * 4 < len(flat):
            out: list[int] = []
            for lo, hi in ranges:
                out.extend(flat[id_start[lo] : id_start[hi]])
            out.sort()
            return out
        selected = bytearray(self.skeleton.present())
        prev = 0
        for lo, hi in ranges + [(len(self.keys), 0)]:
            for t in flat[id_start[prev] : id_start[lo]]:
                selected[t] = 0
            prev = hi
        return selected

    def mask_of_ranges(self, ranges: list[tuple[int, int]], words: int, extra: tuple = ()) -> bytes:
        """The packed mask (`words` int32 words) of the ids of `ranges` plus the ids `extra`."""
        selected = self._selector(ranges)
        if isinstance(selected, list):
            ids, selected = selected, bytearray(words * 32)
            for t in ids:
                selected[t] = 1
        elif len(selected) < words * 32:
            selected.extend(bytes(words * 32 - len(selected)))
        for t in extra:
            selected[t] = 1
        return pack_selected(selected, words)


_BIT_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def pack_selected(selected: bytearray, words: int) -> bytes:
    """A 0/1 selector per token id (length <= words * 32) as a packed mask: `words` little-endian
    int32 words, bit t % 32 of word t // 32 set iff selected[t]. All at C speed (translate, int)."""
    digits = selected.translate(_BIT_DIGITS) + b"0" * (words * 32 - len(selected))
    return int(digits[::-1], 2).to_bytes(words * 4, "little")


def walk_ranges(
    machine: ConfigurationMachine, root: int, trie: CharTrie, strip_space: bool = False
) -> list[tuple[int, int]]:
    """The keys (ascending disjoint (lo, hi) ranges) whose text is viable after configuration `root`.

    A subtree whose character classes all loop on the configuration reached is taken whole, so
    the inside of a JSON string costs a handful of visits (held bytes count as every non-ASCII
    class: if all of those loop, any completion of them does). A key ending in held bytes is
    viable when some completion of that character is. `strip_space`: texts lose one leading
    space (SentencePiece first token): the root's " " child reads nothing and its own key (the
    text " ", now empty) is never allowed."""
    if root < 0:
        return []
    labels, depths, ends, ends_key = trie.labels, trie.depths, trie.ends, trie.ends_key
    below, before, classes = trie.below, trie.keys_before, trie.classes
    steps, viable, pure, class_steps = machine.steps, machine.viable, machine.pure, machine.class_steps
    chars = machine.chars
    held_class = chars.held_class
    held_bit = 1 << held_class
    non_ascii = 0
    for k in chars.non_ascii:
        non_ascii |= 1 << k
    ranges: list[tuple[int, int]] = []
    stack = [root] * (trie.max_depth + 1)
    held_stack = [b""] * (trie.max_depth + 1)
    n = len(labels)
    i = 1
    while i < n:
        d = depths[i]
        c = stack[d - 1]
        ch = labels[i]
        if strip_space and d == 1 and ch == " ":
            stack[1] = root
            i += 1
            continue
        k = classes[i]
        if k == held_class:  # a byte of an incomplete last character
            held = held_stack[d] = held_stack[d - 1] + bytes((ord(ch) - HELD_BASE,))
            stack[d] = c
            if ends_key[i] and machine.held_viable(c, held):
                k = before[i]
                if ranges and ranges[-1][1] == k:
                    ranges[-1] = (ranges[-1][0], k + 1)
                else:
                    ranges.append((k, k + 1))
            i += 1
            continue
        held_stack[d] = b""
        row = class_steps[c]
        if row is not None:  # a pure configuration: the step depends on the class only
            nc = row[k]
            if nc == UNKNOWN:
                nc = machine.class_step(c, k)
        else:
            nc = steps[c].get(ch)
            if nc is None:
                nc = machine.step(c, ch)
        if nc < 0:
            i = ends[i]
            continue
        mask = below[i]
        if mask < 0:
            mask = trie.below_of(i)
        if mask & held_bit:
            mask = (mask ^ held_bit) | non_ascii
        if mask == 0 or (pure[nc] and machine.loops(nc, mask)):
            ok = viable[nc]
            if ok is None:
                ok = machine.is_viable(nc)
            if ok:
                lo, hi = before[i], before[ends[i]]
                if ranges and ranges[-1][1] == lo:
                    ranges[-1] = (ranges[-1][0], hi)
                else:
                    ranges.append((lo, hi))
            i = ends[i]
            continue
        if ends_key[i]:
            ok = viable[nc]
            if ok is None:
                ok = machine.is_viable(nc)
            if ok:
                k = before[i]
                if ranges and ranges[-1][1] == k:
                    ranges[-1] = (ranges[-1][0], k + 1)
                else:
                    ranges.append((k, k + 1))
        stack[d] = nc
        i += 1
    return ranges


def walk(machine: ConfigurationMachine, root: int, trie: CharTrie, strip_space: bool = False) -> list[int]:
    """Token ids (sorted) whose text is viable after configuration `root` (see `walk_ranges`)."""
    return trie.ids_of_ranges(walk_ranges(machine, root, trie, strip_space))
