"""Any-order objects checked beside the grammar: per object, the declared keys seen and the member count.

With property_order="any" and compile_json_schema's value checks, an object is written as a
repetition of members (each declared key with its value schema, or another key that
additionalProperties lets in, never a declared name), and a `KeySpec` holds what that grammar
leaves out: a declared key comes at most once, the required ones before ``}``,
minProperties/maxProperties. `value_checks.ValueChecks` finds the spec of the object at each
place of a document (`object_keys`), and guides.value_checks refuses, token by token, a key
already seen, a ``}`` too early, a ``,`` when no further member can come, and a key prefix
that only keys already seen (or members past the bounds) complete. No 2^n expansion: the state
is the set of keys seen and a count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["KeySpec", "OBJECT_KEYWORDS", "UNTRACKED_KEYWORDS", "node_owners"]

#: keywords that say something about an object's members (their owners locate an object's spec)
OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "patternProperties", "minProperties",
                   "maxProperties", "propertyNames", "dependentRequired", "dependencies", "dependentSchemas",
                   "unevaluatedProperties")
#: keywords beside which the bookkeeping is not exact yet (the objects are written out instead)
UNTRACKED_KEYWORDS = ("patternProperties", "propertyNames", "dependentRequired", "dependencies",
                      "dependentSchemas", "unevaluatedProperties")


@dataclass(frozen=True)
class KeySpec:
    """The members of an any-order object: `names` the declared names a member can be written
    for (its value schema accepts some value), `required` those that must come, the bounds on
    the member count, and whether any other name may come (`others`: every name not declared)."""

    names: tuple[str, ...]
    required: frozenset
    min_p: int
    max_p: int | None
    others: bool

    @property
    def texts(self) -> dict[str, bytes]:
        """Each declared name's JSON text between its quotes (the canonical escaping)."""
        found = self.__dict__.get("_texts")
        if found is None:
            found = {n: json.dumps(n, ensure_ascii=False)[1:-1].encode() for n in self.names}
            object.__setattr__(self, "_texts", found)
        return found

    def feasible(self, seen: frozenset, count: int, more: int = 0) -> bool:
        """Can an object with the declared keys `seen` and `count` members take at least `more`
        members more and end valid (every required key, between min and max members)?"""
        need = max(len(self.required - seen), self.min_p - count, more)
        room = float("inf") if self.others else len(self.names) - len(seen)
        if self.max_p is not None:
            room = min(room, self.max_p - count)
        return need <= room

    def can_close(self, seen: frozenset, count: int) -> bool:
        """May ``}`` come now?"""
        return self.required <= seen and count >= self.min_p

    def after_key(self, seen: frozenset, count: int, name: str) -> tuple[frozenset, int] | None:
        """(seen, count) once key `name` is read (the grammar took it), or None when no valid
        object goes on from there (a declared key seen already, or past the bounds)."""
        if name in self.texts:
            if name in seen:
                return None
            seen = seen | {name}
        elif not self.others:  # (a name not declared with no others allowed: the grammar refuses it)
            return None
        return (seen, count + 1) if self.feasible(seen, count + 1) else None

    def next_names(self, seen: frozenset, count: int) -> list[str]:
        """The declared names that may come as the next key."""
        return [n for n in self.names if n not in seen and self.feasible(seen | {n}, count + 1)]

    def other_next(self, seen: frozenset, count: int) -> bool:
        """May a name that is not declared come as the next key?"""
        return self.others and self.feasible(seen, count + 1)

    def prefix_ok(self, seen: frozenset, count: int, prefix: bytes) -> bool:
        """Is there a next key beginning with the JSON text `prefix` (its quote not written yet)?
        Every unclosed prefix has endless completions, so with others allowed one is not declared."""
        if self.other_next(seen, count):
            return True
        texts = self.texts
        return any(texts[n].startswith(prefix) for n in self.next_names(seen, count))

    def violation(self, keys: Any, repeated: Any) -> bool:
        """Does a whole object with member names `keys` (each once) and the names written more
        than once `repeated` break the spec?"""
        declared = set(self.names)
        if repeated and declared & set(repeated):
            return True
        seen = frozenset(k for k in keys if k in declared)
        count = len(keys) + sum(1 for k in repeated or () if k not in declared)
        return not (self.can_close(seen, count) and (self.max_p is None or count <= self.max_p))


def node_owners(s: Any) -> frozenset:
    """The pointers of the schema objects whose member keywords a merged node `s` (a
    normalize.Node) holds: where `properties` members, `required` and the others are written."""
    out = set()
    for k in s.kw:
        if k in OBJECT_KEYWORDS:
            out.add(s.kptr(k)[: -len(k) - 1])
    for key, ptr in s.ptrs.items():
        head = key.split("/", 1)[0]
        if "/" in key and head in OBJECT_KEYWORDS:
            out.add(ptr.rsplit("/", 2)[0])
    return frozenset(out)
