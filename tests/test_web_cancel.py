"""Where the page's Cancel lands in the worker's Python (tokenguide._web_cancel), with real SIGINTs in
CPython: inside a bridge call it is a cancel reply; in the event loop between two steps of an async
build, in the error report or outside any call it is held back (the interrupt buffer re-armed) and
never escapes. (In Pyodide the same SIGINT comes from the interrupt buffer: tests/test_web_cancel_pyodide.py.)"""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import sys
import warnings

import pytest

from tokenguide import _web_bridge as bridge
from tokenguide._web_cancel import guard_interrupts, inside_interruptible, interruptible

SMALL = {"a": 0, "b": 1, "ab": 2, "c": 3, "Ġ": 4, "<|endoftext|>": 5}


@pytest.fixture()
def buffer():
    """Pyodide's interrupt buffer as a list, with the guard installed (the old handler put back after)."""
    old = signal.getsignal(signal.SIGINT)
    buf = [0, 0]
    guard_interrupts(buf)
    yield buf
    signal.signal(signal.SIGINT, old)


def fingerprint() -> str:
    reply = asyncio.run(bridge.call("load_vocabulary", json.dumps(SMALL), "vocab.json", None, "test:cancel"))
    assert reply["ok"], reply
    return reply["result"]["fingerprint"]


def test_a_sigint_inside_the_build_is_a_cancel_reply(buffer):
    fp = fingerprint()
    calls = []

    def should_cancel():
        calls.append(1)
        if len(calls) == 2:
            signal.raise_signal(signal.SIGINT)  # the handler runs here, inside the build's checkpoint
        return False

    reply = asyncio.run(bridge.call("build_index", "[abc ]{0,30}", fp, False, 1000, None, should_cancel))
    assert len(calls) >= 2, "the build never reached a second checkpoint"
    assert reply == {"ok": False, "error": {"kind": "BuildCancelled", "message": "the build was cancelled"}}
    assert buffer[0] == 0


def test_a_sigint_in_the_event_loop_between_build_steps_is_held_back(buffer):
    """The race CI could hit: the interrupt lands in asyncio's own code between two steps of the
    build. Unguarded, the KeyboardInterrupt escapes asyncio.run and the build never ends."""
    fp = fingerprint()
    fired = []

    async def main():
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(bridge.call("build_index", "[abc ]{0,30}", fp, False, 1000, None, None))
        await asyncio.sleep(0)  # the build started and yielded
        loop.call_soon(lambda: (fired.append(1), signal.raise_signal(signal.SIGINT)))
        return await task

    reply = asyncio.run(main())
    assert fired, "the interrupt was not raised"
    assert reply["ok"], reply  # nothing of the build was interrupted: the Cancel waits for the next task
    assert buffer[0] == signal.SIGINT  # re-armed: the worker clears it before the next task


def test_a_sigint_during_the_error_report_is_held_back(buffer, monkeypatch):
    real = bridge.for_the_page
    raised = []

    def report(text):
        if not raised:
            raised.append(1)
            signal.raise_signal(signal.SIGINT)
        return real(text)

    monkeypatch.setattr(bridge, "for_the_page", report)
    reply = asyncio.run(bridge.call("build_index", "[abc", "no such fingerprint", False, 1000, None, None))
    assert raised
    assert reply["ok"] is False and reply["error"]["kind"] == "VocabularyError"
    assert buffer[0] == signal.SIGINT


def test_a_sigint_outside_any_call_is_held_back(buffer):
    signal.raise_signal(signal.SIGINT)
    assert buffer[0] == signal.SIGINT


def test_inside_interruptible_follows_the_callers():
    seen = []

    def probe():
        import sys  # noqa: PLC0415

        seen.append(inside_interruptible(sys._getframe()))

    probe()
    asyncio.run(interruptible(probe, ()))

    async def nested():
        await asyncio.sleep(0)
        probe()

    asyncio.run(interruptible(nested, ()))
    assert seen == [False, True, True]



def _call_with_cancel_pending_from(event: int, buf: list, fp: str) -> dict:
    """bridge.call("build_index", ...) with a Cancel pending from the `event`-th Python trace event
    of the call on (0: as it begins), as Pyodide has it: the interrupt buffer is looked at at each
    step, and the guard either raises there (inside the call's work) or re-arms it (anywhere else)."""
    handler = signal.getsignal(signal.SIGINT)
    seen = None  # trace events since bridge.call began

    def tracer(frame, what, arg):
        nonlocal seen
        if seen is None and what == "call" and frame.f_code is bridge.call.__code__:
            seen = 0
        if seen is not None:
            if seen == event:
                buf[0] = signal.SIGINT
            seen += 1
        if buf[0]:
            buf[0] = 0
            handler(signal.SIGINT, frame)  # a KeyboardInterrupt here lands in `frame` (and ends the tracing)
        return tracer

    sys.settrace(tracer)
    try:
        return asyncio.run(bridge.call("build_index", "[ab]", fp, False, 1000, None, None))
    finally:
        sys.settrace(None)


def test_a_cancel_before_the_build_starts_leaves_no_coroutine_unawaited(buffer):
    """A Cancel that lands as the call begins (between the bridge function's coroutine being made
    and its first step, among others) is a cancel reply, and that coroutine is closed, never left
    for the garbage collector to report as "coroutine 'build_index' was never awaited"."""
    fp = fingerprint()
    replies = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for event in range(40):
            replies.append(_call_with_cancel_pending_from(event, buffer, fp))
        gc.collect()  # a dropped coroutine may wait in a reference cycle (its traceback's frames)
    unawaited = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    assert not unawaited, unawaited
    cancelled = {"ok": False, "error": {"kind": "BuildCancelled", "message": "the build was cancelled"}}
    assert replies[0] == cancelled
    assert all(r == cancelled for r in replies), [(i, r) for i, r in enumerate(replies) if r != cancelled]
