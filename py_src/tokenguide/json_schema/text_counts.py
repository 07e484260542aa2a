"""Questions about how many texts a byte automaton accepts, asked by the uniqueItems check.

Automata here are item automata (`row(q)`: 256 targets, -1 dead; `is_final(q)`; `initial`;
every other state live, so a reachable cycle means infinitely many texts): whether at least
`n` distinct items exist, whether infinitely many do, and whether the texts left around marked
places (a byte standing for an inner array) are always infinitely many.
"""

from __future__ import annotations

from typing import Any

from ..errors import StateLimitError

__all__ = ["distinct_values_at_least", "infinitely_many", "suffixes_around_marks_infinite"]


def infinitely_many(dfa: Any, limit: int = 20_000) -> bool:
    """Does `dfa` accept infinitely many texts (reach a cycle)? False when it cannot tell within
    `limit` states."""
    step = getattr(dfa, "char_successors", None) or (lambda q: set(dfa.row(q)) - {-1})
    done: set[int] = set()
    try:
        stack = [(dfa.initial, iter(step(dfa.initial)))]
        on_path = {dfa.initial}
        while stack:  # depth first, stopping at the first edge back onto the path
            q, succ = stack[-1]
            t = next(succ, None)
            if t is None:
                stack.pop()
                on_path.discard(q)
                done.add(q)
            elif t in on_path:
                return True
            elif t not in done:
                if len(done) + len(on_path) >= limit:
                    return False
                on_path.add(t)
                stack.append((t, iter(step(t))))
    except StateLimitError:
        return False
    return False


def suffixes_around_marks_infinite(dfa: Any, mark: int, limit: int = 20_000) -> bool:
    """Is every state of `dfa` from which byte `mark` can still be read, and every state right
    after one, a state with infinitely many texts left? (A mark stands for an inner array whose
    own check the item automaton leaves out: then, wherever such an array is ahead or inside,
    a finite set of items seen can never use up the continuations.) False when `dfa` has more
    than `limit` states."""
    graph = _reachable(dfa, limit)
    if graph is None:
        return False
    step = getattr(dfa, "ascii_step", None) or (lambda q, b: dfa.row(q)[b])
    try:
        moves = {q: step(q, mark) for q in graph}
    except StateLimitError:
        return False
    before = [q for q, t in moves.items() if t >= 0]
    infinite = _reaching_cycles(graph)
    return {moves[q] for q in before} <= infinite and _reaching(graph, before) <= infinite


def _reachable(dfa: Any, limit: int) -> dict[int, set[int]] | None:
    """State -> its successors, for every state reachable from the initial one (between code
    points, for automata that step by characters); None past `limit`."""
    graph: dict[int, set[int]] = {}
    todo = [dfa.initial]
    try:
        while todo:
            q = todo.pop()
            if q in graph:
                continue
            if len(graph) >= limit:
                return None
            step = getattr(dfa, "char_successors", None)  # (lazy automata: by whole characters)
            graph[q] = step(q) if step is not None else set(dfa.row(q)) - {-1}
            todo.extend(t for t in graph[q] if t not in graph)
    except StateLimitError:
        return None
    return graph


def _reaching(graph: dict[int, set[int]], targets: Any) -> set[int]:
    """The states from which one of `targets` is reachable (themselves included)."""
    back: dict[int, list[int]] = {}
    for q, succ in graph.items():
        for t in succ:
            back.setdefault(t, []).append(q)
    seen = set(targets)
    todo = list(seen)
    while todo:
        for p in back.get(todo.pop(), ()):
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def _reaching_cycles(graph: dict[int, set[int]]) -> set[int]:
    """The states from which a cycle is reachable: peel off, again and again, states whose
    successors are all peeled (those reach no cycle); what is left reaches one."""
    out_left = {q: len(succ) for q, succ in graph.items()}
    back: dict[int, list[int]] = {}
    for q, succ in graph.items():
        for t in succ:
            back.setdefault(t, []).append(q)
    todo = [q for q, n in out_left.items() if n == 0]
    peeled = set(todo)
    while todo:
        for p in back.get(todo.pop(), ()):
            out_left[p] -= 1
            if out_left[p] == 0 and p not in peeled:
                peeled.add(p)
                todo.append(p)
    return set(graph) - peeled


def distinct_values_at_least(dfa: Any, n: int, limit: int = 200_000) -> bool:
    """Does byte automaton `dfa` (row/is_final, -1 dead, every other state live) accept at least
    `n` texts? True at once when it has a cycle; False when it cannot tell within `limit` steps.
    Depth first with a stack of its own (texts of thousands of bytes: no recursion limit)."""
    counts: dict[int, int] = {}  # state -> texts from it, at most n
    on_path: set[int] = set()
    steps = 0

    def opened(q: int) -> list | None:
        """A frame [state, (target, edges) pairs, next pair, total so far]; None past `limit`
        (the state then counts 0 texts, unmemoized)."""
        nonlocal steps
        steps += 1
        if steps > limit:
            return None
        on_path.add(q)
        row = dfa.row(q)
        return [q, [(t, row.count(t)) for t in set(row) - {-1}], 0, 1 if dfa.is_final(q) else 0]

    def add(frame: list, mult: int, texts: int) -> None:
        frame[3] = min(n, frame[3] + mult * texts)
        frame[2] += 1

    root = opened(dfa.initial)
    if root is None:
        return False
    stack = [root]
    while stack:
        frame = stack[-1]
        q, pairs, i, total = frame
        if total >= n or i == len(pairs):
            stack.pop()
            on_path.discard(q)
            counts[q] = total
            if stack:
                add(stack[-1], stack[-1][1][stack[-1][2]][1], total)
            continue
        t, mult = pairs[i]
        if t in counts:
            add(frame, mult, counts[t])
        elif t in on_path:
            add(frame, mult, n)  # a cycle of live states: infinitely many texts
        else:
            child = opened(t)
            if child is None:
                add(frame, mult, 0)
            else:
                stack.append(child)
    return counts[dfa.initial] >= n
