"""Every export format for five representative pages of the demo library (issue 25 "Done when"):
a barbell back squat (equipment from its front matter), a glute bridge on a mat (lying on the
floor), a single-leg balance, a demi-plié (dance) and a sit to stand from a chair (a prop).

Each format is written by the command itself (``posecode-ssg export PAGES -o DIR --format F``,
one run per format, as a user runs it) and read back by a reader that is not the writer:
Pillow for PNG and GIF, PyAV's demuxer and decoder for video, an XML parser for SVG, and the
BVH and glTF readers of this package's BVH and glTF tests, whose joint positions are compared
with the runtime's own ``sample()`` at the same times (within 2 mm: a planted foot stays
planted in the file). Equipment: the squat's images and videos differ from the same export
with ``--equipment none`` (the barbell is drawn). Needs Chromium (skipped without it; CI has
it)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from posecode_ssg.cli import build_parser
from posecode_ssg.commands.export import run
from posecode_ssg.export import ExportOptions, ExportSession, load_documents
from posecode_ssg.export.core import slug

from .test_export_bvh import Bvh, max_error
from .test_export_gltf import Gltf, validate, world_positions

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "content" / p for p in (
    "strength/barbell-back-squat.md", "rehab/glute-bridge.md", "rehab/single-leg-balance.md",
    "dance/plie-first-position.md", "props/chair-sit-to-stand.md")]
W, H, FPS = 160, 120, 10   # small frames: the checks are about structure and timing, not looks

needs_browser = pytest.mark.skipif(
    not __import__("posecode_ssg.evaluate.browser", fromlist=["have_browser"]).have_browser(),
    reason="no Chromium")
pytestmark = needs_browser

#: format -> the extra arguments of its run; the suffix of the files it writes
RUNS = {
    "png": (["--width", str(W), "--height", str(H)], ".png"),
    "png2d": (["--renderer", "2d", "--width", str(2 * W), "--height", str(2 * H)], ".png"),
    "svg": ([], ".svg"),
    "gif": (["--width", str(W), "--height", str(H), "--fps", str(FPS)], ".gif"),
    "webm": (["--width", str(W), "--height", str(H), "--fps", str(FPS)], ".webm"),
    "mp4": (["--width", str(W), "--height", str(H), "--fps", str(FPS)], ".mp4"),
    "sheet": ([], ".svg"),
    "bvh": (["--fps", "30"], ".bvh"),
    "gltf": (["--fps", "30"], ".gltf"),
    "glb": (["--fps", "30"], ".glb"),
}


def export(out: Path, fmt: str, *extra: str) -> dict[str, Path]:
    """Run the command on the five pages; returns {page stem: the file written}."""
    argv, suffix = RUNS[fmt]
    real = "png" if fmt == "png2d" else fmt
    args = build_parser().parse_args(["export", *map(str, PAGES), "-o", str(out), "--format", real, *argv, *extra])
    assert run(args) == 0
    files = sorted(out.glob(f"*{suffix}"))
    assert len(files) == len(PAGES), [f.name for f in files]
    # a sheet is named <movement>-sheet (beside the movement's still in a shared folder)
    return {f.stem.removesuffix("-sheet") if fmt == "sheet" else f.stem: f for f in files}


@pytest.fixture(scope="module")
def docs():
    """The five documents as the exporter loads them (their motion, names and loop)."""
    loaded, failed, problems = load_documents([str(p) for p in PAGES], ExportOptions(fmt="bvh", out=Path("x")))
    assert not failed and not problems and len(loaded) == len(PAGES)
    return loaded


#: the image and video formats, also written with ``--equipment none``
DRAWN = ("png", "png2d", "svg", "gif", "mp4", "sheet")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """{format: {stem: file}}, and {"bare " + format: ...} of the :data:`DRAWN` formats written
    with ``--equipment none``. Every run happens here, before the module's own browser session
    starts (Playwright's sync API allows one at a time in a thread)."""
    root = tmp_path_factory.mktemp("representative")
    out = {fmt: export(root / fmt, fmt) for fmt in RUNS}
    out.update({f"bare {fmt}": export(root / f"bare-{fmt}", fmt, "--equipment", "none") for fmt in DRAWN})
    return out


@pytest.fixture(scope="module")
def session():
    with ExportSession() as s:
        s.runtime()
        yield s


def stem_of(doc) -> str:
    """The file name the command gives a movement (its name, slugged)."""
    return slug(doc.name)


def image(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGB")).astype(int)


def figure_share(rgb: np.ndarray) -> float:
    """The share of pixels that differ from the frame's background (its corner colours) by more
    than 40 in some channel: the figure, its shadow, its props."""
    corners = np.array([rgb[0, 0], rgb[0, -1]])
    far = np.ones(rgb.shape[:2], bool)
    for c in corners:
        far &= np.abs(rgb - c).max(axis=2) > 40
    return float(far.mean())


def test_png_3d_and_2d_are_the_size_asked_and_show_a_figure(written):
    for fmt in ("png", "png2d"):
        for stem, path in written[fmt].items():
            rgb = image(path)
            assert rgb.shape[:2] == ((H, W) if fmt == "png" else (2 * H, 2 * W)), (fmt, stem)
            assert 0.01 < figure_share(rgb) < 0.6, (fmt, stem, figure_share(rgb))


def test_svg_and_sheet_parse_and_name_the_steps(written, docs):
    by_stem = {stem_of(d): d for d in docs}
    for stem, path in written["svg"].items():
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg") and len(list(root.iter())) > 10, stem
    for stem, path in written["sheet"].items():
        text = path.read_text(encoding="utf-8")
        ET.fromstring(text)
        names = [p["name"] for p in by_stem[stem].motion()["phases"]]
        for name in names:   # every phase end, with its step's name (XML-escaped as written)
            assert name.replace("&", "&amp;") in text, (stem, name)


def test_gif_frame_count_delays_and_loop(written, docs):
    from PIL import Image, ImageSequence

    for doc in docs:
        path = written["gif"][stem_of(doc)]
        with Image.open(path) as im:
            assert im.size == (W, H) and im.info.get("loop") == 0
            delays = [f.info["duration"] for f in ImageSequence.Iterator(im)]
        # one loop at FPS: round(duration × FPS) frames whose delays (ms, whole centiseconds) add
        # up to the loop within one centisecond
        assert len(delays) == max(1, round(doc.duration * FPS)), stem_of(doc)
        assert abs(sum(delays) / 1000 - doc.duration) <= 0.01, (stem_of(doc), sum(delays), doc.duration)


@pytest.mark.parametrize("fmt", ["webm", "mp4"])
def test_video_frame_count_and_duration_decoded(written, docs, fmt):
    av = pytest.importorskip("av")
    for doc in docs:
        path = written[fmt][stem_of(doc)]
        with av.open(str(path)) as c:
            stream = c.streams.video[0]
            frames = [f for f in c.decode(stream)]
            assert (stream.codec_context.width, stream.codec_context.height) == (W, H)
            assert stream.codec_context.name in (("h264",) if fmt == "mp4" else ("vp8", "vp9", "libvpx-vp9"))
            times = [float(f.time) for f in frames]
        n = max(1, round(doc.duration * FPS))
        assert len(frames) == n, (fmt, stem_of(doc), len(frames), n)
        # evenly spaced at 1/FPS from 0: the last frame starts one frame before the loop's end
        assert times[0] == pytest.approx(0.0, abs=1e-3)
        assert np.allclose(np.diff(times), 1 / FPS, atol=2e-3), (fmt, stem_of(doc))
        assert times[-1] + 1 / FPS == pytest.approx(n / FPS, abs=2e-3)


def test_bvh_reproduces_the_runtime_sample(written, docs, session):
    for doc in docs:
        b = Bvh(written["bvh"][stem_of(doc)].read_text())
        n = max(1, round(doc.duration * 30))
        assert b.frames == n
        samples = session.sample_at(doc.motion(), [i / 30 for i in range(n)])
        err, where = max_error(b, samples, range(0, n, 3))
        assert err < 0.002, f"{stem_of(doc)}: {err * 1000:.2f} mm off ({where})"


@pytest.mark.parametrize("fmt", ["gltf", "glb"])
def test_gltf_reproduces_the_runtime_sample_and_validates(written, docs, session, fmt):
    for doc in docs:
        path = written[fmt][stem_of(doc)]
        g = Gltf(path.read_bytes())
        times = [i / 30 for i in range(0, max(1, round(doc.duration * 30)), 5)]
        samples = session.sample_at(doc.motion(), times)
        worst = 0.0
        for t, s in zip(times, samples):
            P = world_positions(g, t)
            worst = max(worst, max(float(np.linalg.norm(P[k] - np.array(p))) for k, p in s["bones"].items()))
        assert worst < 0.002, f"{stem_of(doc)} {fmt}: {worst * 1000:.2f} mm off"
    report = validate(sorted(written[fmt].values()))
    assert all(r["errors"] == 0 for r in report), json.dumps(report, indent=1)[:2000]


@pytest.mark.parametrize("fmt", DRAWN)
def test_equipment_is_drawn_in_every_image_format(written, fmt):
    """The squat's front matter lists a barbell: the same export with ``--equipment none``
    differs (and without it, the file does not name a barbell or shows fewer dark pixels)."""
    bare = written[f"bare {fmt}"]["barbell-back-squat"]
    drawn = written[fmt]["barbell-back-squat"]
    if fmt in ("svg", "sheet"):
        assert "barbell" in drawn.read_text() and "barbell" not in bare.read_text()
    elif fmt in ("png", "png2d"):
        # the 2D side view sees the bar end-on: its plates, a disc at the shoulders
        a, b = image(drawn), image(bare)
        assert np.abs(a - b).max(axis=2).__gt__(40).sum() > (50 if fmt == "png" else 15)
    elif fmt == "gif":
        from PIL import Image

        with Image.open(drawn) as x, Image.open(bare) as y:
            a, b = np.asarray(x.convert("RGB")).astype(int), np.asarray(y.convert("RGB")).astype(int)
        assert np.abs(a - b).max(axis=2).__gt__(40).sum() > 50
    else:
        av = pytest.importorskip("av")

        def first(path):
            with av.open(str(path)) as c:
                return next(c.decode(video=0)).to_ndarray(format="rgb24").astype(int)

        assert np.abs(first(drawn) - first(bare)).max(axis=2).__gt__(40).sum() > 50
