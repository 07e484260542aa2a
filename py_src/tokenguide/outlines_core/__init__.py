"""A drop-in for outlines-core 0.2.14 on tokenguide: `Guide`, `Index`, `Vocabulary`, `json_schema`,
the ``outlines_core.outlines_core`` extension path and `kernels` (torch, numpy, mlx).

``import tokenguide.outlines_core as outlines_core`` uses it directly; `install()` makes
``import outlines_core`` give it everywhere in the process (see docs/outlines_core.md).
"""

from __future__ import annotations

from . import json_schema, outlines_core
from .alias import install, installed, uninstall
from .guide import Guide
from .index import Index
from .vocabulary import Vocabulary

__all__ = ["Guide", "Index", "Vocabulary", "install", "installed", "json_schema", "outlines_core", "uninstall"]
__version__ = "0.2.14"
