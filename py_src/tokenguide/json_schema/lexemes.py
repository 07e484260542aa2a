"""Character automata of string lexemes, for grammar rules that need no lookahead.

A string under both `format`/`pattern` and minLength/maxLength is an intersection of two
languages, which the regex path writes as a lookahead. The intersection is a regular language:
tokenguide's regex compiler builds its minimal byte DFA exactly (lookaheads included), and
`char_moves` reads that DFA back one code point at a time (UTF-8 decoded), for the engine
path's lowering (module `engine_grammar`). Value lexemes (whole values of `not`, oneOf,
if/then/else, unions: rule_sink.RuleSink.value_lexeme) are regexes written out without
placeholders (`regular_text`), rules left in them as holes (HOLE_CHARS, `holes_apart`).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..errors import StateLimitError, UnsupportedSchemaError
from ..regex import dfa as dfa_mod
from ..regex.sre import constants as C
from ..regex.sre import parse as sre_parse

__all__ = ["char_moves", "check_text_size", "finite_texts", "HOLE_CHARS", "holes_apart", "lexeme_dfa", "MARKER",
           "MAX_DFA_TEXT", "MAX_LEXEME_STATES", "regular_text", "without"]

MAX_LEXEME_STATES = 2_000  # states of a value lexeme's automaton (beyond: refused by name)
MAX_LEXEME_TEXT = 200_000  # characters of a value lexeme's regex (its automaton is bounded too)
#: characters of a value lexeme's text beyond which its automaton is not built: texts that long
#: (JSON structure written out) passed MAX_LEXEME_STATES and took seconds each to find out
#: (gitlab-ci: 42 such texts of 4,600-130,000 characters, 43 s; the largest built was 8,800)
MAX_DFA_TEXT = 20_000
#: the characters that stand for rules inside a value lexeme (RuleSink.union): control
#: characters other than JSON whitespace, which no JSON text of the output format has raw
HOLE_CHARS = [cp for cp in range(1, 0x1F) if cp not in (0x09, 0x0A, 0x0D)]
MARKER = 0x1F  # one more such character, kept for module holes (the end of a lookahead's body)
_RESERVED = frozenset(HOLE_CHARS) | {MARKER}
_LEADS = ((0xC2, 0xDF, 1, 0x1F, 0x80, 0x7FF), (0xE0, 0xEF, 2, 0x0F, 0x800, 0xFFFF),
          (0xF0, 0xF4, 3, 0x07, 0x10000, 0x10FFFF))  # lead bytes, continuations, mask, code points


_DFAS: dict[str, dfa_mod.ByteDFA | None] = {}  # regex -> its DFA, None when too large


def refuse(why: str, keyword: str | None = None, pointer: str = "#") -> UnsupportedSchemaError:
    """The engine path's refusal: what its emission cannot express exactly, with keyword and pointer."""
    return UnsupportedSchemaError(f"the engine path cannot express this schema exactly: {why}", keyword, pointer)


def check_text_size(text: str, keyword: str, ptr: str) -> None:
    """Refuse (`keyword` at `ptr`) a value lexeme whose text passes MAX_DFA_TEXT characters."""
    if len(text) > MAX_DFA_TEXT:
        raise refuse(f"{keyword!r} makes a value whose regex has {len(text):,} characters, over the "
                     f"{MAX_DFA_TEXT:,} an automaton is built from", keyword, ptr)


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


def finite_texts(d: dfa_mod.ByteDFA, limit: int = 16, longest: int = 256) -> list[bytes] | None:
    """The texts a trimmed DFA accepts when they are at most `limit`, each at most `longest`
    bytes (None otherwise), in byte order. Distinct prefixes on the stack lead to distinct texts
    (the automaton is deterministic and every state live), so the walk stays within `limit`."""
    out: list[bytes] = []
    stack = [(d.initial, b"")]
    while stack:
        q, text = stack.pop()
        if len(text) > longest:
            return None
        if q in d.finals:
            out.append(text)
        for cls, t in enumerate(d.table[q]):
            if t >= 0:
                stack.extend((t, text + bytes([b])) for b in d.class_bytes[cls])
        if len(out) + len(stack) > limit:
            return None
    return sorted(out)


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


# --------------------------------------------------------------------------- value lexemes

def regular_text(sink: Any, regex: str, keyword: str, ptr: str, depth: int = 0,
                 holes: dict[str, str] | None = None, memo: dict | None = None,
                 free_form: Callable[[int], str] | None = None, level: int = 0) -> str:
    """`regex` of rule_sink.RuleSink `sink` without placeholders: numbers, lexemes and shared
    rules written out, boundaries dropped; refused (by `keyword` at `ptr`) when it holds a rule that is not regular (a
    recursive $ref, a free-form value) or one inside a character class. With `holes`, such
    a rule, and a value lexeme, is written as a control character of its own instead
    (`holes`: placeholder -> its text, filled in; see RuleSink.union); with `free_form`, a
    free-form value is the text it returns for the value's nesting level (the literal brackets
    open before it, from `level` at the start of `regex`; module `holes`). Refused past
    MAX_LEXEME_TEXT characters (shared rules written out can grow exponentially)."""
    if depth > 64:
        raise refuse("a value lexeme nests its rules too deeply", keyword, ptr)
    memo = {} if memo is None else memo  # (shared rule, level) -> its text, for this call
    size = 0
    number_of = {ch: rx for rx, ch in sink.numbers.items()}
    out: list[str] = []
    i, in_class, first = 0, False, -1  # first: where a `]` would still be a literal
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            out.append(regex[i:i + 2])
            if not in_class and regex[i + 1:i + 2] in ("[", "{", "]", "}"):
                level += 1 if regex[i + 1] in "[{" else -1
            i += 2
            continue
        if c in sink.names:
            if in_class:
                raise refuse("a grammar rule inside a character class", keyword, ptr)
            if c in number_of:
                out.append(f"(?:{number_of[c]})")
            elif c in sink.lexemes and (holes is None or c not in sink.value_lexemes):
                if c in sink.value_sources:  # written again, for its holes to be this text's
                    body = regular_text(sink, sink.value_sources[c], keyword, ptr, depth + 1, holes, memo,
                                        free_form, level)
                    out.append(f"(?:{body})")
                else:
                    out.append(f"(?:{sink.lexemes[c]})")
            elif c in sink.bodies and (sink.names[c].startswith("s") or holes is None and sink.names[c].startswith("v")):
                key = (c, level if free_form else 0)
                if key not in memo:
                    body = regular_text(sink, sink.bodies[c], keyword, ptr, depth + 1, holes, memo, free_form, level)
                    memo[key] = f"(?:{body})"
                out.append(memo[key])
                size += len(memo[key])
                if size > MAX_LEXEME_TEXT:
                    raise refuse("a value lexeme's regex would be too long", keyword, ptr)
            elif sink.names[c] == "any" and free_form is not None:
                out.append(free_form(level))
                size += len(out[-1])
                if size > MAX_LEXEME_TEXT:
                    raise refuse("a value lexeme's regex would be too long", keyword, ptr)
            elif sink.names[c] and holes is not None:
                if c not in holes:
                    if len(holes) == len(HOLE_CHARS):
                        raise refuse("a value lexeme with too many rules in it", keyword, ptr)
                    holes[c] = f"\\x{HOLE_CHARS[len(holes)]:02x}"
                out.append(holes[c])
            elif sink.names[c]:
                what = "a free-form value" if sink.names[c] == "any" else "a recursive $ref"
                raise refuse(f"{keyword!r} needs a lookahead over {what}, which is not a regular language",
                             keyword, ptr)
            i += 1
            continue
        out.append(c)
        if in_class:
            if c == "^" and i == first:
                first += 1
            elif c == "]" and i != first:
                in_class = False
        elif c == "[":
            in_class, first = True, i + 1
        i += 1
    return "".join(out)


_SAFE_CATEGORIES = (C.CATEGORY_DIGIT, C.CATEGORY_WORD)  # the others match some control character


def _may_match_hole(op, av) -> bool:
    """Can this character item match a character of HOLE_CHARS or the MARKER? (False only
    when certain.)"""
    if op == C.LITERAL:
        return av in _RESERVED
    if op == C.CATEGORY:
        return av not in _SAFE_CATEGORIES
    if op != C.IN:
        return True  # NOT_LITERAL, ANY
    negated = any(iop == C.NEGATE for iop, _ in av)
    inside = set()
    for iop, iav in av:
        if iop == C.LITERAL and iav in _RESERVED:
            inside.add(iav)
        elif iop == C.RANGE:
            inside.update(cp for cp in _RESERVED if iav[0] <= cp <= iav[1])
        elif iop == C.CATEGORY and iav not in _SAFE_CATEGORIES:
            return True
    return len(inside) < len(_RESERVED) if negated else bool(inside)


@functools.lru_cache(maxsize=64)
def holes_apart(text: str) -> bool:
    """Does no character item of `text` (a value lexeme's regex with its holes left out) match a
    character a hole stands for (or the MARKER)? Then the automaton reads those characters as the holes only.
    Syntactic, so conservative: every set, category and literal, lookaheads included. Cached: a
    schema's emissions (retries, one per union use) ask about the same few long texts again."""
    try:
        items = list(sre_parse(text).data)
    except (RecursionError, OverflowError):
        return False
    while items:
        op, av = items.pop()
        if op in (C.LITERAL, C.NOT_LITERAL, C.IN, C.CATEGORY, C.ANY):
            if _may_match_hole(op, av):
                return False
        elif op == C.BRANCH:
            items.extend(x for b in av[1] for x in b.data)
        elif op == C.SUBPATTERN:
            items.extend(av[-1].data)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            items.extend(av[2].data)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            items.extend(av[1].data)
        elif op != C.AT:
            return False
    return True
