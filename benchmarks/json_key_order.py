"""An instance's object keys put in the order tokenguide writes them (property_order="schema").

The JSON Schema benchmarks judge the guide a user gets, which writes declared properties in the
schema's order (see `tokenguide.json_schema`'s docstring): the properties of a schema object,
then those its anyOf/oneOf/dependency branch adds (at the place of that group, unless the rest
of the schema declares them too), then those of its `$ref` target and of each `allOf`
subschema, then those of `then`/`if` (or `else`); then required names no schema declares; then
the other keys as written. `KeyOrder(root).reorder(value)` rewrites `value` so, following the
schema's structure at every depth: `$ref` (resolved by tokenguide's public `RefResolver`:
`$id` bases, anchors, `$defs`/`definitions`, recursive references), allOf/anyOf/oneOf (the
branch the value is valid against, by jsonschema), dependencies, if/then/else,
properties/patternProperties/additionalProperties, items/prefixItems/additionalItems.

The recursion descends into the value at each step, and reference chains or combinator cycles
that do not descend are cut by a per-value visited set, so recursive schemas cannot loop.
Reordering never changes the value (dicts compare equal), hence never its validity.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema.normalize import schema_draft
from tokenguide.json_schema.patterns import PatternError, ecma_search
from tokenguide.json_schema.refs import RefResolver

__all__ = ["KeyOrder"]

Frag = tuple[Any, str]  # (a schema object or bool, its JSON pointer in the document)
_DATA = frozenset({"enum", "const", "default", "examples", "example"})


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


class KeyOrder:
    """Key order of tokenguide's output format for the schema document `root`."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.draft = schema_draft(root)
        uri = root.get("$schema") if isinstance(root, dict) else None
        # as tokenguide's Normalizer: a $schema naming a draft decides which spellings apply
        self.named = isinstance(uri, str) and (self.draft != 2020 or "2020-12" in uri)
        self.if_applies = not self.named or self.draft >= 7
        self.resolver = RefResolver(root, self.draft)
        self._validator: Any = None

    # -- public ------------------------------------------------------------------------------
    def reorder(self, value: Any) -> Any:
        """`value` with every object's keys in the output format's order (other keys as written)."""
        return self._value(value, [(self.root, "#")])

    # -- validity of a value against a subschema (branch choice) ----------------------------
    def valid(self, value: Any, ptr: str) -> bool | None:
        """Is `value` valid against the subschema at document pointer `ptr`? None if unknown."""
        try:
            if self._validator is None:
                cls = jsonschema.validators.validator_for(self.root, default=jsonschema.Draft202012Validator)
                self._validator = cls(self.root)
            return bool(self._validator.evolve(schema={"$ref": ptr}).is_valid(value))
        except Exception:  # unresolvable, bad regex, ...: let the caller decide by other means
            return None

    # -- fragments ----------------------------------------------------------------------------
    def _deref(self, schema: Any, ptr: str, seen: set) -> list[Frag]:
        """`schema` and what its `$ref` chain brings, as fragments in merge order (cut on cycles)."""
        out: list[Frag] = []
        while isinstance(schema, dict):
            if ptr in seen:
                return out
            seen.add(ptr)
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                out.append((schema, ptr))
                return out
            if self.draft > 7:
                out.append(({k: v for k, v in schema.items() if k != "$ref"}, ptr))
            try:
                hit = self.resolver.resolve(ref, ptr, _refuse)
            except UnsupportedSchemaError:
                return out
            if hit is None:
                return out
            schema, ptr = hit
        return out

    def _layout(self, frags: list[Frag], value: Any, seen: set) -> tuple[list[str], list[str], list[Frag]]:
        """(declared names in output order, required names in order, every fragment that applies)."""
        base: list[str] = []
        inserts: dict[int, list[str]] = {}  # position in base -> names branches add there, in order
        tail: list[str] = []  # then/if (or else) and the names `not` declares: merged after the rest
        required: list[str] = []
        branch_required: list[str] = []  # merged when the branches are distributed, after the rest
        applied: list[Frag] = []
        todo: list[Frag] = []
        for schema, ptr in frags:
            todo.extend(self._deref(schema, ptr, seen))
        i = 0
        while i < len(todo):
            node, ptr = todo[i]
            i += 1
            applied.append((node, ptr))
            if not isinstance(node, dict):
                continue
            props = node.get("properties")
            names = list(props) if isinstance(props, dict) else []
            before = len(base)
            base.extend(n for n in names if n not in base)
            pos = max([base.index(n) + 1 for n in names], default=before)
            req = node.get("required")
            if isinstance(req, list):
                required.extend(r for r in req if isinstance(r, str))
            for chosen in self._branches(node, ptr, value, seen):
                sub_names, sub_req, sub_applied = self._layout([chosen], value, seen)
                inserts.setdefault(pos, []).extend(sub_names)
                branch_required.extend(sub_req)
                applied.extend(sub_applied)
            more: list[Frag] = []
            all_of = node.get("allOf")
            if isinstance(all_of, list):
                for j, sub in enumerate(all_of):
                    more.extend(self._deref(sub, f"{ptr}/allOf/{j}", seen))
            todo[i:i] = more
            for chosen in self._conditional(node, ptr, value):
                sub_names, sub_req, sub_applied = self._layout([chosen], value, seen)
                tail.extend(sub_names)
                required.extend(sub_req)
                applied.extend(sub_applied)
            if "not" in node:  # logic.skeleton: what `not` declares or requires, at every depth, too
                skeleton = (self._skeleton(node["not"], f"{ptr}/not", 0), f"{ptr}/not")
                neg_names, neg_req, neg_applied = self._layout([skeleton], value, set(seen))
                tail.extend(neg_names + neg_req)
                applied.extend(neg_applied)
        merged = list(dict.fromkeys(base + tail))
        order = list(base)
        for pos in sorted(inserts, reverse=True):
            order[pos:pos] = [n for n in dict.fromkeys(inserts[pos]) if n not in merged and n not in order]
        order = list(dict.fromkeys(order + tail))
        return order, list(dict.fromkeys(required + branch_required)), applied

    def _branches(self, node: dict, ptr: str, value: Any, seen: set) -> list[Frag]:
        """The anyOf/oneOf branch `value` takes, and the dependency branches that apply."""
        out: list[Frag] = []
        for key in ("anyOf", "oneOf"):
            subs = node.get(key)
            if isinstance(subs, list) and subs:
                out.append(self._pick(subs, f"{ptr}/{key}", value, seen))
        if isinstance(value, dict):
            for key in ("dependencies", "dependentSchemas"):
                deps = node.get(key)
                if not isinstance(deps, dict) or (self.named and (key == "dependencies") != (self.draft <= 7)):
                    continue
                for name, dep in deps.items():
                    if name in value and isinstance(dep, (dict, bool)):
                        out.append((dep, f"{ptr}/{key}/{_esc(name)}"))
            for key in ("dependencies", "dependentRequired"):
                deps = node.get(key)
                if not isinstance(deps, dict) or (self.named and (key == "dependencies") != (self.draft <= 7)):
                    continue
                for name, dep in deps.items():
                    if name in value and isinstance(dep, list):
                        out.append(({"required": [name] + [d for d in dep if isinstance(d, str)]},
                                    f"{ptr}/{key}/{_esc(name)}"))
        return out

    def _conditional(self, node: dict, ptr: str, value: Any) -> list[Frag]:
        """then and if (when `value` meets `if`), or else; nothing when if/then/else do not apply."""
        if "if" not in node or not self.if_applies or ("then" not in node and "else" not in node):
            return []
        if self.valid(value, f"{ptr}/if") is False:
            # the else side is written with `if`'s names declared at every depth (logic.skeleton:
            # its lookahead needs both sides in one order), after the rest
            skeleton = (self._skeleton(node["if"], f"{ptr}/if", 0), f"{ptr}/if")
            return [(node["else"], f"{ptr}/else"), skeleton] if "else" in node else []
        return ([(node["then"], f"{ptr}/then")] if "then" in node else []) + [(node["if"], f"{ptr}/if")]

    def _skeleton(self, schema: Any, ptr: str, level: int) -> dict:
        """The names `schema` (and its branches, allOf parts and if/then/else) declares or
        requires, at every depth, as a schema declaring them (tokenguide's logic.skeleton)."""
        props: dict[str, list] = {}
        items: list = []
        todo = self._deref(schema, ptr, set()) if level <= 8 else []
        while todo:
            node, p = todo.pop(0)
            if not isinstance(node, dict):
                continue
            pp = node.get("properties")
            for k, sub in (pp.items() if isinstance(pp, dict) else ()):
                props.setdefault(k, []).append((sub, f"{p}/properties/{_esc(k)}"))
            for r in node.get("required") if isinstance(node.get("required"), list) else ():
                if isinstance(r, str):
                    props.setdefault(r, [])
            if isinstance(node.get("items"), dict):
                items.append((node["items"], f"{p}/items"))
            for key in ("allOf", "anyOf", "oneOf"):
                subs = node.get(key)
                for i, sub in enumerate(subs if isinstance(subs, list) else ()):
                    todo.extend(self._deref(sub, f"{p}/{key}/{i}", set()))
            for key in ("if", "then", "else"):
                if key in node:
                    todo.extend(self._deref(node[key], f"{p}/{key}", set()))
        out: dict = {}
        if props:
            out["properties"] = {k: {"allOf": [self._skeleton(sub, sp, level + 1) for sub, sp in subs]}
                                 for k, subs in props.items()}
        if items:
            out["items"] = {"allOf": [self._skeleton(sub, sp, level + 1) for sub, sp in items]}
        return out

    def _pick(self, subs: list, gptr: str, value: Any, seen: set) -> Frag:
        """The branch `value` is valid against; else the one of its JSON type declaring most of its keys."""
        scored = []
        for i, sub in enumerate(subs):
            ptr = f"{gptr}/{i}"
            ok = self.valid(value, ptr)
            if ok:
                return sub, ptr
            names, _, applied = self._layout([(sub, ptr)], value, set(seen))
            typed = any(_type_fits(s, value) for s, _ in applied if isinstance(s, dict) and "type" in s)
            overlap = len(set(names) & set(value)) if isinstance(value, dict) else 0
            scored.append((ok is not False, typed, overlap, -i))
        best = max(range(len(subs)), key=lambda i: scored[i])
        return subs[best], f"{gptr}/{best}"

    # -- values -------------------------------------------------------------------------------
    def _value(self, value: Any, frags: list[Frag]) -> Any:
        if isinstance(value, dict):
            return self._object(value, frags)
        if isinstance(value, list):
            return self._array(value, frags)
        return value

    def _object(self, value: dict, frags: list[Frag]) -> dict:
        order, required, applied = self._layout(frags, value, set())
        keys = [n for n in order if n in value]
        keys += [n for n in required if n in value and n not in keys]
        keys += [k for k in value if k not in keys]
        return {k: self._value(value[k], self._member(applied, k)) for k in keys}

    @staticmethod
    def _member(applied: list[Frag], key: str) -> list[Frag]:
        """The subschemas that apply to member `key`: properties, matching patterns, or additional."""
        out: list[Frag] = []
        for node, ptr in applied:
            if not isinstance(node, dict):
                continue
            hit = False
            props = node.get("properties")
            if isinstance(props, dict) and key in props:
                out.append((props[key], f"{ptr}/properties/{_esc(key)}"))
                hit = True
            pats = node.get("patternProperties")
            for pat, sub in (pats.items() if isinstance(pats, dict) else ()):
                if _search(pat, key):
                    out.append((sub, f"{ptr}/patternProperties/{_esc(pat)}"))
                    hit = True
            addl = node.get("additionalProperties")
            if not hit and isinstance(addl, dict):
                out.append((addl, f"{ptr}/additionalProperties"))
        return out

    def _array(self, value: list, frags: list[Frag]) -> list:
        _, _, applied = self._layout(frags, value, set())
        per: list[list[Frag]] = [[] for _ in value]
        for node, ptr in applied:
            if not isinstance(node, dict):
                continue
            prefix, pkey = node.get("prefixItems"), "prefixItems"
            rest, rkey = node.get("items"), "items"
            if not isinstance(prefix, list) and isinstance(rest, list):
                prefix, pkey, rest, rkey = rest, "items", node.get("additionalItems"), "additionalItems"
            prefix = prefix if isinstance(prefix, list) else []
            contains = node.get("contains") if isinstance(node.get("contains"), dict) else None
            for i in range(len(value)):
                if i < len(prefix):
                    per[i].append((prefix[i], f"{ptr}/{pkey}/{i}"))
                elif isinstance(rest, dict):
                    per[i].append((rest, f"{ptr}/{rkey}"))
                if contains is not None and self.valid(value[i], f"{ptr}/contains"):
                    per[i].append((contains, f"{ptr}/contains"))  # an item matching it: items and contains merged
        return [self._value(v, f) for v, f in zip(value, per)]


def _refuse(keyword: str, pointer: str, why: str) -> None:
    raise UnsupportedSchemaError(why, keyword, pointer)


def _search(pattern: str, key: str) -> bool:
    try:
        return ecma_search(pattern, key)
    except PatternError:
        try:
            return re.search(pattern, key) is not None
        except re.error:
            return False


_TYPES = {"null": type(None), "boolean": bool, "object": dict, "array": list, "string": str}


def _type_fits(schema: dict, value: Any) -> bool:
    types = schema.get("type")
    types = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    for t in types:
        if t in ("number", "integer"):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return True
        elif t in _TYPES and isinstance(value, _TYPES[t]):
            return True
    return False
