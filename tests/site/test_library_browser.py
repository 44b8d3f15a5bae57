"""The library home in real Chromium: client-side filters and the build-time search index."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest
from test_build import LIBRARY

from posecode_ssg.evaluate.browser import chromium_executable, launch_args

CHROMIUM = chromium_executable()


@pytest.fixture
def served_library(make_site):
    playwright = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("no Chromium found (apt-get install chromium)")
    result, config = make_site(LIBRARY)
    assert result.written
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(config.output_dir))
    handler.func.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(**launch_args())
        try:
            yield browser, f"http://127.0.0.1:{server.server_port}/"
        finally:
            browser.close()
            server.shutdown()


def visible_cards(page) -> list[str]:
    return page.eval_on_selector_all("[data-cards] > .card:not([hidden])", "els => els.map(e => e.dataset.url)")


def test_filters_and_search(served_library):
    browser, base = served_library
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base)
    assert sorted(visible_cards(page)) == ["/posture/chin/", "/posture/nod/", "/strength/squat/"]
    page.select_option("#filter-level", "advanced")
    assert visible_cards(page) == ["/posture/nod/"]
    assert page.inner_text("[data-result-count]") == "1 of 3 exercises"
    page.select_option("#filter-level", "")
    page.select_option("#filter-muscle", "quadriceps")
    assert visible_cards(page) == ["/strength/squat/"]
    page.select_option("#filter-muscle", "")
    # a cue word ("Knees over toes") is found through the search index, not the card text
    page.fill("#library-search", "knees toes")
    page.wait_for_function("document.querySelector('[data-result-count]').textContent.startsWith('1 of')")
    assert visible_cards(page) == ["/strength/squat/"]
    page.fill("#library-search", "zzzz")
    page.wait_for_function("!document.querySelector('[data-no-results]').hidden")
    assert visible_cards(page) == []
    # ?q= from the header search form
    page.goto(base + "?q=chin")
    page.wait_for_function("document.querySelector('[data-result-count]').textContent.startsWith('1 of')")
    assert visible_cards(page) == ["/posture/chin/"] and page.input_value("#site-search") == "chin"
    assert errors == []


def test_filters_from_the_url_fill_the_form_and_show_the_results(served_library):
    """A link such as ``/?level=advanced`` (or the header search's ``?q=``) filters the cards and
    scrolls the filter form into a phone-sized view, so the results are what the reader sees."""
    browser, base = served_library
    page = browser.new_page(viewport={"width": 390, "height": 240})
    page.goto(base)
    top_unfiltered = page.eval_on_selector("[data-library-filters]", "f => f.getBoundingClientRect().top")
    page.goto(base + "?level=advanced&muscle=nonsense")
    assert page.input_value("#filter-level") == "advanced" and page.input_value("#filter-muscle") == ""
    assert visible_cards(page) == ["/posture/nod/"]
    top = page.eval_on_selector("[data-library-filters]", "f => f.getBoundingClientRect().top")
    assert top_unfiltered > 240 and 0 <= top < 240


def test_without_javascript_every_card_is_listed_and_filters_hidden(served_library):
    browser, base = served_library
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base)
    assert len(visible_cards(page)) == 3
    assert not page.is_visible("[data-library-filters]")
    context.close()


def test_html_script_breakout_in_the_browser(make_site, served_library):
    """html-script-breakout items 2 and 4: loading the page runs nothing injected; names and cues
    read exactly as written (text, not markup)."""
    from tests.conftest import shared_path

    browser, base = served_library
    text = shared_path("cases", "bugs", "html-script-breakout", "page.md").read_text(encoding="utf-8")
    result, config = make_site({"hostile.md": text})
    assert result.written
    page = browser.new_page()
    dialogs: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "hostile/")
    page.wait_for_timeout(1500)
    assert dialogs == [] and errors == []
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    scripts = page.evaluate("Array.from(document.scripts).map(s => s.type || 'classic')")
    assert sorted(scripts) == ["application/json", "module"]   # the motion JSON and the player
    figure_text = page.evaluate("document.querySelector('posecode-figure').textContent")
    cue = "</script><img src=x onerror=alert('cue')> knees < toes & hips > knees"
    assert cue in figure_text and "Down <!--" in figure_text
    title = page.evaluate("document.querySelector('posecode-figure').dataset.title")
    assert title == "Squat </script><script>alert('name')</script>"
