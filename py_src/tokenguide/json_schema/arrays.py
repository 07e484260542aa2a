"""Exact `contains` / `minContains` / `maxContains` and `uniqueItems` for the regex emitter.

`contains`: every item is either in (items ∩ contains) -- a *hit* -- or in (items ∖ contains),
and the hits are counted: ``miss* (hit miss*){min,max}``, unrolled over prefixItems and
minItems/maxItems (a product of counts, refused beyond `MAX_COUNT_CHARS`). The two item
languages come from merging the schemas (allOf of items and contains; items with ``not``
contains), which needs no lookaround; where that cannot be expressed, the regex path falls back
to `value_intersection` / `value_difference` lookaheads when they are provably exact for the
spellings involved (strings, booleans, null, integers), and refuses otherwise.

`uniqueItems`: exact when every item's values form a small finite set (enum/const, booleans,
null, bounded integer ranges, arrays and closed objects of those; an item that occurs once with
types no other item has may take any values): short arrays are enumerated (no
lookaround), longer ones start with one negative lookahead per value forbidding two equal
items (on the grammar path, that array as one value lexeme: its exact automaton, at most
MAX_LEXEME_STATES states). With contains, an array whose items cannot be distinct and match
contains often enough (fewer values match contains than minContains, or no item's type is one
of contains') accepts nothing, whatever the items. Equality is JSON Schema's: 1 and 1.0 are equal, true is not 1, objects
are equal whatever their key order. Unbounded item languages are refused: distinctness over
them is not regular. Drafts: `contains` from draft 6, `minContains`/`maxContains` from 2019-09.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from ..errors import UnsupportedSchemaError
from .normalize import Node, RuleRef, enum_values, types_of
from .text import (ALL_TYPES, VALUE_END, alt, cat, compact, group, json_literal, json_type_of,
                   lit, rep, value_difference, value_intersection)

__all__ = ["ArrayParts", "array_regex", "handles", "schema_draft", "value_key", "MAX_COUNT_CHARS",
           "MAX_UNIQUE_VALUES", "MAX_UNIQUE_SETS", "MAX_ENUMERATED"]

MAX_COUNT_CHARS = 200_000  # regex text of a counted (contains) or unique item sequence
MAX_UNIQUE_VALUES = 256  # distinct values an item of a uniqueItems array may take
MAX_UNIQUE_SETS = 1024  # sets of distinct values the automaton tells apart (~ its states; 1024: ~3 s)
MAX_ENUMERATED = 256  # unique sequences written out one by one (no lookaround) at most


def schema_draft(root: Any) -> int:
    """The draft of the root schema as jsonschema's `validator_for` picks it: 3, 4, 6, 7, 2019 or
    2020 (no or unknown ``$schema``: the latest)."""
    uri = root.get("$schema") if isinstance(root, dict) else None
    if isinstance(uri, str):
        for mark, draft in (("draft-03", 3), ("draft-04", 4), ("draft-06", 6), ("draft-07", 7),
                            ("2019-09", 2019), ("2020-12", 2020)):
            if mark in uri:
                return draft
    return 2020


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


@dataclass
class ArrayParts:
    """An array node's items as t_array reads them: prefix (schema, pointer, regex) triples, the
    schema/pointer/regex of the other items, and minItems/maxItems."""

    node: Node
    prefix: list[tuple[Any, str, str | None]]
    rest: Any
    rest_ptr: str
    rest_regex: str | None
    min_items: int
    max_items: int | None


@dataclass
class Slot:
    """One item position's languages: `hit` (matches contains), `miss`, and `plain` (either)."""

    hit: str | None
    miss: str | None
    plain: str | None


def _contains_bounds(em: Any, s: Node) -> tuple[int, int | None] | None:
    """(minContains, maxContains) when `contains` applies to node `s` in its draft, else None."""
    draft = schema_draft(em.norm.root)
    if "contains" not in s or draft < 6:
        return None
    lo, hi = 1, None
    if draft >= 2019:
        for kw in ("minContains", "maxContains"):
            if kw in s:
                v = s[kw]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or not float(v).is_integer():
                    raise UnsupportedSchemaError(f"{kw} must be a non-negative integer, not {v!r} (at {s.kptr(kw)})",
                                                 kw, s.kptr(kw))
        lo = int(s.get("minContains", 1))
        hi = None if "maxContains" not in s else int(s["maxContains"])
    if lo == 0 and hi is None:
        return None  # minContains 0: contains is always true
    return lo, hi


def handles(em: Any, s: Node) -> bool:
    """Does node `s` use a keyword this module expresses (contains, uniqueItems on >1 item)?"""
    if _contains_bounds(em, s) is not None:
        return True
    M = s.get("maxItems")
    return s.get("uniqueItems") is True and not (isinstance(M, (int, float)) and M <= 1)


def array_regex(em: Any, parts: ArrayParts) -> str | None:
    """The array regex for `parts` with contains counted and uniqueItems enforced (or refused)."""
    s = parts.node
    bounds = _contains_bounds(em, s)
    m, M = parts.min_items, parts.max_items
    k = len(parts.prefix)
    if parts.rest_regex is None:  # no item after the prefix
        M = k if M is None else min(M, k)
    unique = s.get("uniqueItems") is True and (M is None or M > 1)
    if M is not None and m > M:
        em.norm.note_empty("minItems", s.kptr("minItems"), f"minItems {m} cannot be reached (at most {M} items)")
        return None
    if unique:
        done = _unique(em, parts, bounds, m, M)
        if done is not NotImplemented:
            return done
    slots = [Slot(None, None, r) for _, _, r in parts.prefix]
    tail = Slot(None, None, parts.rest_regex)
    lo, hi = 0, None
    if bounds is not None:
        lo, hi = bounds
        if hi is not None and hi < lo:
            em.norm.note_empty("maxContains", s.kptr("maxContains"), f"maxContains {hi} is below minContains {lo}")
            return None
        cptr = s.kptr("contains")
        split = _Splitter(em, s["contains"], cptr)
        reachable = parts.prefix if M is None else parts.prefix[:M]  # items past maxItems never occur
        slots = [split.slot(sch, ptr, r) for sch, ptr, r in reachable]
        tail = (split.slot(parts.rest, parts.rest_ptr, parts.rest_regex) if M is None or M > k
                else Slot(None, None, None))
        if split.refused:
            lo, hi = 0, None
    body = count_items(em, slots, tail, m, M, lo, hi, s.kptr("contains") if bounds else s.ptr)
    if body is None and bounds is not None:
        em.norm.note_empty("contains", s.kptr("contains"), "no array of these items has the number of items "
                           "matching contains that minContains/maxContains ask for")
    if bounds is not None and split.lexeme and body is not None:
        return split.array_lexeme(_wrap(em, body), parts, m, M)
    return _wrap(em, body)


def _wrap(em: Any, body: str | None) -> str | None:
    if body is None:
        return None
    if body == "":
        return r"\[" + em.close_array
    return rf"\[{em.ws}" + body + em.close_array


# ---- contains: hits and misses ---------------------------------------------------------------


def _strict(em: Any, fn: Callable[[], Any]) -> tuple[bool, Any]:
    """Run `fn` refusing (not ignoring) what cannot be expressed: (True, result) or (False, None)."""
    norm = em.norm
    lenient, n_ignored, n_empty = norm.lenient, len(norm.ignored), len(norm.empty_reasons)
    norm.lenient = False
    try:
        return True, fn()
    except UnsupportedSchemaError:
        return False, None
    finally:
        norm.lenient = lenient
        del norm.ignored[n_ignored:]
        del norm.empty_reasons[n_empty:]


def _merged_regex(em: Any, a: Any, b: Any) -> str | None:
    m = em.norm.merge(a, b)
    if m is True:
        return em.any_value(em.free_depth)
    if m is False:
        return None
    return em.flat_value(m)


class _Splitter:
    """Splits each item language into the values that match `contains` and those that do not."""

    def __init__(self, em: Any, contains: Any, cptr: str) -> None:
        self.em = em
        self.cptr = cptr
        self.c_schema = contains
        self.c = em.norm.flatten(contains, cptr)
        self.not_c: Any = None
        self.refused = False  # lenient mode ignored contains
        self.lexeme = False  # grammar path: hits and misses told apart by lookaheads, in one value lexeme
        if not isinstance(self.c, bool):
            ok, self.not_c = _strict(em, lambda: em.norm.flatten({"not": contains}, cptr))
            if not ok:
                self.not_c = None

    def slot(self, schema: Any, ptr: str, plain: str | None) -> Slot:
        em = self.em
        if plain is None or self.c is False:
            return Slot(None, plain, plain)
        if self.c is True:
            return Slot(plain, None, plain)
        x = em.norm.flatten(schema, ptr)
        if x is True:
            x = Node({}, ptr)  # free-form items: every type, every spelling
        ok_hit, hit = _strict(em, lambda: _merged_regex(em, x, self.c))
        ok_miss, miss = (False, None)
        if self.not_c is not None:
            ok_miss, miss = _strict(em, lambda: _merged_regex(em, x, self.not_c))
        if ok_hit and ok_miss:
            if em.sink is not None and any(em.sink.has_lexeme(r or "") for r in (hit, miss)):
                self.lexeme = True  # a value lexeme beside the other side's rules is ambiguous for Lark
            return self._simplified(hit, miss, plain)
        if em.sink is not None:
            self.lexeme = True  # the lookaheads below go into the array's value lexeme (array_lexeme)
        if not self._lookahead_exact(x):
            em.unsupported("contains", self.cptr, "cannot tell exactly which items match this contains schema "
                           "(objects, arrays, or numbers spelled differently by items and contains); use a "
                           "contains schema that is a type, an enum/const of strings, or integers under "
                           "integer items")
            self.refused = True
            return Slot(None, None, plain)
        # contains restricted to the items' types: a shorter lookahead, the same verdicts
        types = sorted(_spelled_types(x)[0] if isinstance(x, Node) else [])
        restricted = em.norm.merge(self.c, Node({"type": types}, self.cptr))
        c = None if restricted is False else em.flat_value(restricted)
        if not ok_hit:
            hit = value_intersection(plain, c)
        if not ok_miss:
            miss = value_difference(plain, c)
        return self._simplified(hit, miss, plain)

    def array_lexeme(self, array: str, parts: ArrayParts, m: int, M: int | None) -> str | None:
        """Grammar path: the array regex `array`, whose items are told apart by lookaheads, as one
        value lexeme (its exact automaton as rules); refused by name when it is not regular or
        too large (in lenient mode, contains is then ignored)."""
        em = self.em
        try:
            return em.sink.value_lexeme(array, "contains", self.cptr)
        except UnsupportedSchemaError as exc:
            em.unsupported("contains", self.cptr, "this contains schema needs lookaheads to tell its items apart, "
                           f"which the grammar path writes as one value lexeme for the array, and cannot here "
                           f"({exc.args[0]}); use the regex path")
        slots = [Slot(None, None, r) for _, _, r in parts.prefix]
        return _wrap(em, count_items(em, slots, Slot(None, None, parts.rest_regex), m, M, 0, None, parts.node.ptr))

    @staticmethod
    def _simplified(hit: str | None, miss: str | None, plain: str) -> Slot:
        """Every item a hit (or every one a miss): the item regex itself, fewer states."""
        if miss is None:
            return Slot(plain if hit is not None else None, None, plain)
        if hit is None:
            return Slot(None, plain, plain)
        return Slot(hit, miss, plain)

    def _lookahead_exact(self, x: Any) -> bool:
        return lookahead_exact(self.em, x, self.c, 0)


def lookahead_exact(em: Any, x: Any, c: Any, level: int) -> bool:
    """Does the regex of `c` accept every spelling the regex of `x` writes of a value in `c`?
    (Then value_difference / value_intersection of the two are exact.) True for strings,
    booleans, null, numbers spelled alike on both sides, and arrays of such items; False for
    objects (key order) and whenever in doubt."""
    if x is True:
        x = Node({}, "#")
    if any(isinstance(n, (bool, RuleRef)) or n.groups for n in (x, c)) or level > 4:
        return False
    xt, x_num = _spelled_types(x)
    ct, _ = _spelled_types(c)
    shared = xt & ct
    if "object" in shared or ("array" in shared and not _arrays_exact(em, x, c, level)):
        return False
    if "number" not in shared:
        return True
    numeric = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
    if "enum" in c or "const" in c:
        c_kind = "enum"  # every plain spelling of its values
    elif "number" in types_of(c):
        c_kind = "range" if any(k in c for k in numeric) or c.not_enum else "all"
    else:
        c_kind = "integer"  # integer spellings only
    if c_kind == "all" or x_num == "integer":
        return True
    return x_num == "plain" and c_kind in ("enum", "range")


def _arrays_exact(em: Any, x: Node, c: Node, level: int) -> bool:
    """Arrays: `c` constrains only its length and one item schema, exact for each of x's items."""
    if "enum" in x or "const" in x or "enum" in c or "const" in c:
        return False
    if any(k in c for k in ("prefixItems", "additionalItems", "contains", "uniqueItems")):
        return False
    c_items = c.get("items", True)
    if c_items is True or isinstance(c_items, list):
        return False  # free-form items nest only so deep
    if "prefixItems" in x:
        own = list(enumerate(x["prefixItems"])) + [(None, x.get("items", True))]
        base = x.kptr("prefixItems")
    elif isinstance(x.get("items"), list):
        own = list(enumerate(x["items"])) + [(None, x.get("additionalItems", True))]
        base = x.kptr("items")
    else:
        own = [(None, x.get("items", True))]
        base = x.kptr("items")
    ci = em.norm.flatten(c_items, c.kptr("items"))
    if ci is False:
        return True
    for i, sub in own:
        xi = em.norm.flatten(sub, base if i is None else f"{base}/{i}")
        if xi is not False and not lookahead_exact(em, xi, ci, level + 1):
            return False
    return True


def _spelled_types(s: Node) -> tuple[set[str], str]:
    """The JSON types of the values `s` accepts ('number' for every number) and how it spells
    numbers: 'integer' (integer digits only), 'plain' (enum values: 2, 2.0, 2.00), 'any'."""
    values = enum_values(s)
    if values is not None:
        types = {json_type_of(v) for v in values}
        return {"number" if t == "integer" else t for t in types}, "plain"
    types = set(types_of(s))
    num = "any" if "number" in types else "integer"
    return {"number" if t == "integer" else t for t in types}, num


# ---- counting --------------------------------------------------------------------------------


def count_items(em: Any, slots: list[Slot], tail: Slot, m: int, M: int | None, lo: int, hi: int | None,
                ptr: str) -> str | None:
    """Regex of the items inside an array (without brackets): positions `slots` then `tail`
    repeated, between `m` and `M` items, between `lo` and `hi` hits; None when impossible."""
    sep = em.sep
    k = len(slots)
    memo: dict[tuple[int, int], str | None] = {}
    rest_memo: dict[tuple[int, str], str | None] = {}

    def at(pos: int) -> Slot:
        return slots[pos] if pos < k else tail

    def rest(pos: int, part: str) -> str | None:
        """Items pos... (pos >= 1) taking language `part` of each slot, count bounds only."""
        key = (pos, part)
        if key not in rest_memo:
            if pos >= k:
                lang = getattr(tail, part)
                need = max(0, m - pos)
                top = None if M is None else M - pos
                if top is not None and top < need:
                    out = None
                elif lang is None or top == 0:
                    out = "" if need == 0 else None
                else:
                    out = rep(sep + lang, need, top)
            elif M is not None and pos >= M:
                out = "" if pos >= m else None
            else:
                cont = cat(sep, getattr(slots[pos], part), rest(pos + 1, part))
                out = alt([cont, "" if pos >= m else None])
            rest_memo[key] = out
        return rest_memo[key]

    def uniform(h: int) -> str | None:
        """Tail items (no length bound left): miss* (hit miss*){lo-h, hi-h}."""
        misses = "" if tail.miss is None else rep(sep + tail.miss, 0, None)
        need = max(0, lo - h)
        top = None if hi is None else hi - h
        if tail.hit is None or top == 0:
            return misses if need == 0 else None
        return misses + rep(sep + tail.hit + misses, need, top)

    def go(pos: int, h: int) -> str | None:
        key = (pos, h)
        if key in memo:
            return memo[key]
        final = pos >= m and h >= lo
        saturated = hi is None and h >= lo  # enough hits, no upper bound: any item
        full = hi is not None and h == hi  # no further hit allowed
        if pos >= 1 and saturated:
            out = rest(pos, "plain")
        elif pos >= 1 and full:
            out = rest(pos, "miss")
        elif pos >= 1 and pos >= k and pos >= m and M is None:
            out = uniform(h)
        elif M is not None and pos >= M:
            out = "" if final else None
        else:
            s = sep if pos else ""
            slot = at(pos)
            if saturated:
                options = [cat(s, slot.plain, go(pos + 1, h))]
            elif full:
                options = [cat(s, slot.miss, go(pos + 1, h))]
            else:
                options = [cat(s, slot.hit, go(pos + 1, h + 1)), cat(s, slot.miss, go(pos + 1, h))]
            out = alt(options + ["" if final else None])
        if out is not None and len(out) > MAX_COUNT_CHARS:
            kw = "contains" if ptr.endswith("/contains") else "uniqueItems"
            raise UnsupportedSchemaError(
                f"counting items for {kw} together with minItems/maxItems/prefixItems needs a regex over "
                f"{MAX_COUNT_CHARS:,} characters (keyword {kw!r} at {ptr}); lower maxItems, minItems or "
                "minContains/maxContains", kw, ptr)
        memo[key] = out
        return out

    return go(0, 0)


# ---- uniqueItems -----------------------------------------------------------------------------


def _unique(em: Any, parts: ArrayParts, bounds: tuple[int, int | None] | None, m: int, M: int | None) -> Any:
    """The uniqueItems array regex, None (no array), or NotImplemented after a lenient refusal."""
    s = parts.node
    uptr = s.kptr("uniqueItems")
    k = len(parts.prefix)
    positions = [(sch, ptr) for sch, ptr, _ in parts.prefix[:M]]
    k = len(positions)
    if parts.rest_regex is not None and (M is None or M > k):
        positions.append((parts.rest, parts.rest_ptr))
    if bounds is not None:
        why = _no_hit_possible(em, s, positions, bounds[0])
        if why is not None:
            em.norm.note_empty("contains", s.kptr("contains"), why)
            return None
    tables: list[dict] = []
    classes = [_type_classes(em, sch, ptr) for sch, ptr in positions]
    for i, (sch, ptr) in enumerate(positions):
        vals = finite_values(em, sch, ptr)
        if vals is None:
            # an item no other can equal (its types apart from all others', and it occurs once)
            # needs no check: one value of its own, spelled by its whole regex
            once = i < k or (M is not None and M <= k + 1)
            apart = once and bounds is None and all(not classes[i] & c for j, c in enumerate(classes) if j != i)
            if not apart:
                em.unsupported("uniqueItems", uptr, f"uniqueItems over items whose values are not a small finite "
                               f"set (the items at {ptr}) is not regular; give the items an enum/const (at most "
                               f"{MAX_UNIQUE_VALUES} values), a bounded integer range, types no other item has, "
                               "or maxItems: 1")
                return NotImplemented
            spell = parts.prefix[i][2] if i < k else parts.rest_regex
            vals = {} if spell is None else {("apart", i): spell}
        tables.append(vals)
    every: dict = {}
    for t in tables:
        for key, spell in t.items():
            every[key] = alt([every.get(key), spell])
    n_values = len(every)
    top = n_values if M is None else min(M, n_values)
    if m > top:
        em.norm.note_empty("uniqueItems", uptr, f"minItems {m} distinct items cannot be found among {n_values} values")
        return None
    sets = sum(math.comb(n_values, j) for j in range(top + 1))
    if sets > MAX_UNIQUE_SETS:
        em.unsupported("uniqueItems", uptr, f"uniqueItems over {n_values} values up to {top} items distinguishes "
                       f"{sets:,} sets of values (over {MAX_UNIQUE_SETS:,}); lower maxItems or use fewer values")
        return NotImplemented
    hits: list[set] | None = None
    if bounds is not None:
        hits = _classify(em, s, positions, tables)
        if hits is None:
            return NotImplemented
    lo, hi = bounds if bounds is not None else (0, None)
    if hi is not None and hi < lo:
        em.norm.note_empty("maxContains", s.kptr("maxContains"), f"maxContains {hi} is below minContains {lo}")
        return None
    enumerated = _enumerate(em, tables, k, hits, m, top, lo, hi)
    if enumerated is not NotImplemented:
        return _wrap(em, enumerated)
    # at the array's start, for each value v: "no two items equal v" (independent trackers: the
    # automaton has about one state per set of values seen)
    skip = group(alt(list(every.values())) or "")
    sep = em.sep
    looks = "".join(f"(?!(?:{skip}{sep})*{group(eq)}(?:{sep}{skip})*{sep}{group(eq)}{VALUE_END})"
                    for eq in every.values())

    def spelled(table: dict, keys: Any) -> str | None:
        return alt([spell for key, spell in table.items() if key in keys])

    slots = []
    for i, t in enumerate(tables):
        if hits is None:
            slots.append(Slot(None, None, spelled(t, t)))
        else:
            h, miss = spelled(t, hits[i]), spelled(t, set(t) - hits[i])
            slots.append(Slot(h, miss, alt([h, miss])))
    tail = slots.pop() if len(slots) > k else Slot(None, None, None)
    body = count_items(em, slots, tail, m, top, lo, hi, uptr if bounds is None else s.kptr("contains"))
    if body is None or body == "":
        return _wrap(em, body)
    if em.sink is None:
        return _wrap(em, looks + body)
    try:  # the grammar path: the array with its lookaheads as one value lexeme (its exact automaton)
        return em.sink.value_lexeme(_wrap(em, looks + body), "uniqueItems", uptr)
    except UnsupportedSchemaError as exc:
        em.unsupported("uniqueItems", uptr, f"uniqueItems with more than {MAX_ENUMERATED} possible arrays needs "
                       "lookaheads, which the grammar path writes as one value lexeme for the array, and cannot "
                       f"here ({exc.args[0]}); use the regex path, lower maxItems or use fewer values")
        return NotImplemented


def _no_hit_possible(em: Any, s: Node, positions: list, lo: int) -> str | None:
    """Why no array of distinct items has `lo` items matching contains (None: some may), for
    any items: the values contains accepts are fewer than `lo` (distinct items are distinct
    values), or no reachable position's types are among those of contains."""
    cptr = s.kptr("contains")
    if lo == 0:
        return None
    ok, vals = _strict(em, lambda: finite_values(em, s["contains"], cptr))
    if ok and vals is not None and len(vals) < lo:
        return (f"uniqueItems: {lo} distinct items must match contains, which accepts {len(vals)} value"
                f"{'s' if len(vals) != 1 else ''}")
    c_types = _type_classes(em, s["contains"], cptr)
    if any(_type_classes(em, sch, ptr) & c_types for sch, ptr in positions):
        return None
    return "no item of this array can match contains (their types differ)"


def _classify(em: Any, s: Node, positions: list, tables: list[dict]) -> list[set] | None:
    """For each position, the keys of its values that match `contains` (None after a lenient refusal)."""
    cptr = s.kptr("contains")
    c = em.norm.flatten(s["contains"], cptr)
    out = []
    for (sch, ptr), table in zip(positions, tables):
        if isinstance(c, bool):
            out.append(set(table) if c else set())
            continue
        x = em.norm.flatten(sch, ptr)
        ok, merged = _strict(em, lambda: em.norm.merge(x, c))
        vals = None
        if ok:
            ok, vals = _strict(em, lambda: finite_values(em, merged, ptr))
        if not ok or vals is None:
            em.unsupported("contains", cptr, "cannot tell which values of the uniqueItems items match this "
                           "contains schema; use a contains schema that merges with the items (allOf)")
            return None
        out.append(set(vals) & set(table))
    return out


def _enumerate(em: Any, tables: list[dict], n_prefix: int, hits: list[set] | None, m: int, top: int, lo: int,
               hi: int | None) -> Any:
    """Unique sequences written out one by one (a trie): the item text, or NotImplemented when
    there are more than MAX_ENUMERATED of them. `tables[n_prefix]`, if present, repeats."""
    budget = [MAX_ENUMERATED]
    sep = em.sep

    def go(pos: int, used: frozenset, h: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            return NotImplemented
        final = pos >= m and h >= lo
        i = min(pos, n_prefix)
        if pos >= top or i >= len(tables):
            return "" if final else None
        outs: list[str | None] = []
        for key, spell in tables[i].items():
            if key in used:
                continue
            hit = hits is not None and key in hits[i]
            if hi is not None and hit and h + 1 > hi:
                continue
            nxt = go(pos + 1, used | {key}, h + (1 if hit else 0))
            if nxt is NotImplemented:
                return NotImplemented
            outs.append(cat(sep if pos else "", group(spell), nxt))
        outs.append("" if final else None)
        return alt(outs)

    return go(0, frozenset(), 0)


# ---- finite value sets -----------------------------------------------------------------------


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
    depth = max((_depth(v) for v, _ in cands), default=0)
    check = em.sub_emitter(depth).flat_value(flat) if isinstance(flat, Node) else None
    rx = None if check is None else re.compile(check)
    out: dict = {}
    for v, spell in cands:
        if rx is not None and rx.fullmatch(compact(v)):
            key = value_key(v)
            out[key] = alt([out.get(key), spell])
    return out


def _type_classes(em: Any, schema: Any, ptr: str) -> set[str]:
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


def _depth(v: Any) -> int:
    if isinstance(v, list):
        return 1 + max((_depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((_depth(x) for x in v.values()), default=0)
    return 0


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
