"""End-to-end tests of the builder's start-up: from the memory snapshot build.py makes (Pyodide with
tokenguide imported and GPT-2 prepared), and the normal start when the snapshot is not wanted,
missing or incompatible (a note in the page, never a hang). Each start is checked by what the page
can then do: build an index on GPT-2 byte for byte as the library writes it in CPython, and read a
bundled grammar file (a module and a data file that the snapshot did not load: the site-packages
files must be there too)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")

from playwright.sync_api import expect  # noqa: E402

from _webapp import (  # noqa: E402
    GPT2_VOCAB,
    REPO,
    START_TIMEOUT_MS,
    check_offline,
    dist_dir,
    guarded_context,
    mark_state,
    wait_state,
)

from tokenguide import grammars  # noqa: E402
from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

REGEX = r"(ab|cd)[0-9]{2}"


def _build_module():
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import build  # noqa: PLC0415 - repository root module

    return build


def _need_snapshot(dist: Path) -> dict:
    manifest = dist / "pyodide" / "startup-snapshot.json"
    if not manifest.is_file():
        pytest.skip("the bundle has no start-up snapshot (build.py found no Node with WebAssembly stack switching)")
    return json.loads(manifest.read_text())


def _copy_of_dist(tmp_path: Path, leave_out: set[str] = frozenset()) -> Path:
    """dist/ as symlinks in tmp_path (files named in leave_out, relative paths, left out)."""
    src = dist_dir()
    copy = tmp_path / "dist"
    for path in src.rglob("*"):
        rel = path.relative_to(src).as_posix()
        if path.is_file() and rel not in leave_out:
            target = copy / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    return copy


def _start(browser, root: Path, query: str = ""):
    """Open the builder served from root; return (page, context, server, attempted, errors) once it settled."""
    server, url = _build_module().start_server(root)
    context, attempted = guarded_context(browser)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "index.html" + query)
    wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS)
    return page, context, server, attempted, errors


def _check_usable(page, tmp_path: Path) -> None:
    """The page builds on GPT-2 exactly as CPython does, and the live guide read a bundled grammar file."""
    assert page.get_attribute("body", "data-state") == "ready", page.get_by_test_id("error").text_content()
    expect(page.get_by_test_id("guide-grammar")).to_have_value(grammars.load("arithmetic"), timeout=START_TIMEOUT_MS)
    page.get_by_test_id("regex-input").fill(REGEX)
    mark_state(page)
    page.get_by_test_id("build-button").click()
    assert wait_state(page, "done", "error") == "done", page.get_by_test_id("error").text_content()
    with page.expect_download() as info:
        page.get_by_test_id("download-button").click()
    target = tmp_path / "startup.outlines"
    info.value.save_as(target)
    assert target.read_bytes() == Index(REGEX, Vocabulary.from_file(GPT2_VOCAB)).to_bytes()


def _phases(page) -> tuple[list[str], dict]:
    ids = page.eval_on_selector_all("#startup-phases li", "els => els.map((li) => li.dataset.phaseId)")
    marks = json.loads(page.get_attribute("body", "data-startup-marks") or "{}")
    return ids, marks


def _close(context, server, attempted, errors) -> None:
    context.close()
    server.shutdown()
    server.server_close()
    check_offline(attempted)
    assert not errors, f"uncaught script errors: {errors}"


def test_start_from_the_snapshot(browser, tmp_path):
    """The bundle's snapshot is used: phases runtime, snapshot, vocabulary (each ended after the one
    before, the bar gone), GPT-2 prepared when the app was built, no note; builds are exact."""
    dist = dist_dir()
    manifest = _need_snapshot(dist)
    assert manifest["vocabulary"]["key"] == "bundled:gpt2"
    page, *rest = _start(browser, dist)
    try:
        assert page.get_attribute("body", "data-snapshot") == "used", page.get_by_test_id("error").text_content()
        ids, marks = _phases(page)
        assert ids == ["runtime", "snapshot", "vocabulary"]
        assert [marks[i] for i in ids] == sorted(marks[i] for i in ids) and marks["runtime"] > 0
        assert page.locator("#startup").is_hidden()
        expect(page.get_by_test_id("startup-note")).to_be_hidden()
        expect(page.get_by_test_id("vocab-info")).to_contain_text("prepared when the app was built")
        worker = json.loads(page.get_attribute("body", "data-worker-marks"))
        assert 0 < worker["runtime"] <= worker["snapshot"] <= worker["imported"]
        _check_usable(page, tmp_path)
    finally:
        _close(*rest)


def test_start_without_the_snapshot_when_asked(browser, tmp_path):
    """?nosnapshot starts Python normally (phases runtime, python, import, vocabulary), with no note."""
    page, *rest = _start(browser, dist_dir(), "?nosnapshot")
    try:
        assert page.get_attribute("body", "data-snapshot") == "not used"
        ids, marks = _phases(page)
        assert ids == ["runtime", "python", "import", "vocabulary"]
        assert [marks[i] for i in ids] == sorted(marks[i] for i in ids) and marks["runtime"] > 0
        assert page.locator("#startup").is_hidden()
        expect(page.get_by_test_id("startup-note")).to_be_hidden()
        expect(page.get_by_test_id("vocab-info")).to_contain_text("read and prepared in")
        _check_usable(page, tmp_path)
    finally:
        _close(*rest)


def _corrupt_build_id(dist: Path, tmp_path: Path) -> Path:
    """A copy of dist/ whose snapshot claims another Pyodide build (its build id bytes changed)."""
    copy = _copy_of_dist(tmp_path, {"pyodide/startup-snapshot.bin"})
    raw = bytearray((dist / "pyodide" / "startup-snapshot.bin").read_bytes())
    raw[16:48] = bytes(32)  # the header's 256-bit build id (after magic, offset, json length, padding)
    (copy / "pyodide" / "startup-snapshot.bin").write_bytes(bytes(raw))
    return copy


def _other_manifest(dist: Path, tmp_path: Path, change) -> Path:
    """A copy of dist/ whose manifest is changed by `change(manifest)`."""
    copy = _copy_of_dist(tmp_path, {"pyodide/startup-snapshot.json"})
    manifest = json.loads((dist / "pyodide" / "startup-snapshot.json").read_text())
    change(manifest)
    (copy / "pyodide" / "startup-snapshot.json").write_text(json.dumps(manifest))
    return copy


def _other_site_image(manifest: dict) -> None:
    manifest["site_image"]["sha256"] = "0" * 64  # made with other site-packages files


def _longer_file(dist: Path, tmp_path: Path) -> Path:
    """A copy of dist/ whose snapshot file has one byte more than its manifest says."""
    copy = _copy_of_dist(tmp_path, {"pyodide/startup-snapshot.bin"})
    (copy / "pyodide" / "startup-snapshot.bin").write_bytes((dist / "pyodide" / "startup-snapshot.bin").read_bytes() + b"\0")
    return copy


@pytest.mark.parametrize("case, expected", [
    ("missing", "the bundle has none"),
    ("build id", "build id mismatch"),
    ("site image", "other tokenguide files"),
    ("longer", "more bytes than its manifest says"),
])
def test_unusable_snapshot_falls_back_to_a_normal_start(browser, tmp_path, case, expected):
    """A missing snapshot, one made by another Pyodide build, one made with other tokenguide files, or
    one whose file does not fit its manifest: the page says so in a note and starts normally;
    everything works (the build is checked once per kind of failure: a file that does not fit
    reaches the same fallback by another check; each of the filler's messages is tested under
    Node in test_startup_snapshot.py)."""
    dist = dist_dir()
    _need_snapshot(dist)
    if case == "missing":
        root = _copy_of_dist(tmp_path, {"pyodide/startup-snapshot.json", "pyodide/startup-snapshot.bin"})
    elif case == "build id":
        root = _corrupt_build_id(dist, tmp_path)
    elif case == "longer":
        root = _longer_file(dist, tmp_path)
    else:
        root = _other_manifest(dist, tmp_path, _other_site_image)
    page, *rest = _start(browser, root)
    try:
        assert page.get_attribute("body", "data-snapshot") == "not used", page.get_by_test_id("error").text_content()
        note = page.get_by_test_id("startup-note")
        expect(note).to_be_visible()
        expect(note).to_contain_text("Started without the start-up snapshot")
        assert expected in note.text_content().lower()
        ids, marks = _phases(page)
        assert ids == ["runtime", "python", "import", "vocabulary"]
        assert [marks[i] for i in ids] == sorted(marks[i] for i in ids)
        if case != "longer":
            _check_usable(page, tmp_path)
        else:
            assert page.get_by_test_id("build-button").is_enabled()
    finally:
        _close(*rest)
