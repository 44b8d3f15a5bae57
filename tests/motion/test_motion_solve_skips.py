"""The numpy keyframe solve's shortcuts (docs/runtime.md "Speed of the numpy solve"): the loop
seam's second pass, ground-lock rounds and tiny moves skipped only where they would change the
pose by less than their tolerances."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_motion import PIVOT_ON_THE_STANDING_FOOT, SQUAT_HOME, compile_source

from posecode_ssg.motion.solve import solve_keyframes


@pytest.mark.parametrize("src,skips", [(SQUAT_HOME, True), (PIVOT_ON_THE_STANDING_FOOT, False)])
def test_loop_seam_repeating_the_start_skips_the_second_pass_within_its_tolerance(monkeypatch, src, skips):
    """A loop that ends where it began (the seam's world within SEAM_TOLERANCE of the start pose's,
    no turn, travel, pin or grip carried over) is solved in one pass; the phases equal a full
    second pass to within that tolerance. A loop whose seam differs (the pivot ends turned back
    about one foot, so the feet stand elsewhere) still solves its second pass."""
    from posecode_ssg.motion.solve import keyframes

    calls = []
    original = keyframes.same_world
    monkeypatch.setattr(keyframes, "same_world", lambda a, b: calls.append(original(a, b)) or calls[-1])
    quick = solve_keyframes(compile_source(src))
    assert calls and calls[0] is skips
    monkeypatch.setattr(keyframes, "same_world", lambda a, b: False)   # always the second pass
    full = solve_keyframes(compile_source(src))
    for a, b in zip(quick.phases, full.phases, strict=True):
        for bone, p in b.world.pos.items():
            assert np.abs(a.world.pos[bone] - p).max() <= keyframes.SEAM_TOLERANCE


def test_ground_lock_rounds_skipped_only_when_settled_and_within_a_micrometre(monkeypatch):
    """A ground-lock round (with the rounds after it and the final levelling and re-hold) is
    skipped when the pose has every residual it corrects within ROUND_SETTLED_M /
    ROUND_SETTLED_DEG: the squat's way down after its first round, its return home (the start
    pose on the start's footprints) at once; with the skip turned off the phase ends move by
    under 1 µm (joints, landmarks, root) and 1e-4° (joint angles)."""
    from posecode_ssg.motion.solve import groundlock

    results = []
    original = groundlock.round_settled
    monkeypatch.setattr(groundlock, "round_settled", lambda *a: results.append(original(*a)) or results[-1])
    quick = solve_keyframes(compile_source(SQUAT_HOME))
    assert [r is not None for r in results] == [False, True, True]   # Down: round 2; Up: round 1
    monkeypatch.setattr(groundlock, "round_settled", lambda *a: None)   # always the full rounds
    full = solve_keyframes(compile_source(SQUAT_HOME))
    for a, b in zip(quick.phases, full.phases, strict=True):
        for bone, p in b.world.pos.items():
            assert np.abs(a.world.pos[bone] - p).max() <= 1e-6
        for name, p in b.world.landmarks.items():
            assert np.abs(a.world.landmarks[name] - p).max() <= 1e-6
        for bone, e in b.euler.items():
            assert np.abs(np.subtract(a.euler[bone], e)).max() <= 1e-4


def test_tiny_root_moves_and_met_two_bone_targets_leave_the_pose_as_it_is(monkeypatch):
    """Pose.move below MOVE_SKIP keeps the world (and what was measured of it); two_bone whose
    end is within TWO_BONE_MET of its target leaves a naturally bent limb alone, and the full step
    would have moved it by no more than that; a hinge bent the wrong way is still solved."""
    from posecode_ssg.language.vocabulary import BONES
    from posecode_ssg.motion.fk import joint_xyz
    from posecode_ssg.motion.rig import avatar
    from posecode_ssg.motion.solve import limb
    from posecode_ssg.motion.solve.pose import Pose

    euler = {b: (0.0, 0.0, 0.0) for b in BONES}
    euler.update({"hip_left": (40.0, 5.0, 3.0), "knee_left": (60.0, 0.0, 0.0)})
    pose = Pose(avatar("avatar1"), euler, (0.0, 1.0, 0.0), np.eye(3))
    w = pose.world()
    pose.move((1e-13, -1e-13, 0.0))
    assert pose.world() is w
    pose.move((0.0, 1e-9, 0.0))
    assert pose.world() is not w

    target = np.add(joint_xyz(pose.world(), "ankle_left"), (3e-10, 0.0, -3e-10))
    before = dict(pose.euler)
    limb.two_bone(pose, "hip_left", "knee_left", "ankle_left", target)
    assert pose.euler == before
    monkeypatch.setattr(limb, "TWO_BONE_MET", -1.0)   # the full step
    full = Pose(avatar("avatar1"), before, pose.root_pos, pose.root_rot)
    limb.two_bone(full, "hip_left", "knee_left", "ankle_left", target)
    monkeypatch.undo()
    for bone, p in full.world().pos.items():
        assert np.abs(p - pose.world().pos[bone]).max() <= 1e-9

    bent_back = dict(euler, knee_left=(-20.0, 0.0, 0.0))
    back = Pose(avatar("avatar1"), bent_back, (0.0, 1.0, 0.0), np.eye(3))
    limb.two_bone(back, "hip_left", "knee_left", "ankle_left", joint_xyz(back.world(), "ankle_left"))
    assert back.euler["knee_left"][0] > 0.0   # the natural bend, reached again
