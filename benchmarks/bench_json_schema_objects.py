"""Object keywords on JSONSchemaBench: patternProperties / propertyNames coverage, and what
property_order="any" changes.

Default: `bench_json_schema.check_file` (schema order, instances also tried with keys reordered
to schema order) on the files whose schema uses patternProperties or propertyNames; prints pass /
wrong / unsupported by keyword and lists the wrong files.

``--orders``: on every file with tests (or every `--every`-th), no reordering step: each
instance is checked as written, once against the schema-order regex and once against the
property_order="any" regex; prints both pass / wrong / unsupported counts and how many files
fail only in schema order ("fixed by any order"); ``--misordered`` keeps only the files with a
valid instance whose keys are not in schema order (the only ones any order can fix).

    python benchmarks/bench_json_schema_objects.py [--limit SECONDS] [--verbose]
    python benchmarks/bench_json_schema_objects.py --orders [--every N] [--misordered]
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_json_schema import DATA, on_alarm, JudgeTimeout, check_file, compact, reorder  # noqa: E402
from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import build_regex_from_schema  # noqa: E402

KEYWORDS = ("patternProperties", "propertyNames")


def uses_object_keywords(node, parent_key: str = "") -> bool:
    """Does a schema (any sub-schema, not inside enum/const/examples) use the keywords?"""
    if isinstance(node, dict):
        if parent_key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
            return any(uses_object_keywords(v) for v in node.values())
        if any(k in node and node[k] not in ({}, True) for k in KEYWORDS):
            return True
        return any(uses_object_keywords(v, k) for k, v in node.items()
                   if k not in ("enum", "const", "default", "examples", "example"))
    if isinstance(node, list):
        return any(uses_object_keywords(v) for v in node)
    return False


def check_as_written(schema, tests, order: str, limit: float) -> tuple[str, str]:
    """(status, detail) with every instance checked as written (no reordering)."""
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        kwargs = {} if order == "schema" else {"property_order": order}
        rx = re.compile(build_regex_from_schema(schema, **kwargs))
        for i, t in enumerate(tests):
            if (rx.fullmatch(compact(t["data"])) is not None) != bool(t["valid"]):
                return ("rejects-valid" if t["valid"] else "wrong"), f"test {i}: {compact(t['data'])[:160]}"
        return "pass", ""
    except UnsupportedSchemaError as exc:
        return "unsupported", exc.keyword or "(none)"
    except (JudgeTimeout, RecursionError):
        return "timeout", ""
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def keyword_files(args) -> None:
    files = []
    for p in sorted(DATA.glob("*.json")):
        with open(p, encoding="utf-8") as f:
            if uses_object_keywords(json.load(f).get("schema")):
                files.append(p)
    counts: Counter = Counter()
    keywords: Counter = Counter()
    for p in files:
        res = check_file((str(p), args.limit, False, 0))
        counts[res["status"]] += 1
        if res["status"] == "unsupported":
            keywords[res["keyword"]] += 1
        if res["status"] == "wrong" or (args.verbose and res["status"] not in ("pass", "no-tests")):
            print(f"{res['status']:12} {res['file']}: {res.get('detail')}")
    print(f"{len(files)} files use {'/'.join(KEYWORDS)}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("unsupported by keyword: " + ", ".join(f"{k} {v}" for k, v in keywords.most_common()))


def misordered(doc) -> bool:
    """Is some valid instance written with its keys in another order than the schema's?"""
    s = doc["schema"]
    return any(t["valid"] and compact(t["data"]) != compact(reorder(t["data"], s, s)) for t in doc["tests"])


def orders(args) -> None:
    tally = {"schema": Counter(), "any": Counter()}
    fixed = broken = 0
    files = sorted(DATA.glob("*.json"))[::args.every]
    for p in files:
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
        if not doc.get("tests"):
            continue
        if args.misordered and not misordered(doc):
            continue
        got = {}
        for order in ("schema", "any"):
            got[order] = check_as_written(doc["schema"], doc["tests"], order, args.limit)
            tally[order][got[order][0]] += 1
            if got[order][0] == "wrong" or (args.verbose and got[order][0] not in ("pass", "rejects-valid")):
                print(f"{order:6} {got[order][0]:12} {p.name}: {got[order][1]}")
        if got["schema"][0] == "rejects-valid" and got["any"][0] == "pass":
            fixed += 1
        if got["schema"][0] == "pass" and got["any"][0] != "pass":
            broken += 1
            if args.verbose:
                print(f"any order loses {p.name}: {got['any']}")
    for order, c in tally.items():
        print(f"property_order={order!r}, as written: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    print(f"rejected a valid instance in schema order but pass in any order: {fixed}; "
          f"pass in schema order only: {broken}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per schema")
    ap.add_argument("--verbose", action="store_true", help="print every file that does not pass")
    ap.add_argument("--orders", action="store_true", help="schema order vs any order, instances as written")
    ap.add_argument("--every", type=int, default=1, help="with --orders: every N-th file")
    ap.add_argument("--misordered", action="store_true",
                    help="with --orders: only files with a valid instance whose keys are not in schema order")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no data: {DATA} is missing")
    signal.signal(signal.SIGALRM, on_alarm)
    warnings.simplefilter("ignore")
    (orders if args.orders else keyword_files)(args)


if __name__ == "__main__":
    main()
