"""End-to-end tests of the builder page (web/index.html) served from dist/ with COOP/COEP headers.

The page is loaded once per module (Pyodide starts in a few seconds) and the tests run in the
order written, sharing it; every test checks that nothing tried to leave the machine. Downloaded
indexes are compared byte for byte with what the CLI (`python -m tokenguide build`) or the
library writes for the same regex, vocabulary and options.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")
from playwright.sync_api import expect  # noqa: E402

from _webapp import (  # noqa: E402,F401  (app, page: the shared page fixtures)
    BUILD_TIMEOUT_MS,
    GPT2_VOCAB,
    LLAMA2_TOKENIZER,
    REPO,
    START_TIMEOUT_MS,
    app,
    check_offline,
    guarded_context,
    mark_state,
    page,
    start_dist_server,
    wait_service_worker,
    wait_state,
)

from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

if not GPT2_VOCAB.is_file():
    pytest.skip("the GPT-2 vocabulary is missing (npm ci in web/)", allow_module_level=True)


def cli_build(tmp_path: Path, regex: str, vocab: Path, *extra: str) -> bytes:
    """The bytes `python -m tokenguide build` writes for these inputs."""
    out = tmp_path / "cli.outlines"
    subprocess.run(
        [sys.executable, "-m", "tokenguide", "build", "--regex", regex, "--vocab", str(vocab), "-o", str(out), *extra],
        check=True, cwd=REPO, capture_output=True, timeout=600,
    )
    return out.read_bytes()


def build(page, regex: str | None = None) -> str:
    if regex is not None:
        page.get_by_test_id("regex-input").fill(regex)
    mark_state(page)
    page.get_by_test_id("build-button").click()
    return wait_state(page, "done", "error")


def download(page, tmp_path: Path) -> tuple[str, bytes]:
    with page.expect_download() as info:
        page.get_by_test_id("download-button").click()
    dl = info.value
    target = tmp_path / dl.suggested_filename
    dl.save_as(target)
    return dl.suggested_filename, target.read_bytes()


def stat(page, name: str) -> str:
    return page.locator(f'[data-testid=stats] dd[data-stat="{name}"]').text_content()


def upload_vocab(page, path: Path) -> str:
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files(str(path))
    return wait_state(page, "ready", "error")


# ------------------------------------------------------------------------------------------------ tests


def test_ready_offline_with_default_vocabulary(page):
    assert page.get_attribute("body", "data-state") == "ready", page.get_by_test_id("error").text_content()
    assert page.evaluate("self.crossOriginIsolated") is True
    expected = Vocabulary.from_file(GPT2_VOCAB)
    info = page.get_by_test_id("vocab-info").text_content()
    assert f"{expected.vocab_size:,}" in info
    assert page.get_by_test_id("eos-input").input_value() == expected.eos_token
    assert f"id {expected.eos_token_id}" in page.get_by_test_id("eos-note").text_content()
    expect(page.get_by_test_id("build-button")).to_be_enabled()
    expect(page.get_by_test_id("cancel-button")).to_be_disabled()
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_build_default_vocab_download_matches_cli(page, tmp_path):
    page.get_by_test_id("examples").select_option("date")
    regex = page.get_by_test_id("regex-input").input_value()
    assert regex, "the example filled the regex field"
    assert build(page) == "done", page.get_by_test_id("error").text_content()
    expected = Index(regex, Vocabulary.from_file(GPT2_VOCAB))
    assert stat(page, "states") == f"{expected.num_states:,}"
    assert stat(page, "transitions") == f"{expected.num_transitions:,}"
    assert stat(page, "final-states") == f"{len(expected.final_states):,}"
    expect(page.get_by_test_id("progress")).to_have_attribute("value", "1")
    name, data = download(page, tmp_path)
    assert name == "date.outlines"
    assert data == cli_build(tmp_path, regex, GPT2_VOCAB)
    assert stat(page, "file") == f"date.outlines, {len(data):,} bytes"


def test_ascii_option_and_name(page, tmp_path):
    regex = r"\d{2}:\d{2}"
    page.get_by_test_id("name-input").fill("clock")
    page.get_by_test_id("ascii-option").check()
    try:
        assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
        name, data = download(page, tmp_path)
    finally:
        page.get_by_test_id("ascii-option").uncheck()
    assert name == "clock.outlines"
    assert data == cli_build(tmp_path, regex, GPT2_VOCAB, "--ascii")
    assert data != Index(regex, Vocabulary.from_file(GPT2_VOCAB)).to_bytes(), "ASCII and Unicode \\d differ"


def test_bad_regex_shows_position_and_keeps_inputs(page):
    page.get_by_test_id("name-input").fill("keep-me")
    page.get_by_test_id("ascii-option").check()
    page.get_by_test_id("max-states").fill("5000")
    bad = "[a-z]+(foo"
    try:
        assert build(page, bad) == "error"
        error = page.get_by_test_id("error")
        expect(error).to_be_visible()
        regex_error = page.get_by_test_id("regex-error")
        expect(regex_error).to_be_visible()
        text = regex_error.text_content()
        assert "position 6" in text and bad in text and "^" in text
        assert page.get_by_test_id("regex-input").input_value() == bad
        assert page.get_by_test_id("name-input").input_value() == "keep-me"
        assert page.get_by_test_id("ascii-option").is_checked()
        assert page.get_by_test_id("max-states").input_value() == "5000"
        expect(page.get_by_test_id("build-button")).to_be_enabled()
    finally:
        page.get_by_test_id("ascii-option").uncheck()
        page.get_by_test_id("max-states").fill("100000")


def test_state_limit_error(page):
    page.get_by_test_id("max-states").fill("10")
    try:
        regex = "[a-z]{1,50}@example"
        assert build(page, regex) == "error"
        text = page.get_by_test_id("error").text_content()
        assert "state" in text.lower()
        assert page.get_by_test_id("error").get_attribute("data-kind") == "StateLimitError"
        assert page.get_by_test_id("regex-input").input_value() == regex
    finally:
        page.get_by_test_id("max-states").fill("100000")


def test_cancel_stops_build_and_page_stays_usable(page, tmp_path):
    slow = r"(\w+ ){0,40}\w+"  # about 13,500 states on GPT-2: seconds of work
    page.get_by_test_id("regex-input").fill(slow)
    mark_state(page)
    page.get_by_test_id("build-button").click()
    wait_state(page, "building")
    page.wait_for_function(
        "document.querySelector('[data-testid=progress-label]').textContent.startsWith('states')", timeout=BUILD_TIMEOUT_MS
    )
    # the page keeps running while the worker builds: the progress bar and the elapsed time move
    before = page.evaluate("[Number(document.getElementById('progress').value), document.getElementById('elapsed').textContent]")
    page.wait_for_function(
        "([v, t]) => Number(document.getElementById('progress').value) > v && document.getElementById('elapsed').textContent !== t",
        arg=before, timeout=BUILD_TIMEOUT_MS,
    )
    assert page.get_attribute("body", "data-state") == "building"
    expect(page.get_by_test_id("cancel-button")).to_be_enabled()
    page.get_by_test_id("cancel-button").click()
    assert wait_state(page, "error", "done") == "error"
    assert page.get_by_test_id("error").get_attribute("data-kind") == "BuildCancelled"
    assert "cancelled" in page.get_by_test_id("error").text_content().lower()
    assert page.get_by_test_id("regex-input").input_value() == slow
    expect(page.get_by_test_id("cancel-button")).to_be_disabled()
    # the worker is usable again (the interrupt was cleared): a normal build succeeds
    regex = r"[0-9]{3}"
    assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
    _, data = download(page, tmp_path)
    assert data == Index(regex, Vocabulary.from_file(GPT2_VOCAB)).to_bytes()


def test_open_in_player_hands_the_index_over(page):
    regex = r"(yes|no)"
    assert build(page, regex) == "done"
    expected = Index(regex, Vocabulary.from_file(GPT2_VOCAB))
    with page.context.expect_page() as new_page:
        page.get_by_test_id("open-player").click()
    player = new_page.value
    try:
        player.wait_for_load_state()
        info = player.get_by_test_id("info")
        expect(info).to_contain_text(f"{expected.num_states}", timeout=BUILD_TIMEOUT_MS)
        expect(player.get_by_test_id("current-state")).to_contain_text(str(expected.initial_state))
        cards = player.get_by_test_id("transition")
        expect(cards.first).to_be_visible()
        shown = {int(c.get_attribute("data-token-id")) for c in cards.all()}
        assert shown <= set(expected.get_allowed_tokens(expected.initial_state))
        assert shown, "the player shows the allowed tokens of the initial state"
        assert "yes" in player.get_by_test_id("transitions").text_content()  # token text from the handed-over vocab
    finally:
        player.close()


def test_json_schema_to_regex(page):
    json_schema = pytest.importorskip("tokenguide.json_schema")
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 99}}, "required": ["n"]}
    page.get_by_test_id("source-schema").check()
    page.get_by_test_id("schema-input").fill(json.dumps(schema))
    page.get_by_test_id("schema-button").click()
    expected = json_schema.build_regex_from_schema(json.dumps(schema))
    expect(page.get_by_test_id("regex-input")).to_have_value(expected, timeout=BUILD_TIMEOUT_MS)
    assert build(page) == "done", page.get_by_test_id("error").text_content()
    page.get_by_test_id("schema-input").fill("{not json")
    page.get_by_test_id("schema-button").click()
    expect(page.get_by_test_id("error")).to_be_visible(timeout=BUILD_TIMEOUT_MS)
    expect(page.get_by_test_id("regex-input")).to_have_value(expected)
    page.locator("#source-regex").check()


def test_upload_vocab_json_and_edit_eos(page, tmp_path):
    tokens = [str(d) for d in range(10)] + ["12", "345", "-", "Ġ1", "<eos>", "</s>"]
    vocab_path = tmp_path / "vocab.json"
    vocab_path.write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
    assert upload_vocab(page, vocab_path) == "ready", page.get_by_test_id("error").text_content()
    expected_vocab = Vocabulary.from_file(vocab_path)
    assert page.get_by_test_id("eos-input").input_value() == expected_vocab.eos_token
    regex = r"[0-9]{2,4}-[0-9]"
    page.get_by_test_id("name-input").fill("small")
    assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
    _, data = download(page, tmp_path)
    assert data == cli_build(tmp_path, regex, vocab_path)
    # choose another EOS by text: the vocabulary is read again with it
    other = "<eos>" if expected_vocab.eos_token != "<eos>" else "</s>"
    mark_state(page)
    page.get_by_test_id("eos-input").fill(other)
    page.get_by_test_id("eos-input").press("Enter")
    page.get_by_test_id("eos-input").blur()
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()
    expect(page.get_by_test_id("eos-note")).to_contain_text(f"id {tokens.index(other)}")
    assert build(page) == "done"
    _, data = download(page, tmp_path)
    assert data == cli_build(tmp_path, regex, vocab_path, "--eos", other)


def test_drop_a_vocabulary_file_on_the_page(page, tmp_path):
    tokens = ["a", "b", "ab", "</s>"]
    text = json.dumps({t: i for i, t in enumerate(tokens)})
    mark_state(page)
    page.evaluate(
        """(text) => {
             const dt = new DataTransfer();
             dt.items.add(new File([text], 'dropped-vocab.json', {type: 'application/json'}));
             document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
           }""",
        text,
    )
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()
    expect(page.get_by_test_id("vocab-info")).to_contain_text("dropped-vocab.json")
    path = tmp_path / "dropped-vocab.json"
    path.write_text(text, encoding="utf-8")
    regex = "(ab)+"
    assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
    _, data = download(page, tmp_path)
    assert data == Index(regex, Vocabulary.from_file(path)).to_bytes()


def test_vocabulary_picked_during_a_build_is_read_afterwards(page, tmp_path):
    mark_state(page)
    page.get_by_test_id("vocab-default").click()
    assert wait_state(page, "ready", "error") == "ready"
    page.get_by_test_id("regex-input").fill(r"(\w+ ){0,40}\w+")
    mark_state(page)
    page.get_by_test_id("build-button").click()
    page.wait_for_function(
        "document.querySelector('[data-testid=progress-label]').textContent.startsWith('states')", timeout=BUILD_TIMEOUT_MS
    )
    path = tmp_path / "later-vocab.json"
    path.write_text(json.dumps({"x": 0, "y": 1, "</s>": 2}), encoding="utf-8")
    page.get_by_test_id("vocab-file").set_input_files(str(path))
    expect(page.get_by_test_id("vocab-info")).to_contain_text("when the current task ends")
    page.get_by_test_id("cancel-button").click()
    expect(page.get_by_test_id("vocab-info")).to_contain_text("later-vocab.json: 2 ordinary tokens", timeout=BUILD_TIMEOUT_MS)
    assert wait_state(page, "ready", "error") == "ready"
    regex = "x+y"
    assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
    _, data = download(page, tmp_path)
    assert data == Index(regex, Vocabulary.from_file(path)).to_bytes()


def test_config_files_picked_with_the_vocabulary_name_eos(page, tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    vocab_path = folder / "vocab.json"
    vocab_path.write_text(json.dumps({"a": 0, "b": 1, "<end>": 2, "</s>": 3}), encoding="utf-8")
    config = folder / "tokenizer_config.json"
    config.write_text(json.dumps({"eos_token": "<end>"}), encoding="utf-8")
    expected = Vocabulary.from_file(vocab_path)  # reads the sibling config, like the CLI
    assert expected.eos_token == "<end>"
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files([str(config), str(vocab_path)])
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()
    assert page.get_by_test_id("eos-input").input_value() == "<end>"
    expect(page.get_by_test_id("eos-note")).to_contain_text(f"id {expected.eos_token_id}")
    expect(page.get_by_test_id("vocab-info")).to_contain_text("tokenizer_config.json")
    regex = "(ab)+a?"
    assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
    _, data = download(page, tmp_path)
    assert data == cli_build(tmp_path, regex, vocab_path)
    # a config file alone is not a vocabulary
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files([str(config)])
    assert wait_state(page, "ready", "error") == "error"
    assert "vocab.json or tokenizer.json" in page.get_by_test_id("error").text_content()


def test_bad_vocabulary_keeps_inputs(page, tmp_path):
    page.get_by_test_id("regex-input").fill(r"[0-9]+")
    page.get_by_test_id("name-input").fill("kept")
    bad = tmp_path / "vocab.json"
    bad.write_text('["not", "a", "vocabulary"]', encoding="utf-8")
    assert upload_vocab(page, bad) == "error"
    text = page.get_by_test_id("error").text_content()
    assert "vocab.json" in text and "JSON object" in text
    assert build(page) == "error", "building with an unusable vocabulary fails with the same message"
    assert "vocab.json" in page.get_by_test_id("error").text_content()
    assert page.get_by_test_id("regex-input").input_value() == "[0-9]+"
    assert page.get_by_test_id("name-input").input_value() == "kept"
    broken = tmp_path / "tokenizer.json"
    broken.write_text('{"model": {"type": "BPE", "vocab": ', encoding="utf-8")
    assert upload_vocab(page, broken) == "error"
    assert "tokenizer.json" in page.get_by_test_id("error").text_content()


@pytest.mark.skipif(not LLAMA2_TOKENIZER.is_file(), reason="Llama 2 tokenizer.json missing (npm ci in web/)")
def test_upload_llama2_tokenizer_json(page, tmp_path):
    assert upload_vocab(page, LLAMA2_TOKENIZER) == "ready", page.get_by_test_id("error").text_content()
    expected_vocab = Vocabulary.from_file(LLAMA2_TOKENIZER)
    assert page.get_by_test_id("eos-input").input_value() == expected_vocab.eos_token == "</s>"
    assert f"id {expected_vocab.eos_token_id}" in page.get_by_test_id("eos-note").text_content()
    regex = r"(Hello|Bonjour), [A-Z][a-z]{1,8}!"
    assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
    _, data = download(page, tmp_path)
    assert data == Index(regex, expected_vocab).to_bytes()
    # back to the bundled vocabulary, then to the same tokenizer.json again: it is still prepared in the worker
    mark_state(page)
    page.get_by_test_id("vocab-default").click()
    assert wait_state(page, "ready", "error") == "ready"
    expect(page.get_by_test_id("vocab-info")).to_contain_text("GPT-2")
    assert upload_vocab(page, LLAMA2_TOKENIZER) == "ready"
    expect(page.get_by_test_id("vocab-info")).to_contain_text("already prepared")
    mark_state(page)
    page.get_by_test_id("vocab-default").click()
    assert wait_state(page, "ready", "error") == "ready"


def test_service_worker_makes_the_app_work_offline(browser, tmp_path):
    """After a first visit, the service worker serves the app and Python with the server gone."""
    server, url = start_dist_server()
    context, attempted = guarded_context(browser, service_workers="allow")
    try:
        page = context.new_page()
        page.goto(url + "index.html")
        assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "ready"
        wait_service_worker(
            page, "keys.some((u) => u.endsWith('pyodide.asm.wasm')) && keys.some((u) => /tokenguide-.*\\.whl$/.test(u))"
                  " && keys.some((u) => u.endsWith('gpt2-vocab.json')) && keys.some((u) => u.endsWith('startup-snapshot.bin'))")
    finally:
        server.shutdown()
        server.server_close()
    context.set_offline(True)
    page.reload()
    assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "ready", page.get_by_test_id("error").text_content()
    regex = r"[a-c]{2}"
    assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
    _, data = download(page, tmp_path)
    assert data == Index(regex, Vocabulary.from_file(GPT2_VOCAB)).to_bytes()
    context.close()
    check_offline(attempted)


def test_broken_bundle_gives_a_message(browser, tmp_path):
    """A site-packages image that does not hold what it says (a half-updated static host) is reported,
    not a blank page (the start-up snapshot, made with the right image, is not used either)."""
    from _webapp import dist_dir

    src = dist_dir()
    copy = tmp_path / "dist"
    for path in src.rglob("*"):
        if path.is_file():
            target = copy / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    image_path = copy / "pyodide" / "site-packages.bin"
    image = (src / "pyodide" / "site-packages.bin").read_bytes()
    image_path.unlink()
    image_path.write_bytes(image[: len(image) // 2])
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import build as build_module  # noqa: PLC0415 - repository root module

    server, url = build_module.start_server(copy)
    context, attempted = guarded_context(browser)
    try:
        page = context.new_page()
        page.goto(url + "index.html")
        assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "error"
        text = page.get_by_test_id("error").text_content()
        assert "could not start" in text and "tokenguide" in text
        expect(page.get_by_test_id("build-button")).to_be_disabled()
    finally:
        context.close()
        server.shutdown()
    check_offline(attempted)


def test_cancel_without_cross_origin_isolation(browser, tmp_path):
    """On a static host without COOP/COEP there is no SharedArrayBuffer: Cancel goes through a
    message that the build sees between its yields; the page works the same."""
    from _webapp import dist_dir, start_plain_server

    server, url = start_plain_server(dist_dir())
    context, attempted = guarded_context(browser)
    try:
        page = context.new_page()
        page.goto(url + "index.html")
        assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "ready", page.get_by_test_id("error").text_content()
        assert page.evaluate("self.crossOriginIsolated") is False
        page.get_by_test_id("regex-input").fill(r"(\w+ ){0,40}\w+")
        mark_state(page)
        page.get_by_test_id("build-button").click()
        page.wait_for_function(
            "document.querySelector('[data-testid=progress-label]').textContent.startsWith('states')", timeout=BUILD_TIMEOUT_MS
        )
        page.get_by_test_id("cancel-button").click()
        assert wait_state(page, "error", "done") == "error"
        assert page.get_by_test_id("error").get_attribute("data-kind") == "BuildCancelled"
        regex = "(a|b)c"
        assert build(page, regex) == "done", page.get_by_test_id("error").text_content()
        _, data = download(page, tmp_path)
        assert data == Index(regex, Vocabulary.from_file(GPT2_VOCAB)).to_bytes()
    finally:
        context.close()
        server.shutdown()
    check_offline(attempted)
