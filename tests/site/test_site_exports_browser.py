"""Exports in the site build with the real headless Chromium (issue 25 item 3): the social card is
a 1200×630 PNG of the runtime's figure, the GIF one loop at 15 fps (tests/site/test_exports.py
covers the rest with the browser replaced). It starts its own Playwright, so it lives among the
tests that run before the browser tests' session-wide Playwright (playwright_tests/)."""

from __future__ import annotations

import pytest

from posecode_ssg.config import load_config
from posecode_ssg.evaluate.browser import chromium_executable
from posecode_ssg.site.build import build_site

pytestmark = pytest.mark.skipif(chromium_executable() is None, reason="no Chromium (apt-get install chromium)")

MOVE = """posecode exercise "Half squat"
  rig humanoid
  pose start = standing

  step "Down" 1s settle:
    hips: flex 60
    knees: flex 70
    ground-lock: feet

  step "Up" 1s flow:
    hips: flex 0
    knees: flex 0
    ground-lock: feet
"""


def test_real_card_and_gif(tmp_path):
    from PIL import Image

    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "half-squat.posecode").write_text(MOVE, encoding="utf-8")
    (tmp_path / "posecode.toml").write_text('base_url = "https://example.org/"\nexports = ["card", "gif"]\n',
                                            encoding="utf-8")
    result = build_site(load_config(None, cwd=tmp_path), progress=False)
    assert not result.errors and not result.warnings, (result.errors, result.warnings)
    site = tmp_path / "site"
    [card] = (site / "assets" / "cards").glob("*.png")
    [gif] = (site / "assets" / "gifs").glob("*.gif")
    html = (site / "half-squat" / "index.html").read_text(encoding="utf-8")
    assert f'content="https://example.org/assets/cards/{card.name}"' in html
    assert f'href="/assets/gifs/{gif.name}" download="half-squat.gif"' in html
    with Image.open(card) as img:
        assert img.size == (1200, 630)
        right = img.convert("RGB").crop((600, 0, 1200, 630))
        assert len(set(right.getdata())) > 50   # the figure is drawn, not a flat backdrop
    with Image.open(gif) as img:
        assert img.size == (480, 360) and img.n_frames == 30
