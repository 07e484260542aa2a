"""Logits processors for Hugging Face `transformers`' `model.generate(logits_processor=...)`.

`RegexLogitsProcessor(regex, tokenizer)`, `JSONLogitsProcessor(schema, tokenizer)` and
`CFGLogitsProcessor(grammar, tokenizer)` (outlines' names) keep one stateful `Guide` per row
of the batch. At each step they advance every row's guide by the token just sampled (the
prompt, its length taken at the first call, is never fed to the guides), write each row's
packed mask into one int32 torch tensor with `Guide.write_mask_into` (a buffer copy), turn
the bits into a boolean mask with torch ops, and set the logits of refused tokens to -inf.
A row whose text is complete allows EOS; after EOS it allows only EOS (generate pads it).

This module imports torch and transformers; the rest of tokenguide never does.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional

import torch
from transformers import LogitsProcessor

from ..errors import GuideError, InvalidTokenError
from ..guides.instructions import bitmask_words
from ..guides.stateful import Guide
from ..vocabulary import Tokenizer, as_tokenizer

__all__ = ["CFGLogitsProcessor", "GuideLogitsProcessor", "JSONLogitsProcessor", "RegexLogitsProcessor", "adapt_tokenizer"]

_ADAPTED: "weakref.WeakKeyDictionary[Any, Tokenizer]" = weakref.WeakKeyDictionary()


def _byte_tokenizer(tokenizer: Any) -> Any:
    adapted = as_tokenizer(tokenizer)
    if getattr(adapted, "hf_tokenizer", None) is None:
        return adapted
    # Decode from the token bytes of its tokenizer.json: the same text for generated tokens,
    # and the CFG guides' fast path (decoding through the HF object token by token is slow).
    return Tokenizer(adapted.core_vocabulary)


def adapt_tokenizer(tokenizer: Any) -> Any:
    """The tokenguide Tokenizer for a Hugging Face tokenizer (decoding token bytes), built once per object."""
    try:
        found = _ADAPTED.get(tokenizer)
    except TypeError:  # not weak-referenceable or unhashable: adapt every time
        return _byte_tokenizer(tokenizer)
    if found is None:
        found = _byte_tokenizer(tokenizer)
        _ADAPTED[tokenizer] = found
    return found


class GuideLogitsProcessor(LogitsProcessor):
    """Constrain each row of a generation to a Guide (a copy of `guide` per row).

    A processor can be passed to several `generate()` calls one after the other: a call whose
    input is not the previous one plus one token starts a new generation (fresh guides).
    """

    def __init__(self, guide: Guide):
        if not isinstance(guide, Guide):
            raise TypeError(f"GuideLogitsProcessor: expected a tokenguide Guide, got {type(guide).__name__}")
        self.guide = guide
        self.eos_token_id = guide.eos_token_id
        self.reset()

    def reset(self) -> None:
        """Forget the current generation: the next call starts fresh guides."""
        self._guides: list[Guide] = []
        self._done: list[bool] = []
        self._prompt_length = 0
        self._expected_length = -1
        self._mask: Optional[torch.Tensor] = None

    def _start(self, batch: int, length: int) -> None:
        template = self.guide.copy()
        template.reset()
        self._guides = [template.copy() for _ in range(batch)]
        self._done = [False] * batch
        self._prompt_length = length

    def _advance(self, input_ids: torch.Tensor) -> None:
        last = input_ids[:, -1].tolist()
        for row, token in enumerate(last):
            if self._done[row]:
                continue
            guide = self._guides[row]
            if token == self.eos_token_id:
                self._done[row] = True
                continue
            try:
                guide.advance(int(token), return_tokens=False)
            except InvalidTokenError as exc:
                raise InvalidTokenError(
                    f"{type(self).__name__}: row {row} produced token {token}, which its guide does not allow "
                    f"(beam search and other processors that reorder or change tokens after this one are not "
                    f"supported): {exc}"
                ) from None

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """Mask `scores` (batch x vocabulary logits) so that each row may only continue its constraint."""
        batch, length = input_ids.shape
        if length != self._expected_length or batch != len(self._guides):
            self._start(batch, length)
        else:
            self._advance(input_ids)
        self._expected_length = length + 1
        vocab = scores.shape[-1]
        words = max(bitmask_words(vocab), self.guide.words)
        if self._mask is None or self._mask.shape != (batch, words):
            self._mask = torch.zeros((batch, words), dtype=torch.int32)
        mask = self._mask
        for row, guide in enumerate(self._guides):
            if self._done[row]:
                mask[row].zero_()
                mask[row, self.eos_token_id // 32] = _int32_bit(self.eos_token_id % 32)
            else:
                guide.write_mask_into(mask[row])
        stuck = (~mask.any(dim=1)).nonzero().flatten().tolist()
        if stuck:
            raise GuideError(
                f"{type(self).__name__}: row {stuck[0]} reached a state where no token of the vocabulary can "
                f"continue (its text so far cannot be completed with these tokens): nothing can be sampled"
            )
        bits = (mask.unsqueeze(-1) >> _SHIFTS) & 1
        allowed = bits.view(batch, words * 32)[:, :vocab].to(device=scores.device, dtype=torch.bool)
        return scores.masked_fill(~allowed, float("-inf"))

    def finished(self) -> list[bool]:
        """Per row of the current generation: the text so far is complete (or EOS was emitted)."""
        return [done or guide.is_finished() for done, guide in zip(self._done, self._guides)]


_SHIFTS = torch.arange(32, dtype=torch.int32)


def _int32_bit(bit: int) -> int:
    """The int32 value whose only set bit is `bit` (bit 31 is the sign bit)."""
    return (1 << bit) - (1 << 32 if bit == 31 else 0)


class RegexLogitsProcessor(GuideLogitsProcessor):
    """Generate text matching `regex` (Python `re` syntax, fullmatch) with a Hugging Face tokenizer."""

    def __init__(self, regex: str, tokenizer: Any, **kwargs: Any):
        super().__init__(Guide.from_regex(regex, adapt_tokenizer(tokenizer), **kwargs))


class JSONLogitsProcessor(GuideLogitsProcessor):
    """Generate JSON valid against `schema`: a dict, JSON text, or a pydantic model class."""

    def __init__(self, schema: Any, tokenizer: Any, **kwargs: Any):
        if hasattr(schema, "model_json_schema"):  # pydantic v2 model class (duck-typed)
            schema = schema.model_json_schema()
        super().__init__(Guide.from_json_schema(schema, adapt_tokenizer(tokenizer), **kwargs))


class CFGLogitsProcessor(GuideLogitsProcessor):
    """Generate text in the language of a Lark grammar (LALR, contextual lexer)."""

    def __init__(self, grammar: str, tokenizer: Any):
        super().__init__(Guide.from_grammar(grammar, adapt_tokenizer(tokenizer)))
