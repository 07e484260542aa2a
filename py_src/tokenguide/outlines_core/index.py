"""outlines-core's `Index(regex, vocabulary)`: a tokenguide `Index` behind outlines-core's methods,
errors and messages, with pickling, deepcopy and equality.

State numbers are tokenguide's (outlines-core's own numbers come from its Rust DFA and differ).
`vocab_size` is outlines-core's: the vocabulary's `len` (ids plus EOS), the size a mask is checked
against in `Guide.write_mask_into`.
"""

from __future__ import annotations

import struct
from array import array
from typing import Any

from ..errors import IncompatibleVocabularyError, RegexError, VocabularyError
from ..index import Index as CoreIndex
from ..regex.dfa import compile_regex
from .arguments import as_u32
from .vocabulary import Vocabulary

__all__ = ["Index"]

_BINARY_MAGIC = b"tokenguide-oc-index-v1\0"


def _rust_debug(text: str) -> str:
    """`text` as Rust's Debug prints a String (quotes, backslashes and controls escaped)."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\0":
            out.append("\\0")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _incompatible(regex: str, state: Any, needed: tuple[int, ...]) -> ValueError:
    """outlines-core's IncompatibleVocabulary message (a ValueError)."""
    chars = [chr(b) if b < 0x80 else f"\\x{b:02x}" for b in needed]
    shown = "[" + ", ".join(_rust_debug(c) for c in chars) + "]"
    return ValueError(
        f"The vocabulary provided is incompatible with the regex '{regex}'. Found no transitions from state "
        f"{state if state is not None else 0}, missing tokens corresponding to at least one of the following "
        f"characters: {shown}. This may be due to an encoding issue in your vocabulary."
    )


def _eos_only_index(regex: str, eos: int) -> CoreIndex:
    """The index of a vocabulary with no token besides EOS: EOS alone when `regex` matches the
    empty text, else outlines-core's IncompatibleVocabulary error naming the bytes it needs."""
    try:
        dfa = compile_regex(regex)
    except RegexError as exc:
        raise ValueError(f"Failed to build DFA {exc}") from None
    if dfa.initial not in dfa.finals:
        raise _incompatible(regex, dfa.initial, tuple(dfa.live_bytes(dfa.initial)))
    loop = (array("I", [eos]), array("I", [dfa.initial]))
    return CoreIndex.from_transitions(eos + 1, eos, dfa.initial, [dfa.initial], {dfa.initial: loop})


class Index:
    """outlines-core's ``Index(regex, vocabulary)`` (`regex` in Python `re` syntax, as tokenguide reads it)."""

    __slots__ = ("_index", "_vocab_size", "__weakref__")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, regex: str, vocabulary: Vocabulary) -> None:
        if not isinstance(regex, str):
            raise TypeError(f"argument 'regex': '{type(regex).__name__}' object cannot be cast as 'str'")
        if not isinstance(vocabulary, Vocabulary):
            raise TypeError(f"argument 'vocabulary': '{type(vocabulary).__name__}' object cannot be cast as 'Vocabulary'")
        try:
            core = vocabulary.as_tokenguide()
        except VocabularyError:  # no token besides EOS: only the empty text can be spelled
            self._index = _eos_only_index(regex, vocabulary.get_eos_token_id())
            self._vocab_size = len(vocabulary)
            return
        try:
            self._index = CoreIndex(regex, core)
        except IncompatibleVocabularyError as exc:
            if exc.state is None:
                raise ValueError(f"The vocabulary provided is incompatible with the regex '{regex}': {exc}") from None
            raise _incompatible(regex, exc.state, exc.needed) from None
        except RegexError as exc:
            raise ValueError(f"Failed to build DFA {exc}") from None
        self._vocab_size = len(vocabulary)

    @property
    def tokenguide_index(self) -> CoreIndex:
        """The tokenguide `Index` behind this one (immutable, shared by copies)."""
        return self._index

    @property
    def vocab_size(self) -> int:
        """outlines-core's vocab_size: the vocabulary's len (ids plus EOS) when the index was built."""
        return self._vocab_size

    # -- outlines-core's methods --------------------------------------------------------------
    def get_allowed_tokens(self, state: int) -> list[int] | None:
        """Token ids allowed in `state`, ascending (EOS on final states); None for an unknown state."""
        return self._index.get_allowed_tokens(as_u32("state", state))

    def get_next_state(self, state: int, token_id: int) -> int | None:
        """The state after `token_id`, or None when it is not allowed in `state` (and for EOS)."""
        state = as_u32("state", state)
        token_id = as_u32("token_id", token_id)
        if token_id == self._index.eos_token_id:  # outlines-core: EOS leads nowhere, even where it is allowed
            return None
        return self._index.get_next_state(state, token_id)

    def is_final_state(self, state: int) -> bool:
        """Whether `state` is final (EOS allowed there)."""
        return self._index.is_final_state(as_u32("state", state))

    def get_final_states(self) -> set[int]:
        """Every final state."""
        return set(self._index.get_final_states())

    def get_transitions(self) -> dict[int, dict[int, int]]:
        """{state: {token_id: next state}}, EOS looping on final states."""
        return self._index.get_transitions()

    def get_initial_state(self) -> int:
        """The initial state."""
        return self._index.get_initial_state()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Index):
            return NotImplemented
        return self._vocab_size == other._vocab_size and (self._index is other._index or self._index == other._index)

    def __str__(self) -> str:
        lines = ["Index object with transitions:\n"]
        for state, moves in self.get_transitions().items():
            lines.append(f"{state} -> {{\n" + "".join(f"    {t}: {n},\n" for t, n in moves.items()) + "}\n")
        return "".join(lines)

    def __repr__(self) -> str:
        return (
            f"Index(initial_state={self.get_initial_state()}, final_states={sorted(self.get_final_states())}, "
            f"states={self._index.num_states}, eos_token_id={self._index.eos_token_id}, vocab_size={self._vocab_size})"
        )

    def __deepcopy__(self, memo: dict) -> "Index":
        twin = Index.__new__(Index)
        twin._index, twin._vocab_size = self._index, self._vocab_size  # the tokenguide Index is immutable
        return twin

    def __copy__(self) -> "Index":
        return self.__deepcopy__({})

    def __reduce__(self) -> tuple:
        return (Index.from_binary, (self.to_binary(),))

    def to_binary(self) -> bytes:
        """This index as bytes that `from_binary` reads back (pickling uses them)."""
        return _BINARY_MAGIC + struct.pack("<Q", self._vocab_size) + self._index.to_bytes(level=1)

    @staticmethod
    def from_binary(binary_data: bytes) -> "Index":
        """The index `to_binary` wrote; ValueError for other bytes."""
        try:
            data = bytes(binary_data)
            if not data.startswith(_BINARY_MAGIC):
                raise ValueError("not a tokenguide outlines_core Index")
            (vocab_size,) = struct.unpack_from("<Q", data, len(_BINARY_MAGIC))
            core = CoreIndex.from_bytes(data[len(_BINARY_MAGIC) + 8:])
        except (ValueError, TypeError, struct.error) as exc:
            raise ValueError(f"Deserialization of Index failed: {exc}") from None
        index = Index.__new__(Index)
        index._index, index._vocab_size = core, vocab_size
        return index
