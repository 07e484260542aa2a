"""guides.cfg.lru.LRU, the bounded cache behind the CFG guides' shared parsers, scanners and
vocabularies: least recently used first out, bounded by count and by weight, never evicting
the entry just put, refusing None (which `get` answers for a missing key), safe across threads."""

from __future__ import annotations

import threading

import pytest

from tokenguide.guides.cfg.lru import LRU


def test_evicts_the_least_recently_used():
    cache = LRU()
    for key in "abc":
        cache.put(key, key.upper(), 3)
    assert cache.get("a") == "A"  # "a" is now the newest: "b" is the oldest
    cache.put("d", "D", 3)
    assert "b" not in cache and [cache.get(k) for k in "acd"] == ["A", "C", "D"]
    assert len(cache) == 3 and cache.weight == 3
    assert cache.get("b") is None


def test_put_again_replaces_and_refreshes():
    cache = LRU(weight=len)
    cache.put("a", "xx", 2)
    cache.put("b", "y", 2)
    cache.put("a", "zzz", 2)  # replaced: its weight is the new value's, and it is the newest
    assert cache.weight == 4 and cache.get("a") == "zzz"
    cache.put("c", "w", 2)
    assert "b" not in cache and len(cache) == 2 and cache.weight == 4


def test_weight_bound_and_the_newest_entry_kept_alone():
    cache = LRU(weight=len)
    cache.put("a", "1234", 10, max_weight=6)
    cache.put("b", "12", 10, max_weight=6)
    assert len(cache) == 2 and cache.weight == 6
    cache.put("c", "1", 10, max_weight=6)  # 7 > 6: "a" goes
    assert "a" not in cache and cache.weight == 3
    cache.put("d", "123456789", 10, max_weight=6)  # over the bound alone: kept, alone
    assert len(cache) == 1 and cache.get("d") == "123456789" and cache.weight == 9
    cache.put("e", "x", 0)  # even a zero count bound keeps the entry just put
    assert len(cache) == 1 and cache.get("e") == "x" and cache.weight == 1


def test_limit_read_at_each_put():
    cache = LRU()
    for i in range(5):
        cache.put(i, str(i), 5)
    cache.put(5, "5", 2)  # a lower limit now evicts down to it
    assert len(cache) == 2 and 4 in cache and 5 in cache


def test_none_is_refused_and_clear_forgets_everything():
    cache = LRU(weight=len)
    with pytest.raises(ValueError, match="cannot keep None"):
        cache.put("a", None, 3)
    assert len(cache) == 0 and cache.weight == 0
    cache.put("a", "abc", 3)
    cache.clear()
    assert len(cache) == 0 and cache.weight == 0 and cache.get("a") is None


def test_threads_share_one_cache():
    cache = LRU(weight=len)
    errors = []

    def work(n):
        try:
            for i in range(2000):
                cache.put((n, i % 50), "x" * (i % 7 + 1), 40, max_weight=100)
                cache.get((n, (i * 7) % 50))
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert 1 <= len(cache) <= 40 and cache.weight <= 100
