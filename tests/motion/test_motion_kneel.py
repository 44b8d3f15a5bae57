"""Issue 19 item 6: cat-cow's kneeling support. A phase that locks the hands with both feet and
starts on both knees (solve/groundlock.py ``kneels``) turns about the feet until the knees are on
the floor and the arms reach the hands from there, not onto the hands as a plank does (which
left the knees 2–3 cm up between the phase ends); as far as the arms cannot hold the hands from
the knees it turns onto the hands instead (``kneel_release``), continuously."""

from __future__ import annotations

import pytest
from helpers_motion import CAT_COW, compile_source

from posecode_ssg.motion.fk import subtree
from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.solve.groundlock import kneel_release, knee_bottoms, kneels

PLANK = """
    posecode exercise "Plank"
      rig humanoid
      pose start = plank
      step "Hold" 2s linear:
        ground-lock: hands, feet
"""


def test_all_fours_kneels_and_a_plank_does_not():
    sol = solve_keyframes(compile_source(CAT_COW))
    locks = ("hand_left", "hand_right", "foot_left", "foot_right")
    assert kneels(sol.base, locks)
    # each phase end is still on all fours, so the next phase kneels too (a cat's feet come down
    # to 3 cm over the floor: the knees must be lower than the feet's hold, not 5 cm lower)
    assert all(kneels(ph.world, locks) for ph in sol.phases)
    assert not kneels(solve_keyframes(compile_source(PLANK)).base, locks)
    # hands alone, or the feet without hands: not all fours
    assert not kneels(sol.base, ("foot_left", "foot_right"))
    assert not kneels(sol.base, ("hand_left", "hand_right", "foot_left"))


@pytest.mark.parametrize("phase", [0, 1, 2])
def test_cat_and_cow_end_on_hands_knees_and_feet(phase):
    sol = solve_keyframes(compile_source(CAT_COW))
    w, start = sol.phases[phase].world, sol.base
    tol = float(SOLVER["plantTolerance"])
    # the knees on the floor (they floated 2-3 cm as the body turned onto its hands)
    assert all(abs(k[1]) <= tol for k in knee_bottoms(w, ["left", "right"]))
    # the hands where they were planted, on the floor
    for s in ("left", "right"):
        d = w.landmarks[f"palm_{s}"] - start.landmarks[f"palm_{s}"]
        assert (float(d[0]) ** 2 + float(d[2]) ** 2) ** 0.5 <= tol
        assert w.lowest(subtree(f"wrist_{s}")) <= float(SOLVER["baseContact"])   # palm and fingers


def test_kneel_release_is_none_within_the_tolerance_and_all_at_it():
    tol = float(SOLVER["plantTolerance"])
    assert kneel_release(0.0) == 0.0 and kneel_release(0.4 * tol) == 0.0
    assert kneel_release(tol) == 1.0 and kneel_release(3 * tol) == 1.0
    assert 0.0 < kneel_release(0.7 * tol) < 1.0
