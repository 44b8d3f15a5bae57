"""A free leg the authored angles drive through the floor is lifted within its own chain (issue 5:
the reference lifts the whole body off its supports, a planted foot drifting 0.6 m in
mountain-climber): the keyframe solve keeps the supports where they are and the leg clear of the
floor (solve/swingclearance.py ``clear_free_limbs``, ``hinge_up``; runtime/solvers/swingclearance.js ``clearFreeLimbs``)."""

from __future__ import annotations

import math

from helpers_motion import compile_source

from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.solve.measure import heel_down

# plank on the hands and the left toes; the right thigh turned to hang straight under the hip:
# its knee would be ~6 cm under the floor
KNEE_UNDER = """
    posecode exercise "Knee under the hip"
      rig humanoid
      pose start = plank
      step "Knee under" 0.5s settle:
        hip_right: flex 72
        knee_right: flex 90
        ground-lock: hands, foot_left
"""

# standing on the left foot; the right leg swung back and straight: its foot would be under the floor
LEG_BACK = """
    posecode exercise "Leg back"
      rig humanoid
      pose start = standing
      step "Sink" 1s settle:
        hip_left: flex 40
        knee_left: flex 50
        ground-lock: foot_left
"""


def test_a_knee_driven_under_the_floor_goes_round_it_and_the_supports_stay():
    sol = solve_keyframes(compile_source(KNEE_UNDER))
    base, w = sol.base, sol.phases[0].world
    tol = float(SOLVER["plantTolerance"])
    # the locked toes stay where they were and on the floor (the floor clamp lifted them ~6 cm)
    d = w.landmarks["toe_left"] - base.landmarks["toe_left"]
    assert math.hypot(d[0], d[2]) <= tol and abs(float(w.landmarks["toe_left"][1])) <= tol
    # the right leg is out of the floor, its knee gone round the outside (the hip abducts)
    low = w.lowest_by_bone(("knee_right", "ankle_right"))
    assert min(low.values()) >= -0.5 * tol - 1e-4
    assert w.pos["knee_right"][0] < w.pos["hip_right"][0] - 0.1


def test_a_free_foot_under_the_floor_is_lifted_by_its_knee_not_the_body():
    sol = solve_keyframes(compile_source(LEG_BACK))
    w = sol.phases[0].world
    tol = float(SOLVER["plantTolerance"])
    # the standing foot stays flat on the floor: the straight right leg would have stood the body
    # on it, ~7 cm up
    assert max(abs(float(w.landmarks["heel_left"][1])), abs(float(w.landmarks["toe_left"][1]))) <= tol
    assert w.lowest_by_bone(("ankle_right",))["ankle_right"] >= -0.5 * tol - 1e-4
    assert sol.phases[0].euler["knee_right"][0] > 10.0   # the knee flexed to lift it


def test_a_foot_reached_to_the_floor_is_held_when_the_next_phase_locks_it():
    # a half-kneel (knee pinned, front foot reached to the floor) then "Stand up" under
    # ground-lock: feet — the front foot bore weight as a secondary contact (spec §5) and stays
    # where it was while the body rises (it was carried 0.49 m when only locks and pins counted)
    sol = solve_keyframes(compile_source(HALF_KNEEL))
    hold, up = sol.phases[0].world, sol.phases[1].world
    tol = float(SOLVER["plantTolerance"])
    for mark in ("heel_left", "toe_left"):
        d = up.landmarks[mark] - hold.landmarks[mark]
        assert math.hypot(d[0], d[2]) <= tol, (mark, d)
        assert abs(float(up.landmarks[mark][1])) <= tol


HALF_KNEEL = """
    posecode stretch "Half-kneel and stand"
      rig humanoid
      pose start = standing
      step "Half-kneel" 2s settle:
        hip_left: flex 90
        knee_left: flex 95
        ankle_left: dorsiflex 5
        hip_right: extend 10
        knee_right: flex 95
        ankle_right: plantarflex 50
        pin: knee_right floor
        reach: foot_left floor
      step "Stand up" 2s settle:
        hip_left: flex 0
        knee_left: flex 0
        ankle_left: dorsiflex 0
        hip_right: extend 0
        knee_right: flex 0
        ankle_right: plantarflex 0
        ground-lock: feet
"""


# standing on the left foot, the right leg brushed forward to a point: flat at the phase's start,
# pointed (toe 10+ cm below the heel) at its end
POINT = """
    posecode exercise "Point"
      rig humanoid
      pose start = standing
      step "Point" 1s settle:
        hip_right: flex 20
        ankle_right: plantarflex 45
        pin: foot_left floor
"""


def test_a_free_foot_is_on_its_heel_for_a_phase_only_when_it_is_so_at_both_keyframes():
    # swing clearance decides once per phase whether the foot is on its heel (decided per frame,
    # a flat foot's tie flipped the branch: grapevine's knee jumped ~800 rad/s in the runtime)
    sol = solve_keyframes(compile_source(POINT))
    flat, pointed = sol.base, sol.phases[0].world
    assert float(pointed.landmarks["heel_right"][1]) > float(pointed.landmarks["toe_right"][1]) + 0.05
    assert heel_down(flat, "right")          # a flat foot counts as on its heel (1 mm tie)
    assert not heel_down(pointed, "right")
    assert heel_down(None, "right")          # no start keyframe to compare
