"""uniqueItems checked on the values: what the check costs per mask, and what llguidance does.

    python -m benchmarks.bench_unique_items [--rounds 3]

For each schema (arrays of strings or integers that must hold distinct items, which no regex or
grammar expresses: json_schema.value_checks) and each compile path, a GPT-2 `Guide` writes the
masks along the GPT-2 tokens of a fixed document, the first time each state is met (no mask
cache): p50/p90/max ms per mask, with the check (ValueChecksGuide around the inner guide) and
without it (the same schema minus uniqueItems: the inner guide alone). llguidance
(`LLMatcher.grammar_from_json_schema`, same compact separators) is asked for the same schema:
whether it compiles, and whether it accepts a document with a repeated item (it does when it
ignores the keyword).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time

from benchmarks.bench_json_schema import GPT2, _gpt2_bpe

SCHEMAS = {
    "tags (strings)": ({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}, "required": ["tags"]},
        {"tags": ["alpha", "beta", "gamma", "delta", "alphabet", "bet", "alpha beta", "x", "y", "z"]},
        {"tags": ["alpha", "beta", "alpha"]}),
    "ids (integers)": ({"type": "array", "items": {"type": "integer", "minimum": 0}, "uniqueItems": True},
                       [1, 2, 3, 12, 21, 123, 1234, 4321, 7, 70, 700, 7000],
                       [1, 2, 1]),
    "paths (strings under $ref, anyOf)": ({"$defs": {"paths": {"type": "array", "minItems": 1, "uniqueItems": True,
                                                               "items": {"type": "string", "minLength": 1}}},
                                          "type": "object", "properties": {"include": {"$ref": "#/$defs/paths"},
                                          "exclude": {"anyOf": [{"$ref": "#/$defs/paths"}, {"type": "string"}]}}},
                                         {"include": ["src/a.py", "src/b.py", "tests/"], "exclude": ["build/", "dist/"]},
                                         {"include": ["a", "a"]}),
    "entries (unique arrays in unique items)": (
        {"type": "array", "uniqueItems": True, "items": {
            "type": "object", "additionalProperties": False, "required": ["tags"],
            "properties": {"name": {"type": "string"},
                           "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}},
        [{"name": "a", "tags": ["x", "y"]}, {"name": "a", "tags": ["y", "x"]}, {"tags": ["x"]}],
        [{"tags": ["x"]}, {"tags": ["x"]}]),
    "form items (options distinct by type)": (
        {"type": "array", "items": {
            "type": "object", "required": ["type"], "properties": {"type": {"enum": ["dropdown", "checkboxes"]}},
            "allOf": [
                {"if": {"properties": {"type": {"const": "dropdown"}}},
                 "then": {"properties": {"type": True, "options": {"type": "array", "items": {"type": "string"},
                                                                   "uniqueItems": True}},
                          "additionalProperties": False}},
                {"if": {"properties": {"type": {"const": "checkboxes"}}},
                 "then": {"properties": {"type": True, "options": {"type": "array", "items": {"type": "string"}}},
                          "additionalProperties": False}}]}},
        [{"type": "dropdown", "options": ["red", "green", "blue"]}, {"type": "checkboxes", "options": ["a", "a"]}],
        [{"type": "dropdown", "options": ["red", "red"]}]),
}


def without_unique(node):
    """`node` with every uniqueItems removed (the inner guide's language)."""
    if isinstance(node, dict):
        return {k: without_unique(v) for k, v in node.items() if k != "uniqueItems"}
    if isinstance(node, list):
        return [without_unique(v) for v in node]
    return node


def mask_times(schema, vocab, ids: list[int], path: str) -> tuple[list[float], float]:
    """Build time and the time of each mask along `ids` (each state met for the first time)."""
    from tokenguide import Guide

    t0 = time.perf_counter()
    guide = Guide.from_json_schema(schema, vocab, path=path)
    build = time.perf_counter() - t0
    times = []
    for t in ids:
        t0 = time.perf_counter()
        mask = guide.mask_bytes()
        times.append(time.perf_counter() - t0)
        assert mask[t >> 3] >> (t & 7) & 1, "the document's token is refused"
        guide.advance(t, return_tokens=False)
    return times, build


def llguidance_verdict(schema, repeated: str, bpe) -> str:
    try:
        import llguidance
        import llguidance.hf
        from transformers import PreTrainedTokenizerFast
    except ImportError as exc:
        return f"unavailable ({exc})"
    tok = llguidance.hf.from_tokenizer(PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>"),
                                       n_vocab=50257)
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(
            schema, defaults={"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"})
        m = llguidance.LLMatcher(tok, grammar)
    except Exception as exc:  # noqa: BLE001 - reported
        return f"refused ({str(exc)[:80]})"
    if m.is_error():
        return f"refused ({m.get_error()[:80]})"
    ids = bpe.encode(repeated).ids
    ok = m.validate_tokens(ids) == len(ids) and m.consume_tokens(ids) and m.is_accepting()
    return "accepts a repeated item (ignores uniqueItems)" if ok else "rejects a repeated item"


HEADER = ("| schema | path | tokens | build ms (check / none) | mask p50 ms | p90 | max | without the check: p50 | p90 "
          "| max |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")


def gpt2() -> tuple:
    """(GPT-2's Vocabulary, its Hugging Face tokenizer) for the mask tables."""
    from tokenguide.vocabulary import Vocabulary

    return Vocabulary.from_file(GPT2, eos="<|endoftext|>"), _gpt2_bpe()


def mask_row(name: str, path: str, schema, baseline, vocab, ids: list[int], rounds: int) -> str:
    """One row of HEADER: `schema`'s guide (with its values check) against `baseline`'s (the
    inner guide's language), each the median of `rounds` walks along `ids`."""
    runs = [mask_times(copy.deepcopy(schema), vocab, ids, path) for _ in range(rounds)]
    base = [mask_times(copy.deepcopy(baseline), vocab, ids, path) for _ in range(rounds)]
    per = [statistics.median(r[0][i] for r in runs) * 1000 for i in range(len(ids))]
    per0 = [statistics.median(r[0][i] for r in base) * 1000 for i in range(len(ids))]

    def q(xs: list[float], f: float) -> float:
        return sorted(xs)[min(len(xs) - 1, int(f * len(xs)))]

    return (f"| {name} | {path} | {len(ids)} | {statistics.median(r[1] for r in runs) * 1000:.0f} / "
            f"{statistics.median(r[1] for r in base) * 1000:.0f} | {statistics.median(per):.2f} | {q(per, 0.9):.2f} | "
            f"{max(per):.2f} | {statistics.median(per0):.2f} | {q(per0, 0.9):.2f} | {max(per0):.2f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    vocab, bpe = gpt2()
    print(HEADER)
    verdicts = {}
    for name, (schema, doc, repeated) in SCHEMAS.items():
        ids = bpe.encode(json.dumps(doc, separators=(",", ":"))).ids
        for path in ("regex", "engine"):
            print(mask_row(name, path, schema, without_unique(schema), vocab, ids, args.rounds))
        verdicts[name] = llguidance_verdict(schema, json.dumps(repeated, separators=(",", ":")), bpe)
    print()
    for name, v in verdicts.items():
        print(f"- llguidance on {name}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
