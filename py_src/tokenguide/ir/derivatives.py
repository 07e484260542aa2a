"""A lazy byte automaton of a lexeme by Brzozowski derivatives, as llguidance's derivre builds one.

A state IS a hash-consed expression: its number is the lexeme's id (`lexemes.lexeme_of(state)`),
the state after byte b is the derivative of the expression by b, and a state is final when its
expression matches the empty string. So every automaton in the process shares one table: two
grammars with the same lexeme share its rows, and caches keyed on states (token sets per
vocabulary) serve both.

Bytes, not code points: expressions are over code points, but a token may end inside a character.
The derivative of a code-point set by the lead byte of an n-byte character is a `rest_of_char`
node: the n continuation bytes still to come, as the set of base-64 numbers their 6-bit payloads
may spell (the code points of the set inside that lead byte's block, minus the block's start).
Its derivative by a continuation byte keeps the slice of numbers that byte allows; the last byte
gives the empty string or nothing. Invalid UTF-8 (stray continuation bytes, overlong forms,
surrogates, C0, C1, F5..FF) has no derivative but EMPTY in a code-point set, so texts stay valid;
`complement_bytes` (under `neg`, always intersected with every valid text) is the only kind that
reads other bytes.

Rows: derivatives are computed once per byte CLASS of an expression (the bytes that lead to the
same derivative, refined bottom-up from its character sets), then spread to 256 entries. An entry
is -1 exactly when the derivative matches nothing: structurally EMPTY, or, for expressions holding
`&` or `~`, when a search over their derivatives finds no final one (`is_live`, bounded by a
budget). So every state a row gives can still reach a final state.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque

from ..errors import NotFoundError, StateLimitError
from .lexemes import (
    ALT, AND, CHARS, EMPTY, EPSILON, NOT, REP, REST, SEQ, Lexeme, alt, complement_bytes, conj, deep_call,
    lexeme_count, lexeme_of, rep, rest_of_char, seq,
)

__all__ = [
    "DEFAULT_MAX_STATES", "EMPTINESS_BUDGET", "EmptinessBudgetError", "LexemeDFA", "LexemeStateLimitError",
    "byte_classes", "derivative", "is_live",
]

#: Rows one `LexemeDFA` may build (each about 2 KiB while cached).
DEFAULT_MAX_STATES = 100_000
#: Expressions one emptiness search may visit before it gives up.
EMPTINESS_BUDGET = 20_000
#: 256-entry rows kept process-wide (about 2 KiB each); past it the cache starts again (rows are
#: rebuilt from the per-class derivatives, which stay).
ROW_CACHE_LIMIT = 1 << 16

_MAX_CP = 0x10FFFF


class LexemeStateLimitError(StateLimitError):
    """A `LexemeDFA` built more than its `max_states` rows."""


class EmptinessBudgetError(StateLimitError):
    """Deciding whether an expression with `&` or `~` matches anything took more than the budget."""


# lead byte, first code point of its block, continuation bytes, lowest and highest valid code point
_LEAD_BLOCKS = []
for _b in range(0xC2, 0xF5):
    _n = 1 if _b < 0xE0 else 2 if _b < 0xF0 else 3
    _base = (_b & (0x3F >> _n)) << (6 * _n)
    _lo = max(_base, (0x80, 0x800, 0x10000)[_n - 1])
    _hi = min(_base + 64**_n - 1, _MAX_CP)
    _LEAD_BLOCKS.append((_b, _base, _n, _lo, _hi))

_ONE = bytes(256)  # one class: every byte
_parts: dict[int, bytes] = {}  # expression id -> its byte classes (class of byte b at [b])
_derivs: dict[int, list] = {}  # expression id -> derivative per class (None until computed)
_live: dict[int, bool] = {}  # expression id -> matches something (only for `boolean` ones)
_rows: dict[int, list[int]] = {}
_interned: dict[bytes, bytes] = {_ONE: _ONE}
_refined: dict[tuple[bytes, bytes], bytes] = {}
_reps: dict[bytes, list[int]] = {}


def _intern(part: bytes) -> bytes:
    return _interned.setdefault(part, part)


def _refine(p: bytes, q: bytes) -> bytes:
    """The coarsest partition finer than both, classes numbered by their first byte."""
    if p is q or q is _ONE:
        return p
    if p is _ONE:
        return q
    key = (p, q)
    found = _refined.get(key)
    if found is None:
        labels: dict[tuple[int, int], int] = {}
        found = _intern(bytes([labels.setdefault(pair, len(labels)) for pair in zip(p, q)]))
        _refined[key] = found
    return found


def _representatives(part: bytes) -> list[int]:
    found = _reps.get(part)
    if found is None:
        found = []
        for b, c in enumerate(part):
            if c == len(found):
                found.append(b)
        _reps[part] = found
    return found


def _clip(ranges: tuple, lo: int, hi: int, shift: int) -> tuple:
    """The parts of sorted disjoint `ranges` within lo..hi, moved down by `shift`."""
    i = bisect_right(ranges, (lo, _MAX_CP + 1)) - 1
    if i < 0 or ranges[i][1] < lo:
        i += 1
    out = []
    n = len(ranges)
    while i < n and ranges[i][0] <= hi:
        a, b = ranges[i]
        out.append((max(a, lo) - shift, min(b, hi) - shift))
        i += 1
    return tuple(out)


def _leaf_targets(e: Lexeme) -> list[Lexeme]:
    """The 256 derivatives of a code-point set or a rest of a character."""
    targets = [EMPTY] * 256
    if e.kind is CHARS:
        ranges = e.args[0]
        for lo, hi in ranges:
            if lo >= 0x80:
                break
            for b in range(lo, min(hi, 0x7F) + 1):
                targets[b] = EPSILON
        if ranges and ranges[-1][1] >= 0x80:
            for lead, base, n, lo, hi in _LEAD_BLOCKS:
                values = _clip(ranges, lo, hi, base)
                if values:
                    targets[lead] = rest_of_char(values, n)
    else:
        values, n = e.args
        size = 64 ** (n - 1)
        for c in range(64):
            targets[0x80 + c] = rest_of_char(_clip(values, c * size, c * size + size - 1, c * size), n - 1)
    return targets


def byte_classes(e: Lexeme) -> bytes:
    """256 class numbers: bytes with the same number have the same derivative (numbered from 0
    in the order of their first byte)."""
    return deep_call(_classes, e)


def derivative(e: Lexeme, byte: int) -> Lexeme:
    """The expression for what may follow `byte` after a text of `e` (EMPTY: nothing)."""
    return deep_call(_derivative, e, byte)


def _classes(e: Lexeme) -> bytes:
    found = _parts.get(e.id)
    if found is not None:
        return found
    kind = e.kind
    if kind is CHARS or kind is REST:
        targets = _leaf_targets(e)
        labels: dict[int, int] = {}
        part = _intern(bytes([labels.setdefault(t.id, len(labels)) for t in targets]))
        cache: list = [None] * len(labels)
        for b, t in enumerate(targets):
            cache[part[b]] = t
        _derivs[e.id] = cache
        _parts[e.id] = part
        return part
    if kind is SEQ:  # along the sequence while its items may be empty (no recursion down it)
        part = _ONE
        x = e
        while x.kind is SEQ:
            head, x = x.args
            part = _refine(part, _classes(head))
            if not head.nullable:
                break
        else:
            part = _refine(part, _classes(x))
    elif kind is ALT or kind is AND:
        part = _ONE
        for x in e.args:
            part = _refine(part, _classes(x))
    elif kind is REP or kind is NOT:
        part = _classes(e.args[0])
    else:  # EPS
        part = _ONE
    _derivs[e.id] = [None] * len(_representatives(part))
    _parts[e.id] = part
    return part


def _derivative(e: Lexeme, byte: int) -> Lexeme:
    part = _parts.get(e.id)
    if part is None:
        part = _classes(e)
    cache = _derivs[e.id]
    c = part[byte]
    found = cache[c]
    if found is None:
        found = cache[c] = _compute(e, byte)
    return found


def _compute(e: Lexeme, b: int) -> Lexeme:
    kind = e.kind
    if kind is SEQ:  # D(h t) = D(h) t | D(t) if h is nullable, along the sequence without recursion
        options = []
        x = e
        while x.kind is SEQ:
            head, x = x.args
            options.append(seq(_derivative(head, b), x))
            if not head.nullable:
                return alt(*options)
        options.append(_derivative(x, b))
        return alt(*options)
    if kind is ALT:
        return alt(*[_derivative(x, b) for x in e.args])
    if kind is AND:
        parts = []
        for x in e.args:
            d = _derivative(x, b)
            if d is EMPTY:
                return EMPTY
            parts.append(d)
        return conj(*parts)
    if kind is REP:
        x, lo, hi = e.args
        d = _derivative(x, b)
        if d is EMPTY:
            return EMPTY
        return seq(d, rep(x, lo - 1 if lo else 0, None if hi is None else hi - 1))
    if kind is NOT:
        return complement_bytes(_derivative(e.args[0], b))
    return EMPTY  # EPS (CHARS and REST are filled in by byte_classes)


def is_live(e: Lexeme, budget: int = EMPTINESS_BUDGET) -> bool:
    """Whether `e` matches some byte string. Exact: without `&` and `~` a normalised expression
    is empty only when it is EMPTY; with them, a breadth-first search over derivatives looks for a
    nullable one (EmptinessBudgetError past `budget` expressions). Results are remembered."""
    return deep_call(_is_live, e, budget)


def _is_live(e: Lexeme, budget: int) -> bool:
    if e is EMPTY:
        return False
    if not e.boolean:
        return True
    known = _live.get(e.id)
    if known is not None:
        return known
    parent: dict[int, Lexeme | None] = {e.id: None}
    queue = deque([e])
    while queue:
        x = queue.popleft()
        if x.nullable:
            return _mark_path(x, parent)
        for r in _representatives(_classes(x)):
            d = _derivative(x, r)
            if d is EMPTY or d.id in parent:
                continue
            known = _live.get(d.id) if d.boolean else True
            if known is False:
                continue
            parent[d.id] = x
            if known:
                return _mark_path(d, parent)
            if len(parent) > budget:
                raise EmptinessBudgetError(
                    f"deciding whether lexeme #{e.id} (with & or ~) can still match visited more than "
                    f"{budget:,} derivatives; simplify the intersection / complement or raise the budget"
                )
            queue.append(d)
    for i in parent:  # no derivative of any of them is nullable
        _live[i] = False
    return False


def _mark_path(x: Lexeme, parent: dict[int, Lexeme | None]) -> bool:
    node: Lexeme | None = x
    while node is not None:
        _live[node.id] = True
        node = parent[node.id]
    return True


def _row(e: Lexeme, budget: int) -> list[int]:
    row = _rows.get(e.id)
    if row is None:
        part = _parts.get(e.id)
        if part is None:
            part = _classes(e)
        targets = []
        for r in _representatives(part):
            d = _derivative(e, r)
            targets.append(d.id if d is not EMPTY and (not d.boolean or _is_live(d, budget)) else -1)
        row = list(map(targets.__getitem__, part))
        if len(_rows) >= ROW_CACHE_LIMIT:
            _rows.clear()
        _rows[e.id] = row
    return row


class LexemeDFA:
    """The byte automaton of a lexeme, with `regex.lazy.LazyByteDFA`'s interface.

    `initial` is the lexeme's id; `row(s)[b]` is the state after byte b (-1 when no text can
    follow); `is_final(s)`; `num_states` is the number of expressions in the process, so every
    state is below it (states are shared ids, not numbered from 0 per automaton; `visited` counts
    this automaton's rows). Raises LexemeStateLimitError past `max_states` rows.
    """

    def __init__(self, lexeme: Lexeme, *, max_states: int = DEFAULT_MAX_STATES,
                 emptiness_budget: int = EMPTINESS_BUDGET):
        self.lexeme = lexeme
        self.initial = lexeme.id
        self.max_states = max_states
        self.emptiness_budget = emptiness_budget
        self._rows: dict[int, list[int]] = {}

    def row(self, state: int) -> list[int]:
        """The 256 next states of `state` (computed on first use, shared process-wide)."""
        found = self._rows.get(state)
        if found is None:
            if not 0 <= state < lexeme_count():
                raise NotFoundError(f"LexemeDFA.row: no state {state!r}")
            if len(self._rows) >= self.max_states:
                raise LexemeStateLimitError(
                    f"the automaton of lexeme #{self.initial} needs more than max_states={self.max_states:,} "
                    "states; simplify the lexeme or raise max_states"
                )
            found = self._rows[state] = deep_call(_row, lexeme_of(state), self.emptiness_budget)
        return found

    def is_final(self, state: int) -> bool:
        """Whether the text read so far is a whole match."""
        return lexeme_of(state).nullable

    def is_live(self, state: int) -> bool:
        """Whether some continuation from `state` is a match (every state a row gives is)."""
        return is_live(lexeme_of(state), self.emptiness_budget)

    @property
    def num_states(self) -> int:
        """An upper bound of every state number (the process's expression count)."""
        return lexeme_count()

    @property
    def visited(self) -> int:
        """Rows this automaton has asked for."""
        return len(self._rows)

    def walk(self, data: bytes, state: int | None = None) -> int:
        """State after reading `data` from `state` (default the initial one), or -1 when it dies."""
        if state is None:
            state = self.initial
        for b in data:
            state = self.row(state)[b]
            if state < 0:
                return -1
        return state

    def accepts(self, data: bytes) -> bool:
        """Whether `data` is a whole match."""
        state = self.walk(data)
        return state >= 0 and self.is_final(state)
