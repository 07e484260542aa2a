"""oneOf support: deciding that branches are disjoint, or rewriting them into disjoint ones.

Without lookaheads, "exactly one of these" needs branches no two of which accept one value.
`pairwise_disjoint` proves that for common shapes (different types, disjoint enums, a required
property with disjoint values, a required key the other forbids, through nested anyOf/oneOf);
`exclusive_branches` rewrites the branches type by type (and "exactly one of these required
sets") into branches that are disjoint by construction. Other branches become `Exclusive`s:
each branch minus the branches it may overlap (`logic.subtract`, a lookahead).
Functions take the `Emitter` (`em`) whose normaliser and membership checks they use.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, NamedTuple

from ..errors import TokenguideError, UnsupportedSchemaError
from ..regex import dfa as dfa_mod
from ..regex import product
from . import logic
from .arrays import strictly
from .normalize import TYPE_KEYWORDS, VALIDATION, Conjunction, Node, RuleRef, enum_values, item_layout, types_of
from .patterns import PatternError, ecma_search, pattern_to_string_body
from .text import MAX_BRANCHES, canon, compact, json_type_of, nesting

__all__ = ["pairwise_disjoint", "exclusive_branches", "overlapping", "exclusive_value", "Exclusive",
           "MAX_OVERLAPPING"]

MAX_OVERLAPPING = 8  # oneOf branches that may overlap: each is checked against all the others


class Exclusive(NamedTuple):
    """A oneOf branch that must hold while none of `others` (the other branches) does."""
    branch: Any
    others: list
    ptr: str


def overlapping(em: Any, flats: list, gptr: str, base: Any = None) -> list:
    """oneOf branches that may overlap, as Exclusives ("this one and none of the others it may
    overlap with": a branch proved disjoint from another needs no check against it); the
    branches unchanged when that is refused in lenient mode (then they act as anyOf)."""
    base = Node({}, gptr) if base is None else base
    n = len(flats)
    meets = [[j for j in range(n) if j != i and not pairwise_disjoint(em, [flats[i], flats[j]], base)]
             for i in range(n)]
    widest = max(len(m) for m in meets) + 1
    if widest > MAX_OVERLAPPING:
        em.unsupported("oneOf", gptr, f"oneOf with {widest} branches that may overlap one another: at most "
                       f"{MAX_OVERLAPPING} are supported (each is checked against all the others it may overlap)")
        return flats
    if not logic.lookahead_allowed(em, "oneOf", gptr):
        return flats
    # every branch declares the names of all: its own first, in its order (the output format's
    # for its objects), then the others' in branch order; the others' lookaheads are written in
    # that order too (logic.subtract merges them into the branch)
    skeletons = [(logic.skeleton(em.norm, f, gptr), _where(f, gptr, i)) for i, f in enumerate(flats)]
    out = []
    for i, f in enumerate(flats):
        if not meets[i]:
            out.append(f)  # disjoint from every other branch: as it is
            continue
        skel = em.norm.flatten(Conjunction([skeletons[i]] + skeletons[:i] + skeletons[i + 1:]), gptr)
        declared = f if isinstance(f, bool) else logic.strict_merge(em.norm, skel, f)
        out.append(Exclusive(f if declared is None else declared, [flats[j] for j in meets[i]], gptr))
    return out


def _where(f: Any, gptr: str, i: int) -> str:
    """The pointer of oneOf branch `f` (the i-th at `gptr`) in the user's schema."""
    return f.ptr if isinstance(f, (Node, RuleRef)) else f"{gptr}/{i}"


def exclusive_value(em: Any, m: Any, excl: list) -> str | None:
    """Regex for the values of merged combination `m` that no other branch of its oneOfs accepts."""
    negs = [(o, "oneOf", o.ptr if isinstance(o, Node) else e.ptr) for e in excl for o in e.others]
    return logic.subtract(em, m, negs)


def exclusive_branches(em: Any, flats: list, base: Node) -> list | None:
    """Rewrite oneOf branches, type by type, as branches no two of which accept the same value;
    None when that needs the negation of a constraint we cannot negate."""
    merge = em.norm.merge
    flats = _spliced(em, [em.norm.expand(f) if isinstance(f, RuleRef) else f for f in flats])
    if any(isinstance(f, RuleRef) for f in flats):
        return None
    out: list = []
    for t in ("null", "boolean", "string", "number", "array", "object"):
        full: list = []
        part: list = []
        for f in flats:
            if f is True:
                full.append(Node({}, base.ptr))
                continue
            types = set(types_of(f))
            if t == "number" and "integer" in types and "number" not in types:
                part.append(f)
                continue
            if t not in types or (f.groups and not ({t, "integer"} if t == "number" else {t}) & _group_types(em, f)):
                continue
            if ("enum" in f or "const" in f or f.groups or f.not_enum or "not" in f
                    or any(k in f for k in TYPE_KEYWORDS[t])):
                part.append(f)
            else:
                full.append(f)
        only_t = Node({"type": [t]}, base.ptr)
        if len(full) >= 2 or (not full and not part):
            continue  # two branches accept every value of this type: none is valid
        if t == "object" and all(_required_only(f) for f in full + part):
            sets = [[r for r in f.get("required", []) if isinstance(r, str)] for f in full + part]
            branches = _exactly_one_required(sets)
            if branches is None:
                return None
            for b, i in branches:
                m = merge(merge((full + part)[i], only_t), em.norm.flatten(b, base.ptr))
                if m is not False:
                    out.append(m)
            continue
        if t == "object" and not full and len(part) > 1:
            objs = [merge(f, only_t) for f in part]
            closed = closed_objects_exclusive(em, objs, base)
            if closed is None and em.sink is not None and not getattr(em, "canonical_numbers", False) \
                    and not getattr(em, "lookahead_side", False):
                # grammar rules, not inside an automaton (there a lookahead is the smaller text)
                written = em.sink.open_branches
                if base.ptr in written or sum(written.values()) < _MAX_OPEN_TOTAL:
                    closed = open_objects_exclusive(em, objs)
                    written[base.ptr] = len(closed or ())
            if closed is not None:
                out.extend(closed)
                continue
        if t == "array" and not full and len(part) > 1:
            apart = arrays_exclusive(em, [merge(f, only_t) for f in part], base)
            if apart is not None:
                out.extend(apart)
                continue
        if full and not part:
            m = merge(full[0], only_t)
            if m is not False:
                out.append(m)
            continue
        if full:
            return None  # valid values of this type are those the other branches reject: no negation
        restricted = [r for r in (merge(f, only_t) for f in part) if r is not False]
        if len(restricted) > 1 and not pairwise_disjoint(em, restricted, base):
            return None
        out.extend(restricted)
    return out


_CLOSED_KEYWORDS = {"type", "properties", "required", "additionalProperties"}  # (of VALIDATION's)
_MAX_PRESENCE_KEYS = 12  # keys whose presence decides a closed branch against the others


def closed_objects_exclusive(em: Any, objs: list, base: Node) -> list | None:
    """oneOf branches that are closed objects (properties, required, additionalProperties false)
    whose shared members have the same schema, as disjoint branches: an object valid for branch i
    is valid for branch j too exactly when all its keys are j's and it has j's required keys, so
    "i and no other" is i with key-presence conditions (disjoint cubes over those keys). None when
    a branch has another keyword or two branches share a member with different schemas."""
    shapes = []
    for f in objs:
        values = enum_values(f) if isinstance(f, Node) else None
        if f is False or (values is not None and not any(isinstance(v, dict) for v in values)):
            continue  # no object value
        if not isinstance(f, Node) or f.groups or f.not_enum or (set(f.kw) & VALIDATION) - _CLOSED_KEYWORDS \
                or f.get("additionalProperties") is not False or not isinstance(f.get("properties", {}), dict):
            return None
        props = {k: v for k, v in f.get("properties", {}).items() if v is not False}
        req = {r for r in f.get("required", []) if isinstance(r, str)}
        if not req <= set(props):
            continue  # a required key the object may not have: no value
        shapes.append((f, props, req))
    out = []
    for i, (f, props, req) in enumerate(shapes):
        clauses = []  # one per other branch j: (keys one of which is present, keys one of which is absent)
        for j, (g, gprops, greq) in enumerate(shapes):
            if j == i or not (greq <= set(props) and req <= set(gprops)):
                continue  # no object has all the required keys of both
            for k in set(props) & set(gprops):
                if not _same_member(em, f, g, k):
                    return None
            has, lacks = set(props) - set(gprops), greq - req
            if not has and not lacks:
                clauses = None  # every object of branch i is one of branch j's
                break
            clauses.append((has, lacks))
        if clauses is None:
            continue
        # "one of all its keys is there" is "not empty": one count, not a cube per key
        nonempty = any(has == set(props) and not lacks for has, lacks in clauses)
        clauses = [(has, lacks) for has, lacks in clauses if not (has == set(props) and not lacks)]
        keys = sorted({k for has, lacks in clauses for k in has | lacks})
        if len(keys) > _MAX_PRESENCE_KEYS:
            return None
        for cube in _presence_cubes(clauses, keys, {k: True for k in req}):
            present = [k for k in keys if cube.get(k) is True]
            extra = {"required": present, "properties": {k: False for k in keys if cube.get(k) is False},
                     **({"minProperties": 1} if nonempty and not present else {})}
            m = em.norm.merge(f, em.norm.flatten(extra, base.ptr))
            if m is not False:
                out.append(m)
            if len(out) > MAX_BRANCHES:
                return None
    return out


def _spliced(em: Any, flats: list, depth: int = 0) -> list:
    """The oneOf branches with each branch that is one anyOf/oneOf of disjoint branches (and its
    other keywords) replaced by those branches, each with the other keywords: a value satisfies
    the branch exactly when it satisfies one of them, so every value counts as often as before
    (travis' `oneOf: [{oneOf: [secret, array of secrets]}, ..., array of hooks]`)."""
    out: list = []
    for f in flats:
        parts = None
        if isinstance(f, Node) and len(f.groups) == 1 and isinstance(f.groups[0].subs, list) and depth < 3:
            g = f.groups[0]
            rest = f.copy(keep_groups=False)
            subs = [em.norm.flatten(sub, f"{g.ptr}/{i}") for i, sub in enumerate(g.subs)]
            if len(out) + len(subs) + len(flats) <= MAX_BRANCHES and not any(isinstance(x, RuleRef) for x in subs) \
                    and pairwise_disjoint(em, subs, rest):
                parts = _spliced(em, [m for m in (em.norm.merge(rest, x) for x in subs) if m is not False], depth + 1)
        out.extend([f] if parts is None else parts)
    return out


def _group_types(em: Any, f: Node, depth: int = 0) -> set[str]:
    """The JSON types node `f` may still take once its anyOf/oneOf groups are read: its own,
    less those no branch of some group takes (a branch `oneOf: [string, object]` has no booleans)."""
    types = set(types_of(f)) | ({"integer"} if "number" in types_of(f) else set())
    for g in f.groups if depth < 4 else ():
        if not isinstance(g.subs, list):
            continue
        inner: set[str] = set()
        for i, sub in enumerate(g.subs):
            b = em.norm.flatten(sub, f"{g.ptr}/{i}")
            b = em.norm.expand(b) if isinstance(b, RuleRef) else b
            if b is not False:
                inner |= _group_types(em, b, depth + 1) if isinstance(b, Node) else set(_ALL_TYPES)
        types &= inner
    return types


_ALL_TYPES = ("null", "boolean", "string", "number", "integer", "array", "object")
_ARRAY_KEYWORDS = {"type", "items", "minItems", "maxItems", "uniqueItems"}  # (of VALIDATION's)


def arrays_exclusive(em: Any, arrs: list, base: Node) -> list | None:
    """oneOf branches that are arrays of one item schema each, as disjoint branches: where the
    lengths (and uniqueness) branch i allows are all branch j's too, an array of i is one of j's
    exactly when all its items are j's items, so "i and not j" is i with `contains: {not: j's
    items}` (travis' webhooks: arrays of secrets or of hook objects, `[{}]` in both). None when
    a branch may meet two others, says more, before draft 6 (no `contains`), or when that
    contains cannot be written (tried once, refusing rather than ignoring)."""
    shapes = []
    resolver = em.norm.resolver
    for f in arrs:
        if f is False:
            continue
        if not isinstance(f, Node) or f.groups or f.not_enum or (set(f.kw) & VALIDATION) - _ARRAY_KEYWORDS:
            return None
        prefix, items, _ = item_layout(f)
        lo, hi = f.get("minItems", 0), f.get("maxItems")
        if prefix or not isinstance(items, (dict, bool)) or not _count(lo) or not (hi is None or _count(hi)):
            return None
        shapes.append((f, items, lo, hi, f.get("uniqueItems") is True))
    if em.norm.draft < 6 or len({resolver.base_at(f.kptr("items")) for f, *_ in shapes}) != 1:
        return None
    pairs = {(i, j): not pairwise_disjoint(em, [shapes[i][0], shapes[j][0]], base)
             for i in range(len(shapes)) for j in range(i + 1, len(shapes))}
    out = []
    for i, (f, _, lo, hi, unique) in enumerate(shapes):
        meets = [g for j, g in enumerate(shapes) if j != i and pairs[min(i, j), max(i, j)]]
        if not meets:
            out.append(f)
            continue
        if len(meets) > 1:
            return None  # (two `contains` in one allOf)
        _, items, glo, ghi, gunique = meets[0]
        if glo > lo or (ghi is not None and (hi is None or hi > ghi)) or (gunique and not unique):
            return None
        if items is True or items == {}:
            continue  # every array of i is one of j's
        m = em.norm.merge(f, em.norm.flatten({"contains": {"not": items}}, f.ptr))
        if m is not False:
            # (a contains whose hits cannot be told apart is refused by name: at a pointer of
            # ours, not of the user's schema; then the lookahead's refusal stands)
            if not strictly(em, lambda: em.flat_value(m))[0]:
                return None
            out.append(m)
    return out


def _count(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_OPEN_KEYWORDS = _CLOSED_KEYWORDS - {"additionalProperties"}
_MAX_CELLS = 64  # assignments of the shared keys' states tried by open_objects_exclusive
_MAX_OPEN_BRANCHES = 32  # branches it may write for one oneOf (each an object of its own)
_MAX_OPEN_TOTAL = 64  # and for one schema, each oneOf counted once however often it is written
# (they multiply the emission's work: bitbucket's took minutes)


def open_objects_exclusive(em: Any, objs: list) -> list | None:
    """oneOf branches that are open objects (properties and required only) as disjoint branches.
    A key named by two branches or more is absent, or present with a value inside or outside each
    schema they give it; for every such assignment, each branch b the assignment leaves possible
    becomes b with the assignment and, for every other possible branch, one way its own keys
    reject it (a required one absent, or one present with a value outside its schema: `{"not":
    S}`), written disjointly. None for other shapes, schemas under different base URIs, or past
    _MAX_CELLS assignments or _MAX_OPEN_BRANCHES branches."""
    shapes = []
    for f in objs:
        values = enum_values(f) if isinstance(f, Node) else None
        if f is False or (values is not None and not any(isinstance(v, dict) for v in values)):
            continue
        if not isinstance(f, Node) or f.groups or f.not_enum or (set(f.kw) & VALIDATION) - _OPEN_KEYWORDS \
                or not isinstance(f.get("properties", {}), dict):
            return None
        shapes.append((f, f.get("properties", {}), [r for r in f.get("required", []) if isinstance(r, str)]))
    if len(shapes) < 2:
        return None
    resolver = em.norm.resolver
    bases = {resolver.base_at(f.ptr) for f, _, _ in shapes}
    owners: dict[str, set] = {}
    schemas: dict[str, list] = {}  # key -> the distinct schemas the branches give it
    texts: dict[str, list[str]] = {}  # key -> their canonical texts
    where: list[dict[str, int]] = []  # per branch: key -> the index of its schema in schemas[key]
    for i, (f, props, req) in enumerate(shapes):
        where.append({})
        for k in list(props) + [r for r in req if r not in props]:
            owners.setdefault(k, set()).add(i)
            schemas.setdefault(k, [])
            texts.setdefault(k, [])
            if k in props:
                bases.add(resolver.base_at(f.member_ptr("properties", k)))
                text = canon(props[k])
                if text not in texts[k]:
                    texts[k].append(text)
                    schemas[k].append(props[k])
                where[i][k] = texts[k].index(text)
    if len(bases) != 1 or None in bases or any("$dynamicRef" in t or "$recursiveRef" in t
                                               for ts in texts.values() for t in ts):
        return None
    # a key every branch names alike (one schema, required by all or by none) tells none apart
    shared = [k for k in owners if len(owners[k]) > 1 and not (
        len(owners[k]) == len(shapes) and len(schemas[k]) <= 1 and len({k in req for _, _, req in shapes}) == 1
        and all((k in props) == bool(schemas[k]) for _, props, _ in shapes))]
    # a schema no value satisfies (false, `{"not": {}}`) is one whose branch forbids the key: never "inside"
    never = {k: [x is False or (isinstance(x, dict) and x.get("not") in ({}, True)) for x in schemas[k]]
             for k in shared}
    cells = [[None] + list(itertools.product(*[(False,) if no else (True, False) for no in never[k]]))
             for k in shared]
    total = 1
    for c in cells:
        total *= len(c)
    if total > _MAX_CELLS:
        return None
    ways_of = [_rejections(shape, [k for k in owners if owners[k] == {j}]) for j, shape in enumerate(shapes)]
    out = []
    for assignment in itertools.product(*cells):
        state = dict(zip(shared, assignment))
        possible = [i for i, (f, props, req) in enumerate(shapes)
                    if all(state[k] is not None for k in req if k in state)
                    and all(state[k] is None or state[k][where[i][k]] for k in props if k in state)]
        for b in possible:
            f, props, _ = shapes[b]
            required = [k for k in shared if state[k] is not None]
            extra: dict = {}
            for k in shared:
                parts = [x if inside else {"not": x} for t, (x, inside) in enumerate(zip(schemas[k], state[k] or ()))
                         if t != where[b].get(k) and not never[k][t]]
                extra[k] = False if state[k] is None else parts[0] if len(parts) == 1 else \
                    {"allOf": parts} if parts else True
            ways = [ways_of[j] for j in possible if j != b]
            if any(not w for w in ways):
                continue  # another branch accepts whenever b does
            combos = 1
            for w in ways:
                combos *= len(w)
            if len(out) + combos > _MAX_OPEN_BRANCHES:
                return None
            for combo in itertools.product(*ways):
                req = required + [k for r, _ in combo for k in r]
                # b's required names it does not declare come right after its own members, the
                # other branches' keys after them (as undeclared keys do in the output format)
                props_extra = {r: True for r in shapes[b][2] if r not in props}
                props_extra.update(extra)
                for _, p in combo:
                    props_extra.update(p)
                m = em.norm.merge(f, em.norm.flatten({"required": req, "properties": props_extra}, f.ptr))
                if m is not False:
                    out.append(m)
    return out


def _rejections(shape: tuple, own: list[str]) -> list[tuple[list, dict]]:
    """The disjoint ways branch `shape`'s own keys `own` reject an object, as (required names,
    property schemas): the t-th key rejecting (absent if required, or present with a value
    outside its schema) and the keys before it not."""
    _, props, req = shape
    out: list[tuple[list, dict]] = []
    before_req: list[str] = []
    before: dict = {}
    for k in own:
        schema = props.get(k)
        if k in req:
            out.append((list(before_req), {**before, k: False}))
            if schema is not None:
                out.append((before_req + [k], {**before, k: {"not": schema}}))
                before[k] = schema
            before_req.append(k)
        elif schema is not None:
            out.append((before_req + [k], {**before, k: {"not": schema}}))
            before[k] = schema
    return out


def _same_member(em: Any, f: Node, g: Node, k: str) -> bool:
    """Do member `k` of closed objects f and g have the same schema (same text, same base URI)?"""
    a, b = f["properties"][k], g["properties"][k]
    text = canon(a)
    if text != canon(b):
        return False
    if isinstance(a, bool):
        return True
    if "$dynamicRef" in text or "$recursiveRef" in text:
        return False
    ba = em.norm.resolver.base_at(f.member_ptr("properties", k))
    return ba is not None and ba == em.norm.resolver.base_at(g.member_ptr("properties", k))


def _presence_cubes(clauses: list, keys: list, fixed: dict) -> list[dict]:
    """Disjoint partial assignments (key -> present) under which every clause (has one of, lacks
    one of) holds, by splitting on the keys in order."""
    open_clauses = []
    for has, lacks in clauses:
        if any(fixed.get(k) is True for k in has) or any(fixed.get(k) is False for k in lacks):
            continue  # satisfied
        if all(k in fixed for k in has | lacks):
            return []  # falsified
        open_clauses.append((has, lacks))
    if not open_clauses:
        return [dict(fixed)]
    k = next(k for k in keys if k not in fixed and any(k in h | l for h, l in open_clauses))
    return (_presence_cubes(open_clauses, keys, {**fixed, k: True})
            + _presence_cubes(open_clauses, keys, {**fixed, k: False}))


def _required_only(f: Node) -> bool:
    return (not f.groups and not f.not_enum and "enum" not in f and "const" not in f and "not" not in f
            and not any(k in f for k in TYPE_KEYWORDS["object"] - {"required"}))


def _exactly_one_required(sets: list[list[str]]) -> list[tuple[dict, int]] | None:
    """Objects where exactly one of the required-name sets is fully present, as a union of
    (schema, index of the set) branches: set i present, and one name of every other set absent."""
    out: list[tuple[dict, int]] = []
    for i, own in enumerate(sets):
        choices = []
        possible = True
        for j, other in enumerate(sets):
            if j == i:
                continue
            missing = [n for n in other if n not in own]
            if not missing:
                possible = False  # whenever set i is present, set j is too
                break
            choices.append(sorted(set(missing)))
        if not possible:
            continue
        combos = 1
        for c in choices:
            combos *= len(c)
        if combos > MAX_BRANCHES:
            return None
        seen = set()
        for pick in itertools.product(*choices):
            absent = tuple(sorted(set(pick)))
            if absent in seen:
                continue
            seen.add(absent)
            out.append(({"required": list(own), "properties": {n: False for n in absent}}, i))
    return out


def pairwise_disjoint(em: Any, flats: list, base: Node) -> bool:
    """Is it certain that no value satisfies base together with two of the branches?"""
    merge = em.norm.merge
    for i in range(len(flats)):
        for j in range(i + 1, len(flats)):
            a = merge(base, flats[i])
            b = merge(base, flats[j])
            if a is False or b is False:
                continue
            if not _disjoint(em, a, b, 0):
                return False
    return True


def _disjoint(em: Any, a: Any, b: Any, level: int) -> bool:
    if a is False or b is False:
        return True
    if a is True or b is True or level > 4:
        return False
    a = em.norm.flatten(a, a.ptr if isinstance(a, (Node, RuleRef)) else "#")
    b = em.norm.flatten(b, b.ptr if isinstance(b, (Node, RuleRef)) else "#")
    if isinstance(a, RuleRef):
        a = em.norm.expand(a)
    if isinstance(b, RuleRef):
        b = em.norm.expand(b)
    if isinstance(a, RuleRef) or isinstance(b, RuleRef):
        return False
    if a is False or b is False:
        return True
    if a is True or b is True:
        return False
    if a.groups or b.groups:
        return _groups_disjoint(em, a, b, level)
    ea, eb = _allowed_values(a), _allowed_values(b)
    if ea is not None and eb is not None:
        return not ({canon(x) for x in ea} & {canon(x) for x in eb})
    ta = set(types_of(a))
    tb = set(types_of(b))
    if "number" in ta:
        ta.add("integer")
    if "number" in tb:
        tb.add("integer")
    if ea is not None:
        ta = {json_type_of(x) for x in ea} | ({"number"} if any(json_type_of(x) == "integer" for x in ea) else set())
    if eb is not None:
        tb = {json_type_of(x) for x in eb} | ({"number"} if any(json_type_of(x) == "integer" for x in eb) else set())
    for t in ta & tb:
        if t == "array" and ea is None and eb is None and _arrays_disjoint(em, a, b, level):
            continue
        if t != "object":
            if ea is not None and eb is None and _enum_excluded(em, ea, b, t):
                continue
            if eb is not None and ea is None and _enum_excluded(em, eb, a, t):
                continue
            return False
        # objects: a key one requires whose values the two keep disjoint (the other's schema for
        # it holds whenever it is there), or a key one requires and the other forbids
        ra, rb = set(a.get("required", [])), set(b.get("required", []))
        pa, pb = a.get("properties", {}), b.get("properties", {})
        ok = any(k in pa and k in pb and _disjoint(em, pa[k], pb[k], level + 1) for k in sorted(ra | rb))
        if not ok:
            for x, y, rx in ((a, b, ra), (b, a, rb)):
                py = y.get("properties", {})
                for k in rx:
                    if (y.get("additionalProperties") is False and k not in py and not _pattern_may_match(y, k)) \
                            or py.get(k) is False:
                        ok = True
        if not ok and not _closed_keys_disjoint(a, b):
            return False
    return True


_MAX_PROVED_ITEMS = 8  # item positions compared by _arrays_disjoint


def _arrays_disjoint(em: Any, a: Node, b: Node, level: int) -> bool:
    """Two array schemas no array satisfies both of: their length ranges do not meet, or at a
    position every common array has (below both minItems' larger), their item schemas are disjoint."""
    lows = [x.get("minItems", 0) for x in (a, b)]
    highs = [x.get("maxItems") for x in (a, b)]
    if not all(_count(v) for v in lows):
        return False
    for hi, lo in ((highs[0], lows[1]), (highs[1], lows[0])):
        if _count(hi) and hi < lo:
            return True
    (pa, ra, _), (pb, rb, _) = item_layout(a), item_layout(b)
    for p in range(min(int(max(lows)), _MAX_PROVED_ITEMS)):
        sa = pa[p] if p < len(pa) else ra
        sb = pb[p] if p < len(pb) else rb
        if _disjoint(em, sa, sb, level + 1):
            return True
    return False


def _allowed_values(n: Node) -> list | None:
    """The values of `n`'s enum/const less those it excludes (`not: {enum: ...}`), or None."""
    values = enum_values(n)
    if values is None or not n.not_enum:
        return values
    excluded = {canon(v) for v in n.not_enum}
    return [v for v in values if canon(v) not in excluded]


def _closed_keys_disjoint(a: Node, b: Node) -> bool:
    """Two closed objects (additionalProperties false), one of which needs a key, that allow no
    key in common: no declared name of one allowed by the other, no two patterns sharing a key."""
    if a.get("additionalProperties") is not False or b.get("additionalProperties") is not False:
        return False
    if not any(x.get("required") or (x.get("minProperties") or 0) >= 1 for x in (a, b)):
        return False
    for x, y in ((a, b), (b, a)):
        px, py = x.get("properties") or {}, y.get("properties") or {}
        if not isinstance(px, dict) or not isinstance(py, dict):
            return False
        for name, sub in px.items():
            if sub is not False and ((name in py and py[name] is not False) or _pattern_may_match(y, name)):
                return False
    pa, pb = a.get("patternProperties") or {}, b.get("patternProperties") or {}
    if not isinstance(pa, dict) or not isinstance(pb, dict):
        return False
    return all(sa is False or sb is False or _patterns_disjoint(p, q)
               for p, sa in pa.items() for q, sb in pb.items())


def _patterns_disjoint(p: str, q: str) -> bool:
    """Do ECMA patterns `p` and `q` provably match no common key? (product of their DFAs)"""
    try:
        rp, rq = pattern_to_string_body(p), pattern_to_string_body(q)
        if rp is None or rq is None:
            return True
        dp = dfa_mod.compile_regex(rp, max_states=2_000)
        dq = dfa_mod.compile_regex(rq, max_states=2_000)
    except (PatternError, TokenguideError, RecursionError):
        return False
    return product.disjoint(dp, dq, max_pairs=20_000)


def _groups_disjoint(em: Any, a: Node, b: Node, level: int) -> bool:
    """Disjointness through anyOf/oneOf: a value of `x` satisfies a branch of each of its
    groups, so `x` and `y` are disjoint when every branch of one group of `x` (with the rest
    of `x`) is disjoint from `y`."""
    for x, y in ((a, b), (b, a)):
        rest = x.copy(keep_groups=False)
        for g in x.groups:
            if not isinstance(g.subs, list):
                continue
            merged = [logic.strict_merge(em.norm, rest, em.norm.flatten(sub, f"{g.ptr}/{i}"))
                      for i, sub in enumerate(g.subs)]
            if all(m is not None and _disjoint(em, m, y, level + 1) for m in merged):
                return True
    return False


def _pattern_may_match(s: Node, name: str) -> bool:
    """May one of the patternProperties of `s` match key `name`? (True when unsure.)"""
    pats = s.get("patternProperties")
    if not pats:
        return False
    if not isinstance(pats, dict):
        return True
    try:
        return any(ecma_search(p, name) for p in pats)
    except PatternError:
        return True


def _enum_excluded(em: Any, values: list, other: Node, t: str) -> bool:
    """Does `other` reject every value of type `t` among `values`?"""
    try:
        r = em.sub_emitter(max(map(nesting, values), default=0)).flat_value(other)
    except UnsupportedSchemaError:
        return False
    if r is None:
        return True
    vals = [v for v in values if json_type_of(v) == t or (t == "number" and json_type_of(v) == "integer")]
    return all(not re.fullmatch(r, compact(v)) for v in vals)
