"""outlines-core's stateful `Guide(index, max_rollback=32)` over the drop-in `Index`, with its
errors and messages (advance, rollback_state, write_mask_into), equality, pickling and deepcopy.

As in outlines-core, `reset()` goes back to the initial state but keeps the rollback history, and
the history holds at most `max_rollback` states (0 behaves as outlines-core's Rust VecDeque does:
its capacity grows to 4 on the first advance).
"""

from __future__ import annotations

import struct
from typing import Any

from .arguments import as_u32, as_u32_list, as_usize
from .index import Index

__all__ = ["Guide"]

_BINARY_MAGIC = b"tokenguide-oc-guide-v1\0"


class Guide:
    """outlines-core's ``Guide(index, max_rollback=32)``."""

    __slots__ = ("_index", "_state", "_history", "_capacity")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, index: Index, max_rollback: int = 32) -> None:
        if not isinstance(index, Index):
            raise TypeError(f"argument 'index': '{type(index).__name__}' object cannot be cast as 'Index'")
        self._capacity = as_usize("max_rollback", max_rollback)
        self._index = index
        self._state = index.get_initial_state()
        self._history: list[int] = []

    def get_state(self) -> int:
        """The current state."""
        return self._state

    def get_tokens(self) -> list[int]:
        """Token ids allowed now, ascending."""
        tokens = self._index.get_allowed_tokens(self._state)
        if tokens is None:
            raise ValueError(f"No allowed tokens available for the state {self._state}")
        return tokens

    def get_allowed_rollback(self) -> int:
        """How many advances `rollback_state` can undo."""
        return len(self._history)

    def advance(self, token_id: int, return_tokens: bool | None = None) -> list[int] | None:
        """Take `token_id`; returns the tokens allowed next (None when `return_tokens` is False)."""
        token_id = as_u32("token_id", token_id)
        if return_tokens is not None and type(return_tokens) is not bool:
            raise TypeError(f"argument 'return_tokens': '{type(return_tokens).__name__}' object cannot be cast as 'bool'")
        nxt = self._index.get_next_state(self._state, token_id)
        if nxt is None:
            raise ValueError(f"No next state found for the current state: {self._state} with token ID: {token_id}")
        if len(self._history) == self._capacity:
            if self._history:
                del self._history[0]
            elif self._capacity == 0:
                self._capacity = 4  # a Rust VecDeque with no room grows to 4
        self._history.append(self._state)
        self._state = nxt
        return self.get_tokens() if return_tokens is not False else None

    def rollback_state(self, n: int) -> None:
        """Undo the last `n` advances; ValueError when fewer are stored."""
        n = as_usize("n", n)
        if n == 0:
            return
        available = len(self._history)
        if n > available:
            raise ValueError(
                f"Cannot roll back {n} step(s): only {available} states stored (max_rollback = {self._capacity}). "
                f"You must advance through at least {n} state(s) before rolling back {n} step(s)."
            )
        state = self._state
        for _ in range(n):
            state = self._history.pop()
        self._state = state

    def accepts_tokens(self, sequence: list[int]) -> bool:
        """Whether the whole token sequence can be taken from the current state (which does not change)."""
        state: int | None = self._state
        for token_id in as_u32_list("sequence", sequence):
            state = self._index.get_next_state(state, token_id)
            if state is None:
                return False
        return True

    def is_finished(self) -> bool:
        """Whether the current state is final."""
        return self._index.is_final_state(self._state)

    def write_mask_into(self, data_ptr: int, numel: int, element_size: int) -> None:
        """Write the allowed-token bitmask at address `data_ptr`: `numel` 32-bit words (bit t % 32 of
        word t // 32), zeroed first; tokens past the buffer are left out, as in outlines-core."""
        data_ptr = as_usize("data_ptr", data_ptr)
        numel = as_usize("numel", numel)
        element_size = as_usize("element_size", element_size)
        expected = (self._index.vocab_size + 31) // 32
        if element_size != 4:
            raise ValueError(
                f"Invalid element size: got {element_size} bytes per element, expected 4 bytes (32-bit integer).")
        if data_ptr == 0:
            raise ValueError("Invalid data pointer: received a null pointer.")
        if data_ptr % 4 != 0:
            raise ValueError(f"Invalid data pointer alignment: pointer address {data_ptr} is not a multiple of 4.")
        if numel < expected:
            raise ValueError(
                f"Invalid buffer size: got {numel} elements ({numel * element_size} bytes), expected {expected} "
                f"elements ({expected * 4} bytes). Ensure that the mask tensor has shape (1, (vocab_size + 31) // 32) "
                "and uses 32-bit integers."
            )
        import ctypes  # only here: a raw address is written through ctypes

        mask = self._index.tokenguide_index.mask_bytes(self._state)[: numel * 4]
        ctypes.memset(data_ptr, 0, numel * 4)
        ctypes.memmove(data_ptr, mask, len(mask))

    def reset(self) -> None:
        """Back to the initial state (the rollback history is kept, as in outlines-core)."""
        self._state = self._index.get_initial_state()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Guide):
            return NotImplemented
        return self._state == other._state and self._history == other._history and self._index == other._index

    def __str__(self) -> str:
        return f"Guide object with the state={self._state} and {self._index}"

    def __repr__(self) -> str:
        return f"Guide(state={self._state}, history={len(self._history)}, max_rollback={self._capacity}, index={self._index!r})"

    def __reduce__(self) -> tuple:
        return (Guide.from_binary, (self.to_binary(),))

    def to_binary(self) -> bytes:
        """This guide (index, state, history) as bytes that `from_binary` reads back (pickling uses them)."""
        head = struct.pack(f"<QII{len(self._history)}I", self._capacity, self._state, len(self._history), *self._history)
        return _BINARY_MAGIC + struct.pack("<I", len(head)) + head + self._index.to_binary()

    @staticmethod
    def from_binary(binary_data: bytes) -> "Guide":
        """The guide `to_binary` wrote; ValueError for other bytes."""
        try:
            data = bytes(binary_data)
            if not data.startswith(_BINARY_MAGIC):
                raise ValueError("not a tokenguide outlines_core Guide")
            pos = len(_BINARY_MAGIC)
            (size,) = struct.unpack_from("<I", data, pos)
            capacity, state, count = struct.unpack_from("<QII", data, pos + 4)
            history = list(struct.unpack_from(f"<{count}I", data, pos + 4 + 16))
            if 16 + 4 * count != size:
                raise ValueError("bad header")
            index = Index.from_binary(data[pos + 4 + size:])
        except (ValueError, TypeError, struct.error) as exc:
            raise ValueError(f"Deserialization of Guide failed: {exc}") from None
        guide = Guide(index, capacity)
        guide._state, guide._history = state, history
        return guide
