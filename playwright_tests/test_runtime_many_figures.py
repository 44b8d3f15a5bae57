"""The md-many-figures bug case (../shared/cases/bugs/md-many-figures) end to end: the page is
built by the real site build (posecode_ssg.site.build) and played by the runtime in Chromium at
1280×800. Expected (its expected.md): 24 figures in section order with distinct ids, figure 2 its
own (shallower) squat, never more than 8 live WebGL contexts and no context-loss warnings while
scrolling down and back, figures 24 and 1 drawn and animating after the round trip, and figures
out of view not rendering."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from .pages import COUNT_CONTEXTS, QuietHandler, needs_browser, shared_path

pytestmark = needs_browser


@pytest.fixture
def built_page(tmp_path):
    try:
        from posecode_ssg.config import load_config
        from posecode_ssg.site.build import build_site
    except ImportError as exc:
        pytest.skip(f"site build not available: {exc}")
    page_md = shared_path("cases", "bugs", "md-many-figures", "page.md")
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "index.md").write_text(page_md.read_text(encoding="utf-8"), encoding="utf-8")
    result = build_site(load_config(cwd=tmp_path), out_dir=tmp_path / "out", progress=False)
    assert not result.errors and result.figures == 24
    handler = functools.partial(QuietHandler, directory=str(tmp_path / "out"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


def frames(page, n):
    for _ in range(n):
        page.evaluate("posecode.frame()")


def test_md_many_figures(browser, built_page):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
    context.add_init_script(COUNT_CONTEXTS)
    page = context.new_page()
    console = []
    page.on("console", lambda m: console.append(m.text))
    page.on("pageerror", lambda e: console.append(f"pageerror {e}"))
    page.goto(built_page)
    page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
    ids = page.evaluate("posecode.figures.map(f => f.id)")
    assert len(ids) == 24 and len(set(ids)) == 24
    all_ids = page.evaluate("[...document.querySelectorAll('[id]')].map(e => e.id)")
    assert len(all_ids) == len(set(all_ids)), "an id occurs twice"
    names = page.evaluate("posecode.figures.map(f => f.sample() && f._model.motion.name)")
    assert names[0] == names[1] == "Squat"
    # figure 2 is the shallow squat, not a copy of figure 1: compare the knees at the end of "Down"
    knees = page.evaluate("""[0, 1].map(i => { const f = posecode.figures[i]; f.seek(1);
        const s = f.sample(); return s.bones.knee_left[1] - s.bones.hip_left[1]; })""")
    assert knees[0] != pytest.approx(knees[1], abs=0.01)
    page.evaluate("posecode.figures.forEach(f => f.play())")
    frames(page, 3)
    first, last = "posecode.figures[0]", "posecode.figures[23]"
    # scroll to the bottom: the last figure draws and animates, the first one stops drawing
    page.evaluate(f"{last}.scrollIntoView()")
    frames(page, 3)
    d1 = page.evaluate(f"{first}.drawCount")
    t24 = page.evaluate(f"{last}.sample().t")
    frames(page, 8)
    assert page.evaluate(f"{first}.drawCount") == d1, "an off-screen figure kept rendering"
    assert page.evaluate(f"{last}.drawCount") > 0 and page.evaluate(f"{last}.sample().t") != t24
    # and back to the top: figure 1 draws and animates again
    page.evaluate(f"{first}.scrollIntoView()")
    frames(page, 3)
    d1, t1 = page.evaluate(f"{first}.drawCount"), page.evaluate(f"{first}.sample().t")
    frames(page, 6)
    assert page.evaluate(f"{first}.drawCount") > d1 and page.evaluate(f"{first}.sample().t") != t1
    assert page.evaluate(f"{first}.view.dataset.state") == "live"
    assert page.evaluate("window.__webgl") <= 8
    assert page.evaluate("window.__webgl") == 1
    bad = [m for m in console if "Too many active WebGL contexts" in m or "Context Lost" in m or "pageerror" in m]
    assert not bad, bad
    context.close()
