"""The benchmarks' oracle for `format: "regex"`: Node's own ECMA-262 parser, `new RegExp(s, "u")`.

JSON Schema's regex format means ECMA-262's dialect (with the u flag, 2020-12 says); jsonschema's
FormatChecker compiles with Python's re instead, which takes `.*+` (possessive) and refuses
`(?<a>x)\\k<a>`. One Node process per Python process answers, a JSON line per question.
"""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
from functools import lru_cache

__all__ = ["ecma_regex_valid", "node_available"]

_SCRIPT = r"""
const rl = require("readline").createInterface({input: process.stdin});
rl.on("line", (line) => {
  let ok = true;
  try { new RegExp(JSON.parse(line), "u"); } catch (e) { ok = false; }
  process.stdout.write(ok ? "1\n" : "0\n");
});
"""
_NODE: list = []


def node_available() -> bool:
    """Is `node` on the PATH (the oracle needs it)?"""
    return shutil.which("node") is not None


def _process() -> subprocess.Popen:
    if not _NODE:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("the ECMA-262 regex oracle needs Node.js (`node` on the PATH)")
        proc = subprocess.Popen([node, "-e", _SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                encoding="utf-8", errors="surrogatepass")
        atexit.register(proc.kill)
        _NODE.append(proc)
    return _NODE[0]


@lru_cache(maxsize=65536)
def ecma_regex_valid(text: str) -> bool:
    """Is `text` a pattern Node accepts with the u flag?"""
    proc = _process()
    proc.stdin.write(json.dumps(text) + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip() == "1"
