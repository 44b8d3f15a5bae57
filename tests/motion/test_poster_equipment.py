"""Equipment in the static figures (issue 20): each item of ``motion.equipment.attach`` drawn on
the poster's pose, where the poster's projection puts its attach position (projected here
independently: turn and travel removed, side view z → right, front view x → right, y up, 100
user units a metre), at its GEOMETRY sizes; the mat behind the figure, the held items over the
limbs and under the head; phase strips, contact sheets and the home page's cards draw them too;
nothing without equipment."""

from __future__ import annotations

import math
import re
import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.equipment import GEOMETRY, attach, equipment_json, holding_sides
from posecode_ssg.motion.poster import render_contact_sheet, render_phase_strip, render_poster
from posecode_ssg.motion.rotation import rot_y
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.site.figures import compile_figure

from helpers_motion import demo_figure

SVG = "{http://www.w3.org/2000/svg}"
S = 100.0   # SVG user units per metre
TOL = 0.06  # the SVG's coordinates are rounded to 0.1 unit

#: the demo pages' figures: (source, the equipment words the build draws on them)
LATERAL_RAISE = demo_figure("strength/dumbbell-lateral-raise.md")   # dumbbells
GOBLET_SQUAT = demo_figure("strength/goblet-squat.md")              # a kettlebell
BACK_SQUAT = demo_figure("strength/barbell-back-squat.md")          # a barbell on the back
BAND_CURL = demo_figure("strength/band-curl.md")                    # a band under the feet
GLUTE_BRIDGE = demo_figure("rehab/glute-bridge.md")                 # a mat

#: a quarter turn while curling dumbbells (no demo page turns with equipment)
TURNING_CURL = '''posecode exercise "Turning curl"
  rig humanoid
  pose start = standing:
    shoulders: abduct 10

  step "Turn and curl" 1.5s settle:
    turn: 90
    elbows: flex 100
    ground-lock: feet
'''

#: the figure's drawn body parts (poster.py figure_prims), the head's last
BODY_PARTS = {f"{p}_{s}" for p in ("arm", "leg", "hand", "foot") for s in ("left", "right")} | {"spine"}
HEAD_PARTS = {"neck", "head", "nose"}


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _program(source: str, words: tuple[str, ...] = ()):
    """Compile as site/figures.py compile_figure does: the holding hands closed, then the motion
    JSON ``equipment`` from the solve's start pose and phase ends."""
    result = parse(textwrap.dedent(source))
    assert not result.errors, [d.to_dict() for d in result.errors]
    program = compile_ir(result.ir, holding=holding_sides(words))
    if words:
        sol = solve_keyframes(program)
        program.equipment, problems = equipment_json(words, sol.base, [p.world for p in sol.phases], program.props)
        assert not problems, problems
    return program


def _frame(program, index: int):
    """(solved world, turn in degrees, travel (x, z) m) of frame ``index`` (0 = start pose)."""
    sol = solve_keyframes(program)
    if index == 0:
        return sol.base, 0.0, (0.0, 0.0)
    kf = program.keyframes[index - 1]
    return sol.phases[index - 1].world, kf.turn, kf.travel


def _project(p, view: str, turn: float = 0.0, travel=(0.0, 0.0), flip: bool = False) -> np.ndarray:
    """A world point (m) in the poster's SVG user units: turn and travel removed, then the view."""
    q = rot_y(-turn) @ (np.asarray(p, float) - np.array([travel[0], 0.0, travel[1]]))
    u = q[2] if view == "side" else q[0]
    return np.array([(-u if flip else u) * S, -q[1] * S])


def _class(el) -> list[str]:
    return (el.get("class") or "").split()


def _items(root, item: str | None = None) -> list:
    return [el for el in root.iter() if "posecode-equipment" in _class(el)
            and (item is None or f"posecode-equipment-{item}" in _class(el))]


def _parts(el, part: str) -> list:
    return [c for c in el if c.get("data-part") == part]


def _data_centre(el) -> np.ndarray:
    return np.array([float(v) for v in el.get("data-centre").split(",")])


def _numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", text)]


def _path_corners(el) -> np.ndarray:
    """The four side corners of a cylinder's outline ``M A L B (arc) (arc) C L D (arc) (arc) Z``."""
    d = el.get("d")
    m = re.fullmatch(r"M([^L]+)L([^A]+)A[^A]+A(?:\S+ ){5}(\S+ \S+)L([^A]+)A.*Z", d)
    assert m, d
    return np.array([_numbers(g) for g in m.groups()])


def _shape_centre(el) -> np.ndarray:
    """The centre of one drawn part: a circle's centre, a cylinder outline's (its corners' mean),
    a polyline's (its end points' mean), a rectangle's."""
    tag = el.tag.replace(SVG, "")
    if tag == "circle":
        return np.array([float(el.get("cx")), float(el.get("cy"))])
    if tag == "path":
        return _path_corners(el).mean(axis=0)
    if tag == "polyline":
        pts = _polyline(el)
        return (pts[0] + pts[-1]) / 2
    assert tag == "rect", tag
    return np.array([float(el.get("x")) + float(el.get("width")) / 2, float(el.get("y")) + float(el.get("height")) / 2])


def _polyline(el) -> np.ndarray:
    return np.array([[float(v) for v in xy.split(",")] for xy in el.get("points").split()])


def _order(root) -> dict:
    """Document positions: every element in order, as a dict element -> index."""
    return {el: k for k, el in enumerate(root.iter())}


def _poster(source: str, words: tuple[str, ...], **kw):
    program = _program(source, words)
    svg = render_poster(program, **kw)
    return program, svg, ET.fromstring(svg)


def _expected(program, root):
    """(attach records, frame's turn, travel) of the poster's frame (its ``data-frame``)."""
    w, turn, travel = _frame(program, int(root.get("data-frame")))
    return attach(w, program.equipment), turn, travel


def _assert_layering(root, held: list, scene: list = ()) -> None:
    """Scene items before every body part, held items after them and before the head."""
    pos = _order(root)
    body = [pos[el] for el in root.iter() if el.get("data-part") in BODY_PARTS]
    head = [pos[el] for el in root.iter() if el.get("data-part") in HEAD_PARTS and el.tag == SVG + "circle"]
    assert body and head
    for el in scene:
        assert pos[el] < min(body)
    for el in held:
        assert max(body) < pos[el] < min(head)


# ---------------------------------------------------------------------------------------------
# the five movements of the issue
# ---------------------------------------------------------------------------------------------


def test_lateral_raise_draws_a_dumbbell_in_each_hand_at_the_grip_points():
    program, svg, root = _poster(*LATERAL_RAISE, view="front")
    recs, turn, travel = _expected(program, root)
    els = _items(root, "dumbbell")
    assert len(els) == len(recs) == 2
    (hl, hr), (dr, dl) = GEOMETRY["dumbbell"]["handle"], GEOMETRY["dumbbell"]["head"]
    for el, rec in zip(els, recs):
        want = _project(rec["position"], "front", turn, travel)
        assert np.allclose(_data_centre(el), want, atol=TOL)
        (handle,), heads = _parts(el, "handle"), _parts(el, "head")
        assert np.allclose(_shape_centre(handle), want, atol=2 * TOL)
        # the heads beyond the handle's ends, (handle + head length) / 2 either side along the
        # projected grip axis, at the head radius
        axis = rot_y(-turn) @ np.asarray(rec["axis"])
        off = np.array([axis[0], -axis[1]]) * S * (hl + dl) / 2
        got = sorted(tuple(_shape_centre(h)) for h in heads)
        exp = sorted([tuple(want - off), tuple(want + off)])
        assert np.allclose(got, exp, atol=3 * TOL)
        for h in heads:
            if h.tag == SVG + "path":
                assert _numbers(h.get("d").split("A")[1])[0] == pytest.approx(dr * S)
            else:
                assert float(h.get("r")) == pytest.approx(dr * S)
    # the grip points are the hands': each dumbbell sits on the drawn hand (wrist -> finger tip)
    for side, el in zip(("left", "right"), els):
        hand = _polyline(next(e for e in root.iter() if e.get("data-part") == f"hand_{side}"))
        assert _segment_distance(_data_centre(el), hand[0], hand[-1]) < 4.0
    _assert_layering(root, els)


def _segment_distance(p, a, b) -> float:
    t = np.clip(np.dot(p - a, b - a) / max(np.dot(b - a, b - a), 1e-12), 0.0, 1.0)
    return float(np.linalg.norm(p - (a + t * (b - a))))


def test_goblet_squat_kettlebell_hangs_its_drop_below_the_handle():
    program, svg, root = _poster(*GOBLET_SQUAT)
    assert root.get("data-frame") == "1"   # the squat's bottom
    (rec,), turn, travel = _expected(program, root)
    (el,) = _items(root, "kettlebell")
    want = _project(rec["position"], "side", turn, travel)
    assert np.allclose(_data_centre(el), want, atol=TOL)
    g = GEOMETRY["kettlebell"]
    (bell,) = _parts(el, "bell")
    assert bell.tag == SVG + "circle" and float(bell.get("r")) == pytest.approx(g["bell"] * S)
    # straight down in the world is straight down on the poster (SVG y grows downward)
    assert np.allclose(_shape_centre(bell), want + [0.0, g["drop"] * S], atol=TOL)
    (handle,) = _parts(el, "handle")
    pts = _polyline(handle)
    assert np.allclose((pts[1] + pts[2]) / 2, want, atol=TOL)              # the handle's ends
    assert float(handle.get("stroke-width")) == pytest.approx(2 * g["handle"][1] * S)
    _assert_layering(root, [el])


def test_back_squat_bar_is_seen_end_on_with_plate_circles_and_the_head_over_it():
    program, svg, root = _poster(*BACK_SQUAT, view="side")
    (rec,), turn, travel = _expected(program, root)
    (el,) = _items(root, "barbell")
    want = _project(rec["position"], "side", turn, travel)
    assert np.allclose(_data_centre(el), want, atol=TOL)
    # the shoulders' line is across the body: in a side view the bar points at the camera
    axis = rot_y(-turn) @ np.asarray(rec["axis"])
    assert abs(axis[0]) > 0.999
    g = GEOMETRY["barbell"]
    plates = _parts(el, "plate")
    assert len(plates) == 2
    for plate, sign in zip(plates, (-1, 1)):
        assert plate.tag == SVG + "circle"
        assert float(plate.get("r")) == pytest.approx(g["plate"][0] * S)
        centre = _project(np.asarray(rec["position"]) + sign * g["plateAt"] * np.asarray(rec["axis"]),
                          "side", turn, travel)
        assert np.allclose(_shape_centre(plate), centre, atol=TOL)
    # on the upper back: behind the neck (the figure faces +u) and above the shoulders
    (neck,) = [e for e in root.iter() if e.get("data-part") == "neck"]
    assert _data_centre(el)[0] < _polyline(neck)[0][0]
    _assert_layering(root, [el])


def test_band_curl_draws_one_strand_per_side_from_the_soles_to_the_hands():
    program, svg, root = _poster(*BAND_CURL)
    (rec,), turn, travel = _expected(program, root)
    (el,) = _items(root, "band")
    assert np.allclose(_data_centre(el), _project(rec["position"], "side", turn, travel), atol=TOL)
    strands = _parts(el, "strand")
    assert len(strands) == 2
    for k, strand in enumerate(strands):
        pts = _polyline(strand)
        ends = [_project(e, "side", turn, travel) for e in rec["ends"][2 * k:2 * k + 2]]
        assert np.allclose(pts, ends, atol=TOL)
        assert pts[0][1] == pytest.approx(0.0, abs=1.0)           # under the foot, on the floor
        assert float(strand.get("stroke-width")) == pytest.approx(2 * GEOMETRY["band"]["radius"] * S)
    _assert_layering(root, [el])


def test_glute_bridge_mat_is_a_floor_strip_behind_the_figure_covering_its_footprint():
    program, svg, root = _poster(*GLUTE_BRIDGE)
    (rec,), turn, travel = _expected(program, root)
    (el,) = _items(root, "mat")
    assert "pc-scene" in _class(el)
    want = _project(rec["position"], "side", turn, travel)
    assert np.allclose(_data_centre(el), want, atol=TOL) and want[1] == 0.0
    (rect,) = _parts(el, "mat")
    x, width = float(rect.get("x")), float(rect.get("width"))
    # the yawed rectangle's extent along the side view's axis (z)
    m = program.equipment["mat"]
    yaw = math.radians(m["yaw"])
    half = abs(math.cos(yaw)) * m["size"][1] / 2 + abs(math.sin(yaw)) * m["size"][0] / 2
    assert width == pytest.approx(2 * half * S, abs=0.15)
    assert x + width / 2 == pytest.approx(want[0], abs=0.1)
    assert float(rect.get("y")) <= -GEOMETRY["mat"]["thickness"] * S   # up from the floor ...
    assert float(rect.get("y")) + float(rect.get("height")) >= 0.0       # ... to the floor
    # every point of the lying body near the floor is over the mat
    w, turn, travel = _frame(program, int(root.get("data-frame")))
    for b, p in w.pos.items():
        if p[1] < 0.2:
            assert x <= _project(p, "side", turn, travel)[0] <= x + width, b
    _assert_layering(root, [], [el])
    assert not _items(root, "dumbbell")


# ---------------------------------------------------------------------------------------------
# turn, flip, strips, sheets, cards, and nothing without equipment
# ---------------------------------------------------------------------------------------------


def test_items_follow_the_hands_through_a_turn_and_a_flip():
    program = _program(TURNING_CURL, ("dumbbells",))
    w, turn, travel = _frame(program, 1)
    assert turn == pytest.approx(90.0)
    recs = attach(w, program.equipment)
    for flip in (False, True):
        root = ET.fromstring(render_poster(program, view="side", frame=1, flip=flip))
        for el, rec in zip(_items(root, "dumbbell"), recs, strict=True):
            assert np.allclose(_data_centre(el), _project(rec["position"], "side", turn, travel, flip), atol=TOL)
    # the phase strip keeps the turn (the choreography): the figure faces +x there, so its two
    # hands' dumbbells, side by side across the poster's view above, stand apart along u
    strip = ET.fromstring(render_phase_strip(program, view="side"))
    cells = [c for c in strip.iter(SVG + "g") if "pc-cell" in _class(c)]
    a, b = (_data_centre(e) for e in _items(cells[1], "dumbbell"))
    pa, pb = (_project(r["position"], "side", 0.0, travel) for r in recs)
    assert np.allclose(a - b, pa - pb, atol=2 * TOL)
    assert abs(pa[0] - pb[0]) > 20.0


def test_phase_strip_and_contact_sheet_draw_the_items_of_every_frame():
    program = _program(GOBLET_SQUAT[0], ("kettlebell", "mat"))
    strip = ET.fromstring(render_phase_strip(program))
    cells = [c for c in strip.iter(SVG + "g") if "pc-cell" in _class(c)]
    assert len(cells) == 1 + len(program.keyframes)
    for cell in cells:
        (mat,), (bell,) = _items(cell, "mat"), _items(cell, "kettlebell")
        pos = _order(cell)
        fig = [e for e in cell.iter() if e.get("data-part") in BODY_PARTS]
        assert pos[mat] < min(pos[e] for e in fig) < max(pos[e] for e in fig) < pos[bell]
        # the bell hangs its drop under the handle point in every frame
        (disc,) = _parts(bell, "bell")
        drop = float(disc.get("cy")) - _data_centre(bell)[1]
        assert drop == pytest.approx(GEOMETRY["kettlebell"]["drop"] * S, abs=TOL)
    sheet = ET.fromstring(render_contact_sheet([program, _program(*LATERAL_RAISE), _program(BAND_CURL[0])]))
    assert len(_items(sheet, "kettlebell")) == 1 and len(_items(sheet, "dumbbell")) == 2
    assert len(_items(sheet)) == 4


@pytest.mark.parametrize("source", [LATERAL_RAISE[0], GOBLET_SQUAT[0], GLUTE_BRIDGE[0]],
                         ids=["lateral-raise", "goblet-squat", "glute-bridge"])
def test_nothing_is_drawn_without_equipment(source):
    program = _program(source)
    for svg in (render_poster(program), render_phase_strip(program), render_contact_sheet([program])):
        assert "posecode-equipment" not in svg and "pc-load" not in svg and "pc-scene" not in svg


def test_compile_figure_posters_carry_the_fence_equipment():
    source, _ = GOBLET_SQUAT
    fig = compile_figure(source, {"equipment": ("kettlebell", "mat")})
    assert not [d for d in fig.diagnostics if d["severity"] == "error"]
    program = _program(source, ("kettlebell", "mat"))
    assert fig.poster == render_poster(program, view=fig.view)
    root = ET.fromstring(fig.poster)
    drawn = [i.get("class").split()[1] for i in _items(root)]
    assert drawn == ["posecode-equipment-mat", "posecode-equipment-kettlebell"]
    assert "posecode-equipment" not in compile_figure(source, {}).poster


def test_the_home_page_card_reuses_the_poster_with_its_equipment(tmp_path):
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import build_site

    page = ("---\ntitle: Raise\nequipment: [dumbbell, mat]\n---\n\n# Raise\n\n```posecode\n"
            + LATERAL_RAISE[0] + "```\n")
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "raise.md").write_text(page, encoding="utf-8")
    result = build_site(load_config(None, cwd=tmp_path), progress=False)
    assert not result.errors, result.errors
    site = tmp_path / "site"
    home = (site / "index.html").read_text(encoding="utf-8")
    (src,) = re.findall(r'<span class="card-poster"><img src="([^"]+)"', home)
    card = (site / src.lstrip("/")).read_text(encoding="utf-8")
    root = ET.fromstring(card)
    assert len(_items(root, "dumbbell")) == 2 and len(_items(root, "mat")) == 1
    # the page's inline poster (its ids namespaced) draws the same items
    html = (site / "raise" / "index.html").read_text(encoding="utf-8")
    groups = re.findall(r'<g class="posecode-equipment .*?</g>', card)
    assert len(groups) == 3 and all(html.count(g) == 1 for g in groups)
