"""`posecode-ssg serve` end to end in real Chromium: the real build on a copy
of the demo library, the real runtime. Edit a page and see it update; edit a
figure and see it swap in place; save a broken document, see the overlay,
fix it and see it clear."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("posecode_ssg.site.build", reason="the site build is not available")

from posecode_ssg.site.serve import LiveSite, ProjectSource, ServeOptions, ThreadedServer  # noqa: E402

from .pages import needs_browser  # noqa: E402
from tests.conftest import shared_path  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
pytestmark = needs_browser  # Chromium comes from playwright_tests/conftest.py
PAGE_SRC = "strength/bodyweight-squat.md"


@pytest.fixture
def demo(tmp_path, monkeypatch):
    """The demo library copied to a temporary project, served live."""
    if not (REPO / "content" / PAGE_SRC).is_file():
        pytest.skip("demo content not available")
    shutil.copytree(REPO / "content", tmp_path / "content")
    if (REPO / "posecode.toml").is_file():
        shutil.copy(REPO / "posecode.toml", tmp_path / "posecode.toml")
    monkeypatch.chdir(tmp_path)
    live = LiveSite(ProjectSource(), options=ServeOptions(quiet=True))
    with ThreadedServer(live) as url:
        src = tmp_path / "content" / PAGE_SRC
        yield url + quote(PAGE_SRC[: -len(".md")]) + "/", src, live


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def open_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("window.posecodeLive && window.posecodeLive.instance")
    page.wait_for_load_state("load")


def test_text_edit_updates_the_page(demo, page):
    """A prose edit updates the page in place: same document, same figure elements (their play
    state untouched), same scroll position."""
    url, src, _live = demo
    open_page(page, url)
    first = "document.querySelector('posecode-figure')"
    page.evaluate(f"window.scrollTo(0, 400); window.__sameDocument = true; window.__el = {first}")
    count = page.locator("posecode-figure").count()
    # An atomic save (as most editors do it): a plain write can be seen half done under load,
    # and a build of the empty file rightly reloads the tab.
    tmp = src.with_name(".bodyweight-squat.md.tmp")
    tmp.write_text(src.read_text(encoding="utf-8").replace("Let the arms hang.", "Let the arms hang loose.", 1),
                   encoding="utf-8")
    tmp.replace(src)
    page.wait_for_function("document.body.textContent.includes('Let the arms hang loose.')", timeout=15000)
    assert page.evaluate("window.__sameDocument") is True, page.evaluate("window.posecodeLive.lastEvent")
    assert page.evaluate("window.posecodeLive.lastAction") == "patch"
    assert page.evaluate(f"window.__el === {first}")  # the live figure element was kept
    assert page.locator("posecode-figure").count() == count
    assert page.locator("text=Let the arms hang.").count() == 0  # the old sentence is gone, not duplicated
    assert abs(page.evaluate("window.scrollY") - 400) <= 2


def test_text_and_figure_edit_together_reload_and_restore_scroll(demo, page):
    """One save that changes both prose and a figure cannot be merged in place: the tab
    reloads and comes back at the same scroll position."""
    url, src, _live = demo
    open_page(page, url)
    page.evaluate("window.scrollTo(0, 400); window.__sameDocument = true")
    text = src.read_text(encoding="utf-8")
    src.write_text(text.replace("Let the arms hang.", "Let the arms hang low.", 1)
                   .replace("    knees: flex 80", "    knees: flex 70", 1), encoding="utf-8")
    page.wait_for_function("document.body.textContent.includes('Let the arms hang low.')", timeout=15000)
    page.wait_for_load_state("load")
    page.wait_for_function("window.scrollY > 0")
    assert page.evaluate("window.__sameDocument") is None  # it was a reload
    assert abs(page.evaluate("window.scrollY") - 400) <= 2


def test_figure_edit_swaps_motion_in_place(demo, page):
    if not (REPO / "posecode_ssg" / "runtime" / "dist" / "posecode-runtime.js").is_file():
        pytest.skip("runtime bundle not built: figures are static posters, nothing to swap")
    url, src, _live = demo
    open_page(page, url)
    first = "document.querySelector('posecode-figure')"
    page.evaluate(f"window.scrollTo(0, 300); window.__sameDocument = true; "
                  f"window.__el = {first}")
    page.evaluate(f"{first}.ready")
    # The author paused the figure at t = 1.0 s: it stays paused there.
    page.evaluate(f"{first}.seek(1.0)")
    assert page.evaluate(f"{first}.playing") is False
    before = page.evaluate(f"{first}.querySelector('script[type=\"application/json\"]').textContent")
    edit(src, "    knees: flex 80", "    knees: flex 75")
    page.wait_for_function(
        f"{first}.querySelector('script[type=\"application/json\"]').textContent !== {before!r}",
        timeout=15000)
    page.wait_for_function("window.posecodeLive.updates > 0 || window.__sameDocument === undefined")
    action = page.evaluate("window.posecodeLive.lastAction")
    if page.evaluate("window.__sameDocument") is None:
        pytest.fail(f"the page reloaded instead of swapping the figure (client action {action!r})")
    assert action == "figures"
    assert page.evaluate(f"window.__el === {first}")  # the same element, updated
    assert page.evaluate("window.scrollY") == 300
    assert page.evaluate(f"{first}.playing") is False
    assert page.evaluate(f"{first}.sample().t") == pytest.approx(1.0, abs=1e-6)
    # The element now holds the new motion: the knees bend to 75 degrees.
    motion = page.evaluate(f"JSON.parse({first}.querySelector('script[type=\"application/json\"]')"
                           ".textContent)")
    quat = motion["phases"][0]["q"]["knee_left"]
    assert math.degrees(2 * math.acos(min(1.0, abs(quat[3])))) == pytest.approx(75, abs=0.5)


def test_broken_document_shows_overlay_and_fix_clears_it(demo, page):
    url, src, _live = demo
    open_page(page, url)
    original = src.read_text(encoding="utf-8")
    lines = original.splitlines()
    number = lines.index("    knees: flex 80") + 1
    edit(src, "    knees: flex 80", "    knees: flx 80")
    overlay = page.locator("#posecode-live-overlay")
    overlay.wait_for(state="attached", timeout=15000)
    text = overlay.locator(".panel").inner_text()
    assert re.search(rf"{re.escape(PAGE_SRC)}:{number}:\d+: error\[", text), text
    assert f"{number} |     knees: flx 80" in text
    assert "hint:" in text
    # The page underneath still shows the last good figure.
    assert page.locator("posecode-figure").count() >= 1
    src.write_text(original, encoding="utf-8")
    overlay.wait_for(state="detached", timeout=15000)
    assert page.locator("posecode-figure").count() >= 1


def test_sv_unicode_space_paths_in_the_browser(tmp_path, monkeypatch, page):
    """sv-unicode-space-paths, expected 2 and 4 in a real browser: the pages under spaced,
    accented names load with every script and JSON they need, and an edit updates the open tab."""
    library = shared_path("cases", "bugs", "sv-unicode-space-paths", "library")
    shutil.copytree(library, tmp_path / "library")
    monkeypatch.chdir(tmp_path / "library")
    live = LiveSite(ProjectSource(), options=ServeOptions(quiet=True))
    failures: list[str] = []
    page.on("response", lambda r: failures.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    # (the live-reload stream of a page being left is aborted: not a failure)
    page.on("requestfailed",
            lambda r: None if r.url.endswith("/__posecode/events") else failures.append(f"failed {r.url}"))
    with ThreadedServer(live) as url:
        for path in ("Plié drills/demi plié/", "über uns/"):
            page.goto(url + quote(path))
            page.wait_for_function("window.posecodeLive && window.posecodeLive.instance")
            page.evaluate("document.querySelector('posecode-figure').ready")
            assert page.evaluate("document.querySelector('posecode-figure').duration") > 0
        assert failures == []
        page.goto(url + quote("Plié drills/demi plié/"))
        page.wait_for_function("window.posecodeLive && window.posecodeLive.instance")
        page.evaluate("window.__sameDocument = true")
        source = tmp_path / "library" / "content" / "Plié drills" / "demi plié.md"
        edit(source, "knees: flex 20", "knees: flex 25")
        page.wait_for_function("window.posecodeLive.updates > 0", timeout=3000)
        assert page.evaluate("window.posecodeLive.lastAction") == "figures"
        assert page.evaluate("window.__sameDocument") is True
        motion = page.evaluate("JSON.parse(document.querySelector('posecode-figure "
                               "script[type=\"application/json\"]').textContent)")
        quat = motion["phases"][0]["q"]["knee_left"]
        assert math.degrees(2 * math.acos(min(1.0, abs(quat[3])))) == pytest.approx(25, abs=0.5)
        assert failures == []
