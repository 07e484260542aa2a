"""`LazyIndex`: the token-level view of a regex, computed as it is used.

The regex becomes a lazy byte automaton (regex.lazy: subset states created when reached) and a
state's allowed tokens are found by one walk of the vocabulary's byte trie the first time the
state is visited, then cached: the walk's ranges per visited state (at most the automaton's
`max_states` of them), the sorted token lists and packed masks made from them in LRU caches
bounded by bytes, so a long generation does not grow memory without bound. So the first mask
costs one trie walk over the states that the tokens' bytes reach, not the whole automaton: that
is what a generation needs. It answers exactly like `Index` for the same regex and vocabulary,
but its states are numbered in the order they are reached; use `Index` to save files, count transitions or compare indexes.
A regex with lookaheads or `\\Z` gets the eager automaton (`regex.lazy.lazy_regex`): only the
whole automaton knows which of its states can still match.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import TYPE_CHECKING

from ..regex.dfa import DEFAULT_MAX_STATES
from ..regex.lazy import lazy_regex
from .bitsets import ByteLRU, mask_to_bytes
from .trie import prepare_vocabulary
from .lazy_walk import LazyTrieWalker

if TYPE_CHECKING:
    from ..vocabulary import Vocabulary

__all__ = ["LazyIndex"]


class LazyIndex:
    """Allowed tokens and transitions for a regex and a vocabulary, computed per state on first visit.

    Same queries as Index (`initial_state`, `get_allowed_tokens`, `get_next_state`,
    `is_final_state`, `mask_bytes`, `vocab_size`, `eos_token_id`); a final state also allows
    EOS. A state from which no token can continue (the vocabulary cannot spell what the regex
    needs next) allows nothing; `Index` refuses such vocabularies at construction instead.
    """

    #: Byte budget of the packed-mask cache.
    mask_cache_bytes = 64 << 20
    #: Byte budget of the allowed-token-list cache (4 bytes a token id: GPT-2's whole vocabulary
    #: is 200 KB); a list evicted is rebuilt from the state's ranges, the same list.
    token_cache_bytes = 32 << 20

    def __init__(self, regex: str, vocabulary: "Vocabulary", *, ascii: bool = False, max_states: int = DEFAULT_MAX_STATES):
        self.regex = regex
        self.dfa = lazy_regex(regex, ascii=ascii, max_states=max_states)
        self._trie = prepare_vocabulary(vocabulary).trie
        self._walker = LazyTrieWalker(self.dfa, self._trie)
        self._vocab_size = vocabulary.vocab_size
        self._eos = vocabulary.eos_token_id
        self._ranges: dict[int, tuple[array, array, array]] = {}
        self._tokens = ByteLRU(self.token_cache_bytes)  # state -> sorted ids as int32 bytes
        self._masks = ByteLRU(self.mask_cache_bytes)

    @classmethod
    def from_json_schema(cls, schema, vocabulary: "Vocabulary", *, whitespace_pattern: str | None = None, **kwargs) -> "LazyIndex":
        """The lazy index of the regex that `build_regex_from_schema` makes of `schema`."""
        from ..json_schema import build_regex_from_schema

        return cls(build_regex_from_schema(schema, whitespace_pattern), vocabulary, **kwargs)

    def fresh(self) -> "LazyIndex":
        """The same index with empty caches (a `fresh` automaton sharing the NFA and the trie): where
        a generation goes on when this one meets max_states; `carry` translates its states.
        A regex with lookaheads has its whole automaton already, which never grows: itself."""
        if not hasattr(self.dfa, "fresh"):
            return self
        twin = object.__new__(LazyIndex)
        twin.__dict__.update(self.__dict__)
        twin.dfa = self.dfa.fresh()
        twin._walker = LazyTrieWalker(twin.dfa, self._trie)
        twin._ranges, twin._tokens, twin._masks = {}, ByteLRU(self.token_cache_bytes), ByteLRU(self.mask_cache_bytes)
        return twin

    def carry(self, state: int, source: "LazyIndex") -> int:
        """This index's number for `state` of `source` (the index it is `fresh` from)."""
        return state if source.dfa is self.dfa else self.dfa.carry(state, source.dfa)

    initial_state = 0

    @property
    def vocab_size(self) -> int:
        return self._vocab_size

    @property
    def eos_token_id(self) -> int:
        return self._eos

    @property
    def num_visited_states(self) -> int:
        """States whose tokens have been computed so far."""
        return len(self._ranges)

    def _state_ranges(self, state: int) -> tuple[array, array, array]:
        found = self._ranges.get(state)
        if found is None:
            if not 0 <= state < self.dfa.num_states:
                raise KeyError(f"state {state} has not been reached in this index")
            found = self._ranges[state] = self._walker.walk(state)
        return found

    def is_final_state(self, state: int) -> bool:
        return self.dfa.is_final(state)

    def get_allowed_tokens(self, state: int) -> list[int] | None:
        """Sorted token ids allowed in `state` (eos included on final states); None for an unknown state."""
        found = self._tokens.get(state)
        if found is not None:
            return array("i", found).tolist()
        try:
            ranges = self._state_ranges(state)
        except KeyError:
            return None
        trie = self._trie
        tokens = sorted(t for lo, hi in zip(ranges[0], ranges[1]) for t in trie.flat_ids[trie.id_start[lo] : trie.id_start[hi]])
        if self.dfa.is_final(state):
            tokens.insert(bisect_right(tokens, self._eos), self._eos)
        self._tokens.put(state, array("i", tokens).tobytes())
        return tokens

    def get_next_state(self, state: int, token_id: int) -> int | None:
        """The state after `token_id`, or None when the token is not allowed there."""
        if token_id == self._eos:
            return state if self.dfa.is_final(state) else None
        position = self._trie.position
        if not 0 <= token_id < len(position):
            return None
        try:
            los, his, nexts = self._state_ranges(state)
        except KeyError:
            return None
        k = position[token_id]
        if k < 0:
            return None
        i = bisect_right(los, k) - 1
        if i >= 0 and k < his[i]:
            return nexts[i]
        return None

    def mask_bytes(self, state: int) -> bytes:
        """The packed bitmask of the tokens allowed in `state` (see Index.mask_bytes); cached, LRU by bytes."""
        found = self._masks.get(state)
        if found is not None:
            return found
        self._state_ranges(state)
        trie = self._trie
        mask = 0
        if trie.bitsets_fit:
            mask = self._walker.mask(state)
            if self.dfa.is_final(state):
                mask |= 1 << self._eos
        else:
            bitmap = bytearray((self._vocab_size + 7) // 8)
            for t in self.get_allowed_tokens(state):
                bitmap[t >> 3] |= 1 << (t & 7)
            mask = int.from_bytes(bitmap, "little")
        packed = mask_to_bytes(mask, self._vocab_size)
        self._masks.put(state, packed)
        return packed

    def __repr__(self) -> str:
        return f"LazyIndex(visited={self.num_visited_states}, automaton_states={self.dfa.num_states}, vocab_size={self._vocab_size})"
