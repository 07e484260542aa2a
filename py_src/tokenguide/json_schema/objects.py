"""Object emission: properties, required, additional/pattern properties, property counts.

With property_order="schema" (the default), declared properties come in the schema's order,
then undeclared required names, then (when allowed) any number of other properties; with "any"
(`any_order`), all of them in any order: with the value checks, a repetition of members whose keys
are checked beside the grammar (module member_keys), else written out per set of keys seen. Other members' keys and values come from `keys`.
Functions take the `Emitter` (`em`) for sub-values.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import UnsupportedSchemaError
from .any_order import any_order_body, member_loop
from .keys import extra_member
from .logic import json_whitespace_only
from .member_keys import KeySpec, node_owners
from .normalize import Node
from .patterns import PatternError, ecma_search
from .required_sets import sets_body
from .text import MAX_REGEX_CHARS, alt, canon, cat, compact, group, lit, opt, rep

__all__ = ["object_regex"]


_INLINE_OPTIONALS = 3  # in grammar mode, more optional members than this become rules of their own
# in grammar mode, an object with optional members whose members' text is longer than this becomes
# rules (one rule per distinct body): written inline, objects nested in objects repeat their
# members' text (all-optional members twice) and $ref targets met many times are copied each time
_INLINE_CHARS = 2_000


class _TooBig(Exception):
    """The counted-members regex passed the size limit."""


def object_regex(em: Any, s: Node, required_sets: list | None = None,
                 key_names: dict[str, str] | None = None, cells: dict | None = None) -> str | None | bool:
    """Regex for the objects node `s` accepts; with `required_sets` (groups of key-presence
    branches, module required_sets), those holding every group (False past its bound);
    `key_names`: the key written for each member whose name is not its key (a copy); `cells`:
    per member name, its values as classes (key, schema) the conditions name instead of values."""
    ws = em.ws
    props = s.get("properties", {})
    if not isinstance(props, dict):
        raise UnsupportedSchemaError(f"properties must be an object (at {s.kptr('properties')})", "properties",
                                     s.kptr("properties"))
    required = s.get("required", [])
    if not isinstance(required, list):
        required = []
    pprops = s.get("patternProperties") or {}
    addl = s.get("additionalProperties", True)
    names = list(props)  # declared names, then required names not declared
    for r in required:
        if isinstance(r, str) and r not in props:
            names.append(r)
    schemas: list[Any] = []
    ptrs: list[str] = []
    for n in names:
        if n in props:
            sch, p = props[n], s.member_ptr("properties", n)
        else:
            sch, p = None, s.kptr("required")
        matching = []
        for pat, psch in pprops.items():
            try:
                hit = ecma_search(pat, n)
            except PatternError as exc:
                em.unsupported("patternProperties", s.kptr("patternProperties"), str(exc))
                hit = False
            if hit:
                matching.append(psch)
        if sch is None:
            sch = {"allOf": matching} if matching else addl
        elif matching:
            sch = {"allOf": [sch] + matching}
        schemas.append(sch)
        ptrs.append(p)
    if "propertyNames" in s and s["propertyNames"] not in (True, {}):
        try:
            pn_re = em.sub_emitter().value(s["propertyNames"], s.kptr("propertyNames"))
        except UnsupportedSchemaError as exc:
            em.unsupported("propertyNames", s.kptr("propertyNames"), str(exc))
        else:
            for i, n in enumerate(names):
                if pn_re is None or not re.fullmatch(pn_re, compact(n)):
                    schemas[i] = False
    members: list[str | None] = []
    req = []
    literals = _literals(required_sets)
    classes: dict[int, list[tuple[str, str | None]]] = {}
    for i, (n, sch, p) in enumerate(zip(names, schemas, ptrs)):
        key = lit(json.dumps((key_names or {}).get(n, n), ensure_ascii=False))
        if cells and n in cells:  # its values apart by which branches take them
            found = [(_member_value(em, sub, p), ck) for ck, sub in cells[n]]
            classes[i] = [(f"{key}{ws}:{ws}{v}", ck) for v, ck in found if v is not None]
        elif n in literals:  # its values apart by the conditions branches put on them
            classes[i] = [(f"{key}{ws}:{ws}{v}", ck) for v, ck in _value_classes(em, sch, p, literals[n]) if v is not None]
        v = _member_value(em, sch, p)
        if em.sink is not None and v is not None and _long_count(em.sink, v):
            v = em.sink.rule(v)  # its own terminal, its automaton checked once, not once per key
        members.append(None if v is None else f"{key}{ws}:{ws}{v}")
        req.append(n in required)
    extra = extra_member(em, s, names, addl, pprops)
    min_p = int(s.get("minProperties", 0))
    max_p = s.get("maxProperties")
    max_p = None if max_p is None else int(max_p)
    if em.property_order == "any" and len(members) + (extra is not None) > 1:
        taken, why = _keys_beside(em, s, names, members, req, extra, min_p, max_p)
        if taken:
            return _wrap(em, why)
        return _wrap(em, any_order_body(em, names, members, req, extra, min_p, max_p, s.ptr, why))
    counted = bool(min_p) or max_p is not None
    if em.sink is not None and (extra is not None or counted):
        # grammar mode: each member's key stays whole in its terminal (else the quote all keys
        # start with may become a terminal that other keys' terminals extend)
        members = [None if m is None else em.sink.mark(i) + m for i, m in enumerate(members)]
        classes = {i: [(em.sink.mark(i) + m, ck) for m, ck in cs] for i, cs in classes.items()}
        extra = None if extra is None else em.sink.mark(len(members)) + extra
    if required_sets is not None:
        body = sets_body(em, names, members, req, extra, required_sets, classes)
        if body is False:
            return False
    elif counted:
        body = _members_counted(em, members, req, extra, min_p, max_p,
                                s.kptr("minProperties" if min_p else "maxProperties"))
    else:
        body = members_chain(em.sep, members, req, extra, em.sink)
    return _wrap(em, body)


def _keys_beside(em: Any, s: Node, names: list[str], members: list[str | None], req: list[bool],
                 extra: str | None, min_p: int, max_p: int | None) -> tuple[bool, str | None]:
    """(True, the object body as a repetition of members, or None when no object qualifies)
    when the value checks take the keys seen of this any-order object (module member_keys);
    else (False, why not, or None where no value checks run: build_regex_from_schema, the items
    of uniqueItems, membership checks)."""
    take = getattr(em.norm.unique_drops, "take_object", None)
    if take is None:
        return False, None
    if not json_whitespace_only(em.ws):
        return False, "the whitespace pattern may match more than JSON whitespace"
    if getattr(em, "lookahead_side", False):
        return False, "it is inside a lookahead (not, if, an overlapping oneOf branch)"
    if any(m is None and r for m, r in zip(members, req)):
        return True, None
    spec = KeySpec(tuple(n for n, m in zip(names, members) if m is not None),
                   frozenset(n for n, r in zip(names, req) if r), min_p, max_p, extra is not None)
    if (max_p is not None and max_p < min_p) or not spec.feasible(frozenset(), 0):
        return True, None
    why = take(node_owners(s), spec)
    if why is not None:
        return False, why
    if max_p == 0:
        return True, ""
    return True, member_loop(em, members, extra, nonempty=min_p > 0 or any(req))


def _literals(required_sets: list | None) -> dict[str, dict[str, Any]]:
    """Per member name, the values (canonical text -> value) that branches' value conditions
    name (required_sets.Literal, the third part of a condition)."""
    out: dict[str, dict[str, Any]] = {}
    for branches, _ in required_sets or []:
        for branch in branches:
            for cond in branch:
                for literal in (cond[2] if len(cond) > 2 else ()):
                    out.setdefault(literal.name, {}).update((canon(v), v) for v in literal.values)
    return out


def _member_value(em: Any, sch: Any, ptr: str) -> str | None:
    """A member's value regex."""
    return em.value(sch, ptr)


def _value_classes(em: Any, sch: Any, ptr: str, named: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    """The member's values split apart: one class per value the conditions name (its canonical
    text) and the rest (None), each as a value regex (None when no value is left)."""
    out = [(_member_value(em, {"allOf": [sch, {"const": v}]}, ptr), k) for k, v in sorted(named.items())]
    out.append((_member_value(em, {"allOf": [sch, {"not": {"enum": [named[k] for k in sorted(named)]}}]}, ptr), None))
    return out


_LONG_COUNT = 32  # a value regex repeating something up to this many times or more
_COUNT = re.compile(r"(?<!\\)\{(\d+)(?:,(\d*))?\}")


def _long_count(sink: Any, value: str) -> bool:
    """Does the value regex (without rules) count a repeat to _LONG_COUNT or more (such as a
    string's maxLength)? Merged with a member's key, its automaton (states per count) would be
    built and checked once for every key that shares the value (Snowplow: 100 keys, 8 s)."""
    if any(ch in sink.names for ch in value):
        return False
    return any(max(int(lo), int(hi or 0)) >= _LONG_COUNT for lo, hi in _COUNT.findall(value))


def _wrap(em: Any, body: str | None) -> str | None:
    """The object regex around a body ("" = only the empty object; None = no object)."""
    if body is None:
        return None
    if body == "":
        return r"\{" + em.close_object  # one optional space, as between any two tokens
    return rf"\{{{em.ws}" + body + em.close_object


def members_chain(sep: str, members: list[str | None], req: list[bool], extra: str | None,
                  sink: Any = None) -> str | None:
    """Object body without count limits, linear in the number of properties (`sep`: separator;
    `sink`: grammar mode, where many optional members become left-linear rules)."""
    for m, r in zip(members, req):
        if m is None and r:
            return None
    items = [(m, r) for m, r in zip(members, req) if m is not None]
    optionals = sum(not r for _, r in items)
    long = sink is not None and sum(len(m) for m, _ in items) > _INLINE_CHARS
    if sink is not None and optionals > (0 if long else _INLINE_OPTIONALS):
        return sink.object_members(sep, items, extra)
    tail_extra = rep(sep + extra, 0, None) if extra is not None else ""
    first_req = next((i for i, (_, r) in enumerate(items) if r), None)
    if first_req is not None:
        out = []
        for m, _ in items[:first_req]:
            out.append(opt(m + sep))
        out.append(items[first_req][0])
        for m, r in items[first_req + 1:]:
            out.append(sep + m if r else opt(sep + m))
        out.append(tail_extra)
        return "".join(out)
    # all optional: G_k = (G_{k-1}(sep p_k)? | p_k)
    g: str | None = None
    for m, _ in items:
        g = m if g is None else f"(?:{g}{opt(sep + m)}|{m})"
    if extra is not None:
        head = extra if g is None else f"(?:{g}|{extra})"
        return opt(head + tail_extra)
    return "" if g is None else opt(g)


def _members_counted(em: Any, members: list[str | None], req: list[bool], extra: str | None,
                     min_p: int, max_p: int | None, ptr: str) -> str | None:
    """Object body with minProperties/maxProperties: a count automaton over the members, its
    continuation after (member i, count c) written out, or on the engine path one rule each
    (linear in the members); a regex too large to write out counts with lookaheads instead."""
    sep = em.sep
    n = len(members)
    cap = max(min_p, max_p if max_p is not None else 0, 1)
    memo: dict[tuple[int, int], str | None] = {}
    size = [0]

    def R(i: int, c: int) -> str | None:
        key = (i, min(c, cap))
        if key in memo:
            return memo[key]
        if max_p is not None and c > max_p:
            return None
        if i == n:
            if extra is None:
                res = "" if c >= min_p else None
            elif max_p is not None and max(0, min_p - c) > max_p - c:
                res = None  # more extra members needed than allowed (minProperties > maxProperties)
            else:
                e_min = max(0, min_p - c)
                e_max = None if max_p is None else max_p - c
                if c == 0:
                    if e_max == 0:
                        res = ""
                    elif e_min == 0:
                        res = opt(extra + rep(sep + extra, 0, None if e_max is None else e_max - 1))
                    else:
                        res = extra + rep(sep + extra, e_min - 1, None if e_max is None else e_max - 1)
                else:
                    res = rep(sep + extra, e_min, e_max)
        else:
            m = members[i]
            take = None if m is None else cat("" if c == 0 else sep, m, R(i + 1, c + 1))
            skip = None if req[i] else R(i + 1, c)
            res = alt([take, skip])
        if res and em.sink is not None:
            res = em.sink.rule(res)  # shared: each continuation written once
        if res is not None:
            size[0] += len(res)
            if size[0] > MAX_REGEX_CHARS:
                raise _TooBig()
        memo[key] = res
        return res

    try:
        return R(0, 0)
    except _TooBig:
        # the lookaheads below find the members by their separators: whitespace must be JSON's
        # (grammar mode is not expected here: its rules keep the size linear)
        if em.sink is not None or not json_whitespace_only(em.ws):
            kw = ptr.rsplit("/", 1)[-1]
            em.unsupported(kw, ptr, "minProperties/maxProperties with this many properties make the regex too large "
                           "(counting them with lookaheads needs a whitespace pattern matching JSON whitespace only)")
            return members_chain(em.sep, members, req, extra)
    return _counted_by_lookahead(em, members, req, extra, min_p, max_p)


def _counted_by_lookahead(em: Any, members: list[str | None], req: list[bool], extra: str | None,
                         min_p: int, max_p: int | None) -> str | None:
    """The regex path's object body with minProperties/maxProperties as lookaheads at its start
    ("min_p members follow", "no max_p + 1 members follow") before the uncounted members.
    Exact: each member is a key and a whole JSON value, none a prefix of a member and its
    separator, so `(?:M sep){k}` (M: any member's regex) matches only over k real members."""
    chain = members_chain(em.sep, members, req, extra)
    if chain is None:
        return None
    if max_p is not None and max_p < min_p:
        return None
    any_m = alt([m for m in members if m is not None] + ([extra] if extra is not None else []))
    if any_m is None:  # no member can occur: only the empty object
        return "" if min_p == 0 else None
    m, sep = group(any_m), em.sep
    looks = ""
    if min_p:
        looks += f"(?={rep(m + sep, min_p - 1, min_p - 1)}{m})"
    if max_p is not None:
        looks += f"(?!{rep(m + sep, max_p, max_p)}{m})"
    if chain == "":
        return None if min_p else ""
    return looks + (chain if looks == "" else f"(?:{chain})")
