"""Keyframe solve: FK against hand-computed values, contacts, kinematic diagnostics with lines."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_motion import (
    LOWER_FROM_THE_BOX,
    PIVOT_ON_THE_STANDING_FOOT,
    SHALLOW_PLIE,
    SQUAT_HOME,
    compile_source,
)

from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.motion.solve import solve_keyframes


def test_grounded_standing_wrist_height():
    # kinematics-reference §2.1: grounded procedural standing pose, wrist y 0.882
    p = compile_source("""
        posecode exercise "Stand"
          rig humanoid
          pose start = standing
          step "Hold" 1s settle:
            neck: flex 0
    """)
    sol = solve_keyframes(p)
    for w in (sol.base, sol.phases[0].world):
        assert w.pos["wrist_left"][1] == pytest.approx(0.882, abs=1e-6)
        assert w.pos["wrist_right"][1] == pytest.approx(0.882, abs=1e-6)
        assert w.lowest() == pytest.approx(0.0, abs=1e-9)


def test_shoulder_flex_90_puts_wrists_forward_at_shoulder_height():
    p = compile_source("""
        posecode exercise "Arms forward"
          rig humanoid
          pose start = standing
          step "Raise" 1s settle:
            shoulders: flex 90
    """)
    w = solve_keyframes(p).phases[0].world
    for side in ("left", "right"):
        sh, wr = w.pos[f"shoulder_{side}"], w.pos[f"wrist_{side}"]
        assert wr[1] == pytest.approx(sh[1], abs=1e-9)
        assert wr[2] - sh[2] == pytest.approx(0.28 + 0.26, abs=1e-9)   # upper arm + forearm, forward
        assert wr[0] == pytest.approx(sh[0], abs=1e-9)
    assert w.pos["shoulder_left"][1] == pytest.approx(1.422, abs=1e-6)


def test_avatar3_is_nine_tenths():
    src = """
        posecode exercise "Stand"
          rig humanoid
          avatar avatar3
          pose start = standing
          step "Hold" 1s settle:
            neck: flex 0
    """
    w = solve_keyframes(compile_source(src)).base
    # 0.9 × the avatar1 height of each joint above the floor
    assert w.pos["wrist_left"][1] == pytest.approx(0.9 * 0.882, abs=1e-6)
    assert w.landmarks["head_top"][1] == pytest.approx(0.9 * 1.656, abs=1e-6)


UNREACHABLE = """
posecode exercise "Too far"
  rig humanoid
  pose start = standing
  step "Reach down" 1s settle:
    reach: hand_left floor
"""


def test_unreachable_reach_gives_a_diagnostic_on_its_line():
    p = compile_source(UNREACHABLE)
    diags = kinematic_diagnostics(p)
    reach = [d for d in diags if d.code == "kinematic-reach-short"]
    assert len(reach) == 1
    d = reach[0]
    assert d.line == 5 and d.severity == "warning"
    # a standing wrist is 0.882 m up, its contact height above the floor is about 0.10 m and the
    # arm cannot lengthen: the hand stops roughly 0.78 m short
    cr = solve_keyframes(p).phases[0].contacts[0]
    assert 0.70 < cr.residual < 0.85
    assert d.message == f"hand_left cannot reach floor within range of motion: {cr.residual * 100:.0f} cm short"


def test_reachable_reach_lands_and_stays_silent():
    p = compile_source("""
        posecode exercise "Touch knee"
          rig humanoid
          pose start = standing
          step "Touch" 1s settle:
            hip_right: flex 120
            knee_right: flex 90
            reach: hand_right knee_right
    """)
    sol = solve_keyframes(p)
    cr = sol.phases[0].contacts[0]
    w = sol.phases[0].world
    assert cr.residual < 0.01
    assert np.linalg.norm(w.pos["wrist_right"] - w.pos["knee_right"]) < 0.01
    assert not [d for d in kinematic_diagnostics(p) if d.code == "kinematic-reach-short"]
    # the solved shoulder and elbow stay inside their ROM boxes
    from posecode_ssg.language.rom import rom_box
    for bone in ("shoulder_right", "elbow_right"):
        box = rom_box(bone)
        for ax, v in zip("xyz", sol.phases[0].euler[bone]):
            assert box[ax][0] - 1e-6 <= v <= box[ax][1] + 1e-6


def test_grip_hangs_the_body_from_the_bar():
    p = compile_source("""
        posecode exercise "Hang"
          rig humanoid
          prop bar
          pose start = standing
          step "Hang" 2s settle:
            shoulders: flex 170
            grip: hands bar
    """)
    w = solve_keyframes(p).phases[0].world
    assert np.linalg.norm(w.pos["wrist_left"] - [0.18, 2.30, 0]) < 0.02
    assert np.linalg.norm(w.pos["wrist_right"] - [-0.18, 2.30, 0]) < 0.02
    assert w.lowest() > 0.05          # hanging: the feet are off the floor
    assert not kinematic_diagnostics(p)


def test_pin_foot_on_box_moves_the_body():
    p = compile_source("""
        posecode exercise "Step up"
          rig humanoid
          prop box
          pose start = standing
          step "Up" 1.2s settle:
            hip_left: flex 30
            pin: foot_right box
    """)
    sol = solve_keyframes(p)
    w = sol.phases[0].world
    # the right sole stands on the box anchor (0, 0.30, 0.30); the body rose with it
    assert np.linalg.norm(w.landmarks["sole_right"] - [0.0, 0.30, 0.30]) < 0.005
    assert w.pos["pelvis"][1] == pytest.approx(0.982 + 0.30, abs=0.005)
    assert not kinematic_diagnostics(p)


def test_ground_lock_lifted_and_choreography_on_lying_base():
    p = compile_source("""
        posecode exercise "Odd"
          rig humanoid
          pose start = supine
          step "Spin" 1s settle:
            turn: 90
          step "Lift" 1s settle:
            hip_left: flex 90
          step "Lock" 1s settle:
            knee_left: flex 10
            ground-lock: foot_left
    """)
    diags = kinematic_diagnostics(p)
    codes = {(d.code, d.line) for d in diags}
    assert ("kinematic-choreography-base", 4) in codes
    lifted = [d for d in diags if d.code == "kinematic-ground-lock-lifted"]
    assert len(lifted) == 1 and lifted[0].line == 10 and "foot_left" in lifted[0].message


def test_diagnostics_never_leak_into_parse():
    from posecode_ssg.language import parse
    result = parse(UNREACHABLE.lstrip("\n"))
    assert not [d for d in result.warnings + result.errors + result.hints if d.code.startswith("kinematic-")]


def _box_depth(w, side: str) -> float:
    """Deepest point of a shin (knee to the ankle plus the shin overhang, as the eval samples it)
    owned by the box's near face (KR §10.1 rule, shin radius of the avatar)."""
    from posecode_ssg.motion.rig import PROP_GEOMETRY, SOLVER
    from posecode_ssg.motion.solve.proplimbs import owned_depth

    face = PROP_GEOMETRY["box"]["faces"][0]
    k, a = w.pos[f"knee_{side}"], w.pos[f"ankle_{side}"]
    end = a + (a - k) / np.linalg.norm(a - k) * SOLVER["shinOverhang"]
    return max(owned_depth(face, k + t * (end - k), w.avatar.collision["shin"]) for t in np.linspace(0, 1, 201))


def test_box_near_face_bends_the_offending_leg_clear():
    from posecode_ssg.motion.fk import forward_kinematics

    p = compile_source("""
        posecode exercise "Kick the box"
          rig humanoid
          prop box
          pose start = standing
          step "Kick" 1s settle:
            hip_right: flex 40
            ground-lock: foot_left
    """)
    sol = solve_keyframes(p)
    w = sol.phases[0].world
    before = forward_kinematics(w.avatar, p.keyframes[0].euler, w.root_pos, w.root_rot)
    assert _box_depth(before, "right") > 0.05       # the authored pose drives the shin into the box
    assert _box_depth(w, "right") == 0.0            # the whole shin is clear of it
    # the knee bent the foot back out of the box; the hip keeps its authored flexion
    assert sol.phases[0].euler["hip_right"][0] == pytest.approx(-40.0)
    assert sol.phases[0].euler["knee_right"][0] > 20.0
    # the standing sole on the floor within eval's 5 mm: under the weight shift (issue 19) the leg
    # leans up to 4.5° over it and the rig's ankle is a hinge, so its middle rises a few mm
    assert _box_depth(w, "left") == 0.0 and w.landmarks["sole_left"][1] == pytest.approx(0.0, abs=0.005)


def test_a_foot_over_the_box_is_lifted_over_it_and_a_foot_on_it_is_left_alone():
    # "Lower": the free left foot, straight down from a knee raised over the box, would end inside
    # the box; the lift keeps it over the top (+ shin radius). The right foot stands on the box
    # (pin to its anchor), its declared support: not moved.
    from posecode_ssg.motion.rig import PROP_GEOMETRY, SOLVER

    p = compile_source("""
        posecode exercise "Over the box"
          rig humanoid
          prop box
          pose start = standing
          step "Up" 1s settle:
            hip_right: flex 5
            knee_right: flex 5
            pin: foot_right box
          step "Lower" 1s settle:
            hip_right: flex 5
            knee_right: flex 5
            hip_left: flex 30
            knee_left: flex 30
            pin: foot_right box
    """)
    sol = solve_keyframes(p)
    for ph in sol.phases:
        w = ph.world
        assert np.linalg.norm(w.landmarks["sole_right"] - PROP_GEOMETRY["box"]["anchors"]["box"]) < 0.005
        assert ph.euler["knee_right"][0] == pytest.approx(5.0)
        assert _box_depth(w, "left") == 0.0
    w = sol.phases[1].world
    # the left foot hangs over the box: its shin end is above the top by the shin radius
    assert w.pos["ankle_left"][2] > PROP_GEOMETRY["box"]["faces"][0]["center"][2]
    top = PROP_GEOMETRY["box"]["anchors"]["box"][1]
    assert w.pos["ankle_left"][1] - SOLVER["shinOverhang"] > top + w.avatar.collision["shin"] - 0.01


def test_grip_arm_reaches_its_anchor_within_the_grip_stop_distance():
    # issue 5: grip residual ≤ 5 mm; the reach's 1 cm CCD stop left dip-bar wrists 7–10 mm off
    # the rails, the grip's own stop (rig.json solver.gripStopDistance) brings them within it
    from posecode_ssg.motion.rig import SOLVER

    p = compile_source("""
        posecode exercise "Dip support"
          rig humanoid
          prop dip-bars
          pose start = standing
          step "Support" 1s settle:
            knees: flex 45
            grip: hands bars
          step "Dip" 1.4s settle:
            shoulders: extend 35
            elbows: flex 80
            grip: hands bars
    """)
    assert SOLVER["gripStopDistance"] <= 0.005 < SOLVER["ccdStopDistance"]
    for ph in solve_keyframes(p).phases:
        for c in ph.contacts:
            assert c.kind == "grip" and c.residual <= 0.005, (ph.index, c.contact.effector, c.residual)


def test_a_hand_taking_hold_does_not_pull_the_hanging_body_off_the_other():
    # alternating single-arm hang (content/props/active-hang.md): hanging on the right hand, the
    # left takes hold again; the body hangs from the hand that holds (its wrist stays on its
    # anchor, where the old mean over both hands moved the root by half the left hand's reach)
    src = """
        posecode exercise "Alternating"
          rig humanoid
          prop bar
          pose start = standing
          step "Two hands" 1.5s settle:
            shoulders: flex 175
            grip: hands bar
          step "Right hand only" 3s settle:
            shoulder_left: flex 30
            grip: hand_right bar
          step "Two hands again" 1.5s settle:
            shoulder_left: flex 120
            grip: hands bar
    """
    sol = solve_keyframes(compile_source(src))
    held, taking = sol.phases[1].world, sol.phases[2].world
    # the root moves only as far as the holding right arm needs (then the left arm reaches up)
    moved = np.linalg.norm(taking.pos["pelvis"] - held.pos["pelvis"])
    assert moved < 0.05, moved
    for c in sol.phases[2].contacts:
        assert c.residual <= 0.005, (c.contact.effector, c.residual)


RISES = """posecode exercise "Rises"
  rig humanoid
  pose start = standing

  step "Rise" 1s settle:
    ankles: plantarflex 35
    ground-lock: feet

  step "One-leg rise" 1s settle:
    ankle_left: plantarflex 0
    knee_left: flex 60
    pin: foot_right floor

  step "Turned out" 1s settle:
    ankles: plantarflex 0
    knee_left: flex 0
    hips: rotate-out 20
    ground-lock: feet
"""


def test_planted_feet_keep_their_footprint_on_tiptoe_and_turned_out():
    # issue 5: a heel raise pivots about the ball of the foot (the toe edge stays where it was
    # planted, the heel rises), for a ground-locked pair and for a floor-pinned foot alike; a hip
    # turned out swivels the leg instead of turning a planted foot (heel and toe both stay)
    sol = solve_keyframes(compile_source(RISES))
    base = sol.base.landmarks
    # (the left foot, lifted in "One-leg rise", lands where it lands: only the right is followed)
    for i, feet in ((0, ("left", "right")), (1, ("right",)), (2, ("right",))):
        w = sol.phases[i].world.landmarks
        for s in feet:
            for point in ("toe", "heel") if i == 2 else ("toe",):
                d = w[f"{point}_{s}"] - base[f"{point}_{s}"]
                assert np.hypot(d[0], d[2]) < 0.002, (i, s, point, np.hypot(d[0], d[2]))
            assert abs(w[f"toe_{s}"][1]) < 0.002
            assert bool(w[f"heel_{s}"][1] > 0.05) is (i < 2)


def test_a_floor_pin_is_handed_over_the_loop_seam_when_a_box_pin_closes_the_loop():
    """The loop ends on its start pose (no wrap), the left foot floor-pinned in the last and the
    first phase and the right foot pinned to the box in between: the box anchor fixes where the
    body comes down, so solving again from the loop's own end reproduces it and the left foot's
    pin is handed over the seam (runtime/pose.js ``_buildPlans`` alike). Expected from the pin's
    meaning (spec §5, KR §8: a floor pin holds its effector where it was when the phase began):
    at the end of the first phase the left ankle is where the last phase left it, not where the
    figure first stood (the box at x = 0 pulls the right foot, and the body, 0.1 m to the left)."""
    p = compile_source("""
        posecode exercise "Step up and down"
          rig humanoid
          prop box
          pose start = standing
          step "Foot on the box" 1s settle:
            hip_right: flex 68
            knee_right: flex 85
            pin: foot_left floor
          step "Stand on the box" 1.2s settle:
            hip_right: flex 5
            knee_right: flex 5
            pin: foot_right box
          step "Step down" 1s settle:
            hip_right: flex 0
            knee_right: flex 0
            pin: foot_left floor
            reach: foot_right floor
    """)
    assert p.wrap == 0
    sol = solve_keyframes(p)
    first, last = sol.phases[0].world, sol.phases[-1].world
    start = sol.base.pos["ankle_left"]
    assert np.linalg.norm((first.pos["ankle_left"] - last.pos["ankle_left"])[[0, 2]]) < 0.005
    # the standing foot really moved during the loop (the hand-over matters)
    assert np.linalg.norm((last.pos["ankle_left"] - start)[[0, 2]]) > 0.05


def test_a_turn_with_one_held_foot_pivots_on_it_though_both_are_locked():
    """'ground-lock: feet' while the right foot is only just landing (it was free in the phase
    before, so it is no support yet, spec §5: ground-lock preserves an existing floor contact):
    the one held foot is the pivot of the turn and stays where it is in the world (its sole
    centre, the held point of a flat foot), instead of being carried round the body's axis as a
    stance of two feet would be (0.1 m off the axis: ~0.14 m for a quarter turn)."""
    p = compile_source(PIVOT_ON_THE_STANDING_FOOT)
    sol = solve_keyframes(p)
    before, after = sol.phases[1].world, sol.phases[2].world
    moved = np.linalg.norm((after.landmarks["sole_left"] - before.landmarks["sole_left"])[[0, 2]])
    assert moved < 0.005
    # and the body did turn a quarter about it: the toe now points along +X (yaw 90° turns +Z to +X)
    d = after.landmarks["toe_left"] - after.landmarks["heel_left"]
    assert d[0] > 0.15 and abs(d[2]) < 0.03


def test_a_foot_reaching_down_from_the_box_does_not_lift_the_body_off_its_box_pin():
    """Standing on the box (the right foot pinned to it), the left foot reaches down to the floor:
    the reach puts it on the floor and its toe, which the pose pushes through the floor, is turned
    up at its own ankle (swing clearance while resting on a pin, the box's too) instead of the
    floor clamp raising the whole body off the box. Expected: the right sole on the box anchor
    of kinematics-reference §10.1, (0, 0.30, 0.30) m, within 5 mm."""
    p = compile_source(LOWER_FROM_THE_BOX)
    w = solve_keyframes(p).phases[1].world
    assert np.linalg.norm(w.landmarks["sole_right"] - [0.0, 0.30, 0.30]) < 0.005
    assert min(w.landmarks["toe_left"][1], w.landmarks["heel_left"][1]) > -0.002


def test_hand_reached_to_the_wall_rests_on_its_surface():
    # a hand on the wall touches its surface instead of sinking into it: the forearm and hand
    # (elbow to armOverhang past the wrist, arm radius, KR §10.1 capsule) end within a few mm of
    # the wall's front plane (PROP_GEOMETRY: z = -0.29, normal +Z) and not inside it. Before, the
    # wrist sat on the anchor and the hand was 57 mm inside (wall-leg-swings)
    from posecode_ssg.motion.rig import PROP_GEOMETRY, SOLVER

    p = compile_source("""
        posecode exercise "Wall"
          rig humanoid
          prop wall
          pose start = standing
          step "Side-on" 1.2s settle:
            turn: 90
            ground-lock: feet
            reach: hand_left wall
    """)
    w = solve_keyframes(p).phases[0].world
    face = PROP_GEOMETRY["wall"]["faces"][0]
    assert face["normal"] == [0, 0, 1] and face["center"][2] == -0.29
    e, wr = w.pos["elbow_left"], w.pos["wrist_left"]
    tip = wr + (wr - e) / np.linalg.norm(wr - e) * SOLVER["armOverhang"]
    gaps = [float(q[2]) - (-0.29) - w.avatar.collision["arm"] for q in np.linspace(e, tip, 41)]
    assert -0.002 <= min(gaps) <= 0.004, min(gaps)
    # the wrist is at the anchor's height and side, moved out from the wall only
    assert wr[1] == pytest.approx(0.9, abs=0.01) and wr[0] == pytest.approx(0.0, abs=0.01)
    assert not [d for d in kinematic_diagnostics(p) if d.code == "kinematic-reach-short"]


CALF_STRETCH_FEET_LOCKED_HOME = """
    posecode stretch "Standing calf stretch"
      rig humanoid
      prop wall
      pose start = standing

      step "Face the wall" 1s settle:
        turn: 180
        ground-lock: feet

      step "Step back and lean" 2s settle:
        hip_right: extend 20
        knee_right: flex 0
        ankle_right: dorsiflex 15
        hip_left: flex 25
        knee_left: flex 30
        ankle_left: dorsiflex 10
        shoulders: flex 90
        reach: hand_left wall
        reach: hand_right wall
        ground-lock: foot_left
        cue "Back heel down, back knee straight, lean the hips toward the wall"

      step "Hold" 25s linear:
        cue "Hold for about 30 seconds; feel the stretch in the upper calf"

      step "Return" 1.5s settle:
        hip_right: extend 0
        ankle_right: dorsiflex 0
        hip_left: flex 0
        knee_left: flex 0
        ankle_left: dorsiflex 0
        shoulders: flex 0
        turn: 0
        ground-lock: feet

      repeat 2
"""


def test_a_loop_whose_feet_end_apart_from_the_start_pose_is_reported_at_the_last_lock():
    """Fresh-user trial: the last step brings the joints home but locks both feet, so the stepped-
    back foot stays back (31 cm in the body's frame) and every repeat begins in the split stance:
    kinematic-loop-start at the last step's ground-lock line, naming the foot. Letting the back
    foot move (only the front one locked) ends on the start pose: no report."""
    diags = kinematic_diagnostics(compile_source(CALF_STRETCH_FEET_LOCKED_HOME))
    loop = [d for d in diags if d.code == "kinematic-loop-start"]
    text = CALF_STRETCH_FEET_LOCKED_HOME.split("\n")
    lock_line = max(i for i, line in enumerate(text) if "ground-lock: feet" in line)   # 1-based after dedent
    assert len(loop) == 1 and loop[0].line == lock_line and loop[0].extra["foot"] == "foot_right"
    assert 0.25 < loop[0].extra["offset"] < 0.4
    fixed = CALF_STRETCH_FEET_LOCKED_HOME[::-1].replace("teef :kcol-dnuorg", "tfel_toof :kcol-dnuorg", 1)[::-1]
    assert not [d for d in kinematic_diagnostics(compile_source(fixed)) if d.code == "kinematic-loop-start"]
    assert not [d for d in kinematic_diagnostics(compile_source(SQUAT_HOME)) if d.code == "kinematic-loop-start"]


def test_a_shallow_plie_keeps_the_heels_down_by_sitting_back():
    # issue 18: 20 deg of knee over thighs kept vertical needs 20 deg of dorsiflexion, 5 more than
    # the ankle's box; the ground-lock sits the pelvis back over the heels instead of lifting them
    # (before: the heels 15 mm up)
    from posecode_ssg.language.parser import parse
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.solve import solve_keyframes

    program = compile_ir(parse(SHALLOW_PLIE).ir)
    sol = solve_keyframes(program)
    w = sol.phases[0].world
    for side in ("left", "right"):
        assert w.landmarks[f"heel_{side}"][1] < 0.005 and w.landmarks[f"toe_{side}"][1] < 0.005
    assert not sol.phases[0].feet                      # nothing left to report as not flat
    # the pelvis sat back: the thighs lean forward (the knees ahead of the hips by > sin 3 deg of
    # the thigh) where, as authored (hips 0), they stood upright; the shins lean less for it
    for side in ("left", "right"):
        thigh = w.pos[f"knee_{side}"] - w.pos[f"hip_{side}"]
        assert thigh[2] / np.linalg.norm(thigh) > np.sin(np.radians(3.0))


def test_a_sit_back_stops_where_the_body_would_fall_backwards():
    # issue 18: a demi-plie whose shins lean 13 degrees past the ankle's range (hips 31.5, knees
    # 55, turned out) sits back only until its centre of mass is solver.sitBackHeelMargin ahead of
    # the heels; further, a person falls backwards, so the heels lift and each foot is named.
    # The centre of mass is recomputed here from Winter's table (rig.SEGMENT_MASSES) over the
    # solved joints, independently of motion/rest.py.
    from posecode_ssg.language.parser import parse
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.diagnostics import kinematic_diagnostics
    from posecode_ssg.motion.rig import SEGMENT_MASSES, SOLVER
    from posecode_ssg.motion.solve import solve_keyframes

    src = SHALLOW_PLIE.replace("knees: flex 20", "hips: flex 31.5\n    hips: abduct 17\n    knees: flex 55", 1)
    program = compile_ir(parse(src).ir)
    w = solve_keyframes(program).phases[0].world

    def at(name):
        parts = [w.pos[n] if n in w.pos else w.landmarks[n] for n in name.split("+")]
        return sum(parts) / len(parts)

    com = sum(m * (at(a) + f * (at(b) - at(a))) for _n, a, b, m, f in SEGMENT_MASSES) / sum(
        m for *_x, m, _f in SEGMENT_MASSES)
    heel_z = min(w.landmarks[f"heel_{s}"][2] for s in ("left", "right"))   # the feet point +z
    assert com[2] - heel_z == pytest.approx(SOLVER["sitBackHeelMargin"], abs=0.004)
    diags = [d for d in kinematic_diagnostics(program) if d.code == "kinematic-foot-flat" and d.line == 5]
    assert sorted(d.extra["foot"] for d in diags) == ["foot_left", "foot_right"]
    for s in ("left", "right"):
        assert w.landmarks[f"heel_{s}"][1] > 0.01 and abs(w.landmarks[f"toe_{s}"][1]) < 0.005
    # without the sit-back the centre of mass lay ahead of the heels with room to spare: it did sit back
    assert w.pos["pelvis"][2] < 0.0
