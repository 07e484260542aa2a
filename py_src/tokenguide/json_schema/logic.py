"""Exact `not`, `if`/`then`/`else` and "this branch, no other" (overlapping oneOf), regex path.

`subtract(em, a, negs)` is the regex of the values of Node `a` that no schema of `negs` accepts:
`value_difference(A, B1|B2|...)`, a negative lookahead of the Bi before A. Bi is `a` merged with
negs[i] (so free-form depth limits agree on both sides), or negs[i] alone restricted to a's
types when `a` takes scalars only. The lookahead is exact on texts only when every text A
writes for a value of Bi is a text of Bi, so:
* numbers: A is written by the *canonical* twin of the emitter (`CANONICAL_NUMBER` spellings),
  and Bi by the *lookahead* twin, whose integers also take zero fractions ("5.0");
* key order: `skeleton(negs)` declares in `a` every property the negs declare or require, so
  both sides write them in one order, and `order_compatible` checks that (refused otherwise),
  unless A writes no objects (`writes_objects`) or keys come in any order.
`not` is base minus its schema; if/then/else is (base, if, then merged) plus (base and else)
minus if; oneOf branches that may overlap are each minus all the others (one_of.Exclusive).
In grammar mode the value with its lookaheads is a value lexeme (RuleSink.value_lexeme: rules
from its exact automaton, free-form values written out around holes: module `holes`), refused
when it holds a recursive $ref or tells free-form values apart too deep; with a
whitespace pattern that may match more than JSON whitespace, these keywords are refused.
"""

from __future__ import annotations

import itertools

from functools import lru_cache
from typing import Any

from ..errors import UnsupportedSchemaError
from . import required_sets
from .negation import negation_branches
from .normalize import TYPE_KEYWORDS, VALIDATION, Conjunction, Group, Node, RuleRef, constrains_nothing, enum_values, types_of
from .patterns import PatternError, ecma_search
from .text import alt, group, json_literal, json_type_of, lit, value_difference, value_intersection

__all__ = ["conditional_branches", "CANONICAL_NUMBER", "logic_value", "plain_negation", "subtract", "canonical", "order_compatible", "skeleton",
           "json_whitespace_only", "lookahead_allowed", "strict_merge", "union", "value_checked"]

#: The number spellings written where a value is tested against a lookahead: plain decimals
#: (but not negative zero) and the exponent form json.dumps writes below 1e-4 ("1.5e-05"), not
#: "1e2" or "1E+16". The lookahead side reads integers with zero fractions too ("5.0" is an
#: integer), so each of its number regexes accepts exactly the spellings of this set that denote
#: its values.
CANONICAL_NUMBER = (r"(?:0(?:\.[0-9]+)?|-0\.[0-9]*[1-9][0-9]*|-?[1-9][0-9]*(?:\.[0-9]+)?"
                    r"|-?[1-9](?:\.[0-9]*[1-9])?e-(?:0[5-9]|[1-9][0-9]+))")

_SCALARS = {"null", "boolean", "number", "integer", "string"}
_LOCAL = ("pattern", "format", "multipleOf")  # keywords whose meaning does not depend on siblings
_MAX_LEVEL = 8  # order_compatible gives up (refuses) deeper than this


def value_checked(em: Any, ptr: str) -> bool:
    """Leave the uniqueItems or format "regex" at `ptr` to be checked on the values (module
    value_checks)? Only while compile_json_schema collects such keywords, in an emitter writing
    values or the lookahead side of an if or oneOf branch (not of a `not`, nor a membership
    check), with JSON whitespace. A check that cannot be exact is refused by name."""
    check = em.norm.unique_drops
    if check is None or not json_whitespace_only(em.ws):
        return False
    if getattr(em, "lookahead_side", False) and not getattr(em.norm, "unique_side", False):
        return False
    keyword = ptr.rsplit("/", 1)[1]
    why = check.take(ptr)
    if why is not None:  # (raises, or in lenient mode ignores the keyword: the value without it)
        what = {"uniqueItems": "uniqueItems over these items is not regular",
                "format": "which strings are regexes is no regular or context-free language"}.get(
            keyword, f"{keyword} beside this pattern makes a lexeme too large for the engine path")
        em.unsupported(keyword, ptr, f"{what}, and checked on the values it would not be exact: {why}")
    return True


def json_whitespace_only(ws: str) -> bool:
    """Is it certain that the whitespace regex `ws` matches only JSON whitespace (space, tab,
    LF, CR)? A conservative syntactic check: literal whitespace, classes of it, groups and
    quantifiers only."""
    i, in_class, in_brace = 0, False, False
    while i < len(ws):
        c = ws[i]
        if c == "\\":
            if ws[i + 1:i + 2] in ("t", "n", "r", " "):
                i += 2
                continue
            if ws[i + 1:i + 4].lower() in ("x20", "x09", "x0a", "x0d"):
                i += 4
                continue
            return False
        if in_brace:
            if not (c.isdigit() or c in ",}"):
                return False
            in_brace = c != "}"
        elif in_class:
            if c == "]":
                in_class = False
            elif c not in " \t\n\r":
                return False
        elif c == "(" and ws.startswith("(?:", i):
            i += 3
            continue
        elif c == "[":
            if ws[i + 1:i + 2] in ("^", "]"):
                return False
            in_class = True
        elif c == "{":
            in_brace = True
        elif c not in " \t\n\r()|?*+":
            return False
        i += 1
    return not in_class and not in_brace


def canonical_literal(v: Any, ws: str) -> str | None:
    """Regex for the JSON text of enum value `v` with its numbers spelled canonically."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return json_literal(v, ws)
    if isinstance(v, int):
        return lit(str(v))
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return None
        return lit(str(int(v))) if v.is_integer() else lit(repr(v))
    if isinstance(v, list):
        items = [canonical_literal(x, ws) for x in v]
        return rf"\[{ws}" + f"{ws},{ws}".join(items) + rf"{ws}\]" if v else rf"\[{ws}\]"
    if isinstance(v, dict):
        if not v:
            return rf"\{{{ws}\}}"
        items = [json_literal(k, ws) + f"{ws}:{ws}" + canonical_literal(x, ws) for k, x in v.items()]
        return rf"\{{{ws}" + f"{ws},{ws}".join(items) + rf"{ws}\}}"
    return json_literal(v, ws)


@lru_cache(maxsize=None)
def _canonical_class(base: type) -> type:
    class CanonicalEmitter(base):  # type: ignore[misc, valid-type]
        """The emitter writing numbers in CANONICAL_NUMBER spellings only."""

        number_lexeme = CANONICAL_NUMBER
        canonical_numbers = True

        def literal(self, v: Any) -> str | None:
            return canonical_literal(v, self.ws)

        def t_number(self, s: Node) -> str | None:
            out = super().t_number(s)
            if out is None or out == CANONICAL_NUMBER:
                return out
            return value_intersection(out, CANONICAL_NUMBER)

        def any_value(self, depth: int) -> str:
            self.plain.used_free_form = True
            return super().any_value(depth)

    return CanonicalEmitter


@lru_cache(maxsize=None)
def _lookahead_class(base: type) -> type:
    class LookaheadEmitter(base):  # type: ignore[misc, valid-type]
        """The emitter of lookahead sides: integers also with zero fractions ("5.0")."""

        lookahead_side = True

        def t_integer(self, s: Node) -> str | None:
            out = super().t_integer(s)
            return None if out is None else group(out) + r"(?:\.0+)?"

    return LookaheadEmitter


def _twin(em: Any, attr: str, make_class: Any) -> Any:
    """The emitter of class `make_class(type(em))` sharing `em`'s schema, made once and kept on `em`."""
    twin = getattr(em, attr, None)
    if twin is None:
        twin = make_class(type(em))(em.norm, em.ws, em.sink, property_order=em.property_order)
        twin.free_depth = em.free_depth  # (a sub_emitter's, for the values it checks)
        setattr(em, attr, twin)
    return twin


def lookahead_side(em: Any) -> Any:
    """The twin of emitter `em` that writes the regexes of lookaheads."""
    if getattr(em, "canonical_numbers", False):
        em = em.plain
    if getattr(em, "lookahead_side", False):
        return em
    return _twin(em, "lookahead_twin", _lookahead_class)


def canonical(em: Any) -> Any:
    """The twin of emitter `em` that spells numbers canonically (`em` itself if it does)."""
    if getattr(em, "canonical_numbers", False):
        return em
    twin = _twin(em, "canonical_twin", _canonical_class)
    twin.plain = em
    return twin


def lookahead_allowed(em: Any, keyword: str, ptr: str) -> bool:
    """Can this emitter write a lookahead? Reports (raises, or records in lenient mode) if not.
    In grammar mode the value with its lookaheads becomes a value lexeme (see `subtract`)."""
    if not json_whitespace_only(em.ws):
        em.unsupported(keyword, ptr, f"{keyword!r} needs a whitespace pattern that matches only JSON "
                       f"whitespace (space, tab, LF, CR), not {em.ws!r}")
        return False
    return True


def strict_merge(norm: Any, a: Any, b: Any) -> Any:
    """`norm.merge(a, b)`, or None when it cannot merge them (whatever the lenient setting)."""
    saved = norm.lenient
    norm.lenient = False
    try:
        return norm.merge(a, b)
    except UnsupportedSchemaError:
        return None
    finally:
        norm.lenient = saved


def _scalar_types(s: Any) -> list[str] | None:
    """The types of the values node `s` may accept when they are scalars only (so key order and
    depth limits cannot matter), else None."""
    if not isinstance(s, Node):
        return None
    vals = enum_values(s)
    if vals is not None:
        if any(isinstance(v, (list, dict)) for v in vals):
            return None
        return sorted({json_type_of(v) for v in vals})
    types = types_of(s)
    return types if set(types) <= _SCALARS else None


def subtract(em: Any, a: Any, negs: list[tuple[Any, str, str]]) -> str | None:
    """Regex of the values of `a` (a Node or True) that no schema of `negs` accepts; each neg is
    (schema or Node, keyword, JSON pointer), the keyword and pointer named when it is refused."""
    norm = em.norm
    if a is True:
        a = Node({}, negs[0][2] if negs else "#")
    if a is False:
        return None
    scalar = _scalar_types(a)
    ordered = scalar is None and writes_objects(norm, a, a.ptr)
    if ordered:
        skel = Conjunction([(skeleton(norm, schema, ptr), ptr) for schema, _, ptr in negs])
        declared = strict_merge(norm, a, norm.flatten(skel, a.ptr))
        a = a if declared is None else declared
    if a is False:
        return None
    sides: list[tuple[Any, str, str]] = []  # the lookahead sides: (node, keyword, pointer)
    for schema, kw, ptr in negs:
        n = norm.flatten(schema, ptr)
        if n is False:
            continue
        if n is True:
            return None
        if not lookahead_allowed(em, kw, ptr):
            continue
        if isinstance(n, RuleRef):
            em.unsupported(kw, ptr, f"{kw!r} of a recursive $ref is not supported")
            continue
        if scalar is not None:  # scalars: no key order or depth limit to agree on; n alone will do
            b = strict_merge(norm, Node({"type": scalar}, ptr), n)
            b = n if b is None else b
        else:
            # a keyword both use: the lookahead side needs only n's (a's holds already), and
            # merging both would spell their conjunction with one more lookahead
            both = tuple(k for k in _LOCAL if isinstance(n, Node) and k in n and k in a)
            b = strict_merge(norm, a.copy(drop=both) if both else a, n)
            if b is None:
                em.unsupported(kw, ptr, f"{kw!r}: its schema cannot be merged with the rest of the schema "
                               "(two different values of a keyword both sides use), so it cannot be checked exactly")
                continue
            if ordered and not order_compatible(norm, a, n, ptr, any_order=em.property_order == "any"):
                em.unsupported(kw, ptr, f"{kw!r}: its schema declares or requires properties the rest of the "
                               "schema does not declare, so the keys would not be in the order they are written")
                continue
        if b is not False:
            sides.append((b, kw, ptr))
    if not sides:
        return em.flat_value(a)
    # the values of `a` first: with none, there is nothing to subtract (and the lookahead sides
    # may cost far more to write, e.g. free-form objects unrolled deep for a const check)
    positive = canonical(em).flat_value(a)
    if positive is None:
        return None
    subtracted: list[str | None] = []
    for b, kw, ptr in sides:
        # the side of an if or of another oneOf branch is an alternative at the same place, where
        # uniqueItems may be checked on the values (value_checks); a `not` side is not
        outer, norm.unique_side = getattr(norm, "unique_side", False), kw != "not" and \
            (getattr(norm, "unique_side", False) or not getattr(em, "lookahead_side", False))
        try:
            subtracted.append(lookahead_side(em).flat_value(b))
        except UnsupportedSchemaError as exc:  # grammar mode: `kw` is what needs the lookahead's rules
            named = (kw, ptr) if em.sink is not None else (exc.keyword, exc.pointer)
            raise UnsupportedSchemaError(f"{exc} (needed for {kw!r} at {ptr})", *named) from None
        finally:
            norm.unique_side = outer
    out = value_difference(positive, alt(subtracted) if len(subtracted) > 1 else subtracted[0])
    if em.sink is None or out is None:
        return out
    try:  # grammar mode: the value with its lookaheads as rules from its exact automaton
        return em.sink.value_lexeme(out, negs[0][1], negs[0][2])
    except UnsupportedSchemaError as exc:
        em.unsupported(negs[0][1], negs[0][2], str(exc))
        return em.flat_value(a)  # lenient mode: the keyword ignored


def _is_hard(v: Any, strings: bool) -> bool:
    return (isinstance(v, (int, float, list, dict)) and not isinstance(v, bool)) or (strings and isinstance(v, str))


def _hard_not_enum(s: Node) -> list:
    """The values of `s.not_enum` the type handlers cannot exclude themselves."""
    strings = any(k in s for k in ("pattern", "format", "minLength", "maxLength"))
    return [v for v in s.not_enum if _is_hard(v, strings)]


def handles(s: Node) -> bool:
    """Does node `s` need `logic_value` (a `not`, `if`, or values to exclude by lookahead)?"""
    return "not" in s or "if" in s or bool(s.not_enum and _hard_not_enum(s))


def logic_value(em: Any, s: Node) -> str | None:
    """Regex for node `s` with the `not` or `if`/`then`/`else` the normaliser left in it."""
    norm = em.norm
    hard = _hard_not_enum(s) if s.not_enum else []
    if hard:
        base = s.copy()
        base.refs = []  # already on the reference stack
        strings = any(k in s for k in ("pattern", "format", "minLength", "maxLength"))
        base.not_enum = [v for v in s.not_enum if not _is_hard(v, strings)]
        return subtract(em, base, [({"enum": hard}, "not", f"{s.ptr}/not")])
    if "not" in s:
        base = s.copy(drop=("not",))
        base.refs = []  # already on the reference stack
        return _minus(em, base, s["not"], "not", s.kptr("not"))
    base = s.copy(drop=("if", "then", "else"))
    base.refs = []
    if all(constrains_nothing(s.get(k, True)) for k in ("then", "else")) or (norm.declared_draft or 7) < 7:
        return em.flat_value(base)  # `if` alone decides nothing; drafts before 7 do not know it
    if em.sink is not None and not s.groups:
        # an `if` on members' values with then/else that say which keys are there: one chain of
        # members (required_sets), not two copies of the object told apart by lookahead
        chain = _conditional_chain(em, s, base)
        if chain is not False:
            return chain
    ip = s.kptr("if")
    cond = norm.flatten(s["if"], ip)
    then = norm.flatten(s.get("then", True), s.kptr("then"))
    other = norm.flatten(s.get("else", True), s.kptr("else"))
    parts: list[str | None] = []
    for kw, branch, negated in (("then", then, False), ("else", other, True)):
        m = strict_merge(norm, base, branch)
        if m is not None and not negated:
            m = strict_merge(norm, m, cond)
        if m is None:
            em.unsupported(kw, s.kptr(kw), f"{kw!r} cannot be merged with 'if' and the rest of the schema "
                           "(two different values of one keyword)")
            return em.flat_value(base)  # lenient mode: if/then/else ignored
        if m is False:
            continue
        if negated:
            parts.append(_minus(em, m, cond, "if", ip))
        else:
            parts.append(em.any_value(em.free_depth) if m is True else em.flat_value(m))
    return union(em, parts, "if", ip)


def conditional_branches(em: Any, s: Node) -> list | None:
    """`s`'s if/then/else as the two sides of an anyOf: (if and then), and (not if, and else)
    with the `not` of a plain condition written out (negation: the member present with another
    value, a required name missing); None when the `if` is no plain condition."""
    norm = em.norm
    ip = s.kptr("if")
    cond = norm.flatten(s["if"], ip)
    if not isinstance(cond, Node) or cond.groups or cond.not_enum:
        return None
    branches = negation_branches(cond.kw, types_of(cond), VALIDATION, norm.draft)
    if not branches:
        return None  # (None: not a plain condition; []: nothing fails it)
    negated = Node({}, s.ptr)
    negated.groups = [Group("anyOf", branches, ip, 0)]
    then = norm.merge(cond, norm.flatten(s.get("then", True), s.kptr("then")))
    other = norm.merge(negated, norm.flatten(s.get("else", True), s.kptr("else")))
    return [then, other]


def _conditional_chain(em: Any, s: Node, base: Node) -> str | None | bool:
    """`s`'s if/then/else (`conditional_branches`) written as one chain of members by
    required_sets; False when that shape does not apply."""
    sides = conditional_branches(em, s)
    if sides is None:
        return False
    grouped = base.copy()
    props = base.get("properties")
    grouped.groups = [Group("anyOf", sides, s.kptr("if"), len(props) if isinstance(props, dict) else 0)]
    return required_sets.required_sets_value(em, grouped, base)


def _minus(em: Any, m: Any, cond: Any, keyword: str, ptr: str) -> str | None:
    """The values of `m` that `cond` rejects: by lookahead (`subtract`), or where that is refused
    and the condition has one, as its plain negation (`_without_condition`)."""
    norm = em.norm
    c = norm.flatten(cond, ptr)
    if isinstance(c, Node) and set(c.kw) & VALIDATION == {"not"} and not c.groups and not c.not_enum:
        both = strict_merge(norm, m, norm.flatten(c["not"], c.kptr("not")))  # not (not X) is X
        # (unless the merge keeps X as a `not` again: two patterns are merged as `not (not p)`)
        if both is not None and not (isinstance(both, Node) and "not" in both):
            return None if both is False else em.any_value(em.free_depth) if both is True else em.flat_value(both)
    narrowed = _within_closed(norm, m, c)
    if narrowed is False:
        return em.flat_value(m)  # no object of `m` meets the condition
    cond = cond if narrowed is None else narrowed
    try:
        return subtract(em, m, [(cond, keyword, ptr)])
    except UnsupportedSchemaError as exc:
        by_branch = _branch_by_branch(em, m, cond, keyword, ptr)
        if by_branch is not False:
            return by_branch
        plain = _without_condition(em.norm, m, cond, ptr)
        if plain is None:
            raise
        first = exc
    if plain is False:
        return None
    try:
        return em.flat_value(plain) if isinstance(plain, Node) else em.any_value(em.free_depth)
    except UnsupportedSchemaError:
        # the plain negation's parts have pointers of their own (`.../not/anyOf/1/contains`),
        # which the user's schema does not hold: the refusal is the lookahead's, at `ptr`
        raise first from None


def _branch_by_branch(em: Any, m: Any, cond: Any, keyword: str, ptr: str) -> str | None | bool:
    """(A or B) and not C as (A and not C) or (B and not C), for `m` of one anyOf group, or one
    oneOf group whose branches take different types (then at most one holds either way): each
    branch is narrower than their union (a closed object, `_within_closed`). False when `m` is
    not of that shape or a branch is refused (the caller's other ways then)."""
    if not isinstance(m, Node) or len(m.groups) != 1 or m.not_enum:
        return False
    kind, subs, gptr, _ = m.groups[0]
    if not isinstance(subs, list) or not 1 < len(subs) <= 8:
        return False
    rest = m.copy(keep_groups=False)
    rest.refs = []
    branches = [em.norm.merge(rest, em.norm.flatten(sub, f"{gptr}/{i}")) for i, sub in enumerate(subs)]
    if any(isinstance(b, RuleRef) for b in branches):
        return False
    if kind == "oneOf":
        seen: set = set()
        for b in branches:
            types = set() if b is False else _kinds(b if isinstance(b, Node) else Node({}, gptr))
            if types & seen:
                return False
            seen |= types
    parts = []
    try:
        for b in branches:
            if b is not False:
                parts.append(_minus(em, b, cond, keyword, ptr) if isinstance(b, Node) else
                             _minus(em, Node({}, gptr), cond, keyword, ptr))
    except UnsupportedSchemaError:
        return False
    return union(em, parts, keyword, ptr)


_PLAIN_OBJECT = frozenset({"type", "properties", "required", "additionalProperties"})


def _kinds(n: Node) -> set[str]:
    """The JSON types of node `n`, integers counted as numbers."""
    return {"number" if t == "integer" else t for t in types_of(n)}


def _within_closed(norm: Any, m: Any, c: Any) -> Any:
    """Condition `c` (flattened) as it reads the values of `m`: of its one anyOf/oneOf, the branches of
    m's types; then, when `m` takes closed objects only, without the members `m` forbids (they
    are never there: travis' secret `{secure}` against a hook object whose `urls` no plain
    negation writes), and its additionalProperties as a member per name of m's it does not
    declare. False when `c` holds on no value of `m` (no branch left, or a required name `m`
    forbids); None when nothing changes or the shapes are other ones."""
    if not isinstance(m, Node) or m.groups:
        return None
    changed = False
    if isinstance(c, Node) and len(c.groups) == 1 and not c.not_enum and not set(c.kw) & VALIDATION:
        # a group's branches that take none of m's types never hold on m's values: only the
        # others count (one left: the condition is that branch; none: it never holds)
        own = _kinds(m)
        kind, subs, gptr, _ = c.groups[0]
        meet = []
        for i, sub in enumerate(subs if isinstance(subs, list) else [None]):
            b = norm.flatten(sub, f"{gptr}/{i}") if sub is not None else True
            if not isinstance(b, Node) or own & _kinds(b):
                meet.append(b)
        if not meet:
            return False
        if len(meet) == 1 and isinstance(meet[0], Node):
            c, changed = meet[0], True
    if isinstance(c, Node) and "type" in c and not c.groups and not _kinds(m) & _kinds(c):
        return False  # no value of m's types has the condition's
    if types_of(m) != ["object"] or m.get("additionalProperties") is not False or m.get("patternProperties") \
            or not isinstance(m.get("properties", {}), dict):
        return c if changed else None
    if not isinstance(c, Node) or c.groups or c.not_enum or (set(c.kw) & VALIDATION) - _PLAIN_OBJECT \
            or "object" not in types_of(c) or not isinstance(c.get("properties", {}), dict):
        return c if changed else None
    allowed = [k for k, v in m.get("properties", {}).items() if v is not False]
    if any(isinstance(r, str) and r not in allowed for r in c.get("required", [])):
        return False
    props = c.get("properties", {})
    kept = {k: v for k, v in props.items() if k in allowed}
    kw = {**c.kw, "properties": kept}
    extra = kw.pop("additionalProperties", True)
    if extra is not True and extra != {}:
        # the condition's other keys are m's names it does not declare: each as a member of its
        # own (plain negation then says "one of them is there", which additionalProperties cannot)
        kept.update((k, extra) for k in allowed if k not in props)
    elif len(kept) == len(props):
        return c if changed else None
    return Node(kw, c.ptr)


def _without_condition(norm: Any, m: Any, cond: Any, ip: str) -> Any:
    """`m` and not `cond` as a plain schema when the condition only tests types, required names,
    member and item values (module negation): an anyOf, no lookahead; None otherwise. Taken
    where the lookahead is refused (too long a value lexeme, too many states): where both
    work, the lookahead's one value lexeme keeps apart what the union's terminals may not."""
    negated = plain_negation(norm, cond, ip, 0)
    if negated is None:
        return None
    if negated is False:
        return False
    if isinstance(m, Node) and writes_objects(norm, m, m.ptr):
        # the condition's names declared at every depth, as `subtract` does: one key order either way
        declared = strict_merge(norm, m, norm.flatten(skeleton(norm, cond, ip), m.ptr))
        m = m if declared is None else declared
    return strict_merge(norm, m, norm.flatten(negated, ip))


_SCALAR_KEYWORDS = frozenset({"enum", "const"}) | TYPE_KEYWORDS["string"] | TYPE_KEYWORDS["number"]
_MAX_NEGATED_ONE_OF = 4  # oneOf branches whose negation is written out (one part per pair)


def plain_negation(norm: Any, x: Any, ptr: str, depth: int) -> Any:
    """A raw schema accepting exactly what `x` rejects, without `not`'s lookahead where that is
    plain: a Node is the conjunction of its own keywords (module negation), its excluded values
    and its anyOf groups, so its negation is the anyOf of theirs, and an anyOf's is the allOf of
    its branches'; a oneOf's adds each pair of its branches. None when some part has no plain
    negation."""
    if depth > 4:
        return None
    n = norm.flatten(x, ptr) if not isinstance(x, Node) else x
    if n is True or n is False:
        return not n
    if not isinstance(n, Node):
        return None
    parts: list = []
    # keywords on scalar values (an enum, a string's pattern, a number's bounds) stay one `not` of
    # their own, of the node's types: a small lookahead (bitbucket's `on-ask`, an enum of strings
    # or an object, the negation of an agent's permissions)
    scalar = {k: v for k, v in n.kw.items() if k in _SCALAR_KEYWORDS}
    kw = {k: v for k, v in n.kw.items() if k not in _SCALAR_KEYWORDS}
    if scalar and depth == 0 and not any(k in VALIDATION for k in kw if k != "type") and not n.groups:
        return None  # the same `not` again: the lookahead's (as a part of a larger negation, it is small)
    if any(k in VALIDATION for k in kw):
        branches = negation_branches(kw, types_of(n), VALIDATION, norm.draft)
        if branches is None:
            return None
        parts.append({"anyOf": branches} if branches else False)
    if scalar:
        parts.append({"not": scalar, **({"type": n.kw["type"]} if "type" in n.kw else {})})
    if n.not_enum:
        parts.append({"enum": list(n.not_enum)})
    for kind, subs, gptr, _ in n.groups:
        if not isinstance(subs, list) or not subs or (kind != "anyOf" and len(subs) != 1
                                                       and (len(subs) > _MAX_NEGATED_ONE_OF or norm.resolver.embedded)):
            return None
        each = [plain_negation(norm, sub, f"{gptr}/{i}", depth + 1) for i, sub in enumerate(subs)]
        if any(e is None for e in each):
            return None
        parts.append({"allOf": each})
        if kind == "oneOf" and len(subs) > 1:
            # a oneOf also fails when two of its branches hold (the branches as written: one
            # document, one base URI, so they mean the same wherever they are read)
            parts.extend({"allOf": [subs[i], subs[j]]} for i, j in itertools.combinations(range(len(subs)), 2))
    parts = [p for p in parts if p is not False]
    if not parts:
        return False  # `x` accepts every value
    return parts[0] if len(parts) == 1 else {"anyOf": parts}


def union(em: Any, parts: list[str | None], keyword: str, ptr: str) -> str | None:
    """`alt(parts)`; in grammar mode one value lexeme when a part is one (RuleSink.union)."""
    out = alt(parts)
    if em.sink is None or out is None:
        return out
    kept = [p for p in dict.fromkeys(parts) if p is not None]
    return em.sink.union(kept, keyword, ptr) or out


# ---- key order -------------------------------------------------------------------------------

def _parts(norm: Any, n: Any, ptr: str, level: int) -> list | None:
    """`n` flattened, with its anyOf/oneOf branches and if/then/else schemas (each of which may
    end up merged into the node); None when that cannot be decided."""
    if level > _MAX_LEVEL:
        return None
    n = norm.flatten(n, ptr)
    if isinstance(n, RuleRef):
        return None
    if not isinstance(n, Node):
        return []
    out = [n]
    for g in n.groups:
        if not isinstance(g.subs, list):
            return None
        for i, sub in enumerate(g.subs):
            more = _parts(norm, sub, f"{g.ptr}/{i}", level + 1)
            if more is None:
                return None
            out.extend(more)
    for k in ("if", "then", "else"):
        if k in n:
            more = _parts(norm, n[k], n.kptr(k), level + 1)
            if more is None:
                return None
            out.extend(more)
    return out


def skeleton(norm: Any, n: Any, ptr: str, level: int = 0) -> dict:
    """A schema accepting every value that declares, at every depth, the properties `n` (or a
    branch of it) declares or requires: merged into the positive side of a subtraction, it puts
    those names where the merged lookahead side expects them."""
    parts = _parts(norm, n, ptr, level)
    props: dict[str, list] = {}
    items: list = []
    for p in parts or []:
        pp = p.get("properties")
        for k, sub in (pp.items() if isinstance(pp, dict) else ()):
            props.setdefault(k, []).append((sub, p.member_ptr("properties", k)))
        req = p.get("required")
        for r in req if isinstance(req, list) else ():
            if isinstance(r, str):
                props.setdefault(r, [])
        if isinstance(p.get("items"), (dict, Node)):
            items.append((p["items"], p.kptr("items")))
    out: dict = {}
    if props:
        out["properties"] = {k: Conjunction([(skeleton(norm, sub, sp, level + 1), sp) for sub, sp in subs])
                             for k, subs in props.items()}
    if items:
        out["items"] = Conjunction([(skeleton(norm, sub, sp, level + 1), sp) for sub, sp in items])
    return out


def _sub_schemas(p: Node) -> list[tuple[str, Any]]:
    """(where, schema) of the sub-schemas of `p` whose values nest inside its own."""
    out: list[tuple[str, Any]] = []
    for k in ("additionalProperties", "propertyNames", "additionalItems", "contains", "items", "not"):
        v = p.get(k)
        if isinstance(v, list):
            out.extend((f"{k}/{i}", x) for i, x in enumerate(v))
        elif v is not None:
            out.append((k, v))
    for k in ("patternProperties", "properties"):
        if isinstance(p.get(k), dict):
            out.extend((f"{k}/{name}", x) for name, x in p[k].items())
    if isinstance(p.get("prefixItems"), list):
        out.extend((f"prefixItems/{i}", x) for i, x in enumerate(p["prefixItems"]))
    return out


def order_compatible(norm: Any, a: Any, n: Any, ptr: str, level: int = 0, any_order: bool = False) -> bool:
    """Does merging schema `n` into node `a` leave the key order of every object as `a`'s regex
    writes it? True when every property `n` (or a branch of it) declares or requires, at any
    depth, is already declared by `a` at that place (or required there, for required names).
    With `any_order` (property_order="any": both sides take every order) only enum objects,
    written in their own order, are a concern."""
    parts = _parts(norm, n, ptr, level)
    if parts is None:
        return False
    if isinstance(a, dict):
        a = norm.flatten(a, ptr)
    if a is False:
        return True
    if isinstance(a, Node) and not writes_objects(norm, a, a.ptr):
        return True  # a writes no object anywhere: no key order to agree on
    a_node = a if isinstance(a, Node) else None
    a_props = a_node.get("properties", {}) if a_node is not None else {}
    a_props = a_props if isinstance(a_props, dict) else {}
    a_req = a_node.get("required", []) if a_node is not None else []
    a_req = a_req if isinstance(a_req, list) else []
    for p in parts:
        props = p.get("properties", {})
        req = p.get("required", [])
        if not isinstance(props, dict) or not isinstance(req, list):
            return False
        if not any_order and any(k not in a_props for k in props):
            return False
        if not any_order and any(isinstance(r, str) and r not in a_props and r not in a_req for r in req):
            return False
        vals = enum_values(p)
        if vals is not None and any(_has_object(v) for v in vals):
            return False  # an enum object is written in its own key order
        for where, sub in _sub_schemas(p):
            sp = f"{p.ptr}/{where}"
            name = where[len("properties/"):]
            if where.startswith("properties/") and name in a_props:
                ok = order_compatible(norm, a_props[name], sub, sp, level + 1, any_order)
            elif where == "items" and a_node is not None and isinstance(a_node.get("items"), (dict, bool)):
                ok = order_compatible(norm, a_node["items"], sub, sp, level + 1, any_order)
            elif where == "not":
                ok = True  # a `not` inside n is its own lookahead: it does not reorder n's keys
            elif where.startswith(("patternProperties/", "additionalProperties")) and _closed(a_node):
                # a closed a: only its declared names appear, each with a's schema for it
                names = [nm for nm in a_props
                         if where == "additionalProperties" or _may_match(where[len("patternProperties/"):], nm)]
                ok = all(order_compatible(norm, a_props[nm], sub, sp, level + 1, any_order) for nm in names)
            else:
                ok = order_compatible(norm, True, sub, sp, level + 1, any_order)
            if not ok:
                return False
    return True


def _closed(a: Node | None) -> bool:
    """Does node `a` admit only its declared property names?"""
    return a is not None and a.get("additionalProperties") is False and not a.get("patternProperties")


def _may_match(pattern: str, name: str) -> bool:
    try:
        return ecma_search(pattern, name)
    except PatternError:
        return True


def writes_objects(norm: Any, a: Any, ptr: str, level: int = 0) -> bool:
    """May the regex of `a` write an object anywhere in a value? (If not, key order cannot
    matter.) Conservative: True when unsure."""
    if level > _MAX_LEVEL:
        return True
    a = norm.flatten(a, ptr)
    if a is True or isinstance(a, RuleRef):
        return True
    if a is False:
        return False
    vals = enum_values(a)
    if vals is not None:
        return any(isinstance(v, dict) or (isinstance(v, list) and _has_any_object(v)) for v in vals)
    types = set(types_of(a))
    for g in a.groups:  # every branch (within a's types) object-free: so is a
        if isinstance(g.subs, list) and all(
                (m := strict_merge(norm, Node({"type": sorted(types)}, g.ptr), norm.flatten(sub, f"{g.ptr}/{i}")))
                is not None and not writes_objects(norm, m, f"{g.ptr}/{i}", level + 1)
                for i, sub in enumerate(g.subs)):
            return False
    if "object" in types or ("array" in types and a.groups):
        return True
    if "array" in types:
        subs = [(a.get("items", True), a.kptr("items"))]
        if isinstance(subs[0][0], list):
            subs = [(x, f"{subs[0][1]}/{i}") for i, x in enumerate(subs[0][0])] + [
                (a.get("additionalItems", True), a.kptr("additionalItems"))]
        subs += [(x, f"{a.kptr('prefixItems')}/{i}") for i, x in enumerate(a.get("prefixItems") or [])]
        return any(writes_objects(norm, x, xp, level + 1) for x, xp in subs)
    return False


def _has_any_object(v: Any) -> bool:
    if isinstance(v, dict):
        return True
    return isinstance(v, list) and any(_has_any_object(x) for x in v)


def _has_object(v: Any) -> bool:
    """Does JSON value `v` contain an object with two or more keys?"""
    if isinstance(v, dict):
        return len(v) > 1 or any(_has_object(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_object(x) for x in v)
    return False
