"""Floor pins between keyframes (issue 18 item 2, motion/midphase.py): where the authored angles
take an arm through the floor mid-phase while a floor pin holds the body on it, the runtime's
floor clamp lifts the pinned contact, and the build says so (``kinematic-pin-lifted``), naming the
phase and the distance — never a silent hover. A lying body's free arms swing out along the floor
instead (swing clearance, ``clear_free_arms``), so only what that cannot clear is reported.
Expected values: the lifts the real runtime showed (the seated arm swing's pelvis 66 mm up
half-way; prone-on-elbows as it was written, :data:`PRONE_ON_ELBOWS`, 392 mm before the arms
swung along the floor, none after), and documents whose pinned contact the runtime keeps down
(their pin stays within 5 mm of its phase-end height)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_motion import PRONE_ON_ELBOWS, compile_source

from posecode_ssg.evaluate.documents import load_documents
from posecode_ssg.motion.diagnostics import kinematic_diagnostics

CONTENT = Path(__file__).resolve().parents[2] / "content"



def _lifted(rel: str) -> list:
    docs, problems = load_documents([str(CONTENT / rel)])
    assert not problems and docs
    return [d for doc in docs for d in doc.kinematic if d.code == "kinematic-pin-lifted"]


#: a seated body swings its straight arms from forward to back past the hips: with the trunk
#: upright the hands pass 7-9 cm under the floor, which no swing along the floor avoids
SEATED_SWING = """
posecode exercise "Seated arm swing"
  rig humanoid
  pose start = seated:
    shoulders: flex 90
    elbows: flex 0
  step "Swing back" 2s settle:
    shoulders: extend 50
    pin: pelvis floor
  step "Swing forward" 2s settle:
    shoulders: flex 90
    pin: pelvis floor
"""


def test_an_arm_swept_through_the_floor_under_a_pinned_pelvis_is_diagnosed_with_phase_and_lift():
    program = compile_source(SEATED_SWING)
    found = [d for d in kinematic_diagnostics(program) if d.code == "kinematic-pin-lifted"]
    assert [d.extra["phase"] for d in found] == ["Swing back", "Swing forward"]
    d = found[0]
    assert d.extra["effector"] == "pelvis"
    # the real runtime lifted the pinned pelvis 66 mm half-way through 'Swing back' (138 -> 204 mm,
    # 10 Hz samples); the diagnostic samples the angles' straight path, which dips a little deeper
    assert d.extra["lift"] == pytest.approx(0.066, abs=0.03)
    assert "'Swing back'" in d.message and f"{d.extra['lift'] * 100:.0f} cm" in d.message
    assert d.line == 8   # the pin's line


def test_arms_swept_along_the_floor_of_a_lying_body_leave_the_pin_down():
    # issue 18 known fault: prone-on-elbows as it was written swept the arms from beside the body
    # through the floor to under the shoulders and the runtime lifted the pinned pelvis 392 mm;
    # the arms of a lying body now swing out along the floor (swing clearance), so no phase lifts
    program = compile_source(PRONE_ON_ELBOWS)
    assert not [d for d in kinematic_diagnostics(program) if d.code == "kinematic-pin-lifted"]


@pytest.mark.parametrize("rel", ["rehab/prone-on-elbows.md", "strength/prone-back-extension.md", "posture/prone-y-raise.md",
                                 "mobility/kneeling-hip-flexor-stretch.md", "props/seated-knee-extension.md"])
def test_a_pinned_contact_the_runtime_keeps_down_is_not_reported(rel):
    assert _lifted(rel) == []


#: a cobra as a new user wrote it (issue 18 review): pressing up with the shoulders flexed 40° takes
#: the straight arms through the floor at the phase end, so they are swung out along it
PRESS_UP = """
posecode stretch "My cobra"
  rig humanoid
  pose start = prone
  step "Press up" 2s settle:
    spine: extend 25
    chest: extend 15
    shoulders: flex 40
    elbows: flex 20
    pin: pelvis floor
    reach: hands floor
"""


def test_an_arm_swung_out_along_the_floor_at_a_phase_end_is_named():
    from posecode_ssg.motion.fk import forward_kinematics, subtree
    from posecode_ssg.motion.solve import solve_keyframes

    program = compile_source(PRESS_UP)
    found = [d for d in kinematic_diagnostics(program) if d.code == "kinematic-arm-floor"]
    assert sorted(d.extra["side"] for d in found) == ["left", "right"]
    sol = solve_keyframes(program)
    end = sol.phases[0].world
    for d in found:
        assert d.line == 4 and d.extra["phase"] == "Press up" and "'Press up'" in d.message
        # the authored arm, posed on the solved body, goes this deep under the floor (an
        # independent forward kinematics of the keyframe's angles at the solved root)
        w = forward_kinematics(end.avatar, program.keyframes[0].euler, end.root_pos, end.root_rot)
        assert d.extra["depth"] == pytest.approx(-w.lowest(subtree(f"elbow_{d.extra['side']}")), abs=0.02)
        # where the angles put the hand, and where the clearance left it
        assert d.extra["moved"] > 0.3
        assert end.pos[f"wrist_{d.extra['side']}"][1] < 0.1
    # prone-on-elbows as first written sweeps its arms through the floor mid-phase only (cleared
    # then), and they end on the floor where its angles put them: nothing to say
    assert not [d for d in kinematic_diagnostics(compile_source(PRONE_ON_ELBOWS)) if d.code == "kinematic-arm-floor"]
