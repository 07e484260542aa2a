"""minLength/maxLength of a patterned string checked on the values, where the grammar path
cannot write them into the pattern's lexeme.

A `pattern` under a long maxLength (AWS ARNs: maxLength 1,011-2,048) is, as one automaton, the
pattern's states times every length: tens of thousands of states, past what a lexeme is written
as. `compile_json_schema` can instead write the pattern alone and leave the lengths to the
values check (value_checks.ValueChecks finds where such strings stand). `LengthAutomaton` is the
pattern over the string's JSON text (code points), each state paired with its place in a JSON
escape (an escape is one character), and knows for each length L the states from which some
text of exactly L characters ends the string (`_levels`: the sets repeat with a period, so few
are kept). A guide then refuses a token that passes maxLength or leaves no ending within
minLength..maxLength, and `find_violation` checks lengths of whole documents.

Taken only where the check can prove the guide and the grammar agree on the language without
lengths: one alternative accepts strings at each such place, with exactly one `pattern` (no
lookahead, no format, enum or const) and the lengths (`lengths_refusal`).
"""

from __future__ import annotations

import functools
from typing import Any

from ..errors import StateLimitError
from ..regex.char_dfa import compile_char_dfa
from .patterns import PatternError, pattern_to_string_body
from .text import has_lookahead

__all__ = ["LengthAutomaton", "automata_refusal", "length_automaton", "length_owners", "lengths_refusal", "string_constraints"]

MAX_LENGTH_STATES = 4_000  # pattern states the check takes (times the 6 places in an escape)
_BACKSLASH, _U = 0x5C, 0x75
_KEYWORDS = ("pattern", "format", "enum", "const", "minLength", "maxLength")


def string_constraints(objs: list[Any]) -> dict[str, list]:
    """The string keywords of schema objects `objs` (one alternative): keyword -> values."""
    out: dict[str, list] = {}
    for o in objs:
        if isinstance(o, dict):
            for k in _KEYWORDS:
                if k in o:
                    out.setdefault(k, []).append(o[k])
    return out


def lengths_refusal(alternatives: list[list[Any]]) -> str | None:
    """Why the lengths of the strings at a place whose string alternatives are `alternatives`
    (each the schema objects that apply together) cannot be checked on the values; None: they can."""
    if len(alternatives) != 1:
        return "several alternatives accept strings there"
    found = string_constraints(alternatives[0])
    if len(found.get("pattern", [])) != 1:
        return "a length is checked on the values only beside exactly one pattern"
    for k in ("format", "enum", "const"):
        if k in found:
            return f"{k!r} beside the lengths"
    try:
        body = pattern_to_string_body(found["pattern"][0])
    except PatternError as exc:
        return str(exc)
    if body is None or has_lookahead(body):
        return "a pattern with a lookahead beside the lengths"
    return None


def length_owners(alternatives: list[list[tuple[str, Any]]]) -> tuple[list[str], str | None]:
    """The schema objects (pointers) with min/maxLength among a place's string `alternatives`
    (each the (pointer, object) pairs that apply together), and why their lengths could not be
    checked on the values there (None: they can)."""
    owners = sorted({p for objs in alternatives for p, o in objs
                     if isinstance(o, dict) and ("minLength" in o or "maxLength" in o)})
    if not owners:
        return owners, None
    return owners, lengths_refusal([[o for _, o in objs] for objs in alternatives])


def length_automaton(objs: list[Any]) -> "LengthAutomaton":
    """The automaton of strings under schema objects `objs` (one alternative with one pattern:
    `lengths_refusal`), their lengths the largest minLength and smallest maxLength."""
    found = string_constraints(objs)
    lo = max((v for v in found.get("minLength", []) if isinstance(v, int)), default=0)
    his = [v for v in found.get("maxLength", []) if isinstance(v, int)]
    return _automaton(found["pattern"][0], lo, min(his) if his else None)


def automata_refusal(places: list[list[Any]]) -> str | None:
    """Build the automaton of each place (the schema objects of its one string alternative);
    why the lengths check cannot be made, if one fails (None: all built)."""
    for objs in places:
        try:
            length_automaton(objs)
        except (StateLimitError, PatternError) as exc:
            return f"the pattern's automaton for the lengths check: {exc}"
    return None


@functools.lru_cache(maxsize=64)
def _automaton(pattern: str, lo: int, hi: int | None) -> "LengthAutomaton":
    return LengthAutomaton(pattern, lo, hi)


class LengthAutomaton:
    """The pattern of one place's strings over their JSON text, with its length bounds (see the
    module docstring). States are `state * 6 + place in an escape` (0: none open)."""

    def __init__(self, pattern: str, lo: int, hi: int | None):
        body = pattern_to_string_body(pattern)
        self.dfa = compile_char_dfa(body, max_states=MAX_LENGTH_STATES)
        self.lo, self.hi = lo, hi
        n = self.dfa.num_states * 6
        pre0: list[set[int]] = [set() for _ in range(n)]
        pre1: list[set[int]] = [set() for _ in range(n)]
        for q, row in enumerate(self.dfa.edges):
            for lo_cp, hi_cp, t in row:
                for e in range(6):
                    for nxt, w in _escape_moves(e, lo_cp, hi_cp):
                        (pre1 if w else pre0)[t * 6 + nxt].add(q * 6 + e)
        self._pre0, self._pre1 = pre0, pre1
        self._levels, self._first, self._period = _levels(
            _closure({q * 6 for q in self.dfa.finals}, pre0), pre0, pre1, hi)
        self._cache: dict[tuple[int, int], bool] = {}
        # the longest of the shortest endings of the states a text can reach (None: one of them
        # cannot end within the bound at all; then every token is tried, guides.value_checks)
        shortest = self._minimum()
        reached = [shortest[s] for s in self._reachable()]
        self.longest_minimum = None if None in reached else max(reached, default=0)

    def start(self) -> int:
        return 0

    def step(self, state: int, code_point: int) -> tuple[int, int]:
        """(next state or -1, characters added: 0 or 1) after one code point of JSON text."""
        q, e = divmod(state, 6)
        t = self.dfa.step(q, code_point)
        if t < 0:
            return -1, 0
        for nxt, w in _escape_moves(e, code_point, code_point):
            return t * 6 + nxt, w
        return -1, 0  # pragma: no cover - every place has a move for every code point

    def at_length(self, length: int) -> frozenset[int]:
        """The states from which some text of exactly `length` characters ends the string."""
        if length < len(self._levels):
            return self._levels[length]
        if self._period == 0:
            return frozenset()
        return self._levels[self._first + (length - self._first) % self._period]

    def viable(self, state: int, count: int) -> bool:
        """Can the string, `count` characters long in `state`, still end within lo..hi?"""
        key = (state, count)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > 100_000:
                self._cache.clear()
            a = max(0, self.lo - count)
            b = (self.hi - count) if self.hi is not None else a + len(self._levels) + self._period
            found = self._cache[key] = any(state in self.at_length(n) for n in range(a, b + 1))
        return found

    def viable_after(self, state: int, count: int, lo: int, hi: int) -> bool:
        """`viable` once one more character, a code point in lo..hi (a UTF-8 character begun), is read."""
        q, e = divmod(state, 6)
        if e:
            return False  # (escapes are ASCII)
        return any(self.viable(t * 6, count + 1) for a, b, t in self.dfa.edges[q] if a <= hi and b >= lo)

    def ends(self, state: int, count: int) -> bool:
        """Is the text so far, `count` characters in `state`, a whole string of the place?"""
        return state in self.at_length(0) and state % 6 == 0 and self.lo <= count and \
            (self.hi is None or count <= self.hi)

    def _reachable(self) -> set[int]:
        """The states some text reaches from the start (escapes open only where one can be)."""
        seen, todo = {0}, [0]
        while todo:
            q, e = divmod(todo.pop(), 6)
            for lo, hi, t in self.dfa.edges[q]:
                for nxt, _ in _escape_moves(e, lo, hi):
                    if t * 6 + nxt not in seen:
                        seen.add(t * 6 + nxt)
                        todo.append(t * 6 + nxt)
        return seen

    def _minimum(self) -> list[int | None]:
        """The shortest ending of each state (None: none within the bound)."""
        out: list[int | None] = [None] * (self.dfa.num_states * 6)
        for n in range(len(self._levels) + self._period):
            for s in self.at_length(n):
                if out[s] is None:
                    out[s] = n
        return out


def _escape_moves(e: int, lo: int, hi: int) -> list[tuple[int, int]]:
    """(next place in an escape, characters added) for the code points lo..hi read at place `e`:
    0 no escape open, 1 after a backslash, 2-5 the hex digits of \\uXXXX."""
    if e == 0:
        out = [(1, 1)] if lo <= _BACKSLASH <= hi else []
        return out + ([(0, 1)] if (lo, hi) != (_BACKSLASH, _BACKSLASH) else [])
    if e == 1:
        out = [(2, 0)] if lo <= _U <= hi else []
        return out + ([(0, 0)] if (lo, hi) != (_U, _U) else [])
    return [((e + 1) % 6, 0)]


def _closure(states: set[int], pre0: list[set[int]]) -> frozenset[int]:
    """`states` and every state a path of escape characters (no length) leads from into them."""
    seen, todo = set(states), list(states)
    while todo:
        for p in pre0[todo.pop()]:
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return frozenset(seen)


def _levels(first: frozenset[int], pre0: list[set[int]], pre1: list[set[int]],
            hi: int | None) -> tuple[list[frozenset[int]], int, int]:
    """The state sets at lengths 0, 1, ... until one repeats (then (levels, where the repeated
    part starts, its period)) or past `hi` (period 0: none beyond)."""
    levels = [first]
    seen = {first: 0}
    while hi is None or len(levels) <= hi:
        prev = levels[-1]
        nxt = _closure({p for s in prev for p in pre1[s]}, pre0)
        if nxt in seen:
            return levels, seen[nxt], len(levels) - seen[nxt]
        seen[nxt] = len(levels)
        levels.append(nxt)
        if len(levels) > 20_000:
            raise StateLimitError("string lengths: more than 20,000 distinct length levels")
    return levels, len(levels), 0
