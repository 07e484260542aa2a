"""Automata as right-linear Lark rules: numbers over single-character terminals, lexemes over
one character class per move (disjoint in every state), so that no terminal needs a lookahead
(the grammar path, module `grammar`)."""

from __future__ import annotations

from typing import Callable

from . import grammar_checks
from .grammar_checks import refuse
from .lexemes import char_moves, lexeme_dfa, without

__all__ = ["lark_char", "lexeme_rules", "number_rules"]

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \"'#%&,:;<=>@_`~!/")  # "/" is escaped once, for the /.../ terminal


def lark_char(cp: int, in_class: bool = False) -> str:
    """One code point as Lark-safe regex text (Lark evaluates \\u escapes itself)."""
    ch = chr(cp)
    if ch in _PLAIN and not (in_class and ch in "^-"):
        return ch
    if cp < 0x80:
        return f"\\x{cp:02x}" if cp < 0x20 or cp == 0x7F else "\\" + ch
    if ch.isprintable() and cp not in (0x2028, 0x2029, 0x85):
        return ch
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


def number_rules(name: str, regex: str, term: Callable[[str], str]) -> list[str]:
    """Right-linear rules `name_q` for a number regex, one per DFA state, over single-character
    terminals (`term`: terminal regex -> its name)."""
    dfa = grammar_checks.terminal_dfa(regex)
    rules = []
    for q in range(dfa.num_states):
        targets: dict[int, list[int]] = {}
        for b in dfa.live_bytes(q):
            if b >= 0x80:
                raise refuse(f"number regex {regex!r} is not ASCII")
            targets.setdefault(dfa.next_state(q, b), []).append(b)
        if not targets:
            continue  # a final state without moves: the rules leading here end instead
        alts = []
        for t, bs in sorted(targets.items()):
            cls = "[" + "".join(lark_char(b, True) for b in bs) + "]" if len(bs) > 1 else lark_char(bs[0])
            alts.append(f"{term(cls)} {name}_{t}" if dfa.live_bytes(t) else term(cls))
        body = " | ".join(alts)
        rules.append(f"{name}_{q}: ({body})?" if q in dfa.finals else f"{name}_{q}: {body}")
    return rules


def lexeme_rules(name: str, regex: str, term: Callable[[str], str], holes: dict[int, str],
                 end_holes: dict[int, str] | None = None, ended: set[str] | None = None) -> list[str]:
    """Right-linear rules for a lexeme (GrammarSink.lexeme), one per state of its character
    automaton, over terminals of one character class each (disjoint in every state) and the
    rules its holes stand for (`holes`: code point -> rule name, GrammarSink.union). A hole that
    ends the lexeme is `end_holes`' rule where given: a copy of the same body, whose LALR states
    (and lookaheads) are its own, so that what follows the lexeme (` ?}`, space included) and
    what follows a hole inside one (a single ` `) never meet in one state. The end rules used
    are added to `ended`."""
    ends = {holes[cp]: rule for cp, rule in (end_holes or {}).items()}  # hole rule -> its end copy
    d = lexeme_dfa(regex)
    assert d is not None  # strings.constrained_string and GrammarSink.value_lexeme refused it otherwise
    memo: dict = {}
    rules = [f"{name}: {name}_0"]
    for q in range(d.num_states):
        moves = char_moves(d, q, memo)
        if not moves:
            continue  # a final state without moves: the rules leading here end instead
        alts = []
        for t, ranges in moves.items():
            steps = [holes[cp] for lo, hi in ranges for cp in range(lo, min(hi, 0x1F) + 1) if cp in holes]
            ranges = [r for lo, hi in ranges for r in without(lo, hi, holes)]
            if ranges:
                steps.append(term("[" + "".join(lark_char(lo, True) if lo == hi else f"{lark_char(lo, True)}-{lark_char(hi, True)}"
                                                      for lo, hi in ranges) + "]"))
            if d.live_bytes(t):
                alts.extend(f"{step} {name}_{t}" for step in steps)
            else:
                for step in steps:
                    alts.append(ends.get(step, step))
                    if step in ends and ended is not None:
                        ended.add(ends[step])
        body = " | ".join(alts)
        rules.append(f"{name}_{q}: ({body})?" if q in d.finals else f"{name}_{q}: {body}")
    return rules
