"""re.fullmatch as the oracle, where the running Python's Unicode tables agree with tokenguide's.

tokenguide pins \\d, \\w and \\s to Unicode 16.0 (Python 3.14's tables). On an older CPython,
characters added or changed since its Unicode version mean something else to `re`; texts
holding them cannot be judged by the running `re`, so the helpers say so (None).
"""

from __future__ import annotations

import functools
import re

from tokenguide.regex import ranges as charset, unicode_tables


@functools.lru_cache(maxsize=None)
def disagreeing() -> frozenset[int]:
    """Code points whose \\d, \\w or \\s membership differs between the running `re` and the pinned tables."""
    out: set[int] = set()
    for source, pinned in ((r"\d", unicode_tables.DIGIT), (r"\w", unicode_tables.WORD), (r"\s", unicode_tables.SPACE)):
        here = charset.ranges_of_class(source, 0)
        mine = set()
        for lo, hi in charset.normalize(pinned):
            mine.update(range(lo, hi + 1))
        theirs = set()
        for lo, hi in here:
            theirs.update(range(lo, hi + 1))
        out |= mine ^ theirs
    return frozenset(out)


def judgeable(text: str) -> bool:
    bad = disagreeing()
    return not bad or not any(ord(c) in bad for c in text)


def fullmatch(regex: str, text: str) -> bool | None:
    """re.fullmatch as a bool, or None when the text holds characters the two tables disagree on."""
    if not judgeable(text):
        return None
    return re.fullmatch(regex, text) is not None
