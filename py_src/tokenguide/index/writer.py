"""Writing `.outlines` files (format v1): the payload, then one gzip member, streamed in chunks.

The payload is produced state by state (each state's block packed with two strided array slice
assignments), grouped into chunks of about a megabyte and fed to one zlib compressor, so that
`progress` can be reported and `should_cancel` honoured while a large index is written, and the
whole file never needs to exist twice in memory. zlib's output does not depend on how its input is
split, so the streamed file is byte-identical to compressing the whole payload at once.
"""

from __future__ import annotations

import zlib
from array import array
from typing import Callable, Iterable, Iterator, Protocol

from ..errors import BuildCancelled, ArgumentError
from .layout import GZIP_HEADER, GZIP_LEVEL, INDEX_TYPE, U32, U32_MAX, le_bytes, u32_array

__all__ = ["TransitionTable", "encode_payload", "gzip_compress", "index_to_bytes", "iter_file", "iter_payload"]

Progress = Callable[[str, int, int], object]
CHUNK_BYTES = 1 << 20  # payload bytes handed to the compressor at a time


class TransitionTable(Protocol):
    """What the writer needs of an index: its header fields and each state's transitions.

    Both `Index` and `IndexData` provide it, so this module never needs the Index class.
    """

    @property
    def vocab_size(self) -> int: ...

    @property
    def eos_token_id(self) -> int: ...

    @property
    def initial_state(self) -> int: ...

    @property
    def final_states(self) -> Iterable[int]: ...

    def states(self) -> Iterable[int]: ...

    def iter_transitions(self, states: Iterable[int]) -> Iterator[tuple[array, array]]: ...

    def transition_count(self, state: int) -> int: ...


def _as_u32(values) -> array:
    return values if isinstance(values, array) and values.typecode == U32 else u32_array(values)


def _state_block(state: int, tokens, nexts) -> bytes:
    """One state entry: state_id, num_transitions, then (token_id, next_state_id) pairs."""
    count = len(tokens)
    if len(nexts) != count:
        raise ValueError(f"state {state}: {count} token ids but {len(nexts)} next states")
    block = u32_array(bytes(4 * (2 + 2 * count)))
    block[0] = state
    block[1] = count
    block[2::2] = _as_u32(tokens)
    block[3::2] = _as_u32(nexts)
    return le_bytes(block)


def iter_payload(
    index: TransitionTable,
    *,
    progress: Progress | None = None,
    should_cancel: Callable[[], bool] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
) -> Iterator[bytes]:
    """The uncompressed v1 payload of `index` in chunks of about `chunk_bytes`.

    States are written in ascending order, each state's tokens in ascending order, final states
    ascending: the same index always gives the same bytes. States without any transition are not
    written (the format lists only states that have transitions). `progress("writing", done,
    total)` counts transitions; `should_cancel()` returning true raises BuildCancelled.
    """
    finals = sorted(index.final_states)
    states = sorted(index.states())
    counts = [index.transition_count(s) for s in states]
    total = sum(counts)
    head = u32_array([index.vocab_size, index.eos_token_id, index.initial_state, len(finals)])
    head.extend(finals)
    num_states = sum(1 for c in counts if c)  # states without transitions are not written
    parts = [le_bytes(head), bytes([INDEX_TYPE]), le_bytes(u32_array([num_states]))]
    size = sum(map(len, parts))
    done = 0
    if progress is not None:
        progress("writing", 0, total)
    listed = [(s, c) for s, c in zip(states, counts) if c]
    for (state, count), (tokens, nexts) in zip(listed, index.iter_transitions(s for s, _ in listed)):
        if len(tokens) != count:
            raise ValueError(f"state {state}: transition_count says {count}, state_transitions gives {len(tokens)}")
        block = _state_block(state, tokens, nexts)
        parts.append(block)
        size += len(block)
        done += count
        if size >= chunk_bytes:
            if should_cancel is not None and should_cancel():
                raise BuildCancelled("writing the index was cancelled")
            yield b"".join(parts)
            parts, size = [], 0
            if progress is not None:
                progress("writing", done, total)
    if parts:
        yield b"".join(parts)
    if progress is not None:
        progress("writing", total, total)


def encode_payload(index: TransitionTable) -> bytes:
    """The uncompressed v1 payload of `index`: header, final states, then each state's transitions."""
    return b"".join(iter_payload(index))


def _check_level(level: int) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 9:
        raise ArgumentError(
            f"writing an .outlines file: level must be an integer from 0 to 9 (zlib compression level; {GZIP_LEVEL} is the canonical one), "
            f"got {level!r}",
        )
    return level


def iter_gzip(chunks: Iterable[bytes], level: int = GZIP_LEVEL) -> Iterator[bytes]:
    """One gzip member holding the concatenation of `chunks`, with the fixed header GZIP_HEADER.

    The deflate stream comes from zlib at `level` (default 6, the canonical level: files written
    with another level are valid but not byte-identical to tokenguide's default output).
    """
    compressor = zlib.compressobj(_check_level(level), zlib.DEFLATED, -15)
    crc = 0
    length = 0
    yield GZIP_HEADER
    for chunk in chunks:
        crc = zlib.crc32(chunk, crc)
        length += len(chunk)
        out = compressor.compress(chunk)
        if out:
            yield out
    yield compressor.flush() + le_bytes(u32_array([crc & U32_MAX, length & U32_MAX]))


def gzip_compress(payload: bytes, level: int = GZIP_LEVEL) -> bytes:
    """One gzip member holding `payload`, with the fixed header GZIP_HEADER (mtime 0, OS 255).

    The deflate stream comes from zlib at `level` (default 6), so the output is byte-identical on
    every runtime that uses the same deflate implementation (CPython and Pyodide both use zlib).
    """
    return b"".join(iter_gzip((payload,), level))


def iter_file(
    index: TransitionTable,
    *,
    level: int = GZIP_LEVEL,
    progress: Progress | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> Iterator[bytes]:
    """The `.outlines` file of `index` as a stream of byte chunks (write them in order)."""
    _check_level(level)
    return iter_gzip(iter_payload(index, progress=progress, should_cancel=should_cancel), level)


def index_to_bytes(
    index: TransitionTable,
    *,
    level: int = GZIP_LEVEL,
    progress: Progress | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> bytes:
    """The complete `.outlines` file contents for `index` (gzip-compressed v1 payload)."""
    return b"".join(iter_file(index, level=level, progress=progress, should_cancel=should_cancel))
