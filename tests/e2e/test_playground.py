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
    open_app,
    start_dist_server,
    wait_service_worker,
    wait_state,
)

from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402


@pytest.fixture(scope="module")
def app(browser):
    """The playground page, loaded once and ready."""
    yield from open_app(browser, "playground.html")


@pytest.fixture()
def page(app):
    yield app.page
    check_offline(app.attempted)


def run(page) -> str:
    # enabled once Python is ready (after a Stop that had to restart the worker, a whole start later)
    expect(page.get_by_test_id("run-button")).to_be_enabled(timeout=START_TIMEOUT_MS)
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


def test_playground_runs_off_the_page_thread_and_stops(page):
    """A long loop neither freezes the page nor runs forever: Stop ends it, and Python goes on."""
    page.get_by_test_id("editor").fill("print('started', flush=True)\nn = 0\nwhile True:\n    n += 1\n")
    mark_state(page)
    page.get_by_test_id("run-button").click()
    expect(page.get_by_test_id("output")).to_contain_text("started", timeout=BUILD_TIMEOUT_MS)
    # the page's own thread answers while Python loops (Python on it would never let a timer run)
    assert page.evaluate("() => new Promise((r) => setTimeout(() => r('answered'), 0))") == "answered"
    expect(page.get_by_test_id("stop-button")).to_be_enabled()
    page.get_by_test_id("stop-button").click()
    assert wait_state(page, "done", "error") == "error"
    expect(page.get_by_test_id("output")).to_contain_text("Stopped")
    expect(page.get_by_test_id("status")).to_contain_text("Stopped")
    expect(page.get_by_test_id("stop-button")).to_be_disabled()
    page.get_by_test_id("editor").fill("print(6 * 7)")
    assert run(page).strip() == "42"


def test_playground_editor_has_an_accessible_name(page):
    expect(page.get_by_role("textbox", name="Python code")).to_have_count(1)
    expect(page.get_by_role("button", name="Stop")).to_have_count(1)


def test_playground_offline_without_a_visit_before(browser):
    """Only the builder was opened online: the service worker still serves the playground offline."""
    import build  # noqa: PLC0415 - repository root module (start_dist_server put it on sys.path)

    server, url = start_dist_server()
    context, attempted = guarded_context(browser, service_workers="allow")
    try:
        page = context.new_page()
        page.goto(url + "index.html")
        assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "ready"
        wait_service_worker(
            page, "keys.some((u) => u.endsWith('playground.html')) && keys.some((u) => u.endsWith('js/playground.js'))"
                  " && keys.some((u) => /tokenguide-.*\\.whl$/.test(u))")
    finally:
        server.shutdown()
        server.server_close()
    assert build.DIST.is_dir()
    context.set_offline(True)
    page.goto(url + "playground.html")
    assert wait_state(page, "ready", "error", timeout=START_TIMEOUT_MS) == "ready", page.get_by_test_id("status").text_content()
    page.get_by_test_id("examples").select_option("ex-build")
    output = run(page)
    expected = Index(r"\(\d{3}\) \d{3}-\d{4}", Vocabulary.from_file(GPT2_VOCAB), ascii=True)
    assert f"{expected.num_states} states" in output
    context.close()
    check_offline(attempted)
