"""The mo-* cases of ../shared/cases/bugs, judged at phase ends (the build-time solve works on
keyframes; per-frame checks belong to the runtime tests). Expected values: each case's
expected.md."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_motion import shared_path

from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.motion.solve import solve_keyframes

PLANT = 0.005


def _load(case: str, name: str):
    src = shared_path("cases", "bugs", case, name).read_bytes().decode("utf-8")
    result = parse(src)
    assert not result.errors
    assert not result.warnings     # "compile with no errors and no ROM warnings"
    return compile_ir(result.ir)


def _soles_planted(w, sides=("left", "right")):
    for s in sides:
        assert abs(w.landmarks[f"heel_{s}"][1]) <= PLANT, s
        assert abs(w.landmarks[f"toe_{s}"][1]) <= PLANT, s


# --- mo-deadlift-heel-lift ---------------------------------------------------------------------

def test_deadlift_soft_knees_stays_planted_and_arms_hang():
    p = _load("mo-deadlift-heel-lift", "deadlift-soft-knees.posecode")
    sol = solve_keyframes(p)
    start = {s: sol.base.landmarks[f"sole_{s}"] for s in ("left", "right")}
    for ph in sol.phases:
        _soles_planted(ph.world)
        for s in ("left", "right"):
            d = ph.world.landmarks[f"sole_{s}"] - start[s]
            assert math.hypot(d[0], d[2]) <= PLANT
    w = sol.phases[0].world   # end of "Lower"
    for s in ("left", "right"):
        sh, wr = w.pos[f"shoulder_{s}"], w.pos[f"wrist_{s}"]
        assert sh[1] - wr[1] >= 0.35
        assert math.hypot(sh[0] - wr[0], sh[2] - wr[2]) <= 0.15
    # "no grounding diagnostics": of the feet on the floor (the hinge's balance, its centre of mass
    # ahead of the toes, is another matter: kinematic-balance, issue 19)
    assert [d.code for d in kinematic_diagnostics(p) if d.code != "kinematic-balance"] == []


def test_deadlift_deep_knees_keeps_the_soles_planted_by_sitting_back():
    # expected.md 4, first branch: "the soles still stay planted within 5 mm (the solver finds
    # another legal way, e.g. less shin tilt)". The ground-lock's sit-back (issue 18) stands the
    # shins up by moving the hips back over the heels; the ankle never passes its 15 degrees.
    from posecode_ssg.motion.rest import centre_of_mass

    p = _load("mo-deadlift-heel-lift", "deadlift-deep-knees.posecode")
    sol = solve_keyframes(p)
    start = {s: sol.base.landmarks[f"sole_{s}"] for s in ("left", "right")}
    w = sol.phases[0].world
    for s in ("left", "right"):
        assert sol.phases[0].euler[f"ankle_{s}"][0] >= -15.0 - 1e-9
        d = w.landmarks[f"sole_{s}"] - start[s]
        assert math.hypot(d[0], d[2]) <= PLANT
    _soles_planted(w)
    assert not [d for d in kinematic_diagnostics(p) if d.code == "kinematic-foot-flat"]
    # sitting back did not tip the body backwards: the centre of mass is ahead of the heels
    com = centre_of_mass(w)
    assert max(w.landmarks[f"heel_{s}"][2] for s in ("left", "right")) < com[2]


# --- mo-joint-direction-signs -------------------------------------------------------------------

def test_direction_signs_at_phase_ends():
    p = _load("mo-joint-direction-signs", "directions.posecode")
    sol = solve_keyframes(p)
    ends = {kf.name: ph.world for kf, ph in zip(p.keyframes, sol.phases)}
    w = ends["Arms out"]
    for s, sign in (("left", 1), ("right", -1)):
        wr, sh = w.pos[f"wrist_{s}"], w.pos[f"shoulder_{s}"]
        assert sign * wr[0] > 0 and abs(wr[0]) >= abs(sh[0]) + 0.3 and abs(wr[2]) < 0.1
        an, hip = w.pos[f"ankle_{s}"], w.pos[f"hip_{s}"]
        assert sign * an[0] > 0 and abs(an[0]) >= abs(hip[0]) + 0.2
    base_head = sol.base.pos["head"]
    w = ends["Hinge"]
    assert w.pos["head"][2] > 0.3 and w.pos["head"][1] < base_head[1]
    for s in ("left", "right"):
        d = w.pos[f"hip_{s}"] - w.pos[f"ankle_{s}"]
        assert math.hypot(d[0], d[2]) <= 0.06
    _soles_planted(w)
    assert ends["Round"].pos["head"][2] > 0.1
    w = ends["Toes up"]
    v = w.landmarks["toe_left"] - w.landmarks["heel_left"]
    pitch = math.degrees(math.atan2(v[1], math.hypot(v[0], v[2])))
    assert 10 <= pitch <= 20
    # the free left foot on its heel is set down by its own hip and knee (pitch kept), not by
    # lifting the body off the locked right foot (it rose 9.6 mm; issue 5); its heel on the floor
    _soles_planted(w, ("right",))
    assert abs(w.landmarks["heel_left"][1]) <= PLANT


@pytest.mark.parametrize("name,facing", [("start-plank.posecode", -1), ("start-prone.posecode", -1),
                                         ("start-supine.posecode", 1)])
def test_lying_start_poses(name, facing):
    p = _load("mo-joint-direction-signs", name)
    sol = solve_keyframes(p)
    for w in (sol.base, sol.phases[0].world):
        assert facing * (w.rot["chest"] @ [0, 0, 1])[1] > 0.8
        assert abs(w.lowest()) <= 0.005


# --- mo-planted-feet-skate ----------------------------------------------------------------------

def test_squat_feet_stay_and_pelvis_travels_back_and_down():
    p = _load("mo-planted-feet-skate", "squat.posecode")
    sol = solve_keyframes(p)
    start = {s: sol.base.landmarks[f"sole_{s}"] for s in ("left", "right")}
    for ph in sol.phases:
        _soles_planted(ph.world)
        for s in ("left", "right"):
            assert np.linalg.norm(ph.world.landmarks[f"sole_{s}"] - start[s]) <= PLANT
    down = sol.phases[0].world.pos["pelvis"] - sol.base.pos["pelvis"]
    assert down[2] <= -0.2 and down[1] <= -0.3
    # "no drift or heel diagnostics" (the balance advice, issue 19, is another matter)
    assert [d.code for d in kinematic_diagnostics(p) if d.code != "kinematic-balance"] == []


def test_hamstring_curl_stance_foot_planted_swing_foot_free():
    p = _load("mo-planted-feet-skate", "hamstring-curl.posecode")
    sol = solve_keyframes(p)
    right0 = sol.base.landmarks["sole_right"]
    left0 = sol.base.landmarks["sole_left"]
    for ph in sol.phases:
        assert np.linalg.norm(ph.world.landmarks["sole_right"] - right0) <= PLANT
        _soles_planted(ph.world, ("right",))
    curl, lower = (ph.world for ph in sol.phases)
    assert curl.pos["ankle_left"][1] >= 0.3
    assert np.linalg.norm(lower.landmarks["sole_left"] - left0) <= 0.010
    assert [d.code for d in kinematic_diagnostics(p) if d.code != "kinematic-balance"] == []


# --- mo-start-pose-overlay ----------------------------------------------------------------------

def test_start_pose_overlay_opens_the_arms_from_t0():
    p = _load("mo-start-pose-overlay", "first-position-arms.posecode")
    assert len(p.keyframes) == 3
    # the overlay records only the authored channels; first position's turn-out is kept
    assert p.base_euler["hip_left"] == (0.0, 30.0, 0.0) and p.base_euler["hip_right"] == (0.0, -30.0, 0.0)
    assert p.base_euler["shoulder_left"] == (0.0, 0.0, 70.0)
    assert p.base_euler["elbow_left"] == (-15.0, -80.0, 0.0)
    # the last phase is home: no wrap, one cycle lasts 3.0 s
    assert p.wrap == 0 and p.duration == pytest.approx(3.0)
    sol = solve_keyframes(p)
    worlds = [sol.base] + [ph.world for ph in sol.phases]
    for w in worlds[:2]:   # t = 0 and the end of "Look left"
        for s, sign in (("left", 1), ("right", -1)):
            d = w.pos[f"wrist_{s}"] - w.pos[f"shoulder_{s}"]
            assert sign * d[0] >= 0.4 and d[1] >= -0.3
    lift = worlds[2]
    for s, sign in (("left", 1), ("right", -1)):
        d = lift.pos[f"wrist_{s}"] - lift.pos[f"shoulder_{s}"]
        d0 = worlds[1].pos[f"wrist_{s}"] - worlds[1].pos[f"shoulder_{s}"]
        assert sign * d[0] >= 0.4 and d[2] > d0[2] + 0.03
    # the loop seam equals the composed start pose
    for b in p.base_quat:
        assert abs(float(np.dot(p.keyframes[-1].quat[b], p.base_quat[b]))) == pytest.approx(1.0, abs=1e-9)


def test_one_line_start_keeps_the_arms_hanging():
    p = _load("mo-start-pose-overlay", "one-line.posecode")
    w = solve_keyframes(p).base
    for s in ("left", "right"):
        assert w.pos[f"shoulder_{s}"][1] - w.pos[f"wrist_{s}"][1] >= 0.45


# --- pc-ground-lock-effectors (motion part), judged at phase ends ------------------------------

def _yaw_deg(w) -> float:
    """Facing yaw about +Y from the hip line: at yaw θ the figure's left (+X at rest) points to
    (cos θ, 0, −sin θ)."""
    d = w.pos["hip_left"] - w.pos["hip_right"]
    return math.degrees(math.atan2(-d[2], d[0])) % 360.0


def test_pivot_turns_about_the_planted_right_foot():
    """expected.md item 4: facing 70° ± 2° after "Cross", 180° ± 2° after "Settle"; the right
    sole stays planted within 20 mm (the body turns about it, not about the pelvis)."""
    src = shared_path("cases", "bugs", "pc-ground-lock-effectors", "pivot.posecode").read_bytes().decode("utf-8")
    p = compile_ir(parse(src).ir)
    sol = solve_keyframes(p)
    start = sol.base.landmarks["sole_right"]
    for ph, yaw in zip(sol.phases, (70.0, 180.0)):
        assert abs(_yaw_deg(ph.world) - yaw) <= 2.0
        d = ph.world.landmarks["sole_right"] - start
        assert math.hypot(d[0], d[2]) <= 0.020 and abs(ph.world.landmarks["sole_right"][1]) <= 0.020
    assert not [d for d in kinematic_diagnostics(p) if d.code == "kinematic-foot-drift"]

