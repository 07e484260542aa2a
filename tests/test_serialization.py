"""Binary index format v1: round trips, determinism, interoperability and every validation rule.

Reference files are written here by `spec_payload`, an independent writer that packs the fields
one by one with `struct`, straight from INDEX_BINARY_FORMAT.md, and compressed with the standard
`gzip` module, so the reader is never only checked against its own writer.
"""

from __future__ import annotations

import gzip
import random
import shutil
import struct
import subprocess
import sys
import zlib
from array import array
from pathlib import Path

import pytest

from tokenguide.index import format as serialization
from tokenguide.index import layout
from tokenguide.errors import IndexFormatError, TokenguideError
from tokenguide.index import Index
from tokenguide.index.format import (
    DEFAULT_MAX_SIZE,
    GZIP_HEADER,
    gzip_compress,
    gzip_decompress,
    index_to_bytes,
    parse_payload,
    read_index_data,
)

REPO = Path(__file__).resolve().parents[1]
needs_processes = pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")


# ---------------------------------------------------------------------------------------------
# Independent reference writer (field by field from the spec)
# ---------------------------------------------------------------------------------------------


def spec_payload(vocab_size, eos, initial, finals, states, index_type=1, u32="<I") -> bytes:
    """Pack a v1 payload field by field. `states` is a list of (state_id, [(token, next), ...]),
    written in the given order (any order is legal). `u32=">I"` gives the big-endian mirror image
    (only used to check the byte-swapping path of big-endian hosts)."""
    out = bytearray()
    out += struct.pack(u32, vocab_size)
    out += struct.pack(u32, eos)
    out += struct.pack(u32, initial)
    out += struct.pack(u32, len(finals))
    for f in finals:
        out += struct.pack(u32, f)
    out += struct.pack("<B", index_type)
    out += struct.pack(u32, len(states))
    for state, transitions in states:
        out += struct.pack(u32, state)
        out += struct.pack(u32, len(transitions))
        for token, nxt in transitions:
            out += struct.pack(u32, token)
            out += struct.pack(u32, nxt)
    return bytes(out)


def spec_file(*args, **kwargs) -> bytes:
    return gzip.compress(spec_payload(*args, **kwargs))


# Fixture A: digits then "!" ; state 0 is a transition target (0 -> 1 -> 0 loop), state 2 final.
# vocab: 0..9 = digits, 10 = "!", 11 = eos.
FIXTURE_LOOP = dict(
    vocab_size=12,
    eos=11,
    initial=0,
    finals=[2],
    states=[
        (0, [(t, 1) for t in range(10)]),
        (1, [(t, 0) for t in range(10)] + [(10, 2)]),
        (2, [(11, 2)]),
    ],
)

# Fixture B: written in "Rust writer" order: states and tokens shuffled, final state 5 has only its
# eos loop, final state 3 has both ordinary transitions and the eos loop.
FIXTURE_SHUFFLED = dict(
    vocab_size=100,
    eos=99,
    initial=7,
    finals=[5, 3],
    states=[
        (5, [(99, 5)]),
        (3, [(40, 5), (99, 3), (2, 3)]),
        (7, [(30, 3), (1, 7), (20, 3)]),
    ],
)


def check_matches_spec(index, spec) -> None:
    """`index` answers every query as described by a spec fixture dict."""
    assert index.vocab_size == spec["vocab_size"]
    assert index.eos_token_id == spec["eos"]
    assert index.initial_state == spec["initial"]
    assert set(index.final_states) == set(spec["finals"])
    expected = {s: dict(ts) for s, ts in spec["states"]}
    for state, table in expected.items():
        tokens, nexts = index.state_transitions(state)
        assert list(tokens) == sorted(table)
        assert dict(zip(tokens, nexts)) == table
        for token, nxt in table.items():
            assert index.get_next_state(state, token) == nxt
    assert {s for s in index.states() if len(index.state_transitions(s)[0])} == set(expected)


def assert_same_index(a, b) -> None:
    assert (a.vocab_size, a.eos_token_id, a.initial_state) == (b.vocab_size, b.eos_token_id, b.initial_state)
    assert set(a.final_states) == set(b.final_states)
    assert a.states() == b.states()
    for s in a.states():
        assert a.state_transitions(s) == b.state_transitions(s)
        for token in a.state_transitions(s)[0]:
            assert a.get_next_state(s, token) == b.get_next_state(s, token)
        assert a.is_final_state(s) == b.is_final_state(s)
    assert a.get_transitions() == b.get_transitions()


def synthetic_index(num_states=40, per_state=300, vocab_size=5000, seed=1):
    """A trusted index with random transitions (no regex needed)."""
    rng = random.Random(seed)
    eos = vocab_size - 1
    finals = set(rng.sample(range(num_states), max(1, num_states // 5)))
    table = {}
    for s in range(num_states):
        tokens = sorted(rng.sample(range(vocab_size - 1), per_state))
        nexts = [rng.randrange(num_states) for _ in tokens]
        if s in finals:
            tokens.append(eos)
            nexts.append(s)
        table[s] = (array("I", tokens), array("I", nexts))
    return Index.from_transitions(vocab_size, eos, 0, frozenset(finals), table)


def expect_error(data: bytes, field: str | None = None, offset: int | None = None, **kwargs) -> IndexFormatError:
    with pytest.raises(IndexFormatError) as info:
        Index.from_bytes(data, **kwargs)
    err = info.value
    assert isinstance(err, TokenguideError) and isinstance(err, ValueError)
    if field is not None:
        assert err.field == field, str(err)
    if offset is not None:
        assert err.offset == offset, str(err)
    assert err.field in str(err)
    return err


# ---------------------------------------------------------------------------------------------
# Floor tests from the format proposal
# ---------------------------------------------------------------------------------------------


def test_round_trip_synthetic(tmp_path):
    index = synthetic_index()
    path = tmp_path / "x.outlines"
    index.save(path)
    loaded = Index.load(path)
    assert_same_index(index, loaded)
    assert loaded.to_bytes() == index.to_bytes() == path.read_bytes()


def test_round_trip_fixture_files_from_independent_writer():
    for spec in (FIXTURE_LOOP, FIXTURE_SHUFFLED):
        data = spec_file(spec["vocab_size"], spec["eos"], spec["initial"], spec["finals"], spec["states"])
        index = Index.from_bytes(data)
        check_matches_spec(index, spec)
        again = Index.from_bytes(index_to_bytes(index))
        assert_same_index(index, again)


def test_state_zero_as_transition_target():
    spec = FIXTURE_LOOP
    index = Index.from_bytes(spec_file(spec["vocab_size"], spec["eos"], spec["initial"], spec["finals"], spec["states"]))
    assert index.get_next_state(1, 3) == 0  # a next state of 0 is a real transition, not "none"
    assert index.get_next_state(0, 10) is None


def test_final_state_with_only_eos_loop():
    spec = FIXTURE_SHUFFLED
    index = Index.from_bytes(spec_file(spec["vocab_size"], spec["eos"], spec["initial"], spec["finals"], spec["states"]))
    assert index.get_allowed_tokens(5) == [99]
    assert index.get_next_state(5, 99) == 5
    assert index.is_final_state(5) and index.is_final_state(3) and not index.is_final_state(7)
    assert index.get_next_state(3, 99) == 3


EMOJI_TOKENS = [b"a", b"b", b"ab", b"0", b"1", b"7", b"\xf0\x9f", b"\x98\x80", "😀".encode(), b"\xc3", b"\xa9", "é".encode(), b"x"]


@pytest.fixture
def emoji_vocabulary():
    from tokenguide.vocabulary import Vocabulary

    mapping = {token: i for i, token in enumerate(EMOJI_TOKENS)}
    mapping["<eos>"] = len(EMOJI_TOKENS)
    return Vocabulary(len(EMOJI_TOKENS), mapping)


def test_round_trip_with_regex_and_multibyte_characters(tmp_path, emoji_vocabulary):
    index = Index("(😀|é|ab)+[0-9]?", emoji_vocabulary)
    path = tmp_path / "emoji.outlines"
    index.save(path)
    loaded = Index.load(path)
    assert_same_index(index, loaded)
    assert loaded.to_bytes() == index.to_bytes()
    # "😀" spelled by two partial UTF-8 tokens, then "é" by two more, then "7": same path in both.
    state_a = state_b = index.initial_state
    for piece in (b"\xf0\x9f", b"\x98\x80", b"\xc3", b"\xa9", b"7"):
        token = EMOJI_TOKENS.index(piece)
        state_a = index.get_next_state(state_a, token)
        state_b = loaded.get_next_state(state_b, token)
        assert state_a is not None and state_a == state_b
    assert loaded.is_final_state(state_b)
    eos = len(EMOJI_TOKENS)
    assert loaded.get_next_state(state_b, eos) == state_b
    assert loaded.get_next_state(loaded.initial_state, EMOJI_TOKENS.index(b"x")) is None


def test_round_trip_gpt2(gpt2_vocabulary, tmp_path):
    index = Index(r"[a-z]{1,3}@(x|yz)\.(com|org)", gpt2_vocabulary)
    path = tmp_path / "email.outlines"
    index.save(path)
    loaded = Index.load(path)
    assert_same_index(index, loaded)
    assert loaded.to_bytes() == path.read_bytes()


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.outlines"
    with pytest.raises(FileNotFoundError) as info:
        Index.load(missing)
    assert str(missing) in str(info.value)
    with pytest.raises(FileNotFoundError):
        Index.load(missing)
    with pytest.raises(IsADirectoryError):
        Index.load(tmp_path)


def test_corrupted_file(tmp_path):
    data = bytearray(synthetic_index().to_bytes())
    data[len(data) // 2] ^= 0x55
    path = tmp_path / "bad.outlines"
    path.write_bytes(bytes(data))
    with pytest.raises(IndexFormatError):
        Index.load(path)


def test_gzip_smaller_than_raw_payload():
    index = synthetic_index()
    payload = serialization.encode_payload(index)
    data = index_to_bytes(index)
    assert len(data) < len(payload)
    assert gzip.decompress(data) == payload


# ---------------------------------------------------------------------------------------------
# Exact layout and determinism
# ---------------------------------------------------------------------------------------------


def test_writer_matches_independent_writer_field_by_field():
    spec = FIXTURE_SHUFFLED
    index = Index.from_bytes(spec_file(spec["vocab_size"], spec["eos"], spec["initial"], spec["finals"], spec["states"]))
    canonical_states = sorted((s, sorted(ts)) for s, ts in spec["states"])
    expected = spec_payload(spec["vocab_size"], spec["eos"], spec["initial"], sorted(spec["finals"]), canonical_states)
    assert serialization.encode_payload(index) == expected


def test_big_endian_host_code_path(monkeypatch):
    """On a big-endian host the arrays are byte-swapped. Simulate it: with the swap forced on a
    little-endian host, the writer must produce the big-endian mirror image of the file, and the
    reader must read that mirror image back to the same index."""
    spec = FIXTURE_SHUFFLED
    index = Index.from_bytes(spec_file(**_args(spec)))
    canonical = dict(_args(spec), finals=sorted(spec["finals"]), states=sorted((s, sorted(t)) for s, t in spec["states"]))
    monkeypatch.setattr(layout, "SWAP", True)
    assert serialization.encode_payload(index) == spec_payload(**canonical, u32=">I")
    mirrored = parse_payload(spec_payload(**_args(spec), u32=">I"))
    assert mirrored.final_states == (3, 5) and mirrored.initial_state == 7
    assert {s: (list(t), list(n)) for s, (t, n) in mirrored.transitions.items()} == {
        s: ([t for t, _ in sorted(ts)], [n for _, n in sorted(ts)]) for s, ts in spec["states"]
    }
    trailer = gzip_compress(b"xyz")[-8:]
    assert struct.unpack(">II", trailer) == (zlib.crc32(b"xyz"), 3)


def test_gzip_header_is_fixed_and_standard():
    data = synthetic_index().to_bytes()
    assert data[:10] == GZIP_HEADER == bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255])
    assert struct.unpack("<I", data[4:8])[0] == 0  # mtime
    payload = gzip.decompress(data)
    assert struct.unpack("<II", data[-8:]) == (zlib.crc32(payload), len(payload))
    # Same deflate stream as zlib's level 6.
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    assert data[10:-8] == c.compress(payload) + c.flush()


def test_bytes_are_deterministic_and_independent_of_input_order():
    spec = FIXTURE_SHUFFLED
    first = index_to_bytes(Index.from_bytes(spec_file(**_args(spec))))
    reordered = dict(spec, states=[(s, list(reversed(ts))) for s, ts in reversed(spec["states"])], finals=[3, 5])
    second = index_to_bytes(Index.from_bytes(spec_file(**_args(reordered))))
    assert first == second


def _args(spec):
    return dict(vocab_size=spec["vocab_size"], eos=spec["eos"], initial=spec["initial"], finals=spec["finals"], states=spec["states"])


@needs_processes
def test_deterministic_across_hash_seeds(tmp_path):
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from tokenguide.index.format import gzip_compress;"
        "import hashlib; print(hashlib.sha256(gzip_compress(bytes(range(256)) * 300)).hexdigest())"
    )
    outs = set()
    for seed in ("0", "1", "12345"):
        env = {"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}
        res = subprocess.run([sys.executable, "-c", code, str(REPO / "py_src")], env=env, capture_output=True, text=True, check=True)
        outs.add(res.stdout)
    assert len(outs) == 1


def test_standard_gzip_variants_are_accepted():
    """Headers with a file name, comment, extra field and header CRC (other writers) load fine."""
    spec = FIXTURE_LOOP
    payload = spec_payload(**_args(spec))
    body = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = body.compress(payload) + body.flush()
    trailer = struct.pack("<II", zlib.crc32(payload), len(payload))
    flags = 0x04 | 0x08 | 0x10 | 0x02
    header = bytes([0x1F, 0x8B, 8, flags]) + struct.pack("<I", 1234567) + bytes([2, 3])
    header += struct.pack("<H", 3) + b"xyz" + b"name.outlines\x00" + b"a comment\x00"
    header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    check_matches_spec(Index.from_bytes(header + deflated + trailer), spec)
    # A wrong header CRC is reported.
    broken = header[:-2] + bytes([header[-2] ^ 1, header[-1]])
    expect_error(broken + deflated + trailer, "gzip_header", len(header) - 2)


@pytest.mark.skipif(shutil.which("node") is None or not (REPO / "web/node_modules/pyodide/pyodide.mjs").exists(), reason="node or pyodide missing")
@pytest.mark.slow
@needs_processes
def test_pyodide_writes_identical_bytes(tmp_path):
    """The gzip framing and zlib level 6 stream are byte-identical in Pyodide (Python 3.14)."""
    payload = serialization.encode_payload(synthetic_index(num_states=30, per_state=200))
    (tmp_path / "payload.bin").write_bytes(payload)
    files = {name: (REPO / "py_src/tokenguide" / name).read_text() for name in ("errors.py", "index/layout.py", "index/writer.py")}
    files.update({"__init__.py": "", "index/__init__.py": ""})
    script = tmp_path / "run.mjs"
    writes = "\n".join(f"py.FS.writeFile({'/lib/tokenguide/' + name!r}, {text!r});" for name, text in files.items())
    script.write_text(
        f"""
import {{ loadPyodide }} from {str(REPO / 'web/node_modules/pyodide/pyodide.mjs')!r};
import fs from "fs";
const py = await loadPyodide();
py.FS.mkdirTree("/lib/tokenguide/index");
{writes}
py.FS.writeFile("/payload.bin", fs.readFileSync({str(tmp_path / 'payload.bin')!r}));
const out = py.runPython(`
import sys; sys.path.insert(0, "/lib")
from tokenguide.index.writer import gzip_compress
import hashlib
hashlib.sha256(gzip_compress(open("/payload.bin", "rb").read())).hexdigest()
`);
console.log(out);
"""
    )
    res = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    import hashlib

    assert res.stdout.strip() == hashlib.sha256(gzip_compress(payload)).hexdigest()


# ---------------------------------------------------------------------------------------------
# Validation: gzip framing
# ---------------------------------------------------------------------------------------------


def test_not_gzip():
    err = expect_error(b"PK\x03\x04 not a gzip file", "gzip_header", 0)
    assert "not a gzip file" in str(err)
    expect_error(b"", "gzip_header", 0)
    expect_error(serialization.encode_payload(synthetic_index()), "gzip_header", 0)


def test_bad_gzip_method_and_flags():
    good = index_to_bytes(synthetic_index())
    expect_error(good[:2] + b"\x07" + good[3:], "gzip_header", 2)
    expect_error(good[:3] + b"\x80" + good[4:], "gzip_header", 3)


def test_truncated_gzip_at_every_offset():
    data = spec_file(**_args(FIXTURE_LOOP))
    for cut in range(len(data)):
        err = expect_error(data[:cut])
        assert err.field in ("gzip_header", "gzip_data", "gzip_trailer")
        assert err.offset is not None and 0 <= err.offset <= cut


def test_several_members_and_trailing_bytes():
    data = spec_file(**_args(FIXTURE_LOOP))
    err = expect_error(data + data, "gzip_trailer", len(data))
    assert "several gzip members" in str(err)
    err = expect_error(data + b"\x00\x00", "gzip_trailer", len(data))
    assert "trailing" in str(err)


def test_crc_and_size_mismatch():
    data = bytearray(spec_file(**_args(FIXTURE_LOOP)))
    crc_at = len(data) - 8
    bad = bytearray(data)
    bad[crc_at] ^= 1
    expect_error(bytes(bad), "gzip_trailer", crc_at)
    bad = bytearray(data)
    bad[crc_at + 4] ^= 1
    expect_error(bytes(bad), "gzip_trailer", crc_at + 4)


def test_corrupted_deflate_data():
    data = bytearray(index_to_bytes(synthetic_index()))
    data[10] = 0xFF  # block type 3 (reserved) -> invalid deflate stream
    expect_error(bytes(data), "gzip_data", 10)


def test_decompression_bomb_is_stopped_at_the_cap():
    bomb = gzip.compress(b"\x00" * (64 << 20), 9)  # 64 MiB of zeros, ~64 KiB compressed
    err = expect_error(bomb, "gzip_data", max_size=1 << 20)
    assert "larger than the limit" in str(err)
    with pytest.raises(IndexFormatError):
        gzip_decompress(bomb, 1 << 20)
    # A real file loads with a cap just large enough, and fails one byte below it.
    data = index_to_bytes(synthetic_index())
    raw_size = len(gzip.decompress(data))
    Index.from_bytes(data, max_size=raw_size)
    expect_error(data, "gzip_data", max_size=raw_size - 1)
    assert DEFAULT_MAX_SIZE >= 1 << 30


# ---------------------------------------------------------------------------------------------
# Validation: payload
# ---------------------------------------------------------------------------------------------


def test_payload_truncated_at_every_offset():
    payload = spec_payload(**_args(FIXTURE_SHUFFLED))
    for cut in range(len(payload)):
        with pytest.raises(IndexFormatError) as info:
            parse_payload(payload[:cut])
        err = info.value
        assert err.field is not None and err.offset is not None, str(err)
        assert 0 <= err.offset <= cut
        # Same through the gzip layer.
        expect_error(gzip.compress(payload[:cut]), err.field, err.offset)
    parse_payload(payload)


def test_truncation_error_names_the_field():
    payload = spec_payload(**_args(FIXTURE_LOOP))
    cases = {
        0: ("vocab_size", 0),
        5: ("eos_token_id", 4),
        9: ("initial_state_id", 8),
        14: ("num_final_states", 12),
        16: ("num_final_states", 12),  # one final declared, no room for it
        20: ("index_type", 20),
        22: ("num_states", 21),
    }
    for cut, (field, offset) in cases.items():
        expect_error(gzip.compress(payload[:cut]), field, offset)


def test_unknown_index_type():
    payload = spec_payload(**_args(FIXTURE_LOOP), index_type=2)
    err = expect_error(gzip.compress(payload), "index_type", 16 + 4 * 1)
    assert "unknown index_type 2" in str(err)


def test_huge_counts_are_rejected_before_allocating():
    spec = FIXTURE_LOOP
    base = spec_payload(**_args(spec))
    # num_final_states = 2**32 - 1
    bad = base[:12] + struct.pack("<I", 0xFFFFFFFF) + base[16:]
    expect_error(gzip.compress(bad), "num_final_states", 12)
    # num_states = 2**32 - 1
    ns_at = 16 + 4 + 1
    bad = base[:ns_at] + struct.pack("<I", 0xFFFFFFFF) + base[ns_at + 4 :]
    expect_error(gzip.compress(bad), "num_states", ns_at)
    # num_transitions of the first state = 2**32 - 1
    nt_at = ns_at + 4 + 4
    bad = base[:nt_at] + struct.pack("<I", 0xFFFFFFFF) + base[nt_at + 4 :]
    err = expect_error(gzip.compress(bad), "num_transitions", nt_at)
    assert "declares 4294967295 transitions" in str(err)


def test_duplicate_state_ids():
    spec = dict(FIXTURE_LOOP)
    states = spec["states"] + [(1, [(5, 2)])]
    payload = spec_payload(spec["vocab_size"], spec["eos"], spec["initial"], spec["finals"], states)
    dup_at = len(spec_payload(spec["vocab_size"], spec["eos"], spec["initial"], spec["finals"], spec["states"]))
    expect_error(gzip.compress(payload), "state_id", dup_at)


def test_duplicate_token_ids_within_a_state():
    states = [(0, [(3, 1), (4, 1), (3, 0)]), (1, [(11, 1)])]
    payload = spec_payload(12, 11, 0, [1], states)
    header = 16 + 4 + 1 + 4
    # third transition of state 0: after state header (8) and two transitions (16)
    err = expect_error(gzip.compress(payload), "token_id", header + 8 + 16)
    assert "token 3" in str(err)
    # Also when sorted (our own writer's order).
    states = [(0, [(3, 1), (3, 0)]), (1, [(11, 1)])]
    expect_error(gzip.compress(spec_payload(12, 11, 0, [1], states)), "token_id", header + 8 + 8)


def test_token_id_not_below_vocab_size():
    states = [(0, [(2, 1), (12, 1), (5, 1)]), (1, [(11, 1)])]
    header = 16 + 4 + 1 + 4
    err = expect_error(gzip.compress(spec_payload(12, 11, 0, [1], states)), "token_id", header + 8 + 8)
    assert "token id 12" in str(err)


def test_eos_not_below_vocab_size():
    err = expect_error(gzip.compress(spec_payload(12, 12, 0, [0], [(0, [(12, 0)])])), "eos_token_id", 4)
    assert "eos_token_id 12" in str(err)


def test_final_state_must_have_its_eos_loop():
    # State 2 listed as final but has no entry at all.
    states = [(0, [(1, 2)])]
    expect_error(gzip.compress(spec_payload(12, 11, 0, [2], states)), "final_state_ids", 16)
    # Second final state (4) is listed nowhere at all.
    states = [(0, [(1, 2)]), (2, [(11, 2)])]
    expect_error(gzip.compress(spec_payload(12, 11, 0, [2, 4], states)), "final_state_ids", 20)
    # Final state with transitions but no eos loop.
    states = [(0, [(1, 2)]), (2, [(1, 2)])]
    expect_error(gzip.compress(spec_payload(12, 11, 0, [2], states)), "final_state_ids", 16)


def test_eos_must_be_a_self_loop_on_a_final_state():
    header = 16 + 4 + 1 + 4
    states = [(0, [(1, 2)]), (2, [(11, 0)])]
    expect_error(gzip.compress(spec_payload(12, 11, 0, [2], states)), "next_state_id", header + 8 + 8 + 8 + 4)
    states = [(0, [(1, 2), (11, 0)]), (2, [(11, 2)])]
    expect_error(gzip.compress(spec_payload(12, 11, 0, [2], states)), "token_id", header + 8 + 8)


def test_duplicate_final_states():
    states = [(0, [(1, 2)]), (2, [(11, 2)])]
    expect_error(gzip.compress(spec_payload(12, 11, 0, [2, 2], states)), "final_state_ids", 20)


def test_initial_state_must_appear():
    states = [(0, [(1, 2)]), (2, [(11, 2)])]
    err = expect_error(gzip.compress(spec_payload(12, 11, 9, [2], states)), "initial_state_id", 8)
    assert "appears nowhere" in str(err)
    # Empty index: nothing at all.
    expect_error(gzip.compress(spec_payload(12, 11, 0, [], [])), "initial_state_id", 8)
    # An initial state that is only a target (unreachable from itself, but it appears) is accepted,
    # and so is a dead-end target that has no transitions (outlines-core can write those).
    states = [(3, [(1, 0), (2, 4)]), (4, [(11, 4)])]
    index = Index.from_bytes(gzip.compress(spec_payload(12, 11, 0, [4], states)))
    assert index.get_allowed_tokens(0) == []


def test_trailing_bytes_after_last_state():
    payload = spec_payload(**_args(FIXTURE_LOOP))
    for extra in (b"\x00", b"\x00" * 4, b"\x01\x02\x03\x04\x05"):
        expect_error(gzip.compress(payload + extra), "end_of_payload", len(payload))


def test_zero_transition_state_entries_are_accepted():
    states = [(0, [(1, 2)]), (7, []), (2, [(11, 2)])]
    index = Index.from_bytes(gzip.compress(spec_payload(12, 11, 0, [2], states)))
    assert index.get_next_state(0, 1) == 2
    # Re-saving drops the empty entry (the format lists states that have transitions).
    assert 7 not in {s for s, _ in _states_in(serialization.encode_payload(index))}


def _states_in(payload: bytes):
    nf = struct.unpack_from("<I", payload, 12)[0]
    pos = 16 + 4 * nf + 1
    (ns,) = struct.unpack_from("<I", payload, pos)
    pos += 4
    for _ in range(ns):
        s, n = struct.unpack_from("<II", payload, pos)
        pos += 8 + 8 * n
        yield s, n


def test_read_index_data_reports_sizes():
    data = spec_file(**_args(FIXTURE_SHUFFLED))
    info = read_index_data(data)
    assert info.raw_size == len(gzip.decompress(data))
    assert info.num_transitions == sum(len(ts) for _, ts in FIXTURE_SHUFFLED["states"])
    assert list(info.transitions) == [3, 5, 7]
    assert info.final_states == (3, 5)


# ---------------------------------------------------------------------------------------------
# Fuzzing
# ---------------------------------------------------------------------------------------------


def _fuzz_cases(data: bytes, payload: bytes, rng: random.Random, count: int):
    for _ in range(count):
        kind = rng.randrange(5)
        if kind == 0:  # flip bytes of the compressed file
            buf = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
            yield bytes(buf)
        elif kind == 1:  # truncate the file
            yield data[: rng.randrange(len(data))]
        elif kind == 2:  # flip bytes of the payload, re-compress (reaches the payload checks)
            buf = bytearray(payload)
            for _ in range(rng.randint(1, 3)):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            yield gzip_compress(bytes(buf))
        elif kind == 3:  # truncate or extend the payload
            cut = rng.randrange(len(payload) + 8)
            yield gzip_compress(payload[:cut] + bytes(rng.randrange(256) for _ in range(max(0, cut - len(payload)))))
        else:  # overwrite an aligned u32 of the payload with an extreme value
            buf = bytearray(payload)
            at = rng.randrange(0, max(1, len(buf) - 4))
            buf[at : at + 4] = struct.pack("<I", rng.choice([0, 1, 2, 0xFFFFFFFF, 0x7FFFFFFF, len(buf)]))
            yield gzip_compress(bytes(buf))


@pytest.mark.parametrize("source", ["regex", "synthetic", "loop", "shuffled"])
def test_fuzz_every_case_loads_or_raises_index_format_error(source, emoji_vocabulary):
    if source == "regex":
        data = Index("(😀|é|ab)+[0-9]?", emoji_vocabulary).to_bytes()
    elif source == "synthetic":
        data = index_to_bytes(synthetic_index(num_states=12, per_state=20, vocab_size=300, seed=7))
    elif source == "loop":
        data = spec_file(**_args(FIXTURE_LOOP))
    else:
        data = spec_file(**_args(FIXTURE_SHUFFLED))
    payload = gzip.decompress(data)
    rng = random.Random(f"fuzz-{source}")
    outcomes = {"loaded": 0, "error": 0}
    for case in _fuzz_cases(data, payload, rng, 3000):
        try:
            index = Index.from_bytes(case, max_size=1 << 20)
        except IndexFormatError as err:
            assert err.field is not None and err.offset is not None
            outcomes["error"] += 1
        else:
            # Whatever loaded is self-consistent and re-serializes to a loadable file.
            assert_same_index(index, Index.from_bytes(index_to_bytes(index)))
            outcomes["loaded"] += 1
    assert outcomes["error"] > 1000


def test_format_document_hex_dumps_match_the_code():
    """INDEX_BINARY_FORMAT.md shows the payload and file of `ab?`: they must be what we write."""
    from tokenguide.vocabulary import Vocabulary

    text = (REPO / "INDEX_BINARY_FORMAT.md").read_text(encoding="utf-8")
    dumps = []
    for block in text.split("```")[1::2]:
        lines = [line for line in block.strip().splitlines() if line[:4].isalnum() and line[4:6] == ": "]
        if lines:
            dumps.append(bytes.fromhex("".join(line[6:] for line in lines)))
    index = Index("ab?", Vocabulary(3, {"a": 0, "b": 1, "ab": 2, "<eos>": 3}))
    assert dumps == [serialization.encode_payload(index), index_to_bytes(index)]


def test_shared_long_token_lists_are_still_checked_per_state():
    """Lists of 64+ tokens already found ascending are remembered; a later list that differs by
    one duplicate or one swap must still be caught."""
    ok = [(t, 1) for t in range(100)]
    dup = list(ok)
    dup[50] = (49, 1)
    swapped = list(ok)
    swapped[10], swapped[11] = swapped[11], swapped[10]
    eos = 200
    head = 16 + 4 + 1 + 4
    for bad in (dup, swapped):
        states = [(0, ok), (1, ok + [(eos, 1)]), (2, bad)]
        payload = spec_payload(201, eos, 0, [1], states)
        if bad is dup:
            state2_at = head + (8 + 8 * 100) + (8 + 8 * 101)
            expect_error(gzip.compress(payload), "token_id", state2_at + 8 + 8 * 50)
        else:
            index = Index.from_bytes(gzip.compress(payload))  # any order is fine: sorted on load
            assert list(index.state_transitions(2)[0]) == list(range(100))
    index = Index.from_bytes(gzip.compress(spec_payload(201, eos, 0, [1], [(0, ok), (1, ok + [(eos, 1)]), (2, ok)])))
    assert index.state_transitions(0) == index.state_transitions(2)


# ---------------------------------------------------------------------------------------------
# Streaming: payloads of several inflated chunks
# ---------------------------------------------------------------------------------------------


def _big_spec(states=6, per_state=200_000, vocab_size=250_001):
    """A payload of several 4 MiB chunks, with states that straddle chunk boundaries."""
    eos = vocab_size - 1
    table = []
    for s in range(states):
        tokens = range(s % 3, s % 3 + per_state)
        pairs = [(t, (s + 1) % states) for t in tokens] + ([(eos, s)] if s == states - 1 else [])
        table.append((s, pairs))
    return dict(vocab_size=vocab_size, eos=eos, initial=0, finals=[states - 1], states=table)


def test_multi_chunk_payloads_load_and_fail_like_whole_ones():
    spec = _big_spec()
    payload = spec_payload(**_args(spec))
    assert len(payload) > 2 * serialization.INFLATE_CHUNK
    index = Index.from_bytes(gzip_compress(payload, 1))
    for state, pairs in spec["states"]:
        tokens, nexts = index.state_transitions(state)
        assert tokens == array("I", [t for t, _ in pairs]) and nexts == array("I", [n for _, n in pairs])
    assert index.final_states == {spec["finals"][0]} and index.get_next_state(0, 7) == 1
    assert index_to_bytes(index, level=1) == gzip_compress(payload, 1)
    chunk = serialization.INFLATE_CHUNK
    for cut in (chunk - 5, chunk, chunk + 3, 2 * chunk + 1, len(payload) - 9, len(payload) - 1):
        with pytest.raises(IndexFormatError) as whole:
            parse_payload(payload[:cut])
        err = expect_error(gzip_compress(payload[:cut], 1))
        assert (err.field, err.offset) == (whole.value.field, whole.value.offset), cut
    # A state in arbitrary order across a chunk boundary is sorted; a duplicate in it is found.
    s0 = spec["states"][0]
    shuffled = dict(spec, states=[(s0[0], list(reversed(s0[1])))] + spec["states"][1:])
    loaded = Index.from_bytes(gzip_compress(spec_payload(**_args(shuffled)), 1))
    assert loaded.state_transitions(0) == index.state_transitions(0)
    dup = dict(spec, states=[(s0[0], list(reversed(s0[1][:-1])) + [s0[1][5]])] + spec["states"][1:])
    err = expect_error(gzip_compress(spec_payload(**_args(dup)), 1), "token_id")
    assert "two transitions on token" in str(err)
