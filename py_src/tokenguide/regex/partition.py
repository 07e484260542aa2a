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

    The last state is the sink, a block of its own from the start, and never needs to serve as
    a splitter: only real edges are ever scanned. The other states start grouped by finality and
    by the classes on which they go to the sink: states that differ there are never equivalent
    (the sink's block stays alone), so the result is the same coarsest partition with far fewer
    splits. Blocks of one state are never touched again.
    """
    n = len(trans)
    sink = n - 1
    preds: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for s in range(sink):
        for c, t in enumerate(trans[s]):
            if t != sink:
                preds[t].append((c, s))
    first: dict[tuple, int] = {}
    blocks: list[set[int]] = []
    block_of = [0] * n
    for s in range(sink):
        key = (s in finals, *[c for c, t in enumerate(trans[s]) if t != sink])
        b = first.get(key)
        if b is None:
            b = first[key] = len(blocks)
            blocks.append(set())
        blocks[b].add(s)
        block_of[s] = b
    work_list = list(range(len(blocks)))
    work = [True] * len(blocks)
    block_of[sink] = len(blocks)
    blocks.append({sink})
    work.append(False)
    steps = 0
    while work_list:
        steps += 1
        if checkpoint is not None and not steps & 255:
            checkpoint()
        a = work_list.pop()
        work[a] = False
        by_class: dict[int, list[int]] = {}
        for t in blocks[a]:
            for c, s in preds[t]:
                hit = by_class.get(c)
                if hit is None:
                    by_class[c] = [s]
                else:
                    hit.append(s)
        for hit in by_class.values():
            touched: dict[int, list[int]] = {}
            for s in hit:
                y = block_of[s]
                if len(blocks[y]) > 1:
                    members = touched.get(y)
                    if members is None:
                        touched[y] = [s]
                    else:
                        members.append(s)
            for y, members in touched.items():
                block = blocks[y]
                if len(members) == len(block):  # a state has one target per class: no repeats
                    continue
                moved = set(members)
                block -= moved
                new = len(blocks)
                blocks.append(moved)
                for s in members:
                    block_of[s] = new
                if work[y]:
                    work.append(True)
                    work_list.append(new)
                else:
                    smaller = y if len(block) <= len(moved) else new
                    work.append(smaller == new)
                    work[smaller] = True
                    work_list.append(smaller)
    return block_of
