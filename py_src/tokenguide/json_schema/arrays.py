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
types no other item has may take any values, and so may one that the others' finite values
meet only in strings, booleans and null: those values are keys of their own, the rest one key,
spelled with a negative lookahead of them): short arrays are enumerated (no
lookaround), longer ones start with one negative lookahead per value forbidding two equal
items (on the engine path, that array as one value lexeme: its exact automaton, at most
MAX_LEXEME_STATES states). With contains, an array whose items cannot be distinct and match
contains often enough (fewer values match contains than minContains, or no item's type is one
of contains') accepts nothing, whatever the items. Equality is JSON Schema's: 1 and 1.0 are equal, true is not 1, objects
are equal whatever their key order. Unbounded item languages are refused: distinctness over
them is not regular. Drafts: `contains` from draft 6, `minContains`/`maxContains` from 2019-09.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import UnsupportedSchemaError
from .logic import lookahead_allowed, value_checked
from .normalize import Node, RuleRef, enum_values, types_of
from .text import VALUE_END, alt, cat, compact, group, json_type_of, rep, value_difference, value_intersection
from .value_sets import MAX_UNIQUE_VALUES, finite_values, type_classes

__all__ = ["ArrayParts", "array_regex", "handles", "schema_draft", "strictly", "MAX_COUNT_CHARS",
           "MAX_UNIQUE_VALUES", "MAX_UNIQUE_SETS", "MAX_ENUMERATED"]

MAX_COUNT_CHARS = 200_000  # regex text of a counted (contains) or unique item sequence
MAX_UNIQUE_SETS = 1024  # sets of distinct values the automaton tells apart (~ its states; 1024: ~3 s)
MAX_ENUMERATED = 256  # unique sequences written out one by one (no lookaround) at most
_SCALAR_CLASSES = {"string", "boolean", "null"}  # values spelled one way each: exact under a lookahead


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
        drops = em.norm.unique_drops  # (NotImplemented: left to it, or ignored when lenient)
        mark = None if drops is None else drops.placeholder(s.kptr("uniqueItems"))
        if mark is not None:
            return mark
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
    counted = "contains" if bounds else "minItems" if "minItems" in s else "maxItems"
    body = count_items(em, slots, tail, m, M, lo, hi, s.kptr(counted))
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


def strictly(em: Any, fn: Callable[[], Any]) -> tuple[bool, Any]:
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
            ok, self.not_c = strictly(em, lambda: em.norm.flatten({"not": contains}, cptr))
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
        ok_hit, hit = strictly(em, lambda: _merged_regex(em, x, self.c))
        ok_miss, miss = (False, None)
        if self.not_c is not None:
            ok_miss, miss = strictly(em, lambda: _merged_regex(em, x, self.not_c))
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
                           f"which the engine path writes as one value lexeme for the array, and cannot here "
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
        if top is None and need >= 1 and tail.plain is not None:
            # after the last hit needed, any item: `miss* (hit miss*){need-1} hit plain*`, which
            # an LALR parser reads without deciding, at each separator, whether a loop ends
            before = rep(sep + tail.hit + misses, need - 1, need - 1) if need > 1 else ""
            return misses + before + sep + tail.hit + rep(sep + tail.plain, 0, None)
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
            kw = ptr.rsplit("/", 1)[-1]
            kw = kw if kw in ("contains", "uniqueItems", "minItems", "maxItems") else "minItems"
            what = f"{kw} together with " if kw in ("contains", "uniqueItems") else ""
            raise UnsupportedSchemaError(
                f"counting items for {what}minItems/maxItems/prefixItems needs a regex over "
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
    classes = [type_classes(em, sch, ptr) for sch, ptr in positions]
    finite = [finite_values(em, sch, ptr) for sch, ptr in positions]
    looks_inside = False  # does an item's spelling hold a lookahead (see _apart_except)?
    for i, (sch, ptr) in enumerate(positions):
        vals = finite[i]
        if vals is None:
            # an item no other can equal (its types apart from all others', and it occurs once)
            # needs no check: one value of its own, spelled by its whole regex; one that others
            # (finite) may equal only in strings, booleans or null: those values apart too
            once = i < k or (M is not None and M <= k + 1)
            others = [j for j, c in enumerate(classes) if j != i and classes[i] & c]
            spell = parts.prefix[i][2] if i < k else parts.rest_regex
            if once and bounds is None and not others:
                vals = {} if spell is None else {("apart", i): spell}
            elif once and bounds is None and spell is not None and all(
                    finite[j] is not None and classes[i] & classes[j] <= _SCALAR_CLASSES for j in others):
                vals = _apart_except(em, sch, ptr, i, spell, [finite[j] for j in others], uptr)
                looks_inside = looks_inside or (vals is not None and len(vals) > 1)
            if vals is None:
                if value_checked(em, uptr):
                    return NotImplemented
                em.unsupported("uniqueItems", uptr, f"uniqueItems over items whose values are not a small finite "
                               f"set (the items at {ptr}) is not regular; give the items an enum/const (at most "
                               f"{MAX_UNIQUE_VALUES} values), a bounded integer range, types no other item has, "
                               "or maxItems: 1 (compile_json_schema and Guide.from_json_schema check it on the "
                               "values instead, where they can)")
                return NotImplemented
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
        if value_checked(em, uptr):
            return NotImplemented
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
    if enumerated is not NotImplemented and looks_inside and em.sink is not None:
        return _lexeme(em, _wrap(em, enumerated), uptr)
    if enumerated is not NotImplemented:
        return _wrap(em, enumerated)
    if looks_inside:
        if value_checked(em, uptr):
            return NotImplemented
        em.unsupported("uniqueItems", uptr, f"uniqueItems with more than {MAX_ENUMERATED} possible arrays, one "
                       "of whose items has unbounded values that another may equal, is not supported; give that "
                       "item a type no other item has, or lower maxItems")
        return NotImplemented
    if not lookahead_allowed(em, "uniqueItems", uptr):  # another whitespace would hide an equal item
        return NotImplemented
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
    try:
        body = count_items(em, slots, tail, m, top, lo, hi, uptr if bounds is None else s.kptr("contains"))
    except UnsupportedSchemaError:
        if bounds is None and value_checked(em, uptr):  # (too many counts to write out: on the values)
            return NotImplemented
        raise
    if body is None or body == "":
        return _wrap(em, body)
    if em.sink is None:
        return _wrap(em, looks + body)
    return _lexeme(em, _wrap(em, looks + body), uptr)


def _lexeme(em: Any, array: str | None, uptr: str) -> Any:
    """Grammar path: the unique array regex `array`, which holds lookaheads, as one value lexeme
    (its exact automaton as rules); refused by name beyond MAX_LEXEME_STATES states."""
    if array is None:
        return None
    try:
        return em.sink.value_lexeme(array, "uniqueItems", uptr)
    except UnsupportedSchemaError as exc:
        if value_checked(em, uptr):
            return NotImplemented
        em.unsupported("uniqueItems", uptr, f"uniqueItems over these items needs lookaheads, which the grammar "
                       f"path writes as one value lexeme for the array, and cannot here ({exc.args[0]}); use the "
                       "regex path, lower maxItems or use fewer values")
        return NotImplemented


def _apart_except(em: Any, sch: Any, ptr: str, i: int, spell: str, others: list[dict], uptr: str) -> dict | None:
    """The values of the item at position `i` (occurring once, unbounded), which the other items'
    finite values `others` meet only in strings, booleans and null: each of those values it
    accepts a key of its own, every other value one key ("apart"), spelled as `spell` minus
    them (a negative lookahead, exact for these canonical spellings). None when its values
    cannot be checked, or the whitespace pattern is not JSON whitespace alone (refused at `uptr`)."""
    flat = em.norm.flatten(sch, ptr)
    if not isinstance(flat, Node):
        return None
    check = em.sub_emitter(0).flat_value(flat)
    rx = None if check is None else re.compile(check)
    shared: dict = {}
    for table in others:
        for key, sp in table.items():
            v = None if key[0] == "null" else key[1]
            if key[0] in ("str", "bool", "null") and rx is not None and rx.fullmatch(compact(v)):
                shared[key] = sp
    if not shared:
        return {("apart", i): spell}
    if not lookahead_allowed(em, "uniqueItems", uptr):
        return None
    return {**shared, ("apart", i): value_difference(spell, alt(list(shared.values())))}


def _no_hit_possible(em: Any, s: Node, positions: list, lo: int) -> str | None:
    """Why no array of distinct items has `lo` items matching contains (None: some may), for
    any items: the values contains accepts are fewer than `lo` (distinct items are distinct
    values), or no reachable position's types are among those of contains."""
    cptr = s.kptr("contains")
    if lo == 0:
        return None
    ok, vals = strictly(em, lambda: finite_values(em, s["contains"], cptr))
    if ok and vals is not None and len(vals) < lo:
        return (f"uniqueItems: {lo} distinct items must match contains, which accepts {len(vals)} value"
                f"{'s' if len(vals) != 1 else ''}")
    c_types = type_classes(em, s["contains"], cptr)
    if any(type_classes(em, sch, ptr) & c_types for sch, ptr in positions):
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
        ok, merged = strictly(em, lambda: em.norm.merge(x, c))
        vals = None
        if ok:
            ok, vals = strictly(em, lambda: finite_values(em, merged, ptr))
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
