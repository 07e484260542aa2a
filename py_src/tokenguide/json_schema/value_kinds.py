"""Which values stand at a place of a document, for the values check (module value_checks):
the JSON types schema objects let through, and the values that can always become new.

An item not ended yet that can always end as a value no other item has needs no automaton: an
open object (one more member no value seen has), or a string, number or array of a type some
alternative accepts every value of (one more character, digit or item). The values check
compares such items when they end (by `json_values.value_key`) and searches only the rest
(true, false, null, closed objects, constrained strings...) in an item automaton.
"""

from __future__ import annotations

import re
from typing import Any

from .normalize import TYPE_KEYWORDS, accepts_everything
from .text import json_type_of

__all__ = ["VALUE_TYPES", "free_first", "free_types", "open_objects", "types_let_through", "types_together"]

VALUE_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")

#: keywords that limit which keys an object may take, or whose other branches a new key could change
#: (patternProperties and oneOf are judged apart: `open_objects`)
_KEY_LIMITS = ("maxProperties", "propertyNames", "unevaluatedProperties", "not", "if", "enum", "const", "$dynamicRef",
               "$recursiveRef")
_EXTENSION = re.compile(r"\^[A-Za-z0-9_-]+")  # a pattern every name with this literal prefix matches

#: the first bytes of a value of each type that can become new (numbers: a digit more)
_FIRST = {"array": b"[", "number": b"-0123456789", "object": b"{", "string": b'"'}
#: keywords a conjunct may hold and still accept every value of a type: those of other types,
#: and the ones its conjunction holds already (anyOf branches, allOf parts, $ref targets)
_SILENT = frozenset({"type", "anyOf", "allOf", "$ref", "dependentRequired", "dependentSchemas", "dependencies"})


def types_let_through(obj: Any) -> set[str]:
    """The JSON types schema object `obj` lets through by its own type/enum/const (all: none said)."""
    out = set(VALUE_TYPES)
    if not isinstance(obj, dict):
        return out if obj is not False else set()
    t = obj.get("type")
    if isinstance(t, str):
        t = [t]
    if isinstance(t, list) and "any" not in t:
        named = {x for x in t if isinstance(x, str)}
        out = {x for x in out if x in named or (x == "integer" and "number" in named)}
    vals = [obj["const"]] if "const" in obj else obj.get("enum") if isinstance(obj.get("enum"), list) else None
    if vals is not None:
        kinds = {json_type_of(v) for v in vals}
        out &= kinds | ({"number"} if "integer" in kinds else set())
    return out


def types_together(objs: list) -> set[str]:
    """The JSON types every schema object of `objs` lets through (`types_let_through` of each)."""
    types = set(VALUE_TYPES)
    for o in objs:
        types &= types_let_through(o)
    return types


def open_objects(objs: list) -> bool:
    """Can an object that the schema objects `objs` (one alternative, together) accept, not closed
    yet, always take one more member that no value seen has? True when each allows a name of one
    infinite family with any value: any undeclared name, or, where additionalProperties is false,
    names with a literal prefix a patternProperties of every such object allows (`^x-`); no
    limit on the keys, no oneOf with two object branches, not/if/enum that a new key could change.
    Then an item not closed yet can always end as a new value."""
    if not objs or not all(isinstance(o, dict) for o in objs):
        return False
    prefixes = None  # the names every closed object allows (None: all)
    for o in objs:
        if any(k in o for k in _KEY_LIMITS):
            return False
        branches = o.get("oneOf", [])
        if not isinstance(branches, list) or sum("object" in types_let_through(b) for b in branches) > 1:
            return False
        pats = o.get("patternProperties", {})
        if not isinstance(pats, dict) or not all(accepts_everything(v) for v in pats.values()):
            return False
        extra = o.get("additionalProperties", True)
        if isinstance(extra, dict) and any(k in extra for k in ("not", "enum", "const", "oneOf")):
            return False
        if extra is False:
            own = {p for p in pats if _EXTENSION.fullmatch(p)}
            prefixes = own if prefixes is None else prefixes & own
            if not prefixes:
                return False
    return types_together(objs) == {"object"}


def free_types(objs: list) -> set[str]:
    """The types among string, number and array of which the schema objects `objs` (one
    alternative, together) accept every value."""
    out = set()
    for kind in ("string", "number", "array"):
        others = _SILENT.union(*(v for k, v in TYPE_KEYWORDS.items() if k != kind))
        if all(o is True or (isinstance(o, dict) and kind in types_let_through(o) and all(
                k in others or accepts_everything({k: o[k]}) for k in o)) for o in objs):
            out.add(kind)
    return out


def free_first(alternatives: list[list]) -> tuple[bytes, list[str]]:
    """For a place whose values are the `alternatives` (each the schema objects that apply
    together): the first bytes of the values that can always become new until they end, and the
    types of the others (to be searched in an item automaton). A type is free where one
    alternative accepts all its values; objects where every alternative taking them is open."""
    free = set().union(*(free_types(objs) for objs in alternatives))
    taking = [objs for objs in alternatives if "object" in types_together(objs)]
    if taking and all(not objs or open_objects([*objs, {"type": "object"}]) for objs in taking):
        free.add("object")
    found = set().union(*(types_together(objs) for objs in alternatives))
    free &= found  # (a first byte in it promises a new value: only where such values stand)
    left = [t for t in VALUE_TYPES if t in found and t not in free and not (t == "integer" and "number" in free)]
    return b"".join(_FIRST[t] for t in sorted(free)), left
