"""The MkDocs plugin in Chromium (issue 23 items 1 and 4): the Material fixture site
(tests/fixtures/mkdocs_site) built with ``mkdocs build`` and served under the sub-path of its
``site_url`` (``/library/``). Every figure on every page reaches ready; a figure in a closed
details block or a second content tab comes up drawn at its size and posed once shown; Material's
instant navigation brings in a page whose figures play without a reload; the palette toggle
re-colours the figures with the dark scheme's colours; desktop and phone sizes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import serve_folder
from .pages import needs_browser

pytestmark = needs_browser

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "mkdocs_site"
THEME_CSS = Path(__file__).resolve().parent.parent / "posecode_ssg" / "themes" / "default" / "static" / "style.css"
FIGS = "[...document.querySelectorAll('posecode-figure')]"


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    from posecode_ssg.integrations.embed import RUNTIME_DIST, RUNTIME_NAME

    if not (RUNTIME_DIST / RUNTIME_NAME).is_file():
        pytest.skip("runtime bundle not built (npm ci && npm run build)")
    www = tmp_path_factory.mktemp("mkdocs-www")
    project = tmp_path_factory.mktemp("mkdocs-project") / "site"
    shutil.copytree(FIXTURE, project)
    with serve_folder(www) as base_url:
        # site_url on the served origin: Material's instant navigation takes only the links its
        # sitemap lists
        yml = (project / "mkdocs.yml").read_text(encoding="utf-8")
        (project / "mkdocs.yml").write_text(re.sub(r"(?m)^site_url: .*$", f"site_url: {base_url}/library/", yml),
                                            encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(www / "library")],
                             cwd=project, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        yield base_url + "/library/"


def posed(page, k: int) -> dict:
    """Figure ``k`` scrolled into view and drawn: its canvas and box widths, state, and whether
    its sampled head is at standing height (m)."""
    page.evaluate(f"{FIGS}[{k}].scrollIntoView({{block: 'center'}})")
    # the IntersectionObserver reports it on a later frame, the draw after: a loaded machine
    # may take more than one
    page.evaluate(f"""async () => {{ const f = {FIGS}[{k}];
        for (let i = 0; i < 60 && !(f.drawCount > 0); i++) await posecode.frame(); }}""")
    return page.evaluate(f"""(() => {{ const f = {FIGS}[{k}]; const s = f.sample();
        return {{title: f.dataset.title, w: f.canvas.width, box: Math.round(f.getBoundingClientRect().width),
                 live: f.view.dataset.state, head: !!(s && s.bones && s.bones.head && s.bones.head[1] > 1.3)}}; }})()""")


def ready_titles(page) -> list[str]:
    """The figures' titles once each is ready (the runtime is imported by the head's loader)."""
    return page.evaluate(f"customElements.whenDefined('posecode-figure').then(() => "
                         f"Promise.all({FIGS}.map(f => f.ready.then(() => f.dataset.title))))")


@pytest.mark.parametrize("viewport", [(1280, 900), (390, 844)])
def test_every_figure_plays_in_its_container(browser, mkdocs_site, viewport):
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(mkdocs_site)
    assert ready_titles(page) == ["Bodyweight squat", "Chin nod"]
    for k in range(2):
        state = posed(page, k)
        assert state["live"] == "live" and state["head"] and state["box"] > 150, state
        assert state["w"] >= state["box"] - 40, state
    page.goto(mkdocs_site + "guide/containers/")
    assert ready_titles(page) == ["In a note", "In details", "In a tab"]
    assert page.evaluate(f"{FIGS}.map(f => f.checkVisibility())") == [True, False, False]
    page.click("summary:has-text('Closed at load')")
    page.click("label:has-text('Second')")
    for k in range(3):
        state = posed(page, k)
        assert state["live"] == "live" and state["head"] and state["box"] > 150, state
        assert state["w"] >= state["box"] - 40, state
    page.goto(mkdocs_site + "guide/reading/")
    assert page.evaluate("typeof customElements.get('posecode-figure')") == "undefined"   # no figure: no runtime
    assert errors == []
    context.close()


def test_instant_navigation_brings_playing_figures(browser, mkdocs_site):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(mkdocs_site + "guide/reading/")   # no figure here: the runtime is not loaded yet
    page.evaluate("window.__stayed = true")
    page.click("nav.md-nav--primary a:has-text('Containers')")
    page.wait_for_url(re.compile(r".*/guide/containers/$"))
    page.wait_for_function("document.querySelector('posecode-figure')?.dataset.title === 'In a note'")
    assert page.evaluate("window.__stayed === true")   # instant: the document was not reloaded
    page.wait_for_function("customElements.get('posecode-figure') !== undefined")
    assert ready_titles(page) == ["In a note", "In details", "In a tab"]
    state = posed(page, 0)
    assert state["live"] == "live" and state["head"], state
    page.click("nav.md-nav--primary a:has-text('Home')")
    page.wait_for_url(re.compile(r".*/library/$"))
    page.wait_for_function("document.querySelector('posecode-figure')?.dataset.title === 'Bodyweight squat'")
    assert page.evaluate("window.__stayed === true")
    assert ready_titles(page) == ["Bodyweight squat", "Chin nod"]
    assert posed(page, 0)["head"]
    assert errors == []
    page.close()


def test_palette_toggle_recolours_the_figures(browser, mkdocs_site):
    dark = re.findall(r"--pc-ground:\s*(#[0-9a-f]+)", THEME_CSS.read_text(encoding="utf-8"))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(mkdocs_site)
    ready_titles(page)
    posed(page, 0)
    before = page.evaluate(f"(() => {{ const f = {FIGS}[0]; return [f.ground, f.drawCount]; }})()")
    assert before[0] == dark[0]   # the light scheme: the default theme's light ground
    page.click("form[data-md-component=palette] label:visible")
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    posed(page, 0)
    after = page.evaluate(f"(() => {{ const f = {FIGS}[0]; return [f.ground, f.drawCount]; }})()")
    assert after[0] == dark[1] and after[1] > before[1]   # re-coloured and drawn again
    page.close()


def test_printed_page_shows_posters(browser, mkdocs_site):
    """Printed, each figure is its poster and step list (the default theme's print rules)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(mkdocs_site)
    ready_titles(page)
    posed(page, 0)
    page.click("form[data-md-component=palette] label:visible")   # printed from the dark scheme
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    page.emulate_media(media="print")
    # black on white whatever the screen's scheme (the theme's print colours)
    assert page.evaluate(f"getComputedStyle({FIGS}[0].querySelector('.posecode-poster .pc-right')).stroke") \
        == "rgb(0, 0, 0)"
    # the step list numbered, each cue on its own line (not run into the timing)
    assert page.evaluate(f"getComputedStyle({FIGS}[1].querySelector('.posecode-phases')).listStyleType") == "decimal"
    assert page.evaluate(f"getComputedStyle({FIGS}[0].querySelector('.posecode-phase-cue')).display") == "block"
    shown = page.evaluate(f"""{FIGS}.map(f => [getComputedStyle(f.querySelector('canvas')).display,
        getComputedStyle(f.querySelector('.posecode-poster')).display,
        f.querySelector('.posecode-poster svg').getBoundingClientRect().height > 100])""")
    assert shown == [["none", "block", True]] * 2
    page.close()
