"""Finite value sets of JSON Schema subschemas, for uniqueItems (module `arrays`): every value a
schema accepts with its spelling in the item regex, when they are few (enum/const, booleans,
null, bounded integer ranges, arrays and closed objects of those), and JSON Schema equality
as a key (1 == 1.0, true != 1, key order ignored)."""

from __future__ import annotations

import itertools
import json
import math
import re
from fractions import Fraction
from typing import Any

from .normalize import Node, enum_values, types_of
from .text import ALL_TYPES, alt, compact, group, json_literal, json_type_of, lit, nesting

__all__ = ["MAX_UNIQUE_VALUES", "finite_values", "type_classes", "value_key"]

MAX_UNIQUE_VALUES = 256  # distinct values an item of a uniqueItems array may take


def value_key(v: Any) -> Any:
    """A hashable key equal for exactly the JSON values JSON Schema calls equal."""
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        return ("num", Fraction(v))
    if isinstance(v, str):
        return ("str", v)
    if isinstance(v, list):
        return ("arr", tuple(value_key(x) for x in v))
    if isinstance(v, dict):
        return ("obj", frozenset((k, value_key(x)) for k, x in v.items()))
    raise TypeError(type(v).__name__)


def finite_values(em: Any, schema: Any, ptr: str) -> dict | None:
    """{value_key: spelling regex} of every value the (sub-)schema accepts, or None when they
    are not a small finite set. Spellings are the item regex's: enum numbers every plain
    spelling (2, 2.0), integers of a range their digits, arrays/objects their members'."""
    cands = _candidates(em, schema, ptr, 0)
    if cands is None:
        return None
    flat = em.norm.flatten(schema, ptr)
    if flat is False:
        return {}
    depth = max((nesting(v) for v, _ in cands), default=0)
    check = em.sub_emitter(depth).flat_value(flat) if isinstance(flat, Node) else None
    rx = None if check is None else re.compile(check)
    out: dict = {}
    for v, spell in cands:
        if rx is not None and rx.fullmatch(compact(v)):
            key = value_key(v)
            out[key] = alt([out.get(key), spell])
    return out


def type_classes(em: Any, schema: Any, ptr: str) -> set[str]:
    """The JSON types the (sub-)schema's values may have, integer counted as number (values of
    different classes are never equal): a superset, all types when it cannot tell."""
    flat = em.norm.flatten(schema, ptr)
    if flat is False:
        return set()
    if not isinstance(flat, Node) or flat.groups:
        return set(ALL_TYPES)
    values = enum_values(flat)
    found = {json_type_of(v) for v in values} if values is not None else set(types_of(flat))
    return {"number" if t == "integer" else t for t in found}


def _candidates(em: Any, schema: Any, ptr: str, level: int) -> list[tuple[Any, str]] | None:
    """A finite superset of the values of `schema` with spellings, or None."""
    if level > 4:
        return None
    flat = em.norm.flatten(schema, ptr)
    if flat is False:
        return []
    if not isinstance(flat, Node) or flat.groups or not flat.constrains():
        return None
    ws = em.ws
    values = enum_values(flat)
    if values is not None:
        out = [(v, _number(em, json_literal(v, ws)) if json_type_of(v) in ("integer", "number")
                else json_literal(v, ws)) for v in values]
        return None if len(out) > MAX_UNIQUE_VALUES or any(sp is None for _, sp in out) else out  # type: ignore
    out: list[tuple[Any, str]] = []
    for t in types_of(flat):
        if t == "null":
            out.append((None, "null"))
        elif t == "boolean":
            out.extend([(True, "true"), (False, "false")])
        elif t == "integer":
            ints = _int_range(flat)
            if ints is None:
                return None
            out.extend((i, _number(em, lit(str(i)))) for i in ints)
        elif t == "string":
            if flat.get("maxLength") != 0:
                return None
            out.append(("", '""'))
        elif t == "array":
            more = _array_candidates(em, flat, level)
            if more is None:
                return None
            out.extend(more)
        elif t == "object":
            more = _object_candidates(em, flat, level)
            if more is None:
                return None
            out.extend(more)
        else:  # number: the reals of a range are not finite
            return None
        if len(out) > MAX_UNIQUE_VALUES:
            return None
    return out


def _number(em: Any, regex: str | None) -> str | None:
    """A number's spelling; in grammar mode a number rule's placeholder, as the emitter writes them."""
    return regex if regex is None or em.sink is None else em.sink.number(regex)


def _int_range(s: Node) -> range | None:
    lo, lo_x, hi, hi_x = _bounds(s)
    if lo is None or hi is None:
        return None
    a = math.ceil(lo) + (1 if lo_x and lo == math.ceil(lo) else 0)
    b = math.floor(hi) - (1 if hi_x and hi == math.floor(hi) else 0)
    if b - a + 1 > MAX_UNIQUE_VALUES:
        return None
    return range(a, b + 1)


def _bounds(s: Node) -> tuple[Any, bool, Any, bool]:
    def num(k: str) -> Any:
        v = s.get(k)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None

    lo, hi = num("minimum"), num("maximum")
    lo_x = s.get("exclusiveMinimum") is True
    hi_x = s.get("exclusiveMaximum") is True
    emin, emax = num("exclusiveMinimum"), num("exclusiveMaximum")
    if emin is not None and (lo is None or emin >= lo):
        lo, lo_x = emin, True
    if emax is not None and (hi is None or emax <= hi):
        hi, hi_x = emax, True
    return lo, lo_x, hi, hi_x


def _object_candidates(em: Any, s: Node, level: int) -> list[tuple[Any, str]] | None:
    """Finite objects: no other keys than the declared ones, each with finite values, written in
    declared order (property_order "schema"); the node's regex filters required and the rest."""
    ws = em.ws
    empty = ({}, rf"\{{{ws}\}}")
    if s.get("maxProperties") == 0:
        return [empty]
    props = s.get("properties") or {}
    if (s.get("additionalProperties", True) is not False or s.get("patternProperties")
            or em.property_order != "schema" or not isinstance(props, dict) or len(props) > 8):
        return None
    per = {}
    for name, sub in props.items():
        c = _candidates(em, sub, s.member_ptr("properties", name), level + 1)
        if c is None:
            return None
        per[name] = c
    out: list[tuple[Any, str]] = [empty]
    names = list(props)
    for r in range(1, len(names) + 1):
        for chosen in itertools.combinations(names, r):
            if len(out) + math.prod(len(per[n]) for n in chosen) > MAX_UNIQUE_VALUES:
                return None
            for combo in itertools.product(*(per[n] for n in chosen)):
                members = [lit(json.dumps(n, ensure_ascii=False)) + f"{ws}:{ws}" + group(sp)
                           for n, (_, sp) in zip(chosen, combo)]
                out.append(({n: v for n, (v, _) in zip(chosen, combo)},
                            rf"\{{{ws}" + f"{ws},{ws}".join(members) + rf"{ws}\}}"))
    return out


def _array_candidates(em: Any, s: Node, level: int) -> list[tuple[Any, str]] | None:
    """Finite arrays: bounded length, every position a finite set (the node's regex filters)."""
    ws, sep = em.ws, f"{em.ws},{em.ws}"
    if "prefixItems" in s:
        prefix, pptr, rest, rptr = s["prefixItems"], s.kptr("prefixItems"), s.get("items", True), s.kptr("items")
    elif isinstance(s.get("items"), list):
        prefix, pptr = s["items"], s.kptr("items")
        rest, rptr = s.get("additionalItems", True), s.kptr("additionalItems")
    else:
        prefix, pptr, rest, rptr = [], "", s.get("items", True), s.kptr("items")
    M = s.get("maxItems")
    if rest is False:
        M = len(prefix) if M is None else min(int(M), len(prefix))
    if M is None:
        return None
    M = int(M)
    per = []
    for i in range(M):
        sch, p = (prefix[i], f"{pptr}/{i}") if i < len(prefix) else (rest, rptr)
        c = _candidates(em, sch, p, level + 1)
        if c is None:
            return None
        per.append(c)
    out: list[tuple[Any, str]] = [([], rf"\[{ws}\]")]
    for n in range(1, M + 1):
        total = math.prod(len(c) for c in per[:n])
        if len(out) + total > MAX_UNIQUE_VALUES:
            return None
        for combo in itertools.product(*per[:n]):
            out.append(([v for v, _ in combo], rf"\[{ws}" + sep.join(group(sp) for _, sp in combo) + rf"{ws}\]"))
    return out
