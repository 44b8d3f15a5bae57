"""The live-reload client in real Chromium, against the dev server with a
stand-in build (tests/serve/serve_standin.py) so the client's own behaviour
is isolated: a text edit reloads the page and restores the scroll position (the
stand-in's pages have no <main>, so the in-place update falls back to a reload), a
broken document shows the error overlay and a fix clears it, a figure edit
calls the element's ``load()`` without a reload. The same flows with the real
build and runtime are in test_serve_site.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "serve"))
from serve_standin import StandInSource  # noqa: E402

from posecode_ssg.site.serve import LiveSite, ServeOptions, ThreadedServer  # noqa: E402

from .pages import needs_browser  # noqa: E402

pytestmark = needs_browser  # Chromium comes from playwright_tests/conftest.py


FAKE_FIGURE_JS = """
class FakeFigure extends HTMLElement {
  connectedCallback() {
    this.loads = 0;
    this.motion = JSON.parse(this.querySelector('script[type="application/json"]').textContent);
  }
  load(motion) { this.loads += 1; this.motion = motion; }
}
customElements.define("posecode-figure", FakeFigure);
"""

FILLER = "\n\n".join(f"Paragraph {n} of filler text to make the page tall." for n in range(60))
PAGE = f"""# Knee drill

{FILLER}

```posecode
posecode exercise "Knee bend"
  rig humanoid
  step "Bend" 1.5s settle:
    knees: flex 40
```

Closing words.
"""
FENCE_LINE = PAGE.splitlines().index("    knees: flex 40") + 1


@pytest.fixture
def served(tmp_path):
    (tmp_path / "content").mkdir()
    (tmp_path / "theme").mkdir()
    (tmp_path / "theme" / "style.css").write_text("body { font: 16px/1.5 sans-serif; }\n")
    (tmp_path / "theme" / "figure.js").write_text(FAKE_FIGURE_JS)
    (tmp_path / "content" / "index.md").write_text(PAGE, encoding="utf-8")
    live = LiveSite(StandInSource(tmp_path), out_dir=tmp_path / ".serve" / "site",
                    options=ServeOptions(quiet=True))
    with ThreadedServer(live) as url:
        yield url, tmp_path / "content" / "index.md"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_text_edit_reloads_and_restores_scroll(served, page):
    url, source = served
    page.goto(url)
    page.wait_for_function("window.posecodeLive && window.posecodeLive.instance")
    page.evaluate("window.scrollTo(0, 900); window.__sameDocument = true")
    edit(source, "Closing words.", "Closing words, revised.")
    page.wait_for_function("document.body.textContent.includes('Closing words, revised.')", timeout=10000)
    page.wait_for_load_state("load")
    page.wait_for_function("window.scrollY > 0")
    assert page.evaluate("window.__sameDocument") is None  # it was a reload
    assert abs(page.evaluate("window.scrollY") - 900) <= 2


def test_broken_document_shows_overlay_and_fix_clears_it(served, page):
    url, source = served
    page.goto(url)
    page.wait_for_function("window.posecodeLive && window.posecodeLive.instance")
    edit(source, "knees: flex 40", "knees: flx 40")
    overlay = page.locator("#posecode-live-overlay")
    overlay.wait_for(state="attached", timeout=10000)
    text = overlay.locator(".panel").inner_text()
    assert f"index.md:{FENCE_LINE}:12: error[unknown-action]: unknown action 'flx'" in text
    assert f"{FENCE_LINE} |     knees: flx 40" in text
    # the caret run under 'flx' is as wide as the word, as in the terminal
    assert overlay.locator(".caret").inner_text().strip() == "^^^"
    assert "hint: did you mean 'flex'?" in text
    # The page underneath is the last good version.
    assert page.evaluate("document.querySelector('posecode-figure').motion.text").endswith("flex 40")
    edit(source, "knees: flx 40", "knees: flex 45")
    overlay.wait_for(state="detached", timeout=10000)
    page.wait_for_function("document.querySelector('posecode-figure').motion.text.endsWith('flex 45')")


def test_overlay_survives_a_reload_while_broken(served, page):
    url, source = served
    edit(source, "knees: flex 40", "knees: flx 40")
    page.goto(url)
    page.locator("#posecode-live-overlay").wait_for(state="attached", timeout=10000)
    page.reload()
    page.locator("#posecode-live-overlay").wait_for(state="attached", timeout=10000)
    page.keyboard.press("Escape")
    page.locator("#posecode-live-overlay").wait_for(state="detached")


def test_figure_edit_swaps_in_place_without_reload(served, page):
    url, source = served
    page.goto(url)
    page.wait_for_function("window.posecodeLive && window.posecodeLive.instance")
    page.evaluate("window.scrollTo(0, 700); window.__sameDocument = true")
    edit(source, "knees: flex 40", "knees: flex 60")
    page.wait_for_function("document.querySelector('posecode-figure').loads === 1", timeout=10000)
    assert page.evaluate("document.querySelector('posecode-figure').motion.text").endswith("flex 60")
    assert page.evaluate("window.__sameDocument") is True
    assert page.evaluate("window.scrollY") == 700
    assert page.evaluate("window.posecodeLive.lastAction") == "figures"
    assert "flex 60" in page.evaluate("document.querySelector('figure.posecode-poster').textContent")
