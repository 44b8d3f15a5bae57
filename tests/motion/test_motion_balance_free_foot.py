"""Issue 19 item 2, a free foot that still touches: a body standing on one foot whose other foot
touches the floor with its toes (the touch of a step touch, a toe tap, the back foot of a lunge)
stands over the base both make, the convex hull of the stance sole and the touching points —
eval's support rule — not over the stance sole alone, nor left where it was
(motion/solve/balance.py ``free_corners``, ``over_base``, ``hull_nearest``)."""

from __future__ import annotations

import numpy as np
import pytest

from posecode_ssg.motion.rest import centre_of_mass
from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.solve.balance import hull_nearest, over_base
from posecode_ssg.motion.support import base_gap

from helpers_motion import TOE_TAP, compile_source


def _segment_distance(c, a, b):
    d = b - a
    t = np.clip((c - a) @ d / max(float(d @ d), 1e-24), 0.0, 1.0)
    return float(np.linalg.norm(c - (a + t * d)))


def test_the_nearest_point_of_a_hull_matches_an_independent_distance():
    # independent answers: a point outside lies as far from the hull as from the nearest of all
    # the segments between the points (the hull's edges are among them, and all of them lie in
    # it); a convex combination of the points is inside and is its own nearest point
    rng = np.random.default_rng(7)
    outside = 0
    for _ in range(300):
        pts = rng.uniform(-0.3, 0.3, (int(rng.integers(3, 9)), 2))
        c = rng.uniform(-0.6, 0.6, 2)
        q = np.array(hull_nearest([tuple(p) for p in pts.tolist()], tuple(c.tolist())))
        if base_gap(pts, c)[0] > 0.005:   # outside (the support-function test only under-estimates)
            outside += 1
            want = min(_segment_distance(c, a, b) for i, a in enumerate(pts) for b in pts[i + 1:])
            assert np.linalg.norm(c - q) == pytest.approx(want, abs=1e-12)
        inner = rng.dirichlet(np.ones(len(pts))) @ pts
        np.testing.assert_allclose(hull_nearest([tuple(p) for p in pts.tolist()], tuple(inner.tolist())), inner, atol=0)
    assert outside > 100


def _sole():
    """A sole 0.2 m long (+z) and 0.08 m wide at the origin, in foot_rect's corner order."""
    return np.array([(0.0, 0.0), (0.0, 0.2), (0.08, 0.0), (0.08, 0.2)])


def test_a_touching_toe_widens_the_base_and_a_lifting_one_gives_it_back_continuously():
    m = SOLVER["shiftMargin"]
    feet = [(_sole(), np.ones(4))]
    toe = (0.35, 0.25)                 # a free toe ahead and beside the stance sole
    c = np.array((0.30, 0.05))         # beside the stance sole, inside the hull with the toe
    alone = over_base(feet, c)
    assert alone[0] == pytest.approx(0.08 + m)          # the stance sole's edge (plus the margin)
    touching = over_base(feet, c, [(*toe, 1.0)])
    # with the toe, the nearest point of the hull of the grown rectangle's corners and the toe
    hull = [(-m, -m), (0.08 + m, -m), (0.08 + m, 0.2 + m), (-m, 0.2 + m), toe]
    np.testing.assert_allclose(touching, hull_nearest(hull, tuple(c)), atol=1e-12)
    assert touching[0] > alone[0] + 0.05
    # the weight going to 0 draws the toe into the stance sole: the target comes back, no jump
    ts = [over_base(feet, c, [(*toe, k)]) for k in np.linspace(1.0, 0.0, 201)]
    np.testing.assert_allclose(ts[-1], alone, atol=1e-12)
    assert max(float(np.linalg.norm(b - a)) for a, b in zip(ts, ts[1:])) < 0.005




def test_a_toe_tap_stands_over_the_stance_sole_and_the_touching_toe():
    w = solve_keyframes(compile_source(TOE_TAP)).phases[0].world
    left = w.sole_corners("left")
    touching = left[left[:, 1] <= 0.005]
    # the tap touches with the toes only: its heel is well up
    assert 0 < len(touching) < 4 and left[:, 1].max() > 0.05
    base = np.vstack([w.sole_corners("right")[:, [0, 2]], touching[:, [0, 2]]])
    gap, _ = base_gap(base, centre_of_mass(w)[[0, 2]])
    # inside the stance sole and the toe plus the 20 mm (left centred between the feet,
    # the body stood 71 mm outside that base: the toe lands ahead of the stance foot)
    assert gap <= 0.020


def _outside_sole(w, side: str) -> float:
    """How far (m) the centre of mass lies outside the convex hull of ``side``'s sole corners."""
    return base_gap(w.sole_corners(side)[:, [0, 2]], centre_of_mass(w)[[0, 2]])[0]


def test_a_march_ends_its_switch_over_the_foot_it_reached_down_and_comes_home_centred():
    """high-knee-march: 'Switch' holds nothing of its own, reaches the right foot for the floor
    and drives the left knee up, so it ends on the right foot alone (balance.py
    ``reached_stance``); 'Down' reaches both and ends on both."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir
    from tests.conftest import shared_path

    src = shared_path("conformance", "examples", "high-knee-march.posecode").read_text(encoding="utf-8")
    sol = solve_keyframes(compile_ir(parse(src).ir))
    up, switch, down = (ph.world for ph in sol.phases)
    # on the left foot, then on the right: over each sole within the 20 mm
    assert up.sole_corners("right")[:, 1].min() > 0.3 and _outside_sole(up, "left") <= 0.020
    assert switch.sole_corners("left")[:, 1].min() > 0.3 and _outside_sole(switch, "right") <= 0.020
    # the reached foot bears the body flat (within eval's 5 mm; the leg leans onto its edge)
    assert switch.sole_corners("right")[:, 1].max() <= 0.005
    # both feet down again: centred between them
    assert abs(centre_of_mass(down)[0]) < 0.005
