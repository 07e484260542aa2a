"""The one access point to the standard library's regex parser (`re._parser`, `re._constants`).

Every module that reads regex syntax goes through here, so the private-module names live in
one place (Python 3.11+ and Pyodide spell them `re._parser` / `re._constants`).
"""

from __future__ import annotations

try:  # CPython 3.11+ and Pyodide
    from re import _constants as constants
    from re import _parser as parser
except ImportError:  # pragma: no cover - older layout (not supported, kept for clarity)
    import sre_constants as constants  # type: ignore[no-redef]
    import sre_parse as parser  # type: ignore[no-redef]

from _sre import unicode_iscased, unicode_tolower  # sre's own simple case mapping

__all__ = ["constants", "extra_cases", "parser", "parse", "subpattern", "unicode_iscased", "unicode_tolower"]


def extra_cases() -> dict:
    """sre's extra case-insensitive equivalences (re._casefix), lowercase code point -> others."""
    try:
        from re._casefix import _EXTRA_CASES
    except ImportError:  # pragma: no cover
        return {}
    return _EXTRA_CASES


def parse(pattern: str, flags: int = 0):
    """Parse `pattern` with re's own parser (raises re.error on bad syntax)."""
    return parser.parse(pattern, flags)


def subpattern(items: list):
    """A parser SubPattern holding `items` (the constructor's state argument changed in 3.11)."""
    state = parser.State() if hasattr(parser, "State") else parser.Pattern()
    return parser.SubPattern(state, items)
