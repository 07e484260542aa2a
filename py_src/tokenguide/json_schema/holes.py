"""Compound holes: free-form values inside value lexemes, written out to a bounded depth.

A value lexeme (RuleSink.value_lexeme) is one exact automaton; a free-form value in it is
not regular. But any regular set of JSON values nests only so deep, so a free-form value
needs writing out only down to nesting level k of the lexeme (`free_form_text`, W(k - its
level)); below, one *hole* character
stands for one complete JSON array or object (RuleSink.compound_value, nesting without
limit). Its text starts with `[` or `{` and is prefix-free (it ends at its matching bracket).

Lookaheads over such text are exact only when every text has one decomposition into
characters and holes. `decomposition_conflict` checks that soundly: one lookahead-free
automaton U of the lexeme's text with its assertions removed, and, for every assertion, the
prefixes that reach it followed by its body and a marker. Two decompositions of one text
share an extended prefix up to where they first differ, one reading the hole and the other
the `[` or `{` it starts with; so a state of U (reached without the marker) with a move on
the hole and one on `[` or `{` is where they would part. With no such state, every
lookahead sees the decomposition the main path has, and substituting the hole's language
into the automaton gives the exact language. `lexeme_text` deepens k until that holds.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import StateLimitError
from ..regex import dfa as dfa_mod
from .lexemes import HOLE_CHARS, MARKER, MAX_LEXEME_STATES, check_text_size, holes_apart, lexeme_dfa, refuse, regular_text
from .logic import CANONICAL_NUMBER
from .text import NUMBER, STRING, group_marks, has_lookahead

__all__ = ["MAX_FREE_DEPTH", "U_STATES", "decomposition_conflict", "free_form_text", "lexeme_text",
           "lookahead_free_text"]

MAX_FREE_DEPTH = 4  # nesting levels of a value lexeme above its holes, at most
_MARK = f"\\x{MARKER:02x}"
U_STATES = 4 * MAX_LEXEME_STATES  # the check refuses (conservatively) past this


def free_form_text(ws: str, k: int, hole: str, number: str = NUMBER) -> str:
    """W(k): any JSON value, its arrays and objects written out `k` levels deep, below which
    regex text `hole` stands for one complete array or object (whitespace `ws`)."""
    w = f"(?:null|true|false|{number}|{STRING}|{hole})"
    for _ in range(k):
        member = f"{STRING}{ws}:{ws}{w}"
        w = (f"(?:null|true|false|{number}|{STRING}|\\[{ws}(?:{w}(?:{ws},{ws}{w})*)?{ws}\\]"
             f"|\\{{{ws}(?:{member}(?:{ws},{ws}{member})*)?{ws}\\}})")
    return w


class _Group:
    """One `(...)` of a regex text: where it starts, its body starts and it ends (at `)`)."""

    def __init__(self, start: int, body: int, parent: "_Group | None") -> None:
        self.start, self.body, self.end = start, body, -1
        self.parent = parent
        self.bars: list[int] = []  # its `|` (its own level)
        self.children: list[_Group] = []


def _groups(text: str) -> list[_Group] | None:
    """Every group of `text`, outermost (the whole text, start -1) first; None for a group
    syntax other than `(`, `(?:`, `(?=`, `(?!` (then the caller refuses conservatively)."""
    top = _Group(-1, 0, None)
    top.end = len(text)
    out, cur = [top], top
    for i, c in group_marks(text):
        if c == "(":
            if text.startswith("(?:", i) or text.startswith("(?=", i) or text.startswith("(?!", i):
                body = i + 3
            elif text.startswith("(?", i):
                return None
            else:
                body = i + 1
            g = _Group(i, body, cur)
            cur.children.append(g)
            out.append(g)
            cur = g
        elif c == ")":
            if cur.parent is None:
                return None
            cur.end = i
            cur = cur.parent
        else:
            cur.bars.append(i)
    return out if cur is top else None


def _is_assertion(text: str, g: _Group) -> bool:
    return g.start >= 0 and text[g.start:g.start + 3] in ("(?=", "(?!")


def _repeated(text: str, g: _Group) -> bool:
    """Is group `g` followed by a quantifier that may repeat it (`*`, `+`, `{m,n}`)?"""
    return text[g.end + 1:g.end + 2] in ("*", "+", "{")


def _plain(text: str, lo: int, hi: int, assertions: list[_Group]) -> str:
    """text[lo:hi] without the assertions in it (zero-width, so their removal only widens)."""
    out, i = [], lo
    for a in assertions:
        if lo <= a.start and a.end < hi and a.start >= i:
            out.append(text[i:a.start])
            i = a.end + 1
    out.append(text[i:hi])
    return "".join(out)


def _mark_ends(text: str) -> str:
    """`text` with every `\\Z` (the end of the value, inside VALUE_END) as the marker."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            out.append(_MARK if text[i + 1:i + 2] == "Z" else text[i:i + 2])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _prefix(text: str, a: _Group, assertions: list[_Group]) -> str:
    """A regex of (a superset of) the texts read before assertion `a` is reached: in each
    enclosing group, its branch up to the child holding `a`, after any repeats of that child."""
    pieces = []
    child = a
    while child.parent is not None:
        g = child.parent
        start = max([b + 1 for b in g.bars if b < child.start], default=g.body)
        piece = _plain(text, start, child.start, assertions)
        if _repeated(text, child):
            piece += f"(?:{_plain(text, child.body, child.end, assertions)})*"
        pieces.append(piece)
        child = g
    return "".join(f"(?:{p})" for p in reversed(pieces) if p)


def lookahead_free_text(text: str) -> str | None:
    """The regex of U (see the module doc): `text` with its assertions removed, or for some
    assertion, a prefix reaching it, its body (assertions removed) and the marker. None when
    `text` has a group syntax this does not read."""
    groups = _groups(text)
    if groups is None:
        return None
    assertions = [g for g in groups if _is_assertion(text, g)]
    parts = [_plain(text, 0, len(text), assertions)]
    for a in assertions:
        body = _plain(text, a.body, a.end, assertions)
        parts.append(f"{_prefix(text, a, assertions)}(?:{body}){_MARK}")
    return _mark_ends("|".join(f"(?:{p})" for p in parts))


def decomposition_conflict(text: str, hole: int) -> int | None:
    """A state of U (see the module doc) reached without the marker that moves both on `hole`
    and on `[` or `{`: where one text could be read in two ways (-1 when U cannot be built or
    is too large, which counts as a conflict); None when there is no such state. Cached (the
    grammar path emits a schema again on retries, with the same lexeme texts)."""
    key = (text, hole, U_STATES)
    if key not in _CONFLICTS:
        if len(_CONFLICTS) >= 64:
            _CONFLICTS.clear()
        _CONFLICTS[key] = _conflict(text, hole)
    return _CONFLICTS[key]


_CONFLICTS: dict[tuple[str, int, int], int | None] = {}


def _conflict(text: str, hole: int) -> int | None:
    """decomposition_conflict, uncached."""
    u = lookahead_free_text(text)
    if u is None:
        return -1
    try:
        d = dfa_mod.compile_regex(u, max_states=U_STATES)
    except StateLimitError:
        return -1
    seen, todo = {0}, [0]
    while todo:
        q = todo.pop()
        if d.next_state(q, hole) >= 0 and (d.next_state(q, 0x5B) >= 0 or d.next_state(q, 0x7B) >= 0):
            return q
        for b in d.live_bytes(q):
            t = d.next_state(q, b)
            if b != MARKER and t not in seen:
                seen.add(t)
                todo.append(t)
    return None


def lexeme_text(sink: Any, regex: str, keyword: str, ptr: str, rule_holes: bool) -> tuple[str, dict[str, str]]:
    """The regular text of value lexeme `regex` (lexemes.regular_text) and its holes
    (placeholder -> hole text, in HOLE_CHARS order): free-form values written out down to
    level k, the least k up to MAX_FREE_DEPTH whose text `decomposition_conflict` passes;
    refused (`keyword` at `ptr`) when none does or its text uses hole characters. With
    `rule_holes`, recursive rules and value lexemes are holes too (RuleSink.union),
    otherwise refused."""
    number, previous, conflicted = NUMBER, "", False
    for k in range(MAX_FREE_DEPTH + 1):
        filled: dict[str, str] = {}
        text = regular_text(sink, regex, keyword, ptr, holes=filled if rule_holes else None,
                            free_form=_writer(sink, k, filled, number, keyword, ptr))
        if number == NUMBER and has_lookahead(text):
            number = CANONICAL_NUMBER  # lookaheads may test the free-form value's numbers
            filled = {}
            text = regular_text(sink, regex, keyword, ptr, holes=filled if rule_holes else None,
                                free_form=_writer(sink, k, filled, number, keyword, ptr))
        if not filled:
            return text, filled
        blank = dict.fromkeys(filled, "")  # (W(k) adds only string and number classes to check)
        if k == 0 and not holes_apart(regular_text(sink, regex, keyword, ptr, holes=blank if rule_holes else None,
                                                   free_form=_writer(sink, k, blank, number, keyword, ptr))):
            raise refuse("a value lexeme's text uses the characters that stand for its rules", keyword, ptr)
        compound = filled.get(sink.compound_value())
        if compound is None:
            return text, filled
        if text == previous:
            continue  # every free-form value lies deeper than k: the same text, the same conflict
        previous = text
        check_text_size(text, keyword, ptr)
        if lexeme_dfa(text) is None:  # cached for RuleSink.value_lexeme; deeper text is only larger
            if not conflicted:
                raise refuse(f"{keyword!r} makes a value whose automaton has more than {MAX_LEXEME_STATES:,} "
                             "states", keyword, ptr)
            raise refuse(f"{keyword!r} needs a lookahead over a free-form value that no text of at most "
                         f"{MAX_LEXEME_STATES:,} states tells apart from the other values", keyword, ptr)
        conflict = decomposition_conflict(text, int(compound[2:], 16))
        if conflict is None:
            return text, filled
        conflicted = True
        if conflict < 0:  # U unreadable or too large: deeper text only makes it larger
            raise refuse(f"{keyword!r} needs a lookahead over a free-form value whose holes cannot be checked "
                         "(the check's automaton is too large)", keyword, ptr)
    raise refuse(f"{keyword!r} needs a lookahead over a free-form value that no text written out "
                 f"{MAX_FREE_DEPTH} levels deep tells apart from the other values", keyword, ptr)


def _writer(sink: Any, k: int, filled: dict[str, str], number: str, keyword: str,
            ptr: str) -> Callable[[int], str]:
    """What regular_text writes for a free-form value at nesting level `level`: W(k - level),
    so that its holes are `k` levels deep in the lexeme like those of every other free-form
    value (the other branches' text at the same place then reads a hole too), with the compound
    hole, which is put in `filled` when first used (the next hole character)."""
    def write(level: int) -> str:
        ch = sink.compound_value()
        if ch not in filled:
            if len(filled) == len(HOLE_CHARS):
                raise refuse("a value lexeme with too many rules in it", keyword, ptr)
            filled[ch] = f"\\x{HOLE_CHARS[len(filled)]:02x}"
        return free_form_text(sink.ws, max(k - level, 0), filled[ch], number)
    return write
