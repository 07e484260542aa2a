"""Sets of Unicode code points as sorted, disjoint, non-adjacent (lo, hi) ranges.

Character classes are computed with Python's own `re` engine over one string
that holds every code point, so `\\d`, `\\w`, `\\s` and case-insensitive classes
mean exactly what they mean to `re.fullmatch` in the running interpreter.
Surrogates (U+D800..U+DFFF) never occur in UTF-8 text and are left out of every set.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterable

Ranges = tuple[tuple[int, int], ...]

MAX_CODE_POINT = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)
ALL: Ranges = ((0, 0xD7FF), (0xE000, MAX_CODE_POINT))
EMPTY: Ranges = ()


def normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sort, merge overlapping and adjacent ranges, and drop surrogates."""
    items = sorted((lo, hi) for lo, hi in ranges if lo <= hi)
    merged: list[list[int]] = []
    for lo, hi in items:
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    out = []
    for lo, hi in merged:
        if hi < SURROGATES[0] or lo > SURROGATES[1]:
            out.append((lo, hi))
            continue
        if lo < SURROGATES[0]:
            out.append((lo, SURROGATES[0] - 1))
        if hi > SURROGATES[1]:
            out.append((SURROGATES[1] + 1, hi))
    return tuple(out)


def union(*sets: Ranges) -> Ranges:
    return normalize(r for s in sets for r in s)


def complement(ranges: Ranges) -> Ranges:
    """Every code point (surrogates excluded) not in `ranges`."""
    out = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE_POINT:
        out.append((nxt, MAX_CODE_POINT))
    return normalize(out)


def contains(ranges: Ranges, cp: int) -> bool:
    i = bisect_right(ranges, (cp, MAX_CODE_POINT + 1)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]


_all_text: str | None = None
_class_cache: dict[tuple[str, int], Ranges] = {}
_CLASS_CACHE_LIMIT = 4096  # classes remembered (each a short list of ranges)


def _every_code_point() -> str:
    global _all_text
    if _all_text is None:
        from array import array
        import sys

        codes = array("I", range(MAX_CODE_POINT + 1))
        if sys.byteorder == "big":
            codes.byteswap()
        _all_text = codes.tobytes().decode("utf-32-le", "surrogatepass")
    return _all_text


def ranges_of_class(source: str, flags: int) -> Ranges:
    """The code points that the one-character pattern `source` matches under `flags`.

    Uses `re` itself as the definition: runs of matching characters in a string of all
    code points become ranges. Cached; about 10 to 30 ms for a new class.
    """
    key = (source, flags)
    found = _class_cache.get(key)
    if found is None:
        pattern = re.compile(f"(?:{source})+", flags)
        found = normalize((m.start(), m.end() - 1) for m in pattern.finditer(_every_code_point()))
        if len(_class_cache) >= _CLASS_CACHE_LIMIT:  # a long-running process sees many classes: stay bounded
            _class_cache.clear()
        _class_cache[key] = found
    return found


def code_point_escape(cp: int) -> str:
    """A `re` escape for one code point, usable inside and outside brackets."""
    return f"\\U{cp:08x}"


def intersection(a: Ranges, b: Ranges) -> Ranges:
    """Code points in both `a` and `b`."""
    return complement(union(complement(normalize(a)), complement(normalize(b))))


def difference(a: Ranges, b: Ranges) -> Ranges:
    """Code points in `a` and not in `b`."""
    return intersection(a, complement(normalize(b)))
