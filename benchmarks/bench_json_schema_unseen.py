"""JSON Schema on real schemas nobody tuned tokenguide on (issue 13's "unseen schemas" target).

Corpus, from PyPI packages (the `bench` extra), never read while the library was written:
- SchemaStore: check-jsonschema's vendored schemas (`check_jsonschema/builtin_schemas/vendor`,
  GitHub workflows, GitLab CI, compose-spec, Renovate, ...), all of them, by file name. A schema
  whose `$ref`s leave the file is skipped ("remote $ref": the oracle would need the network).
- Kubernetes: kubernetes-validate's schemas of its newest version, the `-local-strict` variant
  (`--k8s-variant open`: `-local`, objects open to undeclared members),
  one file per kind (the files with `x-kubernetes-group-version-kind`), every `--every`-th by
  file name. Their refs point into the shared `_definitions.json`
  (`/api/_definitions.json#/$defs/X`); as a preparation of the input they are bundled: every
  definition reached (transitively) is copied into the schema's own `$defs` and the refs
  rewritten to `#/$defs/X` (`bundle_definitions`). The schema means the same; it is only
  self-contained.
- CloudFormation (`--cfn-every N`, off by default): cfn-lint's AWS resource type schemas, every
  N-th by file name from `--cfn-offset` (module cloudformation_corpus: their patterns' Unicode
  property escapes are read by the `regex` module in the oracle, and by a few characters of
  each in the generator).

Instances: valid ones from hypothesis-jsonschema (`from_schema`, derandomized, generation phase
only, `--instances` spread over the distinct examples by size, `--gen-limit` seconds; it reads
the schema without annotations, and for recursive schemas, which it refuses, `inline_local_refs`
of it: a subset of the instances); each is
kept only when the oracle (fuzz_json_schema.oracle: jsonschema's validator for the schema's
`$schema`) accepts it, and not only in Python re's reading of `pattern` (`pattern_dialect`:
Unicode `\\d`/`\\w`, `.` matching `\\r`; the standard's is ECMA-262's), those counted as
dropped. Invalid ones are mutations of the valid ones (`mutations`: a key dropped, an
undeclared key added, a value of another type, a number far out of range or made fractional, a
string emptied or lengthened, an array emptied or grown) kept only when the oracle rejects them
(`invalid_instances`). A schema with no valid instance is "no-instances", with the reason.

Judging: fuzz_json_schema.judge_schema (compile_json_schema(path="auto"), bench_json_schema's
acceptor and key-order handling: compact JSON as written and with keys in the output format's
order). Verdicts: pass / wrong (valid rejected or invalid accepted; minimised with
fuzz_json_schema.minimise) / unsupported (keyword and pointer of the UnsupportedSchemaError) /
depth-capped ok / depth-capped wrong / timeout / no-instances; also the path and compile time.
`--compare` runs the same instances through llguidance (bench_json_schema.judge_llguidance: compact
separators, GPT-2 tokens). Each schema runs in a worker process with time limits: `--gen-limit`
for the instances, `--limit` for tokenguide's compile, 6x for judging (Lark's time), `--limit`
for llguidance.

    python benchmarks/bench_json_schema_unseen.py [--compare] [--every N] [--limit S] [--jobs 1]
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing as mp
import signal
import statistics
import sys
import time
import types
import urllib.parse
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

from benchmarks import bench_json_schema as bench  # noqa: E402
from benchmarks import fuzz_json_schema as fuzz  # noqa: E402
from benchmarks.regexes import pattern_pieces  # noqa: E402
from benchmarks.cloudformation_corpus import (  # noqa: E402
    cloudformation_corpus, for_generation, has_property_escape, property_search)

__all__ = ["schemastore_corpus", "kubernetes_corpus", "bundle_definitions", "valid_instances", "mutations",
           "invalid_instances", "inline_local_refs", "without_annotations", "pattern_dialect", "ecma_dot",
           "external_refs", "InlineTooLarge", "run_schema", "main"]


# -- the corpus ----------------------------------------------------------------------------------


def schemastore_dir() -> Path | None:
    """check-jsonschema's vendored SchemaStore schemas, or None when it is not installed."""
    try:
        import check_jsonschema
    except ImportError:
        return None
    d = Path(check_jsonschema.__file__).parent / "builtin_schemas" / "vendor"
    return d if d.is_dir() else None


def kubernetes_dir(version: str | None = None, variant: str = "strict") -> Path | None:
    """kubernetes-validate's `v<version>-local-strict` directory (`variant` "open": `-local`, where
    objects allow undeclared members) of the newest version by default, or None."""
    try:
        import kubernetes_validate
    except ImportError:
        return None
    base = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
    suffix = {"strict": "-local-strict", "open": "-local"}[variant]
    dirs = [d for d in base.glob(f"v*{suffix}") if d.is_dir() and d.name.endswith(suffix)]
    if version:
        dirs = [d for d in dirs if d.name == f"v{version.lstrip('v')}{suffix}"]

    def key(d: Path) -> tuple:
        return tuple(int(p) if p.isdigit() else 0 for p in d.name[1:].split("-")[0].split("."))

    return max(dirs, key=key) if dirs else None


def external_refs(node: Any) -> Iterator[str]:
    """Every `$ref` of the document that names another document (text before '#')."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            yield ref
        for v in node.values():
            yield from external_refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from external_refs(v)


def schemastore_corpus() -> list[tuple[str, Any, str]]:
    """(name, schema, skip reason or "") for each vendored SchemaStore schema, by file name."""
    d = schemastore_dir()
    if d is None:
        return []
    out = []
    for p in sorted(d.glob("*.json")):
        schema = json.loads(p.read_text(encoding="utf-8"))
        remote = sorted(set(external_refs(schema)))
        out.append((f"schemastore/{p.stem}", schema, f"remote $ref {remote[0]}" if remote else ""))
    return out


def _pointer_name(fragment: str, keyword: str) -> str | None:
    """'/$defs/a~1b' -> 'a/b' when the fragment names one member of `keyword`, else None."""
    head = f"/{keyword}/"
    if not fragment.startswith(head) or "/" in fragment[len(head):]:
        return None
    return fragment[len(head):].replace("~1", "/").replace("~0", "~")


def bundle_definitions(schema: Any, definitions: dict, keyword: str = "$defs",
                       document: str = "_definitions.json") -> Any:
    """A copy of `schema` whose refs into the shared `document` (`.../_definitions.json#/$defs/X`)
    and the definitions' own refs (`#/$defs/X`) read `#/$defs/X`, with every definition reached
    from the schema copied into its `keyword` member. A local ref to a name of the schema's own
    `keyword` stays its own; a document ref to a name `definitions` lacks raises KeyError (the input
    is broken, not the bench)."""
    out = copy.deepcopy(schema)
    own = set(out.get(keyword, {})) if isinstance(out, dict) else set()
    needed: dict[str, Any] = {}
    queue: list[Any] = [out]

    def rewrite(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and "#" in ref:
                doc, fragment = ref.split("#", 1)
                name = _pointer_name(fragment, keyword)
                local = doc == "" and (name in own or name not in definitions)  # the schema's own
                if name is not None and not local and (doc == "" or doc.endswith(document)):
                    node["$ref"] = "#/" + keyword + "/" + name.replace("~", "~0").replace("/", "~1")
                    if name not in needed:
                        needed[name] = copy.deepcopy(definitions[name])
                        queue.append(needed[name])
            for v in node.values():
                rewrite(v)
        elif isinstance(node, list):
            for v in node:
                rewrite(v)

    while queue:
        rewrite(queue.pop())
    if needed:
        out[keyword] = {**out.get(keyword, {}), **{name: needed[name] for name in sorted(needed)}}
    return out


def kubernetes_corpus(every: int = 1, version: str | None = None,
                      variant: str = "strict", offset: int = 0) -> list[tuple[str, Any, str]]:
    """(name, bundled schema, "") for every `every`-th Kubernetes kind schema, by file name,
    from the `offset`-th on."""
    d = kubernetes_dir(version, variant)
    if d is None:
        return []
    shared = json.loads((d / "_definitions.json").read_text(encoding="utf-8"))
    keyword = "$defs" if "$defs" in shared else "definitions"
    kinds = []
    for p in sorted(d.glob("*.json")):
        if p.name.startswith("_") or p.name == "all.json":
            continue
        schema = json.loads(p.read_text(encoding="utf-8"))
        if isinstance(schema, dict) and "x-kubernetes-group-version-kind" in schema:
            kinds.append((p, schema))
    tag = d.name.split("-")[0] + ("-open" if variant == "open" else "")
    return [(f"kubernetes-{tag}/{p.stem}", bundle_definitions(s, shared[keyword], keyword), "")
            for p, s in kinds[offset::max(1, every)]]


# -- instances -----------------------------------------------------------------------------------


class _ManyAdapter:
    """hypothesis-jsonschema 0.23 drives `hypothesis.internal.conjecture.utils.many` through
    `more()` / `reject()`; newer hypothesis only has the `with many(...) as e: for _ in e:` form.
    This gives the old calls over the new form (used only when `many` lacks `more`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._many = _ManyAdapter.original(*args, **kwargs)
        self._many.__enter__()
        self._steps = iter(self._many)

    def more(self) -> bool:
        try:
            next(self._steps)
            return True
        except StopIteration:
            self._many.__exit__(None, None, None)
            return False

    def reject(self, why: str | None = None) -> None:
        self._many.reject(why)

    original: Any = None


def _adapt_hypothesis() -> None:
    """Install _ManyAdapter into hypothesis-jsonschema when the installed hypothesis needs it."""
    from hypothesis.internal.conjecture import utils
    from hypothesis_jsonschema import _from_schema

    if hasattr(utils.many, "more") or _ManyAdapter.original is not None:
        return
    _ManyAdapter.original = utils.many
    _from_schema.cu = types.SimpleNamespace(many=_ManyAdapter)  # the module's only use of cu


_ANNOTATIONS = ("description", "markdownDescription", "title", "$comment", "examples")


def without_annotations(node: Any) -> Any:
    """`node` without annotation keywords (description, title, examples, `x-` extensions): they do
    not change validation, and hypothesis-jsonschema re-serialises the schema many times
    (Kubernetes' long descriptions made one kind take minutes) and checks `examples` against its
    own metaschema. A member is dropped only when its value is not a schema (object or boolean),
    so a property named like an annotation stays."""
    if isinstance(node, dict):
        return {k: without_annotations(v) for k, v in node.items()
                if not ((k in _ANNOTATIONS or k.startswith("x-")) and not isinstance(v, (dict, bool)))}
    if isinstance(node, list):
        return [without_annotations(v) for v in node]
    return node


class InlineTooLarge(Exception):
    """inline_local_refs went past its node budget (the inlined schema would be too large)."""


def inline_local_refs(schema: Any, repeat: int = 2, budget: int = 200_000) -> Any:
    """`schema` with every local `$ref` ("#/...") replaced by its target, a ref met `repeat` times
    on one path by the schema that accepts nothing: a generator's schema for recursive documents
    (hypothesis-jsonschema refuses recursive refs). It accepts a subset of `schema`'s instances
    (the oracle still judges each one). `$ref` siblings: ignored before 2019-09, else kept beside
    the target in an allOf. Raises InlineTooLarge past `budget` nodes."""
    root = schema
    old = isinstance(schema, dict) and "draft-0" in str(schema.get("$schema", ""))
    size = [0]

    def target(ref: str) -> Any:
        node = root
        for part in ref[1:].lstrip("/").split("/") if ref != "#" else []:
            part = urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node

    def walk(node: Any, stack: tuple) -> Any:
        size[0] += 1
        if size[0] > budget:
            raise InlineTooLarge()
        if isinstance(node, list):
            return [walk(v, stack) for v in node]
        if not isinstance(node, dict):
            return node
        rest = {k: walk(v, stack) for k, v in node.items()
                if k != "$ref" and not (node is root and k in ("definitions", "$defs"))}
        ref = node.get("$ref")
        if not (isinstance(ref, str) and ref.startswith("#")):
            return rest if "$ref" not in node else {**rest, "$ref": ref}
        inner = {"not": {}} if stack.count(ref) >= repeat else walk(target(ref), stack + (ref,))
        return inner if old or not rest else {**rest, "allOf": [inner, *rest.get("allOf", [])]}

    return walk(schema, ())


def _generate(schema: Any, examples: int) -> tuple[dict[str, Any], str]:
    """(distinct examples hypothesis-jsonschema draws for `schema`, by compact JSON; the error that
    ended the drawing, or "")."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import from_schema

    _adapt_hypothesis()
    seen: dict[str, Any] = {}
    try:
        strategy = from_schema(schema)
    except Exception as exc:
        return seen, f"hypothesis-jsonschema: {type(exc).__name__}: {str(exc)[:160]}"

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x: Any) -> None:
        seen.setdefault(bench.compact(x), x)

    try:
        collect()
    except (bench.JudgeTimeout, Exception) as exc:  # keep what was generated before the limit or the error
        return seen, f"hypothesis-jsonschema: {type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
    return seen, ""


def valid_instances(schema: Any, count: int, is_valid: Callable[[Any], bool],
                    examples: int = 20) -> tuple[list[Any], str]:
    """(up to `count` distinct instances from hypothesis-jsonschema that `is_valid` accepts, spread
    from the smallest to the largest; the reason when there are none). The generator reads the
    schema without annotations; when it refuses its refs (recursive ones), it reads
    `inline_local_refs` of it. Derandomized: the same instances every run (for one hypothesis version)."""
    stripped = for_generation(without_annotations(schema))  # (property escapes: a few of their characters)
    seen, error = _generate(stripped, examples)
    if not seen and "Ref" in error:
        try:
            seen, error = _generate(inline_local_refs(stripped), examples)
            error = error and f"after inlining refs: {error}"
        except (InlineTooLarge, KeyError, IndexError, ValueError, TypeError) as exc:
            error += f"; inlining refs: {type(exc).__name__}"
    good = [x for _, x in sorted(seen.items(), key=lambda kv: (len(kv[0]), kv[0])) if is_valid(x)]
    if not good:
        return [], error or (f"none of {len(seen)} generated instances valid for jsonschema" if seen
                             else "hypothesis-jsonschema generated nothing")
    if len(good) > count:
        step = (len(good) - 1) / max(1, count - 1)
        good = [good[round(i * step)] for i in range(count)]
    return good, ""


_OTHER_TYPE = {dict: [], list: {}, str: 0, bool: "true", int: "0", float: "0.5", type(None): 0}


def _replace(value: Any, path: list, new: Any) -> Any:
    """A copy of `value` with the node at `path` (keys / indexes) replaced by `new`."""
    if not path:
        return new
    out = copy.copy(value)
    out[path[0]] = _replace(value[path[0]], path[1:], new)
    return out


def _paths(value: Any) -> Iterator[tuple[str, list, Any]]:
    """(pointer, key/index path, node) of every node, breadth-first."""
    queue: list[tuple[list, Any]] = [([], value)]
    while queue:
        path, node = queue.pop(0)
        yield "".join(f"/{p}" for p in path), path, node
        if isinstance(node, dict):
            queue.extend((path + [k], v) for k, v in node.items())
        elif isinstance(node, list):
            queue.extend((path + [i], v) for i, v in enumerate(node))


def mutations(instance: Any) -> Iterator[tuple[str, str, Any]]:
    """(kind, pointer, mutated copy) for small changes that often make a valid instance invalid:
    a key dropped, an undeclared key added, a value of another type, a number far out of range or
    made fractional, a string emptied or lengthened, an array emptied or its last item repeated."""
    for ptr, path, node in _paths(instance):
        if isinstance(node, dict):
            for k in node:
                yield "drop key", f"{ptr}/{k}", _replace(instance, path, {x: v for x, v in node.items() if x != k})
            yield "undeclared key", ptr, _replace(instance, path, {**node, "zzUndeclaredKey": 0})
        yield "other type", ptr, _replace(instance, path, _OTHER_TYPE[type(node)])
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            yield "out of range", ptr, _replace(instance, path, node + 10 ** 12)
            yield "out of range", ptr, _replace(instance, path, node - 10 ** 12)
            if isinstance(node, int):
                yield "fractional", ptr, _replace(instance, path, node + 0.5)
        elif isinstance(node, str):
            yield "string length", ptr, _replace(instance, path, "")
            yield "string length", ptr, _replace(instance, path, node + "x" * 300)
        elif isinstance(node, list):
            yield "array length", ptr, _replace(instance, path, [])
            if node:
                yield "array length", ptr, _replace(instance, path, node + node[-1:])


def invalid_instances(valid: list[Any], is_valid: Callable[[Any], bool], count: int,
                      tries: int = 400) -> list[tuple[str, str, Any]]:
    """Up to `count` distinct (kind, pointer, instance) mutations of the `valid` instances that
    `is_valid` rejects, taken round-robin over the mutation kinds (at most `tries` checked)."""
    by_kind: dict[str, list[tuple[str, Any]]] = {}
    seen = {bench.compact(x) for x in valid}
    checked = 0
    for x in valid:
        for kind, ptr, m in mutations(x):
            if checked >= tries:
                break
            text = bench.compact(m)
            if text in seen:
                continue
            seen.add(text)
            checked += 1
            if not is_valid(m):
                by_kind.setdefault(kind, []).append((ptr, m))
    out: list[tuple[str, str, Any]] = []
    depth = 0
    while len(out) < count and any(len(v) > depth for v in by_kind.values()):
        for kind in sorted(by_kind):
            if len(by_kind[kind]) > depth and len(out) < count:
                out.append((kind, *by_kind[kind][depth]))
        depth += 1
    return out


def ecma_dot(pattern: str) -> str:
    """`pattern` with each `.` outside a class spelled as ECMA-262 reads it: any character but the
    line terminators (Python's `.` takes `\r`, U+2028 and U+2029 too)."""
    return "".join("[^\\n\\r\\u2028\\u2029]" if piece == "." and not in_class else piece
                   for piece, in_class in pattern_pieces(pattern))


def _ecma_found(pattern: str, text: str) -> bool:
    """Does `pattern`, read as ECMA-262 reads it, match somewhere in `text`? ASCII `\\d`, `\\w`
    (Python's re with re.ASCII) and ECMA's `.`; with property escapes the `regex` module reads
    them, with Unicode \\d, \\w and dot: a non-ASCII text those could decide counts as no match
    (an instance that hangs on it is taken for a dialect difference, and dropped)."""
    import re

    if has_property_escape(pattern):
        return property_search(pattern, text) and (
            text.isascii() or not re.search(r"\\[dDwWbB]|(?<!\\)\.", pattern))
    return re.search(ecma_dot(pattern), text, re.ASCII) is not None


def pattern_dialect(schema: Any, instance: Any) -> bool:
    """For an instance the oracle accepts: is it valid only because Python's re gives `\\d`/`\\w` their Unicode
    meaning, or lets `.` match `\\r`/U+2028/U+2029, in `pattern` or in the names patternProperties and
    additionalProperties take? (JSON Schema patterns are ECMA-262, where the classes are ASCII and `.`
    stops at line terminators; tokenguide reads them so.)"""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        return not jsonschema.validators.extend(cls, fuzz.pattern_keywords(_ecma_found))(schema).is_valid(instance)
    except Exception:
        return False


# -- one schema ----------------------------------------------------------------------------------

_OPTS: dict = {}


def _init(compare: bool) -> None:
    """Worker set-up: the alarm, quiet warnings, the oracle parser without Lark's collision report,
    llguidance over GPT-2 when comparing."""
    signal.signal(signal.SIGALRM, bench.on_alarm)
    warnings.simplefilter("ignore")
    import lark.lexer

    lark.lexer.has_interegular = False
    if compare:
        bench.init_worker(False)
    fuzz.warm_up()


def _tokenguide_compile(schema: Any, limit: float) -> dict:
    """compile_json_schema(path="auto") timed: path, compile time, or the refusal's keyword and pointer."""
    from tokenguide.errors import UnsupportedSchemaError
    from tokenguide.json_schema import compile_json_schema

    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.perf_counter()
    try:
        compiled = compile_json_schema(schema, path="auto")
        return {"compile_time": time.perf_counter() - t0, "path": compiled.path,
                "depth_capped": bool(compiled.depth_capped)}
    except UnsupportedSchemaError as exc:
        return {"status": "unsupported", "keyword": exc.keyword or "(none)", "pointer": exc.pointer or "",
                "detail": str(exc)[:240]}
    except bench.JudgeTimeout:
        return {"status": "timeout", "stage": "compile"}
    except (Exception, RecursionError) as exc:
        return {"status": "wrong", "kind": f"compile raised {type(exc).__name__}", "detail": str(exc)[:200]}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_schema(task: tuple) -> dict:
    """Instances, tokenguide's verdict (and llguidance's with compare) for one corpus entry."""
    name, schema, skip, opts = task
    res: dict = {"name": name}
    if skip:
        return {**res, "status": "skipped", "reason": skip}
    is_valid = fuzz.oracle(schema)
    signal.setitimer(signal.ITIMER_REAL, opts["gen_limit"])
    t0 = time.perf_counter()
    try:
        valid, reason = valid_instances(schema, opts["instances"], is_valid)
        # valid only in Python re's reading of `pattern`, not in ECMA-262's: not valid instances
        dialect = [x for x in valid if pattern_dialect(schema, x)]
        if dialect:
            res["dialect_dropped"] = len(dialect)
            valid = [x for x in valid if not any(x is d for d in dialect)]
            reason = reason or "every instance is valid only in Python re's pattern dialect"
        signal.setitimer(signal.ITIMER_REAL, opts["gen_limit"])
        invalid = invalid_instances(valid, is_valid, opts["instances"]) if valid else []
    except bench.JudgeTimeout:
        valid, invalid, reason = [], [], f"instance generation over {opts['gen_limit']:g} s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    res["gen_time"] = time.perf_counter() - t0
    if not valid:
        return {**res, "status": "no-instances", "reason": reason}
    res["mutations"] = [k for k, _, _ in invalid]
    instances = valid + [m for _, _, m in invalid]
    res["valid"], res["invalid"] = len(valid), len(invalid)
    tg = _tokenguide_compile(schema, opts["limit"])
    if "status" not in tg:
        signal.setitimer(signal.ITIMER_REAL, opts["limit"] * 6)
        try:
            judged = fuzz.judge_schema(schema, instances)
            tg.update({k: v for k, v in judged.items() if k not in ("valid", "invalid")})
        except bench.JudgeTimeout:
            tg.update({"status": "timeout", "stage": "judge"})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if tg.get("kind") == "valid rejected" and pattern_dialect(schema, tg["instance"]):
            tg["dialect"] = ("valid only with Python re's `pattern` dialect (Unicode \\d/\\w, `.` matching \\r): "
                             "ECMA-262 reads them otherwise")
        if tg["status"] in ("wrong", "depth-capped wrong") and "instance" in tg and opts["minimise"] > 0:
            signal.setitimer(signal.ITIMER_REAL, opts["minimise"] * 2)
            try:
                tg["min_schema"], tg["min_instance"] = fuzz.minimise(
                    copy.deepcopy(schema), tg["instance"], tg["kind"], opts["minimise"], tg["status"] != "wrong")
            except bench.JudgeTimeout:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    res["tokenguide"] = tg
    if opts["compare"]:
        tests = [{"data": x, "valid": True} for x in valid] + [{"data": m, "valid": False} for _, _, m in invalid]
        res["llguidance"] = bench.judge_llguidance(schema, tests, opts["limit"])
    return res


# -- the report ----------------------------------------------------------------------------------

_STATUSES = ("pass", "wrong", "unsupported", "depth-capped ok", "depth-capped wrong", "timeout")


def _rate(c: Counter) -> str:
    judged = sum(c[s] for s in _STATUSES)
    return f"{100 * (c['pass'] + c['depth-capped ok']) / judged:.1f}%" if judged else "-"


def report(results: list[dict], args: argparse.Namespace, elapsed: float) -> None:
    """Markdown tables and the lists of failures (see the module docstring)."""
    judged = [r for r in results if "tokenguide" in r]
    systems = ["tokenguide"] + (["llguidance"] if args.compare else [])
    print(f"JSON Schema on unseen real schemas: {len(results)} schemas ({len(judged)} with instances), "
          f"{elapsed:.0f} s, limit {args.limit:g} s/schema; {sum(r['valid'] for r in judged)} valid and "
          f"{sum(r['invalid'] for r in judged)} invalid instances\n")
    print("| corpus | system | schemas | pass | wrong | unsupported | depth-capped ok | depth-capped wrong | "
          "timeout | pass rate |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for corpus in ("schemastore", "kubernetes", "cloudformation", "all"):
        rs = [r for r in judged if corpus == "all" or r["name"].startswith(corpus)]
        for system in systems:
            c = Counter(r[system]["status"] for r in rs)
            cells = " | ".join(str(c[s]) for s in _STATUSES)
            print(f"| {corpus} | {system} | {len(rs)} | {cells} | {_rate(c)} |")
    print("\n(pass rate: pass + depth-capped ok over the schemas with instances; llguidance has no depth cap)")
    dropped = {r["name"]: r["dialect_dropped"] for r in results if r.get("dialect_dropped")}
    if dropped:
        print(f"valid instances dropped, valid only in Python re's pattern dialect: {sum(dropped.values())} "
              f"({', '.join(f'{k} {v}' for k, v in dropped.items())})")
    other = [r for r in results if "tokenguide" not in r]
    for r in other:
        print(f"- {r['status']}: {r['name']}: {r.get('reason', '')}")
    tg = [r["tokenguide"] for r in judged]
    paths = Counter(t.get("path") for t in tg if t["status"] in ("pass", "depth-capped ok"))
    print(f"\ntokenguide passing by path: regex {paths['regex']}, grammar {paths['grammar']}, engine {paths['engine']}")
    times = sorted(t["compile_time"] for t in tg if "compile_time" in t)
    if times:
        print(f"tokenguide compile time: p50 {statistics.median(times) * 1000:.0f} ms, "
              f"p90 {times[max(0, -(-9 * len(times) // 10) - 1)] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms")
    if args.compare:
        fm = sorted(r["llguidance"]["first_mask"] for r in judged if "first_mask" in r["llguidance"])
        if fm:
            print(f"llguidance grammar to first mask: p50 {statistics.median(fm) * 1000:.0f} ms, "
                  f"max {fm[-1] * 1000:.0f} ms")
    for system in systems:
        kw = Counter(r[system].get("keyword") for r in judged if r[system]["status"] == "unsupported")
        print(f"{system} unsupported by keyword: " + (", ".join(f"{k} {v}" for k, v in kw.most_common()) or "none"))
    print()
    for status in ("wrong", "depth-capped wrong", "timeout", "unsupported", "depth-capped ok"):
        for r in judged:
            t = r["tokenguide"]
            if t["status"] != status:
                continue
            where = f" at {t['pointer']}" if t.get("pointer") else ""
            print(f"- tokenguide {status}: {r['name']}: {t.get('keyword', t.get('kind', t.get('stage', '')))}"
                  f"{where}: {str(t.get('detail', t.get('dialect', '')))[:200]}")
            if "min_schema" in t:
                print(f"  minimised schema: {bench.compact(t['min_schema'])[:600]}\n"
                      f"  instance: {bench.compact(t['min_instance'])[:300]}")
            elif "instance" in t:
                print(f"  instance: {bench.compact(t['instance'])[:300]}")
    if args.compare:
        for r in judged:
            lg = r["llguidance"]
            if lg["status"] not in ("pass",):
                print(f"- llguidance {lg['status']}: {r['name']}: {str(lg.get('detail', ''))[:160]}")


def corpus(args: argparse.Namespace) -> list[tuple[str, Any, str]]:
    """The selected corpus entries (see the module docstring)."""
    entries = schemastore_corpus() + kubernetes_corpus(args.every, args.k8s_version, args.k8s_variant,
                                                           args.k8s_offset) + \
        cloudformation_corpus(args.cfn_every, args.cfn_offset, external_refs)
    if args.only:
        entries = [e for e in entries if any(o in e[0] for o in args.only)]
    return entries


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--every", type=int, default=8, help="take every N-th Kubernetes kind (by file name)")
    ap.add_argument("--k8s-offset", type=int, default=0, help="start the every-N-th Kubernetes kinds at this one")
    ap.add_argument("--k8s-version", default=None, help="kubernetes-validate schema version (default: newest)")
    ap.add_argument("--k8s-variant", choices=("strict", "open"), default="strict",
                    help="Kubernetes schemas with additionalProperties false (strict, default) or open objects")
    ap.add_argument("--cfn-every", type=int, default=0,
                    help="also take every N-th AWS CloudFormation resource schema of cfn-lint (0: none)")
    ap.add_argument("--cfn-offset", type=int, default=0, help="start the every-N-th CloudFormation schemas at this one")
    ap.add_argument("--only", action="append", default=[], help="only schemas whose name contains this (repeatable)")
    ap.add_argument("--instances", type=int, default=6, help="valid (and as many invalid) instances per schema")
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per schema for the compile (6x for judging)")
    ap.add_argument("--gen-limit", type=float, default=30.0, help="seconds per schema for hypothesis-jsonschema")
    ap.add_argument("--minimise", type=float, default=30.0, help="seconds to shrink each wrong case (0: off)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--compare", action="store_true", help="also run llguidance on the same instances")
    ap.add_argument("--json", default=None, help="write the per-schema results here")
    args = ap.parse_args(argv)
    missing = [m for m in ("check_jsonschema", "kubernetes_validate", "hypothesis_jsonschema")
               if __import__("importlib").util.find_spec(m) is None]
    if missing:
        print(f"missing benchmark packages {missing}: pip install check-jsonschema kubernetes-validate "
              f"hypothesis-jsonschema (the bench extra)")
        return 1
    opts = {"instances": args.instances, "limit": args.limit, "gen_limit": args.gen_limit,
            "minimise": args.minimise, "compare": args.compare}
    entries = corpus(args)
    t0 = time.perf_counter()
    results = []
    budget = args.gen_limit * 2 + args.limit * 8 + args.minimise * 2 + 60
    with mp.get_context("fork").Pool(args.jobs, initializer=_init, initargs=(args.compare,),
                                     maxtasksperchild=20) as pool:
        pending = [(e[0], pool.apply_async(run_schema, ((*e, opts),))) for e in entries]
        for name, fut in pending:
            try:
                r = fut.get(timeout=budget)
            except mp.TimeoutError:
                r = {"name": name, "status": "no-instances", "reason": f"worker over {budget:g} s"}
            results.append(r)
            t = r.get("tokenguide", {})
            print(f"[{time.perf_counter() - t0:6.0f} s] {name}: {t.get('status', r.get('status'))} "
                  f"{t.get('path', '')} {r.get('llguidance', {}).get('status', '')}", file=sys.stderr, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    report(results, args, time.perf_counter() - t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
