"""Instructions a guide gives the generation loop, and the int32 bitmask writer.

`Write` and `Generate` have the names, fields and meaning of outlines' `outlines/fsm/guide.py`;
token lists are plain lists or `array('I')`, so no torch or numpy is needed.
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Union

TokenList = Union[list, array, Sequence[int]]


@dataclass(frozen=True)
class Write:
    """The model must emit exactly these tokens, in order."""

    tokens: TokenList


@dataclass(frozen=True)
class Generate:
    """Sample the next token among these ids; `None` means every token is allowed."""

    tokens: Optional[TokenList]


Instruction = Union[Write, Generate]


def bitmask_words(vocab_size: int) -> int:
    """Number of int32 words of a bitmask covering `vocab_size` tokens: ceil(vocab_size / 32)."""
    return (vocab_size + 31) // 32


def int32_view(buffer, words: int) -> memoryview:
    """A writable memoryview of `buffer` as native int32, checked to hold at least `words` words.

    Accepts array('i'), bytearray, numpy/torch-numpy int32 arrays, or any C-contiguous writable buffer.
    """
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(
            f"fill_bitmask: buffer must support the buffer protocol (array('i'), a numpy int32 array...), "
            f"got {type(buffer).__name__}"
        ) from None
    if view.readonly:
        raise ValueError("fill_bitmask: buffer is read-only")
    if not view.c_contiguous:
        raise ValueError("fill_bitmask: buffer must be C-contiguous")
    int32 = view.itemsize == 4 and view.format.lstrip("<=@") in ("i", "l")
    raw_bytes = view.itemsize == 1 and view.format.lstrip("<=@") in ("B", "b", "c")
    if not (int32 or raw_bytes):
        raise ValueError(
            f"fill_bitmask: buffer must hold 32-bit signed integers, got format {view.format!r} "
            f"with {view.itemsize}-byte items"
        )
    if view.nbytes < words * 4:
        raise ValueError(
            f"fill_bitmask: buffer has {view.nbytes} bytes, needs {words * 4} ({words} int32 words for the vocabulary)"
        )
    return view.cast("B")[: words * 4].cast("i")


def pack_tokens(tokens: Optional[Iterable[int]], vocab_size: int) -> bytes:
    """The bitmask of `tokens` as bytes: ceil(vocab_size / 32) little-endian int32 words.

    Bit `t % 32` of word `t // 32` is set iff `t` is in `tokens` (`None`: every id below
    vocab_size). Built through one big integer, so the cost is one pass over the ids, and the
    result can be copied into any buffer in one slice assignment.
    """
    words = bitmask_words(vocab_size)
    if tokens is None:
        value = (1 << vocab_size) - 1
    else:
        digits = bytearray(b"0") * (words * 32)
        for t in tokens:
            if not 0 <= t < vocab_size:
                raise ValueError(f"fill_bitmask: token id {t} is outside the vocabulary (0..{vocab_size - 1})")
            digits[t] = 49  # "1"
        digits.reverse()
        value = int(digits, 2)
    return value.to_bytes(words * 4, "little")


def write_packed(mask: bytes, buffer) -> None:
    """Copy a packed mask (see `pack_tokens`) into a writable int32 buffer in one slice assignment."""
    words = len(mask) // 4
    view = int32_view(buffer, words).cast("B")
    if sys.byteorder == "little":
        view[:] = mask
    else:  # pragma: no cover - big-endian hosts
        swapped = array("i", mask)
        swapped.byteswap()
        view[:] = swapped.tobytes()


def fill_bitmask_from_tokens(tokens: Optional[Iterable[int]], vocab_size: int, buffer) -> None:
    """Write the allowed-token bitmask into `buffer`: bit `t % 32` of word `t // 32` is set iff `t` is allowed.

    `tokens=None` sets the bit of every id below `vocab_size`. Words past the mask are left untouched;
    bits of ids at or beyond `vocab_size` are never set (ids out of range are an error).
    """
    write_packed(pack_tokens(tokens, vocab_size), buffer)


def tokens_from_bitmask(buffer, vocab_size: int) -> list[int]:
    """The sorted token ids whose bit is set in an int32 bitmask (inverse of fill_bitmask, for tests/debugging)."""
    words = bitmask_words(vocab_size)
    view = int32_view(buffer, words)
    out = []
    for w in range(words):
        v = view[w] & 0xFFFFFFFF
        base = w * 32
        while v:
            low = v & -v
            t = base + low.bit_length() - 1
            if t < vocab_size:
                out.append(t)
            v ^= low
    return out
