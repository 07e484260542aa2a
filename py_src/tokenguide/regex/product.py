"""Questions about two byte automata answered by walking their product.

`intersection` builds the minimal automaton of what several automata all accept (JSON Schema
strings under a format, a pattern and length bounds together), far smaller than determinizing the
lookaheads that say the same. `disjoint` decides whether two languages share no string, which is how the JSON Schema layer
proves that two oneOf branches' key patterns (json_schema/one_of.py) or two key languages of an
object (json_schema/keys.py) cannot both match. Kept here, in the automata layer, so every caller
shares one walk and one meaning of its bound.
"""

from __future__ import annotations

from ..errors import StateLimitError
from .dfa import ByteDFA, minimize

__all__ = ["disjoint", "intersection"]


def intersection(dfas: list[ByteDFA], max_states: int) -> ByteDFA:
    """The minimal DFA of the strings every automaton of `dfas` accepts, by a walk of the tuples
    of states reachable together; StateLimitError past `max_states` tuples (before minimizing)."""
    start = (0,) * len(dfas)
    if any(not d.num_states for d in dfas):
        return minimize([[-1] * 256], [False])
    ids = {start: 0}
    order = [start]
    table: list[list[int]] = []
    i = 0
    while i < len(order):
        tup = order[i]
        row = [-1] * 256
        for byte in dfas[0].live_bytes(tup[0]):
            nxt = []
            for d, q in zip(dfas, tup):
                t = d.next_state(q, byte)
                if t < 0:
                    break
                nxt.append(t)
            else:
                key = tuple(nxt)
                found = ids.get(key)
                if found is None:
                    if len(order) >= max_states:
                        raise StateLimitError(f"the intersection needs more than {max_states:,} states")
                    found = ids[key] = len(order)
                    order.append(key)
                row[byte] = found
        table.append(row)
        i += 1
    accept = [all(q in d.finals for d, q in zip(dfas, tup)) for tup in order]
    return minimize(table, accept)


def disjoint(a: ByteDFA, b: ByteDFA, max_pairs: int) -> bool:
    """True when no byte string is accepted by both `a` and `b`, proved by a search of the
    pairs of states reachable together from (0, 0) that finds no pair final in both.

    False when a common string exists, and also when the search would visit more than
    `max_pairs` pairs (then disjointness is not proved: callers treat the languages as
    possibly overlapping, which is always safe). An automaton without states accepts nothing,
    so it is disjoint from everything.
    """
    if not a.num_states or not b.num_states:
        return True
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        p, q = todo.pop()
        if p in a.finals and q in b.finals:
            return False
        for byte in a.live_bytes(p):
            q2 = b.next_state(q, byte)
            if q2 < 0:
                continue
            pair = (a.next_state(p, byte), q2)
            if pair not in seen:
                if len(seen) > max_pairs:
                    return False
                seen.add(pair)
                todo.append(pair)
    return True
