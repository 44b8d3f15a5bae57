"""eval ``pop`` (docs/eval.md): a joint that jumps between two samples inside a segment is listed
with its bone and size; smooth motion, however quick, and a keyframe's change of pace are not."""

from __future__ import annotations

import math

import numpy as np
import pytest
from eval_synthetic import RIG, motion, samples

from posecode_ssg.evaluate.metrics import evaluate_samples
from posecode_ssg.evaluate.pops import pop_excess, step_angles
from posecode_ssg.motion.rotation import euler_to_quat


def _elbow(mot: dict, angle_fn, hz: float = 60.0):
    """Samples of the neutral pose whose left elbow flexes by ``angle_fn(t)`` degrees."""
    s = samples(mot, hz=hz)
    e = s.bones.index("elbow_left")
    s.local[:, e] = np.array([euler_to_quat((-angle_fn(t), 0.0, 0.0)) for t in s.t])
    return s


def _pops(res):
    return [v for v in res.violations if v.metric == "pop"]


def test_step_angles_are_the_turn_between_samples():
    q = np.array([euler_to_quat((a, 0.0, 0.0)) for a in (0.0, 10.0, 25.0, 25.0)])[:, None, :]
    np.testing.assert_allclose(step_angles(q)[:, 0], [10.0, 15.0, 0.0], atol=1e-6)
    # a quaternion and its negative are the same rotation: no step
    np.testing.assert_allclose(step_angles(np.stack([q[1], -q[1]]))[:, 0], [0.0], atol=1e-6)


def test_pop_excess_is_a_step_over_both_neighbours_inside_a_segment():
    steps = np.array([1.0, 1.2, 9.0, 1.4, 1.5])[:, None]
    inside = np.ones(5, bool)
    np.testing.assert_allclose(pop_excess(steps, inside)[:, 0], [0.0, 0.0, 9.0 - 1.4, 0.0, 0.0])
    # the step next to a keyframe (its neighbour crosses into another segment) is not judged
    inside[3] = False
    assert pop_excess(steps, inside)[2, 0] == 0.0


def test_a_jump_inside_a_phase_is_listed_with_its_bone_and_size():
    mot = motion([{"name": "A", "d": 1.0, "m": "flow"}, {"name": "B", "d": 1.0, "m": "flow"}])
    # 40°/s, and a 20° jump at t = 1.5 s (inside phase B)
    res = evaluate_samples(_elbow(mot, lambda t: 40 * t + (20.0 if t >= 1.5 else 0.0)), mot, RIG)
    pops = _pops(res)
    assert len(pops) == 1 and pops[0].subject == "elbow_left" and pops[0].phase == "B"
    # the step carries 20° and 40°/s × 1/60 s; its neighbours 40/60° each
    assert pops[0].value == res.worst["pop"] == pytest.approx(20.0, abs=0.05)
    assert abs(pops[0].t - 1.5) < 1.5 / 60
    assert not pops[0].fails and not any(v.fails for v in res.violations)   # listed, not failed


def test_smooth_quick_motion_and_a_change_of_pace_at_a_keyframe_are_not_pops():
    mot = motion([{"name": "A", "d": 1.0, "m": "flow"}, {"name": "B", "d": 1.0, "m": "snap"}])
    # a fast swing (90° amplitude at 2 Hz: up to 1130°/s, 7100°/s² — far quicker than any exercise)
    res = evaluate_samples(_elbow(mot, lambda t: 45 + 45 * math.sin(4 * math.pi * t)), mot, RIG)
    assert res.worst["pop"] < 5.0 and not _pops(res)
    # a kink at the keyframe (20°/s, then 150°/s): velocity_jump's to judge, not a pop
    res2 = evaluate_samples(_elbow(mot, lambda t: 20 * t if t <= 1 else 20 + 150 * (t - 1)), mot, RIG)
    assert not _pops(res2)
