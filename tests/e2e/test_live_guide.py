"""End-to-end tests of the builder page's live guide: a CFGGuide (Lark grammar) and a RegexGuide
stepped in the worker. Allowed tokens are compared with guides run here in CPython: the
reference CFG algorithm (ReferenceCFGGuide, slow but exact and independent of the fast guide the
page uses) and the library's Index.

Most CFG steps use a small vocabulary so the CPython oracle stays quick; one test runs the JSON
grammar on the full GPT-2 vocabulary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")
from playwright.sync_api import expect  # noqa: E402

from _webapp import (  # noqa: E402,F401  (app, page: the shared page fixtures)
    BUILD_TIMEOUT_MS,
    GPT2_VOCAB,
    app,
    guide_idle,
    mark_state,
    page,
    shown_tokens,
    small_vocab_file,
    wait_state,
)

from tokenguide import grammars  # noqa: E402
from tokenguide.guides import ReferenceCFGGuide  # noqa: E402  (the slow exact algorithm: an independent oracle)
from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Tokenizer  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

PIECES = [str(d) for d in range(10)] + ["+", "-", "*", "/", "(", ")", "Ġ", "12", "x", "y", "</s>"]  # Ġ: a space (GPT-2 byte-level)


@pytest.fixture(scope="module")
def small_vocab(tmp_path_factory) -> Path:
    return small_vocab_file(tmp_path_factory.mktemp("vocab"), PIECES)


def rendered_tokens(page) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all("[data-testid=guide-token]", "els => els.map(e => e.dataset.tokenId)")]


def step(page, token_id: int) -> None:
    page.locator(f'[data-testid=guide-token][data-token-id="{token_id}"]').click()
    guide_idle(page)


def test_cfg_guide_steps_match_cpython(page, small_vocab):
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files(str(small_vocab))
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()
    page.get_by_test_id("guide-kind-cfg").check()
    page.get_by_test_id("guide-grammar-select").select_option("arithmetic")
    expect(page.get_by_test_id("guide-grammar")).to_have_value(grammars.load("arithmetic"), timeout=BUILD_TIMEOUT_MS)
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    expect(page.get_by_test_id("guide-view")).to_be_visible()
    expect(page.get_by_test_id("error")).to_be_hidden()

    vocab = Vocabulary.from_file(small_vocab)
    guide = ReferenceCFGGuide(grammars.load("arithmetic"), Tokenizer(vocab))
    state = guide.initial_state
    for piece in ["1", "+", "12", "*", "("]:
        expected = sorted(guide.get_next_instruction(state).tokens)
        assert sorted(shown_tokens(page)) == expected
        assert sorted(rendered_tokens(page)) == expected  # a short list is drawn whole
        assert page.get_by_test_id("guide-count").get_attribute("data-allowed") == str(len(expected))
        token_id = PIECES.index(piece)
        step(page, token_id)
        state = guide.get_next_state(state, token_id)
        assert page.get_by_test_id("guide-text").text_content() == state.text
        expect(page.get_by_test_id("guide-final")).to_be_visible() if guide.is_final_state(state) else expect(
            page.get_by_test_id("guide-final")
        ).to_be_hidden()
    assert page.get_by_test_id("guide-text").text_content() == "1+12*("
    assert vocab.eos_token_id not in shown_tokens(page), "EOS is not allowed inside an open parenthesis"
    # typing a token id in the filter and pressing Enter takes that token
    page.get_by_test_id("guide-filter").fill(str(PIECES.index("x")))
    expect(page.get_by_test_id("guide-count")).to_contain_text("match the filter", timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    page.get_by_test_id("guide-filter").press("Enter")
    expect(page.get_by_test_id("guide-text")).to_have_text("1+12*(x", timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    assert page.get_by_test_id("guide-filter").input_value() == ""
    step(page, PIECES.index(")"))
    expect(page.get_by_test_id("guide-final")).to_be_visible()
    assert vocab.eos_token_id in shown_tokens(page)
    assert page.get_by_test_id("guide-path").locator("li").count() == 7

    page.get_by_test_id("guide-back").click()
    guide_idle(page)
    assert page.get_by_test_id("guide-text").text_content() == "1+12*(x"
    expect(page.get_by_test_id("guide-final")).to_be_hidden()

    step(page, PIECES.index(")"))
    step(page, vocab.eos_token_id)
    assert page.get_by_test_id("guide-view").get_attribute("data-done") == "true"
    assert shown_tokens(page) == []

    page.get_by_test_id("guide-reset").click()
    guide_idle(page)
    assert page.get_by_test_id("guide-text").text_content() == ""
    assert sorted(shown_tokens(page)) == sorted(guide.get_next_instruction(guide.initial_state).tokens)


def test_grammar_error_is_reported(page):
    page.get_by_test_id("guide-grammar").fill("start: ( \n")
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    expect(page.get_by_test_id("error")).to_be_visible()
    assert "grammar" in page.get_by_test_id("error").text_content().lower()
    assert page.get_by_test_id("guide-grammar").input_value() == "start: ( \n"


def test_token_text_is_never_markup(page, tmp_path):
    evil = "<imgĠsrc=xĠonerror=window.__xss=1>"  # GPT-2 byte-level spelling of '<img src=x onerror=window.__xss=1>'
    tokens = ["<", "i", "m", "g", evil, "</s>"]
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps({t: i for i, t in enumerate(tokens)}), encoding="utf-8")
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files(str(path))
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()
    page.get_by_test_id("regex-input").fill(r"<img[^>]*>")
    page.get_by_test_id("guide-kind-regex").check()
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    card = page.locator('[data-testid=guide-token][data-token-id="4"]')
    expect(card).to_contain_text("<img src=x onerror=window.__xss=1>")
    step(page, 4)
    assert page.get_by_test_id("guide-text").text_content() == "<img src=x onerror=window.__xss=1>"
    assert page.locator("#guide-section img").count() == 0
    assert page.evaluate("window.__xss") is None


def test_regex_guide_on_built_index_with_filter(page):
    mark_state(page)
    page.get_by_test_id("vocab-default").click()
    assert wait_state(page, "ready", "error") == "ready"
    regex = r"(yes|no|maybe)!"
    page.get_by_test_id("regex-input").fill(regex)
    mark_state(page)
    page.get_by_test_id("build-button").click()
    assert wait_state(page, "done", "error") == "done"
    page.get_by_test_id("guide-from-index").click()
    guide_idle(page)
    vocab = Vocabulary.from_file(GPT2_VOCAB)
    index = Index(regex, vocab)
    allowed = index.get_allowed_tokens(index.initial_state)
    assert sorted(shown_tokens(page)) == sorted(allowed)

    page.get_by_test_id("guide-filter").fill("ye")
    expect(page.get_by_test_id("guide-count")).to_contain_text("match the filter", timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    shown = shown_tokens(page)
    assert shown and all(b"ye" in vocab.id_to_bytes(t) for t in shown)
    yes = vocab.get("yes")[0]
    assert yes in shown
    step(page, yes)
    page.get_by_test_id("guide-filter").fill("")
    expect(page.get_by_test_id("guide-count")).not_to_contain_text("match the filter", timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    state = index.get_next_state(index.initial_state, yes)
    expect(page.get_by_test_id("guide-state")).to_have_text(str(state))
    assert sorted(shown_tokens(page)) == sorted(index.get_allowed_tokens(state))
    step(page, vocab.get("!")[0])
    expect(page.get_by_test_id("guide-final")).to_be_visible()
    assert page.get_by_test_id("guide-text").text_content() == "yes!"


def test_cfg_guide_json_on_gpt2(page):
    """The JSON grammar on the full GPT-2 vocabulary (the page uses the vocabulary left by the previous test)."""
    expect(page.get_by_test_id("vocab-info")).to_contain_text("GPT-2")
    page.get_by_test_id("guide-kind-cfg").check()
    page.get_by_test_id("guide-grammar-select").select_option("json")
    expect(page.get_by_test_id("guide-grammar")).to_have_value(grammars.load("json"), timeout=BUILD_TIMEOUT_MS)
    page.get_by_test_id("guide-filter").fill("")
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    expect(page.get_by_test_id("error")).to_be_hidden()
    vocab = Vocabulary.from_file(GPT2_VOCAB)
    guide = ReferenceCFGGuide(grammars.load("json"), Tokenizer(vocab))  # the reference algorithm, in CPython
    state = guide.initial_state
    expected = sorted(guide.get_next_instruction(state).tokens)
    assert page.get_by_test_id("guide-count").get_attribute("data-allowed") == str(len(expected))
    brace = vocab.get('{"')[0]
    page.get_by_test_id("guide-filter").fill(str(brace))
    expect(page.locator(f'[data-testid=guide-token][data-token-id="{brace}"]')).to_be_visible(timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    step(page, brace)
    state = guide.get_next_state(state, brace)
    assert page.get_by_test_id("guide-text").text_content() == '{"'
    expected = sorted(guide.get_next_instruction(state).tokens)
    assert page.get_by_test_id("guide-count").get_attribute("data-allowed") == str(len(expected))
    page.get_by_test_id("guide-filter").fill("")
    expect(page.get_by_test_id("guide-count")).not_to_contain_text("match the filter", timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    assert sorted(shown_tokens(page)) == expected
    # virtualized: only the cards in view exist; scrolling to the end shows the last ones
    rendered = rendered_tokens(page)
    assert 0 < len(rendered) < len(expected) and set(rendered) <= set(expected)
    page.eval_on_selector("[data-testid=guide-tokens]", "el => { el.scrollTop = el.scrollHeight; }")
    last = shown_tokens(page)[-1]
    expect(page.locator(f'[data-testid=guide-token][data-token-id="{last}"]')).to_be_visible()
    step(page, last)
    state = guide.get_next_state(state, last)
    assert page.get_by_test_id("guide-text").text_content() == state.text
