"""The ``support`` metric (issue 19 item 4): how far the centre of mass's floor projection lies
outside the convex hull of what touches the floor. Expected values come from rig.json's sole box
and the standing pose's symmetry (its centre of mass lies on the midline, x = 0), not from the
evaluator's primitives."""

from __future__ import annotations

import numpy as np
import pytest
from eval_synthetic import RIG, motion, move_foot, samples

from posecode_ssg.evaluate.metrics import evaluate_samples
from posecode_ssg.evaluate.support import hull_distances

SOLE = RIG["avatars"]["avatar1"]["sole"]


def supports(res):
    return [v for v in res.violations if v.metric == "support"]


def grounded(mot):
    """Samples of the neutral stance with the soles' bottoms on the floor (y = 0)."""
    s = samples(mot)
    ankle_y = s.bone("ankle_left")[0, 1]
    bottom = ankle_y + SOLE["center"][1] - 0.5 * SOLE["size"][1]
    s.pos[:, :, 1] -= bottom
    s.lm[:, :, 1] -= bottom
    return s


def test_standing_on_both_feet_is_supported():
    mot = motion([{"name": "Stand", "d": 1.0}])
    res = evaluate_samples(grounded(mot), mot, RIG)
    assert res.worst["support"] == 0.0 and not supports(res)


def test_one_foot_up_leaves_the_centre_of_mass_beside_the_other_sole():
    mot = motion([{"name": "Stand", "d": 0.5}, {"name": "Lift", "d": 0.5}])
    s = grounded(mot)
    lift = s.segment == 1
    move_foot(s, "right", np.array([0.0, 0.050, 0.0]), lift)   # the right foot 5 cm up
    res = evaluate_samples(s, mot, RIG)
    # the centre of mass stays on the midline (x = 0, feet moved straight up); the left sole's
    # inner edge is at ankle x − half the sole's width (the box is centred under the ankle in x)
    left_x = s.bone("ankle_left")[0, 0]
    inner = left_x + SOLE["center"][0] - 0.5 * SOLE["size"][0]
    want_mm = 1000.0 * abs(inner)
    assert res.worst["support"] == pytest.approx(want_mm, abs=0.5)
    (v,) = supports(res)
    assert v.phase == "Lift" and v.subject == "centre of mass" and v.limit == 20.0


def test_a_gripped_phase_is_not_measured():
    mot = motion([{"name": "Hang", "d": 0.5, "grip": [["hand_left", "bar_left"], ["hand_right", "bar_right"]],
                   "hang": True}, {"name": "Stand", "d": 0.5}])
    s = grounded(mot)
    move_foot(s, "right", np.array([0.0, 0.050, 0.0]), s.segment == 0)
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["support"] == 0.0 and not supports(res)


def test_a_figure_in_the_air_has_no_support_to_measure():
    mot = motion([{"name": "Jump", "d": 1.0}])
    s = grounded(mot)
    s.pos[:, :, 1] += 0.3
    s.lm[:, :, 1] += 0.3
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["support"] is None and not supports(res)


def test_hull_distance_of_a_square_matches_the_point_to_square_distance():
    rng = np.random.default_rng(4)
    square = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [0.2, 0.3]])   # one inner point
    c = rng.uniform(-3, 3, (200, 2))
    want = np.hypot(np.maximum(np.abs(c[:, 0]) - 1.0, 0.0), np.maximum(np.abs(c[:, 1]) - 1.0, 0.0))
    got = hull_distances(np.repeat(square[None], 200, 0), np.ones((200, 5), bool), c)
    # the support function over 2.5° steps is short of the exact distance by at most 1 − cos 1.25°
    np.testing.assert_allclose(got, want, rtol=3e-4, atol=1e-12)


def _against_wall(gap_m: float):
    """The neutral stance on the floor with both feet 0.3 m forward of the body (its centre of
    mass well behind the heels) and the whole figure placed so its torso capsule (pelvis → neck,
    radius ``avatar.collision.torso``: what the props pass rests on the wall) is ``gap_m`` in
    front of rig.json's wall face."""
    mot = motion([{"name": "Lean", "d": 0.5}], props=("wall",))
    s = grounded(mot)
    everything = np.ones(len(s.t), bool)
    for side in ("left", "right"):
        move_foot(s, side, np.array([0.0, 0.0, 0.3]), everything)
    face = RIG["props"]["wall"]["faces"][0]
    assert face["normal"] == [0, 0, 1]
    r = RIG["avatars"]["avatar1"]["collision"]["torso"]
    back = min(s.bone("pelvis")[0, 2], s.bone("neck")[0, 2]) - r     # upright: the capsule's back
    dz = face["center"][2] + gap_m - back
    s.pos[:, :, 2] += dz
    s.lm[:, :, 2] += dz
    return mot, s


def test_a_wall_the_torso_rests_on_is_part_of_the_base():
    mot, s = _against_wall(0.005)
    alone = evaluate_samples(s, {**mot, "props": []}, RIG)
    # without the wall the centre of mass is far behind the heels
    assert alone.worst["support"] > 100.0 and supports(alone)
    res = evaluate_samples(s, mot, RIG)
    # with it, the base spans from the wall to the toes: the centre of mass is inside
    assert res.worst["support"] == 0.0 and not supports(res)


def test_a_wall_the_torso_does_not_reach_is_no_support():
    mot, s = _against_wall(0.015)   # 15 mm off: outside the 10 mm contact band
    alone = evaluate_samples(s, {**mot, "props": []}, RIG)
    res = evaluate_samples(s, mot, RIG)
    assert res.worst["support"] == pytest.approx(alone.worst["support"], abs=1e-9) and res.worst["support"] > 100.0


class _Capsule:
    """A minimal evaluation context holding one mesh capsule from joint ``a`` to joint ``b``."""

    def __init__(self, a, b, r):
        self.s = type("S", (), {"bones": ["a", "b"], "landmarks": [],
                                "pos": np.array([[a, b]], float), "lm": np.zeros((1, 0, 3))})()
        self.avatar = {"segments": [{"from": "a", "to": "b", "r": [r, r]}]}


def test_a_capsule_lying_along_the_floor_touches_it_as_far_as_it_is_within_the_band():
    from posecode_ssg.evaluate.support import CONTACT_BAND_M, capsule_floor_contacts
    r = 0.06
    # one end's surface 2 mm over the floor, the other's 30 mm, 0.4 m further along z: the surface
    # rises 28 mm over 0.4 m, so it leaves the 10 mm band (8 mm higher) 0.4 × 8 / 28 m along
    touch, point = capsule_floor_contacts(_Capsule((0.0, r + 0.002, 0.0), (0.0, r + 0.030, 0.4), r))
    assert CONTACT_BAND_M == pytest.approx(0.010)
    assert touch.tolist() == [[True]]
    assert point[0, 0, 2] == pytest.approx(0.4 * 0.008 / 0.028)
    assert point[0, 0, 0] == pytest.approx(0.0)
    # both ends in the band (their end spheres already touch) or neither: no extra contact
    for ya, yb in ((0.002, 0.008), (0.012, 0.030)):
        touch, _ = capsule_floor_contacts(_Capsule((0.0, r + ya, 0.0), (0.0, r + yb, 0.4), r))
        assert touch.tolist() == [[False]]


def test_a_body_resting_on_a_capsule_is_supported_between_its_ends():
    # the centre of mass over the capsule's in-band stretch: inside; past its end: outside
    from posecode_ssg.evaluate.support import capsule_floor_contacts
    r = 0.06
    touch, point = capsule_floor_contacts(_Capsule((0.0, r + 0.0, 0.0), (0.0, r + 0.020, 0.4), r))
    pts = np.concatenate([np.array([[[0.0, 0.0, 0.0]]]), point], axis=1)[..., [0, 2]]
    both = np.concatenate([np.ones((1, 1), bool), touch], axis=1)
    inside = hull_distances(pts, both, np.array([[0.0, 0.15]]))
    outside = hull_distances(pts, both, np.array([[0.0, 0.25]]))
    assert inside[0] == pytest.approx(0.0)
    assert outside[0] == pytest.approx(0.25 - 0.2, abs=1e-4)   # the stretch ends at 0.4 × 10 / 20 m
