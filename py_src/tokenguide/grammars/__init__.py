"""Bundled Lark grammars (package data), loadable by name: ``tokenguide.grammars.load("json")``.

`GRAMMAR_PATH` is the folder, added to Lark's import paths by the CFG guides, so a grammar can
also ``%import json.value`` style rules from these files (as well as Lark's own ``%import common``).
"""

from __future__ import annotations

import os

GRAMMAR_PATH = os.path.dirname(os.path.abspath(__file__))

__all__ = ["GRAMMAR_PATH", "load", "names", "json", "arithmetic", "csv"]


def names() -> list[str]:
    """Names of the bundled grammars, sorted."""
    return sorted(f[:-5] for f in os.listdir(GRAMMAR_PATH) if f.endswith(".lark"))


def load(name: str) -> str:
    """The text of a bundled grammar, e.g. load("json"); raises ValueError listing the names if unknown."""
    if not isinstance(name, str) or name not in names():
        raise ValueError(f"unknown grammar {name!r}; bundled grammars: {', '.join(names())}")
    with open(os.path.join(GRAMMAR_PATH, name + ".lark"), encoding="utf-8") as handle:
        return handle.read()


def __getattr__(attr: str) -> str:
    """`tokenguide.grammars.json` etc. (as outlines.grammars.json)."""
    if attr in ("json", "arithmetic", "csv"):
        return load(attr)
    raise AttributeError(f"module 'tokenguide.grammars' has no attribute {attr!r}")
