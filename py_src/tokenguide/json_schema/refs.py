"""`$ref` resolution inside one schema document: base URIs, embedded resources, anchors, pointers.

Every `$id` (draft 4 and earlier: `id`) is resolved against the base URI of the schema around
it (RFC 3986 §5), so a remote-looking `$ref` lands on the embedded resource that declares that
URI, and a relative `$ref` or a `#/pointer` is read in the resource it appears in. Plain-name
fragments come from `$anchor`/`$dynamicAnchor` (2019-09+) or from an `$id` of the form
`#name` (drafts 4-7), scoped to their resource. JSON pointer fragments are percent-decoded,
then `~1` and `~0` unescaped (RFC 6901 §6). In drafts 4-7 an `$id` beside `$ref` is ignored
with the other siblings. A reference to a URI that no part of the document declares is remote:
refused (named) unless lenient.
"""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import unquote, urljoin

from ..errors import UnsupportedSchemaError
from .text import ptr_escape

__all__ = ["RefResolver", "join_uri"]

# Values that are data, not subschemas: never searched for identifiers.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def join_uri(base: str, ref: str) -> str:
    """`ref` resolved against `base` (RFC 3986 §5.2; a fragment-only `ref` keeps any base)."""
    if ref.startswith("#"):
        return base.partition("#")[0] + ref
    if _SCHEME.match(ref) or not base:
        return ref
    return urljoin(base, ref)


class RefResolver:
    """The identifiers of one schema document (`root`, JSON Schema `draft`) and `$ref` lookup."""

    def __init__(self, root: Any, draft: int) -> None:
        self.root = root
        self.draft = draft
        self.id_key = "id" if draft <= 4 else "$id"
        self.resources: dict[str, tuple[Any, str]] = {}  # absolute URI (no fragment) -> (schema, pointer)
        self.anchors: dict[tuple[str, str], tuple[Any, str]] = {}  # (resource URI, name) -> (schema, pointer)
        self.root_base = self.base_of(root, "")
        self.embedded = False  # does any subschema start a resource of its own?
        self._walk(root, "#", "", True)

    def base_of(self, node: Any, base: str) -> str:
        """The base URI inside schema object `node` whose surrounding base is `base`."""
        if not isinstance(node, dict):
            return base
        ident = node.get(self.id_key)
        if not isinstance(ident, str) or not ident or (self.draft <= 7 and "$ref" in node):
            return base
        if ident.startswith("#") and self.draft <= 7:
            return base  # a plain-name fragment (an anchor), not a new base
        return join_uri(base, ident).partition("#")[0]

    def _walk(self, node: Any, ptr: str, base: str, is_root: bool) -> None:
        if isinstance(node, list):
            for i, v in enumerate(node):
                self._walk(v, f"{ptr}/{i}", base, False)
            return
        if not isinstance(node, dict):
            return
        new = self.base_of(node, base)
        if new != base or is_root:
            self.resources.setdefault(new, (node, ptr))
            if not is_root:
                self.embedded = True
        ident = node.get(self.id_key)
        if isinstance(ident, str) and self.draft <= 7 and "#" in ident and "$ref" not in node:
            name = unquote(ident.partition("#")[2])
            if name and not name.startswith("/"):
                self.anchors.setdefault((new, name), (node, ptr))
        if self.draft >= 2019:
            for key in ("$anchor", "$dynamicAnchor"):
                if isinstance(node.get(key), str) and node[key]:
                    self.anchors.setdefault((new, node[key]), (node, ptr))
        for k, v in node.items():
            if k not in _DATA_KEYWORDS:
                self._walk(v, f"{ptr}/{ptr_escape(k)}", new, False)

    def base_at(self, pointer: str) -> str | None:
        """The base URI at the schema object with JSON pointer `pointer`; None when the pointer
        leaves the document (a rewritten subschema) and embedded resources make it matter."""
        node, base = self.root, self.root_base
        for part in pointer.split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None if self.embedded else self.root_base
            base = self.base_of(node, base)
        return base

    def resolve(self, ref: Any, pointer: str, unsupported: Callable[[str, str, str], None]) -> tuple[Any, str] | None:
        """The schema `ref` (at the schema object `pointer`) points to, and its pointer; None when
        `unsupported` (lenient mode) let a remote reference through. Raises for broken ones."""
        if not isinstance(ref, str):
            raise UnsupportedSchemaError(f"$ref must be a string (at {pointer})", "$ref", pointer)
        base = self.base_at(pointer)
        if base is None:
            unsupported("$ref", pointer, f"the base URI of $ref {ref!r} is unknown (a rewritten subschema "
                        "inside a schema with embedded $id resources)")
            return None
        uri, _, frag = join_uri(base, ref).partition("#")
        hit = self.resources.get(uri)
        if hit is None:
            unsupported("$ref", pointer, f"remote reference {ref!r} (resolved to {uri!r}) is not supported: "
                        "only URIs declared by an $id inside the schema are resolved")
            return None
        target, tptr = hit
        if frag and not frag.startswith("/"):
            hit = self.anchors.get((uri, unquote(frag)))
            if hit is None:
                raise UnsupportedSchemaError(f"$ref {ref!r} names an unknown anchor {unquote(frag)!r} in {uri or 'the schema'!r} "
                                             f"(at {pointer}); declare it with $anchor", "$ref", pointer)
            return hit
        for part in frag.split("/")[1:] if frag else []:
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise UnsupportedSchemaError(
                    f"$ref {ref!r} does not resolve inside the schema: no {part!r} at {tptr} (at {pointer})",
                    "$ref", pointer)
            tptr += "/" + ptr_escape(part)
        return target, tptr
