"""The web app's start-up files made by build.py: the site-packages image (read back by the worker's
own reader, web/js/site_image.js, under Node) and the Pyodide memory snapshot (made again from the
same inputs, it is the same bytes: deterministic; offline, since the tests run offline)."""

from __future__ import annotations

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
    """The image holds each file of interegular, lark and tokenguide (dist-info included) byte for
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
    import base64

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
    raw = path.read_bytes()
    assert len(raw) == manifest["snapshot"]["size"]
    assert raw == (DIST / "pyodide" / manifest["snapshot"]["file"]).read_bytes()
    # the description the page shows comes from the manifest: the one Python gives for it
    info = manifest["vocabulary"]["info"]
    assert info["snapshot"] is True and info["reused"] is True and info["seconds"] == 0.0
    assert (info["vocab_size"], info["eos_token_id"]) == (50257, 50256)
