"""Subset construction with lookahead obligations: exact `re.fullmatch` for `(?=X)`, `(?!X)`, `\\Z`.

`(?=X)` holds at a position when X matches some prefix of the rest of the text, that is when
the rest is in X·(any text). So every lookahead body, followed by any text, is determinized
first (innermost first, over the same code-point atoms) into a minimal `LookDFA`. A state of
the automaton being built is then a set of threads (NFA state, obligations), an obligation
being the state a lookahead's DFA has reached on the text read since the thread spawned it:

- a positive obligation is dropped once its DFA accepts every continuation, and kills its
  thread when its DFA dies; a negative one kills its thread when its DFA accepts every
  continuation, and is dropped when it dies;
- at the end of the text a thread accepts when its NFA state reaches the end (through `\\Z`
  edges and lookaheads that hold on the empty rest), every positive obligation's DFA state is
  final and no negative one's is.

Obligations only ever constrain, so of two threads on one NFA state whose obligation sets are
nested, the one with more obligations is dropped (it accepts a subset). A thread set keeps only
the NFA states that read characters, plus a mark for "the end is reachable on the empty rest",
and equal lookaheads share one body automaton. The result is an ordinary deterministic
automaton over atoms, minimized and lowered to bytes by `dfa`.
"""

from __future__ import annotations

from typing import Callable

from ..errors import StateLimitError
from .nfa import NFA, epsilon_closure
from .partition import atoms, hopcroft

__all__ = ["LookDFA", "determinize_with_lookaheads"]

_SHIFT = 32
_LOW = (1 << _SHIFT) - 1
_STATE_BYTES = 6_000  # as dfa's estimate per subset state, plus 16 bytes per thread
_KILL = None
_NONE: frozenset = frozenset()  # no obligations
_AT_END = -1  # in a thread set's NFA states: some state there reaches the end on the empty rest
_Groups = frozenset  # of (obligations frozenset[int], NFA states frozenset[int])


class LookDFA:
    """A lookahead body (followed by any text) as a trimmed, minimized DFA over atoms.

    `table[d][atom]` is the next state, -1 when the body can no longer match; `universal[d]`
    says that every continuation is accepted from d. `initial` is -1 for an empty language.
    """

    __slots__ = ("positive", "table", "finals", "universal", "initial")

    def __init__(self, positive: bool, table: list[list[int]], finals: list[bool], initial: int):
        self.positive = positive
        self.table = table
        self.finals = finals
        self.initial = initial
        self.universal = _universal(table, finals)


def _universal(table: list[list[int]], finals: list[bool]) -> list[bool]:
    """States from which every atom sequence is accepted (none reaches a dead or non-final state)."""
    n = len(table)
    back: list[list[int]] = [[] for _ in range(n)]
    bad = [not finals[d] for d in range(n)]
    for d, row in enumerate(table):
        for t in row:
            if t < 0:
                bad[d] = True
            else:
                back[t].append(d)
    stack = [d for d in range(n) if bad[d]]
    while stack:
        for p in back[stack.pop()]:
            if not bad[p]:
                bad[p] = True
                stack.append(p)
    return [not b for b in bad]


def determinize_with_lookaheads(
    nfa: NFA,
    start: int,
    end: int,
    max_states: int,
    checkpoint: Callable[[], None] | None,
    pattern: str | None,
    memory_budget: int,
) -> tuple[list[dict[int, int]], list[bool], list[list[tuple[int, int]]]]:
    """Atom moves and acceptance of the deterministic automaton of `nfa` (lookaheads resolved),
    and the atoms' code-point intervals (as `dfa`'s subset construction returns them)."""
    atoms_of, atom_intervals = atoms(nfa)
    builder = _Builder(nfa, atoms_of, len(atom_intervals), max_states, checkpoint, pattern, memory_budget)
    builder.can_end = _can_end(nfa, end)
    for positive, body_start, body_end in nfa.looks:
        moves, accept = builder.run(body_start)
        builder.looks.append(_look_dfa(positive, moves, accept, len(atom_intervals), checkpoint))
    moves, accept = builder.run(start)
    return moves, accept, atom_intervals


def _can_end(nfa: NFA, end: int) -> list[bool]:
    """NFA states that reach the end of their fragment with nothing left to read: over epsilon and
    end edges, and look edges whose lookahead holds on the empty rest (innermost decided first)."""
    n = len(nfa.eps)
    back: list[list[int]] = [[] for _ in range(n)]
    for q, targets in enumerate(nfa.eps):
        for t in targets:
            back[t].append(q)
    for q, targets in nfa.end_edges.items():
        for t in targets:
            back[t].append(q)
    pending: list[list[tuple[int, int]]] = [[] for _ in nfa.looks]
    for q, edges in nfa.look_edges.items():
        for k, t in edges:
            pending[k].append((q, t))
    alive = [False] * n

    def spread(stack: list[int]) -> None:
        while stack:
            for p in back[stack.pop()]:
                if not alive[p]:
                    alive[p] = True
                    stack.append(p)

    ends = [end] + [body_end for _, _, body_end in nfa.looks]
    for e in ends:
        alive[e] = True
    spread(list(ends))
    for k, (positive, body_start, _) in enumerate(nfa.looks):
        if alive[body_start] != positive:
            continue  # lookahead k fails on the empty rest
        stack = []
        for q, t in pending[k]:
            back[t].append(q)
            if alive[t] and not alive[q]:
                alive[q] = True
                stack.append(q)
        spread(stack)
    return alive


def _look_dfa(positive: bool, moves: list[dict[int, int]], accept: list[bool], n_atoms: int, checkpoint) -> LookDFA:
    """Trim (states that cannot accept become -1) and minimize the body's automaton over atoms."""
    n = len(moves)
    back: list[list[int]] = [[] for _ in range(n)]
    for s, m in enumerate(moves):
        for t in m.values():
            back[t].append(s)
    alive = list(accept)
    stack = [s for s in range(n) if accept[s]]
    while stack:
        for p in back[stack.pop()]:
            if not alive[p]:
                alive[p] = True
                stack.append(p)
    if not alive[0]:
        return LookDFA(positive, [], [], -1)
    sink = n
    trans = []
    for s, m in enumerate(moves):
        row = [sink] * n_atoms
        if alive[s]:
            for a, t in m.items():
                if alive[t]:
                    row[a] = t
        trans.append(row)
    trans.append([sink] * n_atoms)
    blocks = hopcroft(trans, {s for s in range(n) if accept[s] and alive[s]}, n_atoms, checkpoint)
    number: dict[int, int] = {}
    first_of: list[int] = []
    for s in range(n):  # blocks numbered by first live member: the initial state stays 0
        if alive[s] and blocks[s] not in number:
            number[blocks[s]] = len(first_of)
            first_of.append(s)
    table = [[-1 if t == sink else number[blocks[t]] for t in trans[s]] for s in first_of]
    return LookDFA(positive, table, [bool(accept[s]) for s in first_of], 0)


class _Builder:
    """Subset construction over threads for one fragment of the NFA at a time (bodies first)."""

    def __init__(self, nfa, atoms_of, n_atoms, max_states, checkpoint, pattern, memory_budget):
        self.nfa = nfa
        self.atoms_of = atoms_of
        self.n_atoms = n_atoms
        self.max_states = max_states
        self.checkpoint = checkpoint
        self.pattern = pattern
        self.memory_budget = memory_budget
        self.cost = 0
        self.looks: list[LookDFA] = []
        self.can_end: list[bool] = []  # NFA state -> reaches its fragment's end on the empty rest
        self.look_sources = frozenset(nfa.look_edges)
        self.has_char = [bool(edges) for edges in nfa.edges]
        self.step_cache: dict[tuple[frozenset, int], frozenset | None] = {}
        self.closures: dict[frozenset[int], tuple] = {}  # atom targets -> closure groups
        self.moves_cache: dict[tuple[frozenset, frozenset[int]], tuple[bool, dict[int, tuple]]] = {}
        self.atom_edges: dict[int, list[tuple[int, int]]] = {_AT_END: []}

    # -- obligations -------------------------------------------------------------------------
    def spawn(self, k: int):
        """Obligations a thread takes on at a look edge: frozenset() when it holds already, None when it fails."""
        look = self.looks[k]
        d = look.initial
        if d < 0:
            return _KILL if look.positive else frozenset()
        if look.universal[d]:
            return frozenset() if look.positive else _KILL
        return frozenset(((k << _SHIFT) | d,))

    def step(self, obligations: frozenset, atom: int):
        """The obligations after one atom, None when one of them kills the thread."""
        key = (obligations, atom)
        found = self.step_cache.get(key, False)
        if found is not False:
            return found
        out = []
        result = None
        for ob in obligations:
            look = self.looks[ob >> _SHIFT]
            d = look.table[ob & _LOW][atom]
            if look.positive:
                if d < 0:
                    break
                if look.universal[d]:
                    continue
            else:
                if d < 0:
                    continue
                if look.universal[d]:
                    break
            out.append((ob & ~_LOW) | d)
        else:
            result = frozenset(out)
        self.step_cache[key] = result
        return result

    def ok_at_end(self, obligations: frozenset) -> bool:
        for ob in obligations:
            look = self.looks[ob >> _SHIFT]
            if look.finals[ob & _LOW] != look.positive:
                return False
        return True

    # -- closures ----------------------------------------------------------------------------
    def closure(self, states) -> tuple[tuple[frozenset, frozenset[int]], ...]:
        """Threads reached from `states` (no obligations yet) over epsilon and look edges, as
        (obligations, NFA states) groups, each NFA state under its minimal obligation sets only."""
        plain = epsilon_closure(self.nfa, states)
        if self.look_sources.isdisjoint(plain):
            kernel = self.kernel(plain)
            return ((_NONE, kernel),) if kernel else ()
        eps = self.nfa.eps
        look_edges = self.nfa.look_edges
        seen: dict[int, list[frozenset]] = {}
        stack = [(q, _NONE) for q in states]
        while stack:
            q, obligations = stack.pop()
            known = seen.get(q)
            if known is None:
                seen[q] = [obligations]
            elif any(o <= obligations for o in known):
                continue
            else:
                known[:] = [o for o in known if not obligations <= o]
                known.append(obligations)
            for t in eps[q]:
                stack.append((t, obligations))
            for k, t in look_edges.get(q, ()):
                extra = self.spawn(k)
                if extra is not _KILL:
                    stack.append((t, obligations | extra))
        groups: dict[frozenset, set[int]] = {}
        has_char, can_end = self.has_char, self.can_end
        for q, sets in seen.items():
            if has_char[q] or can_end[q]:
                for o in sets:
                    group = groups.setdefault(o, set())
                    if has_char[q]:
                        group.add(q)
                    if can_end[q]:
                        group.add(_AT_END)
        return tuple((o, frozenset(qs)) for o, qs in groups.items())

    def kernel(self, states: frozenset[int]) -> frozenset[int]:
        """What of a closed set decides its future: the states with character edges, and
        _AT_END when one of them reaches the end on the empty rest."""
        has_char, can_end = self.has_char, self.can_end
        kernel = [q for q in states if has_char[q]]
        if any(can_end[q] for q in states):
            kernel.append(_AT_END)
        return frozenset(kernel)

    # -- subset construction -----------------------------------------------------------------
    def group_moves(self, obligations: frozenset, states: frozenset[int]) -> tuple[bool, dict[int, tuple]]:
        """Whether the threads (obligations, states) accept at the end of the text, and the
        (obligations, states) pieces each atom leads them to; cached, as groups recur across states."""
        key = (obligations, states)
        found = self.moves_cache.get(key)
        if found is not None:
            return found
        final = _AT_END in states and (not obligations or self.ok_at_end(obligations))
        atom_edges = self.atom_edges
        buckets: dict[int, set[int]] = {}
        for s in states:
            edges = atom_edges.get(s)
            if edges is None:
                edges = atom_edges[s] = [(a, t) for ranges, t in self.nfa.edges[s] for a in self.atoms_of[ranges]]
            for atom, t in edges:
                bucket = buckets.get(atom)
                if bucket is None:
                    buckets[atom] = {t}
                else:
                    bucket.add(t)
        closures = self.closures
        moves: dict[int, tuple] = {}
        for atom, bucket in buckets.items():
            after = self.step(obligations, atom) if obligations else obligations
            if after is None:
                continue
            target = frozenset(bucket)
            reached = closures.get(target)
            if reached is None:
                reached = closures[target] = self.closure(target)
            if not reached:
                continue
            moves[atom] = tuple((after | extra if extra else after, qs) for extra, qs in reached) if after else reached
        found = self.moves_cache[key] = (final, moves)
        self.cost += 64 * len(moves)
        return found

    def run(self, start: int) -> tuple[list[dict[int, int]], list[bool]]:
        first = _normalize(self.closure((start,)))
        ids = {first: 0}
        order = [first]
        atom_moves: list[dict[int, int]] = []
        accept: list[bool] = []
        group_moves = self.group_moves
        i = 0
        while i < len(order):
            current = order[i]
            i += 1
            if self.checkpoint is not None and not i & 255:
                self.checkpoint()
            final = False
            targets: dict[int, tuple | list] = {}
            if len(current) == 1:
                (group,) = current
                final, targets = group_moves(*group)
            else:
                for group in current:
                    final_here, moves = group_moves(*group)
                    final = final or final_here
                    for atom, pieces in moves.items():
                        have = targets.get(atom)
                        if have is None:
                            targets[atom] = pieces
                        elif type(have) is list:
                            have.extend(pieces)
                        else:
                            targets[atom] = [*have, *pieces]
            accept.append(final)
            moves_out: dict[int, int] = {}
            for atom, pieces in targets.items():
                state = _normalize(pieces)
                if not state:
                    continue
                target = ids.get(state)
                if target is None:
                    target = self.add(state, ids, order)
                moves_out[atom] = target
            atom_moves.append(moves_out)
        return atom_moves, accept

    def add(self, state: _Groups, ids: dict, order: list) -> int:
        target = len(order)
        if target >= self.max_states:
            raise StateLimitError(
                f"the automaton needs more than max_states={self.max_states:,} states "
                "(lookaheads multiply the states of their bodies and of what follows); "
                "simplify the regex or raise max_states",
                self.pattern,
            )
        self.cost += _STATE_BYTES + sum(16 * len(qs) + 8 * len(o) for o, qs in state)
        if self.cost > self.memory_budget:
            raise StateLimitError(
                f"the automaton would need more than {self.memory_budget >> 20:,} MiB of memory while "
                f"determinizing lookaheads ({target:,} states so far); simplify the regex",
                self.pattern,
            )
        ids[state] = target
        order.append(state)
        return target


def _normalize(pieces) -> _Groups:
    """The canonical thread set of (obligations, NFA states) pieces: states merged per obligation
    set, and a thread dropped when a smaller obligation set holds its NFA state too."""
    if len(pieces) == 1:
        return frozenset(pieces)
    groups: dict[frozenset, frozenset[int]] = {}
    for o, qs in pieces:
        have = groups.get(o)
        groups[o] = qs if have is None else have | qs
    if len(groups) > 1 and len({len(o) for o in groups}) > 1:  # only then can one set hold another
        keys = sorted(groups, key=len)
        for j, small in enumerate(keys):
            qs = groups[small]
            if not qs:
                continue
            for big in keys[j + 1 :]:
                if len(big) > len(small) and small <= big and not qs.isdisjoint(groups[big]):
                    groups[big] = groups[big] - qs
        return frozenset(item for item in groups.items() if item[1])
    return frozenset(groups.items())
