"""Argument conversion with the exceptions and messages of outlines-core's Rust bindings (pyo3).

outlines-core's classes are pyo3 classes: an argument of the wrong type is a TypeError naming the
argument, an integer out of a Rust type's range an OverflowError. These helpers convert Python
values the same way, so that code written against outlines-core sees the same failures.
"""

from __future__ import annotations

import operator
from typing import Any

__all__ = ["as_token", "as_u32", "as_u32_list", "as_usize", "is_sequence", "rust_type_name"]

_U32_MAX = 0xFFFFFFFF
_USIZE_MAX = 0xFFFFFFFFFFFFFFFF


def rust_type_name(value: Any) -> str:
    """The type name pyo3 shows for `value` (CPython's tp_name: module-qualified for C types
    outside builtins, such as numpy.ndarray)."""
    cls = type(value)
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE: a Python class
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _index(name: str, value: Any) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"argument '{name}': '{type(value).__name__}' object cannot be interpreted as an integer") from None


def as_u32(name: str, value: Any) -> int:
    """`value` as a Rust u32 (a token or state id): TypeError for a non-integer, OverflowError out of range."""
    if type(value) is int and 0 <= value <= _U32_MAX:
        return value
    number = _index(name, value)
    if not 0 <= number <= _U32_MAX:
        raise OverflowError("out of range integral type conversion attempted")
    return number


def as_usize(name: str, value: Any) -> int:
    """`value` as a Rust usize (a count, a pointer): TypeError for a non-integer, OverflowError out of range."""
    if type(value) is int and 0 <= value <= _USIZE_MAX:
        return value
    number = _index(name, value)
    if number < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if number > _USIZE_MAX:
        raise OverflowError("int too big to convert")
    return number


def is_sequence(value: Any) -> bool:
    """What pyo3 accepts as a Python sequence (PySequence_Check): has __getitem__ and is not a dict."""
    return hasattr(type(value), "__getitem__") and not isinstance(value, dict)


def as_u32_list(name: str, value: Any) -> list[int]:
    """A sequence of u32 (pyo3's Vec<u32>): a str or a non-sequence is a TypeError naming `name`."""
    if isinstance(value, str):
        raise TypeError(f"argument '{name}': Can't extract `str` to `Vec`")
    if not is_sequence(value):
        raise TypeError(f"argument '{name}': '{type(value).__name__}' object cannot be cast as 'Sequence'")
    return [as_u32(name, item) for item in value]


def as_token(value: Any) -> bytes | None:
    """A token given as str (its UTF-8) or bytes (or any other sequence of byte values, as pyo3's
    Vec<u8> reads it); None when it is neither."""
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError:
            return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if is_sequence(value) and not isinstance(value, dict):
        try:
            items = [operator.index(item) for item in value]
        except TypeError:
            return None
        if all(0 <= item <= 255 for item in items):
            return bytes(items)
    return None
