"""The web playground's runner: the user's code, run in the Pyodide worker with its prints sent
to the page as they come, its errors shown as tracebacks and a Stop taken as KeyboardInterrupt."""

from __future__ import annotations

import inspect
import time
from typing import Any, Callable

from .errors import VocabularyError
from .vocabulary import Vocabulary


_gpt2: dict[str, Vocabulary] = {}  # the bundled GPT-2 vocabulary, read once per worker


class _Output:
    """A text stream for the user's prints: sent to the page as it comes (at most every 50 ms)."""

    def __init__(self, progress: Callable[[str, Any, int], Any] | None):
        self.progress = progress
        self.parts: list[str] = []
        self.last = time.perf_counter()

    def write(self, text: str) -> int:
        self.parts.append(text)
        if time.perf_counter() - self.last > 0.05 or sum(map(len, self.parts)) > 1 << 14:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self.parts and self.progress is not None:
            self.progress("output", "".join(self.parts), 0)
            self.parts.clear()
        self.last = time.perf_counter()


async def run_code(
    code: str,
    gpt2_text: str | None = None,
    progress: Callable[[str, Any, int], Any] | None = None,
    should_cancel: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Run playground code (top-level ``await`` allowed, ``await gpt2()`` gives the bundled GPT-2
    vocabulary); its output goes to ``progress("output", text, 0)`` as it is printed.

    Returns {"failed", "stopped", "seconds"}; the user's errors are printed as tracebacks, not
    raised. A Stop from the page is a KeyboardInterrupt (Pyodide's interrupt buffer).
    """
    import ast
    import contextlib
    import traceback

    async def gpt2() -> Vocabulary:
        """The bundled GPT-2 vocabulary (read once per worker)."""
        if gpt2_text is None:
            raise VocabularyError("the bundled GPT-2 vocabulary is not available here")
        if "gpt2" not in _gpt2:
            _gpt2["gpt2"] = Vocabulary.from_json_text(gpt2_text, "gpt2-vocab.json")
        return _gpt2["gpt2"]

    import linecache

    linecache.cache["<playground>"] = (len(code), None, code.splitlines(True), "<playground>")  # source lines in tracebacks
    out = _Output(progress)
    namespace: dict[str, Any] = {"__name__": "__main__", "gpt2": gpt2}
    start = time.perf_counter()
    failed = stopped = False
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            compiled = compile(code, "<playground>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            result = eval(compiled, namespace)  # noqa: S307 - running the user's own code is the point
            if inspect.isawaitable(result):
                await result
        except KeyboardInterrupt:
            failed = stopped = True
            print("Stopped.")
        except BaseException as exc:  # noqa: BLE001 - the user's error is shown, the worker lives on
            failed = True
            frames = traceback.extract_tb(exc.__traceback__)
            skip = next((i for i, f in enumerate(frames) if f.filename == "<playground>"), len(frames))
            print("Traceback (most recent call last):" if frames[skip:] else "", end="\n" if frames[skip:] else "")
            print("".join(traceback.format_list(frames[skip:])), end="")
            print("".join(traceback.format_exception_only(exc)), end="")
    out.flush()
    return {"failed": failed, "stopped": stopped, "seconds": time.perf_counter() - start}
