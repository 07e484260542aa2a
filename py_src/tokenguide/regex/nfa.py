"""Thompson NFA over code-point sets, built from the parser's tree (one concept, shared by the
eager minimal DFA in `dfa` and the lazy byte automaton in `lazy`).

Lookaheads and `\\Z` add two zero-width edge kinds (only `dfa` follows them, see `looks`): a
look edge spawns an obligation that the lookahead's body must (not) match a prefix of the rest,
and an end edge can only be taken at the end of the text.

Counted repetitions: in a tree without lookarounds, a repetition `X{lo,hi}` whose unrolled
copies would take more than COUNTED_MIN pieces is built once, as a template, and its copies are
virtual: copy c of template state t is a state created the first time something reaches it
(`expand`), its moves those of t carried into copy c, plus the glue between copies. Nested
counted repetitions nest their copies (a frame is a chain of copy numbers). The reachable part
is the same graph as the unrolled NFA, so every automaton built on it is the same, but memory
and time follow the templates and the states reached, not the counts.
"""

from __future__ import annotations

from typing import Iterable

from ..errors import StateLimitError
from .ranges import ALL
from .trampoline import run_nested

__all__ = ["COPY_LIMIT", "COUNTED_MIN", "NFA", "NFA_LIMIT", "build_nfa", "epsilon_closure", "estimate_size", "tree_key",
           "without_empty"]

#: Pieces the tree's estimate may come to, checked before building (a clear error, never a huge allocation).
NFA_LIMIT = 2_000_000
#: Copy states that counted repetitions may create as they are reached (about 360 bytes each).
COPY_LIMIT = 1_000_000
#: A repetition whose copies would take more pieces than this is counted (one template), not unrolled.
COUNTED_MIN = 1_000

_ENTRY, _EXIT, _LOOP = 0, 1, 2  # glue roles of template-level states of a counted repetition


def estimate_size(node: tuple, *, counted: bool = False) -> int:
    """Rough number of NFA states the tree expands to, checked before building: repetitions
    unrolled, or with `counted` (trees without lookarounds) large ones taken once (`plan`)."""
    return _plan(node, counted)[0]


def _plan(node: tuple, counted: bool) -> tuple[int, set[int], bool]:
    """(estimated size, ids of the repetition nodes to count, whether some set is empty)."""
    sizes: list[int] = []  # sizes of the subtrees done, in the order they were finished
    stack: list[tuple[tuple, bool]] = [(node, False)]
    chosen: set[int] = set()
    empty = False
    while stack:
        n, children_done = stack.pop()
        kind = n[0]
        if kind in ("chars", "end"):
            empty = empty or (kind == "chars" and not n[1])
            sizes.append(2)
            continue
        if kind == "dfa":  # a fused automaton (module fusion): its states and edges
            sizes.append(2 + len(n[1]) + sum(len(row) for row in n[1]))
            continue
        children = n[1] if kind in ("seq", "alt") else (n[2] if kind == "look" else n[1],)
        if not children_done:
            stack.append((n, True))
            stack.extend((c, False) for c in children)
            continue
        k = len(children)
        empty = empty or (kind == "alt" and not k)
        inner = sum(sizes[len(sizes) - k :])
        del sizes[len(sizes) - k :]
        if kind == "look":  # the body runs as its own automaton, followed by any text
            sizes.append(6 + inner)
        elif kind in ("seq", "alt"):
            sizes.append(2 + inner)
        else:
            lo, hi = n[2], n[3]
            copies = hi if hi is not None else lo + 1
            if counted and copies >= 2 and inner * copies > COUNTED_MIN:
                chosen.add(id(n))
                sizes.append(3 + inner)
            else:
                sizes.append(2 + inner * max(1, copies))
    return sizes[0], chosen, empty


def build_nfa(tree: tuple, *, counted: bool, pattern: str | None = None) -> tuple["NFA", int, int]:
    """(nfa, start, end) for a tree, after the size check; `counted` (only for trees without
    lookarounds: `threads` needs every state up front) builds large repetitions as templates."""
    size, chosen, empty = _plan(tree, counted)
    if size > NFA_LIMIT:
        raise StateLimitError(
            f"the regex expands to about {size:,} automaton pieces (limit {NFA_LIMIT:,}); "
            "reduce the repetition counts",
            pattern,
        )
    if chosen and empty:  # copies must reach the end: drop what cannot match first
        tree = without_empty(tree)
        _, chosen, _ = _plan(tree, counted)
    nfa = NFA(counted=chosen, pattern=pattern)
    start, end = nfa.fragment(tree)
    return nfa, start, end


def without_empty(node: tuple) -> tuple:
    """The same language without parts that cannot match (empty sets, empty alternations and
    what they make impossible); ("alt", []) when the whole tree cannot match."""

    def step(n: tuple):
        kind = n[0]
        if kind == "seq":
            out = []
            for child in n[1]:
                kept = yield child
                if kept is None:
                    return None
                out.append(kept)
            return ("seq", out)
        if kind == "alt":
            out = []
            for child in n[1]:
                kept = yield child
                if kept is not None:
                    out.append(kept)
            return ("alt", out) if out else None
        if kind == "rep":
            kept = yield n[1]
            if kept is None:
                return ("seq", []) if n[2] == 0 else None
            return ("rep", kept, n[2], n[3])
        if kind == "look":  # a body that cannot match: (?=...) never holds, (?!...) always does
            kept = yield n[2]
            if kept is None:
                return None if n[1] else ("seq", [])
            return ("look", n[1], kept)
        return n if kind != "chars" or n[1] else None

    def expand(child: tuple) -> tuple:
        if child[0] == "chars":
            return None, (child if child[1] else None)
        return step(child), None

    result = run_nested(step(node), expand)
    return ("alt", []) if result is None else result


class NFA:
    """Thompson NFA over code-point sets: `eps[s]` epsilon targets, `edges[s]` (ranges, target) pairs.

    `eps[s]` is None for a copy state of a counted repetition not reached yet: `expand(s)` fills
    it in (`epsilon_closure` does); the states in a closure always have their edges.
    """

    def __init__(self, *, counted: set[int] | frozenset[int] = frozenset(), pattern: str | None = None) -> None:
        self.eps: list[list[int] | None] = []
        self.edges: list[list[tuple[tuple, int]]] = []
        self.has_empty_set = False  # an empty character set makes some states dead ends
        #: Lookahead k: (positive, start, end) of its body followed by any text, a fragment of its own;
        #: a nested lookahead gets a smaller k than the one around it.
        self.looks: list[tuple[bool, int, int]] = []
        self.look_edges: dict[int, list[tuple[int, int]]] = {}  # state -> [(lookahead k, target)]
        self.end_edges: dict[int, list[int]] = {}  # state -> targets reachable only at the end of the text
        self.look_ids: dict[tuple, int] = {}
        self.pattern = pattern
        self.virtual = 0  # copy states of counted repetitions created so far
        self._counted = counted  # ids of the repetition nodes to build as templates
        self._depth = 0  # counted templates being built around the current node
        #: counted repetition r: (lo, hi, template start, template end, end (the loop state if hi is None))
        self._reps: list[tuple[int, int | None, int, int, int]] = []
        self._glue: dict[int, list[tuple[int, int]]] = {}  # template-level state -> [(role, r)]
        self._frames: list[tuple[int, int, int]] = [(-1, -1, -1)]  # frame -> (parent, r, copy); 0: the real states
        self._frame_id: dict[tuple[int, int, int], int] = {}
        self._state_id: dict[tuple[int, int], int] = {}  # (frame, template state) -> state
        self._where: dict[int, tuple[int, int]] = {}  # state not expanded yet -> (frame, template state)

    def new(self) -> int:
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1

    def fragment(self, node: tuple) -> tuple[int, int]:
        """(start, end) states of a new fragment for `node`, built depth-first with an explicit
        stack (any nesting depth): `_build` yields the child nodes it needs, and is sent back
        each child's (start, end)."""
        def expand(child: tuple) -> tuple:
            if child[0] == "chars":  # the common leaf, without a generator
                return None, self._chars(child)
            return self._build(child), None

        return run_nested(self._build(node), expand)

    def _chars(self, node: tuple) -> tuple[int, int]:
        s, e = self.new(), self.new()
        if node[1]:
            self.edges[s].append((node[1], e))
        else:
            self.has_empty_set = True
        return s, e

    def _build(self, node: tuple):
        kind = node[0]
        if kind == "chars":
            return self._chars(node)
        if kind == "seq":
            s = cur = self.new()
            for child in node[1]:
                cs, ce = yield child
                self.eps[cur].append(cs)
                cur = ce
            return s, cur
        if kind == "look":  # equal lookaheads (JSON Schema repeats them) share one body
            key = (bool(node[1]), tree_key(node[2]))
            k = self.look_ids.get(key)
            if k is None:
                bs, be = yield ("seq", [node[2], ("rep", ("chars", ALL), 0, None)])
                k = self.look_ids[key] = len(self.looks)
                self.looks.append((bool(node[1]), bs, be))
            s, e = self.new(), self.new()
            self.look_edges.setdefault(s, []).append((k, e))
            return s, e
        if kind == "end":
            s, e = self.new(), self.new()
            self.end_edges.setdefault(s, []).append(e)
            return s, e
        if kind == "dfa":
            return self._automaton(node)
        if kind == "alt":
            s, e = self.new(), self.new()
            if not node[1]:
                self.has_empty_set = True
            for child in node[1]:
                cs, ce = yield child
                self.eps[s].append(cs)
                self.eps[ce].append(e)
            return s, e
        if id(node) in self._counted:
            return (yield from self._counted_rep(node))
        # repetition
        child, lo, hi = node[1], node[2], node[3]
        s = cur = self.new()
        for _ in range(lo):
            cs, ce = yield child
            self.eps[cur].append(cs)
            cur = ce
        if hi is None:
            loop = self.new()
            self.eps[cur].append(loop)
            cs, ce = yield child
            self.eps[loop].append(cs)
            self.eps[ce].append(loop)
            return s, loop
        e = self.new()
        for _ in range(hi - lo):
            cs, ce = yield child
            self.eps[cur].append(e)
            self.eps[cur].append(cs)
            cur = ce
        self.eps[cur].append(e)
        return s, e

    def _automaton(self, node: tuple) -> tuple[int, int]:
        """A ("dfa", edges, accepting) node (regex.fusion): a state per automaton state, its
        (lo, hi, target) edges grouped by target, an epsilon move from each accepting one."""
        rows, accepting = node[1], node[2]
        states = [self.new() for _ in rows]
        e = self.new()
        for q, row in enumerate(rows):
            by_target: dict[int, list[tuple[int, int]]] = {}
            for lo, hi, t in row:
                by_target.setdefault(t, []).append((lo, hi))
            for t, ranges in by_target.items():
                self.edges[states[q]].append((tuple(ranges), states[t]))
            if accepting[q]:
                self.eps[states[q]].append(e)
        return states[0], e

    # -- counted repetitions -----------------------------------------------------------------
    def _counted_rep(self, node: tuple):
        """A repetition as one template fragment of its child; copies are created when reached."""
        lo, hi = node[2], node[3]
        s = self.new()
        e = self.new() if hi is not None else -1
        self._depth += 1
        ts, te = yield node[1]
        self._depth -= 1
        if hi is None:
            e = self.new()  # the loop state, where the unrolled NFA has it
        r = len(self._reps)
        self._reps.append((lo, hi, ts, te, e))
        self._glue.setdefault(te, []).append((_EXIT, r))
        if self._depth:  # inside another template: the glue depends on the copy, found on expansion
            self._glue.setdefault(s, []).append((_ENTRY, r))
            if hi is None:
                self._glue.setdefault(e, []).append((_LOOP, r))
        else:
            self.eps[s].extend(self._entry(r, 0))
            if hi is None:
                self.eps[e].append(self._copy_start(r, 0, lo))
        return s, e

    def _entry(self, r: int, frame: int) -> list[int]:
        """Epsilon targets of repetition r's start in `frame`."""
        lo, hi, _, _, e = self._reps[r]
        first = self._copy_start(r, frame, 0)
        return [self._id(frame, e), first] if lo == 0 and hi is not None else [first]

    def _exit(self, r: int, frame: int) -> list[int]:
        """Epsilon targets added at the template end in copy `frame` of repetition r (as unrolled)."""
        parent, _, c = self._frames[frame]
        lo, hi, _, _, e = self._reps[r]
        n = c + 1
        if n < lo:
            return [self._copy_start(r, parent, n)]
        if hi is None:
            return [self._id(parent, e)]
        if n < hi:
            return [self._id(parent, e), self._copy_start(r, parent, n)]
        return [self._id(parent, e)]

    def _copy_start(self, r: int, parent: int, c: int) -> int:
        key = (parent, r, c)
        frame = self._frame_id.get(key)
        if frame is None:
            frame = self._frame_id[key] = len(self._frames)
            self._frames.append(key)
        return self._id(frame, self._reps[r][2])

    def _id(self, frame: int, t: int) -> int:
        """The state of template state t in `frame` (t itself in frame 0), created unexpanded if new."""
        if not frame:
            return t
        key = (frame, t)
        found = self._state_id.get(key)
        if found is None:
            if self.virtual >= COPY_LIMIT:
                raise StateLimitError(
                    f"the regex's counted repetitions reached more than {COPY_LIMIT:,} copy states (each copy "
                    "is made when the automaton first reaches it); reduce the repetition counts, or make "
                    "the repeated part unable to match the empty string",
                    self.pattern,
                )
            found = len(self.eps)
            self._state_id[key] = found
            self._where[found] = key
            self.eps.append(None)
            self.edges.append([])
            self.virtual += 1
        return found

    def expand(self, s: int) -> list[int]:
        """Fill in the moves of copy state s (its template state's, carried into its frame, and
        the glue between copies); returns its epsilon targets."""
        frame, t = self._where.pop(s)
        here = self._id
        targets = [here(frame, u) for u in self.eps[t]]
        self.edges[s] = [(ranges, here(frame, u)) for ranges, u in self.edges[t]]
        for role, r in self._glue.get(t, ()):
            if role == _EXIT:
                targets.extend(self._exit(r, frame))
            elif role == _ENTRY:
                targets.extend(self._entry(r, frame))
            else:
                targets.append(self._copy_start(r, frame, self._reps[r][0]))
        self.eps[s] = targets
        return targets


def tree_key(node: tuple) -> tuple:
    """A flat hashable key of a tree (its nodes in preorder, with their arity), so equal trees
    get equal keys without nested tuples (whose hashing and comparison recurse)."""
    out: list = []
    stack = [node]
    while stack:
        n = stack.pop()
        kind = n[0]
        if kind in ("seq", "alt"):
            out.append((kind, len(n[1])))
            stack.extend(reversed(n[1]))
        elif kind == "rep":
            out.append((kind, n[2], n[3]))
            stack.append(n[1])
        elif kind == "look":
            out.append((kind, n[1]))
            stack.append(n[2])
        else:
            out.append(n)
    return tuple(out)


def epsilon_closure(nfa: NFA, states: Iterable[int]) -> frozenset[int]:
    """Every NFA state reachable from `states` through epsilon moves (copy states expanded on the way)."""
    seen = set(states)
    stack = list(seen)
    eps = nfa.eps
    while stack:
        s = stack.pop()
        targets = eps[s]
        if targets is None:
            targets = nfa.expand(s)
        for t in targets:
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return frozenset(seen)
