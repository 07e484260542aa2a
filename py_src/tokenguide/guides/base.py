"""The stateless guide base class (BaseGuide) and StopAtEOSGuide, with the API of outlines' `outlines/fsm/guide.py`.

State conventions (as in outlines): integer-state guides start at `initial_state` and use
`final_state = -1` for the terminal state reached after EOS, where only EOS is written.
"""

from __future__ import annotations

import copy as _copy
from typing import Any, Optional

from ..arguments import check_token_id, describe
from ..errors import ArgumentError
from .instructions import Generate, Instruction, Write, pack_tokens, write_packed


class BaseGuide:
    """Base of every guide: a state machine that tells a generation loop which tokens may come next.

    Subclasses implement `get_next_instruction`, `get_next_state` and `is_final_state`;
    `can_terminate_state`, `must_terminate_state`, `fill_bitmask` and `copy` have generic versions.
    """

    initial_state: Any = 0
    start_state: Any = 0  # outlines' older spelling of initial_state
    final_state: Any = -1
    eos_token_id: int
    vocab_size: int

    def get_next_instruction(self, state: Any) -> Instruction:
        """What the model may emit in `state`: Write(tokens) or Generate(tokens or None)."""
        raise NotImplementedError

    def get_next_state(self, state: Any, token_id: int) -> Any:
        """The state after emitting `token_id` in `state`."""
        raise NotImplementedError

    def is_final_state(self, state: Any) -> bool:
        """True when the text generated so far is complete (outlines' meaning for this guide type)."""
        raise NotImplementedError

    def can_terminate_state(self, state: Any) -> bool:
        """EOS may be emitted in `state` (the text so far is complete)."""
        instruction = self.get_next_instruction(state)
        return instruction.tokens is None or self.eos_token_id in instruction.tokens

    def must_terminate_state(self, state: Any) -> bool:
        """Only EOS may be emitted in `state`."""
        instruction = self.get_next_instruction(state)
        if instruction.tokens is None:
            return False
        return all(t == self.eos_token_id for t in instruction.tokens) and len(instruction.tokens) > 0

    def allowed_tokens(self, state: Any) -> Optional[list]:
        """The ids that may be emitted next in `state` (None: every id); only the first of a Write."""
        instruction = self.get_next_instruction(state)
        tokens = instruction.tokens
        if isinstance(instruction, Write) and tokens is not None:
            return list(tokens)[:1]  # only the first token of a Write is due next
        return tokens

    def mask_bytes(self, state: Any) -> bytes:
        """The packed bitmask of the tokens allowed in `state` (see instructions.pack_tokens).

        Generic version: packs `allowed_tokens(state)` each time; guides with cheaper or cached
        masks override it. The stateful `Guide` copies it into the caller's buffer.
        """
        return pack_tokens(self.allowed_tokens(state), self.vocab_size)

    def fill_bitmask(self, state: Any, buffer) -> None:
        """Write the int32 bitmask of the tokens allowed in `state` into `buffer`.

        Bit `t % 32` of word `t // 32` is set iff token `t` is allowed (outlines-core's
        write_mask_into layout); `buffer` needs ceil(vocab_size / 32) int32 words.
        """
        write_packed(self.mask_bytes(state), buffer)

    def copy(self) -> "BaseGuide":
        """A guide that can be used independently (shallow copy: tables are shared, read-only)."""
        return _copy.copy(self)


def vocab_size_of(tokenizer: Any) -> int:
    """Largest token id known to a tokenizer, plus one."""
    size = getattr(tokenizer, "vocab_size", None)
    ids = list(getattr(tokenizer, "vocabulary", {}).values())
    biggest = max(ids + [tokenizer.eos_token_id]) + 1
    if isinstance(size, int) and size >= biggest:
        return size
    return biggest


class StopAtEOSGuide(BaseGuide):
    """Any token until EOS, then only EOS (outlines' StopAtEOSGuide).

    States: 0 while generating, -1 after EOS.
    """

    initial_state = 0
    start_state = 0
    final_state = -1

    def __init__(self, tokenizer: Any):
        if isinstance(getattr(tokenizer, "eos_token_id", None), bool) or not isinstance(
            getattr(tokenizer, "eos_token_id", None), int
        ):
            raise ArgumentError(
                f"StopAtEOSGuide: tokenizer must have an integer eos_token_id (a tokenguide Tokenizer or an "
                f"outlines-style tokenizer), got {describe(tokenizer)}"
            )
        self.tokenizer = tokenizer
        self.eos_token_id = tokenizer.eos_token_id
        self.vocab_size = vocab_size_of(tokenizer)

    def _state(self, where: str, state: Any) -> int:
        """`state` if it is one of this guide's two states (0 generating, -1 after EOS)."""
        if type(state) is not int or state not in (0, -1):
            raise ArgumentError(f"StopAtEOSGuide.{where}: state must be 0 (generating) or -1 (after EOS), got {describe(state)}")
        return state

    def get_next_instruction(self, state: int) -> Instruction:
        """Write([eos]) once terminated, otherwise Generate(None) (any token)."""
        if self._state("get_next_instruction", state) == self.final_state:
            return Write([self.eos_token_id])
        return Generate(None)

    def get_next_state(self, state: int, token_id: int) -> int:
        """-1 after EOS (and forever after), otherwise stay in state 0."""
        self._state("get_next_state", state)
        token_id = check_token_id("StopAtEOSGuide.get_next_state", "token_id", token_id)
        if token_id == self.eos_token_id or state == self.final_state:
            return self.final_state
        return self.initial_state

    def is_final_state(self, state: int) -> bool:
        """True after EOS."""
        return self._state("is_final_state", state) == self.final_state

    def can_terminate_state(self, state: int) -> bool:
        """EOS is always allowed."""
        self._state("can_terminate_state", state)
        return True

    def must_terminate_state(self, state: int) -> bool:
        """Only after EOS."""
        return self._state("must_terminate_state", state) == self.final_state
