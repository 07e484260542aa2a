"""Where the web worker's Cancel may land: a KeyboardInterrupt only inside a bridge call's own work.

The page arms Pyodide's interrupt buffer at any moment; Pyodide then raises SIGINT's
KeyboardInterrupt at the next check in *whatever* Python runs, often asyncio's event loop
between two steps of an async build. Raised there it escapes into the JavaScript event loop
(an uncaught error, and the build's task never resumes: the page waits forever). The handler
installed by `guard_interrupts` raises only when a frame of `interruptible` is on the stack (the
bridge call's function and what it calls, where `call` catches it); anywhere else it re-arms the
buffer, so the interrupt lands as soon as the call's own code runs again (the worker clears the
buffer between tasks, so it never reaches the next one).
"""

from __future__ import annotations

import inspect
import signal
from types import FrameType
from typing import Any, Callable

__all__ = ["interruptible", "guard_interrupts", "inside_interruptible"]


async def interruptible(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """Run fn(*args) (awaited when it returns an awaitable): the only place a Cancel may raise.

    A Cancel that lands here after an async `fn` made its coroutine but before that coroutine ran
    (already pending as the call begins, it lands at the first check) would drop the coroutine
    unstarted, and the garbage collector would log "coroutine ... was never awaited": on any
    failure the coroutine is closed (unstarted, or suspended if the Cancel lands as it resumes)."""
    result = None
    try:
        result = fn(*args)
        if inspect.isawaitable(result):
            result = await result
        return result
    except BaseException:
        if inspect.iscoroutine(result):
            result.close()  # a no-op once it has finished
        raise


_RUNNER = interruptible.__code__


def inside_interruptible(frame: FrameType | None) -> bool:
    """True when `frame` or one of its callers is running `interruptible`."""
    while frame is not None:
        if frame.f_code is _RUNNER:
            return True
        frame = frame.f_back
    return False


def guard_interrupts(buffer: Any) -> Callable[[int, FrameType | None], None]:
    """Install the SIGINT handler for Pyodide's interrupt `buffer` (buffer[0] = 2 is a pending
    SIGINT); return it. A KeyboardInterrupt inside `interruptible`, elsewhere the buffer re-armed."""

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        if inside_interruptible(frame):
            raise KeyboardInterrupt
        buffer[0] = signum  # not here (the event loop, an error report, idle code): when the call's code runs again

    signal.signal(signal.SIGINT, on_interrupt)
    return on_interrupt
