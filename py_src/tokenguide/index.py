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
from itertools import compress
from typing import TYPE_CHECKING, Callable, Iterator

from .automaton import DEFAULT_MAX_STATES, ByteDFA, compile_regex
from .errors import BuildCancelled, IncompatibleVocabularyError

if TYPE_CHECKING:
    from .vocabulary import Vocabulary

Progress = Callable[[str, int, int], object]
_YIELD_EVERY = 64  # states walked between cooperative yields
_CLASS_TRIE_STEPS = 150_000  # byte-trie steps after which collapsing tokens by byte classes is tried


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
    def from_json_schema(
        cls,
        schema,
        vocabulary: "Vocabulary",
        *,
        whitespace_pattern: str | None = None,
        max_recursion_depth: int = 3,
        lenient: bool = False,
        **kwargs,
    ) -> "Index":
        """The index of the regex that `build_regex_from_schema` makes of `schema` (dict or JSON text)."""
        from .json_schema import build_regex_from_schema

        regex = build_regex_from_schema(
            schema, whitespace_pattern, max_recursion_depth=max_recursion_depth, lenient=lenient
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
        index._trie = None
        index._ranges = {}
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
        prepared = prepare_vocabulary(vocabulary)
        tick("vocabulary", 1, 1)
        yield
        walker = _Walker(dfa, prepared.trie, by_class=False)
        try_classes = True
        ranges: dict[int, tuple[array, array, array]] = {}
        seen = {0}
        queue = deque([0])
        done = 0
        while queue:
            state = queue.popleft()
            found = ranges[state] = walker.walk(state)
            for ns in found[2]:
                if ns not in seen:
                    seen.add(ns)
                    queue.append(ns)
            done += 1
            if try_classes and walker.visited > _CLASS_TRIE_STEPS:
                # States keep walking large parts of the byte trie: collapse tokens that
                # read the same byte classes, and start over on that smaller trie if it is.
                try_classes = False
                trie = _class_trie(dfa, prepared)
                if trie is not None and trie.num_nodes * 2 < prepared.trie.num_nodes:
                    walker = _Walker(dfa, trie, by_class=True)
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
        id_start = self._trie.id_start
        self._num_transitions = len(self._finals) + sum(
            id_start[hi] - id_start[lo] for los, his, _ in ranges.values() for lo, hi in zip(los, his)
        )

    def _check_vocabulary(self, dfa: ByteDFA) -> None:
        for s in self._states:
            if s not in self._finals and not self._ranges[s][0]:
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
        if state not in self._ranges:
            raise KeyError(f"state {state} is not in this index")
        trie = self._trie
        ranges = list(zip(*self._ranges[state]))
        count = sum(trie.id_start[hi] - trie.id_start[lo] for lo, hi, _ in ranges)
        if count * 8 > len(trie.flat_ids):
            tokens, nexts = trie.expand_dense(ranges)
        else:
            tokens, nexts = trie.expand_sparse(ranges)
        if state in self._finals:
            i = bisect_left(tokens, self._eos)
            tokens.insert(i, self._eos)
            nexts.insert(i, state)
        result = (tokens, nexts)
        self._expanded[state] = result
        return result

    def get_allowed_tokens(self, state: int) -> list[int] | None:
        """Sorted token ids allowed in `state` (eos included on final states); None for an unknown state."""
        if state not in self._expanded and state not in self._ranges:
            return None
        return self.state_transitions(state)[0].tolist()

    def get_next_state(self, state: int, token_id: int) -> int | None:
        """The state after `token_id`, or None when the token is not allowed there."""
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


def preorder_trie(keys: list, root_label) -> tuple[list, list[int], list[int], list[int], list[int], list[int]]:
    """The trie of sorted, distinct `keys` (bytes or str) in pre-order arrays.

    Returns (labels, depths, ends, parents, ends_key, keys_before): node i is reached by
    `labels[i]` at depth `depths[i]`, its subtree ends before node `ends[i]`, `ends_key[i]` is 1
    where a key ends, and the keys of node i's subtree are keys_before[i] .. keys_before[ends[i]].
    Node 0 is the root (label `root_label`).
    """
    labels = [root_label]
    depths = [0]
    ends = [0]
    parents = [0]
    ends_key = [0]
    path = [0]
    prev = keys[0][:0] if keys else b""
    for key in keys:
        common = 0
        limit = min(len(prev), len(key))
        while common < limit and prev[common] == key[common]:
            common += 1
        while len(path) - 1 > common:
            ends[path.pop()] = len(labels)
        for d in range(common, len(key)):
            labels.append(key[d])
            depths.append(d + 1)
            ends.append(0)
            parents.append(path[-1])
            ends_key.append(0)
            path.append(len(labels) - 1)
        ends_key[path[-1]] = 1
        prev = key
    n = len(labels)
    while path:
        ends[path.pop()] = n
    keys_before = [0] * (n + 1)
    count = 0
    for i in range(n):
        keys_before[i] = count
        count += ends_key[i]
    keys_before[n] = count
    return labels, depths, ends, parents, ends_key, keys_before


_DENSE_POSITIONS = 1 << 24  # larger vocab sizes (sparse, absurd ids) get a dict instead of an array


class _SparsePositions(dict):
    """token id -> key for vocabularies whose ids are too spread out for a dense array."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def __missing__(self, token_id: int) -> int:
        return -1

    def __len__(self) -> int:
        return self.size


class TokenTrie:
    """Sorted keys (token byte strings, or their byte-class sequences) as a trie in pre-order arrays.

    Keys are numbered in sorted order, so every subtree holds a contiguous range of keys.
    Node i has `labels[i]` (the symbol read to reach it), `depths[i]`, `ends[i]` (the
    first node after its subtree), `below[i]` (a bit mask of the symbols in its subtree,
    below the node itself), `children[i]` (the mask of its children's symbols), `ends_key[i]`, and `keys_before[i]` (how many keys end at
    nodes before i): the keys of the subtree of i are keys_before[i] .. keys_before[ends[i]].
    Node 0 is the root. `flat_ids[id_start[k]:id_start[k + 1]]` are the token ids of key k,
    ascending; `position[token_id]` is the key of a token, or -1.
    """

    def __init__(self, keys: list[bytes], ids: list, vocab_size: int):
        self.num_keys = len(keys)
        self._id_order: tuple[array, array] | None = None
        flat = array("I")
        id_start = [0]
        for key_ids in ids:
            flat.extend(sorted(key_ids))
            id_start.append(len(flat))
        self.flat_ids = flat
        self.id_start = id_start
        position = array("i", [-1]) * vocab_size if vocab_size <= _DENSE_POSITIONS else _SparsePositions(vocab_size)
        for k, key_ids in enumerate(ids):
            for t in key_ids:
                position[t] = k
        self.position = position
        labels, depths, ends, parents, ends_key, keys_before = preorder_trie(keys, 0)
        n = len(labels)
        below = [0] * n
        children = [0] * n
        for i in range(n - 1, 0, -1):
            bit = 1 << labels[i]
            below[parents[i]] |= below[i] | bit
            children[parents[i]] |= bit
        self.labels = labels
        self.depths = depths
        self.ends = ends
        self.below = below
        self.children = children
        self.ends_key = ends_key
        self.keys_before = keys_before
        self.max_depth = max(depths)
        self.root_child = [0] * 256  # symbol -> depth-1 node, 0 when none
        i = 1
        while i < n:
            self.root_child[labels[i]] = i
            i = ends[i]

    @property
    def num_nodes(self) -> int:
        return len(self.labels)

    def expand_sparse(self, ranges: list[tuple[int, int, int]]) -> tuple[array, array]:
        """Token ids ascending and their next states for (first key, end key, next) ranges: by sorting."""
        flat, id_start = self.flat_ids, self.id_start
        segments = [(flat[id_start[lo] : id_start[hi]], ns) for lo, hi, ns in ranges]
        tokens = array("I", sorted(t for seg, _ in segments for t in seg))
        targets = {ns for _, ns in segments}
        if len(targets) == 1:
            return tokens, array("I", [targets.pop()]) * len(tokens)
        by_id: dict[int, int] = {}
        for seg, ns in segments:
            by_id.update(dict.fromkeys(seg, ns))
        return tokens, array("I", map(by_id.__getitem__, tokens))

    def expand_dense(self, ranges: list[tuple[int, int, int]]) -> tuple[array, array]:
        """Same as expand_sparse, for ranges covering much of the vocabulary: one pass in id order."""
        if self._id_order is None:
            pairs = sorted((t, k) for k in range(self.num_keys) for t in self.flat_ids[self.id_start[k] : self.id_start[k + 1]])
            self._id_order = (array("I", [t for t, _ in pairs]), array("I", [k for _, k in pairs]))
        ids_sorted, key_of = self._id_order
        mask = bytearray(self.num_keys)
        nxt = array("I", [0]) * self.num_keys
        for lo, hi, ns in ranges:
            mask[lo:hi] = b"\x01" * (hi - lo)
            nxt[lo:hi] = array("I", [ns]) * (hi - lo)
        selected = bytes(map(mask.__getitem__, key_of))
        tokens = array("I", compress(ids_sorted, selected))
        nexts = array("I", compress(map(nxt.__getitem__, key_of), selected))
        return tokens, nexts


class PreparedVocabulary:
    """A vocabulary's ordinary tokens sorted by bytes, as a byte trie; built once per vocabulary."""

    def __init__(self, vocabulary: "Vocabulary"):
        items = vocabulary.tokens
        pairs = sorted((t, ids) for t, ids in (items.items() if isinstance(items, dict) else items) if t)
        self.tokens = [t for t, _ in pairs]
        self.ids = [list(ids) for _, ids in pairs]
        self.vocab_size = vocabulary.vocab_size
        self.trie = TokenTrie(self.tokens, self.ids, vocabulary.vocab_size)


def _class_trie(dfa: ByteDFA, prepared: PreparedVocabulary) -> TokenTrie | None:
    """The vocabulary keyed by the automaton's byte classes: tokens that read the same
    class sequence behave alike in every state and share one key. Tokens with a byte no
    state accepts are left out. None when the classes cannot be numbered below 255."""
    k = dfa.num_classes
    if k >= 255:
        return None
    live = [any(row[c] >= 0 for row in dfa.table) for c in range(k)]
    translate = bytes(dfa.classes[b] if live[dfa.classes[b]] else 255 for b in range(256))
    keys = [token.translate(translate) for token in prepared.tokens]
    if len(set(keys)) * 2 > len(keys):
        return None  # too little to gain
    keyed: dict[bytes, list[int]] = {}
    for key, ids in zip(keys, prepared.ids):
        if 255 in key:
            continue
        found = keyed.get(key)
        if found is None:
            keyed[key] = list(ids)
        else:
            found.extend(ids)
    keys = sorted(keyed)
    return TokenTrie(keys, [keyed[key] for key in keys], prepared.vocab_size)


class _Walker:
    """Walks a token trie through one automaton, one start state at a time.

    `rows[s][label]` is the next state for a trie label (a byte, or a byte class);
    `leave[s]` is the mask of labels that do not loop back to s, `live[s]` of those that
    lead anywhere.
    """

    def __init__(self, dfa: ByteDFA, trie: TokenTrie, by_class: bool):
        self.trie = trie
        self.visited = 0
        if by_class:
            self.rows = dfa.table
            label_mask = [1 << c for c in range(dfa.num_classes)]
            all_labels = (1 << dfa.num_classes) - 1
        else:
            classes = dfa.classes
            self.rows = [list(map(row.__getitem__, classes)) for row in dfa.table]
            label_mask = [0] * dfa.num_classes
            for b in range(256):
                label_mask[classes[b]] |= 1 << b
            all_labels = (1 << 256) - 1
        self.leave = []
        self.live = []
        for s, row in enumerate(dfa.table):
            loop = 0
            live = 0
            for c, t in enumerate(row):
                if t == s:
                    loop |= label_mask[c]
                if t >= 0:
                    live |= label_mask[c]
            self.leave.append(all_labels ^ loop)
            self.live.append(live)

    def walk(self, start: int) -> tuple[array, array, array]:
        """(first key, end key, next state) ranges of the keys allowed from `start`."""
        t = self.trie
        ends, root_child = t.ends, t.root_child
        los, his, nexts = array("I"), array("I"), array("I")
        stack = [start] * (t.max_depth + 1)
        row = self.rows[start]
        steps = 0
        # Only the root's children whose symbol leads somewhere are entered; each is
        # walked in pre-order up to the end of its subtree.
        for label in [c for c in range(len(row)) if row[c] >= 0]:
            i = root_child[label]
            if i:
                steps += self._walk_subtree(i, ends[i], stack, los, his, nexts)
        self.visited += steps
        return los, his, nexts

    def _walk_subtree(self, i: int, stop: int, stack: list, los: array, his: array, nexts: array) -> int:
        """Walk nodes i..stop-1 (one subtree of the root) from stack[0]; returns the steps taken."""
        t = self.trie
        labels, depths, ends, below = t.labels, t.depths, t.ends, t.below
        ends_key, before, children = t.ends_key, t.keys_before, t.children
        rows, leave, live = self.rows, self.leave, self.live
        steps = 0
        while i < stop:
            steps += 1
            d = depths[i]
            ns = rows[stack[d - 1]][labels[i]]
            if ns < 0:
                i = ends[i]
                continue
            if below[i] & leave[ns]:
                # Some symbol below leaves the state: look inside (unless no child can follow);
                # this node's own key, if any, ends here.
                if children[i] & live[ns]:
                    stack[d] = ns
                    nxt = i + 1
                else:
                    nxt = ends[i]
                if not ends_key[i]:
                    i = nxt
                    continue
                lo = before[i]
                hi = lo + 1
                i = nxt
            else:
                # Every symbol below loops on `ns`: the whole subtree ends there.
                lo = before[i]
                hi = before[ends[i]]
                i = ends[i]
            if nexts and nexts[-1] == ns and his[-1] == lo:
                his[-1] = hi
            else:
                los.append(lo)
                his.append(hi)
                nexts.append(ns)
        return steps


_PREPARED: list[tuple[object, PreparedVocabulary]] = []
_PREPARED_KEEP = 4


def prepare_vocabulary(vocabulary: "Vocabulary") -> PreparedVocabulary:
    """The PreparedVocabulary of `vocabulary`, cached for the last few vocabularies used."""
    for i, (known, prepared) in enumerate(_PREPARED):
        if known is vocabulary:
            if i:
                _PREPARED.insert(0, _PREPARED.pop(i))
            return prepared
    prepared = PreparedVocabulary(vocabulary)
    _PREPARED.insert(0, (vocabulary, prepared))
    del _PREPARED[_PREPARED_KEEP:]
    return prepared
