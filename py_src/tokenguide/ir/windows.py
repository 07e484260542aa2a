"""A lexeme seen through a window of n bytes: repeat counts past n relaxed.

Within n bytes no repeat of a non-nullable item can run more than n times, so a lower bound
past n can be n + 1 and an upper bound past n can go: the relaxed expression has the same
derivatives' finality and liveness on every text of at most n bytes (it only ever allows more,
and whatever it allows within the window the original can still complete). Intersections and
complements are left as they are (a complement turns "allows more" around). The engine walks a
token trie no deeper than n with the relaxed expression, so a string of at most 255 characters
shares its walks with every other string once fewer than 255 - n characters are written.
"""

from __future__ import annotations

from .lexemes import ALT, REP, SEQ, Lexeme, alt, rep, seq

__all__ = ["within_window"]

_MEMO: dict[tuple[int, int], Lexeme] = {}


def within_window(expr: Lexeme, width: int) -> Lexeme:
    """`expr` with every repeat bound past `width` relaxed (same on texts of <= width bytes)."""
    if expr.boolean:
        return expr
    key = (expr.id, width)
    found = _MEMO.get(key)
    if found is not None:
        return found
    kind = expr.kind
    if kind is SEQ:
        heads = []
        tail = expr
        while tail.kind is SEQ:
            heads.append(within_window(tail.args[0], width))
            tail = tail.args[1]
        found = seq(*heads, within_window(tail, width))
    elif kind is ALT:
        found = alt(*(within_window(x, width) for x in expr.args))
    elif kind is REP:
        item, lo, hi = expr.args
        inner = within_window(item, width)
        if not item.nullable:
            lo = min(lo, width + 1)
            if hi is not None and hi > width:
                hi = None
        found = rep(inner, lo, hi)
    else:
        found = expr
    if len(_MEMO) > 200_000:
        _MEMO.clear()
    _MEMO[key] = found
    return found
