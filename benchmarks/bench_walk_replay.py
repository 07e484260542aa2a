"""tokenguide alone along a `bench_walk.py --export` file's token ids: CPython and Pyodide on identical inputs.

    python benchmarks/bench_walk_replay.py EXPORT [--vocab gpt2,llama3] [--kinds engine,auto,grammar]
        [--clock cpu|wall] [--time-limit 60] [--warmup] [--json-out FILE] [--profile N]
    node tests/pyodide/run_pytest.mjs . WHEELS --exec benchmarks/bench_walk_replay.py EXPORT ...
    python benchmarks/bench_walk_replay.py --compare CPYTHON.json[,...] PYODIDE.json[,...]

Needs only tokenguide (and lark) and the vocabulary files the export names, so it runs unchanged
under Pyodide. Kinds (each a fresh walk per item, as bench_walk's, on a Vocabulary of its own
loaded and prepared outside the timings, so one kind's vocabulary caches do not serve another;
for engine and grammar, with the engine's trie walks and string slice, `prepare_walks`, as
bench_walk's engine has them):

- engine: `Guide.from_json_schema(schema, vocab, path="engine")` along each schema's document;
- auto: `Guide.from_json_schema(schema, vocab, whitespace_pattern="")` (the path it picks);
- grammar: `Guide.from_grammar` on the bundled json.lark, a fresh guide per grammar document.

A mask (`write_mask_into` an `array('i')`) before every token and one before EOS, an advance
after each. Clock (`--clock`): "cpu" (default) is the process's CPU time, `time.process_time()`
in CPython and Node's `process.cpuUsage()` (user + system of the Node process) in Pyodide, whose
own `process_time` is wall-clock time; "wall" is `time.perf_counter()` on both. Each reading's
median cost is subtracted from each interval. A walk stops as "timeout" once past `--time-limit`
wall-clock seconds (checked before each mask, outside the timed intervals:
nothing preempts it). `--idle` times, in place of each advance, the same interval with nothing in
it (the advance runs untimed): what reading the clock right after a mask adds beyond its hot cost.
`--warmup` first walks each kind's first item once, untimed, on a vocabulary of its own.
`--compare` prints CPython-vs-Pyodide tables from two `--json-out` files (or two comma-separated
lists of runs of the same export: per mask, the median over the runs), on the items both walked.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))

EXPORT_FORMAT = "bench_walk export 1"  # what bench_walk.py --export writes (it imports this and the table helpers below:
# this module needs nothing but tokenguide, so that it runs under Pyodide)
KINDS = ("engine", "auto", "grammar")
EMSCRIPTEN = sys.platform == "emscripten"
_NODE_CPU = "(() => { const usage = process.cpuUsage; return () => { const u = usage(); return (u.user + u.system) / 1e6; }; })()"


def runtime() -> str:
    """The Python running this, in words (Pyodide's version under Emscripten)."""
    if EMSCRIPTEN:
        try:
            import pyodide

            return f"Pyodide {pyodide.__version__} (Python {sys.version.split()[0]})"
        except ImportError:
            pass
    return f"{sys.implementation.name} {sys.version.split()[0]} on {sys.platform}"


def clock_of(name: str):
    """(clock function returning seconds, its description) for "cpu" or "wall" on this runtime."""
    if name == "wall":
        return time.perf_counter, "wall-clock time (time.perf_counter)"
    if EMSCRIPTEN:
        from pyodide.code import run_js

        return run_js(_NODE_CPU), "process CPU time (Node's process.cpuUsage(): user + system of the Node process)"
    return time.process_time, "process CPU time (time.process_time)"


def reading_cost(clock) -> float:
    """The median difference of 2,001 back-to-back readings of `clock`: what one reading adds."""
    marks = [clock() for _ in range(2002)]
    return statistics.median(b - a for a, b in zip(marks, marks[1:]))


def load_export(path: str) -> dict:
    """A `bench_walk.py --export` file, checked for its format."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("format") != EXPORT_FORMAT:
        raise SystemExit(f"{path} is not a bench_walk export ({EXPORT_FORMAT!r})")
    return data


def vocabulary_file(where: str) -> Path:
    """An export's vocabulary path: absolute, or under this repository, or under the working directory."""
    path = Path(where)
    if path.is_absolute():
        return path
    for base in (ROOT, Path.cwd()):
        if (base / path).exists():
            return base / path
    return ROOT / path


def load_vocabulary(where: str, eos: int, walks: bool = False):
    """The Vocabulary in file `where`, prepared (the trie, as a server would once; with `walks`, also
    the engine's trie walks and string slice, `engine.masks.prepare_walks`, as bench_walk's engine
    has them), checked against `eos`."""
    from tokenguide.index.trie import prepare_vocabulary
    from tokenguide.vocabulary import Vocabulary

    vocab = Vocabulary.from_file(vocabulary_file(where))
    if vocab.eos_token_id != eos:
        raise SystemExit(f"{where}: EOS {vocab.eos_token_id}, the export says {eos}")
    prepare_vocabulary(vocab)
    if walks:
        try:
            from tokenguide.engine.masks import prepare_walks
        except ImportError:  # an engine without it
            pass
        else:
            prepare_walks(vocab)
    return vocab


def compile_guide(kind: str, text: str, vocab):
    """A fresh Guide for an item of `kind` (engine, auto: a schema's text; grammar: the bundled json.lark)."""
    from tokenguide import Guide, grammars

    if kind == "engine":
        return Guide.from_json_schema(text, vocab, path="engine")
    if kind == "auto":
        return Guide.from_json_schema(text, vocab, whitespace_pattern="")
    return Guide.from_grammar(grammars.load("json"), vocab)


def short_error(exc: BaseException) -> str:
    """An exception as a table cell: its type and the first 120 characters of its first line."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:120] if lines else ''}"


def walk(kind: str, text: str, tokens: list[int], vocab, clock, cost: float, limit: float, idle: bool = False) -> dict:
    """Compile afresh, then a mask before each token and one before EOS, advancing along `tokens`:
    status (ok, refused, rejected, no EOS, error, timeout), compile-to-first-mask seconds, per-mask
    and per-advance seconds by `clock` less `cost`, and the path auto chose. `idle`: in place of
    each advance's time, the same interval with nothing in it (the advance then runs untimed): what
    the clock adds right after a mask beyond `cost`."""
    buffer = array("i", [0]) * ((vocab.vocab_size + 31) // 32)
    eos = vocab.eos_token_id
    started = time.perf_counter()
    start = clock()
    try:
        guide = compile_guide(kind, text, vocab)
    except Exception as exc:  # noqa: BLE001 - a refused schema is a figure
        return {"status": "refused", "error": short_error(exc)}
    note = getattr(getattr(guide, "compiled", None), "path", "") or ""
    masks: list[float] = []
    advances: list[float] = []
    first = None
    for i in range(len(tokens) + 1):
        if i and limit > 0 and time.perf_counter() - started > limit:
            return {"status": "timeout", "error": f"> {limit:g} s at token {i} of {len(tokens)}", "note": note}
        try:
            before = clock()
            guide.write_mask_into(buffer)
            after = clock()
        except Exception as exc:  # noqa: BLE001
            return {"status": "error", "error": f"mask {i}: {short_error(exc)}", "note": note}
        masks.append(max(0.0, after - before - cost))
        if first is None:
            first = after - start
        if i == len(tokens):
            break
        if idle:
            advances.append(max(0.0, clock() - after - cost))
        try:
            guide.advance(tokens[i], return_tokens=False)
        except Exception as exc:  # noqa: BLE001
            return {"status": "rejected", "error": f"token {i} of {len(tokens)} ({tokens[i]}): {short_error(exc)}",
                    "note": note}
        if not idle:
            advances.append(max(0.0, clock() - after - cost))
    ok = (buffer[eos // 32] >> (eos % 32)) & 1
    return {"status": "ok" if ok else "no EOS", "first": first, "masks": masks, "advances": advances, "note": note}


def items_of(data: dict, kind: str) -> list[tuple[str, str, str, dict]]:
    """(key, constraint text, document, tokens per vocabulary) of each item a kind walks."""
    if kind == "grammar":
        return [(d["label"], "", d["text"], d["tokens"]) for d in data["grammar"]]
    return [(s["file"], s["schema"], s["text"], s["tokens"]) for s in data["schemas"]]


def replay(data: dict, vocab_names: list[str], kinds: list[str], clock_name: str, limit: float,
           progress: bool = False, warmup: bool = False, idle: bool = False) -> dict:
    """Every walk of `kinds` on `vocab_names`: {"runtime", "clock", "results": {"vocab/kind": {key: walk}}}.
    `warmup`: first walk each kind's first item once, untimed, on a vocabulary of its own (modules
    imported, a JIT's code compiled; no cache of the timed vocabulary filled)."""
    clock, words = clock_of(clock_name)
    cost = reading_cost(clock)
    out: dict = {"runtime": runtime(), "clock": clock_name, "clock_words": words, "reading_cost": cost,
                 "results": {}, "setup": {}, "warmup": warmup, "idle": idle}
    for name in vocab_names:
        spec = data["vocabularies"][name]
        if warmup:
            vocab = load_vocabulary(spec["path"], spec["eos"])
            for kind in kinds:
                for _key, text, _document, tokens in items_of(data, kind)[:1]:
                    walk(kind, text, tokens[name], vocab, clock, cost, limit)
            del vocab
        for kind in kinds:
            started = time.perf_counter()
            vocab = load_vocabulary(spec["path"], spec["eos"], walks=kind != "auto")
            out["setup"][f"{name}/{kind}"] = time.perf_counter() - started
            results = out["results"][f"{name}/{kind}"] = {}
            for key, text, document, tokens in items_of(data, kind):
                ids = tokens[name]
                spelled = b"".join(vocab.id_to_bytes(t) or b"" for t in ids)
                if spelled != document.encode("utf-8"):
                    results[key] = {"status": "error", "error": "the token ids do not spell the document"}
                    continue
                results[key] = walk(kind, text, ids, vocab, clock, cost, limit, idle)
                if progress:
                    r = results[key]
                    print(f"  {name}/{kind} {key} ({len(ids)} tokens): {r['status']}"
                          f"{'' if r['status'] == 'ok' else ' ' + r.get('error', '')}", file=sys.stderr, flush=True)
            del vocab
    return out


# -- statistics and tables ----------------------------------------------------------------------------


def quantile(values: list[float], q: float) -> float:
    """The q-quantile of `values` (nearest rank; NaN when empty)."""
    xs = sorted(values)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def mean(values: list[float]) -> float:
    """The arithmetic mean (NaN when empty)."""
    return sum(values) / len(values) if values else float("nan")


def us(seconds: float) -> str:
    """Seconds as microseconds for a table cell."""
    x = seconds * 1e6
    return "-" if math.isnan(x) else f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def ms(seconds: float) -> str:
    """Seconds as milliseconds for a table cell."""
    x = seconds * 1e3
    return "-" if math.isnan(x) else f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def figures(walks: list[dict]) -> dict:
    """Per-mask mean/p50/p90/p99, mean advance, compile-to-first-mask p50/p90 (seconds) over `walks`."""
    masks = [t for w in walks for t in w["masks"]]
    firsts = [w["first"] for w in walks]
    return {"masks": len(masks), "mean": mean(masks), "p50": quantile(masks, .5), "p90": quantile(masks, .9),
            "p99": quantile(masks, .99), "advance": mean([a for w in walks for a in w["advances"]]),
            "first p50": quantile(firsts, .5), "first p90": quantile(firsts, .9)}


ROWS = [("mean µs per mask", "mean", us), ("p50 µs per mask", "p50", us), ("p90 µs per mask", "p90", us),
        ("p99 µs per mask", "p99", us), ("mean µs per advance", "advance", us),
        ("compile to first mask p50 ms", "first p50", ms), ("compile to first mask p90 ms", "first p90", ms)]


def rows_of(out: dict) -> list:
    """ROWS, the advance row renamed for an `--idle` run."""
    if not out.get("idle"):
        return ROWS
    return [("mean µs of an empty interval after a mask (--idle)", k, f) if k == "advance" else (label, k, f)
            for label, k, f in ROWS]


def summary(out: dict) -> list[str]:
    """Markdown lines: per vocabulary and kind, the outcomes and the figures over the items walked."""
    lines = [f"{out['runtime']}; {out['clock_words']} (one reading costs {out['reading_cost'] * 1e6:.1f} µs, "
             "subtracted)", ""]
    for where, results in out["results"].items():
        counts: dict[str, int] = {}
        for r in results.values():
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        walked = [r for r in results.values() if r["status"] == "ok"]
        lines.append(f"{where}: {len(results)} items, " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) +
                     f"; vocabulary loaded and prepared in {out['setup'][where]:.1f} s (wall)")
        if walked:
            f = figures(walked)
            lines.append(f"  {f['masks']:,} masks: " + ", ".join(f"{label} {fmt(f[k])}" for label, k, fmt in rows_of(out)))
        for key, r in results.items():
            if r["status"] != "ok":
                lines.append(f"  - {key}: {r['status']}: {r.get('error', '')}")
    return lines + [""]


def median_run(runs: list[dict]) -> dict:
    """One run from several of the same export: per item, each mask's, advance's and compile's median
    over the runs that walked it (a wall-clock timeout in some runs only is left out); an item that a
    run refused, rejected or erred on keeps that status."""
    if len(runs) == 1:
        return runs[0]
    out = dict(runs[0], results={}, runs=len(runs))
    for where, first in runs[0]["results"].items():
        merged = out["results"][where] = {}
        for key, r in first.items():
            walks = [run["results"].get(where, {}).get(key, {"status": "missing"}) for run in runs]
            bad = [w for w in walks if w["status"] not in ("ok", "timeout")]
            walks = [w for w in walks if w["status"] == "ok"]
            if bad or not walks:
                merged[key] = bad[0] if bad else {"status": "timeout", "error": "in every run"}
                continue
            merged[key] = {"status": "ok", "note": r.get("note", ""),
                           "first": statistics.median(w["first"] for w in walks),
                           "masks": [statistics.median(xs) for xs in zip(*(w["masks"] for w in walks))],
                           "advances": [statistics.median(xs) for xs in zip(*(w["advances"] for w in walks))]}
    return out


def ratio(a: float, b: float) -> str:
    """a / b for a table cell ("-" when either is missing)."""
    return "-" if not b or math.isnan(a) or math.isnan(b) else f"{a / b:,.1f}x" if a / b >= 10 else f"{a / b:.2f}x"


def compare(first: dict, second: dict) -> list[str]:
    """Markdown tables, one per vocabulary: `first` (CPython) against `second` (Pyodide) on each kind
    both ran, side by side, on the items both walked, with second / first."""
    a_name, b_name = first["runtime"], second["runtime"]
    runs = "" if first.get("runs", 1) == second.get("runs", 1) == 1 else \
        f" Per mask, the median of {first.get('runs', 1)} runs / {second.get('runs', 1)} runs."
    lines = [f"{a_name} against {b_name}; clocks: {first['clock_words']} / {second['clock_words']}.{runs}", ""]
    by_vocab: dict[str, list[str]] = {}
    for where in first["results"]:
        if where in second["results"]:
            by_vocab.setdefault(where.split("/")[0], []).append(where)
    for vocab, wheres in by_vocab.items():
        cols, notes = [], []
        for where in wheres:
            ra, rb = first["results"][where], second["results"][where]
            both = [k for k in ra if ra[k]["status"] == "ok" and rb.get(k, {}).get("status") == "ok"]
            only = sorted(k for k in set(ra) | set(rb) if k not in both and
                          (ra.get(k, {}).get("status") == "ok" or rb.get(k, {}).get("status") == "ok"))
            fa, fb = figures([ra[k] for k in both]), figures([rb[k] for k in both])
            per_item = [mean(rb[k]["masks"]) / mean(ra[k]["masks"]) for k in both if mean(ra[k]["masks"]) > 0]
            fa["total"] = sum(sum(ra[k]["masks"]) + sum(ra[k]["advances"]) for k in both)
            fb["total"] = sum(sum(rb[k]["masks"]) + sum(rb[k]["advances"]) for k in both)
            cols.append((where.split("/", 1)[1], fa, fb, statistics.median(per_item) if per_item else float("nan")))
            notes.append(f"{where.split('/', 1)[1]}: {len(both)} of {len(ra)} items walked by both, "
                         f"{fa['masks']:,} masks" + (f" (walked by one only: {', '.join(only)})" if only else ""))
        lines.append(f"{vocab}: " + "; ".join(notes) + ".\n")
        lines.append("| | " + " | ".join(f"{kind} CPython | {kind} Pyodide | ratio" for kind, *_ in cols) + " |")
        lines.append("|---|" + "---:|---:|---:|" * len(cols))
        for label, key, fmt in rows_of(first) + [("all masks and advances s", "total", lambda x: f"{x:.2f}")]:
            lines.append(f"| {label} | " + " | ".join(f"{fmt(fa[key])} | {fmt(fb[key])} | {ratio(fb[key], fa[key])}"
                                                      for _, fa, fb, _ in cols) + " |")
        lines.append("| median per-item ratio of mean masks | " +
                     " | ".join(f" | | {m:.2f}x" for *_, m in cols) + " |")
        lines.append("")
    return lines


def profiled(run, top: int):
    """`run()` under cProfile; its result, with the `top` functions by own time printed to stdout."""
    import cProfile
    import io
    import pstats

    profile = cProfile.Profile()
    result = profile.runcall(run)
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(top)
    print(text.getvalue())
    return result


def main(argv=None) -> int:
    """Replay an export (or compare two replays' JSON files) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("export", nargs="?", help="a bench_walk.py --export file")
    parser.add_argument("--vocab", default=None, help="vocabularies of the export to walk (default: all)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, from: {', '.join(KINDS)}")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--time-limit", type=float, default=60.0, help="wall-clock seconds per walk (between masks)")
    parser.add_argument("--json-out", default=None, help="write every walk's figures to this file")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="run under cProfile, print the top N")
    parser.add_argument("--progress", action="store_true", help="a line per walk on stderr")
    parser.add_argument("--warmup", action="store_true",
                        help="walk each kind's first item once, untimed, on a vocabulary of its own, first")
    parser.add_argument("--idle", action="store_true",
                        help="time an empty interval after each mask in place of the advance (the clock's own share)")
    parser.add_argument("--compare", nargs=2, metavar=("CPYTHON", "PYODIDE"),
                        help="two --json-out files (or comma-separated lists of runs: per mask, their median)")
    args = parser.parse_args(argv)
    if args.compare:
        sides = [median_run([json.loads(Path(p).read_text(encoding="utf-8")) for p in side.split(",")])
                 for side in args.compare]
        print("\n".join(compare(*sides)))
        return 0
    if not args.export:
        parser.error("an export file, or --compare")
    data = load_export(args.export)
    vocab_names = args.vocab.split(",") if args.vocab else list(data["vocabularies"])
    kinds = [k for k in args.kinds.split(",") if k]
    for bad in [k for k in kinds if k not in KINDS] + [v for v in vocab_names if v not in data["vocabularies"]]:
        parser.error(f"unknown kind or vocabulary {bad!r}")
    try:  # Emscripten's getloadavg is a constant
        load = "load average unknown here" if EMSCRIPTEN else "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    except (AttributeError, OSError):
        load = "load average unknown here"
    print(f"`bench_walk_replay.py {' '.join(argv if argv is not None else sys.argv[1:])}` on {args.export} "
          f"({data['command']}); {load}\n")
    run = lambda: replay(data, vocab_names, kinds, args.clock, args.time_limit, args.progress, args.warmup,  # noqa: E731
                         args.idle)
    out = profiled(run, args.profile) if args.profile else run()
    print("\n".join(summary(out)))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
