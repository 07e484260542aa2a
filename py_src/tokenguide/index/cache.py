"""Cache of built regex indexes: a bounded in-memory LRU, plus an optional folder of `.outlines` files.

The key is (regex, ascii, max_states, vocabulary fingerprint), so an index is only reused for the
exact same vocabulary. File names are the sha256 of that key, which keeps them short and safe.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from typing import Any

from ..errors import IndexFormatError
from ..regex.dfa import DEFAULT_MAX_STATES
from .index import Index
from ..vocabulary import Vocabulary, require_vocabulary

__all__ = ["get_index", "clear_cache", "set_cache_size", "set_cache_dir", "cache_info", "cache_key"]

_lock = threading.Lock()
_memory: "OrderedDict[tuple, Index]" = OrderedDict()
_max_entries = 32
_cache_dir: str | None = os.environ.get("TOKENGUIDE_CACHE_DIR") or None
_stats = {"hits": 0, "disk_hits": 0, "misses": 0}


def cache_key(regex: str, vocabulary: Vocabulary, ascii: bool = False, max_states: int = DEFAULT_MAX_STATES) -> tuple:
    """The key an index is cached under."""
    return (regex, bool(ascii), int(max_states), vocabulary.fingerprint())


def _file_name(key: tuple) -> str:
    digest = hashlib.sha256(repr(key).encode("utf-8")).hexdigest()
    return f"{digest}.outlines"


def set_cache_size(max_entries: int) -> None:
    """Bound the in-memory cache to `max_entries` indexes (0 disables it); evicts the oldest."""
    global _max_entries
    if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 0:
        raise ValueError(f"set_cache_size: expected a non-negative integer, got {max_entries!r}")
    with _lock:
        _max_entries = max_entries
        while len(_memory) > _max_entries:
            _memory.popitem(last=False)


def set_cache_dir(path: str | os.PathLike[str] | None) -> None:
    """Default folder for `.outlines` files (None: no disk cache). TOKENGUIDE_CACHE_DIR sets it at import."""
    global _cache_dir
    _cache_dir = os.fspath(path) if path is not None else None


def clear_cache() -> None:
    """Forget every in-memory index (files on disk are kept)."""
    with _lock:
        _memory.clear()
        for k in _stats:
            _stats[k] = 0


def cache_info() -> dict[str, Any]:
    """Counters and sizes, for tests and diagnostics."""
    with _lock:
        return dict(_stats, entries=len(_memory), max_entries=_max_entries, cache_dir=_cache_dir)


def _load_from_disk(path: str, vocabulary: Vocabulary) -> Index | None:
    """A cached file's index, or None when it is missing, corrupt or made for another vocabulary."""
    if not os.path.isfile(path):
        return None
    try:
        index = Index.load(path)
    except (IndexFormatError, OSError, ValueError):
        return None
    if index.vocab_size != vocabulary.vocab_size or index.eos_token_id != vocabulary.eos_token_id:
        return None
    return index


def _save_to_disk(path: str, index: Index) -> None:
    """Write atomically (temporary file, then rename) so readers never see half a file."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        index.save(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def get_index(
    regex: str,
    vocabulary: Vocabulary,
    *,
    ascii: bool = False,
    max_states: int = DEFAULT_MAX_STATES,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    progress=None,
) -> Index:
    """The Index of `regex` for `vocabulary`, from memory, from the cache folder, or freshly built.

    `cache_dir` overrides the default folder set by set_cache_dir / TOKENGUIDE_CACHE_DIR.
    `use_cache=False` always builds (and stores nothing).
    """
    require_vocabulary(vocabulary, "vocabulary", "get_index")
    if not use_cache:
        return Index(regex, vocabulary, ascii=ascii, max_states=max_states, progress=progress)
    key = cache_key(regex, vocabulary, ascii, max_states)
    with _lock:
        found = _memory.get(key)
        if found is not None:
            _memory.move_to_end(key)
            _stats["hits"] += 1
            return found
    folder = os.fspath(cache_dir) if cache_dir is not None else _cache_dir
    path = os.path.join(folder, _file_name(key)) if folder else None
    index = _load_from_disk(path, vocabulary) if path else None
    if index is not None:
        _stats["disk_hits"] += 1
    else:
        _stats["misses"] += 1
        index = Index(regex, vocabulary, ascii=ascii, max_states=max_states, progress=progress)
        if path:
            _save_to_disk(path, index)
    with _lock:
        if _max_entries:
            _memory[key] = index
            _memory.move_to_end(key)
            while len(_memory) > _max_entries:
                _memory.popitem(last=False)
    return index
