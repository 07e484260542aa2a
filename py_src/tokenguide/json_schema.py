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

import itertools
import json
import math
import re
import warnings
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import unquote

from .errors import UnsupportedSchemaError
from .regex.sre import constants as _C
from .regex.sre import parser as _P

__all__ = ["build_regex_from_schema", "UnsupportedSchemaError", "WHITESPACE"]

WHITESPACE = r"[ ]?"

# One character of a JSON string body in canonical json.dumps(ensure_ascii=False) escaping.
_ESC_ANY = r'\\["\\bfnrt]|\\u00(?:0[0-7bef]|1[0-9a-f])'
STRING_CHAR = r'(?:[^"\\\x00-\x1f]|' + _ESC_ANY + ")"
STRING = '"' + STRING_CHAR + '*"'
INTEGER = r"(?:0|-?[1-9][0-9]*)"
NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
BOOLEAN = r"(?:true|false)"
NULL = "null"


_ALL_TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
_MAX_REGEX_CHARS = 500_000  # larger regexes take seconds to compile and make huge automata
_MAX_BRANCHES = 256

# Keywords with no effect on validation.
_ANNOTATIONS = {
    "title", "description", "examples", "example", "default", "$comment", "$schema", "$id", "id",
    "deprecated", "readOnly", "writeOnly", "readonly", "$anchor", "$dynamicAnchor", "$vocabulary",
    "definitions", "$defs", "contentMediaType", "contentEncoding", "contentSchema",
}

# Keywords that constrain instances (everything else is ignored).
_VALIDATION = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
    "propertyNames", "minProperties", "maxProperties", "dependencies", "dependentRequired",
    "dependentSchemas", "unevaluatedProperties", "items", "prefixItems", "additionalItems", "contains",
    "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems", "minLength",
    "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef",
    "$recursiveRef", "$$anyOfs", "$$notenum",
}

# Standard formats a validator may check; unknown formats are annotations.
_KNOWN_FORMATS = {
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
}


# --------------------------------------------------------------------------- small regex algebra


def _alt(parts: list[str | None]) -> str | None:
    """Alternation of the non-empty-language parts (None = empty language), duplicates dropped."""
    seen: list[str] = []
    for p in parts:
        if p is not None and p not in seen:
            seen.append(p)
    if not seen:
        return None
    if len(seen) == 1:
        return seen[0]
    if "" in seen:
        rest = [p for p in seen if p != ""]
        inner = rest[0] if len(rest) == 1 else "|".join(rest)
        return f"(?:{inner})?"
    return "(?:" + "|".join(seen) + ")"


def _cat(*parts: str | None) -> str | None:
    if any(p is None for p in parts):
        return None
    return "".join(parts)  # type: ignore[arg-type]


def _group(p: str) -> str:
    """Wrap `p` so a quantifier applies to all of it."""
    if len(p) == 1 or (len(p) == 2 and p[0] == "\\"):
        return p
    if p.startswith("(?:") and _balanced_group(p):
        return p
    if p.startswith("[") and p.endswith("]") and _single_class(p):
        return p
    return f"(?:{p})"


def _balanced_group(p: str) -> bool:
    depth = 0
    i = 0
    in_class = False
    while i < len(p):
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if i + 1 < len(p) and p[i + 1] == "^":
                i += 1
            if i + 1 < len(p) and p[i + 1] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0 and i != len(p) - 1:
                return False
        i += 1
    return depth == 0 and p.endswith(")")


def _single_class(p: str) -> bool:
    i = 1
    if p[i:i + 1] == "^":
        i += 1
    if p[i:i + 1] == "]":
        i += 1
    while i < len(p):
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if c == "]":
            return i == len(p) - 1
        i += 1
    return False


def _opt(p: str | None) -> str:
    if p is None or p == "":
        return ""
    return _group(p) + "?"


def _rep(p: str, lo: int, hi: int | None) -> str:
    if hi is not None and hi <= 0:
        return ""
    if hi == lo:
        return p if lo == 1 else f"{_group(p)}{{{lo}}}"
    if hi is None:
        if lo == 0:
            return _group(p) + "*"
        if lo == 1:
            return _group(p) + "+"
        return f"{_group(p)}{{{lo},}}"
    if lo == 0 and hi == 1:
        return _group(p) + "?"
    return f"{_group(p)}{{{lo},{hi}}}"


def _lit(text: str) -> str:
    """Regex matching exactly `text` (escapes only what re needs, keeps Unicode literal)."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp < 0x20 or cp == 0x7F:
            out.append(f"\\x{cp:02x}")
        elif ch in "\\.^$*+?{}[]|()-#&~ \t":
            out.append("\\" + ch if ch != " " else " ")
        else:
            out.append(ch)
    return "".join(out)


def _class_char(cp: int) -> str:
    ch = chr(cp)
    if cp < 0x20 or cp == 0x7F:
        return f"\\x{cp:02x}"
    if ch in "\\]^-[":
        return "\\" + ch
    if 0xD800 <= cp <= 0xDFFF or cp in (0x2028, 0x2029, 0x85) or not ch.isprintable():
        return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"
    return ch


# --------------------------------------------------------------------------- code-point sets

_MAXCP = 0x10FFFF
Ranges = list  # list[tuple[int, int]] sorted, merged


def _norm(ranges) -> list[tuple[int, int]]:
    rs = sorted((a, b) for a, b in ranges if a <= b)
    out: list[tuple[int, int]] = []
    for a, b in rs:
        if out and a <= out[-1][1] + 1:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _complement(rs) -> list[tuple[int, int]]:
    out = []
    prev = 0
    for a, b in _norm(rs):
        if a > prev:
            out.append((prev, a - 1))
        prev = b + 1
    if prev <= _MAXCP:
        out.append((prev, _MAXCP))
    return out


def _intersect(x, y) -> list[tuple[int, int]]:
    return _complement(_complement(x) + _complement(y))


def _minus(x, y) -> list[tuple[int, int]]:
    return _intersect(x, _complement(y))


_SPECIAL = [(0, 0x1F), (0x22, 0x22), (0x5C, 0x5C)]
_SHORT_ESC = {0x22: '"', 0x5C: "\\\\", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"}


def _escape_regex(cp: int) -> str:
    """Regex for the canonical json.dumps escape of special code point `cp`."""
    if cp in _SHORT_ESC:
        e = _SHORT_ESC[cp]
        return "\\\\" + ('"' if e == '"' else ("\\\\" if cp == 0x5C else e))
    return f"\\\\u00{cp:02x}"


def _ranges_to_class(rs) -> str:
    rs = _norm(rs)
    if len(rs) == 1 and rs[0][0] == rs[0][1]:
        return _lit(chr(rs[0][0]))
    parts = []
    for a, b in rs:
        if a == b:
            parts.append(_class_char(a))
        elif b == a + 1:
            parts.append(_class_char(a) + _class_char(b))
        else:
            parts.append(_class_char(a) + "-" + _class_char(b))
    # a negated class is shorter when the set is nearly everything
    comp = _complement(rs)
    if len(comp) < len(rs) and comp:
        cparts = []
        for a, b in comp:
            cparts.append(_class_char(a) if a == b else _class_char(a) + "-" + _class_char(b))
        return "[^" + "".join(cparts) + "]"
    return "[" + "".join(parts) + "]"


def _json_chars(rs) -> str | None:
    """Regex for one serialized JSON string character whose decoded code point is in `rs`."""
    rs = _norm(rs)
    ordinary = _minus(rs, _SPECIAL + [(0xD800, 0xDFFF)])
    specials = _intersect(rs, _SPECIAL)
    alts: list[str] = []
    if ordinary:
        if _norm(ordinary) == _minus([(0, _MAXCP)], _SPECIAL + [(0xD800, 0xDFFF)]):
            alts.append(r'[^"\\\x00-\x1f]')
        else:
            alts.append(_ranges_to_class(ordinary))
    cps = [c for a, b in specials for c in range(a, b + 1)]
    if len(cps) == 34:
        alts.append(_ESC_ANY)
    else:
        alts.extend(_escape_regex(c) for c in cps)
    return _alt(alts)


_ECMA_DIGIT = [(0x30, 0x39)]
_ECMA_WORD = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_ECMA_SPACE = _norm([(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                     (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
                     (0xFEFF, 0xFEFF)])
_ECMA_DOT = _complement([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
_CATEGORIES = {
    _C.CATEGORY_DIGIT: _ECMA_DIGIT,
    _C.CATEGORY_NOT_DIGIT: _complement(_ECMA_DIGIT),
    _C.CATEGORY_WORD: _ECMA_WORD,
    _C.CATEGORY_NOT_WORD: _complement(_ECMA_WORD),
    _C.CATEGORY_SPACE: _ECMA_SPACE,
    _C.CATEGORY_NOT_SPACE: _complement(_ECMA_SPACE),
}


# --------------------------------------------------------------------------- ECMA pattern -> regex over serialized strings


class _PatternError(Exception):
    """A `pattern` that cannot be translated; message says why."""


def _parse_pattern(pattern: str):
    try:
        parsed = _P.parse(pattern, 0)
    except re.error as exc:
        raise _PatternError(f"pattern {pattern!r} is not a regular expression tokenguide can read ({exc})")
    except (RecursionError, OverflowError) as exc:
        raise _PatternError(f"pattern {pattern!r} is too complex ({exc})")
    flags = parsed.state.flags
    if flags & (_C.SRE_FLAG_IGNORECASE | _C.SRE_FLAG_MULTILINE | _C.SRE_FLAG_DOTALL | _C.SRE_FLAG_VERBOSE):
        raise _PatternError(f"pattern {pattern!r} uses inline flags")
    return parsed


def _pattern_body(items: list) -> str | None:
    """Translate a parsed (anchor-free) sequence into a regex over serialized string content."""
    out: list[str] = []
    for op, av in items:
        piece = _pattern_item(op, av)
        if piece is None:
            return None
        out.append(piece)
    return "".join(out)


def _item_ranges(op, av):
    if op == _C.LITERAL:
        return [(av, av)]
    if op == _C.NOT_LITERAL:
        return _complement([(av, av)])
    if op == _C.ANY:
        return _ECMA_DOT
    if op == _C.CATEGORY:
        if av not in _CATEGORIES:
            raise _PatternError(f"unsupported category {av}")
        return _CATEGORIES[av]
    if op == _C.IN:
        negate = False
        rs: list = []
        for iop, iav in av:
            if iop == _C.NEGATE:
                negate = True
            elif iop == _C.LITERAL:
                rs.append((iav, iav))
            elif iop == _C.RANGE:
                rs.append(iav)
            elif iop == _C.CATEGORY:
                if iav not in _CATEGORIES:
                    raise _PatternError(f"unsupported category {iav}")
                rs.extend(_CATEGORIES[iav])
            else:
                raise _PatternError(f"unsupported class item {iop}")
        rs = _norm(rs)
        return _complement(rs) if negate else rs
    return None


def _pattern_item(op, av) -> str | None:
    rs = _item_ranges(op, av)
    if rs is not None:
        return _json_chars(rs)
    if op == _C.SUBPATTERN:
        sub = av[-1]
        if av[1] or av[2]:
            raise _PatternError("scoped inline flags")
        body = _pattern_body(list(sub.data))
        return None if body is None else _group(body) if body else ""
    if op == _C.BRANCH:
        alts = [_pattern_body(list(b.data)) for b in av[1]]
        return _alt(alts)
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
        lo, hi, sub = av
        body = _pattern_body(list(sub.data))
        hi = None if hi == _C.MAXREPEAT else hi
        if body is None:
            return "" if lo == 0 else None
        if body == "":
            return ""
        return _rep(body, lo, hi)
    if op == _C.AT:
        raise _PatternError("an anchor (^, $, \\b) inside the pattern")
    raise _PatternError(f"{str(op).lower()} (lookaround, backreference or similar) is not regular")


def _split_anchors(items: list):
    """(anchored_start, body_items, anchored_end) for a top-level sequence."""
    start = end = False
    if items and items[0][0] == _C.AT and items[0][1] in (_C.AT_BEGINNING, _C.AT_BEGINNING_STRING):
        start = True
        items = items[1:]
    if items and items[-1][0] == _C.AT and items[-1][1] in (_C.AT_END, _C.AT_END_STRING):
        end = True
        items = items[:-1]
    return start, items, end


def _top_branches(items: list) -> list[list]:
    """Top-level alternatives of a pattern, looking through a single wrapping group."""
    while len(items) == 1 and items[0][0] == _C.SUBPATTERN and not items[0][1][1] and not items[0][1][2]:
        items = list(items[0][1][-1].data)
    if len(items) == 1 and items[0][0] == _C.BRANCH:
        out = []
        for b in items[0][1][1]:
            out.extend(_top_branches(list(b.data)))
        return out
    return [items]


def pattern_to_string_body(pattern: str, min_len: int = 0, max_len: int | None = None) -> str | None:
    """Regex for the content between the quotes of strings that `pattern` (ECMA 262, unanchored
    search) accepts, with a length range; None if no string qualifies. Raises _PatternError."""
    parsed = _parse_pattern(pattern)
    anychar = STRING_CHAR + "*"
    results: list[str | None] = []
    for branch in _top_branches(list(parsed.data)):
        start, body, end = _split_anchors(branch)
        if min_len > 0 or max_len is not None:
            body = _fit_length(body, start, end, min_len, max_len, pattern)
        text = _pattern_body(body)
        if text is None:
            results.append(None)
            continue
        results.append(("" if start else anychar) + text + ("" if end else anychar))
    return _alt(results)


def _pattern_complement(pattern: str) -> str | None | bool:
    """Serialized content of the strings `pattern` does NOT find a match in: None when it matches
    every string, False when the complement is not one of the simple shapes handled here
    (one character class, repeated at least once, anchored or not). Raises _PatternError."""
    parsed = _parse_pattern(pattern)
    branches = _top_branches(list(parsed.data))
    for branch in branches:
        start, body, end = _split_anchors(branch)
        if not (start and end) and _width(body)[0] == 0 and all(op != _C.AT for op, _ in body):
            return None  # an empty match is found in every string
    if len(branches) != 1:
        return False
    start, body, end = _split_anchors(branches[0])
    if len(body) != 1:
        return False
    op, av = body[0]
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
        lo, hi, sub = av
        hi = None if hi == _C.MAXREPEAT else hi
        if len(sub.data) != 1:
            return False
        op, av = sub.data[0]
    else:
        lo, hi = 1, 1
    chars = _item_ranges(op, av)
    if chars is None:
        return False
    inside = _json_chars(chars)
    outside = _json_chars(_complement(chars))
    anyc = STRING_CHAR + "*"
    if not start and not end:
        if lo != 1:
            return False
        return "" if outside is None else _rep(outside, 0, None)  # no character of the class
    if start and end:
        alts: list[str | None] = [None if outside is None else anyc + _group(outside) + anyc]
        if inside is not None:
            if lo > 0:
                alts.append(_rep(inside, 0, lo - 1) if lo > 1 else "")
            if hi is not None:
                alts.append(_rep(inside, hi + 1, None))
        elif lo > 0:
            alts.append("")
        return _alt(alts) or False
    if lo != 1:
        return False
    if outside is None:
        return ""
    return _opt(_group(outside) + anyc) if start else _opt(anyc + _group(outside))


def _width(items: list) -> tuple[int, int]:
    sp = _P.SubPattern(_P.State(), items) if hasattr(_P, "State") else _P.SubPattern(_P.Pattern(), items)
    lo, hi = sp.getwidth()
    return lo, hi


def _fit_length(body: list, start: bool, end: bool, min_len: int, max_len: int | None, pattern: str) -> list:
    """Return `body` changed so its strings have a length in [min_len, max_len], or raise."""
    if start and end:
        lo, hi = _width(body)
        if lo >= min_len and (max_len is None or hi <= max_len):
            return body
        # one repeat of a single-character item, everything else fixed width
        var = [i for i, (op, av) in enumerate(body) if _width([(op, av)])[0] != _width([(op, av)])[1]]
        if len(var) == 1:
            i = var[0]
            op, av = body[i]
            if op in (_C.MAX_REPEAT, _C.MIN_REPEAT) and _width(list(av[2].data)) == (1, 1):
                fixed = sum(_width([it])[0] for j, it in enumerate(body) if j != i)
                rlo, rhi = av[0], (None if av[1] == _C.MAXREPEAT else av[1])
                nlo = max(rlo, min_len - fixed)
                cands = [x for x in (rhi, None if max_len is None else max_len - fixed) if x is not None]
                nhi = min(cands) if cands else None
                new = list(body)
                if nhi is not None and nhi < nlo:
                    new[i] = (_C.IN, [])  # empty language
                    return new
                new[i] = (op, (nlo, _C.MAXREPEAT if nhi is None else nhi, av[2]))
                return new
    raise _PatternError(
        f"pattern {pattern!r} combined with minLength/maxLength is not expressible "
        "(only anchored patterns with one variable-length single-character repeat are)")


# --------------------------------------------------------------------------- integer and decimal ranges


def _digits_range(lo: str, hi: str) -> str:
    """Regex for digit strings of equal length between lo and hi (inclusive)."""
    if lo == hi:
        return lo
    if len(lo) == 1:
        return f"[{lo}-{hi}]" if int(hi) > int(lo) + 1 else f"[{lo}{hi}]"
    if lo[0] == hi[0]:
        return lo[0] + _digits_range(lo[1:], hi[1:])
    n = len(lo) - 1
    if lo[1:] == "0" * n and hi[1:] == "9" * n:
        return _digits_range(lo[0], hi[0]) + _rep("[0-9]", n, n)
    parts = []
    if lo[1:] == "0" * n:
        mid_lo = int(lo[0])
    else:
        parts.append(lo[0] + _digits_range(lo[1:], "9" * n))
        mid_lo = int(lo[0]) + 1
    if hi[1:] == "9" * n:
        mid_hi = int(hi[0])
        tail = None
    else:
        mid_hi = int(hi[0]) - 1
        tail = hi[0] + _digits_range("0" * n, hi[1:])
    if mid_lo <= mid_hi:
        parts.append(_digits_range(str(mid_lo), str(mid_hi)) + _rep("[0-9]", n, n))
    if tail:
        parts.append(tail)
    return _alt(parts)  # type: ignore[return-value]


def _nonneg_int_range(lo: int, hi: int | None) -> str | None:
    """Canonical decimal naturals in [lo, hi] (hi None = unbounded)."""
    lo = max(lo, 0)
    if hi is not None and hi < lo:
        return None
    parts: list[str] = []
    if lo == 0:
        parts.append("0")
        lo = 1
        if hi == 0:
            return "0"
    ls = len(str(lo))
    hs = len(str(hi)) if hi is not None else None
    L = ls
    while hs is None or L <= hs:
        a = max(lo, 10 ** (L - 1))
        b = 10 ** L - 1 if hi is None else min(hi, 10 ** L - 1)
        if a == 10 ** (L - 1) and (hi is None or b == 10 ** L - 1):
            # all L-digit numbers, and maybe all longer ones too
            if hi is None:
                parts.append("[1-9]" + _rep("[0-9]", L - 1, None))
                break
            top = hs if hi == 10 ** hs - 1 else hs - 1
            parts.append("[1-9]" + _rep("[0-9]", L - 1, top - 1))
            L = top + 1
            continue
        parts.append(_digits_range(str(a), str(b)))
        L += 1
    return _alt(parts)


def int_range_regex(lo: int | None, hi: int | None) -> str | None:
    """Regex for canonical JSON integers n with lo <= n <= hi (None = unbounded); None if empty."""
    if lo is not None and hi is not None and lo > hi:
        return None
    parts: list[str | None] = []
    if lo is None or lo < 0:
        # negatives: -m with m in [max(1, -hi), -lo]
        mlo = 1 if hi is None or hi >= 0 else -hi
        mhi = None if lo is None else -lo
        neg = _nonneg_int_range(mlo, mhi)
        if neg is not None:
            parts.append("-" + neg)
    if hi is None or hi >= 0:
        parts.append(_nonneg_int_range(0 if lo is None else max(lo, 0), hi))
    return _alt(parts)


def _tail(budget: int | None) -> str:
    """Any digit string, or with `budget`: at most that many significant digits, then zeros."""
    if budget is None:
        return "[0-9]*"
    if budget == 0:
        return "0*"
    return _rep("[0-9]", 0, budget) + "0*"


def _zero_only(lower_ok: bool, upper_ok: bool) -> tuple[str | None, bool]:
    """Fraction digits that must all be zero (no budget left): allowed iff 0 is in range."""
    return ("0+", True) if lower_ok and upper_ok else (None, False)


def _frac_cmp(d: str, op: str, budget: int | None = None) -> tuple[str | None, bool]:
    """Digit strings f (fraction digits) with 0.f `op` 0.d, as (regex for non-empty f, empty ok).
    With `budget`, f has at most that many significant digits (multipleOf 10**-budget)."""
    d = d.rstrip("0")
    if budget == 0:
        zero_ok = {"ge": not d, "gt": False, "le": True, "lt": bool(d)}[op]
        return _zero_only(zero_ok, True)
    nb = None if budget is None else budget - 1
    if op in ("ge", "le") and not d:
        if op == "le":
            return ("0+", True)
        return ("[0-9]+" if budget is None else "[0-9]" + _tail(nb)), True
    if not d:
        if op == "lt":
            return None, False
        if budget is None:
            return "0*[1-9][0-9]*", False
        return _rep("[0-9]", 0, budget - 1) + "[1-9]0*", False
    first = int(d[0])
    rest_re, rest_empty = _frac_cmp(d[1:], op, nb)
    alts: list[str | None] = []
    if op in ("ge", "gt"):
        if first < 9:
            alts.append(_digits_range(str(first + 1), "9") + _tail(nb))
        tail = _alt([rest_re, "" if rest_empty else None])
        alts.append(_cat(d[0], tail))
        return _alt(alts), False
    if first > 0:
        alts.append(_digits_range("0", str(first - 1)) + _tail(nb))
    tail = _alt([rest_re, "" if rest_empty else None])
    alts.append(_cat(d[0], tail))
    return _alt(alts), True


def _multiples_regex(k: int) -> str | None:
    """Canonical integers divisible by k, when k divides a power of ten (k <= 10000):
    the last j digits decide."""
    j = 0
    while j <= 4 and 10 ** j % k:
        j += 1
    if j > 4:
        return None
    small = [str(n) for n in range(k, 10 ** j, k)]
    suffixes = [str(n).zfill(j) for n in range(0, 10 ** j, k)]
    big = "[1-9][0-9]*" + (_alt([_lit(x) for x in suffixes]) or "") if j else None
    pos = _alt(small + ([big] if big else []))
    if pos is None:
        return "0"
    return "(?:0|-?" + _group(pos) + ")"


def _frac_between(a: str, b: str, a_strict: bool, b_strict: bool, budget: int | None = None) -> tuple[str | None, bool]:
    """Fraction digit strings f with 0.a (<|<=) 0.f (<|<=) 0.b (0.a <= 0.b), as
    (regex for non-empty f, whether the empty f, i.e. 0, qualifies)."""
    a = a.rstrip("0")
    b = b.rstrip("0")
    zero_ok = not a and not a_strict
    if budget == 0:
        return _zero_only(zero_ok, bool(b) or not b_strict)
    nb = None if budget is None else budget - 1
    n = max(len(a), len(b))
    if n == 0:
        return ("0+", True) if not (a_strict or b_strict) else (None, False)
    ap, bp = a.ljust(n, "0"), b.ljust(n, "0")
    if ap[0] == bp[0]:
        r, e = _frac_between(ap[1:], bp[1:], a_strict, b_strict, nb)
        return _cat(ap[0], _alt([r, "" if e else None])), zero_ok
    alts: list[str | None] = []
    lo_re, lo_empty = _frac_cmp(ap[1:], "gt" if a_strict else "ge", nb)
    alts.append(_cat(ap[0], _alt([lo_re, "" if lo_empty else None])))
    if int(bp[0]) - int(ap[0]) > 1:
        alts.append(_digits_range(str(int(ap[0]) + 1), str(int(bp[0]) - 1)) + _tail(nb))
    hi_re, hi_empty = _frac_cmp(bp[1:], "lt" if b_strict else "le", nb)
    alts.append(_cat(bp[0], _alt([hi_re, "" if hi_empty else None])))
    return _alt(alts), zero_ok


def _with_frac(int_re: str | None, frac: tuple[str | None, bool]) -> str | None:
    if int_re is None:
        return None
    fre, fempty = frac
    tail = _alt([("\\." + fre) if fre is not None else None, "" if fempty else None])
    return _cat(int_re if "|" not in int_re or int_re.startswith("(?:") else f"(?:{int_re})", tail)




def _plain_nonneg(lo: Decimal, lo_strict: bool, hi: Decimal | None, hi_strict: bool,
                  budget: int | None = None) -> str | None:
    """Plain decimal spellings (no sign, no exponent) of x with lo (<|<=) x (<|<=) hi, lo >= 0;
    with `budget`, at most that many significant fraction digits."""
    if hi is not None and (hi < lo or (hi == lo and (lo_strict or hi_strict))):
        return None
    any_frac = ("[0-9]+", True) if budget is None else _frac_cmp("", "ge", budget)
    li, lf = _split_dec(lo)
    parts: list[str | None] = []
    if hi is None:
        parts.append(_with_frac(_nonneg_int_range(li, li), _frac_cmp(lf, "gt" if lo_strict else "ge", budget)))
        parts.append(_with_frac(_nonneg_int_range(li + 1, None), any_frac))
        return _alt(parts)
    hi_i, hf = _split_dec(hi)
    if li == hi_i:
        return _with_frac(_nonneg_int_range(li, li), _frac_between(lf, hf, lo_strict, hi_strict, budget))
    parts.append(_with_frac(_nonneg_int_range(li, li), _frac_cmp(lf, "gt" if lo_strict else "ge", budget)))
    if hi_i - li > 1:
        parts.append(_with_frac(_nonneg_int_range(li + 1, hi_i - 1), any_frac))
    parts.append(_with_frac(_nonneg_int_range(hi_i, hi_i), _frac_cmp(hf, "lt" if hi_strict else "le", budget)))
    return _alt(parts)


def _split_dec(x: Decimal) -> tuple[int, str]:
    i = int(x)
    frac = x - i
    s = format(frac, "f")
    digits = s.split(".")[1] if "." in s else ""
    return i, digits.rstrip("0")


# --------------------------------------------------------------------------- formats

_DAY_31 = "(?:0[1-9]|[12][0-9]|3[01])"
_DATE = ("[0-9]{4}-(?:(?:0[13578]|1[02])-" + _DAY_31 + "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
         "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
         "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29")
_TIME = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = f"{_OCTET}(?:\\.{_OCTET}){{3}}"
_H16 = "[0-9A-Fa-f]{1,4}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"


def _ipv6() -> str:
    h = _H16
    forms = [
        f"(?:{h}:){{6}}{_LS32}",
        f"::(?:{h}:){{5}}{_LS32}",
        f"(?:{h})?::(?:{h}:){{4}}{_LS32}",
        f"(?:(?:{h}:){{0,1}}{h})?::(?:{h}:){{3}}{_LS32}",
        f"(?:(?:{h}:){{0,2}}{h})?::(?:{h}:){{2}}{_LS32}",
        f"(?:(?:{h}:){{0,3}}{h})?::{h}:{_LS32}",
        f"(?:(?:{h}:){{0,4}}{h})?::{_LS32}",
        f"(?:(?:{h}:){{0,5}}{h})?::{h}",
        f"(?:(?:{h}:){{0,6}}{h})?::",
    ]
    return "(?:" + "|".join(forms) + ")"


_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_FORMATS = {
    "date": f"(?:{_DATE})",
    "time": _TIME,
    "date-time": f"(?:{_DATE})[Tt]{_TIME}",
    "uuid": "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
    "ipv4": _IPV4,
    "ipv6": _ipv6(),
    "hostname": f"{_LABEL}(?:\\.{_LABEL})*",
    "email": "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@" + f"{_LABEL}(?:\\.{_LABEL})*",
    "uri": "[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=%]+",
}
# Fixed lengths of formats, for minLength/maxLength checks: (min, max or None).
_FORMAT_WIDTH = {"date": (10, 10), "uuid": (36, 36), "ipv4": (7, 15)}


# --------------------------------------------------------------------------- the builder


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _json_type_of(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    raise TypeError(type(v).__name__)


_OLD_DRAFT = re.compile(r"draft-0[3-7]")


class _Builder:
    def __init__(self, root: Any, ws: str, depth: int, lenient: bool, old_draft: bool):
        self.root = root
        self.ws = ws
        self.depth = depth
        self.free_depth = max(depth - 1, 0)
        self.lenient = lenient
        self.old_draft = old_draft
        self.ignored: list[tuple[str, str]] = []
        self.ref_stack: list[str] = []
        self._any_cache: dict[int, str] = {}
        self._ids = self._collect_ids(root)

    # ---- errors -------------------------------------------------------------------------------
    def unsupported(self, keyword: str, pointer: str, why: str) -> None:
        """Raise, or in lenient mode record the ignored keyword and return."""
        if self.lenient:
            self.ignored.append((keyword, pointer))
            return
        raise UnsupportedSchemaError(f"{why} (keyword {keyword!r} at {pointer})", keyword, pointer)

    # ---- $ref ---------------------------------------------------------------------------------
    def _collect_ids(self, root: Any) -> dict[str, tuple[Any, str]]:
        ids: dict[str, tuple[Any, str]] = {}

        def walk(node: Any, ptr: str) -> None:
            if isinstance(node, dict):
                for key in ("$id", "id", "$anchor"):
                    v = node.get(key)
                    if isinstance(v, str) and v:
                        name = v if key != "$anchor" else "#" + v
                        ids.setdefault(name, (node, ptr))
                        ids.setdefault(name.rstrip("#"), (node, ptr))
                for k, v in node.items():
                    if k in ("enum", "const", "default", "examples", "example"):
                        continue
                    walk(v, f"{ptr}/{_ptr_escape(k)}")
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    walk(v, f"{ptr}/{i}")

        walk(root, "#")
        return ids

    def resolve_ref(self, ref: str, pointer: str) -> tuple[Any, str] | None:
        if not isinstance(ref, str):
            raise UnsupportedSchemaError(f"$ref must be a string (at {pointer})", "$ref", pointer)
        base, _, frag = ref.partition("#")
        target = self.root
        tptr = "#"
        if base:
            hit = self._ids.get(base) or self._ids.get(base + "#")
            if hit is None:
                self.unsupported("$ref", pointer, f"remote reference {ref!r} is not supported")
                return None
            target, tptr = hit
        if frag and not frag.startswith("/"):
            hit = self._ids.get("#" + frag)
            if hit is None:
                raise UnsupportedSchemaError(f"$ref {ref!r} names an unknown anchor (at {pointer})", "$ref", pointer)
            return hit
        for part in frag.split("/")[1:] if frag else []:
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise UnsupportedSchemaError(
                    f"$ref {ref!r} does not resolve inside the schema (at {pointer})", "$ref", pointer)
            tptr += "/" + _ptr_escape(part)
        return target, tptr

    # ---- normalization: resolve $ref and merge allOf into one flat schema -------------------------
    def flatten(self, schema: Any, ptr: str) -> dict | bool:
        """Return a dict without $ref/allOf (merged), or a bool schema. Keys '$$ptr' give pointers."""
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, dict):
            raise UnsupportedSchemaError(f"a schema must be an object or a boolean (at {ptr})", None, ptr)
        s = {k: v for k, v in schema.items()}
        s.setdefault("$$ptr", ptr)
        parts: list[dict | bool] = []
        if "$ref" in s:
            ref = s.pop("$ref")
            if self.old_draft:
                s = {"$$ptr": ptr}
            hit = self.resolve_ref(ref, ptr)
            if hit is not None:  # None: ignored in lenient mode
                tptr = hit[1]
                if self.ref_stack.count(tptr) >= self.depth:
                    return False  # recursion unrolled far enough
                self.ref_stack.append(tptr)
                try:
                    target = self.flatten(hit[0], tptr)
                finally:
                    self.ref_stack.pop()
                if isinstance(target, dict):
                    target = dict(target)
                    target["$$refs"] = [tptr] + list(target.get("$$refs", []))
                parts.append(target)
        own_props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        groups = [(k, s.pop(k), f"{ptr}/{k}", len(own_props)) for k in ("anyOf", "oneOf") if k in s]
        groups.extend(self._dependency_groups(s, ptr, len(own_props)))
        if "not" in s:
            neg = self._negate(s, ptr, len(own_props))
            if neg is False:
                return False
            if neg is not None:
                groups.extend(neg)
        if groups:
            s["$$anyOfs"] = groups
        all_of = s.pop("allOf", None)
        if all_of is not None:
            if not isinstance(all_of, list):
                raise UnsupportedSchemaError(f"allOf must be an array (at {ptr})", "allOf", ptr)
            for i, sub in enumerate(all_of):
                parts.append(self.flatten(sub, f"{ptr}/allOf/{i}"))
        result: dict | bool = s
        for p in parts:
            result = self.merge(result, p)
            if result is False:
                return False
        return result

    def _negate(self, s: dict, ptr: str, pos: int) -> list | None | bool:
        """Rewrite `not` in place when its schema is a type list, an enum/const, or required names.
        Returns anyOf groups to add, None (nothing to add, or left for check_generic to report),
        or False when nothing can match."""
        sub = self.flatten(s["not"], f"{ptr}/not")
        if sub is True:
            return False
        if sub is False:
            del s["not"]
            return None
        keys = {k for k in sub if k in _VALIDATION}
        if not keys:
            return False  # not {} rejects everything
        if keys == {"type"}:
            banned = set(self.types_of(sub))
            if "integer" in banned and "number" not in banned and "number" in self.types_of(s):
                return None  # "number but not integer" is not expressible
            allowed = [t for t in _ALL_TYPES if t not in banned and not (t == "integer" and "number" in banned)]
            if not allowed:
                return False
            del s["not"]
            s["type"] = _type_intersection(s["type"], allowed) if "type" in s else allowed
            return None
        if keys <= {"enum", "const"}:
            values = _enum_values(sub) or []
            del s["not"]
            s["$$notenum"] = list(s.get("$$notenum", [])) + values
            return None
        if keys == {"required"} and isinstance(sub["required"], list) and sub["required"]:
            del s["not"]
            names = [n for n in sub["required"] if isinstance(n, str)]
            return [("anyOf", [{"properties": {n: False}} for n in names], f"{ptr}/not", pos)]
        return None

    def _dependency_groups(self, s: dict, ptr: str, pos: int) -> list:
        """dependencies / dependentRequired / dependentSchemas as disjoint anyOf pairs:
        either the trigger property is absent, or it is present with what it requires."""
        groups = []
        for kw in ("dependencies", "dependentRequired", "dependentSchemas"):
            deps = s.pop(kw, None)
            if deps is None:
                continue
            if not isinstance(deps, dict):
                raise UnsupportedSchemaError(f"{kw} must be an object (at {ptr}/{kw})", kw, f"{ptr}/{kw}")
            for name, dep in deps.items():
                dptr = f"{ptr}/{kw}/{_ptr_escape(name)}"
                absent = {"properties": {name: False}}
                if isinstance(dep, list):
                    present: Any = {"required": [name] + [d for d in dep if isinstance(d, str)]}
                elif isinstance(dep, (dict, bool)):
                    present = {"required": [name], "allOf": [dep]}
                else:
                    raise UnsupportedSchemaError(f"{kw} values must be arrays or schemas (at {dptr})", kw, dptr)
                groups.append(("anyOf", [absent, present], dptr, pos))
        return groups

    def merge(self, a: dict | bool, b: dict | bool) -> dict | bool:
        """Schema accepting exactly what both accept (conjunction), as one flat dict."""
        if a is True:
            return b if not isinstance(b, dict) else dict(b)
        if b is True:
            return a
        if a is False or b is False:
            return False
        out = dict(a)
        aptr = a.get("$$ptr", "#")
        bptr = b.get("$$ptr", "#")
        ptrs = dict(a.get("$$ptrs", {}))
        for k, v in b.items():
            if k in ("$$ptr", "$$ptrs"):
                continue
            if k == "$$refs":
                out[k] = list(out.get(k, [])) + list(v)
                continue
            if k == "$$anyOfs":
                continue
            if k == "$$notenum":
                out[k] = list(out.get(k, [])) + list(v)
                continue
            ptrs.setdefault(k, b.get("$$ptrs", {}).get(k, f"{bptr}/{_ptr_escape(k)}"))
            if k not in out:
                out[k] = v
                ptrs[k] = b.get("$$ptrs", {}).get(k, f"{bptr}/{_ptr_escape(k)}")
                continue
            av = out[k]
            if _canon(av) == _canon(v) and k not in ("properties", "anyOf", "oneOf", "$$anyOfs"):
                continue
            if k == "type":
                out[k] = _type_intersection(av, v)
            elif k == "properties":
                pa, pb = dict(av), v
                for name, sub in pb.items():
                    pa[name] = {"allOf": [pa[name], sub]} if name in pa else sub
                out[k] = pa
            elif k == "required":
                out[k] = list(dict.fromkeys(list(av) + list(v)))
            elif k in ("minimum", "minLength", "minItems", "minProperties"):
                out[k] = max(av, v)
            elif k in ("maximum", "maxLength", "maxItems", "maxProperties"):
                out[k] = min(av, v)
            elif k in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(av, bool) and not isinstance(v, bool):
                out[k] = max(av, v) if k == "exclusiveMinimum" else min(av, v)
            elif k == "enum":
                vb = {_canon(x) for x in v}
                out[k] = [x for x in av if _canon(x) in vb]
            elif k in ("anyOf", "oneOf"):
                out.setdefault("$$anyOfs", [])
                out["$$anyOfs"] = list(out["$$anyOfs"]) + [(k, v, ptrs.get(k, bptr))]
            elif k in ("items", "additionalProperties", "additionalItems", "propertyNames", "contains") and not isinstance(av, list) and not isinstance(v, list):
                out[k] = {"allOf": [av, v]}
            elif k in _ANNOTATIONS:
                pass
            else:
                self.unsupported("allOf", aptr, f"cannot merge two different {k!r} values")
        if b.get("$$anyOfs"):
            # b's anyOf/oneOf groups keep their place among b's properties in the merged order
            final = list(out.get("properties", {}) or {})
            bprops = list(b.get("properties", {}) or {})
            na = len(a.get("properties", {}) or {})
            groups = list(out.get("$$anyOfs", [])) if "$$anyOfs" in a else []
            for kind, subs, gptr, pos in b["$$anyOfs"]:
                before = [final.index(n) for n in bprops[:pos] if n in final]
                groups.append((kind, subs, gptr, max(before) + 1 if before else na))
            out["$$anyOfs"] = groups
        # each side's additionalProperties also governs the names only the other side declares
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
                    if any(_ecma_search(p, name) for p in pats):
                        continue  # the pattern's schema applies (t_object combines it)
                except _PatternError as exc:
                    self.unsupported("patternProperties", side.get("$$ptr", "#"), str(exc))
                props[name] = False if addl is False else {"allOf": [props[name], addl]}
            out["properties"] = props
        for side, other in ((a, b), (b, a)):
            pa, pb = side.get("patternProperties"), other.get("patternProperties")
            if pa and _canon(pa) != _canon(pb or {}) and (pb or other.get("additionalProperties", True) not in (True, {})):
                self.unsupported("patternProperties", side.get("$$ptr", "#"),
                                 "allOf of patternProperties with another schema's patternProperties or "
                                 "additionalProperties is not supported")
        out["$$ptrs"] = ptrs
        out["$$ptr"] = aptr
        return out

    # ---- entry -------------------------------------------------------------------------------
    def value(self, schema: Any, ptr: str) -> str | None:
        """Regex for serializations of instances of `schema`; None = no instance."""
        flat = self.flatten(schema, ptr)
        if flat is True:
            return self.any_value(self.free_depth)
        if flat is False:
            return None
        out = self.flat_value(flat)
        if out is not None and len(out) > _MAX_REGEX_CHARS:
            raise UnsupportedSchemaError(
                f"the regex for {ptr} would be over {_MAX_REGEX_CHARS:,} characters long "
                "(recursive or deeply nested schema); lower max_recursion_depth", None, ptr)
        return out

    def kptr(self, s: dict, k: str) -> str:
        return s.get("$$ptrs", {}).get(k, f"{s.get('$$ptr', '#')}/{_ptr_escape(k)}")

    def flat_value(self, s: dict) -> str | None:
        refs = s.get("$$refs", [])
        self.ref_stack.extend(refs)
        try:
            return self._flat_value(s)
        finally:
            del self.ref_stack[len(self.ref_stack) - len(refs):]

    def _flat_value(self, s: dict) -> str | None:
        if not any(k in _VALIDATION for k in s):
            return self.any_value(self.free_depth)
        # anyOf / oneOf: distribute over the branches (each branch merged with the rest)
        groups: list[tuple[str, list, str, int]] = list(s.get("$$anyOfs", []))
        if groups:
            base = {k: v for k, v in s.items() if k not in ("anyOf", "oneOf", "$$anyOfs", "$$refs")}
            branch_lists = []
            for kind, subs, gptr, _ in groups:
                if not isinstance(subs, list) or not subs:
                    raise UnsupportedSchemaError(f"{kind} must be a non-empty array (at {gptr})", kind, gptr)
                flats = []
                for i, sub in enumerate(subs):
                    f = self.flatten(sub, f"{gptr}/{i}")
                    if f is not False:
                        flats.append(f)
                if kind == "oneOf" and len(flats) > 1:
                    if not self._pairwise_disjoint(flats, base):
                        exclusive = self._one_of_exclusive(flats, base)
                        if exclusive is None:
                            self.unsupported("oneOf", gptr, "oneOf branches that may overlap cannot be expressed (exactly one must match)")
                        else:
                            flats = exclusive
                branch_lists.append(flats)
            total = 1
            for bl in branch_lists:
                total *= max(1, len(bl))
            if total > _MAX_BRANCHES:
                self.unsupported("anyOf", s.get("$$ptr", "#"), f"{total} combined anyOf/oneOf branches")
            outs = []
            base_names = list(base.get("properties", {}) or {})
            for combo in itertools.product(*branch_lists):
                m: dict | bool = base
                inserts: dict[int, list[str]] = {}
                for g, f in zip(groups, combo):
                    m = self.merge(m, f)
                    if m is False:
                        break
                    if isinstance(f, dict):
                        for n in f.get("properties", {}) or {}:
                            if n not in base_names:
                                inserts.setdefault(g[3], []).append(n)
                if isinstance(m, dict) and inserts and isinstance(m.get("properties"), dict):
                    order: list[str] = []
                    for i in range(len(base_names) + 1):
                        order.extend(n for n in inserts.get(i, []) if n not in order)
                        if i < len(base_names):
                            order.append(base_names[i])
                    order.extend(n for n in m["properties"] if n not in order)
                    m = dict(m)
                    m["properties"] = {n: m["properties"][n] for n in order if n in m["properties"]}
                if m is True:
                    outs.append(self.any_value(self.free_depth))
                elif m is not False:
                    outs.append(self.flat_value(m))
            return _alt(outs)
        if "enum" in s or "const" in s:
            return self.enum_value(s)
        self.check_generic(s)
        types = self.types_of(s)
        outs = []
        for t in types:
            outs.append(getattr(self, "t_" + t)(s))
        if "integer" in types and "number" in types:
            pass
        return _alt(outs)

    def types_of(self, s: dict) -> list[str]:
        t = s.get("type")
        if t is None or t == "any":
            return list(_ALL_TYPES)
        tl = [t] if isinstance(t, str) else t
        if not isinstance(tl, list) or not all(isinstance(x, str) for x in tl):
            raise UnsupportedSchemaError(f"type must be a string or an array of strings (at {self.kptr(s, 'type')})", "type", self.kptr(s, "type"))
        out = []
        for x in tl:
            if x == "any":
                return list(_ALL_TYPES)
            if x not in _ALL_TYPES:
                raise UnsupportedSchemaError(f"unknown type {x!r} (at {self.kptr(s, 'type')})", "type", self.kptr(s, "type"))
            if x not in out:
                out.append(x)
        if "number" in out and "integer" in out:
            out.remove("integer")
        return [x for x in _ALL_TYPES if x in out]

    def check_generic(self, s: dict) -> None:
        types = self.types_of(s)
        for kw in ("not", "if", "then", "else", "$dynamicRef", "$recursiveRef"):
            if kw in s:
                if kw in ("then", "else") and "if" not in s:
                    continue
                self.unsupported(kw, self.kptr(s, kw), f"{kw!r} cannot be expressed as a regular expression")
        if "object" in types:
            for kw in ("unevaluatedProperties",):
                if kw in s and s[kw] not in ({}, True):
                    self.unsupported(kw, self.kptr(s, kw), f"{kw!r} is not supported")
        if "array" in types:
            for kw in ("contains", "unevaluatedItems"):
                if kw in s:
                    self.unsupported(kw, self.kptr(s, kw), f"{kw!r} is not supported")
            if s.get("uniqueItems") is True and not (isinstance(s.get("maxItems"), int) and s["maxItems"] <= 1):
                self.unsupported("uniqueItems", self.kptr(s, "uniqueItems"), "uniqueItems cannot be expressed as a regular expression")

    # ---- oneOf as a union of disjoint branches -----------------------------------------------------
    _TYPE_KEYWORDS = {
        "string": {"minLength", "maxLength", "pattern", "format"},
        "number": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
        "object": {"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                   "minProperties", "maxProperties", "unevaluatedProperties"},
        "array": {"items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains",
                  "unevaluatedItems"},
        "null": set(), "boolean": set(),
    }

    def _one_of_exclusive(self, flats: list, base: dict) -> list | None:
        """Rewrite oneOf branches, type by type, as branches no two of which accept the same value;
        None when that needs the negation of a constraint we cannot negate."""
        out: list = []
        for t in ("null", "boolean", "string", "number", "array", "object"):
            full: list = []
            part: list = []
            for f in flats:
                if f is True:
                    full.append({})
                    continue
                types = set(self.types_of(f))
                if t == "number" and "integer" in types and "number" not in types:
                    part.append(f)
                    continue
                if t not in types:
                    continue
                if ("enum" in f or "const" in f or f.get("$$anyOfs") or "not" in f
                        or any(k in f for k in self._TYPE_KEYWORDS[t])):
                    part.append(f)
                else:
                    full.append(f)
            only_t = {"type": [t] if t != "number" else ["number"]}
            if len(full) >= 2 or (not full and not part):
                continue  # two branches accept every value of this type: none is valid
            if t == "object" and all(self._required_only(f) for f in full + part):
                sets = [[r for r in f.get("required", []) if isinstance(r, str)] for f in full + part]
                branches = self._exactly_one_required(sets)
                if branches is None:
                    return None
                for b, i in branches:
                    m = self.merge(self.merge((full + part)[i], only_t), b)
                    if m is not False:
                        out.append(m)
                continue
            if full and not part:
                m = self.merge(full[0], only_t)
                if m is not False:
                    out.append(m)
                continue
            if full:
                return None  # valid values of this type are those the other branches reject: no negation
            restricted = [self.merge(f, only_t) for f in part]
            restricted = [r for r in restricted if r is not False]
            if len(restricted) > 1 and not self._pairwise_disjoint(restricted, base):
                return None
            out.extend(restricted)
        return out

    def _required_only(self, f: dict) -> bool:
        return (not f.get("$$anyOfs") and "enum" not in f and "const" not in f and "not" not in f
                and not any(k in f for k in self._TYPE_KEYWORDS["object"] - {"required"}))

    def _exactly_one_required(self, sets: list[list[str]]) -> list[tuple[dict, int]] | None:
        """Objects where exactly one of the required-name sets is fully present, as a union of
        (schema, index of the set) branches: set i present, and one name of every other set absent."""
        out: list[tuple[dict, int]] = []
        for i, own in enumerate(sets):
            choices = []
            possible = True
            for j, other in enumerate(sets):
                if j == i:
                    continue
                missing = [n for n in other if n not in own]
                if not missing:
                    possible = False  # whenever set i is present, set j is too
                    break
                choices.append(sorted(set(missing)))
            if not possible:
                continue
            combos = 1
            for c in choices:
                combos *= len(c)
            if combos > _MAX_BRANCHES:
                return None
            seen = set()
            for pick in itertools.product(*choices):
                absent = tuple(sorted(set(pick)))
                if absent in seen:
                    continue
                seen.add(absent)
                out.append(({"required": list(own), "properties": {n: False for n in absent}}, i))
        return out

    # ---- disjointness (for oneOf) --------------------------------------------------------------
    def _pairwise_disjoint(self, flats: list, base: dict) -> bool:
        for i in range(len(flats)):
            for j in range(i + 1, len(flats)):
                a = self.merge(base, flats[i])
                b = self.merge(base, flats[j])
                if a is False or b is False:
                    continue
                if not self._disjoint(a, b, 0):
                    return False
        return True

    def _disjoint(self, a: Any, b: Any, level: int) -> bool:
        if a is False or b is False:
            return True
        if a is True or b is True or level > 4:
            return False
        if "$ref" in a or "allOf" in a:
            a = self.flatten(a, a.get("$$ptr", "#"))
        if "$ref" in b or "allOf" in b:
            b = self.flatten(b, b.get("$$ptr", "#"))
        if a is False or b is False:
            return True
        if a is True or b is True:
            return False
        if a.get("$$anyOfs") or b.get("$$anyOfs"):
            return False
        ea = _enum_values(a)
        eb = _enum_values(b)
        if ea is not None and eb is not None:
            return not ({_canon(x) for x in ea} & {_canon(x) for x in eb})
        ta = set(self.types_of(a))
        tb = set(self.types_of(b))
        if "number" in ta:
            ta.add("integer")
        if "number" in tb:
            tb.add("integer")
        if ea is not None:
            ta = {_json_type_of(x) for x in ea} | ({"number"} if any(_json_type_of(x) == "integer" for x in ea) else set())
        if eb is not None:
            tb = {_json_type_of(x) for x in eb} | ({"number"} if any(_json_type_of(x) == "integer" for x in eb) else set())
        common = ta & tb
        for t in common:
            if t != "object":
                if ea is not None and eb is None:
                    # enum values all rejected by the other schema?
                    if self._enum_excluded(ea, b, t):
                        continue
                if eb is not None and ea is None:
                    if self._enum_excluded(eb, a, t):
                        continue
                return False
            # objects: a required key in both with disjoint values, or a key one requires and the other forbids
            ra, rb = set(a.get("required", [])), set(b.get("required", []))
            pa, pb = a.get("properties", {}), b.get("properties", {})
            ok = False
            for k in ra & rb:
                if k in pa and k in pb and self._disjoint(pa[k], pb[k], level + 1):
                    ok = True
                    break
            if not ok:
                for x, y, rx in ((a, b, ra), (b, a, rb)):
                    py = y.get("properties", {})
                    for k in rx:
                        if (y.get("additionalProperties") is False and not y.get("patternProperties") and k not in py) or py.get(k) is False:
                            ok = True
            if not ok:
                return False
        return True

    def _enum_excluded(self, values: list, other: dict, t: str) -> bool:
        try:
            sub = self.sub_builder()
            r = sub.flat_value(dict(other))
        except UnsupportedSchemaError:
            return False
        if r is None:
            return True
        vals = [v for v in values if _json_type_of(v) == t or (t == "number" and _json_type_of(v) == "integer")]
        return all(not re.fullmatch(r, _compact(v)) for v in vals)

    def sub_builder(self) -> "_Builder":
        b = _Builder.__new__(_Builder)
        b.__dict__.update(self.__dict__)
        b.ws = ""
        b.lenient = False
        b.ignored = []
        b.ref_stack = list(self.ref_stack)
        b._any_cache = {}
        return b

    # ---- enum / const ------------------------------------------------------------------------
    def enum_value(self, s: dict) -> str | None:
        values = _enum_values(s)
        assert values is not None
        if s.get("$$notenum"):
            banned = {_canon(v) for v in s["$$notenum"]}
            values = [v for v in values if _canon(v) not in banned]
        rest = {k: v for k, v in s.items() if k in _VALIDATION and k not in ("enum", "const", "type", "$$notenum")}
        if "type" in s:
            types = set(self.types_of(s))
            if "number" in types:
                types.add("integer")
            values = [v for v in values if _json_type_of(v) in types]
        if rest:
            sub = self.sub_builder()
            check = dict(s)
            check.pop("enum", None)
            check.pop("const", None)
            try:
                r = sub.flat_value(check)
            except UnsupportedSchemaError as exc:
                if self.lenient:
                    self.ignored.append((exc.keyword or "?", exc.pointer or "#"))
                    r = None
                    check_ok = False
                else:
                    raise
            else:
                check_ok = True
            if check_ok:
                rx = re.compile(r) if r is not None else None
                values = [v for v in values if rx is not None and rx.fullmatch(_compact(v))]
        return _alt([self.literal(v) for v in values])

    def literal(self, v: Any) -> str | None:
        """Regex for the JSON text of `v` (numbers: every plain spelling of the same value)."""
        ws = self.ws
        if v is None or isinstance(v, bool):
            return json.dumps(v)
        if isinstance(v, int):
            return _lit(str(v)) + r"(?:\.0+)?"
        if isinstance(v, float):
            if not math.isfinite(v):
                return None  # not JSON
            text = json.dumps(v)
            if "e" in text or "E" in text:
                return _lit(text)
            if v.is_integer():
                return _lit(str(int(v))) + r"(?:\.0+)?"
            return _lit(text) + "0*"
        if isinstance(v, str):
            return _lit(json.dumps(v, ensure_ascii=False))
        if isinstance(v, list):
            if not v:
                return rf"\[{ws}\]"
            return rf"\[{ws}" + f"{ws},{ws}".join(self.literal(x) for x in v) + rf"{ws}\]"
        if isinstance(v, dict):
            if not v:
                return rf"\{{{ws}\}}"
            items = [_lit(json.dumps(k, ensure_ascii=False)) + f"{ws}:{ws}" + self.literal(x) for k, x in v.items()]
            return rf"\{{{ws}" + f"{ws},{ws}".join(items) + rf"{ws}\}}"
        raise UnsupportedSchemaError(f"enum value of type {type(v).__name__}", "enum", "#")

    # ---- free-form values --------------------------------------------------------------------
    def any_value(self, depth: int) -> str:
        if depth in self._any_cache:
            return self._any_cache[depth]
        ws = self.ws
        scalars = [NULL, BOOLEAN, NUMBER, STRING]
        if depth > 0:
            inner = self.any_value(depth - 1)
            scalars.append(rf"\[{ws}(?:{inner}(?:{ws},{ws}{inner})*{ws})?\]")
            member = STRING + f"{ws}:{ws}" + _group(inner)
            scalars.append(rf"\{{{ws}(?:{member}(?:{ws},{ws}{member})*{ws})?\}}")
        else:
            scalars.append(rf"\[{ws}\]")
            scalars.append(rf"\{{{ws}\}}")
        r = "(?:" + "|".join(scalars) + ")"
        self._any_cache[depth] = r
        return r

    # ---- scalar types ------------------------------------------------------------------------
    def _banned(self, s: dict, t: str) -> list:
        """Values of type `t` that a `not: {enum}` excludes."""
        out = []
        for v in s.get("$$notenum", []):
            vt = _json_type_of(v)
            if vt == t or (t == "number" and vt == "integer"):
                out.append(v)
        return out

    def t_null(self, s: dict) -> str | None:
        return None if self._banned(s, "null") else NULL

    def t_boolean(self, s: dict) -> str | None:
        banned = self._banned(s, "boolean")
        return _alt([None if True in banned else "true", None if False in banned else "false"])

    def _bounds(self, s: dict) -> tuple[Decimal | None, bool, Decimal | None, bool]:
        lo: Decimal | None = None
        hi: Decimal | None = None
        lo_s = hi_s = False

        def dec(k: str) -> Decimal:
            v = s[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise UnsupportedSchemaError(f"{k} must be a number (at {self.kptr(s, k)})", k, self.kptr(s, k))
            try:
                return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
            except InvalidOperation:
                raise UnsupportedSchemaError(f"{k} is not finite (at {self.kptr(s, k)})", k, self.kptr(s, k))

        if "minimum" in s:
            lo = dec("minimum")
            if s.get("exclusiveMinimum") is True:
                lo_s = True
        if "maximum" in s:
            hi = dec("maximum")
            if s.get("exclusiveMaximum") is True:
                hi_s = True
        if "exclusiveMinimum" in s and not isinstance(s["exclusiveMinimum"], bool):
            v = dec("exclusiveMinimum")
            if lo is None or v >= lo:
                lo, lo_s = v, True
        if "exclusiveMaximum" in s and not isinstance(s["exclusiveMaximum"], bool):
            v = dec("exclusiveMaximum")
            if hi is None or v <= hi:
                hi, hi_s = v, True
        return lo, lo_s, hi, hi_s

    def _no_banned(self, s: dict, t: str) -> None:
        if self._banned(s, t):
            self.unsupported("not", s.get("$$ptr", "#") + "/not", f"not: {{enum}} with {t} values is not supported")

    def t_integer(self, s: dict) -> str | None:
        self._no_banned(s, "integer")
        lo, lo_s, hi, hi_s = self._bounds(s)
        ilo = ihi = None
        if lo is not None:
            ilo = int(math.floor(lo)) + 1 if lo_s else int(math.ceil(lo))
        if hi is not None:
            ihi = int(math.ceil(hi)) - 1 if hi_s else int(math.floor(hi))
        if "multipleOf" in s:
            m = s["multipleOf"]
            ok = False
            if isinstance(m, (int, float)) and not isinstance(m, bool) and m > 0:
                dm = Decimal(repr(m)) if isinstance(m, float) else Decimal(m)
                ok = Decimal(1) % dm == 0  # every integer is a multiple of m
                if not ok and dm == dm.to_integral_value() and ilo is None and ihi is None:
                    r = _multiples_regex(int(dm))
                    if r is not None:
                        return r
            if not ok:
                self.unsupported("multipleOf", self.kptr(s, "multipleOf"),
                                 f"multipleOf {m!r} on integers is not supported (divisors of a power of ten "
                                 "without minimum/maximum are)")
        return int_range_regex(ilo, ihi)

    def t_number(self, s: dict) -> str | None:
        self._no_banned(s, "number")
        lo, lo_s, hi, hi_s = self._bounds(s)
        if "multipleOf" in s:
            m = s["multipleOf"]
        budget: int | None = None
        if "multipleOf" in s:
            m = s["multipleOf"]
            if isinstance(m, (int, float)) and not isinstance(m, bool) and float(m) == 1.0:
                r = self.t_integer(s)
                return None if r is None else _group(r) + r"(?:\.0+)?"
            dm = Decimal(repr(m)) if isinstance(m, float) else None
            for j in range(1, 5):
                if dm == Decimal(1).scaleb(-j):
                    budget = j  # at most j significant fraction digits
            if budget is None:
                self.unsupported("multipleOf", self.kptr(s, "multipleOf"),
                                 f"multipleOf {m!r} on numbers is not supported (only 1, 0.1, 0.01, 0.001, 0.0001)")
        if lo is None and hi is None and budget is None:
            return NUMBER
        ptr = self.kptr(s, "minimum" if "minimum" in s or "exclusiveMinimum" in s else "maximum")
        if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_s or hi_s))):
            return None
        parts: list[str | None] = []
        zero = Decimal(0)
        # plain spellings, non-negative part
        if hi is None or hi >= zero:
            if lo is None or lo < zero:
                parts.append(_plain_nonneg(zero, False, hi, hi_s, budget))
            else:
                parts.append(_plain_nonneg(lo, lo_s, hi, hi_s, budget))
        # plain spellings, negative part: -y with y in [max(0,-hi), -lo]
        if lo is None or lo <= zero:
            if hi is None or hi > zero:
                ylo, ylo_s = zero, False
            elif hi == zero:
                ylo, ylo_s = zero, hi_s
            else:
                ylo, ylo_s = -hi, hi_s
            yhi, yhi_s = (None, False) if lo is None else (-lo, lo_s)
            neg = _plain_nonneg(ylo, ylo_s, yhi, yhi_s, budget)
            if neg is not None:
                parts.append("-" + (neg if neg.startswith("(?:") and _balanced_group(neg) else f"(?:{neg})"))

        # exponent spellings by magnitude class
        def contains(a: Decimal | None, a_open: bool, b: Decimal | None, b_open: bool) -> bool:
            """Does [lo, hi] contain the interval from a to b (None = infinite; *_open = endpoint excluded)?"""
            if a is not None and lo is not None and (lo > a or (lo == a and lo_s and not a_open)):
                return False
            if a is None and lo is not None:
                return False
            if b is not None and hi is not None and (hi < b or (hi == b and hi_s and not b_open)):
                return False
            if b is None and hi is not None:
                return False
            return True

        # Exponent spellings with a normalized mantissa, only for the magnitudes json.dumps writes
        # that way: each class is taken whole when the range contains it.
        big = Decimal("1e16")
        tiny = Decimal("1e-4")
        e_big = r"[eE]\+?0*(?:1[6-9]|[2-9][0-9]|[1-9][0-9]{2,})"
        e_tiny = r"[eE]-0*(?:[5-9]|[1-9][0-9]+)"
        mant = r"[1-9](?:\.[0-9]+)?"
        mant_big = mant if budget is None else r"[1-9](?:\.[0-9]{1,16})?"  # integers: multiples of 10**-j
        classes = [
            (big, False, None, False, mant_big + e_big),
            (None, False, -big, False, "-" + mant_big + e_big),
        ]
        if budget is None:  # below 1e-4 the only multiple of 10**-j (j <= 4) is 0
            classes += [(zero, True, tiny, True, mant + e_tiny), (-tiny, True, zero, True, "-" + mant + e_tiny)]
        for a, a_open, b, b_open, rx in classes:
            if contains(a, a_open, b, b_open):
                parts.append(rx)
            elif _meets(lo, lo_s, hi, hi_s, a, a_open, b, b_open):
                self.unsupported("minimum" if "minimum" in s else "maximum", ptr,
                                 "a number range that contains some but not all numbers json.dumps writes with an "
                                 "exponent (|x| >= 1e16 or 0 < |x| < 1e-4) is not supported")
        return _alt(parts)

    def t_string(self, s: dict) -> str | None:
        min_len = s.get("minLength", 0)
        max_len = s.get("maxLength")
        for k, v in (("minLength", min_len), ("maxLength", max_len)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or not float(v).is_integer()):
                raise UnsupportedSchemaError(f"{k} must be a non-negative integer (at {self.kptr(s, k)})", k, self.kptr(s, k))
        min_len = int(min_len)
        max_len = None if max_len is None else int(max_len)
        if max_len is not None and max_len < min_len:
            return None
        fmt = s.get("format")
        if isinstance(fmt, str) and fmt in _KNOWN_FORMATS:
            if fmt not in _FORMATS:
                self.unsupported("format", self.kptr(s, "format"), f"format {fmt!r} is not supported")
                fmt = None
        else:
            fmt = None
        pattern = s.get("pattern")
        if pattern is not None and not isinstance(pattern, str):
            raise UnsupportedSchemaError(f"pattern must be a string (at {self.kptr(s, 'pattern')})", "pattern", self.kptr(s, "pattern"))
        if (fmt is not None or pattern is not None) and self._banned(s, "string"):
            self.unsupported("not", s.get("$$ptr", "#") + "/not", "not: {enum} with strings beside pattern/format is not supported")
        if fmt is not None:
            if pattern is not None:
                self.unsupported("pattern", self.kptr(s, "pattern"), "pattern together with format is not supported")
            if min_len > 0 or max_len is not None:
                w = _FORMAT_WIDTH.get(fmt)
                if w is None or not (w[0] >= min_len and (max_len is None or w[1] <= max_len)):
                    if w is not None and (w[1] < min_len or (max_len is not None and w[0] > max_len)):
                        return None
                    self.unsupported("maxLength" if max_len is not None else "minLength", self.kptr(s, "format"),
                                     f"minLength/maxLength together with format {fmt!r} is not supported")
            return '"' + _group(_FORMATS[fmt]) + '"'
        if pattern is not None:
            try:
                body = pattern_to_string_body(pattern, min_len, max_len)
            except _PatternError as exc:
                self.unsupported("pattern", self.kptr(s, "pattern"), str(exc))
            else:
                if body is None:
                    return None
                return '"' + body + '"'
        banned = self._banned(s, "string")
        if banned:
            if min_len or max_len is not None:
                self.unsupported("not", s.get("$$ptr", "#") + "/not", "not: {enum} with strings beside minLength/maxLength is not supported")
            else:
                return '"' + _not_in_keys(banned) + '"'
        return '"' + _rep(STRING_CHAR, min_len, max_len) + '"'

    # ---- arrays ------------------------------------------------------------------------------
    def t_array(self, s: dict) -> str | None:
        self._no_banned(s, "array")
        ws = self.ws
        prefix: list[Any] = []
        prefix_ptr = ""
        rest: Any = True
        rest_ptr = self.kptr(s, "items")
        if "prefixItems" in s:
            prefix = s["prefixItems"]
            prefix_ptr = self.kptr(s, "prefixItems")
            rest = s.get("items", True)
        elif isinstance(s.get("items"), list):
            prefix = s["items"]
            prefix_ptr = self.kptr(s, "items")
            rest = s.get("additionalItems", True)
            rest_ptr = self.kptr(s, "additionalItems")
        else:
            rest = s.get("items", True)
        m = s.get("minItems", 0)
        M = s.get("maxItems")
        m = int(m)
        M = None if M is None else int(M)
        if M is not None and M < m:
            return None
        P = [self.value(p, f"{prefix_ptr}/{i}") for i, p in enumerate(prefix)]
        I = self.value(rest, rest_ptr) if rest is not True else self.any_value(self.free_depth)
        k = len(P)
        sep = f"{ws},{ws}"
        # tail: elements after the prefix
        e_min = max(0, m - k)
        e_max = None if M is None else M - k
        if I is None or (e_max is not None and e_max <= 0):
            tail_first = "" if e_min == 0 else None
            tail_more = tail_first
        else:
            if e_min == 0:
                tail_first = _opt(I + _rep(sep + I, 0, None if e_max is None else e_max - 1))
            else:
                tail_first = I + _rep(sep + I, e_min - 1, None if e_max is None else e_max - 1)
            tail_more = _rep(sep + I, e_min, e_max)
        T: str | None = tail_first if k == 0 else tail_more
        for j in range(k, 0, -1):  # position j (1-based), j-1 elements already present
            if M is not None and j > M:
                T = "" if j - 1 >= m else None
                continue
            cont = _cat("" if j == 1 else sep, P[j - 1], T)
            stop = "" if j - 1 >= m else None
            T = _alt([cont, stop]) if stop is None or cont is None else _opt(cont)
        if T is None:
            return None
        if T == "":
            return rf"\[{ws}\]"
        return rf"\[{ws}" + T + rf"{ws}\]"

    # ---- objects -----------------------------------------------------------------------------
    def t_object(self, s: dict) -> str | None:
        self._no_banned(s, "object")
        ws = self.ws
        props = s.get("properties", {})
        if not isinstance(props, dict):
            raise UnsupportedSchemaError(f"properties must be an object (at {self.kptr(s, 'properties')})", "properties", self.kptr(s, "properties"))
        required = s.get("required", [])
        if not isinstance(required, list):
            required = []
        pprops = s.get("patternProperties") or {}
        addl = s.get("additionalProperties", True)
        pptr = self.kptr(s, "properties")
        # declared names, then required names not declared
        names = list(props)
        for r in required:
            if isinstance(r, str) and r not in props:
                names.append(r)
        schemas: list[Any] = []
        ptrs: list[str] = []
        for n in names:
            if n in props:
                sch, p = props[n], f"{pptr}/{_ptr_escape(n)}"
            else:
                sch, p = None, self.kptr(s, "required")
            matching = []
            for pat, psch in pprops.items():
                try:
                    hit = _ecma_search(pat, n)
                except _PatternError as exc:
                    self.unsupported("patternProperties", self.kptr(s, "patternProperties"), str(exc))
                    hit = False
                if hit:
                    matching.append(psch)
            if sch is None:
                sch = {"allOf": matching} if matching else addl
            elif matching:
                sch = {"allOf": [sch] + matching}
            schemas.append(sch)
            ptrs.append(p)
        if "propertyNames" in s and s["propertyNames"] not in (True, {}):
            pn = s["propertyNames"]
            sub = self.sub_builder()
            try:
                pn_re = sub.value(pn, self.kptr(s, "propertyNames"))
            except UnsupportedSchemaError as exc:
                self.unsupported("propertyNames", self.kptr(s, "propertyNames"), str(exc))
                pn_re = None
            else:
                keep = [i for i, n in enumerate(names) if pn_re is not None and re.fullmatch(pn_re, _compact(n))]
                for i in range(len(names)):
                    if i not in keep:
                        schemas[i] = False
        values: list[str | None] = []
        for sch, p in zip(schemas, ptrs):
            values.append(self.value(sch, p))
        members: list[str | None] = []
        req = []
        for n, v in zip(names, values):
            key = _lit(json.dumps(n, ensure_ascii=False))
            members.append(None if v is None else f"{key}{ws}:{ws}{v}")
            req.append(n in required)
        # extra members
        extra = self.extra_member(s, names, addl, pprops)
        min_p = int(s.get("minProperties", 0))
        max_p = s.get("maxProperties")
        max_p = None if max_p is None else int(max_p)
        if min_p or max_p is not None:
            body = self.members_counted(members, req, extra, min_p, max_p,
                                        self.kptr(s, "minProperties" if min_p else "maxProperties"))
        else:
            body = self.members_chain(members, req, extra)
        if body is None:
            return None
        if body == "":
            return rf"\{{{ws}\}}"
        return rf"\{{{ws}" + body + rf"{ws}\}}"

    def extra_member(self, s: dict, names: list[str], addl: Any, pprops: dict) -> str | None:
        """Regex for one property not among `names`, or None if none is allowed."""
        ws = self.ws
        aptr = self.kptr(s, "additionalProperties")
        if "propertyNames" in s and s["propertyNames"] not in (True, {}) and addl is not False:
            if pprops or names:
                self.unsupported("propertyNames", self.kptr(s, "propertyNames"),
                                 "propertyNames together with declared or pattern properties and other properties is not supported")
                key_re = None
            else:
                key_re = self.value({"allOf": [s["propertyNames"], {"type": "string"}]}, self.kptr(s, "propertyNames"))
                if key_re is None:
                    return None
                v = self.value(addl, aptr)
                return None if v is None else f"{key_re}{ws}:{ws}{v}"
        if pprops and len(pprops) == 1 and not all(p in (True, {}) for p in pprops.values()):
            (pat, psch), = pprops.items()
            ppt = f"{self.kptr(s, 'patternProperties')}/{_ptr_escape(pat)}"
            try:
                comp = _pattern_complement(pat)
            except _PatternError:
                comp = False
            if comp is None:
                # the pattern matches every key: every other property takes the pattern's schema
                # (declared ones were already combined with it)
                v = self.value(psch, ppt)
                return None if v is None else '"' + _not_in_keys(names) + '"' + f"{ws}:{ws}" + v
            if comp is not False and addl is not False and not names:
                body = pattern_to_string_body(pat)
                v = self.value(psch, ppt)
                other = self.value(addl, aptr) if addl is not True else self.any_value(self.free_depth)
                return _alt([None if body is None or v is None else f'"{body}"{ws}:{ws}{v}',
                             None if other is None else f'"{comp}"{ws}:{ws}{other}'])
        if pprops:
            alts: list[str | None] = []
            if addl is not False and not all(p in (True, {}) for p in pprops.values()):
                self.unsupported("patternProperties", self.kptr(s, "patternProperties"),
                                 "patternProperties together with additionalProperties other than false is not supported")
                return None
            if addl is not False:
                pass  # pattern schemas are trivial: keys are free
            else:
                if len({_canon(v) for v in pprops.values()}) > 1 and len(pprops) > 1:
                    self.unsupported("patternProperties", self.kptr(s, "patternProperties"),
                                     "several patternProperties with different schemas are not supported")
                    return None
                for pat, psch in pprops.items():
                    ppt = f"{self.kptr(s, 'patternProperties')}/{_ptr_escape(pat)}"
                    for n in names:
                        try:
                            if _ecma_search(pat, n):
                                self.unsupported("patternProperties", ppt,
                                                 f"pattern {pat!r} also matches the declared property {n!r}")
                                return None
                        except _PatternError:
                            pass
                    try:
                        body = pattern_to_string_body(pat)
                    except _PatternError as exc:
                        self.unsupported("patternProperties", ppt, str(exc))
                        return None
                    v = self.value(psch, ppt)
                    if body is not None and v is not None:
                        alts.append(f'"{body}"{ws}:{ws}{v}')
                return _alt(alts)
        if addl is False:
            return None
        v = self.value(addl, aptr) if addl is not True else self.any_value(self.free_depth)
        if v is None:
            return None
        return '"' + _not_in_keys(names) + '"' + f"{ws}:{ws}" + v

    def members_chain(self, members: list[str | None], req: list[bool], extra: str | None) -> str | None:
        """Object body without count limits, linear in the number of properties."""
        sep = f"{self.ws},{self.ws}"
        for m, r in zip(members, req):
            if m is None and r:
                return None
        items = [(m, r) for m, r in zip(members, req) if m is not None]
        tail_extra = _rep(sep + extra, 0, None) if extra is not None else ""
        first_req = next((i for i, (_, r) in enumerate(items) if r), None)
        if first_req is not None:
            out = []
            for m, _ in items[:first_req]:
                out.append(_opt(m + sep))
            out.append(items[first_req][0])
            for m, r in items[first_req + 1:]:
                out.append(sep + m if r else _opt(sep + m))
            out.append(tail_extra)
            return "".join(out)
        # all optional: G_k = (G_{k-1}(sep p_k)? | p_k)
        g: str | None = None
        for m, _ in items:
            g = m if g is None else f"(?:{g}{_opt(sep + m)}|{m})"
        if extra is not None:
            head = extra if g is None else f"(?:{g}|{extra})"
            return _opt(head + tail_extra)
        return "" if g is None else _opt(g)

    def members_counted(self, members: list[str | None], req: list[bool], extra: str | None,
                        min_p: int, max_p: int | None, ptr: str) -> str | None:
        """Object body with minProperties/maxProperties: a small count automaton, written out."""
        sep = f"{self.ws},{self.ws}"
        n = len(members)
        cap = max(min_p, max_p if max_p is not None else 0, 1)
        memo: dict[tuple[int, int], str | None] = {}
        size = [0]

        def R(i: int, c: int) -> str | None:
            key = (i, min(c, cap))
            if key in memo:
                return memo[key]
            if max_p is not None and c > max_p:
                return None
            if i == n:
                if extra is None:
                    res = "" if c >= min_p else None
                else:
                    e_min = max(0, min_p - c)
                    e_max = None if max_p is None else max_p - c
                    if c == 0:
                        if e_max == 0:
                            res = ""
                        elif e_min == 0:
                            res = _opt(extra + _rep(sep + extra, 0, None if e_max is None else e_max - 1))
                        else:
                            res = extra + _rep(sep + extra, e_min - 1, None if e_max is None else e_max - 1)
                    else:
                        res = _rep(sep + extra, e_min, e_max)
            else:
                m = members[i]
                take = None if m is None else _cat("" if c == 0 else sep, m, R(i + 1, c + 1))
                skip = None if req[i] else R(i + 1, c)
                res = _alt([take, skip])
            if res is not None:
                size[0] += len(res)
                if size[0] > _MAX_REGEX_CHARS:
                    raise _TooBig()
            memo[key] = res
            return res

        try:
            return R(0, 0)
        except _TooBig:
            kw = ptr.rsplit("/", 1)[-1]
            self.unsupported(kw, ptr, "minProperties/maxProperties with this many properties make the regex too large")
            return self.members_chain(members, req, extra)


def _meets(lo, lo_s, hi, hi_s, a, a_open, b, b_open) -> bool:
    """Do the intervals (lo, hi) and (a, b) (None = infinite, *_s/*_open = endpoint excluded) meet?"""
    lows = [(x, o) for x, o in ((lo, lo_s), (a, a_open)) if x is not None]
    highs = [(x, o) for x, o in ((hi, hi_s), (b, b_open)) if x is not None]
    if not lows or not highs:
        return True
    low = max(lows, key=lambda t: (t[0], t[1]))
    high = min(highs, key=lambda t: (t[0], not t[1]))
    return low[0] < high[0] or (low[0] == high[0] and not low[1] and not high[1])


class _TooBig(Exception):
    pass


def _enum_values(s: dict) -> list | None:
    vals = None
    if "enum" in s:
        if not isinstance(s["enum"], list):
            raise UnsupportedSchemaError("enum must be an array", "enum", s.get("$$ptr", "#"))
        vals = list(s["enum"])
    if "const" in s:
        c = s["const"]
        vals = [c] if vals is None else [v for v in vals if _canon(v) == _canon(c)]
    return vals


def _type_intersection(a: Any, b: Any) -> list[str]:
    la = set([a] if isinstance(a, str) else a)
    lb = set([b] if isinstance(b, str) else b)
    for l in (la, lb):
        if "any" in l:
            l.update(_ALL_TYPES)
        if "number" in l:
            l.add("integer")
    return [t for t in _ALL_TYPES if t in la and t in lb]


def _compact(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def _ptr_escape(k: str) -> str:
    return str(k).replace("~", "~0").replace("/", "~1")


_SEARCH_CACHE: dict[str, re.Pattern] = {}


def _ecma_search(pattern: str, text: str) -> bool:
    """Does the ECMA `pattern` find a match in `text`? (through the translated serialized form)"""
    rx = _SEARCH_CACHE.get(pattern)
    if rx is None:
        body = pattern_to_string_body(pattern)
        rx = re.compile("(?!)" if body is None else body)
        _SEARCH_CACHE[pattern] = rx
    return rx.fullmatch(json.dumps(text, ensure_ascii=False)[1:-1]) is not None


def _units(text: str) -> list[str]:
    """Serialized JSON string content of `text`, one item per character (escapes kept whole)."""
    return [json.dumps(ch, ensure_ascii=False)[1:-1] for ch in text]


def _not_in_keys(names: list[str]) -> str:
    """Regex for the serialized content of any string not in `names`.

    Such a string is either a proper prefix of a name that is not itself a name, or leaves the
    trie of names at some character (then anything may follow): P | D STRING_CHAR*. The
    free tail is written once, so the size stays linear in the total length of the names.
    """
    if not names:
        return STRING_CHAR + "*"
    trie: dict = {}
    for n in names:
        node = trie
        for u in _units(n):
            node = node.setdefault(u, {})
        node[""] = {}

    def kids(node: dict) -> list[str]:
        return sorted(u for u in node if u != "")

    def prefixes(node: dict) -> str | None:
        """Non-name strings that are a prefix of a name, from this node on."""
        alts: list[str | None] = ["" if "" not in node else None]
        for u in kids(node):
            alts.append(_cat(_lit(u), prefixes(node[u])))
        return _alt(alts)

    def diverge(node: dict) -> str | None:
        """Strings that leave the trie: a path then one character that is not a child."""
        ks = kids(node)
        cps = [ord(json.loads(f'"{u}"')) for u in ks]
        alts: list[str | None] = [_json_chars(_complement([(c, c) for c in cps]))]
        for u in ks:
            alts.append(_cat(_lit(u), diverge(node[u])))
        return _alt(alts)

    d = diverge(trie)
    return _alt([prefixes(trie), None if d is None else d + STRING_CHAR + "*"]) or ""


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
    if isinstance(schema, (str, bytes)):
        try:
            schema = json.loads(schema)
        except ValueError as exc:
            raise UnsupportedSchemaError(f"the schema is not valid JSON: {exc}", None, "#") from None
    if not isinstance(schema, (dict, bool)):
        raise UnsupportedSchemaError(
            f"a schema must be a JSON object or a boolean, not {type(schema).__name__}", None, "#")
    if not isinstance(max_recursion_depth, int) or max_recursion_depth < 0:
        raise ValueError("max_recursion_depth must be a non-negative integer")
    ws = WHITESPACE if whitespace_pattern is None else whitespace_pattern
    if ws:
        try:
            re.compile(ws)
        except re.error as exc:
            raise ValueError(f"whitespace_pattern is not a valid regex: {exc}") from None
        ws = ws if _is_atom_like(ws) else f"(?:{ws})"
    old = isinstance(schema, dict) and isinstance(schema.get("$schema"), str) and bool(_OLD_DRAFT.search(schema["$schema"]))
    b = _Builder(schema, ws, max_recursion_depth, lenient, old)
    try:
        out = b.value(schema, "#")
    except RecursionError:
        raise UnsupportedSchemaError("the schema nests too deeply", None, "#") from None
    if b.ignored:
        listed = ", ".join(f"{k} at {p}" for k, p in sorted(set(b.ignored)))
        warnings.warn(f"build_regex_from_schema ignored keywords it cannot express: {listed}", stacklevel=2)
    if out is None:
        raise UnsupportedSchemaError(
            "the schema accepts no value (within max_recursion_depth unrollings of recursive $ref)", None, "#")
    if len(out) > _MAX_REGEX_CHARS:
        raise UnsupportedSchemaError(f"the regex would be {len(out):,} characters long", None, "#")
    return out


def _is_atom_like(ws: str) -> bool:
    """True when `ws` can be concatenated without grouping (no top-level alternation)."""
    depth = 0
    i = 0
    in_class = False
    while i < len(ws):
        c = ws[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return False
        i += 1
    return True
