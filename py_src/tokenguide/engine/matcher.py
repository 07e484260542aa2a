"""`Matcher`: the engine's answer for one grammar and vocabulary: states, steps and token masks.

A state is a set of (Earley row, lexer state) pairs: every way of reading the text so far
(a lexeme may end at any byte where it is complete, so lexemes that match the same text, or
a prefix of one another, are all followed). Tokens are read byte by byte, so a token may end
inside a UTF-8 character or across lexemes; EOS is allowed only where the text may end.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from ..arguments import describe
from ..errors import ArgumentError, InvalidTokenError
from ..ir.grammar import Grammar
from ..vocabulary import core_vocabulary_of
from .earley import EarleyGrammar
from .lexer import LEXER_STATES
from .masks import walks_for

__all__ = ["EngineState", "Matcher"]


class EngineState:
    """The pairs (row, lexer state) alive after the text so far; `done` after EOS."""

    __slots__ = ("pairs", "done", "_mask", "_next")

    def __init__(self, pairs: tuple, done: bool = False):
        self.pairs = pairs
        self.done = done
        self._mask: Optional[int] = None
        self._next: dict[int, "EngineState"] = {}

    def can_end(self) -> bool:
        """The text so far is complete (EOS allowed)."""
        return self.done or any(row.accepts and (t == row.lexer_start or t == row.lexer_resume) for row, t in self.pairs)

    def __repr__(self) -> str:
        return f"EngineState({len(self.pairs)} pairs{', done' if self.done else ''})"


class Matcher:
    """The engine for an `ir.grammar.Grammar` over a Vocabulary (or tokenizer): states, steps
    on bytes and tokens, masks as int bit sets (bit t = token t)."""

    def __init__(self, grammar: Grammar, vocabulary: Any):
        self.vocabulary = core_vocabulary_of(vocabulary)
        self.grammar = grammar
        self.earley = EarleyGrammar(grammar)
        self.eos_token_id = int(self.vocabulary.eos_token_id)
        self.vocab_size = int(self.vocabulary.vocab_size)
        self.walks = walks_for(self.vocabulary)
        root = self.earley.root
        self.initial_state = EngineState(((root, root.lexer_start),))

    def step_pairs(self, pairs: Iterable, byte: int) -> tuple:
        """The (row, lexer state) pairs alive after one more byte (empty: none)."""
        out: dict = {}
        rows = LEXER_STATES.rows
        finals_bits = self.earley.finals_bits
        for row, t in pairs:
            r = rows[t]
            if r is None:
                r = LEXER_STATES.row(t)
            v = r[byte]
            if v < 0:
                continue
            out[(row, v)] = None
            fb = finals_bits(v)
            if fb:
                for pair in row.scan(fb):
                    out[pair] = None
        return tuple(out)

    def advance_bytes(self, state: EngineState, data: bytes) -> Optional[EngineState]:
        """The state after the bytes `data`, or None when no reading of the text survives."""
        pairs = state.pairs
        for b in data:
            pairs = self.step_pairs(pairs, b)
            if not pairs:
                return None
        return EngineState(pairs)

    def next_state(self, state: EngineState, token_id: int) -> EngineState:
        """The state after token `token_id` (EOS: the final state); InvalidTokenError when not allowed."""
        state = check_state(state, "next_state")
        if state.done:
            return state
        found = state._next.get(token_id)
        if found is not None:
            return found
        if token_id == self.eos_token_id:
            if not state.can_end():
                raise InvalidTokenError("EOS is not allowed here: the text is not complete")
            found = EngineState((), done=True)
        else:
            data = self.vocabulary.id_to_bytes(token_id)
            if data is None:
                raise InvalidTokenError(f"token {token_id} is not in the vocabulary")
            found = self.advance_bytes(state, data)
            if found is None:
                raise InvalidTokenError(f"token {token_id} ({data!r:.40}) is not allowed here")
        state._next[token_id] = found
        return found

    def mask_int(self, state: EngineState) -> int:
        """The allowed tokens as an int bit set (bit t = token t; EOS included where the text may end)."""
        state = check_state(state, "mask_int")
        if state._mask is not None:
            return state._mask
        if state.done:
            bits = 1 << self.eos_token_id
        else:
            bits = self._walk(state.pairs)
            if state.can_end():
                bits |= 1 << self.eos_token_id
        state._mask = bits
        return bits

    def _walk(self, pairs: tuple) -> int:
        summary = self.walks.summary
        follow = self.walks.follow
        finals_bits = self.earley.finals_bits
        keys = LEXER_STATES.keys
        bits = 0
        todo = [(row, t, 0) for row, t in pairs]
        seen = set()
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            row, t, node = item
            inside, exits = summary(t, node)
            bits |= inside
            for v, group, nodes in exits:
                for r2, f in row.scan(finals_bits(v)):
                    if keys[f]:
                        for m in follow(group, nodes, f):
                            if (r2, f, m) not in seen:
                                todo.append((r2, f, m))
        return bits

    def accepts_bytes(self, data: bytes) -> bool:
        """`data` is a whole text of the grammar's language."""
        state = self.advance_bytes(self.initial_state, data)
        return state is not None and state.can_end()


def check_state(state: Any, where: str) -> EngineState:
    """`state` if it is an EngineState, else ArgumentError naming `where`."""
    if not isinstance(state, EngineState):
        raise ArgumentError(f"{where}: state must be an EngineState, got {describe(state)}")
    return state
