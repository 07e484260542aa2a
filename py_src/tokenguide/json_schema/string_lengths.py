"""minLength/maxLength of a patterned string checked on the values, where the engine path
cannot write them into the pattern's lexeme.

A `pattern` under a long maxLength (AWS ARNs: maxLength 1,011-2,048) is, as one automaton, the
pattern's states times every length: tens of thousands of states, past what a lexeme is written
as. `compile_json_schema` can instead write the pattern alone and leave the lengths to the
values check (value_checks.ValueChecks finds where such strings stand). `LengthAutomaton` is the
pattern's byte automaton over the string's JSON text, quotes included, each state paired with its place in a JSON
escape (an escape is one character), and knows for each length L the states from which some
text of exactly L characters ends the string (`_levels`: the sets repeat with a period, so few
are kept). A guide then refuses a token that passes maxLength or leaves no ending within
minLength..maxLength, and `find_violation` checks lengths of whole documents.

Taken only where the check can prove the guide and the grammar agree on the language without
lengths: the alternatives that accept strings at each such place hold the same string keywords
(one alternative, or one schema reached along several), with exactly one `pattern` (no
known format, enum or const) and the lengths (`lengths_refusal`); the automaton is the one the
grammar's lexeme for the pattern is (lookaheads included).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..errors import StateLimitError
from ..regex import dfa as dfa_mod
from .patterns import PatternError, pattern_to_string_body, pattern_within
from .formats import KNOWN_FORMATS

__all__ = ["LengthAutomaton", "automata_refusal", "length_automaton", "length_owners", "lengths_refusal", "string_constraints"]

MAX_LENGTH_STATES = 10_000  # automaton states the check builds its pattern through (times the 6 places in an escape)
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
    found = string_constraints(alternatives[0]) if alternatives else {}
    if len(alternatives) != 1 and any(_canon(string_constraints(a)) != _canon(found) for a in alternatives[1:]):
        return "several alternatives accept strings there, with different string keywords"
    if len(found.get("pattern", [])) != 1:
        return "a length is checked on the values only beside exactly one pattern"
    for k in ("format", "enum", "const"):
        if k in found and (k != "format" or any(f in KNOWN_FORMATS for f in found[k])):
            return f"{k!r} beside the lengths"
    try:
        body = pattern_to_string_body(found["pattern"][0])
    except PatternError as exc:
        return str(exc)
    return "a pattern that matches no string" if body is None else None


def _canon(found: dict[str, list]) -> dict[str, list]:
    """String keywords compared as sets of values (the same schema reached twice holds them twice)."""
    return {k: sorted({json.dumps(v, sort_keys=True) for v in vals}) for k, vals in found.items()}


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
    """The pattern of one place's strings as a byte automaton of their JSON text, quotes
    included, with its length bounds (see the module docstring). States are `state * 6 + place
    in an escape` (0: none open); a character counts at its first byte, an escape at its backslash."""

    def __init__(self, pattern: str, lo: int, hi: int | None):
        body = pattern_within(pattern, hi)
        self.dfa = dfa_mod.compile_regex('"' + body + '"', max_states=MAX_LENGTH_STATES)
        self.lo, self.hi = lo, hi
        d = self.dfa
        n = d.num_states * 6
        pre0: list[set[int]] = [set() for _ in range(n)]
        pre1: list[set[int]] = [set() for _ in range(n)]
        kinds = self._kinds = [sorted({_kind(b) for b in d.class_bytes[c]}) for c in range(d.num_classes)]
        for q, row in enumerate(d.table):
            for c, t in enumerate(row):
                if t < 0:
                    continue
                for e in range(6):
                    for kind in kinds[c]:
                        nxt, w = _MOVES[e][kind]
                        (pre1 if w else pre0)[t * 6 + nxt].add(q * 6 + e)
        self._levels, self._first, self._period = _levels(_closure({f * 6 for f in d.finals}, pre0), pre0, pre1, hi)
        self._cache: dict[tuple[int, int], bool] = {}
        self.begin = d.next_state(0, 0x22) * 6  # after the opening quote
        # the longest of the shortest endings of the states a text can reach (None: one of them
        # cannot end within the bound at all; then every token is tried, guides.value_checks)
        shortest = self._minimum()
        reached = [shortest[x] for x in self._reachable()]
        self.longest_minimum = None if None in reached else max(reached, default=0)

    def step(self, state: int, byte: int) -> tuple[int, int]:
        """(next state or -1, characters added: 0 or 1) after one byte of the JSON text."""
        q, e = divmod(state, 6)
        t = self.dfa.next_state(q, byte)
        if t < 0:
            return -1, 0
        nxt, w = _MOVES[e][_kind(byte)]
        return t * 6 + nxt, w

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

    def ends(self, state: int, count: int) -> bool:
        """Has the text, `count` characters long, just closed as a whole string of the place?"""
        return state // 6 in self.dfa.finals and state % 6 == 0 and self.lo <= count and \
            (self.hi is None or count <= self.hi)

    def _reachable(self) -> set[int]:
        """The states some text reaches from the opening quote on."""
        seen, todo = {self.begin}, [self.begin]
        while todo:
            q, e = divmod(todo.pop(), 6)
            for c, t in enumerate(self.dfa.table[q]):
                for kind in self._kinds[c] if t >= 0 else ():
                    nxt = t * 6 + _MOVES[e][kind][0]
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
        return seen

    def _minimum(self) -> list[int | None]:
        """The shortest ending of each state (None: none within the bound)."""
        out: list[int | None] = [None] * (self.dfa.num_states * 6)
        for n in range(len(self._levels) + self._period):
            for x in self.at_length(n):
                if out[x] is None:
                    out[x] = n
        return out


_QUOTE, _OPEN, _UNICODE, _CONTINUATION, _OTHER = range(5)
#: place in an escape -> byte kind -> (next place, characters added): 0 no escape open, 1 after a
#: backslash, 2-5 the hex digits of \\uXXXX; a UTF-8 continuation byte and the closing quote add none
_MOVES = [
    [(0, 0), (1, 1), (0, 1), (0, 0), (0, 1)],
    [(0, 0), (0, 0), (2, 0), (0, 0), (0, 0)],
    *[[((e + 1) % 6, 0)] * 5 for e in range(2, 6)],
]


def _kind(byte: int) -> int:
    return _QUOTE if byte == 0x22 else _OPEN if byte == _BACKSLASH else _UNICODE if byte == _U else \
        _CONTINUATION if 0x80 <= byte < 0xC0 else _OTHER


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
