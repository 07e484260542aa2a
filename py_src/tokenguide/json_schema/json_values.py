"""JSON values as JSON Schema compares them: numbers by value, exactly (`1`, `1.0`, `10e-1`
alike, any size), objects whatever their key order, `true` apart from `1`. Used by the
uniqueItems check and its guide, which must tell equal items apart from their texts.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

__all__ = ["canonical_number", "parse_document", "value_key"]

_NUMBER_TEXT = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")


def canonical_number(raw: str | bytes) -> str:
    """One spelling per number value (`1`, `1.0`, `10e-1` alike): digits without leading or
    trailing zeros and an exponent, exactly (any size, no rounding); `0` for zeros (`-0` too).
    ValueError for a text that is no JSON number."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    m = _NUMBER_TEXT.fullmatch(text)
    if m is None:
        raise ValueError(f"not a JSON number: {text!r:.40}")
    sign, whole, frac, exp = m.groups()
    digits = (whole + (frac or "")).lstrip("0")
    shift = int(exp or 0) - len(frac or "")
    kept = digits.rstrip("0")
    if not kept:
        return "0"
    return f"{sign}{kept}e{shift + len(digits) - len(kept)}"


class _Number(str):
    """A number of a parsed document, as its canonical spelling (`parse_document`)."""


def value_key(v: Any) -> Any:
    """A hashable key equal for JSON values JSON Schema calls equal (1 == 1.0, true != 1, key order
    ignored); numbers compared exactly, by `canonical_number`."""
    if isinstance(v, bool):
        return ("b", v)
    if v is None:
        return ("z",)
    if isinstance(v, _Number):
        return ("n", str(v))
    if isinstance(v, (int, float, Decimal)):
        return ("n", canonical_number(repr(v) if isinstance(v, float) else str(v)))
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, list):
        return ("a", tuple(value_key(x) for x in v))
    return ("o", frozenset((k, value_key(x)) for k, x in v.items()))


def parse_document(text: str | bytes) -> Any:
    """A JSON text parsed with exact numbers (each a `_Number`: its canonical spelling), for
    `find_violation` and `value_key`; each object a dict whose `repeated` lists the names written
    again after their first member (the last value kept, as json.loads does)."""
    return json.loads(text, parse_float=_number, parse_int=_number, object_pairs_hook=_members)


class _Members(dict):
    """An object of a parsed document, with the names it repeats (`parse_document`)."""

    repeated: tuple = ()


def _members(pairs: list) -> _Members:
    out = _Members(pairs)
    if len(out) < len(pairs):
        seen: set = set()
        out.repeated = tuple(k for k, _ in pairs if k in seen or seen.add(k))
    return out


def _number(text: str) -> _Number:
    return _Number(canonical_number(text))
