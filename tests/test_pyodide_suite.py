"""The core suite again, inside Pyodide (Python 3.14, wasm32) under Node.js, plus checks of
what build.py produces for the browser (dist/ lock file, wheel loading by name, the server).

Why: tokenguide must run unchanged in Pyodide. Running the real unit tests there is the
proof; the rest checks that the bundle the web app loads is consistent and offline.
Prerequisites (node, web/node_modules, .cache/wheels, dist/) come from `python3 build.py test`;
each test skips with the reason when they are missing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
HARNESS = TESTS / "pyodide" / "run_pytest.mjs"
CHECK_BUNDLE = TESTS / "pyodide" / "check_bundle.mjs"
WRITE_BYTES = TESTS / "pyodide" / "write_bytes.py"
PYODIDE_NPM = REPO / "web" / "node_modules" / "pyodide"
WHEEL_DIR = Path(os.environ.get("TOKENGUIDE_WHEELS") or REPO / ".cache" / "wheels")
DIST = Path(os.environ.get("TOKENGUIDE_DIST") or REPO / "dist")

# Core unit test files that must also pass in Pyodide: every file on disk matching these.
CORE_PATTERNS = ("test_regex*.py", "test_automaton*.py", "test_index*.py",
                 "test_vocabulary*.py", "test_serialization*.py", "test_engine_language.py", "test_ir_*.py")
CORE_TEST_FILES = sorted({p.relative_to(REPO).as_posix()
                          for pattern in CORE_PATTERNS for p in TESTS.glob(pattern)})

# Wheels the harness loads (see run_pytest.mjs).
HARNESS_WHEELS = ("iniconfig", "packaging", "pluggy", "pygments", "pytest",
                  "sortedcontainers", "attrs", "hypothesis", "lark")

# Upper bound for one Pyodide run: a guard against hangs, not a performance assertion.
PYODIDE_TIMEOUT_S = 40 * 60


def _load_build():
    """build.py as a module (loaded by path: a PyPI package named `build` may be installed)."""
    spec = importlib.util.spec_from_file_location("tokenguide_build_script", REPO / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wheel(name: str) -> Path | None:
    norm = name.lower().replace("-", "_")
    hits = sorted(p for p in WHEEL_DIR.glob("*.whl") if p.name.split("-")[0].lower() == norm) \
        if WHEEL_DIR.is_dir() else []
    return hits[-1] if hits else None


def _need_node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (Node.js) is not installed: the Pyodide checks need it")
    if not (PYODIDE_NPM / "pyodide.mjs").exists():
        pytest.skip(f"{PYODIDE_NPM} is missing: run `python3 build.py test` (npm ci in web/)")
    return node


def _need_harness_wheels() -> None:
    missing = [n for n in HARNESS_WHEELS if _wheel(n) is None]
    if missing:
        pytest.skip(f"no wheels in {WHEEL_DIR} for {', '.join(missing)}: run `python3 build.py test`")


def _need_dist() -> dict:
    lock_path = DIST / "pyodide" / "pyodide-lock.json"
    if not lock_path.exists():
        pytest.skip(f"{lock_path} is missing: run `python3 build.py bundle`")
    return json.loads(lock_path.read_text())


def _run(cmd: list[str], timeout: float) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, errors="replace",
                          timeout=timeout)
    return proc, time.monotonic() - t0


# ----------------------------------------------------------------------------- pytest in Pyodide

@(pytest.mark.pyodide_part("core", *CORE_TEST_FILES, "-q", "-m", "not e2e and not slow", timeout=PYODIDE_TIMEOUT_S)
  if CORE_TEST_FILES else pytest.mark.skip(reason=f"no core test files yet (looked for {', '.join(CORE_PATTERNS)} in tests/)"))
def test_core_suite_passes_in_pyodide(pyodide_part, capsys):
    """The core unit tests pass inside Pyodide (outlines-core and browser tests skip themselves).
    The run is the session's one Pyodide process (tests/conftest.py), shared with the other parts."""
    part = pyodide_part("core")
    with capsys.disabled():
        print(f"\n[pyodide] {len(CORE_TEST_FILES)} core test files in Pyodide: exit {part.code}")
    assert part.code == 0, part.output
    assert re.search(r"\b\d+ passed\b", part.stdout), "no test passed in Pyodide:\n" + part.output


@pytest.mark.pyodide_part("write_bytes", "--exec", str(WRITE_BYTES), "{tmp}/out.bin", "3", timeout=300)
def test_harness_exec_runs_a_script_and_writes_files(pyodide_part, tmp_path_factory):
    """--exec runs a script inside Pyodide; its files land on disk and its exit code comes back."""
    part = pyodide_part("write_bytes")
    assert part.code == 3, part.output
    written = re.search(r"\S*/out\.bin", part.command)
    assert written, part.command
    assert Path(written.group(0)).read_bytes() == bytes(range(256)) + b"emscripten"
    # sharing the boot: every part reported its exit code, the process exits with the first nonzero one
    assert 3 in part.codes and None not in part.codes, part.output
    assert part.run_code == next(c for c in part.codes if c), part.output


@pytest.mark.pyodide_part("write_outside", "--exec", str(WRITE_BYTES), "{outside}/out.bin", "0", timeout=300)
def test_harness_mounts_the_folder_of_an_absolute_path_argument(pyodide_part):
    """A script's argument naming a file outside the repository: its folder is mounted, so the file
    the script writes there lands on the host disk."""
    part = pyodide_part("write_outside")
    assert part.code == 0, part.output
    written = re.search(r"\S*pyodide-outside-\S*/out\.bin", part.command)
    assert written and not written.group(0).startswith(str(REPO)), part.command
    assert Path(written.group(0)).read_bytes() == bytes(range(256)) + b"emscripten"


def test_harness_rejects_missing_wheel_dir(tmp_path):
    """A wrong wheel folder is a clear usage error (exit 2), not a crash or a network fetch."""
    node = _need_node()
    proc, _ = _run([node, str(HARNESS), str(REPO), str(tmp_path / "nope")], timeout=60)
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr


# ----------------------------------------------------------------------------- the bundle (dist/)

def test_bundle_lock_matches_served_wheels():
    """Every lock entry names a served wheel with the right hash, name, version and deps."""
    lock = _need_dist()
    shipped = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text()) \
        if (PYODIDE_NPM / "pyodide-lock.json").exists() else None
    if shipped is not None:
        assert lock["info"] == shipped["info"]
    packages = lock["packages"]
    assert set(packages) == {"tokenguide", "lark", "micropip"}  # interegular is not needed, so not shipped
    served = {p.name for p in (DIST / "wheels").glob("*.whl")}
    listed = set()
    for key, entry in packages.items():
        path = (DIST / "pyodide" / entry["file_name"]).resolve()
        assert path.is_file(), f"{key}: {entry['file_name']} is not in dist/"
        listed.add(path.name)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"], key
        dist_name, version = path.name.split("-")[:2]
        assert dist_name.lower().replace("_", "-") == key == entry["name"].lower()
        assert version == entry["version"]
        assert entry["package_type"] == "package" and entry["install_dir"] == "site"
        assert set(entry["depends"]) <= set(packages), key
        with zipfile.ZipFile(path) as zf:
            tops = {n.split("/")[0] for n in zf.namelist()}
        assert entry["imports"] and set(entry["imports"]) <= tops, key
    assert served == listed
    assert packages["tokenguide"]["depends"] == ["lark"]


def test_bundle_has_runtime_vocab_and_pyscript():
    """dist/ holds the Pyodide runtime, the GPT-2 vocabulary and PyScript."""
    _need_dist()
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        assert (DIST / "pyodide" / name).stat().st_size > 0, name
    vocab = json.loads((DIST / "vocab" / "gpt2-vocab.json").read_text(encoding="utf-8"))
    assert vocab["<|endoftext|>"] == 50256
    assert (DIST / "pyscript" / "core.js").is_file()


def test_bundle_loads_tokenguide_by_name_in_node():
    """Pyodide from dist/pyodide/ installs tokenguide (and its deps) by name via the lock, offline."""
    node = _need_node()
    _need_dist()
    proc, _ = _run([node, str(CHECK_BUNDLE), str(DIST), "tokenguide", "micropip"], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["platform"] == "emscripten"
    assert report["python"].startswith("3.14")
    lock = json.loads((DIST / "pyodide" / "pyodide-lock.json").read_text())
    for name in ("tokenguide", "lark", "micropip"):
        assert report["packages"][name] == lock["packages"][name]["version"]
    # the bundle's tokenguide builds its grammars (a strict Lark parser: the JSON Schema grammar
    # path's check) without interegular, which the bundle does not ship
    assert report["interegular"] is False and report["grammar"] == ["bb"]


def test_sync_dist_copies_only_changes_and_removes_stale(tmp_path):
    """bundle's sync writes new/changed files, keeps unchanged ones and deletes stale ones."""
    build = _load_build()
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.js").write_text("a")
    (src / "b.css").write_text("b")
    root = tmp_path / "dist"
    plan = {"a.js": src / "a.js", "sub/b.css": src / "b.css", "gen.json": "{}\n"}
    assert build.sync_dist(plan, root) == (3, 0, 0)
    assert build.sync_dist(plan, root) == (0, 3, 0)
    (root / "stale.txt").write_text("old")
    (src / "a.js").write_text("changed")
    del plan["sub/b.css"]
    assert build.sync_dist(plan, root) == (1, 1, 2)
    assert (root / "a.js").read_text() == "changed"
    assert not (root / "sub").exists()
    assert sorted(p.name for p in root.iterdir()) == ["a.js", "gen.json"]


# ----------------------------------------------------------------------------- the server

def test_server_mime_types_and_isolation_headers(tmp_path):
    """The dev server sends JS/wasm MIME types and COOP/COEP headers, on a free port."""
    build = _load_build()
    files = {"m.mjs": "application/javascript", "s.js": "application/javascript",
             "x.wasm": "application/wasm", "index.html": "text/html", "w.whl": "application/zip"}
    for name in files:
        (tmp_path / name).write_bytes(b"\0asm" if name.endswith(".wasm") else b"x")
    server, url = build.start_server(tmp_path, 0)
    try:
        assert url.startswith("http://127.0.0.1:")
        for name, mime in files.items():
            with urllib.request.urlopen(url + name, timeout=10) as resp:
                assert resp.headers["Content-Type"].split(";")[0] == mime, name
                assert resp.headers["Cross-Origin-Opener-Policy"] == "same-origin"
                assert resp.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
                assert resp.read() == (tmp_path / name).read_bytes()
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url + "missing.js", timeout=10)
        assert info.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


def test_build_py_rejects_unknown_command():
    """build.py's command line fails clearly on a wrong command instead of doing anything."""
    proc = subprocess.run([sys.executable, str(REPO / "build.py"), "frobnicate"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr
