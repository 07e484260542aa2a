"""The web app's start-up files made by build.py: the site-packages image (read back by the worker's
own reader, web/js/site_image.js, under Node) and the Pyodide memory snapshot (made again from the
same inputs, it is the same bytes: deterministic; offline, since the tests run offline)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="runs Node and build.py")

REPO = Path(__file__).resolve().parents[1]
DIST = Path(os.environ.get("TOKENGUIDE_DIST") or REPO / "dist")

READ_IMAGE = """
import fs from 'node:fs';
import { parseSiteImage } from %s;
const files = parseSiteImage(new Uint8Array(fs.readFileSync(process.argv[1])));
console.log(JSON.stringify(files.map(({ path, data }) => [path, data.length, Buffer.from(data).toString('base64')])));
"""


def _load_build():
    """build.py as a module (loaded by path: a PyPI package named `build` may be installed)."""
    spec = importlib.util.spec_from_file_location("tokenguide_build_for_snapshot_tests", REPO / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _image_wheels(build) -> list[Path]:
    wheels = [build.find_wheel(name, build.PYODIDE_WHEELS.get(name)) for name in build.SITE_IMAGE_WHEELS]
    if None in wheels:
        pytest.skip("the wheels are not built: run `python3 build.py bundle`")
    return wheels


def _read_with_js(path: Path) -> list[list]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (Node.js) is not installed")
    script = READ_IMAGE % json.dumps((REPO / "web" / "js" / "site_image.js").as_uri())
    proc = subprocess.run([node, "--input-type=module", "-e", script, str(path)], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(proc.stderr[-3000:])
    return json.loads(proc.stdout)


def test_site_image_holds_every_wheel_file(tmp_path):
    """The image holds each file of lark and tokenguide (dist-info included) byte for
    byte, in a fixed order; the worker's reader gives them back."""
    build = _load_build()
    wheels = _image_wheels(build)
    image = build.site_image(wheels)
    assert build.site_image(wheels) == image
    path = tmp_path / "site-packages.bin"
    path.write_bytes(image)
    files = {name: (size, data) for name, size, data in _read_with_js(path)}
    expected = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                if not info.filename.endswith("/"):
                    expected[info.filename] = zf.read(info)
    assert set(files) == set(expected)

    for name, data in expected.items():
        assert files[name][0] == len(data) and base64.b64decode(files[name][1]) == data, name
    assert "tokenguide/grammars/json.lark" in files and "lark/grammars/common.lark" in files
    assert any(name.startswith("tokenguide-") and name.endswith(".dist-info/METADATA") for name in files)


@pytest.mark.parametrize("cut", ["truncated", "magic", "trailing"])
def test_site_image_reader_refuses_a_damaged_image(tmp_path, cut):
    """A damaged image is refused with a sentence naming what is wrong (the worker reports it)."""
    build = _load_build()
    image = build.site_image(_image_wheels(build))
    damaged = {"truncated": image[: len(image) // 2], "magic": b"XXXXXXXX" + image[8:], "trailing": image + b"\0"}[cut]
    path = tmp_path / "damaged.bin"
    path.write_bytes(damaged)
    with pytest.raises(AssertionError, match={"truncated": "truncated", "magic": "magic number", "trailing": "after its last file"}[cut]):
        _read_with_js(path)


FILL = """
import { SnapshotFiller, snapshotSegments } from %s;
const [packed, size, runs, cut] = JSON.parse(process.argv[1]);
const bytes = Buffer.from(packed, 'base64');
try {
  const into = new Uint8Array(size);
  const filler = new SnapshotFiller(into, runs);
  for (let at = 0; at < bytes.length; at += cut) filler.push(new Uint8Array(bytes.subarray(at, at + cut)));
  filler.finish();
  console.log(JSON.stringify({ ok: Buffer.from(into).toString('base64'), segments: snapshotSegments(size, runs) }));
} catch (err) {
  console.log(JSON.stringify({ error: err.message }));
}
"""


def _fill_with_js(packed: bytes, size: int, runs, cut: int) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (Node.js) is not installed")
    script = FILL % json.dumps((REPO / "web" / "js" / "snapshot_file.js").as_uri())
    arg = json.dumps([base64.b64encode(packed).decode(), size, runs, cut])
    proc = subprocess.run([node, "--input-type=module", "-e", script, arg], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _sample_memory() -> bytes:
    """Bytes shaped like a snapshot: data, long zero runs (one at the end), short zero runs kept."""
    page = 4096
    head = b"\0snp" + bytes(range(256)) * 40 + bytes(20 * page) + b"data" * 3000 + bytes(3 * page) + b"more" * 1500 + b"!"
    return head + bytes(-len(head) % page + 17 * page)  # page-aligned, as a wasm memory is


@pytest.mark.parametrize("cut", [1000, 4096, 65536, 10**7])
def test_packed_snapshot_is_filled_back_in_place(cut):
    """build.py leaves the zero runs of 64 KB or more out of the snapshot's file and lists them; the
    worker's filler puts every byte back at its place, whatever the chunks the download gives."""
    build = _load_build()
    raw = _sample_memory()
    packed, runs = build.pack_snapshot(raw)
    assert len(runs) == 2 and runs[-1][0] + runs[-1][1] == len(raw)  # the 3-page run stays in the file
    assert len(packed) == len(raw) - sum(length for _, length in runs)
    assert build.pack_snapshot(raw) == (packed, runs)
    result = _fill_with_js(packed, len(raw), runs, cut)
    assert base64.b64decode(result["ok"]) == raw


@pytest.mark.parametrize("case, expected", [
    ("longer", "more bytes than its manifest says"),
    ("shorter", "bytes, its manifest says"),
    ("runs out of order", "bad zero run"),
    ("run past the end", "bad zero run"),
])
def test_snapshot_filler_refuses_a_file_that_does_not_fit(case, expected):
    """A file with more or fewer bytes than its manifest says, or a manifest whose zero runs cannot
    be: refused with a sentence (the worker then starts without the snapshot and shows it)."""
    build = _load_build()
    raw = _sample_memory()
    packed, runs = build.pack_snapshot(raw)
    if case == "longer":
        packed += b"x"
    elif case == "shorter":
        packed = packed[:-1]
    elif case == "runs out of order":
        runs = runs[::-1]
    else:
        runs = [[runs[0][0], len(raw)]]
    result = _fill_with_js(packed, len(raw), runs, 65536)
    assert expected in result.get("error", ""), result


def test_snapshot_is_deterministic(tmp_path, monkeypatch):
    """Making the snapshot again from the same inputs gives the bytes the bundle serves (served
    as they are, not gzip'ed), and its manifest names the site-packages image the bundle serves."""
    manifest_path = DIST / "pyodide" / "startup-snapshot.json"
    if not manifest_path.is_file():
        pytest.skip("the bundle has no start-up snapshot: run `python3 build.py bundle` (needs Node with JSPI)")
    build = _load_build()
    served_image = (DIST / "pyodide" / "site-packages.bin").read_bytes()
    manifest = json.loads(manifest_path.read_text())
    assert manifest["site_image"]["sha256"] == hashlib.sha256(served_image).hexdigest()
    if build.site_image(_image_wheels(build)) != served_image:
        pytest.skip("dist/ is older than the wheels: run `python3 build.py bundle`")
    monkeypatch.setattr(build, "SNAPSHOT_CACHE", tmp_path / "snapshot")
    made = build.startup_snapshot(served_image)
    assert made is not None
    path, text = made
    assert json.loads(text) == manifest
    packed = path.read_bytes()
    assert len(packed) == manifest["snapshot"]["file_size"] < manifest["snapshot"]["size"]
    assert packed == (DIST / "pyodide" / manifest["snapshot"]["file"]).read_bytes()
    assert packed[:4] == b"\0snp"  # Pyodide's snapshot header comes first, where the worker reads it
    # the description the page shows comes from the manifest: the one Python gives for it
    info = manifest["vocabulary"]["info"]
    assert info["snapshot"] is True and info["reused"] is True and info["seconds"] == 0.0
    assert (info["vocab_size"], info["eos_token_id"]) == (50257, 50256)


def test_linked_node_modules_are_never_reinstalled(tmp_path, monkeypatch):
    """A web/node_modules that is a link (a worktree sharing another checkout's) is left alone:
    npm ci there would empty the folder it points to, for every checkout sharing it."""
    build = _load_build()
    shared = tmp_path / "shared_node_modules"
    (shared / "pyodide").mkdir(parents=True)
    (shared / "pyodide" / "marker").write_text("kept")
    web = tmp_path / "web"
    web.mkdir()
    (web / "package-lock.json").write_text("{}")
    (web / "node_modules").symlink_to(shared)
    monkeypatch.setattr(build, "WEB", web)
    monkeypatch.setattr(build, "NODE_MODULES", web / "node_modules")
    monkeypatch.setattr(build, "CACHE", tmp_path / "cache")  # no stamp: a plain folder would be reinstalled
    ran = []
    monkeypatch.setattr(build, "run", lambda cmd, **kwargs: ran.append(cmd))
    build.ensure_node_modules()
    assert ran == [] and (shared / "pyodide" / "marker").read_text() == "kept"
    (web / "node_modules").unlink()
    (web / "node_modules").mkdir()
    monkeypatch.setattr(build.shutil, "which", lambda name: "/usr/bin/" + name)
    build.ensure_node_modules()
    assert ran and ran[0][:2] == ["npm", "ci"]
