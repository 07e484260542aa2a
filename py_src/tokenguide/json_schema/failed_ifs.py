"""`if`s that test one member's value, and the conjunctions their failure leaves empty.

value_checks's locations are alternatives of conjunctions of schema objects; an `if`'s `else`
side is one of them. When the `if` only tests one member's const/enum, its failure says
something (the member is present, if the `if` does not require it, and holds another value), so
a conjunction can be proved empty: a member some conjunct requires, with no value left by the
conjuncts' const/enum minus the failed values (GitHub issue forms: an `if` per value of a
required `type` enum leaves no document outside every `then`).
"""

from __future__ import annotations

from typing import Any, Callable

from .text import ptr_escape

__all__ = ["FailedIfs", "discriminator"]

_MAX_REFS = 32  # $ref hops followed for a member's const/enum


class FailedIfs:
    """Markers (conjuncts of no keyword) for `if`s taken as failed, and the proof above.

    `resolve(ref, ptr)`: the (schema, pointer) a `$ref` at `ptr` names, or None; `key(value)`:
    a hashable key equal for JSON values JSON Schema calls equal."""

    def __init__(self, resolve: Callable[[str, str], Any], key: Callable[[Any], Any]) -> None:
        self.resolve, self.key = resolve, key
        self.tests: dict[str, tuple[str, frozenset, bool]] = {}  # marker -> discriminator()
        self.taken: dict[str, tuple[str, frozenset, bool]] = {}  # the `if` schema's pointer -> the same

    def __bool__(self) -> bool:
        return bool(self.tests)

    def mark(self, ptr: str, test: Any, alternatives: list[frozenset], objs: dict[str, Any]) -> list[frozenset]:
        """`alternatives` (the `else` side of the `if` at `ptr`) with the marker of its failure
        added, when the `if` is a discriminator; unchanged otherwise. (Its `then` side holds the
        `if` schema at `ptr`/if, noted in `taken`.)"""
        found = discriminator(test, self.key)
        if found is None:
            return alternatives
        self.taken[f"{ptr}/if"] = found
        marker = f"{ptr}/if#failed"
        objs.setdefault(marker, {})  # (a conjunct that constrains nothing)
        self.tests[marker] = found
        return [c | {marker} for c in alternatives]

    def satisfiable(self, conj: frozenset, objs: dict[str, Any]) -> bool:
        """False only when proved: some member must be present (a `required`, or an `if` that
        failed on it) and no value is left for it. A failed `if` on a member makes the value an
        object, so every conjunct's `properties`/`required` applies."""
        markers = [m for m in conj if m in self.tests]
        for name in {self.tests[m][0] for m in markers}:
            failed: set = set()
            present = False
            for m in markers:
                n, vals, needs = self.tests[m]
                if n == name:
                    failed |= vals
                    present |= needs
            allowed: frozenset | None = None
            for p in conj:
                obj = objs[p]
                if p in self.tests or not isinstance(obj, dict):
                    continue
                if isinstance(obj.get("required"), list) and name in obj["required"]:
                    present = True
                props = obj.get("properties")
                if isinstance(props, dict) and name in props:
                    vals = self._values(props[name], f"{p}/properties/{ptr_escape(name)}")
                    if vals is not None:
                        allowed = vals if allowed is None else allowed & vals
            if present and allowed is not None and not allowed - failed:
                return False
        return True

    def tests_in(self, conj: frozenset, objs: dict[str, Any]) -> list[tuple[str, frozenset, bool]]:
        """The discriminator `if`s of conjunction `conj`, as (member, its values' keys, taken): a
        taken one is the `if` schema itself among the conjuncts (its `then` side), a failed one
        its marker."""
        out = []
        for p in conj:
            if p in self.tests:
                out.append((self.tests[p][0], self.tests[p][1], False))
            elif p in self.taken:
                out.append((self.taken[p][0], self.taken[p][1], True))
        return out

    def consistent(self, conj: frozenset, objs: dict[str, Any], name: str, key: Any) -> bool:
        """Can `conj` hold for an object whose member `name` has the value of key `key`? Not
        when one of its `if`s on that member was taken for other values or failed on this one."""
        return all((key in vals) == taken for n, vals, taken in self.tests_in(conj, objs) if n == name)

    def _values(self, sub: Any, ptr: str) -> frozenset | None:
        """The values (keys) schema `sub` allows by its const/enum and those of its $refs; None
        when it names none."""
        out: frozenset | None = None
        for _ in range(_MAX_REFS):
            if sub is False:
                return frozenset()
            if not isinstance(sub, dict):
                return out
            vals = _listed(sub)
            if vals is not None:
                keys = frozenset(self.key(v) for v in vals)
                out = keys if out is None else out & keys
            if not isinstance(sub.get("$ref"), str):
                return out
            target = self.resolve(sub["$ref"], ptr)
            if target is None:
                return out
            sub, ptr = target
        return out


def _listed(sub: dict) -> list | None:
    """The values a schema object's const or enum lists (None: neither)."""
    return [sub["const"]] if "const" in sub else sub["enum"] if isinstance(sub.get("enum"), list) else None


def discriminator(test: Any, key: Callable[[Any], Any]) -> tuple[str, frozenset, bool] | None:
    """An `if` that only tests one member's value: `{"properties": {X: {"const": c}}}` (or an
    enum; `required: [X]` allowed), as (X, the values' keys, whether failing needs X present:
    without `required` an absent X passes). None for any other shape."""
    if not isinstance(test, dict) or set(test) - {"properties", "required", "$comment"}:
        return None
    props = test.get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        return None
    (name, sub), = props.items()
    required = test.get("required", [])
    if not isinstance(sub, dict) or set(sub) - {"const", "enum", "$comment", "description", "title"} \
            or not isinstance(required, list) or set(required) - {name}:
        return None
    vals = _listed(sub)
    if vals is None:
        return None
    return name, frozenset(key(v) for v in vals), name not in required
