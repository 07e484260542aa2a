"""unevaluatedProperties / unevaluatedItems as the keywords the rest of the compiler knows.

Both keywords (2019-09 on) constrain what no adjacent keyword evaluated: the properties (items)
that `properties`, `patternProperties`, `additionalProperties` (`prefixItems`, `items`,
`additionalItems`, `contains`) of the schema object, of its `allOf` members and of its `$ref`
target did not reach. Once those are merged into one node (normalize.Normalizer.flatten), the
evaluated names are exactly the node's own, so the keyword is the node's `additionalProperties`
(its `items` after the prefix), or has no effect when the node already has one. Applicators
whose annotations depend on which branch holds (anyOf, oneOf, if/then/else, dependentSchemas)
are refused by name when they can evaluate properties (items); so is `contains` beside
unevaluatedItems.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["UNEVALUATED", "apply_unevaluated", "take_unevaluated"]

UNEVALUATED = ("unevaluatedProperties", "unevaluatedItems")

# Keywords whose annotations mark properties / items evaluated, per unevaluated keyword.
_EVALUATES = {
    "unevaluatedProperties": ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties"),
    "unevaluatedItems": ("prefixItems", "items", "additionalItems", "contains", "unevaluatedItems"),
}
# In-place applicators whose subschemas' annotations count for the schema object.
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_SUBSCHEMAS = ("if", "then", "else", "not")
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


def take_unevaluated(kw: dict) -> dict[str, Any]:
    """Remove the unevaluated keywords that constrain (not `true` / `{}`) from `kw`; return them."""
    out = {}
    for key in UNEVALUATED:
        if key in kw:
            value = kw.pop(key)
            if value is not True and value != {}:
                out[key] = value
    return out


def may_evaluate(schema: Any, key: str) -> bool:
    """Could an annotation of `schema` (a dict, a normalised node or a bool) mark properties
    (key "unevaluatedProperties") or items ("unevaluatedItems") evaluated? Conservative:
    a reference counts as yes."""
    kw = getattr(schema, "kw", schema)
    if not isinstance(kw, dict):
        return False
    if any(k in kw for k in _REFS):
        return True
    for k in _EVALUATES[key]:
        if k in kw and not (k in ("properties", "patternProperties") and isinstance(kw[k], dict)
                            and all(v is False for v in kw[k].values())):
            return True  # (members that must be absent evaluate nothing in a valid instance)
    subs = [kw[k] for k in _SUBSCHEMAS if k in kw and k != "not"]  # `not` keeps no annotations
    for k in _SUBSCHEMA_LISTS:
        if isinstance(kw.get(k), list):
            subs.extend(kw[k])
    if isinstance(kw.get("dependentSchemas"), dict):
        subs.extend(kw["dependentSchemas"].values())
    if isinstance(kw.get("dependencies"), dict):
        subs.extend(v for v in kw["dependencies"].values() if not isinstance(v, list))
    for group in getattr(schema, "groups", ()):
        subs.extend(group.subs)
    return any(may_evaluate(sub, key) for sub in subs)


def apply_unevaluated(node: Any, taken: dict[str, Any], ptr: str,
                      unsupported: Callable[[str, str, str], None]) -> None:
    """Write the keywords `take_unevaluated` removed from the schema at `ptr` into `node`, the
    schema object merged with its allOf members and $ref target (see the module docstring)."""
    for key, value in taken.items():
        kptr = f"{ptr}/{key}"
        branchy = [g for g in node.groups if any(may_evaluate(sub, key) for sub in g.subs)]
        conditional = [k for k in ("if", "then", "else") if k in node.kw and may_evaluate(node.kw[k], key)]
        if branchy or conditional:
            where = branchy[0].ptr if branchy else node.kptr(conditional[0])
            unsupported(key, kptr, f"{key!r} beside an applicator whose branches evaluate "
                                   f"{'properties' if key == 'unevaluatedProperties' else 'items'} "
                                   f"(at {where}) is not supported: which of them count depends on the "
                                   "branch that holds; declare them in the schema itself or in allOf")
            continue
        if key == "unevaluatedProperties":
            if "additionalProperties" not in node.kw:
                node.kw["additionalProperties"] = value
                node.ptrs["additionalProperties"] = kptr
            continue
        if "contains" in node.kw:
            unsupported(key, kptr, "'unevaluatedItems' beside 'contains' is not supported (contains "
                                   "evaluates the items it matches): bound the items with 'items' instead")
            continue
        if isinstance(node.kw.get("prefixItems"), list):
            target = "items"
        elif isinstance(node.kw.get("items"), list):
            target = "additionalItems"
        else:
            target = "items"
        if target not in node.kw:
            node.kw[target] = value
            node.ptrs[target] = kptr
