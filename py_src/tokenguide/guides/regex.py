"""RegexGuide: outlines' regex guide on top of the core Index.

States are the Index's automaton states, plus -1 for the terminal state after EOS (outlines'
convention). `Write` is returned where exactly one token is allowed (in particular Write([eos])
where the text is complete and nothing may follow); EOS is only allowed in final states.
"""

from __future__ import annotations

import os
from typing import Any

from ..arguments import check_bool, check_callable, check_int, check_str, check_token_id, describe
from ..errors import ArgumentError, NotFoundError
from ..index import Index
from ..index.cache import get_index
from ..regex import DEFAULT_MAX_STATES
from ..vocabulary import core_vocabulary_of
from .base import BaseGuide
from .instructions import Generate, Instruction, Write, as_mask_bytes, pack_tokens, shared_mask_cache


class RegexGuide(BaseGuide):
    """Generate text in the language of a regular expression (Python `re` semantics, fullmatch)."""

    final_state = -1

    def __init__(self, index: Index, tokenizer: Any = None):
        """Wrap an already built Index. Most callers use `RegexGuide.from_regex`."""
        if not isinstance(index, Index):
            raise ArgumentError(f"RegexGuide: index must be a tokenguide Index, got {describe(index)}")
        self.index = index
        self.tokenizer = tokenizer
        self.eos_token_id = index.eos_token_id
        self.vocab_size = index.vocab_size
        self.initial_state = index.initial_state
        self.start_state = index.initial_state
        self.final_states = frozenset(index.final_states) | {self.final_state}
        # Packed masks per state, shared by every guide over the same index (see mask_bytes).
        self.mask_cache = shared_mask_cache(index)

    @classmethod
    def from_regex(
        cls,
        regex: str,
        tokenizer: Any,
        *,
        ascii: bool = False,
        max_states: int = DEFAULT_MAX_STATES,
        cache_dir=None,
        use_cache: bool = True,
        progress=None,
        **kwargs: Any,
    ) -> "RegexGuide":
        """Build (or fetch from the cache) the index of `regex` for the tokenizer's vocabulary.

        `tokenizer` may be a tokenguide Tokenizer or Vocabulary, a vocab.json/tokenizer.json path,
        a transformers tokenizer or an outlines-style tokenizer. `ascii` and `max_states` go to the
        Index; `cache_dir` names a folder of `.outlines` files used as a second-level cache.
        """
        if kwargs:
            raise TypeError(
                f"RegexGuide.from_regex: unexpected keyword argument(s) {', '.join(sorted(kwargs))}; "
                "accepted: ascii, max_states, cache_dir, use_cache, progress"
            )
        where = "RegexGuide.from_regex"
        check_str(where, "regex", regex)
        check_bool(where, "ascii", ascii)
        check_int(where, "max_states", max_states, low=1)
        check_bool(where, "use_cache", use_cache)
        check_callable(where, "progress", progress)
        if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
            raise ArgumentError(f"{where}: cache_dir must be a folder path or None, got {describe(cache_dir)}")
        if tokenizer is None:
            raise ArgumentError(f"{where}: tokenizer must be a Tokenizer, Vocabulary, vocabulary path or tokenizer object, got None")
        vocabulary = core_vocabulary_of(tokenizer)
        index = get_index(
            regex, vocabulary, ascii=ascii, max_states=max_states, cache_dir=cache_dir, use_cache=use_cache,
            progress=progress,
        )
        return cls(index, tokenizer)

    @classmethod
    def from_json_schema(
        cls,
        schema: Any,
        tokenizer: Any,
        *,
        whitespace_pattern: str | None = None,
        max_recursion_depth: int = 3,
        lenient: bool = False,
        property_order: str = "schema",
        **kwargs: Any,
    ) -> "RegexGuide":
        """A guide for JSON matching `schema` (a dict or JSON text) on the regex path, via
        build_regex_from_schema (`property_order` as there): a RegexGuide is an index, so recursive
        schemas and free-form values are depth-capped; `Guide.from_json_schema` runs the engine path."""
        from ..json_schema import build_regex_from_schema

        regex = build_regex_from_schema(
            schema, whitespace_pattern, max_recursion_depth=max_recursion_depth, lenient=lenient,
            property_order=property_order,
        )
        return cls.from_regex(regex, tokenizer, **kwargs)

    def _allowed(self, state: int):
        """Allowed token ids (array('I'), ascending) of a non-terminal state; None after EOS."""
        if type(state) is not int:
            raise ArgumentError(f"RegexGuide: state must be an integer state id, got {describe(state)}")
        if state == self.final_state:
            return None
        try:
            return self.index.state_transitions(state)[0]
        except KeyError:
            raise NotFoundError(f"RegexGuide: state {state!r} is not a state of this guide") from None

    def get_next_instruction(self, state: int) -> Instruction:
        """Write([eos]) after EOS; Write([t]) when t is the only allowed token; else Generate(allowed)."""
        tokens = self._allowed(state)
        if tokens is None:
            return Write([self.eos_token_id])
        if len(tokens) == 1:
            return Write(tokens.tolist())
        return Generate(tokens)

    def get_next_state(self, state: int, token_id: int) -> int:
        """The next automaton state; -1 after EOS, after the terminal state, or for a token not allowed (as outlines)."""
        token_id = check_token_id("RegexGuide.get_next_state", "token_id", token_id)
        if state == self.final_state or self._allowed(state) is None or token_id == self.eos_token_id:
            return self.final_state
        nxt = self.index.get_next_state(state, token_id)
        return self.final_state if nxt is None else nxt

    def is_final_state(self, state: int) -> bool:
        """The text so far matches the regex (or EOS was emitted)."""
        if type(state) is int and state in self.final_states:
            return True
        self._allowed(state)  # a state of this guide, else ArgumentError / NotFoundError
        return False

    def can_terminate_state(self, state: int) -> bool:
        """EOS may come next."""
        return self.is_final_state(state)

    def must_terminate_state(self, state: int) -> bool:
        """Only EOS may come next."""
        tokens = self._allowed(state)
        return tokens is None or (len(tokens) == 1 and tokens[0] == self.eos_token_id)

    def allowed_tokens(self, state: int):
        """The ids allowed in `state` (array('I'), ascending; [eos] after EOS)."""
        tokens = self._allowed(state)
        return [self.eos_token_id] if tokens is None else tokens

    def mask_bytes(self, state: int) -> bytes:
        """The packed bitmask of `state`: the index's own (`Index.mask_bytes`) when it has one,
        else packed once and kept in `mask_cache` (LRU, bounded in bytes)."""
        self._allowed(state)  # a state of this guide, else ArgumentError / NotFoundError
        if state != self.final_state:
            own = getattr(self.index, "mask_bytes", None)
            if own is not None:
                return as_mask_bytes(own(state))
        mask = self.mask_cache.get(state)
        if mask is None:
            mask = pack_tokens(self.allowed_tokens(state), self.vocab_size)
            self.mask_cache.put(state, mask)
        return mask

    def __repr__(self) -> str:
        return f"RegexGuide({self.index!r})"
