"""`not` of an object-structure condition as an anyOf of plain schemas, without a lookahead.

`properties` and `required` only test objects, so `not {properties: {k: C}, required: [r]}` holds
for an object that lacks `r` or has `k` with a value outside `C`, and for no non-object; a
`type` in the condition adds the values of the other types; `items: S` and `contains: C` (test
arrays only) likewise give an array with an item outside S, or with every item outside C. Each branch is an ordinary schema
(`{"type": "object", "required": [k], "properties": {k: {"not": C}}}`), so the negation moves
down to the member value, where it may again be an enum left out or another such condition:
the `else` of `if: {properties: {runs: {properties: {using: {const: composite}}}}}` is a union
of objects instead of a value lexeme of the whole object (GitHub action metadata).
"""

from __future__ import annotations

from typing import Any

from .text import ALL_TYPES

__all__ = ["negation_branches"]

_NEGATABLE = frozenset({"type", "properties", "required", "items", "contains"})
_OBJECT_KEYS = frozenset({"properties", "required"})
_ARRAY_KEYS = frozenset({"items", "contains"})


def negation_branches(kw: dict, types: list[str], validation: frozenset, draft: int) -> list | None:
    """Schemas (raw, an anyOf of them) of the values a condition rejects: `kw` its keywords,
    `types` its `type` as a list (all types when absent), `validation` the keywords that validate
    (the rest are annotations), `draft` the schema's (before 6, `contains` is an annotation and an
    item outside `items` cannot be written). None when the condition says more than the keywords above."""
    if draft < 6:
        validation = validation - {"contains"}
    keys = {k for k in kw if k in validation}
    if not keys or not keys <= _NEGATABLE:
        return None

    def trivial(v: Any) -> bool:
        return v is True or (isinstance(v, dict) and not any(k in validation for k in v))

    props = kw.get("properties", {})
    required = kw.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return None
    if not all(isinstance(r, str) for r in required):
        return None
    out: list = []
    if "type" in keys:
        if "integer" in types and "number" not in types:
            return None  # "a number that is not an integer" has no type of its own
        others = [t for t in ALL_TYPES if t not in types and not (t == "integer" and "number" in types)]
        if others:
            out.append({"type": others})
    if keys & _OBJECT_KEYS and keys & _ARRAY_KEYS:
        return None  # an untyped condition on both objects and arrays: each kind needs its own branches
    if keys & _ARRAY_KEYS:
        items, contains = kw.get("items", True), kw.get("contains", True)
        if isinstance(items, list) or "array" not in types:
            return out if "array" not in types and "type" in keys else None
        # an array with an item outside `items`, or with no item inside `contains`
        if not trivial(items) and draft < 6:
            return None  # (`contains` is what says "an item outside")
        if not trivial(items):
            out.append({"type": "array", "contains": {"not": items}})
        if "contains" in kw:
            out.append({"type": "array", "items": {"not": contains}})
        return out
    if "type" in keys and "object" not in types:
        return out  # properties/required test objects only, and no object passes the type
    # every object branch declares the condition's names in its order (true: no constraint), so
    # that the keys of an object on either side are written in one order
    names = list(dict.fromkeys([*props, *required]))

    def declared(name: str, sub: Any) -> dict:
        return {n: (sub if n == name else True) for n in names}

    for name in dict.fromkeys(required):
        out.append({"type": "object", "properties": declared(name, False)})
    for name, sub in props.items():
        if sub is False:
            out.append({"type": "object", "required": [name], "properties": declared(name, True)})
        elif not trivial(sub):
            out.append({"type": "object", "required": [name], "properties": declared(name, {"not": sub})})
    return out
