"""The ``float`` metric (issue 18 item 3): the lowest mesh point of a figure no grip or prop pin
holds, above the floor. Heights are put in by hand (the whole figure raised by a known amount)
and the lowest point of the standing pose is computed independently from rig.json's sole box."""

from __future__ import annotations

import numpy as np
import pytest
from eval_synthetic import RIG, motion, samples

from posecode_ssg.evaluate.explain import explain
from posecode_ssg.evaluate.metrics import evaluate_samples
from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.vocabulary import AVATARS, BONES
from posecode_ssg.motion.fk import World, forward_kinematics, lowest_by_bone_of_arrays
from posecode_ssg.motion.rig import avatar


def floats(res):
    return [v for v in res.violations if v.metric == "float"]


def raise_figure(s, dy, mask=None):
    """Translate every joint and landmark up by ``dy`` metres (where ``mask``, default all)."""
    m = np.ones(len(s.t), bool) if mask is None else mask
    s.pos[m, :, 1] += dy
    s.lm[m, :, 1] += dy


def standing_sole_bottom(s):
    """(N,) y of the lowest sole-box face of the standing pose (ankles unrotated: the box's bottom
    is ankle y + centre y − half its height; rig.json ``avatars.avatar1.sole``) — independent of
    the evaluator's primitives."""
    sole = RIG["avatars"]["avatar1"]["sole"]
    ankles = np.minimum(s.bone("ankle_left")[:, 1], s.bone("ankle_right")[:, 1])
    return ankles + sole["center"][1] - 0.5 * sole["size"][1]


@pytest.mark.parametrize("lift_mm, fails", [(12.0, True), (4.0, False)])
def test_a_raised_figure_floats_by_its_height(lift_mm, fails):
    mot = motion([{"name": "Stand", "d": 1.0}])
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0] + lift_mm / 1000.0)   # soles at the lift height
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["float"] == pytest.approx(lift_mm, abs=1e-6)
    bad = floats(res)
    assert bool(bad) is fails
    if fails:
        assert len(bad) == 1 and bad[0].phase == "Stand" and bad[0].limit == 5.0
        assert bad[0].subject in ("ankle_left", "ankle_right") and bad[0].fails


def test_float_is_the_worst_height_over_the_loop():
    mot = motion([{"name": "Up", "d": 0.5}, {"name": "Down", "d": 0.5}])
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0])
    bump = np.clip(1.0 - np.abs(s.t - 0.7) / 0.2, 0.0, None) * 0.030   # 30 mm peak at t = 0.7 s
    s.pos[:, :, 1] += bump[:, None]
    s.lm[:, :, 1] += bump[:, None]
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["float"] == pytest.approx(30.0, abs=1e-6)
    (v,) = floats(res)
    assert v.t == pytest.approx(0.7) and v.phase == "Down" and v.value == pytest.approx(30.0, abs=1e-6)


# a phase that holds the body up carries the compiler's "hang" (motion/support.py)
@pytest.mark.parametrize("held", [{"grip": [["hand_left", "bar_left"], ["hand_right", "bar_right"]], "hang": True},
                                  {"pin": [["foot_left", "box"]], "hang": True}])
def test_a_grip_or_prop_pin_phase_is_not_measured(held):
    mot = motion([{"name": "Hang", "d": 0.5, **held}, {"name": "Stand", "d": 0.5}], wrap=0.5)
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0])
    hang = s.segment == 0
    raise_figure(s, 0.300, hang)                    # hanging 30 cm up: not float
    stand = s.segment == 1
    raise_figure(s, 0.008, stand)                   # standing 8 mm up: float
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["float"] == pytest.approx(8.0, abs=1e-6)
    assert [v.phase for v in floats(res)] == ["Stand"]


def test_the_wrap_is_measured_and_a_floor_pin_is_not_a_hold():
    mot = motion([{"name": "Lunge", "d": 0.5, "pin": [["foot_left", "floor"]]},
                  {"name": "Hang", "d": 0.5, "grip": [["hand_left", "bar_left"]], "hang": True}], wrap=0.5)
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0])
    raise_figure(s, 0.010, s.segment == 0)          # the floor-pinned phase: 10 mm
    raise_figure(s, 0.300, s.segment == 1)          # hanging: not measured
    raise_figure(s, 0.020, s.segment == 2)          # the wrap: 20 mm
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["float"] == pytest.approx(20.0, abs=1e-6)
    assert [(v.phase, round(v.value, 6)) for v in floats(res)] == [("Lunge", 10.0), ("wrap", 20.0)]


def test_the_repeated_first_segment_reports_one_float_even_when_the_lowest_side_differs():
    # eval samples the first segment twice (sampler.sample_times); here the two copies float
    # 10 mm alike (1 nm apart, as the runtime's rounding may leave them) but the lowest foot is
    # the right one in the first copy and the left one in the second
    mot = motion([{"name": "Stand", "d": 0.5}, {"name": "Step", "d": 0.5}])
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0])
    first = np.flatnonzero(s.segment == 0)
    for name in ("t", "phase", "segment", "pos", "local", "orient", "lm", "yaw", "travel"):
        a = getattr(s, name)
        setattr(s, name, np.concatenate([a, a[first] + (s.timing.duration if name == "t" else 0)]))
    copy = np.arange(len(s.t)) >= len(s.t) - len(first)
    for side, where in (("right", ~copy), ("left", copy)):
        s.pos[where, s.bones.index(f"ankle_{side}"), 1] -= 1e-7
        s.pos[where, :, 1] += 1e-7
        s.lm[where, :, 1] += 1e-7
    raise_figure(s, 1e-9, copy)
    raise_figure(s, 0.010, s.segment == 0)          # "Step" stays on the floor
    res = evaluate_samples(s, mot, RIG)
    (v,) = floats(res)
    assert v.phase == "Stand" and v.value == pytest.approx(10.0, abs=1e-3) and v.subject in ("ankle_left", "ankle_right")


def test_a_figure_below_the_floor_floats_0():
    mot = motion([{"name": "Stand", "d": 1.0}])
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0] - 0.030)   # soles 30 mm under the floor
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["float"] == 0.0 and not floats(res)


def test_only_held_phases_is_nothing_to_measure():
    mot = motion([{"name": "Hang", "d": 1.0, "grip": [["hand_left", "bar_left"]], "hang": True}])
    s = samples(mot)
    raise_figure(s, 0.5)
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["float"] is None and not floats(res)


@pytest.mark.parametrize("phase, height, explained", [("Down", 0.300, True), ("Down", 0.100, False),
                                                     ("Hang", 0.300, True), ("Stand", 0.300, False)])
def test_a_ground_lock_lifted_at_its_phase_start_explains_the_float_there(phase, height, explained):
    # the segment leaving a hang: it starts 300 mm up and comes down to the floor by its end;
    # a lifted lock of its own phase or of the one before (which it leaves) explains that, not
    # one of an unrelated phase
    mot = motion([{"name": "Hang", "d": 0.5, "grip": [["hand_left", "bar_left"]], "hang": True},
                  {"name": "Down", "d": 0.5, "gl": ["foot_left", "foot_right"]}])
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0])
    down = np.clip(1.0 - (s.t - 0.5) / 0.5, 0.0, 1.0) * 0.300
    s.pos[:, :, 1] += down[:, None]
    s.lm[:, :, 1] += down[:, None]
    res = evaluate_samples(s, mot, RIG)
    diag = Diagnostic("kinematic-ground-lock-lifted", "warning", 9, 5,
                      f"ground-lock foot_left in phase {phase!r}: it is {height * 100:.0f} cm above the floor",
                      None, {"phase": phase, "height": height})
    explain(res.violations, [diag], ["Hang", "Down"])
    (v,) = floats(res)
    assert v.phase == "Down" and v.value == pytest.approx(300.0, abs=1e-6)
    assert (v.explained is not None) is explained and v.to_dict()["fails"] is not explained
    if explained:
        assert v.explained["code"] == "kinematic-ground-lock-lifted" and v.explained["line"] == 9


def _poses(rng, k):
    """``k`` random poses (every bone within ±60°, the root turned anywhere), lying included."""
    for _ in range(k):
        euler = {b: tuple(rng.uniform(-60, 60, 3)) for b in BONES}
        a = rng.uniform(-np.pi, np.pi, 3)
        cx, sx, cy, sy, cz, sz = np.cos(a[0]), np.sin(a[0]), np.cos(a[1]), np.sin(a[1]), np.cos(a[2]), np.sin(a[2])
        root = (np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]) @ np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
                @ np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]))
        yield euler, rng.uniform(-1, 1, 3), root


@pytest.mark.parametrize("avatar_id", AVATARS)
def test_the_array_lowest_point_equals_world_lowest(avatar_id):
    """lowest_by_bone_of_arrays is World.lowest_by_bone (both of its paths) on every pose."""
    av = avatar(avatar_id)
    worlds = [forward_kinematics(av, e, p, r) for e, p, r in _poses(np.random.default_rng(18), 40)]
    pos = {b: np.array([w.pos[b] for w in worlds]) for b in BONES}
    rot_y = {b: np.array([w.rot[b][1] for w in worlds]) for b in BONES}
    marks = {m: np.array([w.landmarks[m] for w in worlds]) for m in worlds[0].landmarks}
    got = lowest_by_bone_of_arrays(av, pos, rot_y, marks)
    for i, w in enumerate(worlds):
        plain = World(av, dict(w.pos), dict(w.rot), dict(w.landmarks), w.root_pos, w.root_rot)   # no fk_data
        want = plain.lowest_by_bone()
        assert {b: got[b][i] for b in BONES} == pytest.approx(want, abs=1e-12)
        assert min(got[b][i] for b in BONES) == pytest.approx(w.lowest(), abs=1e-12)


G = RIG["solver"]["gravity"]


@pytest.mark.parametrize("profile, fails", [("free fall", False), ("eased", True)])
def test_letting_go_of_a_grip_is_a_fall_not_a_float_only_at_gravity(profile, fails):
    # hanging 30 cm up, then let go: a body falling from rest lands after sqrt(2h/g) = 0.247 s;
    # coming down slower (eased over the whole phase) is a float
    h = 0.300
    mot = motion([{"name": "Hang", "d": 0.5, "grip": [["hand_left", "bar_left"], ["hand_right", "bar_right"]], "hang": True},
                  {"name": "Let go", "d": 0.8}], wrap=0.5)
    s = samples(mot)
    raise_figure(s, -standing_sole_bottom(s)[0])
    raise_figure(s, h, s.segment == 0)
    t = s.t - 0.5
    drop = s.segment == 1
    if profile == "free fall":
        y = np.maximum(0.0, h - 0.5 * G * t ** 2)
    else:
        u = np.clip(t / 0.8, 0.0, 1.0)
        y = h * (1.0 - u * u * (3.0 - 2.0 * u))
    s.pos[drop, :, 1] += y[drop, None]
    s.lm[drop, :, 1] += y[drop, None]
    res = evaluate_samples(s, mot, RIG)
    assert bool(floats(res)) is fails
    if fails:
        assert floats(res)[0].phase == "Let go" and floats(res)[0].value > 100.0
