"""Hands locked to the floor with the feet (issue 5: each contact held where it was planted; KR §6.3,
§7.2): the keyframe solve keeps each locked palm where it was on the floor when the phase began,
with the hand touching the floor, and lays the palm as flat as the wrist's range allows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posecode_ssg.language.rom import rom_box
from posecode_ssg.motion.fk import subtree
from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.rotation import euler_to_matrix
from posecode_ssg.motion.solve import _level_palm, _Pose, solve_keyframes

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


def test_level_palm_turns_the_palm_down_as_far_as_the_wrist_range_allows():
    # independent check of the closed form: a brute-force search over the wrist's flexion box,
    # with the forearm twist the solve chose, finds no palm facing further down
    sol = solve_keyframes(compile_source(PUSH_UP))
    ph = sol.phases[0]
    pose = _Pose(sol.avatar, ph.euler, ph.world.root_pos, ph.world.root_rot)
    for s in ("left", "right"):
        _level_palm(pose, s)
        w = pose.world()
        ny = float((w.rot[f"wrist_{s}"] @ np.array([0.0, 0.0, 1.0]))[1])
        elbow_world = w.rot[f"elbow_{s}"]
        lo, hi = rom_box(f"wrist_{s}")["x"]
        z = pose.euler[f"wrist_{s}"][2]
        best = min(float((elbow_world @ euler_to_matrix((x, 0.0, z)) @ np.array([0.0, 0.0, 1.0]))[1])
                   for x in np.linspace(lo, hi, 3001))
        assert ny == pytest.approx(best, abs=1e-4)
        assert lo - 1e-9 <= pose.euler[f"wrist_{s}"][0] <= hi + 1e-9
        ylo, yhi = rom_box(f"elbow_{s}")["y"]
        assert max(ylo, -70.0) - 1e-9 <= pose.euler[f"elbow_{s}"][1] <= min(yhi, 70.0) + 1e-9


def test_the_palm_faces_the_floor_more_than_the_authored_hand():
    sol = solve_keyframes(compile_source(PUSH_UP))
    for ph, kf in zip(sol.phases, compile_source(PUSH_UP).keyframes):
        authored = _Pose(sol.avatar, kf.euler, ph.world.root_pos, ph.world.root_rot).world()
        for s in ("left", "right"):
            down = float((ph.world.rot[f"wrist_{s}"] @ np.array([0.0, 0.0, 1.0]))[1])
            was = float((authored.rot[f"wrist_{s}"] @ np.array([0.0, 0.0, 1.0]))[1])
            assert down < was - 0.3, (ph.index, s, down, was)
