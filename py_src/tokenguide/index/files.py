"""Index's `.outlines` file methods (a mixin, so the Index class stays about one concept).

Writing streams through `format.iter_file`; reading validates while inflating
(`format.read_index_data`) and hands the arrays to `from_transitions` without copying them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator

from ..arguments import check_bytes, check_callable, check_int, check_path
from . import format as file_format

if TYPE_CHECKING:  # the class these methods are mixed into (index.py imports this module)
    from .index import Index

__all__ = ["IndexFiles"]

Progress = Callable[[str, int, int], object]


class IndexFiles:
    """`iter_bytes`, `to_bytes`, `save` and the `from_bytes`, `load` constructors of Index."""

    def iter_bytes(
        self,
        *,
        level: int = file_format.GZIP_LEVEL,
        progress: Progress | None = None,
        should_cancel: Callable[[], bool] | None = None,
    ) -> Iterator[bytes]:
        """The `.outlines` file as a stream of chunks (about 1 MiB of payload each, compressed).

        `progress("writing", done, total)` counts transitions; `should_cancel()` returning true
        raises BuildCancelled. The default `level` 6 gives tokenguide's canonical bytes; a lower
        level writes faster (level 1 about ten times) and larger files, equally valid.
        """
        check_int("Index.iter_bytes", "level", level, low=0, high=9)
        check_callable("Index.iter_bytes", "progress", progress)
        check_callable("Index.iter_bytes", "should_cancel", should_cancel)
        return file_format.iter_file(self, level=level, progress=progress, should_cancel=should_cancel)

    def to_bytes(
        self,
        *,
        level: int = file_format.GZIP_LEVEL,
        progress: Progress | None = None,
        should_cancel: Callable[[], bool] | None = None,
    ) -> bytes:
        """The complete `.outlines` file contents (gzip-compressed v1 payload); see iter_bytes."""
        return b"".join(self.iter_bytes(level=level, progress=progress, should_cancel=should_cancel))

    @classmethod
    def from_bytes(
        cls,
        data: bytes,
        *,
        max_size: int = file_format.DEFAULT_MAX_SIZE,
        progress: Progress | None = None,
        should_cancel: Callable[[], bool] | None = None,
    ):
        """An Index from `.outlines` file contents; IndexFormatError if they are not valid v1 data.

        The payload is validated while it is decompressed, at most 4 MiB at a time, so a hostile
        file is rejected at its first impossible field with bounded memory.
        """
        check_bytes("Index.from_bytes", "data", data)
        max_size = check_int("Index.from_bytes", "max_size", max_size, low=0)
        parsed = file_format.read_index_data(data, max_size=max_size, progress=progress, should_cancel=should_cancel)
        return cls.from_transitions(
            parsed.vocab_size,
            parsed.eos_token_id,
            parsed.initial_state,
            parsed.final_states,
            parsed.transitions,
        )

    def save(self, path, **kwargs) -> None:
        """Write the `.outlines` file to `path`, streamed (keyword arguments as iter_bytes)."""
        path = check_path("Index.save", "path", path)
        with open(path, "wb") as f:
            for chunk in self.iter_bytes(**kwargs):
                f.write(chunk)

    @classmethod
    def load(cls, path, **kwargs) -> "Index":
        """Read an `.outlines` file (keyword arguments as from_bytes)."""
        path = check_path("Index.load", "path", path)
        with open(path, "rb") as f:
            data = f.read()
        return cls.from_bytes(data, **kwargs)
