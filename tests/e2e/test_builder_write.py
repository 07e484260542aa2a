"""End-to-end tests of how the builder writes its file: the fast file (the payload written in the
page from the index's key ranges, fflate's deflate at level 1), the browser's gzip (CompressionStream,
the same page-written payload), the canonical bytes (zlib level 6 in the worker) and the default
that picks between them, the large-index notice and its "Use the live guide instead". Every file is loaded back in
Python and in the player, and the canonical one is compared byte for byte with the CLI's. One page
per module, offline guard on.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")
from playwright.sync_api import expect  # noqa: E402

from _webapp import (  # noqa: E402,F401  (app, page: the shared page fixtures)
    BUILD_TIMEOUT_MS,
    GPT2_VOCAB,
    REPO,
    app,
    mark_state,
    page,
    wait_state,
)

from tokenguide._web_bridge import payload_size  # noqa: E402
from tokenguide.index import Index  # noqa: E402
from tokenguide.index.layout import GZIP_HEADER  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

PLAYER = REPO / "tools" / "index_player.html"
COUNTED = '"[^"]{0,12}"'  # a counted string: about 340,000 transitions on GPT-2, a few MB of payload
LARGE = '[^"]{0,60}'  # 2.7 million transitions on GPT-2: announced as large

if not GPT2_VOCAB.is_file():
    pytest.skip("the GPT-2 vocabulary is missing (npm ci in web/)", allow_module_level=True)


@pytest.fixture(scope="module")
def gpt2():
    return Vocabulary.from_file(GPT2_VOCAB)


def build(page, regex: str, mode: str) -> str:
    page.get_by_test_id("regex-input").fill(regex)
    page.get_by_test_id("write-mode").select_option(mode)
    mark_state(page)
    page.get_by_test_id("build-button").click()
    return wait_state(page, "done", "error")


def download(page, tmp_path: Path, name: str) -> bytes:
    with page.expect_download() as info:
        page.get_by_test_id("download-button").click()
    target = tmp_path / name
    info.value.save_as(target)
    return target.read_bytes()


def stat(page, name: str) -> str:
    return page.locator(f'[data-testid=stats] dd[data-stat="{name}"]').text_content()


def cli_build(tmp_path: Path, regex: str) -> bytes:
    out = tmp_path / "cli.outlines"
    subprocess.run(
        [sys.executable, "-m", "tokenguide", "build", "--regex", regex, "--vocab", str(GPT2_VOCAB), "-o", str(out)],
        check=True, cwd=REPO, capture_output=True, timeout=600,
    )
    return out.read_bytes()


def player_view(context, path: Path) -> tuple[dict, dict[int, int]]:
    """What the player shows for the file at `path`: its header figures, and the initial state's
    transitions as listed (token id -> next state)."""
    page = context.new_page()
    page.goto(PLAYER.as_uri())
    expect(page.locator("html")).to_have_attribute("data-player-ready", "1")
    page.get_by_test_id("vocab-file").set_input_files(str(GPT2_VOCAB))
    page.get_by_test_id("index-file").set_input_files(str(path))
    expect(page.locator("body")).to_have_attribute("data-state", "ready", timeout=BUILD_TIMEOUT_MS)
    info = page.get_by_test_id("info")
    header = {k: info.get_attribute(f"data-{k}") for k in
              ("vocab-size", "eos", "initial-state", "num-states", "num-transitions", "num-final-states", "index-type")}
    cards = page.locator('[data-testid="transitions"] [data-testid="transition"]')
    cards.first.wait_for()
    shown = {int(c.get_attribute("data-token-id")): int(c.get_attribute("data-next-state")) for c in cards.all()}
    page.close()
    return header, shown


def test_fast_native_and_canonical_files_load_to_the_same_index(app, page, tmp_path, gpt2):
    """The default file (fast: fflate level 1), the browser's gzip and the canonical one hold the same
    index: the same header, states and transitions in Python and in the player; the canonical file is
    the CLI's, byte for byte. In Chromium the browser's deflate is zlib level 6, so the page-written
    payload gzip'ed by the browser equals the canonical file."""
    context = app.context
    expect(page.get_by_test_id("write-mode")).to_have_value("auto")  # the default: canonical bytes, fast when large
    files = {}
    for mode, label in (("fast", "fast (fflate deflate level 1, not the command line's bytes)"),
                        ("native", "browser gzip (CompressionStream)"),
                        ("canonical", "canonical (zlib level 6, as the command line)")):
        assert build(page, COUNTED, mode) == "done", page.get_by_test_id("error").text_content()
        assert stat(page, "file-bytes") == label
        files[mode] = download(page, tmp_path, f"{mode}.outlines")

    assert files["canonical"] == cli_build(tmp_path, COUNTED)
    expected = Index(COUNTED, gpt2)
    for mode, data in files.items():
        assert data[:10] == GZIP_HEADER, mode  # tokenguide's fixed header, whatever wrote the deflate stream
        index = Index.from_bytes(data)
        assert (index.vocab_size, index.eos_token_id, index.initial_state, index.final_states) == (
            expected.vocab_size, expected.eos_token_id, expected.initial_state, expected.final_states)
        assert index.states() == expected.states()
        assert index.num_transitions == expected.num_transitions
        assert index == expected  # every state's transitions
    assert gzip.decompress(files["fast"]) == gzip.decompress(files["canonical"])  # the same payload
    assert page.get_attribute("body", "data-payload-bytes") == str(payload_size(expected))

    views = [player_view(context, tmp_path / f"{mode}.outlines") for mode in files]
    assert views[0] == views[1] == views[2]
    header, shown = views[0]
    assert header["num-transitions"] == str(expected.num_transitions)
    assert header["num-states"] == str(expected.num_states)
    assert header["eos"] == str(expected.eos_token_id) and header["initial-state"] == "0"
    assert shown and all(expected.get_next_state(expected.initial_state, t) == n for t, n in shown.items())

    assert files["native"] == files["canonical"], "Chromium's CompressionStream deflate differs from zlib level 6 (the page says they agree)"
    assert files["fast"] != files["canonical"]  # the page says the fast file's bytes are not the CLI's


def test_write_mode_note_says_which_bytes(page):
    mode = page.get_by_test_id("write-mode")
    note = page.get_by_test_id("write-note")
    mode.select_option("native")
    expect(note).to_contain_text("CompressionStream")
    mode.select_option("canonical")
    expect(note).to_contain_text("python -m tokenguide build")
    mode.select_option("fast")
    expect(note).to_contain_text("level 1")
    expect(note).to_contain_text("not the command line")


def test_small_index_is_not_announced_as_large(page):
    assert build(page, "[0-9]{3}", "native") == "done", page.get_by_test_id("error").text_content()
    expect(page.get_by_test_id("large-note")).to_be_hidden()


def test_large_index_offers_the_live_guide_instead(page):
    """Once built, before its file is written, a large index is announced with its size; "Use the
    live guide instead" stops the writing and steps through the index in the live guide. The browser
    gzip's writes are held (never taken in), so the page's writing is surely still going on."""
    page.evaluate("""() => {
        window.heldWrites = [];
        const write = WritableStreamDefaultWriter.prototype.write;
        window.restoreAcks = () => { WritableStreamDefaultWriter.prototype.write = write; };
        WritableStreamDefaultWriter.prototype.write = function (chunk) {
            window.heldWrites.push(chunk);
            return new Promise(() => {});
        };
    }""")
    try:
        page.get_by_test_id("regex-input").fill(LARGE)
        page.get_by_test_id("write-mode").select_option("native")
        mark_state(page)
        page.get_by_test_id("build-button").click()
        note = page.get_by_test_id("large-note")
        expect(note).to_be_visible(timeout=BUILD_TIMEOUT_MS)
        expected = Index(LARGE, Vocabulary.from_file(GPT2_VOCAB))
        expect(page.get_by_test_id("large-text")).to_contain_text(f"{expected.num_transitions:,} transitions")
        page.wait_for_function("window.heldWrites.length > 0", timeout=BUILD_TIMEOUT_MS)
        expect(page.get_by_test_id("cancel-button")).to_be_enabled()  # still writing: the page waits for the gzip
        page.get_by_test_id("large-guide").click()
        expect(page.get_by_test_id("guide-view")).to_be_visible(timeout=BUILD_TIMEOUT_MS)
    finally:
        page.evaluate("window.restoreAcks()")
    expect(page.get_by_test_id("guide-kind-regex")).to_be_checked()
    expect(page.get_by_test_id("progress-label")).to_have_text("file not written: live guide instead")
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(note).to_be_hidden()
    # the guide stepped into the index just built, and the builder goes on
    expect(page.get_by_test_id("guide-state")).to_have_text("0")
    assert build(page, "[0-9]{2}", "native") == "done", page.get_by_test_id("error").text_content()


def test_auto_writes_canonical_bytes_and_the_fast_file_when_large(page, tmp_path, gpt2):
    """The default ('auto'): a small index gets the canonical bytes (the browser's gzip, the CLI's
    file in Chromium), a large one (2 million transitions or more) the fast file; the result says
    which, and the large file loads to the index built in Python."""
    page.get_by_test_id("write-mode").select_option("auto")
    assert build(page, COUNTED, "auto") == "done", page.get_by_test_id("error").text_content()
    assert stat(page, "file-bytes") == "browser gzip (CompressionStream)"
    assert download(page, tmp_path, "small.outlines") == cli_build(tmp_path, COUNTED)
    assert build(page, LARGE, "auto") == "done", page.get_by_test_id("error").text_content()
    assert stat(page, "file-bytes") == "fast (fflate deflate level 1, not the command line's bytes)"
    assert Index.from_bytes(download(page, tmp_path, "large.outlines")) == Index(LARGE, gpt2)
