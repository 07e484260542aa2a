"""The lexer side of the engine: byte automata of lexemes and their states, numbered process-wide.

Each distinct lexeme expression has one lazy byte automaton (`automaton_for`). A lexer state is
one automaton in one of its states; `LexerStates` numbers them, steps them on bytes (rows
cached) and says which are final. A boundary state (`start(a)`) is the automaton's initial
state read as "a lexeme starts here": stepping never returns to it, so a pair (row, boundary
state) means "between two lexemes". Lexer states mean the same thing in every grammar, so what
is cached per lexer state and vocabulary (the token sets of `engine.masks`) serves every grammar
that uses the lexeme: a JSON string, a number, whitespace.
"""

from __future__ import annotations

from typing import Any

from ..errors import GrammarError, TokenguideError
from ..ir.derivatives import LexemeDFA
from ..ir.lexemes import from_regex

__all__ = ["EMPTY", "LEXER_STATES", "LexerStates", "automaton_for"]

_AUTOMATA: dict[int, int] = {}
_MACHINES: list[Any] = []

#: the boundary state from which nothing can be read (the end of a text that may end there)
EMPTY = 0


def automaton_for(terminal: Any) -> int:
    """The id of the shared byte automaton of a terminal (`ir.grammar.Terminal`: its `expr`, or
    its `pattern` in Python re syntax, fullmatch): one per distinct lexeme expression."""
    expr = terminal.expr
    if expr is None:
        try:
            expr = from_regex(terminal.pattern)
        except TokenguideError as error:
            raise GrammarError(f"terminal {terminal.name} /{terminal.pattern}/: {error}") from None
    found = _AUTOMATA.get(expr.id)
    if found is None:
        if expr.nullable:
            raise GrammarError(
                f"terminal {terminal.name} /{terminal.pattern}/ matches the empty string; a lexeme must read at "
                "least one byte (make the rule that uses it optional instead)"
            )
        found = _AUTOMATA[expr.id] = len(_MACHINES)
        _MACHINES.append(LexemeDFA(expr))
    return found


def is_empty_language(automaton: int) -> bool:
    """The automaton's lexeme matches no text at all."""
    machine = _MACHINES[automaton]
    return not machine.is_final(machine.initial) and not machine.is_live(machine.initial)


class LexerStates:
    """Numbered lexer states: `automaton[s]`, `final[s]`, `boundary[s]`, and `row(s)`, the 256
    next states (-1 where the lexeme cannot go on)."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.automaton: list[int] = [-1]
        self.machine_state: list[int] = [-1]
        self.final: list[bool] = [False]
        self.boundary: list[bool] = [True]
        self.rows: list[Any] = [[-1] * 256]

    def _intern(self, key: Any, automaton: int, state: int, boundary: bool) -> int:
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.automaton)
            self.automaton.append(automaton)
            self.machine_state.append(state)
            self.final.append(_MACHINES[automaton].is_final(state))
            self.boundary.append(boundary)
            self.rows.append(None)
        return found

    def start(self, automaton: int) -> int:
        """The boundary state where a lexeme of `automaton` may start."""
        return self._intern(("start", automaton), automaton, _MACHINES[automaton].initial, True)

    def at(self, automaton: int, state: int) -> int:
        """The (non-boundary) lexer state of `automaton` in its state `state`."""
        return self._intern((automaton, state), automaton, state, False)

    def row(self, state: int) -> list[int]:
        """The 256 next states of `state` (-1 where the lexeme cannot go on)."""
        found = self.rows[state]
        if found is None:
            a = self.automaton[state]
            machine_row = _MACHINES[a].row(self.machine_state[state])
            ids = self.ids
            named = {-1: -1}  # machine state -> lexer state, once per distinct target (rows repeat a few)
            for s in dict.fromkeys(machine_row):  # (in byte order: states numbered as before)
                if s >= 0:
                    key = (a, s)
                    nxt = ids.get(key)
                    named[s] = nxt if nxt is not None else self._intern(key, a, s, False)
            found = list(map(named.__getitem__, machine_row))
            self.rows[state] = found
        return found


#: the process-wide lexer states (shared by every grammar, so per-vocabulary caches are too)
LEXER_STATES = LexerStates()
