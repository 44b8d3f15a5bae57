"""Issue 18: bodies rest on the floor. The centre of mass (Winter's segment table), the lowest
points of the mesh, and the rest of a lying or seated keyframe (motion/rest.py), in the compiler,
the keyframe solve and the motion JSON."""

from __future__ import annotations

import numpy as np
import pytest

from posecode_ssg.language.parser import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.fk import forward_kinematics
from posecode_ssg.motion.rest import (
    NO_REST,
    centre_of_mass,
    floor_points,
    rest_rotation,
    rest_transform,
)
from posecode_ssg.motion.rig import SEGMENT_MASSES, START_POSES_TABLE, avatar
from posecode_ssg.motion.rotation import euler_to_matrix
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.startpose import grounded_start_root


def _dropped(pose, joints, avatar_id="avatar1"):
    sp = START_POSES_TABLE[pose]
    R = euler_to_matrix(sp.root_euler)
    w = forward_kinematics(avatar(avatar_id), joints, np.zeros(3), R)
    return forward_kinematics(avatar(avatar_id), joints, np.array([0.0, -w.lowest(), 0.0]), R)


def _both(bone, x):
    return {f"{bone}_left": (x, 0.0, 0.0), f"{bone}_right": (x, 0.0, 0.0)}


def test_segment_shares_sum_to_the_body():
    assert sum(m for *_n, m, _f in SEGMENT_MASSES) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("avatar_id", ["avatar1", "avatar2", "avatar3"])
def test_standing_centre_of_mass_is_midline_just_above_the_hip_joints(avatar_id):
    # standing, the centre of mass lies on the midline at about S2, 5-10 cm above the hip joint
    # centres and within a few cm of them front to back (Winter 2009 §4.1; the figure's
    # proportions differ from a person's, so its stature fraction is not the 55 % of people)
    av = avatar(avatar_id)
    w = forward_kinematics(av, dict(START_POSES_TABLE["neutral"].joints),
                           grounded_start_root("neutral", avatar_id), np.eye(3))
    c = centre_of_mass(w)
    hip = 0.5 * (w.pos["hip_left"] + w.pos["hip_right"])
    assert abs(c[0]) < 1e-9
    assert 0.03 <= c[1] - hip[1] <= 0.12
    assert abs(c[2] - hip[2]) < 0.03


@pytest.mark.parametrize("pose", ["supine", "prone", "seated", "plank", "standing"])
def test_floor_points_hold_the_lowest_mesh_point(pose):
    rng = np.random.default_rng(7)
    sp = START_POSES_TABLE[pose]
    for _ in range(5):
        joints = dict(sp.joints)
        for b in ("hip_left", "knee_right", "shoulder_left", "elbow_right", "ankle_left", "spine"):
            joints[b] = tuple(float(v) for v in rng.uniform(-30, 30, 3) * (1, 0, 0))
        w = _dropped(pose, joints)
        assert floor_points(w)[:, 1].min() == pytest.approx(w.lowest(), abs=1e-12)


@pytest.mark.parametrize("pose", ["supine", "prone"])
def test_the_lying_start_poses_already_rest(pose):
    Q, shift = rest_transform(_dropped(pose, dict(START_POSES_TABLE[pose].joints)))
    assert np.allclose(Q, np.eye(3)) and np.allclose(shift, 0.0)


def test_bent_knees_in_a_long_sit_tip_the_body_back_onto_the_sitting_bones():
    # knees bent 15° with the hips at 90°: the figure's lowest point is the heels, the sitting
    # bones 11 cm up; resting, it leans back until they are down, heels still on the floor, and
    # its centre of mass is between them (over the support)
    joints = {**START_POSES_TABLE["seated"].joints, **_both("knee", 15.0)}
    w = _dropped("seated", joints)
    low = w.lowest_by_bone()
    assert low["knee_left"] > 0.08                     # thigh capsules (hip end) well up
    Q, shift = rest_transform(w)
    angle = np.degrees(np.arccos((np.trace(Q) - 1) / 2))
    assert 3.0 < angle < 10.0
    r = forward_kinematics(w.avatar, joints, w.root_pos + shift, Q @ w.root_rot)
    low = r.lowest_by_bone()
    assert min(low.values()) == pytest.approx(0.0, abs=1e-6)
    for b in ("knee_left", "knee_right", "ankle_left", "ankle_right"):
        assert low[b] <= 0.005, b
    # the trunk leans back: the chest is behind the pelvis
    assert r.pos["chest"][2] < r.pos["pelvis"][2]
    c = centre_of_mass(r)
    heel_z = min(r.landmarks["heel_left"][2], r.landmarks["heel_right"][2])
    hip_z = float(r.pos["hip_left"][2])
    assert min(hip_z, heel_z) - 0.01 <= c[2] <= max(hip_z, heel_z) + 0.01


SEATED_FOLD = """posecode stretch "Fold"
  rig humanoid
  pose start = seated

  step "Fold" 3s flow:
    hips: flex 115
    spine: flex 25
    shoulders: flex 60

  step "Rise" 2s settle:
    hips: flex 90
    spine: flex 0
    shoulders: flex 0
"""


def test_a_seated_fold_tips_forward_so_the_legs_stay_down_in_json_and_solve():
    program = compile_ir(parse(SEATED_FOLD).ir)
    doc = program.to_json()
    fold = doc["phases"][0]
    assert "rest" in fold and len(fold["rest"]) == 6
    solution = solve_keyframes(program)
    w = solution.phases[0].world
    # the hips flex 115° and the trunk tips forward over the legs until the hands, reaching by
    # the shins, come down on the floor: the heels are a few cm up, not the 35 cm of the legs
    # lifting 25° (below)
    low = w.lowest_by_bone()
    assert min(low.values()) == pytest.approx(0.0, abs=1e-4)
    assert max(low["ankle_left"], low["ankle_right"]) < 0.050
    assert min(low[b] for b in low if b.startswith(("wrist_", "middle_", "pinky_", "ring_"))) < 0.002
    # without the rest the legs would rise 25°: the heels ~35 cm up
    plain = forward_kinematics(w.avatar, program.keyframes[0].euler, program.base_root(),
                               euler_to_matrix(START_POSES_TABLE["seated"].root_euler))
    plain_low = plain.lowest_by_bone()
    assert plain_low["ankle_left"] - min(plain_low.values()) > 0.2
    # the solve's root is the JSON rest applied to the timeline's root
    R = rest_rotation(fold["rest"]) @ euler_to_matrix(START_POSES_TABLE["seated"].root_euler)
    assert np.allclose(w.root_rot, R, atol=1e-9)


def test_a_standing_body_is_never_tipped():
    src = """posecode exercise "Lean"
  rig humanoid
  pose start = standing

  step "Reach" 2s flow:
    shoulders: flex 90
    spine: flex 40
    hips: flex 30
"""
    program = compile_ir(parse(src).ir)
    assert program.base_rest == NO_REST and all(kf.rest == NO_REST for kf in program.keyframes)
    assert "rest" not in program.to_json()["phases"][0]


def test_a_phase_held_by_a_floor_pin_settles_about_its_pin():
    # issue 19 (the gravity settle, tests/motion/test_motion_settle.py): a held phase is no longer
    # left as solved; the fold pinned at the pelvis tips over the legs about the pin, which stays
    src = SEATED_FOLD.replace("    spine: flex 25\n", "    spine: flex 25\n    pin: pelvis floor\n")
    program = compile_ir(parse(src).ir)
    assert program.keyframes[0].rest != NO_REST
    ph = solve_keyframes(program).phases[0]
    pin = next(c for c in ph.contacts if c.kind == "pin")
    # the pin as solved without the settle: 28 mm (the fold lifts the pelvis joint over its
    # contact height); the settle brings it nearer, and the pelvis keeps its spot
    assert pin.residual <= 0.028
    assert np.hypot(*(ph.world.pos["pelvis"] - pin.target)[[0, 2]]) <= 0.005


def test_hands_reaching_for_the_ankles_do_not_stop_the_fold():
    # a seated hamstring stretch as authors write it: the hands reach for the ankles, so the
    # reach moves them wherever the tip leaves them; the trunk folds over legs that stay down
    src = SEATED_FOLD.replace("    shoulders: flex 60\n", "    shoulders: flex 80\n"
                              "    reach: hand_left ankle_left\n    reach: hand_right ankle_right\n", 1)
    program = compile_ir(parse(src).ir)
    w = solve_keyframes(program).phases[0].world
    low = w.lowest_by_bone()
    assert max(low["ankle_left"], low["ankle_right"]) - min(low.values()) < 0.010
    assert min(low["knee_left"], low["knee_right"]) - min(low.values()) < 0.010
    # and the trunk is over the thighs: the chest in front of the hips
    assert w.pos["chest"][2] > w.pos["hip_left"][2] + 0.1


def test_any_lying_or_seated_pose_ends_its_rest_on_the_floor():
    # random poses inside the ROM boxes on the three tilted bases: the rest leaves the figure's
    # lowest point on y = 0 (what the JSON writes, rounded, is what the solve and runtime use)
    from posecode_ssg.motion.rest import keyframe_rest
    from posecode_ssg.motion.rig import ROM

    rng = np.random.default_rng(3)
    av = avatar()
    tipped = 0
    for _ in range(60):
        pose = str(rng.choice(["supine", "prone", "seated"]))
        sp = START_POSES_TABLE[pose]
        joints = dict(sp.joints)
        for b in ROM:
            if rng.random() < 0.3:
                joints[b] = tuple(float(rng.uniform(*ROM[b][ax])) for ax in "xyz")
        R = euler_to_matrix(sp.root_euler)
        root = np.array([0.0, 0.5, 0.0])
        rest = keyframe_rest(forward_kinematics(av, joints, root, R))
        if rest == NO_REST:
            continue
        tipped += 1
        w = forward_kinematics(av, joints, root + np.asarray(rest[3:]), rest_rotation(rest) @ R)
        assert abs(w.lowest()) < 2e-4
    assert tipped > 30


def test_the_hook_lying_example_of_the_language_guide_has_back_and_soles_down():
    # docs/language.md promises that its hook-lying angles put the back and both soles down
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "docs" / "language.md").read_text(encoding="utf-8")
    start = text.index('posecode exercise "Hook-lying"')
    program = compile_ir(parse(text[start:text.index("```", start)]).ir)
    w = solve_keyframes(program).phases[0].world
    low = w.lowest_by_bone()
    assert low["spine"] < 0.002
    for side in ("left", "right"):
        assert w.landmarks[f"heel_{side}"][1] < 0.003 and w.landmarks[f"toe_{side}"][1] < 0.003
