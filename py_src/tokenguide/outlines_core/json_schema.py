"""outlines-core's ``outlines_core.json_schema``: the JSON value regexes and `build_regex_from_schema`.

The constants are tokenguide's own regexes for the same values (Python `re` syntax, the ones its
JSON Schema compiler emits), so that they agree with `build_regex_from_schema`: STRING_INNER is
one character of a JSON string body, the formats (DATE_TIME, DATE, TIME, UUID, URI, EMAIL) are
quoted strings of the RFC grammars, WHITESPACE is the default whitespace between tokens.
"""

from __future__ import annotations

import json
from typing import Any

from ..json_schema import WHITESPACE as _DEFAULT_WHITESPACE
from ..json_schema import build_regex_from_schema as _build
from ..json_schema.formats import format_regex
from ..json_schema import text as _text

__all__ = [
    "BOOLEAN",
    "DATE",
    "DATE_TIME",
    "EMAIL",
    "INTEGER",
    "NULL",
    "NUMBER",
    "STRING",
    "STRING_INNER",
    "TIME",
    "URI",
    "UUID",
    "WHITESPACE",
    "build_regex_from_schema",
]

BOOLEAN = "(true|false)"
INTEGER = _text.INTEGER
NULL = _text.NULL
NUMBER = _text.NUMBER
STRING = _text.STRING
STRING_INNER = _text.STRING_CHAR
WHITESPACE = _DEFAULT_WHITESPACE
DATE_TIME = f'"{format_regex("date-time", 2020)}"'
DATE = f'"{format_regex("date", 2020)}"'
TIME = f'"{format_regex("time", 2020)}"'
UUID = f'"{format_regex("uuid", 2020)}"'
URI = f'"{format_regex("uri", 2020)}"'
EMAIL = f'"{format_regex("email", 2020)}"'


def build_regex_from_schema(json_schema: str, whitespace_pattern: str | None = None, max_recursion_depth: int = 3) -> str:
    """The regex of the JSON texts of `json_schema` (a JSON string, as outlines-core takes it).

    A non-str schema is a TypeError, text that is not JSON a TypeError("Expected a valid JSON
    string."), a schema tokenguide cannot express a ValueError (UnsupportedSchemaError).
    """
    if not isinstance(json_schema, str):
        raise TypeError(f"argument 'json_schema': '{type(json_schema).__name__}' object cannot be cast as 'str'")
    if whitespace_pattern is not None and not isinstance(whitespace_pattern, str):
        raise TypeError(f"argument 'whitespace_pattern': '{type(whitespace_pattern).__name__}' object cannot be cast as 'str'")
    try:
        schema: Any = json.loads(json_schema)
    except ValueError:
        raise TypeError("Expected a valid JSON string.") from None
    return _build(schema, whitespace_pattern, max_recursion_depth)
