"""Node's own ECMA-262 parser as the oracle of regex syntax: `new RegExp(s, "u")` (the `u` flag
JSON Schema 2020-12 asks `format: "regex"` to be read with), for the tests that need it."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (the oracle of ECMA-262 regex syntax)")

_NODE_CHECK = r"""
let data = ""; process.stdin.on("data", d => data += d); process.stdin.on("end", () => {
  const out = JSON.parse(data).map(s => { try { new RegExp(s, "u"); return true } catch { return false } });
  process.stdout.write(JSON.stringify(out));
});
"""


def node_valid(patterns: list[str]) -> list[bool]:
    """Whether Node's `new RegExp(s, "u")` accepts each pattern (one subprocess for all)."""
    if NODE is None:
        pytest.skip("node is not installed (the oracle of ECMA-262 regex syntax)")
    done = subprocess.run([NODE, "-e", _NODE_CHECK], input=json.dumps(patterns), capture_output=True,
                          text=True, check=True, timeout=120)
    return json.loads(done.stdout)
