"""The MkDocs cases of ../shared/cases/bugs in Chromium: mk-asset-urls (the site served under
its ``site_url`` sub-path, every request the figures make answered 200 inside it, each figure
animating; the offline build opened from ``file://`` shows posters and says why once) and
mk-hidden-containers (figures in closed details blocks, a hidden tab and a block nested in it
are drawn at their container's width and pixel ratio once shown, after a resize too, stop drawing
when hidden again, and print as posters)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_path

from .conftest import serve_folder
from .pages import needs_browser

pytestmark = needs_browser

FIGS = "[...document.querySelectorAll('posecode-figure')]"
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def build_case(name: str, tmp: Path, out: Path, *args: str) -> Path:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    from posecode_ssg.integrations.embed import RUNTIME_DIST, RUNTIME_NAME

    if not (RUNTIME_DIST / RUNTIME_NAME).is_file():
        pytest.skip("runtime bundle not built (npm ci && npm run build)")
    project = Path(shutil.copytree(shared_path("cases", "bugs", name), tmp / name))
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out), *args],
                         cwd=project, env=ENV, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return out


def ready(page) -> list[str]:
    return page.evaluate(f"customElements.whenDefined('posecode-figure').then(() => "
                         f"Promise.all({FIGS}.map(f => f.ready.then(() => f.dataset.title))))")


def drawn(page, k: int) -> dict:
    """Figure ``k`` after the next frame: its box, canvas backing size, its container's content
    width, the pixel ratio, draws so far, and whether its head is at standing height."""
    page.evaluate("posecode.frame()")
    return page.evaluate(f"""(() => {{ const f = {FIGS}[{k}], c = f.parentElement, cs = getComputedStyle(c);
        const s = f.sample(), r = f.canvas.getBoundingClientRect();
        return {{box: f.getBoundingClientRect().width, cw: f.canvas.width, css: r.width, dpr: devicePixelRatio,
                 inner: c.getBoundingClientRect().width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)
                        - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth),
                 draws: f.drawCount, live: f.view.dataset.state,
                 head: !!(s && s.bones && s.bones.head && s.bones.head[1] > 0.8)}}; }})()""")


def test_asset_urls_under_a_sub_path(browser, tmp_path):
    www = tmp_path / "www"
    build_case("mk-asset-urls", tmp_path, www / "docs" / "movement")
    with serve_folder(www) as base:
        for page_path in ["index.html", "strength/squat.html", "strength/upper%20body/curl.html"]:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            failed: list[str] = []
            page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400
                    and "favicon" not in r.url else None)
            outside: list[str] = []
            page.on("request", lambda r: outside.append(r.url) if r.url.startswith(base)
                    and not r.url.startswith(base + "/docs/movement/") else None)
            page.goto(f"{base}/docs/movement/{page_path}")
            assert len(ready(page)) == 1
            page.evaluate(f"{FIGS}[0].scrollIntoView({{block: 'center'}})")
            first = drawn(page, 0)
            page.wait_for_timeout(300)
            later = drawn(page, 0)
            assert later["live"] == "live" and later["head"] and later["draws"] > first["draws"], page_path
            assert failed == [] and outside == [], (page_path, failed, outside)
            page.close()


def test_offline_build_from_file_urls_shows_posters(browser, tmp_path):
    out = build_case("mk-asset-urls", tmp_path, tmp_path / "offline", "-f", "mkdocs-offline.yml")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    messages: list[str] = []
    page.on("console", lambda m: messages.append(m.text) if m.type == "error" else None)
    for url in ["index.html", "strength/squat.html", "strength/upper body/curl.html"]:
        page.goto((out / url).as_uri())
        page.wait_for_timeout(500)
        shown = page.evaluate(f"""{FIGS}.map(f => {{ const p = f.querySelector('.posecode-poster svg');
            return [!!p && p.getBoundingClientRect().height > 50, !!f.querySelector('.posecode-phases li'),
                    f.textContent.includes('rig humanoid')]; }})""")
        assert shown == [[True, True, False]], url
    ours = [m for m in messages if m.startswith("posecode:")]
    assert len(ours) == 3 and all("file://" in m for m in ours)   # once a page, naming the reason
    page.close()


@pytest.fixture(scope="module")
def hidden_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hidden")
    out = build_case("mk-hidden-containers", tmp, tmp / "www")
    with serve_folder(out) as base:
        yield base + "/"


def test_hidden_containers_draw_at_their_size_when_shown(browser, hidden_site):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # (the case's Material loads Google Fonts, which this offline machine cannot resolve)
    page.on("console", lambda m: errors.append(m.text) if (m.type == "error" and "ERR_NAME_NOT_RESOLVED" not in m.text)
            or "context lost" in m.text.lower() else None)
    page.goto(hidden_site)
    assert len(ready(page)) == 6
    assert page.evaluate(f"{FIGS}.map(f => f.checkVisibility())") == [True, False, True, True, False, False]

    def check(k: int) -> dict:
        page.evaluate(f"{FIGS}[{k}].scrollIntoView({{block: 'center'}})")
        page.wait_for_timeout(500)
        state = drawn(page, k)
        assert state["live"] == "live" and state["head"], (k, state)
        assert abs(state["box"] - state["inner"]) <= 2, (k, state)
        assert abs(state["cw"] - state["css"] * state["dpr"]) <= 1, (k, state)
        return state

    page.click("summary:has-text('Show the squat')")
    check(1)
    page.click("label:has-text('Side view')")
    state = check(4)
    # the tab panel holds the whole player, controls included
    inside = page.evaluate(f"""(() => {{ const f = {FIGS}[4], p = f.closest('.tabbed-block');
        return f.getBoundingClientRect().bottom <= p.getBoundingClientRect().bottom + 0.5; }})()""")
    assert inside and state["box"] > 200
    page.click("summary:has-text('Nested')")
    check(5)
    # hidden again: no more drawing
    page.click("summary:has-text('Show the squat')")
    page.click("label:has-text('Front view')")
    before = [drawn(page, k)["draws"] for k in (1, 4, 5)]
    for _ in range(5):
        page.evaluate("posecode.frame()")
    assert [drawn(page, k)["draws"] for k in (1, 4, 5)] == before
    page.click("label:has-text('Side view')")
    check(4)
    assert page.evaluate("posecode.stats().contexts") == 1
    assert errors == []
    page.close()


def test_a_resize_while_closed_is_taken_when_opened(browser, hidden_site):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(hidden_site)
    ready(page)
    page.set_viewport_size({"width": 600, "height": 800})
    page.click("summary:has-text('Show the squat')")
    page.evaluate(f"{FIGS}[1].scrollIntoView({{block: 'center'}})")
    page.wait_for_timeout(500)
    state = drawn(page, 1)
    assert abs(state["box"] - state["inner"]) <= 2 and state["box"] < 600
    assert abs(state["cw"] - state["css"] * state["dpr"]) <= 1
    page.close()


def test_print_shows_the_posters_of_open_containers(browser, hidden_site):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(hidden_site)
    ready(page)
    page.emulate_media(media="print")
    shown = page.evaluate(f"""{FIGS}.map(f => f.checkVisibility() ? [getComputedStyle(f.querySelector('canvas')).display,
        f.querySelector('.posecode-poster svg').getBoundingClientRect().height > 50] : null)""")
    printed = [s for s in shown if s is not None]   # the open containers' (Material prints every tab)
    assert len(printed) >= 3 and all(s == ["none", True] for s in printed), shown
    page.close()
