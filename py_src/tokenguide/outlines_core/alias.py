"""Serving `tokenguide.outlines_core` under the name ``outlines_core``: `install()` / `uninstall()`.

`install()` puts a finder first on `sys.meta_path` that answers every import of
``outlines_core`` or ``outlines_core.X`` with the module ``tokenguide.outlines_core.X`` itself (the
same module object under both names, so classes, pickles and isinstance checks agree), and
replaces any ``outlines_core`` modules already imported (the real package, if it is installed).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any

__all__ = ["install", "installed", "uninstall"]

ALIAS = "outlines_core"
TARGET = "tokenguide.outlines_core"


class _AliasLoader(importlib.abc.Loader):
    """Loads ``outlines_core.X`` as the already importable ``tokenguide.outlines_core.X``."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: Any) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the target module was executed when it was imported."""


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``outlines_core[.X]`` as an alias of ``tokenguide.outlines_core[.X]``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        real = TARGET + fullname[len(ALIAS):]
        if importlib.util.find_spec(real) is None:
            return None
        spec = importlib.util.spec_from_loader(fullname, _AliasLoader(real))
        return spec


_FINDER = _AliasFinder()


def installed() -> bool:
    """Whether ``import outlines_core`` gives tokenguide's drop-in now."""
    return _FINDER in sys.meta_path


def install() -> ModuleType:
    """Make ``import outlines_core`` (and its submodules) give `tokenguide.outlines_core`; returns it.

    Modules already imported under ``outlines_core`` are replaced (aliases of ours for the ones we
    have, dropped otherwise), so install before other code holds on to the real package's objects.
    """
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        del sys.modules[name]
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    for name in [n for n in sys.modules if n == TARGET or n.startswith(TARGET + ".")]:
        sys.modules[ALIAS + name[len(TARGET):]] = sys.modules[name]
    return importlib.import_module(ALIAS)


def uninstall() -> None:
    """Undo `install`: the finder goes and the ``outlines_core`` names are forgotten (a later
    import finds the real package, if installed)."""
    while _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        del sys.modules[name]
