"""The page's Cancel at any moment, in real Pyodide (Node): the interrupt buffer armed from a
JavaScript timer while the bridge writes an index in thousands of yielding steps, so the SIGINT
often falls in asyncio's event loop between two steps. With the worker's guard
(tokenguide._web_cancel) every build answers, ok or BuildCancelled; without it the
KeyboardInterrupt escapes as an uncaught error and the build never answers (checked by hand:
`node tests/pyodide/run_pytest.mjs . .cache/wheels --exec tests/pyodide/cancel_races.py unguarded 10`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tests" / "pyodide" / "cancel_races.py"
TIMEOUT_S = 20 * 60  # a guard against a hang, not a performance assertion


@pytest.mark.pyodide_part("cancel_races", "--exec", str(SCRIPT), "guarded", "10", timeout=TIMEOUT_S)
def test_cancel_at_any_moment_always_gets_a_reply_in_pyodide(pyodide_part):
    """Runs in the session's one Pyodide process (tests/conftest.py), after the core suite if it
    was selected too."""
    part = pyodide_part("cancel_races")
    assert part.code == 0, part.output
    kinds = json.loads(part.stdout.strip().splitlines()[-1])
    assert len(kinds) == 10 and set(kinds) <= {"ok", "BuildCancelled"}, part.output
    assert "BuildCancelled" in kinds, "no build was interrupted: the test did not test anything\n" + part.output
    assert "never awaited" not in part.stderr, part.output  # a Cancel before a build began closes its coroutine
