"""Lookaheads that intersect JSON strings, fused into one automaton before determinization.

JSON Schema puts several conditions on one string (a format, a pattern, length bounds) and the
regex says "both" with a lookahead: `(?=X T)Y`, X and Y each a complete JSON string (quote to
quote), T what must follow (a delimiter or the end). A JSON string is self-delimiting: from a
given position at most one prefix of the text is a string token, the one ending at the first
unescaped quote. So when every match of X and of Y is such a token, `(?=X T)Y` holds exactly
when that token is in both languages and T holds after it: the tree becomes the automaton of
X and Y together (a product of their small character automata), then `(?=T)`.

Subset construction over the lookahead would track Y's unminimized states times X's: email with
a 255-character maxLength needed over 100,000 states that way, where the product of the two
minimized automata has 38,163 and its minimal DFA 8,458. Nothing else changes: a lookahead that
is not of this shape, or whose product is too large, stays as it was.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import StateLimitError
from .nfa import tree_key
from .partition import hopcroft

__all__ = ["fuse_string_lookaheads"]

CharEdges = list[list[tuple[int, int, int]]]
Automaton = Callable[[tuple], tuple[CharEdges, list[bool]]]

_QUOTE, _BACKSLASH, _LAST = 0x22, 0x5C, 0x10FFFF
#: JSON string tokens, "(?:[^"\\]|\\[\s\S])*": 0 before the opening quote, 1 inside, 2 after a
#: backslash, 3 after the closing quote (accepting, no moves)
_STRING = [[(_QUOTE, _QUOTE, 1)],
           [(0, _QUOTE - 1, 1), (_QUOTE, _QUOTE, 3), (_QUOTE + 1, _BACKSLASH - 1, 1), (_BACKSLASH, _BACKSLASH, 2),
            (_BACKSLASH + 1, _LAST, 1)],
           [(0, _LAST, 1)],
           []]
_STRING_FINAL = 3
_QUOTE_NODE = ("chars", ((_QUOTE, _QUOTE),))
_MAX_TRIES = 4  # closing quotes tried per lookahead
_MAX_DEPTH = 200  # tree nesting the rewrite follows (Python recursion, Pyodide's smaller stack)
#: pairs a product may reach before minimization, per state allowed after it (email with a
#: 1,024-character maxLength: 158,896 pairs, 28,452 states)
_PAIRS_PER_STATE = 2
_TOO_LARGE: list = []  # (a sentinel: a product, or an automaton of its sides, over the limits)


def fuse_string_lookaheads(tree: tuple, automaton: Automaton, max_states: int) -> tuple:
    """`tree` with each `(?=X T)Y` over JSON strings fused (see the module docstring); `automaton`
    gives the character automaton (edges, accepting) of a tree without lookarounds; products over
    `max_states` pairs are left as lookaheads. Returns `tree` itself when nothing is fused."""
    if not _has_look(tree) or _deeper_than(tree, _MAX_DEPTH):
        return tree  # (the rewrite recurses along group nesting: deep trees keep their lookaheads)
    memo: dict[tuple, tuple | None] = {}  # tree key -> its automaton (None: over the limit)

    def cached(sub: tuple) -> tuple:
        key = tree_key(sub)
        if key not in memo:
            try:
                memo[key] = automaton(sub)
            except StateLimitError:
                memo[key] = None
        found = memo[key]
        if found is None:
            raise StateLimitError("too large to fuse")
        return found

    return _fuse(tree, cached, max_states)


def _deeper_than(node: tuple, limit: int) -> bool:
    """Does the tree nest deeper than `limit` nodes?"""
    stack = [(node, 0)]
    while stack:
        n, d = stack.pop()
        if d > limit:
            return True
        if n[0] in ("seq", "alt"):
            stack.extend((k, d + 1) for k in n[1])
        elif n[0] == "rep":
            stack.append((n[1], d + 1))
        elif n[0] == "look":
            stack.append((n[2], d + 1))
    return False


def _has_look(node: tuple) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n[0] == "look":
            return True
        if n[0] in ("seq", "alt"):
            stack.extend(n[1])
        elif n[0] == "rep":
            stack.append(n[1])
    return False


def _fuse(node: tuple, automaton: Automaton, max_states: int) -> tuple:
    """Bottom-up rewrite (recursion follows the regex's group nesting, which the parser bounds)."""
    kind = node[0]
    if kind == "alt":
        kids = [_fuse(k, automaton, max_states) for k in node[1]]
        return node if all(a is b for a, b in zip(kids, node[1])) else ("alt", kids)
    if kind == "rep":
        kid = _fuse(node[1], automaton, max_states)
        return node if kid is node[1] else ("rep", kid, node[2], node[3])
    if kind == "look":
        kid = _fuse(node[2], automaton, max_states)
        return node if kid is node[2] else ("look", node[1], kid)
    if kind != "seq":
        return node
    out = [_fuse(k, automaton, max_states) for k in node[1]]
    too_large: set[int] = set()  # ids of the lookaheads whose product passed the limits: not tried again
    while True:  # a pass per level of lookaheads written around one string (each check wraps the last)
        items, out, changed = out, [], False
        i = 0
        while i < len(items):
            item = items[i]
            j = None if id(item) in too_large else _fusable(items, i, automaton, max_states, out)
            if j is _TOO_LARGE:
                too_large.add(id(item))
                j = None
            if j is None:
                out.append(item)
                i += 1
            else:
                changed, i = True, j
        if not changed:
            break
    if len(out) == len(node[1]) and all(a is b for a, b in zip(out, node[1])):
        return node
    return ("seq", out)


def _fusable(items: list[tuple], i: int, automaton: Automaton, max_states: int, out: list[tuple]) -> Any:
    """When items[i] is a lookahead that fuses with the items after it (up to a closing quote or
    a string fused before, the nearest first), append the fused items to `out` and return the
    index after them; _TOO_LARGE when the product passes the limits; else None."""
    item = items[i]
    if not (item[0] == "look" and item[1] and i + 1 < len(items) and _opens_string(item[2])
            and _opens_string(items[i + 1])):
        return None
    ends = [j for j in range(i + 1, len(items)) if items[j] == _QUOTE_NODE or items[j][0] == "dfa"]
    for j in ends[:_MAX_TRIES]:
        follower = items[i + 1] if j == i + 1 else ("seq", items[i + 1:j + 1])
        fused = _fused(item[2], follower, automaton, max_states)
        if fused is _TOO_LARGE:
            return _TOO_LARGE
        if fused is not None:
            out.extend(fused)
            return j + 1
    return None


def _opens_string(node: tuple) -> bool:
    """Does `node` start with a quote or a fused string (a cheap test before any automaton)?"""
    while node[0] == "seq" and node[1]:
        node = node[1][0]
    return node == _QUOTE_NODE or node[0] == "dfa"


def _fused(body: tuple, follower: tuple, automaton: Automaton, max_states: int) -> list[tuple] | None:
    """The items replacing `(?=body)` `follower` when both sides are JSON strings, else None."""
    parts = body[1] if body[0] == "seq" else [body]
    splits = [(("seq", parts[:-1]), [parts[-1]])] if len(parts) > 1 else []  # X, then T (a delimiter)
    for x, after in splits + [(body, [])]:
        fused = _fused_split(x, after, follower, automaton, max_states)
        if fused is _TOO_LARGE:
            return _TOO_LARGE  # (another reading or a longer follower gives no smaller product)
        if fused is not None:
            return fused
    return None


def _fused_split(x: tuple, after: list[tuple], follower: tuple, automaton: Automaton,
                 max_states: int) -> list[tuple] | None:
    """`_fused` for one reading of the lookahead's body as X then `after`."""
    if _has_look(x) or _has_look(follower):
        return None
    try:
        ax, ay = automaton(x), automaton(follower)
    except StateLimitError:
        return _TOO_LARGE
    if not (_within_strings(ax) and _within_strings(ay)):
        return None
    product = _product(ax, ay, _PAIRS_PER_STATE * max_states)
    if product is None:
        return _TOO_LARGE
    rows, accepting = _minimal(*product)
    if len(rows) > max_states:
        return _TOO_LARGE
    return [("dfa", rows, accepting)] + [("look", True, t) for t in after]


def _within_strings(auto: tuple[CharEdges, list[bool]]) -> bool:
    """Is every text the automaton accepts a JSON string token (and every text it reads a prefix
    of one)? A walk of its states beside the token automaton's."""
    edges, accept = auto
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        q, s = todo.pop()
        if accept[q] and s != _STRING_FINAL:
            return False
        for lo, hi, t in edges[q]:
            covered = lo
            for slo, shi, st in _STRING[s]:
                if shi < covered or slo > hi:
                    continue
                if slo > covered:
                    return False  # a character the token cannot take here
                pair = (t, st)
                if pair not in seen:
                    seen.add(pair)
                    todo.append(pair)
                covered = shi + 1
                if covered > hi:
                    break
            if covered <= hi:
                return False
    return True


def _product(a: tuple[CharEdges, list[bool]], b: tuple[CharEdges, list[bool]],
             max_states: int) -> tuple[tuple, tuple] | None:
    """The character automaton of both languages (pairs reachable together, in BFS order):
    (edges per state, accepting per state) as tuples, or None past `max_states` pairs."""
    (ea, fa), (eb, fb) = a, b
    ids = {(0, 0): 0}
    order = [(0, 0)]
    rows: list[tuple] = []
    i = 0
    while i < len(order):
        p, q = order[i]
        i += 1
        row: list[tuple[int, int, int]] = []
        ra, rb = ea[p], eb[q]
        j = k = 0
        while j < len(ra) and k < len(rb):
            lo, hi = max(ra[j][0], rb[k][0]), min(ra[j][1], rb[k][1])
            if lo <= hi:
                pair = (ra[j][2], rb[k][2])
                n = ids.get(pair)
                if n is None:
                    if len(order) >= max_states:
                        return None
                    n = ids[pair] = len(order)
                    order.append(pair)
                row.append((lo, hi, n))
            if ra[j][1] < rb[k][1]:
                j += 1
            else:
                k += 1
        rows.append(tuple(row))
    return tuple(rows), tuple(fa[p] and fb[q] for p, q in order)


def _minimal(rows: tuple, accepting: tuple) -> tuple[tuple, tuple]:
    """The product with equivalent states merged (Hopcroft over the intervals its edges cut the
    code points into) and the states that cannot accept dropped; state 0 stays initial."""
    points = sorted({p for row in rows for lo, hi, _ in row for p in (lo, hi + 1)})
    index = {p: i for i, p in enumerate(points)}
    k = max(len(points) - 1, 1)
    sink = len(rows)
    trans = [[sink] * k for _ in range(sink + 1)]
    for q, row in enumerate(rows):
        line = trans[q]
        for lo, hi, t in row:
            for a in range(index[lo], index[hi + 1]):
                line[a] = t
    block_of = hopcroft(trans, {q for q, ok in enumerate(accepting) if ok}, k)
    dead = block_of[sink]
    number = {block_of[0]: 0} if block_of[0] != dead else {}
    order = [0] if number else []
    out_rows: list[tuple] = []
    i = 0
    while i < len(order):  # blocks numbered breadth first from the initial one, by first member
        q = order[i]
        i += 1
        row: list[tuple[int, int, int]] = []
        for lo, hi, t in rows[q]:
            b = block_of[t]
            if b == dead:
                continue
            if b not in number:
                number[b] = len(order)
                order.append(t)
            n = number[b]
            if row and row[-1][2] == n and row[-1][1] + 1 == lo:
                row[-1] = (row[-1][0], hi, n)
            else:
                row.append((lo, hi, n))
        out_rows.append(tuple(row))
    if not out_rows:  # nothing accepted: one state without moves
        return ((),), (False,)
    return tuple(out_rows), tuple(accepting[q] for q in order)
