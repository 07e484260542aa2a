"""Lexemes: regular expressions over sets of Unicode code points, with intersection and complement.

Every expression is hash-consed: building a structurally equal expression returns the very same
`Lexeme` object, whose `id` is its position in one process-wide table. Ids are given in creation
order, so the same calls give the same ids in every process (no `hash()` of text decides them).
The constructors normalise as they build: alternations and intersections are flattened, deduplicated
and sorted by id, the character sets of an alternation merged into one, `EMPTY` absorbs sequences
and intersections, `EPSILON` vanishes from sequences, `~~a` is `a`, `(a*)*` is `a*`, and so on.

The language of an expression is a set of byte strings: a code-point set stands for the UTF-8
encodings of its members, so every expression built from text (chars, literals, `re` trees) is
a set of valid UTF-8 texts. Two kinds exist only for the byte level of `derivatives`:
`complement_bytes(a)` (all byte strings not in a, llguidance's `~`) and `rest_of_char(values, n)`
(the last n bytes of a character, read below). `neg(a)`, the complement among UTF-8 texts, is
`inter(complement_bytes(a), ANY_TEXT)`.
"""

from __future__ import annotations

import sys
import threading
from typing import Iterable, Sequence

from ..errors import RegexError, StateLimitError
from ..regex import ranges as charset
from ..regex.parser import parse as parse_regex

__all__ = [
    "ANY_TEXT", "EMPTY", "EPSILON", "Lexeme", "LexemeLimitError", "LexemeTooDeepError", "LookaroundInLexemeError",
    "NoRegexFormError", "alt", "chars", "complement_bytes", "conj", "from_regex", "from_regex_tree",
    "deep_call", "inter", "lexeme_count", "lexeme_of", "literal", "neg", "rep", "rest_of_char", "seq", "to_lark",
    "to_re",
]

#: Kinds (`Lexeme.kind`) and what `Lexeme.args` holds for each.
CHARS = "chars"  # (ranges,): one code point from the set (EMPTY is the empty set)
EPS = "eps"  # (): the empty string
SEQ = "seq"  # (head, tail): head is never a SEQ (sequences nest to the right)
ALT = "alt"  # (child, ...): two or more, sorted by id, at most one CHARS
REP = "rep"  # (child, lo, hi): hi None for unbounded
AND = "and"  # (child, ...): intersection, two or more, sorted by id
NOT = "not"  # (child,): every byte string not in child
REST = "rest"  # (values, count): `count` continuation bytes whose 6-bit payloads, read as one
#                 base-64 number, lie in `values` (sorted disjoint ranges within 0 .. 64**count - 1)

#: Distinct expressions one process may hold (about 200 bytes each); the table is never emptied,
#: because ids are states that caches and grammars keep.
MAX_LEXEMES = 1_000_000
#: Recursion limit while printing or deriving a deeply nested expression (`deep_call`); the regex
#: parser allows 1,000 nested groups, a few Python frames each.
DEEP_RECURSION_LIMIT = 50_000


class LexemeLimitError(StateLimitError):
    """The process-wide table of lexeme expressions grew past `MAX_LEXEMES`."""


class LookaroundInLexemeError(RegexError):
    """A regex with a lookahead or an end-of-text anchor in the middle was turned into a lexeme."""


class LexemeTooDeepError(StateLimitError):
    """A lexeme nests deeper than `DEEP_RECURSION_LIMIT` lets its printers and derivatives recurse."""


class NoRegexFormError(RegexError):
    """A lexeme holding an intersection, a complement or a part of a character has no `re` (or Lark) text."""


class Lexeme:
    """One hash-consed expression: compare with `is` (or by `id`); never build one directly.

    `nullable`: it matches the empty string. `text`: its language holds only valid UTF-8 texts.
    `boolean`: it holds an intersection or a complement (emptiness then needs a search).
    """

    __slots__ = ("id", "kind", "args", "nullable", "text", "boolean")

    def __init__(self, id: int, kind: str, args: tuple, nullable: bool, text: bool, boolean: bool):
        self.id = id
        self.kind = kind
        self.args = args
        self.nullable = nullable
        self.text = text
        self.boolean = boolean

    def __repr__(self) -> str:
        try:
            shown = to_lark(self)
        except NoRegexFormError:
            shown = self.kind
        if len(shown) > 80:
            shown = shown[:77] + "..."
        return f"<Lexeme #{self.id} {shown}>"

    def __reduce__(self):
        raise TypeError("a Lexeme is a process-wide id: rebuild it (for example from to_re text), do not pickle it")


_table: dict[tuple, Lexeme] = {}
_nodes: list[Lexeme] = []
_creating = threading.Lock()


def _make(key: tuple, kind: str, args: tuple, nullable: bool, text: bool, boolean: bool) -> Lexeme:
    found = _table.get(key)
    if found is not None:
        return found
    with _creating:  # threads: one object per structure, ids without gaps
        found = _table.get(key)
        if found is not None:
            return found
        n = len(_nodes)
        if n >= MAX_LEXEMES:
            raise LexemeLimitError(
                f"more than MAX_LEXEMES={MAX_LEXEMES:,} distinct lexeme expressions in this process; "
                "the grammars or their intersections are too large (or raise ir.lexemes.MAX_LEXEMES)"
            )
        found = Lexeme(n, kind, args, nullable, text, boolean)
        _table[key] = found
        _nodes.append(found)
    return found


def deep_call(fn, *args):
    """`fn(*args)`, and again under a higher recursion limit if the expression nests too deep for the
    current one. The recursions over expressions are Python calls only, which since Python 3.11 do
    not use the C stack; past DEEP_RECURSION_LIMIT it raises LexemeTooDeepError."""
    try:
        return fn(*args)
    except RecursionError:
        pass
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, DEEP_RECURSION_LIMIT))
    try:
        return fn(*args)
    except RecursionError:
        raise LexemeTooDeepError(
            f"a lexeme nests deeper than the recursion limit {DEEP_RECURSION_LIMIT:,} allows; flatten its groups"
        ) from None
    finally:
        sys.setrecursionlimit(old)


def lexeme_of(ident: int) -> Lexeme:
    """The expression whose id is `ident` (a state of `derivatives.LexemeDFA`)."""
    return _nodes[ident]


def lexeme_count() -> int:
    """How many expressions the process holds: every id is below it."""
    return len(_nodes)


# -- constructors -------------------------------------------------------------------------------


def chars(ranges: Iterable[tuple[int, int]]) -> Lexeme:
    """One code point from `ranges` (normalised: surrogates dropped); EMPTY for no code point."""
    ranges = tuple(ranges)
    found = _table.get((CHARS, ranges))
    if found is not None:
        return found
    ranges = charset.normalize(ranges)
    return _make((CHARS, ranges), CHARS, (ranges,), False, True, False)


EMPTY = chars(())
EPSILON = _make((EPS,), EPS, (), True, True, False)
_ALL_CHARS = chars(charset.ALL)


def literal(text: str) -> Lexeme:
    """Exactly the string `text` (a lone surrogate in it makes EMPTY: it has no UTF-8 form)."""
    return seq(*[chars(((ord(c), ord(c)),)) for c in text])


def seq(*items: Lexeme) -> Lexeme:
    """The concatenation of `items` (EPSILON for none)."""
    out = EPSILON
    for item in reversed(items):
        out = _seq2(item, out)
    return out


def _seq2(a: Lexeme, b: Lexeme) -> Lexeme:
    if a is EMPTY or b is EMPTY:
        return EMPTY
    if a is EPSILON:
        return b
    if b is EPSILON:
        return a
    if a.kind is REP and a.args[1] == 0 and a.args[2] is None and _star_covers(b, a.args[0]):
        return b  # x* y* is y* where every x is a y: `[0-9]*(.)*"` after a pattern's digits
    spine = []
    while a.kind is SEQ:
        spine.append(a.args[0])
        a = a.args[1]
    spine.append(a)
    for head in reversed(spine):
        b = _make((SEQ, head.id, b.id), SEQ, (head, b), head.nullable and b.nullable,
                  head.text and b.text, head.boolean or b.boolean)
    return b


_covers: dict[tuple[int, int], bool] = {}


def _star_covers(b: Lexeme, x: Lexeme) -> bool:
    """`b` starts with a y* (no bounds) whose items include every single character of the set `x`
    (y that set's superset, or an alternation holding one): then x* b is b."""
    if x.kind is not CHARS:
        return False
    head = b.args[0] if b.kind is SEQ else b
    if head.kind is not REP or head.args[1] != 0 or head.args[2] is not None:
        return False
    y = head.args[0]
    key = (x.id, y.id)
    found = _covers.get(key)
    if found is None:
        sets = [m for m in (y.args if y.kind is ALT else (y,)) if m.kind is CHARS]
        found = any(not charset.difference(x.args[0], m.args[0]) for m in sets)
        if len(_covers) > 100_000:
            _covers.clear()
        _covers[key] = found
    return found


#: alternations of at most this many members are checked for members inside a `C* T` member
_SUBSUME_MEMBERS = 64
_inside: dict[tuple[int, int], bool] = {}


def _subsumed(members: dict[int, Lexeme]) -> dict[int, Lexeme]:
    """`members` less those whose language is inside another member's of the form `C* T`: a
    member `x1 ... xn T` whose every x reads only items of C (a search pattern's `.*[0-9a-f]{24}.*`
    once 24 digits are read: what is left is `.*` whatever the other readings)."""
    stars = [m for m in members.values() if m.kind is SEQ and m.args[0].kind is REP
             and m.args[0].args[1] == 0 and m.args[0].args[2] is None]
    if not stars:
        return members
    out = dict(members)
    for a in stars:
        if a.id not in out:
            continue
        for b in list(out.values()):
            if b is a:
                continue
            key = (a.id, b.id)
            found = _inside.get(key)
            if found is None:
                found = _inside_star(b, a.args[0].args[0], a.args[1])
                if len(_inside) > 100_000:
                    _inside.clear()
                _inside[key] = found
            if found:
                del out[b.id]
    return out


def _inside_star(b: Lexeme, item: Lexeme, tail: Lexeme) -> bool:
    """`b` is `x1 ... xn tail` (n >= 1) with every xi reading only texts of `item`*."""
    n = 0
    while b is not tail:
        if b.kind is not SEQ:
            return False
        x, b = b.args
        if not _reads_items(x, item):
            return False
        n += 1
    return n > 0


def _reads_items(x: Lexeme, item: Lexeme) -> bool:
    """Every text of `x` is a sequence of texts of `item` (a cheap sufficient check)."""
    if x is item or (item.kind is ALT and x in item.args):
        return True
    if x.kind is REP:
        return _reads_items(x.args[0], item)
    if x.kind is CHARS:
        sets = [m for m in (item.args if item.kind is ALT else (item,)) if m.kind is CHARS]
        return any(not charset.difference(x.args[0], m.args[0]) for m in sets)
    return False


def alt(*items: Lexeme) -> Lexeme:
    """The union of `items` (EMPTY for none)."""
    members: dict[int, Lexeme] = {}
    sets: list[tuple[int, int]] = []
    for item in items:
        for x in (item.args if item.kind is ALT else (item,)):
            if x.kind is CHARS:
                sets.extend(x.args[0])
            elif x.kind is NOT and x.args[0] is EMPTY:
                return x  # every byte string
            else:
                members[x.id] = x
    if sets:
        merged = chars(sets)
        members[merged.id] = merged
    if ANY_TEXT_ID in members and len(members) > 1:  # (?s:.*) holds every text
        members = {i: x for i, x in members.items() if i == ANY_TEXT_ID or not x.text}
    members.pop(EMPTY.id, None)
    if EPSILON.id in members and len(members) > 1:  # a|b| is (a|b)? (and a*| is a*)
        del members[EPSILON.id]
        rest = alt(*members.values())
        return rest if rest.nullable else rep(rest, 0, 1)
    if not members:
        return EMPTY
    if 1 < len(members) <= _SUBSUME_MEMBERS:
        members = _subsumed(members)
    if len(members) == 1:
        return next(iter(members.values()))
    ids = tuple(sorted(members))
    children = tuple(members[i] for i in ids)
    return _make((ALT, ids), ALT, children, any(x.nullable for x in children),
                 all(x.text for x in children), any(x.boolean for x in children))


def rep(item: Lexeme, lo: int = 0, hi: int | None = None) -> Lexeme:
    """`item` repeated lo to hi times (hi None: no upper bound)."""
    if not isinstance(lo, int) or lo < 0 or (hi is not None and (not isinstance(hi, int) or hi < lo)):
        raise ValueError(f"rep: bad bounds lo={lo!r} hi={hi!r} (0 <= lo <= hi, hi None for unbounded)")
    if hi == 0 or item is EPSILON:
        return EPSILON
    if item is EMPTY:
        return EPSILON if lo == 0 else EMPTY
    if lo == 1 and hi == 1:
        return item
    if item.nullable:
        lo = 0
    if item.kind is REP:
        inner, ilo, ihi = item.args
        if ihi is None and ilo == 0:
            return item  # (x*){lo,hi} with hi >= 1 is x*
        if ihi is None and ilo == 1:
            return rep(inner, lo, None)  # (x+){lo,hi} is x{lo,}
        if ilo == 0 and ihi == 1:
            return rep(inner, 0, hi)  # (x?){0,hi} is x{0,hi} (lo is 0: x? is nullable)
    return _make((REP, item.id, lo, hi), REP, (item, lo, hi), lo == 0, item.text, item.boolean)


def complement_bytes(item: Lexeme) -> Lexeme:
    """Every byte string (valid UTF-8 or not) outside `item`: llguidance's `~`. Use `neg` for texts."""
    if item.kind is NOT:
        return item.args[0]
    return _make((NOT, item.id), NOT, (item,), not item.nullable, False, True)


_ALL_BYTES = complement_bytes(EMPTY)


def conj(*items: Lexeme) -> Lexeme:
    """The intersection of `items` (every byte string for none)."""
    members: dict[int, Lexeme] = {}
    sets: Sequence[tuple[int, int]] | None = None
    for item in items:
        for x in (item.args if item.kind is AND else (item,)):
            if x is EMPTY:
                return EMPTY
            if x is _ALL_BYTES:
                continue
            if x.kind is CHARS:
                sets = x.args[0] if sets is None else charset.intersection(sets, x.args[0])
            else:
                members[x.id] = x
    if sets is not None:
        merged = chars(sets)
        if merged is EMPTY:
            return EMPTY
        members[merged.id] = merged
    if not members:
        return _ALL_BYTES
    if ANY_TEXT_ID in members and any(x.text for i, x in members.items() if i != ANY_TEXT_ID):
        del members[ANY_TEXT_ID]
    for x in members.values():
        if x.kind is NOT and x.args[0].id in members:
            return EMPTY  # a & ~a
    if EPSILON.id in members:
        return EPSILON if all(x.nullable for x in members.values()) else EMPTY
    if len(members) == 1:
        return next(iter(members.values()))
    ids = tuple(sorted(members))
    children = tuple(members[i] for i in ids)
    return _make((AND, ids), AND, children, all(x.nullable for x in children),
                 any(x.text for x in children), True)


def inter(a: Lexeme, b: Lexeme) -> Lexeme:
    """The texts in both `a` and `b`."""
    return conj(a, b)


def neg(item: Lexeme) -> Lexeme:
    """Every valid UTF-8 text that `item` does not match (`~~a` is `a` for a text expression `a`)."""
    if item.kind is AND and len(item.args) == 2 and ANY_TEXT in item.args:
        other = item.args[1] if item.args[0] is ANY_TEXT else item.args[0]
        if other.kind is NOT and other.args[0].text:
            return other.args[0]  # ~~a
    return conj(complement_bytes(item), ANY_TEXT)


def rest_of_char(values: tuple[tuple[int, int], ...], count: int) -> Lexeme:
    """The last `count` bytes of a character (byte level, see REST); `values` sorted and disjoint."""
    if not values:
        return EMPTY
    if count == 0:
        return EPSILON if values[0][0] == 0 else EMPTY
    return _make((REST, values, count), REST, (values, count), False, False, False)


ANY_TEXT = rep(_ALL_CHARS, 0, None)  # (?s:.*): every valid UTF-8 text
ANY_TEXT_ID = ANY_TEXT.id


# -- from `re` trees ----------------------------------------------------------------------------


def from_regex_tree(tree: tuple, pattern: str | None = None) -> Lexeme:
    """The lexeme of a `regex.parser.parse` tree; a lookahead or `\\Z` raises LookaroundInLexemeError."""
    out: list[Lexeme] = []
    stack: list[tuple[tuple, bool]] = [(tree, False)]
    while stack:
        node, done = stack.pop()
        kind = node[0]
        if kind == "chars":
            out.append(chars(node[1]))
            continue
        if kind in ("look", "end"):
            raise _lookaround_error(kind, pattern)
        children = node[1] if kind in ("seq", "alt") else (node[1],)
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(children))
            continue
        n = len(children)
        args = out[len(out) - n:]
        del out[len(out) - n:]
        if kind == "seq":
            out.append(seq(*args))
        elif kind == "alt":
            out.append(alt(*args))
        elif kind == "rep":
            out.append(rep(args[0], node[2], node[3]))
        else:
            raise RegexError(f"unknown regex tree node {kind!r}", pattern)
    (result,) = out
    return result


def _lookaround_error(kind: str, pattern: str | None) -> LookaroundInLexemeError:
    needles = ("(?=", "(?!", "$", "\\Z") if kind == "look" else ("\\Z", "$")
    pos = None
    if pattern is not None:
        hits = [pattern.find(n) for n in needles if pattern.find(n) >= 0]
        pos = min(hits) if hits else None
    what = "a lookahead (?=...) / (?!...) or a $ before the end" if kind == "look" else "an end-of-text anchor \\Z before the end"
    return LookaroundInLexemeError(
        f"{what} cannot be part of a lexeme (a lexeme matches whole texts); write the condition as an "
        "intersection or complement of lexemes (inter / neg, & / ~ in Lark), or move the anchor to the end",
        pattern, pos,
    )


def from_regex(pattern: str, *, ascii: bool = False) -> Lexeme:
    """The lexeme of a Python regex (fullmatch meaning): `regex.parser.parse`, then `from_regex_tree`."""
    return from_regex_tree(parse_regex(pattern, ascii=ascii), pattern)


# -- printers -----------------------------------------------------------------------------------

# How a printed piece binds: an atom takes a quantifier as is, a quantified piece needs a group
# under another quantifier, a sequence needs one under a quantifier, an alternation also in a sequence.
_ATOM, _QUANT, _SEQ, _ALT = 0, 1, 2, 3


def to_re(item: Lexeme) -> str:
    """Python `re` text whose `re.fullmatch` on valid texts is this lexeme's language.

    Raises NoRegexFormError for an intersection, a complement or a part of a character."""
    return deep_call(_print, item, "re")[0]


def to_lark(item: Lexeme) -> str:
    """A Lark terminal body for this lexeme: "strings", /regexes/, `|`, `*`, `~m..n`; an intersection
    and a complement print as llguidance's `&` and `~` (Lark's own loader has neither)."""
    return deep_call(_print, item, "lark")[0]


def _group(text: str, level: int, limit: int, dialect: str) -> str:
    """`text` as a piece of binding below `limit`."""
    if level < limit:
        return text
    return f"(?:{text})" if dialect == "re" else f"({text})"


def _print(item: Lexeme, dialect: str) -> tuple[str, int]:
    kind = item.kind
    if kind is CHARS:
        return (_re_chars if dialect == "re" else _lark_chars)(item.args[0]), _ATOM
    if kind is EPS:
        return ("(?:)" if dialect == "re" else "/(?:)/"), _ATOM
    if kind is SEQ:
        return _print_seq(item, dialect)
    if kind is ALT:
        options = [_print(x, dialect) for x in item.args if x is not EPSILON]
        body = (" | " if dialect == "lark" else "|").join(text for text, _ in options)
        if len(options) < len(item.args):  # (a|b)? rather than an empty option
            level = _ALT if len(options) > 1 else options[0][1]
            return _group(body, level, _QUANT, dialect) + "?", _QUANT
        return body, _ALT
    if kind is REP:
        return _print_rep(item, dialect)
    if dialect == "re" or kind is REST:
        raise NoRegexFormError(
            "this lexeme holds " + ("part of a character (a byte-level state)" if kind is REST else
                                    "an intersection or a complement") +
            ", which plain `re` syntax cannot say; print it with to_lark (llguidance's & and ~) or match it "
            "with ir.derivatives.LexemeDFA"
        )
    if kind is AND:
        parts = []
        for x in item.args:
            if x is ANY_TEXT:
                parts.append("/(?s:.*)/")
            else:
                parts.append(_group(*_print(x, dialect), _SEQ, dialect))
        return " & ".join(parts), _ALT
    return "~" + _group(*_print(item.args[0], dialect), _QUANT, dialect), _ATOM  # NOT: ~a* is (~a)*


def _print_seq(item: Lexeme, dialect: str) -> tuple[str, int]:
    parts: list[str] = []
    run: list[str] = []  # single printable characters in a row: one Lark string
    x: Lexeme | None = item
    while x is not None:
        head, x = (x.args[0], x.args[1]) if x.kind is SEQ else (x, None)
        ranges = head.args[0] if head.kind is CHARS else None
        if dialect == "lark" and ranges and len(ranges) == 1 and ranges[0][0] == ranges[0][1] \
                and _lark_plain(ranges[0][0]):
            run.append(chr(ranges[0][0]))
            continue
        if run:
            parts.append('"' + "".join(run) + '"')
            run = []
        parts.append(_group(*_print(head, dialect), _ALT, dialect))
    if run:
        parts.append('"' + "".join(run) + '"')
        if len(parts) == 1:
            return parts[0], _ATOM  # one Lark string
    return (" " if dialect == "lark" else "").join(parts), _SEQ


def _print_rep(item: Lexeme, dialect: str) -> tuple[str, int]:
    child, lo, hi = item.args
    base = _group(*_print(child, dialect), _QUANT, dialect)
    if hi is None:
        if lo <= 1:
            return base + ("*" if lo == 0 else "+"), _QUANT
        if dialect == "re":
            return f"{base}{{{lo},}}", _QUANT
        return f"{base}~{lo} {base}*", _SEQ
    if lo == 0 and hi == 1:
        return base + "?", _QUANT
    if dialect == "re":
        return (f"{base}{{{lo}}}" if lo == hi else f"{base}{{{lo},{hi}}}"), _QUANT
    return (f"{base}~{lo}" if lo == hi else f"{base}~{lo}..{hi}"), _QUANT


def _lark_plain(cp: int) -> bool:
    return 0x20 <= cp < 0x7F and cp not in (0x22, 0x5C)


def _escape(cp: int) -> str:
    """One code point as `re` text, in or out of brackets (ASCII punctuation backslashed, `/` too)."""
    if cp < 0x80:
        ch = chr(cp)
        if ch.isalnum() or ch == "_":
            return ch
        if 0x20 <= cp < 0x7F:
            return "\\" + ch
        return f"\\x{cp:02x}"
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _class_body(ranges) -> str:
    out = []
    for lo, hi in ranges:
        if lo == hi:
            out.append(_escape(lo))
        elif hi == lo + 1:
            out.append(_escape(lo) + _escape(hi))
        else:
            out.append(f"{_escape(lo)}-{_escape(hi)}")
    return "".join(out)


def _re_chars(ranges) -> str:
    if not ranges:
        return "[^\\x00-\\U0010ffff]"
    if ranges == charset.ALL:
        return "(?s:.)"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _escape(ranges[0][0])
    outside = charset.complement(ranges)
    if len(outside) < len(ranges):
        return f"[^{_class_body(outside)}]"
    return f"[{_class_body(ranges)}]"


def _lark_chars(ranges) -> str:
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1] and _lark_plain(ranges[0][0]):
        return '"' + chr(ranges[0][0]) + '"'
    return "/" + _re_chars(ranges) + "/"
