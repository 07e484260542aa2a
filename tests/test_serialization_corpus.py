"""The shared `.outlines` fixture corpus (tests/fixtures/outlines): every file gives the outcome
its manifest states (accepted with the listed transitions, or rejected naming field and offset),
and decompression bombs are rejected with bounded memory (tracemalloc peak, not time)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from tokenguide.errors import IndexFormatError
from tokenguide.index import Index, read_index_data

CORPUS = Path(__file__).resolve().parent / "fixtures" / "outlines"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
ENTRIES = {entry["file"]: entry for entry in MANIFEST["files"]}


def test_manifest_lists_every_file():
    on_disk = {p.name for p in CORPUS.glob("*.outlines")}
    assert on_disk == set(ENTRIES)
    assert {e["expect"] for e in ENTRIES.values()} == {"accept", "reject"}
    assert sum(1 for e in ENTRIES.values() if e.get("bomb")) >= 4


@pytest.mark.parametrize("name", sorted(n for n, e in ENTRIES.items() if e["expect"] == "accept"))
def test_good_files_load_with_the_listed_transitions(name):
    expected = ENTRIES[name]["index"]
    index = Index.from_bytes((CORPUS / name).read_bytes())
    assert index.vocab_size == expected["vocab_size"]
    assert index.eos_token_id == expected["eos_token_id"]
    assert index.initial_state == expected["initial_state"]
    assert sorted(index.final_states) == expected["final_states"]
    assert index.num_transitions == expected["num_transitions"]
    got = {str(s): [[t, n] for t, n in zip(*index.state_transitions(s))] for s in index.states() if index.transition_count(s)}
    assert got == expected["transitions"]
    for state, pairs in expected["transitions"].items():
        for token, nxt in pairs:
            assert index.get_next_state(int(state), token) == nxt
    # Saved again, it reads back the same (entries without transitions are not written).
    again = Index.from_bytes(index.to_bytes())
    assert again.get_transitions() == index.get_transitions()
    assert (again.initial_state, again.final_states) == (index.initial_state, index.final_states)


@pytest.mark.parametrize("name", sorted(n for n, e in ENTRIES.items() if e["expect"] == "reject"))
def test_bad_files_are_rejected_naming_field_and_offset(name):
    entry = ENTRIES[name]
    kwargs = {"max_size": entry["max_size"]} if "max_size" in entry else {}
    data = (CORPUS / name).read_bytes()
    for reader in (Index.from_bytes, read_index_data):
        with pytest.raises(IndexFormatError) as info:
            reader(data, **kwargs)
        assert (info.value.field, info.value.offset) == (entry["field"], entry["offset"]), str(info.value)


@pytest.mark.parametrize("name", sorted(n for n, e in ENTRIES.items() if e.get("bomb")))
def test_bombs_are_rejected_with_bounded_memory(name):
    entry = ENTRIES[name]
    data = (CORPUS / name).read_bytes()
    assert entry["expands_to"] > 600 * len(data)
    tracemalloc.start()
    try:
        with pytest.raises(IndexFormatError) as info:
            Index.from_bytes(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.field == entry["field"]
    # Two inflated chunks of 4 MiB and the parser's buffer: far below what the file expands to.
    assert peak < 24 << 20, f"peak {peak:,} bytes"
    assert peak < entry["expands_to"] // 2
