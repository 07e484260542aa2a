"""The vocabulary's half of the fast CFG guide, prepared once per vocabulary and shared by guides.

Which tokens exist, their bytes, and the character tries of their texts (one `TrieSkeleton` per
decoding context: the usual one, and one per held bytes of an incomplete UTF-8 character) do
not depend on the grammar. Building them was most of a guide's start-up (about a second on
GPT-2), so `token_texts` keeps them for the last few vocabularies; a grammar only adds the
character class of each trie node (`trie.CharTrie.from_skeleton`).

Only tokenguide `Tokenizer`s are prepared here (their token bytes come from the core
`Vocabulary`). The cache is keyed on that Vocabulary object itself (identity, as
`index.trie.prepare_vocabulary`: vocabularies are not modified once built), the tokenizer's
EOS id and its number of token strings, and holds at most `_KEEP` vocabularies and at most
`_KEEP_TOKENS` tokens in all (a prepared vocabulary costs about 400 bytes a token: ~20 MB for
GPT-2's 50k, ~100 MB for Gemma's 262k; the newest vocabulary is always kept, alone if it is
that large), each with at most `_CONTEXT_SKELETONS` skeletons besides the usual one.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from ...vocabulary import tokenizer_token_ids
from .chars import held_label, split_utf8
from .lru import LRU
from .trie import TrieSkeleton

__all__ = ["TokenTexts", "cached_tokens", "cached_vocabularies", "clear_token_texts", "token_texts"]

_KEEP = 2  # vocabularies kept
_KEEP_TOKENS = 200_000  # tokens kept in all (GPT-2 + Llama 3 fit; Gemma alone is over it)
_CONTEXT_SKELETONS = 6  # skeletons kept per vocabulary for contexts after held bytes

_lock = threading.Lock()  # guards the skeletons of each TokenTexts
_cache = LRU(weight=lambda texts: len(texts.token_ids))  # _key(tokenizer) -> TokenTexts


class TokenTexts:
    """A Tokenizer's ordinary tokens for the CFG guides: `token_ids` (sorted, EOS excluded),
    `token_bytes` (id -> bytes) and `skeleton(held)`, the trie of their texts after held bytes."""

    def __init__(self, tokenizer: Any):
        self.vocabulary = tokenizer.core_vocabulary
        self.eos_token_id = int(tokenizer.eos_token_id)
        self.token_ids = sorted(tokenizer_token_ids(tokenizer) - {self.eos_token_id})
        id_to_bytes = self.vocabulary.id_to_bytes
        self.token_bytes: dict[int, bytes] = {t: id_to_bytes(t) or b"" for t in self.token_ids}
        self._continuations: Optional[list[int]] = None
        self._skeletons: dict[bytes, TrieSkeleton] = {}

    def continuation_tokens(self) -> list[int]:
        """Tokens whose first byte is a UTF-8 continuation byte (the only ones allowed after held bytes)."""
        if self._continuations is None:
            data = self.token_bytes
            self._continuations = [t for t in self.token_ids if data[t][:1] and 0x80 <= data[t][0] <= 0xBF]
        return self._continuations

    def skeleton(self, held: bytes) -> TrieSkeleton:
        """The trie of token texts after held bytes `held` (b"": the usual context), built on
        first use. Keys are the complete text of (held + token bytes) followed by the held-byte
        labels of an incomplete last character; tokens whose bytes cannot continue valid UTF-8
        have no key. After held bytes only tokens starting with a continuation byte can have one."""
        found = self._skeletons.get(held)
        if found is not None:
            return found
        pieces: dict[str, list[int]] = {}
        token_bytes = self.token_bytes
        for t in self.token_ids if not held else self.continuation_tokens():
            split = split_utf8(held + token_bytes[t])
            if split is not None and split != ("", held):
                key = split[0] + held_label(split[1])
                pieces.setdefault(key, []).append(t)
        found = TrieSkeleton(pieces)
        with _lock:
            if held:
                extra = [k for k in self._skeletons if k]
                if len(extra) >= _CONTEXT_SKELETONS:
                    del self._skeletons[extra[0]]
            self._skeletons[held] = found
        return found


def _key(tokenizer: Any) -> tuple:
    """What a tokenizer's TokenTexts depend on: its core vocabulary (by identity), EOS and size."""
    return (id(tokenizer.core_vocabulary), int(tokenizer.eos_token_id), len(tokenizer.vocabulary))


def token_texts(tokenizer: Any) -> TokenTexts:
    """The TokenTexts of a tokenguide Tokenizer, shared with earlier guides on the same vocabulary."""
    key = _key(tokenizer)
    found = _cache.get(key)
    if found is not None and found.vocabulary is tokenizer.core_vocabulary:
        return found
    texts = TokenTexts(tokenizer)  # (a vocabulary freed and another at its id: replaced)
    _cache.put(key, texts, _KEEP, _KEEP_TOKENS)
    return texts


def clear_token_texts() -> None:
    """Forget every prepared vocabulary (the next guide prepares its own again)."""
    _cache.clear()


def cached_vocabularies() -> int:
    """How many vocabularies are prepared now (at most `_KEEP`)."""
    return len(_cache)


def cached_tokens() -> int:
    """How many tokens the prepared vocabularies hold in all (at most `_KEEP_TOKENS`, unless the
    newest vocabulary alone has more)."""
    return _cache.weight
