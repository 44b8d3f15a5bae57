"""Hands locked to the floor with the feet (issue 5: each contact held where it was planted; KR §6.3):
the keyframe solve keeps each locked palm where it was on the floor when the phase began, with the
hand touching the floor."""

from __future__ import annotations

import math

from posecode_ssg.motion.fk import subtree
from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes

from helpers_motion import compile_source

PUSH_UP = """
    posecode exercise "Push-up"
      rig humanoid
      pose start = plank
      step "Lower the chest" 1.6s settle:
        shoulders: flex 25
        elbows: flex 85
        ground-lock: hands, feet
      step "Press the floor away" 1.2s drive:
        shoulders: flex 90
        elbows: flex 0
        ground-lock: hands, feet
      step "Lower again" 1.6s settle:
        shoulders: flex 25
        elbows: flex 85
        ground-lock: hands, feet
"""


def test_locked_palms_stay_where_they_were_planted_and_touch_the_floor():
    # the authored arms alone would carry the palms ~0.2 m toward the feet in "Lower the chest"
    # each phase against the one before ("Press the floor away" straightens the arms: a straight
    # arm reaches no further, so there the palm may stop short, by at most 1 cm)
    sol = solve_keyframes(compile_source(PUSH_UP))
    prev = sol.phases[0].world
    for ph in sol.phases[1:]:
        w = ph.world
        for s in ("left", "right"):
            d = w.landmarks[f"palm_{s}"] - prev.landmarks[f"palm_{s}"]
            straight = abs(ph.euler[f"elbow_{s}"][0]) < 0.5
            limit = 0.01 if straight else float(SOLVER["plantTolerance"])
            assert math.hypot(d[0], d[2]) <= limit, (ph.index, s, math.hypot(d[0], d[2]))
            assert abs(w.lowest(subtree(f"wrist_{s}"))) <= float(SOLVER["plantTolerance"]), (ph.index, s)
        prev = w


def test_toes_behind_held_hands_are_the_pivot_and_stay_planted():
    # a push-up stands on its toes: the body pivots about them (their floor contact), so each
    # toe ends every phase where the previous phase left it and on the floor (pivoting about
    # the ankles carried them ~1 cm toward the hands in "Lower the chest")
    sol = solve_keyframes(compile_source(PUSH_UP))
    prev = sol.base
    for ph in sol.phases:
        for s in ("left", "right"):
            d = ph.world.landmarks[f"toe_{s}"] - prev.landmarks[f"toe_{s}"]
            assert math.hypot(d[0], d[2]) <= float(SOLVER["plantTolerance"]), (ph.index, s, d)
            assert abs(float(ph.world.landmarks[f"toe_{s}"][1])) <= float(SOLVER["plantTolerance"]), (ph.index, s)
        prev = ph.world
