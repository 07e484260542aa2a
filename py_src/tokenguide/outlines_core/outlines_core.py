"""The ``outlines_core.outlines_core`` path: outlines-core's compiled extension module, which code
written before outlines-core 0.2.14 imports from; the same classes and `json_schema` module."""

from __future__ import annotations

from . import json_schema
from .guide import Guide
from .index import Index
from .vocabulary import Vocabulary

__all__ = ["Guide", "Index", "Vocabulary", "json_schema"]
__version__ = "0.2.14"
