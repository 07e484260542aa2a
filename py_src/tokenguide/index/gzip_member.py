"""The gzip layer of `.outlines` files, read without trusting it: one RFC 1952 member, inflated
in bounded chunks so that a decompression bomb costs a few megabytes, never its expanded size."""

from __future__ import annotations

import zlib
from typing import Callable, Iterator

from ..errors import BuildCancelled, IndexFormatError, ArgumentError
from .layout import DEFAULT_MAX_SIZE, U32_MAX

__all__ = ["INFLATE_CHUNK", "check_max_size", "gzip_decompress", "inflate_chunks"]

#: Decompressed bytes produced per step (what a bomb can cost before the payload parser sees it).
INFLATE_CHUNK = 4 << 20
#: Compressed bytes handed to zlib per call (bounds the copies zlib makes of unconsumed input).
_INPUT_PIECE = 1 << 18

_GZIP_MAGIC = b"\x1f\x8b"
_FHCRC, _FEXTRA, _FNAME, _FCOMMENT = 0x02, 0x04, 0x08, 0x10
_FRESERVED = 0xE0


def check_max_size(max_size: object) -> int:
    """`max_size` if it is a usable payload size limit (an int >= 0), else ArgumentError."""
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 0:
        raise ArgumentError(
            f"reading an .outlines file: max_size must be a non-negative integer (the largest decompressed payload accepted, in bytes; "
            f"default {DEFAULT_MAX_SIZE:,}), got {max_size!r}",
        )
    return max_size


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


def inflate_chunks(
    data: bytes,
    max_size: int = DEFAULT_MAX_SIZE,
    *,
    progress: Callable[[str, int, int], object] | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> Iterator[tuple[bytes, bool]]:
    """Yield (chunk, is_last) pieces of the payload of the one gzip member `data`.

    Each chunk holds at most INFLATE_CHUNK bytes, and a chunk is handed out only once the next one
    (or the end of the member, with its CRC32 and length checked) is known, so a consumer of a
    small file sees the whole payload with is_last=True after the gzip layer is fully validated.
    Stops with IndexFormatError (gzip_header, gzip_data or gzip_trailer) at the first problem,
    including output beyond `max_size` bytes. Memory: two chunks, whatever the data expands to.
    """
    check_max_size(max_size)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ArgumentError(f"reading an .outlines file: data must be bytes, got {type(data).__name__}")
    data = bytes(data) if not isinstance(data, bytes) else data
    start = _gzip_header_end(data)
    total_hint = int.from_bytes(data[-4:], "little") if len(data) >= start + 8 else 0
    view = memoryview(data)
    decompressor = zlib.decompressobj(-15)
    crc = 0
    produced = 0
    pending = None
    at = start
    tail: bytes | memoryview = b""
    while not decompressor.eof:
        if not tail:
            if at >= len(data):
                break
            tail = view[at : at + _INPUT_PIECE]
            at += len(tail)
        try:
            out = decompressor.decompress(tail, min(INFLATE_CHUNK, max_size + 1 - produced))
        except zlib.error as exc:
            raise IndexFormatError(f"corrupted gzip data ({exc})", "gzip_data", start) from None
        tail = decompressor.unconsumed_tail
        if not out:
            continue
        produced += len(out)
        if produced > max_size:
            raise IndexFormatError(
                f"decompressed payload is larger than the limit of {max_size:,} bytes; "
                "pass a larger max_size if this file is trusted",
                "gzip_data",
                start,
            )
        crc = zlib.crc32(out, crc)
        if should_cancel is not None and should_cancel():
            raise BuildCancelled("reading the index was cancelled")
        if progress is not None:
            progress("reading", produced, max(produced, total_hint))
        if pending is not None:
            yield pending, False
        pending = out
    if not decompressor.eof:
        raise IndexFormatError(
            "truncated gzip data: the compressed stream ends before its end marker "
            f"({len(data)} bytes in the file)",
            "gzip_data",
            len(data),
        )
    trailer_at = at - len(decompressor.unused_data)
    rest = data[trailer_at : trailer_at + 10]
    if len(rest) < 8:
        raise IndexFormatError(
            f"truncated gzip trailer: {len(rest)} of its 8 bytes (CRC32, size) are present",
            "gzip_trailer",
            len(data),
        )
    if int.from_bytes(rest[0:4], "little") != crc & U32_MAX:
        raise IndexFormatError("gzip CRC32 mismatch: the data is corrupted", "gzip_trailer", trailer_at)
    isize = int.from_bytes(rest[4:8], "little")
    if isize != produced & U32_MAX:
        raise IndexFormatError(
            f"gzip size mismatch: trailer says {isize} bytes, data has {produced}",
            "gzip_trailer",
            trailer_at + 4,
        )
    if len(data) > trailer_at + 8:
        if rest[8:10] == _GZIP_MAGIC:
            message = "several gzip members: an .outlines file holds exactly one"
        else:
            message = f"{len(data) - trailer_at - 8} trailing bytes after the gzip member"
        raise IndexFormatError(message, "gzip_trailer", trailer_at + 8)
    yield (pending if pending is not None else b""), True


def gzip_decompress(data: bytes, max_size: int = DEFAULT_MAX_SIZE) -> bytes:
    """Decompress exactly one gzip member, checking its CRC32 and length, refusing anything odd.

    Decompression streams and stops as soon as the output would exceed `max_size` bytes. Bytes
    after the member (a second member, padding, garbage) are an error: a v1 file is one member.
    """
    return b"".join(chunk for chunk, _ in inflate_chunks(data, max_size))
