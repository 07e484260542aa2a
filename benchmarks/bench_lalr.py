"""LALR(1) table construction: Lark's own analyzer against tokenguide's (guides.cfg.lalr).

The grammar is the package's JSON grammar (the JSON Schema grammar path, whose Lark grammars
for real schemas this compared too, was replaced by the engine path). For each: Lark rules after expansion, LR(0) states, the time Lark's
`LALR_Analyzer.compute_lalr` takes against `FastLalrAnalyzer.compute_lalr` on the same parser
configuration (process time, one run each; the analyzers' construction, FIRST/NULLABLE, is
not timed), and whether the two tables are the same (`canonical_table`).

    python benchmarks/bench_lalr.py [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from lark.parsers import lalr_analysis  # noqa: E402

from tokenguide.grammars import GRAMMAR_PATH  # noqa: E402
from tokenguide.guides.cfg.grammar import build_lark  # noqa: E402
from tokenguide.guides.cfg.lalr import FastLalrAnalyzer, canonical_table  # noqa: E402


def grammars(only: list[str]) -> list[tuple[str, str]]:
    """(name, Lark grammar text) for the package JSON grammar."""

    out = [("package/json.lark", Path(GRAMMAR_PATH, "json.lark").read_text())]
    # (the JSON Schema grammar path, whose Lark grammars this compared too, was replaced by the engine)
    return out


def analysers(text: str) -> tuple[float, float, bool, int, int]:
    """Seconds for Lark's analyzer and ours on `text`'s parser configuration, and same table?"""
    conf = build_lark(text).parser.parser.parser_conf
    times, tables = [], []
    for cls in (lalr_analysis.LALR_Analyzer, FastLalrAnalyzer):
        analyzer = cls(conf)
        t0 = time.process_time()
        analyzer.compute_lalr()
        times.append(time.process_time() - t0)
        tables.append(analyzer.parse_table)
    return times[0], times[1], canonical_table(tables[0]) == canonical_table(tables[1]), len(conf.rules), len(tables[1].states)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args(argv)
    rows = []
    for name, text in grammars(args.only):
        stock, ours, same, rules, states = analysers(text)
        rows.append((name, rules, states, stock, ours, same))
        print(f"{name}: {rules} rules, {states} states, Lark {stock:.2f} s, tokenguide {ours:.2f} s, "
              f"same table {same}", file=sys.stderr, flush=True)
    print("| grammar | rules | states | Lark's analyzer | tokenguide's | speedup | same table |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, rules, states, stock, ours, same in sorted(rows, key=lambda r: -r[3]):
        print(f"| {name} | {rules:,} | {states:,} | {stock:.3f} s | {ours:.3f} s | {stock / max(ours, 1e-9):.1f}x | {same} |")
    print(json.dumps({"grammars": len(rows), "all_same": all(r[5] for r in rows),
                      "stock_total_s": round(sum(r[3] for r in rows), 2), "ours_total_s": round(sum(r[4] for r in rows), 2)}))
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
