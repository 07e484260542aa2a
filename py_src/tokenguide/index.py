"""The token-level index: for each automaton state, which tokens may come next and where they lead.

Same meaning as outlines-core's `Index`. Internally, tokens whose bytes fall into the
same sequence of byte classes behave alike in every state, so they form one group; a
trie of the distinct class sequences is walked once per reachable state, dead branches
pruned. Each state stores (group, next state) pairs, and token lists are expanded only
when asked for.
"""

from __future__ import annotations

import asyncio
from array import array
from bisect import bisect_left
from collections import deque
from typing import TYPE_CHECKING, Callable, Iterator

from .automaton import DEFAULT_MAX_STATES, ByteDFA, compile_regex
from .errors import BuildCancelled, IncompatibleVocabularyError

if TYPE_CHECKING:
    from .vocabulary import Vocabulary

Progress = Callable[[str, int, int], object]
_YIELD_EVERY = 64  # states walked between cooperative yields


class Index:
    """Allowed tokens and transitions for a regex and a vocabulary.

    Every final state carries an `eos -> same state` transition, as in outlines-core.
    `get_next_state` returns None for a token that is not allowed.
    """

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
        index = cls.__new__(cls)
        for _ in index._build_steps(None, dfa, vocabulary, False, DEFAULT_MAX_STATES, progress, should_cancel):
            pass
        return index

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
    ) -> "Index":
        """An index from explicit per-state (token ids ascending, next states) arrays.

        Used by the file loader; the data is trusted (validated by the caller), and the
        eos self-loops of final states must already be among the transitions.
        """
        index = cls.__new__(cls)
        index._vocab_size = vocab_size
        index._eos = eos_token_id
        index._initial = initial_state
        index._finals = frozenset(final_states)
        index._token_group = None
        index._group_tokens = []
        index._moves = {}
        index._move_maps = {}
        index._expanded = {s: (array("I", t), array("I", n)) for s, (t, n) in transitions.items()}
        states = set(index._expanded) | set(index._finals) | {initial_state}
        for _, nexts in index._expanded.values():
            states.update(nexts)
        index._states = sorted(states)
        for s in index._states:
            index._expanded.setdefault(s, (array("I"), array("I")))
        index._num_transitions = sum(len(t) for t, _ in index._expanded.values())
        index.regex = None
        return index

    def _build_steps(self, regex, dfa, vocabulary, ascii, max_states, progress, should_cancel) -> Iterator[None]:
        def tick(stage: str, done: int, total: int) -> None:
            if should_cancel is not None and should_cancel():
                raise BuildCancelled("the build was cancelled")
            if progress is not None:
                progress(stage, done, total)

        self.regex = regex
        self._vocab_size = vocabulary.vocab_size
        self._eos = vocabulary.eos_token_id
        if dfa is None:
            tick("automaton", 0, 1)
            dfa = compile_regex(regex, ascii=ascii, max_states=max_states, checkpoint=lambda: tick("automaton", 0, 1))
            tick("automaton", 1, 1)
            yield
        self.dfa = dfa
        trie = _ClassTrie(dfa, vocabulary)
        tick("vocabulary", 1, 1)
        yield
        self._group_tokens = trie.group_tokens
        labels, depths, ends, node_groups = trie.labels, trie.depths, trie.ends, trie.node_groups
        table = trie.walk_table
        n_nodes = len(labels)
        moves: dict[int, tuple[array, array]] = {}
        seen = {0}
        queue = deque([0])
        done = 0
        stack = [0] * (trie.max_depth + 1)
        while queue:
            state = queue.popleft()
            groups_out = array("I")
            nexts_out = array("I")
            stack[0] = state
            i = 1
            while i < n_nodes:
                ns = table[stack[depths[i] - 1]][labels[i]]
                if ns < 0:
                    i = ends[i]
                    continue
                stack[depths[i]] = ns
                g = node_groups[i]
                if g >= 0:
                    groups_out.append(g)
                    nexts_out.append(ns)
                    if ns not in seen:
                        seen.add(ns)
                        queue.append(ns)
                i += 1
            moves[state] = (groups_out, nexts_out)
            done += 1
            if done % _YIELD_EVERY == 0:
                tick("states", done, done + len(queue))
                yield
        tick("states", done, done)
        self._initial = 0
        self._finals = frozenset(s for s in seen if s in dfa.finals)
        self._moves = moves
        self._states = sorted(seen)
        self._check_vocabulary(dfa)
        token_group = array("i", [-1]) * self._vocab_size
        for g, ids in enumerate(self._group_tokens):
            for t in ids:
                token_group[t] = g
        self._token_group = token_group
        self._move_maps: dict[int, dict[int, int]] = {}
        self._expanded: dict[int, tuple[array, array]] = {}
        sizes = [len(ids) for ids in self._group_tokens]
        self._num_transitions = len(self._finals) + sum(
            sizes[g] for groups, _ in moves.values() for g in groups
        )

    def _check_vocabulary(self, dfa: ByteDFA) -> None:
        for s in self._states:
            if s not in self._finals and not self._moves[s][0]:
                needed = dfa.live_bytes(s)
                shown = ", ".join(f"0x{b:02x}" for b in needed[:16]) + (" ..." if len(needed) > 16 else "")
                raise IncompatibleVocabularyError(
                    f"the vocabulary cannot continue from automaton state {s}: the regex needs one of the "
                    f"bytes [{shown}] next, and no token starting with them can be used there"
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

    def get_initial_state(self) -> int:
        return self._initial

    def get_final_states(self) -> set[int]:
        return set(self._finals)

    def get_vocab_size(self) -> int:
        return self._vocab_size

    def get_eos_token_id(self) -> int:
        return self._eos

    def is_final_state(self, state: int) -> bool:
        return state in self._finals

    def states(self) -> list[int]:
        """Every state of the index, ascending."""
        return list(self._states)

    @property
    def num_states(self) -> int:
        return len(self._states)

    @property
    def num_transitions(self) -> int:
        """Token transitions, eos self-loops included."""
        return self._num_transitions

    def state_transitions(self, state: int) -> tuple[array, array]:
        """(token ids ascending, next states) of `state`, eos self-loop included."""
        found = self._expanded.get(state)
        if found is not None:
            return found
        if state not in self._moves:
            raise KeyError(f"state {state} is not in this index")
        groups, nexts = self._moves[state]
        group_tokens = self._group_tokens
        pairs: list[tuple[int, int]] = []
        for g, ns in zip(groups, nexts):
            pairs.extend((t, ns) for t in group_tokens[g])
        if state in self._finals:
            pairs.append((self._eos, state))
        pairs.sort()
        result = (array("I", [t for t, _ in pairs]), array("I", [n for _, n in pairs]))
        self._expanded[state] = result
        return result

    def get_allowed_tokens(self, state: int) -> list[int] | None:
        """Sorted token ids allowed in `state` (eos included on final states); None for an unknown state."""
        if state not in self._expanded and state not in self._moves:
            return None
        return self.state_transitions(state)[0].tolist()

    def get_next_state(self, state: int, token_id: int) -> int | None:
        """The state after `token_id`, or None when the token is not allowed there."""
        if token_id == self._eos:
            return state if state in self._finals else None
        if self._token_group is None:
            found = self._expanded.get(state)
            if found is None:
                return None
            tokens, nexts = found
            i = bisect_left(tokens, token_id)
            if i < len(tokens) and tokens[i] == token_id:
                return nexts[i]
            return None
        if not 0 <= token_id < self._vocab_size:
            return None
        g = self._token_group[token_id]
        if g < 0:
            return None
        table = self._move_maps.get(state)
        if table is None:
            if state not in self._moves:
                return None
            groups, nexts = self._moves[state]
            table = self._move_maps[state] = dict(zip(groups, nexts))
        return table.get(g)

    def get_transitions(self) -> dict[int, dict[int, int]]:
        """Every transition as {state: {token_id: next_state}} (built on demand; can be large)."""
        out = {}
        for s in self._states:
            tokens, nexts = self.state_transitions(s)
            if tokens:
                out[s] = dict(zip(tokens, nexts))
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Index):
            return NotImplemented
        if (self._vocab_size, self._eos, self._initial, self._finals, self._states) != (
            other._vocab_size,
            other._eos,
            other._initial,
            other._finals,
            other._states,
        ):
            return False
        return all(self.state_transitions(s) == other.state_transitions(s) for s in self._states)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Index(states={self.num_states}, transitions={self.num_transitions}, "
            f"finals={sorted(self._finals)[:8]}, vocab_size={self._vocab_size}, eos={self._eos})"
        )

    # -- files (see INDEX_BINARY_FORMAT.md) --------------------------------------
    def to_bytes(self) -> bytes:
        from .serialization import index_to_bytes

        return index_to_bytes(self)

    @classmethod
    def from_bytes(cls, data: bytes, **kwargs) -> "Index":
        from .serialization import index_from_bytes

        return index_from_bytes(data, **kwargs)

    def save(self, path) -> None:
        data = self.to_bytes()
        with open(path, "wb") as f:
            f.write(data)

    @classmethod
    def load(cls, path, **kwargs) -> "Index":
        with open(path, "rb") as f:
            data = f.read()
        return cls.from_bytes(data, **kwargs)


class _ClassTrie:
    """The vocabulary as a trie over byte-class sequences of one automaton, in pre-order arrays.

    Node i has `labels[i]` (the class read to reach it), `depths[i]`, `ends[i]` (the
    first node after its subtree, to skip a dead branch) and `node_groups[i]` (the group
    of tokens that end here, or -1). Node 0 is the root. Tokens with a byte that no
    state accepts are dropped up front.
    """

    def __init__(self, dfa: ByteDFA, vocabulary: Vocabulary):
        k = dfa.num_classes
        live = [any(row[c] >= 0 for row in dfa.table) for c in range(k)]
        label_of = {}
        for c in range(k):
            if live[c]:
                label_of[c] = len(label_of)
        dead_label = 255 if len(label_of) < 256 else None
        translate = bytes(label_of.get(dfa.classes[b], 255) for b in range(256))
        self.walk_table = [tuple(row[c] for c in range(k) if live[c]) for row in dfa.table]
        prepared = prepare_vocabulary(vocabulary)
        tokens, token_ids, first = prepared.tokens, prepared.ids, prepared.first_byte_start
        candidates: list[int] = []
        for b in range(256):
            if translate[b] != 255 or dead_label is None:
                candidates.extend(range(first[b], first[b + 1]))
        keys = [tokens[i].translate(translate) for i in candidates]
        keyed: dict[bytes, list[int]] = {}
        for i, key in zip(candidates, keys):
            if dead_label is not None and 255 in key:
                continue
            found = keyed.get(key)
            if found is None:
                keyed[key] = list(token_ids[i])
            else:
                found.extend(token_ids[i])
        keys = sorted(keyed)
        self.group_tokens = [array("I", sorted(keyed[key])) for key in keys]
        labels = [0]
        depths = [0]
        ends = [0]
        node_groups = [-1]
        path: list[int] = [0]  # node ids along the current key, path[d] is the node at depth d
        prev = b""
        max_depth = 0
        for g, key in enumerate(keys):
            common = 0
            limit = min(len(prev), len(key))
            while common < limit and prev[common] == key[common]:
                common += 1
            # Close the subtrees that the new key leaves.
            while len(path) - 1 > common:
                ends[path.pop()] = len(labels)
            for d in range(common, len(key)):
                node = len(labels)
                labels.append(key[d])
                depths.append(d + 1)
                ends.append(0)
                node_groups.append(-1)
                path.append(node)
            node_groups[path[-1]] = g
            if len(key) > max_depth:
                max_depth = len(key)
            prev = key
        while path:
            ends[path.pop()] = len(labels)
        self.labels = labels
        self.depths = depths
        self.ends = ends
        self.node_groups = node_groups
        self.max_depth = max_depth


class PreparedVocabulary:
    """A vocabulary's ordinary tokens sorted by bytes, with where each first byte starts.

    Built once per vocabulary and reused by every index built from it.
    """

    def __init__(self, vocabulary: "Vocabulary"):
        items = vocabulary.tokens
        pairs = sorted((t, ids) for t, ids in (items.items() if isinstance(items, dict) else items) if t)
        self.tokens = [t for t, _ in pairs]
        self.ids = [list(ids) for _, ids in pairs]
        starts = [0] * 257
        i = 0
        for b in range(256):
            starts[b] = i
            while i < len(self.tokens) and self.tokens[i][0] == b:
                i += 1
        starts[256] = len(self.tokens)
        self.first_byte_start = starts


def prepare_vocabulary(vocabulary: "Vocabulary") -> PreparedVocabulary:
    """The cached PreparedVocabulary of `vocabulary`."""
    prepared = getattr(vocabulary, "_tokenguide_prepared", None)
    if prepared is None:
        prepared = PreparedVocabulary(vocabulary)
        try:
            vocabulary._tokenguide_prepared = prepared
        except AttributeError:  # a vocabulary with __slots__: rebuild each time
            pass
    return prepared
