"""Differential fuzzer: tokenguide's JSON Schema verdicts against jsonschema, on unseen schemas.

Schemas and instances come from schema_gen (seeded). For each schema, tokenguide compiles it as
a user gets it (`compile_json_schema(schema, path="auto")`) and judges each instance as
bench_json_schema does (its `_acceptor`: `re.fullmatch` on the regex path, Lark's LALR parser on
the grammar path; its `_judge`: compact JSON as written and with the keys in the output format's
order, json_key_order.KeyOrder; a valid instance must be accepted in one spelling, an invalid
one refused in both). The oracle is jsonschema's validator for the schema's `$schema` (2020-12
without one), with format checking for the formats its FormatChecker implements exactly (date,
ipv4, ipv6: the only checked formats the generator writes; and "regex" as Node's ECMA-262 parser
reads it, module ecma_regex, when Node is installed). A schema is "pass", "wrong" (a valid
instance rejected or an invalid one accepted; also an exception, or "accepts no value" although
an instance is valid), "unsupported" (UnsupportedSchemaError, by keyword), "empty" (refused as
accepting no value and no instance valid), "depth-capped ok" /
"depth-capped wrong" (the regex fallback with `depth_capped` set: its wrong answers are the
documented depth limit, counted apart) or "timeout". Wrong cases are minimised (schema and
instance shrunk while the same wrong verdict remains) and printed.

    python benchmarks/fuzz_json_schema.py [-n 1000] [--seed 0] [--jobs 1] [--limit 20] [--show 20]
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing as mp
import re
import signal
import sys
import time
import warnings
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

import jsonschema  # noqa: E402

from benchmarks import bench_json_schema as bench  # noqa: E402
from benchmarks.cloudformation_corpus import has_property_escape, property_search  # noqa: E402
from benchmarks.ecma_regex import ecma_regex_valid, node_available  # noqa: E402
from benchmarks.schema_gen import random_instances, random_schema  # noqa: E402
from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402

__all__ = ["ORACLE_FORMATS", "oracle", "tokenguide_acceptor", "judge_schema", "minimise", "run", "main"]

ORACLE_FORMATS = ("date", "ipv4", "ipv6")
_CHECKER = jsonschema.FormatChecker(ORACLE_FORMATS)
if node_available():  # format "regex" as ECMA-262 reads it (jsonschema's own check compiles with Python's re)
    _CHECKER.checks("regex")(ecma_regex_valid)


def _multiple_of(validator, divisor, instance, schema):
    """multipleOf in decimal arithmetic: jsonschema divides floats (-78.6 / 0.01 is not whole)."""
    if not validator.is_type(instance, "number") or isinstance(divisor, bool):
        return
    if Decimal(repr(instance)) % Decimal(repr(divisor)) != 0:
        yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {divisor!r}")


def pattern_keywords(found: Callable[[str, str], bool]) -> dict[str, Callable]:
    """jsonschema keyword functions for `pattern`, `patternProperties` and `additionalProperties`
    reading every pattern with `found(pattern, text)` (does it match somewhere in `text`?) where
    jsonschema's own use `re.search`."""

    def pattern(validator, pat, instance, schema):
        if validator.is_type(instance, "string") and not found(pat, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {pat!r}")

    def pattern_properties(validator, pats, instance, schema):
        if validator.is_type(instance, "object"):
            for pat, sub in pats.items():
                for k, v in instance.items():
                    if found(pat, k):
                        yield from validator.descend(v, sub, path=k, schema_path=pat)

    def additional_properties(validator, extra, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        pats = schema.get("patternProperties") or {}
        names = [k for k in instance if k not in (schema.get("properties") or {}) and not any(found(p, k) for p in pats)]
        if validator.is_type(extra, "object"):
            for k in names:
                yield from validator.descend(instance[k], extra, path=k)
        elif extra is False and names:
            yield jsonschema.ValidationError(f"additional properties {names!r} are not allowed")

    return {"pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties}


def _search(pattern: str, text: str) -> bool:
    """re.search as jsonschema reads `pattern`, but with ECMA-262's property escapes (`\\p{L}`),
    which re lacks (jsonschema's own raises re.error), read by the `regex` module."""
    return bool(property_search(pattern, text) if has_property_escape(pattern) else re.search(pattern, text))


_ORACLES: dict = {}


def oracle(schema: Any) -> Callable[[Any], bool]:
    """instance -> valid, by the jsonschema validator `schema`'s `$schema` names (2020-12 default),
    with the formats of ORACLE_FORMATS checked and multipleOf read in decimal (the numbers as
    written, as JSON Schema means them)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    if cls not in _ORACLES:
        _ORACLES[cls] = jsonschema.validators.extend(cls, {"multipleOf": _multiple_of, **pattern_keywords(_search)})
    v = _ORACLES[cls](schema, format_checker=_CHECKER)
    return v.is_valid


def tokenguide_acceptor(schema: Any) -> tuple[Callable[[str], bool], Any]:
    """(text -> accepted, CompiledSchema) for what `compile_json_schema(path="auto")` gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = compile_json_schema(schema, path="auto")
    return bench.acceptor_of(compiled), compiled


def instance_errors(accepts: Callable[[str], bool], schema: Any, tests: list[dict]) -> list[tuple[int, str]]:
    """(test index, "valid rejected" / "invalid accepted") for each instance judged wrong."""
    out = []
    for i, t in enumerate(tests):
        hits = [accepts(x) for x in bench.instance_texts(t, schema)]
        if t["valid"] and not any(hits):
            out.append((i, "valid rejected"))
        elif not t["valid"] and any(hits):
            out.append((i, "invalid accepted"))
    return out


def judge_schema(schema: Any, instances: list) -> dict:
    """The verdict on one schema (see the module docstring) and, when wrong, what went wrong."""
    try:
        valid = oracle(schema)
        tests = [{"data": x, "valid": bool(valid(x))} for x in instances]
    except (Exception, RecursionError) as exc:  # jsonschema itself failed: no verdict to compare with
        return {"status": "oracle error", "valid": 0, "invalid": 0, "detail": f"{type(exc).__name__}: {str(exc)[:160]}"}
    res: dict = {"valid": sum(t["valid"] for t in tests), "invalid": sum(not t["valid"] for t in tests)}
    try:
        accepts, compiled = tokenguide_acceptor(schema)
    except UnsupportedSchemaError as exc:
        if "accepts no value" in str(exc) and res["valid"]:
            first = next(t["data"] for t in tests if t["valid"])
            return {**res, "status": "wrong", "kind": "refused as empty", "instance": first, "detail": str(exc)[:200]}
        if "accepts no value" in str(exc):  # right as far as the instances tell: no pass, no failure
            return {**res, "status": "empty", "detail": str(exc)[:200]}
        return {**res, "status": "unsupported", "keyword": exc.keyword or "(none)", "detail": str(exc)[:200]}
    except bench.JudgeTimeout:
        raise
    except (Exception, RecursionError) as exc:  # compile_json_schema raising anything else is a bug
        return {**res, "status": "wrong", "kind": f"compile raised {type(exc).__name__}", "detail": str(exc)[:200]}
    res["path"] = compiled.path
    try:
        errors = instance_errors(accepts, schema, tests)
    except bench.JudgeTimeout:
        raise
    except Exception as exc:  # the acceptor raising is a bug
        return {**res, "status": "wrong", "kind": type(exc).__name__, "detail": str(exc)[:200]}
    capped = bool(compiled.depth_capped)
    if not errors:
        return {**res, "status": "depth-capped ok" if capped else "pass"}
    # the depth cap only rejects (valid instances nested deeper): an invalid one accepted is wrong
    accepted = [(i, k) for i, k in errors if k == "invalid accepted"]
    i, kind = (accepted or errors)[0]
    return {**res, "status": "depth-capped wrong" if capped and not accepted else "wrong", "kind": kind,
            "instance": tests[i]["data"], "wrong_count": len(errors), "depth_capped": capped}


# -- minimisation ------------------------------------------------------------------------------


def _still_wrong(schema: Any, instance: Any, kind: str, capped_ok: bool = False) -> bool:
    """Does tokenguide still give the same kind of wrong verdict on (schema, instance)?"""
    try:
        valid = bool(oracle(schema)(instance))
        if kind == "refused as empty":
            if not valid:
                return False
            try:
                tokenguide_acceptor(schema)
            except UnsupportedSchemaError as exc:
                return "accepts no value" in str(exc)
            return False
        if kind not in ("valid rejected", "invalid accepted") or valid != (kind == "valid rejected"):
            return False
        accepts, compiled = tokenguide_acceptor(schema)
        if compiled.depth_capped and not (capped_ok or kind == "invalid accepted"):
            return False
        return bool(instance_errors(accepts, schema, [{"data": instance, "valid": valid}]))
    except (UnsupportedSchemaError, jsonschema.exceptions.SchemaError, RecursionError):
        return False
    except Exception:
        return False


def _smaller(node: Any):
    """Candidate simplifications of a JSON value / schema, one change each (biggest first)."""
    if isinstance(node, dict):
        keys = list(node)
        for k in keys:
            yield {x: v for x, v in node.items() if x != k}
        for k in keys:
            for sub in _smaller(node[k]):
                yield {**node, k: sub}
    elif isinstance(node, list):
        for i in range(len(node)):
            yield node[:i] + node[i + 1:]
        for i in range(len(node)):
            for sub in _smaller(node[i]):
                yield node[:i] + [sub] + node[i + 1:]
    elif isinstance(node, str) and node:
        yield node[:len(node) // 2]
        yield node[1:]
    elif isinstance(node, (int, float)) and not isinstance(node, bool) and node not in (0, 1):
        yield 0
        yield int(node / 2) if isinstance(node, int) else round(node)


def minimise(schema: Any, instance: Any, kind: str, budget: float = 30.0,
             capped_ok: bool = False) -> tuple[Any, Any]:
    """(schema, instance) shrunk greedily, keeping tokenguide's wrong verdict of `kind`
    (`capped_ok`: also on a depth-capped regex, for a valid instance rejected there)."""
    deadline = time.perf_counter() + budget
    changed = True
    while changed and time.perf_counter() < deadline:
        changed = False
        for which in ("schema", "instance"):
            target = schema if which == "schema" else instance
            for cand in _smaller(target):
                if time.perf_counter() > deadline:
                    break
                s, x = (cand, instance) if which == "schema" else (schema, cand)
                if _still_wrong(s, x, kind, capped_ok):
                    schema, instance = s, x
                    changed = True
                    break
            if changed:
                break
    return schema, instance


# -- the run -----------------------------------------------------------------------------------


def _one(args: tuple) -> dict:
    seed, limit, minimise_budget, small = args
    schema = random_schema(seed, small)
    instances = random_instances(schema, seed)
    signal.signal(signal.SIGALRM, bench.on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.perf_counter()
    try:
        res = judge_schema(schema, instances)
    except bench.JudgeTimeout:
        res = {"status": "timeout"}
    except Exception as exc:  # judging raised outside tokenguide's compile (e.g. the key reordering)
        res = {"status": "oracle error", "detail": f"{type(exc).__name__}: {str(exc)[:160]}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    res["seed"] = seed
    res["small"] = small
    res["time"] = time.perf_counter() - t0
    if res["status"] in ("wrong", "depth-capped wrong") and "instance" in res and minimise_budget > 0:
        signal.setitimer(signal.ITIMER_REAL, minimise_budget * 2)
        try:
            res["min_schema"], res["min_instance"] = minimise(copy.deepcopy(schema), res["instance"], res["kind"],
                                                              minimise_budget, res["status"] != "wrong")
        except bench.JudgeTimeout:
            pass
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return res


def warm_up() -> None:
    """Pay the one-time costs (Lark import, grammar-path tables) before the first timed schema."""
    warnings.simplefilter("ignore")
    try:
        tokenguide_acceptor({"type": "array", "items": {"type": "object", "properties": {"a": {}}}})
    except UnsupportedSchemaError:
        pass


def run(seeds: range | list[int], limit: float = 20.0, jobs: int = 1, minimise_budget: float = 0.0,
        small: bool = False) -> list[dict]:
    """Judge the schemas of `seeds` (`small`: schema_gen's small schemas); one result per seed, in order."""
    tasks = [(s, limit, minimise_budget, small) for s in seeds]
    warm_up()
    if jobs <= 1:
        return [_one(t) for t in tasks]
    with mp.get_context("fork").Pool(jobs, initializer=warm_up, maxtasksperchild=50) as pool:
        return pool.map(_one, tasks, chunksize=4)


def _compact(x: Any) -> str:
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def report(results: list[dict], elapsed: float, show: int) -> None:
    n = len(results)
    c = Counter(r["status"] for r in results)
    print(f"JSON Schema fuzzer: {n} schemas (seeds {results[0]['seed']}..{results[-1]['seed']}), {elapsed:.0f} s; "
          f"{sum(r.get('valid', 0) for r in results)} valid and {sum(r.get('invalid', 0) for r in results)} "
          f"invalid instances\n")
    judged = n - c["empty"] - c["oracle error"]
    print("| pass | wrong | unsupported | depth-capped ok | depth-capped wrong | timeout | empty | oracle error | "
          "pass rate |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {c['pass']} | {c['wrong']} | {c['unsupported']} | {c['depth-capped ok']} | {c['depth-capped wrong']} | "
          f"{c['timeout']} | {c['empty']} | {c['oracle error']} | "
          f"{100 * (c['pass'] + c['depth-capped ok']) / max(judged, 1):.1f}% |")
    print("\n(empty: refused as accepting no value, and no instance was valid; pass rate: pass + depth-capped ok "
          "over the schemas neither empty nor an oracle error)")
    paths = Counter(r.get("path") for r in results if r["status"] == "pass")
    print(f"\npassing by path: regex {paths['regex']}, engine {paths['engine']}, grammar {paths['grammar']}")
    kw = Counter(r.get("keyword") for r in results if r["status"] == "unsupported")
    print("unsupported by keyword: " + (", ".join(f"{k} {v}" for k, v in kw.most_common()) or "none"))
    times = sorted(r["time"] for r in results)
    print(f"time per schema: p50 {times[n // 2]:.2f} s, p90 {times[int(0.9 * (n - 1))]:.2f} s, max {times[-1]:.2f} s")
    shown = 0
    for status in ("wrong", "depth-capped wrong", "timeout", "oracle error"):
        for r in results:
            if r["status"] == status and shown < show:
                shown += 1
                print(f"\n- {status} seed {r['seed']}: {r.get('kind')} {r.get('detail', '')}")
                if "min_schema" in r:
                    print(f"  minimised schema: {_compact(r['min_schema'])}\n  instance: {_compact(r['min_instance'])}")
                elif "instance" in r:
                    print(f"  schema: {_compact(random_schema(r['seed'], r.get('small', False)))[:600]}\n"
                          f"  instance: {_compact(r['instance'])[:300]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="number of schemas")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per schema")
    ap.add_argument("--minimise", type=float, default=30.0, help="seconds to shrink each wrong case (0: off)")
    ap.add_argument("--show", type=int, default=30)
    ap.add_argument("--small", action="store_true", help="small schemas (as tests/test_json_schema_fuzz.py)")
    ap.add_argument("--json", type=str, default=None, help="write the per-schema results here")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    import lark.lexer

    lark.lexer.has_interegular = False  # the oracle parser only (as the bench): skip Lark's collision report
    t0 = time.perf_counter()
    results = run(range(args.seed, args.seed + args.n), args.limit, args.jobs, args.minimise, args.small)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    report(results, time.perf_counter() - t0, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
