"""Character automata of string lexemes, for grammar rules that need no lookahead.

A string under both `format`/`pattern` and minLength/maxLength is an intersection of two
languages, which the regex path writes as a lookahead. A grammar terminal cannot hold one, but
the intersection is a regular language: tokenguide's regex compiler builds its minimal byte DFA
exactly (lookaheads included), and `char_moves` reads that DFA back one code point at a time
(UTF-8 decoded), so that grammar.py can write one right-linear rule per state.
"""

from __future__ import annotations

from ..errors import StateLimitError
from ..regex import dfa as dfa_mod

__all__ = ["char_moves", "lexeme_dfa", "MAX_LEXEME_STATES"]

MAX_LEXEME_STATES = 2_000  # rules per lexeme: beyond, Lark's analysis and the guides slow down
_LEADS = ((0xC2, 0xDF, 1, 0x1F, 0x80, 0x7FF), (0xE0, 0xEF, 2, 0x0F, 0x800, 0xFFFF),
          (0xF0, 0xF4, 3, 0x07, 0x10000, 0x10FFFF))  # lead bytes, continuations, mask, code points


_DFAS: dict[str, dfa_mod.ByteDFA | None] = {}  # regex -> its DFA, None when too large


def lexeme_dfa(regex: str) -> dfa_mod.ByteDFA | None:
    """The minimal byte DFA of `regex` (fullmatch), or None past MAX_LEXEME_STATES; cached (the
    emitter asks first, to refuse by keyword, then the grammar writer)."""
    if regex not in _DFAS:
        if len(_DFAS) >= 256:
            _DFAS.clear()
        try:
            _DFAS[regex] = dfa_mod.compile_regex(regex, max_states=MAX_LEXEME_STATES)
        except StateLimitError:
            _DFAS[regex] = None
    return _DFAS[regex]


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return out


def _continuations(d: dfa_mod.ByteDFA, q: int, k: int, memo: dict) -> dict[int, list[tuple[int, int]]]:
    """Target state -> ranges of the value of `k` continuation bytes read from state `q`."""
    key = (q, k)
    if key not in memo:
        out: dict[int, list[tuple[int, int]]] = {}
        scale = 64 ** (k - 1)
        for b in range(0x80, 0xC0):
            t = d.next_state(q, b)
            if t < 0:
                continue
            base = (b - 0x80) * scale
            if k == 1:
                out.setdefault(t, []).append((base, base))
            else:
                for tt, rs in _continuations(d, t, k - 1, memo).items():
                    out.setdefault(tt, []).extend((base + lo, base + hi) for lo, hi in rs)
        memo[key] = {t: _merge(rs) for t, rs in out.items()}
    return memo[key]


def char_moves(d: dfa_mod.ByteDFA, q: int, memo: dict) -> dict[int, list[tuple[int, int]]]:
    """Target state -> code point ranges (merged, sorted) that lead there from state `q`: the
    DFA's moves on whole UTF-8 characters (surrogates excluded). `memo` is shared per DFA."""
    out: dict[int, list[tuple[int, int]]] = {}
    for b in range(0x80):
        t = d.next_state(q, b)
        if t >= 0:
            out.setdefault(t, []).append((b, b))
    for first, last, k, mask, lo_cp, hi_cp in _LEADS:
        for b in range(first, last + 1):
            t = d.next_state(q, b)
            if t < 0:
                continue
            prefix = (b & mask) << (6 * k)
            for tt, rs in _continuations(d, t, k, memo).items():
                for lo, hi in rs:
                    lo, hi = max(prefix + lo, lo_cp), min(prefix + hi, hi_cp)
                    for a, z in ((lo, min(hi, 0xD7FF)), (max(lo, 0xE000), hi)):  # no surrogates
                        if a <= z:
                            out.setdefault(tt, []).append((a, z))
    return {t: _merge(rs) for t, rs in sorted(out.items())}
