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
from ..regex import parser as regex_ast
from ..regex.char_dfa import CharDFA, compile_char_dfa, overlay

__all__ = [
    "TERMINAL_MAX_STATES", "check_grammar", "check_automaton", "needs_leading_space", "prefix_related",
    "prefix_safe", "refuse", "same_language", "terminal_dfa",
]

TERMINAL_MAX_STATES = 20_000
# terminals' automata and readings kept (by regex): a schema's retries share most terminals, and
# a Kubernetes workload kind's member-rule grammar alone has 600+ (512 let each retry redo them)
_CACHED = 4096
_SPACE = 0x20


@functools.lru_cache(maxsize=_CACHED)
def terminal_dfa(regex: str) -> dfa_mod.ByteDFA:
    """The minimal DFA of a terminal or number regex, cached: schema grammars share terminals
    (strings, keys, separators), and their automata are most of the time the checks take."""
    return dfa_mod.compile_regex(regex, max_states=TERMINAL_MAX_STATES)


@functools.lru_cache(maxsize=_CACHED)
def check_automaton(regex: str) -> CharDFA:
    """The trimmed character automaton the checks ask about a terminal, cached by regex: the
    checks ask only about languages, which this answers without the byte DFA's UTF-8 spelling
    and minimization (most of its cost on long counted strings)."""
    return compile_char_dfa(regex, max_states=TERMINAL_MAX_STATES)


@functools.lru_cache(maxsize=_CACHED)
def _same_tree(regex: str, other: str) -> bool:
    """Do two regex texts parse to the same tree (so the same language)? Lark's reading of a
    terminal mostly differs from ours only in how escapes are spelled."""
    return regex_ast.parse(regex) == regex_ast.parse(other)


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
        # (a Reduce/Reduce message lists its rules on the lines after the first: two of them)
        lines = [line.strip(" \t-") for line in str(exc).splitlines() if line.strip()]
        raise refuse(f"the grammar is not LALR(1) ({' '.join(lines[:1] + ['; '.join(lines[1:3])]).strip()})") \
            from None
    except LarkError as exc:
        raise refuse(f"Lark cannot lex the grammar ({str(exc).splitlines()[0]})") from None
    except RecursionError:  # Lark's analysis recurses along chains of rules (long lexemes)
        raise refuse("the grammar's rules chain too deeply for Lark's analysis") from None
    terminals, rules = parser.terminals, parser.rules
    _check_productive(rules)
    lark_regex = {t.name: t.pattern.to_regexp() for t in terminals}
    dfas: dict[str, CharDFA] = {}
    for regex, name in terms.items():
        if name not in lark_regex:
            continue  # written but left unused (a retried piece): Lark drops it, the language has none
        seen = lark_regex[name]
        try:
            d = check_automaton(regex)
            differs = seen != regex and not _same_tree(regex, seen) and not same_language(d, check_automaton(seen))
        except StateLimitError:
            raise refuse("a terminal's automaton is too large") from None
        if differs:
            raise refuse(f"Lark reads terminal {name} differently")
        if 0 in d.finals:
            raise refuse(f"terminal {name} matches the empty string")
        if not prefix_safe(d, name in trailing_space):
            raise refuse(f"terminal {name} has matches that are prefixes of other matches")
        dfas[name] = d
    table = parse_table(parser)
    after_space: set[str] = set()  # terminals that may come right after one with a trailing space
    for actions in table.states.values():
        for t, (action, arg) in actions.items():
            if t in trailing_space and action is Shift:
                after_space.update(x for x in table.states[arg] if x in dfas)
    for name in sorted(after_space):
        if needs_leading_space(dfas[name]):
            raise refuse(f"terminal {name} needs a leading space")
    # the pairs of terminals some state accepts, checked in name order: the refusal must name the
    # same pair in every run, whatever order the states come in
    # (each distinct set of terminals once, as bitsets: the states of an object's member chain
    # accept nested sets, whose pairs written out set by set grow with the cube of its width)
    names = sorted(dfas, key=_name_order)
    bit = {name: 1 << i for i, name in enumerate(names)}
    partners = dict.fromkeys(names, 0)
    for acceptable in {frozenset(t for t in actions if t in dfas) for actions in table.states.values()}:
        together = sum(bit[t] for t in acceptable)
        for t in acceptable:
            partners[t] |= together
    pairs: set[tuple[str, str]] = set()
    for i, a in enumerate(names):
        others = partners[a] >> (i + 1)
        j = i + 1
        while others:
            if others & 1:
                pairs.add((a, names[j]) if a < names[j] else (names[j], a))  # (in text order, as always)
            others >>= 1
            j += 1
    for a, b in sorted(pairs, key=lambda pair: (_name_order(pair[0]), _name_order(pair[1]))):
        if prefix_related(dfas[a], dfas[b]):
            raise refuse(f"terminals {a} and {b} can both match at one position")


def _name_order(name: str) -> tuple[str, int]:
    """Sort key of a terminal name: its letters, then its number (T2 before T10)."""
    stem = name.rstrip("0123456789")
    return stem, int(name[len(stem):] or -1)


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


def prefix_safe(d: CharDFA, greedy_space: bool) -> bool:
    """Does no match extend to a longer one, except (when `greedy_space`) by one trailing space
    after which nothing follows?"""
    for f in d.finals:
        row = d.edges[f]
        if not row:
            continue
        if not greedy_space or len(row) != 1 or row[0][:2] != (_SPACE, _SPACE):
            return False
        g = row[0][2]
        if g not in d.finals or d.edges[g]:
            return False
    return True


def needs_leading_space(d: CharDFA) -> bool:
    """Does the language have a string that starts with a space and is not in the language (or
    not a prefix of one) without it?"""
    q1 = d.step(0, _SPACE)
    if q1 < 0:
        return False
    seen = {(q1, 0)}
    todo = [(q1, 0)]
    while todo:
        a, b = todo.pop()
        if a in d.finals and b not in d.finals:
            return True
        for na, nb in overlay(d.edges[a], d.edges[b]):
            if na < 0:
                continue
            if nb < 0:
                return True
            if (na, nb) not in seen:
                seen.add((na, nb))
                todo.append((na, nb))
    return False


def prefix_related(a: CharDFA, b: CharDFA) -> bool:
    """Is some string of one language a prefix of (or equal to) a string of the other?"""
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        x, y = todo.pop()
        if x in a.finals or y in b.finals:
            return True  # both states are live (trimmed automata): one extends to the other
        for nx, ny in overlay(a.edges[x], b.edges[y]):
            if nx >= 0 and ny >= 0 and (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return False


def same_language(a: CharDFA, b: CharDFA) -> bool:
    """Do the two automata accept the same strings? (Trimmed: the languages differ exactly when
    some string leads to a live state in one and none, or to a final state in one only.)"""
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        x, y = todo.pop()
        if (x in a.finals) != (y in b.finals):
            return False
        for nx, ny in overlay(a.edges[x], b.edges[y]):
            if nx < 0 or ny < 0:
                return False
            if (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return True
