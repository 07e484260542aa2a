"""The token-level index: for each automaton state, which tokens may come next and where they lead.

Same meaning as outlines-core's `Index`. The vocabulary is prepared once as a byte trie
in pre-order arrays (tokens sorted by bytes, so every subtree is a contiguous range of
tokens). For each reachable state the trie is walked once: dead branches are skipped,
and a subtree whose bytes all loop on the state it reached is taken whole, as one range
of tokens, without visiting it. When many states would each walk much of the trie, the
tokens are first collapsed by the automaton's byte classes (tokens reading the same
class sequence behave alike everywhere), which shrinks the trie. Each state stores
(first key, end key, next state) ranges; token ids are expanded only when asked for.
"""

from __future__ import annotations

import asyncio
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ..arguments import check_bool, check_callable, check_int, check_str, describe
from ..errors import ArgumentError, BuildCancelled, IncompatibleVocabularyError, NotFoundError
from ..regex.dfa import DEFAULT_MAX_STATES, ByteDFA, compile_regex
from ..vocabulary import require_vocabulary
from .files import IndexFiles
from .queries import IndexQueries
from .bitsets import ByteLRU, mask_to_bytes
from .expand import RangeExpander
from .trie import prepare_vocabulary
from .walker import TrieWalker, class_trie

if TYPE_CHECKING:
    from ..vocabulary import Vocabulary

Progress = Callable[[str, int, int], object]
_MAX_U32 = 2**32 - 1  # ids and states are u32 in the file format and in outlines-core
_YIELD_EVERY = 64  # states walked between cooperative yields
_CLASS_TRIE_STEPS = 150_000  # byte-trie steps after which collapsing tokens by byte classes is tried


def _check_build(where: str, regex: Any, vocabulary: Any, ascii: Any, max_states: Any, progress: Any, cancel: Any) -> None:
    """The argument checks shared by the constructors (regex None: built from an automaton)."""
    if regex is not None:
        check_str(where, "regex", regex)
        check_bool(where, "ascii", ascii)
        check_int(where, "max_states", max_states, low=1)
    require_vocabulary(vocabulary, "vocabulary", where)
    check_callable(where, "progress", progress)
    check_callable(where, "should_cancel", cancel)


class Index(IndexFiles, IndexQueries):
    """Allowed tokens and transitions for a regex and a vocabulary.

    Every final state carries an `eos -> same state` transition, as in outlines-core.
    `get_next_state` returns None for a token that is not allowed.
    """

    #: Byte budget of each index's packed-mask cache (mask_bytes).
    mask_cache_bytes = 64 << 20
    _mask_cache = None
    _counts: dict[int, int] | None = None  # transitions per trie-built state (eos loop included)
    _expander: RangeExpander | None = None

    def __init__(
        self,
        regex: str,
        vocabulary: Vocabulary,
        *,
        ascii: bool = False,
        max_states: int = DEFAULT_MAX_STATES,
        progress: Progress | None = None,
        should_cancel: Callable[[], bool] | None = None,
    ):
        _check_build("Index", regex, vocabulary, ascii, max_states, progress, should_cancel)
        for _ in self._build_steps(regex, None, vocabulary, ascii, max_states, progress, should_cancel):
            pass

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_automaton(
        cls,
        dfa: ByteDFA,
        vocabulary: Vocabulary,
        *,
        progress: Progress | None = None,
        should_cancel: Callable[[], bool] | None = None,
    ) -> "Index":
        """Build from an already compiled byte automaton."""
        if not isinstance(dfa, ByteDFA):
            raise ArgumentError(f"Index.from_automaton: dfa must be a ByteDFA (regex.compile_regex), got {describe(dfa)}")
        _check_build("Index.from_automaton", None, vocabulary, False, 1, progress, should_cancel)
        index = cls.__new__(cls)
        for _ in index._build_steps(None, dfa, vocabulary, False, DEFAULT_MAX_STATES, progress, should_cancel):
            pass
        return index

    @classmethod
    def from_json_schema(
        cls,
        schema,
        vocabulary: "Vocabulary",
        *,
        whitespace_pattern: str | None = None,
        max_recursion_depth: int = 3,
        lenient: bool = False,
        property_order: str = "schema",
        **kwargs,
    ) -> "Index":
        """The index of the regex that `build_regex_from_schema` makes of `schema` (dict or JSON text)."""
        from ..json_schema import build_regex_from_schema

        regex = build_regex_from_schema(
            schema, whitespace_pattern, max_recursion_depth=max_recursion_depth, lenient=lenient,
            property_order=property_order,
        )
        return cls(regex, vocabulary, **kwargs)

    @classmethod
    async def build_async(
        cls,
        regex: str,
        vocabulary: Vocabulary,
        *,
        ascii: bool = False,
        max_states: int = DEFAULT_MAX_STATES,
        progress: Progress | None = None,
        should_cancel: Callable[[], bool] | None = None,
    ) -> "Index":
        """Same as the constructor, but yields to the event loop while it works (for Pyodide workers)."""
        _check_build("Index.build_async", regex, vocabulary, ascii, max_states, progress, should_cancel)
        index = cls.__new__(cls)
        for _ in index._build_steps(regex, None, vocabulary, ascii, max_states, progress, should_cancel):
            await asyncio.sleep(0)
        return index

    @classmethod
    def from_transitions(
        cls,
        vocab_size: int,
        eos_token_id: int,
        initial_state: int,
        final_states,
        transitions: dict[int, tuple[array, array]],
        *,
        states: Iterable[int] | None = None,
    ) -> "Index":
        """An index from explicit per-state (token ids ascending, next states) arrays.

        Used by the file loader; the data is trusted (validated by the caller), and the
        eos self-loops of final states must already be among the transitions. array('I')
        arguments are kept as they are (not copied). `states`, when given, is every state that
        appears (the loader knows it), which saves a pass over all transitions.
        """
        where = "Index.from_transitions"
        vocab_size = check_int(where, "vocab_size", vocab_size, low=1, high=_MAX_U32)
        eos_token_id = check_int(where, "eos_token_id", eos_token_id, low=0, high=vocab_size - 1)
        initial_state = check_int(where, "initial_state", initial_state, low=0, high=_MAX_U32)
        try:
            final_states = [check_int(where, "final_states item", s, low=0, high=_MAX_U32) for s in final_states]
        except TypeError as exc:
            if isinstance(exc, ArgumentError):
                raise
            raise ArgumentError(f"{where}: final_states must be an iterable of state ids, got {describe(final_states)}") from None
        if not isinstance(transitions, dict):
            raise ArgumentError(f"{where}: transitions must be a dict state -> (token ids, next states), got {describe(transitions)}")
        for state, pair in transitions.items():
            check_int(where, "transitions key", state, low=0, high=_MAX_U32)
            if not (isinstance(pair, tuple) and len(pair) == 2 and len(pair[0]) == len(pair[1])):
                raise ArgumentError(
                    f"{where}: transitions[{state}] must be a pair (token ids, next states) of equal lengths, got {describe(pair)}"
                )
        index = cls.__new__(cls)
        index._vocab_size = vocab_size
        index._eos = eos_token_id
        index._initial = initial_state
        index._finals = frozenset(final_states)
        index._trie = None
        index._ranges = {}
        index._expanded = {
            s: (t if isinstance(t, array) and t.typecode == "I" else array("I", t),
                n if isinstance(n, array) and n.typecode == "I" else array("I", n))
            for s, (t, n) in transitions.items()
        }
        index._states = None  # every state that appears: found on first use (a pass over all targets)
        if states is not None:
            index._set_states(states)
        index._num_transitions = sum(len(t) for t, _ in index._expanded.values())
        index.regex = None
        return index

    def _set_states(self, states: Iterable[int]) -> None:
        self._states = sorted(states)
        empty = (array("I"), array("I"))
        for s in self._states:
            if s not in self._expanded:
                self._expanded[s] = empty

    def _state_list(self) -> list[int]:
        """Every state, ascending; for a loaded index, computed the first time it is needed."""
        if self._states is None:
            found = set(self._expanded) | set(self._finals) | {self._initial}
            for _, nexts in self._expanded.values():
                found.update(nexts)
            self._set_states(found)
        return self._states

    def _build_steps(self, regex, dfa, vocabulary, ascii, max_states, progress, should_cancel) -> Iterator[None]:
        def tick(stage: str, done: int, total: int) -> None:
            if should_cancel is not None and should_cancel():
                raise BuildCancelled("the build was cancelled")
            if progress is not None:
                progress(stage, done, total)

        require_vocabulary(vocabulary, "vocabulary", "Index")
        self.regex = regex
        self._vocab_size = vocabulary.vocab_size
        self._eos = vocabulary.eos_token_id
        if dfa is None:
            tick("automaton", 0, 1)
            dfa = compile_regex(regex, ascii=ascii, max_states=max_states, checkpoint=lambda: tick("automaton", 0, 1))
            tick("automaton", 1, 1)
            yield
        self.dfa = dfa
        prepared = prepare_vocabulary(vocabulary)
        tick("vocabulary", 1, 1)
        yield
        walker = TrieWalker(dfa, prepared.trie, by_class=False)
        try_classes = True
        ranges: dict[int, tuple[array, array, array]] = {}
        seen = {0}
        queue = deque([0])
        done = 0
        while queue:
            state = queue.popleft()
            ranges[state] = walker.walk(state)
            for ns in walker.targets:  # each next state once, in order of first range
                if ns not in seen:
                    seen.add(ns)
                    queue.append(ns)
            done += 1
            if try_classes and walker.visited > _CLASS_TRIE_STEPS:
                # States keep walking large parts of the byte trie: collapse tokens that
                # read the same byte classes, and start over on that smaller trie if it is.
                try_classes = False
                trie = class_trie(dfa, prepared)
                if trie is not None and trie.num_nodes * 2 < prepared.trie.num_nodes:
                    walker = TrieWalker(dfa, trie, by_class=True)
                    ranges, seen, queue, done = {}, {0}, deque([0]), 0
            if done % _YIELD_EVERY == 0:
                tick("states", done, done + len(queue))
                yield
        self._trie = walker.trie
        tick("states", done, done)
        self._initial = 0
        self._finals = frozenset(s for s in seen if s in dfa.finals)
        self._ranges = ranges
        self._states = sorted(seen)
        self._check_vocabulary(dfa)
        self._expanded: dict[int, tuple[array, array]] = {}
        count_ids, finals = self._trie.count_ids, self._finals
        counted: dict[tuple[int, int], int] = {}  # states whose walks were reused share their key arrays
        self._counts = {}
        for s, (los, his, _) in ranges.items():
            key = (id(los), id(his))
            found = counted.get(key)
            if found is None:
                found = counted[key] = count_ids(los, his)
            self._counts[s] = found + (s in finals)
        self._num_transitions = sum(self._counts.values())

    def _check_vocabulary(self, dfa: ByteDFA) -> None:
        for s in self._states:
            if s not in self._finals and not self._ranges[s][0]:
                needed = dfa.live_bytes(s)
                if not needed:  # a non-final state with no way on: the regex's language is empty
                    raise IncompatibleVocabularyError(
                        "the regex matches no text at all (not even the empty string), so nothing can be "
                        "generated; look for an empty class such as [^\\s\\S]", s
                    )
                shown = ", ".join(f"0x{b:02x}" for b in needed[:16]) + (" ..." if len(needed) > 16 else "")
                raise IncompatibleVocabularyError(
                    f"the vocabulary cannot continue from automaton state {s}: the regex needs one of the "
                    f"bytes [{shown}] next, and no token starting with them can be used there", s, tuple(needed)
                )
        if not self._finals:
            raise IncompatibleVocabularyError(
                "no sequence of vocabulary tokens can spell a complete match of the regex"
            )

    # -- outlines-core API ------------------------------------------------------------
    @property
    def initial_state(self) -> int:
        return self._initial

    @property
    def final_states(self) -> frozenset[int]:
        return self._finals

    @property
    def vocab_size(self) -> int:
        return self._vocab_size

    @property
    def eos_token_id(self) -> int:
        return self._eos

    def states(self) -> list[int]:
        """Every state of the index, ascending."""
        return list(self._state_list())

    @property
    def num_states(self) -> int:
        return len(self._state_list())

    @property
    def num_transitions(self) -> int:
        """Token transitions, eos self-loops included."""
        return self._num_transitions

    def transition_count(self, state: int) -> int:
        """How many transitions `state` has (eos self-loop included), without expanding them."""
        if type(state) is not int:
            state = check_int("Index.transition_count", "state", state)
        found = self._expanded.get(state)
        if found is not None:
            return len(found[0])
        if self._counts is None or state not in self._counts:
            raise NotFoundError(f"Index.transition_count: state {state} is not in this index")
        return self._counts[state]

    def state_transitions(self, state: int) -> tuple[array, array]:
        """(token ids ascending, next states) of `state`, eos self-loop included."""
        if type(state) is not int:
            state = check_int("Index.state_transitions", "state", state)
        found = self._expanded.get(state)
        if found is not None:
            return found
        if state not in self._ranges:
            if self._states is None:  # a loaded index: a target without an entry is a dead end
                self._state_list()
                if state in self._expanded:
                    return self._expanded[state]
            raise NotFoundError(f"Index.state_transitions: state {state} is not in this index")
        if self._expander is None:
            self._expander = RangeExpander(self._trie, self._eos)
        result = self._expand(state, self._expander)
        self._expanded[state] = result
        return result

    def _expand(self, state: int, expander: RangeExpander) -> tuple[array, array]:
        los, his, nexts = self._ranges[state]
        return expander.expand(los, his, nexts, state if state in self._finals else None)

    def iter_transitions(self, states: Iterable[int]) -> Iterator[tuple[array, array]]:
        """(token ids ascending, next states) of each of `states` in turn, computed for this pass and
        not kept (the file writer's way: every state once, the work shared between alike states)."""
        expander = RangeExpander(self._trie, self._eos) if self._trie is not None else None
        for state in states:
            if type(state) is not int:
                state = check_int("Index.iter_transitions", "state", state)
            found = self._expanded.get(state)
            if found is None and expander is not None and state in self._ranges:
                found = self._expand(state, expander)
            yield found if found is not None else self.state_transitions(state)

    def key_ranges(self) -> tuple[array, array, dict[int, tuple[array, array, array]]] | None:
        """(flat token ids, key starts, {state: (first keys, end keys, next states)}) of a built index:
        key k's token ids are flat[starts[k]:starts[k + 1]]; None for a loaded one. Shared, not copied."""
        if self._trie is None:
            return None
        return self._trie.flat_ids, array("I", self._trie.id_start), self._ranges

    def _target_masks(self, state: int, ranges) -> dict[int, int]:
        """{next state: bitmask of the token ids leading there} for a trie-built state, eos loop included."""
        masks: dict[int, int] = {}
        for lo, hi, ns in ranges:
            masks[ns] = masks.get(ns, 0) | self._trie.range_mask(lo, hi)
        if state in self._finals:
            masks[state] = masks.get(state, 0) | (1 << self._eos)
        return masks

    def set_mask_cache_bytes(self, max_bytes: int) -> None:
        """Bound this index's packed-mask cache to `max_bytes` (0 disables it); empties it."""
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ArgumentError(f"Index.set_mask_cache_bytes: max_bytes must be a non-negative integer, got {max_bytes!r}")
        self.mask_cache_bytes = max_bytes
        self._mask_cache = ByteLRU(max_bytes)

    @property
    def mask_cache_size(self) -> tuple[int, int]:
        """(masks, bytes) held by the packed-mask cache."""
        cache = self._mask_cache
        return (len(cache), cache.size) if cache is not None else (0, 0)

    def mask_bytes(self, state: int) -> bytes:
        """The packed bitmask of the tokens allowed in `state` (eos on final states): ceil(vocab_size/32)
        little-endian int32 words, bit t % 32 of word t // 32 for token t. Cached per state in a
        byte-bounded LRU (`mask_cache_bytes`, 64 MB by default); KeyError for an unknown state."""
        if type(state) is not int:
            state = check_int("Index.mask_bytes", "state", state)
        cache = self._mask_cache
        if cache is None:
            cache = self._mask_cache = ByteLRU(self.mask_cache_bytes)
        found = cache.get(state)
        if found is not None:
            return found
        if state not in self._ranges and state not in self._expanded:
            raise NotFoundError(f"Index.mask_bytes: state {state} is not in this index")
        if state in self._ranges and self._trie is not None and self._trie.bitsets_fit:
            union = 0
            for mask in self._target_masks(state, list(zip(*self._ranges[state]))).values():
                union |= mask
        else:
            bitmap = bytearray((self._vocab_size + 7) // 8)
            for t in self.state_transitions(state)[0]:  # KeyError for an unknown state
                bitmap[t >> 3] |= 1 << (t & 7)
            union = int.from_bytes(bitmap, "little")
        packed = mask_to_bytes(union, self._vocab_size)
        cache.put(state, packed)
        return packed

    def get_next_state(self, state: int, token_id: int) -> int | None:
        """The state after `token_id`, or None when the token is not allowed there."""
        if type(token_id) is not int or token_id < 0 or token_id > _MAX_U32:  # unknown u32 ids: None
            token_id = check_int("Index.get_next_state", "token_id", token_id, low=0, high=_MAX_U32)
        if type(state) is not int:
            state = check_int("Index.get_next_state", "state", state)
        if token_id == self._eos:
            return state if state in self._finals else None
        if self._trie is None:
            found = self._expanded.get(state)
            if found is None:
                return None
            tokens, nexts = found
            i = bisect_left(tokens, token_id)
            if i < len(tokens) and tokens[i] == token_id:
                return nexts[i]
            return None
        found = self._ranges.get(state)
        if found is None or not 0 <= token_id < len(self._trie.position):
            return None
        k = self._trie.position[token_id]
        if k < 0:
            return None
        los, his, nexts = found
        i = bisect_right(los, k) - 1
        if i >= 0 and k < his[i]:
            return nexts[i]
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Index):
            return NotImplemented
        if (self._vocab_size, self._eos, self._initial, self._finals, self._state_list()) != (
            other._vocab_size,
            other._eos,
            other._initial,
            other._finals,
            other._state_list(),
        ):
            return False
        return all(self.state_transitions(s) == other.state_transitions(s) for s in self._states)

    __hash__ = None  # type: ignore[assignment]
