"""anyOf/oneOf of key-presence conditions on one object, as one object (the engine path).

`{"properties": {...}, "anyOf": [{"required": ["a", "b"]}, {"required": ["c"]}]}` is one
object whose members must include one of the sets. Distributed, it is a union of objects that
share every member, read twice over as rules and whose value lexeme is a product of
the branches (Glaiveai2K calculate_area: over 2,000 states). Here it is one chain of members in
schema order whose state is, per group, the set of branches still satisfiable: a branch is the
names it requires and the names it forbids (`properties: {name: false}`, as dependencies are
rewritten), so a member left out drops the branches that require it and a member written drops
the branches that forbid it; at the end every anyOf group keeps a branch and every oneOf group
exactly one (GitHub workflow steps: exactly one of uses/run/wait/..., with dependencies beside).
One grammar rule per (member, state), shared. A branch without `type: object` accepts every
non-object, one with it none.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .normalize import VALIDATION, Node, flatten_branch, constrains_nothing, types_of
from .text import alt, canon, cat, json_type_of, opt, rep

__all__ = ["MAX_DISJUNCTS", "MAX_SET_STATES", "Literal", "Presence", "disjuncts", "literal", "required_sets_value", "sets_body"]

MAX_SET_STATES = 4_000  # (member, branches left) continuations, beyond: the union of branches instead
MAX_DISJUNCTS = 64  # key-presence conditions one branch multiplies out to
_NOT_OBJECT = ["null", "boolean", "number", "string", "array"]
_OBJECT_KEYWORDS = ("minProperties", "maxProperties", "not", "if", "enum", "const")


class Presence(NamedTuple):
    """One branch as a key-presence condition: names it requires and names it forbids, and
    conditions on members' values where present (`if: {properties: {detach: {const: true}}}`)."""
    present: frozenset
    absent: frozenset
    objects_only: bool  # the branch has `type: object`: no non-object satisfies it
    values: frozenset = frozenset()  # (name, the canonical texts of values, in them or not: bool)


class Literal(NamedTuple):
    """A member's value condition (Presence.values): its value is (`inside`) or is not one of
    `values` (JSON values; `keys` their canonical texts)."""
    name: str
    keys: frozenset
    inside: bool
    values: tuple


def required_sets_value(em: Any, s: Node, base: Node) -> str | None | bool:
    """The regex of node `s` (anyOf/oneOf groups of key-presence branches over `base`, its
    other keywords) written as above; False when the shape is not that one (the caller
    distributes instead); None when no value is left."""
    if em.sink is None or not s.groups or em.property_order != "schema":
        return False
    if base.groups or base.not_enum or any(k in base for k in _OBJECT_KEYWORDS) or "object" not in types_of(base):
        return False
    props = base.get("properties", {})
    if not isinstance(props, dict):
        return False
    closed = base.get("additionalProperties", True) is False and not base.get("patternProperties")
    only = types_of(base) == ["object"]  # then a branch of other types is one no value here meets
    groups: list[tuple[list[list[Presence]], bool]] = []
    for kind, subs, gptr, _ in s.groups:
        if not isinstance(subs, list) or not subs:
            return False
        flats = [flatten_branch(em.norm, sub, f"{gptr}/{i}", s.refs) for i, sub in enumerate(subs)]
        branches = [disjuncts(em, f, base, closed, only) for f in flats if f is not False]
        if not branches or any(b is None for b in branches):
            return False
        groups.append((branches, kind == "oneOf"))
    parts: list[str | None] = []
    if all(_accepts_non_objects(branches, one) for branches, one in groups):
        rest = em.norm.merge(base, Node({"type": _NOT_OBJECT}, s.ptr))
        parts.append(None if rest is False else em.flat_value(rest))
    obj = em.norm.merge(base, Node({"type": "object"}, s.ptr))
    if obj is not False:
        em.check_generic(obj)
        body = em.t_object(obj, required_sets=[([[(d.present, d.absent, d.values) for d in b] for b in br], one)
                                               for br, one in groups])
        if body is False:
            return False
        parts.append(body)
    return alt(parts)


def _accepts_non_objects(branches: list[list[Presence]], exactly_one: bool) -> bool:
    """Does the group hold for a non-object (which has no keys, so only the type counts)?"""
    n = sum(any(not d.objects_only for d in b) for b in branches)
    return n == 1 if exactly_one else n >= 1


def disjuncts(em: Any, f: Any, base: Node, closed: bool, only: bool,
               depth: int = 0) -> list[Presence] | None:
    """Branch `f` as key-presence conditions one of which must hold (its own keywords and
    anyOf groups of such branches inside it, multiplied out: `oneOf: [{anyOf: [{not: {required:
    [run]}}, ...]}, ...]`), or None when it says more or multiplies out past MAX_DISJUNCTS. With
    `only` (the node takes objects only), a branch of other types is no condition at all (`[]`:
    `not {type: object, required: [a, b]}` is such a branch or a missing name)."""
    if only and isinstance(f, Node) and "type" in f and "object" not in types_of(f):
        return []
    own = _presence(f if not isinstance(f, Node) else f.copy(keep_groups=False), base, closed,
                    lambda name, sub: _restates(em, base, f, name, sub))
    if own is None:
        return None
    out = [own]
    for kind, subs, gptr, _ in (f.groups if isinstance(f, Node) else []):
        if kind != "anyOf" and not (isinstance(subs, list) and len(subs) == 1):
            return None  # a oneOf inside counts its matches: not a plain disjunction
        if not isinstance(subs, list) or not subs:
            return None
        options: list[Presence] = []
        for i, sub in enumerate(subs):
            inner = em.norm.flatten(sub, f"{gptr}/{i}")
            if inner is False:
                continue
            got = disjuncts(em, inner, base, closed, only, depth + 1) if depth < 4 else None
            if got is None:
                return None
            options.extend(got)
        out = [Presence(a.present | b.present, a.absent | b.absent, a.objects_only or b.objects_only,
                        a.values | b.values) for a in out for b in options]
        if len(out) > MAX_DISJUNCTS:
            return None
    return out


def _restates(em: Any, base: Node, f: Node, name: str, sub: Any) -> bool:
    """Is branch `f`'s schema `sub` for member `name` the one `base` declares (the same object,
    or a lone $ref to it)? Then it adds nothing: X and X is X."""
    declared = base.get("properties", {}).get(name)
    if sub is declared:
        return True
    if isinstance(sub, dict) and set(sub) == {"$ref"}:
        hit = em.norm.resolve_ref(sub["$ref"], f.member_ptr("properties", name))
        return hit is not None and hit[1] == base.member_ptr("properties", name)
    return False


def _presence(f: Any, base: Node, closed: bool, restates: Any = None) -> Presence | None:
    """Branch `f` as a Presence over the properties `base` declares (an object that allows no
    other keys when `closed`), or None when it says more than which keys are there; a member
    schema the branch `restates` (name, schema -> bool) as declared says nothing more."""
    props = base.get("properties", {})
    if f is True:
        return Presence(frozenset(), frozenset(), False)
    if not isinstance(f, Node) or f.groups or f.not_enum:
        return None
    objects_only = False
    if "type" in f:
        types = types_of(f)
        if types == ["object"]:
            objects_only = True
        elif not {"null", "boolean", "object", "array", "number", "string"} <= set(types):
            return None  # some non-objects fail the type: not a key-presence condition
    if any(k in VALIDATION and k not in ("required", "properties", "type") for k in f.kw):
        return None
    required = f.get("required", [])
    fprops = f.get("properties", {})
    if not isinstance(required, list) or not isinstance(fprops, dict):
        return None
    if not all(isinstance(n, str) and n in props for n in required):
        return None  # undeclared names: their place among the other members differs per branch
    absent = set()
    values = set()
    for name, sub in fprops.items():
        if sub is False:
            if name in props:
                absent.add(name)
            elif not closed:
                return None  # an undeclared key the object may hold as an extra member
        elif not (sub.constrains() is False if isinstance(sub, Node) else constrains_nothing(sub)) and not (
                restates is not None and name in props and restates(name, sub)):
            condition = literal(name, sub) if name in props else None
            if condition is None:
                return None
            values.add(condition)
    return Presence(frozenset(required), frozenset(absent), objects_only, frozenset(values))


_ANNOTATIONS_ONLY = frozenset(VALIDATION) - {"const", "enum"}


def literal(name: str, sub: Any) -> Literal | None:
    """`sub` (a member's schema in a branch) as a condition on its value: a const/enum, or
    `not` one (as negation writes the failed side of an `if`); None for anything else."""
    if not isinstance(sub, dict):
        return None
    inside = True
    if set(sub) & VALIDATION == {"not"} and isinstance(sub["not"], dict):
        sub, inside = sub["not"], False
    if set(sub) & _ANNOTATIONS_ONLY - {"type"} or not set(sub) & {"const", "enum"}:
        return None
    vals = [sub["const"]] if "const" in sub else sub["enum"] if isinstance(sub.get("enum"), list) else None
    if vals is None or ("const" in sub and "enum" in sub):
        return None
    if "type" in sub:  # (a `type` every value listed has says nothing more)
        types = [sub["type"]] if isinstance(sub["type"], str) else sub["type"]
        if not isinstance(types, list) or not all(json_type_of(v) in types or (
                json_type_of(v) == "integer" and "number" in types) for v in vals):
            return None
    unique = {canon(v): v for v in vals}
    return Literal(name, frozenset(unique), inside, tuple(unique.values()))


def sets_body(em: Any, names: list[str], members: list[str | None], req: list[bool], extra: str | None,
              groups: list[tuple[list[list[tuple]], bool]],
              classes: dict[int, list[tuple[str, str | None]]] | None = None) -> str | None | bool:
    """Object body for `members` (regex or None, in order; `req`: required by the node itself)
    and then any number of `extra` members, holding every group of key-presence branches
    (`groups`: per branch, its conditions as (present, absent) name sets, one of which must
    hold; and whether exactly one branch must hold); False past MAX_SET_STATES, or where two
    places of one member text both fit one branch. The state is, per group, the (branch,
    condition) pairs still satisfiable, each with the place in the order it has reached.

    A member text standing at several places (copies of a name that branches order both ways,
    object_unions) is one transition wherever it is read: every pair takes its own place for it,
    skipping what lies between. Written as a chain over the first place any pair has reached (take
    the text there, or skip it), a text taken at its first place counts every later place too, so
    the skip path no longer offers it (`banned`) until a member is taken: each document has one
    derivation (two copies as alternatives were a Reduce/Reduce collision: buildkite's steps)."""
    if not groups:  # (one branch without conditions: the state still has a place in the order)
        groups = [([[(frozenset(), frozenset())]], False)]
    groups_pairs = [[(j, k) for j, br in enumerate(branches) for k in range(len(br))] for branches, _ in groups]
    if not all(groups_pairs):
        return None  # a group without a branch: no object holds it
    skip_kills = [tuple(frozenset((j, k) for j, k in ps if n in br[j][k][0]) for ps, (br, _) in zip(groups_pairs, groups))
                  for n in names]
    take_kills = [tuple(frozenset((j, k) for j, k in ps if n in br[j][k][1]) for ps, (br, _) in zip(groups_pairs, groups))
                  for n in names]
    classes = classes or {}
    # member i written as one of its classes (value regex, the canonical text of its value or
    # None for the rest): the branches whose value condition on it the class fails go too
    takes: list[list[tuple[str, tuple]]] = [
        [(m, tuple(kill | frozenset((j, k) for j, k in ps if _fails(br[j][k], names[i], ck))
                   for kill, ps, (br, _) in zip(take_kills[i], groups_pairs, groups))) for m, ck in classes[i]]
        if i in classes else ([] if members[i] is None else [(members[i], take_kills[i])])
        for i in range(len(members))]
    kills_at = [dict(ts) for ts in takes]  # place -> member text -> what taking it there kills
    places: dict[str, list[int]] = {}  # member text -> the places holding it
    for i, ts in enumerate(takes):
        for m, _ in ts:
            places.setdefault(m, []).append(i)
    copied = {m for m, at in places.items() if len(at) > 1}
    sep, n = em.sep, len(members)
    memo: dict[tuple, tuple[str | None, bool]] = {}

    def passes(g: int, pair: tuple, a: int, b: int) -> bool:
        """Can `pair` (of group g) skip places a..b-1?"""
        return all(not req[x] and pair not in skip_kills[x][g] for x in range(a, b))

    def taken(state: tuple, m: str) -> tuple | None:
        """The state after reading member text `m`: each pair at the place it takes for it."""
        out = []
        for g, threads in enumerate(state):
            got = set()
            for pair, at in threads:
                fits = [c for c in places[m] if c >= at and passes(g, pair, at, c)
                        and pair not in kills_at[c][m][g]]
                if len(fits) > 1:
                    raise _TooMany()  # (one branch taking two places of one text: not this shape)
                if fits:
                    got.add((pair, fits[0] + 1))
            if not got:
                return None  # a group with no branch left fails
            out.append(frozenset(got))
        return tuple(out)

    def skipped(state: tuple, i: int) -> tuple | None:
        out = []
        for g, threads in enumerate(state):
            left = frozenset((pair, at + 1 if at == i else at) for pair, at in threads
                             if at != i or passes(g, pair, i, i + 1))
            if not left:
                return None
            out.append(left)
        return tuple(out)

    def body(state: tuple, first: bool, banned: frozenset) -> tuple[str | None, bool]:
        """The continuation in `state`: its non-empty texts (a rule, each written once) and
        whether it may also be empty (then written `(?:rule)?` where used, so that no rule's body
        can be empty: the separators may be merged into the terminals)."""
        key = (state, first, banned)
        if key in memo:
            return memo[key]
        if len(memo) > MAX_SET_STATES:
            raise _TooMany()
        i = min(at for threads in state for _, at in threads)
        if i == n:
            alive = [{pair for pair, _ in threads} for threads in state]
            if not all(len({j for j, _ in a}) == 1 if one else a for a, (_, one) in zip(alive, groups)):
                res: tuple[str | None, bool] = (None, False)
            elif extra is None:
                res = (None, True)
            else:
                res = (extra + rep(sep + extra, 0, None) if first else sep + extra + rep(sep + extra, 0, None), True)
        else:
            options = []
            for m, _ in takes[i]:
                after = None if m in banned else taken(state, m)
                if after is not None:
                    options.append(cat("" if first else sep, m, written(body(after, False, frozenset()))))
            take = alt(options) if options else None
            rest_state = skipped(state, i)
            rest, empty = (None, False) if rest_state is None else \
                body(rest_state, first, banned | {m for m, _ in takes[i] if m in copied})
            res = (alt([take, rest]), empty)
        if res[0]:
            res = (em.sink.rule(res[0]), res[1])
        memo[key] = res
        return res

    def written(cont: tuple[str | None, bool]) -> str | None:
        text, empty = cont
        if text is None:
            return "" if empty else None
        return opt(text) if empty else text

    try:
        return written(body(tuple(frozenset((pair, 0) for pair in ps) for ps in groups_pairs), True, frozenset()))
    except _TooMany:
        return False


def _fails(cond: tuple, name: str, key: str | None) -> bool:
    """Does the value of canonical text `key` (None: a value no condition names) of member
    `name` fail one of the value conditions (Literal) in `cond` (present, absent[, values])?"""
    return any(lit.name == name and (key in lit.keys) != lit.inside for lit in (cond[2] if len(cond) > 2 else ()))


class _TooMany(Exception):
    """More continuations than MAX_SET_STATES."""
