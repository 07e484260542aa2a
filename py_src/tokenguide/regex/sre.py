"""The one access point to the standard library's regex parser (`re._parser`, `re._constants`).

Every module that reads regex syntax goes through here, so the private-module names live in
one place (Python 3.11+ and Pyodide spell them `re._parser` / `re._constants`).

`parse` takes any group nesting: re's parser recurses twice per group level (RecursionError
near 490 levels, fewer in a deep call stack or in the browser), so a pattern nesting deeper
than `SLICE_DEPTH` is cut at every `SLICE_DEPTH`-th level into slices that re parses one at a
time, each with its inner slices standing in as placeholder characters, and the trees are
spliced back together: the same tree as re's, built without deep recursion.
"""

from __future__ import annotations

import bisect
import re

try:  # CPython 3.11+ and Pyodide
    from re import _constants as constants
    from re import _parser as parser
except ImportError:  # pragma: no cover - older layout (not supported, kept for clarity)
    import sre_constants as constants  # type: ignore[no-redef]
    import sre_parse as parser  # type: ignore[no-redef]

from _sre import unicode_iscased, unicode_tolower  # sre's own simple case mapping

__all__ = [
    "SLICE_DEPTH", "Outline", "any_item", "constants", "extra_cases", "inner_sequences", "nonempty", "outline",
    "parser", "parse", "release", "subpattern", "with_inner_sequences",
    "unicode_iscased", "unicode_tolower",
]

#: Group levels re's parser takes in one call; deeper patterns are parsed in slices this deep.
SLICE_DEPTH = 40

C = constants
_SPECIAL = re.compile(r"[\\\[()#]")
_CLASS = re.compile(r"\[\^?\]?(?:[^\\\]]|\\[\s\S])*\]")
_COMMENT = re.compile(r"(?:[^\\)]|\\[\s\S])*\)")  # the rest of (?#...)
_VERBOSE_COMMENT = re.compile(r"(?:[^\\\n]|\\[\s\S])*")  # the rest of a # comment in verbose mode
_FLAGS = re.compile(r"([aiLmsux]*)(?:-([imsx]*))?([:)])")
_ESCAPED_CP = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})")
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT))


def extra_cases() -> dict:
    """sre's extra case-insensitive equivalences (re._casefix), lowercase code point -> others."""
    try:
        from re._casefix import _EXTRA_CASES
    except ImportError:  # pragma: no cover
        return {}
    return _EXTRA_CASES


def subpattern(items: list):
    """A parser SubPattern holding `items` (the constructor's state argument changed in 3.11)."""
    state = parser.State() if hasattr(parser, "State") else parser.Pattern()
    return parser.SubPattern(state, items)


def inner_sequences(op, av) -> list:
    """The parsed sequences (SubPatterns) inside one item: a group's, each alternative's, a
    repeat's, a lookaround's; none for a single-character item or an anchor."""
    if op == C.SUBPATTERN:
        return [av[-1]]
    if op == C.BRANCH:
        return list(av[1])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        return [av[2]]
    if op in (C.ASSERT, C.ASSERT_NOT):
        return [av[1]]
    return []


def with_inner_sequences(op, av, subs: list[list]):
    """`av` of an item with its inner sequences (as `inner_sequences` lists them) replaced by
    `subs`: a new item, the old one untouched (parsed trees may be shared between branches)."""
    if op == C.SUBPATTERN:
        return (*av[:-1], subpattern(subs[0]))
    if op == C.BRANCH:
        return (av[0], [subpattern(sub) for sub in subs])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        return (av[0], av[1], subpattern(subs[0]))
    if op in (C.ASSERT, C.ASSERT_NOT):
        return (av[0], subpattern(subs[0]))
    return av


def any_item(items: list, hit) -> bool:
    """Does an item of a parsed sequence, at any depth, satisfy `hit(op, av)`?"""
    return any(hit(op, av) or any(any_item(sub.data, hit) for sub in inner_sequences(op, av)) for op, av in items)


def nonempty(items: list) -> list[list] | None:
    """Sequences of parse items matching exactly the nonempty strings `items` matches (their
    union): for a sequence every item of which can match "", the first nonempty item's
    nonempty strings followed by the rest. None when an item is an anchor, a lookaround or a
    group with flags (their empty matches depend on context)."""
    out: list[list] = []
    for i, (op, av) in enumerate(items):
        if subpattern([(op, av)]).getwidth()[0] > 0:
            heads: list[list] | None = [[(op, av)]]
        elif op == C.BRANCH:
            heads = []
            for branch in av[1]:
                inner = nonempty(list(branch.data))
                if inner is None:
                    return None
                heads.extend(inner)
        elif op == C.SUBPATTERN and not av[1] and not av[2]:
            heads = nonempty(list(av[-1].data))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            lo, hi, sub = av
            inner = nonempty(list(sub.data))
            if inner is None:
                return None
            more = [] if hi == 1 else [(op, (0, hi if hi == C.MAXREPEAT else hi - 1, sub))]
            heads = [h + more for h in inner]
        else:
            return None
        if heads is None:
            return None
        out.extend(h + list(items[i + 1:]) for h in heads)
        if subpattern([(op, av)]).getwidth()[0] > 0:
            break  # the items after a nonempty one are reached only through it
    return out


def outline(pattern: str, flags: int = 0) -> "Outline":
    """The group structure of `pattern` (nesting depth, slices), scanned without parsing."""
    return Outline(pattern, flags)


def parse(pattern: str, flags: int = 0, shape: "Outline | None" = None):
    """Parse `pattern` with re's own parser (raises re.error on bad syntax), at any nesting depth;
    `shape` is its `outline` if already scanned."""
    shape = Outline(pattern, flags) if shape is None else shape
    if shape.max_depth <= SLICE_DEPTH:
        return parser.parse(pattern, flags)
    if shape.error is not None:
        raise re.error(shape.error, pattern, shape.error_pos)
    return _parse_slices(pattern, flags, shape)


class Outline:
    """The group structure of a pattern, scanned without recursion: `depth_at[d]` is where the
    first group nested d + 1 deep opens, `max_depth` the deepest nesting, `slices` the groups
    where slices start (every SLICE_DEPTH-th level) and the slice holding each, `error` the
    structural syntax error found (unbalanced parentheses, an unterminated class), if any."""

    def __init__(self, pattern: str, flags: int):
        self.depth_at: list[int] = []
        self.error: str | None = None
        self.error_pos = len(pattern)
        #: slices: [start, end, parent slice, verbose]; slice 0 is the whole pattern.
        self.slices: list[list] = [[0, len(pattern), -1, bool(flags & re.VERBOSE)]]
        self._scan(pattern, flags)

    @property
    def max_depth(self) -> int:
        return len(self.depth_at)

    def _fail(self, message: str, pos: int) -> None:
        self.error, self.error_pos = message, pos

    def _scan(self, pattern: str, flags: int) -> None:
        n = len(pattern)
        verbose = bool(flags & re.VERBOSE)
        m = _FLAGS.match(pattern, 2) if pattern.startswith("(?") else None
        while m and m.group(3) == ")" and not m.group(2):  # leading global flags
            verbose = verbose or "x" in m.group(1)
            m = _FLAGS.match(pattern, m.end() + 2) if pattern.startswith("(?", m.end()) else None
        self.slices[0][3] = verbose
        stack: list[tuple[int, bool, int]] = []  # open groups: (position, verbose outside, slice)
        names: set[str] = set()
        current = 0  # the slice being scanned
        i = 0
        while True:
            found = _SPECIAL.search(pattern, i)
            if found is None:
                break
            i = found.start()
            ch = pattern[i]
            if ch == "\\":
                i += 2
            elif ch == "[":
                klass = _CLASS.match(pattern, i)
                if klass is None:
                    return self._fail("unterminated character set", i)
                i = klass.end()
            elif ch == "#":
                i = _VERBOSE_COMMENT.match(pattern, i + 1).end() if verbose else i + 1
            elif ch == ")":
                if not stack:
                    return self._fail("unbalanced parenthesis", i)
                start, verbose, owner = stack.pop()
                if owner != current:  # the group that started the slice closes it
                    self.slices[current][1] = i + 1
                    current = owner
                i += 1
            else:  # "("
                inner = verbose
                j = i + 1
                if pattern.startswith("?", j):
                    j += 1
                    if pattern.startswith("#", j):
                        rest = _COMMENT.match(pattern, j + 1)
                        if not rest.group().endswith(")"):
                            return self._fail("missing ), unterminated comment", i)
                        i = rest.end()
                        continue
                    if pattern.startswith("P<", j):
                        end = pattern.find(">", j)
                        name = pattern[j + 2 : end]
                        if end >= 0 and name in names:
                            return self._fail(f"redefinition of group name {name!r}", j + 2)
                        names.add(name)
                        j = end + 1 if end >= 0 else j
                    elif pattern.startswith("P=", j):  # a backreference: no group
                        end = pattern.find(")", j)
                        i = end + 1 if end >= 0 else n
                        continue
                    elif pattern.startswith("(", j):  # conditional: skip the condition
                        end = pattern.find(")", j)
                        j = end + 1 if end >= 0 else j
                    else:
                        flag = _FLAGS.match(pattern, j)
                        if flag and flag.group(3) == ":":
                            inner = (verbose or "x" in flag.group(1)) and "x" not in (flag.group(2) or "")
                            j = flag.end()
                        elif flag and flag.group(3) == ")":  # global flags: no group
                            i = flag.end()
                            continue
                depth = len(stack) + 1
                if depth > len(self.depth_at):
                    self.depth_at.append(i)
                stack.append((i, verbose, current))
                if depth % SLICE_DEPTH == 0:
                    self.slices.append([i, n, current, verbose])
                    current = len(self.slices) - 1
                verbose = inner
                i = j
        if stack:
            self._fail("missing ), unterminated subpattern", stack[-1][0])


def _placeholders(pattern: str, count: int) -> list[int]:
    """`count` code points that the pattern cannot spell as a literal (lone surrogates, then
    private use planes 15/16), to stand for the slices inside a slice."""
    used = {ord(ch) for ch in pattern}
    for m in _ESCAPED_CP.finditer(pattern):
        used.add(int(m.group(1) or m.group(2), 16))
    out: list[int] = []
    for lo, hi in ((0xD800, 0xDFFF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)):
        for cp in range(lo, hi + 1):
            if cp not in used:
                out.append(cp)
                if len(out) == count:
                    return out
    raise re.error("too many groups to parse", pattern, 0)  # pragma: no cover - needs > 130,000 slices


def _parse_slices(pattern: str, flags: int, outline: Outline):
    """Parse each slice with re (inner slices as placeholders) and splice the trees together."""
    slices = outline.slices
    marks = _placeholders(pattern, len(slices) - 1)
    children: list[list[int]] = [[] for _ in slices]
    for k in range(1, len(slices)):
        children[slices[k][2]].append(k)
    trees: list = [None] * len(slices)
    global_flags = flags
    for k in range(len(slices)):  # parents first: slice 0 gives the global flags
        start, end, _parent, verbose = slices[k]
        text: list[str] = []
        offsets: list[int] = []  # where each piece of `text` starts, and where it comes from
        origins: list[int] = []
        size = 0
        at = start
        for c in children[k]:
            for piece, origin in ((pattern[at : slices[c][0]], at), (chr(marks[c - 1]), slices[c][0])):
                offsets.append(size)
                origins.append(origin)
                text.append(piece)
                size += len(piece)
            at = slices[c][1]
        offsets.append(size)
        origins.append(at)
        text.append(pattern[at:end])
        own = flags if k == 0 else (global_flags & ~re.VERBOSE) | (re.VERBOSE if verbose else 0)
        try:
            trees[k] = parser.parse("".join(text), own)
        except re.error as exc:
            pos = exc.pos
            if pos is not None:
                i = bisect.bisect_right(offsets, pos) - 1
                pos = origins[i] + (pos - offsets[i] if i % 2 == 0 else 0)  # odd pieces: placeholders
            raise re.error(exc.msg, pattern, pos) from None
        if k == 0:
            global_flags = trees[0].state.flags
    for k in range(len(slices) - 1, 0, -1):  # innermost first: a slice is whole when spliced in
        parent = slices[k][2]
        _splice(trees[parent], marks[k - 1], (C.SUBPATTERN, (None, 0, 0, trees[k])))
    return trees[0]


def _sub_lists(op, av) -> list:
    """The sub-sequences of one sre item (none for a leaf)."""
    if op is C.BRANCH:
        return list(av[1])
    if op is C.SUBPATTERN:
        return [av[3]]
    if op in _REPEATS:
        return [av[2]]
    if op in (C.ASSERT, C.ASSERT_NOT):
        return [av[1]]
    if op is getattr(C, "ATOMIC_GROUP", None):
        return [av]
    if op is C.GROUPREF_EXISTS:
        return [x for x in av[1:] if x is not None]
    return []


def release(tree) -> None:
    """Empty every sequence of a parsed tree, so that freeing it does not recurse once per level
    (Pyodide's stack overflows freeing about 1,000 nested SubPatterns)."""
    held, stack = [], [tree]
    while stack:
        seq = stack.pop()
        held.append(seq)
        for op, av in seq:
            stack.extend(_sub_lists(op, av))
    for seq in held:
        if isinstance(seq, list):
            seq.clear()
        else:
            seq.data = []


def _splice(tree, mark: int, item: tuple) -> None:
    """Put `item` where the placeholder `mark` stands in `tree` (re may have merged it into a set)."""
    stack = [tree]
    while stack:
        seq = stack.pop()
        for k, (op, av) in enumerate(seq):
            if op is C.LITERAL:
                if av == mark:
                    seq[k] = item
                    return
            elif op is C.IN:
                if (C.LITERAL, mark) in av:  # a|(...) became [a<mark>]: a branch again
                    rest = [x for x in av if x != (C.LITERAL, mark)]
                    branches = [subpattern([(C.IN, rest)])] if rest else []
                    seq[k] = (C.BRANCH, (None, branches + [subpattern([item])]))
                    return
            else:
                stack.extend(_sub_lists(op, av))
    raise AssertionError(f"placeholder U+{mark:04X} not found in the parsed slice")  # pragma: no cover
