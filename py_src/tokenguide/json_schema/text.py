"""Regex text helpers for the JSON Schema compiler: regex algebra on strings, JSON lexemes.

Every function here builds Python `re` text that tokenguide's automaton compiler reads (no
backreferences; lookarounds only as `value_difference`/`value_intersection` spell them).
`None` stands for the empty language throughout.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from functools import lru_cache
from typing import Any, Iterator

from ..errors import UnsupportedSchemaError
from ..regex import ranges as R

# One character of a JSON string body in canonical json.dumps(ensure_ascii=False) escaping.
ESC_ANY = r'\\["\\bfnrt]|\\u00(?:0[0-7bef]|1[0-9a-f])'
STRING_CHAR = r'(?:[^"\\\x00-\x1f]|' + ESC_ANY + ")"
STRING = '"' + STRING_CHAR + '*"'
INTEGER = r"(?:0|-?[1-9][0-9]*)"
NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
BOOLEAN = r"(?:true|false)"
NULL = "null"

ALL_TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")

MAX_REGEX_CHARS = 500_000  # larger regexes take seconds to compile and make huge automata
MAX_BRANCHES = 256  # anyOf/oneOf combinations distributed at one node


def alt(parts: list[str | None]) -> str | None:
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


def cat(*parts: str | None) -> str | None:
    """Concatenation; empty when any part is."""
    if any(p is None for p in parts):
        return None
    return "".join(parts)  # type: ignore[arg-type]


def group(p: str) -> str:
    """Wrap `p` so a quantifier applies to all of it."""
    if len(p) == 1 or (len(p) == 2 and p[0] == "\\"):
        return p
    if p.startswith("(?:") and balanced_group(p):
        return p
    if p.startswith("[") and p.endswith("]") and _single_class(p):
        return p
    return f"(?:{p})"


def group_marks(p: str) -> Iterator[tuple[int, str]]:
    """The positions and characters of the `(`, `)` and `|` of regex text `p` that are syntax
    (not escaped, not inside a character class): what the group checks below read."""
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
        elif c in "()|":
            yield i, c
        i += 1


def balanced_group(p: str) -> bool:
    """Is `p` one parenthesised group from its first to its last character?"""
    depth = 0
    for i, c in group_marks(p):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0 and i != len(p) - 1:
                return False
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


#: What may follow a complete JSON value (or key) in the output format: JSON whitespace, a
#: separator, a closer, or the end of the text. Complete values are prefix-free up to this
#: set (only numbers extend numbers, by digits, '.', 'e', sign), so a lookahead "B then one
#: of these" at a value's start holds exactly when the value about to be read is in B.
VALUE_END = r"(?:[ \t\n\r,:\]}]|\Z)"


def value_difference(a: str | None, b: str | None) -> str | None:
    """Values of `a` that are not values of `b` (both regexes of complete JSON values, whose
    whitespace only matches JSON whitespace): a negative lookahead of `b` before `a`."""
    if a is None or b is None:
        return a
    return f"(?:(?!(?:{b}){VALUE_END})(?:{a}))"


def value_intersection(a: str | None, b: str | None) -> str | None:
    """Values of both `a` and `b` (regexes of complete JSON values): a lookahead of `b` before `a`."""
    if a is None or b is None:
        return None
    return f"(?:(?=(?:{b}){VALUE_END})(?:{a}))"


def has_lookahead(regex: str) -> bool:
    """Does regex text hold a lookahead? (read from the text: `\\(?=` would be an escaped paren
    made optional, and is taken for one too, which only sends it the exact automaton's way)"""
    return "(?=" in regex or "(?!" in regex


def string_intersection(a: str | None, b: str | None) -> str | None:
    """JSON strings of both `a` and `b` (regexes of quoted strings): a lookahead of `b` before `a`,
    without VALUE_END (a string token ends at its closing quote, so `b` can only match the token
    `a` matches); regex.fusion turns it into one automaton."""
    if a is None or b is None:
        return None
    return f"(?:(?={b})(?:{a}))"


def opt(p: str | None) -> str:
    """`p` made optional (the empty language becomes the empty string)."""
    if p is None or p == "":
        return ""
    return group(p) + "?"


def rep(p: str, lo: int, hi: int | None) -> str:
    """`p` repeated lo..hi times (hi None = unbounded)."""
    if hi is not None and hi <= 0:
        return ""
    if hi == lo:
        return p if lo == 1 else f"{group(p)}{{{lo}}}"
    if hi is None:
        if lo == 0:
            return group(p) + "*"
        if lo == 1:
            return group(p) + "+"
        return f"{group(p)}{{{lo},}}"
    if lo == 0 and hi == 1:
        return group(p) + "?"
    return f"{group(p)}{{{lo},{hi}}}"


def lit(text: str) -> str:
    """Regex matching exactly `text` (escapes only what re needs, keeps Unicode literal)."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp < 0x20 or cp == 0x7F:
            out.append(f"\\x{cp:02x}")
        elif ch in "\\.^$*+?{}[]|()-#&~\t":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def is_atom_like(ws: str) -> bool:
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


# --------------------------------------------------------------------------- JSON string characters

_SPECIAL = R.normalize([(0, 0x1F), (0x22, 0x22), (0x5C, 0x5C)])
_ORDINARY = R.difference(R.ALL, _SPECIAL)
_SHORT_ESC = {0x22: '"', 0x5C: "\\\\", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"}


def _class_char(cp: int) -> str:
    ch = chr(cp)
    if cp < 0x20 or cp == 0x7F:
        return f"\\x{cp:02x}"
    if ch in "\\]^-[":
        return "\\" + ch
    if cp in (0x2028, 0x2029, 0x85) or not ch.isprintable():
        return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"
    return ch


def _escape_regex(cp: int) -> str:
    """Regex for the canonical json.dumps escape of special code point `cp`."""
    if cp in _SHORT_ESC:
        e = _SHORT_ESC[cp]
        return "\\\\" + ('"' if e == '"' else ("\\\\" if cp == 0x5C else e))
    return f"\\\\u00{cp:02x}"


def ranges_to_class(rs: R.Ranges) -> str:
    """A regex character class (or single literal) for the code-point set `rs`."""
    rs = R.normalize(rs)
    if len(rs) == 1 and rs[0][0] == rs[0][1]:
        return lit(chr(rs[0][0]))
    parts = []
    for a, b in rs:
        if a == b:
            parts.append(_class_char(a))
        elif b == a + 1:
            parts.append(_class_char(a) + _class_char(b))
        else:
            parts.append(_class_char(a) + "-" + _class_char(b))
    comp = R.complement(rs)  # a negated class is shorter when the set is nearly everything
    if len(comp) < len(rs) and comp:
        cparts = [_class_char(a) if a == b else _class_char(a) + "-" + _class_char(b) for a, b in comp]
        return "[^" + "".join(cparts) + "]"
    return "[" + "".join(parts) + "]"


def json_chars(rs: R.Ranges) -> str | None:
    """Regex for one serialized JSON string character whose decoded code point is in `rs`."""
    return _json_chars(tuple(R.normalize(rs)))


@lru_cache(maxsize=4096)
def _json_chars(rs: tuple) -> str | None:
    """`json_chars` of normalized ranges (cached: key classes ask for the same sets again and again)."""
    ordinary = R.difference(rs, _SPECIAL)
    specials = R.intersection(rs, _SPECIAL)
    alts: list[str] = []
    if ordinary:
        alts.append(r'[^"\\\x00-\x1f]' if ordinary == _ORDINARY else ranges_to_class(ordinary))
    cps = [c for a, b in specials for c in range(a, b + 1)]
    if len(cps) == 34:
        alts.append(ESC_ANY)
    else:
        alts.extend(_escapes_regex(cps))
    return alt(alts)


def _escapes_regex(cps: list[int]) -> list[str]:
    """Regexes for the canonical escapes of special code points `cps`, grouped: the short ones
    in one class, the `\\u00XX` ones by their last two hex digits (a terminal that repeats them
    a thousand times stays small for the guides' lexer)."""
    short = [_SHORT_ESC[c] for c in cps if c in _SHORT_ESC]
    out = []
    if len(short) == 1:
        out.append(_escape_regex(next(c for c in cps if c in _SHORT_ESC)))
    elif short:
        out.append("\\\\[" + "".join("\\\\" if e == "\\\\" else e for e in short) + "]")
    by_high: dict[int, list[str]] = {}
    for c in cps:
        if c not in _SHORT_ESC:
            by_high.setdefault(c >> 4, []).append(f"{c & 15:x}")
    if by_high:
        parts = [f"{hi:x}" + (lows[0] if len(lows) == 1 else "[" + "".join(lows) + "]") for hi, lows in by_high.items()]
        out.append("\\\\u00" + (parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"))
    return out


def units(text: str) -> list[str]:
    """Serialized JSON string content of `text`, one item per character (escapes kept whole)."""
    return [json.dumps(ch, ensure_ascii=False)[1:-1] for ch in text]


def not_in_keys(names: list[str]) -> str:
    """Regex for the serialized content of any string not in `names` (see `_not_in_keys`)."""
    return _not_in_keys(tuple(sorted(set(names))))


@lru_cache(maxsize=1024)
def _not_in_keys(names: tuple) -> str:
    """Regex for the serialized content of any string not in `names` (cached: an object's
    declared names are asked for at every place the object is written).

    Such a string is either a proper prefix of a name that is not itself a name, or leaves the
    trie of names at some character (then anything may follow): P | D STRING_CHAR*. The
    free tail is written once, so the size stays linear in the total length of the names.
    """
    if not names:
        return STRING_CHAR + "*"
    trie: dict = {}
    for n in names:
        node = trie
        for u in units(n):
            node = node.setdefault(u, {})
        node[""] = {}

    def kids(node: dict) -> list[str]:
        return sorted(u for u in node if u != "")

    def prefixes(node: dict) -> str | None:
        alts: list[str | None] = ["" if "" not in node else None]
        for u in kids(node):
            alts.append(cat(lit(u), prefixes(node[u])))
        return alt(alts)

    def diverge(node: dict) -> str | None:
        ks = kids(node)
        cps = [ord(json.loads(f'"{u}"')) for u in ks]
        alts: list[str | None] = [json_chars(R.complement(R.normalize((c, c) for c in cps)))]
        for u in ks:
            alts.append(cat(lit(u), diverge(node[u])))
        return alt(alts)

    d = diverge(trie)
    return alt([prefixes(trie), None if d is None else d + STRING_CHAR + "*"]) or ""


# --------------------------------------------------------------------------- JSON values


def canon(value: Any) -> str:
    """A canonical text for comparing JSON values (sorted keys)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def compact(v: Any) -> str:
    """The compact JSON text of `v` (the serialization the regexes describe)."""
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def ptr_escape(k: str) -> str:
    """Escape one JSON pointer segment (RFC 6901)."""
    return str(k).replace("~", "~0").replace("/", "~1")


def json_type_of(v: Any) -> str:
    """The JSON Schema type of a Python JSON value (integer-valued floats are integers)."""
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


def type_intersection(a: Any, b: Any) -> list[str]:
    """Types allowed by both `type` values (number includes integer)."""
    la = set([a] if isinstance(a, str) else a)
    lb = set([b] if isinstance(b, str) else b)
    for s in (la, lb):
        if "any" in s:
            s.update(ALL_TYPES)
        if "number" in s:
            s.add("integer")
    return [t for t in ALL_TYPES if t in la and t in lb]


def nesting(v: Any) -> int:
    """How many arrays/objects deep a JSON value nests (0 for scalars)."""
    if isinstance(v, list):
        return 1 + max((nesting(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((nesting(x) for x in v.values()), default=0)
    return 0


def json_literal(v: Any, ws: str) -> str | None:
    """Regex for the JSON text of `v` with whitespace `ws` (numbers: every plain spelling of the value)."""
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, int):
        return lit(str(v)) + r"(?:\.0+)?"
    if isinstance(v, float):
        if not math.isfinite(v):
            return None  # not JSON
        text = json.dumps(v)
        if "e" in text or "E" in text:  # json.dumps' spelling, and every plain one
            plain = format(Decimal(text), "f")
            zeros = r"(?:\.0+)?" if v.is_integer() else "0*"
            return f"(?:{lit(text)}|{lit(plain)}{zeros})"
        if v.is_integer():
            return lit(str(int(v))) + r"(?:\.0+)?"
        return lit(text) + "0*"
    if isinstance(v, str):
        return lit(json.dumps(v, ensure_ascii=False))
    if isinstance(v, list):
        if not v:
            return rf"\[{ws}\]"
        return rf"\[{ws}" + f"{ws},{ws}".join(json_literal(x, ws) for x in v) + rf"{ws}\]"
    if isinstance(v, dict):
        if not v:
            return rf"\{{{ws}\}}"
        items = [lit(json.dumps(k, ensure_ascii=False)) + f"{ws}:{ws}" + json_literal(x, ws) for k, x in v.items()]
        return rf"\{{{ws}" + f"{ws},{ws}".join(items) + rf"{ws}\}}"
    raise UnsupportedSchemaError(f"enum value of type {type(v).__name__}", "enum", "#")
