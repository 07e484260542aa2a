"""The benchmark scripts (benchmarks/) as modules, for the tests that check their machinery.

benchmarks/ sits beside tests/ at the repository root, which is on sys.path only when pytest
runs from there; `load` puts the root on the path just for the import, so these tests pass from
any working directory and leave sys.path as they found it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load(name: str) -> ModuleType:
    """The module benchmarks.`name` (for example "bench_json_schema"), imported from this repository."""
    added = str(ROOT) not in sys.path
    if added:
        sys.path.insert(0, str(ROOT))
    try:
        return importlib.import_module(f"benchmarks.{name}")
    finally:
        if added:
            sys.path.remove(str(ROOT))
