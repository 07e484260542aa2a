"""anyOf/oneOf of required-name sets on one object, as one object (the grammar path).

`{"properties": {...}, "anyOf": [{"required": ["a", "b"]}, {"required": ["c"]}]}` is one
object whose members must include one of the sets. Distributed, it is a union of objects that
share every member, which LALR cannot tell apart inline and whose value lexeme is a product of
the branches (Glaiveai2K calculate_area: over 2,000 states). Here it is one chain of members in
schema order whose state is the set of branches still satisfiable: a member left out drops the
branches that require it; at the end one branch must be left (anyOf) or exactly one (oneOf,
each branch being "all of its names present"). One grammar rule per (member, state), shared.
Non-objects satisfy every required-only branch: anyOf keeps them, oneOf of two or more drops them.
"""

from __future__ import annotations

from typing import Any

from .normalize import VALIDATION, Node, types_of
from .text import alt, cat, opt, rep

__all__ = ["MAX_SET_STATES", "required_sets_value", "sets_body"]

MAX_SET_STATES = 4_000  # (member, branches left) continuations, beyond: the union of branches instead
_NOT_OBJECT = ["null", "boolean", "number", "string", "array"]
_OBJECT_KEYWORDS = ("minProperties", "maxProperties", "not", "if", "enum", "const")


def required_sets_value(em: Any, s: Node, base: Node) -> str | None | bool:
    """The regex of node `s` (one anyOf/oneOf group of required-only branches over `base`, its
    other keywords) written as above; False when the shape is not that one (the caller
    distributes instead); None when no value is left."""
    if em.sink is None or len(s.groups) != 1 or em.property_order != "schema":
        return False
    kind, subs, gptr, _ = s.groups[0]
    if not isinstance(subs, list) or not subs or base.groups or base.not_enum:
        return False
    if any(k in base for k in _OBJECT_KEYWORDS) or "object" not in types_of(base):
        return False
    props = base.get("properties", {})
    if not isinstance(props, dict):
        return False
    flats = [em.norm.flatten(sub, f"{gptr}/{i}") for i, sub in enumerate(subs)]
    flats = [f for f in flats if f is not False]
    if not flats or not all(isinstance(f, Node) and _required_only(f) for f in flats):
        return False
    sets = []
    for f in flats:
        names = f.get("required", [])
        if not isinstance(names, list) or not all(isinstance(n, str) and n in props for n in names):
            return False  # undeclared names: their place among the other members differs per branch
        sets.append(names)
    exactly_one = kind == "oneOf" and len(sets) > 1
    parts: list[str | None] = []
    if not exactly_one:
        rest = em.norm.merge(base, Node({"type": _NOT_OBJECT}, s.ptr))
        parts.append(None if rest is False else em.flat_value(rest))
    obj = em.norm.merge(base, Node({"type": "object"}, s.ptr))
    if obj is not False:
        em.check_generic(obj)
        body = em.t_object(obj, required_sets=(sets, exactly_one))
        if body is False:
            return False
        parts.append(body)
    return alt(parts)


def _required_only(f: Node) -> bool:
    """Is branch `f` a `required` list and nothing else that validates (then every non-object
    satisfies it)?"""
    return not f.groups and not f.not_enum and all(k == "required" or k not in VALIDATION for k in f.kw)


def sets_body(em: Any, names: list[str], members: list[str | None], req: list[bool], extra: str | None,
              required_sets: tuple[list[list[str]], bool]) -> str | None | bool:
    """Object body for `members` (regex or None, in order; `req`: required by the node itself)
    and then any number of `extra` members, holding one of the required-name sets
    (`required_sets`: the sets and whether exactly one must hold); False past MAX_SET_STATES."""
    sets, exactly_one = required_sets
    needs = [frozenset(j for j, names_j in enumerate(sets) if n in names_j) for n in names]
    sep, n = em.sep, len(members)
    memo: dict[tuple[int, frozenset, bool], str | None] = {}

    def body(i: int, alive: frozenset, first: bool) -> str | None:
        key = (i, alive, first)
        if key in memo:
            return memo[key]
        if len(memo) > MAX_SET_STATES:
            raise _TooMany()
        if i == n:
            if not (len(alive) == 1 if exactly_one else alive):
                res = None
            elif extra is None:
                res = ""
            else:
                res = opt(extra + rep(sep + extra, 0, None)) if first else rep(sep + extra, 0, None)
        else:
            m = members[i]
            take = None if m is None else cat("" if first else sep, m, body(i + 1, alive, False))
            left = alive - needs[i]
            skip = None if req[i] or not left else body(i + 1, left, first)
            res = alt([take, skip])
        if res:
            res = em.sink.rule(res)  # each continuation written once
        memo[key] = res
        return res

    try:
        return body(0, frozenset(range(len(sets))), True)
    except _TooMany:
        return False


class _TooMany(Exception):
    """More continuations than MAX_SET_STATES."""
