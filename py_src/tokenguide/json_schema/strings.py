"""Strings under `format`, `pattern` and minLength/maxLength together: their intersection, exactly.

The first language (the format's, else the pattern's) is written out; the others are lookaheads
(`value_intersection`), except where a lookahead-free form is exact: lengths a format's regex
implies anyway (`FORMAT_WIDTH`), and an anchored pattern with one variable single-character
repeat, whose repeat bounds absorb the lengths (`pattern_to_string_body`). On the engine path
(an emitter with a sink) the intersection becomes a lexeme rule (grammar.GrammarSink.lexeme:
right-linear rules from its exact automaton, no lookahead in any terminal).
"""

from __future__ import annotations

from typing import Any

from ..errors import StateLimitError
from ..regex.char_dfa import compile_char_dfa
from .formats import FORMAT_LIMIT, FORMAT_WIDTH, KNOWN_FORMATS, format_regex
from .logic import value_checked
from .lexemes import MAX_LEXEME_STATES, lexeme_dfa
from .patterns import PatternError, class_run, pattern_to_string_body, pattern_within
from .text import STRING_CHAR, alt, group, has_lookahead, rep, string_intersection

__all__ = ["string_format", "constrained_string", "counted_string", "MAX_STRING_BLOCKS", "STRING_BLOCK"]

#: On the engine path, a string of more than 2 * STRING_BLOCK characters at most (or at least)
#: is written as blocks of exactly STRING_BLOCK characters and a shorter tail, one rule per block
#: count (`counted_string`): counted whole, its terminal's automaton outgrows the checks' bound.
STRING_BLOCK = 128
#: the longest count the engine path reads as one counted lexeme (its lexer makes a state per
#: character counted: Snowplow's maxLength 8,192 strings; longer counts take the blocks below)
ENGINE_COUNTED = 8_192
MAX_STRING_BLOCKS = 256  # rules of one count (maxLength 32,768): Lark's analysis recurses along the chain
_DIGIT_BASE = 16  # beyond MAX_STRING_BLOCKS, the block count is written in this base (`_digit_string`)


def string_format(em: Any, s: Any) -> str | None:
    """The node's `format` if it constrains strings and is supported (None for no format or an
    unknown one, an annotation); a known but unsupported format is refused (or ignored)."""
    fmt = s.get("format")
    if not isinstance(fmt, str) or fmt not in KNOWN_FORMATS:
        return None
    if fmt == "regex" and value_checked(em, s.kptr("format")):  # (left to module regex_strings)
        return None
    if fmt == "regex":
        em.unsupported("format", s.kptr("format"), "format 'regex' is checked on the values (value_checks), "
                       "and only for values written with JSON whitespace, not under a `not` and not in a "
                       "value compared with an enum, const or if")
        return None
    if format_regex(fmt, em.norm.draft) is None:
        em.unsupported("format", s.kptr("format"), f"format {fmt!r} is not supported (known formats "
                       "tokenguide writes exactly are listed in tokenguide.json_schema.formats)")
        return None
    return fmt


def counted_string(em: Any, s: Any, lo: int, hi: int | None, char: str = STRING_CHAR) -> str:
    """Regex for the JSON strings (quotes included) of lo..hi characters (hi None: unbounded),
    the lengths of node `s`, each character one `char` (any string character, or a pattern's
    class: `^[a-z]{1,1024}$`).

    On the engine path a long count becomes right-linear rules over two terminals that never
    both match (a block of exactly K characters, none of them a closing quote, or a tail of
    fewer than K and the quote): rule i, after i blocks, reads another block or the tail that
    ends a string of lo..hi characters. Past the lower bound, unbounded above, the tail is
    `STRING_CHAR*"` (a loop, small). Past MAX_STRING_BLOCKS blocks, a maxLength is counted
    digit by digit instead (`_digit_string`), after the lo // K blocks every string has. The
    engine path (`em.sink.engine`) counts up to ENGINE_COUNTED characters in one lexeme, as the
    regex path does: its mask walks count characters (engine.slices)."""
    k = STRING_BLOCK
    longest = max(lo, hi or 0)
    if em.sink is None or longest <= 2 * k or (em.sink.engine and longest <= ENGINE_COUNTED):
        return '"' + rep(char, lo, hi) + '"'
    block = rep(char, k, k)
    last = (lo + k - 1) // k if hi is None else hi // k  # the most blocks a string has (unbounded: then a loop)
    if last > MAX_STRING_BLOCKS and hi is not None and lo // k <= MAX_STRING_BLOCKS:
        # the blocks every such string begins with (lo // k of them), then the rest counted
        # digit by digit (AWS SAML metadata documents: minLength 1,000, maxLength 10,000,000)
        fixed = lo // k
        rest = _digit_string(em, lo - fixed * k, hi - fixed * k, char)
        return '"' + block * fixed + rest[1:] if fixed else rest
    if last > MAX_STRING_BLOCKS:
        kw = "minLength" if hi is None else "maxLength"
        beside = "" if hi is None else f" beside a minLength of {(MAX_STRING_BLOCKS + 1) * k:,} or more"
        em.unsupported(kw, s.kptr(kw), f"a string length over {MAX_STRING_BLOCKS * k:,} characters{beside} (the grammar "
                       f"path writes {k} characters per rule); use path='regex'")
        return '"' + char + '*"'  # lenient: the length is ignored
    nxt: str | None = None  # the rule after one more block
    for i in range(last, -1, -1):
        if hi is None and i == last:
            body = rep(char, max(0, lo - i * k), None) + '"'
        else:
            tlo, thi = max(0, lo - i * k), k - 1 if hi is None else min(k - 1, hi - i * k)
            tail = rep(char, tlo, thi) + '"' if tlo <= thi else None
            body = alt([None if nxt is None else block + nxt, tail])  # type: ignore[assignment]
        nxt = em.sink.rule(body)
    assert nxt is not None
    return '"' + nxt


def _digit_string(em: Any, lo: int, hi: int, char: str) -> str:
    """The engine path's JSON strings of lo..hi characters (lo under one block, hi over
    MAX_STRING_BLOCKS blocks; `counted_string` writes the blocks of a larger lo before): the
    block count is bounded digit by digit in base _DIGIT_BASE,
    so the rules grow with the number of digits, not with hi (maxLength 2**31: 7 digits).

    `unit[m]` is a rule for exactly b**m blocks (b copies of unit[m-1]; unit[0] the block),
    `fewer[m]` for fewer than b**m blocks and then a tail of under one block and the quote:
    fewer than b units m-1, then fewer[m-1]. A count under q blocks agrees with q's digits
    down to some digit m, where it has fewer units m, and then anything under b**m blocks;
    with exactly q blocks the tail is hi % k characters at most. Right-linear: after each
    unit the next terminal (a block, or a tail holding the quote) decides, and the units of
    different levels are read in step (b**m blocks close a unit m, never a `fewer`)."""
    k, b, rule = STRING_BLOCK, _DIGIT_BASE, em.sink.rule
    tail = rule(rep(char, 0, k - 1) + '"')  # a rule: one terminal wherever it stands

    def at_most(q: int, r: int) -> str:
        """Placeholder regex for at most q blocks and a tail, of r characters at most after q
        blocks: under q - 1 blocks and a tail, or q - 1 blocks and then a tail or one more
        block (a terminal, not the block rule) and the short tail. The short tail's terminal
        is so acceptable only right after that block: the block rule is reduced before tails
        of both lengths in the parse states LALR shares, where the two terminals would clash."""
        short_tail = rule(rep(char, 0, r) + '"')
        block_then = rule(f"(?:{rep(char, k, k)}{short_tail}|{tail})")
        digits = []
        q -= 1
        while q:
            q, d = divmod(q, b)
            digits.append(d)
        unit, fewer = [rule(rep(char, k, k))], [tail]
        while len(unit) < len(digits):
            unit.append(rule(unit[-1] * b))
            chain = fewer[-1]  # after b - 1 units: no further unit
            for _ in range(b - 1):
                chain = rule(f"(?:{unit[-2]}{chain}|{fewer[-1]})")
            fewer.append(chain)
        out = block_then  # q - 1 blocks read
        for m, d in enumerate(digits):  # from the lowest digit up: out is what follows digit m
            for _ in range(d):
                out = rule(f"(?:{unit[m]}{out}|{fewer[m]})")
        return out

    if lo == 0:
        return '"' + at_most(hi // k, hi % k)
    short = rep(char, lo, k - 1) + '"'  # no block: at least lo characters
    first = rule(rep(char, k, k))
    return '"' + rule(f"(?:{short}|{first}{at_most(hi // k - 1, hi % k)})")


def _long_class_run(em: Any, s: Any, pattern: str, lo: int, hi: int | None) -> str | None | bool:
    """On the engine path, a pattern that ends in one character class repeated to the string's
    end, with a count past two blocks once the lengths are applied (AWS policy documents:
    `^[\\u0009\\u000A\\u000D\\u0020-\\u00FF]+$` with maxLength 131,072; ARNs ending in
    `:[^/].{0,1023}$`): the part before the run as it is, then the run counted in blocks as
    `counted_string` does, in that class. Only where that part's end is plain (no text of it
    continues another: its automaton's accepting states have no way out) and, with such a
    part, of one length (the lengths then bound the run) or with lengths that say nothing the
    pattern does not. False otherwise."""
    try:
        run = class_run(pattern)
    except PatternError:
        return False  # (refused by name where the pattern is read in full)
    if run is None:
        return False
    before, (blo, bhi), char, rlo, rhi = run
    if before:
        if blo == bhi:  # a part of one length: the lengths bound the run (`^/(\\S)*$` under maxLength)
            lo, hi = max(lo - blo, 0), None if hi is None else hi - blo
        elif lo > blo + rlo or (hi is not None and (rhi is None or bhi + rhi > hi)):
            return False
        try:
            head = compile_char_dfa(before, max_states=MAX_LEXEME_STATES)
        except StateLimitError:
            return False
        if not head.finals or any(head.edges[q] for q in head.finals):
            return False
        if blo != bhi:
            lo, hi = 0, None  # (the lengths say nothing more: checked above)
    nlo = max(lo, rlo)
    nhi = rhi if hi is None else hi if rhi is None else min(hi, rhi)
    if max(nlo, nhi or 0) <= 2 * STRING_BLOCK:
        return False
    if nhi is not None and nhi < nlo:
        em.norm.note_empty("pattern", s.kptr("pattern"),
                           f"pattern {pattern!r} matches no string of minLength..maxLength characters")
        return None
    counted = counted_string(em, s, nlo, nhi, char)
    return '"' + before + counted[1:]  # (counted: the quote, then its rules)


def _quoted(body: str) -> str:
    return '"' + body + '"'


def constrained_string(em: Any, s: Any, fmt: str | None, pattern: str | None,
                       min_len: int, max_len: int | None) -> str | None:
    """Regex for the JSON strings (quotes included) in the format `fmt` (a supported name or
    None) whose content matches `pattern` (ECMA, or None), with min_len..max_len characters;
    None when no string qualifies."""
    lo, hi = min_len, max_len
    if fmt is not None and fmt in FORMAT_LIMIT:
        flo, fhi = FORMAT_LIMIT[fmt]
        lo, hi = max(lo, flo), fhi if hi is None else min(hi, fhi)
        if hi < lo:
            em.norm.note_empty("maxLength", s.kptr("maxLength"), f"format {fmt!r} strings have {flo} to {fhi} "
                               f"characters, outside minLength/maxLength")
            return None
    checks: list[tuple[str, str]] = []  # (keyword, quoted-string regex) to intersect by lookahead
    main: str | None = None
    length_done = lo == 0 and hi is None
    if fmt is not None:
        main = _quoted(group(format_regex(fmt, em.norm.draft)))
        wlo, whi = FORMAT_WIDTH.get(fmt, (0, None))
        if (whi is not None and whi < lo) or (hi is not None and wlo > hi):
            em.norm.note_empty("format", s.kptr("format"), f"no {fmt!r} string has minLength..maxLength characters")
            return None
        if wlo >= lo and (hi is None or (whi is not None and whi <= hi)):
            length_done = True
    if em.sink is not None and fmt is None and pattern is not None:
        long_run = _long_class_run(em, s, pattern, lo, hi)
        if long_run is not False:
            return long_run
    loose: str | None = None  # the pattern's body alone, no lengths fitted in
    if pattern is not None:
        try:
            body = pattern_within(pattern, hi)
        except PatternError as exc:
            em.unsupported("pattern", s.kptr("pattern"), str(exc))
            body = False
        if body is None:
            em.norm.note_empty("pattern", s.kptr("pattern"), f"pattern {pattern!r} matches no string")
            return None
        if body is not False:
            loose = body
            if not length_done:
                try:
                    fitted = pattern_to_string_body(pattern, lo, hi)
                except PatternError:
                    pass  # not absorbed by the repeat bounds: a length lookahead below
                else:
                    if fitted is None:
                        em.norm.note_empty("pattern", s.kptr("pattern"),
                                           f"pattern {pattern!r} matches no string of minLength..maxLength characters")
                        return None
                    body, length_done = fitted, True
            if main is None:
                main = _quoted(body)
            else:
                checks.append(("pattern", _quoted(body)))
    if main is None:
        main = counted_string(em, s, lo, hi)
        length_done = True
    if not length_done:
        kw = "maxLength" if "maxLength" in s or fmt in FORMAT_LIMIT else "minLength"
        checks.append((kw, _quoted(rep(STRING_CHAR, lo, hi))))
    out: str | None = main
    for kw, check in checks:
        out = string_intersection(out, check)
    # grammar mode: rules from the exact automaton of the intersection, or of a pattern's lookahead
    if em.sink is not None and (checks or has_lookahead(out)):
        d = lexeme_dfa(out)
        kw = checks[0][0] if checks else "pattern"
        if d is not None and not d.finals:  # no string satisfies them all: the value cannot occur
            kw = kw if kw in s else "format"
            em.norm.note_empty(kw, s.kptr(kw), "no string satisfies format, pattern and lengths together")
            return None
        if d is not None:
            return em.sink.lexeme(out)
        lkw = next((k for k in ("maxLength", "minLength") if k in s), None)
        if fmt is None and lkw is not None and loose is not None:
            alone = _quoted(loose)  # the pattern alone, its lengths on the values (module string_lengths)
            if (not has_lookahead(alone) or lexeme_dfa(alone) is not None) and value_checked(em, s.kptr(lkw)):
                return em.sink.lexeme(alone) if has_lookahead(alone) else alone
        if kw in s:
            where, what = s.kptr(kw), f"{kw} together with format/pattern"
        else:
            kw, where, what = "format", s.kptr("format"), f"format {fmt!r} (at most {hi} characters)"
        em.unsupported(kw, where, f"{what} needs a lookahead, which the engine path writes as rules from the "
                       f"automaton of the intersection; this one has more than {MAX_LEXEME_STATES:,} states "
                       "(the regex path can: compile_json_schema(..., path='regex'))")
        return main
    return out
