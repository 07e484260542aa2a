"""`Guide`: outlines-core's stateful guide, over a regex Index, a JSON Schema or a grammar.

A generation loop holds one Guide per sequence: it asks for the allowed tokens (`get_tokens`,
or a packed bitmask with `write_mask_into`), `advance`s with the sampled token, and can
`rollback_state` a bounded number of tokens (speculative decoding, backtracking).
Masks come packed from the source (`mask_bytes`, cached per state in a byte-bounded
`MaskCache`), so the mask of a state seen before is one C-level buffer copy.

Where outlines-core 0.2.14 differs, on purpose:
- EOS: a final state allows EOS and `advance(eos)` stays in it (the index's `eos -> same state`
  transition); outlines-core lists EOS in `get_tokens` but refuses to advance on it (its issue 227).
- `reset()` also empties the rollback history (outlines-core keeps it, so a rollback after a
  reset returns to a state of the previous generation).
- `max_rollback` is exact (outlines-core's `max_rollback=0` still keeps 4 states).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Optional

from ..errors import ArgumentError, GuideError, InvalidTokenError, MaskBufferError, StateLimitError
from ..index import LazyIndex
from ..vocabulary import core_vocabulary_of
from .base import BaseGuide
from .instructions import (
    DEFAULT_MASK_CACHE_BYTES,
    MaskCache,
    as_mask_bytes,
    bitmask_words,
    mask_has,
    pack_tokens,
    shared_mask_cache,
    write_mask,
)
from .regex import RegexGuide

__all__ = ["DEFAULT_MASK_CACHE_BYTES", "Guide", "MaskCache"]


_NO_STATE = object()


def _is_index(source: Any) -> bool:
    """Index protocol (tokenguide's eager or lazy Index): states with allowed tokens and transitions."""
    return all(
        hasattr(source, name)
        for name in ("initial_state", "get_allowed_tokens", "get_next_state", "is_final_state", "vocab_size")
    ) and not hasattr(source, "get_next_instruction")


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GuideError(f"Guide: {name} must be an int >= 0, got {value!r}")
    return value


def _token(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        index = getattr(value, "__index__", None)  # numpy / torch integer scalars
        if index is None or isinstance(value, bool):
            raise InvalidTokenError(f"Guide: {name} must be an int token id, got {type(value).__name__} {value!r}")
        value = index()
    if value < 0:
        raise InvalidTokenError(f"Guide: {name} must be a token id >= 0, got {value}")
    return value


class Guide:
    """outlines-core's stateful Guide: `Guide(index, max_rollback=32)`.

    `source` is a tokenguide `Index` (a final state allows EOS and loops on it) or any stateless
    guide (`RegexGuide`, `CFGGuide`, `StopAtEOSGuide`...). `from_regex`, `from_json_schema` and
    `from_grammar` build one from a constraint and a vocabulary or tokenizer. `mask_cache`
    replaces the packed-mask cache (by default shared by all Guides over the same index).
    """

    def __init__(self, source: Any, max_rollback: int = 32, *, mask_cache: Optional[MaskCache] = None):
        self.max_rollback = _count("max_rollback", max_rollback)
        if mask_cache is not None and not isinstance(mask_cache, MaskCache):
            raise ArgumentError(f"Guide: mask_cache must be a MaskCache or None, got {type(mask_cache).__name__} {mask_cache!r:.60}")
        if _is_index(source):
            self.index: Optional[Any] = source
            self.guide: Optional[BaseGuide] = None
            self._initial: Any = source.initial_state
            self._masks = mask_cache if mask_cache is not None else shared_mask_cache(source)
            own = getattr(source, "mask_bytes", None)
            self._source_mask = None if mask_cache is not None else own
        elif isinstance(source, BaseGuide):
            self.index = source.index if isinstance(source, RegexGuide) else None
            self.guide = source
            self._initial = source.index.initial_state if self.index is not None else source.initial_state
            self._masks = mask_cache
            self._source_mask = source.mask_bytes if mask_cache is None else None
        else:
            raise GuideError(
                f"Guide: source: expected a tokenguide Index or guide (RegexGuide, CFGGuide), got {type(source).__name__}; "
                "use Guide.from_regex / from_json_schema / from_grammar to build one from a constraint"
            )
        self.source = source
        self.compiled: Optional[Any] = None  # from_json_schema: the CompiledSchema (path and reason)
        self.vocab_size: int = int(source.vocab_size)
        self.eos_token_id: int = int(source.eos_token_id)
        self.words = bitmask_words(self.vocab_size)
        self._state = self._initial
        self._history: deque = deque(maxlen=self.max_rollback)
        self._last_mask: tuple[Any, bytes] = (_NO_STATE, b"")
        self.renewals = 0  # times a lazy index met max_states mid-generation and started afresh

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def from_regex(
        cls, regex: str, vocabulary: Any, *, max_rollback: int = 32, lazy: bool = True, **kwargs: Any
    ) -> "Guide":
        """A guide for `regex` (Python re syntax, fullmatch) over a Vocabulary or tokenizer.

        `lazy` (default): a `LazyIndex`, whose automaton states and token rows are computed when
        first reached, so the first mask costs one vocabulary walk, not the whole index
        (keywords: ascii, max_states). `lazy=False`: the eager `Index`, from the index cache
        (keywords of `RegexGuide.from_regex`: ascii, max_states, cache_dir, use_cache...).
        """
        if not isinstance(regex, str):
            raise ArgumentError(f"Guide.from_regex: regex must be a str, got {type(regex).__name__} {regex!r:.60}")
        if not lazy:
            return cls(RegexGuide.from_regex(regex, vocabulary, **kwargs), max_rollback)
        unknown = sorted(set(kwargs) - {"ascii", "max_states"})
        if unknown:
            raise TypeError(
                f"Guide.from_regex: unexpected keyword argument(s) {', '.join(unknown)} with lazy=True; "
                "accepted: ascii, max_states (pass lazy=False for the cached eager Index and its options)"
            )
        if not isinstance(regex, str):
            raise TypeError(f"Guide.from_regex: regex must be a str, got {type(regex).__name__}")
        return cls(LazyIndex(regex, core_vocabulary_of(vocabulary), **kwargs), max_rollback)

    @classmethod
    def from_json_schema(
        cls,
        schema: Any,
        vocabulary: Any,
        *,
        max_rollback: int = 32,
        lazy: bool = True,
        whitespace_pattern: Optional[str] = None,
        max_recursion_depth: int = 3,
        lenient: bool = False,
        path: str = "auto",
        property_order: str = "schema",
        **kwargs: Any,
    ) -> "Guide":
        """A guide for JSON documents valid against `schema` (a dict or JSON text).

        `compile_json_schema` (with `whitespace_pattern`, `max_recursion_depth`, `lenient`, `path`,
        `property_order`: "schema" for keys in the schema's order, "any" for every order): with
        `path="auto"`, the engine path (the schema's rules as a grammar run by the engine,
        `guides.grammar.GrammarGuide`) wherever it takes the schema, a regex index only where the
        engine path refuses it. The guide's `compiled` (a CompiledSchema) says which path was taken
        and why. `lazy` and the other keywords as in `from_regex` (regex path only).
        """
        from ..errors import RegexNestingError, StateLimitError
        from ..json_schema import compile_json_schema

        compiled = compile_json_schema(schema, path=path, whitespace_pattern=whitespace_pattern,
                                       max_recursion_depth=max_recursion_depth, lenient=lenient,
                                       property_order=property_order)
        if compiled.path == "regex":
            try:
                guide = cls.from_regex(compiled.regex, vocabulary, max_rollback=max_rollback, lazy=lazy, **kwargs)
                guide.mask_bytes()  # a lazy automaton meets its state limit here, if at its first mask
            except (StateLimitError, RegexNestingError) as exc:
                if path == "regex":
                    raise
                fix = "raise max_states or simplify the schema there" if "max_states" in exc.msg else \
                    "simplify the schema there"
                raise type(exc)(f"Guide.from_json_schema: {exc.msg}; {compiled.reason}; {fix}", exc.pattern) from None
            return cls._checked(guide, compiled, vocabulary, max_rollback)
        from .grammar import GrammarGuide

        guide = cls(GrammarGuide(compiled.engine, vocabulary), max_rollback)
        return cls._checked(guide, compiled, vocabulary, max_rollback)

    @classmethod
    def _checked(cls, guide: "Guide", compiled: Any, vocabulary: Any, max_rollback: int) -> "Guide":
        """`guide` with its CompiledSchema; around a ValueChecksGuide when the compile left
        uniqueItems to check on the values (CompiledSchema.checks)."""
        if compiled.checks is not None:
            from .value_checks import ValueChecksGuide

            guide = cls(ValueChecksGuide(guide.source, compiled.checks, vocabulary), max_rollback)
        guide.compiled = compiled
        return guide

    @classmethod
    def from_grammar(cls, grammar: str, vocabulary: Any, *, max_rollback: int = 32) -> "Guide":
        """A guide for the language of a Lark grammar, any context-free one (`GrammarGuide`, run
        by the engine: every lexeme may end wherever it is complete); imports lark."""
        from .grammar import GrammarGuide

        return cls(GrammarGuide.from_lark(grammar, vocabulary), max_rollback)

    def copy(self) -> "Guide":
        """An independent Guide at the same state and history, sharing the source and its masks."""
        twin = object.__new__(Guide)
        twin.__dict__.update(self.__dict__)
        twin._history = deque(self._history, maxlen=self.max_rollback)
        return twin

    # -- state -----------------------------------------------------------------------------
    def get_state(self) -> Any:
        """The current state (an automaton state id for regex guides, a CFGState for grammars)."""
        return self._state

    def get_start_tokens(self) -> list[int]:
        """The tokens allowed at the start, ascending."""
        return self._allowed(self._initial)

    def get_tokens(self) -> list[int]:
        """The token ids allowed next, ascending (EOS included where the text may end)."""
        return self._allowed(self._state)

    def get_allowed_rollback(self) -> int:
        """How many tokens `rollback_state` can undo now."""
        return len(self._history)

    def _allowed(self, state: Any) -> list[int]:
        if self.index is not None:
            tokens = self._ask("get_allowed_tokens", state)
            return [] if tokens is None else list(tokens)
        tokens = self.guide.allowed_tokens(state)
        return list(range(self.vocab_size)) if tokens is None else sorted(tokens)

    def _next(self, state: Any, token_id: int) -> Any:
        """The state after `token_id`, or None when the token is not allowed in `state`."""
        if self.index is not None:
            return self._ask("get_next_state", state, token_id)
        if token_id >= self.vocab_size or not mask_has(self._mask(state), token_id):
            return None
        try:
            return self.guide.get_next_state(state, token_id)
        except InvalidTokenError:  # pragma: no cover - a guide whose mask and transitions disagree
            return None

    def advance(self, token_id: int, return_tokens: Optional[bool] = None) -> Optional[list[int]]:
        """Take `token_id` and return the tokens allowed after it (None if `return_tokens` is False).

        As in outlines-core, `return_tokens` defaults to True. A token that is not allowed raises
        InvalidTokenError (a ValueError) and leaves the guide unchanged.
        """
        token_id = _token("token_id", token_id)
        if return_tokens is not None and not isinstance(return_tokens, bool):
            raise ArgumentError(f"Guide.advance: return_tokens must be True, False or None, got {return_tokens!r:.60}")
        nxt = self._next(self._state, token_id)
        if nxt is None:
            allowed = self.get_tokens()
            raise InvalidTokenError(
                f"Guide.advance: token {token_id} is not allowed in state {_short(self._state)} "
                f"({len(allowed)} tokens are, e.g. {allowed[:5]}; see get_tokens())"
            )
        self._history.append(self._state)
        self._state = nxt
        return None if return_tokens is False else self.get_tokens()

    def is_finished(self) -> bool:
        """The text so far is complete: EOS may come next (outlines-core: a final state)."""
        if self.index is not None:
            return self.index.is_final_state(self._state)
        return self.guide.can_terminate_state(self._state)

    def accepts_tokens(self, token_ids: Iterable[int]) -> bool:
        """Whether the whole sequence can be taken from the current state (which is not changed)."""
        state = self._state
        if isinstance(token_ids, (str, bytes)) or not hasattr(token_ids, "__iter__"):
            raise ArgumentError(f"Guide.accepts_tokens: token_ids must be an iterable of token ids, got {token_ids!r:.60}")
        for token_id in token_ids:
            state = self._next(state, _token("token_ids item", token_id))
            if state is None:
                return False
        return True

    def rollback_state(self, token_count: int) -> None:
        """Undo the last `token_count` advances (at most `max_rollback`, and no more than were made)."""
        token_count = _count("token_count", token_count)
        if token_count > len(self._history):
            raise GuideError(
                f"Guide.rollback_state: token_count {token_count} is too large: cannot roll back {token_count} tokens, only {len(self._history)} "
                f"are in the history (max_rollback={self.max_rollback}); advance at least {token_count} first"
            )
        for _ in range(token_count):
            self._state = self._history.pop()

    def reset(self) -> None:
        """Back to the initial state, with an empty history."""
        self._state = self._initial
        self._history.clear()

    def _ask(self, method: str, state: Any, *args: Any) -> Any:
        """`self.index.method(state, *args)`; a lazy index that meets max_states mid-generation is
        renewed (`_renew`) and asked again, so a generation is never stranded by the cache limit."""
        try:
            return getattr(self.index, method)(state, *args)
        except StateLimitError:
            if self.guide is not None or getattr(self.index, "fresh", None) is None:
                raise
        try:
            state = self._renew(state)
            return getattr(self.index, method)(state, *args)
        except StateLimitError as exc:
            raise StateLimitError(
                f"Guide: one step needs more automaton states than the limit, even in a fresh automaton holding "
                f"only the {len(self._history) + 1} states of this guide ({exc.msg})", exc.pattern) from None

    def _renew(self, state: Any) -> Any:
        """Go on in `index.fresh()` (the lazy automaton with an empty state cache): this guide's
        states are carried over (`carry`), masks cached under the old numbers dropped; returns
        `state`'s new number. Other guides over the old index go on there until they meet it too."""
        old = self.index
        new = old.fresh()
        if new is old:
            raise StateLimitError(f"Guide: {old!r} met its state limit and cannot start afresh")
        self._history = deque((new.carry(s, old) for s in self._history), maxlen=self.max_rollback)
        self._state, self._initial = new.carry(self._state, old), new.carry(self._initial, old)
        self.index = self.source = new
        self._last_mask = (_NO_STATE, b"")
        if self._source_mask is not None:
            self._masks, self._source_mask = shared_mask_cache(new), new.mask_bytes
        else:
            self._masks.clear()  # the caller's cache: its keys are the old state numbers
        self.renewals += 1
        return new.carry(state, old)

    # -- masks -----------------------------------------------------------------------------
    def _mask(self, state: Any) -> bytes:
        if state is self._last_mask[0]:  # the usual step: write_mask_into, then advance from the same state
            return self._last_mask[1]
        renewals = self.renewals
        if self._source_mask is not None and self.guide is None:
            mask = as_mask_bytes(self._ask("mask_bytes", state))
        elif self._source_mask is not None:
            mask = as_mask_bytes(self._source_mask(state))
        else:
            mask = self._masks.get(state)
            if mask is None:
                mask = pack_tokens(self._allowed(state), self.vocab_size)
                if renewals != self.renewals:  # `state` is an old number now: nothing to cache it under
                    return mask
                self._masks.put(state, mask)
        if renewals == self.renewals:
            self._last_mask = (state, mask)
        return mask

    def mask_bytes(self) -> bytes:
        """The packed bitmask of the current state: ceil(vocab_size/32) little-endian int32 words."""
        return self._mask(self._state)

    def write_mask_into(self, data: Any, numel: Optional[int] = None, element_size: Optional[int] = None) -> None:
        """Write the allowed-token bitmask (bit `t % 32` of int32 word `t // 32`), zeroing the rest.

        `data` is a writable int32 buffer (bytearray, array('i'), a numpy array, a contiguous CPU
        torch tensor) of at least ceil(vocab_size/32) words, or, as in outlines-core, a raw address
        with `numel` and `element_size` (4). Bad buffers raise MaskBufferError.
        """
        if isinstance(data, int) and not isinstance(data, bool) and numel is None and element_size is None:
            raise MaskBufferError(
                f"Guide.write_mask_into: data {data} is an int, taken as a raw data_ptr: pass numel and "
                "element_size=4 with it, or pass a buffer (array('i'), bytearray, numpy array, torch tensor)"
            )
        try:
            write_mask(self._mask(self._state), data, numel, element_size)
        except MaskBufferError as exc:
            if isinstance(data, int) and not isinstance(data, bool):
                raise
            detail = str(exc).split(": ", 1)[-1]
            raise MaskBufferError(f"Guide.write_mask_into: data: {detail}") from None

    def __repr__(self) -> str:
        return f"Guide({self.source!r}, state={_short(self._state)}, history={len(self._history)})"


def _short(state: Any) -> str:
    text = repr(state)
    return text if len(text) <= 80 else text[:77] + "..."
