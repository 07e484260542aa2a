"""Row-building cost of the derivative automaton (`ir.derivatives.LexemeDFA`) against the subset
automaton (`regex.lazy.LazyByteDFA`), on the shared benchmark regexes.

For each regex, in a fresh interpreter (the derivative tables are process-wide): the time to
build the automaton object, then to build every row reachable from the initial state (breadth
first, at most --max-states rows), the states and byte classes seen, and for the derivative
automaton the time to build the same rows again from a second object (shared rows). Optionally
also an intersection and a complement (`--boolean`), which LazyByteDFA cannot express.

    python benchmarks/bench_lexemes.py [--max-states 5000] [--only NAME ...] [--boolean]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from benchmarks.regexes import HARD_REPETITIONS, REGEX_CASES  # noqa: E402

CASES = {**REGEX_CASES, **HARD_REPETITIONS,
         "unicode_words": r"[\w\u4e00-\u9fff]+( [\w\u4e00-\u9fff]+){0,20}",
         "any_text_40": r"(?s).{0,40}"}
BOOLEAN = {
    "word_not_keyword": (r"[a-z_][a-z0-9_]*", r"(if|else|while|for|return)"),
    "string_no_double_space": (r'"([^"\\]|\\.)*"', r'.*  .*'),
    "digits_not_multiple_of_3_long": (r"\d{1,12}", r"\d{3}|\d{6}|\d{9}|\d{12}"),
}


def all_rows(dfa, max_states: int) -> tuple[set[int], float]:
    """Build every row reachable from the initial state (at most max_states); (states, seconds)."""
    start = time.perf_counter()
    seen = {dfa.initial}
    queue = deque([dfa.initial])
    while queue and len(seen) < max_states:
        for t in dfa.row(queue.popleft()):
            if t >= 0 and t not in seen:
                seen.add(t)
                queue.append(t)
    return seen, time.perf_counter() - start


def measure(kind: str, name: str, max_states: int) -> dict:
    """One case, in this interpreter."""
    from tokenguide.ir import derivatives
    from tokenguide.ir.lexemes import from_regex, inter, lexeme_of, neg
    from tokenguide.regex.lazy import lazy_regex

    out: dict = {"name": name}
    if kind == "regex":
        pattern = CASES[name]
        t0 = time.perf_counter()
        lazy = lazy_regex(pattern)
        out["lazy_build"] = time.perf_counter() - t0
        states, out["lazy_rows"] = all_rows(lazy, max_states)
        out["lazy_states"] = len(states)
        t0 = time.perf_counter()
        lexeme = from_regex(pattern)
    else:
        a, b = BOOLEAN[name]
        t0 = time.perf_counter()
        lexeme = inter(from_regex(a), neg(from_regex(b)))
    dfa = derivatives.LexemeDFA(lexeme)
    out["deriv_build"] = time.perf_counter() - t0
    states, out["deriv_rows"] = all_rows(dfa, max_states)
    out["deriv_states"] = len(states)
    out["deriv_again"] = all_rows(derivatives.LexemeDFA(lexeme), max_states)[1]
    classes = [max(derivatives.byte_classes(lexeme_of(s))) + 1 for s in states]
    out["classes"] = sum(classes) / max(1, len(classes))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-states", type=int, default=5000)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--boolean", action="store_true", help="also intersections and complements")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child[0], args.child[1], args.max_states)))
        return 0
    jobs = [("regex", n) for n in CASES if not args.only or n in args.only]
    if args.boolean:
        jobs += [("boolean", n) for n in BOOLEAN if not args.only or n in args.only]
    print("| case | lazy build ms | lazy rows ms (states) | deriv build ms | deriv rows ms (states) "
          "| ratio | avg classes | deriv rows again ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    total_lazy = total_deriv = 0.0
    for kind, name in jobs:
        res = subprocess.run([sys.executable, __file__, "--max-states", str(args.max_states), "--child", kind, name],
                             capture_output=True, text=True, check=True)
        r = json.loads(res.stdout)
        deriv = r["deriv_build"] + r["deriv_rows"]
        if kind == "regex":
            lazy = r["lazy_build"] + r["lazy_rows"]
            total_lazy += lazy
            total_deriv += deriv
            lazy_cells = f"{r['lazy_build'] * 1e3:.1f} | {r['lazy_rows'] * 1e3:.1f} ({r['lazy_states']})"
            ratio = f"{deriv / lazy:.2f}"
        else:
            lazy_cells, ratio = "- | -", "-"
        print(f"| {name} | {lazy_cells} | {r['deriv_build'] * 1e3:.1f} | {r['deriv_rows'] * 1e3:.1f} "
              f"({r['deriv_states']}) | {ratio} | {r['classes']:.1f} | {r['deriv_again'] * 1e3:.2f} |")
    if total_lazy:
        print(f"\nregex cases, build + all rows: lazy {total_lazy * 1e3:.0f} ms, derivatives {total_deriv * 1e3:.0f} ms "
              f"(ratio {total_deriv / total_lazy:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
