"""compile_ir: full-pose keyframes, carry-forward, hold neutral, mirroring, quaternions, loop wrap,
compact JSON valid against the shipped schema."""

from __future__ import annotations

import gzip
import json
import math

import jsonschema
import numpy as np
import pytest
from helpers_motion import compile_source, shared_path

from posecode_ssg.language.ir import IR
from posecode_ssg.motion import SCHEMA_PATH, compile_ir
from posecode_ssg.motion.rotation import euler_to_matrix, euler_to_quat, quat_to_matrix

SCHEMA = json.loads(SCHEMA_PATH.read_text())


def _examples():
    folder = shared_path("conformance", "examples")
    return sorted(folder.glob("*.expected.json"))


def test_euler_to_quat_is_intrinsic_xyz():
    # q = qX·qY·qZ  <=>  R = Rx·Ry·Rz (kinematics-reference §3.2)
    for e in [(30, 0, 0), (0, -80, 0), (-90, 20, 45), (-180, 60, -180), (12.5, -33, 71)]:
        assert np.allclose(quat_to_matrix(euler_to_quat(e)), euler_to_matrix(e), atol=1e-12)
    # a pure Z rotation of +90 turns +X into +Y (right-handed)
    assert np.allclose(euler_to_matrix((0, 0, 90)) @ [1, 0, 0], [0, 1, 0], atol=1e-12)


CARRY = """
posecode exercise "Carry"
  rig humanoid
  pose start = standing
  step "One" 1s flow:
    elbow_left: flex 90
    elbow_left: supinate 30
  step "Two" 1s settle:
    elbow_left: flex 45
  step "Three" 1s settle:
    elbow_left: hold neutral
    shoulder_right: flex 20
"""


def test_carry_forward_and_hold_neutral():
    p = compile_source(CARRY)
    k1, k2, k3 = p.keyframes
    # supinate on the left: y = -1 * -1 (mirrored) * 30 = +30 (kinematics-reference §3.1)
    assert k1.euler["elbow_left"] == (-90.0, 30.0, 0.0)
    # phase two authors x only: y carries
    assert k2.euler["elbow_left"] == (-45.0, 30.0, 0.0)
    # bones never touched keep the start pose (standing: right forearm pronated 80)
    assert k2.euler["elbow_right"] == (0.0, 80.0, 0.0)
    # hold neutral zeroes all three channels; other bones carry
    assert k3.euler["elbow_left"] == (0.0, 0.0, 0.0)
    assert k3.euler["shoulder_right"] == (-20.0, 0.0, 0.0)
    j = p.to_json()
    # only changed bones are emitted per phase
    assert set(j["phases"][0]["q"]) == {"elbow_left"}
    assert set(j["phases"][1]["q"]) == {"elbow_left"}
    assert set(j["phases"][2]["q"]) == {"elbow_left", "shoulder_right"}
    assert j["phases"][2]["q"]["elbow_left"] == [0, 0, 0, 1]
    # the base omits identity bones and holds the standing forearms
    assert set(j["base"]) == {"elbow_left", "elbow_right"}
    s = math.sin(math.radians(40))
    assert j["base"]["elbow_right"] == [0, round(s, 4), 0, round(math.cos(math.radians(40)), 4)]


def test_mirroring_of_plural_groups():
    p = compile_source("""
        posecode exercise "Mirror"
          rig humanoid
          pose start = neutral
          step "Out" 1s settle:
            shoulders: abduct 80
            hips: rotate-out 30
    """)
    k = p.keyframes[0]
    assert k.euler["shoulder_left"] == (0.0, 0.0, 80.0)
    assert k.euler["shoulder_right"] == (0.0, 0.0, -80.0)
    assert k.euler["hip_left"] == (0.0, 30.0, 0.0)
    assert k.euler["hip_right"] == (0.0, -30.0, 0.0)
    ql, qr = k.quat["shoulder_left"], k.quat["shoulder_right"]
    # mirror across the sagittal plane: x and w equal, y and z negated
    assert np.allclose(ql * [1, -1, -1, 1], qr)


def test_quaternion_sign_is_continuous_between_keyframes():
    p = compile_source("""
        posecode exercise "Sign"
          rig humanoid
          pose start = neutral
          step "Up" 1s settle:
            shoulder_right: flex 180
            shoulder_right: rotate-in 60
            shoulder_right: abduct 180
          step "Down" 1s settle:
            shoulder_right: hold neutral
    """)
    e = p.keyframes[0].euler["shoulder_right"]
    assert e == (-180.0, 60.0, -180.0)
    raw = euler_to_quat(e)
    assert float(np.dot(raw, [0, 0, 0, 1])) < 0          # the naive sign would flip
    q0 = p.base_quat["shoulder_right"]
    q1 = p.keyframes[0].quat["shoulder_right"]
    q2 = p.keyframes[1].quat["shoulder_right"]
    assert float(np.dot(q0, q1)) >= 0 and float(np.dot(q1, q2)) >= 0
    assert np.allclose(quat_to_matrix(q1), euler_to_matrix(e), atol=1e-12)
    j = p.to_json()
    # the emitted quaternion is on the base's (identity's) side: w >= 0
    assert j["phases"][0]["q"]["shoulder_right"][3] >= 0


def test_hinge_counter_rotates_the_hips():
    p = compile_source("""
        posecode exercise "Hinge"
          rig humanoid
          pose start = standing
          step "Down" 1s settle:
            pelvis: hinge 60
            hips: flex 20
            ground-lock: feet
    """)
    k = p.keyframes[0]
    assert k.semantic["hip_left"][0] == -20.0
    # kinematics-reference §3.4: hip x − pelvis x
    assert k.euler["hip_left"][0] == -80.0 and k.euler["hip_right"][0] == -80.0
    assert k.euler["pelvis"] == (60.0, 0.0, 0.0)


def test_loop_returns_home_and_wrap_rules():
    home = compile_source("""
        posecode exercise "Home"
          rig humanoid
          pose start = standing
          step "Go" 1.5s flow:
            knees: flex 40
            turn: 90
            travel: 0.5 0
          step "Back" 2s settle:
            knees: flex 0
            turn: 360
            travel: 0 0
    """)
    # pose, position and yaw (mod 360) are home: no wrap, yaw ends at the nearest full turn
    assert home.wrap == 0 and home.duration == pytest.approx(3.5)
    j = home.to_json()
    assert j["wrap"] == 0 and j["wrapTurn"] == 360
    assert j["phases"][0]["turn"] == 90 and j["phases"][0]["tr"] == [0.5, 0]
    away = compile_source("""
        posecode exercise "Away"
          rig humanoid
          pose start = standing
          step "Go" 1.5s flow:
            knees: flex 40
          step "Stay" 2s settle:
            elbows: flex 30
    """)
    # not home: a wrap segment as long as the first phase
    assert away.wrap == pytest.approx(1.5) and away.duration == pytest.approx(5.0)
    assert "turn" not in away.to_json()["phases"][1]


def test_turn_and_travel_are_carried():
    p = compile_source("""
        posecode exercise "Carry root"
          rig humanoid
          pose start = standing
          step "A" 1s flow:
            turn: 45
            travel: 0.2 0.1
          step "B" 1s flow:
            knees: flex 10
          step "C" 1s flow:
            travel: 0 0
    """)
    a, b, c = p.keyframes
    assert (b.turn, b.travel) == (45.0, (0.2, 0.1))
    assert (c.turn, c.travel) == (45.0, (0.0, 0.0))
    assert p.wrap == 1.0   # yaw 45 is not home


def test_every_conformance_example_compiles_validates_and_is_small():
    files = _examples()
    assert len(files) >= 50
    validator = jsonschema.Draft202012Validator(SCHEMA)
    sizes = []
    for f in files:
        ir = IR.from_dict(json.loads(f.read_text())["ir"])
        program = compile_ir(ir)
        doc = program.to_json()
        errors = sorted(validator.iter_errors(doc), key=str)
        assert not errors, (f.name, errors[0].message)
        assert len(doc["phases"]) == len(ir.phases)
        assert doc["duration"] == pytest.approx(sum(p.duration_sec for p in ir.phases) + doc["wrap"], abs=1e-3)
        # every phase's quaternions, applied on top of the base, reproduce the keyframe's pose
        current = {b: q for b, q in doc["base"].items()}
        for ph, kf in zip(doc["phases"], program.keyframes):
            current.update(ph.get("q", {}))
            for bone, e in kf.euler.items():
                q = np.array(current.get(bone, [0, 0, 0, 1]), float)
                assert np.allclose(quat_to_matrix(q / np.linalg.norm(q)), euler_to_matrix(e), atol=2e-3), (f.name, bone)
        sizes.append(len(gzip.compress(json.dumps(doc, separators=(",", ":")).encode())))
    sizes.sort()
    assert sizes[len(sizes) // 2] <= 1536


def test_avatar_choice():
    ir = IR.from_dict(json.loads((shared_path("conformance", "examples") / "squat.expected.json").read_text())["ir"])
    assert compile_ir(ir).avatar == "avatar1"
    assert compile_ir(ir, avatar="avatar3").avatar == "avatar3"
    ir.avatar = "avatar2"
    assert compile_ir(ir, avatar="avatar3").avatar == "avatar2"   # the document wins


def test_root_is_emitted_only_when_overrides_move_the_lowest_point():
    squat_start = compile_source("""
        posecode exercise "Squat start"
          rig humanoid
          pose start = standing:
            knees: flex 60
            hips: flex 60
          step "Up" 1s settle:
            knees: flex 0
            hips: flex 0
    """)
    j = squat_start.to_json()
    # thigh 60° forward, shin 0° net: the hip drops by 0.45 (1 − cos 60°) = 0.225 m; the root is
    # grounded 0.032 above the floor when standing, so it ends 0.193 m below it
    assert j["root"] == [0, pytest.approx(0.032 - 0.225, abs=1e-3), 0]
    arms_only = compile_source("""
        posecode exercise "Arms start"
          rig humanoid
          pose start = standing:
            shoulders: abduct 70
          step "Down" 1s settle:
            shoulders: abduct 0
    """)
    assert "root" not in arms_only.to_json()


def test_out_of_range_ir_values_are_kept_inside_rom():
    from posecode_ssg.language.ir import JointTarget, Phase
    ir = IR(kind="exercise", name="Raw", start_pose="standing", phases=[
        Phase("Too far", 1.0, "settle", [JointTarget("knee_left", (170.0, 0.0, 0.0), ("x",)),
                                          JointTarget("ankle_right", (-40.0, 0.0, 0.0), ("x",))])])
    k = compile_ir(ir).keyframes[0]
    assert k.euler["knee_left"] == (144.0, 0.0, 0.0)       # knee flex limit
    assert k.euler["ankle_right"] == (-15.0, 0.0, 0.0)     # dorsiflexion limit
