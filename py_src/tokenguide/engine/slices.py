"""Slices of a vocabulary: the tokens made only of whole characters of one large set (string contents).

A lexer state `C{lo,hi} T` (a repeat of C = P | X, then T, where neither X nor T can start
with a byte that starts a character of P) keeps every token whose bytes are 0..hi whole
characters of P alive, and such a token reaches an exit only past lo characters when T may be
empty. llguidance's token slicer takes such
tokens at once; here a `CharSlice` holds them per character count, so the walk of a string
content state (`engine.masks`) takes the slice as one bit set and walks only the subtrees that
hold a token outside it (in Llama 3, 12,000 of 275,000 trie nodes for a JSON string).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

from ..ir.derivatives import derivative, is_live
from ..ir.lexemes import ALT, AND, CHARS, EMPTY, EPSILON, REP, SEQ, Lexeme, chars, conj, rep, seq
from ..regex.ranges import intersection

__all__ = ["CharSlice", "MIN_SLICE_CHARS", "after_chars", "chars_in", "live_count", "never_reads", "slice_view"]

#: a character set gets a slice only when it holds at least this many code points (the negated
#: classes of string contents): a walk over a small set dies fast without one
MIN_SLICE_CHARS = 4096


_SIZES: dict[int, int] = {}


def _size(plain: Lexeme) -> int:
    """How many code points the CHARS lexeme `plain` holds (remembered: asked at every state)."""
    found = _SIZES.get(plain.id)
    if found is None:
        if len(_SIZES) > 100_000:
            _SIZES.clear()
        found = _SIZES[plain.id] = sum(b - a + 1 for a, b in plain.args[0])
    return found


def counted_parts(expr: Lexeme) -> tuple[Lexeme, int, int | None, Lexeme]:
    """`expr` read as `C{lo,hi} T`: (C, lo, hi, T); a plain `C T` is `C{1,1} T`, a lone `C` has T empty."""
    head, tail = expr.args if expr.kind is SEQ else (expr, EPSILON)
    if head.kind is REP:
        item, lo, hi = head.args
        return item, lo, hi, tail
    return head, 1, 1, tail


def slice_view(expr: Lexeme) -> tuple[Lexeme, int, int | None, bool] | None:
    """(P, lo, hi, T nullable) when `expr` is `C{lo,hi} T` as above (T may be the empty string)
    with P a set of at least MIN_SLICE_CHARS code points (hi None: no bound); None otherwise.
    Exits on slice tokens come only after lo characters, and only when T is nullable.

    An intersection of such expressions is one too: P the intersection of their sets (each
    character of it reads one item on every side), lo the largest, hi the smallest, T nullable
    where every side's is (the caller checks that the intersection stays non-empty: `live_count`)."""
    if expr.kind is AND:
        views = [slice_view(x) for x in expr.args]
        if any(v is None for v in views):
            return None
        sets = views[0][0].args[0]
        for v in views[1:]:
            sets = intersection(sets, v[0].args[0])
        if sum(b - a + 1 for a, b in sets) < MIN_SLICE_CHARS:
            return None
        his = [v[2] for v in views if v[2] is not None]
        return chars(sets), max(v[1] for v in views), min(his) if his else None, all(v[3] for v in views)
    item, lo, hi, tail = counted_parts(expr)
    if item.kind is CHARS:
        plain, others = item, ()
    elif item.kind is ALT:
        sets = [x for x in item.args if x.kind is CHARS]
        if len(sets) != 1:
            return None
        plain = sets[0]
        others = tuple(x for x in item.args if x is not plain)
    else:
        return None
    if _size(plain) < MIN_SLICE_CHARS:
        return None
    for b in range(256):
        if derivative(plain, b) is EMPTY:
            continue
        if derivative(tail, b) is not EMPTY or any(derivative(x, b) is not EMPTY for x in others):
            return None
    return plain, lo, hi, tail.nullable


def after_chars(expr: Lexeme, count: int) -> Lexeme:
    """`expr`, a `C{lo,hi} T` that `slice_view` takes, after `count` characters of P: `C{lo-count,
    hi-count} T` (EMPTY past hi). Each such character reads one item C (X and T cannot start with
    it), so the state after any `count` of them is this one expression."""
    if expr.kind is AND:
        return conj(*(after_chars(x, count) for x in expr.args))
    item, lo, hi, tail = counted_parts(expr)
    if hi is not None and count > hi:
        return EMPTY
    return seq(rep(item, max(lo - count, 0), None if hi is None else hi - count), tail)


def never_reads(expr: Lexeme, byte: int) -> bool:
    """`expr`, a `C{lo,hi} T` that `slice_view` takes, cannot read `byte` after any count of P's
    characters: neither an item (X) nor T starts with it (on some side of an intersection)."""
    if expr.kind is AND:
        return any(never_reads(x, byte) for x in expr.args)
    item, _lo, _hi, tail = counted_parts(expr)
    return derivative(item, byte) is EMPTY and derivative(tail, byte) is EMPTY


def live_count(expr: Lexeme, lo: int, hi: int | None) -> int | None:
    """For an intersection that `slice_view` takes as (P, lo, hi, ...): the most characters of P
    after which it can still match (None: any number), at most hi. The sides may each go on
    while their intersection cannot (`"a` against `"b` after the count); going on is monotone
    (what can match after c + 1 characters can after c), so the live counts are 0..result, and
    past lo without bound the state no longer changes. EmptinessBudgetError as `is_live`."""
    if expr.kind is not AND:
        return hi
    top = lo if hi is None else hi
    if is_live(after_chars(expr, top)):
        return hi
    low, high = -1, top  # live at low (or none when -1), dead at high
    while high - low > 1:
        mid = (low + high) // 2
        if is_live(after_chars(expr, mid)):
            low = mid
        else:
            high = mid
    return max(low, 0)


class CharSlice:
    """The tokens that are whole characters of a set P, by count.

    `upto[c]`: int bit set of those of at most `window` bytes with at most c characters;
    `counts[k]`: 1 + the characters of key k when it is one of them, else 0;
    `outside_before[k]`: how many keys before key k are not in the slice (a subtree holds only
    slice tokens when the count is equal at both ends of its key range).
    """

    def __init__(self, tokens: list[bytes], ids: list, vocab_size: int, window: int, plain: Lexeme):
        fits = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in plain.args[0]) + "]*").fullmatch
        counts = [0] * len(tokens)  # characters + 1 of a slice token, 0 for the others
        for k, data in enumerate(tokens):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if fits(text):
                counts[k] = len(text) + 1
        self.counts = counts
        self.lengths = [len(data) for data in tokens]
        self.outside_before = list(accumulate((1 if c == 0 else 0 for c in counts), initial=0))
        by_count = [bytearray((vocab_size + 7) // 8) for _ in range(window + 1)]
        for k, c in enumerate(counts):
            if c and len(tokens[k]) <= window:
                out = by_count[c - 1]
                for t in ids[k]:
                    out[t >> 3] |= 1 << (t & 7)
        upto = []
        acc = 0
        for out in by_count:
            acc |= int.from_bytes(out, "little")
            upto.append(acc)
        self.upto = upto
        self.window = window
        #: an ASCII byte that is a character of P (every character of P leads to the same state),
        #: None when P has none
        self.plain_byte = next((b for b in range(0x80) if fits(chr(b))), None)
        self._tokens = tokens
        self._fits_one = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in plain.args[0]) + "]").fullmatch
        self._leads: dict[tuple[int, int], tuple[int, int]] = {}
        self._mixed: list[int] | None = None
        self._exits: list[list[int]] | None = None

    def lead(self, key: int, start: int) -> tuple[int, int]:
        """(characters, bytes) of the longest run of whole characters of P at the start of
        key `key`'s bytes from offset `start` (cached: asked of the few long tokens)."""
        found = self._leads.get((key, start))
        if found is None:
            text = self._tokens[key][start:].decode("utf-8", "surrogateescape")
            fits = self._fits_one
            n = 0
            for ch in text:
                if "\udc80" <= ch <= "\udcff" or not fits(ch):  # (an escaped byte: not a whole character)
                    break
                n += 1
            found = self._leads[(key, start)] = (n, len(text[:n].encode("utf-8")))
        return found

    def alive(self, hi: int | None, before: int) -> int:
        """The slice tokens of at most `before + hi` characters (all of them for hi None)."""
        if hi is None:
            return self.upto[-1]
        return self.upto[min(before + hi, len(self.upto) - 1)]

    def mixed_nodes(self, trie: Any) -> list[int]:
        """The nodes of `trie` (its keys are `tokens`) whose subtree holds a key outside the
        slice, ascending (pre-order): the only ones a walk of string contents visits. Built once."""
        found = self._mixed
        if found is None:
            before, kb, ends = self.outside_before, trie.keys_before, trie.ends
            found = self._mixed = [i for i in range(1, len(ends)) if before[kb[i]] != before[kb[ends[i]]]]
        return found

    def exit_nodes(self, trie: Any) -> list[list[int]]:
        """By character count c (up to `window`): the nodes of `trie` within the slice (every key
        below is a slice token), with children, at most `window` deep, whose path is c whole
        characters, ascending: where a walk of string contents may end a lexeme that may be
        empty after its characters (`C{lo,hi}` alone). Built once."""
        found = self._exits
        if found is None:
            before, kb, ends, depths, labels, children = (self.outside_before, trie.keys_before, trie.ends, trie.depths,
                                                          trie.labels, trie.children)
            found = self._exits = [[] for _ in range(self.window + 1)]
            count = [0] * (trie.max_depth + 1)
            continuation = ((1 << 0xC0) - 1) ^ ((1 << 0x80) - 1)
            window = self.window
            for i in range(1, len(ends)):
                d = depths[i]
                count[d] = count[d - 1] + (0 if 0x80 <= labels[i] <= 0xBF else 1)
                if (d <= window and children[i] and not children[i] & continuation
                        and before[kb[i]] == before[kb[ends[i]]]):
                    found[count[d]].append(i)
        return found

    def keys_alive(self, hi: int | None, before: int, lo_key: int, hi_key: int) -> list[int]:
        """The keys lo_key..hi_key-1 of at most `window` bytes in the slice, of at most
        `before + hi` characters (a few keys: cheaper than a vocabulary-wide bit set)."""
        limit = len(self.upto) if hi is None else min(before + hi + 1, len(self.upto))
        counts, lengths = self.counts, self.lengths
        window = self.window
        return [k for k in range(lo_key, hi_key) if 0 < counts[k] <= limit and lengths[k] <= window]

    def pure(self, lo_key: int, hi_key: int) -> bool:
        """Keys lo_key..hi_key-1 are all slice tokens."""
        before = self.outside_before
        return before[lo_key] == before[hi_key]


def chars_in(data: Any) -> int:
    """How many UTF-8 characters start in `data` (bytes that are not continuation bytes)."""
    return sum(1 for b in data if not 0x80 <= b <= 0xBF)
