"""Deep recursion without the call stack: generators that yield requests for sub-results.

The regex parser and the NFA builder walk trees of any nesting depth (JSON Schema regexes nest
hundreds of groups; Pyodide's stack is small), so each level is a generator driven from a list.
"""

from __future__ import annotations

from typing import Any, Callable, Generator

Step = Generator[Any, Any, Any]


def run_nested(root: Step, expand: Callable[[Any], tuple[Step | None, Any]]) -> Any:
    """Run generator `root` to its return value. Each value a generator yields is a request;
    `expand(request)` gives either (a generator computing its answer, None) or (None, the answer
    at once), and the answer is sent back into the generator that asked."""
    stack = [root]
    value: Any = None
    while True:
        try:
            request = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            value = stop.value
            continue
        sub, value = expand(request)
        if sub is not None:
            stack.append(sub)
