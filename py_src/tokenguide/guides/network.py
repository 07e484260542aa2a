"""NetworkGuide: a guide over a network of byte automata (regex.network.RuleNetwork).

A state is the frozenset of live configurations (stacks of (machine, state) frames) after the
bytes generated so far; tokens are read byte by byte, so a token may end inside a UTF-8
character or across the boundary of any rule. A mask walks the vocabulary's byte trie with the
configurations. Where the top frame's state only reads its own machine's bytes (no call may
start, no return), the walk is the machine's alone and is cached per (machine, state, trie
node): string contents and keys, most of a document, cost one cached walk each; the walk
continues with whole configurations only below the trie nodes where a call or a return may come.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from ..arguments import check_token_id
from ..errors import ArgumentError, InvalidTokenError
from ..regex.network import RuleNetwork
from ..vocabulary import as_tokenizer, core_vocabulary_of
from .base import BaseGuide, vocab_size_of
from .instructions import Generate, Instruction, Write, bitmask_words, set_bits

__all__ = ["ByteTrie", "NetworkGuide"]

_MAX_LOCAL_WALKS = 4_096  # cached walks of each kind per guide (each holds a vocabulary bit set)
_MAX_CLOSURES = 8_192  # cached ordinary closures per vocabulary trie
#: printable ASCII but the quote and the backslash: the bytes inside a JSON string that leave
#: its automaton where it was (ByteTrie.ordinary_closure)
ORDINARY = frozenset(range(0x20, 0x7F)) - {0x22, 0x5C}


class ByteTrie:
    """The tokens' byte strings as a trie: node 0 is the empty prefix; `children[n]` lists
    (byte, child) and `ends[n]` the ids of the tokens whose bytes end at n."""

    def __init__(self, token_bytes: list[Optional[bytes]]):
        children: list[dict[int, int]] = [{}]
        ends: list[list[int]] = [[]]
        for token_id, data in enumerate(token_bytes):
            if not data:
                continue
            node = 0
            for b in data:
                nxt = children[node].get(b)
                if nxt is None:
                    nxt = children[node][b] = len(children)
                    children.append({})
                    ends.append([])
                node = nxt
            ends[node].append(token_id)
        self.children = [sorted(c.items()) for c in children]
        self.ends = ends
        self._closures: dict[int, tuple[int, list]] = {}

    def ordinary_closure(self, node: int) -> tuple[int, list[tuple[int, int]]]:
        """Below `node`, the tokens whose bytes past it are all ORDINARY (an int bit set), and
        the (byte, node) where such a path first meets another byte (pairs as in `children`):
        what a walk from a state that every ORDINARY byte leads back to (inside a JSON string)
        reads without walking."""
        found = self._closures.get(node)
        if found is None:
            children, ends = self.children, self.ends
            ids: list[int] = []
            exits: list[tuple[int, int]] = []
            todo = [node]
            while todo:
                n = todo.pop()
                for b, child in children[n]:
                    if b in ORDINARY:
                        ids.extend(ends[child])
                        todo.append(child)
                    else:
                        exits.append((b, child))
            bits = 0
            if ids:
                out = bytearray(max(ids) // 8 + 1)
                for i in ids:
                    out[i >> 3] |= 1 << (i & 7)
                bits = int.from_bytes(out, "little")
            if len(self._closures) >= _MAX_CLOSURES:
                self._closures.clear()
            found = self._closures[node] = (bits, exits)
        return found


@lru_cache(maxsize=4)
def _vocabulary_tables(vocab: Any, size: int, eos: int) -> tuple[list, ByteTrie]:
    token_bytes = [None if i == eos else vocab.id_to_bytes(i) for i in range(size)]
    return token_bytes, ByteTrie(token_bytes)


class NetworkGuide(BaseGuide):
    """Generate text in the language of a RuleNetwork (a JSON Schema's network path)."""

    final_state = None  # after EOS

    def __init__(self, network: RuleNetwork, tokenizer: Any):
        if not isinstance(network, RuleNetwork):
            raise ArgumentError(f"NetworkGuide: network must be a RuleNetwork, got {type(network).__name__}")
        tok = as_tokenizer(tokenizer)
        self.network = network
        self.tokenizer = tok
        self.eos_token_id = int(tok.eos_token_id)
        self.vocab_size = vocab_size_of(tok)
        self.token_bytes, self.trie = _vocabulary_tables(core_vocabulary_of(tok), self.vocab_size, self.eos_token_id)
        self.initial_state = self.start_state = network.start()
        self._nbytes = bitmask_words(self.vocab_size) * 4
        self._local: dict[tuple, tuple[int, list]] = {}
        self._walks: dict[tuple, int] = {}
        self._plain_of: dict[tuple, dict[int, bool]] = {}
        self._loops: dict[int, dict[int, bool]] = {}

    # -- masks ----------------------------------------------------------------------------------
    def mask_bytes(self, state: Any) -> bytes:
        """The packed mask of the tokens allowed in `state` (EOS where the text may end)."""
        if state is None:
            return (1 << self.eos_token_id).to_bytes(self._nbytes, "little")
        bits = 0
        for st in state:
            bits |= self._stack_bits(st, 0)
        if self.network.can_end(state):
            bits |= 1 << self.eos_token_id
        return bits.to_bytes(self._nbytes, "little")

    def _stack_bits(self, st: tuple, node: int) -> int:
        """Tokens allowed below trie node `node` (the bytes to it already read into `st`), as an int."""
        m, q, below = st
        if not self.network.plain(m, q, below is None):
            return self._walk(node, frozenset((st,)))
        local, frontier = self._machine_walk(m, q, below is None, node)
        for child, t in frontier:
            local |= self._walk(child, frozenset(((m, t, below),)))
        return local

    def _machine_walk(self, m: int, q: int, bottom: bool, node: int) -> tuple[int, list]:
        """Below `node`, the tokens machine m alone allows from plain state q (an int bit set),
        and the (trie node, state) where it reaches a state that is not plain."""
        key = (m, q, bottom, node)
        found = self._local.get(key)
        if found is not None:
            return found
        row_of = self.network.machines[m].dfa.row
        plain = self.network.plain
        plain_of = self._plain_of.setdefault((m, bottom), {})  # state -> plain (fewer calls in the loop)
        loops_of = self._loops.setdefault(m, {})  # state -> every ORDINARY byte leads back to it
        closure = self.trie.ordinary_closure
        extra = 0
        rows: dict[int, list[int]] = {}
        children, ends = self.trie.children, self.trie.ends
        out = bytearray(self._nbytes)
        frontier: list[tuple[int, int]] = []
        todo = [(children[node], q)]  # ((byte, trie node) pairs to read, the state before them)
        while todo:
            pairs, s = todo.pop()
            row = rows.get(s)
            if row is None:
                row = rows[s] = row_of(s)
            for b, child in pairs:
                t = row[b]
                if t < 0:
                    continue
                e = ends[child]
                if e:
                    for token_id in e:
                        out[token_id >> 3] |= 1 << (token_id & 7)
                if not children[child]:
                    continue
                p = plain_of.get(t)
                if p is None:
                    p = plain_of[t] = plain(m, t, bottom)
                if not p:
                    frontier.append((child, t))
                    continue
                loops = loops_of.get(t)
                if loops is None:
                    t_row = rows.get(t)
                    if t_row is None:
                        t_row = rows[t] = row_of(t)
                    loops = loops_of[t] = all(t_row[x] == t for x in ORDINARY)
                if loops:  # every ORDINARY byte leaves t where it is: those tokens at once
                    bits, exits = closure(child)
                    extra |= bits
                    todo.append((exits, t))
                else:
                    todo.append((children[child], t))
        if len(self._local) >= _MAX_LOCAL_WALKS:
            self._local.clear()
        found = self._local[key] = (int.from_bytes(out, "little") | extra, frontier)
        return found

    def _walk(self, node: int, stacks: frozenset) -> int:
        """Every token below `node` that configurations `stacks` may read (cached: the walks
        below a string's closing quote are the same at each place inside the string)."""
        key = (node, stacks)
        found = self._walks.get(key)
        if found is not None:
            return found
        children, ends = self.trie.children, self.trie.ends
        step = self.network.step
        out = bytearray(self._nbytes)
        extra = 0
        todo = [(node, stacks)]
        while todo:
            n, cur = todo.pop()
            for b, child in children[n]:
                nxt = step(cur, b)
                if not nxt:
                    continue
                for token_id in ends[child]:
                    out[token_id >> 3] |= 1 << (token_id & 7)
                if not children[child]:
                    continue
                if len(nxt) == 1:
                    (st,) = nxt
                    if self.network.plain(st[0], st[1], st[2] is None):
                        extra |= self._stack_bits(st, child)
                        continue
                todo.append((child, nxt))
        if len(self._walks) >= _MAX_LOCAL_WALKS:
            self._walks.clear()
        found = self._walks[key] = int.from_bytes(out, "little") | extra
        return found

    def allowed_token_ids(self, state: Any) -> list[int]:
        return list(set_bits(int.from_bytes(self.mask_bytes(state), "little")))

    # -- the guide interface ---------------------------------------------------------------------
    def get_next_instruction(self, state: Any) -> Instruction:
        """Write([eos]) after EOS; Write([t]) when t is the only valid token; else Generate(valid ids)."""
        if state is None:
            return Write([self.eos_token_id])
        valid = self.allowed_token_ids(state)
        return Write(valid) if len(valid) == 1 else Generate(valid)

    def get_next_state(self, state: Any, token_id: int) -> Any:
        """The configurations after `token_id`; EOS gives the state after the end (None)."""
        token_id = check_token_id("NetworkGuide.get_next_state", "token_id", token_id)
        if state is None or token_id == self.eos_token_id:
            if state is not None and not self.network.can_end(state):
                raise InvalidTokenError(f"NetworkGuide: EOS (token {token_id}) is not allowed: the text is not "
                                        "complete; sample from get_next_instruction's tokens")
            return None
        data = self.token_bytes[token_id] if 0 <= token_id < len(self.token_bytes) else None
        nxt = self.network.walk(state, data) if data else frozenset()
        if not nxt:
            raise InvalidTokenError(f"NetworkGuide: token {token_id} ({data!r}) is not allowed here; sample from "
                                    "get_next_instruction's tokens")
        return nxt

    def is_final_state(self, state: Any) -> bool:
        """The text so far may end (outlines' meaning for CFG guides)."""
        return state is None or self.network.can_end(state)

    def can_terminate_state(self, state: Any) -> bool:
        return self.is_final_state(state)

    def must_terminate_state(self, state: Any) -> bool:
        """Only EOS may come next."""
        if state is None:
            return True
        return self.network.can_end(state) and self.allowed_token_ids(state) == [self.eos_token_id]

    def __repr__(self) -> str:
        return f"NetworkGuide(machines={len(self.network.machines)}, vocab_size={self.vocab_size})"
