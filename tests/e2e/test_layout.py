"""Layout and accessibility of the web pages: dark mode follows prefers-color-scheme, nothing is
wider than a 390 px phone screen, and every control has an accessible name."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")

from _webapp import check_offline, guarded_context, start_dist_server  # noqa: E402

PLAYER = Path(__file__).resolve().parents[2] / "tools" / "index_player.html"
PAGES = ["index.html", "playground.html", "player.html"]

UNNAMED = """() => [...document.querySelectorAll('input, select, textarea, button, progress')]
  .filter((el) => !el.hidden && el.type !== 'hidden' && el.type !== 'radio' && el.type !== 'checkbox' || (el.type === 'radio' || el.type === 'checkbox') && !el.labels.length)
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby')
                  && !el.title && !(el.tagName === 'BUTTON' && el.textContent.trim()))
  .map((el) => el.id || el.outerHTML.slice(0, 80))"""

LUMINANCE = """() => {
  const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}"""

# Resolves once web fonts are loaded and two animation frames have passed (the second starts only
# after the first frame's style, layout and paint): the page as loaded is laid out for measuring.
SETTLED = """() => document.fonts.ready.then(() => new Promise((resolve) =>
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)))))"""


@pytest.fixture(scope="module")
def served():
    server, url = start_dist_server()
    yield url
    server.shutdown()


@pytest.mark.parametrize("name", PAGES)
def test_every_control_has_an_accessible_name(browser, served, name):
    context, attempted = guarded_context(browser)
    page = context.new_page()
    page.goto(served + name)
    page.wait_for_load_state("domcontentloaded")
    assert page.evaluate(UNNAMED) == []
    context.close()
    check_offline(attempted)


@pytest.mark.parametrize("name", PAGES)
def test_narrow_screen_has_no_horizontal_scroll(browser, served, name):
    context, attempted = guarded_context(browser, viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = context.new_page()
    page.goto(served + name)
    page.wait_for_load_state("load")
    page.evaluate(SETTLED)  # fonts in and the loaded DOM laid out and painted: then measure
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter((el) => {
        const r = el.getBoundingClientRect(); return r.width > 0 && r.right > window.innerWidth + 1 && getComputedStyle(el).position !== 'absolute'
          && !el.closest('.tokens, #list, #graph-wrap, pre'); }).map((el) => el.id || el.tagName).slice(0, 5)""")
    assert width <= 390, f"{name} is {width} px wide at 390 px: {wide}"
    context.close()
    check_offline(attempted)


@pytest.mark.parametrize("name", PAGES)
def test_dark_mode_follows_the_system(browser, served, name):
    for scheme, dark in (("dark", True), ("light", False)):
        context, attempted = guarded_context(browser, color_scheme=scheme)
        page = context.new_page()
        page.goto(served + name)
        page.wait_for_load_state("domcontentloaded")
        luminance = page.evaluate(LUMINANCE)
        assert (luminance < 0.3) == dark, f"{name} in {scheme} mode has background luminance {luminance:.2f}"
        panel = page.evaluate("() => { const s = document.querySelector('section'); const c = getComputedStyle(s); return [c.backgroundColor, c.color]; }")
        assert panel[0] != panel[1]
        context.close()
        check_offline(attempted)


def test_player_from_file_in_dark_mode(browser):
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(PLAYER.as_uri())
    assert page.evaluate(LUMINANCE) < 0.3
    context.close()
