"""Code-point ranges as UTF-8 byte-range sequences.

A range of code points with the same encoded length splits into a few sequences of
byte ranges such that the bytes of every code point in the range, and nothing else,
match one sequence position by position (the classic UTF-8 range compilation).
"""

from __future__ import annotations

from typing import Iterator

ByteSeq = tuple[tuple[int, int], ...]

_LENGTH_LIMITS = (0x7F, 0x7FF, 0xFFFF, 0x10FFFF)


def sequences(lo: int, hi: int) -> Iterator[ByteSeq]:
    """Yield byte-range sequences that together encode exactly the code points lo..hi.

    Surrogates must already be excluded by the caller.
    """
    if lo > hi:
        return
    for limit in _LENGTH_LIMITS:
        if lo <= limit < hi:
            yield from sequences(lo, limit)
            yield from sequences(limit + 1, hi)
            return
    yield from _same_length(lo, hi)


def _same_length(lo: int, hi: int) -> Iterator[ByteSeq]:
    if hi < 0x80:
        yield ((lo, hi),)
        return
    for i in (1, 2, 3):
        mask = (1 << (6 * i)) - 1
        if lo & ~mask != hi & ~mask:
            if lo & mask:
                yield from _same_length(lo, lo | mask)
                yield from _same_length((lo | mask) + 1, hi)
                return
            if hi & mask != mask:
                yield from _same_length(lo, (hi & ~mask) - 1)
                yield from _same_length(hi & ~mask, hi)
                return
    a = chr(lo).encode("utf-8")
    b = chr(hi).encode("utf-8")
    yield tuple(zip(a, b))
