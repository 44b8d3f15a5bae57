"""The posecode-parse cases of ../shared/cases/bugs (pc-*): each expected.md item as a test.

Motion requirements of those cases (e.g. the pivot foot staying planted) belong to the motion
compiler's tests; here are the parser's parts.
"""

from __future__ import annotations

import pytest

from lang_shared import shared_path
from posecode_ssg.language import parse


def _parse(folder: str, name: str):
    path = shared_path("cases", "bugs", folder, name)
    return parse(path.read_bytes().decode("utf-8"))


# ------------------------------------------------------------------ pc-closed-vocabulary

@pytest.mark.parametrize("name, line, word, allowed", [
    ("bad-action.posecode", 5, "bend", None),
    ("bad-start-pose.posecode", 3, "kneeling", "neutral, standing, first-position"),
    ("bad-prop.posecode", 3, "bench", "chair, wall, bar, box, dip-bars"),
    ("bad-timing.posecode", 4, "smooth", "flow, settle, drive, snap, linear"),
    ("bad-kind.posecode", 1, "dance", "exercise, stretch, posture"),
])
def test_closed_vocabulary_rejected_with_line_word_and_allowed_values(name, line, word, allowed):
    r = _parse("pc-closed-vocabulary", name)
    assert r.ir is None
    # a single step whose mode is unknown does not count as a step: a no-steps error on line 1
    # explains that, next to the error on the word itself
    errors = [e for e in r.errors if e.code != "no-steps"]
    assert [e.line for e in errors] == [line]
    assert r.errors[0] is errors[0]  # the error on the word is the first one shown (the verdict follows)
    assert f'"{word}"' in errors[0].message
    if allowed:
        assert allowed in errors[0].message


def test_bend_is_not_repaired_to_flex():
    r = _parse("pc-closed-vocabulary", "bad-action.posecode")
    assert r.errors[0].code == "unknown-action" and r.ir is None


def test_hold_neutral_takes_no_angle():
    r = _parse("pc-closed-vocabulary", "bad-hold.posecode")
    assert r.ir is None and [(e.line, e.code) for e in r.errors] == [(6, "bad-hold")]
    assert "no angle" in r.errors[0].message


def test_unindented_child_rejected_not_attached():
    r = _parse("pc-closed-vocabulary", "bad-indent.posecode")
    assert r.ir is None and [(e.line, e.code) for e in r.errors] == [(4, "step-child-not-indented")]
    assert "indented beneath" in r.errors[0].message


def test_control_ok_compiles_clean_with_knees_at_40():
    r = _parse("pc-closed-vocabulary", "control-ok.posecode")
    assert r.errors == [] and r.warnings == []
    bend = r.ir.phases[0]
    assert bend.name == "Bend"
    knees = {t.bone_id: t.euler[0] for t in bend.targets}
    assert knees == {"knee_left": 40, "knee_right": 40}  # knee flexion is +X (§3.1)


def test_markdown_page_error_at_absolute_line_9():
    from posecode_ssg.checking import check_file

    (doc,) = check_file(shared_path("cases", "bugs", "pc-closed-vocabulary", "page.md"))
    assert doc.fence_line == 5
    assert [(e.line, e.code) for e in doc.result.errors] == [(9, "unknown-action")]
    assert "flx" in doc.result.errors[0].message


# ---------------------------------------------------------- pc-contact-family-conflicts

@pytest.mark.parametrize("name, lines, code", [
    ("pin-and-lock.posecode", {8, 9}, "pin-with-ground-lock"),
    ("two-pins.posecode", {6}, "multiple-pins"),
    ("undeclared-prop.posecode", {5}, "reach-undeclared-prop"),
    ("grip-floor.posecode", {5}, "grip-bad-anchor"),
    ("pin-body-landmark.posecode", {5}, "pin-body-anchor"),
    ("reach-self.posecode", {4}, "reach-own-joint"),
])
def test_contact_conflicts_rejected_with_the_rule_named(name, lines, code):
    r = _parse("pc-contact-family-conflicts", name)
    assert r.ir is None
    assert [e.code for e in r.errors] == [code]
    assert r.errors[0].line in lines
    assert "syntax error" not in r.errors[0].message


def test_valid_hang_grip_expands_to_two_sided_contacts_plus_reach():
    r = _parse("pc-contact-family-conflicts", "valid-hang.posecode")
    assert r.errors == [] and r.warnings == []
    hang = next(p for p in r.ir.phases if p.name == "Hang")
    assert [(g.effector, g.target) for g in hang.grips] == [
        ("hand_left", "bar_left"), ("hand_right", "bar_right")]
    assert [(c.effector, c.target) for c in hang.reaches] == [("foot_left", "floor")]


# ------------------------------------------------------------ pc-ground-lock-effectors

def test_ground_lock_typo_and_unsupported_rejected_quoting_the_word():
    r = _parse("pc-ground-lock-effectors", "typo.posecode")
    assert r.ir is None and [e.line for e in r.errors] == [8] and "foot_rigth" in r.errors[0].message
    r = _parse("pc-ground-lock-effectors", "unsupported.posecode")
    assert r.ir is None and [e.line for e in r.errors] == [6] and '"knees"' in r.errors[0].message


def test_ground_lock_aliases_normalise():
    r = _parse("pc-ground-lock-effectors", "aliases.posecode")
    assert r.errors == [] and r.warnings == []
    assert [p.ground_lock for p in r.ir.phases] == [
        ["foot_right"], ["foot_left", "hand_right"], ["feet"]]


def test_pivot_keeps_right_foot_lock_and_turns():
    r = _parse("pc-ground-lock-effectors", "pivot.posecode")
    assert r.errors == []
    assert [p.ground_lock for p in r.ir.phases] == [["foot_right"], ["foot_right"]]
    assert [p.turn_deg for p in r.ir.phases] == [70, 180]


# ----------------------------------------------------------- pc-legacy-timing-aliases

def test_legacy_aliases_map_and_only_hint():
    legacy = _parse("pc-legacy-timing-aliases", "legacy.posecode")
    canonical = _parse("pc-legacy-timing-aliases", "canonical.posecode")
    assert legacy.errors == [] and legacy.warnings == []
    assert [p.easing for p in legacy.ir.phases] == ["drive", "settle", "settle"]
    assert legacy.to_dict()["ir"] == canonical.to_dict()["ir"]
    assert [(h.line, h.code) for h in legacy.hints] == [(4, "legacy-easing"), (6, "legacy-easing"),
                                                         (8, "legacy-easing")]


def test_all_canonical_modes_kept():
    r = _parse("pc-legacy-timing-aliases", "all-modes.posecode")
    assert [p.easing for p in r.ir.phases] == ["flow", "settle", "drive", "snap", "linear"]
    assert r.hints == []
