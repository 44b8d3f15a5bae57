"""``posecode-ssg export --format bvh``: the **solved** motion as a BVH file (docs/export.md, "BVH
and glTF").

The motion is sampled from the browser runtime after its contact solve
(:mod:`posecode_ssg.export.motionsample`), so a planted foot stays planted in the file.

File layout:

- one joint per rig bone, named by its bone id, in the rig's hierarchy; the ``ROOT`` is the
  pelvis (the bone hanging from the rig's floating root). Leaf bones end in an ``End Site`` at
  their farthest landmark (``head_top``, a digit's ``*_tip_*``, the ``toe_*`` of a foot).
- units: **metres**; axes as the rig: +Y up, the figure facing +Z at the start, its left +X.
  Offsets are the chosen avatar's; the ROOT's ``OFFSET`` is the pelvis standing at rest (so the
  offsets from the ROOT to the head's End Site add up to the avatar's standing height).
- the ROOT has ``Xposition Yposition Zposition`` (the pelvis's **absolute** world position, as
  Blender's importer reads it: not added to the ``OFFSET``) and three rotation channels; every
  other joint three rotation channels (degrees).
- rotations: each joint's values compose in the order its ``CHANNELS`` line lists them,
  intrinsically (``Xrotation Yrotation Zrotation`` is R = Rx·Ry·Rz, the rig's own joint
  convention). The order is ``X Y Z`` unless that order comes within 20° of gimbal lock (its
  middle angle near ±90°) somewhere in the clip; then the joint gets the order (of the six) that
  stays farthest from it — typically the root of a turning figure gets ``Y X Z`` (yaw first).
- continuity: angles are not recomputed per frame in a fixed range: each frame takes, of the two
  Euler triples of its rotation (each angle shifted by whole turns), the one nearest the previous
  frame's, so a turn of 360° runs 0 → 360 (and on into a second loop: 360 → 720), never
  0 → 180 → −180.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from posecode_ssg.export.motionsample import (
    SolvedMotion,
    export_fps,
    export_loops,
    export_motion,
    qmatrix,
    sample_solved,
)

AXES = "XYZ"
#: the six Tait–Bryan orders, the rig's own (intrinsic X-Y-Z) first
ORDERS = ["XYZ", "YXZ", "YZX", "ZXY", "XZY", "ZYX"]
#: a joint keeps X Y Z unless its middle angle comes closer than this to ±90° (degrees)
GIMBAL_MARGIN_DEG = 20.0


def _basis(axis: int, angle: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotation matrices about one axis."""
    c, s = np.cos(angle), np.sin(angle)
    m = np.zeros(angle.shape + (3, 3))
    a, b = (axis + 1) % 3, (axis + 2) % 3
    m[..., axis, axis] = 1.0
    m[..., a, a] = c
    m[..., a, b] = -s
    m[..., b, a] = s
    m[..., b, b] = c
    return m


def compose(order: str, angles_deg: np.ndarray) -> np.ndarray:
    """(N, 3, 3) = R_order[0](a0)·R_order[1](a1)·R_order[2](a2), angles (N, 3) in degrees listed
    in ``order``."""
    a = np.radians(np.asarray(angles_deg, float))
    out = _basis(AXES.index(order[0]), a[..., 0])
    for k in (1, 2):
        out = out @ _basis(AXES.index(order[k]), a[..., k])
    return out


def _parity(order: str) -> float:
    i, j, k = (AXES.index(c) for c in order)
    return 1.0 if (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0


def middle_sine(R: np.ndarray, order: str) -> np.ndarray:
    """sin of the middle angle of ``order`` for rotation matrices R (N, 3, 3)."""
    i, _, k = (AXES.index(c) for c in order)
    return np.clip(_parity(order) * R[..., i, k], -1.0, 1.0)


def choose_order(R: np.ndarray) -> str:
    """The channel order of one joint over the clip: ``XYZ`` unless its middle angle comes within
    :data:`GIMBAL_MARGIN_DEG` of ±90°; then the order whose middle angle stays farthest from it."""
    limit = math.sin(math.radians(90.0 - GIMBAL_MARGIN_DEG))
    worst = {o: float(np.max(np.abs(middle_sine(R, o)))) if len(R) else 0.0 for o in ORDERS}
    if worst["XYZ"] <= limit:
        return "XYZ"
    return min(ORDERS, key=lambda o: (round(worst[o], 9), ORDERS.index(o)))


def _wrap_near(a: float, ref: float) -> float:
    """``a`` shifted by whole turns (radians) to lie within π of ``ref``."""
    return a + 2.0 * math.pi * round((ref - a) / (2.0 * math.pi))


def euler_continuous(R: np.ndarray, order: str) -> np.ndarray:
    """(N, 3) Euler angles (degrees, in ``order``, intrinsic: R = R_o0·R_o1·R_o2) of rotation
    matrices R (N, 3, 3), continuous between frames: of the two triples of each rotation,
    (a, b, c) and (a + π, π − b, c + π), each angle shifted by whole turns, the one nearest the
    previous frame's. The first frame takes the principal triple (|b| ≤ 90°)."""
    i, j, k = (AXES.index(c) for c in order)
    s = _parity(order)
    out = np.zeros((len(R), 3))
    prev = None
    for n, m in enumerate(R):
        sb = float(np.clip(s * m[i, k], -1.0, 1.0))
        b = math.asin(sb)
        if math.sqrt(max(0.0, 1.0 - sb * sb)) > 1e-7:
            a = math.atan2(-s * m[j, k], m[k, k])
            c = math.atan2(-s * m[i, j], m[i, i])
        else:
            # gimbal lock: only a ± c is defined; keep c where it was and solve a from
            # M = R·R_k(c)ᵀ = R_i(a)·R_j(b), whose column j is R_i(a)·e_j
            c = 0.0 if prev is None else prev[2]
            mm = m @ _basis(k, np.array(c)).T
            a = math.atan2(s * mm[k, j], mm[j, j])
        if prev is None:
            trip = (a, b, c)
        else:
            best = None
            for cand in ((a, b, c), (a + math.pi, math.pi - b, c + math.pi)):
                t = tuple(_wrap_near(x, r) for x, r in zip(cand, prev))
                d = sum((x - r) ** 2 for x, r in zip(t, prev))
                if best is None or d < best[0] - 1e-12:
                    best = (d, t)
            trip = best[1]
        prev = trip
        out[n] = trip
    return np.degrees(out)


def dfs_order(parents: list[int]) -> list[int]:
    """Bone indices in the file's order: depth first from the top, children in rig order."""
    kids: dict[int, list[int]] = {}
    for i, p in enumerate(parents):
        kids.setdefault(p, []).append(i)
    out: list[int] = []

    def walk(i: int) -> None:
        out.append(i)
        for c in kids.get(i, []):
            walk(c)

    for top in kids.get(-1, []):
        walk(top)
    return out


def _num(v: float) -> str:
    s = f"{v:.6f}"
    return "0.000000" if s == "-0.000000" else s


def bvh_text(sm: SolvedMotion, orders: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """The BVH text of a solved motion and the channel order used per joint. ``orders``: a
    joint → order (``"ZXY"``…) map that overrides the choice for those joints (any order gives
    the same poses)."""
    orders = dict(orders or {})
    mats = qmatrix(sm.local)                      # (N, B, 3, 3); the top's is its world rotation
    used: dict[str, str] = {}
    angles: dict[int, np.ndarray] = {}
    for i, b in enumerate(sm.bones):
        o = orders.get(b) or choose_order(mats[:, i])
        if sorted(o) != sorted(AXES):
            raise ValueError(f"channel order {o!r} for {b} is not a permutation of XYZ")
        used[b] = o
        angles[i] = euler_continuous(mats[:, i], o)
    seq = dfs_order(sm.parents)
    kids = {i: [j for j, p in enumerate(sm.parents) if p == i] for i in range(len(sm.bones))}
    lines = ["HIERARCHY"]

    def block(i: int, depth: int) -> None:
        ind = "\t" * depth
        b = sm.bones[i]
        top = sm.parents[i] < 0
        off = sm.rest_top if top else sm.offsets[i]
        rot = " ".join(f"{c}rotation" for c in used[b])
        lines.append(f"{ind}{'ROOT' if top else 'JOINT'} {b}")
        lines.append(f"{ind}{{")
        lines.append(f"{ind}\tOFFSET {' '.join(_num(x) for x in off)}")
        if top:
            lines.append(f"{ind}\tCHANNELS 6 Xposition Yposition Zposition {rot}")
        else:
            lines.append(f"{ind}\tCHANNELS 3 {rot}")
        for c in kids[i]:
            block(c, depth + 1)
        if not kids[i]:
            _lm, end = sm.end_sites.get(b, ("", [0.0, 0.0, 0.0]))
            lines.append(f"{ind}\tEnd Site")
            lines.append(f"{ind}\t{{")
            lines.append(f"{ind}\t\tOFFSET {' '.join(_num(x) for x in end)}")
            lines.append(f"{ind}\t}}")
        lines.append(f"{ind}}}")

    for i, p in enumerate(sm.parents):
        if p < 0:
            block(i, 0)
    lines.append("MOTION")
    lines.append(f"Frames: {sm.frames}")
    lines.append(f"Frame Time: {1.0 / sm.fps:.7f}")
    for n in range(sm.frames):
        vals: list[float] = []
        for i in seq:
            if sm.parents[i] < 0:
                vals.extend(sm.top[n])
            vals.extend(angles[i][n])
        lines.append(" ".join(_num(v) for v in vals))
    return "\n".join(lines) + "\n", used


def describe(sm: SolvedMotion) -> str:
    loops = "" if sm.loops == 1 else f", {sm.loops} loops"
    return (f"{sm.frames} frames at {sm.fps:g} fps{loops}, {len(sm.bones)} joints, avatar "
            f"{sm.avatar}, solved by the runtime; metres, +Y up, facing +Z")


def write_bvh(doc, opts, out: Path, session) -> list[str]:
    """Write ``doc``'s solved motion as BVH to ``out`` (see the module docstring). Returns the
    notes the command prints."""
    from posecode_ssg.export.core import ExportError, write_atomic

    fps = export_fps(opts)
    try:
        sm = sample_solved(session.runtime(), export_motion(doc, opts), fps=fps,
                           loops=export_loops(opts), name=getattr(doc, "name", ""))
    except ValueError as exc:
        raise ExportError(f"{getattr(doc, 'label', doc.name)}: the runtime rejected the motion: {exc}") from None
    text, used = bvh_text(sm)
    write_atomic(Path(out), text)
    other = sorted({o for o in used.values() if o != "XYZ"})
    orders = "X Y Z" + (f" (also {', '.join(' '.join(o) for o in other)} where X Y Z nears gimbal lock)"
                        if other else "")
    return [f"wrote {out} (BVH: {describe(sm)}; rotations in degrees, "
            f"intrinsic, in each joint's CHANNELS order: {orders})"]
