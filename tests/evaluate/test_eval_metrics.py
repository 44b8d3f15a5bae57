"""The eval metrics on synthetic samples (numpy FK of a known pose, one point moved by a known
amount): each metric must report exactly the displacement put in, and fail or pass at the
thresholds of issue 5 item 4."""

from __future__ import annotations

import math

import numpy as np
import pytest
from eval_synthetic import RIG, mat_quat, motion, move_foot, samples

from posecode_ssg.evaluate.explain import explain
from posecode_ssg.evaluate.metrics import evaluate_samples
from posecode_ssg.evaluate.planted import pivot_drift
from posecode_ssg.evaluate.sampler import KEY_PROBE, Timing, sample_times
from posecode_ssg.evaluate.thresholds import ROM_TOLERANCE_DEG
from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.motion.rotation import (
    euler_to_matrix,
    euler_to_quat,
    euler_xyz,
    rotation_vectors,
)

FEET = ["foot_left", "foot_right"]


def failing(res, metric):
    return [v for v in res.violations if v.metric == metric and v.fails and v.explained is None]


def ramp(s, a=0.0, b=1.0):
    """(N,) 0 → 1 over the loop (linear in time)."""
    return np.clip((s.t - a) / (b - a), 0.0, 1.0)


@pytest.mark.parametrize("slide_mm, fails", [(7.0, True), (3.0, False)])
def test_a_locked_foot_that_slides_is_drift(slide_mm, fails):
    mot = motion([{"name": "Hold", "d": 1.0, "gl": FEET}])
    s = samples(mot)
    delta = np.zeros((len(s.t), 3))
    delta[:, 2] = ramp(s) * slide_mm / 1000.0      # forward along +Z, 0 → slide over the phase
    move_foot(s, "left", delta, np.ones(len(s.t), bool))
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["drift"] == pytest.approx(slide_mm * (s.t[-1] / 1.0), abs=0.05)
    bad = failing(res, "drift")
    assert bool(bad) is fails
    if fails:
        assert bad[0].subject == "foot_left" and bad[0].phase == "Hold" and bad[0].limit == 5.0


def test_drift_of_an_unlocked_foot_is_not_measured():
    mot = motion([{"name": "Free", "d": 1.0}])
    s = samples(mot)
    delta = np.zeros((len(s.t), 3))
    delta[:, 0] = ramp(s) * 0.2
    move_foot(s, "left", delta, np.ones(len(s.t), bool))
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["drift"] is None and not res.violations


def test_a_swing_foot_under_feet_is_free():
    # mo-planted-feet-skate hamstring curl: the foot leaves the floor during the phase, so it
    # is not held there even though `feet` is locked
    mot = motion([{"name": "Curl", "d": 1.0, "gl": FEET}])
    s = samples(mot)
    delta = np.zeros((len(s.t), 3))
    delta[:, 1] = ramp(s) * 0.3      # up 30 cm by the end
    delta[:, 2] = -ramp(s) * 0.1     # and back 10 cm
    move_foot(s, "left", delta, np.ones(len(s.t), bool))
    res = evaluate_samples(s, mot, RIG)
    assert not [v for v in res.violations if v.subject == "foot_left"]
    assert res.worst["drift"] == 0.0   # the right foot is held and still


def test_heel_lift_and_tiptoe_intent():
    mot = motion([{"name": "Hold", "d": 1.0, "gl": FEET}])
    s = samples(mot)
    heel = s.landmarks.index("heel_right")
    s.lm[:, heel, 1] += 0.008
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["heel_lift"] == pytest.approx(8.0, abs=1e-6)
    assert failing(res, "heel_lift")[0].subject == "foot_right"
    assert res.worst["toe_lift"] == pytest.approx(0.0, abs=1e-6)
    # authored plantarflexion of 30° (above plantigradeMaxAnkle 15°): the heel may rise
    q = [round(v, 4) for v in euler_to_quat((30, 0, 0))]
    mot2 = motion([{"name": "Rise", "d": 1.0, "gl": FEET, "q": {"ankle_right": q, "ankle_left": q}}])
    res2 = evaluate_samples(s, mot2, RIG)
    assert res2.worst["heel_lift"] is None and not failing(res2, "heel_lift")


@pytest.mark.parametrize("deg, fails", [(8.0, True), (3.0, False)])
def test_sole_tilt(deg, fails):
    mot = motion([{"name": "Hold", "d": 1.0, "gl": FEET}])
    s = samples(mot)
    b = s.bones.index("ankle_left")
    s.orient[:, b] = mat_quat(euler_to_matrix((0.0, 0.0, deg)))   # rolled about the foot's long axis
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["sole_tilt"] == pytest.approx(deg, abs=1e-3)
    assert bool(failing(res, "sole_tilt")) is fails


def test_both_feet_locked_through_a_turn_are_measured_in_the_choreography_frame():
    mot = motion([{"name": "Turn", "d": 1.0, "gl": FEET, "turn": 90}])
    s = samples(mot)
    yaw = ramp(s) * 90.0
    s.yaw[:] = yaw
    # the whole stance turns with the choreography: rotate every foot point about +Y
    for side in ("left", "right"):
        for arr, names in ((s.pos, s.bones), (s.lm, s.landmarks)):
            for n in (f"ankle_{side}", f"heel_{side}", f"toe_{side}", f"sole_{side}"):
                if n in names:
                    p = arr[:, names.index(n)].copy()
                    th = np.radians(yaw)
                    arr[:, names.index(n), 0] = np.cos(th) * p[:, 0] + np.sin(th) * p[:, 2]
                    arr[:, names.index(n), 2] = -np.sin(th) * p[:, 0] + np.cos(th) * p[:, 2]
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["drift"] == pytest.approx(0.0, abs=1e-6)
    # a single locked foot is a world-fixed pivot: it may turn about a point of its own sole, but
    # carried round the body's axis it drifts — by the sweep of its sole point nearest that axis,
    # 2·r·sin(θ/2) for a turn θ about a centre r away (here the origin, θ = 90°)
    mot1 = motion([{"name": "Turn", "d": 1.0, "gl": ["foot_left"], "turn": 90}])
    res1 = evaluate_samples(s, mot1, RIG)
    heel0, toe0 = s.landmark("heel_left")[0, [0, 2]], s.landmark("toe_left")[0, [0, 2]]
    seg = toe0 - heel0
    u = np.clip(-heel0 @ seg / (seg @ seg), 0.0, 1.0)
    r = np.linalg.norm(heel0 + u * seg)
    held_yaw = s.yaw[s.segment == 0]
    expected = 2 * r * math.sin(math.radians(held_yaw.max() - held_yaw[0]) / 2) * 1000
    assert res1.worst["drift"] == pytest.approx(expected, rel=2e-3) and expected > 50


def test_grip_residual_held_and_taking_hold():
    bar = np.array(RIG["props"]["bar"]["anchors"]["bar_left"])
    mot = motion([{"name": "Jump", "d": 1.0, "grip": [["hand_left", "bar_left"]]},
                  {"name": "Hang", "d": 1.0, "grip": [["hand_left", "bar_left"]]}], props=["bar"], wrap=1.0)
    s = samples(mot)
    w = s.bones.index("wrist_left")
    s.pos[:, w] = bar + np.array([0.0, 0.0, 0.007])   # 7 mm off the anchor while hanging
    s.pos[s.segment == 2, w] = bar + np.array([0.0, -0.8, 0.0])   # the wrap lets go: not measured
    # while jumping to the bar (the previous phase had no grip) only the phase end counts
    s.pos[s.segment == 0, w] = bar + np.array([0.0, -0.5, 0.0])
    s.pos[np.flatnonzero(s.segment == 0)[-1], w] = bar
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["grip_residual"] == pytest.approx(7.0, abs=1e-6)
    bad = failing(res, "grip_residual")
    assert bad and {v.phase for v in bad} == {"Hang"}


def test_a_capsule_8_mm_into_the_wall_is_penetration():
    mot = motion([{"name": "Lean", "d": 1.0}], props=["wall"])
    s = samples(mot)
    face = RIG["props"]["wall"]["faces"][0]
    r = RIG["avatars"]["avatar1"]["collision"]["torso"]
    # put the neck so that the torso capsule's top sample is 8 mm into the wall face
    neck = s.bones.index("neck")
    z = face["center"][2] + r - 0.008
    s.pos[:, neck, 2] = z
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["penetration"] == pytest.approx(8.0, abs=1e-6)
    assert failing(res, "penetration")[0].subject == "wall"
    # without the prop declared nothing is measured
    assert evaluate_samples(s, motion([{"name": "Lean", "d": 1.0}]), RIG).worst["penetration"] is None


def _step_off(sink: float = 0.0, back_in: bool = False):
    """'On' pins the right foot on the box; in 'Off' (free) it still stands on the top for 0.3 s
    (its sole `sink` m into it), then stands on the floor in front of the box; with `back_in` its
    shin returns over the box, 2 cm above the top, from t = 1.2 s."""
    mot = motion([{"name": "On", "d": 0.5, "pin": [["foot_right", "box"]]}, {"name": "Off", "d": 1.0}], props=["box"])
    s = samples(mot)
    top = RIG["props"]["box"]["faces"][0]["center"][1] + RIG["props"]["box"]["faces"][0]["halfV"]
    ankle, knee = s.bones.index("ankle_right"), s.bones.index("knee_right")
    lm = {n: s.landmarks.index(f"{n}_right") for n in ("heel", "toe", "sole")}
    for i, t in enumerate(s.t):
        if t < 0.8 or (back_in and t >= 1.2):
            y, z = (top - sink, 0.3) if t < 0.8 else (top + 0.02, 0.3)
        else:
            y, z = 0.0, -0.1
        s.pos[i, ankle] = (0.1, y + 0.042, z)
        s.pos[i, knee] = (0.1, y + 0.45, z)
        for n, dz in (("heel", -0.05), ("toe", 0.14), ("sole", 0.05)):
            s.lm[i, lm[n]] = (0.1, y, z + dz)
    return evaluate_samples(s, mot, RIG)


def test_a_foot_stepping_off_the_box_is_measured_by_its_sole_until_its_shin_clears():
    # standing on the top it supported the body from, the shin model (radius, overhang past the
    # ankle) reads ~230 mm deep: the sole is what may not go into the box until the shin is clear
    res = _step_off()
    assert res.worst["penetration"] == pytest.approx(0.0, abs=1e-9)
    res = _step_off(sink=0.008)
    assert res.worst["penetration"] == pytest.approx(8.0, abs=1e-6)
    assert {v.phase for v in failing(res, "penetration")} == {"Off"}
    # once clear, the shin model holds again for the rest of the segment
    res = _step_off(back_in=True)
    assert res.worst["penetration"] > 100.0
    assert min(v.t for v in failing(res, "penetration")) == pytest.approx(1.2, abs=0.011)


def test_self_collision_depth_of_a_forearm_in_the_torso():
    mot = motion([{"name": "Hug", "d": 1.0}])
    s = samples(mot)
    col = RIG["avatars"]["avatar1"]["collision"]
    pelvis, neck = s.bone("pelvis")[0], s.bone("neck")[0]
    # wrist 0.15 m in front of the torso axis at chest height, elbow farther out to the side:
    # the wrist sample (or the 9 cm overhang beyond it) is the deepest
    mid = (pelvis + neck) / 2
    wrist = mid + np.array([0.0, 0.0, 0.15])
    elbow = mid + np.array([0.4, 0.0, 0.15])
    s.pos[:, s.bones.index("wrist_left")] = wrist
    s.pos[:, s.bones.index("elbow_left")] = elbow
    res = evaluate_samples(s, mot, RIG)
    # independent: the overhang point is 0.09 m past the wrist towards −X, i.e. at x = −0.09
    over = wrist + np.array([-0.09, 0.0, 0.0])
    d = min(np.linalg.norm(wrist - np.array([0, wrist[1], 0])), np.linalg.norm(over - np.array([0, over[1], 0])))
    expected = (col["torso"] + col["arm"] - d) * 1000
    assert res.worst["self_collision"] == pytest.approx(expected, abs=1e-6)
    assert failing(res, "self_collision")[0].subject == "arm_left torso"


def test_rom_violations_use_the_rig_boxes_with_tolerance():
    mot = motion([{"name": "Bend", "d": 1.0}])
    s = samples(mot)
    e = s.bones.index("elbow_left")   # the elbow's z axis is locked at 0
    s.local[:, e] = euler_to_quat((-90.0, 0.0, 10.0))
    res = evaluate_samples(s, mot, RIG)
    bad = failing(res, "rom")
    assert res.worst["rom"] == len(s.t) and bad[0].subject == "elbow_left"
    assert bad[0].value == pytest.approx(10.0, abs=1e-6)
    s.local[:, e] = euler_to_quat((-90.0, 0.0, ROM_TOLERANCE_DEG * 0.6))
    assert evaluate_samples(s, mot, RIG).worst["rom"] == 0


def test_rom_angles_count_modulo_a_full_turn():
    # the shoulder's flexion limit is −180° (rig.json rom): an arm 0.2° past it reads as +179.8°
    # from atan2; it is 0.2° out (within tolerance), 0.8° past it is 0.8° out, not ~120°
    mot = motion([{"name": "Overhead", "d": 1.0}])
    s = samples(mot)
    sh = s.bones.index("shoulder_left")
    s.local[:, sh] = euler_to_quat((-180.2, 0.0, 0.0))
    assert evaluate_samples(s, mot, RIG).worst["rom"] == 0
    s.local[:, sh] = euler_to_quat((-180.8, 0.0, 0.0))
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["rom"] == len(s.t)
    assert failing(res, "rom")[0].value == pytest.approx(0.8, abs=1e-6)


def test_euler_decomposition_matches_the_compiler_convention():
    rng = np.random.default_rng(5)
    for _ in range(50):
        e = rng.uniform([-170, -80, -170], [170, 80, 170])
        first, second = euler_xyz(euler_to_quat(e))
        assert np.allclose(first, e, atol=1e-6)
        # the second triple is the same rotation
        assert np.allclose(euler_to_matrix(second), euler_to_matrix(e), atol=1e-9)


def test_rotation_vectors():
    a = euler_to_quat((10, 0, 0))
    b = euler_to_quat((30, 0, 0))
    assert np.allclose(rotation_vectors(a, b), [math.radians(20), 0, 0])
    assert np.allclose(rotation_vectors(a, -b), [math.radians(20), 0, 0])   # double cover


def _keyed_samples(mot, angle_fn):
    """Samples at the keyframe probes only, elbow_left rotated about X by angle_fn(t) degrees."""
    T = Timing.of(mot)
    t, keys = sample_times(T, 10.0)
    s = samples(mot)
    n = len(t)
    seg = np.searchsorted(np.array(T.times), t % T.duration, side="right") - 1
    s.t, s.segment, s.phase = t, seg, np.where(seg < len(mot["phases"]), seg, -1)
    for name in ("pos", "local", "orient", "lm"):
        arr = getattr(s, name)
        setattr(s, name, np.repeat(arr[:1], n, axis=0))
    s.yaw, s.travel, s.keys = np.zeros(n), np.zeros((n, 2)), keys
    e = s.bones.index("elbow_left")
    s.local[:, e] = np.array([euler_to_quat((-angle_fn(x), 0, 0)) for x in t % T.duration])
    return s


def test_velocity_jump_at_a_flow_keyframe_fails_and_snap_is_exempt():
    # a kink at t = 1: 20°/s before, 80°/s after
    kink = lambda t: 20 * t if t <= 1 else 20 + 80 * (t - 1)   # noqa: E731
    mot = motion([{"name": "A", "d": 1.0, "m": "flow"}, {"name": "B", "d": 1.0, "m": "flow"}])
    res = evaluate_samples(_keyed_samples(mot, kink), mot, RIG)
    bad = [v for v in failing(res, "velocity_jump") if v.phase == "B"]
    assert bad and bad[0].value == pytest.approx(math.radians(60), rel=0.02)
    assert bad[0].subject.startswith("elbow_left")
    # a snap arrival into the keyframe is not C1 by design
    mot2 = motion([{"name": "A", "d": 1.0, "m": "snap"}, {"name": "B", "d": 1.0, "m": "flow"}])
    res2 = evaluate_samples(_keyed_samples(mot2, kink), mot2, RIG)
    assert not [v for v in failing(res2, "velocity_jump") if v.phase == "B"]
    # smooth curves pass, a hard acceleration through the keyframe included (≈ 1050 rad/s²: a
    # first-order ±1 ms difference would read it as a 1 rad/s jump, over the 0.6 rad/s allowed)
    for smooth in (lambda t: 30 * math.sin(t), lambda t: 60 * (t - 1) + 30000 * (t - 1) ** 2):
        res3 = evaluate_samples(_keyed_samples(mot, smooth), mot, RIG)
        assert not [v for v in failing(res3, "velocity_jump") if v.phase == "B"]


def test_sample_times_cover_the_wrap_and_the_seam():
    mot = motion([{"name": "A", "d": 1.0}, {"name": "B", "d": 0.5}], wrap=1.0)
    T = Timing.of(mot)
    assert T.times == [0.0, 1.0, 1.5, 2.5] and T.names[-1] == "wrap"
    t, keys = sample_times(T, 60.0)
    assert t[0] == 0.0 and t[-1] == pytest.approx(2.5 + 1.0 - KEY_PROBE)
    assert np.all(np.diff(t) > 0) and np.max(np.diff(t)) <= 1 / 60 + 1e-9
    # K0 is measured at the seam (t = duration), where both sides exist
    assert [(k, t[i]) for k, i in keys] == [(1, pytest.approx(1.0)), (2, pytest.approx(1.5)), (3, pytest.approx(2.5))]
    for _, i in keys:
        assert np.diff(t[i - 2:i + 3]) == pytest.approx([KEY_PROBE] * 4)


def test_a_kinematic_diagnostic_explains_the_heel_lift_of_its_foot_and_phase():
    mot = motion([{"name": "Lower", "d": 1.0, "gl": FEET}])
    s = samples(mot)
    for side in ("left", "right"):
        s.lm[:, s.landmarks.index(f"heel_{side}"), 1] += 0.03
    res = evaluate_samples(s, mot, RIG)
    diag = Diagnostic("kinematic-foot-flat", "warning", 4, 3, "foot_left cannot stay flat in phase 'Lower'",
                      None, {"phase": "Lower", "foot": "foot_left"})
    explain(res.violations, [diag], ["Lower"])
    heel = [v for v in res.violations if v.metric == "heel_lift"]
    left = [v for v in heel if v.subject == "foot_left"]
    right = [v for v in heel if v.subject == "foot_right"]
    assert left[0].explained == {"line": 4, "column": 3, "code": "kinematic-foot-flat",
                                 "message": "foot_left cannot stay flat in phase 'Lower'"}
    assert right[0].explained is None and not left[0].to_dict()["fails"] and right[0].to_dict()["fails"]


def test_toes_lowered_onto_a_planted_heel_are_measured_when_they_land():
    # mo-joint-direction-signs "Toes down": the phase starts with the left toes 48 mm up on a
    # planted heel and brings them down; the toe moves 6 mm forward as it rotates about the heel
    mot = motion([{"name": "Toes down", "d": 1.0, "gl": FEET}])
    s = samples(mot)
    toe = s.landmarks.index("toe_left")
    u = ramp(s, 0.0, 0.8)
    s.lm[:, toe, 1] += 0.048 * (1 - u)
    s.lm[:, toe, 2] -= 0.006 * (1 - u)
    res = evaluate_samples(s, mot, RIG)
    assert not failing(res, "toe_lift") and not failing(res, "drift")
    # the same foot still 8 mm up at the phase end fails there
    s.lm[:, toe, 1] = np.maximum(s.lm[:, toe, 1], 0.008)
    bad = failing(evaluate_samples(s, mot, RIG), "toe_lift")
    assert len(bad) == 1 and bad[0].value == pytest.approx(8.0, abs=1e-6)
    assert bad[0].t == pytest.approx(s.t[-1])


def test_a_heel_lifted_about_the_ball_is_measured_for_drift_only_while_it_is_down():
    # demi-plie / horse-stance: the ankle's range lifts the heel 40 mm about the planted ball of
    # the foot (explained by kinematic-foot-flat); the heel swings 4.4 mm back as it rises and
    # comes down where it was: no drift. A heel that lands 7 mm away is drift.
    mot = motion([{"name": "Plie", "d": 1.0, "gl": FEET}])
    s = samples(mot)
    heel = s.landmarks.index("heel_left")
    up = np.sin(np.pi * ramp(s, 0.1, 0.9))
    s.lm[:, heel, 1] += 0.040 * up
    s.lm[:, heel, 2] += 0.0044 * up
    res = evaluate_samples(s, mot, RIG)
    assert not failing(res, "drift") and res.worst["drift"] < 1.0   # its swing while under 5 mm
    assert failing(res, "heel_lift")[0].value == pytest.approx(40.0, abs=0.1)
    s.lm[:, heel, 2] += 0.007 * ramp(s, 0.1, 0.9)
    bad = failing(evaluate_samples(s, mot, RIG), "drift")
    assert bad and bad[0].subject == "foot_left" and bad[0].value == pytest.approx(7.0, abs=0.5)


def test_reach_residuals_above_10_mm_are_listed_not_failed():
    mot = motion([{"name": "Reach", "d": 1.0, "reach": [["hand_left", "floor"], ["hand_right", "floor"]]}])
    s = samples(mot)
    # standing: the hands hang far above the floor; lower the right one to 4 mm above it
    names = ["palm_right"] + [f"{d}_tip_right" for d in RIG["digits"]]
    low = min(s.landmark(n)[0, 1] for n in names)
    for n in names:
        s.lm[:, s.landmarks.index(n), 1] += 0.004 - low
    res = evaluate_samples(s, mot, RIG)
    listed = [v for v in res.violations if v.metric == "reach_residual"]
    assert [v.subject for v in listed] == ["hand_left floor"]
    assert not listed[0].fails and listed[0].value > 500
    assert res.worst["reach_residual"] == pytest.approx(listed[0].value)
    assert not [v for v in res.violations if v.fails]


def test_pin_to_a_prop_anchor_is_measured_with_the_sole_on_a_top_surface():
    box = np.array(RIG["props"]["box"]["anchors"]["box"])
    mot = motion([{"name": "Up", "d": 1.0, "pin": [["foot_left", "box"]]},
                  {"name": "Stay", "d": 1.0, "pin": [["foot_left", "box"]]}], props=["box"], wrap=1.0)
    s = samples(mot)
    sole = s.landmarks.index("sole_left")
    s.lm[:, sole] = box + np.array([0.006, 0.0, 0.0])
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["pin_residual"] == pytest.approx(6.0, abs=1e-6)
    assert {v.phase for v in failing(res, "pin_residual")} == {"Up", "Stay"}


def _rigid(points, angle_deg, centre, shift=(0.0, 0.0)):
    """Rotate (x, z) of ``points`` (n, 3) by ``angle_deg`` about ``centre`` (x, z), then shift."""
    a = math.radians(angle_deg)
    out = np.array(points, float)
    x, z = out[:, 0] - centre[0], out[:, 2] - centre[1]
    out[:, 0] = math.cos(a) * x - math.sin(a) * z + centre[0] + shift[0]
    out[:, 2] = math.sin(a) * x + math.cos(a) * z + centre[1] + shift[1]
    return out


def test_pivot_drift_lets_a_foot_turn_about_its_sole_but_not_slide():
    """pc-ground-lock-effectors: a single locked foot is the pivot of a turn — turning in place
    about a sole point is no drift; a slide is; a turn about a point off the sole is."""
    heel0, toe0 = np.array([-0.1, 0.0, -0.0425]), np.array([-0.1, 0.0, 0.1425])
    angles = np.linspace(0.0, 180.0, 31)

    def track(centre):
        heel = np.array([_rigid([heel0], a, centre)[0] for a in angles])
        toe = np.array([_rigid([toe0], a, centre)[0] for a in angles])
        return heel, toe

    for centre in ((-0.1, 0.05), (-0.1, 0.1425), (-0.1, -0.0425)):   # sole centre, ball, heel
        assert pivot_drift(*track(centre)).max() < 1e-6
    # a slide without a turn is drift in full (a slide WITH a turn is a turn about another point:
    # counted by how far that point lies off the sole, below)
    heel = np.array([_rigid([heel0], 0.0, (0, 0), (0.01 * a / 180, 0.0))[0] for a in angles])
    toe = np.array([_rigid([toe0], 0.0, (0, 0), (0.01 * a / 180, 0.0))[0] for a in angles])
    assert pivot_drift(heel, toe)[-1] == pytest.approx(10.0, abs=1e-6)
    off = pivot_drift(*track((-0.1, -0.2)))          # turning about a point 16 cm behind the heel
    assert off[-1] == pytest.approx(2 * 157.5, rel=0.01)   # the nearest sole point (heel) sweeps 2 × 157.5 mm


@pytest.mark.parametrize("reached, measured", [(False, False), (True, True)])
def test_a_locked_foot_that_was_no_contact_before_arrives_and_is_not_held(reached, measured):
    # mountain-climber: the tucked right foot touches the floor at the end of "Knee in" (no contact
    # of its own there) and returns 0.3 m to the plank under "ground-lock: foot_right" — it
    # arrives during "Switch"; a foot that reached the floor in the phase before is a contact and held
    before = {"name": "Knee in", "d": 0.5, "gl": ["foot_left"]}
    if reached:
        before["reach"] = [["foot_right", "floor"]]
    mot = motion([before, {"name": "Switch", "d": 0.5, "gl": ["foot_right"]}], wrap=0.5)
    s = samples(mot)
    delta = np.zeros((len(s.t), 3))
    delta[:, 2] = -np.clip((s.t - 0.5) / 0.5, 0.0, 1.0) * 0.3    # back 30 cm through "Switch"
    move_foot(s, "right", delta, (s.t >= 0.5) & (s.t < 1.0))
    res = evaluate_samples(s, mot, RIG)
    bad = [v for v in failing(res, "drift") if v.subject == "foot_right"]
    assert bool(bad) is measured
    if measured:
        last = float(s.t[s.t < 1.0][-1])   # the last sample of "Switch"
        assert bad[0].value == pytest.approx(300.0 * (last - 0.5) / 0.5, abs=0.5)
