"""Run inside Pyodide by tests/test_pyodide_suite.py (run_pytest.mjs --exec): checks that a script
runs with its arguments, imports the harness's wheels, writes files that land on the host disk,
and that its exit code comes back. argv: output path, exit code."""

import sys

import lark  # noqa: F401 (loaded from the harness's wheels)

data = bytes(range(256)) + sys.platform.encode()
with open(sys.argv[1], "wb") as f:
    f.write(data)
sys.exit(int(sys.argv[2]))
