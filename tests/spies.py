"""Recording what a library function returns while a test runs (which path a compile took)."""

from __future__ import annotations

from typing import Any


def record_results(monkeypatch: Any, module: Any, name: str) -> list:
    """Wrap `module.name` for the test: every call's result is appended to the returned list."""
    results: list = []
    original = getattr(module, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        results.append(original(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(module, name, spy)
    return results
