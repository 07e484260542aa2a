"""anyOf/oneOf of object branches that share their members, as one object (the grammar path).

Real schemas often offer variants of one object: a GitHub workflow job is `oneOf` a normal job
(`runs-on`, `steps`, ...) and a reusable-workflow call (`uses`, `with`, ...), both with the same
`name`, `needs`, `if`, `strategy`. Written as a union, the two objects' common first members
are the same terminals in two places, which LALR(1) cannot tell apart (a Shift/Reduce
conflict). When every member name means the same schema in every branch that allows it, the
union is one object over all the names, in an order that keeps each branch's own, holding
"the keys of one branch" (required_sets: each branch is the names it requires and the names it
does not allow), exactly one of them for oneOf. Only plain object branches qualify (`type:
object`, `properties`, `required`, `additionalProperties` the same everywhere); other shapes are
distributed as before.
"""

from __future__ import annotations

import json
from typing import Any

from .logic import conditional_branches
from .normalize import VALIDATION, Node, RuleRef, flatten_branch, types_of
from .required_sets import disjuncts, literal
from .text import canon, ptr_escape

__all__ = ["union_as_one_object", "merged_order"]

_OWN_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties"})
_CONDITIONAL = frozenset({"if", "then", "else"})


def union_as_one_object(em: Any, s: Node, base: Node) -> str | None | bool:
    """The regex of node `s` (one anyOf/oneOf of plain object branches over `base`, its other
    keywords) written as one object; False when the shape is not that one."""
    if em.sink is None or len(s.groups) != 1 or em.property_order != "schema" or base.groups or base.not_enum:
        return False
    kind, subs, gptr, _ = s.groups[0]
    if not isinstance(subs, list) or len(subs) < 2:
        return False
    branches: list[Node] = []
    for i, sub in enumerate(subs):
        f = flatten_branch(em.norm, sub, f"{gptr}/{i}", s.refs)
        if isinstance(f, RuleRef):
            f = em.norm.expand(f)
        m = em.norm.merge(base, f) if f is not False else False
        if m is False:
            continue
        if not _plain_object(m, conditional=True):
            return False
        if "if" in m and not em.sink.conditionals:
            em.sink.saw_conditionals = True
            return False
        branches.append(m)
    if len(branches) < 2:
        return False
    extras = {_canon(em, b.get("additionalProperties", True), b.kptr("additionalProperties")) for b in branches}
    if len(extras) != 1 or None in extras:
        return False
    order = merged_order([list(b.get("properties", {})) for b in branches])  # (a branch may declare none)
    if order is None:
        return False
    props: dict[str, Any] = {}
    ptrs: dict[str, str] = {}
    literals: list[set] = [set() for _ in branches]  # per branch, its own values of members told apart
    for name in order:
        seen = set()
        for b in branches:
            sub, ptr = _member(b, name)
            if sub is not False:
                seen.add(_canon(em, sub, ptr))
                props.setdefault(name, sub)
                ptrs.setdefault(f"properties/{ptr_escape(name)}", ptr)
        if None in seen:
            return False
        if len(seen) > 1:
            # the name means different values in different branches: only lists of values
            # (enum/const) are told apart, each branch keeping the values it lists (a retry)
            if not em.sink.conditionals:
                em.sink.saw_conditionals = True
                return False
            listed = [literal(name, _member(b, name)[0]) for b in branches]
            if any(c is None or not c.inside for c in listed):
                return False
            everything = {k: v for c in listed for k, v in zip(_keys(c), c.values)}
            props[name] = {"enum": [everything[k] for k in sorted(everything)]}
            for cs, c in zip(literals, listed):
                cs.add(c)
    one = Node({"type": "object", "properties": props,
                "additionalProperties": branches[0].get("additionalProperties", True)}, base.ptr)
    one.ptrs = ptrs
    closed = one["additionalProperties"] is False
    presence = []
    for b, cs in zip(branches, literals):
        required = [r for r in b.get("required", []) if isinstance(r, str)]
        absent = frozenset(n for n in props if _member(b, n)[0] is False)
        own = [(frozenset(required), absent, frozenset(cs))]
        if "if" in b:
            sides = conditional_branches(em, b)
            found = None if sides is None else [disjuncts(em, f, one, closed, True) for f in sides if f is not False]
            if found is None or any(d is None for d in found):
                return False
            own = [(p | d.present, a | d.absent, v | d.values) for p, a, v in own for ds in found for d in ds]
        presence.append(own)
    return em.t_object(one, required_sets=[(presence, kind == "oneOf")])


def _keys(c: Any) -> list[str]:
    """The canonical texts of a Literal's values, in the order of its values."""
    return [canon(v) for v in c.values]


def _plain_object(m: Any, conditional: bool = False) -> bool:
    """Is merged branch `m` an object-only node saying only which members it has, and what they
    hold (and, with `conditional`, an if/then/else on them)?"""
    if not isinstance(m, Node) or m.groups or m.not_enum or types_of(m) != ["object"]:
        return False
    own = _OWN_KEYWORDS | (_CONDITIONAL if conditional else frozenset())
    if any(k in VALIDATION and k not in own for k in m.kw):
        return False
    props, required = m.get("properties", {}), m.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return False
    return all(isinstance(r, str) and r in props for r in required)


def _member(b: Node, name: str) -> tuple[Any, str]:
    """The schema branch `b` gives member `name` (False: not allowed) and its pointer."""
    props = b.get("properties", {})
    if name in props:
        return props[name], b.member_ptr("properties", name)
    return b.get("additionalProperties", True), b.kptr("additionalProperties")


def _canon(em: Any, sub: Any, ptr: str) -> str | None:
    """A text equal for two sub-schemas that mean the same (same JSON but annotations at their top,
    `$ref`s read from the same base URI); None when unsure."""
    if isinstance(sub, bool):
        return json.dumps(sub)
    if not isinstance(sub, dict):
        return None
    kept = {k: v for k, v in sub.items() if k in VALIDATION or k in ("$defs", "definitions")}
    try:
        text = json.dumps(kept, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    if "$ref" in text or "$dynamicRef" in text or "$recursiveRef" in text:
        base = em.norm.resolver.base_at(ptr)
        if base is None:
            return None
        text = f"{base}\n{text}"
    return text


def merged_order(orders: list[list[str]]) -> list[str] | None:
    """One order of all the names in which each list's names keep their order (the first
    list's first where free); None when two lists order two names both ways."""
    orders = [list(o) for o in orders]
    out: list[str] = []
    while any(orders):
        for o in orders:
            if not o:
                continue
            head = o[0]
            if all(head not in other[1:] for other in orders):
                break
        else:
            return None
        out.append(head)
        orders = [[n for n in o if n != head] for o in orders]
    return out
