"""Binary index format v1 (`.outlines` files): writer, validating reader, gzip framing.

The payload layout is the one proposed for outlines-core ("Binary Serialization for Index");
INDEX_BINARY_FORMAT.md in the repository describes every field and every validation rule.
Everything here is pure Python: integers are packed and unpacked in bulk with `array`, never
one `struct` call per transition, so that multi-million-transition indexes load in well under
a second, in CPython and in Pyodide alike.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import os
import sys
import zlib
from array import array
from dataclasses import dataclass
from typing import Iterable, Protocol

from ..errors import IndexFormatError

__all__ = [
    "DEFAULT_MAX_SIZE",
    "INDEX_TYPE",
    "IndexData",
    "encode_payload",
    "gzip_compress",
    "gzip_decompress",
    "index_to_bytes",
    "parse_payload",
    "read_index_data",
    "TransitionTable",
]

#: The only `index_type` defined by format v1.
INDEX_TYPE = 1

#: Default cap on the decompressed payload size (1 GiB). The largest real indexes we know of are
#: a few hundred MB uncompressed; anything bigger is treated as a decompression bomb.
DEFAULT_MAX_SIZE = 1 << 30

#: gzip compression level (zlib's default level, as the format proposal asks).
GZIP_LEVEL = 6

#: The gzip header we write: magic, CM=8 (deflate), no flags, MTIME=0, XFL=0, OS=255 ("unknown").
#: Fixed bytes so that every runtime (CPython 3.11 writes OS=3, 3.13+ and Pyodide write 255)
#: produces identical files.
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"

_GZIP_MAGIC = b"\x1f\x8b"
_FHCRC, _FEXTRA, _FNAME, _FCOMMENT = 0x02, 0x04, 0x08, 0x10
_FRESERVED = 0xE0

# A typecode with 4-byte items ('I' everywhere we know of; 'L' on exotic ABIs).
_U32 = "I" if array("I").itemsize == 4 else "L"
_SWAP = sys.byteorder == "big"
_U32_MAX = 0xFFFFFFFF

_HEADER_FIELDS = ("vocab_size", "eos_token_id", "initial_state_id", "num_final_states")


def _u32_array(values: Iterable[int] = ()) -> array:
    return array(_U32, values)


def _le_bytes(arr: array) -> bytes:
    """The little-endian bytes of a u32 array (swaps a copy on big-endian hosts)."""
    if _SWAP:
        arr = array(_U32, arr)
        arr.byteswap()
    return arr.tobytes()


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


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

    def state_transitions(self, state: int) -> tuple[array, array]: ...


def encode_payload(index: TransitionTable) -> bytes:
    """The uncompressed v1 payload of `index`: header, final states, then each state's transitions.

    States are written in ascending order, each state's tokens in ascending order, final states
    ascending: the same index always gives the same bytes. States without any transition are not
    written (the format lists only states that have transitions).
    """
    finals = sorted(index.final_states)
    head = _u32_array([index.vocab_size, index.eos_token_id, index.initial_state, len(finals)])
    head.extend(finals)

    chunks = []
    num_states = 0
    for state in sorted(index.states()):
        tokens, nexts = index.state_transitions(state)
        count = len(tokens)
        if count == 0:
            continue
        if len(nexts) != count:
            raise ValueError(f"state {state}: {count} token ids but {len(nexts)} next states")
        block = _u32_array(bytes(4 * (2 + 2 * count)))
        block[0] = state
        block[1] = count
        block[2::2] = tokens if isinstance(tokens, array) and tokens.typecode == _U32 else _u32_array(tokens)
        block[3::2] = nexts if isinstance(nexts, array) and nexts.typecode == _U32 else _u32_array(nexts)
        chunks.append(_le_bytes(block))
        num_states += 1

    parts = [_le_bytes(head), bytes([INDEX_TYPE]), _le_bytes(_u32_array([num_states]))]
    parts.extend(chunks)
    return b"".join(parts)


def gzip_compress(payload: bytes, level: int = GZIP_LEVEL) -> bytes:
    """One gzip member holding `payload`, with the fixed header GZIP_HEADER (mtime 0, OS 255).

    The deflate stream comes from zlib at `level` (default 6), so the output is byte-identical on
    every runtime that links the same deflate implementation (CPython and Pyodide both use zlib).
    """
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = compressor.compress(payload) + compressor.flush()
    trailer = _le_bytes(_u32_array([zlib.crc32(payload) & _U32_MAX, len(payload) & _U32_MAX]))
    return GZIP_HEADER + body + trailer


def index_to_bytes(index: TransitionTable) -> bytes:
    """The complete `.outlines` file contents for `index` (gzip-compressed v1 payload)."""
    return gzip_compress(encode_payload(index))


# --------------------------------------------------------------------------------------------
# Reading: gzip framing
# --------------------------------------------------------------------------------------------


def _gzip_header_end(data: bytes) -> int:
    """Check the gzip member header at the start of `data`; return the offset where deflate data starts."""
    size = len(data)
    if size < 2 or data[:2] != _GZIP_MAGIC:
        shown = data[:4].hex(" ") or "nothing"
        raise IndexFormatError(
            f"not a gzip file: an .outlines index starts with the bytes 1f 8b, this data starts with {shown}",
            "gzip_header",
            0,
        )
    if size < 10:
        raise IndexFormatError(
            f"truncated gzip header: {size} bytes, the fixed header has 10", "gzip_header", size
        )
    if data[2] != 8:
        raise IndexFormatError(
            f"unsupported gzip compression method {data[2]} (only 8, deflate, exists)", "gzip_header", 2
        )
    flags = data[3]
    if flags & _FRESERVED:
        raise IndexFormatError(
            f"gzip header has reserved flag bits set (flags byte 0x{flags:02x})", "gzip_header", 3
        )
    pos = 10
    if flags & _FEXTRA:
        if pos + 2 > size:
            raise IndexFormatError("truncated gzip header (extra field length)", "gzip_header", size)
        pos += 2 + (data[pos] | (data[pos + 1] << 8))
        if pos > size:
            raise IndexFormatError("truncated gzip header (extra field)", "gzip_header", size)
    for flag, name in ((_FNAME, "file name"), (_FCOMMENT, "comment")):
        if flags & flag:
            end = data.find(b"\x00", pos)
            if end < 0:
                raise IndexFormatError(f"truncated gzip header ({name})", "gzip_header", size)
            pos = end + 1
    if flags & _FHCRC:
        if pos + 2 > size:
            raise IndexFormatError("truncated gzip header (header checksum)", "gzip_header", size)
        expected = data[pos] | (data[pos + 1] << 8)
        if zlib.crc32(data[:pos]) & 0xFFFF != expected:
            raise IndexFormatError("gzip header checksum mismatch: the file is corrupted", "gzip_header", pos)
        pos += 2
    return pos


def gzip_decompress(data: bytes, max_size: int = DEFAULT_MAX_SIZE) -> bytes:
    """Decompress exactly one gzip member, checking its CRC32 and length, refusing anything odd.

    Decompression streams and stops as soon as the output would exceed `max_size` bytes, so a
    decompression bomb costs at most `max_size` bytes of memory. Bytes after the member (a second
    member, padding, garbage) are an error: a v1 file is one member.
    """
    if max_size < 0:
        raise ValueError("max_size must be >= 0")
    if not isinstance(data, bytes):
        data = bytes(data)
    start = _gzip_header_end(data)
    view = memoryview(data)
    decompressor = zlib.decompressobj(-15)
    try:
        payload = decompressor.decompress(view[start:], max_size + 1)
    except zlib.error as exc:
        raise IndexFormatError(f"corrupted gzip data ({exc})", "gzip_data", start) from None
    if len(payload) > max_size:
        raise IndexFormatError(
            f"decompressed payload is larger than the limit of {max_size:,} bytes; "
            "pass a larger max_size if this file is trusted",
            "gzip_data",
            start,
        )
    if not decompressor.eof:
        raise IndexFormatError(
            "truncated gzip data: the compressed stream ends before its end marker "
            f"({len(data)} bytes in the file)",
            "gzip_data",
            len(data),
        )
    rest = decompressor.unused_data
    trailer_at = len(data) - len(rest)
    if len(rest) < 8:
        raise IndexFormatError(
            f"truncated gzip trailer: {len(rest)} of its 8 bytes (CRC32, size) are present",
            "gzip_trailer",
            len(data),
        )
    crc = int.from_bytes(rest[0:4], "little")
    isize = int.from_bytes(rest[4:8], "little")
    if crc != zlib.crc32(payload) & _U32_MAX:
        raise IndexFormatError(
            "gzip CRC32 mismatch: the data is corrupted", "gzip_trailer", trailer_at
        )
    if isize != len(payload) & _U32_MAX:
        raise IndexFormatError(
            f"gzip size mismatch: trailer says {isize} bytes, data has {len(payload)}",
            "gzip_trailer",
            trailer_at + 4,
        )
    if len(rest) > 8:
        extra_at = trailer_at + 8
        if rest[8:10] == _GZIP_MAGIC:
            message = "several gzip members: an .outlines file holds exactly one"
        else:
            message = f"{len(rest) - 8} trailing bytes after the gzip member"
        raise IndexFormatError(message, "gzip_trailer", extra_at)
    return payload


# --------------------------------------------------------------------------------------------
# Reading: payload
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexData:
    """The validated contents of a v1 payload, before it becomes an Index.

    `transitions` maps each listed state (ascending) to (token ids ascending, next states), both
    array('I'). `final_states` is ascending. `raw_size` is the payload size in bytes.
    """

    vocab_size: int
    eos_token_id: int
    initial_state: int
    final_states: tuple[int, ...]
    index_type: int
    transitions: dict[int, tuple[array, array]]
    raw_size: int

    @property
    def num_transitions(self) -> int:
        return sum(len(tokens) for tokens, _ in self.transitions.values())

    def states(self) -> list[int]:
        """The listed states, ascending (states without transitions are not in the file)."""
        return list(self.transitions)

    def state_transitions(self, state: int) -> tuple[array, array]:
        """(token ids ascending, next states) of a listed state."""
        return self.transitions[state]


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


def parse_payload(payload: bytes) -> IndexData:
    """Validate an uncompressed v1 payload and return its contents (see INDEX_BINARY_FORMAT.md).

    Raises IndexFormatError naming the field and its byte offset in the payload. Every count is
    compared with the bytes that remain before anything of that size is allocated.
    """
    size = len(payload)
    view = memoryview(payload)
    if size < 16:
        field_at = min(size // 4, 3)
        raise _truncated(_HEADER_FIELDS[field_at], 4 * field_at, 4, size)
    head = _u32_array()
    head.frombytes(view[:16])
    if _SWAP:
        head.byteswap()
    vocab_size, eos, initial, num_final = head
    if eos >= vocab_size:
        raise IndexFormatError(
            f"eos_token_id {eos} is not below vocab_size {vocab_size}", "eos_token_id", 4
        )
    if num_final > (size - 16) // 4:
        raise IndexFormatError(
            f"num_final_states is {num_final}, but only {size - 16} payload bytes follow "
            f"(room for at most {(size - 16) // 4} ids): truncated or corrupted payload",
            "num_final_states",
            12,
        )
    finals = _u32_array()
    finals.frombytes(view[16 : 16 + 4 * num_final])
    if _SWAP:
        finals.byteswap()
    if len(set(finals)) != num_final:
        position, value = _first_duplicate(finals)
        raise IndexFormatError(
            f"final state {value} is listed twice", "final_state_ids", 16 + 4 * position
        )

    pos = 16 + 4 * num_final
    if pos >= size:
        raise _truncated("index_type", pos, 1, size)
    index_type = payload[pos]
    if index_type != INDEX_TYPE:
        raise IndexFormatError(
            f"unknown index_type {index_type}: this reader knows only type {INDEX_TYPE}",
            "index_type",
            pos,
        )
    pos += 1
    if size - pos < 4:
        raise _truncated("num_states", pos, 4, size)

    # Everything after index_type is u32 words: read them all at once.
    words = (size - pos) // 4
    body = _u32_array()
    body.frombytes(view[pos : pos + 4 * words])
    if _SWAP:
        body.byteswap()
    num_states = body[0]
    if num_states > (words - 1) // 2:
        raise IndexFormatError(
            f"num_states is {num_states}, but the {size - pos - 4} remaining payload bytes hold "
            f"at most {(words - 1) // 2} state headers: truncated or corrupted payload",
            "num_states",
            pos,
        )

    final_set = set(finals)
    transitions: dict[int, tuple[array, array]] = {}
    listed = set()  # every state in the table, including any listed with zero transitions
    ascending_seen: set[bytes] = set()
    in_order = True
    previous_state = -1
    i = 1
    for _ in range(num_states):
        if i + 2 > words:
            field, at = ("state_id", pos + 4 * i) if i >= words else ("num_transitions", pos + 4 * (i + 1))
            raise _truncated(field, at, 4, size)
        state = body[i]
        count = body[i + 1]
        if count > (words - i - 2) // 2:
            raise IndexFormatError(
                f"state {state} declares {count} transitions, but only {size - pos - 4 * (i + 2)} "
                "payload bytes remain (8 per transition): truncated or corrupted payload",
                "num_transitions",
                pos + 4 * (i + 1),
            )
        if state in listed:
            raise IndexFormatError(f"state {state} is listed twice", "state_id", pos + 4 * i)
        listed.add(state)
        if state < previous_state:
            in_order = False
        previous_state = state
        start = i + 2
        end = start + 2 * count
        i = end
        if count == 0:
            continue
        tokens = body[start:end:2]
        nexts = body[start + 1 : end : 2]
        if count > 1 and not _strictly_ascending(tokens, ascending_seen):
            # Not strictly ascending (the Rust writer leaves any order): sort, then look for duplicates.
            order = sorted(range(count), key=tokens.__getitem__)
            sorted_tokens = _u32_array(tokens[k] for k in order)
            if len(set(sorted_tokens)) != count:
                position, value = _first_duplicate(tokens)
                raise IndexFormatError(
                    f"state {state} has two transitions on token {value}",
                    "token_id",
                    pos + 4 * (start + 2 * position),
                )
            nexts = _u32_array(nexts[k] for k in order)
            tokens = sorted_tokens
        if tokens[-1] >= vocab_size:
            bad = tokens[-1]
            position = body[start:end:2].index(bad)
            raise IndexFormatError(
                f"state {state}: token id {bad} is not below vocab_size {vocab_size}",
                "token_id",
                pos + 4 * (start + 2 * position),
            )
        k = bisect.bisect_left(tokens, eos)
        if k < count and tokens[k] == eos:
            at = pos + 4 * (start + 2 * body[start:end:2].index(eos) + 1)
            if nexts[k] != state:
                raise IndexFormatError(
                    f"state {state}: the eos token {eos} leads to state {nexts[k]}; "
                    "eos may only loop back to the same (final) state",
                    "next_state_id",
                    at,
                )
            if state not in final_set:
                raise IndexFormatError(
                    f"state {state} has an eos self-loop but is not in final_state_ids",
                    "token_id",
                    at - 4,
                )
        transitions[state] = (tokens, nexts)

    if i != words or (size - pos) % 4:
        raise IndexFormatError(
            f"{size - pos - 4 * i} trailing bytes after the last state's transitions",
            "end_of_payload",
            pos + 4 * i,
        )

    for position, final in enumerate(finals):
        entry = transitions.get(final)
        if entry is None or not _has_eos_loop(entry[0], eos):
            raise IndexFormatError(
                f"final state {final} has no eos self-loop (token {eos} -> {final}); "
                "every final state must list one",
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
        raw_size=size,
    )


def _strictly_ascending(tokens: array, seen: set[bytes]) -> bool:
    """True when `tokens` is strictly ascending. Many states share the same token list (in real
    indexes about a third of all transitions repeat another state's list), so lists already
    found ascending are remembered by their bytes and not walked again."""
    if len(tokens) < 64:
        return all(map(operator.lt, tokens, itertools.islice(tokens, 1, None)))
    key = tokens.tobytes()
    if key in seen:
        return True
    if all(map(operator.lt, tokens, itertools.islice(tokens, 1, None))):
        seen.add(key)
        return True
    return False


def _has_eos_loop(tokens: array, eos: int) -> bool:
    k = bisect.bisect_left(tokens, eos)
    return k < len(tokens) and tokens[k] == eos


def read_index_data(data: bytes, *, max_size: int = DEFAULT_MAX_SIZE) -> IndexData:
    """Gunzip and validate `.outlines` file contents without building an Index (used by `inspect`)."""
    return parse_payload(gzip_decompress(data, max_size))
