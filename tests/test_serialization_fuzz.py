"""Seeded mutation fuzzer of the `.outlines` reader, decompression bombs included.

Whatever the bytes, `Index.from_bytes` either loads an index that saves and loads back the same,
or raises IndexFormatError naming a field and an offset; nothing else escapes. Bombs of every
class (zeros only, a valid header then zeros, a state declaring tens of millions of transitions,
a header that is already impossible, a valid prefix cut anywhere then zeros, one state entry
repeated) are rejected with a tracemalloc peak of a few MiB, far below what they expand to.
"""

from __future__ import annotations

import importlib.util
import random
import struct
import tracemalloc
import zlib
from pathlib import Path

import pytest

from tokenguide.errors import IndexFormatError
from tokenguide.index import Index
from tokenguide.index.format import gzip_compress, index_to_bytes
from tokenguide.vocabulary import Vocabulary

_spec = importlib.util.spec_from_file_location("make_corpus", Path(__file__).parent / "fixtures" / "outlines" / "make_corpus.py")
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

PEAK_LIMIT = 24 << 20  # two 4 MiB inflated chunks, the parser's buffer and its arrays


def _base_files() -> list[bytes]:
    vocab = Vocabulary(40, {**{chr(97 + i): i for i in range(26)}, **{str(d): 26 + d for d in range(10)}, "ab": 36, "é": 37, "<eos>": 39})
    files = [Index(r"(ab|[a-z])+[0-9]{1,3}é?", vocab).to_bytes(), Index("[0-9]+", vocab).to_bytes()]
    files += [corpus.gzip_member(corpus.p(spec)) for spec in (corpus.AB, corpus.LOOP, corpus.SHUFFLED)]
    return files


def _mutate(data: bytes, payload: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:  # flip bits of the compressed file
        buf = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        return bytes(buf)
    if kind == 1:  # truncate the file
        return data[: rng.randrange(len(data))]
    buf = bytearray(payload)
    if kind == 2:  # random bytes of the payload
        for _ in range(rng.randint(1, 3)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
    elif kind == 3:  # an extreme u32 anywhere
        at = rng.randrange(max(1, len(buf) - 3))
        buf[at : at + 4] = struct.pack("<I", rng.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(buf), rng.getrandbits(32)]))
    elif kind == 4:  # delete a slice
        a = rng.randrange(len(buf))
        del buf[a : a + rng.randint(1, 16)]
    elif kind == 5:  # duplicate a slice in place
        a = rng.randrange(len(buf))
        buf[a:a] = buf[a : a + rng.randint(1, 24)]
    elif kind == 6:  # insert random bytes
        a = rng.randrange(len(buf) + 1)
        buf[a:a] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 12)))
    else:  # cut, then append random words
        buf = buf[: rng.randrange(len(buf) + 1)] + b"".join(struct.pack("<I", rng.getrandbits(rng.choice([2, 8, 32]))) for _ in range(rng.randint(1, 8)))
    return gzip_compress(bytes(buf))


@pytest.mark.parametrize("seed", range(4))
def test_mutations_load_or_raise_index_format_error(seed):
    rng = random.Random(f"outlines-fuzz-{seed}")
    outcomes = {"loaded": 0, "error": 0}
    for data in _base_files():
        payload = zlib.decompress(data, 31)
        for _ in range(500):
            case = _mutate(data, payload, rng)
            try:
                index = Index.from_bytes(case, max_size=1 << 20)
            except IndexFormatError as err:
                assert err.field is not None and err.offset is not None, str(err)
                outcomes["error"] += 1
            else:
                again = Index.from_bytes(index_to_bytes(index))
                assert again.get_transitions() == index.get_transitions()
                outcomes["loaded"] += 1
    assert outcomes["error"] > 1000 and outcomes["loaded"] > 10


def _bomb_cases(rng: random.Random):
    """(class name, file, size it expands to, fields it may be rejected with)."""
    real = zlib.decompress(_base_files()[0], 31)
    vocab_size = struct.unpack_from("<I", real, 0)[0]
    num_final = struct.unpack_from("<I", real, 12)[0]
    table_at = 16 + 4 * num_final + 1
    zeros = rng.choice([48, 64, 96]) << 20
    yield "zeros", corpus.zeros_member(b"", 256 << 20), 256 << 20, {"eos_token_id"}
    yield "valid header, zeros", corpus.zeros_member(real[: table_at + 4], zeros), zeros, {"state_id", "num_transitions", "end_of_payload", "token_id"}
    count = rng.randrange(vocab_size + 1, 1 << 32)
    head = real[: table_at + 4] + struct.pack("<II", 0, count)
    yield "huge count", corpus.zeros_member(head, zeros), zeros, {"num_transitions"}
    wide = struct.pack("<4I", 0xFFFFFFFF, 0, 0, 1) + struct.pack("<IBI", 0, 1, 1) + struct.pack("<II", 0, 78_000_000)
    yield "huge count, wide vocabulary", corpus.zeros_member(wide, zeros), zeros, {"token_id"}
    eos = rng.randrange(1 << 32)
    yield "impossible header", corpus.zeros_member(struct.pack("<II", rng.randrange(eos + 1), eos), zeros), zeros, {"eos_token_id"}
    cut = rng.randrange(16, len(real))
    yield f"prefix cut at {cut}, zeros", corpus.zeros_member(real[:cut], zeros), zeros, None
    first = real[table_at + 4 : table_at + 4 + 8 + 8 * struct.unpack_from("<I", real, table_at + 8)[0]]
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    body = real[: table_at] + struct.pack("<I", 0xFFFFFFFF)
    parts = [compressor.compress(body)]
    crc_input = len(body)
    for _ in range(300_000):
        parts.append(compressor.compress(first))
        crc_input += len(first)
    parts.append(compressor.flush())
    yield "one state entry repeated", b"".join(parts), crc_input, {"state_id", "num_states"}


@pytest.mark.parametrize("seed", range(3))
def test_bombs_are_rejected_early_with_bounded_memory(seed):
    rng = random.Random(f"outlines-bombs-{seed}")
    for name, data, expands_to, fields in _bomb_cases(rng):
        tracemalloc.start()
        try:
            with pytest.raises(IndexFormatError) as info:
                Index.from_bytes(data)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert fields is None or info.value.field in fields, (name, str(info.value))
        assert info.value.offset is not None
        assert peak < PEAK_LIMIT and peak < expands_to // 2, (name, peak)
