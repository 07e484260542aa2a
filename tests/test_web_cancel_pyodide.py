"""The page's Cancel at any moment, in real Pyodide (Node): the interrupt buffer armed from a
JavaScript timer while the bridge writes an index in thousands of yielding steps, so the SIGINT
often falls in asyncio's event loop between two steps. With the worker's guard
(tokenguide._web_cancel) every build answers, ok or BuildCancelled; without it the
KeyboardInterrupt escapes as an uncaught error and the build never answers (checked by hand:
`node tests/pyodide/run_pytest.mjs . .cache/wheels --exec tests/pyodide/cancel_races.py unguarded 10`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "tests" / "pyodide" / "run_pytest.mjs"
SCRIPT = REPO / "tests" / "pyodide" / "cancel_races.py"
PYODIDE_NPM = REPO / "web" / "node_modules" / "pyodide"
WHEEL_DIR = Path(os.environ.get("TOKENGUIDE_WHEELS") or REPO / ".cache" / "wheels")
HARNESS_WHEELS = ("iniconfig", "packaging", "pluggy", "pygments", "pytest",
                  "sortedcontainers", "attrs", "hypothesis", "interegular", "lark")
TIMEOUT_S = 20 * 60  # a guard against a hang, not a performance assertion


def test_cancel_at_any_moment_always_gets_a_reply_in_pyodide():
    node = shutil.which("node")
    if node is None or not (PYODIDE_NPM / "pyodide.mjs").exists():
        pytest.skip("needs node and web/node_modules/pyodide: run `python3 build.py test`")
    wheels = {p.name.split("-")[0].lower() for p in WHEEL_DIR.glob("*.whl")} if WHEEL_DIR.is_dir() else set()
    missing = [n for n in HARNESS_WHEELS if n not in wheels]
    if missing:
        pytest.skip(f"no wheels in {WHEEL_DIR} for {', '.join(missing)}: run `python3 build.py test`")
    cmd = [node, str(HARNESS), str(REPO), str(WHEEL_DIR), "--exec", str(SCRIPT), "guarded", "10"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
    output = f"$ {' '.join(cmd)}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    assert proc.returncode == 0, output
    kinds = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(kinds) == 10 and set(kinds) <= {"ok", "BuildCancelled"}, output
    assert "BuildCancelled" in kinds, "no build was interrupted: the test did not test anything\n" + output
