"""Hands locked to the floor with the feet, sampled at 60 Hz in the browser runtime (issue 5: each
contact held where it was planted; runtime/solvers/hands.js, solve/hands.py ``hold_uppers``).

The push-up of the demo library (content/strength/push-up.md): ground-lock hands and feet in both
phases. Before the hands were held, the authored arms carried the palms 207 mm along the floor
in "Lower the chest".
"""

from __future__ import annotations

import math
from pathlib import Path

from .pages import figure_html, needs_browser

pytestmark = needs_browser

PUSH_UP = Path(__file__).resolve().parents[1] / "content" / "strength" / "push-up.md"
ARM = [f"{j}_{s}" for s in ("left", "right") for j in ("shoulder", "elbow", "wrist")]

SAMPLE = """([id, times, arm]) => {
  const el = document.getElementById(id);
  return times.map((t) => {
    el.seek(t);
    const s = el.sample();
    return {t, segment: s.segment, palms: [s.landmarks.palm_left, s.landmarks.palm_right],
            toes: [s.landmarks.toe_left, s.landmarks.toe_right], arm: arm.map((b) => s.bones[b]),
            wrists: [s.orientation.wrist_left, s.orientation.wrist_right]};
  });
}"""


def _push_up():
    from posecode_ssg.evaluate.documents import load_documents

    docs, problems = load_documents([str(PUSH_UP)])
    assert not problems and docs and docs[0].motion is not None
    return docs[0]


def _sample(rt_page, runtime_site, motion, times):
    url = runtime_site.page("hands", [figure_html("push-up", motion)])
    rt_page.goto(url)
    rt_page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
    return rt_page.evaluate(SAMPLE, ["push-up", times, ARM])


def test_palms_stay_on_their_anchors_through_a_phase_that_continues_the_lock(rt_page, runtime_site):
    # "Press the floor away" continues the lock of "Lower the chest": the palms are held where that
    # phase left them, frame by frame (the 207 mm slide is gone)
    doc = _push_up()
    d0 = doc.motion["phases"][0]["d"]
    d1 = doc.motion["phases"][1]["d"]
    times = [d0 + k / 60 for k in range(int(d1 * 60))]
    samples = [s for s in _sample(rt_page, runtime_site, doc.motion, times) if s["segment"] == 1]
    assert len(samples) > 30
    for side in (0, 1):
        first = samples[0]["palms"][side]
        drift = max(math.hypot(s["palms"][side][0] - first[0], s["palms"][side][2] - first[2]) for s in samples)
        assert drift < 0.005, f"palm {side}: slides {drift * 1000:.1f} mm"


def test_held_hands_match_the_keyframe_solve_at_phase_ends(rt_page, runtime_site):
    # the arms and palms the hold solves (the whole-body agreement over the conformance examples,
    # mountain-climber's locked hands among them, is test_runtime_figure's)
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.solve import solve_keyframes

    doc = _push_up()
    sol = solve_keyframes(compile_ir(doc.checked.result.ir))
    ends, t = [], 0.0
    for ph in doc.motion["phases"]:
        t += ph["d"]
        ends.append(t - 1e-6)
    samples = _sample(rt_page, runtime_site, doc.motion, ends)
    worst = (0.0, "")
    for i, s in enumerate(samples):
        w = sol.phases[i].world
        for b, name in enumerate(ARM):
            worst = max(worst, (math.dist(w.pos[name], s["arm"][b]), f"phase {i + 1} {name}"))
        for side, name in enumerate(("palm_left", "palm_right")):
            worst = max(worst, (math.dist(w.landmarks[name], s["palms"][side]), f"phase {i + 1} {name}"))
    assert worst[0] < 0.005, f"{worst[0] * 1000:.2f} mm at {worst[1]}"


def test_toes_stay_planted_while_the_body_pivots_about_them(rt_page, runtime_site):
    # feet on their toes behind the held hands: the body pivots about the toes (their floor
    # contact), so over the whole loop at 60 Hz each toe stays where it was and on the floor
    # (pivoting about the ankles slid them 9.6 mm as the chest lowered)
    doc = _push_up()
    duration = sum(ph["d"] for ph in doc.motion["phases"])
    samples = _sample(rt_page, runtime_site, doc.motion, [k / 60 for k in range(int(duration * 60))])
    for side in (0, 1):
        first = samples[0]["toes"][side]
        drift = max(math.hypot(s["toes"][side][0] - first[0], s["toes"][side][2] - first[2]) for s in samples)
        lift = max(abs(s["toes"][side][1]) for s in samples)
        assert drift < 0.005, f"toe {side}: slides {drift * 1000:.1f} mm"
        assert lift < 0.005, f"toe {side}: {lift * 1000:.1f} mm off the floor"


def _palm_normal_off_down(q) -> float:
    """Degrees between the palm normal (wrist local +Z, kinematics-reference §2.3) of world
    rotation ``q`` [x, y, z, w] and floor-down."""
    x, y, z, w = q
    ny = 2 * (y * z - w * x)
    return math.degrees(math.acos(max(-1.0, min(1.0, -ny))))


def test_a_palm_held_on_the_floor_presents_its_surface_to_it(rt_page, runtime_site):
    # spec §5: a palm declared against the floor presents its contact surface to the floor; the
    # solver redistributes the authored roll (the plank's palms face the head) into a legal
    # forearm/wrist frame (hands.js palmFlat). Before: the palm normal 116-144° off down, only the
    # fingertips on the floor, the palm 55-70 mm up. The rig's wrist extends 70° and its forearm
    # pronates 84°, so a flat palm needs the forearm 20° off vertical and the shoulder's inward
    # turn: straight-armed the palm is within 15° of flat, elbows bent (the bottom) within 40°.
    doc = _push_up()
    duration = sum(ph["d"] for ph in doc.motion["phases"])
    samples = _sample(rt_page, runtime_site, doc.motion, [k / 60 for k in range(int(duration * 60))])
    top = duration - 1e-6
    worst_top = max(_palm_normal_off_down(q) for q in _sample(rt_page, runtime_site, doc.motion, [top])[0]["wrists"])
    assert worst_top < 15.0, f"straight arms: palm {worst_top:.1f}° off flat"
    for s in samples:
        for side in (0, 1):
            off = _palm_normal_off_down(s["wrists"][side])
            assert off < 40.0, f"t={s['t']:.3f} palm {side}: normal {off:.1f}° off down"
            assert s["palms"][side][1] < 0.020, f"t={s['t']:.3f} palm {side}: {s['palms'][side][1] * 1000:.1f} mm up"


def test_a_palm_reaching_the_floor_presents_its_surface_to_it(rt_page, runtime_site):
    # spec §5 reach: the same rule for a hand that reaches the floor (cobra's "Lift": reach: hands
    # floor): reach.js runs palmFlat before each floor re-aim, and blends the wrist with the arm.
    # Before: the palms ended facing up-and-back (143° off floor-down, 57 mm up); now 9°, 6.5 mm,
    # as the numpy solve (tests/motion/test_motion_hands.py)
    from .pages import compiled_example

    doc = compiled_example("cobra")
    url = runtime_site.page("cobra", [figure_html("cobra", doc)])
    rt_page.goto(url)
    rt_page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
    s = rt_page.evaluate(SAMPLE, ["cobra", [doc["phases"][0]["d"] - 1e-6], ARM])[0]
    for side in (0, 1):
        off = _palm_normal_off_down(s["wrists"][side])
        assert off < 20.0, f"palm {side}: normal {off:.1f}° off down"
        assert s["palms"][side][1] < 0.015, f"palm {side}: {s['palms'][side][1] * 1000:.1f} mm up"
