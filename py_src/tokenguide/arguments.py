"""Checks for the arguments of public functions: each raises ArgumentError naming the function,
the argument, what was expected and what was given, so a bad call fails at the door with a
clear message instead of deep inside (or not at all)."""

from __future__ import annotations

import operator
import os
from typing import Any, Callable

from .errors import ArgumentError

__all__ = [
    "check_bool",
    "check_bytes",
    "check_callable",
    "check_int",
    "check_path",
    "check_str",
    "check_token_id",
    "describe",
]


def describe(value: Any) -> str:
    """A short description of a given value for messages: its type and a clipped repr."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def check_int(where: str, name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """`value` as an int (anything with __index__, not bool) within [low, high]; else ArgumentError."""
    if type(value) is not int:
        if isinstance(value, bool) or not hasattr(type(value), "__index__"):
            raise ArgumentError(f"{where}: {name} must be an integer, got {describe(value)}")
        value = operator.index(value)
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            expected = f">= {low}"
        elif low is None:
            expected = f"<= {high}"
        else:
            expected = f"in {low}..{high}"
        raise ArgumentError(f"{where}: {name} must be {expected}, got {value}")
    return value


def check_str(where: str, name: str, value: Any) -> str:
    """`value` if it is a str; else ArgumentError."""
    if not isinstance(value, str):
        raise ArgumentError(f"{where}: {name} must be a str, got {describe(value)}")
    return value


def check_bool(where: str, name: str, value: Any) -> bool:
    """`value` if it is a bool (True/False; 0 and 1 are accepted too); else ArgumentError."""
    if isinstance(value, bool):
        return value
    if type(value) is int and value in (0, 1):
        return bool(value)
    raise ArgumentError(f"{where}: {name} must be True or False, got {describe(value)}")


def check_callable(where: str, name: str, value: Any, *, optional: bool = True) -> Callable[..., Any] | None:
    """`value` if it is callable (or None when `optional`); else ArgumentError."""
    if value is None and optional:
        return None
    if not callable(value):
        expected = "a callable or None" if optional else "a callable"
        raise ArgumentError(f"{where}: {name} must be {expected}, got {describe(value)}")
    return value


def check_path(where: str, name: str, value: Any) -> str | bytes:
    """`value` as a file-system path (str, bytes or os.PathLike), without NUL characters; else ArgumentError."""
    try:
        path = os.fspath(value)
    except TypeError:
        raise ArgumentError(f"{where}: {name} must be a path (str or os.PathLike), got {describe(value)}") from None
    if (b"\0" if isinstance(path, bytes) else "\0") in path:
        raise ArgumentError(f"{where}: {name} must not contain a NUL character, got {describe(value)}")
    if not path:
        raise ArgumentError(f"{where}: {name} must not be empty")
    return path


def check_bytes(where: str, name: str, value: Any) -> bytes | bytearray | memoryview:
    """`value` if it is bytes-like (bytes, bytearray, memoryview); else ArgumentError."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise ArgumentError(f"{where}: {name} must be bytes-like (bytes, bytearray, memoryview), got {describe(value)}")
    return value


MAX_TOKEN_ID = 2**32 - 1  # ids are u32 in the file format and in outlines-core


def check_token_id(where: str, name: str, value: Any) -> int:
    """`value` as a token id: an integer in 0..2**32-1 (whether the vocabulary has it is the caller's question)."""
    if type(value) is int and 0 <= value <= MAX_TOKEN_ID:
        return value
    return check_int(where, name, value, low=0, high=MAX_TOKEN_ID)
