"""Objects inside uniqueItems items whose members come in any order (maps), for the values check.

An item's text is compared with the items seen as text (value_checks), which needs one spelling
per value. A map (`patternProperties`, or members beyond `properties` that
`additionalProperties` lets in) is spelled in as many orders as it has members, and may repeat
a key (the last one counts). Two facts make it comparable all the same:

- while a map is open, its item can always become new, when the map can always take one more
  member: more names than any document uses up, with some value (`inexhaustible`), and no bound on
  its member count. A name no item seen has, in this map, makes a value no item seen has;
- once a map is closed, its text is rewritten with its members in one order and each name once
  (`canonical_object`), in the items seen and in the item being written alike, so that equal
  values have equal texts again.

A search that leaves the texts seen inside a map that is open is right to call the item new (the
first fact); one that stays on them through a whole map has spelled it canonically.
"""

from __future__ import annotations

import functools
from typing import Any

from ..errors import StateLimitError
from ..regex import dfa as dfa_mod
from ..regex.lazy import EagerRows
from .patterns import PatternError, pattern_to_string_body
from .text_counts import distinct_values_at_least

__all__ = ["canonical_object", "inexhaustible", "is_order_free"]

#: keywords that bound or tie an object's members: with them a map may run out of new members
_BOUNDING = ("maxProperties", "propertyNames", "unevaluatedProperties", "dependentRequired", "dependentSchemas",
             "dependencies")
_MEMBER_KEYWORDS = ("properties", "patternProperties", "additionalProperties")
#: keywords whose verdict one more member may change (two oneOf branches matching, an if flipping)
_CHOOSING = ("oneOf", "if", "not")


def is_order_free(objs: list[Any]) -> bool:
    """Do objects under schema objects `objs` (one alternative) take members beyond their
    declared ones, in any order (patternProperties, or additionalProperties other than false)?"""
    return any(isinstance(o, dict) and o.get("patternProperties") for o in objs) or \
        not any(isinstance(o, dict) and o.get("additionalProperties") is False for o in objs)


def inexhaustible(objs: list[Any]) -> str | None:
    """Why an object under schema objects `objs` (one alternative, order-free) might not always
    take one more member of a name it lacks; None when it always can: one schema object holds
    the member keywords, nothing bounds the members, and either undeclared names take any value
    allowed by an `additionalProperties` schema (no patternProperties), or one patternProperties
    pattern matches so many names (FRESH_NAMES) that no document uses them up; and no oneOf,
    if or not (whose verdict one more member may change) applies. (A member's schema is taken
    to accept some value.)"""
    dicts = [o for o in objs if isinstance(o, dict)]
    if any(k in o for o in dicts for k in _CHOOSING):
        return "its items hold objects whose members may pick between schemas (oneOf, if, not)"
    if any(k in o for o in dicts for k in _BOUNDING):
        return "its items hold objects whose members are bounded (maxProperties, propertyNames, dependencies)"
    owners = [o for o in dicts if any(k in o for k in _MEMBER_KEYWORDS)]
    if len(owners) > 1:
        return "its items hold objects merged from several declarations"
    obj = owners[0] if owners else {}
    extra = obj.get("additionalProperties", True)
    patterns = obj.get("patternProperties") or {}
    if not isinstance(patterns, dict):
        return "its items hold objects with a patternProperties that is no object"
    if not patterns:
        return None if extra is not False else "its items hold closed objects"
    if len(patterns) != 1 or extra is not False:
        return "its items hold objects whose names may match several patternProperties"
    (pattern, schema), = patterns.items()
    if schema is False:
        return "its items hold objects whose one patternProperties takes no value"
    return None if _enough_names(pattern) else \
        f"its items hold objects whose names match patternProperties {pattern!r}, which names too few to always " \
        "have a new one"


@functools.lru_cache(maxsize=256)
def _enough_names(pattern: str) -> bool:
    """Does ECMA `pattern` find a match in at least FRESH_NAMES names (no document uses up)?
    (Counted on its DFA over name texts; False past its state limit.)"""
    try:
        body = pattern_to_string_body(pattern)
        d = None if body is None else dfa_mod.compile_regex(body + '"', max_states=5_000)  # (`$` reads the quote)
    except (PatternError, StateLimitError):
        return False
    return d is not None and distinct_values_at_least(EagerRows(d), FRESH_NAMES)


#: names no document uses up (as value_checks.FRESH_ITEMS: strings of a few dozen characters number more)
FRESH_NAMES = 2 ** 64


def canonical_object(text: bytes) -> bytes:
    """The compact text of a JSON object (no whitespace outside strings) with its members in one
    order, by their names' texts, and each name once, its last value kept (as json.loads does);
    the member values' texts unchanged."""
    members: dict[bytes, bytes] = {}
    for key, value in _members(text):
        members.pop(key, None)
        members[key] = value
    return b"{" + b",".join(k + b":" + members[k] for k in sorted(members)) + b"}"


def _members(text: bytes) -> list[tuple[bytes, bytes]]:
    """(name text, value text) of each member of a compact object text, in order."""
    out: list[tuple[bytes, bytes]] = []
    i, n = 1, len(text) - 1  # (inside the braces)
    while i < n:
        key_end = _string_end(text, i)
        value_end = _value_end(text, key_end + 1)
        out.append((text[i:key_end], text[key_end + 1:value_end]))
        i = value_end + 1  # (past the comma)
    return out


def _string_end(text: bytes, i: int) -> int:
    """The index just past the string that starts at `i`."""
    j = i + 1
    while text[j] != 0x22:
        j += 2 if text[j] == 0x5C else 1
    return j + 1


def _value_end(text: bytes, i: int) -> int:
    """The index just past the value that starts at `i` (a compact text)."""
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c == 0x22:
            j = _string_end(text, j)
            continue
        if c in b"[{":
            depth += 1
        elif c in b"]}":
            if depth == 0:
                return j
            depth -= 1
        elif c == 0x2C and depth == 0:
            return j
        j += 1
    return j
