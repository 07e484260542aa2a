"""Lookahead regexes in the eager compiler: build time and minimal states, against the same
regexes without lookaheads.

For JSONSchemaBench schemas (their regex A from build_regex_from_schema), compiles A, then
`value_difference` / `value_intersection` of A with a short enum-like B and with A itself
(the worst case: B as large as A; A minus A is empty, A and A is A).

    python benchmarks/bench_lookahead.py [--count 6] [--seed 0] [--max-chars 20000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py_src"))

from tokenguide.json_schema import build_regex_from_schema  # noqa: E402
from tokenguide.json_schema.text import value_difference, value_intersection  # noqa: E402
from tokenguide.regex import compile_regex  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
ENUM_LIKE = r'(?:\{\}|\[\]|1|"x")'


def timed(pattern: str) -> tuple[int, float]:
    start = time.perf_counter()
    dfa = compile_regex(pattern)
    return dfa.num_states, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-chars", type=int, default=20_000)
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no data at {DATA}")
    warnings.simplefilter("ignore")
    files = sorted(DATA.glob("*.json"))
    random.Random(args.seed).shuffle(files)
    print(f"{'schema':34s} {'chars':>6s} {'plain':>12s} {'A-enum':>12s} {'A&enum':>12s} {'A-A':>12s} {'A&A':>12s}")
    done = 0
    for path in files:
        if done >= args.count:
            break
        try:
            a = build_regex_from_schema(json.dumps(json.loads(path.read_text(encoding="utf-8"))["schema"]))
        except Exception:
            continue
        if not 200 <= len(a) <= args.max_chars or "(?=" in a or "(?!" in a:
            continue
        cells = [timed(a)]
        for b in (ENUM_LIKE, a):
            for make in (value_difference, value_intersection):
                cells.append(timed(make(a, b)))
        shown = " ".join(f"{n:5d} {t * 1000:5.0f}ms" for n, t in cells)
        print(f"{path.stem[:34]:34s} {len(a):6d} {shown}", flush=True)
        done += 1


if __name__ == "__main__":
    main()
