"""JSONSchemaBench files that use not / oneOf / if-then-else / dependentSchemas / schema-valued
dependencies: pass / wrong / unsupported counts (the criterion of bench_json_schema.check_file).

    python benchmarks/bench_json_schema_logic.py [--limit SECONDS] [--show wrong|unsupported|all]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_json_schema import DATA, on_alarm, check_file  # noqa: E402

KEYWORDS = ("not", "oneOf", "if", "dependentSchemas", "dependencies")


def keywords_in(node, found: set) -> set:
    """The logic keywords `node` uses (dependencies only with a schema value)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("not", "oneOf", "if", "dependentSchemas"):
                found.add(k)
            if k == "dependencies" and isinstance(v, dict) and any(isinstance(x, (dict, bool)) for x in v.values()):
                found.add("dependencies")
            if k not in ("enum", "const", "default", "examples"):
                keywords_in(v, found)
    elif isinstance(node, list):
        for v in node:
            keywords_in(v, found)
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=20.0)
    ap.add_argument("--show", default="wrong")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no data at {DATA}")
    signal.signal(signal.SIGALRM, on_alarm)
    warnings.simplefilter("ignore")
    per_kw: dict[str, Counter] = {k: Counter() for k in KEYWORDS}
    total: Counter = Counter()
    for name in sorted(os.listdir(DATA)):
        if not name.endswith(".json"):
            continue
        path = DATA / name
        with open(path, encoding="utf-8") as f:
            kws = keywords_in(json.load(f)["schema"], set())
        if not kws:
            continue
        res = check_file((str(path), args.limit, False, 0))
        st = res["status"]
        total[st] += 1
        for k in kws:
            per_kw[k][st] += 1
        if args.show == "all" or st == args.show or (args.show == "unsupported" and st == "unsupported"):
            print(f"{st:12} {name} {sorted(kws)} {res.get('keyword', '')} {res.get('detail', '')}"[:400], flush=True)
    print("\n| keyword | files | pass | depth | wrong | unsupported | timeout |\n|---|---|---|---|---|---|---|")
    for k, c in list(per_kw.items()) + [("(any)", total)]:
        print(f"| {k} | {sum(c.values())} | {c['pass']} | {c['depth'] + c['depth?']} | {c['wrong']} | "
              f"{c['unsupported']} | {c['timeout']} |")


if __name__ == "__main__":
    main()
