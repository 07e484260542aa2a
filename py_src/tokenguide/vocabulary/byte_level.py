"""The GPT-2 byte-to-unicode table used by ByteLevel tokenizers, and fast decoding with it.

ByteLevel tokenizers (GPT-2, Llama 3, Qwen...) store every token as a string in which each
character stands for exactly one byte: printable latin-1 bytes stand for themselves, the
other 68 bytes (controls, space, 0x7F-0xA0, 0xAD) are shifted to U+0100 upwards in byte order.
Decoding a token therefore means mapping each character back to its byte.
"""

from __future__ import annotations

from ..errors import VocabularyError

__all__ = [
    "BYTE_TO_CHAR",
    "CHAR_TO_BYTE",
    "decode_byte_level",
    "decode_byte_level_many",
    "encode_byte_level",
    "is_byte_level",
]


def _build_table() -> dict[int, str]:
    """Byte -> character: printable latin-1 bytes keep their code point, the rest get 256, 257, ..."""
    printable = set(range(ord("!"), ord("~") + 1))
    printable |= set(range(ord("¡"), ord("¬") + 1))
    printable |= set(range(ord("®"), ord("ÿ") + 1))
    table: dict[int, str] = {}
    shifted = 0
    for byte in range(256):
        if byte in printable:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(256 + shifted)
            shifted += 1
    return table


BYTE_TO_CHAR: dict[int, str] = _build_table()
"""byte value (0-255) -> the character that represents it in a ByteLevel token string."""

CHAR_TO_BYTE: dict[str, int] = {char: byte for byte, char in BYTE_TO_CHAR.items()}
"""Inverse of BYTE_TO_CHAR: a ByteLevel character -> its byte value."""

# A character that is not in the table is mapped to one outside latin-1, so that
# ``.encode("latin-1")`` fails on it; the slow path then finds and names the character.
_BAD = "\ufffe"
_TRANSLATE: dict[int, int | str] = {ord(char): byte for char, byte in CHAR_TO_BYTE.items()}
for _cp in range(256):
    if chr(_cp) not in CHAR_TO_BYTE:
        _TRANSLATE[_cp] = _BAD
del _cp

_ENCODE_TRANSLATE: dict[int, str] = {byte: char for byte, char in BYTE_TO_CHAR.items()}


def _describe(char: str) -> str:
    return f"{char!r} (U+{ord(char):04X})"


def _first_bad_char(token: str) -> str:
    for char in token:
        if char not in CHAR_TO_BYTE:
            return char
    raise AssertionError("no character outside the byte-level table")  # pragma: no cover


def decode_byte_level(token: str) -> bytes:
    """Bytes that a ByteLevel token string stands for, e.g. ``'Ġthe'`` -> ``b' the'``.

    Raises VocabularyError naming the first character that is not in the GPT-2 table.
    """
    try:
        return token.translate(_TRANSLATE).encode("latin-1")
    except UnicodeEncodeError:
        char = _first_bad_char(token)
        raise VocabularyError(
            f"token {token!r} is not a ByteLevel token: character {_describe(char)} "
            "is not in the GPT-2 byte-to-unicode table"
        ) from None


def decode_byte_level_many(tokens: list[str]) -> list[bytes]:
    """decode_byte_level over a list, in one translate/encode pass (fast for whole vocabularies).

    Every table character is one byte, so the joined result is cut back into tokens by length.
    """
    try:
        data = "".join(tokens).translate(_TRANSLATE).encode("latin-1")
    except UnicodeEncodeError:
        for token in tokens:
            decode_byte_level(token)  # raises on the first bad token
        raise AssertionError("unreachable")  # pragma: no cover
    out: list[bytes] = []
    append = out.append
    pos = 0
    for token in tokens:
        end = pos + len(token)
        append(data[pos:end])
        pos = end
    return out


def is_byte_level(tokens: list[str]) -> bool:
    """True when every character of every token is in the GPT-2 table."""
    try:
        "".join(tokens).translate(_TRANSLATE).encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def encode_byte_level(data: bytes) -> str:
    """The ByteLevel token string for some bytes (inverse of decode_byte_level)."""
    return bytes(data).decode("latin-1").translate(_ENCODE_TRANSLATE)
