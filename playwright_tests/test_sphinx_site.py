"""The Sphinx extension's pages in Chromium (issue 23): the fixture project tests/fixtures/sphinx_site
built by Sphinx's HTML builder and served; on every page, at a desktop and a phone viewport, every
figure reaches ready, and once scrolled into view (the one inside a closed ``<details>`` after it is
opened) is drawn at its box's size and posed (``sample()`` puts its head at standing height). The
page without figures loads no runtime and raises no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import serve_folder
from .pages import needs_browser

pytestmark = needs_browser

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "sphinx_site"
#: page -> the titles of its figures, in order (from the fixture's index.md and guide/moves.rst)
PAGES = {"index.html": ["Squat", "Nod in a list", "Side bend"],
         "guide/moves.html": ["Nod from the side", "Hidden side bend"],
         "plain.html": []}


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory):
    """The fixture project built with ``sphinx-build -b html -W`` and served on 127.0.0.1."""
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    from sphinx.cmd.build import build_main

    from posecode_ssg.site.build import RUNTIME_BUNDLE

    if not RUNTIME_BUNDLE.exists():
        pytest.skip("runtime bundle not built (npm ci && npm run build)")
    out = tmp_path_factory.mktemp("sphinx-site") / "html"
    assert build_main(["-b", "html", "-q", "-W", str(FIXTURE), str(out)]) == 0
    with serve_folder(out) as base_url:
        yield base_url


@pytest.mark.parametrize("viewport", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_every_figure_comes_up_posed(browser, sphinx_site, viewport):
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    figs = "[...document.querySelectorAll('posecode-figure')]"
    for path, titles in PAGES.items():
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # console errors, but the browser's own request for /favicon.ico (the fixture has none)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error"
                and not m.location.get("url", "").endswith("/favicon.ico") else None)
        page.goto(f"{sphinx_site}/{path}")
        page.wait_for_load_state("load")
        if not titles:
            assert page.evaluate("typeof customElements.get('posecode-figure')") == "undefined"
            assert page.evaluate("!document.querySelector('meta[name=posecode-rig]')")
            assert errors == [], (path, errors)
            page.close()
            continue
        assert page.evaluate(f"Promise.all({figs}.map(f => f.ready.then(() => f.dataset.title)))") == titles
        visible = page.evaluate(f"{figs}.map(f => f.checkVisibility())")
        # the figure inside the closed <details> is hidden until its summary is clicked
        assert visible == [not t.startswith("Hidden") for t in titles], (path, visible)
        if not all(visible):
            page.click("details.posecode-hidden > summary")
        for k, title in enumerate(titles):
            page.evaluate(f"{figs}[{k}].scrollIntoView({{block: 'center'}})")
            # shown: the runtime draws it once it intersects the viewport (IntersectionObserver)
            page.wait_for_function(f"{figs}[{k}].view.dataset.state === 'live'", timeout=10_000)
            page.evaluate("posecode.frame()")
            state = page.evaluate(f"""(() => {{ const f = {figs}[{k}]; f.seek(0); const s = f.sample();
                return {{w: f.canvas.width, h: f.canvas.height, box: Math.round(f.getBoundingClientRect().width),
                         live: f.view.dataset.state,
                         head: !!(s && s.bones && s.bones.head && s.bones.head[1] > 1.3)}}; }})()""")
            assert state["box"] > 200 and state["w"] >= state["box"] - 40, (path, title, state)
            assert state["live"] == "live" and state["head"], (path, title, state)
        assert errors == [], (path, errors)
        page.close()
    context.close()
