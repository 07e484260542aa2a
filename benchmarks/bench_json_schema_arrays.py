"""uniqueItems / contains coverage: `bench_json_schema.check_file` on the JSONSchemaBench files
whose schema uses ``uniqueItems: true``, ``contains``, ``minContains`` or ``maxContains``.

Prints pass / wrong / unsupported (by keyword) and lists the wrong files with their detail.
Files without test instances are only built: "built" or "unsupported (keyword)".

    python benchmarks/bench_json_schema_arrays.py [--limit SECONDS] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_json_schema import DATA, on_alarm, check_file  # noqa: E402
from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import build_regex_from_schema  # noqa: E402

KEYWORDS = ("contains", "minContains", "maxContains")


def uses_array_keywords(node, parent_key: str = "") -> bool:
    """Does a schema (any sub-schema, not inside enum/const/examples) use the keywords?"""
    if isinstance(node, dict):
        if parent_key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
            return any(uses_array_keywords(v) for v in node.values())
        if node.get("uniqueItems") is True or any(k in node for k in KEYWORDS):
            return True
        return any(uses_array_keywords(v, k) for k, v in node.items()
                   if k not in ("enum", "const", "default", "examples", "example"))
    if isinstance(node, list):
        return any(uses_array_keywords(v) for v in node)
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per schema")
    ap.add_argument("--verbose", action="store_true", help="print every unsupported file's reason")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no data: {DATA} is missing")
    signal.signal(signal.SIGALRM, on_alarm)
    warnings.simplefilter("ignore")
    files = []
    for p in sorted(DATA.glob("*.json")):
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
        if uses_array_keywords(doc.get("schema")):
            files.append(p)
    counts: Counter = Counter()
    keywords: Counter = Counter()
    for p in files:
        res = check_file((str(p), args.limit, False, 0))
        if res["status"] == "no-tests":
            with open(p, encoding="utf-8") as f:
                schema = json.load(f)["schema"]
            try:
                build_regex_from_schema(schema)
                res["status"] = "no-tests, built"
            except UnsupportedSchemaError as exc:
                res.update(status="no-tests, unsupported", keyword=exc.keyword or "(none)", detail=str(exc)[:200])
        counts[res["status"]] += 1
        if res["status"].endswith("unsupported"):
            keywords[res["keyword"]] += 1
        if res["status"] == "wrong" or (args.verbose and res["status"] != "pass"):
            print(f"{res['status']:12} {res['file']}: {res.get('detail')}")
    print(f"{len(files)} files use uniqueItems/contains: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("unsupported by keyword: " + ", ".join(f"{k} {v}" for k, v in keywords.most_common()))


if __name__ == "__main__":
    main()
