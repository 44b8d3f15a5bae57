"""Random legal IRs (Hypothesis): compile, solve, diagnose and draw without raising; the motion
JSON validates; solved joints respect their ROM boxes; the figure never ends below the floor."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from posecode_ssg.language import vocabulary as V
from posecode_ssg.language.ir import IR, Contact, JointTarget, Phase
from posecode_ssg.language.rom import rom_box
from posecode_ssg.motion import SCHEMA_PATH, compile_ir
from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.motion.poster import render_poster
from posecode_ssg.motion.solve import solve_keyframes

VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
BODY = [b for b in V.BONES if V.BONE_JOINT_TYPE[b] not in ("finger", "thumb")]


@st.composite
def targets(draw):
    out = []
    for bone in draw(st.lists(st.sampled_from(BODY), max_size=5, unique=True)):
        box = rom_box(bone)
        axes = tuple(a for a in "xyz" if box[a] != (0.0, 0.0)) or ("x",)
        chosen = tuple(a for a in axes if draw(st.booleans())) or axes[:1]
        euler = tuple(draw(st.floats(*box[a], allow_nan=False)) if a in chosen else 0.0 for a in "xyz")
        out.append(JointTarget(bone, euler, chosen))
    return out


@st.composite
def phases(draw):
    n = draw(st.integers(1, 4))
    out = []
    for i in range(n):
        lock = draw(st.sampled_from([[], ["feet"], ["foot_left"], ["foot_right"]]))
        reaches = []
        if draw(st.booleans()):
            eff = draw(st.sampled_from(["hand_left", "hand_right", "foot_left", "knee_right", "elbow_left"]))
            reaches.append(Contact(eff, draw(st.sampled_from(["floor", "pelvis", "head"]))))
        out.append(Phase(f"P{i}", draw(st.sampled_from([0.5, 1.0, 1.5])),
                         draw(st.sampled_from(V.TIMING_MODES)), draw(targets()), lock, None, reaches,
                         [], [], draw(st.sampled_from([None, 0.0, 90.0, 360.0])), None, None, i + 3))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["standing", "neutral", "first-position", "supine"]), phases(),
       st.sampled_from(V.AVATARS))
# found by Hypothesis: supine, a hip flexed 91°, then the pelvis tipped 60° with the feet locked:
# swing clearance set the heel down through the hip (extending) and bent the knee back past its
# range (-78°, box from -5°)
@example("supine", [Phase("P0", 0.5, "flow", [JointTarget("hip_left", (-91.0, 0.0, 0.0), ("x",))],
                          [], None, [], [], [], None, None, None, 3),
                    Phase("P1", 0.5, "flow", [JointTarget("knee_left", (0.0, 0.0, 0.0), ("x",)),
                                              JointTarget("shoulder_left", (-7.0, 0.0, 0.0), ("x",)),
                                              JointTarget("shoulder_right", (-7.0, 0.0, 0.0), ("x",)),
                                              JointTarget("pelvis", (60.0, 0.0, 0.0), ("x",))],
                          ["feet"], None, [], [], [], None, None, None, 4)], "avatar1")
def test_random_documents_compile_solve_and_draw(start, phs, avatar):
    ir = IR(kind="exercise", name="Random", start_pose=start, avatar=avatar, phases=phs)
    program = compile_ir(ir)
    doc = program.to_json()
    assert not list(VALIDATOR.iter_errors(doc))
    sol = solve_keyframes(program)
    for ph in sol.phases:
        assert ph.world.lowest() >= -1e-6
        for bone, e in ph.euler.items():
            box = rom_box(bone)
            authored = program.keyframes[ph.index].euler[bone]
            for i, a in enumerate("xyz"):
                lo, hi = min(box[a][0], authored[i]), max(box[a][1], authored[i])
                assert lo - 1e-6 <= e[i] <= hi + 1e-6, (bone, a, e)
    for d in kinematic_diagnostics(program):
        # warnings, and two pieces of advice hints: balance (issue 19) and a reach a hold lets go
        assert d.code.startswith("kinematic-") and d.line >= 3
        assert d.severity == ("hint" if d.code in ("kinematic-balance", "kinematic-reach-released") else "warning")
    ET.fromstring(render_poster(program))
