"""The player's controls on the built demo library, from a fresh-user trial: the control bar on a
phone, the time slider under ``prefers-reduced-motion`` (it must name the pose the poster shows),
and zoom with panning (``+`` cropped the feet and nothing could bring them back).

The runtime's element is posecode_ssg/runtime/posecode-figure.js; docs/runtime.md ("Player")
documents the keys.
"""

from __future__ import annotations

import pytest

from .pages import COUNT_CONTEXTS, needs_browser
from .test_pages import FIG, new_page

pytestmark = needs_browser

#: every child of the control bar: [class, left, top, width, height] in CSS pixels
CONTROL_BOXES = """[...document.querySelector('posecode-figure .pc-controls').children].map(e => {
    const r = e.getBoundingClientRect(); return [e.className, r.left, r.top, r.width, r.height]; })"""


def open_figure(page, url: str) -> None:
    page.goto(url)
    page.evaluate(f"{FIG}.ready")
    page.evaluate(f"{FIG}.scrollIntoView({{block: 'center'}})")


# ---------------------------------------------------------------------------------------------
# the control bar on a phone
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("width,height", [(390, 844), (360, 740)])
@pytest.mark.parametrize("path", ["strength/bodyweight-squat/", "mobility/knee-hug/"])
def test_the_control_bar_is_one_row_on_a_phone(browser, built_site, width, height, path):
    """Play, time slider, time readout and speed share one row (the speed selector wrapped onto a
    row of its own under the others); the slider keeps a usable length. knee-hug's loop is over
    10 s, the widest readout ("10.0 / 13.5 s")."""
    page = new_page(browser, viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    open_figure(page, built_site.url(path))
    boxes = page.evaluate(CONTROL_BOXES)
    assert [b[0] for b in boxes] == ["pc-play", "pc-scrub", "pc-time", "pc-speed"]
    middles = [top + h / 2 for _, _, top, _, h in boxes]
    assert max(middles) - min(middles) < 4, f"{width}px: the controls are not on one row: {boxes}"
    lefts = [b[1] for b in boxes]
    assert lefts == sorted(lefts)
    bar = page.evaluate("(() => { const r = document.querySelector('posecode-figure .pc-controls').getBoundingClientRect(); return [r.left, r.right]; })()")
    assert boxes[-1][1] + boxes[-1][3] <= bar[1] + 0.5 and bar[1] <= width
    assert boxes[1][3] >= 90, f"{width}px: the time slider is {boxes[1][3]:.0f} px long"
    # still labelled for a screen reader and reachable with Tab
    fig = page.locator("posecode-figure").first
    assert fig.get_by_role("combobox", name="Speed").is_visible()
    assert fig.get_by_role("slider", name="Time").is_visible()
    assert not page.problems, page.problems
    page.context.close()


def test_a_very_narrow_player_puts_the_slider_on_its_own_row(browser, built_site):
    """Too narrow for one row (a 300 px window), the bar wraps on purpose: the time slider across
    the full width first, then play, readout and speed on one row under it."""
    page = new_page(browser, viewport={"width": 300, "height": 640}, is_mobile=True, has_touch=True)
    open_figure(page, built_site.url("mobility/knee-hug/"))
    boxes = {b[0]: b[1:] for b in page.evaluate(CONTROL_BOXES)}
    bar = page.evaluate("document.querySelector('posecode-figure .pc-controls').clientWidth")
    scrub = boxes.pop("pc-scrub")
    assert scrub[2] >= bar - 6            # the range input's own 2 px margins
    rest = list(boxes.values())
    middles = [top + h / 2 for _, top, _, h in rest]
    assert max(middles) - min(middles) < 4 and min(top for _, top, _, _ in rest) >= scrub[1] + scrub[3]
    assert page.evaluate("document.documentElement.scrollWidth") <= 300
    assert not page.problems, page.problems
    page.context.close()


# ---------------------------------------------------------------------------------------------
# reduced motion: the slider agrees with the poster
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["strength/bodyweight-squat/", "strength/reverse-lunge/", "strength/push-up/"])
def test_reduced_motion_slider_names_the_poster_pose(browser, built_site, path):
    """Under reduced motion the view shows the build's poster: the pose farthest from the start
    (the end of phase ``data-frame``). The slider, the readout, its spoken value and the phase list
    name that moment, not 0.0 s; nothing moves and no WebGL context is made until the reader asks,
    and Play goes on from there."""
    page = new_page(browser, reduced_motion="reduce")
    page.context.add_init_script(COUNT_CONTEXTS)
    open_figure(page, built_site.url(path))
    for _ in range(3):
        page.evaluate("posecode.frame()")
    fig = page.locator("posecode-figure").first
    frame = int(fig.locator(".pc-view > .posecode-poster svg").get_attribute("data-frame"))
    assert frame >= 1
    end = page.evaluate(f"{FIG}._model.timeline.times[{frame}]")
    name = page.evaluate(f"{FIG}._model.motion.phases[{frame - 1}].name")
    assert fig.locator(".pc-view > .posecode-poster svg").is_visible()
    assert page.evaluate(f"{FIG}.playing") is False
    scrub = fig.get_by_role("slider", name="Time")
    assert float(scrub.input_value()) == pytest.approx(end, abs=1e-3)
    assert page.evaluate(f"{FIG}.sample().t") == pytest.approx(end, abs=1e-3)
    assert page.evaluate(f"{FIG}.sample().phase") == frame - 1
    assert fig.locator(".pc-time").text_content().startswith(f"{end:.1f} / ")
    assert f"{end:.1f} of" in scrub.get_attribute("aria-valuetext") and name in scrub.get_attribute("aria-valuetext")
    assert fig.locator("li[aria-current=step]").text_content().startswith(name)
    assert page.evaluate("window.__webgl") == 0 and page.evaluate(f"{FIG}.drawCount") == 0
    fig.get_by_role("button", name="Play").click()
    page.evaluate("posecode.frame()")
    page.evaluate("posecode.frame()")
    assert page.evaluate(f"{FIG}.sample().t") >= end - 1e-3
    assert not page.problems, page.problems
    page.context.close()


# ---------------------------------------------------------------------------------------------
# zoom and pan
# ---------------------------------------------------------------------------------------------

#: normalised device coordinates [x, y] (−1…1 across the view) of the figure's lowest and highest
#: landmark, and the camera's viewing direction, from the camera of the last drawn frame
PROJECT = """(() => { const f = posecode.figures[0], c = f.camera, L = f.sample().landmarks;
  const ndc = (p) => { const v = c.matrixWorldInverse.elements, P = c.projectionMatrix.elements;
    const e = [0, 1, 2, 3].map(i => v[i] * p[0] + v[4 + i] * p[1] + v[8 + i] * p[2] + v[12 + i]);
    const q = [0, 1, 3].map(i => P[i] * e[0] + P[4 + i] * e[1] + P[8 + i] * e[2] + P[12 + i] * e[3]);
    return [q[0] / q[2], q[1] / q[2]]; };
  const pts = Object.values(L), lo = pts.reduce((a, b) => (b[1] < a[1] ? b : a)), hi = pts.reduce((a, b) => (b[1] > a[1] ? b : a));
  const d = c.getWorldDirection(c.position.clone());
  return {feet: ndc(lo), top: ndc(hi), dir: [d.x, d.y, d.z]}; })()"""


def test_zoom_in_then_pan_to_the_feet(browser, built_site):
    """Zoomed in with ``+``, the feet leave the view; Shift with the arrow keys pans (the view
    direction unchanged) until they are back, the pan stops at the figure's edge, a Shift-drag
    moves the figure with the pointer, and ``Home`` resets both zoom and pan."""
    page = new_page(browser, reduced_motion="no-preference", viewport={"width": 800, "height": 800})
    open_figure(page, built_site.url("strength/bodyweight-squat/"))
    page.evaluate(f"{FIG}.seek(0)")                       # standing: head high, feet on the floor

    def look():
        page.evaluate("posecode.frame()")
        page.evaluate("posecode.frame()")
        return page.evaluate(PROJECT)

    start = look()
    assert -1 < start["feet"][1] < start["top"][1] < 1            # the whole figure in view
    view = page.locator("posecode-figure .pc-view").first
    view.focus()
    for _ in range(6):
        page.keyboard.press("+")
    zoomed = look()
    assert zoomed["feet"][1] < -1, "zooming in keeps the feet in view: this test no longer shows the crop"
    # Shift+ArrowDown looks lower without turning the camera
    presses = 0
    while look()["feet"][1] < -0.9 and presses < 6:
        page.keyboard.press("Shift+ArrowDown")
        presses += 1
    panned = look()
    assert -0.9 <= panned["feet"][1] < 1, f"the feet are not back in view after {presses} presses: {panned}"
    assert panned["dir"] == pytest.approx(zoomed["dir"], abs=1e-9)
    # the pan stops at the bounding box: the feet never go above the middle of the view
    for _ in range(10):
        page.keyboard.press("Shift+ArrowDown")
    assert look()["feet"][1] > -1 and look()["feet"][1] < 0.5
    # sideways too, and the way back up
    page.keyboard.press("Shift+ArrowRight")
    assert look()["feet"][0] < panned["feet"][0] - 0.05
    # a Shift-drag: the figure follows the pointer (dragged 40 px down, the feet move about as far)
    before = look()
    box = view.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.keyboard.down("Shift")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + 40, steps=4)
    page.mouse.up()
    page.keyboard.up("Shift")
    dragged = look()
    moved_px = (before["feet"][1] - dragged["feet"][1]) * box["height"] / 2
    assert moved_px == pytest.approx(40, rel=0.25), moved_px
    assert dragged["dir"] == pytest.approx(before["dir"], abs=1e-9)
    # zooming back out takes the pan back to none; Home restores the first view exactly
    for _ in range(6):
        page.keyboard.press("-")
    out = look()
    assert out["feet"] == pytest.approx(start["feet"], abs=1e-6) and out["top"] == pytest.approx(start["top"], abs=1e-6)
    page.keyboard.press("+")
    page.keyboard.press("Shift+ArrowUp")
    page.keyboard.press("Home")
    home = look()
    assert home["feet"] == pytest.approx(start["feet"], abs=1e-9) and home["dir"] == pytest.approx(start["dir"], abs=1e-9)
    assert "Shift" in view.get_attribute("aria-label")
    assert not page.problems, page.problems
    page.context.close()


# ---------------------------------------------------------------------------------------------
# theme faults seen in the screenshots
# ---------------------------------------------------------------------------------------------


def readable_fraction(png: bytes) -> float:
    """Fraction of a card poster's pixels at a WCAG contrast ratio of 3:1 or more against its
    background (the top-left pixel): the figure, its props and the ground line."""
    import numpy as np

    from .imagecompare import load_rgb

    c = load_rgb(png).astype(float) / 255
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    hi, lo = np.maximum(lum, lum[0, 0]), np.minimum(lum, lum[0, 0])
    return float(((hi + 0.05) / (lo + 0.05) >= 3).mean())


def test_card_posters_read_in_the_dark_scheme(browser, built_site):
    """A card's poster is an <img> of an SVG in the light page's colours (dark slate body): on the
    dark theme's card the body vanished (about 1.5:1). In the dark scheme as much of the drawing
    reads at 3:1 as in the light one."""
    seen = {}
    for scheme in ("light", "dark"):
        page = new_page(browser, color_scheme=scheme, viewport={"width": 1280, "height": 800})
        page.goto(built_site.url(""))
        card = page.locator(".card", has_text="Bodyweight squat").locator(".card-poster img")
        card.scroll_into_view_if_needed()
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=card.element_handle())
        seen[scheme] = readable_fraction(card.screenshot())
        assert not page.problems, page.problems
        page.context.close()
    assert seen["light"] > 0.01
    assert seen["dark"] >= 0.8 * seen["light"], seen


@pytest.mark.parametrize("path", ["", "mobility/knee-hug/"])
def test_a_300px_window_does_not_scroll_sideways(browser, built_site, path):
    """The header's search form kept its input's intrinsic width (326 px of page at 300 and 320)."""
    page = new_page(browser, viewport={"width": 300, "height": 640}, is_mobile=True, has_touch=True)
    page.goto(built_site.url(path))
    assert page.evaluate("document.documentElement.scrollWidth") <= 300
    box = page.locator(".header-search").bounding_box()
    assert box["x"] + box["width"] <= 300
    assert not page.problems, page.problems
    page.context.close()
