"""Reading `.outlines` payloads without trusting them: every field is validated as its bytes arrive.

`PayloadParser` is fed the decompressed payload chunk by chunk (`gzip_member.inflate_chunks`
yields at most 4 MiB at a time) and rejects a file at the first impossible field, so a hostile
file costs what its valid prefix costs. Rules checked as soon as the field is read: the header
(eos_token_id < vocab_size), index_type, duplicate final states, duplicate state entries,
num_transitions <= vocab_size (a state lists each token at most once), token ids below
vocab_size, a repeated token inside an ascending run, eos transitions. "Room" rules (a count
larger than the bytes that remain) need the payload size, which is known when the last chunk is
fed: a small file arrives in one chunk, so every rule is applied in the order of
INDEX_BINARY_FORMAT.md, and a large one is checked against its size when its end is reached.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from array import array
from typing import Callable, Iterable, Iterator

from ..errors import IndexFormatError
from .gzip_member import inflate_chunks
from . import layout
from .layout import DEFAULT_MAX_SIZE, HEADER_FIELDS, INDEX_TYPE, IndexData, u32_array

__all__ = ["PayloadParser", "parse_payload", "read_index_data"]

_COMPACT_AT = 1 << 20  # consumed bytes after which the parser's buffer is compacted


def _truncated(field: str, offset: int, need: int, size: int) -> IndexFormatError:
    return IndexFormatError(
        f"payload truncated: {field} needs {need} bytes at payload offset {offset}, "
        f"but the payload has only {size} bytes",
        field,
        offset,
    )


def _first_duplicate(values: Iterable[int]) -> tuple[int, int]:
    """(position, value) of the first value already seen earlier in `values` (error paths only)."""
    seen = set()
    for position, value in enumerate(values):
        if value in seen:
            return position, value
        seen.add(value)
    raise AssertionError("no duplicate")  # pragma: no cover


def _ascending(tokens: array) -> bool:
    return all(map(operator.lt, tokens, itertools.islice(tokens, 1, None)))


class PayloadParser:
    """Validates a v1 payload fed in chunks: `feed(chunk)` as bytes arrive, then `finish()`.

    Raises IndexFormatError naming the field and its payload offset at the first impossible
    field. Holds the parsed transitions (what the declared counts need) plus the unparsed
    remainder of the current chunk, never more.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._pos = 0  # next unread byte in _buf
        self._base = 0  # payload offset of _buf[0]
        self._size: int | None = None  # payload size, once the last chunk has been fed
        self._result: IndexData | None = None
        self._ascending_seen: set[bytes] = set()
        self._run = self._parse()
        next(self._run)

    def feed(self, chunk: bytes, last: bool = False) -> None:
        """Parse `chunk`, the next bytes of the payload (`last`: nothing follows it)."""
        if self._size is not None:
            raise RuntimeError("PayloadParser.feed after the last chunk")
        self._buf += chunk
        if last:
            self._size = self._base + len(self._buf)
        try:
            self._run.send(None)
        except StopIteration as stop:
            self._result = stop.value

    def finish(self) -> IndexData:
        """The parsed payload; IndexFormatError when it ends early."""
        if self._size is None:
            self.feed(b"", last=True)
        assert self._result is not None
        return self._result

    # -- byte access ---------------------------------------------------------------------------
    def _offset(self) -> int:
        return self._base + self._pos

    def _available(self) -> int:
        return len(self._buf) - self._pos

    def _wait(self, n: int, short: Callable[[], IndexFormatError]) -> Iterator[None]:
        """Suspend until `n` unread bytes are buffered; at the end of the payload raise short()."""
        while len(self._buf) - self._pos < n:
            if self._size is not None:
                raise short()
            if self._pos >= _COMPACT_AT or self._pos == len(self._buf):
                del self._buf[: self._pos]
                self._base += self._pos
                self._pos = 0
            yield

    def _u32(self) -> int:
        return self._words(1)[0]

    def _words(self, count: int) -> array:
        """The next `count` u32 words as an array (consumed)."""
        words = u32_array()
        with memoryview(self._buf) as view:
            words.frombytes(view[self._pos : self._pos + 4 * count])
        if layout.SWAP:  # a big-endian host (a module attribute, so tests can simulate one)
            words.byteswap()
        self._pos += 4 * count
        return words

    # -- the payload, field by field -----------------------------------------------------------
    def _parse(self) -> Iterator[None]:
        yield
        yield from self._wait(16, lambda: self._header_short())
        vocab_size, eos, initial, num_final = (self._u32() for _ in range(4))
        if eos >= vocab_size:
            raise IndexFormatError(f"eos_token_id {eos} is not below vocab_size {vocab_size}", "eos_token_id", 4)
        self._check_final_room(num_final)
        finals = u32_array()
        final_set: set[int] = set()
        while len(finals) < num_final:
            yield from self._wait(4, lambda: self._final_room_error(num_final))
            batch = self._words(min(self._available() // 4, num_final - len(finals)))
            final_set.update(batch)
            if len(final_set) != len(finals) + len(batch):
                position, value = _first_duplicate(itertools.chain(finals, batch))
                raise IndexFormatError(f"final state {value} is listed twice", "final_state_ids", 16 + 4 * position)
            finals.extend(batch)

        yield from self._wait(1, lambda: _truncated("index_type", self._offset(), 1, self._size))
        index_type = self._buf[self._pos]
        if index_type != INDEX_TYPE:
            raise IndexFormatError(
                f"unknown index_type {index_type}: this reader knows only type {INDEX_TYPE}", "index_type", self._offset()
            )
        self._pos += 1
        table_at = self._offset()
        yield from self._wait(4, lambda: _truncated("num_states", table_at, 4, self._size))
        num_states = self._u32()
        if self._size is not None:
            self._check_states_room(num_states, table_at)

        transitions: dict[int, tuple[array, array]] = {}
        listed: set[int] = set()  # every state in the table, including any listed with zero transitions
        in_order = True
        previous_state = -1
        for _ in range(num_states):
            header_at = self._offset()
            yield from self._wait(8, lambda: self._table_short(num_states, table_at, header_at))
            state, count = self._u32(), self._u32()
            if self._size is not None:
                self._check_transitions_room(state, count, header_at)
            if count > vocab_size:
                raise IndexFormatError(
                    f"state {state} declares {count} transitions, more than vocab_size {vocab_size} "
                    "(a state lists each token at most once): corrupted payload",
                    "num_transitions",
                    header_at + 4,
                )
            if state in listed:
                raise IndexFormatError(f"state {state} is listed twice", "state_id", header_at)
            listed.add(state)
            if state < previous_state:
                in_order = False
            previous_state = state
            if count:
                found = yield from self._state_transitions(state, count, header_at, vocab_size, eos, final_set)
                transitions[state] = found

        while True:  # nothing may follow the last state entry
            if self._available():
                known = f"{self._size - self._offset()} " if self._size is not None else ""
                raise IndexFormatError(
                    f"{known}trailing bytes after the last state's transitions", "end_of_payload", self._offset()
                )
            if self._size is not None:
                break
            yield

        for position, final in enumerate(finals):
            entry = transitions.get(final)
            if entry is None or not _has_eos_loop(entry[0], eos):
                raise IndexFormatError(
                    f"final state {final} has no eos self-loop (token {eos} -> {final}); every final state must list one",
                    "final_state_ids",
                    16 + 4 * position,
                )
        if initial not in listed and not any(initial in nexts for _, nexts in transitions.values()):
            raise IndexFormatError(
                f"initial state {initial} appears nowhere: it is not in the state table, "
                "not final, and no transition leads to it",
                "initial_state_id",
                8,
            )
        if not in_order:
            transitions = dict(sorted(transitions.items()))
        return IndexData(
            vocab_size=vocab_size,
            eos_token_id=eos,
            initial_state=initial,
            final_states=tuple(sorted(finals)),
            index_type=index_type,
            transitions=transitions,
            raw_size=self._size,
        )

    def _state_transitions(self, state, count, header_at, vocab_size, eos, final_set):
        """Read one state's `count` transitions (a generator: they may span chunks); validated arrays."""
        start_at = header_at + 8
        token_parts: list[array] = []
        next_parts: list[array] = []
        ascending = True
        last = -1
        done = 0
        while done < count:
            yield from self._wait(8, lambda: self._transitions_room_error(state, count, header_at))
            take = min(self._available() // 8, count - done)
            words = self._words(2 * take)
            tokens, nexts = words[0::2], words[1::2]
            if ascending:
                whole = take == count
                if tokens[0] <= last or not self._ascending_cached(tokens, whole):
                    ascending = False
                    j, prev = next((j, p) for j, (p, t) in enumerate(zip(itertools.chain((last,), tokens), tokens)) if t <= p)
                    if tokens[j] == prev:  # a repeat inside an ascending run: the first duplicate
                        raise IndexFormatError(
                            f"state {state} has two transitions on token {prev}", "token_id", start_at + 8 * (done + j)
                        )
                elif tokens[-1] >= vocab_size:
                    j = bisect.bisect_left(tokens, vocab_size)
                    raise self._token_range_error(state, tokens[j], vocab_size, start_at + 8 * (done + j))
            token_parts.append(tokens)
            next_parts.append(nexts)
            last = tokens[-1]
            done += take
        tokens = token_parts[0] if len(token_parts) == 1 else u32_array(itertools.chain.from_iterable(token_parts))
        nexts = next_parts[0] if len(next_parts) == 1 else u32_array(itertools.chain.from_iterable(next_parts))
        file_tokens = tokens
        if not ascending:
            # Not strictly ascending (the Rust writer leaves any order): sort, then look for duplicates.
            order = sorted(range(count), key=tokens.__getitem__)
            tokens = u32_array(tokens[k] for k in order)
            if len(set(tokens)) != count:
                position, value = _first_duplicate(file_tokens)
                raise IndexFormatError(
                    f"state {state} has two transitions on token {value}", "token_id", start_at + 8 * position
                )
            nexts = u32_array(nexts[k] for k in order)
            if tokens[-1] >= vocab_size:
                j = next(j for j, t in enumerate(file_tokens) if t >= vocab_size)
                raise self._token_range_error(state, file_tokens[j], vocab_size, start_at + 8 * j)
        k = bisect.bisect_left(tokens, eos)
        if k < count and tokens[k] == eos:
            at = start_at + 8 * (k if ascending else file_tokens.index(eos)) + 4
            if nexts[k] != state:
                raise IndexFormatError(
                    f"state {state}: the eos token {eos} leads to state {nexts[k]}; "
                    "eos may only loop back to the same (final) state",
                    "next_state_id",
                    at,
                )
            if state not in final_set:
                raise IndexFormatError(
                    f"state {state} has an eos self-loop but is not in final_state_ids", "token_id", at - 4
                )
        return tokens, nexts

    def _ascending_cached(self, tokens: array, whole: bool) -> bool:
        """True when `tokens` is strictly ascending. Many states share the same token list (in real
        indexes about a third of all transitions repeat another state's list), so whole lists
        already found ascending are remembered by their bytes and not walked again."""
        if not whole or len(tokens) < 64:
            return _ascending(tokens)
        key = tokens.tobytes()
        if key in self._ascending_seen:
            return True
        if _ascending(tokens):
            self._ascending_seen.add(key)
            return True
        return False

    # -- errors that need the payload size ---------------------------------------------------------
    def _header_short(self) -> IndexFormatError:
        field_at = min(self._size // 4, 3)
        return _truncated(HEADER_FIELDS[field_at], 4 * field_at, 4, self._size)

    def _check_final_room(self, num_final: int) -> None:
        if self._size is not None and num_final > (self._size - 16) // 4:
            raise self._final_room_error(num_final)

    def _final_room_error(self, num_final: int) -> IndexFormatError:
        size = self._size
        return IndexFormatError(
            f"num_final_states is {num_final}, but only {size - 16} payload bytes follow "
            f"(room for at most {(size - 16) // 4} ids): truncated or corrupted payload",
            "num_final_states",
            12,
        )

    def _check_states_room(self, num_states: int, table_at: int) -> None:
        words = (self._size - table_at) // 4
        if num_states > (words - 1) // 2:
            raise IndexFormatError(
                f"num_states is {num_states}, but the {self._size - table_at - 4} remaining payload bytes hold "
                f"at most {(words - 1) // 2} state headers: truncated or corrupted payload",
                "num_states",
                table_at,
            )

    def _table_short(self, num_states: int, table_at: int, header_at: int) -> IndexFormatError:
        self._check_states_room(num_states, table_at)
        field, at = ("state_id", header_at) if self._size - header_at < 4 else ("num_transitions", header_at + 4)
        return _truncated(field, at, 4, self._size)

    def _check_transitions_room(self, state: int, count: int, header_at: int) -> None:
        if count > (self._size - header_at - 8) // 8:
            raise self._transitions_room_error(state, count, header_at)

    def _transitions_room_error(self, state: int, count: int, header_at: int) -> IndexFormatError:
        return IndexFormatError(
            f"state {state} declares {count} transitions, but only {self._size - header_at - 8} "
            "payload bytes remain (8 per transition): truncated or corrupted payload",
            "num_transitions",
            header_at + 4,
        )

    @staticmethod
    def _token_range_error(state: int, token: int, vocab_size: int, at: int) -> IndexFormatError:
        return IndexFormatError(f"state {state}: token id {token} is not below vocab_size {vocab_size}", "token_id", at)


def _has_eos_loop(tokens: array, eos: int) -> bool:
    k = bisect.bisect_left(tokens, eos)
    return k < len(tokens) and tokens[k] == eos


def parse_payload(payload: bytes) -> IndexData:
    """Validate a complete uncompressed v1 payload and return its contents (see INDEX_BINARY_FORMAT.md)."""
    parser = PayloadParser()
    parser.feed(payload, last=True)
    return parser.finish()


def read_index_data(
    data: bytes,
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    progress: Callable[[str, int, int], object] | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> IndexData:
    """Gunzip and validate `.outlines` file contents, parsing while decompressing (bomb-safe)."""
    parser = PayloadParser()
    for chunk, last in inflate_chunks(data, max_size, progress=progress, should_cancel=should_cancel):
        parser.feed(chunk, last)
    return parser.finish()
