"""JSON Schema compile paths side by side on the JSONSchemaBench set: engine, auto (and regex).

For every schema file taken (../shared/data/jsonschemabench, sorted, every N-th), for each path:
compile it (`compile_json_schema(schema, path=...)`), judge the test instances as
bench_json_schema does (a valid instance must be accepted as written or with its keys in the
output format's order, an invalid one refused in both; acceptors: Lark's LALR parser, the
engine's recogniser, re.fullmatch, plus the values' checks), then build
`Guide.from_json_schema(schema, GPT-2, path=...)` and time compile-to-first-mask, and walk the
GPT-2 tokens of the first valid instance the path accepts (one mask before each token and one
before EOS, each timed; the guide is fresh, process-wide caches are as earlier schemas left them).

    python benchmarks/bench_json_schema_paths.py [--every N] [--offset K] [--paths engine,auto]
                                                 [--limit SECONDS] [--jobs N] [--json FILE]
    python benchmarks/bench_json_schema_paths.py --report FILE [--paths ...]   (the table of a --json file)
"""

from __future__ import annotations

import argparse
import glob
import json
import multiprocessing as mp
import os
import signal
import statistics
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

from benchmarks.bench_json_schema import (  # noqa: E402
    DATA, GPT2, JudgeTimeout, _gpt2_bpe, _judge, acceptor_of, instance_texts, on_alarm,
)

STATE: dict = {}


def init_worker() -> None:
    signal.signal(signal.SIGALRM, on_alarm)
    warnings.simplefilter("ignore")
    import lark.lexer

    lark.lexer.has_interegular = False  # the oracle parser only: skip Lark's slow collision warnings
    from tokenguide.vocabulary import Vocabulary

    STATE["vocab"] = Vocabulary.from_file(GPT2, eos="<|endoftext|>")
    bpe = _gpt2_bpe()
    STATE["encode"] = lambda text: bpe.encode(text).ids


def _timed(limit: float, fn):
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        t0 = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_path(schema, tests, path: str, limit: float) -> dict:
    """One path on one schema: status, compile and first-mask times, masks along a valid instance."""
    from tokenguide.errors import TokenguideError, UnsupportedSchemaError
    from tokenguide.guides.stateful import Guide
    from tokenguide.json_schema import compile_json_schema

    out: dict = {}
    stage = "compile"
    try:
        compiled, out["compile"] = _timed(limit, lambda: compile_json_schema(schema, path=path))
        out["path"] = compiled.path
        stage = "judge"
        accepts = acceptor_of(compiled)
        bad, _ = _timed(limit * 6, lambda: _judge(accepts, tests, schema))
        out["status"] = "wrong" if bad else "pass"
        if bad:
            out["detail"] = bad[:3]
        stage = "guide"
        vocab = STATE["vocab"]
        guide, out["first_mask"] = _timed(limit * 3, lambda: _first_mask(Guide.from_json_schema(schema, vocab,
                                                                                                   path=path)))
        out["guide_path"] = guide.compiled.path
        text = next((x for t in tests if t["valid"] for x in instance_texts(t, schema) if accepts(x)), None)
        if text is not None:
            stage = "walk"
            out["masks"], _ = _timed(limit * 6, lambda: _walk(guide, STATE["encode"](text)))
    except UnsupportedSchemaError as exc:
        out["status"] = "unsupported"
        out["detail"] = str(exc)[:200]
    except JudgeTimeout:
        if stage in ("compile", "judge"):
            out["status"] = "timeout"
        out["timeout"] = stage
    except (TokenguideError, RecursionError) as exc:
        if stage == "guide":
            out["status"] = "unsupported"
        out["error"] = f"{stage}: {type(exc).__name__}: {str(exc)[:200]}"
    except Exception as exc:  # a bug: reported as wrong
        out["status"] = "wrong"
        out["error"] = f"{stage}: {type(exc).__name__}: {str(exc)[:200]}"
    return out


def _first_mask(guide):
    guide.mask_bytes()
    return guide


def _walk(guide, ids: list[int]) -> list[float]:
    """Seconds per mask along `ids` (one before each token and one before EOS); the guide must allow each."""
    times = []
    for tok in ids + [guide.eos_token_id]:
        t0 = time.perf_counter()
        mask = guide.mask_bytes()
        times.append(time.perf_counter() - t0)
        if not (mask[tok >> 3] >> (tok & 7)) & 1:
            raise AssertionError(f"token {tok} of a valid instance is not in the mask")
        if tok != guide.eos_token_id:
            guide.advance(tok, return_tokens=False)
    return times


def run_file(args) -> dict:
    path, paths, limit = args
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    schema, tests = doc["schema"], doc.get("tests", [])
    res = {"file": os.path.basename(path)}
    for p in paths:
        res[p] = run_path(schema, tests, p, limit)
    return res


def _q(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def report(results: list[dict], paths: list[str]) -> None:
    n = len(results)
    print(f"{n} schemas\n")
    print("| path | pass | wrong | unsupported | timeout | compile p50 / p90 ms | first mask p50 / p90 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for p in paths:
        c = Counter(r[p].get("status") for r in results)
        fm = [r[p]["first_mask"] * 1000 for r in results if "first_mask" in r[p]]
        cm = [r[p]["compile"] * 1000 for r in results if "compile" in r[p]]
        print(f"| {p} | {c['pass']} | {c['wrong']} | {c['unsupported']} | {c['timeout']} | "
              f"{_q(cm, .5):.0f} / {_q(cm, .9):.0f} | {_q(fm, .5):.0f} / {_q(fm, .9):.0f} |")
    both = [r for r in results if all("masks" in r[p] for p in paths)]
    print(f"\nmasks along the first valid instance's GPT-2 tokens, on the {len(both)} schemas every path walked:")
    print("| path | masks | mean µs | p50 µs | p99 µs | per-schema median of mean µs | p90 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for p in paths:
        allm = [t * 1e6 for r in both for t in r[p]["masks"]]
        per = [statistics.mean(r[p]["masks"]) * 1e6 for r in both]
        if allm:
            print(f"| {p} | {len(allm)} | {statistics.mean(allm):.0f} | {_q(allm, .5):.0f} | {_q(allm, .99):.0f} | "
                  f"{_q(per, .5):.0f} | {_q(per, .9):.0f} |")
    for p in paths:
        walked = [r for r in results if "masks" in r[p]]
        allm = [t * 1e6 for r in walked for t in r[p]["masks"]]
        if allm:
            print(f"- {p}: every schema it walked ({len(walked)}): {len(allm)} masks, mean {statistics.mean(allm):.0f} µs")
    for p in paths:
        for r in results:
            x = r[p]
            if x.get("status") == "wrong" or x.get("error") or x.get("timeout"):
                print(f"- {p} {r['file']}: {x.get('status')} {x.get('timeout', '')} {x.get('error', '')} "
                      f"{x.get('detail', '')}"[:300])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--paths", default="engine,auto")
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per compile (3x guide, 6x judge and walk)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None, help="write the per-file results here (JSON lines)")
    ap.add_argument("--report", default=None, help="only print the report of a --json file")
    args = ap.parse_args()
    if args.report:
        results = [json.loads(line) for line in Path(args.report).read_text(encoding="utf-8").splitlines()]
        report(results, [p for p in args.paths.split(",") if all(p in r for r in results)])
        return 0
    if not DATA.exists():
        print(f"no JSONSchemaBench data at {DATA}")
        return 1
    files = sorted(glob.glob(str(DATA / "*.json")))[args.offset::args.every]
    paths = args.paths.split(",")
    t0 = time.time()
    results = []
    sink = open(args.json, "w", encoding="utf-8") if args.json else None  # one line per file, as they come
    with mp.get_context("fork").Pool(args.jobs, initializer=init_worker, maxtasksperchild=20) as pool:
        for res in pool.imap(run_file, [(f, paths, args.limit) for f in files], chunksize=1):
            results.append(res)
            if sink:
                sink.write(json.dumps(res) + "\n")
                sink.flush()
    print(f"python benchmarks/bench_json_schema_paths.py --every {args.every} --offset {args.offset} "
          f"--paths {args.paths} --limit {args.limit} ({time.time() - t0:.0f} s)\n")
    report(results, paths)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
