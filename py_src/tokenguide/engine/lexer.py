"""The lexer side of the engine: byte automata of lexemes, and states of several at once.

Each distinct lexeme pattern has one lazy byte automaton, shared process-wide (`automaton_for`).
A lexer state is the set of (automaton, state) pairs still alive after the bytes of the lexeme
read so far; `LexerStates` numbers them, steps them on bytes (rows cached) and says which
automata accept. The same lexer state means the same thing in every grammar, so whatever is
cached per lexer state and vocabulary (the token sets of `engine.masks`) is shared by grammars.
"""

from __future__ import annotations

from typing import Any

from ..errors import GrammarError, TokenguideError
from ..ir.derivatives import LexemeDFA
from ..ir.lexemes import from_regex

__all__ = ["LexerStates", "automaton_for", "LEXER_STATES"]

_AUTOMATA: dict[int, int] = {}
_MACHINES: list[Any] = []


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


def _is_dead(machine: Any, state: int) -> bool:
    return not machine.is_final(state) and not machine.is_live(state)


class LexerStates:
    """Lexer states: each a sorted tuple of (automaton id, automaton state), numbered.

    `start(automata)` is a boundary state (a lexeme starts here); a boundary state is never
    reached by stepping, so a pair (row, boundary state) means "between two lexemes".
    `row(s)[b]` is the state after byte b (-1: no lexeme can go on), `finals(s)` the automata
    whose text is complete in s.
    """

    def __init__(self) -> None:
        self.keys: list[tuple] = []
        self.ids: dict[Any, int] = {}
        self.rows: list[Any] = []
        self.finals_of: list[tuple[int, ...]] = []
        self.boundary: list[bool] = []
        self.empty_start = self._intern(("start", ()), (), True)

    def _intern(self, key: Any, pairs: tuple, boundary: bool) -> int:
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.keys)
            self.keys.append(pairs)
            self.rows.append(None)
            self.finals_of.append(tuple(a for a, s in pairs if _MACHINES[a].is_final(s)))
            self.boundary.append(boundary)
        return found

    def start(self, automata: tuple[int, ...]) -> int:
        """The boundary state where a lexeme of any of `automata` (sorted ids) may start."""
        key = ("start", automata)
        found = self.ids.get(key)
        if found is not None:
            return found
        pairs = tuple((a, _MACHINES[a].initial) for a in automata if not _is_dead(_MACHINES[a], _MACHINES[a].initial))
        return self._intern(key, pairs, True)

    def is_empty(self, state: int) -> bool:
        """No lexeme can be read from `state`."""
        return not self.keys[state]

    def row(self, state: int) -> list[int]:
        """The 256 next states of `state` (-1 where no automaton goes on)."""
        found = self.rows[state]
        if found is None:
            found = self.rows[state] = self._row(state)
        return found

    def _row(self, state: int) -> list[int]:
        pairs = self.keys[state]
        machine_rows = [(a, _MACHINES[a].row(s)) for a, s in pairs]
        out = [-1] * 256
        ids = self.ids
        for b in range(256):
            nxt = tuple((a, r[b]) for a, r in machine_rows if r[b] >= 0)
            if nxt:
                found = ids.get(nxt)
                out[b] = found if found is not None else self._intern(nxt, nxt, False)
        return out

    def finals(self, state: int) -> tuple[int, ...]:
        """The automata whose lexeme is complete in `state`."""
        return self.finals_of[state]


#: the process-wide lexer states (shared by every grammar, so per-vocabulary caches are too)
LEXER_STATES = LexerStates()
