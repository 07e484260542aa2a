"""Questions about two byte automata answered by walking their product.

`disjoint` decides whether two languages share no string, which is how the JSON Schema layer
proves that two oneOf branches' key patterns (json_schema/one_of.py) or two key languages of an
object (json_schema/keys.py) cannot both match. Kept here, in the automata layer, so every caller
shares one walk and one meaning of its bound.
"""

from __future__ import annotations

from .dfa import ByteDFA

__all__ = ["disjoint"]


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
