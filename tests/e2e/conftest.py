"""Shared setup for the browser end-to-end tests (pytest-playwright driving Chromium).

- Every test collected under tests/e2e gets the ``e2e`` marker (deselect with ``-m "not e2e"``).
- Chromium: ``$TOKENGUIDE_CHROMIUM`` if set, else Debian's ``/usr/bin/chromium`` if present, else Playwright's own.
- Offline guard (autouse): each browser context aborts every request to a host other than 127.0.0.1/localhost
  (file:, data: and blob: URLs are allowed) and the test fails at teardown if any such request was attempted.
- ``static_server``: ``static_server(folder) -> base URL`` serves a folder on a free 127.0.0.1 port in a thread.

Test modules in this directory should start with ``pytest.importorskip("playwright.sync_api")`` so that the
directory is skipped with a clear message when Playwright is not installed; this conftest itself never imports
Playwright unguarded.
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit

import pytest

E2E_DIR = Path(__file__).resolve().parent
REPO_ROOT = E2E_DIR.parent.parent

try:  # Playwright and its pytest plugin are optional test dependencies
    import playwright.sync_api  # noqa: F401
    import pytest_playwright  # noqa: F401

    HAVE_PLAYWRIGHT = True
except ImportError:
    HAVE_PLAYWRIGHT = False

SKIP_REASON = (
    "browser tests need Playwright: pip install playwright pytest-playwright "
    "(and Chromium: apt-get install chromium, or python -m playwright install chromium)"
)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
LOCAL_SCHEMES = {"file", "data", "blob", "about", "chrome-extension", "devtools"}


def pytest_configure(config: pytest.Config) -> None:
    # pytest-playwright 0.10's session-scoped `base_url` fixture triggers this pytest 9 deprecation: not ours.
    config.addinivalue_line(
        "filterwarnings", "ignore:Session-scoped fixtures defined as instance methods:pytest.PytestRemovedIn10Warning"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of this directory as ``e2e`` (and skip them when Playwright is missing)."""
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        if E2E_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)
            if not HAVE_PLAYWRIGHT:
                item.add_marker(skip)


def chromium_executable() -> str | None:
    """The Chromium binary to drive: $TOKENGUIDE_CHROMIUM, /usr/bin/chromium, or None (Playwright's own)."""
    env = os.environ.get("TOKENGUIDE_CHROMIUM")
    if env:
        return env
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return None


def is_local_url(url: str) -> bool:
    """True for URLs the tests may load: loopback hosts, file:, data:, blob: (everything else is 'network')."""
    parts = urlsplit(url)
    if parts.scheme in LOCAL_SCHEMES:
        return True
    return (parts.hostname or "") in LOCAL_HOSTS


if HAVE_PLAYWRIGHT:

    @pytest.fixture(scope="session")
    def browser_type_launch_args(browser_type_launch_args: dict, browser_name: str | None) -> dict:
        """Launch Debian's (or the configured) Chromium headless with flags that keep it quiet and offline."""
        args = dict(browser_type_launch_args)
        if (browser_name or "chromium") == "chromium":
            exe = chromium_executable()
            if exe and "executable_path" not in args:
                args["executable_path"] = exe
            args["args"] = [*args.get("args", []), *CHROMIUM_ARGS]
        return args

    @pytest.fixture(autouse=True)
    def offline_guard(context) -> Iterator[list[str]]:
        """Abort and record every request that would leave the machine; fail the test if there was one."""
        attempted: list[str] = []

        def handle(route) -> None:
            url = route.request.url
            if is_local_url(url):
                route.continue_()
            else:
                if url not in attempted:
                    attempted.append(url)
                route.abort("internetdisconnected")

        def on_request(request) -> None:  # second net: requests that bypass routing (e.g. service workers)
            if not is_local_url(request.url) and request.url not in attempted:
                attempted.append(request.url)

        context.route("**/*", handle)
        context.on("request", on_request)
        yield attempted
        if attempted:
            pytest.fail(f"the page tried to reach the network ({len(attempted)} requests): {attempted[:5]}")

else:

    @pytest.fixture(autouse=True)
    def offline_guard() -> None:
        pytest.skip(SKIP_REASON)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with module/wasm MIME types and cross-origin isolation headers, without request logs."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".whl": "application/zip",
        ".zip": "application/zip",
        ".outlines": "application/octet-stream",
    }

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - signature from the base class
        pass


def _make_server(root: Path):
    """build.make_server(root, 0) when build.py provides it, else a ThreadingHTTPServer of our own."""
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    try:
        from build import make_server  # type: ignore[import-not-found]
    except Exception:  # build.py absent or without make_server yet
        make_server = None
    if make_server is not None:
        server = make_server(root, 0)
        if hasattr(server, "serve_forever") and hasattr(server, "server_address"):
            return server
        if hasattr(server, "shutdown"):
            server.shutdown()
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    return server


@pytest.fixture(scope="session")
def static_server() -> Iterator[Callable[[str | os.PathLike], str]]:
    """Factory: ``static_server(folder)`` serves ``folder`` on 127.0.0.1 and returns its base URL (ends with /).

    Servers live for the test session (one per distinct folder) and are shut down at the end.
    """
    servers: dict[Path, tuple[object, str]] = {}

    def serve(folder: str | os.PathLike) -> str:
        root = Path(folder).resolve()
        if not root.is_dir():
            raise FileNotFoundError(f"cannot serve {root}: not a directory")
        if root not in servers:
            server = _make_server(root)
            thread = threading.Thread(target=server.serve_forever, name=f"static:{root.name}", daemon=True)
            thread.start()
            host, port = server.server_address[:2]
            servers[root] = (server, f"http://127.0.0.1:{port}/")
        return servers[root][1]

    yield serve
    for server, _ in servers.values():
        server.shutdown()
        server.server_close()
