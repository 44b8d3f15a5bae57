"""Raster drawings of the poster's 2-D figure with Pillow: the poster frame as a PNG (what a
LaTeX or EPUB build shows where an HTML page has the player: pdflatex reads PNG, not SVG) and
the frames of the GIF preview (:mod:`.gif`), from the same primitives as the SVG poster
(:mod:`.poster` ``figure_prims`` / ``prop_prims``) in its colours.
"""

from __future__ import annotations

import io

import numpy as np

from .poster import COLOURS, _frame_prims, fit_view_box, prim_bounds, prop_prims
from .view import choose_view, primary_index, working_limbs


def _rgb(c: str) -> tuple[int, int, int]:
    return tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))


#: the poster's colour roles (``--pc-right`` … without the prefix) as RGB
RGB = {name[5:]: _rgb(v) for name, v in COLOURS.items()}


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

    def scene(self, figure, props) -> None:
        """Props under the figure, then the figure, then the props' handles over it (the SVG
        poster's order)."""
        self.prims([p for p in props if p.cls == "prop"])
        self.prims(figure)
        self.prims([p for p in props if p.cls == "handle"])


def poster_box(prims) -> tuple[float, float, float, float]:
    """The poster's view box (m) around ``prims``: 0.2 m each side, the floor included, 16:9
    (:func:`~.poster.fit_view_box`), as the SVG poster frames it."""
    x0, y0, x1, y1 = prim_bounds(prims)
    return fit_view_box(x0 - 0.2, min(y0, 0.0) - 0.12, x1 + 0.2, y1 + 0.15)


def render_poster_png(program, *, view: str | None = None, flip: bool = False, frame: int | None = None,
                      width: int = 960) -> bytes:
    """The poster frame of ``program`` (a compiled MotionProgram; ``frame`` as in
    :func:`~.poster.render_poster`: default the pose farthest from the start) as PNG bytes,
    ``width`` px wide (16:9). The figure and props of the SVG poster; equipment is not drawn.
    Raises ``RuntimeError`` when Pillow is not installed."""
    try:
        import PIL  # noqa: F401
    except ImportError as exc:   # pragma: no cover - depends on the environment
        raise RuntimeError("PNG posters need Pillow: pip install 'posecode-ssg[gif]'") from exc
    view = view or choose_view(program)
    index = primary_index(program) if frame is None else frame
    figure = _frame_prims(program, index, view, flip, working_limbs(program))
    props = prop_prims(program.props, view, flip)
    canvas = Canvas(poster_box(figure + props), width)
    canvas.scene(figure, props)
    out = io.BytesIO()
    canvas.image.save(out, format="PNG", optimize=True)
    return out.getvalue()
