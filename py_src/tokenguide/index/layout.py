"""Format v1 layout: constants shared by the `.outlines` writer and reader, and `IndexData`.

INDEX_BINARY_FORMAT.md describes every field; this module only names them.
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass
from typing import Iterable, Iterator

__all__ = [
    "DEFAULT_MAX_SIZE",
    "GZIP_HEADER",
    "GZIP_LEVEL",
    "HEADER_FIELDS",
    "INDEX_TYPE",
    "IndexData",
    "U32",
    "U32_MAX",
    "le_bytes",
    "u32_array",
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

#: A typecode with 4-byte items ('I' everywhere we know of; 'L' on exotic ABIs).
U32 = "I" if array("I").itemsize == 4 else "L"
U32_MAX = 0xFFFFFFFF
SWAP = sys.byteorder == "big"

#: The four u32 fields that open every payload, in order.
HEADER_FIELDS = ("vocab_size", "eos_token_id", "initial_state_id", "num_final_states")


def u32_array(values: Iterable[int] = ()) -> array:
    """An array of 4-byte unsigned integers."""
    return array(U32, values)


def le_bytes(arr: array) -> bytes:
    """The little-endian bytes of a u32 array (swaps a copy on big-endian hosts)."""
    if SWAP:
        arr = array(U32, arr)
        arr.byteswap()
    return arr.tobytes()


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

    def iter_transitions(self, states: Iterable[int]) -> Iterator[tuple[array, array]]:
        """(token ids ascending, next states) of each of `states` in turn."""
        return map(self.transitions.__getitem__, states)

    def transition_count(self, state: int) -> int:
        """How many transitions `state` has (eos self-loop included)."""
        return len(self.transitions[state][0])
