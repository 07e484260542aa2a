"""How pytest-xdist splits this suite over its workers (tests/conftest.py's scheduler)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["PYODIDE_PART_FILES", "xdist_scope"]

TESTS = Path(__file__).resolve().parent


def _pyodide_part_files() -> frozenset:
    """The test files that declare a Pyodide part (`pytest.mark.pyodide_part(...)`)."""
    return frozenset(f"tests/{p.name}" for p in TESTS.glob("test_*.py")
                     if "pytest.mark.pyodide_part(" in p.read_text(encoding="utf-8"))


PYODIDE_PART_FILES = _pyodide_part_files()


def xdist_scope(nodeid: str) -> str:
    """What pytest-xdist keeps in one worker, in order: every test file with a Pyodide part
    together (the `pyodide_part` fixture runs all the session's parts in one process, which must
    happen once, not once per worker); every browser test, in collection order (a page can start
    from the previous test's state, and the files ran one after another before xdist); any other
    test alone (spread over the workers)."""
    path = nodeid.split("::", 1)[0]
    if path in PYODIDE_PART_FILES:
        return "pyodide"
    if path.startswith("tests/e2e/"):
        return "e2e"
    return nodeid
