"""Token masks of the engine: one walk of the vocabulary's byte trie, cached per lexer state.

Below a trie node, as long as no lexeme is complete, only the lexer state moves: the tokens
that stay alive and the nodes where some lexeme completes (the exits) depend on the lexer
state and the node alone. `TrieWalks` caches that summary per (lexer state, node) for each
vocabulary, shared by every grammar and guide (lexer states are process-wide). A mask then
costs one lookup per (row, lexer state, node) reached: at each exit the Earley row scans the
lexeme (cached per row) and the walk goes on below the exit from the new row's boundary state.
String contents, numbers and keys, most of a document, are whole cached token sets.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from ..index.trie import PreparedVocabulary, prepare_vocabulary
from ..ir.derivatives import EmptinessBudgetError
from ..ir.lexemes import from_regex, lexeme_of
from ..ir.windows import within_window
from .lexer import LEXER_STATES
from .slices import CharSlice, after_chars, chars_in, live_count, never_reads, slice_view

__all__ = ["JSON_LINE_CHARS", "JSON_STRING_CHARS", "TrieWalks", "prepare_walks", "walks_for"]

#: the plain characters of a JSON string (its other characters are escapes), whose slice
#: `prepare_walks` builds ahead
JSON_STRING_CHARS = r'[^"\\\x00-\x1f]'
#: those but the line terminators: the characters of a pattern's `.` in a JSON string (`.*` and
#: `.{0,n}` are common), whose slice `prepare_walks` builds ahead too
JSON_LINE_CHARS = r'[^"\\\x00-\x1f\u2028\u2029]'
#: cached summaries per vocabulary, and the bytes their token bit sets may take together (a
#: summary at the trie root holds up to vocab_size bits: 16 KB for Llama 3)
MAX_WALKS = 400_000
MAX_WALK_BYTES = 64 << 20
#: what one cache entry costs besides its token set (tuples, dict slot), counted toward the bound
ENTRY_BYTES = 160
#: token sets of at most this many keys are kept as tuples of ids, larger ones as int bit sets
SMALL_SET = 48
#: a state that this many bytes lead back to gets walks of its own, cached (see TrieWalks._walk)
LOOP_BYTES = 32
#: the short-token window is the smallest depth past which the long tokens' paths hold at most
#: this many trie nodes (those are walked exactly, from the state itself)
LONG_PATH_NODES = 3_000
#: character sets that get a CharSlice per vocabulary (each a few MB on Llama 3, never dropped)
MAX_SLICES = 8
#: a slice's tokens below a node with at most this many keys are listed, not masked vocabulary-wide
SLICE_KEYS = 256
#: a node's walk is delegated to a looping state's when at least this many children agree
DELEGATE_CHILDREN = 16


class TrieWalks:
    """Per vocabulary: for (lexer state, trie node), the tokens strictly below the node whose
    bytes keep the lexer alive (an int bit set over token ids), and the exits below it.

    Exits are grouped by the lexer state reached there, and only exits with children are kept
    (a token that ends where a lexeme completes is alive already). `follow(...)` narrows a
    group to the nodes where a next lexer state can read at least one child's byte.
    """

    def __init__(self, prepared: PreparedVocabulary):
        self.prepared = prepared
        self.trie = prepared.trie
        self._cache: dict[tuple[int, int], tuple[int, tuple]] = {}
        self._bytes = 0  # bit-set bytes held by _cache and _follow together
        self._follow: dict[tuple, tuple] = {}
        self._first: dict[int, int] = {}
        self._groups = 0  # exit groups made so far: each has its own number (the follow key)
        self._looping: dict[int, bool] = {}
        self._canonical: dict[int, int] = {}
        self._automaton_of: dict[int, int] = {}  # windowed expression -> the automaton its walks are in
        self._loop_masks: dict[int, int] = {}
        self._key_nodes: list[int] = []
        self._slice_views: dict[int, Any] = {}  # lexer state -> (CharSlice, lo, hi, exits past lo) or None
        self._slices: dict[int, CharSlice] = {}  # character set (lexeme id) -> its slice
        self.vocab_size = prepared.vocab_size
        self.deepest: list[int] = []
        self.window, self.long_keys, self.long_paths = self._long_tokens()

    def _long_tokens(self) -> tuple[int, list[int], dict[int, tuple]]:
        """(window W, keys of the tokens longer than W bytes, key -> trie nodes of its path):
        tokens of at most W bytes are walked from states seen through W bytes (`canonical`),
        shared between lexemes; the few longer ones exactly (`_long_walk`)."""
        trie = self.trie
        depths, ends_key, keys_before = trie.depths, trie.ends_key, trie.keys_before
        n = len(depths)
        deepest = list(depths)  # the depth of the deepest node below each node (pre-order: from the end)
        parents = [0] * n
        stack = [0] * (trie.max_depth + 1)
        for i in range(1, n):
            stack[depths[i]] = i
            parents[i] = stack[depths[i] - 1]
        for i in range(n - 1, 0, -1):
            p = parents[i]
            if deepest[i] > deepest[p]:
                deepest[p] = deepest[i]
        self.deepest = deepest
        histogram = [0] * (trie.max_depth + 2)
        for i in range(1, n):
            histogram[deepest[i]] += 1
        window = trie.max_depth
        for w in (12, 16, 20, 24, 32, 48, 64, 96):
            if w < trie.max_depth and sum(histogram[w + 1 :]) <= LONG_PATH_NODES:
                window = w
                break
        paths: dict[int, tuple] = {}
        stack = [0] * (trie.max_depth + 1)
        for i in range(1, n):
            stack[depths[i]] = i
            if ends_key[i] and depths[i] > window:
                paths[keys_before[i]] = tuple(stack[1 : depths[i] + 1])
        return window, sorted(paths), paths

    def follow(self, group: int, nodes: tuple, state: int) -> tuple[Any, tuple]:
        """Below the exit nodes `nodes` (exit group number `group`), a lexeme starting from
        boundary state `state`: (the tokens that stay alive, merged as in `summary`, and the
        nodes whose own walks have exits of their own, which the caller goes on from)."""
        key = (group, state)
        found = self._follow.get(key)
        if found is None:
            first = self._first.get(state)
            if first is None:
                first = 0
                for b, nxt in enumerate(LEXER_STATES.row(state)):
                    if nxt >= 0:
                        first |= 1 << b
                self._first[state] = first
            children = self.trie.children
            big = 0
            small: list[int] = []
            deep = []
            for m in nodes:
                if not children[m] & first:
                    continue
                inside, exits = self.summary(state, m)
                if type(inside) is int:
                    big |= inside
                else:
                    small.extend(inside)
                if exits:
                    deep.append(m)
            if len(small) > 4 * SMALL_SET:
                big |= self.trie.ids_mask(small, len(small))
                small = []
            merged = (big or None, tuple(small))
            found = (merged, tuple(deep))
            self._remember(self._follow, key, found, big.bit_length() // 8 + 8 * (len(small) + len(deep)) + ENTRY_BYTES)
        return found

    def canonical(self, state: int) -> int:
        """The lexer state short tokens are walked from for `state`: its expression seen through
        the window (`ir.windows`), so states that differ only in counts past it share walks; and in
        the first automaton that reached that expression, so lexemes that go on alike (a string's
        contents after any key's opening quote) share them too (`short_summary` renames exits)."""
        found = self._canonical.get(state)
        if found is None:
            if LEXER_STATES.automaton[state] < 0:  # EMPTY: no lexeme, nothing to see through a window
                return state
            expr = lexeme_of(LEXER_STATES.machine_state[state])
            seen = within_window(expr, self.window)
            automaton = LEXER_STATES.automaton[state]
            shared = self._automaton_of.setdefault(seen.id, automaton)
            found = state if seen is expr and shared == automaton else LEXER_STATES.at(shared, seen.id)
            self._canonical[state] = found
        return found

    def summary(self, state: int, node: int) -> tuple[Any, tuple]:
        """(tokens below `node` that keep `state` alive: an int bit set or a tuple of ids,
        ((lexer state, group number, exit nodes), ...)): the short tokens' walk from the state
        seen through the window, and the long tokens' exact walk."""
        trie = self.trie
        lo = bisect_left(self.long_keys, trie.keys_before[node])
        hi = bisect_left(self.long_keys, trie.keys_before[trie.ends[node]])
        if lo == hi:
            return self.short_summary(state, node)
        key = (state, node, 1)
        found = self._cache.get(key)
        if found is None:
            short_inside, short_groups = self.short_summary(state, node)
            long_inside, long_groups = self._long_walk(state, node, lo, hi)
            found = (self._merge([short_inside, long_inside]), short_groups + long_groups)
            self._remember(self._cache, key, found, self._size(found))
        return found

    def short_summary(self, state: int, node: int) -> tuple[Any, tuple]:
        """`summary` for the tokens of at most `window` bytes only."""
        shared = self.canonical(state)
        automaton = LEXER_STATES.automaton
        if automaton[shared] != automaton[state]:  # another automaton's walk, exits renamed to ours
            key = (state, node, 2)
            found = self._cache.get(key)
            if found is None:
                inside, groups = self.short_summary(shared, node)
                at, machine_state, mine = LEXER_STATES.at, LEXER_STATES.machine_state, automaton[state]
                found = (inside, tuple((at(mine, machine_state[v]), group, nodes) for v, group, nodes in groups))
                self._remember(self._cache, key, found, 64 * len(groups) + ENTRY_BYTES)
            return found
        key = (shared, node, 0)
        found = self._cache.get(key)
        if found is None:
            found = self._delegated(shared, node)
            if found is None:
                found = self._walk(shared, node)
            self._remember(self._cache, key, found, self._size(found))
        return found

    def _delegated(self, state: int, node: int) -> Any:
        """`short_summary(state, node)` from a looping state's: where the byte below `node`
        takes `state` and a looping state u to the same state (a key that is not one of the
        declared ones, once it differs from them all, reads on as any string does), the subtree
        is u's, already walked and cached; only the other children are walked from `state`.
        None when no such u covers most children."""
        trie = self.trie
        labels, ends, keys_before = trie.labels, trie.ends, trie.keys_before
        kids = []
        i = node + 1
        while i < ends[node]:
            kids.append(i)
            i = ends[i]
        if len(kids) < DELEGATE_CHILDREN:
            return None
        row = LEXER_STATES.row(state)
        counts: dict[int, int] = {}
        for c in kids:
            nxt = row[labels[c]]
            if nxt >= 0 and nxt != state:
                counts[nxt] = counts.get(nxt, 0) + 1
        if not counts:
            return None
        u = max(counts, key=counts.__getitem__)
        if counts[u] < DELEGATE_CHILDREN or not (self._looping.get(u) if u in self._looping else self._is_looping(u)):
            return None
        theirs = LEXER_STATES.row(u)
        other = [c for c in kids if row[labels[c]] != theirs[labels[c]]]
        if len(other) * 4 > len(kids):
            return None
        inside, groups = self.short_summary(u, node)
        if not other:
            return inside, groups
        starts = [c for c in other]
        stops = [ends[c] for c in other]

        def outside(m: int) -> bool:
            j = bisect_right(starts, m) - 1
            return j < 0 or m >= stops[j]

        if type(inside) is int:
            for c in other:
                inside &= ~trie.range_mask(keys_before[c], keys_before[ends[c]])
        else:
            position = trie.position
            inside = tuple(t for t in inside if outside(self._node_of_key(position[t])))
        kept = []
        for v, group, nodes in groups:
            mine = tuple(m for m in nodes if outside(m))
            if len(mine) == len(nodes):
                kept.append((v, group, nodes))
            elif mine:
                self._groups += 1
                kept.append((v, self._groups, mine))
        own_inside, own_groups = self._walk(state, node, other)
        return self._merge([inside, own_inside]), tuple(kept) + own_groups

    def _node_of_key(self, key: int) -> int:
        """The trie node where key `key` ends."""
        nodes = self._key_nodes
        if not nodes:
            trie = self.trie
            nodes.extend(i for i in range(len(trie.ends_key)) if trie.ends_key[i])
        return nodes[key]

    @staticmethod
    def _size(found: tuple) -> int:
        inside = found[0]
        return (inside.bit_length() // 8 if type(inside) is int else 8 * len(inside)) + 64 * len(found[1]) + ENTRY_BYTES

    def _long_walk(self, state: int, node: int, lo: int, hi: int) -> tuple[Any, tuple]:
        """The tokens longer than the window below `node` (long keys lo..hi-1), walked exactly
        from `state`, sharing prefixes; exits deeper than the window."""
        trie = self.trie
        labels, children, depths = trie.labels, trie.children, trie.depths
        rows, row_of, final = LEXER_STATES.rows, LEXER_STATES.row, LEXER_STATES.final
        window, paths = self.window, self.long_paths
        base = depths[node]
        states = [state] * (trie.max_depth + 2)
        keys: list[int] = []
        exits: dict[int, list[int]] = {}
        previous: tuple = ()
        valid = base  # states[0..valid] hold for the previous path
        counts = None
        view = self._slice_views.get(state, 0)
        if view == 0:
            view = self._slice_view(state)
        if view is not None and not view[3]:  # string contents: a slice token lives by its count alone
            counts = view[0].counts
            most = None if view[2] is None else self._chars_before(node) + view[2] + 1
            lead = view[0].lead
            expr = lexeme_of(LEXER_STATES.machine_state[state])
            jumps: dict[int, int] = {}
            deaf: dict[int, bool] = {}  # byte -> the state cannot read it after any count
        for k in self.long_keys[lo:hi]:
            if counts is not None:
                if counts[k]:
                    if most is None or counts[k] <= most:
                        keys.append(k)
                    continue
                # another token: its leading characters of the slice move the state by their count
                # alone (no exit among them: T is not nullable), straight to the state after them
                run, width = lead(k, base)
                if run:
                    if view[2] is not None and run > view[2]:
                        continue
                    path = paths[k]
                    if base + width < len(path):
                        b = labels[path[base + width]]
                        dead = deaf.get(b)
                        if dead is None:
                            dead = deaf[b] = never_reads(expr, b)
                        if dead:  # (a control character after `//----`: dead whatever the count)
                            continue
                    jumped = jumps.get(run)
                    if jumped is None:
                        jumped = jumps[run] = LEXER_STATES.at(LEXER_STATES.automaton[state], after_chars(expr, run).id)
                    path = paths[k]
                    d = base + width
                    states[d] = jumped
                    valid = base  # (the states above d were not made: no prefix shared with the next path)
                    previous = ()
                    alive = True
                    while d < len(path):
                        p = path[d]
                        r = rows[states[d]]
                        if r is None:
                            r = row_of(states[d])
                        nxt = r[labels[p]]
                        if nxt < 0:
                            alive = False
                            break
                        d += 1
                        states[d] = nxt
                        if final[nxt] and children[p] and d > window:
                            exits.setdefault(nxt, []).append(p)
                    if alive:
                        keys.append(k)
                    continue
            path = paths[k]
            d = base
            limit = min(len(previous), valid)
            while d < limit and previous[d] == path[d]:
                d += 1
            alive = True
            while d < len(path):
                p = path[d]
                r = rows[states[d]]
                if r is None:
                    r = row_of(states[d])
                nxt = r[labels[p]]
                if nxt < 0:
                    alive = False
                    break
                d += 1
                states[d] = nxt
                if final[nxt] and children[p] and d > window:
                    exits.setdefault(nxt, []).append(p)
            valid = d
            previous = path
            if alive:
                keys.append(k)
        groups = []
        for v, nodes in exits.items():
            self._groups += 1
            groups.append((v, self._groups, tuple(nodes)))
        return self._bits(keys), tuple(groups)

    def _merge(self, parts: list) -> Any:
        """The union of token sets (int bit sets or tuples of ids), in the same two forms."""
        big = 0
        small: list[int] = []
        for part in parts:
            if type(part) is int:
                big |= part
            else:
                small.extend(part)
        if big or len(small) > SMALL_SET:
            return big | self.trie.ids_mask(small, len(small)) if small else big
        return tuple(small)

    def _remember(self, cache: dict, key: Any, value: Any, size: int) -> None:
        """Keep `value`; past MAX_WALKS entries or MAX_WALK_BYTES in all, both caches start again."""
        if len(cache) >= MAX_WALKS or self._bytes + size > MAX_WALK_BYTES:
            self._cache.clear()
            self._follow.clear()
            self._bytes = 0
        cache[key] = value
        self._bytes += size

    def _walk(self, state: int, node: int, only: Any = None) -> tuple[Any, tuple]:
        """Walk the subtree of `node` from `state`; below a node where another looping state is
        reached (inside a string, whatever lexeme led there), that state's own cached walk is
        taken, so string contents are walked once per vocabulary for every lexeme."""
        trie = self.trie
        labels, depths, ends, ends_key, keys_before = trie.labels, trie.depths, trie.ends, trie.ends_key, trie.keys_before
        rows = LEXER_STATES.rows
        row_of = LEXER_STATES.row
        final = LEXER_STATES.final
        base = depths[node]
        states = [state] * (trie.max_depth + 2)
        keys: list[int] = []
        spans: list[tuple[int, int]] = []  # whole subtrees read in one state (key ranges)
        exits: dict[int, list[int]] = {}
        parts: list[Any] = []  # walks of shared states below some nodes (`looping`)
        groups: list[tuple] = []
        children = trie.children
        below = trie.below
        deepest = self.deepest
        loop_masks = self._loop_masks
        looping = self._looping
        window = self.window
        segments = [(node + 1, ends[node])] if only is None else [(c, ends[c]) for c in only]
        if only is None:
            view = self._slice_views.get(state, 0)
            if view == 0:
                view = self._slice_view(state)
            if view is not None:  # string contents: the slice at once, the subtrees outside it walked
                chars, lo, hi, exits_past = view
                before = self._chars_before(node) if hi is not None else 0
                first, last = keys_before[node] + ends_key[node], keys_before[ends[node]]
                if last - first <= SLICE_KEYS:
                    keys.extend(chars.keys_alive(hi, before, first, last))
                else:
                    alive = chars.alive(hi, before)
                    parts.append(alive & trie.range_mask(first, last) if node else alive)
                # only the nodes above other tokens are walked; exits on slice tokens (an empty T
                # after lo characters) are listed by character count
                exits = self._slice_exits(state, node, chars) if exits_past else {}
                return self._walk_mixed(state, node, chars.mixed_nodes(trie), keys, parts, exits)
        for i, end in segments:
            while i < end:
                d = depths[i]
                if d > window:  # only tokens longer than the window below: `_long_walk` reads them
                    i = ends[i]
                    continue
                parent = states[d - 1]
                r = rows[parent]
                if r is None:
                    r = row_of(parent)
                s = r[labels[i]]
                if s < 0:
                    i = ends[i]
                    continue
                states[d] = s
                if ends_key[i]:
                    keys.append(keys_before[i])
                if children[i]:
                    loop = loop_masks.get(s)
                    if loop is None:
                        loop = self._loop_mask(s)
                    if loop and not below[i] & ~loop and deepest[i] <= window:
                        # every byte below leads back to s (not final): the whole subtree is alive
                        spans.append((keys_before[i] + ends_key[i], keys_before[ends[i]]))
                        i = ends[i]
                        continue
                if s != state and children[i] and (looping.get(s) if s in looping else self._is_looping(s)):
                    inside, sub_groups = self.short_summary(s, i)
                    parts.append(inside)
                    groups.extend(sub_groups)
                    i = ends[i]
                    continue
                if final[s] and children[i]:
                    group = exits.get(s)
                    if group is None:
                        exits[s] = [i]
                    else:
                        group.append(i)
                i += 1
        for s, nodes in exits.items():
            self._groups += 1
            groups.append((s, self._groups, tuple(nodes)))
        own = self._bits(keys)
        if spans:
            range_mask = trie.range_mask
            parts.extend(range_mask(lo, hi) for lo, hi in spans if lo < hi)
        if not parts:
            return own, tuple(groups)
        parts.append(own)
        return self._merge(parts), tuple(groups)

    def _slice_exits(self, state: int, node: int, chars: CharSlice) -> dict[int, list[int]]:
        """The exits below `node` on slice tokens for a string contents state whose T may be
        empty: after k characters the state is the one k plain characters lead to, the same
        whichever they are; where it is final, every slice node k characters further is an exit."""
        by_count = chars.exit_nodes(self.trie)
        ends = self.trie.ends
        before = self._chars_before(node)
        step = chars.plain_byte
        final, row = LEXER_STATES.final, LEXER_STATES.row
        exits: dict[int, list[int]] = {}
        s = state
        for c in range(before + 1, len(by_count)):
            s = row(s)[step]
            if s < 0:
                break
            if final[s]:
                nodes = by_count[c]
                lo = bisect_right(nodes, node)
                hi = bisect_left(nodes, ends[node], lo)
                if lo < hi:
                    exits.setdefault(s, []).extend(nodes[lo:hi])
        return exits

    def _walk_mixed(self, state: int, node: int, mixed: list[int], keys: list[int], parts: list,
                    exits: dict[int, list[int]]) -> tuple[Any, tuple]:
        """`_walk` of a string contents state, the slice's own tokens taken (`keys`, `parts`) and
        its exits on slice tokens found (`exits`): only the `mixed` nodes are visited (those above
        a token outside the slice), a dead one's subtree skipped."""
        trie = self.trie
        labels, depths, ends, ends_key, keys_before, children = (
            trie.labels, trie.depths, trie.ends, trie.ends_key, trie.keys_before, trie.children)
        rows, row_of, final = LEXER_STATES.rows, LEXER_STATES.row, LEXER_STATES.final
        window = self.window
        states = [state] * (trie.max_depth + 2)
        j = bisect_right(mixed, node)
        stop = bisect_left(mixed, ends[node], j)
        while j < stop:
            i = mixed[j]
            d = depths[i]
            if d > window:
                j = bisect_left(mixed, ends[i], j + 1, stop)
                continue
            parent = states[d - 1]
            r = rows[parent]
            if r is None:
                r = row_of(parent)
            s = r[labels[i]]
            if s < 0:
                j = bisect_left(mixed, ends[i], j + 1, stop)
                continue
            states[d] = s
            if ends_key[i]:
                keys.append(keys_before[i])
            if final[s] and children[i]:
                group = exits.get(s)
                if group is None:
                    exits[s] = [i]
                else:
                    group.append(i)
            j += 1
        groups = []
        for s, nodes in exits.items():
            self._groups += 1
            groups.append((s, self._groups, tuple(nodes)))
        parts.append(self._bits(keys))
        return self._merge(parts), tuple(groups)

    def _slice_view(self, state: int) -> Any:
        """(CharSlice, lo, hi, exits past lo) when `state` reads string contents of a large character set
        (`slices.slice_view`), else None; the slice is built once per character set."""
        expr = lexeme_of(LEXER_STATES.machine_state[state])
        view = slice_view(expr)
        if view is not None:
            plain, lo, hi, exits_past = view
            try:
                hi = live_count(expr, lo, hi)  # (an intersection: the counts it stays non-empty for)
            except EmptinessBudgetError:
                view = None
        if view is not None:
            if plain.id not in self._slices and len(self._slices) >= MAX_SLICES:
                view = None  # slices are kept for good: past a few character sets, walk as before
            else:
                chars = self.slice_of(plain)
                view = (chars, lo, hi, exits_past) if chars.plain_byte is not None or not exits_past else None
        self._slice_views[state] = view
        return view

    def slice_of(self, plain: Any) -> CharSlice:
        """The CharSlice of the character set `plain` (a CHARS lexeme), built once."""
        chars = self._slices.get(plain.id)
        if chars is None:
            prepared = self.prepared
            chars = self._slices[plain.id] = CharSlice(prepared.tokens, prepared.ids, self.vocab_size, self.window, plain)
        return chars

    def _chars_before(self, node: int) -> int:
        """How many characters start on the path to `node`."""
        if not node:
            return 0
        return chars_in(self.prepared.tokens[self.trie.keys_before[node]][: self.trie.depths[node]])

    def _loop_mask(self, state: int) -> int:
        """The bytes that lead `state` back to itself, as a 256-bit mask (0 for a final state)."""
        found = 0
        if not LEXER_STATES.final[state]:
            for b, nxt in enumerate(LEXER_STATES.row(state)):
                if nxt == state:
                    found |= 1 << b
        self._loop_masks[state] = found
        return found

    def _is_looping(self, state: int) -> bool:
        """`state` is not final and many bytes lead back to it (inside a string, say): a state
        that many lexemes reach, so its walks below a node are worth caching on their own."""
        row = LEXER_STATES.row(state)
        found = self._looping[state] = not LEXER_STATES.final[state] and sum(1 for x in row if x == state) >= LOOP_BYTES
        return found

    def _bits(self, keys: list[int]) -> Any:
        """The token ids of `keys`: a tuple when there are few (setting them costs less than
        copying a vocabulary-wide int), else an int bit set."""
        ids = self.trie.key_ids(keys)
        return tuple(ids) if len(keys) <= SMALL_SET else self.trie.ids_mask(ids, len(keys))


_WALKS: list[tuple[Any, TrieWalks]] = []
_KEEP = 4


def walks_for(vocabulary: Any) -> TrieWalks:
    """The TrieWalks of a Vocabulary, kept for the last few vocabularies used."""
    for i, (known, walks) in enumerate(_WALKS):
        if known is vocabulary:
            if i:
                _WALKS.insert(0, _WALKS.pop(i))
            return walks
    walks = TrieWalks(prepare_vocabulary(vocabulary))
    _WALKS.insert(0, (vocabulary, walks))
    del _WALKS[_KEEP:]
    return walks


def prepare_walks(vocabulary: Any) -> TrieWalks:
    """`walks_for(vocabulary)` with the slice of JSON string contents built: what a server does
    once per vocabulary (as llguidance builds its token slices with its tokenizer)."""
    walks = walks_for(vocabulary)
    walks.trie.range_mask(0, 1)  # (builds the trie's prefix masks, which whole subtrees' token sets come from)
    for plain in (JSON_STRING_CHARS, JSON_LINE_CHARS):
        chars = walks.slice_of(from_regex(plain))
        chars.mixed_nodes(walks.trie)
        chars.exit_nodes(walks.trie)
    return walks
