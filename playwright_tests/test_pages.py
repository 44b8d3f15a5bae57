"""The built demo library in Chromium (issue 8 item 4): the player on a real page (play/pause,
scrub, speed under Playwright's fake clock), keyboard-only use of the page, the reduced-motion
poster written by the build, the error boxes for broken data, a phone-sized viewport, the dark
theme, a page of 200 figures and the library home's filters.

The runtime's own behaviour on hand-written pages (every key, pointer orbit, invalid-data
messages, 200 figures on one context, offscreen pausing) is tested in test_runtime_figure.py;
these tests check the same features through the site build and the default theme, where the
page layout, the theme's CSS and the build's posters and ids take part.
"""

from __future__ import annotations

import re

import pytest
import yaml

from .conftest import MANY_FIGURES, serve_folder
from .pages import COUNT_CONTEXTS, REPO, needs_browser

pytestmark = needs_browser

FIG = "posecode.figures[0]"


def new_page(browser, **options):
    """A page in a fresh context (device scale 1; ``options`` for ``new_context``) whose page
    errors and console errors are collected in ``page.problems``."""
    options.setdefault("viewport", {"width": 1000, "height": 800})
    context = browser.new_context(device_scale_factor=1, **options)
    page = context.new_page()
    page.problems = []
    page.on("pageerror", lambda exc: page.problems.append(f"pageerror: {exc}"))
    page.on("console", lambda m: page.problems.append(f"console: {m.text}") if m.type == "error" else None)
    return page


def luminance(css_color: str) -> float:
    """Relative luminance (WCAG 2.x, 0–1) of an ``rgb(r, g, b)`` / ``rgba(...)`` colour."""
    r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", css_color)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


# ---------------------------------------------------------------------------------------------
# the player on a built page
# ---------------------------------------------------------------------------------------------


def test_play_pause_scrub_and_speed(browser, built_site):
    # a narrow window keeps the figure small: SwiftShader draws every fake-clock frame
    page = new_page(browser, reduced_motion="no-preference", viewport={"width": 420, "height": 700})
    page.clock.install()     # Playwright's fake clock drives requestAnimationFrame and performance.now
    page.goto(built_site.url("mobility/knee-hug/"))
    page.evaluate(f"{FIG}.ready")
    page.evaluate(f"{FIG}.scrollIntoView({{block: 'center'}})")
    fig = page.locator("posecode-figure").first
    t = lambda: page.evaluate(f"{FIG}.sample().t")  # noqa: E731

    # autoplay: on screen it plays; the button offers Pause
    for _ in range(20):   # the IntersectionObserver reports the figure on screen, then it plays
        page.clock.run_for(100)
        if page.evaluate(f"{FIG}.playing") and page.evaluate(f"{FIG}.drawCount"):
            break
    assert page.evaluate(f"{FIG}.playing") is True
    t0 = t()
    page.clock.run_for(600)
    assert t() > t0 + 0.2                              # the clock moves the figure

    fig.get_by_role("button", name="Pause").click()
    assert page.evaluate(f"{FIG}.playing") is False
    t0 = t()
    page.clock.run_for(300)
    assert t() == t0
    assert fig.get_by_role("button", name="Play").is_visible()

    # scrub: the slider seeks, names the phase, and the phase list marks it
    # (knee-hug: "Draw the knees in" 2.5 s, "Hold" 6 s, "Release" 2.5 s)
    scrub = fig.get_by_role("slider", name="Time")
    scrub.evaluate("(s) => { s.value = '4'; s.dispatchEvent(new Event('input', {bubbles: true})); }")
    page.clock.run_for(50)
    assert t() == pytest.approx(4.0, abs=0.011)
    assert page.evaluate(f"{FIG}.sample().phase") == 1
    assert "Hold" in scrub.get_attribute("aria-valuetext")
    assert fig.locator("li[aria-current=step]").text_content().startswith("Hold")
    # the phase list seeks to the start of a phase
    fig.get_by_role("button", name=re.compile("^Release")).click()
    assert t() == pytest.approx(8.5, abs=1e-6)

    # speed: the select scales the time each stage frame adds. The fake clock's frame times are
    # not exact under load, so the figure is advanced by the stage callback itself: 0.5 s of
    # wall time at speed s moves it 0.5·s seconds (docs/runtime.md, advance(dt))
    for speed, expected in (("2", 1.0), ("0.25", 0.125), ("1", 0.5)):
        fig.get_by_role("combobox", name="Speed").select_option(speed)
        page.evaluate(f"{FIG}.seek(1)")
        page.evaluate(f"{FIG}.advance(0.5)")
        assert t() == pytest.approx(1 + expected, abs=1e-9), f"speed {speed}"
    # and playing at 2x moves faster than at 0.25x over the same clock time
    moved = {}
    for speed in ("2", "0.25"):
        fig.get_by_role("combobox", name="Speed").select_option(speed)
        page.evaluate(f"{FIG}.seek(1)")
        fig.get_by_role("button", name="Play").click()
        page.clock.run_for(400)
        moved[speed] = t() - 1
        fig.get_by_role("button", name="Pause").click()
    assert moved["2"] > 3 * moved["0.25"] > 0
    assert not page.problems, page.problems
    page.context.close()


def test_keyboard_only(browser, built_site):
    page = new_page(browser)
    page.goto(built_site.url("strength/push-up/"))
    page.evaluate(f"{FIG}.ready")
    # the first Tab stop is the skip link, shown when focused; it moves focus past the header
    page.keyboard.press("Tab")
    skip = page.locator(":focus")
    assert skip.text_content().strip() == "Skip to content" and skip.is_visible()
    assert skip.bounding_box()["y"] >= 0
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"
    # Tab on to the figure; every stop on the way shows a focus indicator
    reached = False
    for _ in range(60):
        page.keyboard.press("Tab")
        style = page.evaluate("""(() => { const e = document.activeElement, s = getComputedStyle(e);
            return {view: e.classList.contains('pc-view'), tag: e.tagName, text: (e.textContent || '').trim().slice(0, 30),
                    outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0, shadow: s.boxShadow !== 'none'}; })()""")
        assert style["outline"] or style["shadow"], f"no visible focus on {style}"
        if style["view"]:
            reached = True
            break
    assert reached, "Tab never reached the figure"
    # the player answers to the keyboard: Space plays and pauses, the phase buttons seek
    was = page.evaluate(f"{FIG}.playing")          # autoplay may have started it
    page.keyboard.press("Space")
    assert page.evaluate(f"{FIG}.playing") is (not was)
    page.keyboard.press("Space")
    assert page.evaluate(f"{FIG}.playing") is was
    if was:
        page.keyboard.press("Space")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.phase") == "1":
            break
    page.keyboard.press("Enter")
    assert page.evaluate(f"{FIG}.sample().phase") == 1
    assert not page.problems, page.problems
    page.context.close()


def test_keyboard_only_filters_the_library(browser, built_site):
    page = new_page(browser)
    page.goto(built_site.url(""))
    page.focus("#filter-level")
    page.keyboard.press("ArrowDown")        # the first level after "Any"
    level = page.evaluate("document.getElementById('filter-level').value")
    assert level
    levels = page.evaluate("[...document.querySelectorAll('[data-cards] > .card:not([hidden])')].map(c => c.dataset.level)")
    assert levels and set(levels) == {level}
    page.context.close()


def test_reduced_motion_shows_the_build_poster(browser, built_site):
    page = new_page(browser, reduced_motion="reduce")
    page.context.add_init_script(COUNT_CONTEXTS)
    page.goto(built_site.url("strength/bodyweight-squat/"))
    page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
    page.evaluate(f"{FIG}.scrollIntoView({{block: 'center'}})")
    for _ in range(4):
        page.evaluate("posecode.frame()")
    fig = page.locator("posecode-figure").first
    # the build's SVG poster stands in the player's view, nothing moves, no WebGL at all
    poster = fig.locator(".pc-view > .posecode-poster svg")
    assert poster.is_visible()
    box, view = poster.bounding_box(), fig.locator(".pc-view").bounding_box()
    assert box["width"] > 0.5 * view["width"] or box["height"] > 0.8 * view["height"]
    # paused at the poster's pose: the end of phase data-frame (test_player_controls.py)
    assert page.evaluate("""posecode.figures.every(f => !f.playing && Math.abs(f.sample().t
        - f._model.timeline.times[f.querySelector('svg[data-frame]').getAttribute('data-frame')]) < 1e-3)""")
    assert page.evaluate("window.__webgl") == 0
    assert page.evaluate(f"{FIG}.drawCount") == 0
    # the reader can still ask for the animation
    fig.get_by_role("button", name="Play").click()
    for _ in range(3):
        page.evaluate("posecode.frame()")
    assert page.evaluate(f"{FIG}.playing") is True and page.evaluate(f"{FIG}.drawCount") > 0
    assert not poster.is_visible()
    page.context.close()


# ---------------------------------------------------------------------------------------------
# broken data
# ---------------------------------------------------------------------------------------------


def test_damaged_motion_json_shows_the_runtime_error_box(browser, built_site):
    """A built page whose first figure's motion JSON is damaged after the build (a truncated
    upload, a hand edit): that figure shows the runtime's alert in the theme, the page's other
    figure still plays, nothing is thrown."""
    src = (built_site.root / "strength" / "bodyweight-squat" / "index.html").read_text(encoding="utf-8")
    # still JSON, but "phases" is no longer a list
    broken, n = re.subn(r'"phases":\[', '"phases":7,"damaged":[', src, count=1)
    assert n == 1
    target = built_site.root / "strength" / "bodyweight-squat" / "damaged.html"
    target.write_text(broken, encoding="utf-8")
    page = new_page(browser)
    page.goto(built_site.url("strength/bodyweight-squat/damaged.html"))
    err = page.evaluate(f"{FIG}.ready.then(() => 'resolved', e => e.message)")
    assert err.startswith("posecode-figure:") and "phases" in err
    box = page.locator("posecode-figure").first.get_by_role("alert")
    assert box.is_visible() and "phases" in box.text_content()
    page.evaluate("posecode.figures[1].ready")
    page.evaluate("posecode.figures[1].scrollIntoView({block: 'center'})")
    page.evaluate("posecode.figures[1].play()")
    for _ in range(3):
        page.evaluate("posecode.frame()")
    assert page.evaluate("posecode.figures[1].drawCount") > 0
    assert not [p for p in page.problems if "pageerror" in p], page.problems
    page.context.close()


def test_broken_posecode_shows_the_build_error_box(browser, tmp_path):
    """With keep_going (the dev server's build) a block with a Posecode error is written as an
    alert naming the file's line, in the theme's error style, beside a working figure."""
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import build_site

    good = (REPO / "content" / "strength" / "plank.md").read_text(encoding="utf-8")
    bad = "```posecode\nposecode exercise \"Bad\"\n  rig humanoid\n  pose start = standing\n\n  step \"Up\" 1s flow:\n    knees: wobble 10\n```\n"
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "index.md").write_text(good + "\n" + bad, encoding="utf-8")
    result = build_site(load_config(cwd=tmp_path), out_dir=tmp_path / "out", progress=False, keep_going=True)
    assert result.errors
    with serve_folder(tmp_path / "out") as base_url:
        page = new_page(browser)
        page.goto(base_url + "/")
        box = page.locator(".posecode-error")
        assert box.get_attribute("role") == "alert" and box.is_visible()
        # numbered by the Markdown file's lines, as the terminal says it (issue 24)
        line = (good + "\n" + bad).split("\n").index("    knees: wobble 10") + 1
        assert [d.line for _p, d in result.errors if "wobble" in d.message] == [line]
        assert f"line {line}:" in box.text_content() and "wobble" in box.text_content()
        assert box.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
        page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
        assert page.evaluate("posecode.figures.length") == 1
        assert not [p for p in page.problems if "pageerror" in p], page.problems
        page.context.close()


# ---------------------------------------------------------------------------------------------
# layout and theme
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["", "props/", "props/chin-up/", "dance/pivot-turns/", "muscles/"])
def test_phone_viewport(browser, built_site, path):
    page = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(built_site.url(path))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{path or 'home'}: the page scrolls sideways ({width}px wide)"
    wide = page.evaluate("""[...document.querySelectorAll('body *')].filter(e => { const r = e.getBoundingClientRect();
        return r.width && (r.right > innerWidth + 0.5 || r.left < -0.5) && getComputedStyle(e).position !== 'fixed'
          && !e.closest('.skip-link'); }).map(e => e.tagName + '.' + e.className).slice(0, 5)""")
    assert not wide, f"{path or 'home'}: elements past the right edge: {wide}"
    if page.locator("posecode-figure").count():
        page.evaluate(f"{FIG}.ready")
        page.evaluate(f"{FIG}.scrollIntoView({{block: 'start'}})")
        page.evaluate(f"{FIG}.play()")
        for _ in range(3):
            page.evaluate("posecode.frame()")
        view = page.locator("posecode-figure .pc-view").first.bounding_box()
        assert view["x"] >= 0 and view["x"] + view["width"] <= 390 and view["width"] >= 300
        assert page.evaluate(f"{FIG}.drawCount") > 0
        scrub = page.locator("posecode-figure .pc-scrub").first.bounding_box()
        assert scrub["width"] > 60 and scrub["x"] + scrub["width"] <= 390
    assert not page.problems, page.problems
    page.context.close()


def test_dark_theme_changes_the_colours(browser, built_site):
    readings = {}
    for scheme in ("light", "dark"):
        page = new_page(browser, color_scheme=scheme, viewport={"width": 800, "height": 800})
        page.goto(built_site.url("strength/push-up/"))
        page.evaluate(f"{FIG}.ready")
        page.evaluate(f"{FIG}.scrollIntoView({{block: 'center'}})")
        page.evaluate("posecode.freeze(0.5)")
        page.evaluate("posecode.frame()")
        colours = page.evaluate(f"""(() => {{ const b = getComputedStyle(document.body), f = getComputedStyle({FIG});
            const v = getComputedStyle({FIG}.view);
            return {{bg: b.backgroundColor, fg: b.color, right: f.getPropertyValue('--pc-right').trim(),
                     view: v.backgroundColor}}; }})()""")
        # the drawn frame: mean luminance of the top strip of the canvas (background behind the head)
        strip = page.locator("posecode-figure .pc-view > canvas").first.screenshot()
        from .imagecompare import load_rgb
        rgb = load_rgb(strip)
        colours["top"] = float(rgb[: rgb.shape[0] // 10].mean()) / 255
        readings[scheme] = colours
        assert not page.problems, page.problems
        page.context.close()
    light, dark = readings["light"], readings["dark"]
    assert luminance(light["bg"]) > 0.7 and luminance(dark["bg"]) < 0.1
    assert luminance(dark["fg"]) > 0.5 > luminance(light["fg"])          # readable text on each
    assert light["right"] != dark["right"]                                  # the figure's colours follow
    assert dark["top"] < light["top"] - 0.3, (light["top"], dark["top"])   # and so does the drawn frame


def test_print_shows_the_strip_and_steps_without_the_player(browser, built_site):
    """Printed, a figure is its phase strip (issue 22: the key frames with the step names, in
    place of the poster's one still) and its list of steps: the canvas and every player control
    (buttons, slider, rep counter, view reset) give way (theme style.css, @media print)."""
    page = new_page(browser, viewport={"width": 900, "height": 900})
    page.goto(built_site.url("strength/bodyweight-squat/"))
    page.evaluate(f"{FIG}.ready")
    page.evaluate(f"{FIG}.play()")
    page.evaluate("posecode.frame()")
    page.emulate_media(media="print")
    shown = page.evaluate("""(() => { const fig = document.querySelector('posecode-figure');
        const seen = (sel) => [...fig.querySelectorAll(sel)].some(e => {
            const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
              && getComputedStyle(e).visibility !== 'hidden'; });
        return Object.fromEntries(['canvas', '.pc-controls', '.pc-scrub', '.pc-rep', '.pc-reset',
            '.posecode-poster svg', '.posecode-strip svg', '.posecode-phases'].map(s => [s, seen(s)])); })()""")
    assert shown == {"canvas": False, ".pc-controls": False, ".pc-scrub": False, ".pc-rep": False,
                     ".pc-reset": False, ".posecode-poster svg": False, ".posecode-strip svg": True,
                     ".posecode-phases": True}, shown
    assert not page.problems, page.problems
    page.context.close()


# ---------------------------------------------------------------------------------------------
# many figures, home filters
# ---------------------------------------------------------------------------------------------


def test_a_page_of_200_figures(browser, built_site):
    """The page loads every figure, and wherever the reader scrolls the figures in view draw
    through the one WebGL context (drawing all 200 is test_runtime_figure.py's job: here each
    figure is as large as the theme makes it, ~10 s per hundred frames in SwiftShader)."""
    page = new_page(browser, viewport={"width": 1280, "height": 900})
    page.context.add_init_script(COUNT_CONTEXTS)
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if "WebGL" in m.text and "GPU stall" not in m.text else None)
    page.goto(built_site.url("zz-test/many-figures/"))
    page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
    ids = page.evaluate("posecode.figures.map(f => f.id)")
    assert len(ids) == MANY_FIGURES == len(set(ids))
    # each figure has the build's poster and phase list; scroll through the page
    assert page.locator("posecode-figure .posecode-poster svg").count() == MANY_FIGURES
    for i in (0, 57, 123, 199, 88):
        page.evaluate(f"posecode.figures[{i}].scrollIntoView({{block: 'center'}})")
        page.evaluate("posecode.frame()")
        page.evaluate("posecode.frame()")
        assert page.evaluate(f"posecode.figures[{i}].drawCount") > 0, f"figure {i + 1} not drawn in view"
    drawn = page.evaluate("posecode.figures.map(f => f.drawCount > 0)")
    assert 5 <= sum(drawn) < 40          # the figures scrolled past or far away were never drawn
    assert page.evaluate("window.__webgl") == 1
    assert not [w for w in warnings if "Too many active WebGL contexts" in w or "Context Lost" in w]
    # the two alternating movements really differ: odd figures bend the knees further
    hips = page.evaluate("""[0, 1].map(i => { const f = posecode.figures[i]; f.seek(1);
        const s = f.sample(); return s.bones.hip_left[1]; })""")
    assert hips[1] < hips[0] - 0.03
    assert not page.problems, page.problems
    page.context.close()


def front_matter_cards() -> dict[str, dict]:
    """The home's expected cards, read from the content sources (not from the built page):
    url -> front matter, for every page holding a Posecode figure."""
    cards = {}
    for path in sorted((REPO / "content").rglob("*")):
        rel = path.relative_to(REPO / "content")
        if path.suffix == ".posecode":
            meta = {}
        elif path.suffix == ".md" and path.name not in ("index.md", "_index.md"):
            text = path.read_text(encoding="utf-8")
            if "```posecode" not in text:
                continue
            meta = yaml.safe_load(text.split("---")[1]) if text.startswith("---") else {}
        else:
            continue
        cards["/" + str(rel.with_suffix("")) + "/"] = meta
    return cards


def visible_cards(page) -> set[str]:
    return set(page.evaluate("[...document.querySelectorAll('[data-cards] > .card')].filter(c => !c.hidden && c.offsetParent)"
                             ".map(c => c.dataset.url)"))


def as_list(value) -> list:
    return value if isinstance(value, list) else [value] if value else []


def test_home_filters(browser, built_site):
    expected = front_matter_cards()
    expected["/zz-test/many-figures/"] = {}
    page = new_page(browser)
    page.goto(built_site.url(""))
    count = page.locator("[data-result-count]")
    assert visible_cards(page) == set(expected)
    assert count.text_content() == f"{len(expected)} exercises"

    def want(key: str, value: str) -> set[str]:
        return {u for u, m in expected.items()
                if value in (as_list(m.get("primary_muscles")) + as_list(m.get("secondary_muscles"))
                             if key == "muscle" else as_list(m.get(key)))}

    for key, field, value in (("muscle", "#filter-muscle", "glutes"), ("equipment", "#filter-equipment", "bar"),
                              ("level", "#filter-level", "advanced")):
        page.select_option(field, value)
        shown = visible_cards(page)
        assert shown == want(key, value), f"{key}={value}"
        assert 0 < len(shown) < len(expected)
        assert count.text_content() == f"{len(shown)} of {len(expected)} exercises"
        page.select_option(field, "")
    # two filters narrow together; a combination nobody matches says so
    page.select_option("#filter-muscle", "glutes")
    page.select_option("#filter-level", "beginner")
    assert visible_cards(page) == want("muscle", "glutes") & want("level", "beginner")
    page.select_option("#filter-equipment", "bar")
    assert visible_cards(page) == want("muscle", "glutes") & want("level", "beginner") & want("equipment", "bar")
    if not visible_cards(page):
        assert page.locator("[data-no-results]").is_visible()
    # the address keeps the filters: a reload shows the same list
    narrowed = visible_cards(page)
    assert page.evaluate("Object.fromEntries(new URLSearchParams(location.search))") == \
        {"muscle": "glutes", "level": "beginner", "equipment": "bar"}
    page.reload()
    page.wait_for_function("document.querySelector('#filter-equipment').value === 'bar'")
    assert visible_cards(page) == narrowed
    page.get_by_role("button", name="Clear").click()
    page.wait_for_function(f"document.querySelector('[data-result-count]').textContent === '{len(expected)} exercises'")
    assert visible_cards(page) == set(expected)
    assert page.evaluate("location.search") == ""   # cleared in the address too
    assert not page.problems, page.problems
    page.context.close()


def test_search_query_lives_in_the_address(browser, built_site):
    """A search from the header (?q=) fills the library's search box; typing another query
    replaces it in the address and the header box, and Clear empties both (fresh-user trial:
    after Clear a reload brought the old query back)."""
    page = new_page(browser)
    page.goto(built_site.url("?q=squat"))
    search = page.locator("#library-search")
    assert search.input_value() == "squat"
    search.fill("plank")
    page.wait_for_function("new URLSearchParams(location.search).get('q') === 'plank'")
    assert page.locator("#site-search").input_value() == "plank"
    page.get_by_role("button", name="Clear").click()
    page.wait_for_function("location.search === ''")
    assert page.locator("#site-search").input_value() == ""
    assert not page.problems, page.problems
    page.context.close()
