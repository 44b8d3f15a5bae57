"""Still images of ``posecode-ssg export`` (docs/export.md): the 2D figure as SVG or PNG at one
frame, a contact sheet of the phase ends (SVG or PNG), and ``--renderer 3d`` PNGs handed to
:mod:`posecode_ssg.export.raster3d`.

The 2D figure is the poster's (motion/poster.py, with its equipment: motion/posterequipment.py).
At a phase end (and the start) it is the build's solved pose; at any other time (``--time``
between phase ends, a sheet's ``--mid`` frames) it is the runtime's solved pose, sampled in the
session's Chromium (``el.seek(t)`` + ``el.sample()``), drawn with the same primitives.
"""

from __future__ import annotations

import io
import re
from html import escape
from pathlib import Path

import numpy as np

from posecode_ssg.export.core import (
    ExportDoc,
    ExportError,
    ExportOptions,
    ExportSession,
    ExportUnavailable,
    frame_index,
    frame_time,
    write_atomic,
)
from posecode_ssg.export.raster3d import MAX_SIDE, MIN_SIDE

#: default PNG width (px) of a 2D still; a sheet's cell width
PNG_WIDTH = 960
SHEET_CELL_PX = 240


def view_of(doc: ExportDoc, opts: ExportOptions) -> str:
    """``--view`` (side/front), else the fence's ``view`` attribute, else the poster's choice."""
    if opts.view in ("side", "front"):
        return opts.view
    if doc.attrs.get("view") in ("side", "front"):
        return doc.attrs["view"]
    from posecode_ssg.motion.view import choose_view

    return choose_view(doc.program())


def _fmt_time(t: float) -> str:
    return f"{t:.3f}".rstrip("0").rstrip(".")


# ---------------------------------------------------------------------------------------------
# poses: a solved keyframe, or the runtime's pose at any time
# ---------------------------------------------------------------------------------------------


def keyframe_scene(doc: ExportDoc, index: int, view: str, flip: bool, keep_turn: bool = False):
    """(figure prims, prop prims, equipment drawings) of keyframe ``index`` (0 start, i end of step i)."""
    from posecode_ssg.motion.poster import _frame_items, _frame_prims, prop_prims
    from posecode_ssg.motion.view import working_limbs

    program = doc.program()
    fig = _frame_prims(program, index, view, flip, working_limbs(program), keep_turn=keep_turn)
    items = _frame_items(program, index, view, flip, keep_turn=keep_turn)
    return fig, prop_prims(program.props, view, flip), items


def sample_scene(doc: ExportDoc, sample: dict, view: str, flip: bool, keep_turn: bool = False):
    """(figure prims, prop prims, equipment drawings) of one runtime ``el.sample()`` (see
    :meth:`ExportSession.sample_at`): the runtime's joints and landmarks with its travel (and,
    unless ``keep_turn``, its turn) removed, drawn as the poster draws a solved pose."""
    from posecode_ssg.motion.poster import figure_prims, prop_prims
    from posecode_ssg.motion.posterequipment import ANCHOR_R, Drawing, Shape, _held, _mat, _View
    from posecode_ssg.motion.rotation import quat_to_matrix, rot_y
    from posecode_ssg.motion.view import working_limbs

    program = doc.program()
    frame = sample.get("frame") or {}
    yaw = 0.0 if keep_turn else float(frame.get("yaw", 0.0))
    travel = frame.get("travel") or [0.0, 0.0]
    R = rot_y(-yaw)
    off = np.array([float(travel[0]), 0.0, float(travel[1])])
    pts = {n: R @ (np.asarray(p, float) - off) for n, p in {**sample["bones"], **sample["landmarks"]}.items()}
    rot_head = R @ quat_to_matrix(sample["orientation"]["head"])
    fig = figure_prims(pts, view, flip, working_limbs(program), rot_head)
    items = []
    eq = program.equipment
    if eq:
        v = _View(view, flip, yaw, travel)
        for rec in sample.get("equipment") or []:
            centre = v.uv(v.point(rec["position"]))
            if rec["item"] == "mat":
                items.append(Drawing("mat", "scene", centre, [_mat(v, eq)]))
                continue
            items.append(Drawing(rec["item"], "load", centre, _held(v, rec)))
            if "anchor" in rec.get("attached", []):
                knob = v.uv(v.point(eq["anchor"]))
                items.append(Drawing(rec["item"], "scene", knob, [Shape("disc", [knob], ANCHOR_R, "anchor")],
                                     anchor=True))
    return fig, prop_prims(program.props, view, flip), items


def runtime_samples(doc: ExportDoc, times: list[float], session: ExportSession | None, why: str) -> list[dict]:
    """The runtime's samples at ``times``; :class:`ExportUnavailable` saying ``why`` the runtime is
    needed when there is no browser."""
    if session is None:
        raise ExportUnavailable(f"{why} needs the browser runtime, and no session was given")
    try:
        return session.sample_at(doc.motion(), times)
    except ExportUnavailable as exc:
        raise ExportUnavailable(f"{doc.label}: {why} needs the runtime's solved pose: {exc}") from None


def scene_at(doc: ExportDoc, t: float, view: str, flip: bool, session: ExportSession | None):
    """The scene of the frame at ``t`` s: the build's solved keyframe when ``t`` is a phase end
    (or the start), else the runtime's pose."""
    index = frame_index(doc, t)
    if index is not None:
        return keyframe_scene(doc, index, view, flip)
    sample, = runtime_samples(doc, [t], session, f"a frame at {_fmt_time(t)} s (between phase ends)")
    return sample_scene(doc, sample, view, flip)


# ---------------------------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------------------------


def scene_svg(fig, props, items, *, title: str, width: int | None = None, height: int | None = None) -> str:
    """A standalone ``<svg>`` of one pose as the poster draws it (ground, scene items, props, the
    figure with its held items, handles); ``width``/``height`` px set the drawn size (the view box
    keeps the poster's framing)."""
    from posecode_ssg.motion.poster import (
        _f,
        _figure_svg,
        _scene_svg,
        _style,
        _svg_prims,
        fit_view_box,
        prim_bounds,
    )
    from posecode_ssg.motion.posterequipment import drawings_bounds

    x0, y0, x1, y1 = drawings_bounds(items, prim_bounds(fig + props))
    bx, by, bw, bh = fit_view_box(x0 - 0.2, min(y0, 0.0) - 0.12, x1 + 0.2, y1 + 0.15)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pc-poster" role="img" aria-label="{escape(title)}" '
        f'viewBox="{_f(bx)} {_f(-(by + bh))} {_f(bw)} {_f(bh)}" width="{_f(bw)}" height="{_f(bh)}">',
        f"<title>{escape(title)}</title>",
        _style(items),
        f'<line class="pc-ground" stroke-width="2" x1="{_f(bx)}" y1="0" x2="{_f(bx + bw)}" y2="0"/>',
        *_scene_svg(items),
        '<g class="pc-props">', *_svg_prims([p for p in props if p.cls == "prop"]), "</g>",
        *_figure_svg(fig, items),
        *_svg_prims([p for p in props if p.cls == "handle"]),
        "</svg>",
    ]
    return sized_svg("\n".join(parts), width, height)


def sized_svg(svg: str, width: int | None, height: int | None) -> str:
    """``svg`` with its root ``width``/``height`` set to the pixels asked for (one of them given:
    the other from the view box's aspect)."""
    if width is None and height is None:
        return svg
    m = re.search(r'viewBox="([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)"', svg)
    aspect = float(m.group(3)) / float(m.group(4)) if m else 16 / 9
    if width is None:
        width = round(height * aspect)
    if height is None:
        height = round(width / aspect)
    head, rest = svg.split(">", 1)
    head = re.sub(r' width="[^"]*"', f' width="{width}"', head, count=1)
    head = re.sub(r' height="[^"]*"', f' height="{height}"', head, count=1)
    return head + ">" + rest


def _check_size(opts: ExportOptions) -> None:
    for name, v in (("--width", opts.width), ("--height", opts.height)):
        if v is not None and not MIN_SIDE <= v <= MAX_SIDE:
            raise ExportError(f"{name} {v}: must be between {MIN_SIDE} and {MAX_SIDE} pixels")


def write_svg(doc: ExportDoc, opts: ExportOptions, out: Path, session: ExportSession) -> list[str]:
    """The 2D figure at the frame of :func:`~posecode_ssg.export.core.frame_time` as SVG."""
    _check_size(opts)
    view = view_of(doc, opts)
    t = frame_time(doc, opts)
    title = doc.attrs.get("title") or doc.name
    index = frame_index(doc, t)
    if index is not None:
        from posecode_ssg.motion.poster import render_poster

        svg = sized_svg(render_poster(doc.program(), view=view, flip=opts.flip, title=title, frame=index),
                        opts.width, opts.height)
    else:
        fig, props, items = scene_at(doc, t, view, opts.flip, session)
        svg = scene_svg(fig, props, items, title=f"{title} at {_fmt_time(t)} s", width=opts.width, height=opts.height)
    write_atomic(out, svg + "\n")
    return [f"wrote {out} (SVG, {view} view, t = {_fmt_time(t)} s)"]


# ---------------------------------------------------------------------------------------------
# PNG
# ---------------------------------------------------------------------------------------------


def _pillow() -> None:
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ExportUnavailable("PNG export needs Pillow: pip install 'posecode-ssg[gif]'") from None


def png_2d(doc: ExportDoc, opts: ExportOptions, session: ExportSession | None) -> tuple[bytes, float, str]:
    """(PNG bytes, time, view) of the 2D figure at the single-frame time."""
    _pillow()
    from posecode_ssg.motion.posterpng import scene_png

    view = view_of(doc, opts)
    t = frame_time(doc, opts)
    fig, props, items = scene_at(doc, t, view, opts.flip, session)
    width = opts.width if opts.width is not None or opts.height is not None else PNG_WIDTH
    return scene_png(fig, props, items, width=width, height=opts.height), t, view


def _browser_present() -> bool:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    from posecode_ssg.evaluate.browser import have_browser

    return have_browser()


def write_png(doc: ExportDoc, opts: ExportOptions, out: Path, session: ExportSession) -> list[str]:
    """A PNG of one frame: ``--renderer 3d`` (the default where Chromium is) the real runtime,
    by :func:`posecode_ssg.export.raster3d.write_png3d`; ``2d`` (the default without Chromium,
    with a note) the 2D figure with its equipment."""
    _check_size(opts)
    notes: list[str] = []
    if opts.renderer != "2d":
        explicit = opts.renderer == "3d"
        fn = None
        try:
            from posecode_ssg.export import raster3d

            fn = getattr(raster3d, "write_png3d", None)
        except ModuleNotFoundError as exc:
            if exc.name and not "posecode_ssg.export.raster3d".startswith(exc.name):
                raise
        if fn is None:
            if explicit:
                raise ExportUnavailable("--renderer 3d is not available in this version "
                                        "(posecode_ssg.export.raster3d is missing)")
            notes.append("note: the 3D renderer is not available in this version; drew the 2D figure")
        elif explicit or _browser_present():
            return fn(doc, opts, out, session)
        else:
            from posecode_ssg.evaluate.browser import INSTALL_HINT

            notes.append(f"note: no Chromium for the 3D render, drew the 2D figure ({INSTALL_HINT})")
    data, t, view = png_2d(doc, opts, session)
    write_atomic(out, data)
    from PIL import Image

    size = Image.open(io.BytesIO(data)).size
    return [f"wrote {out} ({size[0]}×{size[1]}, 2D, {view} view, t = {_fmt_time(t)} s)", *notes]


# ---------------------------------------------------------------------------------------------
# contact sheet
# ---------------------------------------------------------------------------------------------


def sheet_frames(doc: ExportDoc, mid: bool) -> list[tuple[str, float, int | None]]:
    """The sheet's cells: ``(label, time, keyframe index or None)``: the start, then per step its
    middle (with ``mid``) and its end, labelled with the step's name."""
    from posecode_ssg.motion.postertext import POSTER_TEXT

    cells = [(POSTER_TEXT["strip_start"], 0.0, 0)]
    start = 0.0
    for i, (name, end) in enumerate(zip(doc.step_names, doc.phase_times()), 1):
        if mid:
            cells.append((f"{name} (middle)", (start + end) / 2, None))
        cells.append((name, end, i))
        start = end
    return cells


def sheet_scenes(doc: ExportDoc, opts: ExportOptions, session: ExportSession | None):
    """[(label, (fig, props, items))] of the sheet (turns kept, travel removed, as the phase strip)."""
    view = view_of(doc, opts)
    frames = sheet_frames(doc, opts.mid)
    between = [t for _l, t, i in frames if i is None]
    samples = iter(runtime_samples(doc, between, session, "--mid (the middle of each step)") if between else [])
    out = []
    for label, _t, index in frames:
        if index is not None:
            out.append((label, keyframe_scene(doc, index, view, opts.flip, keep_turn=True)))
        else:
            out.append((label, sample_scene(doc, next(samples), view, opts.flip, keep_turn=True)))
    return out, view


def _sheet_layout(cells):
    from posecode_ssg.motion.poster import prim_bounds
    from posecode_ssg.motion.posterequipment import drawings_bounds

    allp = [p for _l, (fig, props, _i) in cells for p in fig + props]
    x0, y0, x1, y1 = drawings_bounds([d for _l, (_f, _p, its) in cells for d in its], prim_bounds(allp))
    y0 = min(y0, 0.0)
    cw = max(x1 - x0 + 0.3, 1.2)
    ch = y1 - y0 + 0.55
    columns = min(len(cells), 4)
    rows = -(-len(cells) // columns)
    return x0, y0, x1, y1, cw, ch, columns, rows


#: the sheet's title band (m, at the figures' scale)
SHEET_TITLE = 0.35


def sheet_svg(doc: ExportDoc, cells, width: int | None = None, height: int | None = None) -> str:
    """The contact sheet as SVG: a grid of cells, each its pose with the step's name under it."""
    from posecode_ssg.motion.poster import _f, _figure_svg, _scene_svg, _style, _svg_prims, strip_label_size

    x0, y0, x1, y1, cw, ch, columns, rows = _sheet_layout(cells)
    W, H = cw * columns, ch * rows + SHEET_TITLE
    labels = ", ".join(label for label, _ in cells)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="pc-sheet" role="img" '
             f'aria-label="{escape(doc.name)}: {escape(labels)}" viewBox="0 0 {_f(W)} {_f(H)}" '
             f'width="{_f(W)}" height="{_f(H)}">',
             f"<title>{escape(doc.name)}</title>",
             _style(any(items for _l, (_f2, _p, items) in cells)),
             f'<text class="pc-label" x="{_f(W / 2)}" y="{_f(SHEET_TITLE * 0.7)}" style="font-size:18px;'
             f'font-weight:600" text-anchor="middle">{escape(doc.name)}</text>']
    for k, (label, (fig, props, items)) in enumerate(cells):
        r, c = divmod(k, columns)
        dx = c * cw - x0 + 0.15
        # the figure plane's y up: the cell's ground at SVG y = top + (y1 + 0.15) m
        gy = SHEET_TITLE + r * ch + (y1 + 0.15)
        parts.append(f'<g class="pc-cell" transform="translate(0 {_f(gy)})">')
        parts.append(f'<line class="pc-ground" stroke-width="2" x1="{_f(c * cw + 0.05)}" y1="0" '
                     f'x2="{_f((c + 1) * cw - 0.05)}" y2="0"/>')
        parts += _scene_svg(items, dx=dx)
        parts += _svg_prims([p for p in props if p.cls == "prop"], dx=dx)
        parts += _figure_svg(fig, items, dx=dx)
        parts += _svg_prims([p for p in props if p.cls == "handle"], dx=dx)
        parts.append(f'<text class="pc-label" x="{_f(c * cw + cw / 2)}" y="{_f(-y0 + 0.25)}" '
                     f'style="font-size:{strip_label_size(label, cw):.1f}px" text-anchor="middle">{escape(label)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return sized_svg("\n".join(parts), width, height)


def _font(px: int):
    from posecode_ssg.motion.posterpng import label_font

    return label_font(px)


def sheet_png(doc: ExportDoc, cells, width: int | None = None, height: int | None = None) -> bytes:
    """The contact sheet as PNG (``width`` px wide, default :data:`SHEET_CELL_PX` a cell; a
    ``height`` alone scales to it; both: the sheet fitted inside, centred)."""
    _pillow()
    from PIL import Image, ImageDraw

    from posecode_ssg.motion.posterpng import RGB, Canvas

    x0, y0, x1, y1, cw, ch, columns, rows = _sheet_layout(cells)
    W, H = cw * columns, ch * rows + SHEET_TITLE
    if width is None and height is None:
        k = SHEET_CELL_PX / cw
    elif width is None:
        k = height / H
    elif height is None:
        k = width / W
    else:
        k = min(width / W, height / H)
    size = (width or int(round(W * k)), height or int(round(H * k)))
    image = Image.new("RGB", size, (255, 255, 255))
    ox, oy = (size[0] - W * k) / 2, (size[1] - H * k) / 2
    draw = ImageDraw.Draw(image)
    title_font = _font(max(8, int(0.16 * k)))
    draw.text((size[0] / 2, oy + SHEET_TITLE * k * 0.55), doc.name, fill=RGB["right"], font=title_font, anchor="mm")
    cell_px = max(1, int(round(cw * k)))
    for n, (label, (fig, props, items)) in enumerate(cells):
        r, c = divmod(n, columns)
        # the cell's box in the figure plane: x from x0 - 0.15, y from the label band to y1 + 0.15
        box = (x0 - 0.15, y0 - 0.4, cw, ch)
        canvas = Canvas(box, cell_px)
        canvas.scene(fig, props, items)
        left, top = int(round(ox + c * cw * k)), int(round(oy + (SHEET_TITLE + r * ch) * k))
        image.paste(canvas.image, (left, top))
        font = _font(max(8, min(int(0.11 * k), int(1.6 * cw * k / max(len(label), 1)))))
        ly = top + (y1 + 0.15 - y0 + 0.22) * k
        draw.text((left + cw * k / 2, ly), label, fill=RGB["right"], font=font, anchor="mm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def write_sheet(doc: ExportDoc, opts: ExportOptions, out: Path, session: ExportSession) -> list[str]:
    """A contact sheet of the start and the phase ends (``--mid``: the middle of each step too,
    from the runtime), each labelled with its step's name; SVG or PNG by ``out``'s suffix."""
    _check_size(opts)
    suffix = out.suffix.lower()
    if suffix not in (".svg", ".png"):
        if not out.suffix:
            raise ExportError(f"{out}: a contact sheet is written as .svg or .png: give -o a name ending in one "
                              "of them, or an existing folder")
        raise ExportError(f"{out}: a contact sheet is written as .svg or .png, not '{out.suffix}'")
    cells, view = sheet_scenes(doc, opts, session)
    if suffix == ".svg":
        write_atomic(out, sheet_svg(doc, cells, opts.width, opts.height) + "\n")
        kind = "SVG"
    else:
        data = sheet_png(doc, cells, opts.width, opts.height)
        write_atomic(out, data)
        from PIL import Image

        w, h = Image.open(io.BytesIO(data)).size
        kind = f"PNG {w}×{h}"
    return [f"wrote {out} (contact sheet, {kind}, {len(cells)} frames, {view} view)"]
