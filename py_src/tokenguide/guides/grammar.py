"""`GrammarGuide`: the guide API (outlines' CFGGuide shape) over the engine, for any context-free grammar;
`CFGGuide(cfg_string, tokenizer)`: the same guide built as outlines builds its CFGGuide (the public one).

A state is an `engine.EngineState`: every reading of the text so far (a lexeme may end at any
byte where it is complete, so lexemes that match the same text, or a prefix of one another, are
all followed). Tokens are read byte by byte, so a token may end inside a UTF-8 character or
across lexemes; EOS is allowed only where the text may end, and after EOS only EOS is.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

from ..arguments import check_bool, check_bytes, check_str, check_token_id, describe
from ..engine import EngineState, Matcher
from ..engine.matcher import check_state
from ..errors import ArgumentError, InvalidTokenError
from ..ir.grammar import Grammar
from ..vocabulary import as_tokenizer
from .base import BaseGuide
from .instructions import Generate, Instruction, Write, bitmask_words, set_bits

__all__ = ["CFGGuide", "GrammarGuide"]


class GrammarGuide(BaseGuide):
    """A guide for an `ir.grammar.Grammar` over a Vocabulary or tokenizer (`from_lark` for Lark text)."""

    final_state = None

    def __init__(self, grammar: Grammar, vocabulary: Any):
        self.matcher = Matcher(grammar, vocabulary)
        self.grammar = grammar
        self.vocabulary = self.matcher.vocabulary
        self.eos_token_id = self.matcher.eos_token_id
        self.vocab_size = self.matcher.vocab_size
        self.words = bitmask_words(self.vocab_size)
        self.initial_state = self.start_state = self.matcher.initial_state

    @classmethod
    def from_lark(cls, text: str, vocabulary: Any, *, start: str = "start", import_paths: Any = (),
                  path: Any = None) -> "GrammarGuide":
        """The guide of a Lark grammar's language (read by `grammars.lark_reader`, with `import_paths`
        and `path`, the grammar's file, for relative imports; imports lark)."""
        from ..grammars.lark_reader import read_lark

        return cls(read_lark(text, start=start, import_paths=import_paths, path=path), vocabulary)

    def get_next_state(self, state: EngineState, token_id: int) -> EngineState:
        """The state after `token_id` (InvalidTokenError when the token is not allowed)."""
        token_id = check_token_id("GrammarGuide.get_next_state", "token_id", token_id)
        try:
            return self.matcher.next_state(state, token_id)
        except InvalidTokenError as exc:
            raise InvalidTokenError(f"GrammarGuide.get_next_state: {exc}") from None

    def advance_bytes(self, state: EngineState, data: bytes) -> Any:
        """The state after the bytes `data`, or None when no reading of the text survives."""
        return self.matcher.advance_bytes(check_state(state, "GrammarGuide.advance_bytes"), data)

    def accepts_bytes(self, data: bytes) -> bool:
        """`data` is a whole text of the grammar's language."""
        return self.matcher.accepts_bytes(data)

    def mask_int(self, state: EngineState) -> int:
        """The allowed tokens as an int bit set (bit t = token t)."""
        return self.matcher.mask_int(state)

    def mask_bytes(self, state: EngineState) -> bytes:
        """The packed bitmask (ceil(vocab_size/32) little-endian int32 words) of the allowed tokens."""
        return self.matcher.mask_bytes(state)

    def allowed_token_ids(self, state: EngineState) -> list[int]:
        """The allowed token ids, ascending (EOS included where the text may end)."""
        return list(set_bits(self.matcher.mask_int(state)))

    def get_next_instruction(self, state: EngineState) -> Instruction:
        """Write([eos]) after EOS, Write([t]) when one token is allowed, else Generate(ids)."""
        ids = self.allowed_token_ids(state)
        return Write(ids) if len(ids) == 1 else Generate(ids)

    def is_final_state(self, state: EngineState) -> bool:
        """True after EOS."""
        return check_state(state, "GrammarGuide.is_final_state").done

    def can_terminate_state(self, state: EngineState) -> bool:
        """EOS may come now (the text so far is in the grammar's language)."""
        return check_state(state, "GrammarGuide.can_terminate_state").can_end()

    def __repr__(self) -> str:
        return f"GrammarGuide(lexemes={len(self.grammar.lexemes)}, rules={len(self.grammar.rules)})"


class CFGGuide(GrammarGuide):
    """outlines' `CFGGuide(cfg_string, tokenizer)` on the engine: the language of any context-free
    Lark grammar (read by `grammars.lark_reader`; imports lark), over token bytes.

    `tokenizer` is a tokenguide Tokenizer or Vocabulary, a vocab.json/tokenizer.json path, a
    transformers or outlines-style tokenizer (its core vocabulary's token bytes are read). States
    are `engine.EngineState`; as in outlines, `is_final_state` is `can_terminate_state`. The Lark
    LALR guides (`guides.cfg.FastCFGGuide`, `ReferenceCFGGuide`) read a text with Lark's
    contextual lexer and can differ (docs/grammars.md); they are this guide's test oracles.
    `at_text_start=True` says the generation starts the text (no prompt before it): then, as the
    tokenizer's decoder does (`Tokenizer.strip_leading_space`, SentencePiece), the first token's
    leading space is dropped (so a first token " " alone, which would add nothing, is not allowed).
    """

    def __init__(self, cfg_string: str, tokenizer: Any, *, start: str = "start", at_text_start: bool = False):
        from ..grammars.lark_reader import read_lark

        check_str("CFGGuide", "grammar (cfg_string)", cfg_string)
        check_str("CFGGuide", "start", start)
        self.at_text_start = check_bool("CFGGuide", "at_text_start", at_text_start)
        self.tokenizer = as_tokenizer(tokenizer, where="CFGGuide", argument="tokenizer")
        self.cfg_string = cfg_string
        super().__init__(read_lark(cfg_string, start=start), self.tokenizer)
        #: the first token's leading space is dropped (at the text start, on a SentencePiece vocabulary)
        self.strip_first_space = self.at_text_start and bool(getattr(self.tokenizer, "strip_leading_space", False))
        self._start_mask: Optional[int] = None
        if self.strip_first_space:  # a start state of its own: the only one whose tokens lose their space
            self.initial_state = self.start_state = EngineState(self.matcher.initial_state.pairs)

    def _stripped(self, state: EngineState) -> bool:
        return self.strip_first_space and state is self.start_state

    def _text_start_mask(self) -> int:
        """The start state's mask when the first token's leading space is dropped: tokens without
        a leading space as usual, tokens " x..." by the bytes after their space."""
        if self._start_mask is None:
            trie = self.matcher.walks.trie
            plain = self.matcher.mask_int(self.matcher.initial_state)
            space = trie.root_child[0x20]
            if space:
                lo, hi = trie.keys_before[space], trie.keys_before[trie.ends[space]]
                plain = plain & ~trie.range_mask(lo, hi) | self.matcher.tokens_below(self.start_state, space)
            self._start_mask = plain
        return self._start_mask

    @classmethod
    def from_lark(cls, text: str, vocabulary: Any, *, start: str = "start") -> "CFGGuide":
        """The guide of a Lark grammar's language (the constructor under GrammarGuide's name)."""
        return cls(text, vocabulary, start=start)

    def _state(self, where: str, state: Any) -> EngineState:
        return check_state(state, f"CFGGuide.{where}")

    def get_next_instruction(self, state: EngineState) -> Instruction:
        """Write([eos]) after EOS; Write([t]) when t is the only valid token; else Generate(valid ids)."""
        self._state("get_next_instruction", state)
        return super().get_next_instruction(state)

    def get_next_state(self, state: EngineState, token_id: int) -> EngineState:
        """The state after `token_id` (after EOS, the final state whatever the token); InvalidTokenError
        when the token is not allowed (EOS included, where the text may not end)."""
        self._state("get_next_state", state)
        token_id = check_token_id("CFGGuide.get_next_state", "token_id", token_id)
        if self._stripped(state) and token_id != self.eos_token_id:
            data = self.vocabulary.id_to_bytes(token_id) or b""
            if data[:1] == b" ":
                found = self.matcher.advance_bytes(state, data[1:]) if data[1:] else None
                if found is None:
                    raise InvalidTokenError(f"CFGGuide.get_next_state: token_id {token_id}: token {token_id} "
                                            f"({data!r:.40}, its leading space dropped at the text start) is not allowed here")
                return found
        try:
            return self.matcher.next_state(state, token_id)
        except InvalidTokenError as exc:
            raise InvalidTokenError(f"CFGGuide.get_next_state: token_id {token_id}: {exc}") from None

    def is_final_state(self, state: EngineState) -> bool:
        """outlines' meaning for CFG guides: same as can_terminate_state."""
        return self.can_terminate_state(state)

    def can_terminate_state(self, state: EngineState) -> bool:
        """EOS allowed: the text so far is a whole text of the grammar's language (or EOS came)."""
        return self._state("can_terminate_state", state).can_end()

    def must_terminate_state(self, state: EngineState) -> bool:
        """Only EOS may come next (after EOS, or the text is complete and no token continues it)."""
        state = self._state("must_terminate_state", state)
        return state.done or (state.can_end() and self.mask_int(state) == 1 << self.eos_token_id)

    def mask_bytes(self, state: EngineState) -> bytes:
        """The packed bitmask (ceil(vocab_size/32) little-endian int32 words) of the allowed tokens."""
        state = self._state("mask_bytes", state)
        if self._stripped(state):
            return self._text_start_mask().to_bytes(self.matcher.mask_size, "little")
        return self.matcher.mask_bytes(state)

    def mask_int(self, state: EngineState) -> int:
        """The allowed tokens as an int bit set (bit t = token t)."""
        state = self._state("mask_int", state)
        return self._text_start_mask() if self._stripped(state) else self.matcher.mask_int(state)

    def allowed_token_ids(self, state: EngineState) -> list[int]:
        """The allowed token ids, ascending (EOS included where the text may end)."""
        return list(set_bits(self.mask_int(state)))

    def iter_valid_token_ids(self, state: EngineState, candidate_token_ids: Iterable[int]) -> Iterator[int]:
        """The candidates allowed after `state`, in the order given (checked before the first is yielded)."""
        mask = self.mask_int(state)
        if isinstance(candidate_token_ids, (str, bytes)) or not hasattr(candidate_token_ids, "__iter__"):
            raise ArgumentError(
                f"CFGGuide.iter_valid_token_ids: candidate_token_ids must be an iterable of token ids, "
                f"got {describe(candidate_token_ids)}"
            )
        return self._valid(mask, candidate_token_ids)

    @staticmethod
    def _valid(mask: int, candidate_token_ids: Iterable[int]) -> Iterator[int]:
        for token_id in candidate_token_ids:
            token_id = check_token_id("CFGGuide.iter_valid_token_ids", "candidate_token_ids item", token_id)
            if mask >> token_id & 1:
                yield token_id

    def token_bytes(self, state: EngineState, token_id: int) -> bytes:
        """The bytes `token_id` adds after `state` (its vocabulary bytes; b"" for EOS and unknown ids)."""
        self._state("token_bytes", state)
        token_id = check_token_id("CFGGuide.token_bytes", "token_id", token_id)
        if token_id == self.eos_token_id:
            return b""
        data = self.vocabulary.id_to_bytes(token_id) or b""
        return data[1:] if self._stripped(state) and data[:1] == b" " else data

    def token_text(self, state: EngineState, token_id: int) -> str:
        """The text `token_id` adds after `state` (its bytes decoded, invalid UTF-8 replaced)."""
        return self.token_bytes(state, token_id).decode("utf-8", errors="replace")

    def advance_bytes(self, state: EngineState, data: bytes, token_id: Optional[int] = None) -> Any:
        """The state after the bytes `data`, or None when no text of the language starts so (or after EOS);
        `token_id` is accepted for the LALR guides' signature and only checked."""
        state = self._state("advance_bytes", state)
        data = bytes(check_bytes("CFGGuide.advance_bytes", "data", data))
        if token_id is not None:
            check_token_id("CFGGuide.advance_bytes", "token_id", token_id)
        if state.done:
            return None
        return self.matcher.advance_bytes(state, data)

    def advance_text(self, state: EngineState, piece: str, token_id: Optional[int] = None) -> Any:
        """The state after the text `piece` (its UTF-8 bytes), or None when no text of the language starts so."""
        self._state("advance_text", state)
        check_str("CFGGuide.advance_text", "piece", piece)
        if token_id is not None:
            check_token_id("CFGGuide.advance_text", "token_id", token_id)
        return self.advance_bytes(state, piece.encode("utf-8"))

    def accepts_bytes(self, data: bytes) -> bool:
        """`data` is a whole text of the grammar's language."""
        return self.matcher.accepts_bytes(bytes(check_bytes("CFGGuide.accepts_bytes", "data", data)))

    def __repr__(self) -> str:
        start = ", at_text_start=True" if self.at_text_start else ""
        return (f"CFGGuide(lexemes={len(self.grammar.lexemes)}, rules={len(self.grammar.rules)}, "
                f"vocab_size={self.vocab_size}{start})")
