"""The regex emitter: normalised schema Nodes to regexes over compact JSON texts.

`Emitter.value(schema, ptr)` returns the regex of a (sub-)schema, or None when it accepts
nothing. anyOf/oneOf groups are distributed over their branches (each branch merged with the
rest of the node); each JSON type has its handler in an explicit table (`Emitter.handlers`).
Objects are written by `objects.py` and oneOf disjointness is decided by `one_of.py`.
"""

from __future__ import annotations

import itertools
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Callable

from ..errors import UnsupportedSchemaError
from . import arrays, logic, object_unions, objects, one_of, required_sets, unions
from .normalize import VALIDATION, Node, Normalizer, RuleRef, enum_values, types_of
from .numbers import integer_regex, number_regex
from .strings import constrained_string, counted_string, string_format
from .text import (BOOLEAN, MAX_BRANCHES, MAX_REGEX_CHARS, NULL, NUMBER, STRING, alt, canon, cat,
                   compact, group, json_literal, json_type_of, nesting, not_in_keys, opt, rep)

__all__ = ["Emitter"]


class Emitter:
    """Writes regexes for the schema rooted at `norm.root`, with whitespace pattern `ws`.

    With a `sink` (grammar mode, see rule_sink.py), recursive references, free-form values and
    numbers are written as placeholders for grammar rules that the sink hands out."""

    number_lexeme = NUMBER  # of free-form numbers (logic.canonical's twin spells them canonically)

    def __init__(self, norm: Normalizer, ws: str, sink: Any = None, property_order: str = "schema") -> None:
        self.norm = norm
        self.ws = ws
        self.sink = sink
        self.property_order = property_order  # "schema" or "any" (objects.py)
        cut = "" if sink is None else sink.cut  # grammar mode: separators and closers are terminals
        self.sep = f"{cut}{ws},{ws}{cut}"
        self.close_array = cut + ws + r"\]"
        self.close_object = cut + ws + r"\}"
        self.free_depth = max(norm.depth - 1, 0)
        self._any_cache: dict[int, str] = {}
        self.used_free_form = False  # regex mode: a depth-limited free-form value was written
        self.handlers: dict[str, Callable[[Node], str | None]] = {
            "null": self.t_null,
            "boolean": self.t_boolean,
            "object": self.t_object,
            "array": self.t_array,
            "number": self.t_number,
            "integer": self.t_integer,
            "string": self.t_string,
        }

    def unsupported(self, keyword: str, pointer: str, why: str) -> None:
        self.norm.unsupported(keyword, pointer, why)

    def sub_emitter(self, nesting: int = 0) -> "Emitter":
        """A compact-whitespace, strict regex emitter sharing the schema (for membership checks
        of values nesting at most `nesting` deep, unrolled deep enough for them in grammar mode)."""
        norm = Normalizer.__new__(Normalizer)
        norm.__dict__.update(self.norm.__dict__)
        norm.lenient = False
        norm.unique_drops = None  # (its values are membership checks: uniqueItems must be exact there)
        if self.sink is not None:
            norm.grammar = False
            norm.depth = max(norm.depth, len(self.norm.ref_stack) + nesting + 2)
        norm.ignored = []
        norm.empty_reasons = []
        norm.ref_stack = list(self.norm.ref_stack)
        em = Emitter(norm, "", property_order=self.property_order)
        # its regex is matched only against the values checked: free-form values in them nest at
        # most `nesting` deep (depth - 1 may be less, and in grammar mode grows the regex as 2^depth)
        em.free_depth = nesting
        return em

    # ---- entry -------------------------------------------------------------------------------
    def value(self, schema: Any, ptr: str) -> str | None:
        """Regex for serializations of instances of `schema`; None = no instance."""
        flat = self.norm.flatten(schema, ptr)
        if flat is True:
            return self.any_value(self.free_depth)
        if flat is False:
            return None
        if isinstance(flat, RuleRef):
            return self.sink.rule_ref(flat)
        out = self.flat_value(flat)
        if out is not None and len(out) > MAX_REGEX_CHARS:
            raise UnsupportedSchemaError(
                f"the regex for {ptr} would be over {MAX_REGEX_CHARS:,} characters long "
                "(recursive or deeply nested schema); lower max_recursion_depth", None, ptr)
        return out

    def flat_value(self, s: Node | RuleRef) -> str | None:
        if isinstance(s, RuleRef):
            return self.sink.rule_ref(s)
        stack = self.norm.ref_stack
        stack.extend(s.refs)
        try:
            return self._flat_value(s)
        finally:
            del stack[len(stack) - len(s.refs):]

    def _flat_value(self, s: Node) -> str | None:
        if not s.constrains():
            return self.any_value(self.free_depth)
        if logic.handles(s):
            return logic.logic_value(self, s)
        if s.groups:
            return self._distribute(s)
        if "enum" in s or "const" in s:
            return self.enum_value(s)
        self.check_generic(s)
        return alt([self.handlers[t](s) for t in types_of(s)])

    def _distribute(self, s: Node) -> str | None:
        """anyOf / oneOf: the union over every combination of branches, each merged with the rest
        (in grammar mode, required-name sets on one object as one object: required_sets)."""
        base = s.copy(keep_groups=False)
        base.refs = []
        sets = required_sets.required_sets_value(self, s, base)
        if sets is not False:
            return sets
        one = object_unions.union_as_one_object(self, s, base)
        if one is not False:
            return one
        groups, branch_lists = [], []
        for g in s.groups:
            kind, subs, gptr, _ = g
            if not isinstance(subs, list) or not subs:
                raise UnsupportedSchemaError(f"{kind} must be a non-empty array (at {gptr})", kind, gptr)
            flats = unions.union_branches(self.norm, kind, subs, gptr, self.sink is not None, s.refs)
            if flats is True:  # an anyOf that accepts every value constrains nothing
                continue
            if kind == "oneOf" and len(flats) > 1 and not one_of.pairwise_disjoint(self, flats, base):
                exclusive = one_of.exclusive_branches(self, flats, base)
                flats = exclusive if exclusive is not None else one_of.overlapping(self, flats, gptr, base)
            groups.append(g)
            branch_lists.append(flats)
        if not groups:
            return self.flat_value(base)
        total = 1
        for bl in branch_lists:
            total *= max(1, len(bl))
        if total > MAX_BRANCHES:
            self.unsupported("anyOf", s.ptr, f"{total} combined anyOf/oneOf branches")
        outs = self._combinations(groups, base, branch_lists)
        return logic.union(self, outs, groups[0][0], groups[0][2])

    def _combinations(self, groups: list, base: Node, branch_lists: list[list]) -> list[str | None]:
        """The regex of each combination of anyOf/oneOf branches (one list per group of `groups`),
        merged with `base` (the rest of the node)."""
        outs = []
        base_names = list(base.get("properties", {}) or {})
        for combo in itertools.product(*branch_lists):
            m: Node | bool = base
            inserts: dict[int, list[str]] = {}
            excl = [f for f in combo if isinstance(f, one_of.Exclusive)]
            for g, f in zip(groups, combo):
                f = f.branch if isinstance(f, one_of.Exclusive) else f
                m = self.norm.merge(m, f)
                if m is False:
                    break
                if isinstance(f, Node):
                    for n in f.get("properties", {}) or {}:
                        if n not in base_names:
                            inserts.setdefault(g.pos, []).append(n)
            if isinstance(m, Node) and inserts and isinstance(m.get("properties"), dict):
                order: list[str] = []
                for i in range(len(base_names) + 1):
                    order.extend(n for n in inserts.get(i, []) if n not in order)
                    if i < len(base_names):
                        order.append(base_names[i])
                order.extend(n for n in m["properties"] if n not in order)
                m = m.copy()
                m.kw["properties"] = {n: m["properties"][n] for n in order if n in m["properties"]}
            if excl and m is not False:
                outs.append(one_of.exclusive_value(self, m, excl))
            elif m is True:
                outs.append(self.any_value(self.free_depth))
            elif m is not False:
                outs.append(self.flat_value(m))
        return outs

    def check_generic(self, s: Node) -> None:
        """Refuse the keywords no type handler expresses (normalisation rewrites them where it can:
        a node that still has one did not pass through Normalizer.flatten's rewrite)."""
        for kw in ("$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"):
            if kw in s and s[kw] not in ({}, True):
                self.unsupported(kw, s.kptr(kw), f"{kw!r} is not supported here")

    # ---- enum / const ------------------------------------------------------------------------
    def enum_value(self, s: Node) -> str | None:
        values = enum_values(s)
        assert values is not None
        if s.not_enum:
            banned = {canon(v) for v in s.not_enum}
            values = [v for v in values if canon(v) not in banned]
        rest = [k for k in s if k in VALIDATION and k not in ("enum", "const", "type")]
        if "type" in s:
            types = set(types_of(s))
            if "number" in types:
                types.add("integer")
            values = [v for v in values if json_type_of(v) in types]
        if rest:
            check = s.copy(drop=("enum", "const"))
            try:
                r = self.sub_emitter(max(map(nesting, values), default=0)).flat_value(check)
            except UnsupportedSchemaError as exc:
                if not self.norm.lenient:
                    raise
                self.norm.ignored.append((exc.keyword or "?", exc.pointer or "#"))
            else:
                rx = re.compile(r) if r is not None else None
                values = [v for v in values if rx is not None and rx.fullmatch(compact(v))]
        if not values:
            self.norm.note_empty("enum", s.kptr("enum" if "enum" in s else "const"), "no enum/const value is valid")
        if self.sink is None:
            return alt([self.literal(v) for v in values])
        numeric = [json_type_of(v) in ("integer", "number") for v in values]
        number = alt([self.literal(v) for v, n in zip(values, numeric) if n])
        return alt([None if number is None else self.sink.number(number)]
                   + [self.literal(v) for v, n in zip(values, numeric) if not n])

    def literal(self, v: Any) -> str | None:
        """Regex for the JSON text of `v` (numbers: every plain spelling of the same value)."""
        return json_literal(v, self.ws)

    # ---- free-form values --------------------------------------------------------------------
    def any_value(self, depth: int) -> str:
        """Any JSON value nesting at most `depth` non-empty arrays/objects deep."""
        if self.sink is not None:
            return self.sink.any_value()
        self.used_free_form = True
        if depth in self._any_cache:
            return self._any_cache[depth]
        ws = self.ws
        scalars = [NULL, BOOLEAN, self.number_lexeme, STRING]
        if depth > 0:
            inner = self.any_value(depth - 1)
            scalars.append(rf"\[{ws}(?:{inner}(?:{ws},{ws}{inner})*)?{ws}\]")
            member = STRING + f"{ws}:{ws}" + group(inner)
            scalars.append(rf"\{{{ws}(?:{member}(?:{ws},{ws}{member})*)?{ws}\}}")
        else:  # whitespace after the opener and before the closer, as the engine path's `any` rule
            scalars.append(rf"\[{ws}{ws}\]")
            scalars.append(rf"\{{{ws}{ws}\}}")
        r = "(?:" + "|".join(scalars) + ")"
        self._any_cache[depth] = r
        return r

    # ---- scalar types ------------------------------------------------------------------------
    @staticmethod
    def banned(s: Node, t: str) -> list:
        """Values of type `t` that a `not: {enum}` excludes."""
        return [v for v in s.not_enum if json_type_of(v) == t or (t == "number" and json_type_of(v) == "integer")]

    def no_banned(self, s: Node, t: str) -> None:
        if self.banned(s, t):
            self.unsupported("not", s.ptr + "/not", f"not: {{enum}} with {t} values is not supported")

    def t_null(self, s: Node) -> str | None:
        return None if self.banned(s, "null") else NULL

    def t_boolean(self, s: Node) -> str | None:
        banned = self.banned(s, "boolean")
        return alt([None if True in banned else "true", None if False in banned else "false"])

    @staticmethod
    def bounds(s: Node) -> tuple[Decimal | None, bool, Decimal | None, bool]:
        """(low, low excluded, high, high excluded) from the range keywords of every draft."""
        lo: Decimal | None = None
        hi: Decimal | None = None
        lo_s = hi_s = False

        def dec(k: str) -> Decimal:
            v = s[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise UnsupportedSchemaError(f"{k} must be a number (at {s.kptr(k)})", k, s.kptr(k))
            try:
                return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
            except InvalidOperation:
                raise UnsupportedSchemaError(f"{k} is not finite (at {s.kptr(k)})", k, s.kptr(k)) from None

        if "minimum" in s:
            lo = dec("minimum")
            lo_s = s.get("exclusiveMinimum") is True
        if "maximum" in s:
            hi = dec("maximum")
            hi_s = s.get("exclusiveMaximum") is True
        if "exclusiveMinimum" in s and not isinstance(s["exclusiveMinimum"], bool):
            v = dec("exclusiveMinimum")
            if lo is None or v >= lo:
                lo, lo_s = v, True
        if "exclusiveMaximum" in s and not isinstance(s["exclusiveMaximum"], bool):
            v = dec("exclusiveMaximum")
            if hi is None or v <= hi:
                hi, hi_s = v, True
        return lo, lo_s, hi, hi_s

    def _number_out(self, s: Node, out: str | None) -> str | None:
        if out is None:
            kw = "minimum" if "minimum" in s or "exclusiveMinimum" in s else "maximum"
            self.norm.note_empty(kw, s.kptr(kw), "the numeric range is empty")
            return None
        return out if self.sink is None else self.sink.number(out)

    def t_integer(self, s: Node) -> str | None:
        self.no_banned(s, "integer")
        lo, lo_s, hi, hi_s = self.bounds(s)
        out = integer_regex(lo, lo_s, hi, hi_s, s.get("multipleOf"),
                            lambda kw, why: self.unsupported(kw, s.kptr(kw), why))
        return self._number_out(s, out)

    def t_number(self, s: Node) -> str | None:
        self.no_banned(s, "number")
        lo, lo_s, hi, hi_s = self.bounds(s)
        ptr = s.kptr("minimum" if "minimum" in s or "exclusiveMinimum" in s else "maximum")
        out = number_regex(lo, lo_s, hi, hi_s, s.get("multipleOf"),
                           lambda kw, why: self.unsupported(kw, s.kptr(kw) if kw == "multipleOf" else ptr, why),
                           "minimum" if "minimum" in s else "maximum")
        return self._number_out(s, out)

    def t_string(self, s: Node) -> str | None:
        min_len = s.get("minLength", 0)
        max_len = s.get("maxLength")
        for k, v in (("minLength", min_len), ("maxLength", max_len)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or not float(v).is_integer()):
                raise UnsupportedSchemaError(f"{k} must be a non-negative integer (at {s.kptr(k)})", k, s.kptr(k))
        min_len = int(min_len)
        max_len = None if max_len is None else int(max_len)
        if max_len is not None and max_len < min_len:
            self.norm.note_empty("minLength", s.kptr("minLength"),
                                 f"minLength {min_len} is greater than maxLength {max_len}")
            return None
        fmt = string_format(self, s)
        pattern = s.get("pattern")
        if pattern is not None and not isinstance(pattern, str):
            raise UnsupportedSchemaError(f"pattern must be a string (at {s.kptr('pattern')})", "pattern", s.kptr("pattern"))
        if (fmt is not None or pattern is not None) and self.banned(s, "string"):
            self.unsupported("not", s.ptr + "/not", "not: {enum} with strings beside pattern/format is not supported")
        if fmt is not None or pattern is not None:
            return constrained_string(self, s, fmt, pattern, min_len, max_len)
        banned = self.banned(s, "string")
        if banned:
            if min_len or max_len is not None:
                self.unsupported("not", s.ptr + "/not", "not: {enum} with strings beside minLength/maxLength is not supported")
            else:
                return '"' + not_in_keys(banned) + '"'
        return counted_string(self, s, min_len, max_len)

    # ---- arrays and objects ----------------------------------------------------------------
    def t_array(self, s: Node) -> str | None:
        self.no_banned(s, "array")
        ws = self.ws
        prefix: list[Any] = []
        prefix_ptr = ""
        rest_ptr = s.kptr("items")
        if "prefixItems" in s:
            prefix = s["prefixItems"]
            prefix_ptr = s.kptr("prefixItems")
            rest = s.get("items", True)
        elif isinstance(s.get("items"), list):
            prefix = s["items"]
            prefix_ptr = s.kptr("items")
            rest = s.get("additionalItems", True)
            rest_ptr = s.kptr("additionalItems")
        else:
            rest = s.get("items", True)
        m = int(s.get("minItems", 0))
        M = s.get("maxItems")
        M = None if M is None else int(M)
        if M is not None and M < m:
            self.norm.note_empty("minItems", s.kptr("minItems"), f"minItems {m} is greater than maxItems {M}")
            return None
        P = [self.value(p, f"{prefix_ptr}/{i}") for i, p in enumerate(prefix)]
        I = self.value(rest, rest_ptr) if rest is not True else self.any_value(self.free_depth)
        if arrays.handles(self, s):  # contains, uniqueItems
            return arrays.array_regex(self, arrays.ArrayParts(
                s, [(p, f"{prefix_ptr}/{i}", r) for i, (p, r) in enumerate(zip(prefix, P))], rest, rest_ptr, I, m, M))
        k = len(P)
        sep = self.sep
        e_min = max(0, m - k)  # elements after the prefix
        e_max = None if M is None else M - k
        if I is None or (e_max is not None and e_max <= 0):
            tail_first = "" if e_min == 0 else None
            tail_more = tail_first
        else:
            if e_min == 0:
                tail_first = opt(I + rep(sep + I, 0, None if e_max is None else e_max - 1))
            else:
                tail_first = I + rep(sep + I, e_min - 1, None if e_max is None else e_max - 1)
            tail_more = rep(sep + I, e_min, e_max)
        T: str | None = tail_first if k == 0 else tail_more
        for j in range(k, 0, -1):  # position j (1-based), j-1 elements already present
            if M is not None and j > M:
                T = "" if j - 1 >= m else None
                continue
            cont = cat("" if j == 1 else sep, P[j - 1], T)
            stop = "" if j - 1 >= m else None
            T = alt([cont, stop]) if stop is None or cont is None else opt(cont)
        if T is None:
            return None
        if T == "":
            return r"\[" + self.close_array
        return rf"\[{ws}" + T + self.close_array

    def t_object(self, s: Node, required_sets: list | None = None,
                 key_names: dict[str, str] | None = None, cells: dict | None = None) -> str | None | bool:
        """Objects of `s`; with `required_sets` (groups of key-presence branches), holding every
        group (False when that writing does not apply); `key_names`, `cells`: objects.object_regex."""
        self.no_banned(s, "object")
        mp, req = s.get("minProperties"), s.get("required")
        if (isinstance(mp, int) and not isinstance(mp, bool) and isinstance(req, list)
                and mp <= len({r for r in req if isinstance(r, str)})):
            s = s.copy(drop=("minProperties",))  # the required names alone make that many properties
            s.refs = []  # already on the reference stack
        return objects.object_regex(self, s, required_sets, key_names, cells)
