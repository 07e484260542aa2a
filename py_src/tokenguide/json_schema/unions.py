"""anyOf/oneOf branch normalisation before a union is distributed (emit.Emitter._distribute).

Only rewrites that keep the language exactly: an anyOf branch that is nothing but another
anyOf is replaced by that anyOf's branches; on the engine path (free-form values nest without
limit there), an anyOf with a branch that accepts every value (`true`, `{}`, annotations only)
accepts every value itself, and a branch whose types another branch accepts whole
(`{"type": "object"}` beside a closed object) is dropped. Written as they stand, such unions put
the free-form value's terminals beside the other branches' (a terminal clash the engine path
refuses). oneOf is not flattened (a nested oneOf counts its matches apart), but two branches
that accept every value leave it nothing.
"""

from __future__ import annotations

from typing import Any

from .normalize import VALIDATION, Node, flatten_branch, types_of
from .text import ALL_TYPES

__all__ = ["accepts_everything", "union_branches", "whole_types"]

_TRUE_SUBSCHEMA = ("additionalProperties", "items", "additionalItems", "propertyNames",
                   "unevaluatedProperties", "unevaluatedItems")
_ZERO_COUNTS = ("minLength", "minItems", "minProperties")


def _trivial(v: Any) -> bool:
    """Is the (unflattened) sub-schema `v` true or an object without validation keywords?"""
    return v is True or (isinstance(v, dict) and not any(k in VALIDATION for k in v))


def _vacuous(k: str, v: Any) -> bool:
    """Does keyword `k` with value `v` constrain nothing (`properties: {}`, `minItems: 0`, ...)?"""
    if k in ("properties", "patternProperties"):
        return isinstance(v, dict) and all(_trivial(x) for x in v.values())
    if k in _TRUE_SUBSCHEMA:
        return _trivial(v)
    if k == "required":
        return v == []
    return k in _ZERO_COUNTS and v == 0 and not isinstance(v, bool)


def whole_types(f: Any) -> set[str] | None:
    """The JSON types all of whose values `f` accepts ("integer" in "number"), when `f` accepts
    nothing else (a `type` and keywords constraining nothing); else None."""
    if f is True:
        return set(ALL_TYPES)
    if not isinstance(f, Node) or f.groups or f.not_enum:
        return None
    if any(k in VALIDATION and k != "type" and not _vacuous(k, v) for k, v in f.kw.items()):
        return None
    out = set(types_of(f))
    return out | {"integer"} if "number" in out else out


def _types(f: Any) -> set[str]:
    """Every JSON type `f` may accept a value of."""
    return set(ALL_TYPES) if f is True else set(types_of(f))


def accepts_everything(f: Any) -> bool:
    """Is the flattened schema `f` true, or a Node with no validation keyword at all?"""
    return f is True or (isinstance(f, Node) and not f.constrains())


def _pure_any_of(f: Any) -> Any:
    """The one anyOf group of a Node that has nothing else (no keyword, no $ref to track), or None."""
    if (isinstance(f, Node) and not f.refs and not f.not_enum and len(f.groups) == 1
            and f.groups[0].kind == "anyOf" and not any(k in VALIDATION for k in f.kw)):
        return f.groups[0]
    return None


def union_branches(norm: Any, kind: str, subs: list, gptr: str, absorb: bool = True,
                   same: tuple | list = ()) -> list | bool:
    """The flattened branches of one anyOf/oneOf group (at `gptr`), those accepting nothing
    dropped; for anyOf, nested pure anyOf branches spliced in and, with `absorb`, True when it
    accepts every value and branches inside another's whole types dropped (only where free-form
    values nest without limit: the regex path's capped ones would lose a deeper branch's values);
    for oneOf, [] when two branches accept every value. A branch that is a $ref to a schema the
    node already holds at this place (`same`: its $ref targets) is true there (X and X is X),
    not a recursion: no value was entered."""
    flats: list = []
    for i, sub in enumerate(subs):
        f = flatten_branch(norm, sub, f"{gptr}/{i}", same)
        if f is False:
            continue
        if kind == "anyOf":
            if absorb and accepts_everything(f):
                return True
            inner = _pure_any_of(f)
            if inner is not None and isinstance(inner.subs, list) and inner.subs:
                got = union_branches(norm, "anyOf", inner.subs, inner.ptr, absorb)
                if got is True:
                    return True
                flats.extend(got)
                continue
        flats.append(f)
    if kind == "oneOf":
        return [] if sum(accepts_everything(f) for f in flats) >= 2 else flats
    if not absorb:
        return flats
    wholes = [whole_types(f) for f in flats]
    if any(w is not None and w >= set(ALL_TYPES) for w in wholes):
        return True
    # a branch inside another that accepts whole types (the first of equal ones kept)
    return [f for i, f in enumerate(flats)
            if not any(j != i and w is not None and isinstance(flats[i], Node) and _types(f) <= w
                       and not (wholes[i] == w and i < j) for j, w in enumerate(wholes))]
