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


#: issue 18: the surfaces a person rests on, as the bones whose mesh carries them
#: (``World.lowest_by_bone``: a capsule counts for its child bone, a volume for its own bone):
#: ``spine`` the lower back (pelvis-to-spine capsule), ``chest`` the shoulder blades or the chest
#: (spine-to-chest capsule and ribcage), ``pelvis`` the buttocks (hips volume), ``knee_*`` the
#: thighs (hip-to-knee capsule, whose hip end is under the sitting bones when seated),
#: ``ankle_*`` the heels or the tops of the feet (shoe)
REST_SURFACES = {
    "supine": ("spine", "chest", "pelvis", "ankle_left", "ankle_right"),
    "prone": ("spine", "chest", "knee_left", "knee_right", "ankle_left", "ankle_right"),
    "seated": ("pelvis", "knee_left", "knee_right", "ankle_left", "ankle_right"),
}
#: a surface touches when its lowest point is this close to the floor: the contact distance of
#: issue 18's measurement ("landmarks and points of the rig's capsules within 40 mm")
TOUCH_M = 0.040


def _rest_world(pose, avatar_id):
    sp = START_POSES_TABLE[pose]
    root = grounded_start_root(pose, avatar_id)
    return forward_kinematics(avatar(avatar_id), dict(sp.joints), root, euler_to_matrix(sp.root_euler))


@pytest.mark.parametrize("avatar_id", ["avatar1", "avatar2", "avatar3"])
@pytest.mark.parametrize("pose", sorted(REST_SURFACES))
def test_rest_poses_lie_on_the_surfaces_a_person_rests_on(pose, avatar_id):
    w = _rest_world(pose, avatar_id)
    low = w.lowest_by_bone()
    assert min(low.values()) == pytest.approx(0.0, abs=1e-9)          # spec §6: the drop
    off = {b: round(low[b] * 1000, 1) for b in REST_SURFACES[pose] if low[b] > TOUCH_M}
    assert not off, f"{pose} on {avatar_id}: surfaces off the floor (mm): {off}"


@pytest.mark.parametrize("avatar_id", ["avatar1", "avatar2", "avatar3"])
def test_prone_feet_lie_on_their_tops_not_the_toes(avatar_id):
    # a person lying prone rests on the tops of plantarflexed feet: the sole faces the ceiling
    # more than the floor, and the body is not propped on the toes (the lower back is down)
    w = _rest_world("prone", avatar_id)
    for side in ("left", "right"):
        sole_down = w.rot[f"ankle_{side}"] @ np.array([0.0, -1.0, 0.0])
        assert sole_down[1] > 0.3
    assert w.lowest_by_bone()["spine"] <= 0.005


@pytest.mark.parametrize("avatar_id", ["avatar1", "avatar2", "avatar3"])
def test_seated_body_sits_on_the_sitting_bones_not_the_hands(avatar_id):
    w = _rest_world("seated", avatar_id)
    low = w.lowest_by_bone()
    hands = [b for b in low if b.startswith(("wrist_", "thumb_", "index_", "middle_", "ring_", "pinky_"))]
    assert min(low[b] for b in hands) > TOUCH_M
    # the hip end of the thighs (under the sitting bones) carries the body
    hip_end = min(float(w.pos[f"hip_{s}"][1]) - seg[2] for s in ("left", "right")
                  for seg in w.avatar.segments if seg[1] == f"knee_{s}")
    assert hip_end == pytest.approx(0.0, abs=0.005)