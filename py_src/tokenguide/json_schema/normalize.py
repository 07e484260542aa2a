"""JSON Schema normalisation: `$ref` resolution and `allOf` merging into flat `Node`s.

The user's schema is never modified: every `Node` holds a copy of one schema object's keywords
(`kw`, with `$ref`, `allOf`, `anyOf`, `oneOf`, `not` and the dependency keywords resolved away)
and the bookkeeping the emitter needs (JSON pointers for error messages, the `$ref` targets
being expanded, the `anyOf`/`oneOf` groups still to distribute, values excluded by `not`).
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from typing import Any, Iterator, NamedTuple

from ..errors import UnsupportedSchemaError
from .formats import KNOWN_FORMATS
from .multiples import multiple_lcm
from .negation import EACH_VALUE_KEYWORDS, negation_branches
from .patterns import PatternError, ecma_search
from .refs import RefResolver
from .text import ALL_TYPES, canon, ptr_escape, type_intersection
from .unevaluated import apply_unevaluated, take_unevaluated

__all__ = ["Conjunction", "Group", "Node", "Normalizer", "RuleRef", "accepts_everything", "any_of_says_nothing", "flatten_branch", "TYPE_KEYWORDS", "VALIDATION", "VALUE_CHECKED_UNIQUE", "enum_values", "types_of"]

# Keywords that constrain instances (the drafts' assertions and applicators); every other
# keyword (annotations, x-* extensions, unknown words) is ignored, as validators do.
VALIDATION = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
    "propertyNames", "minProperties", "maxProperties", "dependencies", "dependentRequired",
    "dependentSchemas", "unevaluatedProperties", "items", "prefixItems", "additionalItems", "contains",
    "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems", "minLength",
    "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef",
    "$recursiveRef",
})

#: the keywords that test values of one type only (other values pass them)
TYPE_KEYWORDS = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "object": frozenset({"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                         "minProperties", "maxProperties", "unevaluatedProperties"}),
    "array": frozenset({"items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains",
                        "unevaluatedItems"}),
    "null": frozenset(), "boolean": frozenset(),
}

#: while set (compile_json_schema: a value_checks.ValueChecks), uniqueItems the language cannot
#: express are written without the keyword and left to it, to be checked on the values
VALUE_CHECKED_UNIQUE: ContextVar[Any] = ContextVar("value_checked_unique", default=None)

_MERGE_SCHEMA_KEYWORDS = ("items", "additionalProperties", "additionalItems", "propertyNames")


def _tests_values(branch: dict) -> bool:
    """Does a negation branch test member or item values (not only types and which keys are there)?"""
    return "contains" in branch or "items" in branch or any(
        isinstance(v, dict) for v in (branch.get("properties") or {}).values())


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


#: how many recursive $refs one merge may write out one level, nested (Normalizer.merge)
MAX_UNFOLDING = 4


class Group(NamedTuple):
    """An anyOf/oneOf (or rewritten dependency/not) still to distribute over its branches.
    `pos`: how many of the node's own declared properties come before the branches' ones."""
    kind: str
    subs: list
    ptr: str
    pos: int


class Node:
    """A schema object after normalisation (see the module docstring)."""

    __slots__ = ("kw", "ptr", "ptrs", "refs", "groups", "not_enum")

    def __init__(self, kw: dict, ptr: str) -> None:
        self.kw = kw
        self.ptr = ptr
        self.ptrs: dict[str, str] = {}
        self.refs: list[str] = []
        self.groups: list[Group] = []
        self.not_enum: list = []

    def get(self, key: str, default: Any = None) -> Any:
        return self.kw.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.kw

    def __getitem__(self, key: str) -> Any:
        return self.kw[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.kw)

    def copy(self, drop: tuple[str, ...] = (), keep_groups: bool = True) -> "Node":
        """A shallow copy, without the keywords in `drop` (and without groups unless kept)."""
        out = Node({k: v for k, v in self.kw.items() if k not in drop}, self.ptr)
        out.ptrs = dict(self.ptrs)
        out.refs = list(self.refs)
        out.groups = list(self.groups) if keep_groups else []
        out.not_enum = list(self.not_enum)
        return out

    def kptr(self, key: str) -> str:
        """The JSON pointer of keyword `key` in the user's schema."""
        return self.ptrs.get(key, f"{self.ptr}/{ptr_escape(key)}")

    def member_ptr(self, key: str, name: str) -> str:
        """The JSON pointer of member `name` of keyword `key` (e.g. one of `properties`): after an
        allOf merge, members from different branches keep the pointers of where they are written."""
        return self.ptrs.get(f"{key}/{ptr_escape(name)}", f"{self.kptr(key)}/{ptr_escape(name)}")

    def constrains(self) -> bool:
        """Does the node restrict instances at all?"""
        return bool(self.groups or self.not_enum) or any(k in VALIDATION for k in self.kw)


class Conjunction(dict):
    """`{"allOf": parts}` that a merge writes, remembering where each part is written in the
    user's schema: flattened, each part keeps its own pointer (refusals name real places, and
    the unique check finds its arrays) instead of one under an `allOf` the user never wrote."""

    __slots__ = ("where",)

    def __init__(self, parts: list[tuple[Any, str]]) -> None:
        super().__init__(allOf=[p for p, _ in parts])
        self.where = [w for _, w in parts]


class RuleRef:
    """In grammar mode: a `$ref` back to a schema already being expanded (a grammar rule)."""

    __slots__ = ("ptr", "schema")

    def __init__(self, ptr: str, schema: Any) -> None:
        self.ptr = ptr
        self.schema = schema

    def __repr__(self) -> str:
        return f"RuleRef({self.ptr!r})"


def enum_values(s: Node) -> list | None:
    """The allowed values of enum/const together, or None when neither is present."""
    vals = None
    if "enum" in s:
        if not isinstance(s["enum"], list):
            raise UnsupportedSchemaError(f"enum must be an array (at {s.kptr('enum')})", "enum", s.kptr("enum"))
        vals = list(s["enum"])
    if "const" in s:
        c = s["const"]
        vals = [c] if vals is None else [v for v in vals if canon(v) == canon(c)]
    return vals


def types_of(s: Node) -> list[str]:
    """The node's `type` as a list in canonical order (integer dropped when number is there)."""
    t = s.get("type")
    if t is None or t == "any":
        return list(ALL_TYPES)
    tl = [t] if isinstance(t, str) else t
    ptr = s.kptr("type")
    if not isinstance(tl, list) or not all(isinstance(x, str) for x in tl):
        raise UnsupportedSchemaError(f"type must be a string or an array of strings (at {ptr})", "type", ptr)
    out = []
    for x in tl:
        if x == "any":
            return list(ALL_TYPES)
        if x not in ALL_TYPES:
            raise UnsupportedSchemaError(f"unknown type {x!r} (at {ptr})", "type", ptr)
        if x not in out:
            out.append(x)
    if "number" in out and "integer" in out:
        out.remove("integer")
    return [x for x in ALL_TYPES if x in out]


_DRAFTS = ((re.compile(r"draft-0?3\b"), 3), (re.compile(r"draft-0?4\b"), 4), (re.compile(r"draft-0?6\b"), 6),
           (re.compile(r"draft-0?7\b"), 7), (re.compile(r"2019-09"), 2019), (re.compile(r"2020-12"), 2020))


def schema_draft(schema: Any) -> int:
    """The JSON Schema draft `$schema` names (3, 4, 6, 7, 2019, 2020); 2020 when absent or unknown,
    as validators default to the latest."""
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    if isinstance(uri, str):
        for rx, draft in _DRAFTS:
            if rx.search(uri):
                return draft
    return 2020


def is_old_draft(schema: Any) -> bool:
    """Drafts 3 to 7 ignore the siblings of `$ref`."""
    return schema_draft(schema) <= 7


_CONDITIONAL = ("if", "then", "else")


def _conditional(n: Node) -> list:
    """The node's if/then/else values (None where absent), for comparing two nodes' conditions."""
    return [n.get(k) for k in _CONDITIONAL]


_VACUOUS = {"properties": dict, "patternProperties": dict, "required": list, "allOf": list}


def constrains_nothing(v: Any) -> bool:
    """Is raw schema `v` certain to accept every value (true, `{}`, annotations, `properties`
    whose schemas do, `required: []`, an allOf of such)? A `then: {properties: {}}` is no
    condition at all (GitLab CI's inputs)."""
    if v is True:
        return True
    if not isinstance(v, dict):
        return False
    for k, x in v.items():
        if k not in VALIDATION:
            continue
        if _VACUOUS.get(k) is not type(x):
            return False
        if k in ("properties", "patternProperties") and not all(constrains_nothing(y) for y in x.values()):
            return False
        if (k == "required" and x) or (k == "allOf" and not all(constrains_nothing(y) for y in x)):
            return False
    return True


def _without_stray_branches(n: Node) -> Node:
    """`n` without then/else when it has no `if` (they have no effect then, and a merge must not
    pair them with the other side's `if`)."""
    if "if" in n or not ("then" in n or "else" in n):
        return n
    return n.copy(drop=("then", "else"), keep_groups=True)


def _without_stray_counts(n: Node) -> Node:
    """`n` without minContains/maxContains when it has no contains (they have no effect then)."""
    if "contains" in n or not ("minContains" in n or "maxContains" in n):
        return n
    return n.copy(drop=("minContains", "maxContains"), keep_groups=True)


class Normalizer:
    """Resolves `$ref` (through refs.RefResolver) and merges `allOf` into Nodes."""

    def __init__(self, root: Any, depth: int, lenient: bool, grammar: bool = False) -> None:
        self.root = root
        self.grammar = grammar  # recursive $ref become RuleRefs instead of being unrolled
        self.recursive: list[str] = []  # grammar mode: the recursive $ref targets met
        self.depth = depth
        self.lenient = lenient
        self.draft = schema_draft(root)
        self.old_draft = self.draft <= 7
        # the draft `$schema` names explicitly (None: absent or unknown, every spelling applies)
        uri = root.get("$schema") if isinstance(root, dict) else None
        named = isinstance(uri, str) and (self.draft != 2020 or "2020-12" in uri)
        self.declared_draft = self.draft if named else None
        self.ignored: list[tuple[str, str]] = []
        self.ref_stack: list[str] = []
        self.unfolding: list[str] = []  # marks of (rule, other side) pairs being merged (`merge`)
        self.empty_reasons: list[tuple[str, str, str]] = []
        self.cuts: list[str] = []  # $refs cut at the unrolling limit (shared with sub-emitters' copies)
        self.resolver = RefResolver(root, self.draft)
        self.unique_drops: Any = VALUE_CHECKED_UNIQUE.get()

    def unsupported(self, keyword: str, pointer: str, why: str) -> None:
        """Raise, or in lenient mode record the ignored keyword and return."""
        if self.lenient:
            self.ignored.append((keyword, pointer))
            return
        raise UnsupportedSchemaError(f"{why} (keyword {keyword!r} at {pointer})", keyword, pointer)

    def note_empty(self, keyword: str, pointer: str, why: str) -> None:
        """Remember why a sub-schema accepts nothing (for the error when the whole schema does)."""
        self.empty_reasons.append((keyword, pointer, why))

    # ---- $ref ---------------------------------------------------------------------------------
    def resolve_ref(self, ref: Any, pointer: str) -> tuple[Any, str] | None:
        """The schema `ref` (in the schema object at `pointer`) points to and its pointer; None
        when ignored (lenient mode). See refs.py for base URIs, anchors and pointers."""
        return self.resolver.resolve(ref, pointer, self.unsupported)

    # ---- flatten -------------------------------------------------------------------------------
    def flatten(self, schema: Any, ptr: str) -> Node | RuleRef | bool:
        """A Node without $ref/allOf (merged) for `schema`, or a bool schema. Nodes pass through.
        In grammar mode a `$ref` to a schema being expanded gives a RuleRef."""
        if isinstance(schema, (bool, Node, RuleRef)):
            return schema
        if not isinstance(schema, dict):
            raise UnsupportedSchemaError(f"a schema must be an object or a boolean (at {ptr})", None, ptr)
        where = schema.where if isinstance(schema, Conjunction) else None
        kw = dict(schema)
        if self.declared_draft is not None:  # keywords of later drafts: that draft's validator ignores them
            for k in [k for k in kw if _INTRODUCED.get(k, 0) > self.declared_draft]:
                del kw[k]
        unevaluated = take_unevaluated(kw)
        _dynamic_to_static(self, kw, ptr)
        parts: list[Node | bool] = []
        if "$ref" in kw:
            ref = kw.pop("$ref")
            if self.old_draft:
                kw = {}
            hit = self.resolve_ref(ref, ptr)
            if hit is not None:  # None: ignored in lenient mode
                tptr = hit[1]
                if self.grammar and tptr in self.ref_stack:
                    if tptr not in self.recursive:
                        self.recursive.append(tptr)
                    if any(k in VALIDATION for k in kw):
                        self.unsupported("$ref", ptr, "a recursive $ref beside other keywords is not supported")
                    return RuleRef(tptr, hit[0])
                if self.ref_stack.count(tptr) >= self.depth:
                    self.note_empty("$ref", ptr, f"recursive $ref {ref!r} unrolled max_recursion_depth times")
                    self.cuts.append(ptr)
                    return False
                self.ref_stack.append(tptr)
                try:
                    target = self.flatten(hit[0], tptr)
                finally:
                    self.ref_stack.pop()
                if isinstance(target, Node):
                    target = target.copy()
                    target.refs = [tptr] + target.refs
                parts.append(target)
        node = Node(kw, ptr)
        own_props = kw.get("properties") if isinstance(kw.get("properties"), dict) else {}
        if any_of_says_nothing(kw.get("anyOf")):
            del kw["anyOf"]
        groups = [Group(k, kw.pop(k), f"{ptr}/{k}", len(own_props)) for k in ("anyOf", "oneOf") if k in kw]
        groups.extend(_dependency_groups(kw, ptr, len(own_props), self.declared_draft))
        if "not" in kw:
            neg = self._negate(node, ptr, len(own_props))
            if neg is False:
                return False
            if neg is not None:
                groups.extend(neg)
        node.groups = groups
        all_of = kw.pop("allOf", None)
        if all_of is not None:
            if not isinstance(all_of, list):
                raise UnsupportedSchemaError(f"allOf must be an array (at {ptr})", "allOf", ptr)
            seen: set[str] = set()
            for i, sub in enumerate(all_of):
                text = self._text(sub) if len(all_of) > 1 else None
                if text is not None and text in seen:
                    continue  # the same schema twice: one conjunct (a recursive $ref merged with itself)
                if text is not None:
                    seen.add(text)
                parts.append(self.flatten(sub, where[i] if where is not None else f"{ptr}/allOf/{i}"))
        result: Node | bool = node
        for p in parts:
            result = self.merge(result, p)
            if result is False:
                return False
        if unevaluated and isinstance(result, Node):
            apply_unevaluated(result, unevaluated, ptr, self.unsupported)
        return result

    def _negate(self, s: Node, ptr: str, pos: int) -> list | None | bool:
        """Rewrite `not` in place when its schema is a type list, an enum/const, or required names.
        Returns groups to add, None (nothing to add, or left for the emitter to report),
        or False when nothing can match."""
        sub = self.flatten(s["not"], f"{ptr}/not")
        if sub is True:
            return False
        if sub is False:
            del s.kw["not"]
            return None
        if isinstance(sub, RuleRef):
            return None  # a recursive $ref: the emitter reports it
        # (a keyword whose schema accepts everything says nothing under `not`, whose annotations
        # are dropped: `not {type: object, additionalProperties: true}` is a type list)
        keys = {k for k in sub if k in VALIDATION and not (k in EACH_VALUE_KEYWORDS and constrains_nothing(sub[k]))}
        if not keys and not sub.groups and not sub.not_enum:
            return False  # not {} rejects everything
        if sub.groups or sub.not_enum:
            return None
        if keys == {"type"}:
            banned = set(types_of(sub))
            if "integer" in banned and "number" not in banned and "number" in types_of(s):
                return None  # "number but not integer" is not expressible
            allowed = [t for t in ALL_TYPES if t not in banned and not (t == "integer" and "number" in banned)]
            if not allowed:
                return False
            del s.kw["not"]
            s.kw["type"] = type_intersection(s["type"], allowed) if "type" in s else allowed
            return None
        if keys <= {"enum", "const"}:
            values = enum_values(sub) or []
            del s.kw["not"]
            s.not_enum = s.not_enum + values
            return None
        branches = negation_branches(sub.kw, types_of(sub), VALIDATION, self.draft)
        if branches is None or any(_tests_values(b) for b in branches):
            return None  # conditions on member or item values: logic.logic_value (a lookahead first)
        del s.kw["not"]
        if not branches:
            return False
        # e.g. an object lacking one of the required names (`required` holds for every non-object)
        return [Group("anyOf", branches, f"{ptr}/not", pos)]

    # ---- merge ---------------------------------------------------------------------------------
    def expand(self, ref: RuleRef) -> Node | RuleRef | bool:
        """One level of a RuleRef's schema (inner references to it stay RuleRefs)."""
        self.ref_stack.append(ref.ptr)
        try:
            return self.flatten(ref.schema, ref.ptr)
        finally:
            self.ref_stack.pop()

    def _text(self, schema: Any) -> str | None:
        """The canonical text of a raw schema, when equal texts mean equal schemas (no embedded
        `$id` resources, so every `$ref` text resolves alike everywhere); else None."""
        if self.resolver.embedded or not isinstance(schema, dict):
            return None
        try:
            return canon(schema)
        except (TypeError, ValueError):
            return None  # holds Nodes or values JSON cannot spell: not compared

    def merge(self, a: Any, b: Any) -> Any:
        """Schema accepting exactly what both accept (conjunction), as one Node."""
        if isinstance(a, RuleRef) and isinstance(b, RuleRef) and a.ptr == b.ptr:
            return a  # X and X
        if isinstance(a, RuleRef) or isinstance(b, RuleRef):
            other = b if isinstance(a, RuleRef) else a
            if other is True or (isinstance(other, Node) and not other.constrains()):
                return a if isinstance(a, RuleRef) else b
            if other is False:
                return False
            ref = a if isinstance(a, RuleRef) else b
            if isinstance(other, Node):
                # X and C, X a rule: X's schema one level out (its own inner references stay rules)
                # and C. Exact; it ends where C no longer reaches a reference to X, and is refused
                # when the same pair comes back inside (that would need a rule per pair). The pair's
                # mark rides on the merged node's refs: the emitter holds them on ref_stack while
                # it writes the node's members, where the pair would come back
                mark = f"&{ref.ptr}&{other.ptr}"  # (no pointer starts with "&")
                marks = [m for m in self.ref_stack + self.unfolding if m.startswith("&")]
                if mark not in marks and len(marks) < MAX_UNFOLDING:
                    self.unfolding.append(mark)
                    try:
                        merged = self.merge(self.expand(ref), other)
                    finally:
                        self.unfolding.pop()
                    if isinstance(merged, Node):
                        merged = merged.copy()
                        merged.refs = merged.refs + [mark]
                    return merged
            self.unsupported("$ref", ref.ptr, "a recursive $ref combined with other constraints (allOf, anyOf "
                             "branches or siblings) that constrain it again inside its own recursion is not "
                             "supported")
            return other
        if a is True:
            return b.copy() if isinstance(b, Node) else b
        if b is True:
            return a
        if a is False or b is False:
            return False
        a, b = _without_stray_counts(a), _without_stray_counts(b)
        a, b = _without_stray_branches(a), _without_stray_branches(b)
        if "if" in a and "if" in b and canon(_conditional(a)) != canon(_conditional(b)):
            b = self._conditional_group(b)
        out = a.copy()
        out.refs = a.refs + b.refs
        out.not_enum = a.not_enum + b.not_enum
        if "contains" in a and "contains" in b:
            if canon(a["contains"]) != canon(b["contains"]):
                self.unsupported("contains", b.kptr("contains"), "allOf of two different contains schemas is not "
                                 "supported (two items may be needed)")
            for k, pick, default in (("minContains", max, 1), ("maxContains", min, None)):
                va, vb = a.get(k, default), b.get(k, default)
                if va is not None or vb is not None:
                    out.kw[k] = pick(v for v in (va, vb) if v is not None)
                    out.ptrs.setdefault(k, b.kptr(k) if k in b else a.kptr(k))
        items = _merge_items(a, b)
        if items is not None:
            for k in _ITEM_KEYWORDS:
                out.kw.pop(k, None)
            for k, v in items.items():
                out.kw[k] = v
                out.ptrs[k] = a.kptr(k) if k in a else b.kptr(k)
        for k, v in b.kw.items():
            if k in ("minContains", "maxContains") and "contains" in a:
                continue  # combined above
            if items is not None and k in _ITEM_KEYWORDS:
                continue  # merged position by position above
            if k == "uniqueItems" and k in out.kw:
                out.kw[k] = out.kw[k] is True or v is True
                continue
            bk = b.kptr(k)
            if k not in out.kw:
                out.kw[k] = v
                out.ptrs[k] = bk
                # members b took from its own merges keep where they are written
                out.ptrs.update((x, y) for x, y in b.ptrs.items() if x.startswith(f"{k}/"))
                continue
            out.ptrs.setdefault(k, a.kptr(k))  # the merged keyword stays where the first side wrote it
            av = out.kw[k]
            if canon(av) == canon(v) and k != "properties":
                continue
            if k == "type":
                out.kw[k] = type_intersection(av, v)
            elif k == "properties":
                pa = dict(av)
                for name in av:
                    out.ptrs.setdefault(f"{k}/{ptr_escape(name)}", a.member_ptr(k, name))
                for name, sub in v.items():
                    if name in pa:
                        text = self._text(sub)
                        if text is None or text != self._text(pa[name]):
                            pa[name] = Conjunction([(pa[name], a.member_ptr(k, name)), (sub, b.member_ptr(k, name))])
                        # else declared alike on both sides: once
                    else:
                        pa[name] = sub
                        out.ptrs[f"{k}/{ptr_escape(name)}"] = b.member_ptr(k, name)
                out.kw[k] = pa
            elif k == "required":
                out.kw[k] = list(dict.fromkeys(list(av) + list(v)))
            elif k == "patternProperties" and isinstance(av, dict) and isinstance(v, dict):
                # a key takes every matching pattern's schema: both maps together (a pattern in
                # both takes both); _merge_additional refuses what additionalProperties would change
                pp = dict(av)
                for pat in av:
                    out.ptrs.setdefault(f"{k}/{ptr_escape(pat)}", a.member_ptr(k, pat))
                for pat, sub in v.items():
                    pp[pat] = Conjunction([(pp[pat], a.member_ptr(k, pat)), (sub, b.member_ptr(k, pat))]) \
                        if pat in pp else sub
                    out.ptrs.setdefault(f"{k}/{ptr_escape(pat)}", b.member_ptr(k, pat))
                out.kw[k] = pp
            elif k in ("minimum", "minLength", "minItems", "minProperties"):
                out.kw[k] = max(av, v)
            elif k in ("maximum", "maxLength", "maxItems", "maxProperties"):
                out.kw[k] = min(av, v)
            elif k in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(av, bool) and not isinstance(v, bool):
                out.kw[k] = max(av, v) if k == "exclusiveMinimum" else min(av, v)
            elif k == "enum":
                vb = {canon(x) for x in v}
                out.kw[k] = [x for x in av if canon(x) in vb]
            elif k == "not":
                out.kw[k] = {"anyOf": [av, v]}  # neither: not (either)
            elif k == "const" and not (_is_number(av) and _is_number(v) and av == v):
                return False  # two different values
            elif k in _MERGE_SCHEMA_KEYWORDS and not isinstance(av, list) and not isinstance(v, list):
                out.kw[k] = {"allOf": [av, v]}
            elif k == "multipleOf" and multiple_lcm(av, v) is not None:
                out.kw[k] = multiple_lcm(av, v)  # a multiple of both is a multiple of their lcm
            elif k in ("pattern", "format", "multipleOf") and (not self.grammar or k == "pattern"):
                # both: also "not (not {k: v})", which the regex path writes with lookaheads
                # (the engine path, for two patterns: a string lexeme from their intersection)
                both = {"not": {k: v}}
                out.kw["not"] = {"anyOf": [out.kw["not"], both]} if "not" in out.kw else both
                out.ptrs.setdefault("not", bk)
            elif k in VALIDATION:
                self.unsupported("allOf", a.ptr, f"cannot merge two different {k!r} values")
            # else an annotation or an unknown keyword (x-*, OpenAPI's nullable, ...): validators
            # ignore it, so it never blocks a merge; the first side's value stays
        if b.groups:
            # b's anyOf/oneOf groups keep their place among b's properties in the merged order
            final = list(out.get("properties", {}) or {})
            bprops = list(b.get("properties", {}) or {})
            na = len(a.get("properties", {}) or {})
            held = {(g.kind, self._text({"subs": g.subs})) for g in a.groups}
            for g in b.groups:
                text = self._text({"subs": g.subs}) if held else None
                if text is not None and (g.kind, text) in held:
                    continue  # the same anyOf/oneOf on both sides: once
                before = [final.index(n) for n in bprops[:g.pos] if n in final]
                out.groups.append(g._replace(pos=max(before) + 1 if before else na))
        self._merge_additional(a, b, out)
        return out

    def _conditional_group(self, b: Node) -> Node:
        """`b` with its if/then/else as an anyOf group of two disjoint branches, (if and then) or
        (not if, and else), so that an allOf of several conditions merges: the node keeps one
        `if` (logic.logic_value) and each further one is distributed like an anyOf, its `not`
        written as a lookahead. Drafts before 7, which ignore if/then/else, just drop it."""
        out = b.copy(drop=_CONDITIONAL)
        if (self.declared_draft or 7) < 7 or all(constrains_nothing(b.get(k, True)) for k in ("then", "else")):
            return out  # without then/else (or with ones that accept everything), `if` decides nothing
        ip = b.kptr("if")
        cond = self.flatten(b["if"], ip)
        then = self.merge(cond, self.flatten(b.get("then", True), b.kptr("then")))
        negated = Node({"not": b["if"]}, b.ptr)
        negated.ptrs["not"] = ip
        other = self.merge(negated, self.flatten(b.get("else", True), b.kptr("else")))
        props = b.get("properties")
        out.groups.append(Group("anyOf", [then, other], ip, len(props) if isinstance(props, dict) else 0))
        return out

    def _fold_patterns(self, pats: dict, out: Node) -> None:
        """The other side is closed (additionalProperties false, no patterns): only its declared
        names may appear, so each takes the schemas of the patterns matching it and the
        patterns go."""
        props = dict(out.get("properties", {}) or {})
        for name in props:
            try:
                subs = [sub for p, sub in pats.items() if ecma_search(p, name)]
            except PatternError as exc:
                self.unsupported("patternProperties", out.ptr, str(exc))
                return
            if subs:
                props[name] = {"allOf": [props[name], *subs]}
        out.kw["properties"] = props
        out.kw.pop("patternProperties", None)

    def _merge_additional(self, a: Node, b: Node, out: Node) -> None:
        """Each side's additionalProperties also governs the names only the other side declares."""
        for side, other in ((a, b), (b, a)):
            addl = side.get("additionalProperties", True)
            if addl is True or addl == {} or not isinstance(other.get("properties"), dict):
                continue
            own = side.get("properties", {}) or {}
            pats = side.get("patternProperties") or {}
            props = dict(out.get("properties", {}))
            for name in other["properties"]:
                if name in own:
                    continue
                try:
                    if any(ecma_search(p, name) for p in pats):
                        continue  # the pattern's schema applies (the object emitter combines it)
                except PatternError as exc:
                    self.unsupported("patternProperties", side.ptr, str(exc))
                props[name] = False if addl is False else {"allOf": [props[name], addl]}
            out.kw["properties"] = props
        for side, other in ((a, b), (b, a)):
            pa, pb = side.get("patternProperties"), other.get("patternProperties")
            pb = pb if isinstance(pb, dict) else {}
            if isinstance(pa, dict) and pa and other.get("additionalProperties", True) is False and not pb:
                self._fold_patterns(pa, out)
                continue
            # a key only `side`'s pattern matches must also obey the other's additionalProperties,
            # which the merged node no longer applies to it: when the other side has no patterns
            # and declares no name the pattern matches, the pattern's schema takes it along
            addl = other.get("additionalProperties", True)
            if isinstance(pa, dict) and addl not in (True, {}) and not pb and _patterns_take(pa, other, addl, out):
                continue
            if (isinstance(pa, dict) and addl not in (True, {})
                    and any(sub is not False and p not in pb for p, sub in pa.items())):
                self.unsupported("patternProperties", side.ptr,
                                 "allOf of patternProperties with another schema's additionalProperties is not "
                                 "supported (unless the patterns' schemas are false)")


def flatten_branch(norm: "Normalizer", sub: Any, ptr: str, same: tuple | list) -> Node | RuleRef | bool:
    """`norm.flatten` of an anyOf/oneOf branch written where the node already holds the $ref
    targets `same`: a branch that is a $ref to one of them is true there (X and X is X), and
    no recursion is recorded for it (no value was entered: it would misroute `auto`)."""
    before = len(norm.recursive)
    f = norm.flatten(sub, ptr)
    if isinstance(f, RuleRef) and f.ptr in same:
        del norm.recursive[before:]
        return True
    return f



def _patterns_take(pats: dict, other: Node, addl: Any, out: Node) -> bool:
    """Give each of `pats` (one side's patternProperties, the other side `other` having none)
    the other side's additionalProperties `addl` too, in `out`; False (nothing changed) when a
    name `other` declares matches one of them (that name must not take `addl`)."""
    names = other.get("properties") or {}
    try:
        if not isinstance(names, dict) or any(ecma_search(p, n) for p in pats for n in names):
            return False
    except PatternError:
        return False
    merged = dict(out.get("patternProperties") or {})
    for p, sub in pats.items():
        merged[p] = False if sub is False or addl is False else {"allOf": [merged.get(p, sub), addl]}
    out.kw["patternProperties"] = merged
    return True


# The draft that introduced a keyword the emitters read without asking the draft (contains,
# if/then/else and the dependency spellings are decided where they are read).
_INTRODUCED = {"const": 6, "propertyNames": 6, "prefixItems": 2020,
               "unevaluatedProperties": 2019, "unevaluatedItems": 2019}
_ITEM_KEYWORDS = ("prefixItems", "items", "additionalItems")


def item_layout(n: Node) -> tuple[list, Any, str | None]:
    """(prefix schemas, schema of the items after them, the prefix's keyword or None), as the
    emitter reads them: prefixItems + items, else an items array + additionalItems, else items."""
    if "prefixItems" in n and isinstance(n["prefixItems"], list):
        return list(n["prefixItems"]), n.get("items", True), "prefixItems"
    if isinstance(n.get("items"), list):
        return list(n["items"]), n.get("additionalItems", True), "items"
    return [], n.get("items", True), None


def _both(x: Any, y: Any) -> Any:
    if x is True or x == {}:
        return y
    if y is True or y == {} or x is y:
        return x
    if x is False or y is False:
        return False
    return {"allOf": [x, y]}


def _merge_items(a: Node, b: Node) -> dict | None:
    """The item keywords of allOf(a, b) when either has a prefix (prefixItems, items array):
    position i takes both sides' schema for it (a side's prefix entry, else its schema for the
    other items), so the one side's `items` also constrains the other's prefix. None when
    neither has a prefix, or they spell it with different keywords (merged as before)."""
    pa, ra, ka = item_layout(a)
    pb, rb, kb = item_layout(b)
    if ka is None and kb is None or (ka is not None and kb is not None and ka != kb):
        return None
    key = ka or kb
    prefix = []
    for i in range(max(len(pa), len(pb))):
        x = _both(pa[i] if i < len(pa) else ra, pb[i] if i < len(pb) else rb)
        if x is False:  # no item fits position i: at most i items
            return {key: prefix, "items" if key == "prefixItems" else "additionalItems": False}
        prefix.append(x)
    rest_key = "items" if key == "prefixItems" else "additionalItems"
    if rest_key not in a and rest_key not in b:  # no side spells it: absent, not `true` (which
        return {key: prefix}                     # would evaluate every item for unevaluatedItems)
    return {key: prefix, rest_key: _both(ra, rb)}


def _dynamic_to_static(norm: Any, kw: dict, ptr: str) -> None:
    """`$dynamicRef` (2020-12) / `$recursiveRef` (2019-09) in a document that is one schema
    resource: the dynamic scope holds that resource alone, so the outermost dynamic anchor
    is the one the reference meets first, and the keyword is a `$ref` (written into `kw`).
    The other draft's spelling is ignored, as that draft's validator does; with embedded
    `$id` resources, or `$recursiveRef` without a `$schema` naming 2019-09, refused."""
    for key, draft in (("$dynamicRef", 2020), ("$recursiveRef", 2019)):
        if key not in kw:
            continue
        if norm.declared_draft is not None and norm.declared_draft != draft:
            del kw[key]  # not a keyword of the declared draft
            continue
        kptr = f"{ptr}/{ptr_escape(key)}"
        if norm.declared_draft is None and draft == 2019:
            norm.unsupported(key, kptr, "'$recursiveRef' is a 2019-09 keyword, which the default draft "
                             "(2020-12) ignores: name the draft with \"$schema\" or use $dynamicRef")
        elif norm.resolver.embedded:
            norm.unsupported(key, kptr, f"{key!r} in a schema with embedded $id resources is not supported "
                             "(its target depends on the dynamic scope): use $ref")
        elif "$ref" in kw:
            norm.unsupported(key, kptr, f"{key!r} beside $ref is not supported: keep one of them")
        else:
            kw["$ref"] = kw.pop(key)
            continue
        kw.pop(key, None)  # lenient: ignored


def _dependency_groups(kw: dict, ptr: str, pos: int, draft: int | None) -> list[Group]:
    """dependencies (drafts 3 to 7) / dependentRequired / dependentSchemas (from 2019-09) as
    disjoint anyOf pairs: either the trigger property is absent, or it is present with what
    it requires. A `$schema` naming a draft ignores the other spelling, as its validators do;
    without one, both apply."""
    groups = []
    for key in ("dependencies", "dependentRequired", "dependentSchemas"):
        deps = kw.pop(key, None)
        if deps is None or (draft is not None and (key == "dependencies") != (draft <= 7)):
            continue
        if not isinstance(deps, dict):
            raise UnsupportedSchemaError(f"{key} must be an object (at {ptr}/{key})", key, f"{ptr}/{key}")
        for name, dep in deps.items():
            dptr = f"{ptr}/{key}/{ptr_escape(name)}"
            absent = {"properties": {name: False}}
            if isinstance(dep, list):
                present: Any = {"required": [name] + [d for d in dep if isinstance(d, str)]}
            elif isinstance(dep, (dict, bool)):
                present = {"required": [name], "allOf": [dep]}
            else:
                raise UnsupportedSchemaError(f"{key} values must be arrays or schemas (at {dptr})", key, dptr)
            groups.append(Group("anyOf", [absent, present], dptr, pos))
    return groups


def any_of_says_nothing(branches: Any) -> bool:
    """Is an anyOf of `branches` true of every value and silent (marks nothing evaluated)?"""
    return isinstance(branches, list) and any(map(accepts_everything, branches)) and not any(
        isinstance(b, dict) and not _ANNOTATING.isdisjoint(b) for b in branches)


_ANNOTATING = TYPE_KEYWORDS["object"] | TYPE_KEYWORDS["array"] | frozenset(  # (and some that mark nothing)
    "allOf anyOf oneOf if then else dependentSchemas dependencies $ref $dynamicRef $recursiveRef".split())


def accepts_everything(schema: Any) -> bool:
    """Is `schema` true, or only annotations (an unknown `format`: AWS's "AWS::KMS::Key.Arn")?"""
    return schema is True or (isinstance(schema, dict) and all(
        k not in VALIDATION or (k == "format" and isinstance(schema[k], str) and schema[k] not in KNOWN_FORMATS)
        for k in schema))
