"""Equipment drawn on the solved body (issue 20): ``el.sample().equipment`` over whole loops at
30 Hz, the meshes the stage draws, the motion JSON check, and agreement with the Python twin
(posecode_ssg/motion/equipment.py ``attach``) at phase ends.

Real movements, each compiled with its equipment words the way the site build compiles a fence
with ``equipment="..."`` (the holding hands closed, motion JSON ``equipment`` placed): the demo
library's pages with the words the build draws on them (content/strength/: a lateral raise with
dumbbells, a goblet squat with a kettlebell, a barbell back squat with the hands on the bar, a
banded row with the band to an anchor ahead, a band curl with the band under the feet and a dead
bug on a mat), and two no page has: a deadlift with a barbell in both hands and a medicine ball
raised between the palms.

What is measured, from the sample's joints, landmarks and world rotations (world metres), with
the expected values taken from the rig (rig.json ``equipment.geometry``, the landmarks' offsets):

- a dumbbell stays within 3 cm of its palm landmark (the grip point lies 1.8 cm from the palm on
  the wrist bone for avatar1, 2.2 cm for the demo raise's avatar2, inside the closed fingers) and its handle lies along wrist local X (1°);
- a goblet kettlebell's handle lies on the segment between the palms (within 3 cm of it, not
  beyond its ends); a medicine ball sits midway between the palms, which touch its surface (2 cm);
- a bar on the back lies behind the neck joint (``back[2]`` = 7.5 cm behind the shoulders' plane,
  in which the neck joint sits: at least 5 cm), near shoulder height (8 cm) and below the head,
  parallel to the shoulder line (< 2°);
- each band end coincides with its start (the sole landmark, or the motion JSON anchor) and its
  grip landmark (≤ 1 mm);
- the mat lies on the floor under the body: centre at y = 0, the pelvis's floor projection and
  every point of the body within 5 cm of the floor inside its rectangle;
- the drawn meshes follow the records after a drawn frame (a dumbbell's group at its grip point,
  a band strand from end to end, the mat's top 1 mm over the floor);
- at every phase end the runtime's records equal ``attach`` on the numpy keyframe solve's world
  within 2 mm and 1°, where the two solves' joints agree within 2 mm (checked first).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.motion.helpers_motion import demo_figure

from .pages import READY_ALL, figure_html, needs_browser

pytestmark = needs_browser

HZ = 30

#: a deadlift with a barbell held in both hands, the palms turned back (no demo page holds a bar)
DEADLIFT = """posecode exercise "Deadlift"
  rig humanoid
  pose start = standing:
    shoulders: flex 20

  step "Lower" 1.8s flow:
    pelvis: hinge 75
    knees: flex 14
    shoulders: flex 75
    elbows: pronate 80
    neck: extend 12
    ground-lock: feet

  step "Lift" 1.4s settle:
    pelvis: hinge 0
    knees: flex 0
    shoulders: flex 20
    elbows: pronate 80
    neck: extend 0
    ground-lock: feet

  repeat 8
"""

#: a medicine ball raised between the open palms (no demo page has one)
MEDICINE_BALL_RAISE = """posecode exercise "Medicine ball raise"
  rig humanoid
  pose start = standing:
    shoulders: flex 30
    shoulders: adduct 30
    elbows: flex 30

  step "Raise" 1.5s settle:
    shoulders: flex 80
    ground-lock: feet

  step "Lower" 1.5s settle:
    shoulders: flex 30
    ground-lock: feet

  repeat 8
"""

#: name → (Posecode source, fence equipment words): the demo pages' figures with the words the
#: build draws on them (tests/motion/helpers_motion.py ``demo_figure``), and the two above
MOVEMENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lateral-raise": demo_figure("strength/dumbbell-lateral-raise.md"),
    "goblet-squat": demo_figure("strength/goblet-squat.md"),
    "back-squat": demo_figure("strength/barbell-back-squat.md"),
    "deadlift": (DEADLIFT, ("barbell",)),
    "medicine-ball-raise": (MEDICINE_BALL_RAISE, ("medicine-ball",)),
    "banded-row": demo_figure("strength/banded-row.md"),
    "band-curl": demo_figure("strength/band-curl.md"),
    "dead-bug": demo_figure("strength/dead-bug.md"),
}

#: joints and landmarks each sample returns
POINTS = ["pelvis", "neck", "head", "shoulder_left", "shoulder_right", "wrist_left", "wrist_right",
          "palm_left", "palm_right", "grip_left", "grip_right", "sole_left", "sole_right"]

SAMPLE = """([id, ts, names]) => { const el = document.getElementById(id);
  return ts.map(t => { el.seek(t); const s = el.sample(), p = {};
    for (const n of names) p[n] = s.landmarks[n] || s.bones[n];
    const low = [...Object.values(s.bones), ...Object.values(s.landmarks)].filter(q => q[1] < 0.05);
    return {t, equipment: s.equipment, p, low, bones: s.bones,
            q: {wrist_left: s.orientation.wrist_left, wrist_right: s.orientation.wrist_right, chest: s.orientation.chest}}; }); }"""


def program(name: str):
    """The compiled program of movement ``name`` with its equipment placed (site/figures.py)."""
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.site.figures import _equipment, holding_sides

    source, words = MOVEMENTS[name]
    ir = parse(source).ir
    assert ir is not None, name
    prog = compile_ir(ir, holding=holding_sides(words))
    assert _equipment(prog, words) == [], name   # no attach problem
    return prog


def rotate(q, v) -> np.ndarray:
    """Vector ``v`` rotated by unit quaternion ``q`` = [x, y, z, w]."""
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.asarray(v, float)
    return v + 2 * w * np.cross(u, v) + 2 * np.cross(u, np.cross(u, v))


def angle(a, b) -> float:
    """Degrees between two vectors."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return math.degrees(math.acos(max(-1.0, min(1.0, float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))))))


def dist(a, b) -> float:
    return float(np.linalg.norm(np.asarray(a, float) - np.asarray(b, float)))


def rig_landmark(name: str, avatar: str = "avatar1") -> np.ndarray:
    from posecode_ssg.motion.rigjson import rig_json

    return np.array(rig_json()["avatars"][avatar]["landmarks"][name]["offset"])


def geometry() -> dict:
    from posecode_ssg.motion.rigjson import rig_json

    return rig_json()["equipment"]["geometry"]


_CACHE: dict = {}


@pytest.fixture
def sampled(rt_page, runtime_site):
    """Per movement: (program, motion JSON, 30 Hz samples over one loop, samples at the phase
    ends); sampled once for the module."""
    if _CACHE:
        return _CACHE
    progs = {n: program(n) for n in MOVEMENTS}
    docs = {n: p.to_json() for n, p in progs.items()}
    rt_page.goto(runtime_site.page("equipment", [figure_html(n, d) for n, d in docs.items()]))
    rt_page.evaluate(READY_ALL)
    for name, doc in docs.items():
        assert doc["equipment"]["items"] == list(MOVEMENTS[name][1])
        n = int(math.ceil(doc["duration"] * HZ))
        grid = [min(k / HZ, doc["duration"] - 1e-9) for k in range(n + 1)]
        ends = [e - 1e-6 for e in np.cumsum([p["d"] for p in doc["phases"]])]
        _CACHE[name] = (progs[name], doc, rt_page.evaluate(SAMPLE, [name, grid, POINTS]),
                        rt_page.evaluate(SAMPLE, [name, ends, POINTS]))
    assert not rt_page.problems, rt_page.problems
    return _CACHE


def records(samples, item):
    """(sample, record) for every sample's records of ``item``."""
    return [(s, r) for s in samples for r in s["equipment"] if r["item"] == item]


def test_a_figure_without_equipment_samples_none(rt_page, runtime_site):
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    doc = compile_ir(parse(MOVEMENTS["lateral-raise"][0]).ir).to_json()
    assert "equipment" not in doc
    rt_page.goto(runtime_site.page("no-equipment", [figure_html("a", doc)]))
    rt_page.evaluate(READY_ALL)
    assert rt_page.evaluate("document.getElementById('a').sample().equipment") == []
    # drawn on a frame soon after it is ready (a loaded machine may take more than one)
    drawn = """async () => { const f = document.getElementById('a');
        for (let i = 0; i < 60 && !(f.drawCount > 0); i++) await posecode.frame();
        const m = f.mannequin; return [!!m, m && m.equipment === undefined]; }"""
    assert rt_page.evaluate(drawn) == [True, True]   # drawn, with no equipment meshes


def test_dumbbells_stay_in_the_palms(sampled):
    prog, doc, samples, _ = sampled["lateral-raise"]
    # the grip point is on the wrist bone, this far from the palm landmark (rig.json, the figure's
    # avatar: the demo page draws avatar2, whose hands are larger than avatar1's)
    offset = dist(rig_landmark("grip_left", prog.avatar), rig_landmark("palm_left", prog.avatar))
    assert offset < 0.03
    found = records(samples, "dumbbell")
    assert len(found) == 2 * len(samples)
    worst, worst_axis = 0.0, 0.0
    for s, r in found:
        side = r["attached"][0].split("_")[1]
        worst = max(worst, dist(r["position"], s["p"][f"palm_{side}"]))
        worst_axis = max(worst_axis, angle(r["axis"], rotate(s["q"][f"wrist_{side}"], [1, 0, 0])))
        assert r["ends"] == []
    assert worst == pytest.approx(offset, abs=1e-3)   # rigidly on the hand
    assert worst <= 0.03, f"a dumbbell {worst * 1000:.1f} mm from its palm"
    assert worst_axis < 1.0, f"a handle {worst_axis:.2f}° off wrist local X"
    # the raise really lifts the dumbbells (to shoulder height at the phase end)
    heights = [r["position"][1] for _, r in found]
    assert max(heights) - min(heights) > 0.5


def test_a_goblet_kettlebell_is_held_between_the_palms(sampled):
    prog, doc, samples, _ = sampled["goblet-squat"]
    found = records(samples, "kettlebell")
    assert len(found) == len(samples)
    for s, r in found:
        a, b = np.array(s["p"]["palm_left"]), np.array(s["p"]["palm_right"])
        c = np.array(r["position"])
        u = float((c - a) @ (b - a) / ((b - a) @ (b - a)))
        assert -0.05 <= u <= 1.05, f"t={s['t']:.2f}: the kettlebell is beyond the palms ({u:.2f} along them)"
        off = dist(c, a + u * (b - a))
        assert off <= 0.03, f"t={s['t']:.2f}: the kettlebell is {off * 1000:.0f} mm off the line between the palms"
        assert angle(r["axis"], np.array(s["p"]["grip_left"]) - s["p"]["grip_right"]) < 0.5


def test_a_medicine_ball_sits_between_the_palms_touching_both(sampled):
    prog, doc, samples, _ = sampled["medicine-ball-raise"]
    radius = geometry()["medicine-ball"]["radius"]
    for s, r in records(samples, "medicine-ball"):
        a, b = s["p"]["palm_left"], s["p"]["palm_right"]
        assert dist(r["position"], (np.array(a) + b) / 2) <= 1e-3
        for palm in (a, b):
            assert abs(dist(r["position"], palm) - radius) <= 0.02, f"t={s['t']:.2f}: a palm is off the ball's surface"


def test_a_back_rack_barbell_lies_across_the_upper_back(sampled):
    prog, doc, samples, _ = sampled["back-squat"]
    g = geometry()["barbell"]
    assert g["back"][2] <= -0.05       # the expected depth behind the shoulders' plane
    found = records(samples, "barbell")
    assert len(found) == len(samples)
    for s, r in found:
        p = s["p"]
        c = np.array(r["position"])
        forward = rotate(s["q"]["chest"], [0, 0, 1])
        behind = float((c - p["neck"]) @ forward)
        assert behind <= -0.05, f"t={s['t']:.2f}: the bar is {behind * 1000:.0f} mm in front of the neck"
        shoulders = 0.5 * (p["shoulder_left"][1] + p["shoulder_right"][1])
        assert abs(c[1] - shoulders) <= 0.08, f"t={s['t']:.2f}: the bar {c[1] - shoulders:+.3f} m from shoulder height"
        assert c[1] < p["head"][1]
        tilt = angle(r["axis"], np.array(p["shoulder_left"]) - p["shoulder_right"])
        assert tilt < 2.0, f"t={s['t']:.2f}: the bar {tilt:.2f}° off the shoulder line"
        # centred on the body: the shoulders' midpoint projects onto the bar's middle
        mid = 0.5 * (np.array(p["shoulder_left"]) + p["shoulder_right"])
        assert abs(float((mid - c) @ np.array(r["axis"]))) < 0.01
    # the squat lowers it with the shoulders
    heights = [r["position"][1] for _, r in found]
    assert max(heights) - min(heights) > 0.2


def test_band_ends_hold_the_anchor_or_the_soles_and_the_hands(sampled):
    for name, start in (("banded-row", "anchor"), ("band-curl", "sole")):
        prog, doc, samples, _ = sampled[name]
        found = records(samples, "band")
        assert len(found) == len(samples)
        for s, r in found:
            E = r["ends"]
            assert len(E) == 4
            for k, side in enumerate(("left", "right")):
                want = doc["equipment"]["anchor"] if start == "anchor" else s["p"][f"sole_{side}"]
                assert dist(E[2 * k], want) <= 1e-3, f"{name} t={s['t']:.2f}: {side} strand's start"
                assert dist(E[2 * k + 1], s["p"][f"grip_{side}"]) <= 1e-3, f"{name} t={s['t']:.2f}: {side} strand's hand end"
            assert dist(r["position"], np.mean(E, axis=0)) <= 1e-6
            assert angle(r["axis"], np.array(E[1]) - E[0]) < 0.1
        if start == "anchor":
            # the anchor is ahead of the figure (it faces +Z), at about chest height
            anchor = doc["equipment"]["anchor"]
            assert anchor[2] - samples[0]["p"]["pelvis"][2] > 0.8 and 1.0 < anchor[1] < 1.6


def test_the_mat_lies_on_the_floor_under_the_body(sampled):
    prog, doc, samples, _ = sampled["dead-bug"]
    mat = doc["equipment"]["mat"]
    yaw = math.radians(mat["yaw"])
    length = np.array([math.sin(yaw), math.cos(yaw)])
    width = np.array([length[1], -length[0]])
    centre = np.array(mat["center"])

    def inside(q, margin=0.0) -> bool:
        d = np.array([q[0], q[2]]) - centre
        return abs(d @ length) <= mat["size"][1] / 2 + margin and abs(d @ width) <= mat["size"][0] / 2 + margin

    assert mat["size"][0] >= geometry()["mat"]["size"][0] and mat["size"][1] >= geometry()["mat"]["size"][1]
    found = records(samples, "mat")
    assert len(found) == len(samples)
    for s, r in found:
        assert r["position"] == [mat["center"][0], 0.0, mat["center"][1]]
        assert abs(r["axis"][1]) < 1e-9 and abs(np.linalg.norm(r["axis"]) - 1) < 1e-9
        assert inside(s["p"]["pelvis"]), f"t={s['t']:.2f}: the pelvis is off the mat"
        off = [q for q in s["low"] if not inside(q)]
        assert not off, f"t={s['t']:.2f}: {len(off)} points near the floor off the mat"


def test_the_meshes_follow_the_records_after_a_drawn_frame(rt_page, runtime_site, sampled):
    names = ["lateral-raise", "banded-row", "dead-bug"]
    grid = "<style>body{display:grid;grid-template-columns:repeat(3,1fr)}</style>"   # all three in view (drawn)
    rt_page.goto(runtime_site.page("equipment-meshes", [figure_html(n, sampled[n][1]) for n in names], head=grid))
    rt_page.evaluate(READY_ALL)
    got = rt_page.evaluate("""async (names) => { await posecode.freeze(0.9); const out = {};
      for (const n of names) { const el = document.getElementById(n), E = el.mannequin.equipment;
        const mesh = (m) => ({p: m.position.toArray(), q: m.quaternion.toArray(), s: m.scale.toArray()});
        out[n] = {records: el.sample().equipment,
          parts: E.parts.map((P) => P && {along: mesh(P[0]), free: P[1].map(mesh)}),
          children: E.group.children.map(mesh)}; }
      return out; }""", names)
    # a dumbbell's group sits at its grip point, its local Y (the cylinders' axis) along the handle
    for rec, part in zip(got["lateral-raise"]["records"], got["lateral-raise"]["parts"]):
        assert dist(part["along"]["p"], rec["position"]) < 1e-6
        assert angle(rotate(part["along"]["q"], [0, 1, 0]), rec["axis"]) < 0.01
    # each band strand runs from its start to its hand: centre ± half its length along local Y
    (rec,), (part,) = got["banded-row"]["records"], got["banded-row"]["parts"]
    for k, strand in enumerate(part["free"]):
        half = 0.5 * strand["s"][1] * rotate(strand["q"], [0, 1, 0])
        assert dist(np.array(strand["p"]) - half, rec["ends"][2 * k]) < 1e-6
        assert dist(np.array(strand["p"]) + half, rec["ends"][2 * k + 1]) < 1e-6
        assert strand["s"][0] == pytest.approx(geometry()["band"]["radius"])
    # the mat: a box whose top is 1 mm over the floor, as long and wide as the motion JSON says
    (box,) = got["dead-bug"]["children"]
    mat = sampled["dead-bug"][1]["equipment"]["mat"]
    assert box["p"][1] + box["s"][1] / 2 == pytest.approx(0.001)
    assert box["s"][1] == pytest.approx(geometry()["mat"]["thickness"])
    assert [box["s"][0], box["s"][2]] == pytest.approx(mat["size"])
    assert [box["p"][0], box["p"][2]] == pytest.approx(mat["center"])
    assert not rt_page.problems, rt_page.problems


def test_records_match_the_python_twin_at_phase_ends(sampled):
    from posecode_ssg.motion.equipment import attach
    from posecode_ssg.motion.solve import solve_keyframes

    worst = {"joints": (0.0, ""), "position": (0.0, ""), "axis": (0.0, "")}
    compared = 0
    for name, (prog, doc, _, at_ends) in sampled.items():
        sol = solve_keyframes(prog)
        for i, s in enumerate(at_ends):
            w = sol.phases[i].world
            where = f"{name} phase {i + 1}"
            for bone, p in w.pos.items():
                worst["joints"] = max(worst["joints"], (dist(p, s["bones"][bone]), f"{where} {bone}"))
            want = attach(w, doc["equipment"])
            assert [(r["item"], r["attached"]) for r in s["equipment"]] == [(r["item"], r["attached"]) for r in want]
            for got, exp in zip(s["equipment"], want):
                assert len(got["ends"]) == len(exp["ends"])
                for a, b in [(got["position"], exp["position"]), *zip(got["ends"], exp["ends"])]:
                    worst["position"] = max(worst["position"], (dist(a, b), f"{where} {exp['item']}"))
                worst["axis"] = max(worst["axis"], (angle(got["axis"], exp["axis"]), f"{where} {exp['item']}"))
                compared += 1
    # the precondition: the two solves agree at these phase ends
    assert worst["joints"][0] <= 0.002, f"runtime/numpy joints differ by {worst['joints'][0] * 1000:.2f} mm at {worst['joints'][1]}"
    assert compared >= 20
    assert worst["position"][0] <= 0.002, f"{worst['position'][0] * 1000:.2f} mm at {worst['position'][1]}"
    assert worst["axis"][0] <= 1.0, f"{worst['axis'][0]:.2f}° at {worst['axis'][1]}"


@pytest.mark.parametrize("equipment,needle", [
    ({"items": ["dumbells"]}, '"equipment" must be {"items"'),
    ({"items": "mat"}, '"equipment" must be {"items"'),
    ({"items": ["band-anchor"]}, '"equipment": "anchor" must be [x, y, z]'),
    ({"items": ["band-anchor"], "anchor": [0, 1]}, '"equipment": "anchor" must be [x, y, z]'),
    ({"items": ["mat"]}, '"equipment": "mat" must be {"center"'),
    ({"items": ["mat"], "mat": {"center": [0, 0], "size": [0.6, -1], "yaw": 0}}, '"equipment": "mat" must be'),
])
def test_malformed_equipment_is_a_readable_error(rt_page, runtime_site, equipment, needle):
    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir

    doc = {**compile_ir(parse(MOVEMENTS["lateral-raise"][0]).ir).to_json(), "equipment": equipment}
    rt_page.goto(runtime_site.page("bad-equipment", [figure_html("bad", doc)]))
    err = rt_page.evaluate("document.getElementById('bad').ready.then(() => 'resolved', e => e.message)")
    assert err.startswith("posecode-figure:") and needle in err, err
    assert not rt_page.problems, rt_page.problems
