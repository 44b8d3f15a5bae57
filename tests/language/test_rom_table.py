"""The range-of-motion table (rom.py) against kinematics-reference §2.5/§3.3 and spec §4."""

from __future__ import annotations

import re

import pytest

from lang_shared import shared_path
from posecode_ssg.language import rom, vocabulary as V


def _reference_boxes() -> dict[str, dict[str, tuple[float, float]]]:
    """Parse the §2.5 table of ../shared/design/kinematics-reference.md into per-bone boxes."""
    text = shared_path("design", "kinematics-reference.md").read_text("utf-8")
    section = text.split("### 2.5", 1)[1].split("### 2.6", 1)[0]
    boxes: dict[str, dict[str, tuple[float, float]]] = {}

    def cell(c: str) -> tuple[float, float]:
        c = c.strip()
        if c == "locked":
            return (0.0, 0.0)
        lo, hi = re.fullmatch(r"\[(\S+), (\S+)\]", c).groups()
        return (float(lo.replace("−", "-")), float(hi.replace("−", "-")))

    for row in section.splitlines():
        parts = [p.strip() for p in row.strip().strip("|").split("|")]
        if len(parts) != 4 or parts[0] in ("bone", "---") or parts[1].startswith("-"):
            continue
        name = parts[0]
        box = {"x": cell(parts[1]), "y": cell(parts[2]), "z": cell(parts[3])}
        if name.endswith("_L") or name.endswith("_R"):
            bones = [name[:-2] + ("_left" if name.endswith("_L") else "_right")]
        elif name == "index/middle/ring/pinky":
            bones = [f"{d}_{s}" for d in ("index", "middle", "ring", "pinky") for s in V.SIDES]
        elif name in ("knee", "ankle"):
            bones = [f"{name}_{s}" for s in V.SIDES]
        else:
            bones = [name]
        for b in bones:
            boxes[b] = box
    return boxes


def test_every_bone_box_matches_reference_table():
    ref = _reference_boxes()
    assert set(ref) == set(V.BONES)
    for bone in V.BONES:
        assert rom.rom_box(bone) == ref[bone], bone


def test_spec_section4_selected_ceilings():
    # spec §4 table, read straight from the spec text
    expected = {
        ("shoulder", "flex"): 180, ("shoulder", "extend"): 60, ("shoulder", "abduct"): 180,
        ("shoulder", "rotate-in"): 70, ("shoulder", "rotate-out"): 90,
        ("elbow", "flex"): 154, ("elbow", "extend"): 10, ("elbow", "supinate"): 92,
        ("elbow", "pronate"): 84, ("hip", "flex"): 135, ("hip", "extend"): 20,
        ("hip", "abduct"): 45, ("knee", "flex"): 144, ("knee", "extend"): 5,
        ("ankle", "dorsiflex"): 15, ("ankle", "plantarflex"): 50, ("pelvis", "hinge"): 120,
        ("finger", "flex"): 100, ("finger", "extend"): 20, ("thumb", "flex"): 80,
        ("thumb", "extend"): 20, ("thumb", "abduct"): 50, ("thumb", "adduct"): 30,
        ("spine", "flex"): 90, ("spine", "extend"): 30, ("spine", "abduct"): 35,
        ("spine", "twist-left"): 45, ("neck", "flex"): 50, ("neck", "extend"): 60,
        ("neck", "abduct"): 45, ("neck", "twist-right"): 80,
    }
    for (jt, action), limit in expected.items():
        assert rom.LIMITS[jt][action] == limit


@pytest.mark.parametrize(
    "line, left, right",
    [  # kinematics-reference §3.1 worked values: (action on group, left bone, right bone)
        (("shoulder", "flex", 90), ("x", -90), ("x", -90)),
        (("shoulder", "abduct", 80), ("z", 80), ("z", -80)),
        (("elbow", "pronate", 80), ("y", -80), ("y", 80)),
        (("hip", "rotate-out", 30), ("y", 30), ("y", -30)),
        (("knee", "flex", 90), ("x", 90), ("x", 90)),
        (("ankle", "dorsiflex", 10), ("x", -10), ("x", -10)),
    ],
)
def test_action_signs_worked_values(line, left, right):
    joint, action, deg = line
    for side, (axis, value) in (("left", left), ("right", right)):
        got_axis, sign = V.action_sign(action, f"{joint}_{side}")
        assert (got_axis, sign * deg) == (axis, value)


def test_axial_signs():
    assert V.action_sign("flex", "spine") == ("x", 1)
    assert V.action_sign("twist-left", "spine") == ("y", 1)
    assert V.action_sign("hinge", "pelvis") == ("x", 1)


def test_clamp_magnitude_negative_and_over():
    assert rom.clamp_magnitude("knee_left", "flex", -10) == 0
    assert rom.clamp_magnitude("knee_left", "flex", 200) == 144
    assert rom.clamp_magnitude("knee_left", "flex", 30.5) == 30.5
    with pytest.raises(KeyError):
        rom.clamp_magnitude("knee_left", "abduct", 10)


def test_vocabulary_shapes():
    assert len(V.BONES) == 27 and len(set(V.BONES)) == 27
    assert V.JOINT_GROUPS["forearms"] == ("elbow_left", "elbow_right")
    assert V.JOINT_GROUPS["fingers"][:5] == tuple(f"{d}_left" for d in V.DIGITS)
    assert V.GROUND_LOCK_READABLE["left forearm"] == "elbow_left"
    assert V.expand_ground_lock(["hands", "foot_left", "hand_left"]) == (
        "hand_left", "hand_right", "foot_left")
    assert V.EFFECTOR_BONE["fist_right"] == "wrist_right"


def test_docs_reference_section_is_generated_from_the_sources():
    """docs/language.md embeds vocabulary_markdown() verbatim (regenerate with
    `python3 -m posecode_ssg.language.reference docs/language.md`)."""
    from pathlib import Path

    from posecode_ssg.language.reference import BEGIN, END, vocabulary_markdown

    text = (Path(__file__).resolve().parents[2] / "docs" / "language.md").read_text("utf-8")
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert section == "\n" + vocabulary_markdown()
    for name in V.BONES + V.PROPS + V.START_POSES + tuple(V.ACTIONS):
        assert f"`{name}`" in section
