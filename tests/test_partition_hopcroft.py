"""regex.partition.hopcroft against Moore's refinement (a plain fixed point, written here) on
random DFAs with a sink, dead states included (threads' lookahead automata have them)."""

from __future__ import annotations

import random

from tokenguide.regex.partition import hopcroft


def moore(trans: list[list[int]], finals: set[int]) -> list[int]:
    """The coarsest partition stable under every class that keeps the sink (last state) alone
    and finals apart from the rest, by refining signatures until their number stops growing."""
    sink = len(trans) - 1
    block = [2 if s == sink else int(s in finals) for s in range(len(trans))]
    while True:
        keys: dict[tuple, int] = {}
        new = [keys.setdefault((block[s], *(block[t] for t in trans[s])), len(keys)) for s in range(len(trans))]
        if len(keys) == len(set(block)):
            return new
        block = new


def canonical(blocks: list[int]) -> list[int]:
    """Block ids renumbered by first member: equal exactly when the partitions are."""
    seen: dict[int, int] = {}
    return [seen.setdefault(b, len(seen)) for b in blocks]


def random_dfa(rng: random.Random) -> tuple[list[list[int]], set[int], int]:
    n, k = rng.randint(1, 14), rng.randint(1, 4)
    sink = n
    density = rng.random()
    trans = [[rng.randrange(n) if rng.random() < density else sink for _ in range(k)] for _ in range(n)]
    for s in rng.sample(range(n), rng.randint(0, n // 3)):
        trans[s] = [sink] * k  # a dead state: nothing but the sink
    trans.append([sink] * k)
    finals = {s for s in range(n) if rng.random() < 0.3}
    return trans, finals, k


def test_hopcroft_matches_moore_on_random_dfas():
    rng = random.Random(4242)
    merged = 0
    for _ in range(3000):
        trans, finals, k = random_dfa(rng)
        got = canonical(hopcroft(trans, finals, k))
        assert got == canonical(moore(trans, finals)), (trans, finals)
        merged += len(set(got)) < len(trans)
    assert 300 < merged < 2900, merged  # both merging and already minimal automata were met


def test_hopcroft_keeps_the_sink_alone_and_calls_checkpoint():
    # states 0 and 1 are dead (all edges to the sink) but stay apart from it
    trans = [[3, 3], [3, 3], [0, 1], [3, 3]]
    assert canonical(hopcroft(trans, {2}, 2)) == [0, 0, 1, 2]
    calls = []
    chain = [[s + 1] for s in range(600)] + [[601], [601]]  # a chain: one split per state
    blocks = hopcroft(chain, {600}, 1, lambda: calls.append(1))
    assert len(set(blocks)) == 602 and calls
