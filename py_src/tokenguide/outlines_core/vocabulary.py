"""outlines-core's `Vocabulary`: token bytes -> ids plus an EOS id, mutable, as outlines builds it.

It keeps outlines-core's own data and rules (EOS may not be a token, a token may hold several
ids, `len` counts ids plus EOS, `insert`/`remove`/`get` take str or bytes) and hands a tokenguide
`Vocabulary` of the same tokens to `Index` (`as_tokenguide`, rebuilt after a change).
"""

from __future__ import annotations

import struct
from typing import Any

from ..errors import VocabularyError
from ..vocabulary import Vocabulary as CoreVocabulary
from .arguments import as_token, as_u32, is_sequence, rust_type_name

__all__ = ["Vocabulary"]

_EXPECTED = "Expected a dict with keys of type str or bytes and values of type list[int]"
_EOS_DISALLOWED = "EOS token should not be inserted into Vocabulary"
_BINARY_MAGIC = b"tokenguide-oc-vocabulary-v1\0"


def _read_map(mapping: Any) -> dict[bytes, list[int]] | None:
    """The dict read as str keys or bytes keys (one kind for all keys) -> lists of u32, else None."""
    if not isinstance(mapping, dict):
        return None
    out: dict[bytes, list[int]] = {}
    keys = list(mapping)
    if all(isinstance(k, str) for k in keys):
        kind = str
    elif all(not isinstance(k, str) for k in keys):
        kind = bytes
    else:
        return None
    for key, value in mapping.items():
        data = as_token(key)
        if data is None or isinstance(value, str) or not is_sequence(value):
            return None
        try:
            ids = [as_u32("map", i) for i in value]
        except (TypeError, OverflowError):
            return None
        if kind is str and data in out:  # two str keys cannot give the same bytes
            return None
        out[data] = ids
    return out


class Vocabulary:
    """outlines-core's ``Vocabulary(eos_token_id, map)``: `map` is a dict whose keys are all str
    (their UTF-8) or all bytes, and whose values are lists of token ids; EOS may not be among them."""

    __slots__ = ("_eos", "_tokens", "_core")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, eos_token_id: int, map: dict) -> None:  # noqa: A002 - outlines-core's name
        eos = as_u32("eos_token_id", eos_token_id)
        tokens = _read_map(map)
        if tokens is None:
            if type(map) is dict:
                raise TypeError(f"Dict keys or/and values of the wrong types. {_EXPECTED}")
            raise TypeError(f"{_EXPECTED}, got {rust_type_name(map)}")
        if any(eos in ids for ids in tokens.values()):
            raise ValueError(_EOS_DISALLOWED)
        self._eos = eos
        self._tokens = tokens
        self._core: CoreVocabulary | None = None

    @staticmethod
    def from_pretrained(model: str, revision: str | None = None, token: str | None = None) -> "Vocabulary":
        """The vocabulary of a Hugging Face model, read from the local cache or the Hub as outlines-core does."""
        from .pretrained import pretrained_tokens

        eos, pairs = pretrained_tokens(model, revision, token)
        vocabulary = Vocabulary(eos, {})
        for data, token_id in pairs:
            vocabulary._tokens.setdefault(data, []).append(token_id)
        return vocabulary

    # -- outlines-core's methods ------------------------------------------------------------
    def get_eos_token_id(self) -> int:
        """The EOS token id."""
        return self._eos

    def get(self, token: str | bytes) -> list[int] | None:
        """The ids of `token` (str: its UTF-8), or None."""
        data = _token_argument(token)
        ids = self._tokens.get(data)
        return None if ids is None else list(ids)

    def insert(self, token: str | bytes, token_id: int) -> None:
        """Add `token_id` to the ids of `token` (EOS refused with a ValueError)."""
        data = _token_argument(token)
        token_id = as_u32("token_id", token_id)
        if token_id == self._eos:
            raise ValueError(_EOS_DISALLOWED)
        self._tokens.setdefault(data, []).append(token_id)
        self._core = None

    def remove(self, token: str | bytes) -> None:
        """Remove `token` and all its ids (nothing happens when it is absent)."""
        data = _token_argument(token)
        if self._tokens.pop(data, None) is not None:
            self._core = None

    def __len__(self) -> int:
        return sum(len(ids) for ids in self._tokens.values()) + 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vocabulary):
            return NotImplemented
        return self._eos == other._eos and self._tokens == other._tokens

    def __str__(self) -> str:
        lines = [f"Vocabulary object with eos_token_id={self._eos} and the following tokens to token_ids:\n"]
        for data, ids in self._tokens.items():
            shown = ", ".join(f'"0x{b:02X}"' for b in data)
            lines.append(f"[{shown}] -> [{', '.join(map(str, ids))}]\n")
        return "".join(lines)

    def __repr__(self) -> str:
        return f"Vocabulary(eos_token_id={self._eos}, tokens={len(self._tokens)}, ids={len(self) - 1})"

    def __deepcopy__(self, memo: dict) -> "Vocabulary":
        twin = Vocabulary(self._eos, {})
        twin._tokens = {data: list(ids) for data, ids in self._tokens.items()}
        return twin

    def __copy__(self) -> "Vocabulary":
        return self.__deepcopy__({})

    def __reduce__(self) -> tuple:
        return (Vocabulary.from_binary, (self.to_binary(),))

    def to_binary(self) -> bytes:
        """This vocabulary as bytes that `from_binary` reads back (pickling uses them)."""
        parts = [_BINARY_MAGIC, struct.pack("<II", self._eos, len(self._tokens))]
        for data, ids in self._tokens.items():
            parts.append(struct.pack(f"<II{len(ids)}I", len(data), len(ids), *ids))
            parts.append(data)
        return b"".join(parts)

    @staticmethod
    def from_binary(binary_data: bytes) -> "Vocabulary":
        """The vocabulary `to_binary` wrote; ValueError for other bytes."""
        try:
            data = bytes(binary_data)
            if not data.startswith(_BINARY_MAGIC):
                raise ValueError("not a tokenguide outlines_core Vocabulary")
            pos = len(_BINARY_MAGIC)
            eos, count = struct.unpack_from("<II", data, pos)
            pos += 8
            tokens: dict[bytes, list[int]] = {}
            for _ in range(count):
                size, n = struct.unpack_from("<II", data, pos)
                pos += 8
                ids = list(struct.unpack_from(f"<{n}I", data, pos))
                pos += 4 * n
                if pos + size > len(data):
                    raise ValueError("unexpected end of data")
                tokens[data[pos:pos + size]] = ids
                pos += size
            if pos != len(data):
                raise ValueError("trailing bytes")
        except (ValueError, TypeError, struct.error) as exc:
            raise ValueError(f"Deserialization of Vocabulary failed: {exc}") from None
        vocabulary = Vocabulary(eos, {})
        vocabulary._tokens = tokens
        return vocabulary

    # -- for Index ---------------------------------------------------------------------------
    def as_tokenguide(self) -> CoreVocabulary:
        """A tokenguide `Vocabulary` of the same tokens (kept until the next change).

        An id that outlines-core lets two tokens share stays with the first of them; empty tokens
        are left out (tokenguide gives no token zero bytes). VocabularyError when no token is left.
        """
        if self._core is None:
            seen: set[int] = set()
            mapping: dict[bytes, list[int]] = {}
            for data, ids in self._tokens.items():
                kept = [i for i in dict.fromkeys(ids) if i not in seen]
                if kept and data:
                    seen.update(kept)
                    mapping[data] = kept
            if not mapping:
                raise VocabularyError("the vocabulary has no token besides EOS")
            self._core = CoreVocabulary(self._eos, mapping)
        return self._core


def _token_argument(token: Any) -> bytes:
    """A str or bytes token as bytes; outlines-core's TypeError otherwise."""
    data = as_token(token)
    if data is None:
        raise TypeError(f'Expected a token of type str or bytes, got "{rust_type_name(token)}"')
    return data
