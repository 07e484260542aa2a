"""Characters as the CFG guides see them: classes of code points, and UTF-8 held bytes.

The lexer of a grammar only ever asks single-character questions (`scanner.CharTest`: is this
character in that class, under those flags?). Characters with the same answers to every test
behave identically everywhere, so the guides work with one representative per *class*. The
classes are computed exactly, as code-point ranges (`regex.ranges.ranges_of_class`, which asks
`re` itself), so the classes met by an incomplete UTF-8 character (all the characters its
held bytes can still become) are known without trying each one.

Tokens are bytes: `split_utf8` cuts a byte string into its complete text and the bytes of a
last, incomplete character, refusing anything that is not the start of valid UTF-8.
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_right
from typing import Iterable, Optional

from ...regex import sre
from ...regex.ranges import MAX_CODE_POINT, complement, normalize, ranges_of_class
from .scanner import CharTest

__all__ = ["CharClasses", "HELD_BASE", "completion_range", "held_label", "ranges_of_test", "split_utf8"]

HELD_BASE = 0xDC00  # held byte b is written chr(HELD_BASE + b) in trie labels (as surrogateescape)
_LITERAL = re.compile(r"\\U([0-9a-f]{8})")
_SECOND_BYTE = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}


def _sequence_length(lead: int) -> int:
    """Bytes in the UTF-8 sequence that starts with `lead` (0: not a valid lead byte)."""
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def completion_range(held: bytes) -> Optional[tuple[int, int]]:
    """The code points (lo, hi) whose UTF-8 encoding starts with `held`, an incomplete
    sequence; None when no valid character starts so (bad lead byte, overlong, surrogate...)."""
    if not held:
        return None
    n = _sequence_length(held[0])
    if n == 0 or len(held) >= n:
        return None
    low2, high2 = _SECOND_BYTE.get(held[0], (0x80, 0xBF))
    if len(held) >= 2 and not low2 <= held[1] <= high2:
        return None
    if any(not 0x80 <= b <= 0xBF for b in held[2:]):
        return None
    if len(held) == 1:
        lo, hi = held + bytes([low2]) + b"\x80" * (n - 2), held + bytes([high2]) + b"\xbf" * (n - 2)
    else:
        lo, hi = held + b"\x80" * (n - len(held)), held + b"\xbf" * (n - len(held))
    return ord(lo.decode("utf-8")), ord(hi.decode("utf-8"))


def split_utf8(data: bytes) -> Optional[tuple[str, bytes]]:
    """(complete text, bytes of an incomplete last character) of `data`, or None when `data`
    is not the start of valid UTF-8 (then no continuation can make it valid)."""
    try:
        return data.decode("utf-8"), b""  # most tokens: complete text, decoded at C speed
    except UnicodeDecodeError:
        pass
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        text = decoder.decode(data, final=False)
    except UnicodeDecodeError:
        return None
    held = decoder.getstate()[0]
    if held and completion_range(held) is None:
        return None
    return text, held


def held_label(held: bytes) -> str:
    """The trie labels of held bytes: one character U+DC80..U+DCFF per byte (never real text)."""
    return "".join(chr(HELD_BASE + b) for b in held)


def _plain_ranges(pattern: str, flags: int) -> Optional[tuple]:
    """Ranges of a one-character pattern made only of literals and literal ranges (no case
    folding, no \\d \\w \\s), read from re's own parse; None for anything else."""
    if flags & re.IGNORECASE:
        return None
    items = list(sre.parse(pattern, flags))
    if len(items) != 1:
        return None
    op, av = items[0]
    c = sre.constants
    if op is c.LITERAL:
        return normalize(((av, av),))
    if op is c.ANY:
        return complement(()) if flags & re.DOTALL else complement(((10, 10),))
    if op is not c.IN:
        return None
    negate, parts = False, []
    for item, value in av:
        if item is c.NEGATE:
            negate = True
        elif item is c.LITERAL:
            parts.append((value, value))
        elif item is c.RANGE:
            parts.append(tuple(value))
        else:  # a category: its meaning is the running re's, asked below
            return None
    ranges = normalize(parts)
    return complement(ranges) if negate else ranges


_RANGES_LIMIT = 20_000  # (pattern, flags) -> ranges kept (cleared when full)
_ranges_memo: dict[tuple[str, int], tuple] = {}


def ranges_of_test(test: CharTest) -> tuple:
    """The code points a CharTest accepts, as ranges (categories and case folding asked of `re`
    itself over every code point, as the test does). Memoized by (pattern, flags): grammars
    repeat classes (every JSON string terminal has the same ones)."""
    key = (test.pattern, test.flags)
    found = _ranges_memo.get(key)
    if found is None:
        literal = _LITERAL.fullmatch(test.pattern)
        if literal is not None and not test.flags & re.IGNORECASE:
            cp = int(literal.group(1), 16)
            found = ((cp, cp),)
        else:
            plain = _plain_ranges(test.pattern, test.flags)
            found = plain if plain is not None else ranges_of_class(test.pattern, test.flags)
        if len(_ranges_memo) >= _RANGES_LIMIT:
            _ranges_memo.clear()
        _ranges_memo[key] = found
    return found


class CharClasses:
    """The partition of code points into classes (same answer to every test), exactly.

    `class_of(ch)` is the class of a character; held-byte labels (see `held_label`) all get the
    extra class `held_class`. `reps[k]` is a character of class k. `classes_in(lo, hi)` lists the
    classes met by code points lo..hi (sorted), with one member of each inside the range.
    """

    def __init__(self, tests: Iterable[CharTest]):
        toggles: dict[int, int] = {}
        for i, test in enumerate(tests):
            for lo, hi in ranges_of_test(test):
                toggles[lo] = toggles.get(lo, 0) ^ (1 << i)
                toggles[hi + 1] = toggles.get(hi + 1, 0) ^ (1 << i)
        starts: list[int] = []
        classes: list[int] = []
        signature_class: dict[int, int] = {}
        self.reps: list[str] = []
        signature = 0
        points = sorted(set(toggles) | {0, 0xD800, 0xE000})
        for cp in points:
            if cp > MAX_CODE_POINT:
                break
            signature ^= toggles.get(cp, 0)
            if 0xD800 <= cp <= 0xDFFF:  # surrogates never occur in text; give them no class
                k = -1
            else:
                k = signature_class.get(signature)
                if k is None:
                    k = signature_class[signature] = len(self.reps)
                    self.reps.append(chr(cp))
            if classes and classes[-1] == k:
                continue
            starts.append(cp)
            classes.append(k)
        self._starts = starts
        self._classes = classes
        self.held_class = len(self.reps)
        self._memo: dict[str, int] = {}
        self._in_range: dict[tuple[int, int], tuple] = {}
        self._held: dict[bytes, tuple] = {}
        self.non_ascii = tuple(sorted({k for cp, k in zip(starts, classes) if k >= 0 and cp >= 0x80}
                                      | {classes[bisect_right(starts, 0x80) - 1]}))

    @property
    def count(self) -> int:
        """Number of character classes (the held-byte class not counted)."""
        return len(self.reps)

    def class_of(self, ch: str) -> int:
        """The class of one character (the held-byte class for held-byte labels)."""
        found = self._memo.get(ch)
        if found is None:
            cp = ord(ch)
            if 0xD800 <= cp <= 0xDFFF:
                found = self.held_class
            else:
                found = self._classes[bisect_right(self._starts, cp) - 1]
            if len(self._memo) < 100_000:
                self._memo[ch] = found
        return found

    def held_classes(self, held: bytes) -> tuple:
        """`classes_in` of the characters the incomplete UTF-8 sequence `held` can become
        (empty when none can)."""
        found = self._held.get(held)
        if found is None:
            span = completion_range(held)
            found = self._held[held] = () if span is None else self.classes_in(*span)
        return found

    def classes_in(self, lo: int, hi: int) -> tuple:
        """((class, a character of it within lo..hi), ...) for the classes met by lo..hi."""
        key = (lo, hi)
        found = self._in_range.get(key)
        if found is None:
            starts, classes = self._starts, self._classes
            i = bisect_right(starts, lo) - 1
            seen: dict[int, str] = {}
            while i < len(starts) and starts[i] <= hi:
                k = classes[i]
                if k >= 0 and k not in seen:
                    seen[k] = chr(max(lo, starts[i]))
                i += 1
            found = self._in_range[key] = tuple(sorted(seen.items()))
        return found
