"""Static figures of a compiled movement: SVG poster, phase strip, contact sheet (the GIF preview
is in :mod:`posecode_ssg.motion.gif`; the view choice in :mod:`posecode_ssg.motion.view`).

The visual language follows ../shared/seeds/003_1fcac89a615df14b.txt ("Exercise Visual System"):

- the figure's **right** limbs are dark, its **left** limbs light and drawn **behind** the body;
  the limbs that move most are drawn in the accent colour (dark teal on the right, light teal on
  the left), so opposite-limb moves read as opposite;
- the head carries a **nose tick** toward the face (none when the face looks at the viewer); it is
  drawn last and filled, so raised arms pass behind it;
- the spine is one smooth curve through pelvis → chest → neck;
- a ground line, and props as recessive silhouettes behind the figure;
- equipment (issue 20, :mod:`posecode_ssg.motion.posterequipment`): the mat behind the figure in
  a recessive grey, items held on the body over the limbs in a darker grey, the head over them;
- side view, or front view when the motion is mainly in the frontal plane.

Colours are CSS custom properties with fallbacks (``--pc-right``, ``--pc-left``, ``--pc-accent``,
``--pc-accent-left``, ``--pc-prop``, ``--pc-ground``; the equipment's ``--pc-load`` and
``--pc-scene``, in posters that draw equipment), so a theme restyles every poster by setting
them on an ancestor of the inline ``<svg>``.

Geometry comes from the build-time solve (:mod:`posecode_ssg.motion.solve`): the drawn joints are
the solved world positions projected orthographically (side view: z → right, y → up, seen from
the figure's right; front view: x → right, seen from the front), with the keyframe's turn and
travel removed so the figure faces right (or the viewer).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from html import escape

import numpy as np

from .posterequipment import STYLE as EQUIPMENT_STYLE
from .posterequipment import Drawing, drawing_svg, drawings_bounds, equipment_drawings
from .postertext import POSTER_TEXT
from .rig import PROP_GEOMETRY
from .rotation import rot_y
from .solve import solve_keyframes
from .view import (
    body_frame,
    choose_view,
    facing_points_of,
    phase_frames,
    primary_index,
    working_limbs,
)

__all__ = ["render_poster", "render_phase_strip", "render_contact_sheet",
           "choose_view", "working_limbs", "COLOURS"]

#: Default colours (seed 003): CSS custom property -> fallback value.
COLOURS = {
    "--pc-right": "#3a3f4b",
    "--pc-left": "#a9afba",
    "--pc-accent": "#0d9488",
    "--pc-accent-left": "#86cfc5",
    "--pc-prop": "#cfd3d9",
    "--pc-ground": "#9aa1ab",
}

SCALE = 100.0          # SVG user units per metre
LIMB_W = 0.07          # stroke widths in metres
TRUNK_W = 0.11
NECK_W = 0.06
HAND_W = 0.045
FOOT_W = 0.045
HEAD_R = 0.078



# ---------------------------------------------------------------------------------------------
# 2-D primitives
# ---------------------------------------------------------------------------------------------


@dataclass
class _Prim:
    kind: str              # "line" | "quad" | "circle" | "rect"
    pts: list              # 2-D points in metres (u right, y up)
    width: float           # stroke width (m) or radius for circles
    cls: str               # colour role: right, left, accent, accent-left, prop, handle
    fill: bool = False
    part: str = ""         # body part (arm_left, leg_right, hand_left, foot_right, spine, neck, head, nose)


def _project(p: np.ndarray, view: str, flip: bool) -> tuple[float, float]:
    u = p[2] if view == "side" else p[0]
    return (-u if flip else u, float(p[1]))


def figure_prims(pts: dict, view: str, flip: bool, working: set[str], rot_head: np.ndarray) -> list[_Prim]:
    P = lambda n: _project(pts[n], view, flip)  # noqa: E731
    prims: list[_Prim] = []

    def limb_cls(group: str) -> str:
        side = "left" if group.endswith("left") else "right"
        if group in working:
            return "accent-left" if side == "left" else "accent"
        return side

    def arm(side):
        g = f"arm_{side}"
        c = limb_cls(g)
        prims.append(_Prim("line", [P(f"shoulder_{side}"), P(f"elbow_{side}"), P(f"wrist_{side}")], LIMB_W, c,
                           part=f"arm_{side}"))
        prims.append(_Prim("line", [P(f"wrist_{side}"), P(f"middle_tip_{side}")], HAND_W, c, part=f"hand_{side}"))

    def leg(side):
        g = f"leg_{side}"
        c = limb_cls(g)
        prims.append(_Prim("line", [P(f"hip_{side}"), P(f"knee_{side}"), P(f"ankle_{side}")], LIMB_W * 1.15, c,
                           part=f"leg_{side}"))
        prims.append(_Prim("line", [P(f"ankle_{side}"), P(f"heel_{side}"), P(f"toe_{side}")], FOOT_W, c,
                           part=f"foot_{side}"))

    # left limbs behind, then the trunk, then the right limbs, the head last (seed 003)
    if view == "side":
        arm("left")
        leg("left")
    else:
        leg("left")
        leg("right")
    trunk_cls = "accent" if "trunk" in working else "right"
    pel, ch, nk = P("pelvis"), P("chest"), P("neck")
    ctrl = (2 * ch[0] - (pel[0] + nk[0]) / 2, 2 * ch[1] - (pel[1] + nk[1]) / 2)
    prims.append(_Prim("quad", [pel, ctrl, nk], TRUNK_W, trunk_cls, part="spine"))
    if view == "front":
        prims.append(_Prim("line", [P("hip_left"), P("hip_right")], LIMB_W, trunk_cls))
        prims.append(_Prim("line", [P("shoulder_left"), P("neck"), P("shoulder_right")], LIMB_W * 0.9, trunk_cls))
        arm("left")
        arm("right")
    else:
        leg("right")
        arm("right")
    head_cls = "accent" if "head" in working else "right"
    centre3 = pts["head"] + rot_head @ np.array([0.0, 0.03, 0.0])
    c2 = _project(centre3, view, flip)
    prims.append(_Prim("line", [nk, c2], NECK_W, head_cls, part="neck"))
    prims.append(_Prim("circle", [c2], HEAD_R, head_cls, fill=True, part="head"))
    # nose tick toward the face (head local +Z); none when the face looks at the viewer
    face = rot_head @ np.array([0.0, 0.0, 1.0])
    f2 = np.array(_project(face, view, flip))
    length = np.linalg.norm(f2)
    if length > 0.35:
        f2 = f2 / length
        a = (c2[0] + f2[0] * HEAD_R * 0.8, c2[1] + f2[1] * HEAD_R * 0.8)
        b = (c2[0] + f2[0] * (HEAD_R + 0.045), c2[1] + f2[1] * (HEAD_R + 0.045))
        prims.append(_Prim("line", [a, b], 0.028, head_cls, part="nose"))
    return prims


def prop_prims(props: list[str], view: str, flip: bool) -> list[_Prim]:
    prims = []
    for prop in dict.fromkeys(props):
        for m in PROP_GEOMETRY[prop]["meshes"]:
            c = np.asarray(m["center"], float)
            if m["shape"] == "box":
                half = np.asarray(m["size"], float) / 2
            else:
                half = np.full(3, m["radius"], float)
                half["xyz".index(m["axis"])] = m["length"] / 2
            iu = 2 if view == "side" else 0
            if m["shape"] == "cylinder" and m["axis"] == "xyz"[2 - iu]:
                # a bar or rail seen end-on: the handle the hands hold, drawn over the figure
                # in the darker gray (seed 003: joint-attached items over the limbs)
                prims.append(_Prim("circle", [_project(c, view, flip)], m["radius"] * 1.6, "handle", True))
                continue
            u0, u1 = c[iu] - half[iu], c[iu] + half[iu]
            if flip:
                u0, u1 = -u1, -u0
            prims.append(_Prim("rect", [(u0, c[1] - half[1]), (u1, c[1] + half[1])], 0.0, "prop", True))
    return prims


def prim_bounds(prims: list[_Prim]) -> tuple[float, float, float, float]:
    xs, ys = [], []
    for p in prims:
        pad = p.width if p.kind == "circle" else p.width / 2
        for x, y in p.pts:
            xs += [x - pad, x + pad]
            ys += [y - pad, y + pad]
    return min(xs), min(ys), max(xs), max(ys)


# ---------------------------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------------------------

_STYLE = (
    ".pc-right{stroke:var(--pc-right,#3a3f4b);fill:var(--pc-right,#3a3f4b)}"
    ".pc-left{stroke:var(--pc-left,#a9afba);fill:var(--pc-left,#a9afba)}"
    ".pc-accent{stroke:var(--pc-accent,#0d9488);fill:var(--pc-accent,#0d9488)}"
    ".pc-accent-left{stroke:var(--pc-accent-left,#86cfc5);fill:var(--pc-accent-left,#86cfc5)}"
    ".pc-prop{stroke:none;fill:var(--pc-prop,#cfd3d9)}"
    ".pc-ground{stroke:var(--pc-ground,#9aa1ab);fill:none}"
    ".pc-handle{stroke:none;fill:var(--pc-ground,#9aa1ab)}"
    ".pc-fig path,.pc-fig polyline{fill:none;stroke-linecap:round;stroke-linejoin:round}"
    ".pc-label{fill:var(--pc-right,#3a3f4b);stroke:none;font:11px system-ui,sans-serif}"
)


def _f(v: float) -> str:
    """``v`` metres as SVG units with one decimal; a whole number without its ``.0``, zero
    without a sign."""
    s = f"{v * SCALE:.1f}"
    if s[-1] != "0":    # one decimal always: a last 0 is a ".0"
        return s
    s = s[:-2]
    return "0" if s == "-0" else s


def _fs(values: list[float]) -> list[str]:
    """:func:`_f` of each of ``values`` (one comprehension: a poster formats hundreds)."""
    out = [f"{v * SCALE:.1f}" for v in values]
    return [s if s[-1] != "0" else ("0" if s == "-0.0" else s[:-2]) for s in out]


def _svg_prims(prims: list[_Prim], dx: float = 0.0, dy: float = 0.0) -> list[str]:
    out = []
    for p in prims:
        flat = [v for x, y in p.pts for v in (x + dx, -(y + dy))]
        n = _fs(flat + [p.width])
        w = n.pop()
        cls = f"pc-{p.cls}"
        if p.part:
            cls += f'" data-part="{p.part}'
        if p.kind == "line":
            out.append(f'<polyline class="{cls}" stroke-width="{w}" points="'
                       + " ".join([f"{n[i]},{n[i + 1]}" for i in range(0, len(n), 2)]) + '"/>')
        elif p.kind == "quad":
            out.append(f'<path class="{cls}" stroke-width="{w}" d="M{n[0]} {n[1]}Q{n[2]} {n[3]} {n[4]} {n[5]}"/>')
        elif p.kind == "circle":
            out.append(f'<circle class="{cls}" cx="{n[0]}" cy="{n[1]}" r="{w}"/>')
        elif p.kind == "rect":
            (x0, y0), (x1, y1) = [(x + dx, -(y + dy)) for x, y in p.pts]
            out.append(f'<rect class="{cls}" x="{_f(min(x0, x1))}" y="{_f(min(y0, y1))}" '
                       f'width="{_f(abs(x1 - x0))}" height="{_f(abs(y1 - y0))}" rx="2"/>')
    return out


def _frame_prims(program, index: int, view: str, flip: bool, working: set[str], keep_turn: bool = False):
    """Primitives of frame ``index``: travel always removed; the turn removed too (the figure
    faces right / the viewer) unless ``keep_turn`` (the phase strip shows the choreography)."""
    label, w, turn, travel = phase_frames(program)[index]
    yaw = 0.0 if keep_turn else turn
    # made once per program and frame (the poster's frame is one of the strip's when the
    # movement does not turn): the primitives are read, never changed, by what draws them
    solution = solve_keyframes(program)
    memo = getattr(program, "_frame_prims", None)
    if memo is None or memo[0] is not solution:
        memo = program._frame_prims = (solution, {})
    key = (index, view, flip, yaw, frozenset(working))
    prims = memo[1].get(key)
    if prims is None:
        pts = facing_points_of(program)[index] if yaw == turn else body_frame(w, yaw, travel)
        rot_head = rot_y(-yaw) @ w.rot["head"]
        prims = memo[1][key] = figure_prims(pts, view, flip, working, rot_head)
    return prims


def _frame_items(program, index: int, view: str, flip: bool, keep_turn: bool = False) -> list[Drawing]:
    """The equipment of frame ``index`` (``program.equipment`` attached to its solved world,
    :mod:`posecode_ssg.motion.posterequipment`), with the turn and travel removed as
    :func:`_frame_prims` removes them; ``[]`` without equipment."""
    eq = getattr(program, "equipment", None)
    if not eq:
        return []
    _label, w, turn, travel = phase_frames(program)[index]
    return equipment_drawings(w, eq, view=view, flip=flip, yaw=0.0 if keep_turn else turn, travel=travel)


#: the figure's parts drawn over the held equipment (the figure stays the hero)
_HEAD_PARTS = frozenset({"neck", "head", "nose"})


def _style(items) -> str:
    return f"<style>{_STYLE}{EQUIPMENT_STYLE if items else ''}</style>"


def _scene_svg(items, dx: float = 0.0) -> list[str]:
    """The scene items (the mat, a band's anchor): drawn first, behind the props and the figure."""
    return [drawing_svg(d, _f, dx) for d in items if d.layer == "scene"]


def _figure_svg(fig: list[_Prim], items, dx: float = 0.0) -> list[str]:
    """The figure's ``<g class="pc-fig">`` and the held items over its limbs and trunk; with held
    items the neck, head and nose follow them in a second ``pc-fig`` group, so no item hides
    the head."""
    load = [d for d in items if d.layer == "load"]
    if not load:
        return ['<g class="pc-fig">', *_svg_prims(fig, dx=dx), "</g>"]
    body = [p for p in fig if p.part not in _HEAD_PARTS]
    head = [p for p in fig if p.part in _HEAD_PARTS]
    return ['<g class="pc-fig">', *_svg_prims(body, dx=dx), "</g>", *(drawing_svg(d, _f, dx) for d in load),
            '<g class="pc-fig">', *_svg_prims(head, dx=dx), "</g>"]


def _uid(*parts) -> str:
    return "pc" + hashlib.sha1("\x1f".join(map(str, parts)).encode()).hexdigest()[:10]


def fit_view_box(x0, y0, x1, y1, min_w=3.2, min_h=1.8, aspect=16 / 9):
    """Expand bounds (m) to at least min_w × min_h and the given aspect, centred."""
    w, h = max(x1 - x0, min_w), max(y1 - y0, min_h)
    if w / h < aspect:
        w = h * aspect
    else:
        h = w / aspect
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return cx - w / 2, cy - h / 2, w, h


def render_poster(program, *, flip: bool = False, view: str | None = None,
                  title: str | None = None, frame: int | None = None) -> str:
    """A standalone ``<svg>`` poster of ``program`` (a compiled :class:`MotionProgram`).

    ``view`` is ``"side"``, ``"front"`` or ``None`` (choose with :func:`choose_view`); ``flip``
    mirrors the figure horizontally; ``title`` is the accessible name (default: the document's
    name); ``frame`` picks the pose (0 = start pose, i = end of phase i; default: the frame
    farthest from the start pose). The ``<svg>`` carries that index as ``data-frame``: the
    browser player sets its time slider to the end of phase i while it shows the poster (reduced
    motion). The equipment of ``program.equipment`` (motion JSON ``equipment``, or None) is
    drawn on that pose (:mod:`posecode_ssg.motion.posterequipment`): the mat behind the figure,
    the held items over the limbs. Raises ``ValueError`` for an unknown view.
    """
    view = view or choose_view(program)
    if view not in ("side", "front"):
        raise ValueError(f"view must be 'side' or 'front', not {view!r}")
    working = working_limbs(program)
    index = primary_index(program) if frame is None else frame
    label = (POSTER_TEXT["start"] if index == 0
             else POSTER_TEXT["phase_end"].format(name=program.keyframes[index - 1].name))
    fig = _frame_prims(program, index, view, flip, working)
    props = prop_prims(program.props, view, flip)
    items = _frame_items(program, index, view, flip)
    x0, y0, x1, y1 = drawings_bounds(items, prim_bounds(fig + props))
    y0 = min(y0, 0.0)
    bx, by, bw, bh = fit_view_box(x0 - 0.2, y0 - 0.12, x1 + 0.2, y1 + 0.15)
    name = title or program.name
    uid = _uid(program.name, view, flip, index)
    desc = POSTER_TEXT["label"].format(name=name, view=POSTER_TEXT.view(view), frame=label)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pc-poster" role="img" data-frame="{index}" '
        f'aria-labelledby="{uid}-t" aria-label="{escape(desc)}" viewBox="{_f(bx)} {_f(-(by + bh))} {_f(bw)} {_f(bh)}" '
        f'width="{_f(bw)}" height="{_f(bh)}">',
        f'<title id="{uid}-t">{escape(desc)}</title>',
        _style(items),
        f'<line class="pc-ground" stroke-width="2" x1="{_f(bx)}" y1="0" x2="{_f(bx + bw)}" y2="0"/>',
        *_scene_svg(items),
        '<g class="pc-props">', *_svg_prims([p for p in props if p.cls == "prop"]), "</g>",
        *_figure_svg(fig, items),
        *_svg_prims([p for p in props if p.cls == "handle"]),
        "</svg>",
    ]
    return "\n".join(parts)


def render_phase_strip(program, *, flip: bool = False, view: str | None = None,
                       include_start: bool = True) -> str:
    """One ``<svg>`` with a small frame per phase end (and the start pose first when
    ``include_start``), side by side at one scale, each labelled with its phase name. Travel is
    removed from each frame but the turn is kept, so turning choreography reads frame to frame.
    Each frame draws the program's equipment on its pose, as :func:`render_poster` does."""
    view = view or choose_view(program)
    working = working_limbs(program)
    frames = phase_frames(program)
    indices = list(range(0 if include_start else 1, len(frames)))
    cells = [(_frame_prims(program, i, view, flip, working, keep_turn=True),
              POSTER_TEXT["strip_start"] if i == 0 else frames[i][0],
              _frame_items(program, i, view, flip, keep_turn=True)) for i in indices]
    props = prop_prims(program.props, view, flip)
    allp = [p for c, _, _ in cells for p in c] + props
    x0, y0, x1, y1 = drawings_bounds([d for _, _, its in cells for d in its], prim_bounds(allp))
    y0 = min(y0, 0.0)
    cw = max(x1 - x0 + 0.3, 1.2)
    ch = y1 - y0 + 0.5
    width = cw * len(cells)
    uid = _uid(program.name, "strip", view, flip)
    desc = POSTER_TEXT["strip_label"].format(name=program.name, phases=", ".join(label for _, label, _ in cells))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pc-strip" role="img" '
        f'aria-labelledby="{uid}-t" aria-label="{escape(desc)}" '
        f'viewBox="0 {_f(-(y0 + ch - 0.3))} {_f(width)} {_f(ch)}" '
        f'width="{_f(width)}" height="{_f(ch)}">',
        f'<title id="{uid}-t">{escape(desc)}</title>',
        _style(any(its for _, _, its in cells)),
    ]
    for k, (prims, label, items) in enumerate(cells):
        dx = k * cw - x0 + 0.15
        parts.append('<g class="pc-cell">')
        parts.append(f'<line class="pc-ground" stroke-width="2" x1="{_f(k * cw + 0.05)}" y1="0" '
                     f'x2="{_f((k + 1) * cw - 0.05)}" y2="0"/>')
        parts += _scene_svg(items, dx=dx)
        parts += _svg_prims([p for p in props if p.cls == "prop"], dx=dx)
        parts += _figure_svg(prims, items, dx=dx)
        parts += _svg_prims([p for p in props if p.cls == "handle"], dx=dx)
        parts.append(f'<text class="pc-label" x="{_f(k * cw + cw / 2)}" y="{_f(0.2)}" '
                     f'style="font-size:{strip_label_size(label, cw):.1f}px" text-anchor="middle">{escape(label)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


#: the phase strip's label size (SVG units, cm) at most, and the width of a character in ems
#: (a system sans-serif's mean advance is about 0.55 em)
STRIP_LABEL_MAX = 15.0
STRIP_LABEL_EM = 0.56


def strip_label_size(label: str, cell_m: float) -> float:
    """The font size (SVG units) of a phase strip's frame label: :data:`STRIP_LABEL_MAX`, or
    smaller so that ``label`` fits in 92 % of its cell (``cell_m`` metres wide: ``SCALE`` units a metre)."""
    return min(STRIP_LABEL_MAX, 0.92 * SCALE * cell_m / (STRIP_LABEL_EM * max(len(label), 1)))


def render_contact_sheet(programs, *, columns: int = 4, flip: bool = False) -> str:
    """One ``<svg>`` grid of posters (one per program, with its equipment) with each document's
    name under it."""
    cells = []
    for p in programs:
        view = choose_view(p)
        working = working_limbs(p)
        fig = _frame_prims(p, primary_index(p), view, flip, working)
        props = prop_prims(p.props, view, flip)
        cells.append((p.name, fig, props, _frame_items(p, primary_index(p), view, flip)))
    cw, chh = 3.2, 2.6
    rows = max(1, math.ceil(len(cells) / columns))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pc-sheet" role="img" aria-labelledby="sheet-t" '
        f'viewBox="0 0 {_f(cw * columns)} {_f(chh * rows)}" width="{_f(cw * columns)}" height="{_f(chh * rows)}">',
        f'<title id="sheet-t">{POSTER_TEXT.plural("sheet_title", len(cells))}</title>',
        _style(any(items for *_, items in cells)),
    ]
    for k, (name, fig, props, items) in enumerate(cells):
        r, c = divmod(k, columns)
        x0, y0, x1, y1 = drawings_bounds(items, prim_bounds(fig + props))
        s = min(1.0, (cw - 0.2) / max(x1 - x0, 1e-6), (chh - 0.5) / max(y1 - min(y0, 0), 1e-6))
        ox = c * cw + cw / 2 - s * (x0 + x1) / 2
        oy = r * chh + chh - 0.35
        parts.append(f'<g transform="translate({_f(ox)} {_f(oy)}) scale({s:.3f})">')
        parts.append(f'<line class="pc-ground" stroke-width="2" x1="{_f((x0 - 0.1))}" y1="0" x2="{_f(x1 + 0.1)}" y2="0"/>')
        parts += _scene_svg(items)
        parts += _svg_prims([p for p in props if p.cls == "prop"])
        parts += _figure_svg(fig, items)
        parts += _svg_prims([p for p in props if p.cls == "handle"])
        parts.append("</g>")
        parts.append(f'<text class="pc-label" x="{_f(c * cw + cw / 2)}" y="{_f(r * chh + chh - 0.1)}" '
                     f'text-anchor="middle">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
