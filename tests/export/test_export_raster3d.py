"""The 3D PNG of ``posecode-ssg export`` and the frame-capture helper (posecode_ssg/export/raster3d.py,
docs/export.md "3D, GIF and video"): the runtime's own drawing, captured from headless Chromium at
exactly the size asked for. Needs Chromium (skipped without one; CI installs it)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest

from posecode_ssg.export import ExportError, ExportOptions, ExportSession, load_documents
from posecode_ssg.export.raster3d import (
    BACKGROUND,
    FigureCapture,
    capture_frames,
    check_size,
    size_of,
    write_png3d,
)

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("POSECODE_SHARED", REPO.parent / "shared"))
RAISE = SHARED / "cases" / "bugs" / "ex-video-size-pixfmt" / "lateral-raise.posecode"

needs_browser = pytest.mark.skipif(
    not __import__("posecode_ssg.evaluate.browser", fromlist=["have_browser"]).have_browser(),
    reason="no Chromium")


def _img(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _doc(path: Path = RAISE, **kw):
    opts = ExportOptions(fmt="png", out=Path("x.png"), **kw)
    docs, failed, problems = load_documents([str(path)], opts)
    assert docs and not failed and not problems
    return docs[0], opts


# --- without a browser -------------------------------------------------------------------------

def test_size_of_defaults_and_aspect():
    o = ExportOptions(fmt="png", out=Path("x.png"))
    assert size_of(o, (960, 720)) == (960, 720)
    o.width = 400
    assert size_of(o, (960, 720)) == (400, 300)
    o.width, o.height = None, 300
    assert size_of(o, (960, 720)) == (400, 300)
    o.width, o.height = 321, 181
    assert size_of(o, (960, 720)) == (321, 181)


@pytest.mark.parametrize("w,h", [(1, 1), (15, 300), (300, 0), (5000, 300)])
def test_check_size_refuses_in_one_line(w, h):
    with pytest.raises(ExportError) as exc:
        check_size(w, h, "image")
    msg = str(exc.value)
    assert "\n" not in msg and f"{w}×{h}" in msg and "px" in msg


# --- the runtime in Chromium -------------------------------------------------------------------

@pytest.fixture(scope="module")
def session():
    with ExportSession() as s:
        try:
            s.runtime()
        except Exception as exc:   # no bundle / browser: the whole module is about them
            pytest.skip(str(exc))
        yield s


@needs_browser
def test_capture_is_the_size_asked_and_shows_the_figure(session):
    doc, _ = _doc()
    bg = tuple(int(BACKGROUND[i:i + 2], 16) for i in (1, 3, 5))
    for w, h in ((160, 120), (321, 181)):
        png = capture_frames(session, doc.motion(), [0.0], w, h)[0]
        a = _img(png)
        assert a.shape == (h, w, 3)
        assert tuple(a[0, 0]) == bg            # the sky is the backdrop
        # the figure's coloured limbs (blue right, orange left) are there
        blue = (a[..., 2] > a[..., 0] + 60).sum()
        orange = (a[..., 0] > a[..., 2] + 80).sum()
        assert blue > 20 and orange > 20


@needs_browser
def test_capture_follows_the_time_and_repeats_exactly(session):
    doc, _ = _doc()
    with FigureCapture(session, doc.motion(), 160, 120) as cap:
        a0, a1, a0b = (_img(p) for p in cap.capture([0.0, 1.4, 0.0]))
        assert cap.duration == pytest.approx(doc.duration)
    assert np.abs(a0 - a1).mean() > 0.5        # arms raised at the end of "Raise"
    assert np.array_equal(a0, a0b)             # the same time draws the same pixels


@needs_browser
def test_flip_mirrors_the_picture(session):
    doc, _ = _doc()
    plain = _img(capture_frames(session, doc.motion(), [1.4], 160, 120)[0])
    flipped = _img(capture_frames(session, doc.motion(), [1.4], 160, 120, flip=True)[0])
    assert np.abs(plain[:, ::-1] - flipped).mean() < 0.5


@needs_browser
def test_write_png3d(session, tmp_path):
    doc, opts = _doc(width=200, height=150, time=1.4)
    out = tmp_path / "raise.png"
    notes = write_png3d(doc, opts, out, session)
    assert notes[0].startswith(f"wrote {out}") and "200×150" in notes[0]
    from PIL import Image

    with Image.open(out) as im:
        assert im.format == "PNG" and im.size == (200, 150)
    first = out.read_bytes()
    write_png3d(doc, opts, out, session)
    assert out.read_bytes() == first           # re-export: the same bytes
    # the written PNG is the capture of that moment
    assert np.array_equal(_img(first), _img(capture_frames(session, doc.motion(), [1.4], 200, 150)[0]))


@needs_browser
def test_write_png3d_refuses_before_writing(session, tmp_path):
    doc, opts = _doc(width=1, height=1)
    out = tmp_path / "tiny.png"
    with pytest.raises(ExportError):
        write_png3d(doc, opts, out, session)
    assert not out.exists() and not list(tmp_path.iterdir())


@needs_browser
def test_equipment_is_drawn_in_3d(session):
    plain, _ = _doc()
    held, _ = _doc(equipment=("dumbbells",))
    a = _img(capture_frames(session, plain.motion(), [1.4], 200, 150)[0])
    b = _img(capture_frames(session, held.motion(), [1.4], 200, 150)[0])
    assert (np.abs(a - b).sum(axis=2) > 30).sum() > 20
