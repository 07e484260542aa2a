"""Run inside Pyodide by tests/test_web_cancel_pyodide.py (tests/pyodide/run_pytest.mjs --exec).

Arms Pyodide's interrupt buffer from a JavaScript timer (as the page's Cancel does, at any moment)
while the bridge writes an index file in many small yielding chunks, for a spread of delays; with
argv[1] == "guarded" the worker's guard is installed first. Prints one JSON line: the replies'
kinds. An interrupt escaping into the event loop ends the process with an uncaught error, a task
it stopped for good leaves its build unanswered (counted as "hung").
"""

import asyncio
import json
import sys

import pyodide_js
from js import Int32Array, SharedArrayBuffer
from pyodide.code import run_js

from tokenguide import _web_bridge as bridge
from tokenguide.index import writer

GUARDED = sys.argv[1] == "guarded"
TRIALS = int(sys.argv[2])
VOCAB = {"a": 0, "b": 1, "ab": 2, "c": 3, "Ġ": 4, "<|endoftext|>": 5}

buffer = Int32Array.new(SharedArrayBuffer.new(8))
pyodide_js.setInterruptBuffer(buffer)
if GUARDED:
    bridge.guard_interrupts(buffer)
arm = run_js("(buf, ms) => setTimeout(() => { buf[0] = 2; }, ms)")
writer.iter_payload.__kwdefaults__["chunk_bytes"] = 16  # thousands of yields: most of the time is the event loop's


async def main():
    reply = await bridge.call("load_vocabulary", json.dumps(VOCAB), "vocab.json", None, "test:races")
    fingerprint = reply["result"]["fingerprint"]
    kinds = []
    for trial in range(TRIALS):
        buffer[0] = 0  # the worker's resetCancel before each task
        arm(buffer, 1 + trial * 3)
        task = asyncio.ensure_future(bridge.call("build_index", "[abc ]{0,12}", fingerprint, False, 1000, None, None))
        done, _ = await asyncio.wait([task], timeout=60)  # a guard against a stopped task, not a timing check
        kinds.append("hung" if not done else "ok" if task.result()["ok"] else task.result()["error"]["kind"])
        await asyncio.sleep(0.05)  # the timer fired (if the build ended first: an idle worker, cleared at the next task)
    buffer[0] = 0
    return kinds


print(json.dumps(asyncio.get_event_loop().run_until_complete(main())))
