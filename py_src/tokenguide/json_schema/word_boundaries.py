"""`\\b` and `\\B` in a pattern where the characters around them are known: dropped when they
always hold, left in place (to be refused by name) when they may or may not.

ECMA-262's `\\b` holds between a word character (`[A-Za-z0-9_]`, ASCII in `u` mode without `i`)
and anything else, the ends of the string counting as non-word. Each side of a `\\b` is read
as the set of kinds (word, other) of the characters that can stand there: the last character
the pattern can have read before it, the first it can read after it, and past the pattern's own
ends whatever surrounds a match (a `pattern` is a search: any character or the string's edge).
A `^` or `$` pins its side to the string's edge. Where each side is one kind, the verdict is
the same for every string: `cron\\((\\b[0-5]?[0-9]\\b) …` (a bracket before, a digit after) and
`arn:\\b(aws|aws-cn)\\b:` always hold. Repeats add their own body's ends around each iteration.
A boundary at an edge of the search, its match's side one kind, reads the character beyond the
edge instead (`_edge_boundaries`).
"""

from __future__ import annotations

from typing import Any, Callable

from ..regex import ranges as R
from ..regex.sre import constants as C
from ..regex.sre import parse as sre_parse
from ..regex.sre import any_item, inner_sequences, subpattern, with_inner_sequences

__all__ = ["drop_decided_boundaries"]

_WORD = R.normalize([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
_OTHER = R.complement(_WORD)
WORD, OTHER = "w", "o"
_ANY = frozenset((WORD, OTHER))
_BOUNDARIES = (C.AT_BOUNDARY, C.AT_NON_BOUNDARY)


def drop_decided_boundaries(items: list, ranges_of: Callable[[Any, Any], Any]) -> list:
    """The parsed search pattern `items` with every `\\b`/`\\B` whose verdict the characters
    around it decide, and that always holds, left out (`ranges_of(op, av)`: the code point ranges
    of a single-character item, None for others). Others stay as they are."""
    if not any_item(items, _is_boundary):
        return items
    out = _sequence(items, ranges_of, _ANY, _ANY)
    if len(out) == 1 and out[0][0] == C.BRANCH:  # (`a|b` at the top: each alternative is a search)
        av = out[0][1]
        return [(C.BRANCH, (av[0], [subpattern(_edge_boundaries(list(b.data), ranges_of)) for b in av[1]]))]
    return _edge_boundaries(out, ranges_of)


# what stands outside a search's match where a boundary at its edge needs a word character, or
# anything else (the string's edge or a character of another kind): the search consumes it.
# Parsed anew each time: later passes rewrite parsed trees in place
_WORD_TEXT, _BEFORE_OTHER, _AFTER_OTHER = "[A-Za-z0-9_]", "(?:^|[^A-Za-z0-9_])", "(?:$|[^A-Za-z0-9_])"


def _edge_boundaries(items: list, ranges_of) -> list:
    """A boundary that starts (ends) the search, the match's own side one kind: the character
    before (after) the match, read as part of it. A match exists where one did before, found one
    character earlier (later): `\\b([0-9]|[0-9][0-9])\\b` is `(?:^|\\W)([0-9]|[0-9][0-9])(?:$|\\W)`."""
    if items and _is_boundary(*items[0]):
        right, open_ = _edge(items[1:], ranges_of, False)
        if len(right) == 1 and not open_:
            wants_other = (right == {WORD}) == (items[0][1] == C.AT_BOUNDARY)
            items = list(sre_parse(_BEFORE_OTHER if wants_other else _WORD_TEXT).data) + items[1:]
    if len(items) > 1 and _is_boundary(*items[-1]):
        left, open_ = _edge(items[:-1], ranges_of, True)
        if len(left) == 1 and not open_:
            wants_other = (left == {WORD}) == (items[-1][1] == C.AT_BOUNDARY)
            items = items[:-1] + list(sre_parse(_AFTER_OTHER if wants_other else _WORD_TEXT).data)
    return items


def _is_boundary(op, av) -> bool:
    return op == C.AT and av in _BOUNDARIES


def _kinds(ranges: Any) -> frozenset:
    """The kinds of the characters in `ranges`."""
    out = set()
    if R.intersection(ranges, _WORD):
        out.add(WORD)
    if R.intersection(ranges, _OTHER):
        out.add(OTHER)
    return frozenset(out)


def _edge(items: list, ranges_of, from_end: bool) -> tuple[frozenset, bool]:
    """(the kinds of the characters that can stand first (`from_end`: last) in `items`, whether
    the sequence can read no character before its edge is pinned or passed: then the context's
    kinds join). A `^` (reading backwards) or a `$` (forwards) pins: the string's edge, other."""
    found: set = set()
    for op, av in (reversed(items) if from_end else items):
        kinds, open_ = _item_edge(op, av, ranges_of, from_end)
        found |= kinds
        if not open_:
            return frozenset(found), False
    return frozenset(found), True


def _item_edge(op, av, ranges_of, from_end: bool) -> tuple[frozenset, bool]:
    if op == C.AT:
        pins = (C.AT_BEGINNING, C.AT_BEGINNING_STRING) if from_end else (C.AT_END, C.AT_END_STRING)
        return (frozenset((OTHER,)), False) if av in pins else (frozenset(), True)
    if op in (C.ASSERT, C.ASSERT_NOT):
        return frozenset(), True  # (reads nothing)
    ranges = ranges_of(op, av)
    if ranges is not None:
        return _kinds(ranges), False
    if op == C.SUBPATTERN:
        return _edge(list(av[-1].data), ranges_of, from_end)
    if op == C.BRANCH:
        kinds: set = set()
        open_ = False
        for b in av[1]:
            k, o = _edge(list(b.data), ranges_of, from_end)
            kinds |= k
            open_ = open_ or o
        return frozenset(kinds), open_
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        kinds, open_ = _edge(list(av[2].data), ranges_of, from_end)
        return kinds, open_ or av[0] == 0
    return _ANY, True  # (a backreference or anything unknown: every kind, and maybe nothing)


def _sequence(items: list, ranges_of, before: frozenset, after: frozenset) -> list:
    """`items` with decided boundaries dropped, `before`/`after`: the kinds around the sequence."""
    out = []
    for k, (op, av) in enumerate(items):
        subs = inner_sequences(op, av)
        if not (_is_boundary(op, av) or subs) or op in (C.ASSERT, C.ASSERT_NOT) and av[0] < 0:
            out.append((op, av))  # (a lookbehind's boundaries stay: refused by name later)
            continue
        left, open_left = _edge(items[:k], ranges_of, True)
        right, open_right = _edge(items[k + 1:], ranges_of, False)
        left = left | (before if open_left else frozenset())
        right = right | (after if open_right else frozenset())
        if _is_boundary(op, av):
            if not (len(left) == 1 and len(right) == 1 and (left != right) == (av == C.AT_BOUNDARY)):
                out.append((op, av))  # (dropped where it always holds)
            continue
        if op in (C.ASSERT, C.ASSERT_NOT):
            right = _ANY  # (what follows a lookahead's text is unknown)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[1] != 1:  # iterations meet each other
            body = list(av[2].data)
            left = left | _edge(body, ranges_of, True)[0]
            right = right | _edge(body, ranges_of, False)[0]
        out.append((op, with_inner_sequences(op, av, [_sequence(list(sub.data), ranges_of, left, right)
                                                      for sub in subs])))
    return out
