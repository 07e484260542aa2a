"""Seeded random JSON values for the JSON Schema paths' differential tests (against jsonschema):
values nesting a few levels over given leaves and keys, and chains of arrays/objects nested
deeper than the regex path's free-form cap."""

from __future__ import annotations

import random
from typing import Any, Sequence


def chain(rnd: random.Random, depth: int, leaves: Sequence[Any], keys: Sequence[str]) -> Any:
    """A leaf inside `depth` arrays/objects (each a one-item array or a one-member object)."""
    if depth == 0:
        return rnd.choice(leaves)
    if rnd.random() < 0.5:
        return [chain(rnd, depth - 1, leaves, keys)]
    key = rnd.choice(keys)
    return {key: chain(rnd, depth - 1, leaves, keys)}


def random_values(rnd: random.Random, n: int, leaves: Sequence[Any], keys: Sequence[str], *, leaf: float,
                  array: float, array_len: int, deep: float = 0.0, deep_levels: tuple[int, int] = (5, 7),
                  max_depth: int = 3) -> list:
    """`n` values: at each level a leaf (probability `leaf`, and always below `max_depth`), a
    `chain` of `deep_levels` (`deep`), an array of up to `array_len` items (`array`) or an
    object of up to 3 members."""

    def gen(depth: int) -> Any:
        r = rnd.random()
        if depth > max_depth or r < leaf:
            return rnd.choice(leaves)
        if r < leaf + deep:
            return chain(rnd, rnd.randint(*deep_levels), leaves, keys)
        if r < leaf + deep + array:
            return [gen(depth + 1) for _ in range(rnd.randint(0, array_len))]
        return {rnd.choice(keys): gen(depth + 1) for _ in range(rnd.randint(0, 3))}

    return [gen(0) for _ in range(n)]


def nesting(x: Any) -> int:
    """How many arrays/objects deep `x` nests (0 for a scalar)."""
    if isinstance(x, dict):
        return 1 + max(map(nesting, x.values()), default=0)
    if isinstance(x, list):
        return 1 + max(map(nesting, x), default=0)
    return 0
