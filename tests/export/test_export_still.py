"""Still exports (issue 25): the SVG pose at --phase N is the build's solved pose at that step's end
and at --time T between phase ends the runtime's; PNG sizes and where the figure's pixels are;
contact sheets name every step; equipment is drawn."""

from __future__ import annotations

import io
import re
import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from posecode_ssg.cli import build_parser
from posecode_ssg.commands.export import run
from posecode_ssg.export import load_documents

SVG = "{http://www.w3.org/2000/svg}"

#: arms out to the sides (front view), in dumbbell-lateral-raise's words
RAISE = textwrap.dedent('''\
    posecode exercise "Side Raise"
      rig humanoid
      pose start = standing

      step "Raise to the sides" 1.4s settle:
        shoulders: abduct 85
        elbows: flex 15
        ground-lock: feet

      step "Lower slowly" 2s settle:
        shoulders: abduct 0
        elbows: flex 0
        ground-lock: feet
    ''')

LOAD_RGB = (0x5F, 0x65, 0x6C)   # motion/equipment.py COLOURS["load"]


def args(*argv: str):
    return build_parser().parse_args(["export", *argv])


@pytest.fixture
def raise_file(tmp_path):
    p = tmp_path / "raise.posecode"
    p.write_text(RAISE)
    return p


def _polyline(root, part):
    el = next(e for e in root.iter(f"{SVG}polyline") if e.get("data-part") == part)
    return [tuple(float(v) for v in pt.split(",")) for pt in el.get("points").split()]


def _arm_points(svg_text):
    """(shoulder, elbow, wrist) of the right arm drawn, in metres (u, y up)."""
    pts = _polyline(ET.fromstring(svg_text), "arm_right")
    return np.array([(x / 100, -y / 100) for x, y in pts])


def test_svg_at_phase_n_draws_the_solved_pose_of_that_step_end(tmp_path, raise_file):
    from posecode_ssg.motion.solve import solve_keyframes

    (doc,), _, _ = load_documents([str(raise_file)])
    sol = solve_keyframes(doc.program())
    for n in (1, 2):
        out = tmp_path / f"p{n}.svg"
        assert run(args(str(raise_file), "-o", str(out), "--phase", str(n), "--view", "front")) == 0
        drawn = _arm_points(out.read_text())
        w = sol.phases[n - 1].world
        # front view: x right, y up (no turn or travel in this movement)
        expected = np.array([(w.pos[j][0], w.pos[j][1]) for j in ("shoulder_right", "elbow_right", "wrist_right")])
        assert np.allclose(drawn, expected, atol=0.002)
    # at the end of step 1 the wrist is out to the side, at the end of step 2 it is down again
    up = _arm_points((tmp_path / "p1.svg").read_text())
    down = _arm_points((tmp_path / "p2.svg").read_text())
    assert up[2][1] > down[2][1] + 0.4


needs_browser = pytest.mark.skipif(
    not __import__("posecode_ssg.evaluate.browser", fromlist=["have_browser"]).have_browser(),
    reason="no Chromium")


@needs_browser
def test_svg_at_a_time_between_phase_ends_draws_the_runtimes_pose(tmp_path, raise_file):
    from posecode_ssg.evaluate.sampler import RuntimePage

    (doc,), _, _ = load_documents([str(raise_file)])
    t = 0.7   # the middle of step 1 (a 10 Hz sample time)
    out = tmp_path / "mid.svg"
    assert run(args(str(raise_file), "-o", str(out), "--time", str(t), "--view", "front")) == 0
    drawn = _arm_points(out.read_text())
    with RuntimePage() as rp:
        s = rp.sample(doc.motion(), 10.0)
    i = int(np.argmin(np.abs(s.t - t)))
    assert abs(s.t[i] - t) < 1e-9
    expected = np.array([s.bone(j)[i][[0, 1]] for j in ("shoulder_right", "elbow_right", "wrist_right")])
    assert np.allclose(drawn, expected, atol=0.002)
    # half way up: the wrist between its height at the start (hanging) and at the phase end
    w0, w1 = s.bone("wrist_right")[0][1], s.bone("wrist_right")[int(np.argmin(np.abs(s.t - 1.4)))][1]
    assert w0 + 0.1 < drawn[2][1] < w1 - 0.1


def _png(path):
    return np.asarray(Image.open(path).convert("RGB")).astype(int)


def test_png_2d_has_the_size_asked_and_the_figure_where_the_pose_is(tmp_path, raise_file):
    up, down = tmp_path / "up.png", tmp_path / "down.png"
    assert run(args(str(raise_file), "-o", str(up), "--renderer", "2d", "--phase", "1", "--view", "front",
                    "--width", "640", "--height", "360")) == 0
    assert run(args(str(raise_file), "-o", str(down), "--renderer", "2d", "--time", "0", "--view", "front",
                    "--width", "640", "--height", "360")) == 0
    a, b = _png(up), _png(down)
    assert a.shape == (360, 640, 3) and b.shape == (360, 640, 3)
    ink = lambda img: (np.abs(img - 255).sum(axis=2) > 60)   # noqa: E731 - non-white pixels
    # the figure is centred: ink in the middle column, none at the far edges above the floor
    for img in (a, b):
        m = ink(img)
        assert m[:, 300:340].any()
        assert not m[:200, :40].any() and not m[:200, -40:].any()
    # arms out to the sides: ink well left and right of the body (a quarter of the width from
    # the centre) in the upper half; hanging arms leave those regions white
    side = np.zeros((360, 640), bool)
    side[:180, 130:220] = True
    side[:180, 420:510] = True
    assert (ink(a) & side).sum() > 200
    assert (ink(b) & side).sum() == 0


def test_png_default_width_is_16_to_9(tmp_path, raise_file):
    out = tmp_path / "a.png"
    assert run(args(str(raise_file), "-o", str(out), "--renderer", "2d", "--width", "480")) == 0
    assert Image.open(out).size == (480, 270)


def test_sheet_names_every_step_svg_and_png(tmp_path, raise_file):
    svg = tmp_path / "s.svg"
    assert run(args(str(raise_file), "-o", str(svg), "--format", "sheet")) == 0
    texts = [t.text for t in ET.fromstring(svg.read_text()).iter(f"{SVG}text")]
    assert "Raise to the sides" in texts and "Lower slowly" in texts and "Side Raise" in texts
    # one figure a cell: the start and each phase end
    assert len([g for g in ET.fromstring(svg.read_text()).iter(f"{SVG}g") if g.get("class") == "pc-cell"]) == 3
    png = tmp_path / "s.png"
    assert run(args(str(raise_file), "-o", str(png), "--format", "sheet")) == 0
    assert Image.open(png).size[0] == 3 * 240


@needs_browser
def test_sheet_mid_adds_the_middle_of_each_step(tmp_path, raise_file):
    svg = tmp_path / "s.svg"
    assert run(args(str(raise_file), "-o", str(svg), "--format", "sheet", "--mid")) == 0
    texts = [t.text for t in ET.fromstring(svg.read_text()).iter(f"{SVG}text")]
    assert texts[1:] == ["Start", "Raise to the sides (middle)", "Raise to the sides",
                         "Lower slowly (middle)", "Lower slowly"]


def test_equipment_is_drawn_in_png_and_svg(tmp_path, raise_file):
    def load_pixels(path):
        img = _png(path)
        return int((np.abs(img - np.array(LOAD_RGB)).sum(axis=2) <= 6).sum())

    with_db, without = tmp_path / "db.png", tmp_path / "none.png"
    assert run(args(str(raise_file), "-o", str(with_db), "--renderer", "2d", "--equipment", "dumbbells")) == 0
    assert run(args(str(raise_file), "-o", str(without), "--renderer", "2d")) == 0
    assert load_pixels(with_db) > 100
    assert load_pixels(without) == 0
    svg = tmp_path / "db.svg"
    assert run(args(str(raise_file), "-o", str(svg), "--equipment", "dumbbells")) == 0
    assert svg.read_text().count("posecode-equipment-dumbbell") == 2
    sheet = tmp_path / "sheet.png"
    assert run(args(str(raise_file), "-o", str(sheet), "--format", "sheet", "--equipment", "dumbbells")) == 0
    assert load_pixels(sheet) > 100


def test_fence_equipment_attribute_is_drawn(tmp_path):
    md = tmp_path / "p.md"
    md.write_text("# P\n\n```posecode equipment=\"dumbbells\"\n" + RAISE + "```\n")
    out = tmp_path / "p.svg"
    assert run(args(str(md), "-o", str(out))) == 0
    assert "posecode-equipment-dumbbell" in out.read_text()


def test_a_failed_png_leaves_no_file(tmp_path, raise_file, monkeypatch):
    import posecode_ssg.motion.posterpng as posterpng

    def boom(*a, **k):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(posterpng, "scene_png", boom)
    assert run(args(str(raise_file), "-o", str(tmp_path / "a.png"), "--renderer", "2d")) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raise.posecode"]


def test_sheet_labels_draw_accented_letters():
    """The label font draws é and ł (a movement named "Demi-plié", "Skłon"), not a missing-glyph
    box: the accented letter's ink differs from the plain one's and reaches above it."""
    pytest.importorskip("PIL")
    from PIL import Image, ImageDraw

    from posecode_ssg.export.still import _font

    font = _font(40)

    def ink(text):
        im = Image.new("L", (80, 80), 255)
        ImageDraw.Draw(im).text((10, 10), text, font=font, fill=0)
        return im.getbbox() and Image.eval(im, lambda v: 255 - v).getbbox()

    plain, accented = ink("e"), ink("é")
    if plain == ink("\uffff"):   # no font with these glyphs on this machine
        pytest.skip("no label font with Latin glyphs installed")
    assert accented != plain and accented[1] < plain[1]   # the acute accent above the e
