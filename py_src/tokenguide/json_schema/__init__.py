"""JSON Schema to regular expression, exact where it claims support.

`build_regex_from_schema(schema)` returns a Python regex whose `re.fullmatch` language is the
set of JSON texts, in the output format below, of the instances the schema accepts. The regex
uses only what tokenguide's automaton compiler reads (no lookaround, backreferences or anchors).

Output format
-------------
* Compact JSON as written by ``json.dumps(x, ensure_ascii=False, separators=(",", ":"))``.
  The whitespace pattern (default ``[ ]?``: at most one optional space, never unbounded
  whitespace) may appear where outlines-core puts it: after ``{`` and ``[``, before ``}`` and
  ``]``, and on both sides of ``:`` and ``,``; so ``json.dumps(x)`` with its default separators
  matches too. ``whitespace_pattern`` replaces it (``""``: compact only).
* Property order: the properties declared in ``properties`` come first, in the schema's order
  (with ``allOf``, the order of the subschemas; the properties an ``anyOf``/``oneOf`` branch
  adds take the place of that ``anyOf``/``oneOf`` among the others); a required property that
  is not declared comes next, in ``required`` order; then, when the schema allows other
  properties (``additionalProperties`` absent, true or a schema, or ``patternProperties``), any
  number of other properties in any order. Other keys never repeat a declared name; free-form
  objects (values of ``{}``/``true``) may repeat keys (a regex cannot check distinct keys).
* Strings: the canonical escaping of ``json.dumps(ensure_ascii=False)`` only: ``\\"``, ``\\\\``,
  ``\\b \\f \\n \\r \\t`` and ``\\u00XX`` (lowercase hex) for the other control characters below
  U+0020; every other character (``/`` and U+007F included) is written as itself; other valid
  JSON escapes (``\\u0041``, ``\\/``) are not accepted. ``minLength``/``maxLength`` count code
  points, an escape counts as one. ``pattern`` follows ECMA 262 (unanchored search, ASCII
  ``\\d \\w``, ``.`` excludes line terminators) and is matched against the decoded string.
* Numbers: integers without fraction or exponent and without ``-0`` (so an integer-valued float
  such as ``1.0`` is not an ``integer``); ``number`` accepts any JSON number spelling (``1``,
  ``1.0``, ``1e+16``, ``1E5``...). Within a range (minimum, maximum, multipleOf...), plain
  decimal spellings are exact, and exponent spellings (mantissa ``d.ddd``) are accepted only for
  the magnitudes json.dumps writes that way, ``|x| >= 1e16`` and ``0 < |x| < 1e-4``, each taken
  whole when the range contains it; a range that contains only part of one of them
  (``minimum: 0.00001``, ``maximum: 1e20``) is unsupported. Enum/const numbers match every plain
  spelling of their value (``2``, ``2.0``, ``2.00``).
* Depth: recursive ``$ref`` cycles are unrolled ``max_recursion_depth`` times, and free-form
  values (``{}``, ``true``, missing ``items``, additional properties without a schema) nest at
  most ``max_recursion_depth - 1`` non-empty arrays/objects deep; deeper instances are not
  accepted. Regexes over 500,000 characters are refused (UnsupportedSchemaError).

Keywords
--------
Supported: type (all seven, lists, draft 3 "any"), enum, const, properties, required,
additionalProperties, patternProperties (additionalProperties false with one pattern or
patterns sharing one schema; beside other properties when the pattern matches every key or is
one character class repeated), propertyNames (without declared properties), minProperties,
maxProperties, items (schema or draft 4 array), prefixItems, additionalItems, minItems,
maxItems, uniqueItems when at most one item, minLength, maxLength, pattern (plus length limits
when anchored with one variable single-character repeat), format (date-time, date, time, uuid,
email, uri, ipv4, ipv6, hostname; unknown formats are annotations), minimum, maximum,
exclusiveMinimum, exclusiveMaximum (draft 4 booleans too), multipleOf (integers: divisors of a
power of ten without a range; numbers: 1, 0.1, 0.01, 0.001, 0.0001), allOf (merged), anyOf,
oneOf (when the branches are disjoint, or rewritten type by type into disjoint branches,
"exactly one of these required sets" included), not (of a type list, an enum/const, or
required names), dependencies/dependentRequired/dependentSchemas, local $ref (JSON pointers,
$id/id, $anchor; siblings of $ref ignored for drafts 3 to 7), boolean schemas.

Format languages: date/time/date-time follow RFC 3339 (leap years and leap seconds, time needs
an offset), ipv4 dotted quad without leading zeros, ipv6 RFC 4291 text forms, uuid any-case hex,
hostname RFC 1123 labels of at most 63 characters (the 253-character total is not checked),
email ``local@labels`` with RFC 5322 atoms, uri ``scheme:`` followed by URI characters.

Unsupported (UnsupportedSchemaError naming the keyword and its JSON pointer): uniqueItems,
contains, other multipleOf values, other not/if/then/else, unevaluatedProperties/Items,
$dynamicRef/$recursiveRef, remote $ref, known formats not listed above, patterns that are not
regular or use inline flags, and the combinations above that are not listed as supported.
``lenient=True`` ignores them instead and warns once with the list. Annotations and unknown
keywords (title, description, examples, default, $comment, deprecated, readOnly...) are ignored,
as the JSON Schema specification says.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

from ..errors import UnsupportedSchemaError
from .emit import Emitter
from .normalize import Normalizer
from .numbers import int_range_regex
from .text import MAX_REGEX_CHARS, is_atom_like

__all__ = ["build_regex_from_schema", "int_range_regex", "UnsupportedSchemaError", "WHITESPACE"]

WHITESPACE = r"[ ]?"


def load_schema(schema: Any) -> dict | bool:
    """The schema as a dict or bool (JSON text is parsed); UnsupportedSchemaError otherwise."""
    if isinstance(schema, (str, bytes)):
        try:
            schema = json.loads(schema)
        except ValueError as exc:
            raise UnsupportedSchemaError(f"the schema is not valid JSON: {exc}", None, "#") from None
    if not isinstance(schema, (dict, bool)):
        raise UnsupportedSchemaError(
            f"a schema must be a JSON object or a boolean, not {type(schema).__name__}", None, "#")
    return schema


def whitespace_regex(whitespace_pattern: str | None) -> str:
    """The whitespace pattern to insert (default WHITESPACE), grouped when it needs to be."""
    ws = WHITESPACE if whitespace_pattern is None else whitespace_pattern
    if ws:
        try:
            re.compile(ws)
        except re.error as exc:
            raise ValueError(f"whitespace_pattern is not a valid regex: {exc}") from None
        ws = ws if is_atom_like(ws) else f"(?:{ws})"
    return ws


def build_regex_from_schema(
    schema: str | dict | bool,
    whitespace_pattern: str | None = None,
    max_recursion_depth: int = 3,
    *,
    lenient: bool = False,
) -> str:
    """Regex (Python `re` syntax, fullmatch) for the JSON texts of the instances `schema` accepts.

    `schema` is a JSON string, a dict or a bool. `whitespace_pattern` replaces the default
    ``[ ]?`` at the places listed in the module docstring. `max_recursion_depth` bounds how often
    a recursive ``$ref`` is unrolled and how deep free-form values nest. With `lenient`, keywords
    that cannot be expressed are ignored (listed in a warning) instead of raising
    UnsupportedSchemaError. Strings use canonical json.dumps escaping only.
    """
    schema = load_schema(schema)
    if not isinstance(max_recursion_depth, int) or max_recursion_depth < 0:
        raise ValueError("max_recursion_depth must be a non-negative integer")
    norm = Normalizer(schema, max_recursion_depth, lenient)
    em = Emitter(norm, whitespace_regex(whitespace_pattern))
    try:
        out = em.value(schema, "#")
    except RecursionError:
        raise UnsupportedSchemaError("the schema nests too deeply", None, "#") from None
    if norm.ignored:
        listed = ", ".join(f"{k} at {p}" for k, p in sorted(set(norm.ignored)))
        warnings.warn(f"build_regex_from_schema ignored keywords it cannot express: {listed}", stacklevel=2)
    if out is None:
        raise empty_schema_error(norm)
    if len(out) > MAX_REGEX_CHARS:
        raise UnsupportedSchemaError(f"the regex would be {len(out):,} characters long", None, "#")
    return out


def empty_schema_error(norm: Normalizer) -> UnsupportedSchemaError:
    """The error for a schema that accepts no value, naming the first reason found."""
    if not norm.empty_reasons:
        return UnsupportedSchemaError("the schema accepts no value", None, "#")
    kw, ptr, why = norm.empty_reasons[0]
    hint = "; raise max_recursion_depth" if kw == "$ref" else ""
    return UnsupportedSchemaError(f"the schema accepts no value: {why} (keyword {kw!r} at {ptr}){hint}", None, "#")
