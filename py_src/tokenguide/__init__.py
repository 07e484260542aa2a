"""tokenguide: regex, JSON Schema and Lark grammar constraints as token-level automata, in pure Python.

    from tokenguide import Index, Vocabulary, Guide

    vocabulary = Vocabulary.from_file("vocab.json")
    guide = Guide(Index(r"\\d{3}-\\d{4}", vocabulary))

Importing this package does not import lark: the grammar guides load on first use.
"""

from __future__ import annotations

from typing import Any

from .errors import (
    ArgumentError,
    BuildCancelled,
    GrammarError,
    GuideError,
    IncompatibleVocabularyError,
    IndexFormatError,
    InvalidTokenError,
    MaskBufferError,
    NotFoundError,
    RegexError,
    StateLimitError,
    TokenguideError,
    UnsupportedSchemaError,
    VocabularyError,
    VocabularyTypeError,
)
from .guides import BaseGuide, Generate, RegexGuide, StopAtEOSGuide, Write
from .guides.stateful import Guide
from .index import Index
from .vocabulary import Tokenizer, Vocabulary

__version__ = "0.2.0"

_LAZY = {
    "CFGGuide": ("guides.grammar", "CFGGuide"),
    "ReferenceCFGGuide": ("guides.cfg", "ReferenceCFGGuide"),
    "build_regex_from_schema": ("json_schema", "build_regex_from_schema"),
    "compile_json_schema": ("json_schema", "compile_json_schema"),
}

__all__ = [
    "ArgumentError",
    "BaseGuide",
    "BuildCancelled",
    "CFGGuide",
    "Generate",
    "GrammarError",
    "Guide",
    "GuideError",
    "IncompatibleVocabularyError",
    "Index",
    "IndexFormatError",
    "InvalidTokenError",
    "MaskBufferError",
    "NotFoundError",
    "ReferenceCFGGuide",
    "RegexError",
    "RegexGuide",
    "StateLimitError",
    "StopAtEOSGuide",
    "Tokenizer",
    "TokenguideError",
    "UnsupportedSchemaError",
    "Vocabulary",
    "VocabularyError",
    "VocabularyTypeError",
    "Write",
    "__version__",
    "build_regex_from_schema",
    "compile_json_schema",
]


def __getattr__(name: str) -> Any:
    """Names whose modules are heavy or import lark, loaded on first use."""
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
