"""Screenshots of rendered frames compared with committed baselines (issue 8 item 2).

Fifteen movements of the demo library (``content/``), built by the real site build and played
by the runtime in headless Chromium with software WebGL, together cover every start pose,
every contact kind (ground-lock of feet, hands, forearms and back; pin; grip; reach), every
prop, turn, travel, fingers and each avatar — :func:`test_the_movements_cover_the_vocabulary`
checks that claim against the language vocabulary and the compiled motion JSON. Each figure is
seeked (``posecode.freeze``) to the middle and to the end of every phase and its 320×320 canvas
is screenshot and compared with ``baselines/<movement>/p<k>-<mid|end>.png`` under the tolerance
of :mod:`playwright_tests.imagecompare`.

Equipment (issue 20) is drawn on the dumbbell lateral raise and on the mat movements of the demo
library (their front matter lists it), and :data:`EQUIPMENT` adds one frame for each other item
kind: movements of playwright_tests/test_runtime_equipment.py compiled with their fence
equipment words and shown on a page of their own (``baselines/equipment-<movement>/``).

``pytest --update-baselines`` rewrites the baselines. A failing frame writes
``<frame>-actual.png``, ``-expected.png`` and ``-diff.png`` to
``test-artifacts/screenshots/<movement>/`` (``$POSECODE_TEST_ARTIFACTS`` moves the folder) and
names them in the assertion message. docs/testing.md has the procedure.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from .imagecompare import compare, diff_image, load_rgb, save_png
from .pages import REPO, figure_html, needs_browser
from .test_runtime_equipment import MOVEMENTS as EQUIPPED, program

pytestmark = needs_browser

BASELINES = Path(__file__).resolve().parent / "baselines"
ARTIFACTS = Path(os.environ.get("POSECODE_TEST_ARTIFACTS", REPO / "test-artifacts")) / "screenshots"
#: CSS size of the figure view in the screenshots (px, device scale 1)
VIEW_PX = 320

#: (baseline folder, page path in the built site, figure index on the page, what it covers,
#: keys pressed on the view before the shots: the player's own orbit and zoom keys; a landmark
#: to crop around — the view is then drawn at 4×, so the hand fills the 320×320 shot)
MOVEMENTS = [
    ("bodyweight-squat", "strength/bodyweight-squat/", 0, "standing, ground-lock feet, avatar1"),
    ("push-up", "strength/push-up/", 0, "plank, ground-lock hands and feet"),
    ("prone-on-elbows", "rehab/prone-on-elbows/", 0, "prone, ground-lock forearms, pin pelvis, reach elbows"),
    ("knee-hug", "mobility/knee-hug/", 0, "supine, ground-lock back, reach hand to knee"),
    ("seated-thoracic-rotation", "mobility/seated-thoracic-rotation/", 0, "seated, spine twist"),
    ("plie-first-position", "dance/plie-first-position/", 0, "first-position, avatar3"),
    ("chin-up", "props/chin-up/", 0, "bar, grip per side, fingers; front view (automatic with the bar)"),
    ("parallel-bar-dip", "props/parallel-bar-dip/", 0, "dip-bars, grip"),
    ("seated-knee-extension", "props/seated-knee-extension/", 0, "chair, pin pelvis on the seat"),
    ("wall-leg-swings", "props/wall-leg-swings/", 0, "wall, reach hand to wall, single-foot ground-lock, "
     "front view (the figure turns side-on: the swinging leg in profile)"),
    ("box-step-up", "props/box-step-up/", 0, "box, pin foot on the box"),
    ("pivot-turns", "dance/pivot-turns/", 0, "turn (two half turns on the balls of the feet), reach feet"),
    ("box-step", "dance/box-step/", 0, "travel (a square), front view"),
    ("finger-and-thumb-mobility", "rehab/finger-and-thumb-mobility/", 0, "neutral, fingers and thumbs",
     ["ArrowLeft"] * 3 + ["ArrowUp"] + ["+"] * 6, "palm_right"),
    ("dumbbell-lateral-raise", "strength/dumbbell-lateral-raise/", 0, "avatar2, front view"),
]

#: (movement of test_runtime_equipment.py, frame, data-view, what it shows): one frame per item
#: kind the demo library does not draw (it draws dumbbells and mats)
EQUIPMENT = [
    ("goblet-squat", "p1-end", None, "kettlebell held at the chest in both hands, bell below the handle"),
    ("back-squat", "p1-end", None, "barbell-back: the bar across the upper back, behind the neck"),
    ("deadlift", "p1-end", "front", "barbell held in both hands below the knees"),
    ("medicine-ball-raise", "p1-end", None, "medicine ball between the palms"),
    ("band-curl", "p1-end", "front", "band from under both feet to both hands"),
    ("banded-row", "p1-end", "side", "band from both hands to its anchor ahead"),
    ("dead-bug", "p2-end", None, "mat under the supine body"),
]
assert set(EQUIPPED) >= {m[0] for m in EQUIPMENT}

#: Frames whose pose was wrong when the baselines were reviewed (docs/testing.md): no baseline is
#: kept for them, since a baseline of a wrong pose would lock the bug in. They are still drawn
#: (the actual image goes to the artifacts folder) and the movement is reported as xfail naming
#: them; when the pose is fixed, delete the entry, run --update-baselines and review the frames.
KNOWN_WRONG: dict[tuple[str, str], str] = {}

#: pins the frame to the figure: a fixed square view, the overlay controls (rep counter, reset
#: button) hidden so the screenshot holds only what the runtime drew
SCREENSHOT_CSS = """
posecode-figure .pc-view {{ width: {px}px !important; height: {px}px !important;
  aspect-ratio: auto !important; max-height: none !important; }}
posecode-figure .pc-rep, posecode-figure .pc-reset {{ visibility: hidden !important; }}
"""
#: view size (CSS px) when a shot is cropped around a landmark
CROP_VIEW_PX = 4 * VIEW_PX

#: JS: the canvas pixel [x, y] of a landmark, projected with the figure's camera (column-major
#: three.js matrices: clip = projection · view · world; pixel from NDC)
PROJECT = """([el, name]) => {
  const s = el.sample(), p = s.landmarks[name] || s.bones[name], c = el.camera;
  const mul = (m, v) => [0, 1, 2, 3].map(r => m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * v[3]);
  const v = mul(c.matrixWorldInverse.elements, [p[0], p[1], p[2], 1]);
  const q = mul(c.projectionMatrix.elements, v);
  const r = el.canvas.getBoundingClientRect();
  return [(q[0] / q[3] + 1) / 2 * r.width, (1 - q[1] / q[3]) / 2 * r.height];
}"""

FIGURE_RE = re.compile(r'<posecode-figure id="([^"]+)"[^>]*>\s*<script type="application/json">(.*?)</script>', re.S)


def figure_motion(site, page_path: str, index: int) -> tuple[str, dict]:
    """(element id, motion JSON) of the ``index``-th figure of a built page, read from its HTML."""
    text = (site.root / page_path / "index.html").read_text(encoding="utf-8")
    found = FIGURE_RE.findall(text)
    assert len(found) > index, f"{page_path}: figure {index} not found"
    fig_id, payload = found[index]
    return fig_id, json.loads(payload)


#: how far before a phase boundary its "end" frame is taken (s)
END_EPSILON = 1e-4


def frame_times(doc: dict) -> list[tuple[str, float, str]]:
    """(frame name, time s, label) for the middle and the end of every phase: phase k (1-based)
    runs from the sum of the earlier durations for ``d`` seconds (docs/motion-json.md)."""
    frames, t0 = [], 0.0
    for k, phase in enumerate(doc["phases"], start=1):
        d = float(phase["d"])
        frames.append((f"p{k}-mid", round(t0 + d / 2, 6), f"middle of {phase['name']!r}"))
        # 0.1 ms before the boundary: the phase's own end pose even where the loop jumps home
        # at its end (wrap 0), invisibly close to the keyframe elsewhere
        frames.append((f"p{k}-end", round(t0 + d - END_EPSILON, 6), f"end of {phase['name']!r}"))
        t0 += d
    return frames


@pytest.fixture(scope="module")
def shot_context(browser):
    """One 800×900 browser context (device scale 1, light scheme, motion allowed)."""
    context = browser.new_context(viewport={"width": 800, "height": 900}, device_scale_factor=1,
                                  color_scheme="light", reduced_motion="no-preference")
    yield context
    context.close()


def open_figure(context, url: str, fig_id: str, keys=(), view_px: int = VIEW_PX):
    """Open the page at ``url``, pin the view size, wait for the figure, bring it on screen and
    press ``keys`` on its view (orbit / zoom, docs/runtime.md)."""
    page = context.new_page()
    page.problems = []
    page.on("pageerror", lambda exc: page.problems.append(str(exc)))
    page.goto(url)
    page.add_style_tag(content=SCREENSHOT_CSS.format(px=view_px))
    el = f"document.getElementById({json.dumps(fig_id)})"
    page.evaluate(f"{el}.ready")
    page.evaluate(f"{el}.scrollIntoView({{block: 'center'}})")
    for _ in range(20):  # until the ResizeObserver has applied the pinned size
        page.evaluate("posecode.frame()")
        if page.evaluate(f"[{el}.canvas.width, {el}.canvas.height]") == [view_px, view_px]:
            break
    # the canvas on whole pixels, whatever the text above it: at a fractional place its pixels
    # are resampled into the screenshot's, a change of the page above would change every edge
    page.evaluate(f"""(() => {{ const r = {el}.canvas.getBoundingClientRect();
        {el}.style.transform = `translate(${{-(r.left + scrollX) % 1}}px, ${{-(r.top + scrollY) % 1}}px)`; }})()""")
    for key in keys:
        page.evaluate(f"{el}.view.dispatchEvent(new KeyboardEvent('keydown', {{key: {json.dumps(key)}, bubbles: true}}))")
    return page, el


def shoot(page, el: str, t: float, crop: str | None = None) -> bytes:
    """Seek every figure of the page to ``t`` (paused), let two frames draw and screenshot the
    canvas (``crop``: a VIEW_PX square of it centred on that landmark)."""
    # freeze resolves two stage frames after the seek, once the pose is drawn (docs/runtime.md)
    at = page.evaluate(f"async () => {{ await posecode.freeze({t}); return {el}.sample().t; }}")
    assert at == pytest.approx(t, abs=1e-6)
    # the canvas may sit at a fractional position: clip a whole-pixel square of the page
    x, y = page.evaluate(f"(() => {{ const r = {el}.canvas.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY]; }})()")
    if crop:
        cx, cy = page.evaluate(f"([name]) => ({PROJECT})([{el}, name])", [crop])
        size = page.evaluate(f"{el}.canvas.width")
        x += min(max(cx - VIEW_PX / 2, 0), size - VIEW_PX)
        y += min(max(cy - VIEW_PX / 2, 0), size - VIEW_PX)
    clip = {"x": round(x), "y": round(y), "width": VIEW_PX, "height": VIEW_PX}
    return page.screenshot(clip=clip, full_page=True, animations="disabled", caret="hide")


@pytest.mark.parametrize("name,page_path,index,covers,keys,crop", [(*m, (), None)[:6] for m in MOVEMENTS],
                         ids=[m[0] for m in MOVEMENTS])
def test_frames_match_the_baselines(shot_context, built_site, update_baselines, name, page_path, index, covers,
                                    keys, crop):
    fig_id, doc = figure_motion(built_site, page_path, index)
    page, el = open_figure(shot_context, built_site.url(page_path), fig_id, keys, CROP_VIEW_PX if crop else VIEW_PX)
    failures, known = [], []
    for frame, t, label in frame_times(doc):
        if (name, frame) in KNOWN_WRONG:
            save_png(load_rgb(shoot(page, el, t, crop)), ARTIFACTS / name / f"{frame}-actual.png")
            known.append(f"{frame}: {KNOWN_WRONG[name, frame]}")
            continue
        failures += check_frame(page, el, name, frame, t, label, update_baselines, crop)
    problems = page.problems
    page.close()
    assert not problems, problems
    assert not failures, f"{name} ({covers}): {len(failures)} frame(s) changed:\n" + "\n".join(failures)
    if known:
        pytest.xfail(f"{name}: {len(known)} frame(s) with a known wrong pose, not compared: " + "; ".join(known))


def check_frame(page, el: str, name: str, frame: str, t: float, label: str, update: bool, crop=None) -> list[str]:
    """Shoot ``frame`` at ``t`` and compare it with ``baselines/<name>/<frame>.png`` (or write
    that baseline when ``update``); returns the failure messages (none when it matches)."""
    actual = load_rgb(shoot(page, el, t, crop))
    assert actual.shape == (VIEW_PX, VIEW_PX, 3)
    baseline = BASELINES / name / f"{frame}.png"
    out = ARTIFACTS / name
    if update:
        save_png(actual, baseline)
        return []
    if not baseline.exists():
        save_png(actual, out / f"{frame}-actual.png")
        return [f"{frame} ({label}, t={t}): no baseline {baseline.relative_to(REPO)}; "
                f"run pytest --update-baselines (actual: {out / f'{frame}-actual.png'})"]
    expected = load_rgb(baseline)
    result = compare(actual, expected)
    if result.ok:
        return []
    save_png(actual, out / f"{frame}-actual.png")
    save_png(expected, out / f"{frame}-expected.png")
    save_png(diff_image(actual, expected), out / f"{frame}-diff.png")
    return [f"{frame} ({label}, t={t}): {result.describe()}; see {out / frame}-{{actual,expected,diff}}.png"]


@pytest.mark.parametrize("movement,frame,view,shows", EQUIPMENT, ids=[m[0] for m in EQUIPMENT])
def test_equipment_frames_match_the_baselines(shot_context, runtime_site, update_baselines, movement, frame, view,
                                              shows):
    doc = program(movement).to_json()
    url = runtime_site.page(f"shot-{movement}", [figure_html("fig", doc, view=view)])
    page, el = open_figure(shot_context, url, "fig")
    (t, label), = [(t, label) for f, t, label in frame_times(doc) if f == frame]
    failures = check_frame(page, el, f"equipment-{movement}", frame, t, label, update_baselines)
    problems = page.problems
    page.close()
    assert not problems, problems
    assert not failures, f"{movement} ({shows}): " + "\n".join(failures)


def test_the_movements_cover_the_vocabulary(built_site):
    """The chosen movements cover every start pose, prop, avatar, ground-lock group, contact
    kind, turn, travel and fingers (read from their compiled motion JSON)."""
    from posecode_ssg.language.vocabulary import AVATARS, DIGITS, GROUND_LOCK_EXPANSION, PROPS, START_POSES

    docs = [figure_motion(built_site, path, index)[1] for _, path, index, *_ in MOVEMENTS]
    phases = [p for d in docs for p in d["phases"]]
    assert {d["startPose"] for d in docs} == set(START_POSES)
    assert {p for d in docs for p in d["props"]} == set(PROPS)
    assert {d["avatar"] for d in docs} == set(AVATARS)
    locked = {c for p in phases for c in p.get("gl", [])}
    for group, contacts in GROUND_LOCK_EXPANSION.items():
        assert set(contacts) <= locked, f"no movement ground-locks {group}"
    for kind in ("pin", "grip", "reach"):
        assert any(p.get(kind) for p in phases), f"no movement has a {kind}"
    assert any(p.get("turn") for p in phases), "no movement turns"
    assert any(any(p.get("tr", [0, 0])) for p in phases), "no movement travels"
    assert any(bone.split("_")[0] in DIGITS for p in phases for bone in p.get("q", {})), "no finger moves"
    # and every frame named by the list has its baseline committed
    names = {f"{n}/{f}.png" for n, path, i, *_ in MOVEMENTS
             for f, _, _ in frame_times(figure_motion(built_site, path, i)[1]) if (n, f) not in KNOWN_WRONG}
    names |= {f"equipment-{n}/{f}.png" for n, f, *_ in EQUIPMENT}
    present = {str(p.relative_to(BASELINES)) for p in BASELINES.glob("*/*.png")}
    assert names <= present, f"baselines missing: {sorted(names - present)[:5]}"
    assert not present - names, f"stale baselines: {sorted(present - names)[:5]}"
