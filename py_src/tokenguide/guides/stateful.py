"""`Guide`: outlines-core's stateful guide, over a regex Index, a JSON Schema or a grammar.

A generation loop holds one Guide per sequence: it asks for the allowed tokens (`get_tokens`,
or a packed bitmask with `write_mask_into`), `advance`s with the sampled token, and can
`rollback_state` a bounded number of tokens (speculative decoding, backtracking).
Masks are packed once per state and kept in a byte-bounded LRU cache (`MaskCache`), so the
mask of a state seen before is one buffer copy.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Optional

from ..errors import InvalidTokenError, TokenguideError
from ..index import Index
from .base import BaseGuide
from .instructions import Write, bitmask_words, pack_tokens, write_packed
from .regex import RegexGuide

__all__ = ["DEFAULT_MASK_CACHE_BYTES", "Guide", "MaskCache"]

#: Default memory bound of one guide's packed-mask cache (64 MB).
DEFAULT_MASK_CACHE_BYTES = 64 * 1024 * 1024


class MaskCache:
    """Packed masks keyed by guide state, least recently used dropped first, bounded in bytes."""

    def __init__(self, max_bytes: int = DEFAULT_MASK_CACHE_BYTES):
        if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 0:
            raise TokenguideError(f"MaskCache: max_bytes must be an int >= 0, got {max_bytes!r}")
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[Any, bytes] = OrderedDict()

    def get(self, key: Any) -> Optional[bytes]:
        """The cached mask of `key`, or None (unhashable keys are never cached)."""
        try:
            mask = self._items.get(key)
        except TypeError:
            return None
        if mask is not None:
            self._items.move_to_end(key)
        return mask

    def put(self, key: Any, mask: bytes) -> None:
        """Remember `mask` for `key`, evicting the oldest masks past `max_bytes`."""
        if len(mask) > self.max_bytes:
            return
        try:
            old = self._items.pop(key, None)
        except TypeError:
            return
        if old is not None:
            self.bytes -= len(old)
        self._items[key] = mask
        self.bytes += len(mask)
        while self.bytes > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self.bytes -= len(dropped)

    def __len__(self) -> int:
        return len(self._items)


def _check_count(name: str, value: Any, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise TokenguideError(f"Guide: {name} must be an int >= {low}, got {value!r}")
    return value


class Guide:
    """outlines-core's stateful Guide: `Guide(index, max_rollback=32)`.

    `source` is a tokenguide `Index` (regex semantics of outlines-core: a final state allows EOS
    and loops on it) or any stateless guide (`RegexGuide`, `CFGGuide`, ...). Use `from_regex`,
    `from_json_schema` or `from_grammar` to build from a constraint and a vocabulary.
    """

    def __init__(self, source: Any, max_rollback: int = 32, *, mask_cache_bytes: int = DEFAULT_MASK_CACHE_BYTES):
        self.max_rollback = _check_count("max_rollback", max_rollback)
        if isinstance(source, Index):
            self.index: Optional[Index] = source
            self.guide: Optional[BaseGuide] = None
            self.vocab_size = source.vocab_size
            self.eos_token_id = source.eos_token_id
            self._initial: Any = source.initial_state
        elif isinstance(source, BaseGuide):
            self.index = source.index if isinstance(source, RegexGuide) else None
            self.guide = source if self.index is None else None
            self.vocab_size = source.vocab_size
            self.eos_token_id = source.eos_token_id
            self._initial = source.index.initial_state if self.index is not None else source.initial_state
        else:
            raise TokenguideError(
                f"Guide: expected a tokenguide Index or guide (RegexGuide, CFGGuide), got {type(source).__name__}; "
                "use Guide.from_regex / from_json_schema / from_grammar to build one from a constraint"
            )
        self._words = bitmask_words(self.vocab_size)
        self._masks = MaskCache(mask_cache_bytes)
        self._state = self._initial
        self._history: list[Any] = []

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def from_regex(cls, regex: str, vocabulary: Any, *, max_rollback: int = 32, **kwargs: Any) -> "Guide":
        """A guide for `regex` (Python re syntax, fullmatch) over a Vocabulary or tokenizer."""
        return cls(RegexGuide.from_regex(regex, vocabulary, **kwargs).index, max_rollback)

    @classmethod
    def from_json_schema(cls, schema: Any, vocabulary: Any, *, max_rollback: int = 32, **kwargs: Any) -> "Guide":
        """A guide for JSON documents valid against `schema` (a dict or JSON text)."""
        return cls(RegexGuide.from_json_schema(schema, vocabulary, **kwargs).index, max_rollback)

    @classmethod
    def from_grammar(cls, grammar: str, vocabulary: Any, *, max_rollback: int = 32) -> "Guide":
        """A guide for the language of a Lark grammar (LALR, contextual lexer)."""
        from ..vocabulary import as_tokenizer
        from .cfg import CFGGuide

        return cls(CFGGuide(grammar, as_tokenizer(vocabulary)), max_rollback)

    # -- state -----------------------------------------------------------------------------
    def get_state(self) -> Any:
        """The current state (an automaton state id for regex guides)."""
        return self._state

    def get_start_tokens(self) -> list[int]:
        """The tokens allowed at the start (outlines-core's name)."""
        return self._allowed(self._initial)

    def _allowed(self, state: Any) -> list[int]:
        if self.index is not None:
            tokens = self.index.get_allowed_tokens(state)
            return [] if tokens is None else list(tokens)
        instruction = self.guide.get_next_instruction(state)
        if instruction.tokens is None:
            return list(range(self.vocab_size))
        tokens = list(instruction.tokens)
        return tokens[:1] if isinstance(instruction, Write) else sorted(tokens)

    def get_tokens(self) -> list[int]:
        """The token ids allowed next, ascending."""
        return self._allowed(self._state)

    def _next(self, state: Any, token_id: int) -> Any:
        """The state after `token_id`, or None when the token is not allowed."""
        if self.index is not None:
            return self.index.get_next_state(state, token_id)
        if token_id not in set(self._allowed(state)):
            return None
        return self.guide.get_next_state(state, token_id)

    def advance(self, token_id: int, return_tokens: bool = False) -> Optional[list[int]]:
        """Take `token_id`; with `return_tokens`, return the tokens allowed after it.

        A token that is not allowed raises InvalidTokenError (a ValueError) and leaves the state unchanged.
        """
        token_id = _check_count("token_id", token_id)
        nxt = self._next(self._state, token_id)
        if nxt is None:
            raise InvalidTokenError(
                f"Guide.advance: token {token_id} is not allowed in state {self._state!r} "
                f"({len(self.get_tokens())} tokens are; see get_tokens())"
            )
        self._history.append(self._state)
        if len(self._history) > self.max_rollback:
            del self._history[: len(self._history) - self.max_rollback]
        self._state = nxt
        return self.get_tokens() if return_tokens else None

    def is_finished(self) -> bool:
        """The text so far is complete: EOS may come next (outlines-core: a final state)."""
        if self.index is not None:
            return self.index.is_final_state(self._state)
        return self.guide.can_terminate_state(self._state)

    def accepts_tokens(self, token_ids: Iterable[int]) -> bool:
        """Whether the sequence can be taken from the current state (the state is not changed)."""
        state = self._state
        for token_id in token_ids:
            token_id = _check_count("token_ids item", token_id)
            state = self._next(state, token_id)
            if state is None:
                return False
        return True

    def rollback_state(self, token_count: int) -> None:
        """Undo the last `token_count` advances (at most `max_rollback`, and no more than were made)."""
        token_count = _check_count("token_count", token_count)
        if token_count > len(self._history):
            raise TokenguideError(
                f"Guide.rollback_state: cannot roll back {token_count} tokens, only {len(self._history)} "
                f"are in the history (max_rollback={self.max_rollback})"
            )
        if token_count:
            self._state = self._history[-token_count]
            del self._history[-token_count:]

    def reset(self) -> None:
        """Back to the initial state, with an empty history."""
        self._state = self._initial
        self._history.clear()

    # -- masks -----------------------------------------------------------------------------
    def mask_bytes(self) -> bytes:
        """The packed bitmask of the current state: ceil(vocab_size/32) little-endian int32 words."""
        state = self._state
        mask = self._masks.get(state)
        if mask is None:
            mask = pack_tokens(self._allowed(state), self.vocab_size)
            self._masks.put(state, mask)
        return mask

    def write_mask_into(self, data: Any, numel: Optional[int] = None, element_size: Optional[int] = None) -> None:
        """Write the allowed-token bitmask (bit `t % 32` of int32 word `t // 32`).

        `data` is a writable int32 buffer (bytearray, array('i'), a numpy array, a CPU torch
        tensor) holding at least ceil(vocab_size/32) words, or, as in outlines-core, a raw
        address with `numel` and `element_size` (4).
        """
        mask = self.mask_bytes()
        if isinstance(data, int) and not isinstance(data, bool):
            _write_to_address(mask, data, numel, element_size, self._words)
            return
        pointer = _tensor_address(data, self._words)
        if pointer is not None:
            _write_to_address(mask, pointer, self._words, 4, self._words)
            return
        write_packed(mask, data)

    def __repr__(self) -> str:
        source = self.index if self.index is not None else self.guide
        return f"Guide({source!r}, state={self._state!r}, history={len(self._history)})"


def _write_to_address(mask: bytes, address: int, numel: Any, element_size: Any, words: int) -> None:
    """Copy `mask` to raw memory (outlines-core's write_mask_into(data_ptr, numel, element_size))."""
    if element_size != 4:
        raise TokenguideError(f"Guide.write_mask_into: element_size must be 4 (int32), got {element_size!r}")
    if isinstance(numel, bool) or not isinstance(numel, int) or numel < words:
        raise TokenguideError(
            f"Guide.write_mask_into: numel must be an int >= {words} (ceil(vocab_size / 32) words), got {numel!r}"
        )
    if address <= 0:
        raise TokenguideError(f"Guide.write_mask_into: data_ptr must be a positive address, got {address}")
    import ctypes

    ctypes.memmove(address, mask, len(mask))


def _tensor_address(data: Any, words: int) -> Optional[int]:
    """The data address of a contiguous CPU int32 torch tensor (which has no buffer protocol), else None."""
    if not (hasattr(data, "data_ptr") and hasattr(data, "element_size") and hasattr(data, "is_contiguous")):
        return None
    try:
        memoryview(data)
        return None  # a buffer-protocol object: handled by write_packed
    except TypeError:
        pass
    device = getattr(getattr(data, "device", None), "type", "cpu")
    if device != "cpu":
        raise TokenguideError(f"Guide.write_mask_into: the tensor must be on the CPU, got device {device!r}")
    if str(getattr(data, "dtype", "")) != "torch.int32":
        raise TokenguideError(f"Guide.write_mask_into: the tensor must have dtype torch.int32, got {data.dtype}")
    if not data.is_contiguous():
        raise TokenguideError("Guide.write_mask_into: the tensor must be contiguous")
    if data.numel() < words:
        raise TokenguideError(
            f"Guide.write_mask_into: the tensor has {data.numel()} elements, needs {words} (ceil(vocab_size / 32))"
        )
    return int(data.data_ptr())

