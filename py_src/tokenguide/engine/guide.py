"""`EngineGuide`: a guide over any context-free grammar of the intermediate form, on bytes.

A state is a set of (Earley row, lexer state) pairs: every way of reading the text so far
(a lexeme may end at any byte where it is complete, so lexemes that match the same text, or
a prefix of one another, are all followed). Tokens are read byte by byte, so a token may end
inside a UTF-8 character or across lexemes; EOS is allowed only where the text may end.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from ..arguments import check_token_id, describe
from ..errors import ArgumentError, InvalidTokenError
from ..guides.base import BaseGuide
from ..guides.instructions import Generate, Instruction, Write, bitmask_words, set_bits
from ..ir.grammar import Grammar
from ..vocabulary import core_vocabulary_of
from .earley import EarleyGrammar
from .lexer import LEXER_STATES
from .masks import walks_for

__all__ = ["EngineGuide", "EngineState"]


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
        return self.done or any(t == row.lexer_start and row.accepts for row, t in self.pairs)

    def __repr__(self) -> str:
        return f"EngineState({len(self.pairs)} pairs{', done' if self.done else ''})"


class EngineGuide(BaseGuide):
    """A guide for an `ir.grammar.Grammar` over a Vocabulary (or tokenizer), by the engine."""

    final_state = None

    def __init__(self, grammar: Grammar, vocabulary: Any):
        self.vocabulary = core_vocabulary_of(vocabulary)
        self.grammar = grammar
        self.earley = EarleyGrammar(grammar)
        self.eos_token_id = int(self.vocabulary.eos_token_id)
        self.vocab_size = int(self.vocabulary.vocab_size)
        self.words = bitmask_words(self.vocab_size)
        self.walks = walks_for(self.vocabulary)
        root = self.earley.root
        self.initial_state = self.start_state = EngineState(((root, root.lexer_start),))

    @classmethod
    def from_lark(cls, text: str, vocabulary: Any, *, start: str = "start") -> "EngineGuide":
        """The guide of a Lark grammar's language (see `grammars.lark_reader`)."""
        from ..grammars.lark_reader import read_lark

        return cls(read_lark(text, start=start), vocabulary)

    # -- stepping ---------------------------------------------------------------------------
    def step_pairs(self, pairs: Iterable, byte: int) -> tuple:
        """The (row, lexer state) pairs alive after one more byte (empty: none)."""
        out: dict = {}
        rows = LEXER_STATES.rows
        finals_bits = self.earley.finals_bits
        keys = LEXER_STATES.keys
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
                for r2 in row.scan(fb):
                    f = r2.lexer_start
                    if keys[f] or r2.accepts:
                        out[(r2, f)] = None
        return tuple(out)

    def _bytes_of(self, token_id: int) -> bytes:
        data = self.vocabulary.id_to_bytes(token_id) if token_id != self.eos_token_id else None
        if data is None:
            raise InvalidTokenError(f"EngineGuide: token {token_id} is not in the vocabulary")
        return data

    def advance_bytes(self, state: EngineState, data: bytes) -> Optional[EngineState]:
        """The state after the bytes `data`, or None when no reading of the text survives."""
        pairs = state.pairs
        for b in data:
            pairs = self.step_pairs(pairs, b)
            if not pairs:
                return None
        return EngineState(pairs)

    def get_next_state(self, state: EngineState, token_id: int) -> EngineState:
        """The state after `token_id` (InvalidTokenError when the token is not allowed)."""
        state = self._check(state, "get_next_state")
        token_id = check_token_id("EngineGuide.get_next_state", "token_id", token_id)
        if state.done:
            return state
        found = state._next.get(token_id)
        if found is not None:
            return found
        if token_id == self.eos_token_id:
            if not state.can_end():
                raise InvalidTokenError("EngineGuide: EOS is not allowed here: the text is not complete")
            found = EngineState((), done=True)
        else:
            found = self.advance_bytes(state, self._bytes_of(token_id))
            if found is None:
                raise InvalidTokenError(f"EngineGuide: token {token_id} is not allowed here")
        state._next[token_id] = found
        return found

    # -- masks ------------------------------------------------------------------------------
    def mask_int(self, state: EngineState) -> int:
        """The allowed tokens as an int bit set (bit t = token t; EOS included where the text may end)."""
        state = self._check(state, "mask_int")
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
                for r2 in row.scan(finals_bits(v)):
                    f = r2.lexer_start
                    if keys[f]:
                        for m in follow(group, nodes, f):
                            todo.append((r2, f, m))
        return bits

    def mask_bytes(self, state: EngineState) -> bytes:
        """The packed bitmask (ceil(vocab_size/32) little-endian int32 words) of the allowed tokens."""
        return self.mask_int(state).to_bytes(self.words * 4, "little")

    def allowed_token_ids(self, state: EngineState) -> list[int]:
        """The allowed token ids, ascending (EOS included where the text may end)."""
        return list(set_bits(self.mask_int(state)))

    def get_next_instruction(self, state: EngineState) -> Instruction:
        """Write([eos]) after EOS, Write([t]) when one token is allowed, else Generate(ids)."""
        ids = self.allowed_token_ids(state)
        return Write(ids) if len(ids) == 1 else Generate(ids)

    def is_final_state(self, state: EngineState) -> bool:
        """True after EOS."""
        return self._check(state, "is_final_state").done

    def can_terminate_state(self, state: EngineState) -> bool:
        """EOS may come now (the text so far is in the grammar's language)."""
        return self._check(state, "can_terminate_state").can_end()

    def accepts_bytes(self, data: bytes) -> bool:
        """`data` is a whole text of the grammar's language."""
        state = self.advance_bytes(self.initial_state, data)
        return state is not None and state.can_end()

    @staticmethod
    def _check(state: Any, where: str) -> EngineState:
        if not isinstance(state, EngineState):
            raise ArgumentError(f"EngineGuide.{where}: state must be an EngineState, got {describe(state)}")
        return state
