"""Floor pins between keyframes (issue 18 item 2, motion/midphase.py): where the authored angles
take an arm through the floor mid-phase while a floor pin holds the body on it, the runtime's
floor clamp lifts the pinned contact, and the build says so (``kinematic-pin-lifted``), naming the
phase and the distance — never a silent hover. Expected values: the lift the real runtime showed
(bench/floorcontacts/before.txt, 60 Hz: prone-on-elbows as it was written, :data:`PRONE_ON_ELBOWS`,
its pinned pelvis 25 mm up at both phase ends and 417 mm half-way through 'Up onto the elbows', so
392 mm of lift), and documents whose pinned contact the runtime keeps down (their pin stays
within 5 mm of its phase-end height; prone-on-elbows now starts with its arms forward)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_motion import compile_source

from posecode_ssg.evaluate.documents import load_documents
from posecode_ssg.motion.diagnostics import kinematic_diagnostics

CONTENT = Path(__file__).resolve().parents[2] / "content"

#: content/rehab/prone-on-elbows.md's first phases as they were: the arms swing from beside the
#: body (shoulders at 0) through the floor to under the shoulders
PRONE_ON_ELBOWS = """
posecode stretch "Prone on elbows"
  rig humanoid
  pose start = prone:
    ankles: plantarflex 50
  step "Up onto the elbows" 2s settle:
    spine: extend 30
    chest: extend 20
    neck: extend 10
    shoulders: flex 70
    elbows: flex 70
    pin: pelvis floor
    reach: elbow_left floor
    reach: elbow_right floor
  step "Rest on the forearms" 6s linear:
    ground-lock: forearms
"""


def _lifted(rel: str) -> list:
    docs, problems = load_documents([str(CONTENT / rel)])
    assert not problems and docs
    return [d for doc in docs for d in doc.kinematic if d.code == "kinematic-pin-lifted"]


def test_an_arm_swept_through_the_floor_under_a_pinned_pelvis_is_diagnosed_with_phase_and_lift():
    program = compile_source(PRONE_ON_ELBOWS)
    found = [d for d in kinematic_diagnostics(program) if d.code == "kinematic-pin-lifted"]
    assert [d.extra["phase"] for d in found] == ["Up onto the elbows"]
    d = found[0]
    assert d.extra["effector"] == "pelvis"
    assert d.extra["lift"] == pytest.approx(0.392, abs=0.03)   # the runtime's 392 mm
    assert "'Up onto the elbows'" in d.message and f"{d.extra['lift'] * 100:.0f} cm" in d.message
    assert d.line == 11   # the pin's line


@pytest.mark.parametrize("rel", ["rehab/prone-on-elbows.md", "strength/prone-back-extension.md", "posture/prone-y-raise.md",
                                 "mobility/kneeling-hip-flexor-stretch.md", "props/seated-knee-extension.md"])
def test_a_pinned_contact_the_runtime_keeps_down_is_not_reported(rel):
    assert _lifted(rel) == []
