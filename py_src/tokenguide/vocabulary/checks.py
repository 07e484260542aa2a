"""Validating the values a vocabulary is made of (token ids, token text) and naming them in errors.

Shared by the file readers, the decoders, the EOS rules and the `Vocabulary` constructor, so
that every bad value is reported the same way: which file, which place in it, what was found.
"""

from __future__ import annotations

from typing import Any

from ..errors import VocabularyError

__all__ = ["HugeInteger", "MAX_ID_DIGITS", "MAX_TOKEN_ID", "check_id", "id_from_digits", "short", "type_name", "utf8_texts"]

MAX_TOKEN_ID = 2**31 - 1
"""Largest accepted token id (ids are stored as u32 and handled as JS numbers in the browser)."""

MAX_ID_DIGITS = 20
"""Longest digit string read as a token id; longer ones are refused before int() (which is quadratic
and refuses more than 4,300 digits with a raw ValueError)."""


class HugeInteger:
    """A JSON integer too long for int() (more than sys.get_int_max_str_digits() digits), kept
    unconverted so that the check of the place holding it can name that place."""

    __slots__ = ("digits",)

    def __init__(self, digits: int):
        self.digits = digits

    def __repr__(self) -> str:
        return f"<an integer of {self.digits:,} digits>"


def type_name(value: Any) -> str:
    """JSON-flavoured name of a value's type for messages ('an integer', 'a list', 'null'...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, HugeInteger)):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def short(value: Any, limit: int = 60) -> str:
    """repr() of a value cut to `limit` characters, for messages about huge tokens or objects."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_id(value: Any, filename: str, where: str) -> int:
    """`value` if it is an integer token id in 0..MAX_TOKEN_ID, else a VocabularyError naming `where`."""
    if isinstance(value, HugeInteger):
        raise VocabularyError(f"{filename}: {where}: token id {value!r} is too large (ids must be below 2**31)")
    if type(value) is not int:
        raise VocabularyError(
            f"{filename}: {where}: expected a non-negative integer token id, got {type_name(value)} {short(value)}"
        )
    if value < 0:
        raise VocabularyError(f"{filename}: {where}: token id {short(value)} is negative")
    if value > MAX_TOKEN_ID:
        raise VocabularyError(f"{filename}: {where}: token id {short(value)} is too large (ids must be below 2**31)")
    return value


def id_from_digits(text: str, filename: str, where: str) -> int:
    """A token id written as ASCII digits (a JSON object key, a CLI argument), checked like check_id."""
    if not (isinstance(text, str) and text.isascii() and text.isdigit()):
        raise VocabularyError(f"{filename}: {where}: expected a token id (ASCII digits), got {short(text)}")
    if len(text) > MAX_ID_DIGITS:
        raise VocabularyError(
            f"{filename}: {where}: token id of {len(text):,} digits is too large (ids must be below 2**31)"
        )
    return check_id(int(text), filename, where)


def utf8_texts(tokens: list[str], filename: str) -> list[bytes]:
    """UTF-8 bytes of each token; a lone surrogate (not text) is a VocabularyError naming the token."""
    try:
        return [t.encode("utf-8") for t in tokens]
    except UnicodeEncodeError:
        for t in tokens:
            try:
                t.encode("utf-8")
            except UnicodeEncodeError:
                raise VocabularyError(f"{filename}: token {short(t)} contains a lone surrogate, which is not text") from None
        raise  # pragma: no cover

