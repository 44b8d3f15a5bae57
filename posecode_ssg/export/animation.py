"""Animated exports of ``posecode-ssg export`` (issue 25; docs/export.md, "3D, GIF and video"):
the whole loop as a GIF (:func:`write_gif`) or a video (:func:`write_video`, WebM/VP9 or MP4/H.264).

Frames are the browser runtime's, which solves the contacts every frame: ``--renderer 3d`` (the
default) captures the runtime's own drawing (:mod:`posecode_ssg.export.raster3d`);
``--renderer 2d`` draws the poster's flat figure (motion/poster.py ``figure_prims``, motion/
posterpng.py ``Canvas``) from the runtime's sampled joints and landmarks (``el.sample()``), never
from interpolated keyframes. Equipment is drawn in both (the runtime's own meshes in 3D; in 2D the
poster's silhouettes, motion/posterequipment.py, placed at the runtime's attach records).

**GIF timing.** A GIF delay is a whole number of centiseconds, and browsers slow delays of 0 or
1 cs down to about 10 cs. One loop of D = round(100 · duration) cs at ``--fps`` f is written as
n = min(⌊D · f / 100 + ½⌋, ⌊D / 2⌋) frames (so no delay is below 2 cs: above 50 fps the rate is
lowered and a note says so). Frame k is displayed from s_k = ⌊k · D / n + ½⌋ cs to s_{k+1}
(s_n = D): the delays are ⌊D / n⌋ or ⌈D / n⌉, spread evenly, and add up to exactly D; frame k
shows the runtime's pose at t = s_k / 100 s, the moment it is displayed. Frame 0 is t = 0 and
the last frame ends at the loop's end, so the seam has no repeated frame. The NETSCAPE2.0 block
loops forever (count 0).

**GIF palette.** One global palette of 256 colours (median cut over up to 8 frames spread over
the loop), each frame mapped to it with Floyd–Steinberg dithering (no banding in the shading of
the figure); each frame after the first stores only the rectangle that changed (disposal "do not
dispose"). Frames are written by hand (Pillow's LZW per frame): Pillow's animated writer merges
identical frames, which would make delays uneven. The same document gives the same bytes.

**Video.** Frame k shows t = k / fps, k = 0 … n − 1 with n = round(fps · duration), so the
file plays one loop (± half a frame). 4:2:0 (``yuv420p``) needs even sizes: an odd width or
height is rounded up by one pixel (the scene drawn wider, nothing cut) with a note naming both
sizes. RGB → Y'CbCr uses BT.709 limited range and the stream is tagged so (primaries, transfer,
matrix, range), as browsers assume for HD video. MP4: libx264, High profile, CRF 18, preset
medium, ``+faststart``; WebM: libvpx-vp9, CRF 31, ``row-mt``. Without an H.264 encoder in PyAV
the MP4 export stops with a message naming WebM.
"""

from __future__ import annotations

import io
import math
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np

from posecode_ssg.export.core import ExportError, ExportUnavailable, atomic_output
from posecode_ssg.export.raster3d import FigureCapture, check_size, size_of, view_attr, view_name

GIF_SIZE = (480, 360)
GIF_FPS = 15.0
VIDEO_SIZE = (640, 480)
VIDEO_FPS = 30.0
#: the shortest GIF delay browsers honour (cs)
MIN_DELAY_CS = 2
#: frames the GIF palette is made from
PALETTE_FRAMES = 8


# ----- timing ----------------------------------------------------------------------------------

def gif_schedule(duration: float, fps: float) -> list[int]:
    """Display start times s_0 … s_n (centiseconds; s_0 = 0, s_n = the loop) of one loop at
    ``fps`` (see the module docstring): frame k is shown from s_k to s_{k+1}."""
    total = max(MIN_DELAY_CS, int(math.floor(duration * 100 + 0.5)))
    n = int(math.floor(total * fps / 100 + 0.5))
    n = max(1, min(n, total // MIN_DELAY_CS))
    return [(2 * k * total + n) // (2 * n) for k in range(n)] + [total]


def video_times(duration: float, fps: float) -> list[float]:
    """Frame times k / fps of one loop (n = round(fps · duration), at least 1)."""
    n = max(1, int(math.floor(duration * fps + 0.5)))
    return [k / fps for k in range(n)]


def _fps(opts, default: float) -> float:
    fps = default if opts.fps is None else float(opts.fps)
    if not (math.isfinite(fps) and 0 < fps <= 240):
        raise ExportError(f"--fps {opts.fps}: the frame rate must be above 0 and at most 240")
    return fps


def _renderer(opts) -> str:
    r = opts.renderer or "3d"
    if r not in ("3d", "2d"):
        raise ExportError(f"--renderer {r}: one of 3d, 2d")
    return r


# ----- frames ----------------------------------------------------------------------------------

def frames_3d(session, doc, opts, times, width: int, height: int, on_frame) -> None:
    """The runtime's drawing at each time, handed to ``on_frame(k, rgb Image)``."""
    from concurrent.futures import ThreadPoolExecutor

    from PIL import Image

    def decode(k, png):
        img = Image.open(io.BytesIO(png))
        img.load()   # Pillow's PNG decoder runs without the GIL: beside the next batch's rendering
        return k, img.convert("RGB")

    with ThreadPoolExecutor(1) as pool, \
            FigureCapture(session, doc.motion(), width, height, view=view_attr(opts, doc), flip=opts.flip) as cap:
        jobs: list = []
        done = 0

        def got(k, png):
            nonlocal done
            jobs.append(pool.submit(decode, k, png))
            while done < len(jobs) and jobs[done].done():   # in order: an encoder takes them so
                on_frame(*jobs[done].result())
                done += 1

        cap.capture(times, got)
        for job in jobs[done:]:
            on_frame(*job.result())


def _quat_matrix(q) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def sample_prims(sample: dict, motion: dict, view: str, flip: bool, working: set[str]):
    """The poster's figure primitives and equipment drawings of one runtime sample
    (``el.sample()``: world joints and landmarks, the head's world orientation, the equipment's
    attach records), in world coordinates (the turn and travel kept: the animation shows them)."""
    from posecode_ssg.motion.poster import figure_prims
    from posecode_ssg.motion.posterequipment import ANCHOR_R, Drawing, Shape, _held, _mat, _View

    pts = {k: np.asarray(v, float) for k, v in sample["bones"].items()}
    pts.update({k: np.asarray(v, float) for k, v in sample["landmarks"].items()})
    prims = figure_prims(pts, view, flip, working, _quat_matrix(sample["orientation"]["head"]))
    items = []
    eq = motion.get("equipment")
    if eq:
        v = _View(view, flip, 0.0, (0.0, 0.0))
        for rec in sample.get("equipment") or []:
            centre = v.uv(v.point(rec["position"]))
            if rec["item"] == "mat":
                items.append(Drawing("mat", "scene", centre, [_mat(v, eq)]))
                continue
            items.append(Drawing(rec["item"], "load", centre, _held(v, rec)))
            if "anchor" in (rec.get("attached") or []) and eq.get("anchor") is not None:
                knob = v.uv(v.point(eq["anchor"]))
                items.append(Drawing(rec["item"], "scene", knob, [Shape("disc", [knob], ANCHOR_R, "anchor")],
                                     anchor=True))
    return prims, items


def _shape_bounds(items) -> list[tuple[float, float]]:
    out = []
    for d in items:
        for s in d.shapes:
            pad = 0.0 if s.kind == "rect" else s.width
            for p in s.pts:
                out += [(p[0] - pad, p[1] - pad), (p[0] + pad, p[1] + pad)]
    return out


def _draw_items(canvas, items, colour) -> None:
    """Equipment shapes (posterequipment ``Shape``) on a posterpng ``Canvas``."""
    dr, k = canvas.draw, canvas.k
    for d in items:
        for s in d.shapes:
            if s.kind == "rect":
                (a0, a1), (b0, b1) = canvas.px(s.pts[0]), canvas.px(s.pts[1])
                dr.rectangle([min(a0, b0), min(a1, b1), max(a0, b0), max(a1, b1)], fill=colour)
            elif s.kind == "disc":
                (cx, cy), r = canvas.px(s.pts[0]), s.width * k
                dr.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour)
            elif s.kind == "line":
                w = max(1, int(round(s.width * k)))
                q = [canvas.px(p) for p in s.pts]
                dr.line(q, fill=colour, width=w, joint="curve")
            else:   # cylinder: the outline of its projection (two half-ellipse caps and the sides)
                e0, e1 = np.array(s.pts[0], float), np.array(s.pts[1], float)
                a = e1 - e0
                a /= max(float(np.linalg.norm(a)), 1e-12)
                nrm = np.array([-a[1], a[0]])
                outline = []
                for end, lo in ((e0, math.pi / 2), (e1, -math.pi / 2)):
                    for th in np.linspace(lo, lo + math.pi, 10):
                        outline.append(canvas.px(end + a * s.minor * math.cos(th) + nrm * s.width * math.sin(th)))
                dr.polygon(outline, fill=colour)


def frames_2d(session, doc, opts, times, width: int, height: int, on_frame) -> None:
    """The poster's 2D figure drawn from the runtime's solved pose at each time, on one fixed
    W×H view of the whole loop, handed to ``on_frame(k, rgb Image)``."""
    from PIL import Image

    from posecode_ssg.motion.equipment import COLOURS as EQ_COLOURS
    from posecode_ssg.motion.poster import prim_bounds
    from posecode_ssg.motion.posterpng import Canvas, _rgb
    from posecode_ssg.motion.view import choose_view, working_limbs

    program, motion = doc.program(), doc.motion()
    view = view_name(opts, doc) or choose_view(program)
    working = working_limbs(program)
    samples = session.sample_at(motion, list(times))
    drawn = [sample_prims(s, motion, view, opts.flip, working) for s in samples]
    # one view box for the whole loop: every frame's figure and equipment, the floor, 0.2 m margin
    xs, ys = [], []
    for prims, items in drawn:
        x0, y0, x1, y1 = prim_bounds(prims)
        xs += [x0, x1]
        ys += [y0, y1]
        for p in _shape_bounds(items):
            xs.append(p[0])
            ys.append(p[1])
    x0, x1 = min(xs) - 0.2, max(xs) + 0.2
    y0, y1 = min(min(ys), 0.0) - 0.12, max(ys) + 0.15
    bw, bh = x1 - x0, y1 - y0
    if bw / bh < width / height:
        bw = bh * width / height
    else:
        bh = bw * height / width
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    box = (cx - bw / 2, cy - bh / 2, bw, bh)
    load, scene = _rgb(EQ_COLOURS["load"]), _rgb(EQ_COLOURS["scene"])
    head_parts = {"neck", "head", "nose"}
    for k, (prims, items) in enumerate(drawn):
        canvas = Canvas(box, width)
        _draw_items(canvas, [d for d in items if d.layer == "scene"], scene)
        held = [d for d in items if d.layer == "load"]
        if held:
            canvas.prims([p for p in prims if p.part not in head_parts])
            _draw_items(canvas, held, load)
            canvas.prims([p for p in prims if p.part in head_parts])
        else:
            canvas.prims(prims)
        img = canvas.image
        if img.size != (width, height):   # float rounding of the height: pad or crop one row
            fixed = Image.new("RGB", (width, height), (255, 255, 255))
            fixed.paste(img, (0, 0))
            img = fixed
        on_frame(k, img)


def render_frames(session, doc, opts, times, width: int, height: int, on_frame) -> str:
    """Frames at ``times`` with the chosen renderer; returns its name (``3d`` / ``2d``). Each
    frame handed over is reported to ``opts.progress(done, total)`` when the caller set one."""
    r = _renderer(opts)
    report = getattr(opts, "progress", None)
    if report is not None:
        total, seen = len(times), [0]
        take = on_frame

        def on_frame(k, img):
            take(k, img)
            seen[0] += 1
            report(seen[0], total)

    (frames_3d if r == "3d" else frames_2d)(session, doc, opts, times, width, height, on_frame)
    return r


# ----- GIF -------------------------------------------------------------------------------------

def _lzw_block(pimg) -> bytes:
    """The image data (LZW minimum code size and sub-blocks, terminator included) of a P image
    as Pillow writes it (not interlaced, its palette as it is)."""
    buf = io.BytesIO()
    pimg.save(buf, format="GIF", optimize=False, interlace=False)
    b = buf.getvalue()
    i = 13
    if b[10] & 0x80:
        i += 3 * (2 ** ((b[10] & 7) + 1))
    while b[i] == 0x21:   # extensions: label, then sub-blocks
        i += 2
        while b[i]:
            i += b[i] + 1
        i += 1
    if b[i] != 0x2C:
        raise ExportError("the GIF encoder wrote an unexpected frame")
    flags = b[i + 9]
    i += 10
    if flags & 0x80:
        i += 3 * (2 ** ((flags & 7) + 1))
    j = i + 1
    while b[j]:
        j += b[j] + 1
    return b[i:j + 1]


def encode_gif(frames, delays_cs: list[int], loop: int | None = 0) -> bytes:
    """An animated GIF89a of RGB ``frames`` (Pillow images, one size) with ``delays_cs``; ``loop``:
    the NETSCAPE2.0 count (0 forever; None: no block, plays once)."""
    from PIL import Image

    W, H = frames[0].size
    picks = [frames[int(i)] for i in np.linspace(0, len(frames) - 1, min(PALETTE_FRAMES, len(frames)))]
    montage = Image.new("RGB", (W, H * len(picks)))
    for i, f in enumerate(picks):
        montage.paste(f, (0, H * i))
    pal = montage.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    pal_bytes = (pal.getpalette() or [])[:768]
    pal_bytes += [0] * (768 - len(pal_bytes))
    out = [b"GIF89a", struct.pack("<HHBBB", W, H, 0x80 | 0x70 | 7, 0, 0), bytes(pal_bytes)]
    if loop is not None:
        out.append(b"!\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00")
    prev = None
    for f, d in zip(frames, delays_cs):
        q = f.quantize(palette=pal, dither=Image.Dither.FLOYDSTEINBERG)
        a = np.asarray(q)
        if prev is None:
            x0, y0, x1, y1 = 0, 0, W, H
        else:
            ys, xs = np.nonzero(a != prev)
            if len(xs):
                x0, y0, x1, y1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
            else:   # the same picture again: one unchanged pixel keeps the frame and its delay
                x0, y0, x1, y1 = 0, 0, 1, 1
        prev = a
        part = q.crop((x0, y0, x1, y1)) if (x0, y0, x1, y1) != (0, 0, W, H) else q
        out.append(b"!\xf9\x04" + struct.pack("<BHB", 1 << 2, int(d), 0) + b"\x00")
        out.append(b"," + struct.pack("<HHHHB", x0, y0, x1 - x0, y1 - y0, 0))
        out.append(_lzw_block(part))
    out.append(b";")
    return b"".join(out)


def write_gif(doc, opts, out: Path, session) -> list[str]:
    """``--format gif``: one loop at ``--fps`` (default 15) and ``--width``×``--height`` (default
    480×360), looping forever; see the module docstring for the timing. Returns the notes."""
    fps = _fps(opts, GIF_FPS)
    w, h = size_of(opts, GIF_SIZE)
    check_size(w, h, "animation")
    starts = gif_schedule(doc.duration, fps)
    delays = [b - a for a, b in zip(starts, starts[1:])]
    times = [s / 100 for s in starts[:-1]]
    frames: list = [None] * len(times)

    def keep(k, img):
        frames[k] = img

    renderer = render_frames(session, doc, opts, times, w, h, keep)
    data = encode_gif(frames, delays, loop=0)
    with atomic_output(Path(out)) as tmp:
        tmp.write_bytes(data)
    notes = []
    shown = 100 * len(delays) / starts[-1]
    if fps > 100 / MIN_DELAY_CS:
        notes.append(f"note: GIF frames last at least {MIN_DELAY_CS} cs: {fps:g} fps lowered to {shown:.4g} fps")
    elif len(set(delays)) > 1:
        notes.append(f"note: GIF delays are whole centiseconds: {fps:g} fps written as "
                     f"{min(delays)}–{max(delays)} cs frames ({shown:.4g} fps on average)")
    return [f"wrote {out} ({w}×{h}, {len(delays)} frames, {starts[-1] / 100:g} s loop, {renderer.upper()})"] + notes


# ----- video -----------------------------------------------------------------------------------

#: format -> (container, encoder candidates, codec options)
VIDEO = {
    "mp4": ("mp4", ("libx264", "h264"), {"crf": "18", "preset": "medium", "profile": "high"}),
    "webm": ("webm", ("libvpx-vp9", "vp9"), {"crf": "31", "b": "0", "row-mt": "1", "deadline": "good",
                                             "cpu-used": "4"}),
}


def _encoder(fmt: str):
    try:
        import av
    except ImportError:
        raise ExportUnavailable(f"{fmt} export needs PyAV: pip install av") from None
    container, names, options = VIDEO[fmt]
    for name in names:
        if name in av.codecs_available:
            try:
                codec = av.Codec(name, "w")
            except Exception:   # a decoder only, or not an encoder in this build
                continue
            if codec.is_encoder:
                return av, container, name, options
    if fmt == "mp4":
        raise ExportUnavailable("mp4 export: this PyAV has no H.264 encoder (libx264); "
                                "export webm (VP9) instead: --format webm")
    raise ExportUnavailable(f"{fmt} export: this PyAV has no VP9 encoder (libvpx-vp9)")


def write_video(doc, opts, out: Path, session) -> list[str]:
    """``--format webm`` / ``mp4``: one loop at ``--fps`` (default 30) and ``--width``×``--height``
    (default 640×480; odd sides rounded up to even with a note). Returns the notes."""
    fmt = opts.fmt
    if fmt not in VIDEO:
        raise ExportError(f"unknown video format '{fmt}' (webm or mp4)")
    fps = _fps(opts, VIDEO_FPS)
    w, h = size_of(opts, VIDEO_SIZE)
    check_size(w, h, "video")
    av, container_fmt, codec_name, options = _encoder(fmt)
    notes = []
    W, H = w + w % 2, h + h % 2
    if (W, H) != (w, h):
        notes.append(f"warning: {fmt} is 4:2:0 (yuv420p), which needs an even width and height: "
                     f"{w}×{h} written as {W}×{H}")
    times = video_times(doc.duration, fps)
    rate = Fraction(fps).limit_denominator(1001)
    with atomic_output(Path(out)) as tmp:
        try:
            container = av.open(str(tmp), mode="w", format=container_fmt,
                                options={"movflags": "+faststart"} if container_fmt == "mp4" else {})
        except av.FFmpegError as exc:
            raise ExportError(f"{out}: the {fmt} file could not be opened ({exc})") from None
        try:
            stream = container.add_stream(codec_name, rate=rate, options=dict(options))
            stream.width, stream.height = W, H
            stream.pix_fmt = "yuv420p"
            cc = stream.codec_context
            cc.time_base = 1 / rate
            cc.color_range, cc.colorspace, cc.color_primaries, cc.color_trc = 1, 1, 1, 1   # MPEG, BT.709

            def put(k, img):
                frame = av.VideoFrame.from_ndarray(np.asarray(img, dtype=np.uint8), format="rgb24")
                yuv = frame.reformat(format="yuv420p", src_colorspace="itu709", dst_colorspace="itu709",
                                     src_color_range="JPEG", dst_color_range="MPEG",
                                     interpolation="BICUBIC")
                yuv.colorspace, yuv.color_range = 1, 1
                yuv.pts = k
                yuv.time_base = 1 / rate
                for packet in stream.encode(yuv):
                    container.mux(packet)

            renderer = render_frames(session, doc, opts, times, W, H, put)
            for packet in stream.encode(None):
                container.mux(packet)
        except av.FFmpegError as exc:
            raise ExportError(f"{out}: the {codec_name} encoder failed ({str(exc).splitlines()[0]})") from None
        finally:
            container.close()
    return [f"wrote {out} ({W}×{H}, {len(times)} frames at {fps:g} fps, {len(times) / fps:.3f} s loop, "
            f"{codec_name}, yuv420p, {renderer.upper()})"] + notes
