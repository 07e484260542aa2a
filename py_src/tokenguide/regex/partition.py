"""Partitions shared by the automaton builders: code points into atoms, states into Hopcroft blocks."""

from __future__ import annotations

from .nfa import NFA

__all__ = ["atoms", "hopcroft"]


def atoms(nfa: NFA) -> tuple[dict[tuple, list[int]], list[list[tuple[int, int]]]]:
    """Split code points into atoms: maximal groups that every set of the NFA treats alike.

    Returns, for each distinct set, the atoms it is made of, and each atom's intervals.
    Subset construction then works on a handful of atoms instead of thousands of ranges.
    """
    sets = list({ranges for edges in nfa.edges for ranges, _ in edges})
    events: list[tuple[int, int]] = []
    for index, ranges in enumerate(sets):
        for lo, hi in ranges:
            events.append((lo, index))
            events.append((hi + 1, index))
    events.sort()
    active: set[int] = set()
    atom_of: dict[frozenset[int], int] = {}
    atom_intervals: list[list[tuple[int, int]]] = []
    members: list[list[int]] = [[] for _ in sets]
    k = 0
    while k < len(events):
        point = events[k][0]
        while k < len(events) and events[k][0] == point:
            active ^= {events[k][1]}
            k += 1
        if not active or k >= len(events):
            continue
        nxt = events[k][0]
        key = frozenset(active)
        atom = atom_of.get(key)
        if atom is None:
            atom = atom_of[key] = len(atom_intervals)
            atom_intervals.append([])
            for index in key:
                members[index].append(atom)
        atom_intervals[atom].append((point, nxt - 1))
    return {ranges: members[i] for i, ranges in enumerate(sets)}, atom_intervals


def hopcroft(trans: list[list[int]], finals: set[int], k: int, checkpoint=None) -> list[int]:
    """Partition refinement (Hopcroft); returns the block id of every state.

    The last state is the sink. Every other state can reach acceptance, so the sink is
    a block of its own from the start and never needs to serve as a splitter: only
    real edges are ever scanned, which keeps the work proportional to them.
    """
    n = len(trans)
    sink = n - 1
    preds: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for s in range(sink):
        row = trans[s]
        for c in range(k):
            t = row[c]
            if t != sink:
                preds[t].append((c, s))
    initial = [
        [s for s in range(sink) if s in finals],
        [s for s in range(sink) if s not in finals],
    ]
    blocks: list[set[int]] = [set(b) for b in initial if b]
    blocks.append({sink})
    block_of = [0] * n
    for i, b in enumerate(blocks):
        for s in b:
            block_of[s] = i
    work = set(range(len(blocks) - 1))
    work_list = sorted(work)
    steps = 0
    while work_list:
        steps += 1
        if checkpoint is not None and not steps & 255:
            checkpoint()
        a = work_list.pop()
        work.discard(a)
        by_class: dict[int, list[int]] = {}
        for t in blocks[a]:
            for c, s in preds[t]:
                by_class.setdefault(c, []).append(s)
        for c in sorted(by_class):
            x: dict[int, list[int]] = {}
            for s in by_class[c]:
                x.setdefault(block_of[s], []).append(s)
            for y, members in x.items():
                block = blocks[y]
                moved = set(members)
                if len(moved) == len(block):
                    continue
                block -= moved
                new = len(blocks)
                blocks.append(moved)
                for s in moved:
                    block_of[s] = new
                if y in work:
                    work.add(new)
                    work_list.append(new)
                else:
                    smaller = y if len(block) <= len(moved) else new
                    work.add(smaller)
                    work_list.append(smaller)
    return block_of
