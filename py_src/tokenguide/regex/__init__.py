"""Python regular expressions to minimal byte-level DFAs.

`parser` turns re syntax (through the one `sre` shim) into a tree over code-point sets
(`ranges`, with `\\d \\w \\s` from the pinned `unicode_tables`); `dfa` determinizes
(lookaheads and `\\Z` exactly, with `threads`), minimizes and lowers it to UTF-8 bytes; `lazy`
builds states on demand (eagerly for lookaheads).
"""

from .dfa import DEFAULT_MAX_STATES, ByteDFA, compile_regex

__all__ = ["DEFAULT_MAX_STATES", "ByteDFA", "compile_regex"]
