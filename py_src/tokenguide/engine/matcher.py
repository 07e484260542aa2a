"""`Matcher`: the engine's answer for one grammar and vocabulary: states, steps and token masks.

A state is a set of (Earley row, lexer state) pairs: every way of reading the text so far
(a lexeme may end at any byte where it is complete, so lexemes that match the same text, or
a prefix of one another, are all followed). Tokens are read byte by byte, so a token may end
inside a UTF-8 character or across lexemes; EOS is allowed only where the text may end.
A special-token terminal (`Terminal.token`) is matched by token id, between two lexemes.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from ..arguments import describe
from ..errors import ArgumentError, GrammarError, InvalidTokenError
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
        #: (lexeme bit, token id bit set) of each special-token terminal
        self.specials = [(1 << j, token_bits(lx, self.vocabulary, self.vocab_size))
                         for j, lx in enumerate(grammar.lexemes) if lx.token is not None]
        root = self.earley.root
        self.initial_state = EngineState(tuple((root, t) for t in root.lexer_start
                                               if t != EMPTY or root.accepts or root.expected & self.earley.special_bits))

    def step_pairs(self, pairs: Iterable, byte: int) -> tuple:
        """The (row, lexer state) pairs alive after one more byte (empty: none). The rows that
        lexemes ending at this byte begin are joined into one (the Earley set here), so the
        readings of an ambiguous text never multiply."""
        out: dict = {}
        begun: dict = {}
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
                    if pair[0] is row:  # an ignored lexeme: the row resumes
                        out[pair] = None
                    else:
                        begun[pair[0]] = None
        if len(begun) > 1:
            begun = {self.earley.joined(list(begun)): None}
        for row in begun:
            for pair in row.starts():
                out[pair] = None
        return tuple(out)

    def special_pairs(self, pairs: Iterable, token_id: int) -> tuple:
        """The pairs after special token `token_id`, read between two lexemes (empty: none)."""
        hit = 0
        for bit, ids in self.specials:
            if ids >> token_id & 1:
                hit |= bit
        out: dict = {}
        if hit:
            boundary = LEXER_STATES.boundary
            for row, t in pairs:
                if boundary[t] and row.expected & hit:
                    for pair in row.scan(row.expected & hit):
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
        special = self.special_pairs(state.pairs, token_id) if self.specials else ()
        if token_id == self.eos_token_id and (state.can_end() or not special):
            if not state.can_end():
                raise InvalidTokenError("EOS is not allowed here: the text is not complete")
            found = EngineState((), done=True)
        else:
            data = self.vocabulary.id_to_bytes(token_id)
            if data is None and not special:
                raise InvalidTokenError(f"token {token_id} is not in the vocabulary" if not self.specials else
                                        f"token {token_id} is not allowed here (no text, and not a special token expected here)")
            found = self.advance_bytes(state, data) if data is not None else None
            if special:  # the special token, and its text where it has one
                found = EngineState(tuple(dict.fromkeys((found.pairs if found is not None else ()) + special)))
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
        if self.specials and not state.done:
            special = self._special_mask(state.pairs)
            if special:
                out[:] = (int.from_bytes(out, "little") | special).to_bytes(self.mask_size, "little")
        if state.can_end():
            eos = self.eos_token_id
            out[eos >> 3] |= 1 << (eos & 7)
        state._mask = found = bytes(out)
        return found

    def mask_int(self, state: EngineState) -> int:
        """The allowed tokens as an int bit set (bit t = token t)."""
        return int.from_bytes(self.mask_bytes(state), "little")

    def _special_mask(self, pairs: tuple) -> int:
        """The special tokens allowed from `pairs` (int bit set)."""
        bits = 0
        boundary = LEXER_STATES.boundary
        for row, t in pairs:
            if boundary[t] and row.expected & self.earley.special_bits:
                for bit, ids in self.specials:
                    if row.expected & bit:
                        bits |= ids
        return bits

    def tokens_below(self, state: EngineState, node: int) -> int:
        """The tokens strictly below trie node `node` whose bytes after the node's own keep some
        reading of `state` alive (an int bit set): the node's bytes are not read."""
        bits = 0
        bigs, smalls = self._walk(check_state(state, "tokens_below").pairs, node)
        for big in bigs:
            bits |= big
        for ids in smalls:
            for t in ids:
                bits |= 1 << t
        return bits

    def _walk(self, pairs: tuple, node: int = 0) -> tuple[list, list]:
        """The token sets allowed from `pairs` (below trie node `node`, the root by default):
        (distinct int bit sets, tuples of ids)."""
        summary = self.walks.summary
        follow = self.walks.follow
        finals_bits = self.earley.finals_bits
        bigs: dict[int, int] = {}
        smalls: dict[int, tuple] = {}
        todo = [(row, t, node) for row, t in pairs]
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


def token_bits(terminal: Any, vocabulary: Any, vocab_size: int) -> int:
    """The token ids (int bit set) of a special-token terminal over `vocabulary` (GrammarError when
    its name is not a token of the vocabulary, or an id is past the vocabulary's last)."""
    spec = terminal.token
    if isinstance(spec, str):
        token_id = vocabulary.token_strings.get(spec)
        if token_id is None:
            raise GrammarError(f"special token {spec} is not a token of this vocabulary")
        return 1 << token_id
    bits = 0
    for lo, hi in spec:
        if hi is None:  # up to the last id (an open range past it is empty)
            lo, hi = min(lo, vocab_size), vocab_size - 1
        elif hi >= vocab_size:
            raise GrammarError(f"special token {terminal.name}: id {hi} is past the vocabulary's last id {vocab_size - 1}")
        if lo <= hi:
            bits |= ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)
    return bits


def check_state(state: Any, where: str) -> EngineState:
    """`state` if it is an EngineState, else ArgumentError naming `where`."""
    if not isinstance(state, EngineState):
        raise ArgumentError(f"{where}: state must be an EngineState, got {describe(state)}")
    return state
