"""The swing clearance's ankle turn never swaps ways between frames (solve/swingclearance.py
``hinge_up`` with ``uphill``; runtime/solvers/swingclearance.js ``hingeUp``): it turns the toe up
the way that raises it, fading to no turn where the toe hangs straight under the ankle, so the
ankle angle it leaves is continuous in the pose and in the depth it must lift. The rule it
replaces chose between the two roots by which the ankle's range clamped less, and a reverse
lunge's trailing ankle swapped from pointed to flexed in one frame (63°, eval ``pop``)."""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.rom import rom_box
from posecode_ssg.motion.rig import avatar
from posecode_ssg.motion.solve.pose import Pose
from posecode_ssg.motion.solve.swingclearance import hinge_up
from posecode_ssg.motion.fk import BONES


def _leg(knee: float, ankle: float = 35.0) -> Pose:
    """A standing figure whose right leg trails: hip extended 10°, knee flexed ``knee``, ankle
    plantarflexed ``ankle`` (the foot on its ball, the toe the lowest point)."""
    euler = {b: (0.0, 0.0, 0.0) for b in BONES}
    euler["hip_right"], euler["knee_right"], euler["ankle_right"] = (-10.0, 0.0, 0.0), (knee, 0.0, 0.0), (ankle, 0.0, 0.0)
    return Pose(avatar("avatar1"), euler, np.array((0.0, 1.0, 0.0)), np.eye(3))


def _cleared(pose: Pose, dy: float, uphill: bool) -> tuple[float, float]:
    """(ankle x after the turn, how far the toe rose), from a turn raising the toe by ``dy``."""
    toe0 = float(pose.world().landmarks["toe_right"][1])
    hinge_up(pose, "ankle_right", pose.world().landmarks["toe_right"].copy(), dy, uphill=uphill)
    return pose.euler["ankle_right"][0], float(pose.world().landmarks["toe_right"][1]) - toe0


def _largest_step(values: list[float]) -> float:
    return float(np.max(np.abs(np.diff(values))))


def test_the_ankle_turn_is_continuous_in_the_depth_to_lift():
    lo, hi = rom_box("ankle_right")["x"]
    depths = np.linspace(0.0, 0.15, 151)   # 1 mm steps, to 15 cm under the floor
    new = [_cleared(_leg(60.0), float(d), True) for d in depths]
    old = [_cleared(_leg(60.0), float(d), False)[0] for d in depths]
    # the ankle moves by well under a degree per millimetre of depth, stays in its range, and
    # the toe rises by the depth asked, or as far as the range lets it (never sinks)
    assert _largest_step([a for a, _ in new]) < 2.0
    assert all(lo - 1e-6 <= a <= hi + 1e-6 for a, _ in new)
    assert all(-1e-9 <= rise <= d + 1e-6 for (_, rise), d in zip(new, depths))
    # the rule it replaced swapped ways where both of its turns ran into the range's ends
    assert _largest_step(old) > 30.0


def test_the_ankle_turn_is_continuous_as_the_toe_passes_under_the_ankle():
    # the knee straightening swings the pointed foot from behind the ankle to under and past it:
    # there either way raises the toe, and the turn fades to none instead of choosing
    knees = np.linspace(0.0, 120.0, 241)
    new = [_cleared(_leg(float(k)), 0.08, True)[0] for k in knees]
    old = [_cleared(_leg(float(k)), 0.08, False)[0] for k in knees]
    assert _largest_step(new) < 3.0
    assert _largest_step(old) > 30.0   # the nearest-root rule swapped ways on the way
