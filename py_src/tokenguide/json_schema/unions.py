"""anyOf/oneOf branch normalisation before a union is distributed (emit.Emitter._distribute).

Only rewrites that keep the language exactly: an anyOf with a branch that accepts every value
(`true`, `{}`, annotations only) accepts every value itself, and an anyOf branch that is
nothing but another anyOf is replaced by that anyOf's branches. Writing such unions as they
stand puts the free-form value's terminals beside the other branches' (a terminal clash the
grammar path refuses). oneOf is not flattened (a nested oneOf counts its matches apart), but
two branches that accept every value leave it nothing.
"""

from __future__ import annotations

from typing import Any

from .normalize import VALIDATION, Node

__all__ = ["accepts_everything", "union_branches"]


def accepts_everything(f: Any) -> bool:
    """Is the flattened schema `f` true, or a Node with no validation keyword at all?"""
    return f is True or (isinstance(f, Node) and not f.constrains())


def _pure_any_of(f: Any) -> Any:
    """The one anyOf group of a Node that has nothing else (no keyword, no $ref to track), or None."""
    if (isinstance(f, Node) and not f.refs and not f.not_enum and len(f.groups) == 1
            and f.groups[0].kind == "anyOf" and not any(k in VALIDATION for k in f.kw)):
        return f.groups[0]
    return None


def union_branches(norm: Any, kind: str, subs: list, gptr: str) -> list | bool:
    """The flattened branches of one anyOf/oneOf group (at `gptr`), those accepting nothing
    dropped; for anyOf, nested pure anyOf branches spliced in and True when it accepts every
    value; for oneOf, [] when two branches accept every value."""
    flats: list = []
    for i, sub in enumerate(subs):
        f = norm.flatten(sub, f"{gptr}/{i}")
        if f is False:
            continue
        if kind == "anyOf":
            if accepts_everything(f):
                return True
            inner = _pure_any_of(f)
            if inner is not None and isinstance(inner.subs, list) and inner.subs:
                got = union_branches(norm, "anyOf", inner.subs, inner.ptr)
                if got is True:
                    return True
                flats.extend(got)
                continue
        flats.append(f)
    if kind == "oneOf" and sum(accepts_everything(f) for f in flats) >= 2:
        return []
    return flats
