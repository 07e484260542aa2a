"""End-to-end tests of the live guide's samples: random completions drawn in the worker, shown as
tokens (text, never markup), each checked in the page by an independent parser, with progress and Stop.

Every sample is checked again here, in CPython, by oracles independent of the page's guide: the
eager Index's transitions and re.fullmatch for a regex, the reference CFG algorithm and Lark for a
grammar, json.loads and jsonschema for a schema.
"""

from __future__ import annotations

import json
import re
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
    small_vocab_file,
    wait_state,
)

from tokenguide import grammars  # noqa: E402
from tokenguide.guides import ReferenceCFGGuide  # noqa: E402
from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Tokenizer, Vocabulary  # noqa: E402

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema", reason="the samples are checked with jsonschema (the test extra)")

PIECES = [str(d) for d in range(10)] + ["+", "-", "*", "/", "(", ")", "Ġ", "12", "x", "y", "<b>", "</s>"]
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer", "minimum": 0, "maximum": 999},
                                           "tag": {"enum": ["red", "green"]}},
          "required": ["ok", "n", "tag"], "additionalProperties": False}


@pytest.fixture(scope="module")
def small_vocab(tmp_path_factory) -> Path:
    return small_vocab_file(tmp_path_factory.mktemp("vocab"), PIECES)


def draw(page, count: int, mode: str, budget: int) -> list[dict]:
    """Draw samples with the page's controls (the keyboard for the button); each as the page shows it."""
    page.get_by_test_id("samples-count").fill(str(count))
    page.get_by_test_id("samples-mode").select_option(mode)
    page.get_by_test_id("samples-budget").fill(str(budget))
    page.get_by_test_id("samples-button").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("samples-list")).to_have_attribute("data-state", "done", timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    items = page.get_by_test_id("sample")
    assert items.count() == count
    out = []
    for i in range(count):
        item = items.nth(i)
        out.append({"ids": json.loads(item.get_attribute("data-ids")), "stop": item.get_attribute("data-stop"),
                    "ok": item.get_attribute("data-ok"), "text": item.get_by_test_id("sample-text").text_content(),
                    "tokens": [t.text_content() for t in item.locator(".tok").all()]})
    return out


def test_regex_samples_are_walks_of_the_index(page):
    regex = r"(ab|cd){1,3}x?"
    page.get_by_test_id("regex-input").fill(regex)
    page.get_by_test_id("guide-kind-regex").check()
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    vocab = Vocabulary.from_file(GPT2_VOCAB)
    index = Index(regex, vocab)
    for mode in ("uniform", "length"):
        samples = draw(page, 6, mode, 40)
        for s in samples:
            assert s["stop"] == "eos" and s["ok"] == "true", s
            state = index.initial_state
            for token in s["ids"][:-1]:
                assert token in index.get_allowed_tokens(state), s
                state = index.get_next_state(state, token)
            assert s["ids"][-1] == vocab.eos_token_id and index.is_final_state(state)
            text = b"".join(vocab.id_to_bytes(t) for t in s["ids"][:-1]).decode()
            assert s["text"] == text and re.fullmatch(regex, text)
            assert len(s["tokens"]) == len(s["ids"])  # one box per token: the boundaries are shown
    check = page.get_by_test_id("sample-check").first
    expect(check).to_contain_text("re.fullmatch")


def test_grammar_samples_from_the_current_state(page, small_vocab):
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files(str(small_vocab))
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()
    page.get_by_test_id("guide-kind-cfg").check()
    page.get_by_test_id("guide-grammar-select").select_option("arithmetic")
    expect(page.get_by_test_id("guide-grammar")).to_have_value(grammars.load("arithmetic"), timeout=BUILD_TIMEOUT_MS)
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    page.locator(f'[data-testid=guide-token][data-token-id="{PIECES.index("(")}"]').click()
    guide_idle(page)
    vocab = Vocabulary.from_file(small_vocab)
    oracle = ReferenceCFGGuide(grammars.load("arithmetic"), Tokenizer(vocab))
    parser = lark.Lark(grammars.load("arithmetic"), parser="earley")  # another parser again
    samples = draw(page, 5, "length", 60)
    ended = [s for s in samples if s["stop"] == "eos"]
    assert ended, samples
    for s in samples:
        assert s["ids"][0] == PIECES.index("("), "samples continue the guide's current text"
        state = oracle.initial_state
        for token in s["ids"]:
            if token == vocab.eos_token_id:
                assert oracle.is_final_state(state)
                break
            assert token in oracle.get_next_instruction(state).tokens, s
            state = oracle.get_next_state(state, token)
    for s in ended:
        assert s["ok"] == "true"
        parser.parse(s["text"])


def test_schema_samples_are_valid_documents(page):
    mark_state(page)
    page.get_by_test_id("vocab-menu").select_option("gpt2")
    assert wait_state(page, "ready", "error") == "ready"
    page.get_by_test_id("guide-kind-schema").check()
    page.get_by_test_id("guide-schema-input").fill(json.dumps(SCHEMA))
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    samples = draw(page, 4, "length", 200)
    ended = [s for s in samples if s["stop"] == "eos"]
    assert ended, samples
    for s in ended:
        assert s["ok"] == "true"
        jsonschema.validate(json.loads(s["text"]), SCHEMA)
    expect(page.get_by_test_id("sample-check").first).to_contain_text("json.loads")


def test_samples_can_be_stopped_and_show_progress(page):
    """Stop during a long draw: the samples drawn so far stay, the rest are not drawn."""
    page.get_by_test_id("guide-schema-input").fill(json.dumps({"type": "array", "items": {"type": "string"}}))
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    page.get_by_test_id("samples-count").fill("100")
    page.get_by_test_id("samples-mode").select_option("uniform")
    page.get_by_test_id("samples-budget").fill("4096")
    page.get_by_test_id("samples-button").click()
    expect(page.get_by_test_id("guide-status")).to_contain_text(re.compile(r"sample \d+ of 100: token"), timeout=BUILD_TIMEOUT_MS)
    expect(page.get_by_test_id("guide-cancel")).to_be_enabled()
    page.get_by_test_id("guide-cancel").click()
    expect(page.get_by_test_id("samples-list")).to_have_attribute("data-state", "stopped", timeout=BUILD_TIMEOUT_MS)
    guide_idle(page)
    assert page.get_by_test_id("sample").count() < 100
    expect(page.get_by_test_id("guide-error")).to_contain_text("Stopped")


def test_sample_tokens_are_never_markup(page, small_vocab):
    """A token spelling an HTML tag shows as its text in a sample."""
    mark_state(page)
    page.get_by_test_id("vocab-file").set_input_files(str(small_vocab))
    assert wait_state(page, "ready", "error") == "ready"
    page.get_by_test_id("regex-input").fill(r"(<b>)+")
    page.get_by_test_id("guide-kind-regex").check()
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    samples = draw(page, 2, "length", 10)
    assert all("<b>" in s["tokens"] for s in samples)
    assert page.locator("[data-testid=samples-list] b").count() == 0
