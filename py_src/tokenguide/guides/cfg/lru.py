"""`LRU`: the small thread-safe least-recently-used map behind the CFG guides' shared caches.

Lark parsers by grammar text, terminal scanners by regex (guides.cfg.grammar) and prepared
vocabularies (guides.cfg.tokens) are kept across guides so that building a second guide is
cheap, but each cache must stay bounded: a long-running process (the web worker, a server)
sees many grammars and vocabularies. One helper keeps the get/put/evict logic in one place.

Limits are passed to `put` rather than fixed at construction, so a module-level constant read
at call time bounds the cache (tests lower it with monkeypatch). The entry just put is never
evicted by its own `put`, even when it alone exceeds the weight limit: the caller is about to
use it, and dropping it would only make the next request build it again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Optional

__all__ = ["LRU"]


class LRU:
    """Values by key, oldest use evicted first, bounded by entry count and optionally by weight.

    `weight(value)` (default: 1 per entry) measures an entry for `put`'s `max_weight`. Every
    operation holds one lock, so threads may share the cache; building a missing value is the
    caller's business (outside the lock: two threads may build the same value, one is kept)."""

    def __init__(self, weight: Optional[Callable[[Any], int]] = None):
        self._weight = weight
        self._items: "OrderedDict[Hashable, Any]" = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        """The value kept for `key` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Hashable, value: Any, max_items: int, max_weight: Optional[int] = None) -> None:
        """Keep `value` for `key` as the most recently used, then evict the oldest entries while
        more than `max_items` are kept or (with `max_weight`) their total weight exceeds it."""
        if value is None:
            raise ValueError("LRU cannot keep None (get answers None for a missing key)")
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._total -= self._measure(old)
            self._items[key] = value
            self._total += self._measure(value)
            while len(self._items) > 1 and (
                    len(self._items) > max_items or (max_weight is not None and self._total > max_weight)):
                _, dropped = self._items.popitem(last=False)
                self._total -= self._measure(dropped)

    def _measure(self, value: Any) -> int:
        return 1 if self._weight is None else int(self._weight(value))

    @property
    def weight(self) -> int:
        """The total weight of the kept values (their number without a weight function)."""
        with self._lock:
            return self._total

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()
            self._total = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items
