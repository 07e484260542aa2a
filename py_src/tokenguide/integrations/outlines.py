"""An outlines 1.x backend: `TokenguideBackend(model)` builds `OutlinesLogitsProcessor`s on tokenguide guides.

Its methods are those of outlines' own backends (`outlines.backends.*`):
`get_regex_logits_processor(regex)`, `get_json_schema_logits_processor(schema, whitespace_pattern=None)`
and `get_cfg_logits_processor(grammar)` (a Lark grammar). Pass a processor to
`outlines.Generator(model, processor=...)`. The vocabulary is read from the outlines model's
tokenizer: the transformers tokenizer of a `Transformers` or `MLXLM` model (token bytes from its
tokenizer.json), else outlines' tokenizer interface (`vocabulary`, `eos_token_id`,
`convert_token_to_string`). Tensors: torch, numpy, and mlx where installed.

This module imports outlines; the rest of tokenguide never does.
"""

from __future__ import annotations

from typing import Any, Optional

from outlines.processors.base_logits_processor import OutlinesLogitsProcessor

from ..errors import ArgumentError, GuideError, InvalidTokenError
from ..guides.instructions import bitmask_words
from ..guides.stateful import Guide
from ..vocabulary import Tokenizer, as_tokenizer, core_vocabulary_of

__all__ = ["TokenguideBackend", "TokenguideLogitsProcessor", "tokenizer_of_model"]


def tokenizer_of_model(model: Any) -> Tokenizer:
    """The tokenguide Tokenizer (token bytes, EOS) of an outlines model."""
    hf = getattr(model, "hf_tokenizer", None)  # outlines.models.Transformers (and its multimodal subclass)
    if hf is None and getattr(model, "mlx_tokenizer", None) is not None:
        hf = getattr(model.mlx_tokenizer, "_tokenizer", None)
    if hf is None:
        hf = getattr(getattr(model, "tokenizer", None), "_hf_tokenizer", None)  # LlamaCpp built from HF files
    if hf is not None:
        # token bytes from the tokenizer.json; decoding from those bytes (the guides' fast path)
        return Tokenizer(as_tokenizer(hf, where="TokenguideBackend", argument="model's tokenizer").core_vocabulary)
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        raise ArgumentError(
            f"TokenguideBackend: model: expected an outlines model with a tokenizer, got {type(model).__name__}"
        )
    return Tokenizer(core_vocabulary_of(tokenizer))


class TokenguideLogitsProcessor(OutlinesLogitsProcessor):
    """Constrain each row of a batch to a copy of `guide`; `reset()` starts a new generation.

    The first call of a generation sees the prompts and starts one guide per row; each later call
    advances every row by its last token. A row that emitted EOS allows only EOS afterwards.
    """

    def __init__(self, guide: Guide, tensor_library_name: str):
        if not isinstance(guide, Guide):
            raise ArgumentError(f"TokenguideLogitsProcessor: guide: expected a tokenguide Guide, got {type(guide).__name__}")
        self.guide = guide
        self.eos_token_id = guide.eos_token_id
        self.tensor_library_name = tensor_library_name
        self.is_first_token = True
        self._guides: list[Guide] = []
        self._done: list[bool] = []
        super().__init__(tensor_library_name)

    def reset(self) -> None:
        """Forget the current generation: the next call starts fresh guides."""
        self.is_first_token = True

    def _setup(self, batch: int) -> None:
        template = self.guide.copy()
        template.reset()
        self._guides = [template.copy() for _ in range(batch)]
        self._done = [False] * batch

    def _advance(self, input_ids: Any, batch: int) -> None:
        for row in range(batch):
            if self._done[row]:
                continue
            token = int(self.tensor_adapter.to_scalar(input_ids[row][-1]))
            if token == self.eos_token_id:
                self._done[row] = True
                continue
            try:
                self._guides[row].advance(token, return_tokens=False)
            except InvalidTokenError as exc:
                raise InvalidTokenError(f"{type(self).__name__}: row {row} produced token {token}, which its guide does not allow: {exc}") from None

    def _bitmask(self, batch: int, vocab: int) -> Any:
        """The rows' packed masks as a numpy int32 array (batch, words), words covering `vocab`."""
        import numpy

        words = max(bitmask_words(vocab), self.guide.words)
        mask = numpy.zeros((batch, words), dtype=numpy.int32)
        for row, guide in enumerate(self._guides):
            if self._done[row]:
                bit = self.eos_token_id % 32
                mask[row, self.eos_token_id // 32] = (1 << bit) - (1 << 32 if bit == 31 else 0)
            else:
                guide.write_mask_into(mask[row])
        stuck = [row for row in range(batch) if not mask[row].any()]
        if stuck:
            raise GuideError(
                f"{type(self).__name__}: row {stuck[0]} reached a state where no token of the vocabulary can "
                f"continue (its text so far cannot be completed with these tokens): nothing can be sampled"
            )
        return mask

    def process_logits(self, input_ids: Any, logits: Any) -> Any:
        """Set the logits of the tokens each row's guide refuses to -inf."""
        batch = self.tensor_adapter.shape(input_ids)[0]
        vocab = self.tensor_adapter.shape(logits)[-1]
        if self.is_first_token or len(self._guides) != batch:
            self._setup(batch)
            self.is_first_token = False
        else:
            self._advance(input_ids, batch)
        return _apply(self.tensor_library_name, logits, self._bitmask(batch, vocab), vocab)

    def finished(self) -> list[bool]:
        """Per row of the current generation: the text so far is complete (or EOS was emitted)."""
        return [done or guide.is_finished() for done, guide in zip(self._done, self._guides)]


def _allowed(bitmask: Any, vocab: int) -> Any:
    """numpy bool array (batch, vocab) from a packed int32 bitmask (bit t % 32 of word t // 32)."""
    import numpy

    bits = numpy.unpackbits(bitmask.astype("<i4").view(numpy.uint8), axis=-1, bitorder="little")
    return bits[:, :vocab].astype(bool)


def _apply(library: str, logits: Any, bitmask: Any, vocab: int) -> Any:
    if library == "torch":
        import torch

        packed = torch.from_numpy(bitmask).to(logits.device)
        shifts = torch.arange(32, dtype=torch.int32, device=logits.device)
        allowed = ((packed.unsqueeze(-1) >> shifts) & 1).view(packed.shape[0], -1)[:, :vocab].bool()
        return logits.masked_fill_(~allowed, float("-inf"))
    if library == "numpy":
        import numpy

        logits[~_allowed(bitmask, vocab)] = -numpy.inf
        return logits
    if library == "mlx":  # pragma: no cover - needs Apple silicon
        import mlx.core as mx

        return mx.where(mx.array(_allowed(bitmask, vocab)), logits, mx.array(float("-inf"), dtype=logits.dtype))
    raise ArgumentError(f"TokenguideLogitsProcessor: tensor library {library!r} is not supported (torch, numpy, mlx)")


class TokenguideBackend:
    """outlines' backend interface on tokenguide: one guide per constraint, one processor per call."""

    def __init__(self, model: Any, *, tensor_library_name: Optional[str] = None):
        self.tokenizer = tokenizer_of_model(model)
        self.vocabulary = self.tokenizer.core_vocabulary
        self.eos_token_id = self.vocabulary.eos_token_id
        self.tensor_library_name = tensor_library_name or getattr(model, "tensor_library_name", None) or "torch"

    def get_regex_logits_processor(self, regex: str) -> TokenguideLogitsProcessor:
        """A processor for text matching `regex` (Python re syntax, fullmatch)."""
        return TokenguideLogitsProcessor(Guide.from_regex(regex, self.tokenizer), self.tensor_library_name)

    def get_json_schema_logits_processor(self, json_schema: Any, whitespace_pattern: Optional[str] = None) -> TokenguideLogitsProcessor:
        """A processor for JSON valid against `json_schema` (JSON text, a dict or a pydantic model class)."""
        if hasattr(json_schema, "model_json_schema"):
            json_schema = json_schema.model_json_schema()
        guide = Guide.from_json_schema(json_schema, self.tokenizer, whitespace_pattern=whitespace_pattern)
        return TokenguideLogitsProcessor(guide, self.tensor_library_name)

    def get_cfg_logits_processor(self, grammar: Any) -> TokenguideLogitsProcessor:
        """A processor for the language of a Lark grammar (`Guide.from_grammar`; outlines' `CFG(...)` or its text)."""
        grammar = getattr(grammar, "definition", grammar)
        return TokenguideLogitsProcessor(Guide.from_grammar(grammar, self.tokenizer), self.tensor_library_name)
