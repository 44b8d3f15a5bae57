"""The rig: one source of truth, ROM boxes from the language table, start poses legal and grounded."""

from __future__ import annotations

import json

import numpy as np
import pytest

from posecode_ssg.language.rom import rom_box
from posecode_ssg.language.vocabulary import (
    AVATARS,
    BONES,
    PROP_ANCHORS,
    PROPS,
    START_POSES,
)
from posecode_ssg.motion.fk import forward_kinematics
from posecode_ssg.motion.rig import START_POSES_TABLE, avatar
from posecode_ssg.motion.rigjson import rig_json
from posecode_ssg.motion.rotation import euler_to_matrix
from posecode_ssg.motion.startpose import grounded_start_root


def test_rig_json_is_json_and_lists_every_bone_parent_first():
    rig = json.loads(json.dumps(rig_json()))
    ids = [b["id"] for b in rig["bones"]]
    assert ids == list(BONES)
    seen = set()
    for b in rig["bones"]:
        assert b["parent"] is None or b["parent"] in seen
        seen.add(b["id"])
    assert set(rig["avatars"]) == set(AVATARS)
    assert set(rig["startPoses"]) == set(START_POSES)
    assert set(rig["props"]) == set(PROPS)
    for p in PROPS:
        assert list(rig["props"][p]["anchors"]) == list(PROP_ANCHORS[p])


def test_rom_boxes_come_from_the_language_table():
    rig = rig_json()
    for b in BONES:
        assert rig["rom"][b] == {ax: list(v) for ax, v in rom_box(b).items()}


@pytest.mark.parametrize("pose", START_POSES)
def test_start_pose_joint_values_are_inside_rom(pose):
    for bone, euler in START_POSES_TABLE[pose].joints.items():
        box = rom_box(bone)
        for ax, v in zip("xyz", euler):
            lo, hi = box[ax]
            assert lo <= v <= hi, (pose, bone, ax, v)


def test_procedural_offsets_give_the_reference_standing_heights():
    # kinematics-reference §2.1: grounded standing pose, world y of each joint
    av = avatar("avatar1")
    root = grounded_start_root("standing", "avatar1")
    w = forward_kinematics(av, dict(START_POSES_TABLE["standing"].joints), root, np.eye(3))
    expected = {"ankle_left": 0.042, "knee_left": 0.472, "hip_left": 0.922, "pelvis": 0.982,
                "spine": 1.122, "chest": 1.302, "shoulder_left": 1.422, "neck": 1.462,
                "head": 1.562, "wrist_left": 0.882, "wrist_right": 0.882}
    for bone, y in expected.items():
        assert w.pos[bone][1] == pytest.approx(y, abs=1e-6), bone
    assert w.landmarks["head_top"][1] == pytest.approx(1.656, abs=1e-6)
    assert w.lowest() == pytest.approx(0.0, abs=1e-9)


def test_avatar_heights():
    assert avatar("avatar1").height == pytest.approx(1.656, abs=1e-3)
    # 0.9 × every avatar1 length
    assert avatar("avatar3").height == pytest.approx(0.9 * 1.656, abs=1e-3)
    assert avatar("avatar3").offsets["knee_left"][1] == pytest.approx(-0.45 * 0.9)
    # driver proportions: taller than avatar1, thigh 0.428
    assert avatar("avatar2").offsets["knee_right"] == (0.0, -0.428, 0.0)
    assert avatar("avatar2").height > 1.74


@pytest.mark.parametrize("pose,facing", [("plank", -1), ("prone", -1), ("supine", +1)])
def test_lying_start_poses_face_the_floor_or_ceiling_and_touch_it(pose, facing):
    # ../shared/cases/bugs/mo-joint-direction-signs expected.md item 5
    sp = START_POSES_TABLE[pose]
    root = grounded_start_root(pose, "avatar1")
    w = forward_kinematics(avatar("avatar1"), dict(sp.joints), root, euler_to_matrix(sp.root_euler))
    chest_forward = w.rot["chest"] @ np.array([0.0, 0.0, 1.0])
    assert facing * chest_forward[1] > 0.8
    assert abs(w.lowest()) <= 0.005


def test_grounded_lying_heights_match_reference():
    # kinematics-reference §4: supine joints at y ≈ 0.105, prone ≈ 0.145
    for pose, y in (("supine", 0.105), ("prone", 0.145)):
        sp = START_POSES_TABLE[pose]
        root = grounded_start_root(pose)
        w = forward_kinematics(avatar(), dict(sp.joints), root, euler_to_matrix(sp.root_euler))
        assert w.pos["pelvis"][1] == pytest.approx(y, abs=0.005)
