"""anyOf/oneOf of object branches that share their members, as one object (the engine path).

Real schemas often offer variants of one object: a GitHub workflow job is `oneOf` a normal job
(`runs-on`, `steps`, ...) and a reusable-workflow call (`uses`, `with`, ...), both with the same
`name`, `needs`, `if`, `strategy`. Written as a union, the two objects' common first members
are read twice over (and, as one value lexeme with lookaheads, their automaton is a product of
the branches). When every member name means the same schema in every branch that allows it, the
union is one object over all the names, in an order that keeps each branch's own, holding
"the keys of one branch" (required_sets: each branch is the names it requires and the names it
does not allow), exactly one of them for oneOf. Only plain object branches qualify (`type:
object`, `properties`, `required`, `additionalProperties` the same everywhere); other shapes are
distributed as before.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from .logic import conditional_branches, union
from .one_of import pairwise_disjoint
from .normalize import VALIDATION, Node, RuleRef, enum_values, flatten_branch, types_of
from .required_sets import Literal, disjuncts, literal
from .text import canon, ptr_escape
from .value_kinds import types_let_through

__all__ = ["union_as_one_object", "merged_order", "order_with_copies"]

_OWN_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties"})
_CONDITIONAL = frozenset({"if", "then", "else"})


def union_as_one_object(em: Any, s: Node, base: Node) -> str | None | bool:
    """The regex of node `s` (one anyOf/oneOf of plain object branches over `base`, its other
    keywords) written as one object; False when the shape is not that one."""
    if em.sink is None or len(s.groups) != 1 or em.property_order != "schema" or base.groups or base.not_enum:
        return False
    if em.norm.resolver.embedded:
        return False  # (members merged across branches: a $ref in them has no known base URI there)
    kind, subs, gptr, _ = s.groups[0]
    if not isinstance(subs, list) or len(subs) < 2:
        return False
    branches: list[Node] = []
    others: list[Node] = []  # branches of other types than object: written beside the object
    for i, sub in enumerate(subs):
        f = flatten_branch(em.norm, sub, f"{gptr}/{i}", s.refs)
        if isinstance(f, RuleRef):
            f = em.norm.expand(f)
        m = em.norm.merge(base, f) if f is not False else False
        if m is False:
            continue
        values = enum_values(m) if isinstance(m, Node) and not m.groups else None
        if isinstance(m, Node) and not m.groups and (("type" in m and "object" not in types_of(m)) or (
                values is not None and not any(isinstance(v, dict) for v in values))):
            others.append(m)
            continue
        if not _plain_object(m, conditional=True):
            return False
        branches.append(m)
    if len(branches) < 2 or (others and kind == "oneOf" and not pairwise_disjoint(em, others, base)):
        return False
    extras = {_canon(em, b.get("additionalProperties", True), b.kptr("additionalProperties")) for b in branches}
    if len(extras) != 1 or None in extras:
        return False
    # per branch: a structured member's name -> its copy for the schema the branch gives it, where
    # branches give that name different schemas (_schema_copies)
    renamed = _schema_copies(em, branches)
    # per branch: name -> the copy of it the branch takes (several where branches order names both
    # ways: only closed ones, each taking its own place in the chain, the others dropping it there)
    order, placed = order_with_copies([[r.get(n, n) for n in b.get("properties", {})]
                                       for b, r in zip(branches, renamed)])
    if any(_COPY in name for name in order) and any(b.get("additionalProperties", True) is not False
                                                    for b in branches):
        return False
    copies = [{n: c.get(r.get(n, n), r.get(n, n)) for n in b.get("properties", {})}
              for b, r, c in zip(branches, renamed, placed)]
    keys = {name: name.split(_COPY)[0] for name in order}  # member name -> its key
    props: dict[str, Any] = {}
    ptrs: dict[str, str] = {}
    literals: list[set] = [set() for _ in branches]  # per branch, its own values of members told apart
    cells: dict[str, list] = {}  # member name -> its values split by the branches taking them

    def member(j: int, name: str) -> tuple[Any, str]:
        if copies[j].get(keys[name], keys[name]) != name:
            return False, branches[j].kptr("properties")  # another copy of the name is this branch's
        return _member(branches[j], keys[name])

    for name in order:
        seen = set()
        for j, b in enumerate(branches):
            sub, ptr = member(j, name)
            if sub is not False:
                seen.add(_canon(em, *_resolved(em, sub, ptr)))
                props.setdefault(name, sub)
                ptrs.setdefault(f"properties/{ptr_escape(name)}", ptr)
        if None in seen:
            return False
        if len(seen) > 1:
            # the name means different values in different branches: lists of values
            # (enum/const) are told apart, each branch keeping the values it lists, else the
            # values each set of branches takes (schema cells)
            listed = [literal(name, member(j, name)[0]) for j in range(len(branches))]
            if any(c is None or not c.inside for c in listed):
                if any(keys[name] not in b.get("properties", {}) and b.get("additionalProperties", True) is not False
                       for b in branches):
                    return False  # an extra key of an open branch: the output format puts it after its own
                found = _cells(em, name, [member(j, name) for j in range(len(branches))])
                if found is None:
                    return False
                cells[name], conditions = found
                props[name] = True  # (each value is written as one of the cells)
                for cs, c in zip(literals, conditions):
                    if c is not None:
                        cs.add(c)
                continue
            everything = {k: v for c in listed for k, v in zip(_keys(c), c.values)}
            props[name] = {"enum": [everything[k] for k in sorted(everything)]}
            for cs, c in zip(literals, listed):
                cs.add(c)
    one = Node({"type": "object", "properties": props,
                "additionalProperties": branches[0].get("additionalProperties", True)}, base.ptr)
    one.ptrs = ptrs
    closed = one["additionalProperties"] is False
    presence = []
    for j, (b, cs) in enumerate(zip(branches, literals)):
        required = [copies[j].get(r, r) for r in b.get("required", []) if isinstance(r, str)]
        absent = frozenset(n for n in props if member(j, n)[0] is False)
        own = [(frozenset(required), absent, frozenset(cs))]
        if "if" in b:
            sides = conditional_branches(em, b)
            found = None if sides is None else [disjuncts(em, f, one, closed, True) for f in sides if f is not False]
            if found is None or any(d is None for d in found):
                return False
            own = [(p | d.present, a | d.absent, v | d.values) for p, a, v in own for ds in found for d in ds]
        presence.append(own)
    body = em.t_object(one, required_sets=[(presence, kind == "oneOf")],
                       key_names={n: k for n, k in keys.items() if n != k} or None, cells=cells or None)
    if body is False or not others:
        return body
    return union(em, [em.flat_value(o) for o in others] + [body], kind, gptr)


_MAX_CELL_SCHEMAS = 4  # different schemas of one member (2**4 - 1 cells at most)
_CELL = "\x00cell"  # a cell's key: no canonical JSON text starts with it


def _resolved(em: Any, sub: Any, ptr: str) -> tuple[Any, str]:
    """`sub` at `ptr` with lone `$ref`s followed (`{"$ref": "#/definitions/step/properties/key"}`
    and the schema it names are one schema)."""
    for _ in range(8):
        if not (isinstance(sub, dict) and isinstance(sub.get("$ref"), str)
                and not (set(sub) - {"$ref"}) & VALIDATION):
            break
        hit = em.norm.resolve_ref(sub["$ref"], ptr)
        if hit is None:
            break
        sub, ptr = hit
    return sub, ptr


def _cells(em: Any, name: str, given: list[tuple[Any, str]]) -> tuple[list, list] | None:
    """Member `name`'s values split by which of the branches' schemas for it they satisfy (each
    branch gives one, `given`: (schema or False, pointer)): the cells (key, Node) that some
    branch takes, and per branch its condition (a Literal over cell keys; None when the branch
    does not allow the member). None past _MAX_CELL_SCHEMAS schemas or for recursive ones."""
    norm = em.norm
    distinct: dict[str, int] = {}
    parts: list[tuple[Any, Any]] = []  # per distinct schema: (it, its negation) as nodes
    where: list[int | None] = []
    for sub, ptr in given:
        if sub is False:
            where.append(None)
            continue
        text = _canon(em, *_resolved(em, sub, ptr))
        if text not in distinct:
            node, negated = norm.flatten(sub, ptr), norm.flatten({"not": sub}, ptr)
            if isinstance(node, RuleRef) or isinstance(negated, RuleRef):
                return None
            distinct[text] = len(parts)
            parts.append((node, negated))
        where.append(distinct[text])
    if len(parts) > _MAX_CELL_SCHEMAS:
        return None
    out = []
    for bits in itertools.product((True, False), repeat=len(parts)):
        if not any(bits):
            continue
        m: Any = True
        for (node, negated), inside in zip(parts, bits):
            m = norm.merge(m, node if inside else negated)
            if m is False:
                break
        if m is not False:
            out.append((f"{_CELL}{''.join('1' if b else '0' for b in bits)}", m if m is not True else Node({}, "#")))
    conditions = []
    for t in where:
        keys = frozenset(k for k, _ in out if t is not None and k[len(_CELL) + t] == "1")
        conditions.append(None if t is None else Literal(name, keys, True, ()))
    return out, conditions


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


def _schema_copies(em: Any, branches: list[Node]) -> list[dict[str, str]]:
    """Per closed branch, the copy it takes of each declared name that branches give different
    schemas, each of which may hold objects or arrays: one copy per schema (`name`, this character, `s`
    and a number), so that each branch's copy keeps its own schema. Where the branches taking two
    copies can be alive together, the copies are two alternatives of one state, which the
    grammar's LALR check refuses unless one token tells them apart (never a wrong document: an
    LALR grammar has one derivation per document); elsewhere the keys read before decide.
    Splitting such values into cells would negate one structure by another (buildkite's step
    `notify`: arrays of oneOf objects, one list in group steps and another in command steps)."""
    if any(b.get("additionalProperties", True) is not False or "if" in b for b in branches):
        return [{} for _ in branches]  # (an if's conditions name the members, not their copies)
    texts: dict[str, list] = {}
    for j, b in enumerate(branches):
        for name in b.get("properties", {}):
            sub, ptr = _resolved(em, *_member(b, name))
            texts.setdefault(name, []).append((j, _canon(em, sub, ptr), sub))
    out: list[dict[str, str]] = [{} for _ in branches]
    for name, given in texts.items():
        distinct = list(dict.fromkeys(t for _, t, _ in given))
        if len(distinct) < 2 or None in distinct or not all(_structured(sub) for _, _, sub in given):
            continue
        if any(t1 != t2 and not _apart_at(branches[j1], branches[j2], name)
               for j1, t1, _ in given for j2, t2, _ in given):
            continue  # (two copies readable at one place: the cells tell the values apart instead)
        for j, t, _ in given:
            out[j][name] = f"{name}{_COPY}s{distinct.index(t)}"
    return out


def _apart_at(b1: Node, b2: Node, name: str) -> bool:
    """Can branches b1 and b2 never both be alive where `name` is read? So when one requires a
    member before `name` that the other does not allow there (buildkite's group step requires
    `group` before `notify`, which command steps do not have)."""
    for one, other in ((b1, b2), (b2, b1)):
        order, there = list(one.get("properties", {})), list(other.get("properties", {}))
        required = set(r for r in one.get("required", []) if isinstance(r, str))
        for k in order[:order.index(name)]:
            if k in required and (k not in there or there.index(k) > there.index(name)):
                return True
    return False


def _structured(sub: Any) -> bool:
    """May schema `sub` hold objects or arrays (by its type/enum/const and its allOf parts')?"""
    parts = sub.get("allOf") if isinstance(sub, dict) else None
    if isinstance(parts, list) and not all(_structured(p) for p in parts):
        return False  # (one scalar-only part keeps the whole scalar)
    return bool({"object", "array"} & types_let_through(sub))


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


_COPY = "\x00"  # a member name's copy: the name, this character and a number


def order_with_copies(orders: list[list[str]]) -> tuple[list[str], list[dict[str, str]]]:
    """One order in which each list's names keep their order, a name standing more than once
    where two lists order it differently ("name", then "name\\x001", ...); and per list, which
    copy of each of its names it takes (a name with no copy: the name itself). Where no two lists
    order names both ways, every name stands once (merged_order)."""
    pending = [list(o) for o in orders]
    out: list[str] = []
    copies: list[dict[str, str]] = [{} for _ in orders]
    count: dict[str, int] = {}
    while any(pending):
        free = [o[0] for o in pending if o and all(o[0] not in p[1:] for p in pending)]
        head = free[0] if free else next(o[0] for o in pending if o)
        k = count.get(head, 0)
        count[head] = k + 1
        name = head if k == 0 else f"{head}{_COPY}{k}"
        out.append(name)
        for j, o in enumerate(pending):
            if o and o[0] == head:
                copies[j][head] = name
                o.pop(0)
    return out, copies


def merged_order(orders: list[list[str]]) -> list[str] | None:
    """One order of all the names in which each list's names keep their order (the first
    list's first where free); None when two lists order two names both ways."""
    order, _ = order_with_copies(orders)
    return None if any(_COPY in name for name in order) else order
