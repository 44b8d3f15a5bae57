"""Forward kinematics and mesh extents against a direct computation from the rig's definition
(kinematics-reference §2.1): joint = parent joint + parent rotation · rest offset; landmark =
bone joint + bone rotation · offset; lowest point per bone from capsules, ellipsoids and soles."""

from __future__ import annotations

import numpy as np
import pytest

from posecode_ssg.language.vocabulary import BONES
from posecode_ssg.motion import fk
from posecode_ssg.motion.fk import forward_kinematics
from posecode_ssg.motion.rig import AVATARS, PARENT, avatar
from posecode_ssg.motion.rotation import euler_to_matrix, rot_y

POSE = {"hip_left": (-50, 5, 10), "knee_left": (70, 0, 0), "spine": (15, -10, 0), "shoulder_right": (0, 20, 80),
        "ankle_right": (10, 0, -5), "neck": (-20, 0, 0)}


def direct(av, euler, root_pos, root_rot):
    pos, rot = {}, {}
    for b in BONES:
        L = euler_to_matrix(euler[b]) if b in euler else np.eye(3)
        p = PARENT[b]
        R, P = (root_rot, root_pos) if p is None else (rot[p], pos[p])
        pos[b] = P + R @ np.array(av.offsets[b])
        rot[b] = R @ L
    marks = {n: pos[b] + rot[b] @ np.array(o) for n, (b, o) in av.landmarks.items()}
    return pos, rot, marks


@pytest.mark.parametrize("avatar_id", list(AVATARS))
def test_joints_and_landmarks_match_the_rig_definition(avatar_id):
    av = avatar(avatar_id)
    root_pos, root_rot = np.array([0.1, 0.9, -0.2]), rot_y(30)
    world = forward_kinematics(av, POSE, root_pos, root_rot)
    pos, rot, marks = direct(av, POSE, root_pos, root_rot)
    for b in BONES:
        np.testing.assert_allclose(world.pos[b], pos[b], atol=1e-12)
        np.testing.assert_allclose(world.rot[b], rot[b], atol=1e-12)
    assert sorted(world.landmarks) == sorted(marks) and len(world.landmarks) == len(marks)
    for name, value in marks.items():
        assert name in world.landmarks
        np.testing.assert_allclose(world.landmarks[name], value, atol=1e-12)
        np.testing.assert_allclose(world.point(name), value, atol=1e-12)
    # local matrices given directly take precedence over the Euler angles
    twisted = forward_kinematics(av, POSE, root_pos, root_rot, local={"neck": np.eye(3)})
    assert not np.allclose(twisted.pos["head"], world.pos["head"])


def test_lowest_by_bone_matches_the_mesh_definition():
    av = avatar()
    world = forward_kinematics(av, POSE, np.array([0.0, 0.95, 0.0]), np.eye(3))
    pos, rot, marks = direct(av, POSE, np.array([0.0, 0.95, 0.0]), np.eye(3))
    expected = {b: np.inf for b in BONES}
    for a, b, r0, r1 in av.segments:
        owner = b if b in expected else av.landmarks[b][0]
        end = pos[b] if b in pos else marks[b]
        expected[owner] = min(expected[owner], pos[a][1] - r0, end[1] - r1)
    for _name, bone, r, scale, off in av.volumes:  # an ellipsoid's lowest point: centre y − |row y of R·S|
        centre = pos[bone] + rot[bone] @ np.array(off)
        expected[bone] = min(expected[bone], centre[1] - np.linalg.norm(rot[bone][1] * r * np.array(scale)))
    for side in ("left", "right"):
        bone = f"ankle_{side}"
        corners = [np.array(av.sole_center) + np.array([sx, sy, sz]) * np.array(av.sole_size)
                   for sx in (-0.5, 0.5) for sy in (-0.5, 0.5) for sz in (-0.5, 0.5)]
        expected[bone] = min(expected[bone], min((rot[bone] @ c + pos[bone])[1] for c in corners))
    low = world.lowest_by_bone()
    assert set(low) == set(BONES)
    for b in BONES:
        assert low[b] == pytest.approx(expected[b], abs=1e-12), b
    assert world.lowest() == pytest.approx(min(expected.values()), abs=1e-12)
    from posecode_ssg.motion.fk import subtree

    for bone in ("ankle_left", "hip_right", "shoulder_left", "neck"):  # a part measures only its bones
        part = subtree(bone)
        assert world.lowest(part) == pytest.approx(min(expected[b] for b in part), abs=1e-12)
        only = world.lowest_by_bone(part)
        assert all(only[b] == low[b] for b in part) and all(only[b] == np.inf for b in BONES if b not in part)


@pytest.mark.parametrize("avatar_id", list(AVATARS))
def test_incremental_fk_equals_a_full_recompute_after_every_change(avatar_id):
    """PoseFK recomputes only the subtree a change moves and carries lowest points and landmarks
    of unmoved bones over: after each change of a random sequence (one joint, several joints, a
    root translation, a root turn), its world equals a from-scratch forward_kinematics exactly,
    joints, rotations, landmarks and lowest points alike; a world handed out earlier keeps its
    values."""
    from posecode_ssg.motion.fk import PoseFK

    av = avatar(avatar_id)
    rng = np.random.default_rng(7)
    euler = {b: tuple(rng.uniform(-40, 40, 3)) for b in BONES}
    local = {b: euler_to_matrix(e) for b, e in euler.items()}
    root_pos, root_rot = np.array([0.05, 0.92, -0.1]), rot_y(20)
    fk = PoseFK(av, local, root_pos, root_rot)
    first = fk.world()
    first_pelvis, first_toe = first.pos["pelvis"].copy(), first.landmarks["toe_left"].copy()
    for step in range(60):
        kind = step % 5
        if kind in (0, 1):          # one joint (a leg, an arm, the spine: subtrees of every size)
            bones = [BONES[rng.integers(len(BONES))]]
        elif kind == 2:             # several joints before the next world
            bones = list(rng.choice(BONES, 3, replace=False))
        else:
            bones = []
        for b in bones:
            euler[b] = tuple(rng.uniform(-60, 60, 3))
            local[b] = euler_to_matrix(euler[b])
            fk.set_local(b, local[b])
        if kind == 3:
            root_pos = root_pos + rng.normal(0, 0.05, 3)
            fk.set_root(root_pos=root_pos)
        if kind == 4:
            root_rot = rot_y(float(rng.uniform(-90, 90))) @ root_rot
            fk.set_root(root_rot=root_rot)
        w = fk.world()
        if step % 2:                # some worlds are measured (their lowest points carried over)
            w.lowest_by_bone()
            _ = w.landmarks["toe_right"], w.landmarks["palm_left"]
        full = forward_kinematics(av, {}, root_pos, root_rot, local=dict(local))
        for b in BONES:
            assert np.array_equal(w.pos[b], full.pos[b]), (step, b)
            assert np.array_equal(w.rot[b], full.rot[b]), (step, b)
        for name in full.landmarks:
            assert np.array_equal(w.landmarks[name], full.landmarks[name]), (step, name)
        assert w.lowest_by_bone() == full.lowest_by_bone(), step
        assert w.lowest(("ankle_left", "knee_left")) == full.lowest(("ankle_left", "knee_left"))
    assert np.array_equal(first.pos["pelvis"], first_pelvis)
    assert np.array_equal(first.landmarks["toe_left"], first_toe)


@pytest.mark.parametrize("avatar_id", list(AVATARS))
def test_float_lowest_points_and_landmarks_equal_the_array_computation(avatar_id):
    """A forward-kinematics world measures lowest points and landmarks on Python floats (joint
    floats plus the bone's rotation share, kept across root moves); a World built from plain
    arrays measures them with numpy: the two give the same numbers (the joints exactly; lowest
    points and landmarks, whose rotation products numpy may sum in another order, within
    1e-12 m), bone by bone and all at once, and the positions read as the full dict of arrays."""
    from posecode_ssg.motion.fk import World

    av = avatar(avatar_id)
    rng = np.random.default_rng(11)
    for _ in range(5):
        euler = {b: tuple(rng.uniform(-70, 70, 3)) for b in BONES}
        root = (np.array([0.0, 0.9, 0.0]) + rng.normal(0, 0.1, 3), rot_y(float(rng.uniform(0, 360))))
        fast = forward_kinematics(av, euler, *root)
        pos, rot, marks = direct(av, euler, *root)
        plain = World(av, pos, rot, marks, *root)
        fast_low, plain_low = fast.lowest_by_bone(), plain.lowest_by_bone()
        assert fast_low.keys() == plain_low.keys()
        assert all(abs(fast_low[b] - plain_low[b]) <= 1e-12 for b in BONES)
        for b in BONES:
            alone = forward_kinematics(av, euler, *root)
            assert alone.lowest_by_bone([b])[b] == fast_low[b], b
        assert sorted(fast.pos) == sorted(BONES) and len(fast.pos) == len(BONES) and "head" in fast.pos
        assert dict(fast.pos).keys() == set(BONES) and fast.pos.get("nose") is None
        for b in BONES:
            assert np.array_equal(fast.pos[b], pos[b]), b
        for name in marks:
            assert np.allclose(fast.landmarks[name], marks[name], rtol=0.0, atol=1e-12), name


def test_a_pose_met_again_reuses_its_rotations_and_stays_exact():
    """PoseFK with a ``key`` (the packed Euler angles) reuses the rotations of an earlier pose
    with the same key and root rotation: at another root position, after a joint change made
    before the first world (the key no longer applies) and with another root rotation, each
    world still equals a from-scratch computation exactly (landmarks within 1e-12 m)."""
    from posecode_ssg.motion.fk import PoseFK
    from posecode_ssg.motion.fkprep import euler_key

    av = avatar("avatar2")
    rng = np.random.default_rng(5)
    euler = {b: tuple(rng.uniform(-50, 50, 3)) for b in BONES}
    local = {b: euler_to_matrix(e) for b, e in euler.items()}
    key = euler_key(euler)
    assert key is not None and euler_key({"pelvis": (0.0, 0.0, 0.0)}) is None
    first = PoseFK(av, local, np.array([0.0, 0.9, 0.0]), rot_y(10), key=key).world()
    first.lowest_by_bone()
    for root_pos, root_rot, change in (([0.3, 0.7, -0.2], rot_y(10), None), ([0.0, 1.0, 0.0], rot_y(10), "knee_left"),
                                       ([0.0, 1.0, 0.0], rot_y(40), None)):
        fk = PoseFK(av, local, np.array(root_pos), root_rot, key=key)
        mats = dict(local)
        if change:
            mats[change] = euler_to_matrix((35.0, 0.0, 0.0))
            fk.set_local(change, mats[change])
        w = fk.world()
        full = direct(av, {b: (35.0, 0.0, 0.0) if b == change else e for b, e in euler.items()}, np.array(root_pos), root_rot)
        for b in BONES:
            assert np.array_equal(w.pos[b], full[0][b]) and np.array_equal(w.rot[b], full[1][b]), (change, b)
        for name, value in full[2].items():   # R @ offset on floats: within 1e-12 m of numpy's
            assert np.allclose(w.landmarks[name], value, rtol=0.0, atol=1e-12), name


@pytest.mark.parametrize("avatar_id", list(AVATARS))
def test_lowest_measures_only_bones_that_can_be_lowest_and_gives_the_same_minimum(avatar_id):
    """World.lowest skips bones whose mesh cannot reach below the lowest point already found (a
    lower bound from their joints and reach): for random poses every bone's measured lowest point
    is at or above its bound, and the minimum equals the minimum over all bones exactly, for the
    whole figure and for subsets."""
    from posecode_ssg.motion.fkprep import prepared

    av = avatar(avatar_id)
    prep = prepared(av)
    rng = np.random.default_rng(3)
    for _ in range(40):
        euler = {b: tuple(rng.uniform(-120, 120, 3)) for b in BONES}
        root = (np.array([0.0, 0.9, 0.0]) + rng.normal(0, 0.3, 3), rot_y(float(rng.uniform(0, 360))))
        every = forward_kinematics(av, euler, *root).lowest_by_bone()
        fk._STATES.clear()   # a fresh world: the same pose at the same root is otherwise the same world
        w = forward_kinematics(av, euler, *root)
        for b in BONES:
            starts, reach = prep.low_bound[b]
            joint_low = min([float(w.pos[b][1])] + [float(w.pos[a][1]) for a in starts])
            assert every[b] >= joint_low - reach, b
        assert w.lowest() == min(every.values())
        subset = list(rng.choice(BONES, 6, replace=False))
        assert forward_kinematics(av, euler, *root).lowest(subset) == min(every[b] for b in subset)
        assert len(w.low_cache) < len(BONES)   # the bound did skip bones


def test_a_pose_met_again_at_the_same_root_is_the_same_world():
    """PoseFK's first world of a pose met before (the same key and root rotation) at the same root
    position is the world made then, with what was measured of it; another root position sums
    the joints again, to the same values as a plain computation."""
    av = avatar("avatar1")
    euler = {b: (10.0, -5.0, 3.0) for b in BONES}
    root = (np.array([0.0, 0.9, 0.0]), rot_y(30.0))
    fk._STATES.clear()
    w = forward_kinematics(av, euler, *root)
    low = w.lowest()
    again = forward_kinematics(av, euler, root[0].copy(), root[1].copy())
    assert again is w and again.lowest() == low
    moved = forward_kinematics(av, euler, root[0] + np.array([0.0, 0.1, 0.0]), root[1])
    assert moved is not w
    fk._STATES.clear()
    plain = forward_kinematics(av, euler, root[0] + np.array([0.0, 0.1, 0.0]), root[1])
    assert all(np.array_equal(moved.pos[b], plain.pos[b]) for b in BONES)
    assert moved.lowest() == plain.lowest()


def test_the_start_pose_world_is_made_once_per_pose_and_root():
    """solve.keyframes.base_world: the start pose's world is the same object for the same avatar, angles
    and root transform (its footprints and lowest points are measured once), and a new one for
    another root position."""
    from posecode_ssg.motion.solve.keyframes import base_world

    av = avatar("avatar1")
    euler = {b: (0.0, 0.0, 0.0) for b in BONES}
    root = (np.array([0.0, 0.95, 0.0]), np.eye(3))
    w = base_world(av, euler, *root)
    assert base_world(av, dict(euler), root[0].copy(), root[1].copy()) is w
    other = base_world(av, euler, root[0] + np.array([0.1, 0.0, 0.0]), root[1])
    assert other is not w and float(other.pos["pelvis"][0]) == float(w.pos["pelvis"][0]) + 0.1


def test_a_phase_back_on_the_start_pose_is_the_start_worlds_object():
    """A settled phase that ends on the start pose at the start position (the squat's rise) is the
    start pose's world itself (the same key and root transform), so the seam check and the
    measurements of that world are done once."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.solve import keyframes, solve_keyframes

    fk._STATES.clear()   # the start world and its pose's state made afresh (other tests clear the states)
    keyframes._BASE_WORLDS.clear()
    src = ('posecode exercise "Squat"\n  rig humanoid\n  pose start = standing\n'
           '  step "Lower" 1.0s settle:\n    hips: flex 70\n    knees: flex 90\n    ground-lock: feet\n'
           '  step "Rise" 1.0s drive:\n    hips: flex 0\n    knees: flex 0\n    ground-lock: feet\n')
    sol = solve_keyframes(compile_ir(parse(src).ir))
    assert sol.phases[-1].world is sol.base
