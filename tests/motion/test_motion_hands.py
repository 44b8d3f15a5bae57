"""Hands locked to the floor with the feet (issue 5: each contact held where it was planted; KR §6.3):
the keyframe solve keeps each locked palm where it was on the floor when the phase began, with the
hand touching the floor."""

from __future__ import annotations

import math

from helpers_motion import compile_source

from posecode_ssg.motion.fk import subtree
from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes

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


def test_a_palm_reaching_the_floor_presents_its_surface_to_it():
    # spec §5 reach: a palm declared against the floor presents its contact surface to it, also
    # when the hand reaches the floor (cobra's "Lift": reach: hands floor) rather than being
    # ground-locked; solve/reach.py runs palm_flat before each floor re-aim. Before: the palms ended
    # facing up-and-back (normal 143° off floor-down, palm 57 mm up); now 9°, 6.5 mm.
    from tests.conftest import shared_path

    path = shared_path("conformance", "examples", "cobra.posecode")
    if not path.exists():
        import pytest
        pytest.skip("no ../shared conformance examples")
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    w = solve_keyframes(compile_ir(parse(path.read_text(encoding="utf-8")).ir)).phases[0].world
    for s in ("left", "right"):
        off = math.degrees(math.acos(max(-1.0, min(1.0, -float(w.rot[f"wrist_{s}"][1, 2])))))
        assert off < 20.0, f"palm {s}: normal {off:.1f}° off floor-down"
        assert w.landmarks[f"palm_{s}"][1] < 0.015, f"palm {s}: {w.landmarks[f'palm_{s}'][1] * 1000:.1f} mm up"
