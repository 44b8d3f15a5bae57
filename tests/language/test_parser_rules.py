"""Unit tests per rule family of the Posecode v0.4 parser (spec §1–§5, §7).

Expected values come from the spec text, the sign table of kinematics-reference §3.1 and the
limits of spec §4; each test builds a small document around one rule.
"""

from __future__ import annotations

import json
import re

import pytest

from posecode_ssg.language import parse
from posecode_ssg.language.diagnostics import CODE_STAGE


def doc(*children: str, top: tuple[str, ...] = (), header='posecode exercise "T"',
        step='step "S" 1s flow:') -> str:
    lines = [header, *("  " + t for t in top), "  " + step, *("    " + c for c in children)]
    return "\n".join(lines) + "\n"


def codes(result) -> list[tuple[int, str]]:
    return [(e.line, e.code) for e in result.errors]


def targets(result, phase=0) -> dict[str, dict]:
    return {t["boneId"]: t for t in result.to_dict()["ir"]["phases"][phase]["targets"]}


# ---------------------------------------------------------------------------------- API shape


def test_result_shape_and_json_roundtrip():
    r = parse(doc("knees: flex 40"))
    d = r.to_dict()
    assert set(d) == {"ir", "errors", "warnings", "hints"}
    json.dumps(d)  # JSON-ready
    assert d["ir"]["version"] == "0.4" and d["ir"]["rig"] == "humanoid"
    assert d["ir"]["props"] == [] and d["ir"]["repeat"] == 1
    assert "avatar" not in d["ir"] and "startPose" not in d["ir"] and "clip" not in d["ir"]


def test_ir_from_dict_roundtrip():
    from posecode_ssg.language.ir import IR

    r = parse(doc("knees: flex 40", "cue \"x\"", "travel: 1 2", "turn: 30",
                  top=("prop bar", "avatar avatar3", "clip \"c\"", "pose start = seated:",
                       "  elbows: flex 10")))
    assert r.errors == []
    d = r.ir.to_dict()
    assert IR.from_dict(d).to_dict() == d


def test_source_lines_kept_on_ir_nodes():
    r = parse(doc("knees: flex 40", "ground-lock: feet"))
    phase = r.ir.phases[0]
    assert phase.line == 2 and phase.targets[0].line == 3 and phase.ground_lock_line == 4


@pytest.mark.parametrize("text", ["", "\n\n", "   ", "\ufeff", "# c\n// d\n"])
def test_empty_document(text):
    r = parse(text)
    assert r.ir is None and codes(r) == [(1, "empty-document")]


def test_messages_of_known_kinds_match_reference_patterns():
    """Our messages start like the reference's, so error-kinds.json classifies them as our code."""
    from lang_shared import shared_path

    kinds = json.loads(shared_path("conformance", "error-kinds.json").read_text("utf-8"))["kinds"]
    pattern = {k["kind"]: re.compile(k["pattern"]) for k in kinds}
    src = "\n".join([
        'posecode warmup ""', "rig", "  rig robot", "  prop", "  prop bench", "  avatar x9",
        "  clip", "  pose start standing", "  pose start = lunge", "  pose start = supine",
        "  repeat 0", "  cue \"x\"", "  knees: flex 3", '  step "A" 1s smooth:',
        "    ground-lock:", "    ground-lock: head", "    ground-lock: feet 3", "    reach: x",
        "    pin: x", "    grip: x", "    turn: x", "    travel: 1", "    cue 3", "    knees: 4",
        "    knees: hold", "    toes: flex 1", "    knees: bend 1", "    knees: abduct 3",
        "    reach: pelvis floor", "    reach: hand_left wrist_left", "    reach: hand_left seat",
        "    reach: hand_left moon", "    reach: palm floor", "    pin: heel floor",
        "    pin: foot_left knee_left", "    pin: foot_left seat", "    pin: foot_left moon",
        "    pin: foot_left floor", "    grip: foot_left bar", "    grip: paw bar",
        "    grip: hand_left floor", "    grip: hands bar_left", "    grip: hand_left bar_right",
        '  step "B" 0s flow:', "    pin: knee_left floor", "    ground-lock: feet",
        "    grip: hands bar", "  prop bar", "     elbows: flex 1", "   knees: flex 1",
        "°",
    ])
    r = parse(src)
    seen = set()
    for e in r.errors:
        if e.code in pattern:
            assert pattern[e.code].search(e.message), (e.code, e.message)
            seen.add(e.code)
    assert len(seen) >= 40, sorted(set(pattern) - seen)


def test_every_error_code_has_a_stage():
    r = parse("posecode x \"\"\n  rig z\n  step \"a\" 1 q:\n  knees: flex 1\n°\n")
    for e in r.errors:
        assert e.code in CODE_STAGE, e.code


# ---------------------------------------------------------------------- lines and characters


def test_crlf_tabs_trailing_spaces_bom():
    plain = doc("knees: flex 40", "elbows: flex 10")
    variants = [
        plain.replace("\n", "\r\n"),
        "\ufeff" + plain,
        plain.replace("\n", "   \n"),
        plain.replace("flex 40", "flex\t40"),
    ]
    expected = parse(plain).to_dict()
    for v in variants:
        assert parse(v).to_dict() == expected


def test_bom_does_not_shift_columns_of_line_1():
    r = parse('\ufeffposecode dance "X"\n  step "a" 1s flow:\n    knees: flex 1\n')
    assert [(e.line, e.column, e.code) for e in r.errors] == [(1, 10, "unknown-kind")]


def test_unicode_line_separators_are_not_line_breaks():
    # inside a string U+2028/U+2029 are ordinary characters of the cue
    r = parse(doc('cue "one\u2028two\u2029three"', "knees: flex 10"))
    assert r.errors == [] and r.ir.phases[0].cue == "one\u2028two\u2029three"
    # outside a string they separate tokens like a space: the line stays one line
    r = parse(doc("knees:\u2028flex\u202910", "elbows: flex 5\u2028"))
    assert r.errors == [] and len(r.ir.phases[0].targets) == 4
    r = parse(doc("knees: flex 10\u2028elbows: flex 5"))
    assert codes(r) == [(3, "bad-joint-target")]


def test_unicode_spaces_count_as_indentation_characters():
    src = 'posecode exercise "X"\n\u00a0\u00a0step "S" 1s flow:\n\u2003\u2003\u2003\u2003knees: flex 1\n'
    assert parse(src).errors == []


def test_lone_cr_is_not_a_line_break():
    r = parse(doc("knees: flex 10\relbows: flex 5"))
    assert codes(r) == [(3, "bad-joint-target")]
    r = parse(doc("knees: flex 10") + "  step \"B\" 1s flow:\r")  # final CR without LF
    assert r.errors == []


def test_comments_hash_and_slashes_inline_and_whole_line():
    src = doc("# whole line", "knees: flex 40 # trailing", "// slashes", "elbows: flex 10 // too",
              'cue "keep # and // inside"')
    r = parse(src)
    assert r.errors == []
    assert set(targets(r)) == {"knee_left", "knee_right", "elbow_left", "elbow_right"}
    assert r.ir.phases[0].cue == "keep # and // inside"


def test_unexpected_character_column_and_message():
    r = parse(doc("elbows: flex 90°"))
    assert [(e.line, e.column, e.code) for e in r.errors] == [(3, 20, "unexpected-character")]
    assert "°" in r.errors[0].message and r.errors[0].hint


def test_unterminated_string():
    r = parse(doc('cue "never closed'))
    assert codes(r) == [(3, "unexpected-character")]
    assert "unterminated" in r.errors[0].message


def test_strings_have_no_escapes():
    r = parse(doc(r'cue "C:\path\to"'))
    assert r.ir.phases[0].cue == "C:\\path\\to"
    r = parse(doc(r'cue "say \"down\""'))  # the string ends at the second quote
    assert r.ir is None


def test_number_forms():
    assert targets(parse(doc("knees: flex 40.5")))["knee_left"]["euler"]["x"] == 40.5
    for bad in ("knees: flex .5", "knees: flex 5.", "knees: flex +5"):
        assert codes(parse(doc(bad))) == [(3, "unexpected-character")], bad


# --------------------------------------------------------------------------- header and top level


def test_header_kinds_and_unknown_kind_lists_allowed():
    for kind in ("exercise", "stretch", "posture"):
        assert parse(doc("knees: flex 1", header=f'posecode {kind} "N"')).ir.kind == kind
    r = parse(doc("knees: flex 1", header='posecode warmup "N"'))
    assert codes(r) == [(1, "unknown-kind")]
    assert '"warmup"' in r.errors[0].message and "exercise, stretch, posture" in r.errors[0].message


@pytest.mark.parametrize("header", ['posecode exercise', 'posecode exercise Squat',
                                    'exercise "Squat"', 'posecode exercise "A" "B"',
                                    '  posecode exercise "A"'])
def test_bad_header(header):
    r = parse(doc("knees: flex 1", header=header))
    assert (1, "bad-header") in codes(r) and r.ir is None


def test_header_after_comments_and_blank_lines():
    r = parse("# intro\n\n" + doc("knees: flex 1"))
    assert r.errors == [] and r.ir.phases[0].line == 4


def test_empty_name_and_no_steps_reported_together():
    r = parse('posecode stretch ""\n  rig humanoid\n')
    assert sorted(codes(r)) == [(1, "empty-name"), (1, "no-steps")]


def test_rig_avatar_prop_clip():
    r = parse(doc("knees: flex 1", top=("rig humanoid", "avatar avatar2", "prop chair",
                                        "prop wall", "prop chair", 'clip "take_1"')))
    d = r.to_dict()["ir"]
    assert d["avatar"] == "avatar2" and d["props"] == ["chair", "wall", "chair"]
    assert d["clip"] == "take_1"


@pytest.mark.parametrize("line, code", [
    ("rig quadruped", "unknown-rig"), ("rig", "bad-rig"), ("avatar avatar4", "unknown-avatar"),
    ("prop bench", "unknown-prop"), ("prop", "bad-prop"), ("clip take", "bad-clip"),
    ("pose start = lunge", "unknown-start-pose"), ("pose start standing", "bad-pose"),
    ("pose standing", "bad-pose"), ("repeat 0", "bad-repeat"), ("repeat 2.5", "bad-repeat"),
    ("repeat -3", "bad-repeat"), ("repeat three", "bad-repeat"), ("repeat", "bad-repeat"),
])
def test_top_level_directive_errors(line, code):
    r = parse(doc("knees: flex 1", top=(line,)))
    assert codes(r) == [(2, code)], r.errors


def test_closed_list_messages_quote_word_and_list_values():
    r = parse(doc("knees: flex 1", top=("prop bnch",)))
    e = r.errors[0]
    assert '"bnch"' in e.message and "chair, wall, bar, box, dip-bars" in e.message
    assert e.hint == "did you mean `bench`?" or e.hint is None or "box" in e.hint


def test_repeat_last_wins_anywhere_at_top_level():
    src = doc("knees: flex 1", top=("repeat 2",)) + "  repeat 5\n"
    assert parse(src).ir.repeat == 5


def test_prop_declared_after_step_counts():
    src = doc("reach: hand_left seat") + "  prop chair\n"
    assert parse(src).errors == []


def test_outside_step_directives():
    src = 'posecode exercise "X"\n  cue "a"\n  knees: flex 3\n  ground-lock: feet\n' \
          '  step "S" 1s flow:\n    knees: flex 1\n  repeat 2\n  turn: 90\n'
    assert codes(parse(src)) == [(2, "outside-step"), (3, "outside-step"),
                                 (4, "outside-step"), (8, "outside-step")]


def test_unknown_top_level_word_gets_a_suggestion():
    src = 'posecode exercise "X"\n  repet 3\n  step "S" 1s flow:\n    knees: flex 1\n'
    r = parse(src)
    # as in the reference, a line that is no directive reads as a (stray) joint target
    assert codes(r) == [(2, "outside-step")] and "`repeat`" in r.errors[0].hint


# ------------------------------------------------------------------------------- indentation


def test_top_level_indentation_rules():
    src = 'posecode exercise "X"\nrig humanoid\n  prop bar\n    avatar avatar1\n' \
          '  step "S" 1s flow:\n    knees: flex 1\n'
    assert codes(parse(src)) == [(2, "top-level-not-indented"), (4, "top-level-indent-mismatch")]


def test_step_child_indentation_rules():
    src = 'posecode exercise "X"\n  step "S" 1s flow:\n    knees: flex 1\n      elbows: flex 1\n' \
          '   hips: flex 1\n  neck: flex 1\nspine: flex 1\n'
    assert codes(parse(src)) == [(4, "step-child-indent-mismatch"),
                                 (5, "step-child-indent-mismatch"),
                                 (6, "step-child-not-indented"), (7, "step-child-not-indented")]


def test_tab_counts_as_one_character():
    src = 'posecode exercise "X"\n  step "S" 1s flow:\n\tknees: flex 1\n'
    assert codes(parse(src)) == [(3, "step-child-not-indented")]
    src = 'posecode exercise "X"\n\tstep "S" 1s flow:\n\t\tknees: flex 1\n'
    assert parse(src).errors == []


def test_unindented_child_is_not_repaired():
    src = 'posecode exercise "X"\n  step "S" 1s flow:\nknees: flex 1\n'
    r = parse(src)
    assert r.ir is None and codes(r) == [(3, "step-child-not-indented")]


def test_children_indentation_may_differ_between_steps():
    src = 'posecode exercise "X"\n  step "A" 1s flow:\n    knees: flex 1\n' \
          '  step "B" 1s flow:\n      knees: flex 2\n'
    assert parse(src).errors == []


# ------------------------------------------------------------------------------- steps, timing


def test_durations():
    for text, sec in (("0.25s", 0.25), ("1.5s", 1.5), ("12s", 12), ("2.0s", 2)):
        r = parse(doc("knees: flex 1", step=f'step "S" {text} flow:'))
        assert r.ir.phases[0].duration_sec == sec


@pytest.mark.parametrize("step, expected", [
    ('step "S" 0s flow:', [(2, "non-positive-duration")]),
    ('step "S" -1s flow:', [(2, "non-positive-duration")]),
    ('step "S" 2 flow:', [(1, "no-steps"), (2, "bad-step-header")]),
    ('step S 1s flow:', [(1, "no-steps"), (2, "bad-step-header")]),
    ('step "S" 1s flow', [(1, "no-steps"), (2, "bad-step-header")]),
    ('step "S" 1s smooth:', [(1, "no-steps"), (2, "unknown-timing-mode")]),
])
def test_step_header_errors(step, expected):
    assert sorted(codes(parse(doc("knees: flex 1", step=step)))) == expected


def test_timing_modes_and_legacy_aliases_with_hints():
    for mode in ("flow", "settle", "drive", "snap", "linear"):
        r = parse(doc("knees: flex 1", step=f'step "S" 1s {mode}:'))
        assert r.ir.phases[0].easing == mode and r.hints == []
    for alias, mode in (("ease-in", "drive"), ("ease-out", "settle"), ("ease-in-out", "settle")):
        r = parse(doc("knees: flex 1", step=f'step "S" 1s {alias}:'))
        assert r.ir.phases[0].easing == mode and r.warnings == [] and r.errors == []
        assert [(h.line, h.code) for h in r.hints] == [(2, "legacy-easing")]
    for wrong in ("ease", "ease-out-in", "Flow"):
        r = parse(doc("knees: flex 1", step=f'step "S" 1s {wrong}:'))
        # the error to fix comes first; the document verdict it causes follows it
        assert codes(r) == [(2, "unknown-timing-mode"), (1, "no-steps")]
        assert "line 2" in r.errors[1].message


def test_setle_did_you_mean():
    r = parse(doc("knees: flex 1", step='step "S" 1s setle:'))
    assert r.errors[0].code == "unknown-timing-mode" and r.errors[0].hint == "did you mean `settle`?"


def test_empty_step_is_a_hold_phase():
    src = doc("knees: flex 1") + '  step "Hold" 2s settle:\n'
    r = parse(src)
    assert r.errors == [] and r.ir.phases[1].targets == []


def test_cue_rules():
    r = parse(doc('cue "first"', "knees: flex 1", 'cue "second"'))
    assert r.ir.phases[0].cue == "second"
    r = parse(doc('cue ""', "knees: flex 1"))
    assert "cue" not in r.to_dict()["ir"]["phases"][0]
    for bad in ("cue", 'cue "a" "b"', "cue: \"a\"", "cue text"):
        assert codes(parse(doc(bad))) == [(3, "bad-cue")]


# -------------------------------------------------------------------------- joints and signs


def test_plural_groups_mirror_y_and_z_on_the_left():
    r = parse(doc("shoulders: abduct 80", "elbows: pronate 80", "hips: rotate-out 30",
                  "knees: flex 90", "ankles: dorsiflex 10"))
    t = targets(r)
    # kinematics-reference §3.1 worked values
    assert t["shoulder_left"]["euler"]["z"] == 80 and t["shoulder_right"]["euler"]["z"] == -80
    assert t["elbow_left"]["euler"]["y"] == -80 and t["elbow_right"]["euler"]["y"] == 80
    assert t["hip_left"]["euler"]["y"] == 30 and t["hip_right"]["euler"]["y"] == -30
    assert t["knee_left"]["euler"]["x"] == 90 and t["knee_right"]["euler"]["x"] == 90
    assert t["ankle_left"]["euler"]["x"] == -10 and t["ankle_right"]["euler"]["x"] == -10


def test_group_expansion_order_and_first_mention_order():
    r = parse(doc("knee_right: flex 10", "hips: flex 20", "knees: flex 30"))
    assert list(targets(r)) == ["knee_right", "hip_left", "hip_right", "knee_left"]


def test_forearms_alias_and_singular_forearm_rejected():
    r = parse(doc("forearms: pronate 40"))
    assert list(targets(r)) == ["elbow_left", "elbow_right"]
    r = parse(doc("forearm_left: pronate 40"))
    assert codes(r) == [(3, "unknown-joint")] and "elbow_left" in r.errors[0].hint


def test_fingers_groups_and_thumb_abduction():
    r = parse(doc("fingers_right: flex 50", "thumb_left: abduct 40"))
    t = targets(r)
    assert list(t)[:5] == ["thumb_right", "index_right", "middle_right", "ring_right", "pinky_right"]
    assert t["index_right"]["euler"]["x"] == -50
    assert t["thumb_left"]["euler"]["z"] == 40
    assert codes(parse(doc("index_left: abduct 10"))) == [(3, "unsupported-action")]
    assert codes(parse(doc("fingers: abduct 10"))) == [(3, "unsupported-action")]


def test_sparse_axes_and_merge():
    r = parse(doc("shoulders: flex 90", "shoulder_left: flex 45", "shoulders: abduct 20",
                  "elbows: flex 30", "elbows: extend 5"))
    t = targets(r)
    assert t["shoulder_left"]["euler"] == {"x": -45, "y": 0, "z": 20}
    assert t["shoulder_left"]["axes"] == ["x", "z"]
    assert t["elbow_right"]["euler"]["x"] == 5 and t["elbow_right"]["axes"] == ["x"]


def test_hold_neutral_resets_all_channels():
    r = parse(doc("shoulders: abduct 40", "shoulders: hold neutral", "knee_right: hold neutral",
                  "knee_right: flex 20"))
    t = targets(r)
    assert t["shoulder_left"] == {"boneId": "shoulder_left", "euler": {"x": 0, "y": 0, "z": 0},
                                  "axes": ["x", "y", "z"]}
    assert t["knee_right"]["euler"]["x"] == 20 and t["knee_right"]["axes"] == ["x", "y", "z"]


@pytest.mark.parametrize("line", ["knees: hold neutral 0", "knees: hold", "knees: hold still"])
def test_bad_hold(line):
    r = parse(doc(line))
    assert codes(r) == [(3, "bad-hold")]


def test_bad_hold_message_says_no_angle():
    r = parse(doc("wrist_left: hold neutral 0"))
    assert "no angle" in r.errors[0].message


@pytest.mark.parametrize("line, code", [
    ("toes: flex 30", "unknown-joint"), ("elbw_left: flex 30", "unknown-joint"),
    ("knees: bend 40", "unknown-action"), ("knees: flex", "bad-joint-target"),
    ("knees flex 40", "bad-joint-target"), ("knees: flex 40 50", "bad-joint-target"),
    ("knees: abduct 10", "unsupported-action"), ("wrists: pronate 10", "unsupported-action"),
    ("pelvis: flex 10", "unsupported-action"), ("hips: hinge 10", "unsupported-action"),
    ("chest: abduct 10", "unsupported-action"), ("shoulders: twist-left 10", "unsupported-action"),
])
def test_joint_target_errors(line, code):
    assert codes(parse(doc(line))) == [(3, code)]


def test_did_you_mean_joint_and_action():
    r = parse(doc("elbw_left: flex 30", "knees: flx 20", "knees: bend 20"))
    assert [e.hint for e in r.errors] == ["did you mean `elbow_left`?", "did you mean `flex`?",
                                         "did you mean `flex`?"]


def test_unsupported_action_lists_allowed_actions():
    r = parse(doc("knee_left: abduct 10"))
    assert "flex, extend" in r.errors[0].message and '"abduct"' in r.errors[0].message


def test_axial_rotate_is_a_hint_and_same_as_twist():
    a = parse(doc("spine: rotate-in 20", "neck: rotate-out 10"))
    b = parse(doc("spine: twist-left 20", "neck: twist-right 10"))
    assert a.to_dict()["ir"] == b.to_dict()["ir"]
    assert [(h.code, h.severity) for h in a.hints] == [("axial-rotate", "hint")] * 2
    assert a.warnings == [] and b.hints == []
    # on a shoulder or hip rotate-in/out is the anatomical action: no hint
    assert parse(doc("hips: rotate-in 20")).hints == []


# --------------------------------------------------------------------------- range of motion


def test_clamp_warning_record():
    r = parse(doc("knees: flex 500"))
    assert r.errors == []
    w = [x.to_dict() for x in r.warnings]
    assert [(x["line"], x["joint"], x["code"], x["severity"]) for x in w] == [
        (3, "knee_left", "rom-clamp", "warning"), (3, "knee_right", "rom-clamp", "warning")]
    assert w[0]["phase"] == "S" and w[0]["action"] == "flex"
    assert w[0]["requested"] == 500 and w[0]["clamped"] == 144
    assert w[0]["limit"] == {"min": 0, "max": 144}
    assert targets(r)["knee_left"]["euler"]["x"] == 144


def test_negative_angle_clamped_to_zero_with_warning():
    r = parse(doc("elbow_right: flex -20"))
    assert targets(r)["elbow_right"]["euler"]["x"] == 0
    assert [(w.extra["requested"], w.extra["clamped"]) for w in r.warnings] == [(-20, 0)]


def test_limits_at_the_boundary_do_not_warn():
    r = parse(doc("knees: flex 144", "shoulders: flex 180", "ankles: plantarflex 50",
                  "pelvis: hinge 0"))
    assert r.warnings == []


def test_hinge_yields_to_carried_hip_flexion():
    src = doc("hips: flex 110") + '  step "H" 1s flow:\n    pelvis: hinge 50\n'
    r = parse(src)
    assert r.ir.phases[1].targets[0].euler[0] == 25  # 135 - 110
    (w,) = r.warnings
    assert (w.line, w.extra["joint"], w.extra["clamped"], w.extra["limit"]["max"]) == (
        5, "pelvis", 25, 25)


def test_hip_yields_to_carried_hinge():
    src = doc("pelvis: hinge 80") + '  step "R" 1s flow:\n    hip_right: flex 90\n'
    r = parse(src)
    assert r.ir.phases[1].targets[0].euler[0] == -55
    (w,) = r.warnings
    assert (w.extra["joint"], w.extra["requested"], w.extra["clamped"]) == ("hip_right", 90, 55)


def test_hip_over_limit_under_hinge_gets_two_warnings():
    src = doc("pelvis: hinge 80") + '  step "R" 1s flow:\n    hip_left: flex 150\n'
    r = parse(src)
    recs = sorted((w.extra["clamped"], w.extra["limit"]["max"]) for w in r.warnings)
    assert recs == [(55, 55), (135, 135)]
    assert all(w.extra["requested"] == 150 for w in r.warnings)


def test_seated_start_pose_seeds_hip_flexion_for_the_coupling():
    src = doc("pelvis: hinge 60", top=("pose start = seated",))
    r = parse(src)
    assert r.ir.phases[0].targets[0].euler[0] == 45  # 135 - 90
    assert parse(doc("pelvis: hinge 60", top=("pose start = standing",))).warnings == []


def test_travel_clamped_silently_turn_kept():
    r = parse(doc("travel: 5 -4", "turn: -720"))
    p = r.to_dict()["ir"]["phases"][0]
    assert p["travel"] == {"x": 3, "z": -3} and p["turnDeg"] == -720 and r.warnings == []


def test_warnings_withheld_until_document_is_well_formed():
    # a syntax-stage error means the resolve stage (and its clamp warnings) is not reported
    r = parse(doc("knees: flex 500", "turn 3"))
    assert codes(r) == [(4, "bad-turn")] and r.warnings == []
    # a resolve-stage error keeps the warnings found
    r = parse(doc("knees: flex 500", "toes: flex 1"))
    assert codes(r) == [(4, "unknown-joint")] and len(r.warnings) == 2


# ------------------------------------------------------------------------------- start pose


def test_start_pose_one_line_and_block():
    r = parse(doc("knees: flex 1", top=("pose start = plank",)))
    assert r.to_dict()["ir"]["startPose"] == "plank"
    assert "startPoseOverrides" not in r.to_dict()["ir"]
    r = parse(doc("knees: flex 1", top=("pose start = standing:", "  shoulders: flex 20",
                                        "  elbow_left: flex 35", "  neck: hold neutral")))
    spo = r.to_dict()["ir"]["startPoseOverrides"]
    assert [t["boneId"] for t in spo] == ["shoulder_left", "shoulder_right", "elbow_left", "neck"]
    assert spo[2]["euler"]["x"] == -35


@pytest.mark.parametrize("block", [(), ("  # nothing to override yet",)])
def test_empty_start_pose_block_gives_no_overrides_key(block):
    """Spec §7: ``startPoseOverrides?`` is optional, and the reference omits it for a
    ``pose start = X:`` block without overrides; ``startPose`` is still set."""
    r = parse(doc("knees: flex 1", top=("pose start = standing:",) + block))
    assert r.ok, r.errors
    ir = r.to_dict()["ir"]
    assert ir["startPose"] == "standing"
    assert "startPoseOverrides" not in ir
    assert r.ir.start_pose_overrides is None


def test_start_pose_block_clamps_with_start_pose_phase_name():
    r = parse(doc("knees: flex 1", top=("pose start = standing:", "  knees: flex 170")))
    assert {w.extra["phase"] for w in r.warnings} == {"start pose"}


def test_start_pose_block_rejects_step_only_directives():
    r = parse(doc("knees: flex 1", top=("pose start = standing:", "  cue \"x\"",
                                        "  ground-lock: feet", "  travel: 1 1")))
    assert codes(r) == [(3, "outside-step"), (4, "outside-step"), (5, "outside-step")]


@pytest.mark.parametrize("second", ["pose start = supine", "pose start = supine:"])
def test_second_start_pose_is_an_error(second):
    r = parse(doc("knees: flex 1", top=("pose start = standing", second)))
    assert codes(r) == [(3, "duplicate-start-pose")]


def test_start_override_indentation():
    src = 'posecode exercise "X"\n  pose start = standing:\n  knees: flex 3\n' \
          '  step "S" 1s flow:\n    knees: flex 1\n'
    assert codes(parse(src)) == [(3, "start-override-not-indented")]
    src = 'posecode exercise "X"\n  pose start = standing:\n    knees: flex 3\n' \
          '     elbows: flex 3\n  step "S" 1s flow:\n    knees: flex 1\n'
    assert codes(parse(src)) == [(4, "start-override-indent-mismatch")]


# ------------------------------------------------------------------------------ ground-lock


def test_ground_lock_forms():
    cases = {
        "ground-lock: feet": ["feet"],
        "ground-lock: hands, feet": ["hands", "feet"],
        "ground-lock: forearms,feet": ["forearms", "feet"],
        "ground-lock: back": ["back"],
        "ground-lock: hand_right, elbow_left, foot_right": ["hand_right", "elbow_left", "foot_right"],
        "ground-lock: left foot": ["foot_left"],
        "ground-lock: right hand, left foot": ["hand_right", "foot_left"],
        "ground-lock: left forearm, right elbow": ["elbow_left", "elbow_right"],
        "ground-lock: hands and feet": ["hands", "feet"],
        "ground-lock: hands feet": ["hands", "feet"],
    }
    for line, expected in cases.items():
        r = parse(doc(line))
        assert r.errors == [] and r.ir.phases[0].ground_lock == expected, line


def test_ground_lock_second_line_replaces_first():
    r = parse(doc("ground-lock: feet", "knees: flex 3", "ground-lock: foot_left"))
    assert r.ir.phases[0].ground_lock == ["foot_left"]


@pytest.mark.parametrize("line, code", [
    ("ground-lock: head, hands", "unknown-ground-lock-effector"),
    ("ground-lock: knees", "unknown-ground-lock-effector"),
    ("ground-lock: foot_rigth", "unknown-ground-lock-effector"),
    ("ground-lock:", "empty-ground-lock"),
    ("ground-lock: and", "empty-ground-lock"),
    ("ground-lock: feet 3", "bad-ground-lock"),
    ("ground-lock feet", "bad-ground-lock"),
])
def test_ground_lock_errors(line, code):
    r = parse(doc(line))
    assert codes(r) == [(3, code)]


def test_ground_lock_typo_hint():
    assert parse(doc("ground-lock: foot_rigth")).errors[0].hint == "did you mean `foot_right`?"


# ------------------------------------------------------------------------ reach, pin, grip


def test_reach_expansion_and_targets():
    r = parse(doc("reach: hands wall", "reach: foot_left floor", "reach: fist_right ankle_left",
                  top=("prop wall",)))
    assert r.to_dict()["ir"]["phases"][0]["reaches"] == [
        {"effector": "hand_left", "target": "wall"}, {"effector": "hand_right", "target": "wall"},
        {"effector": "foot_left", "target": "floor"},
        {"effector": "fist_right", "target": "ankle_left"}]


def test_pin_grouped_yields_two_pins_and_counts_once():
    r = parse(doc("pin: forearms floor"))
    assert [(c.effector, c.target) for c in r.ir.phases[0].pins] == [
        ("elbow_left", "floor"), ("elbow_right", "floor")]


def test_grip_expands_to_sided_anchors():
    r = parse(doc("grip: hands bar", "reach: foot_left floor", top=("prop bar",)))
    assert r.to_dict()["ir"]["phases"][0]["grips"] == [
        {"effector": "hand_left", "anchor": "bar_left"},
        {"effector": "hand_right", "anchor": "bar_right"}]
    r = parse(doc("grip: hand_right bars", top=("prop dip-bars",)))
    assert r.to_dict()["ir"]["phases"][0]["grips"] == [
        {"effector": "hand_right", "anchor": "bars_right"}]


@pytest.mark.parametrize("lines, top, expected", [
    (("reach: pelvis floor",), (), [(3, "reach-pelvis")]),
    (("reach: hand_left wrist_left",), (), [(3, "reach-own-joint")]),
    (("reach: feet ankle_right",), (), [(3, "reach-own-joint")]),
    (("reach: hand_right seat",), (), [(3, "reach-undeclared-prop")]),
    (("reach: palm_left floor",), (), [(3, "unknown-reach-effector")]),
    (("reach: hand_right ceiling",), (), [(3, "unknown-reach-target")]),
    (("reach: hand_left",), (), [(3, "bad-reach")]),
    (("pin: heel_left floor",), (), [(3, "unknown-pin-effector")]),
    (("pin: foot_left ledge",), (), [(3, "unknown-pin-anchor")]),
    (("pin: hand_left knee_left",), (), [(3, "pin-body-anchor")]),
    (("pin: foot_right box",), (), [(3, "pin-undeclared-prop")]),
    (("pin: foot_left floor box",), (), [(3, "bad-pin")]),
    (("pin: foot_left floor", "pin: foot_right floor"), (), [(4, "multiple-pins")]),
    (("pin: knee_left floor", "ground-lock: foot_right"), (), [(3, "pin-with-ground-lock")]),
    (("ground-lock: feet", "pin: knee_left floor"), (), [(4, "pin-with-ground-lock")]),
    (("grip: hands bar",), (), [(3, "grip-undeclared-prop")]),
    (("grip: hands floor",), ("prop bar",), [(4, "grip-bad-anchor")]),
    (("grip: hands seat",), ("prop chair",), [(4, "grip-bad-anchor")]),
    (("grip: feet bar",), ("prop bar",), [(4, "grip-non-hand")]),
    (("grip: paws bar",), ("prop bar",), [(4, "unknown-grip-effector")]),
    (("grip: hands bar_left",), ("prop bar",), [(4, "grip-grouped-sided-anchor")]),
    (("grip: hand_left bar_right",), ("prop bar",), [(4, "grip-anchor-side-mismatch")]),
    (("grip: hands",), ("prop bar",), [(4, "bad-grip")]),
    (("grip: hands bar", "pin: pelvis floor"), ("prop bar",), [(4, "grip-with-pin")]),
    (("ground-lock: feet", "grip: hand_right bar"), ("prop bar",), [(5, "grip-with-ground-lock")]),
    (("turn: left",), (), [(3, "bad-turn")]),
    (("travel: 1",), (), [(3, "bad-travel")]),
])
def test_contact_errors(lines, top, expected):
    assert sorted(codes(parse(doc(*lines, top=top)))) == expected


def test_ground_lock_plus_reach_and_grip_plus_reach_are_fine():
    assert parse(doc("ground-lock: feet", "reach: hand_left floor")).errors == []
    assert parse(doc("grip: hands bar", "reach: foot_left floor", top=("prop bar",))).errors == []
    assert parse(doc("pin: knee_left floor", "reach: foot_right floor")).errors == []


# --------------------------------------------------------------------------- error recovery


def test_three_separate_mistakes_all_reported_with_positions_and_hints():
    src = ('posecode exercise "Three"\n  step "A" 1s setle:\n    elbw_left: flex 30\n'
           '    ground-lock: foot_rigth\n  step "B" 1s flow:\n    knees: flex 3\n')
    r = parse(src)
    got = [(e.line, e.column, e.code, e.hint) for e in r.errors]
    assert got == [
        (2, 15, "unknown-timing-mode", "did you mean `settle`?"),
        (3, 5, "unknown-joint", "did you mean `elbow_left`?"),
        (4, 18, "unknown-ground-lock-effector", "did you mean `foot_right`?"),
    ]


def test_errors_in_every_family_in_one_run():
    src = "\n".join([
        'posecode exercise "Many"', "  prop bnch", '  step "A" 1s flow:', "    knees: flex 90°",
        "    toes: flex 3", '  step "B" 0s flow:', "    reach: pelvis floor",
        '  step "C" 1s flow', "    knees: flex 1", "  repeat 0",
    ])
    r = parse(src)
    assert sorted(codes(r)) == [(2, "unknown-prop"), (4, "unexpected-character"),
                                (5, "unknown-joint"), (6, "non-positive-duration"),
                                (7, "reach-pelvis"), (8, "bad-step-header"), (10, "bad-repeat")]


def test_children_of_a_dropped_step_are_still_checked_but_not_attached():
    src = doc("toes: flex 3", step='step "S" 2 flow:')
    assert sorted(codes(parse(src))) == [(1, "no-steps"), (2, "bad-step-header"),
                                         (3, "unknown-joint")]


def test_diagnostic_columns_point_at_the_word():
    r = parse(doc("reach: hand_left moon"))
    e = r.errors[0]
    assert (e.line, e.column) == (3, 22)


def test_keyword_in_wrong_case_is_named_and_keeps_its_block():
    src = doc("knees: flex 1") + '  Step "B" 1s flow:\n    knees: flex 2\n'
    r = parse(src)
    assert codes(r) == [(4, "bad-step-header")]  # its child is not "outside of a step"
    assert "write `step`" in r.errors[0].hint


def test_missing_colon_after_a_joint_name():
    r = parse(doc("knees flex 30"))
    assert [(e.line, e.column, e.code) for e in r.errors] == [(3, 5, "bad-joint-target")]
    assert "put a `:` after `knees`" in r.errors[0].hint


def test_a_misspelt_prop_is_named_as_the_fix_of_the_contacts_that_need_it():
    """`prop walls` is an unknown prop (with its did-you-mean); the reach to the wall that then
    lacks its prop points back at that line instead of asking for a declaration already there."""
    text = ('posecode exercise "Wall reach"\n  rig humanoid\n  prop walls\n'
            '  step "Reach" 1s flow:\n    reach: hand_left wall\n')
    result = parse(text)
    codes = [(d.code, d.line) for d in result.errors]
    assert codes == [("unknown-prop", 3), ("reach-undeclared-prop", 5)], codes
    assert result.errors[0].hint == "did you mean `wall`?"
    assert result.errors[1].hint == "fix the prop on line 3: `prop wall`"
    # nothing like it declared: the usual advice
    other = parse(text.replace("prop walls", "prop chair"))
    assert [d.hint for d in other.errors] == ["add `prop wall` beneath the header"]


def test_a_line_of_a_known_digit_shape_reads_as_lark_reads_it(monkeypatch):
    """lexer._SHAPES: a new line that differs from a parsed one only in its digits, not their
    number (a new angle, duration, title or cue) takes the parsed line's tokens with its own text, without lark: the
    same ParseResult as a fresh parse, tokens of the same types, values and columns."""
    import posecode_ssg.language.lexer as P

    first = doc("knees: flex 51", 'cue "page 12"', header='posecode exercise "Drill 7-1"',
                step='step "Lower 3" 1.5s settle:')
    second = doc("knees: flex 98", 'cue "page 34"', header='posecode exercise "Drill 9-0"',
                 step='step "Lower 8" 2.0s settle:')   # the same digit shapes
    P._LINES.clear()
    P._SHAPES.clear()
    fresh = parse(second).to_dict()
    fresh_lines = dict(P._LINES)
    P._LINES.clear()
    P._SHAPES.clear()
    parse(first)
    P._LINES.clear()
    calls = []
    real = P._LARK.parse
    monkeypatch.setattr(P._LARK, "parse", lambda raw: calls.append(raw) or real(raw))
    assert parse(second).to_dict() == fresh
    assert calls == []   # every line's shape was known
    for raw, (indent, head, rule, toks, opens) in P._LINES.items():
        want = fresh_lines[raw]
        assert (indent, head, rule, opens) == (want[0], want[1], want[2], want[4])
        assert [(t.type, str(t), t.start_pos, t.end_pos, t.line, t.column, t.end_line, t.end_column) for t in toks] == \
            [(t.type, str(t), t.start_pos, t.end_pos, t.line, t.column, t.end_line, t.end_column) for t in want[3]]
