"""Solver-backed fix proposals (issue 26 item 3, posecode_ssg/motion/fixes.py): each proposal is
applied here by an independent splice of its edits, re-parsed and re-solved, and what it claims is
measured on that solve (the reach's residual, the feet's levelling reports, the hinge the IR
holds), beside the contract (code, line, edits on the 5° lattice inside the range of motion), the
solve bound (counted by a monkeypatched counter), and ``check``'s hints."""

from __future__ import annotations

import json

import pytest

import posecode_ssg.motion.diagnostics as kin_diag
from posecode_ssg.cli import main
from posecode_ssg.language import parse
from posecode_ssg.language.rom import LIMITS
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.motion.fixes import Fix, TextEdit, apply_edits, propose_fixes
from posecode_ssg.motion.rig import SOLVER
from posecode_ssg.motion.solve import solve_keyframes

#: a step-up: standing on the right foot, the left foot reaches for the box top from a knee bent
#: back under the body; CCD settles 23 cm short (the reach's line is 10)
STEP_UP = """posecode exercise "Step-up"
  rig humanoid
  prop box
  pose start = standing

  step "Foot up" 1s settle:
    hip_left: flex 20
    knee_left: flex 90
    pin: foot_right floor
    reach: foot_left box

  step "Down" 1s settle:
    hip_left: flex 0
    knee_left: flex 0
    ground-lock: feet
"""

#: a seated forward fold: the seated start pose's hips carry 90° of flexion, so a hinge of 55
#: would compose to 145° at the hip and is clamped to 45° (spec §4), line 6
SEATED = """posecode stretch "Seated forward fold"
  rig humanoid
  pose start = seated

  step "Fold" 3s settle:
    pelvis: hinge 55
    spine: flex 20
    shoulders: flex 90

  step "Sit tall" 2s settle:
    pelvis: hinge 0
    spine: flex 0
    shoulders: flex 0
"""

#: a squat too deep for the ankles: both heels lift (the step's line is 5)
SQUAT = """posecode exercise "Deep squat"
  rig humanoid
  pose start = standing

  step "Sink" 2s settle:
    hips: flex 60
    knees: flex 100
    pelvis: hinge 20
    shoulders: flex 80
    ground-lock: feet

  step "Stand" 1.5s settle:
    hips: flex 0
    knees: flex 0
    pelvis: hinge 0
    shoulders: flex 0
    ground-lock: feet
"""

#: a clean squat (no kinematic warning)
CLEAN = """posecode exercise "Squat"
  rig humanoid
  pose start = standing

  step "Down" 1.5s settle:
    hips: flex 70
    knees: flex 80
    ankles: dorsiflex 15
    pelvis: hinge 20
    ground-lock: feet

  step "Up" 1.5s settle:
    hips: flex 0
    knees: flex 0
    ankles: dorsiflex 0
    pelvis: hinge 0
    ground-lock: feet
"""

#: a sideways step on one planted foot: its sole rolls onto its edge (travel, not an angle, is the
#: cause: no authored angle fixes it) — the search spends its budget and proposes nothing
SIDE_STEP = """posecode exercise "Side step"
  rig humanoid
  pose start = standing

  step "Step out" 0.8s flow:
    hip_left: abduct 16
    travel: 0.3 0
    pin: foot_right floor
    reach: foot_left floor

  step "Close" 0.8s flow:
    hip_left: abduct 0
    travel: 0 0
    pin: foot_left floor
    reach: foot_right floor
"""


def splice(source: str, edits: list[TextEdit]) -> str:
    """The contract's edits made independently of fixes.py: per line, right to left."""
    lines = source.split("\n")
    for e in sorted(edits, key=lambda e: (e.line, e.start), reverse=True):
        text = lines[e.line - 1]
        lines[e.line - 1] = text[:e.start] + e.new_text + text[e.end:]
    return "\n".join(lines)


def problems(source: str) -> tuple[list, list]:
    """(parser warnings, kinematic warnings) of a document that must parse."""
    r = parse(source)
    assert r.errors == [] and r.ir is not None
    return r.warnings, [d for d in kinematic_diagnostics(compile_ir(r.ir)) if d.severity == "warning"]


def joint_values(source: str, phase: int) -> dict[str, tuple[float, float, float]]:
    return {t.bone_id: t.euler for t in parse(source).ir.phases[phase].targets}


def assert_lattice(before: str, after: str, phase: int) -> None:
    """Every angle the fix changed moved by a multiple of 5° and stays inside its ROM box."""
    from posecode_ssg.language.rom import rom_box

    old, new = joint_values(before, phase), joint_values(after, phase)
    changed = 0
    for bone, e in new.items():
        base = old.get(bone)
        for axis in range(3):
            if base is not None and abs(e[axis] - base[axis]) < 1e-9:
                continue
            changed += 1
            lo, hi = rom_box(bone)["xyz"[axis]]
            assert lo <= e[axis] <= hi
            if base is not None:
                assert abs((e[axis] - base[axis]) / 5.0 - round((e[axis] - base[axis]) / 5.0)) < 1e-9
    assert changed >= 1


def count_solves(monkeypatch) -> list[int]:
    """Count keyframe solves (the kinematic diagnostics' own solve, one per compiled program)."""
    calls = [0]
    real = kin_diag.solve_keyframes

    def counting(program):
        calls[0] += 1
        return real(program)

    monkeypatch.setattr(kin_diag, "solve_keyframes", counting)
    return calls


def test_step_up_reach_to_box_gets_a_fix_that_solves_clean():
    _w, kin = problems(STEP_UP)
    assert [(d.code, d.line) for d in kin] == [("kinematic-reach-short", 10)]
    fixes = propose_fixes(STEP_UP)
    assert len(fixes) == 1
    fix = fixes[0]
    assert isinstance(fix, Fix) and (fix.code, fix.line) == ("kinematic-reach-short", 10)
    assert fix.message.endswith("puts foot_left on the box") and fix.message.startswith("`")
    edited = splice(STEP_UP, fix.edits)
    assert apply_edits(STEP_UP, fix.edits) == edited
    warnings, kin = problems(edited)
    assert warnings == [] and kin == []
    # the residual measured on a fresh solve of the edited document
    program = compile_ir(parse(edited).ir)
    reach = [c for c in solve_keyframes(program).phases[0].contacts if c.kind == "reach"]
    assert len(reach) == 1 and reach[0].residual <= float(SOLVER["reachShortReport"])
    assert_lattice(STEP_UP, edited, 0)
    # every joint line the message names is in the edited step
    for said in fix.message.split("`")[1::2]:
        assert any(ln.strip() == said for ln in edited.split("\n")[5:11])


def test_seated_hinge_clamped_by_the_composed_limit_gets_a_fix():
    warnings, _kin = problems(SEATED)
    assert [(d.code, d.line, d.extra["joint"], d.extra["clamped"]) for d in warnings] == [("rom-clamp", 6, "pelvis", 45)]
    fixes = propose_fixes(SEATED)
    assert [(f.code, f.line) for f in fixes] == [("rom-clamp", 6)]
    assert "`pelvis: hinge 55`" in fixes[0].message and fixes[0].message.startswith("`hips: flex ")
    edited = splice(SEATED, fixes[0].edits)
    warnings, kin = problems(edited)
    assert warnings == [] and kin == []
    assert joint_values(edited, 0)["pelvis"][0] == 55.0   # the hinge as authored, not clamped
    hip = -joint_values(edited, 0)["hip_left"][0]
    assert hip + 55.0 <= LIMITS["hip"]["flex"]   # the composed hip angle inside the hip's range
    assert hip % 5 == 0   # from the carried 90°, on the 5° lattice
    # the line is added to the step, indented like it, after its last joint line
    assert fixes[0].edits == [TextEdit(9, 0, 0, f"    hips: flex {hip:.0f}\n")]


def test_foot_that_cannot_stay_flat_gets_a_fix():
    _w, kin = problems(SQUAT)
    assert sorted((d.code, d.line, d.extra["foot"]) for d in kin) == [
        ("kinematic-foot-flat", 5, "foot_left"), ("kinematic-foot-flat", 5, "foot_right")]
    fixes = propose_fixes(SQUAT)
    assert [(f.code, f.line) for f in fixes] == [("kinematic-foot-flat", 5)] * 2
    assert {f.message.rsplit(" keeps ", 1)[1] for f in fixes} == {"foot_left flat", "foot_right flat"}
    for fix in fixes:
        edited = splice(SQUAT, fix.edits)
        warnings, kin = problems(edited)
        assert warnings == [] and kin == []
        sol = solve_keyframes(compile_ir(parse(edited).ir))
        assert all(ph.feet == [] and ph.rolled == [] for ph in sol.phases)   # both soles levelled
        assert_lattice(SQUAT, edited, 0)
        # the smallest change: the knees 5° back towards the author's 100 are not clean
        changed = [e for e in fix.edits if e.line == 7]
        if changed:
            knees = float(changed[0].new_text)
            closer = edited.replace(f"knees: flex {knees:g}", f"knees: flex {knees + 5:g}", 1)
            assert knees < 100 and any(d.code == "kinematic-foot-flat" for d in problems(closer)[1])


def test_clean_document_gets_no_proposal_for_one_solve(monkeypatch):
    calls = count_solves(monkeypatch)
    assert propose_fixes(CLEAN) == []
    assert calls[0] == 1


def test_unfixable_and_broken_documents_get_nothing():
    assert propose_fixes(SIDE_STEP) == []
    assert propose_fixes('posecode exercise "Broken"\n  step "A" 1s setle:\n') == []
    assert propose_fixes("") == []
    assert propose_fixes(STEP_UP, max_solves=0) == []


def test_internal_failure_returns_nothing(monkeypatch):
    def boom(program):
        raise RuntimeError("solver failure")

    monkeypatch.setattr(kin_diag, "solve_keyframes", boom)
    assert propose_fixes(STEP_UP) == []


@pytest.mark.parametrize("budget", [1, 4, 12, 200])
def test_never_more_solves_than_the_budget(monkeypatch, budget):
    calls = count_solves(monkeypatch)
    fixes = propose_fixes(SQUAT, max_solves=budget)
    assert 1 <= calls[0] <= budget
    calls[0] = 0
    assert propose_fixes(SIDE_STEP, max_solves=budget) == []
    assert 1 <= calls[0] <= budget
    monkeypatch.undo()
    for fix in fixes:   # a fix found on a tight budget is still clean
        warnings, kin = problems(splice(SQUAT, fix.edits))
        assert warnings == [] and kin == []


def test_deterministic():
    assert propose_fixes(STEP_UP) == propose_fixes(STEP_UP)


def run_check(capsys, *argv):
    code = main(["check", *map(str, argv)])
    return code, capsys.readouterr().out


def test_check_text_and_json_carry_the_proposal(capsys, tmp_path):
    f = tmp_path / "step-up.posecode"
    f.write_text(STEP_UP, "utf-8")
    message = propose_fixes(STEP_UP)[0].message
    code, out = run_check(capsys, f)
    assert code == 0
    assert f"{f}:10:5: warning[kinematic-reach-short]: foot_left cannot reach box" in out
    assert f"; this works: {message}" in out
    code, out = run_check(capsys, "--format", "json", f)
    (k,) = json.loads(out)[0]["kinematic"]
    assert k["code"] == "kinematic-reach-short" and k["hint"].endswith(f"; this works: {message}")
    # the composed clamp: a parser warning, whose hint is the proposal alone
    s = tmp_path / "seated.posecode"
    s.write_text(SEATED, "utf-8")
    (w,) = json.loads(run_check(capsys, "--format", "json", s)[1])[0]["warnings"]
    assert w["code"] == "rom-clamp" and w["hint"] == f"this works: {propose_fixes(SEATED)[0].message}"


def test_check_finds_the_fence_line_of_a_markdown_page(capsys, tmp_path):
    page = tmp_path / "squat.md"
    page.write_text("# Squat\n\nText.\n\n```posecode\n" + SQUAT + "```\n", "utf-8")
    _code, out = run_check(capsys, "--format", "json", page)
    docs = [d for d in json.loads(out) if "fence_line" in d]
    assert len(docs) == 1 and docs[0]["fence_line"] == 5
    flat = [k for k in docs[0]["kinematic"] if k["code"] == "kinematic-foot-flat"]
    assert len(flat) == 2 and all(k["line"] == 10 for k in flat)
    assert all("; this works: `knees: flex" in k["hint"] and k["foot"] in k["hint"] for k in flat)


def test_build_compile_and_default_add_kinematics_never_search(monkeypatch):
    import posecode_ssg.motion.fixes as fixes_module
    from posecode_ssg.checking import CheckedDocument, add_kinematics
    from posecode_ssg.language.parser import split_lines
    from posecode_ssg.site.figures import compile_figure

    def forbidden(*_a, **_k):
        raise AssertionError("the fix search ran")

    monkeypatch.setattr(fixes_module, "_fix_pairs", forbidden)
    monkeypatch.setattr(fixes_module, "fix_pairs", forbidden)
    figure = compile_figure(STEP_UP)
    assert figure.diagnostics is not None
    doc = CheckedDocument("x.posecode", None, parse(STEP_UP), split_lines(STEP_UP), source=STEP_UP)
    add_kinematics(doc)   # compile and eval: no fixes
    assert [k.code for k in doc.kinematic] == ["kinematic-reach-short"]
    assert "this works" not in (doc.kinematic[0].hint or "")


def test_two_reaches_on_one_line_get_a_fix_each():
    """``reach: hands floor`` is two reaches on one line: each diagnostic has its own fix, told
    apart by its effector; standing, the hands reach the floor only by folding the trunk."""
    source = ('posecode exercise "Floor reach"\n  rig humanoid\n  pose start = standing\n\n'
              '  step "Reach" 1s settle:\n    pelvis: hinge 30\n    reach: hands floor\n    ground-lock: feet\n')
    _w, kin = problems(source)
    assert [(d.code, d.line) for d in kin] == [("kinematic-reach-short", 7)] * 2
    fixes = propose_fixes(source)
    assert [(f.code, f.line) for f in fixes] == [("kinematic-reach-short", 7)] * 2
    assert [f.message.rsplit(" puts ", 1)[1] for f in fixes] == ["hand_left on the floor", "hand_right on the floor"]
    edited = splice(source, fixes[0].edits)
    assert problems(edited) == ([], [])
    sol = solve_keyframes(compile_ir(parse(edited).ir))
    assert all(c.residual <= float(SOLVER["reachShortReport"]) for c in sol.phases[0].contacts)
    assert joint_values(edited, 0)["pelvis"][0] > 30   # a deeper fold, inside the hinge's 120°
