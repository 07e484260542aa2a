"""Guides: the objects a generation loop asks which tokens may come next (outlines' API).

- `Write`, `Generate`: instructions (`Generate(None)`: any token).
- `Guide`: base class; `StopAtEOSGuide`: any token until EOS.
- `RegexGuide.from_regex(regex, tokenizer)`: regex constraint on the core Index (cached).
- `CFGGuide(grammar, tokenizer)`: Lark grammar constraint, the fast mask computation
  (`FastCFGGuide`: one walk of a character trie through a lazily built lexer/parser machine).
  `ReferenceCFGGuide` tries every token with a parser copy: exact but slow; it is the oracle.
"""

from .base import Guide, StopAtEOSGuide
from .cfg_reference import CFGState, GrammarError, InvalidTokenError, ReferenceCFGGuide
from .instructions import Generate, Instruction, Write, bitmask_words, fill_bitmask_from_tokens, tokens_from_bitmask
from .regex import RegexGuide

from .cfg_fast import FastCFGGuide as CFGGuide  # noqa: E402  (exact answers of the reference, fast)

__all__ = [
    "CFGGuide",
    "CFGState",
    "Generate",
    "GrammarError",
    "Guide",
    "Instruction",
    "InvalidTokenError",
    "ReferenceCFGGuide",
    "RegexGuide",
    "StopAtEOSGuide",
    "Write",
    "bitmask_words",
    "fill_bitmask_from_tokens",
    "tokens_from_bitmask",
]
