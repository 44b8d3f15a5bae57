"""The live pages of a German library (tests/fixtures/i18n_de) and of the demo library under
``language = "he"``, in Chromium (issue 27): no English interface text in the live DOM (text
nodes, shadow roots, aria-labels and the slider's aria-valuetext, after the player ran), the
player's texts and numbers in the page's language, and on the right-to-left pages a player that
stays left-to-right (its slider runs with time)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.i18n.english import DOM_TEXTS, interface_strings, leftovers, sources_of

from .conftest import serve_folder
from .pages import READY_ALL, needs_browser

pytestmark = needs_browser

REPO = Path(__file__).resolve().parents[1]


def _built(tmp_path_factory, name: str, content: Path, toml: str, extra: Path | None = None):
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import RUNTIME_BUNDLE, build_site

    if not RUNTIME_BUNDLE.exists():
        pytest.skip("runtime bundle not built (npm ci && npm run build)")
    root = tmp_path_factory.mktemp(name)
    shutil.copytree(content, root / "content")
    (root / "posecode.toml").write_text(toml, encoding="utf-8")
    result = build_site(load_config(cwd=root), progress=False)
    assert not result.errors, result.errors[:3]
    return root


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    de = _built(tmp_path_factory, "live-de", REPO / "tests" / "fixtures" / "i18n_de" / "content",
                'site_name = "Übungsbibliothek"\nlanguage = "de"\n')
    he = _built(tmp_path_factory, "live-he", REPO / "content", 'language = "he"\n')
    with serve_folder(de / "site") as de_url, serve_folder(he / "site") as he_url:
        yield {"de": (de, de_url), "he": (he, he_url)}


def _run_player(page) -> None:
    """Wait for every figure, play the first for a moment (the readouts change), pause it."""
    if not page.evaluate("() => typeof posecode !== 'undefined'"):
        return   # a page without figures loads no player
    page.evaluate(READY_ALL)
    page.evaluate("""async () => { const el = posecode.figures[0]; if (!el) return; el.play();
        for (let i = 0; i < 20; i++) await posecode.frame(); el.pause(); await posecode.frame(); }""")


@pytest.mark.parametrize("lang, path", [
    ("de", ""), ("de", "kraeftigung/kniebeuge/"), ("de", "reha/beckenbruecke/"), ("de", "programs/knie-plan/"),
    ("he", ""), ("he", "rehab/glute-bridge/"), ("he", "strength/bodyweight-squat/"),
])
def test_no_english_interface_text_in_the_live_dom(rt_page, sites, lang, path):
    root, url = sites[lang]
    rt_page.goto(f"{url}/{path}")
    _run_player(rt_page)
    phrases = interface_strings(lang, sources_of(root / "content"))
    texts = rt_page.evaluate(DOM_TEXTS)
    assert len(texts) > 20
    assert leftovers(texts, phrases) == {}
    assert not rt_page.problems


def test_german_player_texts_and_numbers(rt_page, sites):
    _root, url = sites["de"]
    rt_page.goto(f"{url}/kraeftigung/kniebeuge/")
    rt_page.evaluate(READY_ALL)
    got = rt_page.evaluate("""() => { const el = posecode.figures[0];
        return { play: el.querySelector('.pc-play').getAttribute('aria-label'),
                 time: el.querySelector('.pc-time').textContent,
                 rep: el.querySelector('.pc-rep').textContent,
                 meta: [...el.querySelectorAll('.pc-phase-meta')].map((m) => m.textContent),
                 speeds: [...el.querySelectorAll('.pc-speed option')].map((o) => o.textContent) }; }""")
    # the squat: 2 s + 1.5 s, a prescription of 8-12 reps (the counter counts to 12)
    assert re.fullmatch(r"\d,\d / 3,5 s", got["time"]), got["time"]
    assert got["rep"] == "Wiederholung 1 von 12"
    assert got["play"] in ("Abspielen", "Pause", "Wiedergabe", "Anhalten")
    assert got["meta"] == ["2,0 s · auslaufend", "1,5 s · explosiv"]
    assert "0,5×" in got["speeds"] and "1×" in got["speeds"] and not any("." in s for s in got["speeds"])


def test_hebrew_pages_are_right_to_left_and_the_player_left_to_right(rt_page, sites):
    _root, url = sites["he"]
    rt_page.goto(f"{url}/rehab/glute-bridge/")
    _run_player(rt_page)
    got = rt_page.evaluate("""() => { const el = posecode.figures[0], s = el.querySelector('.pc-scrub');
        const dir = (sel) => getComputedStyle(el.querySelector(sel)).direction;
        return { page: getComputedStyle(document.body).direction, view: dir('.pc-view'), controls: dir('.pc-controls'),
                 steps: dir('.pc-phase-list'), slider: getComputedStyle(s).direction,
                 rep: el.querySelector('.pc-rep').textContent,
                 nav: getComputedStyle(document.querySelector('header') || document.body).direction }; }""")
    assert got["page"] == "rtl" and got["nav"] == "rtl"
    # the figure and its controls left to right; the step list (names and cues) as the page
    assert got["view"] == got["controls"] == got["slider"] == "ltr" and got["steps"] == "rtl"
    assert got["rep"] == "חזרה 1 מתוך 10"
    # the slider runs with time: a click near its left end seeks near the start, near its right end
    # near the end; the right arrow key moves it on
    rt_page.evaluate("() => posecode.figures[0].pause()")
    scrub = rt_page.locator(".pc-scrub").first
    scrub.scroll_into_view_if_needed()
    box = scrub.bounding_box()
    rt_page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    late = rt_page.evaluate("() => +posecode.figures[0].querySelector('.pc-scrub').value")
    rt_page.mouse.click(box["x"] + box["width"] * 0.1, box["y"] + box["height"] / 2)
    early = rt_page.evaluate("() => +posecode.figures[0].querySelector('.pc-scrub').value")
    assert early < 0.3 * 6.0 < late   # the bridge's loop is 6 s
    scrub.press("ArrowRight")
    assert rt_page.evaluate("() => +posecode.figures[0].querySelector('.pc-scrub').value") > early
