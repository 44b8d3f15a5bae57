"""Issue 19 item 3: ``kinematic-balance`` names a standing phase whose centre of mass falls off
its feet, with the distance and the direction; a balanced or supported one says nothing."""

from __future__ import annotations

import re

import pytest
from helpers_motion import GOOD_MORNING, KNEE_UP, compile_source, shared_path, without_weight_shift

from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.motion.rest import centre_of_mass
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.support import BALANCE_LIMIT


def _balance(src):
    program = compile_source(src)
    return program, [d for d in kinematic_diagnostics(program) if d.code == "kinematic-balance"]


@pytest.fixture
def no_shift(monkeypatch):
    """The keyframe solve without the weight shift: a body the shift balances (a good morning's
    hips go back, a calf raise goes over the balls: test_motion_balance.py) left where its angles
    put it, for the diagnostic to name."""
    without_weight_shift(monkeypatch)


def test_a_hinge_with_straight_legs_falls_ahead_of_the_toes_by_what_the_geometry_says(no_shift):
    program, found = _balance(GOOD_MORNING)
    (d,) = found
    assert d.line == 5 and d.extra["phase"] == "Hinge" and d.extra["where"] == "ahead of the toes"
    # independent: the centre of mass's distance ahead of the toes' edge (the figure faces +z)
    w = solve_keyframes(program).phases[0].world
    toes = max(float(w.sole_corners(s)[:, 2].max()) for s in ("left", "right"))
    ahead = float(centre_of_mass(w)[2]) - toes
    assert ahead > BALANCE_LIMIT
    assert d.extra["distance"] == pytest.approx(ahead, abs=0.002)
    assert "send the hips back" in d.hint


def test_standing_and_a_one_foot_stance_balance():
    for src in ("""
    posecode exercise "Stand"
      rig humanoid
      pose start = standing

      step "Arms up" 1s settle:
        shoulders: flex 90
        ground-lock: feet
    """, KNEE_UP):
        assert _balance(src)[1] == []


def test_a_body_on_the_floor_or_on_a_prop_is_not_judged_by_its_feet():
    assert _balance("""
    posecode exercise "Bridge"
      rig humanoid
      pose start = supine

      step "Knees up" 1s settle:
        hips: flex 60
        knees: flex 90
        ground-lock: feet
    """)[1] == []


def test_a_squat_behind_its_heels_is_named_with_the_hinge_that_balances_it():
    src = shared_path("conformance", "examples", "squat.posecode").read_text(encoding="utf-8")
    program, found = _balance(src)
    (d,) = found
    assert d.line == 5 and d.extra["phase"] == "Descend" and d.extra["where"] == "behind the heels"
    # independent: how far the centre of mass lies behind the rear edge of the soles (facing +z)
    w = solve_keyframes(program).phases[0].world
    heels = min(float(w.sole_corners(s)[:, 2].min()) for s in ("left", "right"))
    assert d.extra["distance"] == pytest.approx(heels - float(centre_of_mass(w)[2]), abs=0.002)
    # the hint's hinge, written into the step, balances it (the squat hinges 25° as written)
    hinge = int(re.search(r"`pelvis: hinge (\d+)`", d.hint).group(1))
    assert hinge > 25
    assert _balance(src.replace("pelvis: hinge 25", f"pelvis: hinge {hinge}"))[1] == []


def test_a_calf_raise_is_judged_over_the_balls_of_its_feet(no_shift):
    src = shared_path("conformance", "examples", "heel-raises.posecode").read_text(encoding="utf-8")
    _program, found = _balance(src)
    assert found and all("behind the balls of the feet" in d.message for d in found)
    assert all("balls of the feet" in d.hint for d in found)


def test_the_weight_shift_balances_a_good_morning_and_a_calf_raise():
    # the two the diagnostic names without it (above): with it, neither is reported
    src = shared_path("conformance", "examples", "heel-raises.posecode").read_text(encoding="utf-8")
    assert _balance(src)[1] == []
    assert _balance(GOOD_MORNING)[1] == []
