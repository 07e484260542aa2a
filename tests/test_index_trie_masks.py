"""TokenTrie's token-id bitmasks (index/trie.py): `ids_mask`, `key_ids`, `range_mask` and
`ranges_mask` against sets of token ids read straight off the (key, ids) lists the trie is built
from, on tries with one id per key and with several, dense and spread-out ids, so that every way
of setting bits (shifts, a byte per id, bitmap bits, block masks, the complement) is taken.
"""

from __future__ import annotations

import random

import pytest

from tokenguide.index.trie import TokenTrie


def _trie(seed: int, num_keys: int, vocab_size: int, many_ids: bool) -> tuple[TokenTrie, list[list[int]]]:
    rng = random.Random(seed)
    keys = sorted({bytes(rng.randrange(97, 101) for _ in range(rng.randrange(1, 7))) for _ in range(num_keys * 3)})
    keys = keys[:num_keys]
    free = rng.sample(range(vocab_size), vocab_size)
    ids = []
    for k in range(len(keys)):
        n = 1 if not many_ids else rng.choice((1, 1, 2, 3, 300 if k % 97 == 5 else 1))
        ids.append([free.pop() for _ in range(n)])
    return TokenTrie(keys, ids, vocab_size), ids


def _mask(ids) -> int:
    return sum(1 << t for t in set(ids))


CASES = [(1, 1200, 1300, False), (2, 1200, 4000, True), (3, 300, 70_000, False), (4, 1200, 9000, True)]


@pytest.mark.parametrize("seed, num_keys, vocab_size, many_ids", CASES,
                         ids=["dense one id", "dense many ids", "sparse", "mixed"])
def test_masks_equal_the_ids(seed, num_keys, vocab_size, many_ids):
    trie, ids = _trie(seed, num_keys, vocab_size, many_ids)
    n = trie.num_keys
    rng = random.Random(seed)
    everything = [t for key_ids in ids for t in key_ids]
    assert trie.ranges_mask([0], [n]) == _mask(everything)
    for _ in range(60):
        picked = sorted(rng.sample(range(n), rng.choice((0, 1, 5, 9, 60, n // 2, n - 3))))
        expected = _mask(t for k in picked for t in ids[k])
        assert sorted(trie.key_ids(picked)) == sorted(t for k in picked for t in ids[k])
        for count in (0, len(picked), 10 * len(picked) + 10):  # `count` only picks the way
            assert trie.ids_mask(list(trie.key_ids(picked)), count) == expected
        lo, hi = sorted(rng.sample(range(n + 1), 2))
        assert trie.range_mask(lo, hi) == _mask(t for k in range(lo, hi) for t in ids[k])
        bounds = sorted(rng.sample(range(n + 1), 2 * rng.randrange(1, 12)))
        los, his = bounds[0::2], bounds[1::2]
        if rng.random() < 0.3:  # adjacent ranges, merged by ranges_mask
            los, his = [0, his[0]], [his[0], n]
        assert trie.ranges_mask(los, his) == _mask(t for lo, hi in zip(los, his) for k in range(lo, hi) for t in ids[k])
