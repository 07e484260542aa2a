"""End-to-end tests of the PyScript playground (web/playground.html): PyScript and Pyodide from the
bundle, tokenguide loaded from the local lock, examples run and print what the library computes."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")
from playwright.sync_api import expect  # noqa: E402

from _webapp import (  # noqa: E402
    BUILD_TIMEOUT_MS,
    GPT2_VOCAB,
    START_TIMEOUT_MS,
    check_offline,
    guarded_context,
    mark_state,
    start_dist_server,
    wait_state,
)

from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402


@pytest.fixture(scope="module")
def app(browser):
    server, url = start_dist_server()
    context, attempted = guarded_context(browser)
    page = context.new_page()
    page.goto(url + "playground.html")
    wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS)
    yield page, attempted
    context.close()
    server.shutdown()


@pytest.fixture()
def page(app):
    page, attempted = app
    yield page
    check_offline(attempted)


def run(page) -> str:
    mark_state(page)
    page.get_by_test_id("run-button").click()
    state = wait_state(page, "done", "error", timeout=BUILD_TIMEOUT_MS)
    output = page.get_by_test_id("output").text_content()
    assert state == "done", output
    return output


def test_playground_ready_and_build_example(page):
    assert page.get_attribute("body", "data-state") == "ready", page.get_by_test_id("status").text_content()
    page.get_by_test_id("examples").select_option("ex-build")
    assert "Index(" in page.get_by_test_id("editor").input_value()
    output = run(page)
    expected = Index(r"\(\d{3}\) \d{3}-\d{4}", Vocabulary.from_file(GPT2_VOCAB), ascii=True)
    assert f"{expected.num_states} states, {expected.num_transitions:,} transitions" in output


def test_playground_user_code_and_errors(page):
    page.get_by_test_id("editor").fill(
        "from tokenguide.index import Index\n"
        "vocab = await gpt2()\n"
        "print(Index('(a|b)c', vocab).num_states)\n"
    )
    assert run(page).strip() == str(Index("(a|b)c", Vocabulary.from_file(GPT2_VOCAB)).num_states)
    page.get_by_test_id("editor").fill("from tokenguide.index import Index\nIndex('a(', await gpt2())\n")
    mark_state(page)
    page.get_by_test_id("run-button").click()
    assert wait_state(page, "done", "error") == "error"
    expect(page.get_by_test_id("output")).to_contain_text("RegexError")
    expect(page.get_by_test_id("run-button")).to_be_enabled()


@pytest.mark.parametrize("example, expected", [
    ("ex-save", "loaded back identical: True"),
    ("ex-regex-guide", "tokens:"),
    ("ex-cfg-guide", "can end here:"),
])
def test_playground_examples_run(page, example, expected):
    page.get_by_test_id("examples").select_option(example)
    assert expected in run(page)
