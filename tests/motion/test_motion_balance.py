"""Issue 19 item 2: weight shift. A body standing on one foot moves its pelvis over the stance
foot until the centre of mass lies over the stance sole; both feet down, it stays centred
(motion/solve/balance.py; the runtime twin is checked in playwright_tests/test_runtime_balance.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posecode_ssg.motion.rest import centre_of_mass
from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.solve.balance import corner_weights, over_base

from helpers_motion import BRIDGE, GOOD_MORNING, compile_source, without_weight_shift

#: how far (m) the centre of mass may lie outside the stance sole (issue 19 item 2: "inside the
#: stance sole plus 20 mm")
SOLE_MARGIN = 0.020


def _sole(rng):
    """A rotated sole rectangle: its 4 corners (heel −x, toe −x, heel +x, toe +x), its heel −x
    corner, long axis (heel to toe) and across axis (unit), length and width."""
    o = rng.uniform(-0.5, 0.5, 2)
    a = rng.uniform(0, 2 * math.pi)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    length, width = rng.uniform(0.15, 0.3), rng.uniform(0.05, 0.12)
    corners = np.array([o, o + length * u, o + width * v, o + length * u + width * v])
    return corners, o, u, v, length, width


def test_the_nearest_point_of_a_flat_sole_clamps_the_point_in_the_foot_frame():
    # independent answer: in the sole's own axes the nearest point clamps each coordinate to the
    # box grown by shiftMargin on every side
    rng = np.random.default_rng(19)
    m = SOLVER["shiftMargin"]
    for _ in range(300):
        corners, o, u, v, length, width = _sole(rng)
        p = o + rng.uniform(-0.4, 0.4, 2)
        want = o + np.clip((p - o) @ u, -m, length + m) * u + np.clip((p - o) @ v, -m, width + m) * v
        np.testing.assert_allclose(over_base([(corners, np.ones(4))], p), want, atol=1e-12)


def test_a_raised_heel_leaves_the_ball_and_a_raised_side_leaves_the_other_edge():
    rng = np.random.default_rng(3)
    corners, o, u, v, length, width = _sole(rng)
    m = SOLVER["shiftMargin"]
    behind = o - 0.3 * u + 0.5 * width * v
    # heel corners bear nothing: the base is the ball's edge, the point comes to it
    np.testing.assert_allclose(over_base([(corners, np.array([0.0, 1.0, 0.0, 1.0]))], behind),
                               o + (length - m) * u + 0.5 * width * v, atol=1e-12)
    # the −x side up: only the +x edge bears, a point on the −x side comes to it
    beside = o + 0.5 * length * u - 0.2 * v
    np.testing.assert_allclose(over_base([(corners, np.array([0.0, 0.0, 1.0, 1.0]))], beside),
                               o + 0.5 * length * u + (width - m) * v, atol=1e-12)
    # the heel coming down moves the target continuously (no jump)
    ts = [over_base([(corners, np.array([f, 1.0, f, 1.0]))], behind) for f in np.linspace(0, 1, 101)]
    assert max(float(np.linalg.norm(b - a)) for a, b in zip(ts, ts[1:])) <= length / 100 + 1e-12


def test_corner_weights_bear_within_5_mm_and_not_from_1_cm():
    band = np.array(SOLVER["shiftHeightBand"]) * SOLVER["plantedHeight"]
    heights = [0.0, band[0], 0.5 * (band[0] + band[1]), band[1]]
    w = corner_weights(np.array([[0.0, h, 0.0] for h in heights]))
    np.testing.assert_allclose(w, [1.0, 1.0, 0.5, 0.0], atol=1e-12)


ONE_FOOT = """
posecode exercise "Stand on one foot"
  rig humanoid
  pose start = standing

  step "Lift" 1s settle:
    hip_{free}: flex 60
    knee_{free}: flex 80
    ground-lock: foot_{stance}

  step "Down" 1s settle:
    hip_{free}: flex 0
    knee_{free}: flex 0
    ground-lock: feet
"""


def _distance_outside(w, side: str) -> float:
    """How far (m) the centre of mass lies outside the flat sole's rectangle (its own axes)."""
    c = centre_of_mass(w)[[0, 2]]
    k = w.sole_corners(side)[:, [0, 2]]
    centre = k.mean(axis=0)
    axes = []
    for i in range(1, 4):   # the two edges at corner 0 (the third pair is the diagonal)
        e = k[i] - k[0]
        axes.append(e)
    axes.sort(key=lambda e: float(np.linalg.norm(e)))
    out = 0.0
    for e in axes[:2]:
        n = e / np.linalg.norm(e)
        out += max(0.0, abs(float((c - centre) @ n)) - 0.5 * float(np.linalg.norm(e))) ** 2
    return float(np.sqrt(out))


@pytest.mark.parametrize("stance", ["left", "right"])
def test_standing_on_one_foot_puts_the_centre_of_mass_over_the_stance_sole(stance):
    free = "right" if stance == "left" else "left"
    program = compile_source(ONE_FOOT.format(stance=stance, free=free))
    sol = solve_keyframes(program)
    base, lift, down = sol.base, sol.phases[0].world, sol.phases[1].world
    # before the shift the centre of mass hangs beside the stance foot (the body is centred)
    assert _distance_outside(base, stance) > 0.03
    assert _distance_outside(lift, stance) <= SOLE_MARGIN
    # the pelvis moved towards the stance side (stance left = +x: the figure faces +z)
    sign = 1.0 if stance == "left" else -1.0
    assert sign * (lift.pos["pelvis"][0] - base.pos["pelvis"][0]) > 0.03
    # the stance foot stayed where it stood, on the floor within eval's 5 mm (it rolls a few
    # degrees onto its outer edge under the leaning leg: the rig's ankle is a hinge)
    for mark in ("heel", "toe"):
        np.testing.assert_allclose(lift.landmarks[f"{mark}_{stance}"][[0, 2]],
                                   base.landmarks[f"{mark}_{stance}"][[0, 2]], atol=SOLVER["plantTolerance"] + 1e-4)
        assert abs(lift.landmarks[f"{mark}_{stance}"][1] - base.landmarks[f"{mark}_{stance}"][1]) < 0.005
    # the lifted leg keeps its authored angles: its knee flexion is the authored 80
    thigh = lift.pos[f"knee_{free}"] - lift.pos[f"hip_{free}"]
    shin = lift.pos[f"ankle_{free}"] - lift.pos[f"knee_{free}"]
    bend = math.degrees(math.acos(thigh @ shin / np.linalg.norm(thigh) / np.linalg.norm(shin)))
    assert bend == pytest.approx(80.0, abs=0.5)
    # both feet down: back to centre
    assert abs(down.pos["pelvis"][0] - base.pos["pelvis"][0]) < 1e-3


def test_a_balanced_body_on_both_feet_is_not_moved_sideways():
    program = compile_source("""
    posecode exercise "Squat"
      rig humanoid
      pose start = standing

      step "Down" 1s settle:
        hips: flex 40
        knees: flex 50
        ground-lock: feet
    """)
    sol = solve_keyframes(program)
    assert abs(sol.phases[0].world.pos["pelvis"][0]) < 1e-6


def test_both_feet_locked_one_lifted_by_the_angles_stands_over_the_other(monkeypatch):
    # the standing hamstring curl as the bug case writes it (mo-planted-feet-skate): ground-lock
    # feet, the left knee curls the foot off the floor; the lock lets it go, and the body now goes
    # over the right foot (solve/balance.py lifted_stance) instead of standing centred 6 cm beside it
    from helpers_motion import shared_path

    import posecode_ssg.motion.solve.balance as balance
    from posecode_ssg.motion.support import base_gap

    src = shared_path("cases", "bugs", "mo-planted-feet-skate", "hamstring-curl.posecode").read_text(encoding="utf-8")

    def gap(world):
        corners = world.sole_corners("right")[:, [0, 2]]
        return base_gap(corners, centre_of_mass(world)[[0, 2]])[0]

    with monkeypatch.context() as m:
        m.setattr(balance, "lifted_stance", lambda st: None)
        before = solve_keyframes(compile_source(src)).phases[0].world
    after = solve_keyframes(compile_source(src)).phases[0].world
    assert gap(before) > 0.05
    assert gap(after) <= SOLVER["shiftMargin"] + 1e-3
    assert after.pos["ankle_left"][1] >= 0.3                      # still curled
    for y in after.sole_corners("right")[:, 1]:                    # the stance sole flat and down
        assert abs(y) <= SOLVER["plantTolerance"]


def test_a_hinge_on_both_feet_sends_the_hips_back_until_the_centre_of_mass_is_over_the_feet(monkeypatch):
    sol = solve_keyframes(compile_source(GOOD_MORNING))
    base, w = sol.base, sol.phases[0].world
    # the same document without the weight shift: the trunk and arms out front put the centre of
    # mass well past the toes
    without_weight_shift(monkeypatch)
    still = solve_keyframes(compile_source(GOOD_MORNING)).phases[0].world
    toes = max(float(still.sole_corners(s)[:, 2].max()) for s in ("left", "right"))
    assert centre_of_mass(still)[2] > toes + 0.05
    # independent: the centre of mass against the toes' and heels' edges of both soles (facing +z)
    corners = np.concatenate([w.sole_corners(s) for s in ("left", "right")])
    c = centre_of_mass(w)
    assert corners[:, 2].min() - SOLE_MARGIN <= c[2] <= corners[:, 2].max() + SOLE_MARGIN
    assert w.pos["pelvis"][2] < still.pos["pelvis"][2] - 0.05        # the hips went back
    for s in ("left", "right"):                                       # the feet stayed planted
        for mark in ("heel", "toe"):
            np.testing.assert_allclose(w.landmarks[f"{mark}_{s}"][[0, 2]], base.landmarks[f"{mark}_{s}"][[0, 2]],
                                       atol=SOLVER["plantTolerance"] + 1e-4)
            assert abs(w.landmarks[f"{mark}_{s}"][1] - base.landmarks[f"{mark}_{s}"][1]) < 0.005


def test_a_lying_body_on_both_feet_is_the_settles_not_the_weight_shifts(monkeypatch):
    # a glute bridge (supine start, ground-lock feet) rests on its feet and shoulders: moving its
    # hips over the feet as a standing body's would lift the shoulders off the floor (the runtime's
    # bridge rose 748 mm out of its support); a standing body on both feet is shifted
    import posecode_ssg.motion.solve.balance as balance

    calls = []
    original = balance.shift_weight
    monkeypatch.setattr(balance, "shift_weight", lambda pose, sides, *a: (calls.append(sides), original(pose, sides, *a)))
    solve_keyframes(compile_source(BRIDGE))
    assert ("left", "right") not in calls
    solve_keyframes(compile_source(GOOD_MORNING))
    assert ("left", "right") in calls
