"""`not` of an object-structure condition as an anyOf of plain schemas, without a lookahead.

`properties` and `required` only test objects, so `not {properties: {k: C}, required: [r]}` holds
for an object that lacks `r` or has `k` with a value outside `C`, and for no non-object; a
`type` in the condition adds the values of the other types; `items: S` and `contains: C` (test
arrays only) likewise give an array with an item outside S, or with every item outside C. Each branch is an ordinary schema
(`{"type": "object", "required": [k], "properties": {k: {"not": C}}}`), so the negation moves
down to the member value, where it may again be an enum left out or another such condition:
the `else` of `if: {properties: {runs: {properties: {using: {const: composite}}}}}` is a union
of objects instead of a value lexeme of the whole object (GitHub action metadata).
`negated_objects` lists the schema objects under some `not` (the values check stays out of them).
"""

from __future__ import annotations

from typing import Any, Callable

from .text import ALL_TYPES, ptr_escape

__all__ = ["EACH_VALUE_KEYWORDS", "negated_objects", "negation_branches"]

_NEGATABLE = frozenset({"type", "properties", "required", "items", "contains"})
#: keywords of one schema that every member, name or item is tested against: with a schema that
#: accepts everything they test nothing (`additionalProperties: true`)
EACH_VALUE_KEYWORDS = frozenset({"additionalProperties", "unevaluatedProperties", "propertyNames", "additionalItems",
                                 "unevaluatedItems", "items"})
_OBJECT_KEYS = frozenset({"properties", "required"})
_ARRAY_KEYS = frozenset({"items", "contains"})


def negation_branches(kw: dict, types: list[str], validation: frozenset, draft: int) -> list | None:
    """Schemas (raw, an anyOf of them) of the values a condition rejects: `kw` its keywords,
    `types` its `type` as a list (all types when absent), `validation` the keywords that validate
    (the rest are annotations), `draft` the schema's (before 6, `contains` is an annotation and an
    item outside `items` cannot be written). None when the condition says more than the keywords above."""
    if draft < 6:
        validation = validation - {"contains"}
    def trivial(v: Any) -> bool:
        return v is True or (isinstance(v, dict) and not any(k in validation for k in v))

    # (a member's or item's schema that accepts everything tests nothing: `additionalProperties: true`)
    keys = {k for k in kw if k in validation and not (k in EACH_VALUE_KEYWORDS and trivial(kw[k]))}
    if not keys or not keys <= _NEGATABLE:
        return None

    props = kw.get("properties", {})
    required = kw.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return None
    if not all(isinstance(r, str) for r in required):
        return None
    out: list = []
    if "type" in keys:
        if "integer" in types and "number" not in types:
            return None  # "a number that is not an integer" has no type of its own
        others = [t for t in ALL_TYPES if t not in types and not (t == "integer" and "number" in types)]
        if others:
            out.append({"type": others})
    if keys & _OBJECT_KEYS and keys & _ARRAY_KEYS:
        return None  # an untyped condition on both objects and arrays: each kind needs its own branches
    if keys & _ARRAY_KEYS:
        items, contains = kw.get("items", True), kw.get("contains", True)
        if isinstance(items, list) or "array" not in types:
            return out if "array" not in types and "type" in keys else None
        # an array with an item outside `items`, or with no item inside `contains`
        if not trivial(items) and draft < 6:
            return None  # (`contains` is what says "an item outside")
        if not trivial(items):
            out.append({"type": "array", "contains": {"not": items}})
        if "contains" in kw:
            # (every item inside `items`: disjoint from the branch before)
            out.append({"type": "array", "items": {"not": contains} if trivial(items)
                        else {"allOf": [items, {"not": contains}]}})
        return out
    if "type" in keys and "object" not in types:
        return out  # properties/required test objects only, and no object passes the type
    # every object branch declares the condition's names in its order (true: no constraint), so
    # that the keys of an object on either side are written in one order. The branches are
    # disjoint (the first name that rejects, those before it not): overlapping object rules
    # would be one text parsed two ways (a reduce/reduce conflict in the engine path)
    names = list(dict.fromkeys([*props, *required]))
    before: dict = {}  # name -> what the branches after its own say of it (it did not reject)

    def declared(name: str, sub: Any) -> dict:
        return {n: (sub if n == name else before.get(n, True)) for n in names}

    uniq = list(dict.fromkeys(required))
    for i, name in enumerate(uniq):
        out.append({"type": "object", "properties": declared(name, False), **({"required": uniq[:i]} if i else {})})
    for name, sub in props.items():
        if sub is False:
            out.append({"type": "object", "required": list(dict.fromkeys([*uniq, name])),
                        "properties": declared(name, True)})
        elif not trivial(sub):
            out.append({"type": "object", "required": list(dict.fromkeys([*uniq, name])),
                        "properties": declared(name, {"not": sub})})
        else:
            continue
        before[name] = sub
    return out


def negated_objects(schema: Any, resolver: Any, refused: Callable) -> set[str]:
    """The pointers of the schema objects under a `not` (through $refs too)."""
    out: set[str] = set()

    def walk(node: Any, ptr: str, neg: bool) -> None:
        if neg:
            if ptr in out:
                return
            out.add(ptr)
        if isinstance(node, dict):
            if neg and isinstance(node.get("$ref"), str):
                target = resolver.resolve(node["$ref"], ptr, refused)
                if target is not None:
                    walk(target[0], target[1], True)
            for k, v in node.items():
                if k not in ("enum", "const", "examples", "default"):
                    walk(v, f"{ptr}/{ptr_escape(k)}", neg or k == "not")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{ptr}/{i}", neg)

    walk(schema, "#", False)
    return out
