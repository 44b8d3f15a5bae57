"""Contacts of <posecode-figure> sampled at 60 Hz over one whole loop, the wrap included (issue 5
items 1, 2 and 5): ground-locked feet stay where they were planted, stay flat on the floor unless
a diagnostic names them, grips and pins hold, and nothing jumps at a phase boundary; and the
expected values of the bug cases mo-planted-feet-skate and mo-deadlift-heel-lift
(../shared/cases/bugs/*/expected.md) over every sample instead of at phase ends only.

Measures (from ``el.sample()`` at t = k/60 s, world metres):

- drift: the horizontal move of a locked foot's toe point, and of its heel point while the heel
  is down on a foot the document keeps flat, since the first sample of its current hold (locked
  and within 5 mm of the floor, uninterrupted; a heel from when it is down), in the choreography frame
  (turn and travel removed) when both feet are locked, in the travel frame for a single locked
  foot (the pivot of a turn stays put in the world); a heel rising on tiptoe or under the
  ankle's range swings about the ball of the foot by design (issue 5);
- lift and tilt: heel and toe heights and the sole's tilt (angle between the ankle's world +Y and
  up) of a held foot that the document keeps flat (authored ankle x at both ends of the segment
  ≤ rig.json ``solver.plantigradeMaxAnkle``, no hands/forearms lock): at most 5 mm and 5°, or a
  ``foot-flat`` / ``foot-lifted`` warning naming that foot in that sample (drift likewise, or a
  ``foot-drift`` warning);
- grip and pin: the contact's residual in segments where the contact continues from the
  previous phase, at most 5 mm;
- jumps: for every joint, the displacement of one frame minus the mean of its neighbours' (a
  discontinuity of D metres shows as ≈ D, smooth motion as ≈ 0), at most 10 mm.
"""

from __future__ import annotations

import math

import pytest

from posecode_ssg.evaluate.planted import previous_support
from tests.motion.helpers_motion import (LOWER_FROM_THE_BOX, PIVOT_ON_THE_STANDING_FOOT, PRONE_ON_ELBOWS,
                                         SHALLOW_PLIE)

from .pages import READY_ALL, compiled_example, example_names, figure_html, needs_browser, shared_path

pytestmark = needs_browser

HZ = 60
LIMIT_MM = 5.0
TILT_DEG = 5.0
JUMP_MM = 10.0

SAMPLE_LOOP = """([id, hz]) => {
  const el = document.getElementById(id), n = Math.ceil(el.duration * hz), out = [];
  for (let k = 0; k <= n; k++) {
    const t = Math.min(k / hz, el.duration - 1e-9);
    el.seek(t);
    const s = el.sample();
    const lm = {};
    for (const m of ["heel_left", "toe_left", "sole_left", "heel_right", "toe_right", "sole_right"]) lm[m] = s.landmarks[m];
    const q = {}, ids = Object.keys(s.bones);
    for (const b of ["ankle_left", "ankle_right"]) q[b] = s.orientation[b];
    out.push({t, segment: s.segment, frame: s.frame, lm, q, contacts: s.contacts,
      warnings: s.warnings.map((w) => [w.code, w.foot || null]),
      joints: ids.map((b) => s.bones[b]), local: {ankle_left: s.local.ankle_left, ankle_right: s.local.ankle_right},
      wrist: [s.bones.wrist_left, s.bones.wrist_right], shoulder: [s.bones.shoulder_left, s.bones.shoulder_right],
      ankle: [s.bones.ankle_left, s.bones.ankle_right],
      pelvis: s.bones.pelvis});
  }
  return out;
}"""


def compiled_file(path, avatar: str | None = None) -> dict:
    """Motion JSON of a Posecode file through the parser and the motion compiler."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    result = parse(path.read_text(encoding="utf-8"))
    assert result.ir is not None, f"{path}: {result.errors}"
    return compile_ir(result.ir, avatar=avatar).to_json()


def sample_loop(rt_page, runtime_site, docs: dict[str, dict]) -> dict[str, list[dict]]:
    url = runtime_site.page("contacts-60hz", [figure_html(n, d) for n, d in docs.items()])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    return {name: rt_page.evaluate(SAMPLE_LOOP, [name, HZ]) for name in docs}


def quat_x_deg(q) -> float:
    """The x angle (degrees) of a pure-X local rotation [x, y, z, w] (the ankle's y, z are locked)."""
    return math.degrees(2 * math.atan2(q[0], q[3]))


def authored_ankle_x(doc: dict, segment: int, side: str) -> tuple[float, float]:
    """Authored ankle x (degrees) at the start and end keyframe of a segment."""
    bone = f"ankle_{side}"
    keys = [doc["base"]] + [p.get("q", {}) for p in doc["phases"]]

    def at(i):
        # a keyframe lists only what changes: walk back to the last one that sets the bone
        for k in range(i, -1, -1):
            if bone in keys[k]:
                return quat_x_deg(keys[k][bone])
        return 0.0

    end = segment + 1 if segment + 1 < len(keys) else 0
    return at(segment), at(end)


def sole_tilt_deg(q) -> float:
    x, _y, z, _w = q
    return math.degrees(math.acos(max(-1.0, min(1.0, 1 - 2 * (x * x + z * z)))))


def check_loop(doc: dict, samples: list[dict], *, solver: dict) -> dict[str, tuple[float, str]]:
    """Worst value and where, per measure, over one sampled loop (see the module docstring)."""
    worst = {m: (0.0, "") for m in ("drift", "lift", "tilt", "grip", "pin", "jump")}

    def note(m, v, where):
        if v > worst[m][0]:
            worst[m] = (v, where)

    phases = doc["phases"]
    holds: dict[str, dict[str, tuple[float, float]]] = {}
    last_seg = None
    for s in samples:
        seg = s["segment"]
        ph = phases[seg] if 0 <= seg < len(phases) else {}
        gl = ph.get("gl") or []
        feet = [side for side in ("left", "right") if f"foot_{side}" in gl]
        warned = {foot for code, foot in s["warnings"] if code in ("foot-flat", "foot-lifted")}
        slid = {foot for code, foot in s["warnings"] if code == "foot-drift"}
        yaw = math.radians(s["frame"]["yaw"])
        tx, tz = s["frame"]["travel"]
        if seg != last_seg:
            # a hold begins with the segment: the foot is locked, on the floor, and was part of
            # the previous phase's support (its locks, pins and floor reaches; both feet after a
            # phase without contacts), as solvers/plan.js plans it
            prev = phases[seg - 1] if 1 <= seg <= len(phases) else {}
            support = previous_support(prev)
            holds = {side: {} for side in feet if f"foot_{side}" in support}
            last_seg = seg
        for side in list(holds):
            lm = s["lm"]
            heel, toe = lm[f"heel_{side}"][1], lm[f"toe_{side}"][1]
            if min(heel, toe) > LIMIT_MM / 1000:
                del holds[side]   # let go (a foot the authored joints lift), for the rest of the segment
                continue
            where = f"t={s['t']:.3f} seg {seg} foot_{side}"
            flat = (all(a <= solver["plantigradeMaxAnkle"] for a in authored_ankle_x(doc, seg, side))
                    and not any(c.startswith(("hand_", "elbow_")) for c in gl))
            for point in ("toe", "heel") if flat and heel <= LIMIT_MM / 1000 else ("toe",):
                p = lm[f"{point}_{side}"]
                x, z = p[0] - tx, p[2] - tz
                if len(feet) == 2:
                    x, z = math.cos(yaw) * x - math.sin(yaw) * z, math.sin(yaw) * x + math.cos(yaw) * z
                start = holds[side].setdefault(point, (x, z))
                if f"foot_{side}" not in slid:   # a slide the leg cannot prevent is named, not silent
                    note("drift", 1000 * math.dist(start, (x, z)), f"{where} {point}")
            if flat and f"foot_{side}" not in warned:
                note("lift", 1000 * max(abs(heel), abs(toe)), where)
                note("tilt", sole_tilt_deg(s["q"][f"ankle_{side}"]), where)
        prev = phases[seg - 1] if 1 <= seg <= len(phases) else {}
        for c in s["contacts"]:
            if c["kind"] not in ("grip", "pin"):
                continue
            kind = "grip" if c["kind"] == "grip" else "pin"
            continuing = any(e == c["effector"] for e, _a in prev.get(kind, []))
            if continuing:
                note(c["kind"], 1000 * c["residual_m"], f"t={s['t']:.3f} seg {seg} {c['effector']}")
    for k in range(1, len(samples) - 2):
        a, b, c, d = (samples[k + i]["joints"] for i in (-1, 0, 1, 2))
        for j in range(len(b)):
            d0, d1, d2 = math.dist(a[j], b[j]), math.dist(b[j], c[j]), math.dist(c[j], d[j])
            note("jump", 1000 * (d1 - 0.5 * (d0 + d2)), f"t={samples[k + 1]['t']:.3f} joint {j}")
    return worst


def contact_examples() -> list[str]:
    out = []
    for name in example_names():
        text = shared_path("conformance", "examples", f"{name}.posecode").read_text(encoding="utf-8")
        if any(f"{k}:" in text for k in ("ground-lock", "pin", "grip")):
            out.append(name)
    return out


# What does not hold yet, per example and measure, with the reason (measured 2026-11-30 on
# avatar1–3; see docs/runtime.md "Solve order per frame"). Each entry lifts only that measure.
KNOWN = {
    # a floor reach of the other foot (reach.js) or a prop's body push (props.js) moves the body
    # after the ground-lock; the locked foot is not re-held after those passes yet
    "box-squat": {"drift"}, "chair-sit-to-stand": {"drift"}, "wall-sit": {"drift"},
    "touch-toes": {"lift", "jump"},
    # reaches and self-collision switching on/off inside a phase (reach.js, selfcollision.js)
    "box-step": {"jump"}, "grapevine": {"jump"}, "high-knee-march": {"jump"},
    # the closing foot's floor reach: a straight leg whose target comes 1 mm nearer is pre-bent
    # by the CCD (ccd.js), 24° of knee for one frame near the phase end (~90 mm); its standing
    # foot no longer lifts (reach.js keeps the closing foot out of the floor itself)
    "tendu": {"jump"}, "box-step-taps": {"jump"},
    "standing-quad-stretch": {"jump"}, "step-up": {"jump"},
    "hip-abduction": {"jump"},
    # the weight shift over the ball while the heel rises and lowers: where the stance leg cannot
    # hold the whole shift the share it holds is bisected (balance.js), and the root changes pace
    # within a frame or two (11.8 mm on avatar2, under 10 on avatar1 and avatar3)
    "single-leg-calf-raise": {"jump"},
    "walk-cycle": {"jump"}, "superhero-landing": {"jump"},
    # impossible as written (kinematic-self-collision: the retiré puts the free foot through the
    # standing knee; kinematic-foot-flat at lines 5, 15, 28): the self-collision push of the free
    # leg and the floor clamp raise the standing foot 5-7 mm early in "Prep - plié" after the seam
    "pirouette": {"jump", "lift"},
    # plank on the hands and one foot: the knee driven in passes ~6 cm under the floor below the
    # hip (impossible in the sagittal plane); the hip abducts so it goes round the outside
    # (swingclearance.js), a quick outward swing of the knee that reads as a jump
    "mountain-climber": {"jump"},
    # prone, pelvis pinned: the hands' floor reach of "Lift" fading out through "Lower" moves the
    # elbow 19 mm in one frame where its CCD starts and stops (reach.js), the arm already lying
    # along the floor (swingclearance.js `clearFreeArms`; before it the arms swept through the
    # floor and the floor clamp lifted the pinned pelvis 27 cm)
    "cobra": {"jump"},
}


@pytest.mark.parametrize("avatar", ["avatar1", "avatar2", "avatar3"])
def test_locks_pins_and_grips_hold_at_60_hz_over_the_whole_loop(rt_page, runtime_site, avatar):
    from posecode_ssg.motion.rigjson import rig_json

    solver = rig_json()["solver"]
    names = contact_examples()
    if not names:
        pytest.skip("conformance examples missing")
    docs = {n: compiled_example(n, avatar=avatar) for n in names}
    loops = sample_loop(rt_page, runtime_site, docs)
    problems = []
    limits = {"drift": LIMIT_MM, "lift": LIMIT_MM, "tilt": TILT_DEG, "grip": LIMIT_MM, "pin": LIMIT_MM,
              "jump": JUMP_MM}
    measured = {m: 0.0 for m in limits}
    for name, samples in loops.items():
        worst = check_loop(docs[name], samples, solver=solver)
        for m, (v, where) in worst.items():
            if m in KNOWN.get(name, ()):
                continue
            measured[m] = max(measured[m], v)
            if v > limits[m]:
                problems.append(f"{name} {m} {v:.1f} at {where}")
    assert not problems, f"{avatar}: " + "; ".join(problems)
    # the measures saw something: locked feet, grips and pins exist among the examples
    assert any(p.get("grip") for d in docs.values() for p in d["phases"])
    assert any(p.get("gl") for d in docs.values() for p in d["phases"])


def bug_case(case: str, name: str, avatar: str | None = None) -> dict:
    return compiled_file(shared_path("cases", "bugs", case, f"{name}.posecode"), avatar)


def phase_end_sample(samples: list[dict], doc: dict, index: int) -> dict:
    """The sample nearest before the end of phase ``index``."""
    end = sum(p["d"] for p in doc["phases"][: index + 1])
    return max((s for s in samples if s["t"] <= end - 1e-6), key=lambda s: s["t"])


def test_mo_planted_feet_skate_over_the_whole_loop(rt_page, runtime_site):
    from posecode_ssg.motion.rigjson import rig_json

    solver = rig_json()["solver"]
    docs = {"squat": bug_case("mo-planted-feet-skate", "squat"),
            "hamstring-curl": bug_case("mo-planted-feet-skate", "hamstring-curl")}
    loops = sample_loop(rt_page, runtime_site, docs)
    # squat: both soles planted within 5 mm at every sample (heel, toe and drift), no warnings
    sq = loops["squat"]
    worst = check_loop(docs["squat"], sq, solver=solver)
    for m in ("drift", "lift", "jump"):
        assert worst[m][0] <= LIMIT_MM, f"squat {m} {worst[m]}"
    for s in sq:
        for side in ("left", "right"):
            assert max(abs(s["lm"][f"heel_{side}"][1]), abs(s["lm"][f"toe_{side}"][1])) <= 0.005, s["t"]
        # no foot warning ("no drift or heel diagnostics"; the balance advice, issue 19, aside)
        assert not [w for w in s["warnings"] if w[0] != "balance"], (s["t"], s["warnings"])
    down, stand = phase_end_sample(sq, docs["squat"], 0), sq[0]
    assert down["pelvis"][2] - stand["pelvis"][2] <= -0.2
    assert down["pelvis"][1] - stand["pelvis"][1] <= -0.3
    # hamstring curl: the stance (right) sole planted within 5 mm through both phases and the loop
    # boundary; the curling foot is let go, comes back down within 10 mm of where it started
    hc = loops["hamstring-curl"]
    r0 = hc[0]["lm"]["sole_right"]
    for s in hc:
        r = s["lm"]["sole_right"]
        assert math.hypot(r[0] - r0[0], r[2] - r0[2]) <= 0.005, s["t"]
        assert max(abs(s["lm"]["heel_right"][1]), abs(s["lm"]["toe_right"][1])) <= 0.005, s["t"]
    curl = phase_end_sample(hc, docs["hamstring-curl"], 0)
    assert curl["ankle"][0][1] >= 0.3   # the curling foot is not held to the floor
    lower = phase_end_sample(hc, docs["hamstring-curl"], 1)
    l0, l1 = hc[0]["lm"]["sole_left"], lower["lm"]["sole_left"]
    assert math.dist(l0, l1) <= 0.010


def test_mo_deadlift_heel_lift_over_the_whole_loop(rt_page, runtime_site):
    from posecode_ssg.motion.rigjson import rig_json

    rig = rig_json()
    solver, lo = rig["solver"], rig["rom"]["ankle_left"]["x"][0]
    docs = {"soft": bug_case("mo-deadlift-heel-lift", "deadlift-soft-knees"),
            "deep": bug_case("mo-deadlift-heel-lift", "deadlift-deep-knees")}
    loops = sample_loop(rt_page, runtime_site, docs)
    soft = loops["soft"]
    worst = check_loop(docs["soft"], soft, solver=solver)
    assert worst["drift"][0] <= LIMIT_MM and worst["lift"][0] <= LIMIT_MM, worst
    assert worst["tilt"][0] < 2.0, worst["tilt"]
    assert not any(w[0] != "balance" for s in soft for w in s["warnings"])
    low = phase_end_sample(soft, docs["soft"], 0)
    for w, sh in zip(low["wrist"], low["shoulder"]):
        assert sh[1] - w[1] >= 0.35 and math.hypot(w[0] - sh[0], w[2] - sh[2]) <= 0.15
    # deep knees (expected.md 4): the ankle never passes its dorsiflexion limit, and the soles stay
    # planted within 5 mm (its first branch: the ground-lock's sit-back stands the shins up by
    # moving the hips back over the heels); a heel lifting more than 5 mm would have to be named
    deep = loops["deep"]
    worst = check_loop(docs["deep"], deep, solver=solver)
    assert worst["drift"][0] <= LIMIT_MM and worst["lift"][0] <= LIMIT_MM, worst
    for s in deep:
        for side in ("left", "right"):
            assert quat_x_deg(s["local"][f"ankle_{side}"]) >= lo - 0.01
            assert abs(s["lm"][f"toe_{side}"][1]) <= 0.005
            if s["lm"][f"heel_{side}"][1] > 0.005:
                assert ["foot-flat", f"foot_{side}"] in s["warnings"], (s["t"], side)


SEATED = """posecode exercise "Seated seam"
  rig humanoid
  prop chair
  pose start = standing:
    hips: flex 90
    knees: flex 90

  step "Sit" 1s settle:
    pin: pelvis seat

  step "Extend" 1s settle:
    knee_right: flex 0
    pin: pelvis seat

  step "Lower" 1s settle:
    knee_right: flex 90
    pin: pelvis seat

  repeat 2
"""


def test_a_prop_pin_holds_through_the_loop_seam_at_60_hz(rt_page, runtime_site, tmp_path):
    """A loop that ends where it began, pinned to a prop in its last and first phases, is handed
    over at the seam (figuremodel.js ``_buildPlans``): the pelvis sits on the seat at every sample, t = 0
    included — not at the standing start position 0.12 m away until the pin takes hold. Expected:
    the seat anchor of kinematics-reference §10.1, (0, 0.53, −0.12) m."""
    path = tmp_path / "seated.posecode"
    path.write_text(SEATED, encoding="utf-8")
    doc = compiled_file(path)
    samples = sample_loop(rt_page, runtime_site, {"seated-seam": doc})["seated-seam"]
    seat = (0.0, 0.53, -0.12)
    worst = max((math.dist(s["pelvis"], seat), s["t"]) for s in samples)
    assert worst[0] * 1000 <= LIMIT_MM, f"pelvis {worst[0] * 1000:.1f} mm from the seat at t={worst[1]:.3f}"
    assert samples[0]["t"] == 0.0


PIVOT = PIVOT_ON_THE_STANDING_FOOT + "\n  repeat 2\n"


def test_a_turn_with_one_held_foot_pivots_on_it_at_60_hz(rt_page, runtime_site, tmp_path):
    """'ground-lock: feet' with a quarter turn while the right foot has only just come down (free
    in the phase before, so no support yet: spec §5, ground-lock preserves an existing contact):
    the left foot is the pivot (plan.js ``holds``) and its sole centre stays put in the world at
    every 60 Hz sample of the turn. Carried round the body's axis as a two-foot stance, it would
    move 0.1·√2 ≈ 0.14 m."""
    path = tmp_path / "pivot.posecode"
    path.write_text(PIVOT, encoding="utf-8")
    samples = sample_loop(rt_page, runtime_site, {"pivot-held": compiled_file(path)})["pivot-held"]
    turn = [s for s in samples if s["segment"] == 2]
    assert turn and turn[-1]["frame"]["yaw"] > 80
    p0 = turn[0]["lm"]["sole_left"]
    worst = max(math.hypot(s["lm"]["sole_left"][0] - p0[0], s["lm"]["sole_left"][2] - p0[2]) for s in turn)
    assert worst * 1000 <= LIMIT_MM, f"the standing foot slid {worst * 1000:.1f} mm during the turn"


#: content/mobility/kneeling-hip-flexor-stretch.md as it was until the demo began in the half-kneel
#: (less its hold and cues): kneeling down from standing, the stretch, and standing up over the
#: front foot
HALF_KNEEL_STAND_UP = """posecode stretch "Kneeling hip flexor stretch"
  rig humanoid
  pose start = standing

  step "Half-kneel" 2s settle:
    hip_left: flex 90
    knee_left: flex 95
    ankle_left: dorsiflex 5
    hip_right: extend 10
    knee_right: flex 95
    ankle_right: plantarflex 50
    pin: knee_right floor
    reach: foot_left floor

  step "Hips forward, arms up" 3s settle:
    knee_left: flex 105
    ankle_left: dorsiflex 15
    hip_right: extend 20
    knee_right: flex 85
    shoulders: flex 170
    spine: extend 10
    pin: knee_right floor
    reach: foot_left floor

  step "Stand up" 2s settle:
    hip_left: flex 0
    knee_left: flex 0
    ankle_left: dorsiflex 0
    hip_right: flex 45
    knee_right: flex 70
    ankle_right: plantarflex 0
    shoulders: flex 0
    spine: extend 0
    ground-lock: foot_left

  step "Feet together" 1s settle:
    hip_right: flex 0
    knee_right: flex 0
    ground-lock: foot_left

  repeat 2
"""


def test_the_front_foot_of_a_half_kneel_stays_planted_while_standing_up_at_60_hz(rt_page, runtime_site):
    """Standing up from a half-kneel (:data:`HALF_KNEEL_STAND_UP` "Stand up": ground-lock of the
    front foot after the knee pin and the front foot's floor reach): the front foot is a support
    (its reach, spec §5) and is held at every 60 Hz sample — it was carried 0.49 m, and the entry
    blend's half-applied offset from the pin to the feet walked it 6.5 mm (replant.js)."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    motion = compile_ir(parse(HALF_KNEEL_STAND_UP).ir).to_json()
    samples = sample_loop(rt_page, runtime_site, {"half-kneel": motion})["half-kneel"]
    up = [s for s in samples if s["segment"] == 2]
    assert len(up) > 60
    for mark in ("heel_left", "toe_left"):
        p0 = up[0]["lm"][mark]
        drift = max(math.hypot(s["lm"][mark][0] - p0[0], s["lm"][mark][2] - p0[2]) for s in up)
        lift = max(abs(s["lm"][mark][1]) for s in up)
        assert drift * 1000 <= LIMIT_MM, f"{mark} slides {drift * 1000:.1f} mm"
        assert lift * 1000 <= LIMIT_MM, f"{mark} {lift * 1000:.1f} mm off the floor"


LOWER_FROM_THE_BOX_TWICE = LOWER_FROM_THE_BOX + "\n  repeat 2\n"


def test_a_foot_reaching_down_from_the_box_leaves_the_box_pin_alone_at_60_hz(rt_page, runtime_site, tmp_path):
    """While the left foot reaches down to the floor, the right foot stays pinned on the box: its
    sole centre within 5 mm of the box anchor, (0, 0.30, 0.30) m (kinematics-reference §10.1), at
    every 60 Hz sample of the phase (the floor clamp lifted the body 9.6 mm off it when the
    reaching toe went through the floor; now that foot turns up at its own ankle, plan.js swing)."""
    path = tmp_path / "lower.posecode"
    path.write_text(LOWER_FROM_THE_BOX_TWICE, encoding="utf-8")
    samples = sample_loop(rt_page, runtime_site, {"lower-box": compiled_file(path)})["lower-box"]
    phase = [s for s in samples if s["segment"] == 1]
    assert phase
    worst = max((math.dist(s["lm"]["sole_right"], (0.0, 0.30, 0.30)), s["t"]) for s in phase)
    assert worst[0] * 1000 <= LIMIT_MM, f"right sole {worst[0] * 1000:.1f} mm off the box at t={worst[1]:.3f}"


@pytest.mark.parametrize("case, name, free", [("pc-ground-lock-effectors", "pivot", "left"),
                                              ("mo-joint-direction-signs", "directions", "left")])
def test_a_free_leg_near_the_floor_never_lifts_the_locked_foot_at_60_hz(rt_page, runtime_site, case, name, free):
    """Issue 5: while a foot is ground-locked on the floor, a free leg near the floor is cleared
    within its own chain (swingclearance.js ``clearFreeLimbs``: toe up at the ankle, knee flex, hip
    abduction), never by the floor clamp lifting the body off its support. pivot "Cross" (hip
    adduct 25, turn 70 on the right foot): the self-collision push of the crossing leg took its
    toe through the floor and the clamp lifted the locked right foot 9.6 mm (heel and toe);
    directions "Toes up" (ankle_left dorsiflex 15): the free heel went under the floor and the
    body rose 9.6 mm. Now the locked foot's heel and toe stay within 5 mm of the floor at every
    60 Hz sample of every segment that locks it, and the free foot is not in the floor."""
    doc = bug_case(case, name)
    samples = sample_loop(rt_page, runtime_site, {name: doc})[name]
    locked = [s for s in samples if 0 <= s["segment"] < len(doc["phases"])
              and doc["phases"][s["segment"]].get("gl")]
    assert len(locked) > 60
    lock = "right" if free == "left" else "left"
    worst = max((max(abs(s["lm"][f"heel_{lock}"][1]), abs(s["lm"][f"toe_{lock}"][1])), s["t"]) for s in locked)
    assert worst[0] * 1000 <= LIMIT_MM, f"locked {lock} foot {worst[0] * 1000:.1f} mm off the floor at t={worst[1]:.3f}"
    low = min((min(s["lm"][f"heel_{free}"][1], s["lm"][f"toe_{free}"][1]), s["t"]) for s in locked)
    assert low[0] * 1000 >= -LIMIT_MM, f"free {free} foot {-low[0] * 1000:.1f} mm in the floor at t={low[1]:.3f}"




def test_a_lying_body_keeps_its_floor_pin_while_its_arms_sweep(rt_page, runtime_site):
    """Issue 18 (floor contacts that hold; cobra's palms): a body lying on a pinned pelvis whose
    authored shoulder flexion sweeps the arms from beside the hips to under or beyond the head
    swings them out along the floor (arm clearance), so the pinned pelvis stays within 5 mm of its
    height at the phase ends at every 60 Hz sample and no joint jumps. Before, the arms went
    through the floor and the floor clamp lifted the pelvis 27 cm (cobra), 47 cm (superman) and
    39 cm (prone-on-elbows as first written)."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    docs = {"cobra": compiled_example("cobra"), "superman": compiled_example("superman"),
            "prone-on-elbows": compile_ir(parse(PRONE_ON_ELBOWS).ir).to_json()}
    loops = sample_loop(rt_page, runtime_site, docs)
    for name, samples in loops.items():
        rest = min(s["pelvis"][1] for s in samples)
        worst = max(s["pelvis"][1] for s in samples if s["segment"] < len(docs[name]["phases"])) - rest
        assert worst <= LIMIT_MM / 1000, f"{name}: the pinned pelvis lifts {worst * 1000:.1f} mm"
        worst = check_loop(docs[name], samples, solver=rig_solver())
        if "jump" not in KNOWN.get(name, ()):
            assert worst["jump"][0] <= JUMP_MM, (name, worst["jump"])
        # the hands slide along the floor: out to the side, never under it by more than the
        # clearance leaves (half of plantTolerance) plus the wrist's capsule radius
        assert min(w[1] for s in samples for w in s["wrist"]) > 0.0, name


def rig_solver():
    from posecode_ssg.motion.rigjson import rig_json

    return rig_json()["solver"]


def test_a_shallow_plie_keeps_its_heels_down_and_its_weight_over_the_feet(rt_page, runtime_site):
    """Issue 18 known fault: a demi-plié of 20° of knee in first position needs 19° of ankle
    dorsiflexion with the thighs upright, 4° past the ankle's range, and lifted the heels 15 mm;
    the ground-lock's sit-back keeps every held sole within 5 mm of the floor at 60 Hz, with no
    foot-flat warning, and the centre of mass (Winter's segments, computed here from the sampled
    joints) over the feet, between the heels and the toes."""
    from posecode_ssg.language import parse
    from posecode_ssg.language.vocabulary import BONES
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.rig import SEGMENT_MASSES

    doc = compile_ir(parse(SHALLOW_PLIE).ir).to_json()
    samples = sample_loop(rt_page, runtime_site, {"plie": doc})["plie"]
    worst = check_loop(doc, samples, solver=rig_solver())
    assert worst["lift"][0] <= LIMIT_MM and worst["drift"][0] <= LIMIT_MM, worst
    assert not any(code == "foot-flat" for s in samples for code, _foot in s["warnings"])
    for s in samples:
        for side in ("left", "right"):
            assert s["lm"][f"heel_{side}"][1] <= 0.005 and s["lm"][f"toe_{side}"][1] <= 0.005, (s["t"], side)
        at = {b: s["joints"][i] for i, b in enumerate(BONES)} | s["lm"]

        def point(name):
            parts = [at[n] for n in name.split("+")]
            return [sum(c) / len(parts) for c in zip(*parts)]

        com_z = sum(m * (point(a)[2] + f * (point(b)[2] - point(a)[2])) for _n, a, b, m, f in SEGMENT_MASSES)
        heel = max(s["lm"][f"heel_{side}"][2] for side in ("left", "right"))
        toe = min(s["lm"][f"toe_{side}"][2] for side in ("left", "right"))
        assert heel < com_z < toe, (s["t"], heel, com_z, toe)
