"""Stance feet of stepping gaits in the numpy keyframe solve (issue 5: a planted foot does not
slide late in a step; a foot the rig cannot keep flat is diagnosed at its line, never silently
lifted). Expected values come from the base pose or from the solved joints' own geometry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_motion import compile_source

from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.motion.solve import solve_keyframes

WALK = """
posecode exercise "Two steps"
  rig humanoid
  pose start = standing
  step "Step right" 0.7s flow:
    hip_right: flex 30
    knee_right: flex 15
    hip_left: extend 12
    travel: 0 0.34
    pin: foot_left floor
  step "Step left" 0.7s flow:
    hip_left: flex 30
    knee_left: flex 15
    hip_right: extend 12
    travel: 0 0.66
    pin: foot_right floor
"""

SIDE_STEP = """
posecode exercise "Side step"
  rig humanoid
  pose start = standing
  step "Shift right" 1s flow:
    travel: -0.3 0
    pin: foot_left floor
    reach: foot_right floor
  step "Shift back" 1s flow:
    travel: 0 0
    pin: foot_right floor
    reach: foot_left floor
"""


def test_a_stance_foot_holds_its_place_at_the_end_of_a_long_step():
    # The body travels 0.34 m over the planted left foot: the hip's 20° of extension and the
    # ankle's 15° of dorsiflexion cannot keep a straight leg on the plant, so the heel rises and
    # the body stays back over the foot instead of dragging it (it slid 3 cm before).
    program = compile_source(WALK)
    sol = solve_keyframes(program)
    end, base = sol.phases[0].world, sol.base
    # the ball of the foot (toe point) stays where the standing foot had it in the base pose
    moved = np.hypot(*(end.landmarks["toe_left"] - base.landmarks["toe_left"])[[0, 2]])
    assert moved < 1e-3
    # on the floor, heel up (push-off), and the stance leg within its reach of the plant
    assert end.landmarks["toe_left"][1] == pytest.approx(0.0, abs=1e-3)
    assert end.landmarks["heel_left"][1] > 0.005
    assert end.pos["pelvis"][2] < base.pos["pelvis"][2] + 0.34   # the root made up the rest
    assert not [d for d in kinematic_diagnostics(program) if d.code == "kinematic-pin-unreachable"]


def test_a_side_step_holds_the_planted_toe_while_the_leg_leans_over_it():
    # The rig's ankle only flexes and extends: a leg leaning sideways over its planted foot rolls
    # the sole by about the lean (measured independently from the solved hip and ankle joints),
    # and the stance leg still holds the ball of the foot where it was planted.
    program = compile_source(SIDE_STEP)
    sol = solve_keyframes(program)
    w = sol.phases[0].world
    hip, ankle = w.pos["hip_left"], w.pos["ankle_left"]
    lean = math.degrees(math.atan2(abs(hip[0] - ankle[0]), hip[1] - ankle[1]))
    assert lean > 10
    lateral = w.rot["ankle_left"] @ np.array([1.0, 0.0, 0.0])   # the ankle's hinge axis
    assert math.degrees(math.asin(abs(float(lateral[1])))) == pytest.approx(lean, abs=2.0)
    prev = sol.phases[1].world   # the loop closes: phase 0 is entered from phase 1's end
    moved = np.hypot(*(w.landmarks["toe_left"] - prev.landmarks["toe_left"])[[0, 2]])
    assert moved < 2e-3


def test_a_walk_straight_ahead_keeps_its_soles_level_sideways():
    # sagittal steps: the stance leg leans forward and back only, so the sole does not roll
    sol = solve_keyframes(compile_source(WALK))
    for ph, side in ((sol.phases[0], "left"), (sol.phases[1], "right")):
        lateral = ph.world.rot[f"ankle_{side}"] @ np.array([1.0, 0.0, 0.0])
        assert abs(float(lateral[1])) < math.sin(math.radians(1.0))


# the same side step with the weight shifted 6 cm: the stance hip stays within 5° of straight
# above its ankle across the foot (0.88 m leg: tan 5° × 0.88 = 7.7 cm)
SMALL_SIDE_STEP = SIDE_STEP.replace("travel: -0.3 0", "travel: -0.06 0")


def test_a_sideways_lean_over_a_planted_foot_is_diagnosed_as_a_rolled_sole():
    # issue 5 item 2: never a silent lift. The lean is measured independently from the solved hip
    # and ankle joints; the report names the foot, the step (its line) and the angle
    program = compile_source(SIDE_STEP)
    sol = solve_keyframes(program)
    diags = [d for d in kinematic_diagnostics(program) if d.code == "kinematic-foot-flat"]
    by_phase = {d.extra["phase"]: d for d in diags}
    assert set(by_phase) == {"Shift right", "Shift back"}
    d = by_phase["Shift right"]
    assert d.line == 4 and d.extra["foot"] == "foot_left"   # the step header
    w = sol.phases[0].world
    hip, ankle = w.pos["hip_left"], w.pos["ankle_left"]
    lean = math.degrees(math.atan2(abs(hip[0] - ankle[0]), hip[1] - ankle[1]))
    assert lean > 10
    assert abs(d.extra["lean"]) == pytest.approx(lean, abs=0.5)
    assert f"{lean:.0f}°" in d.message and "foot_left" in d.message
    # the sole's middle rises by half the sole's width × sin(lean) (KR §2.2: sole 0.075 m wide)
    assert d.extra["lift"] == pytest.approx(0.0375 * math.sin(math.radians(lean)), abs=1e-3)


def test_a_small_weight_shift_and_a_walk_straight_ahead_are_not_reported_as_rolled():
    for source in (SMALL_SIDE_STEP, WALK):
        assert not [d for d in kinematic_diagnostics(compile_source(source)) if d.code == "kinematic-foot-flat"]
