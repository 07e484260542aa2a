"""Guides: the objects a generation loop asks which tokens may come next (outlines' API).

- `Write`, `Generate`: instructions (`Generate(None)`: any token).
- `BaseGuide`: the stateless base class (state passed in and out); `StopAtEOSGuide`: any token until EOS.
- `RegexGuide.from_regex(regex, tokenizer)`: regex constraint on the core Index (cached).
- `Guide`: outlines-core's stateful guide (one per sequence) over an index or any guide, with
  rollback and `write_mask_into`; `MaskCache`: the byte-bounded LRU of packed masks.
- `CFGGuide(grammar, tokenizer)`: Lark grammar constraint on the grammar engine (`guides.grammar`,
  loaded on first use). `FastCFGGuide` and `ReferenceCFGGuide` (`guides.cfg`, imports lark) are
  the Lark LALR guides, kept as the engine's oracles on LALR grammars.
"""

from __future__ import annotations

from typing import Any

from ..errors import GrammarError, InvalidTokenError
from .base import BaseGuide, StopAtEOSGuide
from .instructions import Generate, Instruction, Write, bitmask_words, fill_bitmask_from_tokens, tokens_from_bitmask
from .regex import RegexGuide
from .stateful import Guide, MaskCache

_LAZY = {"CFGState", "FastCFGGuide", "ReferenceCFGGuide"}

__all__ = [
    "BaseGuide",
    "CFGGuide",
    "CFGState",
    "FastCFGGuide",
    "Generate",
    "GrammarError",
    "Guide",
    "Instruction",
    "InvalidTokenError",
    "MaskCache",
    "ReferenceCFGGuide",
    "RegexGuide",
    "StopAtEOSGuide",
    "Write",
    "bitmask_words",
    "fill_bitmask_from_tokens",
    "tokens_from_bitmask",
]


def __getattr__(name: str) -> Any:
    """Load the CFG guides (and lark) only when one of their names is first used."""
    if name == "CFGGuide":
        from .grammar import CFGGuide

        return CFGGuide
    if name in _LAZY:
        from . import cfg

        return getattr(cfg, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
