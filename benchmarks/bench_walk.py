"""Masks as a user pays for them: fresh guides walked along the real tokens of real valid documents.

    python benchmarks/bench_walk.py [--parts schemas,grammar,memory] [--vocab gpt2,llama3]
        [--engines tokenguide,llguidance,xgrammar] [--every 3] [--offset 0] [--limit N]
        [--time-limit 20] [--documents 6] [--guides 32] [--clock cpu|wall] [--in-process]
        [--json-out FILE] [--export FILE]

Every figure is a first visit: each constraint is compiled afresh and walked once (issue 39), so
no mask comes from a cache filled by an earlier pass over the same document. Vocabulary
preparation (tokenguide's Vocabulary and trie, llguidance's tokenizer, xgrammar's TokenizerInfo)
is done once per engine, outside the timings, as a server would. Times are CPU time by default
(`--clock cpu`: a mask or advance on the calling thread, less one clock reading; compile to
first mask on the whole process, so compile threads count), which a loaded machine stretches
much less than wall-clock time (`--clock wall`).

Parts (each prints markdown tables whose header line holds the exact command):

- schemas: the developers' JSONSchemaBench set (../shared/data/jsonschemabench, sorted by name,
  every `--every`-th file from `--offset`, at most `--limit` of them spread evenly over that
  selection). For each schema with a valid test instance, the compact JSON text of the first
  valid instance, keys in the output format's order (`bench_json_schema.reorder`, the order
  every engine emits), is tokenized by the Hugging Face tokenizer; each engine then compiles
  the schema (compact separators, no free whitespace) and takes a mask before every token and
  one before EOS, advancing along the tokens. Recorded per schema and engine: compile to first
  mask, every mask time, every advance time; an engine that refuses the schema, rejects a token
  of the instance, leaves EOS out of the last mask, errs or passes `--time-limit` seconds is
  recorded as such, not timed. Tables: outcomes, speed on the schemas every engine walked,
  ratios of each tokenguide engine over each peer (with issue 39's targets), tokenguide by path,
  the slowest schemas.
- grammar: each engine's own any-JSON grammar (tokenguide: the bundled json.lark through
  `Guide.from_grammar`; llguidance: `%json {}` in its Lark dialect; xgrammar: its builtin JSON
  grammar), a fresh guide per document, along the real tokens of `--documents` valid instances
  of the selected schemas, each compact and pretty-printed (indent 2).
- memory: `--guides` live guides of different schemas (Llama 3 by default, `--memory-vocab`),
  each walked along its document and kept: RSS above the prepared vocabulary (and, for
  tokenguide, tracemalloc's count of Python allocations, in a second fresh process), per engine.

`--export FILE` runs no engine: it writes the selected schemas, the grammar part's documents and
their real token ids per vocabulary (the Hugging Face tokenizer's) as JSON, for
`bench_walk_replay.py`, which walks tokenguide alone along them with nothing but tokenguide and
the vocabulary files, so that CPython and Pyodide run on identical inputs.

Engines are named factories (`ENGINES`): a class built from (vocabulary, Hugging Face tokenizer)
whose `compile(kind, text)` gives a matcher for kind "schema" (JSON Schema text), "lark" (a Lark
grammar) or "json" (the engine's own any-JSON grammar), with `mask(matcher)` filling the
engine's int32 bitmask buffer and `take(matcher, token)` advancing (raising if the token is
refused). "tokenguide-engine" is `guides.grammar.GrammarGuide.from_lark` driven by the stateful
`Guide` (schemas: `Guide.from_json_schema(..., path="engine")` once that path exists), skipped
with a message where that module does not exist. By default each engine runs in its own child
process, so that a schema over the time limit is killed without hanging the run; `--in-process`
runs them here (the limit then by SIGALRM, where the platform has it).
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing as mp
import os
import shlex
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

from benchmarks.bench_json_schema import DATA, compact, reorder, subset_of  # noqa: E402
from benchmarks.bench_masks import VOCABS, LLGuidance, Tokenguide, XGrammar, hf_tokenizer  # noqa: E402
from benchmarks.bench_walk_replay import (  # noqa: E402 - what --export writes, and the table helpers
    EXPORT_FORMAT, mean, ms, quantile, ratio, reading_cost, short_error, us)

TARGETS = {"mean": 5, "p99": 10, "compile p50": 5, "compile p90": 20}  # issue 39: at most this x llguidance
EMSCRIPTEN = sys.platform == "emscripten"


class Unavailable(Exception):
    """An engine that cannot run here, or cannot take a kind of constraint at all."""


class TimeLimit(Exception):
    """A walk ran past --time-limit (in-process mode, SIGALRM)."""


# -- engines -----------------------------------------------------------------------------------


def _grammar_text(name: str) -> str:
    from tokenguide import grammars

    return grammars.load(name)


class TokenguideWalk(Tokenguide):
    """`Guide.from_json_schema` / `Guide.from_grammar`, masks by `write_mask_into` an int32 tensor."""

    name = "tokenguide"
    kinds = ("schema", "lark", "json")

    def compile(self, kind: str, text):
        """A fresh matcher for `text` of `kind` ("schema", "lark" or "json", the engine's own JSON grammar)."""
        from tokenguide import Guide

        if kind == "schema":
            return Guide.from_json_schema(text, self.vocab, whitespace_pattern="")
        return Guide.from_grammar(_grammar_text("json") if kind == "json" else text, self.vocab)

    def note(self, guide) -> str:
        """The path tokenguide chose (regex, engine, grammar), "" elsewhere."""
        compiled = getattr(guide, "compiled", None)
        return getattr(compiled, "path", "") or ""


class TokenguideEngineWalk(TokenguideWalk):
    """The one engine: `guides.grammar.GrammarGuide.from_lark` for grammars, and
    `Guide.from_json_schema(..., path="engine")` for schemas once that path exists, driven by
    the stateful `Guide` (`write_mask_into`, `advance`)."""

    name = "tokenguide-engine"

    def __init__(self, vocab, hf=None):
        try:
            from tokenguide.guides.grammar import GrammarGuide
        except ImportError as exc:
            raise Unavailable(f"tokenguide's engine is not there yet ({exc})") from None
        import inspect

        from tokenguide.json_schema import compile_json_schema

        super().__init__(vocab)
        try:  # the trie walks and the slice of JSON string contents, once per vocabulary
            from tokenguide.engine.masks import prepare_walks
        except ImportError:
            pass
        else:
            prepare_walks(vocab)
        self.engine = GrammarGuide
        paths = str(inspect.signature(compile_json_schema).parameters["path"].annotation)  # a Literal, as text
        self.kinds = ("lark", "json") + (("schema",) if '"engine"' in paths or "'engine'" in paths else ())

    def compile(self, kind: str, text):
        """A fresh matcher for `text` of `kind` ("schema", "lark" or "json", the engine's own JSON grammar)."""
        from tokenguide import Guide

        if kind == "schema":
            return Guide.from_json_schema(text, self.vocab, path="engine")
        return Guide(self.engine.from_lark(_grammar_text("json") if kind == "json" else text, self.vocab))

    def note(self, guide) -> str:
        """The path tokenguide chose (regex, engine, grammar), "" elsewhere."""
        return ""


class LLGuidanceWalk(LLGuidance):
    """llguidance's LLMatcher, masks by `llguidance.torch.fill_next_token_bitmask`."""

    kinds = ("schema", "lark", "json")

    def compile(self, kind: str, text):
        """A fresh matcher for `text` of `kind` ("schema", "lark" or "json", the engine's own JSON grammar)."""
        LLMatcher = self.ll.LLMatcher
        if kind == "schema":
            grammar = LLMatcher.grammar_from_json_schema(text, overrides={"whitespace_flexible": False})
        else:
            grammar = LLMatcher.grammar_from_lark("start: %json {}" if kind == "json" else text)
        matcher = LLMatcher(self.tok, grammar)
        if matcher.is_error():
            raise ValueError(matcher.get_error())
        return matcher

    def note(self, matcher) -> str:
        """Nothing to note for a peer."""
        return ""


class XGrammarWalk(XGrammar):
    """xgrammar's GrammarMatcher, masks by `fill_next_token_bitmask`; one compiler, cache off."""

    kinds = ("schema", "lark", "json")

    def __init__(self, vocab, hf):
        super().__init__(vocab, hf)
        self.compiler = self.xgr.GrammarCompiler(self.info, max_threads=2, cache_enabled=False)

    def compile(self, kind: str, text):
        """A fresh matcher for `text` of `kind` ("schema", "lark" or "json", the engine's own JSON grammar)."""
        if kind == "schema":
            compiled = self.compiler.compile_json_schema(text, any_whitespace=False, separators=(",", ":"))
        elif kind == "json":
            compiled = self.compiler.compile_builtin_json_grammar()
        else:
            compiled = self.compiler.compile_lark(text)
        return self.xgr.GrammarMatcher(compiled)

    def note(self, matcher) -> str:
        """Nothing to note for a peer."""
        return ""


ENGINES = {
    "tokenguide": lambda vocab, hf: TokenguideWalk(vocab),
    "tokenguide-engine": TokenguideEngineWalk,
    "llguidance": LLGuidanceWalk,
    "xgrammar": XGrammarWalk,
}


def allows(buffer, token: int) -> bool:
    """Bit `token` of an engine's int32 bitmask buffer (a torch tensor or array, 1 or 2 dimensions)."""
    flat = buffer.view(-1) if hasattr(buffer, "view") and not isinstance(buffer, memoryview) else buffer
    return bool((int(flat[token // 32]) >> (token % 32)) & 1)


def make_engine(name: str, vocab_name: str):
    """(engine, vocabulary, setup seconds) for `name` on a sample vocabulary; Unavailable if it cannot run."""
    from tokenguide.vocabulary import Vocabulary

    path = VOCABS[vocab_name]
    if not path.exists():
        raise Unavailable(f"{path} is missing (run python3 build.py test)")
    start = time.perf_counter()
    vocab = Vocabulary.from_file(path)
    hf = None if name.startswith("tokenguide") else hf_tokenizer(vocab_name, path, vocab.eos_token_id)
    try:
        engine = ENGINES[name](vocab, hf)
    except ImportError as exc:
        raise Unavailable(f"{name} is not installed ({exc}): python3 build.py bench walk installs the peers") from None
    return engine, vocab, time.perf_counter() - start


# -- one walk ------------------------------------------------------------------------------------


CLOCKS = {  # (per mask and advance, compile to first mask)
    "cpu": (time.thread_time, time.process_time),  # CPU seconds: this thread's; the process's (compile threads)
    "wall": (time.perf_counter, time.perf_counter),
}


_OVERHEAD: dict = {}


def clock_overhead(clock) -> float:
    """What one reading of `clock` adds to an interval (the median of 2,001 back-to-back readings'
    differences; CLOCK_THREAD_CPUTIME_ID is a system call, about 1-2 µs here), measured once."""
    if clock not in _OVERHEAD:
        _OVERHEAD[clock] = reading_cost(clock)
    return _OVERHEAD[clock]


GRAMMAR_WORDS = {  # what the grammar part runs on each engine
    "tokenguide": "tokenguide: the bundled json.lark (`Guide.from_grammar`)",
    "tokenguide-engine": "tokenguide-engine: the bundled json.lark (`GrammarGuide.from_lark`)",
    "llguidance": "llguidance: `start: %json {}`",
    "xgrammar": "xgrammar: its builtin JSON grammar",
}

CLOCK_WORDS = {
    "cpu": "CPU time (masks and advances: the calling thread's, less one clock reading; compile to first "
           "mask: the whole process's)",
    "wall": "wall-clock time",
}


def walk(engine, kind: str, text: str, tokens: list[int], eos: int, clock_name: str = "cpu") -> dict:
    """Compile `text` afresh, then a mask before each token and one before EOS, advancing along
    `tokens`: status ("ok", "refused", "rejected", "no EOS", "error"), compile-to-first-mask
    seconds, per-mask and per-advance seconds (by the clock `clock_name` of CLOCKS)."""
    clock, whole = CLOCKS[clock_name]
    cost = clock_overhead(clock)
    start = whole()
    try:
        matcher = engine.compile(kind, text)
    except (TimeLimit, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - a refused constraint is a figure, not a crash
        return {"status": "refused", "error": short_error(exc)}
    masks: list[float] = []
    advances: list[float] = []
    first = None
    try:
        for i in range(len(tokens) + 1):
            before = clock()
            engine.mask(matcher)
            after = clock()
            masks.append(max(0.0, after - before - cost))
            if first is None:
                first = whole() - start
            if i == len(tokens):
                break
            try:
                engine.take(matcher, tokens[i])
            except (TimeLimit, KeyboardInterrupt):
                raise
            except Exception as exc:  # noqa: BLE001
                return {"status": "rejected", "error": f"token {i} of {len(tokens)} ({tokens[i]}): {short_error(exc)}",
                        "note": engine.note(matcher)}
            advances.append(max(0.0, clock() - after - cost))
    except (TimeLimit, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001
        return {"status": "error", "error": f"mask {len(masks)}: {short_error(exc)}", "note": engine.note(matcher)}
    status = "ok" if allows(engine.buffer, eos) else "no EOS"
    return {"status": status, "first": first, "masks": masks, "advances": advances, "note": engine.note(matcher)}


def _alarm(_signum, _frame):
    raise TimeLimit()


def walk_with_limit(engine, kind: str, text: str, tokens: list[int], eos: int, limit: float,
                    clock_name: str = "cpu") -> dict:
    """`walk` in this process, stopped by SIGALRM after `limit` seconds where the platform has it."""
    armed = limit > 0 and hasattr(signal, "setitimer") and not EMSCRIPTEN
    if armed:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return walk(engine, kind, text, tokens, eos, clock_name)
    except TimeLimit:
        return {"status": "timeout", "error": f"> {limit:g} s"}
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)


def worker_main(conn, name: str, vocab_name: str) -> None:
    """Child process: build one engine, then walk each (kind, text, tokens, clock) received until None."""
    try:
        engine, vocab, setup = make_engine(name, vocab_name)
    except Unavailable as exc:
        conn.send(("unavailable", str(exc)))
        return
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        conn.send(("unavailable", short_error(exc)))
        return
    conn.send(("ready", {"setup": setup, "kinds": list(engine.kinds), "eos": vocab.eos_token_id}))
    while True:
        job = conn.recv()
        if job is None:
            return
        kind, text, tokens, clock_name = job
        conn.send(walk(engine, kind, text, tokens, vocab.eos_token_id, clock_name))


class Runner:
    """One engine on one vocabulary, in a child process (killed and restarted after a timeout) or here."""

    def __init__(self, name: str, vocab_name: str, limit: float, in_process: bool, clock_name: str = "cpu"):
        self.name, self.vocab_name, self.limit, self.in_process = name, vocab_name, limit, in_process
        self.clock_name = clock_name
        self.proc = self.conn = None
        self.engine = None
        self.info: dict = {}
        self.unavailable = ""
        self.restarts = 0
        self._start()

    def _start(self) -> None:
        if self.in_process:
            try:
                self.engine, vocab, setup = make_engine(self.name, self.vocab_name)
            except Unavailable as exc:
                self.unavailable = str(exc)
                return
            self.info = {"setup": setup, "kinds": list(self.engine.kinds), "eos": vocab.eos_token_id}
            return
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, self.name, self.vocab_name), daemon=True)
        self.proc.start()
        child.close()
        if not self.conn.poll(600):
            self.close()
            self.unavailable = "no answer in 600 s while setting up"
            return
        try:
            what, info = self.conn.recv()
        except EOFError:
            what, info = "unavailable", f"the child process died while setting up (exit {self.proc.exitcode})"
        if what == "unavailable":
            self.unavailable = info
            self.close()
        else:
            self.info = info

    def supports(self, kind: str) -> bool:
        """Whether the engine runs here and takes constraints of `kind`."""
        return not self.unavailable and kind in self.info["kinds"]

    def walk(self, kind: str, text: str, tokens: list[int]) -> dict:
        """The result of one fresh walk (status "timeout" past the limit)."""
        if self.in_process:
            return walk_with_limit(self.engine, kind, text, tokens, self.info["eos"], self.limit, self.clock_name)
        if self.proc is None:
            self.restarts += 1
            self._start()
            if self.unavailable:
                return {"status": "error", "error": f"restart failed: {self.unavailable}"}
        self.conn.send((kind, text, tokens, self.clock_name))
        if self.conn.poll(self.limit if self.limit > 0 else None):
            try:
                return self.conn.recv()
            except EOFError:
                code = self.proc.exitcode
                self.close()
                return {"status": "error", "error": f"the child process died (exit {code})"}
        self.close()
        return {"status": "timeout", "error": f"> {self.limit:g} s"}

    def close(self) -> None:
        """End the child process (asked first, then killed)."""
        if self.proc is not None:
            if self.proc.is_alive():
                try:
                    self.conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
                self.proc.join(2)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
            self.conn.close()
        self.proc = self.conn = None


# -- documents ------------------------------------------------------------------------------------


def select_files(every: int, offset: int, limit: int | None) -> list[Path]:
    """Every `every`-th schema file from `offset` (sorted by name); at most `limit`, spread evenly."""
    files = sorted(DATA.glob("*.json"))[offset::every]
    if limit is not None and 0 <= limit < len(files):
        files = [files[(i * len(files)) // limit] for i in range(limit)]
    return files


def load_cases(files: list[Path]) -> list[dict]:
    """For each file with a valid test instance: name, schema text, the compact instance text."""
    cases = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        schema = data.get("schema")
        valid = [t["data"] for t in data.get("tests", []) if t.get("valid")]
        if not isinstance(schema, dict) or not valid:
            continue
        try:
            instance = reorder(valid[0], schema, schema)
        except Exception:  # noqa: BLE001 - key order unknown: the instance as written
            instance = valid[0]
        cases.append({"file": path.name, "schema": json.dumps(schema), "value": instance,
                      "text": compact(instance)})
    return cases


def tokenizer_of(vocab_name: str):
    """The Hugging Face tokenizer of a sample vocabulary (text -> real token ids) and its EOS id."""
    from tokenguide.vocabulary import Vocabulary

    path = VOCABS[vocab_name]
    vocab = Vocabulary.from_file(path)
    hf = hf_tokenizer(vocab_name, path, vocab.eos_token_id)
    return lambda text: hf.encode(text, add_special_tokens=False)


# -- statistics -------------------------------------------------------------------------------------


def selection(args) -> str:
    """The schema files taken, in words."""
    nth = {1: "every", 2: "every 2nd", 3: "every 3rd"}.get(args.every, f"every {args.every}th")
    most = f", at most {args.limit} spread evenly" if args.limit is not None else ""
    return f"{nth} file from index {args.offset}{most}"


def load_average() -> str:
    """The machine's load average (wall-clock figures on a shared machine stretch with it)."""
    try:
        return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    except (AttributeError, OSError):
        return "load average unknown"


def command_line(argv: list[str]) -> str:
    """The command that makes these tables, as printed in their header lines."""
    return "python3 benchmarks/bench_walk.py " + shlex.join(argv)


def speed_tables(results: dict[str, dict[str, dict]], names: list[str], what: str) -> list[str]:
    """Per-mask figures on the items every engine walked, and tokenguide-over-peer ratios."""
    common = [key for key in next(iter(results.values()))
              if all(results[n].get(key, {}).get("status") == "ok" for n in names)]
    out = []
    if not common:
        return [f"(no {what} that every engine walked)\n"]
    masks = {n: [t for key in common for t in results[n][key]["masks"]] for n in names}
    firsts = {n: [results[n][key]["first"] for key in common] for n in names}
    out.append(f"On the {len(common)} {what} that every engine walked ({len(masks[names[0]]):,} masks each):\n")
    out.append("| | " + " | ".join(names) + " |")
    out.append("|---|" + "---:|" * len(names))
    rows = [
        ("mean µs per mask", lambda n: us(mean(masks[n]))),
        ("p50 µs per mask", lambda n: us(quantile(masks[n], .5))),
        ("p90 µs per mask", lambda n: us(quantile(masks[n], .9))),
        ("p99 µs per mask", lambda n: us(quantile(masks[n], .99))),
        ("max µs per mask", lambda n: us(max(masks[n]))),
        ("mean µs per advance", lambda n: us(mean([a for key in common for a in results[n][key]["advances"]]))),
        ("mean µs per mask + mean µs per advance",
         lambda n: us(mean(masks[n]) + mean([a for key in common for a in results[n][key]["advances"]]))),
        ("compile to first mask p50 ms", lambda n: ms(quantile(firsts[n], .5))),
        ("compile to first mask p90 ms", lambda n: ms(quantile(firsts[n], .9))),
    ]
    for label, cell in rows:
        out.append(f"| {label} | " + " | ".join(cell(n) for n in names) + " |")
    ours = [n for n in names if n.startswith("tokenguide")]
    peers = [n for n in names if not n.startswith("tokenguide")]
    if ours and peers:
        out.append("")
        out.append("| ratio | mean per mask | median per-item ratio | p99 per mask | compile p50 | compile p90 |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for a in ours:
            for b in peers:
                per_item = [mean(results[a][k]["masks"]) / mean(results[b][k]["masks"]) for k in common]
                out.append(
                    f"| {a} / {b} | {ratio(mean(masks[a]), mean(masks[b]))} | {statistics.median(per_item):,.1f}x | "
                    f"{ratio(quantile(masks[a], .99), quantile(masks[b], .99))} | "
                    f"{ratio(quantile(firsts[a], .5), quantile(firsts[b], .5))} | "
                    f"{ratio(quantile(firsts[a], .9), quantile(firsts[b], .9))} |")
        if "llguidance" in peers:
            out.append(f"\n(issue 39's targets, tokenguide / llguidance at most: mean {TARGETS['mean']}x, "
                       f"p99 {TARGETS['p99']}x, compile p50 {TARGETS['compile p50']}x, p90 {TARGETS['compile p90']}x)")
    out.append("")
    return out


def outcome_table(results: dict[str, dict[str, dict]], names: list[str], limit: float) -> list[str]:
    """Per engine: how many items it walked, refused, rejected a token of, ... (markdown lines)."""
    statuses = ["ok", "refused", "rejected", "no EOS", "timeout", "error"]
    labels = ["walked", "refused the constraint", "rejected a token", "no EOS at the end",
              f"over {limit:g} s", "error"]
    out = ["| engine | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for n in names:
        counts = [sum(1 for r in results[n].values() if r["status"] == s) for s in statuses]
        out.append(f"| {n} | " + " | ".join(str(c) for c in counts) + " |")
    return out + [""]


def failure_lines(results: dict[str, dict[str, dict]], names: list[str], cap: int = 12) -> list[str]:
    """A line per item an engine did not walk, and why (at most `cap` per engine)."""
    out = []
    for n in names:
        bad = [(k, r) for k, r in results[n].items() if r["status"] != "ok"]
        for k, r in bad[:cap]:
            out.append(f"- {n}, {k}: {r['status']}{' (' + r['note'] + ' path)' if r.get('note') else ''}: "
                       f"{r.get('error', '')}")
        if len(bad) > cap:
            out.append(f"- {n}: {len(bad) - cap} more")
    return out + ([""] if out else [])


# -- parts ----------------------------------------------------------------------------------------------


def start_runners(names: list[str], vocab_name: str, args) -> list[Runner]:
    """A Runner per engine that can run on `vocab_name`; a line for each one that cannot."""
    runners = []
    for name in names:
        runner = Runner(name, vocab_name, args.time_limit, args.in_process, args.clock)
        if runner.unavailable:
            print(f"(skipped {name} on {vocab_name}: {runner.unavailable})\n")
        else:
            runners.append(runner)
    return runners


def usable(runners: list[Runner], kind: str, what: str) -> list[Runner]:
    """The runners whose engine takes `kind`; a line for each one that does not."""
    for runner in runners:
        if not runner.supports(kind):
            print(f"(skipped {runner.name}: it takes no {what})\n")
    return [r for r in runners if r.supports(kind)]


def part_schemas(vocab_name: str, cases: list[dict], runners: list[Runner], args, argv) -> dict:
    """Fresh compile + masks along each schema's first valid instance, per engine."""
    encode = tokenizer_of(vocab_name)
    print(f"### schemas, {vocab_name}: fresh guides along the real tokens of valid instances — "
          f"`{command_line(argv)}`\n")
    runners = usable(runners, "schema", "JSON Schema")
    names = [r.name for r in runners]
    if not runners:
        print("(no engine takes JSON Schema here)\n")
        return {}
    results: dict[str, dict[str, dict]] = {n: {} for n in names}
    tokens_of = {}
    started = time.perf_counter()
    for i, case in enumerate(cases):
        tokens = encode(case["text"])
        tokens_of[case["file"]] = len(tokens)
        for runner in runners:
            results[runner.name][case["file"]] = runner.walk("schema", case["schema"], tokens)
        if args.progress:
            cells = ", ".join(f"{n} {results[n][case['file']]['status']}" for n in names)
            print(f"  [{i + 1}/{len(cases)}] {case['file']} ({len(tokens)} tokens): {cells}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    print(f"{len(cases)} schemas with a valid instance ({selection(args)}), {sum(tokens_of.values()):,} tokens of "
          f"{vocab_name}; {elapsed:.0f} s; time limit {args.time_limit:g} s per schema and engine"
          f"{'' if args.in_process else ' (each engine in a child process)'}; {CLOCK_WORDS[args.clock]}; "
          f"{load_average()}.\n")
    for line in outcome_table(results, names, args.time_limit) + speed_tables(results, names, "schemas"):
        print(line)
    if "tokenguide" in names:
        by_path: dict[str, list[str]] = {}
        for key, r in results["tokenguide"].items():
            if r["status"] == "ok":
                by_path.setdefault(r.get("note") or "?", []).append(key)
        print("tokenguide by the path it chose (schemas it walked; per-schema mean µs per mask):\n")
        print("| path | schemas | masks | p50 | p90 | max | compile to first mask p50 ms |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for path, keys in sorted(by_path.items()):
            per = [mean(results["tokenguide"][k]["masks"]) for k in keys]
            firsts = [results["tokenguide"][k]["first"] for k in keys]
            n_masks = sum(len(results["tokenguide"][k]["masks"]) for k in keys)
            print(f"| {path} | {len(keys)} | {n_masks:,} | {us(quantile(per, .5))} | {us(quantile(per, .9))} | "
                  f"{us(max(per))} | {ms(quantile(firsts, .5))} |")
        print()
        walked = [k for k, r in results["tokenguide"].items() if r["status"] == "ok"]
        slow = sorted(walked, key=lambda k: -sum(results["tokenguide"][k]["masks"]))[:args.slowest]
        if slow:
            print(f"The {len(slow)} schemas where tokenguide's masks took longest in all:\n")
            print("| schema | path | tokens | " + " | ".join(f"{n} mean µs" for n in names) + " | tokenguide masks s |")
            print("|---|---|---:|" + "---:|" * len(names) + "---:|")
            for k in slow:
                cells = [us(mean(results[n][k]["masks"])) if results[n][k]["status"] == "ok" else results[n][k]["status"]
                         for n in names]
                print(f"| {k} | {results['tokenguide'][k].get('note', '')} | {tokens_of[k]} | {' | '.join(cells)} | "
                      f"{sum(results['tokenguide'][k]['masks']):.2f} |")
            print()
    lines = failure_lines(results, names)
    if lines:
        print("Not walked:\n")
        for line in lines:
            print(line)
    return {"tokens": tokens_of, "results": results}


def grammar_documents(cases: list[dict], count: int) -> list[tuple[str, str]]:
    """`count` valid instances of at least 100 characters, spread over `cases`, compact and pretty."""
    big = [c for c in cases if len(c["text"]) >= 100 and isinstance(c["value"], (dict, list))]
    if count < len(big):
        big = [big[(i * len(big)) // count] for i in range(count)]
    docs = []
    for case in big:
        docs.append((f"{case['file']} compact", case["text"]))
        docs.append((f"{case['file']} pretty", json.dumps(case["value"], ensure_ascii=False, indent=2)))
    return docs


def part_grammar(vocab_name: str, cases: list[dict], runners: list[Runner], args, argv) -> dict:
    """Each engine's any-JSON grammar, a fresh guide per document, masks along its real tokens."""
    encode = tokenizer_of(vocab_name)
    docs = grammar_documents(cases, args.documents)
    print(f"### grammar, {vocab_name}: each engine's JSON grammar along real documents, fresh guides — "
          f"`{command_line(argv)}`\n")
    runners = usable(runners, "json", "Lark grammar")
    names = [r.name for r in runners]
    if not docs or not runners:
        print("(no documents or no engine)\n")
        return {}
    results: dict[str, dict[str, dict]] = {n: {} for n in names}
    tokens_of = {}
    for label, text in docs:
        tokens = encode(text)
        tokens_of[label] = len(tokens)
        for runner in runners:
            results[runner.name][label] = runner.walk("json", "", tokens)
    print(f"{len(docs)} documents ({len(docs) // 2} valid instances, compact and indent=2), "
          f"{sum(tokens_of.values()):,} tokens; " + "; ".join(GRAMMAR_WORDS[n] for n in names) +
          f"; {CLOCK_WORDS[args.clock]}; "
          f"{load_average()}. Compile times "
          "after the first document may come from tokenguide's cache of Lark parsers (by grammar text).\n")
    for line in outcome_table(results, names, args.time_limit) + speed_tables(results, names, "documents"):
        print(line)
    print("| document | tokens | " + " | ".join(f"{n} mean µs" for n in names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for label in tokens_of:
        cells = [us(mean(results[n][label]["masks"])) if results[n][label]["status"] == "ok" else results[n][label]["status"]
                 for n in names]
        print(f"| {label} | {tokens_of[label]} | {' | '.join(cells)} |")
    print()
    lines = failure_lines(results, names)
    if lines:
        print("Not walked:\n")
        for line in lines:
            print(line)
    return {"tokens": tokens_of, "results": results}


def export(cases: list[dict], vocab_names: list[str], documents: int, command: str, encoder=None) -> dict:
    """The schemas part's cases and the grammar part's documents with their real token ids on each
    vocabulary (`encoder(name)` gives text -> ids; the Hugging Face tokenizer by default), each
    vocabulary by its file (relative to the repository where it lies inside it) and EOS id."""
    from tokenguide.vocabulary import Vocabulary

    encoder = encoder or tokenizer_of
    out: dict = {"format": EXPORT_FORMAT, "command": command, "vocabularies": {}, "schemas": [], "grammar": []}
    encoders = {}
    for name in vocab_names:
        path = VOCABS[name]
        try:
            where = path.relative_to(ROOT).as_posix()
        except ValueError:
            where = str(path)
        out["vocabularies"][name] = {"path": where, "eos": Vocabulary.from_file(path).eos_token_id}
        encoders[name] = encoder(name)
    for case in cases:
        out["schemas"].append({"file": case["file"], "schema": case["schema"], "text": case["text"],
                               "tokens": {n: list(encode(case["text"])) for n, encode in encoders.items()}})
    for label, text in grammar_documents(cases, documents):
        out["grammar"].append({"label": label, "text": text,
                               "tokens": {n: list(encode(text)) for n, encode in encoders.items()}})
    return out


def rss_bytes() -> int:
    """This process's resident set size (Linux /proc; else the peak from getrusage)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_main(conn, name: str, vocab_name: str, items: list[tuple[str, str, list[int]]], guides: int,
                limit: float, trace: bool) -> None:
    """Child process: prepare the vocabulary, then compile and walk schemas, keeping each walked guide
    alive, until `guides` are held; send RSS (and tracemalloc) growth above the prepared vocabulary."""
    try:
        engine, vocab, _ = make_engine(name, vocab_name)
    except Exception as exc:  # noqa: BLE001
        conn.send({"error": short_error(exc)})
        return
    if name.startswith("tokenguide"):
        import tokenguide.guides.cfg  # noqa: F401 - the code the guides run, loaded before the baseline
        import tokenguide.json_schema  # noqa: F401
    gc.collect()
    base = rss_bytes()
    if trace:
        import tracemalloc

        tracemalloc.start()
    held, failed = [], []
    for file, schema, tokens in items:
        if len(held) >= guides:
            break
        result = {}
        armed = limit > 0 and hasattr(signal, "setitimer")
        if armed:
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            matcher = engine.compile("schema", schema)
            for token in tokens:
                engine.mask(matcher)
                engine.take(matcher, token)
            engine.mask(matcher)
            held.append(matcher)
        except TimeLimit:
            result = {"status": "timeout"}
        except Exception as exc:  # noqa: BLE001
            result = {"status": short_error(exc)}
        finally:
            if armed:
                signal.setitimer(signal.ITIMER_REAL, 0)
        if result:
            failed.append(file)
    gc.collect()
    out = {"guides": len(held), "failed": len(failed), "base": base, "rss": rss_bytes()}
    if trace:
        import tracemalloc

        current, peak = tracemalloc.get_traced_memory()
        out.update(traced=current, traced_peak=peak)
    conn.send(out)


def part_memory(cases: list[dict], names: list[str], args, argv) -> None:
    """`--guides` live guides of different schemas, each walked along its document: memory above the vocabulary."""
    vocab_name = args.memory_vocab
    encode = tokenizer_of(vocab_name)
    items = [(c["file"], c["schema"], encode(c["text"])) for c in cases]
    print(f"### memory, {vocab_name}: {args.guides} live guides of different schemas, each walked along its "
          f"document — `{command_line(argv)}`\n")
    print("| engine | guides held | schemas not walked | RSS with the prepared vocabulary MB | RSS above it MB | "
          "tracemalloc above it MB (peak) |")
    print("|---|---:|---:|---:|---:|---:|")
    ctx = mp.get_context("spawn")
    for name in names:
        row = {}
        for trace in ([False, True] if name.startswith("tokenguide") and args.tracemalloc else [False]):
            conn, child = ctx.Pipe()
            proc = ctx.Process(target=memory_main, daemon=True,
                               args=(child, name, vocab_name, items, args.guides, args.time_limit, trace))
            proc.start()
            child.close()
            budget = 600 + args.time_limit * len(items)
            got = conn.recv() if conn.poll(budget) else {"error": f"no answer in {budget:g} s"}
            proc.kill()
            proc.join()
            if "error" in got:
                row = {"error": got["error"]}
                break
            if trace:
                row.update(traced=got["traced"], traced_peak=got["traced_peak"])
            else:
                row.update(got)
        if "error" in row:
            print(f"| {name} | - | - | - | - | {row['error'][:80]} |")
            continue
        mb = lambda b: f"{b / 2**20:,.0f}"  # noqa: E731
        traced = f"{mb(row['traced'])} ({mb(row['traced_peak'])})" if "traced" in row else "-"
        print(f"| {name} | {row['guides']} | {row['failed']} | {mb(row['base'])} | {mb(row['rss'] - row['base'])} | "
              f"{traced} |")
    print(f"\n({len(items)} candidate schemas, {load_average()}. RSS: a fresh process per engine, after the "
          "vocabulary is prepared and, for tokenguide, its guide modules imported; tracemalloc in a second fresh "
          "process, Python allocations only.)\n")


def main(argv=None) -> int:
    """Parse the options, then print the tables of each part asked for."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default="schemas,grammar,memory")
    parser.add_argument("--vocab", default="gpt2,llama3", help="vocabularies for the schemas and grammar parts")
    parser.add_argument("--engines", default="tokenguide,llguidance,xgrammar",
                        help=f"comma-separated, from: {', '.join(ENGINES)}")
    parser.add_argument("--every", type=int, default=3, help="every K-th schema file, sorted by name (3: the developers' set)")
    parser.add_argument("--offset", type=int, default=0, help="the first file taken (0..K-1)")
    parser.add_argument("--limit", type=int, default=None, help="at most N files, spread evenly over the selection")
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds per schema (or document) and engine")
    parser.add_argument("--documents", type=int, default=6, help="grammar part: valid instances, each compact and pretty")
    parser.add_argument("--guides", type=int, default=32, help="memory part: live guides")
    parser.add_argument("--memory-vocab", default="llama3")
    parser.add_argument("--no-tracemalloc", dest="tracemalloc", action="store_false")
    parser.add_argument("--slowest", type=int, default=8, help="schemas part: list the N slowest for tokenguide")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu (default): CPU time, masks on the calling thread, compile on the whole process "
                        "(steadier on a shared machine); wall: time.perf_counter")
    parser.add_argument("--in-process", action="store_true", help="run the engines here (limit by SIGALRM)")
    parser.add_argument("--progress", action="store_true", help="a line per schema on stderr")
    parser.add_argument("--json-out", default=None, help="write every walk's figures to this file")
    parser.add_argument("--export", default=None, metavar="FILE",
                        help="run nothing: write the selected schemas, documents and their token ids per --vocab "
                        "to FILE (JSON) for bench_walk_replay.py")
    args = parser.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    names = [n for n in args.engines.split(",") if n]
    for bad in [p for p in parts if p not in ("schemas", "grammar", "memory")] + [n for n in names if n not in ENGINES]:
        parser.error(f"unknown part or engine {bad!r}")
    if not DATA.exists():
        print(f"(no schemas: {DATA} is missing)")
        return 0
    cases = load_cases(select_files(args.every, args.offset, args.limit))
    if args.export:
        vocab_names = [n for n in args.vocab.split(",") if n]
        missing = [n for n in vocab_names if n not in VOCABS or not VOCABS[n].exists()]
        if missing:
            parser.error(f"no vocabulary file for {', '.join(missing)} (run python3 build.py test)")
        data = export(cases, vocab_names, args.documents, command_line(argv))
        Path(args.export).write_text(json.dumps(data), encoding="utf-8")
        print(f"{len(data['schemas'])} schemas and {len(data['grammar'])} documents, tokenized on "
              f"{', '.join(vocab_names)}, written to {args.export}")
        return 0
    print(f"Python {sys.version.split()[0]} on {sys.platform}; {os.cpu_count()} cores\n")
    dump: dict = {"command": command_line(argv)}
    for vocab_name in args.vocab.split(",") if {"schemas", "grammar"} & set(parts) else []:
        if not VOCABS[vocab_name].exists():
            print(f"(skipped {vocab_name}: {VOCABS[vocab_name]} is missing; run python3 build.py test)\n")
            continue
        runners = start_runners(names, vocab_name, args)
        try:
            if "schemas" in parts:
                dump[f"schemas/{vocab_name}"] = part_schemas(vocab_name, cases, runners, args, argv)
            if "grammar" in parts:
                dump[f"grammar/{vocab_name}"] = part_grammar(vocab_name, cases, runners, args, argv)
        finally:
            for runner in runners:
                runner.close()
    if "memory" in parts:
        part_memory(cases, names, args, argv)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(dump), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
