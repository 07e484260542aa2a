"""Regular expression to a minimal deterministic automaton over UTF-8 bytes.

Steps: the parsed tree (regex_ast) becomes a Thompson NFA over code-point sets; subset
construction over code-point intervals gives a DFA on characters; each character edge
is compiled to UTF-8 byte ranges (intermediate states are shared); the byte DFA is
trimmed, minimized with Hopcroft's algorithm over byte classes and numbered
canonically (breadth first, bytes in ascending order), so the result depends only on
the language, never on hash order.

Lookaheads and `\\Z` are resolved exactly during subset construction (`threads`). The
automaton accepts a byte string exactly when it is valid UTF-8 and its text is
matched by `re.fullmatch(pattern, text)`. Prefixes that stop inside a character lead
to live states, so partial UTF-8 tokens are handled by the same table.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from typing import Callable

from ..errors import StateLimitError
from . import parser as regex_ast
from .fusion import fuse_string_lookaheads
from .nfa import build_nfa, epsilon_closure
from .partition import atoms, hopcroft
from .threads import determinize_with_lookaheads

DEFAULT_MAX_STATES = 100_000

#: What building an automaton may take, in bytes, whatever `max_states` says: a state costs about
#: _STATE_BYTES (its byte row of 256 entries, its subset, bookkeeping; measured on exploding
#: regexes such as (a|b)*a(a|b){16}) plus 8 bytes per NFA state in its subset.
MEMORY_BUDGET = 1 << 30
_STATE_BYTES = 6_000
_ROW_BYTES = 2_200  # one byte-level state (a 256-entry row) while lowering to UTF-8
_COPY_BYTES = 400  # one copy state of a counted repetition (its moves, its keys; nfa.NFA.expand)


class ByteDFA:
    """A minimal, trimmed DFA over bytes: state 0 is initial, -1 means no transition.

    `classes` maps each byte to its equivalence class (bytes that every state treats
    alike); `table[state][cls]` is the next state.
    """

    __slots__ = ("classes", "table", "finals", "num_classes", "class_bytes")

    def __init__(self, classes: bytes, table: list[tuple[int, ...]], finals: frozenset[int]):
        self.classes = classes
        self.table = table
        self.finals = finals
        self.num_classes = max(classes) + 1
        members: list[list[int]] = [[] for _ in range(self.num_classes)]
        for b in range(256):
            members[classes[b]].append(b)
        self.class_bytes = [bytes(m) for m in members]

    initial = 0

    @property
    def num_states(self) -> int:
        return len(self.table)

    def next_state(self, state: int, byte: int) -> int:
        return self.table[state][self.classes[byte]]

    def walk(self, data: bytes, state: int = 0) -> int:
        """State after reading `data` from `state`, or -1 when it dies."""
        table = self.table
        for c in data.translate(self.classes):
            state = table[state][c]
            if state < 0:
                return -1
        return state

    def accepts(self, data: bytes) -> bool:
        state = self.walk(data)
        return state >= 0 and state in self.finals

    def live_bytes(self, state: int) -> bytes:
        """The bytes that lead somewhere from `state`."""
        row = self.table[state]
        return b"".join(self.class_bytes[c] for c in range(self.num_classes) if row[c] >= 0)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ByteDFA)
            and self.classes == other.classes
            and self.table == other.table
            and self.finals == other.finals
        )

    def __repr__(self) -> str:
        return f"ByteDFA(states={self.num_states}, classes={self.num_classes}, finals={len(self.finals)})"


def compile_regex(
    pattern: str,
    *,
    ascii: bool = False,
    max_states: int = DEFAULT_MAX_STATES,
    checkpoint: Callable[[], None] | None = None,
) -> ByteDFA:
    """Compile a Python regex (fullmatch semantics) to a minimal byte-level DFA."""
    tree = regex_ast.parse(pattern, ascii=ascii)
    return compile_tree(tree, max_states=max_states, checkpoint=checkpoint, pattern=pattern)


def compile_tree(
    tree: tuple,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    checkpoint: Callable[[], None] | None = None,
    pattern: str | None = None,
    fused: bool = False,
) -> ByteDFA:
    """Compile a parsed regex tree (`parser.parse`) to its minimal byte-level DFA (`fused`: its
    string lookaheads went through `fusion` already)."""
    char_edges, char_accept = char_automaton(tree, max_states=max_states, checkpoint=checkpoint, pattern=pattern,
                                             fused=fused)
    table, accept = _to_bytes(char_edges, char_accept, max_states, pattern, checkpoint)
    return _minimize(table, accept, checkpoint)


def char_automaton(
    tree: tuple,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    checkpoint: Callable[[], None] | None = None,
    pattern: str | None = None,
    fused: bool = False,
) -> tuple[list[list[tuple[int, int, int]]], list[bool]]:
    """The tree's character automaton before its UTF-8 spelling: per state its sorted, disjoint
    (lo, hi, target) code-point edges, and whether it accepts. State 0 is initial; all states are
    reachable, merged where equivalent, but not trimmed of dead ones. Lookaheads over JSON
    strings are fused first (module `fusion`) unless `fused` says that was done."""
    if not fused:
        tree = fused_tree(tree, max_states=max_states, checkpoint=checkpoint)
    nfa, start, end = build_nfa(tree, counted=not regex_ast.has_lookaround(tree), pattern=pattern)
    if nfa.looks or nfa.end_edges:
        moves, accept, atom_intervals = determinize_with_lookaheads(
            nfa, start, end, max_states, checkpoint, pattern, MEMORY_BUDGET
        )
        char_edges, char_accept = _merge_char_states(moves, accept, atom_intervals, checkpoint)
    else:
        char_edges, char_accept = _determinize(nfa, start, end, max_states, checkpoint, pattern)
    return char_edges, char_accept


def fused_tree(tree: tuple, *, max_states: int = DEFAULT_MAX_STATES,
               checkpoint: Callable[[], None] | None = None) -> tuple:
    """`tree` with its lookaheads over JSON strings fused into automata (module `fusion`, the
    sides' character automata built here); compile it with `fused=True`."""
    return fuse_string_lookaheads(
        tree, lambda sub: char_automaton(sub, max_states=max_states, checkpoint=checkpoint, fused=True), max_states)


def _tick(checkpoint: Callable[[], None] | None, i: int) -> None:
    """Call `checkpoint` (progress, cancellation) every 256 steps of a long loop."""
    if checkpoint is not None and not i & 255:
        checkpoint()


def _memory_error(what: str, states: int, pattern: str | None) -> StateLimitError:
    return StateLimitError(
        f"the automaton would need more than {MEMORY_BUDGET >> 20:,} MiB of memory while {what} "
        f"({states:,} states so far, and more keep coming); simplify the regex (a bounded repetition "
        "after an unbounded one multiplies states)",
        pattern,
    )


def _determinize(nfa, start, end, max_states, checkpoint, pattern):
    """Subset construction over atoms; returns per-state (lo, hi, target) code-point edges."""
    atoms_of, atom_intervals = atoms(nfa)
    first = epsilon_closure(nfa, (start,))
    ids = {first: 0}
    order = [first]
    atom_moves: list[dict[int, int]] = []
    accept: list[bool] = []
    edges_of = nfa.edges
    closures: dict[frozenset[int], int] = {}
    cost = _STATE_BYTES + 8 * len(first)
    i = 0
    while i < len(order):
        current = order[i]
        i += 1
        if checkpoint is not None and i % 256 == 0:
            checkpoint()
        accept.append(end in current)
        buckets: dict[int, set[int]] = {}
        for s in current:
            for ranges, t in edges_of[s]:
                for atom in atoms_of[ranges]:
                    bucket = buckets.get(atom)
                    if bucket is None:
                        buckets[atom] = {t}
                    else:
                        bucket.add(t)
        moves: dict[int, int] = {}
        for atom, bucket in buckets.items():
            key = frozenset(bucket)
            target = closures.get(key)
            if target is None:
                state_set = epsilon_closure(nfa, key)
                target = ids.get(state_set)
                if target is None:
                    target = len(order)
                    if target >= max_states:
                        raise StateLimitError(
                            f"the automaton needs more than max_states={max_states:,} states; "
                            "simplify the regex or raise max_states",
                            pattern,
                        )
                    cost += _STATE_BYTES + 8 * len(state_set)
                    if cost + _COPY_BYTES * nfa.virtual > MEMORY_BUDGET:
                        raise _memory_error("determinizing", len(order), pattern)
                    ids[state_set] = target
                    order.append(state_set)
                closures[key] = target
            moves[atom] = target
        atom_moves.append(moves)
    return _merge_char_states(atom_moves, accept, atom_intervals, checkpoint)


def _merge_char_states(atom_moves, accept, atom_intervals, checkpoint=None):
    """Minimize the character DFA over atoms, then spell each edge as code-point intervals.

    Merging equivalent states here, where there are few atoms, saves expanding them
    all into UTF-8 bytes; the byte automaton is minimized again at the end.
    """
    n = len(atom_moves)
    k = len(atom_intervals)
    sink = n
    trans = [[moves.get(a, sink) for a in range(k)] for moves in atom_moves]
    trans.append([sink] * k)
    blocks = hopcroft(trans, {s for s in range(n) if accept[s]}, k, checkpoint)
    number: dict[int, int] = {}
    first_of: list[int] = []
    for s in range(n):  # number blocks by first member, so the start state stays 0
        if blocks[s] not in number:
            number[blocks[s]] = len(first_of)
            first_of.append(s)
    char_edges: list[list[tuple[int, int, int]]] = []
    for s in first_of:
        pieces = sorted(
            (lo, hi, number[blocks[t]]) for atom, t in atom_moves[s].items() for lo, hi in atom_intervals[atom]
        )
        out: list[tuple[int, int, int]] = []
        for lo, hi, target in pieces:
            if out and out[-1][2] == target and out[-1][1] + 1 == lo:
                out[-1] = (out[-1][0], hi, target)
            else:
                out.append((lo, hi, target))
        char_edges.append(out)
    return char_edges, [accept[s] for s in first_of]


# -- characters to UTF-8 bytes ------------------------------------------------------


def _to_bytes(char_edges, char_accept, max_states, pattern, checkpoint=None):
    """Expand character edges into byte transitions; returns dense rows and acceptance.

    The code points that share a UTF-8 prefix form one aligned block, so after a lead
    byte (and each continuation byte) the automaton only needs to know how the rest of
    the block maps to targets. Intermediate states are keyed by that map, taken relative
    to the block's start, so equal maps share one state; a block that one edge covers
    whole is a single key, and only ragged blocks are split further.
    """
    n_chars = len(char_edges)
    table: list[list[int]] = [[-1] * 256 for _ in range(n_chars)]
    accept = list(char_accept)
    memo: dict[tuple, int] = {}
    limit = max_states * 4
    memory_limit = MEMORY_BUDGET // _ROW_BYTES

    def block_state(rem: int, pieces: tuple) -> int:
        """State after a prefix whose block (64**rem code points) maps as `pieces` (relative)."""
        key = (rem, pieces)
        state = memo.get(key)
        if state is not None:
            return state
        state = len(table)
        if state >= limit:
            raise StateLimitError(
                f"the byte automaton needs more than {limit:,} states; simplify the regex", pattern
            )
        if state >= memory_limit:
            raise _memory_error("spelling characters as UTF-8 bytes", state, pattern)
        memo[key] = state
        row = [-1] * 256
        table.append(row)
        accept.append(False)
        if rem == 1:
            for lo, hi, t in pieces:
                row[0x80 + lo : 0x81 + hi] = [t] * (hi - lo + 1)
            return state
        sub = 64 ** (rem - 1)
        j = 0
        n = len(pieces)
        for c in range(64):
            base = c * sub
            end = base + sub - 1
            while j < n and pieces[j][1] < base:
                j += 1
            k = j
            part = []
            while k < n and pieces[k][0] <= end:
                lo, hi, t = pieces[k]
                part.append((max(lo, base) - base, min(hi, end) - base, t))
                k += 1
            if part:
                row[0x80 + c] = block_state(rem - 1, tuple(part))
        return state

    if n_chars > memory_limit:
        raise _memory_error("spelling characters as UTF-8 bytes", n_chars, pattern)
    for state, edges in enumerate(char_edges):
        _tick(checkpoint, state)
        row = table[state]
        los = [lo for lo, _, _ in edges]
        for lo, hi, target in edges:
            if lo < 0x80:
                top = min(hi, 0x7F)
                row[lo : top + 1] = [target] * (top - lo + 1)
        if not edges or edges[-1][1] < 0x80:
            continue
        for lead in range(0xC2, 0xF5):
            if lead < 0xE0:
                base, rem, valid_lo = (lead & 0x1F) << 6, 1, 0x80
            elif lead < 0xF0:
                base, rem, valid_lo = (lead & 0x0F) << 12, 2, 0x800
            else:
                base, rem, valid_lo = (lead & 0x07) << 18, 3, 0x10000
            end = min(base + 64**rem - 1, 0x10FFFF)
            start = max(base, valid_lo)
            if start > end:
                continue
            i = max(0, bisect_left(los, start) - 1)
            part = []
            while i < len(edges) and edges[i][0] <= end:
                lo, hi, t = edges[i]
                if hi >= start:
                    part.append((max(lo, start) - base, min(hi, end) - base, t))
                i += 1
            if part:
                row[lead] = block_state(rem, tuple(part))
    return table, accept


# -- trimming, minimization, canonical numbering ---------------------------------------


def _byte_classes(table: list) -> tuple[bytes, list[int]]:
    """Group bytes that every state treats alike; returns (byte -> class, representative bytes)."""
    columns = list(zip(*table)) if table else [()] * 256
    seen: dict[tuple, int] = {}
    classes = bytearray(256)
    reps: list[int] = []
    for b in range(256):
        col = columns[b]
        c = seen.get(col)
        if c is None:
            c = seen[col] = len(reps)
            reps.append(b)
        classes[b] = c
    return bytes(classes), reps


def _minimize(table: list[list[int]], accept: list[bool], checkpoint=None) -> ByteDFA:
    if checkpoint is not None:
        checkpoint()
    classes, reps = _byte_classes(table)
    if checkpoint is not None:
        checkpoint()
    rows = [[row[b] for b in reps] for row in table]
    n = len(rows)
    k = len(reps)
    # Trim: keep states that are reachable from 0 and can reach an accepting state.
    reach = [False] * n
    reach[0] = True
    stack = [0]
    while stack:
        for t in rows[stack.pop()]:
            if t >= 0 and not reach[t]:
                reach[t] = True
                stack.append(t)
    reverse: list[list[int]] = [[] for _ in range(n)]
    for s in range(n):
        if reach[s]:
            for t in set(rows[s]):
                if t >= 0:
                    reverse[t].append(s)
    alive = [False] * n
    stack = [s for s in range(n) if reach[s] and accept[s]]
    for s in stack:
        alive[s] = True
    while stack:
        for p in reverse[stack.pop()]:
            if not alive[p]:
                alive[p] = True
                stack.append(p)
    if not alive[0]:
        # The empty language: a single non-accepting state with no transitions.
        return ByteDFA(bytes(256), [(-1,)], frozenset())
    keep = [s for s in range(n) if alive[s]]
    new_id = {s: i for i, s in enumerate(keep)}
    sink = len(keep)
    trans = [[new_id.get(t, sink) if t >= 0 else sink for t in rows[s]] for s in keep]
    trans.append([sink] * k)
    finals = {new_id[s] for s in keep if accept[s]}
    blocks = hopcroft(trans, finals, k, checkpoint)
    # Canonical numbering: breadth first from the initial block, bytes in ascending order. Byte
    # classes are numbered by their first byte, so visiting classes in order meets each target
    # at the same first byte as visiting all 256 bytes would.
    block_of = blocks
    sink_block = block_of[sink]
    start_block = block_of[0]
    number = {start_block: 0}
    queue = deque([0])
    repr_state: dict[int, int] = {}
    for s in range(len(trans)):
        repr_state.setdefault(block_of[s], s)
    out_rows: list[list[int]] = []  # over the classes of `classes`
    block_list = [start_block]
    while queue:
        bid = queue.popleft()
        _tick(checkpoint, bid)
        row = []
        for t in trans[repr_state[block_list[bid]]]:
            tb = block_of[t]
            if tb == sink_block:
                row.append(-1)
                continue
            num = number.get(tb)
            if num is None:
                num = number[tb] = len(block_list)
                block_list.append(tb)
                queue.append(num)
            row.append(num)
        out_rows.append(row)
    final_blocks = {block_of[s] for s in finals}
    final_ids = frozenset(number[bk] for bk in final_blocks if bk in number)
    # The minimal automaton's classes: old classes whose columns agree, numbered by first byte.
    seen: dict[tuple, int] = {}
    merged: list[int] = []
    kept: list[int] = []
    for c, column in enumerate(zip(*out_rows)):
        i = seen.get(column)
        if i is None:
            i = seen[column] = len(kept)
            kept.append(c)
        merged.append(i)
    new_classes = bytes(merged[c] for c in classes)
    table_out = [tuple(row[c] for c in kept) for row in out_rows]
    return ByteDFA(new_classes, table_out, final_ids)
