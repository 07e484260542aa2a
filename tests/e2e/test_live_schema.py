"""End-to-end tests of the live guide over a JSON Schema (Guide.from_json_schema in the worker), the
mask times and forced tokens it shows, and the builder's offer of the live guide for a schema it
cannot make an index of.

Oracles run here in CPython and are independent of the page's guide: the reference CFG algorithm
(ReferenceCFGGuide) on the Lark text the JSON Schema grammar path wrote for the recursive schema
(kept in tests/fixtures) where the page runs the engine path, the eager Index of the regex
path's regex (the same language) for a schema both paths take, and jsonschema for the documents
stepped through.
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
    shown_tokens,
    small_vocab_file,
    wait_state,
)

from grammar_oracle import schema_lark  # noqa: E402

from tokenguide.guides import ReferenceCFGGuide  # noqa: E402  (the slow exact algorithm: an independent oracle)
from tokenguide.index import Index  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from tokenguide.vocabulary import Tokenizer, Vocabulary  # noqa: E402

jsonschema = pytest.importorskip("jsonschema", reason="the documents are checked with jsonschema (the test extra)")

PIECES = ["{", "}", '"', "c", '":', ":", "[", "]", ",", "{}", "Ġ", "x", "1", "</s>"]  # Ġ: a space (GPT-2 byte-level)
RECURSIVE = {"$defs": {"n": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
                             "additionalProperties": False}}, "$ref": "#/$defs/n"}
PERSON = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 6}, "age": {"type": "integer", "maximum": 150}},
          "required": ["name", "age"], "additionalProperties": False}


@pytest.fixture(scope="module")
def small_vocab(tmp_path_factory) -> Path:
    return small_vocab_file(tmp_path_factory.mktemp("vocab"), PIECES)


def step(page, token_id: int) -> None:
    page.get_by_test_id("guide-filter").fill(str(token_id))
    page.get_by_test_id("guide-filter").press("Enter")
    guide_idle(page)


def use_vocab(page, path: Path | None) -> None:
    """The small vocabulary file, or (None) the bundled GPT-2 from the vocabulary menu."""
    if path is None and page.get_by_test_id("vocab-menu").input_value() == "gpt2":
        return
    mark_state(page)
    if path is None:
        page.get_by_test_id("vocab-menu").select_option("gpt2")
    else:
        page.get_by_test_id("vocab-file").set_input_files(str(path))
    assert wait_state(page, "ready", "error") == "ready", page.get_by_test_id("error").text_content()


def start_schema(page, schema: dict) -> None:
    page.get_by_test_id("guide-kind-schema").check()
    page.get_by_test_id("guide-schema-input").fill(json.dumps(schema))
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    expect(page.get_by_test_id("guide-error")).to_be_hidden()
    expect(page.get_by_test_id("guide-view")).to_be_visible()


def test_recursive_schema_steps_match_the_reference_grammar_guide(page, small_vocab):
    use_vocab(page, small_vocab)
    start_schema(page, RECURSIVE)
    compiled = compile_json_schema(RECURSIVE)
    assert compiled.path == "engine"
    info = page.get_by_test_id("guide-schema-info")
    expect(info).to_have_attribute("data-path", "engine")
    expect(info).to_contain_text(compiled.reason)  # the page says why the library chose the path
    expect(page.get_by_test_id("guide-desc")).to_contain_text("Guide.from_json_schema")

    vocab = Vocabulary.from_file(small_vocab)
    oracle = ReferenceCFGGuide(schema_lark("live_schema_recursive"), Tokenizer(vocab))
    state = oracle.initial_state
    masks = 0
    for piece in ["{", '"', "c", '":', "[", "{}", ",", "{", "}", "]", "}"]:
        expected = sorted(oracle.get_next_instruction(state).tokens)
        assert sorted(shown_tokens(page)) == expected, piece
        masks += 1
        expect(page.get_by_test_id("mask-time")).to_have_attribute("data-masks", str(masks))
        forced = len(expected) == 1
        expect(page.get_by_test_id("guide-forced")).to_be_visible() if forced else expect(page.get_by_test_id("guide-forced")).to_be_hidden()
        token = PIECES.index(piece)
        step(page, token)
        state = oracle.get_next_state(state, token)
    text = page.get_by_test_id("guide-text").text_content()
    assert text == '{"c":[{},{}]}'
    jsonschema.validate(json.loads(text), RECURSIVE)
    expect(page.get_by_test_id("guide-final")).to_be_visible()
    assert vocab.eos_token_id in shown_tokens(page)
    # the mask times: the last one and the running mean, as numbers the page also writes out
    cost = page.get_by_test_id("mask-time")
    assert float(cost.get_attribute("data-last-ms")) >= 0 and float(cost.get_attribute("data-mean-ms")) >= 0
    expect(cost).to_contain_text("mean")
    # the path marks the tokens that were the only one allowed
    path = page.get_by_test_id("guide-path").locator("li")
    state, forced_at = oracle.initial_state, []
    for i, piece in enumerate(["{", '"', "c", '":', "[", "{}", ",", "{", "}", "]", "}"]):
        if len(oracle.get_next_instruction(state).tokens) == 1:
            forced_at.append(i)
        state = oracle.get_next_state(state, PIECES.index(piece))
    assert forced_at, "the schema forces some tokens in this vocabulary (e.g. '\"' after '{')"
    assert [i for i in range(path.count()) if path.nth(i).get_attribute("data-forced") == "true"] == forced_at


def test_why_not_this_token_on_a_schema(page, small_vocab):
    """Explain on the engine path: the byte walk (where the token's bytes die) and the parser's view."""
    page.get_by_test_id("guide-reset").click()
    guide_idle(page)
    step(page, PIECES.index("{"))
    page.get_by_test_id("guide-explain-input").fill(str(PIECES.index("x")))
    page.get_by_test_id("guide-explain-input").press("Enter")
    box = page.get_by_test_id("guide-explain")
    expect(box).to_have_attribute("data-allowed", "false", timeout=BUILD_TIMEOUT_MS)
    expect(box).to_have_attribute("data-reach", "0")
    expect(box).to_contain_text("not allowed")
    expect(box).to_contain_text('"')  # what is accepted there: the quote of a key, or the closing brace
    page.get_by_test_id("guide-explain-input").fill(str(PIECES.index('"')))
    page.get_by_test_id("guide-explain-input").press("Enter")
    expect(box).to_have_attribute("data-allowed", "true", timeout=BUILD_TIMEOUT_MS)


def greedy_path(text: str, vocab) -> list[int]:
    data, out, pos = text.encode(), [], 0
    by_bytes = {b: ids[0] for b, ids in vocab.tokens.items()}
    longest = max(map(len, by_bytes))
    while pos < len(data):
        for size in range(min(longest, len(data) - pos), 0, -1):
            token = by_bytes.get(data[pos:pos + size])
            if token is not None:
                out.append(token)
                pos += size
                break
    return out


def test_schema_on_gpt2_runs_on_the_engine_with_the_regex_index_language(page):
    """A schema both paths take: the page runs the engine path (the library's choice), and shows
    at every step exactly the tokens the regex path's eager Index allows."""
    use_vocab(page, None)
    start_schema(page, PERSON)
    compiled = compile_json_schema(PERSON)
    assert compiled.path == "engine"
    expect(page.get_by_test_id("guide-schema-info")).to_have_attribute("data-path", "engine")
    expect(page.get_by_test_id("guide-schema-info")).to_contain_text(compiled.reason)
    vocab = Vocabulary.from_file(GPT2_VOCAB)
    index = Index(compile_json_schema(PERSON, path="regex").regex, vocab)  # the eager regex-path index
    state = index.initial_state
    document = '{"name":"Ada","age":36}'
    for token in greedy_path(document, vocab):
        assert sorted(shown_tokens(page)) == sorted(index.get_allowed_tokens(state))
        step(page, token)
        state = index.get_next_state(state, token)
    assert page.get_by_test_id("guide-text").text_content() == document
    assert sorted(shown_tokens(page)) == sorted(index.get_allowed_tokens(state))
    assert vocab.eos_token_id in shown_tokens(page)
    jsonschema.validate(json.loads(document), PERSON)
    assert re.fullmatch(r"mask: .* this state · last computed .* · mean .* over \d+ masks", page.get_by_test_id("mask-time").text_content())


def test_schema_error_is_shown_where_the_user_looks(page):
    page.get_by_test_id("guide-kind-schema").check()
    page.get_by_test_id("guide-schema-input").fill('{"type": "object", ')
    page.get_by_test_id("guide-start").click()
    guide_idle(page)
    expect(page.get_by_test_id("guide-error")).to_be_visible()
    expect(page.get_by_test_id("guide-error")).to_contain_text("not valid JSON")


def test_builder_offers_the_live_guide_for_a_schema_without_an_index(page):
    """A free-form schema's depth-capped regex exceeds a small Max states: the builder's error
    offers the live guide, which compiles the schema with the library's own choice of path."""
    schema = {"type": "object"}
    use_vocab(page, None)
    page.get_by_test_id("source-schema").check()
    page.get_by_test_id("schema-input").fill(json.dumps(schema))
    page.get_by_test_id("schema-button").click()
    expect(page.get_by_test_id("schema-note")).to_contain_text("Regex generated", timeout=BUILD_TIMEOUT_MS)
    page.get_by_test_id("max-states").fill("20")
    mark_state(page)
    page.get_by_test_id("build-button").click()
    assert wait_state(page, "done", "error") == "error"
    offer = page.get_by_test_id("schema-guide-offer")
    expect(offer).to_be_visible()
    page.get_by_test_id("schema-to-guide").click()
    guide_idle(page)
    expect(page.get_by_test_id("guide-kind-schema")).to_be_checked()
    expect(page.get_by_test_id("guide-schema-input")).to_have_value(json.dumps(schema))
    expect(page.get_by_test_id("guide-schema-info")).to_have_attribute("data-path", compile_json_schema(schema).path)
    expect(offer).to_be_hidden()
    page.get_by_test_id("max-states").fill("100000")
    page.locator("#source-regex").check()
