"""multipleOf on integers, any divisor, with or without a range: a regex without lookaheads.

The canonical naturals in [lo, hi] that are multiples of m form a regular language: a digit
automaton tracks the remainder mod m (r -> 10r + d) and how the digits read so far compare with
the bounds' digits. `multiples_of` builds that automaton, minimises it and writes it back as a
regex by state elimination, so both paths (the regex path and the engine path's number rules)
take it as it is. Unbounded above, m = t k with t = 2^a 5^b goes by the last max(a, b) digits
and k's residues (`_by_suffix`), much smaller. Regexes over `MAX_MULTIPLE_CHARS` or automata
over `MAX_MINIMAL_STATES` are refused by the caller (False here).
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .automaton_regex import eliminate
from .text import alt, group

__all__ = ["multiples_of", "multiple_lcm", "digit_trie", "MAX_MULTIPLE_CHARS", "MAX_MULTIPLE_STATES"]

MAX_MULTIPLE_CHARS = 50_000  # a longer regex (large m, e.g. 97) is refused: ask for a smaller divisor
MAX_MULTIPLE_STATES = 400  # automaton states before minimisation; beyond, refused (regex too large anyway)
MAX_MINIMAL_STATES = 40  # states of the minimal automaton; beyond, state elimination outgrows the limit


def _cmp(c: int, d: int, b: int) -> int:
    """Comparison of a prefix with a bound's prefix after one more digit: -1, 0 or 1."""
    if c != 0:
        return c
    return (d > b) - (d < b)


def _automaton(lo: int, hi: int | None, m: int, residue: int = 0) -> tuple[list[dict[str, int]], set[int]] | None:
    """DFA over the digits of canonical naturals n with lo <= n <= hi and n % m == residue: (moves per
    state, accepting states), state 0 the start; None past MAX_MULTIPLE_STATES."""
    ls, hs = str(lo), None if hi is None else str(hi)
    cap = len(ls) + 1 if hs is None else len(hs)

    def key(length: int, clo: int, chi: int, r: int) -> tuple:
        # past a bound's length its comparison no longer matters; beyond the cap, length neither
        if length > len(ls):
            clo = 2
        if hs is None:
            chi = 2
            length = min(length, cap)
        return length, clo, chi, r

    ids: dict[tuple, int] = {("start",): 0}
    moves: list[dict[str, int]] = [{}]
    finals: set[int] = set()
    todo = [("start",)]
    zero = ("zero",)
    if lo == 0 and residue == 0:
        ids[zero] = 1
        moves.append({})
        finals.add(1)
        moves[0]["0"] = 1
    while todo:
        st = todo.pop()
        sid = ids[st]
        for d in range(10):
            if st == ("start",):
                if d == 0:
                    continue
                length, clo, chi, r = 0, 0, 0, 0
            else:
                length, clo, chi, r = st  # type: ignore[misc]
            nl = length + 1
            if hs is not None and nl > len(hs):
                continue
            nclo = _cmp(clo, d, int(ls[nl - 1])) if nl <= len(ls) and clo != 2 else 2
            nchi = _cmp(chi, d, int(hs[nl - 1])) if hs is not None else 2
            nxt = key(nl, nclo, nchi, (r * 10 + d) % m)
            if nxt not in ids:
                if len(ids) >= MAX_MULTIPLE_STATES:
                    return None
                ids[nxt] = len(moves)
                moves.append({})
                todo.append(nxt)
                nl2, c2, h2, r2 = nxt
                above = nl2 > len(ls) or (nl2 == len(ls) and c2 >= 0)
                below = hs is None or nl2 < len(hs) or (nl2 == len(hs) and h2 <= 0)
                if above and below and r2 == residue:
                    finals.add(ids[nxt])
            moves[sid][str(d)] = ids[nxt]
    return moves, finals


def _minimise(moves: list[dict[str, int]], finals: set[int]) -> tuple[list[dict[str, int]], set[int], int]:
    """Moore's partition refinement: (moves, finals, start) of the minimal DFA (dead state dropped)."""
    n = len(moves)
    # states that can reach a final state
    rev: list[list[int]] = [[] for _ in range(n)]
    for s, mv in enumerate(moves):
        for t in mv.values():
            rev[t].append(s)
    live = set(finals)
    stack = list(finals)
    while stack:
        for p in rev[stack.pop()]:
            if p not in live:
                live.add(p)
                stack.append(p)
    block = {s: (1 if s in finals else 0) for s in range(n) if s in live}
    while True:
        sig = {s: (block[s], tuple(block.get(moves[s].get(str(d), -1), -1) for d in range(10)))
               for s in sorted(block)}
        names: dict[tuple, int] = {}
        new = {s: names.setdefault(sig[s], len(names)) for s in sorted(block)}
        if len(names) == len(set(block.values())):
            break
        block = new
    block = new
    out: list[dict[str, int]] = [{} for _ in range(len(set(block.values())))]
    for s in block:
        for c, t in moves[s].items():
            if t in block:
                out[block[s]][c] = block[t]
    return out, {block[s] for s in finals}, block.get(0, -1)


def _digit_class(ds: list[str]) -> str:
    """Character class (or single digit) for a set of digits."""
    ds = sorted(ds)
    if len(ds) == 1:
        return ds[0]
    if len(ds) == 10:
        return "[0-9]"
    runs: list[str] = []
    i = 0
    while i < len(ds):
        j = i
        while j + 1 < len(ds) and int(ds[j + 1]) == int(ds[j]) + 1:
            j += 1
        runs.append(ds[i] if i == j else (ds[i] + ds[j] if j == i + 1 else f"{ds[i]}-{ds[j]}"))
        i = j + 1
    return "[" + "".join(runs) + "]"


def _eliminate(moves: list[dict[str, int]], finals: set[int], start: int, limit: int) -> str | None:
    """The regex of a digit automaton (moves by digit), or None past `limit` characters."""
    edges: dict[int, dict[int, str]] = {}
    for s, mv in enumerate(moves):
        by_target: dict[int, list[str]] = {}
        for c, t in mv.items():
            by_target.setdefault(t, []).append(c)
        edges[s] = {t: _digit_class(by_target[t]) for t in sorted(by_target)}
    return eliminate(edges, start, finals, limit)


def _seq(*parts: str) -> str:
    """Concatenation of regexes, alternations grouped."""
    return "".join(p if "|" not in p or (p.startswith("(?:") and p.endswith((")", ")?", ")*")) and _one(p))
                   else f"(?:{p})" for p in parts)


def _one(p: str) -> bool:
    """Is `p` one group, optionally quantified (so it concatenates safely)?"""
    core = p[:-1] if p.endswith(("?", "*")) else p
    return group(core) == core


def _residue_regex(m: int, residue: int) -> str | None | bool:
    """Canonical naturals n >= 1 with n % m == residue (False: too large)."""
    if m == 1:
        return "[1-9][0-9]*"
    return _written(_automaton(1, None, m, residue))


def _by_suffix(lo: int, m: int) -> str | None | bool:
    """Multiples of m = t k (t = 2^a 5^b, k prime to 10) from lo < 10^j on (j = max(a, b)):
    those below 10^j listed, the others as a prefix P >= 1 and j last digits S with t | S and
    P 10^j + S = 0 mod k, one prefix language per residue of P mod k."""
    k = m // (2 ** _power(m, 2) * 5 ** _power(m, 5))
    t = m // k
    j = 0
    while 10 ** j % t:
        j += 1
    small = [str(n) for n in range(lo, 10 ** j) if n % m == 0]
    parts: list[str | None] = [digit_trie(small)] if small else []
    for r in range(k):
        suffixes = [str(x).zfill(j) for x in range(0, 10 ** j, t) if (r * 10 ** j + x) % k == 0]
        if not suffixes:
            continue
        prefix = _residue_regex(k, r)
        if prefix is False:
            return False
        if prefix is not None:
            parts.append(_seq(prefix, digit_trie(suffixes)))
    out = alt(parts)
    return False if out is not None and len(out) > MAX_MULTIPLE_CHARS else out


def digit_trie(words: list[str]) -> str:
    """Regex for a non-empty set of digit strings, as a trie whose digits leading to equal
    rests share one class (the multiples of 16 below 10^4: 68 characters, not 3,000)."""
    if len(words) == 1:
        return words[0]
    rests: dict[str, list[str]] = {}
    empty = False
    for w in words:
        if w:
            rests.setdefault(w[0], []).append(w[1:])
        else:
            empty = True
    by_rest: dict[str, list[str]] = {}
    for d in sorted(rests):
        by_rest.setdefault(digit_trie(rests[d]), []).append(d)
    parts: list[str | None] = [_seq(_digit_class(ds), rest) for rest, ds in by_rest.items()]
    return alt(parts + ([""] if empty else []))  # type: ignore[return-value]


def multiples_of(lo: int, hi: int | None, m: int) -> str | None | bool:
    """Regex for the canonical naturals n (no sign) with lo <= n <= hi (hi None: unbounded) and
    n % m == 0; None when there is none; False when the regex would be too large."""
    if hi is not None and hi < lo:
        return None
    lo = max(lo, 0)
    if hi is None and (m % 2 == 0 or m % 5 == 0):
        j = max(_power(m, 2), _power(m, 5))
        if j <= 4 and lo < 10 ** j:
            return _by_suffix(lo, m)
    return _written(_automaton(lo, hi, m))


def _written(built) -> str | None | bool:
    """The regex of a digit automaton from `_automaton` (None: it accepts nothing; False: it,
    its minimal form or its regex is too large)."""
    if built is None:
        return False
    moves, finals, start = _minimise(*built)
    if start < 0 or not finals:
        return None
    if len(moves) > MAX_MINIMAL_STATES:
        return False
    out = _eliminate(moves, finals, start, MAX_MULTIPLE_CHARS)
    return False if out is None else out


def _power(m: int, p: int) -> int:
    """The exponent of prime p in m."""
    e = 0
    while m % p == 0:
        m //= p
        e += 1
    return e


def multiple_lcm(a: Any, b: Any) -> int | float | None:
    """The multipleOf equivalent to multipleOf `a` and multipleOf `b` together (x is a multiple of
    both iff of their least common multiple, lcm(p/q, r/s) = lcm(p, r) / gcd(q, s)), as a JSON
    number that reads back exactly; None when either is not a positive number or it would not."""
    fa, fb = (_fraction(x) for x in (a, b))
    if fa is None or fb is None:
        return None
    f = Fraction(math.lcm(fa.numerator, fb.numerator), math.gcd(fa.denominator, fb.denominator))
    if f.denominator == 1:
        return f.numerator
    x = float(f)
    return x if _fraction(x) == f else None


def _fraction(x: Any) -> Fraction | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not x > 0 or x == float("inf"):
        return None
    return Fraction(Decimal(repr(x))) if isinstance(x, float) else Fraction(x)
