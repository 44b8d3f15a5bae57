"""Equipment in the static figures (issue 20): the items :func:`posecode_ssg.motion.equipment.attach`
places on a solved world, drawn in a poster's side or front view (:mod:`posecode_ssg.motion.poster`).

The visual language is the props layer of ../shared/seeds/003_1fcac89a615df14b.txt: scene items
(the mat, a band's anchor) in a recessive grey *behind* the figure, items held on the body
(dumbbell, kettlebell, barbell, medicine ball, band) in a darker grey *over* the limbs, the head
still drawn last so the figure stays the hero. Items are schematic silhouettes at their real
sizes (:data:`posecode_ssg.motion.equipment.GEOMETRY`, metres), projected orthographically like
the figure: a cylinder (a handle, a dumbbell head, a bar, a plate) is the outline of its
projection, two half-ellipse caps joined by straight sides, which is a circle of its radius seen
end-on and a rectangle seen side-on; a bell or a ball is a circle; a band's strand is a line.

Colours are the CSS custom properties ``--pc-load`` and ``--pc-scene`` (the runtime's too), their
fallbacks :data:`posecode_ssg.motion.equipment.COLOURS`.

Every drawn item is one ``<g class="posecode-equipment posecode-equipment-<item> pc-<layer>">``
carrying ``data-centre="x,y"``: the projection of its attach ``position`` in the SVG's user units
(the mat's centre on the floor, a held item's grip point, a band's mean end, a bar's middle).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .equipment import COLOURS as ROLE_COLOURS
from .equipment import GEOMETRY, attach
from .rotation import rot_y

__all__ = ["COLOURS", "STYLE", "Shape", "Drawing", "equipment_drawings", "drawings_bounds", "drawing_svg"]

#: CSS custom property -> fallback colour of each layer (held items, scene items)
COLOURS = {"--pc-load": ROLE_COLOURS["load"], "--pc-scene": ROLE_COLOURS["scene"]}

#: the mat's drawn strip (m): from the ground line's lower edge (the line is 0.02 m wide) to this
#: height, or the mat's thickness when thicker: its real 6 mm would vanish inside the ground line
MAT_STRIP = (-0.01, 0.022)
#: radius (m) of the knob drawn at a band's anchor (the runtime draws the same)
ANCHOR_R = 0.025
#: a cylinder whose projected length is below this (m) is seen end-on: drawn as a circle
END_ON = 0.002

STYLE = (
    f".pc-load{{fill:var(--pc-load,{COLOURS['--pc-load']});stroke:var(--pc-load,{COLOURS['--pc-load']})}}"
    f".pc-scene{{fill:var(--pc-scene,{COLOURS['--pc-scene']});stroke:var(--pc-scene,{COLOURS['--pc-scene']})}}"
    ".pc-load polyline,.pc-scene polyline{fill:none;stroke-linecap:round;stroke-linejoin:round}"
    ".pc-load circle,.pc-load path,.pc-scene circle,.pc-scene rect{stroke:none}"
)


@dataclass
class Shape:
    """One drawn part of an item, in view metres (u right, y up).

    ``kind``: ``line`` (a stroked polyline through ``pts``, ``width`` its stroke width), ``disc``
    (a filled circle at ``pts[0]``, ``width`` its radius), ``rect`` (a filled axis-aligned
    rectangle between the corners ``pts[0]`` and ``pts[1]``) or ``cylinder`` (the filled outline
    of a cylinder's projection from end centre ``pts[0]`` to ``pts[1]``, ``width`` its radius,
    ``minor`` its end caps' projected half-width along the axis, 0..``width``). ``part``: what it
    is (``handle``, ``head``, ``bell``, ``bar``, ``plate``, ``ball``, ``strand``, ``mat``, ``anchor``).
    """

    kind: str
    pts: list
    width: float
    part: str
    minor: float = 0.0


@dataclass
class Drawing:
    """One drawn item: ``item`` (dumbbell, kettlebell, barbell, medicine-ball, band, mat),
    ``layer`` (``load`` over the limbs, ``scene`` behind the figure), ``centre`` (u, y) m, the
    projection of its attach ``position``, and its ``shapes`` in drawing order. ``anchor``: the
    knob of an anchored band (drawn in the scene layer, not an item of its own)."""

    item: str
    layer: str
    centre: tuple[float, float]
    shapes: list[Shape]
    anchor: bool = False


class _View:
    """The poster's projection of one frame: the keyframe's ``yaw`` (degrees) and ``travel``
    ((x, z) m) removed as :func:`posecode_ssg.motion.view.body_frame` removes them, then side
    (z → right) or front (x → right) view, mirrored when ``flip``."""

    def __init__(self, view: str, flip: bool, yaw: float, travel) -> None:
        self.iu, self.depth = (2, 0) if view == "side" else (0, 2)
        self.sign = -1.0 if flip else 1.0
        self.R = rot_y(-yaw)
        self.t = np.array([float(travel[0]), 0.0, float(travel[1])])

    def point(self, p) -> np.ndarray:
        return self.R @ (np.asarray(p, float) - self.t)

    def vec(self, v) -> np.ndarray:
        return self.R @ np.asarray(v, float)

    def uv(self, q) -> tuple[float, float]:
        return (self.sign * float(q[self.iu]), float(q[1]))


def _cylinder(v: _View, c: np.ndarray, axis: np.ndarray, length: float, r: float, part: str) -> Shape:
    """A cylinder (facing-frame centre ``c``, unit ``axis``, ``length``, radius ``r``, m)."""
    e0, e1 = v.uv(c - axis * (length / 2)), v.uv(c + axis * (length / 2))
    if math.hypot(e1[0] - e0[0], e1[1] - e0[1]) < END_ON:
        return Shape("disc", [v.uv(c)], r, part)
    return Shape("cylinder", [e0, e1], r, part, minor=r * min(1.0, abs(float(axis[v.depth]))))


def _unit(a) -> np.ndarray:
    a = np.asarray(a, float)
    return a / max(float(np.linalg.norm(a)), 1e-12)


def _held(v: _View, rec: dict) -> list[Shape]:
    """The shapes of a held item (attach record ``rec``) in view ``v``."""
    item, g = rec["item"], GEOMETRY[rec["item"]]
    pos, axis = v.point(rec["position"]), _unit(v.vec(rec["axis"]))
    if item == "dumbbell":
        (hl, hr), (dr, dl) = g["handle"], g["head"]
        off = axis * ((hl + dl) / 2)
        return [_cylinder(v, pos, axis, hl, hr, "handle"),
                _cylinder(v, pos - off, axis, dl, dr, "head"), _cylinder(v, pos + off, axis, dl, dr, "head")]
    if item == "barbell":
        (bl, br), (pr, pt) = g["bar"], g["plate"]
        off = axis * g["plateAt"]
        return [_cylinder(v, pos, axis, bl, br, "bar"),
                _cylinder(v, pos - off, axis, pt, pr, "plate"), _cylinder(v, pos + off, axis, pt, pr, "plate")]
    if item == "kettlebell":
        # the bell hangs `drop` straight below the handle point; the handle along the grip axis,
        # its two sides down to the bell's top (an arch, drawn over the bell)
        R, (hl, hr) = g["bell"], g["handle"]
        bell = pos - np.array([0.0, g["drop"], 0.0])
        arch = []
        for end in (pos - axis * (hl / 2), pos + axis * (hl / 2)):
            d = math.hypot(float(end[0] - bell[0]), float(end[2] - bell[2]))
            foot = end.copy()
            if d < R:
                foot[1] = min(float(end[1]), float(bell[1]) + math.sqrt(R * R - d * d))
            arch.append((foot, end))
        pts = [v.uv(arch[0][0]), v.uv(arch[0][1]), v.uv(arch[1][1]), v.uv(arch[1][0])]
        return [Shape("disc", [v.uv(bell)], R, "bell"), Shape("line", pts, 2 * hr, "handle")]
    if item == "medicine-ball":
        return [Shape("disc", [v.uv(pos)], g["radius"], "ball")]
    # a band: one strand per side, from its start (a sole or the anchor) to the grip point
    ends = [v.uv(v.point(e)) for e in rec["ends"]]
    return [Shape("line", [ends[k], ends[k + 1]], 2 * g["radius"], "strand") for k in (0, 2)]


def _mat(v: _View, eq: dict) -> Shape:
    """The mat (motion JSON ``equipment.mat``) as a floor strip over its footprint's extent in
    the view (its four corners projected)."""
    m, g = eq["mat"], GEOMETRY["mat"]
    yaw = math.radians(m["yaw"])
    c = np.array([m["center"][0], 0.0, m["center"][1]])
    along = np.array([math.sin(yaw), 0.0, math.cos(yaw)]) * (m["size"][1] / 2)
    across = np.array([math.cos(yaw), 0.0, -math.sin(yaw)]) * (m["size"][0] / 2)
    us = [v.uv(v.point(c + a + b))[0] for a in (along, -along) for b in (across, -across)]
    top = max(MAT_STRIP[1], g["thickness"])
    return Shape("rect", [(min(us), MAT_STRIP[0]), (max(us), top)], 0.0, "mat")


def equipment_drawings(world, eq: dict | None, *, view: str, flip: bool = False,
                       yaw: float = 0.0, travel=(0.0, 0.0)) -> list[Drawing]:
    """The items of motion JSON ``equipment`` ``eq`` on solved world ``world``, drawn in the
    poster's ``view`` (``side`` or ``front``, mirrored when ``flip``) with the keyframe's turn
    ``yaw`` (degrees) and ``travel`` ((x, z) m) removed as the figure's are.

    Returns one :class:`Drawing` per :func:`~posecode_ssg.motion.equipment.attach` record, in
    its order (plus an ``anchor`` drawing after an anchored band); ``[]`` without equipment.
    All coordinates are view metres (u right, y up)."""
    if not eq:
        return []
    v = _View(view, flip, yaw, travel)
    out = []
    for rec in attach(world, eq):
        centre = v.uv(v.point(rec["position"]))
        if rec["item"] == "mat":
            out.append(Drawing("mat", "scene", centre, [_mat(v, eq)]))
            continue
        out.append(Drawing(rec["item"], "load", centre, _held(v, rec)))
        if "anchor" in rec["attached"]:
            knob = v.uv(v.point(eq["anchor"]))
            out.append(Drawing(rec["item"], "scene", knob, [Shape("disc", [knob], ANCHOR_R, "anchor")], anchor=True))
    return out


def drawings_bounds(drawings: list[Drawing], bounds=None) -> tuple[float, float, float, float] | None:
    """(x0, y0, x1, y1) view metres covering ``drawings`` and ``bounds`` (such a tuple, or None);
    None when both are empty."""
    xs, ys = ([bounds[0], bounds[2]], [bounds[1], bounds[3]]) if bounds else ([], [])
    for d in drawings:
        for s in d.shapes:
            pad = 0.0 if s.kind == "rect" else s.width / 2 if s.kind == "line" else s.width
            for x, y in s.pts:
                xs += [x - pad, x + pad]
                ys += [y - pad, y + pad]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def _cylinder_path(s: Shape, f: Callable[[float], str], dx: float, dy: float) -> str:
    """SVG path data of a cylinder's projected outline: the side from one end to the other, a
    half-ellipse cap (major radius ``width`` across the axis, minor ``minor`` along it) bulging
    outward at each end."""
    (x0, y0), (x1, y1) = ((x + dx, -(y + dy)) for x, y in s.pts)   # SVG: y down
    L = math.hypot(x1 - x0, y1 - y0)
    ax, ay = (x1 - x0) / L, (y1 - y0) / L
    mx, my = -ay, ax
    r, q = s.width, s.minor
    A, B = (x0 + r * mx, y0 + r * my), (x1 + r * mx, y1 + r * my)
    C, D = (x1 - r * mx, y1 - r * my), (x0 - r * mx, y0 - r * my)
    tip1, tip0 = (x1 + q * ax, y1 + q * ay), (x0 - q * ax, y0 - q * ay)
    # the arc B -> C through tip1 turns the positive-angle way (SVG sweep 1) when the cross
    # product of (tip1 - B) and (C - B) is positive; the other cap turns the same way. Each cap
    # is two quarter arcs through its tip: a half-ellipse between the ends of its major axis is
    # ill-conditioned once its end points are rounded (the arc's centre jumps)
    sweep = int((tip1[0] - B[0]) * (C[1] - B[1]) - (tip1[1] - B[1]) * (C[0] - B[0]) > 0)
    arc = f"A{f(r)} {f(q)} {math.degrees(math.atan2(my, mx)):.1f} 0 {sweep} "
    P = lambda p: f"{f(p[0])} {f(p[1])}"  # noqa: E731
    return f"M{P(A)}L{P(B)}{arc}{P(tip1)}{arc}{P(C)}L{P(D)}{arc}{P(tip0)}{arc}{P(A)}Z"


def drawing_svg(d: Drawing, f: Callable[[float], str], dx: float = 0.0, dy: float = 0.0) -> str:
    """One drawing as an SVG ``<g>``, shifted by (``dx``, ``dy``) m; ``f`` formats metres as
    SVG user units (the poster's scale). An item's group has the classes
    ``posecode-equipment posecode-equipment-<item> pc-<layer>`` and ``data-centre="x,y"`` (its
    attach position, in user units); an anchor's has ``posecode-equipment-anchor pc-scene``."""
    cx, cy = d.centre[0] + dx, -(d.centre[1] + dy)
    cls = "posecode-equipment-anchor" if d.anchor else f"posecode-equipment posecode-equipment-{d.item}"
    parts = [f'<g class="{cls} pc-{d.layer}" data-centre="{f(cx)},{f(cy)}">']
    for s in d.shapes:
        part = f' data-part="{s.part}"'
        if s.kind == "line":
            pts = " ".join(f"{f(x + dx)},{f(-(y + dy))}" for x, y in s.pts)
            parts.append(f'<polyline{part} stroke-width="{f(s.width)}" points="{pts}"/>')
        elif s.kind == "disc":
            (x, y), = s.pts
            parts.append(f'<circle{part} cx="{f(x + dx)}" cy="{f(-(y + dy))}" r="{f(s.width)}"/>')
        elif s.kind == "rect":
            (x0, y0), (x1, y1) = s.pts
            parts.append(f'<rect{part} x="{f(min(x0, x1) + dx)}" y="{f(-(max(y0, y1) + dy))}" '
                         f'width="{f(abs(x1 - x0))}" height="{f(abs(y1 - y0))}" rx="1"/>')
        else:
            parts.append(f'<path{part} d="{_cylinder_path(s, f, dx, dy)}"/>')
    parts.append("</g>")
    return "".join(parts)
