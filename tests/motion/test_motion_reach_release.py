"""``kinematic-reach-released`` (motion/diagnostics.py): a reach holds its limb for its own phase
only while angles carry over (spec §3), so a hold step that does not repeat it lets the limb go
back to its angles. Found by a new user's seated toe reach, whose 'Hold' (a cue only) swung the
arms up from the ankles and rolled the body back."""

from __future__ import annotations

from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.diagnostics import REACH_RELEASE_REPORT, kinematic_diagnostics

REACH = """posecode stretch "Seated toe reach"
  rig humanoid
  pose start = seated

  step "Reach" 3s settle:
    hips: flex 110
    pelvis: hinge 20
    spine: flex 25
    shoulders: flex 80
    elbows: flex 0
    reach: hand_left ankle_left
    reach: hand_right ankle_right

  step "Hold" 5s linear:
{hold}
  step "Sit up" 2.5s settle:
    hips: flex 90
    pelvis: hinge 0
    spine: flex 0
    shoulders: flex 20
"""


def released(hold: str) -> list:
    program = compile_ir(parse(REACH.format(hold=hold)).ir)
    return [d for d in kinematic_diagnostics(program) if d.code == "kinematic-reach-released"]


def test_a_hold_that_drops_the_reach_is_told_at_its_step_line():
    found = released('    cue "Breathe slowly"\n')
    assert [(d.line, d.extra["effector"], d.severity) for d in found] == [
        (14, "hand_left", "hint"), (14, "hand_right", "hint")]
    for d in found:
        # the hands go from the ankles back to the straight arms' reach: far more than the limit
        assert d.extra["moved"] > 4 * REACH_RELEASE_REPORT
        assert "reach: " + d.extra["effector"] in d.hint and "'Hold'" in d.message


def test_a_hold_that_repeats_the_reach_keeps_the_hands_there():
    assert released("    reach: hand_left ankle_left\n    reach: hand_right ankle_right\n") == []


def test_a_step_that_moves_on_may_let_go():
    # a step that writes angles is moving on: letting go there is the author's (a knee hug's
    # 'Release'), even when the hands then move far; and 'Sit up' after a repeated reach too
    assert released("    shoulders: flex 60\n") == []
    assert all(d.extra["phase"] == "Hold" for d in released('    cue "Breathe"\n'))
