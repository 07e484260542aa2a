"""Parse a Python regular expression into a small tree over code-point sets.

The parser is the standard library's own (`re._parser`), so syntax and meaning are
those of `re`: every class is resolved to code-point ranges with the flags in force
(`(?i)`, `(?s)`, `(?a)`, scoped flags included). `\\d`, `\\w` and `\\s` come from the pinned
tables in `unicode_tables` (Unicode 16.0, as Python 3.14's `re`), so every runtime builds the
same automaton; case-insensitive classes and literals are folded by the running `re`.

Lookaheads `(?=X)` / `(?!X)` are kept, exactly: X must (must not) match some prefix of the rest
of the text, where `\\Z` inside means the end of the whole text. `\\Z` anywhere is the end of the
text, and `$` is `(?=\\n?\\Z)` (`(?=\\n|\\Z)` under MULTILINE), as in `re`. Constructs that
are not regular (lookbehind, backreferences, `\\b`, conditionals) or that change the language in
ways an automaton cannot follow (possessive repeats, atomic groups, `^` and `\\A` in the middle)
raise RegexError with their position.

Tree nodes are tuples:
    ("chars", ranges)            one code point from the set
    ("seq", [node, ...])         concatenation ("seq", []) is the empty string
    ("alt", [node, ...])         alternation
    ("rep", node, lo, hi)        repetition, hi None for unbounded
    ("look", positive, node)     lookahead: zero width, node (does not) match a prefix of the rest
    ("end",)                     zero width, only at the end of the whole text
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import RegexError, RegexNestingError
from . import ranges as charset
from . import sre, unicode_tables
from .ranges import Ranges
from .sre import constants as C
from .trampoline import run_nested

Node = tuple

#: Deepest group nesting accepted (ten times what JSON Schema regexes need): parsing (`sre.parse`
#: in slices), conversion and the automaton builders use explicit stacks, but freeing a tree
#: still recurses in C once per level, and Pyodide's stack overflows near 2,000 levels.
MAX_GROUP_DEPTH = 1_000

IGNORECASE = C.SRE_FLAG_IGNORECASE
DOTALL = C.SRE_FLAG_DOTALL
ASCII = C.SRE_FLAG_ASCII
LOCALE = C.SRE_FLAG_LOCALE

MULTILINE = C.SRE_FLAG_MULTILINE

_START_ANCHORS = {C.AT_BEGINNING, C.AT_BEGINNING_STRING}
_END_ANCHORS = {C.AT_END, C.AT_END_STRING}
_CATEGORY_SOURCE = {
    C.CATEGORY_DIGIT: r"\d",
    C.CATEGORY_NOT_DIGIT: r"\D",
    C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_WORD: r"\w",
    C.CATEGORY_NOT_WORD: r"\W",
}


def parse(pattern: str, *, ascii: bool = False) -> Node:
    """Parse `pattern` (Python `re` syntax) into a tree of code-point sets."""
    if not isinstance(pattern, str):
        raise RegexError(f"the regex must be a str, not {type(pattern).__name__}")
    flags = re.ASCII if ascii else 0
    shape = sre.outline(pattern, flags)
    if shape.max_depth > MAX_GROUP_DEPTH:
        raise RegexNestingError(
            f"groups are nested more than {MAX_GROUP_DEPTH:,} deep; flatten the regex",
            pattern, shape.depth_at[MAX_GROUP_DEPTH], MAX_GROUP_DEPTH,
        )
    try:
        tree = sre.parse(pattern, flags, shape)
    except re.error as exc:
        raise RegexError(f"invalid regex: {exc.msg}", pattern, exc.pos) from None
    except (OverflowError, RecursionError) as exc:
        raise RegexError(f"invalid regex: {exc}", pattern, None) from None
    global_flags = tree.state.flags
    if global_flags & re.VERBOSE:
        global_flags &= ~re.VERBOSE
    try:
        return _Converter(pattern).run(list(tree), global_flags)
    finally:
        if shape.max_depth > sre.SLICE_DEPTH:
            sre.release(tree)


class _Converter:
    """sre items to tree nodes, depth-first with an explicit stack (any nesting depth): `convert`
    is a generator that yields (items, flags, at_start, at_end) for each sub-sequence it needs
    and is sent back that sub-sequence's node."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.fold_cache: dict[tuple[int, int], Ranges] = {}
        self.class_cache: dict[tuple, Ranges] = {}  # long regexes (JSON Schema) repeat the same classes

    def run(self, items: list, flags: int) -> Node:
        return run_nested(self.convert(items, flags, True, True), lambda request: (self.convert(*request), None))

    # -- errors -------------------------------------------------------------
    def fail(self, what: str, needles: tuple[str, ...] = ()) -> None:
        pos = None
        for needle in needles:
            found = self.pattern.find(needle)
            if found >= 0 and (pos is None or found < pos):
                pos = found
        raise RegexError(f"{what} cannot be turned into an automaton", self.pattern, pos)

    # -- tree walk ----------------------------------------------------------
    def convert(self, items: list, flags: int, at_start: bool, at_end: bool):
        """Convert a sequence of sre items; at_start/at_end say whether nothing can come before/after."""
        out: list[Node] = []
        n = len(items)
        # Index of the last item that consumes text, to decide where trailing anchors are allowed.
        consuming = [i for i, (op, _) in enumerate(items) if op is not C.AT]
        first = consuming[0] if consuming else n
        last = consuming[-1] if consuming else -1
        for i, (op, av) in enumerate(items):
            start_here = at_start and i <= first
            end_here = at_end and i >= last
            if op is C.AT:
                node = self.anchor(av, flags, at_start and i < first, at_end and i > last)
                if node is not None:
                    out.append(node)
                continue
            if op is C.BRANCH:
                branches = []
                for b in av[1]:
                    branches.append((yield (list(b), flags, start_here, end_here)))
                out.append(("alt", branches))
            elif op is C.SUBPATTERN:
                _group, add_flags, del_flags, sub = av
                out.append((yield (list(sub), (flags | add_flags) & ~del_flags, start_here, end_here)))
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
                lo, hi, sub = av
                hi = None if hi is C.MAXREPEAT else int(hi)
                single = hi is not None and hi <= 1
                inner = yield (list(sub), flags, start_here and single, end_here and single)
                out.append(("rep", inner, int(lo), hi))
            elif op in (C.ASSERT, C.ASSERT_NOT):
                direction, sub = av
                if direction < 0:
                    self.fail("a lookbehind assertion (?<=...) or (?<!...)", ("(?<=", "(?<!"))
                body = yield (list(sub), flags, start_here, False)
                out.append(("look", op is C.ASSERT, body))
            else:
                out.append(self.item(op, av, flags))
        if len(out) == 1:
            return out[0]
        return ("seq", out)

    def anchor(self, av: Any, flags: int, at_start: bool, at_end: bool) -> Node | None:
        """None for an anchor that fullmatch makes redundant, else its zero-width node."""
        if av in _START_ANCHORS and at_start:
            return None
        if av in _END_ANCHORS and at_end:
            return None
        if av in (C.AT_BOUNDARY, C.AT_NON_BOUNDARY):
            self.fail("a word boundary (\\b or \\B)", ("\\b", "\\B"))
        if av in _START_ANCHORS:
            self.fail("an anchor in the middle of the pattern (^ or \\A)", ("^", "\\A"))
        if av == C.AT_END_STRING:
            return END
        if av == C.AT_END:  # before a final newline, or before any newline under MULTILINE
            newline = ("chars", ((10, 10),))
            if flags & MULTILINE:
                return ("look", True, ("alt", [newline, END]))
            return ("look", True, ("seq", [("rep", newline, 0, 1), END]))
        self.fail(f"the anchor {av}", ("$", "\\Z"))
        raise AssertionError  # unreachable

    def item(self, op: Any, av: Any, flags: int) -> Node:
        """A node without sub-sequences (character sets), or a RegexError for what is not regular."""
        if op is C.LITERAL:
            return ("chars", self.literal(av, flags))
        if op is C.NOT_LITERAL:
            return ("chars", charset.complement(self.literal(av, flags)))
        if op is C.ANY:
            return ("chars", charset.ALL if flags & DOTALL else _NOT_NEWLINE)
        if op is C.IN:
            key = (tuple(av), flags & (IGNORECASE | ASCII))
            found = self.class_cache.get(key)
            if found is None:
                found = self.class_cache[key] = self.char_class(av, flags)
            return ("chars", found)
        if op is getattr(C, "POSSESSIVE_REPEAT", object()):
            self.fail("a possessive repeat (*+, ++, ?+, {m,n}+)", ("*+", "++", "?+", "}+"))
        if op is getattr(C, "ATOMIC_GROUP", object()):
            self.fail("an atomic group (?>...)", ("(?>",))
        if op is C.GROUPREF:
            self.fail("a backreference", ("(?P=", "\\"))
        if op is C.GROUPREF_EXISTS:
            self.fail("a conditional group (?(id)yes|no)", ("(?(",))
        if op is C.FAILURE:
            return ("chars", charset.EMPTY)
        self.fail(f"the construct {op}")
        raise AssertionError  # unreachable

    # -- character sets -----------------------------------------------------
    def literal(self, cp: int, flags: int) -> Ranges:
        if not flags & IGNORECASE:
            return charset.EMPTY if charset.SURROGATES[0] <= cp <= charset.SURROGATES[1] else ((cp, cp),)
        key = (cp, flags & (IGNORECASE | ASCII))
        found = self.fold_cache.get(key)
        if found is None:
            found = _fold_literal(cp, bool(flags & ASCII))
            self.fold_cache[key] = found
        return found

    def char_class(self, items: list, flags: int) -> Ranges:
        if flags & IGNORECASE:
            return charset.ranges_of_class(_class_source(items), flags & (IGNORECASE | ASCII))
        negate = False
        parts: list[Ranges] = []
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                parts.append(((av, av),))
            elif op is C.RANGE:
                parts.append((av,))
            elif op is C.CATEGORY:
                parts.append(_category(av, bool(flags & ASCII)))
            else:  # pragma: no cover - sre produces no other items here
                raise RegexError(f"unexpected item {op} in a character class", self.pattern)
        result = charset.union(*parts)
        return charset.complement(result) if negate else result


_NOT_NEWLINE = charset.complement(((10, 10),))
END: Node = ("end",)


def has_lookaround(node: Node) -> bool:
    """Whether the tree holds a lookahead or an end-of-text node (the automata that need threads)."""
    stack = [node]
    while stack:
        n = stack.pop()
        kind = n[0]
        if kind in ("look", "end"):
            return True
        if kind in ("seq", "alt"):
            stack.extend(n[1])
        elif kind == "rep":
            stack.append(n[1])
    return False

_ASCII_CATEGORIES = {
    "DIGIT": ((0x30, 0x39),),
    "WORD": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "SPACE": ((0x09, 0x0D), (0x20, 0x20)),
}


def _category(code, ascii_only: bool) -> Ranges:
    """\\d, \\w, \\s and their negations: ASCII sets, or the pinned Unicode tables."""
    name = str(code).replace("CATEGORY_", "")
    negated = name.startswith("NOT_")
    base = name[4:] if negated else name
    if ascii_only:
        ranges = _ASCII_CATEGORIES[base]
    else:
        ranges = getattr(unicode_tables, base)
    ranges = charset.normalize(ranges)
    return charset.complement(ranges) if negated else ranges


def _class_source(items: list) -> str:
    parts = ["["]
    for op, av in items:
        if op is C.NEGATE:
            parts.append("^")
        elif op is C.LITERAL:
            parts.append(charset.code_point_escape(av))
        elif op is C.RANGE:
            parts.append(f"{charset.code_point_escape(av[0])}-{charset.code_point_escape(av[1])}")
        elif op is C.CATEGORY:
            parts.append(_CATEGORY_SOURCE[av])
        else:  # pragma: no cover
            raise RegexError(f"unexpected item {op} in a character class")
    parts.append("]")
    return "".join(parts)


_by_lower: dict[int, list[int]] | None = None


def _fold_literal(cp: int, ascii_only: bool) -> Ranges:
    """Code points that match the literal `cp` under IGNORECASE, as sre decides it."""
    if ascii_only:
        ch = chr(cp)
        if ch.isascii() and ch.isalpha():
            return charset.normalize(((ord(ch.lower()),) * 2, (ord(ch.upper()),) * 2))
        return charset.normalize(((cp, cp),))
    extra = sre.extra_cases()
    global _by_lower
    if _by_lower is None:
        table: dict[int, list[int]] = {}
        lower = sre.unicode_tolower
        iscased = sre.unicode_iscased
        for x in range(charset.MAX_CODE_POINT + 1):
            if iscased(x):
                table.setdefault(lower(x), []).append(x)
        _by_lower = table
    low = sre.unicode_tolower(cp)
    wanted = {low, *extra.get(low, ())}
    found = []
    for value in wanted:
        if sre.unicode_tolower(value) == value:
            found.append((value, value))
        found.extend((x, x) for x in _by_lower.get(value, ()))
    return charset.normalize(found)
