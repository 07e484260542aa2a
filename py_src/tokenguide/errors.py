"""Exceptions raised by tokenguide, one class per kind of failure."""

from __future__ import annotations


class TokenguideError(Exception):
    """Base class of every error tokenguide raises on bad input."""


class ArgumentError(TokenguideError, TypeError, ValueError):
    """A public function was given an argument of the wrong type or out of range.

    Also a TypeError and a ValueError, so callers written for Python's usual exceptions keep
    working. The message names the function, the argument, what was expected and what was given.
    """


class NotFoundError(ArgumentError, KeyError):
    """A state, token or name that the object does not have (also a KeyError, as a dict lookup raises)."""

    __str__ = Exception.__str__  # the message as given, not KeyError's quoted repr


class RegexError(TokenguideError, ValueError):
    """A regular expression that cannot be parsed or cannot be turned into an automaton.

    `pos` is the 0-based offset in the pattern where the problem is, or None.
    """

    def __init__(self, message: str, pattern: str | None = None, pos: int | None = None):
        self.msg = message
        self.pattern = pattern
        self.pos = pos
        if pattern is not None and pos is not None:
            message = f"{message} at position {pos}\n  {pattern}\n  {' ' * pos}^"
        super().__init__(message)


class StateLimitError(RegexError):
    """The automaton grew past the `max_states` limit."""


class VocabularyError(TokenguideError, ValueError):
    """A vocabulary file or mapping that cannot be used (wrong shape, bad ids, unknown EOS...)."""


class VocabularyTypeError(VocabularyError, ArgumentError):
    """An argument that should be a Vocabulary (or a token mapping) is of another type; names the argument."""


class IncompatibleVocabularyError(TokenguideError, ValueError):
    """The vocabulary cannot spell every string the regex needs (outlines-core's IncompatibleVocabulary).

    `state` is the automaton state where no token can go on (None if not one state) and
    `needed` the bytes the regex accepts there, ascending.
    """

    def __init__(self, message: str, state: int | None = None, needed: tuple[int, ...] = ()):
        super().__init__(message)
        self.state = state
        self.needed = tuple(needed)


class BuildCancelled(TokenguideError):
    """A build was stopped by its progress callback or cancellation hook."""


class IndexFormatError(TokenguideError, ValueError):
    """A `.outlines` index file that is not valid v1 data; says which field and byte offset."""

    def __init__(self, message: str, field: str | None = None, offset: int | None = None):
        self.field = field
        self.offset = offset
        where = []
        if field is not None:
            where.append(f"field {field!r}")
        if offset is not None:
            where.append(f"byte offset {offset}")
        super().__init__(f"{message} ({', '.join(where)})" if where else message)


class GrammarError(TokenguideError, ValueError):
    """A Lark grammar that cannot be used by the CFG guides (syntax error, not LALR, unsupported feature).

    `line` and `column` (1-based, None when unknown) locate the error in the grammar's text."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.line = line
        self.column = column
        super().__init__(message)


class InvalidTokenError(TokenguideError, ValueError):
    """A token that the guide does not allow in this state was passed to a guide's advance/get_next_state."""


class UnsupportedSchemaError(TokenguideError, ValueError):
    """A JSON Schema keyword that cannot be expressed exactly as a regular expression."""

    def __init__(self, message: str, keyword: str | None = None, pointer: str | None = None):
        self.keyword = keyword
        self.pointer = pointer
        super().__init__(message)


class GuideError(TokenguideError, ValueError):
    """A stateful Guide used wrongly: an unknown source, a bad `max_rollback`, a rollback past its history."""


class MaskBufferError(TokenguideError, ValueError, TypeError):
    """A buffer that cannot receive a token bitmask: not writable int32 memory, too small, not contiguous,
    not on the CPU, or a bad raw pointer / numel / element_size."""


class RegexNestingError(RegexError):
    """The regex nests groups deeper than tokenguide supports (`limit`); flatten the groups."""

    def __init__(self, message: str, pattern: str | None = None, pos: int | None = None, limit: int | None = None):
        self.limit = limit
        super().__init__(message, pattern, pos)
