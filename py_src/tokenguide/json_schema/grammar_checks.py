"""Proofs that Lark reads a schema grammar exactly as written, or a named refusal.

The grammar path (module `grammar`) writes Lark EBNF; `check_grammar` then shows that Lark's
escape processing kept every terminal's language, that the LALR(1) table has no conflict, that
each terminal has at most one match at any position (prefix-free but for one greedy trailing
``[ ]?``, a leading space optional wherever it may occur), and that in no parser state is one
acceptable terminal's string a prefix of another's (Lark's contextual lexer never chooses).
"""

from __future__ import annotations

import functools

from ..errors import StateLimitError, UnsupportedSchemaError
from ..regex import dfa as dfa_mod

__all__ = ["TERMINAL_MAX_STATES", "check_grammar", "refuse", "terminal_dfa"]

TERMINAL_MAX_STATES = 20_000
_SPACE = 0x20


@functools.lru_cache(maxsize=512)
def terminal_dfa(regex: str) -> dfa_mod.ByteDFA:
    """The minimal DFA of a terminal or number regex, cached: schema grammars share terminals
    (strings, keys, separators), and their automata are most of the time the checks take."""
    return dfa_mod.compile_regex(regex, max_states=TERMINAL_MAX_STATES)


def refuse(why: str, keyword: str | None = None, pointer: str = "#") -> UnsupportedSchemaError:
    """The grammar path's refusal: what it cannot express exactly, with keyword and pointer."""
    return UnsupportedSchemaError(f"the grammar path cannot express this schema exactly: {why}", keyword, pointer)


def check_grammar(text: str, terms: dict[str, str], trailing_space: set[str]) -> None:
    """Refuse the grammar unless Lark reads it exactly as written (see the module docstring).

    The parser is the CFG guides' own (`build_lark`, strict: shift/reduce conflicts refused; no
    interegular comparison, which the prefix checks here subsume), kept by grammar text, so the
    guide built from this grammar next does not analyse it again."""
    from lark.exceptions import GrammarError as LarkGrammarError
    from lark.exceptions import LarkError
    from lark.parsers.lalr_analysis import Shift

    from ..guides.cfg.grammar import build_lark, parse_table

    try:
        parser = build_lark(text, strict=True)
    except LarkGrammarError as exc:
        raise refuse(f"the grammar is not LALR(1) ({str(exc).splitlines()[0]})") from None
    except LarkError as exc:
        raise refuse(f"Lark cannot lex the grammar ({str(exc).splitlines()[0]})") from None
    terminals, rules = parser.terminals, parser.rules
    _check_productive(rules)
    lark_regex = {t.name: t.pattern.to_regexp() for t in terminals}
    dfas: dict[str, dfa_mod.ByteDFA] = {}
    for regex, name in terms.items():
        if name not in lark_regex:
            continue  # written but left unused (a retried piece): Lark drops it, the language has none
        try:
            d = terminal_dfa(regex)
            seen = d if lark_regex[name] == regex else terminal_dfa(lark_regex[name])
        except StateLimitError:
            raise refuse("a terminal's automaton is too large") from None
        if d != seen:
            raise refuse(f"Lark reads terminal {name} differently")
        if 0 in d.finals:
            raise refuse(f"terminal {name} matches the empty string")
        _check_prefix_safe(name, d, name in trailing_space)
        dfas[name] = d
    table = parse_table(parser)
    after_space: set[str] = set()  # terminals that may come right after one with a trailing space
    for actions in table.states.values():
        for t, (action, arg) in actions.items():
            if t in trailing_space and action is Shift:
                after_space.update(x for x in table.states[arg] if x in dfas)
    for name in sorted(after_space):
        _check_leading_space(name, dfas[name])
    done: set[tuple[str, str]] = set()
    for actions in table.states.values():
        acceptable = sorted(t for t in actions if t in dfas)
        for i, a in enumerate(acceptable):
            for b in acceptable[i + 1:]:
                if (a, b) not in done:
                    done.add((a, b))
                    if _prefix_related(dfas[a], dfas[b]):
                        raise refuse(f"terminals {a} and {b} can both match at one position")


def _check_productive(rules) -> None:
    """Every rule derives some finite text: otherwise a guide could enter it and never finish."""
    productive: set[str] = set()
    changed = True
    while changed:
        changed = False
        for r in rules:
            if r.origin.name not in productive and all(x.is_term or x.name in productive for x in r.expansion):
                productive.add(r.origin.name)
                changed = True
    stuck = sorted({r.origin.name for r in rules} - productive)
    if stuck:
        raise UnsupportedSchemaError(
            f"the schema accepts no finite value through rule {stuck[0]} (a recursion without a base case)",
            "$ref", "#")


def _check_prefix_safe(name: str, d: dfa_mod.ByteDFA, greedy_space: bool) -> None:
    """No match of the terminal extends to a longer one, except by a greedy trailing `[ ]?`."""
    for f in d.finals:
        live = d.live_bytes(f)
        if not live:
            continue
        g = d.next_state(f, _SPACE)
        if live != b" " or g not in d.finals or d.live_bytes(g) or not greedy_space:
            raise refuse(f"terminal {name} has matches that are prefixes of other matches")


def _check_leading_space(name: str, d: dfa_mod.ByteDFA) -> None:
    """Whatever the terminal accepts after a leading space it also accepts without it."""
    q1 = d.next_state(0, _SPACE)
    if q1 < 0:
        return
    seen = {(q1, 0)}
    todo = [(q1, 0)]
    while todo:
        a, b = todo.pop()
        if a in d.finals and b not in d.finals:
            raise refuse(f"terminal {name} needs a leading space")
        for byte in range(256):
            na = d.next_state(a, byte)
            if na < 0:
                continue
            nb = d.next_state(b, byte) if b >= 0 else -1
            if nb < 0:
                raise refuse(f"terminal {name} needs a leading space")
            if (na, nb) not in seen:
                seen.add((na, nb))
                todo.append((na, nb))


def _prefix_related(a: dfa_mod.ByteDFA, b: dfa_mod.ByteDFA) -> bool:
    """Is some string of one language a prefix of (or equal to) a string of the other?"""
    seen = {(0, 0)}
    todo = [(0, 0)]
    pairs = {(a.classes[c], b.classes[c]) for c in range(256)}
    while todo:
        x, y = todo.pop()
        if x in a.finals or y in b.finals:
            return True  # both states are live (trimmed automata): one extends to the other
        for ca, cb in pairs:
            nx, ny = a.table[x][ca], b.table[y][cb]
            if nx >= 0 and ny >= 0 and (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return False
