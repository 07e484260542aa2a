"""Strings under a format, a pattern and length bounds together: compile time and minimal states
with the lookahead fused into one product automaton (regex/fusion.py) and without (the same
regex through subset construction over the lookahead, `threads`).

Each case is one JSON Schema string (its regex from compile_json_schema), compiled eagerly with
max_states 100,000 (the guides' default); "over limit" is the StateLimitError the guide used to
raise for such schemas (JSONSchemaBench Github_easy o9778 and its siblings: email with maxLength
1024; o58907: email with maxLength 255).

    python benchmarks/bench_string_fusion.py [--rounds 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))

from tokenguide.errors import StateLimitError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from tokenguide.regex import dfa as dfa_mod  # noqa: E402

CASES = [
    ("email, maxLength 64", {"type": "string", "format": "email", "maxLength": 64}),
    ("email, maxLength 255", {"type": "string", "format": "email", "maxLength": 255}),
    ("email, maxLength 1024", {"type": "string", "format": "email", "maxLength": 1024}),
    ("hostname (253 characters)", {"type": "string", "format": "hostname"}),
    ("uri, maxLength 255", {"type": "string", "format": "uri", "maxLength": 255}),
    ("date-time, pattern ^20", {"type": "string", "format": "date-time", "pattern": "^20"}),
    ("pattern ^[a-z]+$, 3..40", {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$", "minLength": 3, "maxLength": 40}),
]


def measure(regex: str, fuse: bool) -> tuple[str, float]:
    original = dfa_mod.fuse_string_lookaheads
    if not fuse:
        dfa_mod.fuse_string_lookaheads = lambda tree, automaton, max_states: tree
    start = time.perf_counter()
    try:
        states = f"{dfa_mod.compile_regex(regex, max_states=100_000).num_states:,}"
    except StateLimitError:
        states = "over limit"
    finally:
        dfa_mod.fuse_string_lookaheads = original
    return states, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1, help="best of this many compiles per cell")
    args = ap.parse_args()
    print("| string | fused: states | s | lookahead: states | s |")
    print("|---|---:|---:|---:|---:|")
    for name, schema in CASES:
        regex = compile_json_schema(schema).regex
        cells = []
        for fuse in (True, False):
            runs = [measure(regex, fuse) for _ in range(args.rounds)]
            cells.append((runs[0][0], min(t for _, t in runs)))
        (fs, ft), (ls, lt) = cells
        print(f"| {name} | {fs} | {ft:.1f} | {ls} | {lt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
