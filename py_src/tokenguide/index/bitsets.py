"""Sets of token ids as Python integers (bit t set = token t), and their expansion to arrays.

A state's allowed tokens are unions of trie key ranges; as big integers those unions are a few
C-level operations, and the integer's little-endian bytes are exactly the packed int32 bitmask
that guides hand to a model (bit t % 32 of word t // 32). Expanding a set to ascending ids and
next states goes through one byte per id ("codes": 0 = not allowed, j + 1 = the j-th target),
so no Python-level loop runs per token.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from itertools import compress

__all__ = ["ByteLRU", "codes_of", "mask_to_bytes", "nexts_from_codes", "selector", "selector_mask", "transitions_from_codes"]

_BITS = bytes.maketrans(b"01", b"\x00\x01")
_DIGITS = bytes.maketrans(b"\x00\x01", b"01")
_CODE_TABLES: dict[int, bytes] = {}


def selector(mask: int, size: int) -> bytes:
    """`size` bytes, byte t = 1 where bit t of `mask` is set, else 0 (through bin(): all C-level)."""
    bits = bin(mask)[:1:-1].encode("ascii").translate(_BITS) if mask else b""
    return bits + bytes(size - len(bits))


def selector_mask(flags: bytes | bytearray) -> int:
    """`selector`'s inverse: the int whose bit t is set where flags[t] is 1 (flags: bytes of 0 and 1)."""
    return int(flags[::-1].translate(_DIGITS), 2) if flags else 0


def mask_to_bytes(mask: int, size: int) -> bytes:
    """The packed bitmask of `mask` for `size` tokens: ceil(size / 32) little-endian int32 words."""
    return mask.to_bytes(4 * ((size + 31) // 32), "little")


def _code_table(code: int) -> bytes:
    table = _CODE_TABLES.get(code)
    if table is None:
        table = _CODE_TABLES[code] = bytes([0, code]) + bytes(254)
    return table


def codes_of(target_masks: list[int], size: int) -> bytes | None:
    """One byte per token id: 0 when no mask has it, j + 1 when `target_masks[j]` does.

    The masks must be disjoint. None when there are more than 255 targets (caller falls back).
    """
    if len(target_masks) > 255:
        return None
    if len(target_masks) == 1:
        return selector(target_masks[0], size)
    total = 0
    for j, mask in enumerate(target_masks):
        total += int.from_bytes(selector(mask, size).translate(_code_table(j + 1)), "little")
    return total.to_bytes(size, "little")


def transitions_from_codes(codes: bytes, targets: list[int]) -> tuple[array, array]:
    """(token ids ascending, next states) from per-id codes (see codes_of) and the targets they number."""
    tokens = array("I", compress(range(len(codes)), codes))
    return tokens, nexts_from_codes(bytes(compress(codes, codes)), targets)


def nexts_from_codes(picked: bytes, targets: list[int]) -> array:
    """The next states of the codes `picked` (one nonzero code per allowed token, j + 1 = targets[j])."""
    if len(targets) == 1:
        return array("I", [targets[0]]) * len(picked)
    lanes = bytearray(4 * len(picked))
    for k in range(4):  # byte k of each little-endian u32 next state
        table = bytes([0]) + bytes((t >> (8 * k)) & 0xFF for t in targets) + bytes(255 - len(targets))
        lanes[k::4] = picked.translate(table)
    nexts = array("I")
    nexts.frombytes(bytes(lanes))
    if nexts.itemsize == 4 and array("I", [1]).tobytes()[0] != 1:  # pragma: no cover - big-endian hosts
        nexts.byteswap()
    return nexts


class ByteLRU:
    """A least-recently-used cache of bytes values bounded by their total size, not their number."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.size = 0
        self._items: OrderedDict = OrderedDict()

    def get(self, key):
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key, value: bytes) -> None:
        if len(value) > self.max_bytes:
            return
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= len(old)
        self._items[key] = value
        self.size += len(value)
        while self.size > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self.size -= len(dropped)

    def __len__(self) -> int:
        return len(self._items)
