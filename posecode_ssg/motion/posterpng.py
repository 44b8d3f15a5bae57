"""Raster drawings of the poster's 2-D figure with Pillow: the poster frame as a PNG (what a
LaTeX or EPUB build shows where an HTML page has the player: pdflatex reads PNG, not SVG) and
the frames of the GIF preview (:mod:`.gif`), from the same primitives as the SVG poster
(:mod:`.poster` ``figure_prims`` / ``prop_prims``) in its colours, with the equipment of
:mod:`.posterequipment` (the mat behind the figure, held items over the limbs, under the head)
as the SVG poster draws it.
"""

from __future__ import annotations

import io

import numpy as np

from .equipment import COLOURS as EQUIPMENT_COLOURS
from .poster import COLOURS, _frame_items, _frame_prims, fit_view_box, prim_bounds, prop_prims
from .posterequipment import drawings_bounds
from .view import choose_view, primary_index, working_limbs


def _rgb(c: str) -> tuple[int, int, int]:
    return tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))


#: the poster's colour roles (``--pc-right`` … without the prefix) as RGB
RGB = {name[5:]: _rgb(v) for name, v in COLOURS.items()}
RGB.update({role: _rgb(v) for role, v in EQUIPMENT_COLOURS.items()})

#: the figure's parts drawn over the held equipment (as poster.py ``_HEAD_PARTS``)
_HEAD_PARTS = frozenset({"neck", "head", "nose"})


class Canvas:
    """A white Pillow image of ``width`` px showing the box (bx, by, bw, bh) of the figure plane
    (metres, y up), with the floor line at y = 0."""

    def __init__(self, box: tuple[float, float, float, float], width: int):
        from PIL import Image, ImageDraw

        self.bx, self.by, self.bw, self.bh = box
        self.k = width / self.bw
        self.size = (width, int(round(self.bh * self.k)))
        self.image = Image.new("RGB", self.size, (255, 255, 255))
        self.draw = ImageDraw.Draw(self.image)
        gy = self.px((0.0, 0.0))[1]
        self.draw.line([(0, gy), (width, gy)], fill=RGB["ground"], width=max(2, int(round(0.02 * self.k))))

    def px(self, pt) -> tuple[float, float]:
        """A point of the figure plane (m) in pixels (y down)."""
        return ((pt[0] - self.bx) * self.k, (self.by + self.bh - pt[1]) * self.k)

    def prims(self, prims) -> None:
        """Draw poster primitives (``_Prim``: rect, circle, line, quad) in their colour roles;
        strokes get round caps, quadratic curves 12 segments."""
        dr, k = self.draw, self.k
        for p in prims:
            col = RGB["ground" if p.cls == "handle" else p.cls]
            if p.kind == "rect":
                (a0, a1), (b0, b1) = self.px(p.pts[0]), self.px(p.pts[1])
                dr.rectangle([min(a0, b0), min(a1, b1), max(a0, b0), max(a1, b1)], fill=col)
            elif p.kind == "circle":
                (cx, cy), r = self.px(p.pts[0]), p.width * k
                dr.ellipse([cx - r, cy - r, cx + r, cy + r], fill=col)
            else:
                pts = p.pts
                if p.kind == "quad":
                    (x0, y0), (x1, y1), (x2, y2) = pts
                    pts = [((1 - t) ** 2 * x0 + 2 * (1 - t) * t * x1 + t * t * x2,
                            (1 - t) ** 2 * y0 + 2 * (1 - t) * t * y1 + t * t * y2) for t in np.linspace(0, 1, 12)]
                w = max(1, int(round(p.width * k)))
                q = [self.px(pt) for pt in pts]
                dr.line(q, fill=col, width=w, joint="curve")
                for cx, cy in (q[0], q[-1]):
                    dr.ellipse([cx - w / 2, cy - w / 2, cx + w / 2, cy + w / 2], fill=col)

    def scene(self, figure, props, items=()) -> None:
        """The scene equipment (mat, a band's anchor), the props, the figure with the held items
        over its limbs and under its head, then the props' handles over it (the SVG poster's
        order; ``items``: :class:`~.posterequipment.Drawing` s)."""
        self.drawings([d for d in items if d.layer == "scene"])
        self.prims([p for p in props if p.cls == "prop"])
        load = [d for d in items if d.layer == "load"]
        if load:
            self.prims([p for p in figure if p.part not in _HEAD_PARTS])
            self.drawings(load)
            self.prims([p for p in figure if p.part in _HEAD_PARTS])
        else:
            self.prims(figure)
        self.prims([p for p in props if p.cls == "handle"])

    def drawings(self, items) -> None:
        """Draw equipment drawings (:mod:`.posterequipment` shapes: line, disc, rect, cylinder)
        in their layer's colour (``load`` or ``scene``)."""
        dr, k = self.draw, self.k
        for d in items:
            col = RGB[d.layer]
            for s in d.shapes:
                if s.kind == "line":
                    w = max(1, int(round(s.width * k)))
                    q = [self.px(pt) for pt in s.pts]
                    dr.line(q, fill=col, width=w, joint="curve")
                    for cx, cy in (q[0], q[-1]):
                        dr.ellipse([cx - w / 2, cy - w / 2, cx + w / 2, cy + w / 2], fill=col)
                elif s.kind == "disc":
                    (cx, cy), r = self.px(s.pts[0]), s.width * k
                    dr.ellipse([cx - r, cy - r, cx + r, cy + r], fill=col)
                elif s.kind == "rect":
                    (a0, a1), (b0, b1) = self.px(s.pts[0]), self.px(s.pts[1])
                    dr.rectangle([min(a0, b0), min(a1, b1), max(a0, b0), max(a1, b1)], fill=col)
                else:
                    dr.polygon([self.px(pt) for pt in cylinder_outline(s)], fill=col)


def cylinder_outline(s, steps: int = 10) -> list[tuple[float, float]]:
    """The outline (view metres) of a ``cylinder`` shape's projection: its sides and a half-ellipse
    cap (half-width ``width`` across the axis, ``minor`` along it) bulging out at each end."""
    (x0, y0), (x1, y1) = s.pts
    L = max(float(np.hypot(x1 - x0, y1 - y0)), 1e-12)
    ax, ay = (x1 - x0) / L, (y1 - y0) / L
    mx, my = -ay, ax
    r, q = s.width, s.minor
    out = []
    for (ex, ey), sign in (((x1, y1), 1.0), ((x0, y0), -1.0)):
        for th in np.linspace(0.0, np.pi, steps):
            c, sn = float(np.cos(th)), float(np.sin(th))
            out.append((ex + sign * (r * c * mx + q * sn * ax), ey + sign * (r * c * my + q * sn * ay)))
    return out


def poster_box(prims, items=(), aspect: float = 16 / 9) -> tuple[float, float, float, float]:
    """The poster's view box (m) around ``prims`` and the equipment drawings ``items``: 0.2 m
    each side, the floor included, ``aspect`` (16:9, :func:`~.poster.fit_view_box`), as the SVG
    poster frames it."""
    x0, y0, x1, y1 = drawings_bounds(list(items), prim_bounds(prims))
    return fit_view_box(x0 - 0.2, min(y0, 0.0) - 0.12, x1 + 0.2, y1 + 0.15, aspect=aspect)


def scene_png(figure, props, items=(), *, width: int | None = 960, height: int | None = None) -> bytes:
    """PNG bytes of one pose's primitives ``figure``, ``props`` and equipment drawings ``items``
    framed as the poster frames them: ``width`` × ``height`` px (one of them may be None: 16:9)."""
    if width is None and height is None:
        width = 960
    if width is None:
        width = int(round(height * 16 / 9))
    aspect = 16 / 9 if height is None else width / height
    canvas = Canvas(poster_box(list(figure) + list(props), items, aspect), width)
    if height is not None and canvas.size[1] != height:   # rounding: the exact size asked for
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (width, height), (255, 255, 255))
        image.paste(canvas.image.crop((0, 0, width, min(height, canvas.size[1]))), (0, 0))
        canvas.image, canvas.size = image, (width, height)
        canvas.draw = ImageDraw.Draw(image)
    canvas.scene(figure, props, items)
    out = io.BytesIO()
    canvas.image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def render_poster_png(program, *, view: str | None = None, flip: bool = False, frame: int | None = None,
                      width: int | None = 960, height: int | None = None) -> bytes:
    """The poster frame of ``program`` (a compiled MotionProgram; ``frame`` as in
    :func:`~.poster.render_poster`: default the pose farthest from the start) as PNG bytes,
    ``width`` px wide (16:9; or ``width`` × ``height``). The figure, props and equipment
    (``program.equipment``) of the SVG poster. Raises ``RuntimeError`` when Pillow is not
    installed."""
    try:
        import PIL  # noqa: F401
    except ImportError as exc:   # pragma: no cover - depends on the environment
        raise RuntimeError("PNG posters need Pillow: pip install 'posecode-ssg[gif]'") from exc
    view = view or choose_view(program)
    index = primary_index(program) if frame is None else frame
    figure = _frame_prims(program, index, view, flip, working_limbs(program))
    props = prop_prims(program.props, view, flip)
    items = _frame_items(program, index, view, flip)
    return scene_png(figure, props, items, width=width, height=height)


#: fonts tried, in order, for text drawn with Pillow (contact-sheet labels, social cards): ones
#: that cover Latin, Greek and Cyrillic, for movement names in Polish, French or German (Pillow's
#: bundled default font lacks é, ł, ß)
LABEL_FONTS = ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "LiberationSans-Regular.ttf",
               "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", "Arial.ttf")


def label_font(px: int):
    """A Pillow font of ``px`` pixels: the first of :data:`LABEL_FONTS` installed, else Pillow's
    bundled one."""
    from PIL import ImageFont

    for name in LABEL_FONTS:
        try:
            return ImageFont.truetype(name, px)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=px)
    except TypeError:   # Pillow < 10.1: the bitmap font, one size
        return ImageFont.load_default()
