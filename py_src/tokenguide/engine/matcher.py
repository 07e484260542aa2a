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
from .lexer import EMPTY, LEXER_STATES
from .masks import walks_for

__all__ = ["EngineState", "Matcher"]


class EngineState:
    """The pairs (row, lexer state) alive after the text so far; `done` after EOS."""

    __slots__ = ("pairs", "done", "_mask", "_next")

    def __init__(self, pairs: tuple, done: bool = False):
        self.pairs = pairs
        self.done = done
        self._mask: Optional[bytes] = None
        self._next: dict[int, "EngineState"] = {}

    def can_end(self) -> bool:
        """The text so far is complete (EOS allowed)."""
        boundary = LEXER_STATES.boundary
        return self.done or any(row.accepts and boundary[t] for row, t in self.pairs)

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
        self.mask_size = 4 * ((self.vocab_size + 31) // 32)
        root = self.earley.root
        self.initial_state = EngineState(tuple((root, t) for t in root.lexer_start if t != EMPTY or root.accepts))

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

    def mask_bytes(self, state: EngineState) -> bytes:
        """The allowed tokens as a packed bitmask: ceil(vocab_size / 32) little-endian int32
        words, bit t % 32 of word t // 32 (EOS included where the text may end)."""
        state = check_state(state, "mask_bytes")
        if state._mask is not None:
            return state._mask
        out = bytearray(self.mask_size)
        if not state.done:
            bigs, smalls = self._walk(state.pairs)
            if bigs:
                bits = 0
                for big in bigs:
                    bits |= big
                out[:] = bits.to_bytes(self.mask_size, "little")
            for ids in smalls:
                for t in ids:
                    out[t >> 3] |= 1 << (t & 7)
        if state.can_end():
            eos = self.eos_token_id
            out[eos >> 3] |= 1 << (eos & 7)
        state._mask = found = bytes(out)
        return found

    def mask_int(self, state: EngineState) -> int:
        """The allowed tokens as an int bit set (bit t = token t)."""
        return int.from_bytes(self.mask_bytes(state), "little")

    def _walk(self, pairs: tuple) -> tuple[list, list]:
        """The token sets allowed from `pairs`: (distinct int bit sets, tuples of ids)."""
        summary = self.walks.summary
        follow = self.walks.follow
        finals_bits = self.earley.finals_bits
        bigs: dict[int, int] = {}
        smalls: dict[int, tuple] = {}
        todo = [(row, t, 0) for row, t in pairs]
        seen = set()
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            row, t, node = item
            inside, exits = summary(t, node)
            if inside:
                if type(inside) is int:
                    bigs[id(inside)] = inside
                else:
                    smalls[id(inside)] = inside
            for v, group, nodes in exits:
                for r2, f in row.scan(finals_bits(v)):
                    if f != EMPTY:
                        (big, small), deep = follow(group, nodes, f)
                        if big is not None:
                            bigs[id(big)] = big
                        if small:
                            smalls[id(small)] = small
                        for m in deep:
                            if (r2, f, m) not in seen:
                                todo.append((r2, f, m))
        return list(bigs.values()), list(smalls.values())

    def accepts_bytes(self, data: bytes) -> bool:
        """`data` is a whole text of the grammar's language."""
        state = self.advance_bytes(self.initial_state, data)
        return state is not None and state.can_end()


def check_state(state: Any, where: str) -> EngineState:
    """`state` if it is an EngineState, else ArgumentError naming `where`."""
    if not isinstance(state, EngineState):
        raise ArgumentError(f"{where}: state must be an EngineState, got {describe(state)}")
    return state
