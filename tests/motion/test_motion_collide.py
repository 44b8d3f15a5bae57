"""Self-collision (collide.py, kinematics-reference §10.2): the forearm kept out of the torso by a
bounded shoulder turn inside the ROM box, contact limbs left alone, the residual reported."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_motion import compile_source

from posecode_ssg.language.rom import rom_box
from posecode_ssg.language.vocabulary import BONES
from posecode_ssg.motion.collide import LIMBS, deepest, self_collision_depth
from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.motion.rig import SOLVER, avatar
from posecode_ssg.motion.rotation import euler_to_matrix
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.motion.solve.pose import Pose
from posecode_ssg.motion.solve.selfcollision import resolve_self_collision


def pose(euler: dict, avatar_id: str = "avatar1") -> Pose:
    full = {b: (0.0, 0.0, 0.0) for b in BONES}
    full.update(euler)
    return Pose(avatar(avatar_id), full, (0.0, 1.0, 0.0), np.eye(3))


@pytest.mark.parametrize("avatar_id", ["avatar1", "avatar2", "avatar3"])
def test_standing_rest_pose_touches_nothing(avatar_id):
    # spec §3 rest pose: arms at the sides, legs apart; no limb may count as inside the body
    assert self_collision_depth(pose({}, avatar_id).world()) == {}


def test_depth_is_the_overlap_of_the_forearm_sphere_with_the_torso_capsule():
    # shoulder adducted 15° into the body: the hand sample sits inside the torso capsule
    p = pose({"shoulder_left": (0.0, 0.0, -15.0)})
    w = p.world()
    depth, point, push, obstacle = deepest(w, "arm_left")
    assert obstacle == "torso"
    # independent check: distance from the sample to the capsule's segment (from
    # selfTorsoBelowPelvis under the pelvis to the neck) against the two collision radii
    u = (w.pos["neck"] - w.pos["pelvis"]) / np.linalg.norm(w.pos["neck"] - w.pos["pelvis"])
    a, b = w.pos["pelvis"] - u * SOLVER["selfTorsoBelowPelvis"], w.pos["neck"]
    t = np.clip((point - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    dist = np.linalg.norm(point - (a + t * (b - a)))
    col = avatar("avatar1").collision
    assert depth == pytest.approx(col["torso"] + col["arm"] - dist, abs=1e-9)
    assert depth > 0.1
    assert push[0] > 0.9          # out to the figure's left, the arm's own side


def test_a_limb_past_the_body_axis_is_pushed_back_to_its_own_side():
    p = pose({"shoulder_left": (0.0, 0.0, -20.0)})
    depth, point, push, _ = deepest(p.world(), "arm_left")
    assert point[0] < 0.0 < push[0]       # the hand is past the midline; the push still says +X
    assert depth > avatar("avatar1").collision["torso"] + avatar("avatar1").collision["arm"]


@pytest.mark.parametrize("adduct", [15.0, 20.0])
def test_push_moves_the_arm_out_within_the_cap_and_the_box(adduct):
    p = pose({"shoulder_left": (0.0, 0.0, -adduct)})
    wrist_x = p.world().pos["wrist_left"][0]
    resolve_self_collision(p, set())
    assert deepest(p.world(), "arm_left")[0] < 0.001
    assert p.world().pos["wrist_left"][0] > wrist_x          # out to the figure's left (+X)
    # the shoulder turned at most selfArmMaxDeg, and stays inside its box
    R0 = euler_to_matrix((0.0, 0.0, -adduct))
    R1 = euler_to_matrix(p.euler["shoulder_left"])
    turned = math.degrees(math.acos(min(1.0, (np.trace(R0.T @ R1) - 1) / 2)))
    assert 0 < turned <= SOLVER["selfArmMaxDeg"] + 1e-6
    box = rom_box("shoulder_left")
    for v, ax in zip(p.euler["shoulder_left"], "xyz"):
        assert box[ax][0] - 1e-9 <= v <= box[ax][1] + 1e-9
    # the other limbs did not move
    for j in ("shoulder_right", "hip_left", "hip_right"):
        assert p.euler[j] == (0.0, 0.0, 0.0)


def test_a_limb_holding_a_contact_is_left_to_its_contact():
    for exempt in ({"hand_left"}, {"elbow_left"}, {"fist_left"}):
        p = pose({"shoulder_left": (0.0, 0.0, -30.0)})
        resolve_self_collision(p, exempt)
        assert p.euler["shoulder_left"] == (0.0, 0.0, -30.0)
    assert set(LIMBS) == {"arm_left", "arm_right", "leg_left", "leg_right"}


SRC = """
posecode exercise "Across"
  rig humanoid
  pose start = standing
  step "Cross" 1s settle:
    shoulder_left: adduct 30
  step "Cross harder" 1s settle:
    shoulder_left: adduct 50
    reach: hand_left floor
"""


def test_keyframe_solve_pushes_the_free_arm_and_reports_what_is_left():
    p = compile_source(SRC)
    assert p.keyframes[0].euler["shoulder_left"][2] < -29   # authored across the body
    sol = solve_keyframes(p)
    # phase 1: a free arm, pushed out of the torso (the cap leaves some overlap or none)
    free = self_collision_depth(sol.phases[0].world).get("arm_left", (0.0, ""))[0]
    raw = deepest(pose(dict(p.keyframes[0].euler)).world(), "arm_left")[0]
    assert raw > 0.1 and free < raw - 0.03
    diags = kinematic_diagnostics(p)
    self_hits = [d for d in diags if d.code == "kinematic-self-collision"]
    for d in self_hits:
        assert d.extra["depth"] > SOLVER["selfCollisionReport"]
        assert d.line in (4, 6)
    # phase 2: the hand reaches for the floor, so the arm is exempt and the overlap that stays
    # is reported at that step's line
    left = self_collision_depth(sol.phases[1].world).get("arm_left")
    if left and left[0] > SOLVER["selfCollisionReport"]:
        assert any(d.line == 6 and d.extra["limb"] == "arm_left" for d in self_hits)


def test_an_arm_held_by_a_contact_swivels_out_and_keeps_its_hand():
    # forearm folded across the front of the body (shoulder flexed 90°, turned in 40°, elbow 120°)
    # while the hand holds a reach: the shoulder turns about the shoulder→wrist axis, the elbow
    # and forearm move out of the torso, the wrist stays where the contact put it
    p = pose({"shoulder_left": (-90.0, -40.0, 0.0), "elbow_left": (-120.0, 0.0, 0.0)})
    before = deepest(p.world(), "arm_left")[0]
    wrist = p.world().pos["wrist_left"].copy()
    elbow = p.world().pos["elbow_left"].copy()
    resolve_self_collision(p, {"hand_left"}, {"hand_left"})
    w = p.world()
    assert deepest(w, "arm_left")[0] < before - 0.01
    assert np.linalg.norm(w.pos["wrist_left"] - wrist) < 1e-9
    assert np.linalg.norm(w.pos["elbow_left"] - elbow) > 0.01
    # a leg held by its contact is not swivelled (a planted foot would roll): left alone
    q = pose({"hip_left": (0.0, 0.0, -20.0)})
    resolve_self_collision(q, {"foot_left"}, {"foot_left"})
    assert q.euler["hip_left"] == (0.0, 0.0, -20.0)


def test_the_clearance_test_never_skips_an_overlap(monkeypatch):
    """deepest() skips its per-sample loop when a segment-to-segment distance finds the limb
    clear of every obstacle: over random poses (arms swung across the body, legs crossed, many of
    them overlapping), the answer with the skip equals the full loop's exactly, and the skip is
    taken for most limbs."""
    from posecode_ssg.motion import collide
    from posecode_ssg.motion.collide import _deepest

    skipped = []
    far = collide._far
    monkeypatch.setattr(collide, "_far", lambda *a: skipped.append(far(*a)) or skipped[-1])
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(150):
        euler = {b: tuple(rng.uniform(-1, 1, 3) * np.array([130.0, 60.0, 130.0]))
                 for b in ("shoulder_left", "shoulder_right", "elbow_left", "elbow_right", "hip_left",
                           "hip_right", "knee_left", "knee_right", "spine", "neck")}
        w = pose(euler).world()
        for limb in LIMBS:
            full = _deepest(w, limb)
            fast = deepest(w, limb)   # screened by _far first
            hits += full[0] > 0
            assert full[0] == fast[0] and full[3] == fast[3], limb
            assert (full[1] is None) == (fast[1] is None)
            if full[1] is not None:
                assert np.array_equal(full[1], fast[1]) and np.array_equal(full[2], fast[2])
    assert 20 < hits < 550   # both outcomes are exercised
    assert sum(skipped) > 300


def test_a_clear_limb_stays_clear_across_root_translations_only():
    """deepest() keeps a certainly-clear answer for the worlds that differ by a root translation
    (World.rigid_memo, shared while only the root moves, and by the worlds of the same pose met
    again) and for no other: over random poses, translated worlds answer as a full computation on
    them does, and a turned joint starts a new memo."""
    from posecode_ssg.motion.collide import _deepest

    rng = np.random.default_rng(5)
    for _ in range(60):
        euler = {b: tuple(rng.uniform(-1, 1, 3) * np.array([130.0, 60.0, 130.0]))
                 for b in ("shoulder_left", "shoulder_right", "elbow_left", "hip_left", "knee_right", "spine")}
        p = pose(euler)
        w1 = p.world()
        first = {limb: deepest(w1, limb) for limb in LIMBS}
        p.move(tuple(rng.uniform(-2, 2, 3)))
        w2 = p.world()
        assert w2.rigid_memo is w1.rigid_memo
        for limb in LIMBS:
            full = _deepest(w2, limb)
            got = deepest(w2, limb)
            assert got[0] == full[0] and got[3] == full[3], limb
            if first[limb][1] is None:
                assert got is first[limb]   # carried over, not measured again
        again = pose(euler)   # the same pose met again (PoseFK key): its rotations, its memo
        assert again.world().rigid_memo is w1.rigid_memo
        p.set_euler("elbow_left", (float(rng.uniform(0, 140)), 0.0, 0.0))
        assert p.world().rigid_memo is not w2.rigid_memo
