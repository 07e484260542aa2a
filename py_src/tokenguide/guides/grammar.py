"""`GrammarGuide`: the guide API (outlines' CFGGuide shape) over the engine, for any context-free grammar.

A state is an `engine.EngineState`: every reading of the text so far (a lexeme may end at any
byte where it is complete, so lexemes that match the same text, or a prefix of one another, are
all followed). Tokens are read byte by byte, so a token may end inside a UTF-8 character or
across lexemes; EOS is allowed only where the text may end, and after EOS only EOS is.
"""

from __future__ import annotations

from typing import Any

from ..arguments import check_token_id
from ..engine import EngineState, Matcher
from ..engine.matcher import check_state
from ..errors import InvalidTokenError
from ..ir.grammar import Grammar
from .base import BaseGuide
from .instructions import Generate, Instruction, Write, bitmask_words, set_bits

__all__ = ["GrammarGuide"]


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
