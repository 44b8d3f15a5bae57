"""A locked foot the authored angles lift off the floor turns from level to its authored pitch as
it rises (solve/groundlock.py ``level_weight``, runtime/solvers/groundlock.js): the ground-lock's
levelling fades over ``solver.levelBand`` of the foot's lowest point instead of stopping at
``plantedHeight``, where the standing hamstring curl's ankle snapped 15° in one frame."""

from __future__ import annotations

import numpy as np
from helpers_motion import compile_source

from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.solve.groundlock import level_weight


def _curl(knee: float) -> str:
    # the bug case mo-planted-feet-skate's curl (ground-lock: feet), the knee at `knee`
    return f"""
        posecode exercise "Curl {knee}"
          rig humanoid
          pose start = standing
          step "Curl" 1s settle:
            knee_left: flex {knee}
            ground-lock: feet
    """


def test_level_weight_is_full_to_3_cm_and_none_from_planted_height():
    h = float(SOLVER["plantedHeight"])
    lo, hi = (b * h for b in SOLVER["levelBand"])
    assert level_weight(0.0) == 1.0 and level_weight(lo) == 1.0
    assert level_weight(hi) == 0.0 and level_weight(h + 0.01) == 0.0
    mid = level_weight(0.5 * (lo + hi))
    assert 0.0 < mid < 1.0 and abs(mid - 0.5) < 1e-9   # smoothstep: a half at the middle


def test_a_rising_locked_foot_turns_to_its_authored_pitch_without_a_jump():
    knees = np.arange(20.0, 80.0, 1.0)
    ankle, low = [], []
    for k in knees:
        w = solve_keyframes(compile_source(_curl(float(k)))).phases[0].world
        ankle.append(float(np.degrees(np.arctan2(w.rot["ankle_left"][2, 1], w.rot["ankle_left"][1, 1]))
                           - np.degrees(np.arctan2(w.rot["knee_left"][2, 1], w.rot["knee_left"][1, 1]))))
        low.append(w.lowest_by_bone(("ankle_left",))["ankle_left"])
    steps = np.abs(np.diff(ankle))
    # the foot passes up through the band (levelled below it, its authored pitch above)
    assert min(low) < 0.03 and max(low) > float(SOLVER["plantedHeight"])
    # one degree of knee moves the ankle by a few degrees at most (it moved 15° at once before)
    assert steps.max() < 5.0
