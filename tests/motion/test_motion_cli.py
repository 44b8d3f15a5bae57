"""``posecode-ssg compile``: summary, --json, --poster, diagnostics on stderr, exit status."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema
from helpers_motion import shared_path

from posecode_ssg.motion import SCHEMA_PATH


def _run(*args):
    return subprocess.run([sys.executable, "-m", "posecode_ssg", "compile", *args],
                          capture_output=True, text=True, timeout=60)


def test_compile_json_and_poster(tmp_path):
    src = shared_path("conformance", "examples", "squat.posecode")
    out = tmp_path / "squat.svg"
    r = _run(str(src), "--json", "--poster", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    assert doc["name"] == "Body-weight squat"
    assert ET.parse(out).getroot().tag.endswith("svg")


def test_compile_reports_kinematic_warnings_with_file_line_column(tmp_path):
    f = tmp_path / "reach.posecode"
    f.write_text('posecode exercise "Too far"\n  rig humanoid\n  pose start = standing\n'
                 '  step "Reach down" 1s settle:\n    reach: hand_left floor\n', encoding="utf-8")
    r = _run(str(f))
    assert r.returncode == 0                      # warnings do not fail
    assert f"{f}:5:5: warning[kinematic-reach-short]: hand_left cannot reach floor" in r.stderr
    assert "1 phase, loop 1 s (wrap 0 s)" in r.stdout


def test_compile_errors_and_usage(tmp_path):
    bad = tmp_path / "bad.posecode"
    bad.write_text('posecode exercise "Bad"\n  step "X" 1s flow:\n    elbw_left: flex 30\n', encoding="utf-8")
    r = _run(str(bad))
    assert r.returncode == 1 and "error[" in r.stderr
    assert _run(str(tmp_path / "missing.posecode")).returncode == 2


def test_compile_markdown_fence_reports_file_lines(tmp_path):
    md = tmp_path / "page.md"
    md.write_text('Intro\n\n```posecode\nposecode exercise "R"\n  rig humanoid\n  pose start = standing\n'
                  '  step "Down" 1s settle:\n    reach: hand_left floor\n```\n', encoding="utf-8")
    r = _run(str(md))
    assert r.returncode == 0
    assert f"{md}:8:5: warning[kinematic-reach-short]" in r.stderr


def test_compile_picks_a_fence_of_a_page_and_names_the_others(tmp_path):
    """Fresh-user trial: a page's second fence was never mentioned."""
    block = 'posecode exercise "{}"\n  rig humanoid\n  pose start = standing\n  step "Up" 1s drive:\n    shoulders: flex 90\n'
    md = tmp_path / "page.md"
    md.write_text(f"# Page\n\n```posecode\n{block.format('One')}```\n\n```posecode\n{block.format('Two')}```\n",
                  encoding="utf-8")
    first, second = _run(str(md), "--json"), _run(str(md), "--json", "--fence", "2")
    assert first.returncode == second.returncode == 0
    assert json.loads(first.stdout)["name"] == "One" and json.loads(second.stdout)["name"] == "Two"
    assert "has 2 ```posecode fences: 1 (line 3), 2 (line 11); compiling fence 2" in second.stderr
    for n in ("3", "0"):
        wrong = _run(str(md), "--fence", n)
        assert wrong.returncode == 2 and f"has 2 ```posecode fences, not {n}" in wrong.stderr


def test_motion_maintenance_commands(tmp_path):
    from posecode_ssg.motion.__main__ import main
    from posecode_ssg.motion.rigjson import rig_json

    src = shared_path("conformance", "examples", "squat.posecode")
    assert main(["sheet", str(tmp_path / "s.svg"), str(src)]) == 0
    assert ET.parse(tmp_path / "s.svg").getroot().tag.endswith("svg")
    assert main(["rig", str(tmp_path / "rig.json")]) == 0
    assert json.loads((tmp_path / "rig.json").read_text()) == json.loads(json.dumps(rig_json()))
    bad = tmp_path / "bad.posecode"
    bad.write_text("posecode nonsense\n", encoding="utf-8")
    assert main(["sheet", str(tmp_path / "t.svg"), str(src), str(bad)]) == 1


def test_the_schema_file_is_generated_from_the_vocabulary():
    """motion.schema.json is motion_schema()'s output, whose name lists are the vocabulary's."""
    from posecode_ssg.language import vocabulary as v
    from posecode_ssg.motion.schema import motion_schema

    schema = json.loads(SCHEMA_PATH.read_text())
    assert schema == motion_schema()
    assert schema["properties"]["startPose"]["enum"] == list(v.START_POSES)
    assert schema["$defs"]["boneId"]["enum"] == list(v.BONES)
    assert schema["$defs"]["phase"]["properties"]["m"]["enum"] == list(v.TIMING_MODES)
    assert set(schema["$defs"]["contactName"]["enum"]) == set(v.EFFECTOR_BONE) | set(v.GROUND_LOCK_CONTACTS)


def test_support_and_gait_are_carried_per_phase():
    """Each phase carries the support it leaves (its locks and pins, and the feet it reached to the
    floor; both feet after a phase without lock, pin or grip), and a travelling clip that
    floor-pins both feet marks its floor-pinned phases as a gait (KR §8)."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    walk = ('posecode exercise "Walk"\n  rig humanoid\n  pose start = standing\n'
            '  step "Left" 0.5s flow:\n    hip_left: flex 20\n    pin: foot_right floor\n    travel: 0 0.3\n'
            '  step "Right" 0.5s flow:\n    hip_right: flex 20\n    pin: foot_left floor\n    travel: 0 0.6\n'
            '  step "Free" 0.5s flow:\n    hip_left: flex 0\n    hip_right: flex 0\n')
    doc = compile_ir(parse(walk).ir).to_json()
    assert [ph["support"] for ph in doc["phases"]] == [["foot_right"], ["foot_left"], ["foot_left", "foot_right"]]
    assert [ph.get("gait", False) for ph in doc["phases"]] == [True, True, False]
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    still = walk.replace("    travel: 0 0.3\n", "").replace("    travel: 0 0.6\n", "")
    assert not any(ph.get("gait") for ph in compile_ir(parse(still).ir).to_json()["phases"])


def test_a_phase_that_holds_the_body_up_is_marked_hang():
    """A phase that grips a bar or pins an effector to a prop anchor holds the body up off the
    floor (motion JSON ``hang``); one pinned to the floor, locked, reaching or free does not."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    src = ('posecode exercise "Mixed"\n  rig humanoid\n  prop bar\n  prop box\n  pose start = standing\n'
           '  step "Hang" 1s settle:\n    shoulders: flex 170\n    grip: hands bar\n'
           '  step "Stand" 1s settle:\n    shoulders: flex 0\n    ground-lock: feet\n'
           '  step "Up" 1s settle:\n    hip_left: flex 60\n    knee_left: flex 60\n    pin: foot_left box\n'
           '  step "Kneel" 1s settle:\n    knees: flex 90\n    pin: knee_left floor\n'
           '  step "Free" 1s settle:\n    knees: flex 0\n    reach: hand_left floor\n')
    doc = compile_ir(parse(src).ir).to_json()
    assert [ph.get("hang", False) for ph in doc["phases"]] == [True, False, True, False, False]
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
