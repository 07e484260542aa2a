"""format / $id / $anchor / non-local $ref coverage: `bench_json_schema.check_file` on the
JSONSchemaBench files whose schema has a string `format`, an `$id` or `id` string, an
`$anchor`, or a `$ref` that does not start with "#".

Prints pass / wrong / unsupported (by keyword) / depth per feature and lists the wrong files.
`--save FILE` writes the per-file results as JSON (to compare two runs with `--against FILE`).

    python benchmarks/bench_json_schema_formats.py [--limit SECONDS] [--save FILE] [--against FILE]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_json_schema import DATA, _init_worker, check_file  # noqa: E402

FEATURES = ("format", "$id", "$anchor", "ref")


def features(node, acc: set) -> set:
    """The FEATURES a schema (any value outside enum/const/default/examples) uses."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "format" and isinstance(v, str):
                acc.add("format")
            elif k in ("$id", "id") and isinstance(v, str):
                acc.add("$id")
            elif k == "$anchor":
                acc.add("$anchor")
            elif k == "$ref" and isinstance(v, str) and not v.startswith("#"):
                acc.add("ref")
            if k not in ("enum", "const", "default", "examples", "example"):
                features(v, acc)
    elif isinstance(node, list):
        for v in node:
            features(v, acc)
    return acc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per schema")
    ap.add_argument("--save", help="write the per-file results to this JSON file")
    ap.add_argument("--against", help="list the files whose status differs from this saved run")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"no data: {DATA} is absent")
        return 1
    files = []
    for path in sorted(DATA.glob("*.json")):
        feats = features(json.loads(path.read_text(encoding="utf-8"))["schema"], set())
        if feats:
            files.append((str(path), sorted(feats)))
    with mp.get_context("fork").Pool(1, initializer=_init_worker, initargs=(False,)) as pool:
        results = pool.map(check_file, [(p, args.limit, False, 0) for p, _ in files], chunksize=4)
    for r, (_, feats) in zip(results, files):
        r["features"] = feats
    print(f"{len(results)} files:", dict(Counter(r["status"] for r in results)))
    for feat in FEATURES:
        print(f"  {feat}:", dict(Counter(r["status"] for r in results if feat in r["features"])))
    print("unsupported by keyword:", dict(Counter(r.get("keyword") for r in results if r["status"] == "unsupported")))
    for r in results:
        if r["status"] == "wrong":
            print("WRONG", r["file"], r.get("detail"))
    if args.against:
        before = {r["file"]: r for r in json.loads(Path(args.against).read_text())}
        for r in results:
            b = before.get(r["file"])
            if b is not None and b["status"] != r["status"]:
                print(f"{r['file']}: {b['status']} -> {r['status']} {r.get('keyword') or ''}")
    if args.save:
        Path(args.save).write_text(json.dumps(results, indent=0))
    return 1 if any(r["status"] == "wrong" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
