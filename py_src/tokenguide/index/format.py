"""Binary index format v1 (`.outlines` files): the public face of writer, reader and gzip layer.

The payload layout is the one proposed for outlines-core ("Binary Serialization for Index");
INDEX_BINARY_FORMAT.md in the repository describes every field and every validation rule.
`layout` names the fields, `writer` streams files out, `gzip_member` and `reader` read them back
without trusting them (bounded memory, rejection at the first impossible field). Everything is
pure Python: integers are packed and unpacked in bulk with `array`, never one call per transition.
"""

from __future__ import annotations

from .gzip_member import INFLATE_CHUNK, check_max_size, gzip_decompress, inflate_chunks
from .layout import DEFAULT_MAX_SIZE, GZIP_HEADER, GZIP_LEVEL, INDEX_TYPE, IndexData
from .reader import PayloadParser, parse_payload, read_index_data
from .writer import TransitionTable, encode_payload, gzip_compress, index_to_bytes, iter_file, iter_payload

__all__ = [
    "DEFAULT_MAX_SIZE",
    "GZIP_HEADER",
    "GZIP_LEVEL",
    "INDEX_TYPE",
    "INFLATE_CHUNK",
    "IndexData",
    "PayloadParser",
    "TransitionTable",
    "check_max_size",
    "encode_payload",
    "gzip_compress",
    "gzip_decompress",
    "index_to_bytes",
    "inflate_chunks",
    "iter_file",
    "iter_payload",
    "parse_payload",
    "read_index_data",
]
