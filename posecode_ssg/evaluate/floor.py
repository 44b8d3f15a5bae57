"""Float: how far above the floor the lowest point of a figure that nothing holds up is
(docs/eval.md ``float``; issue 18 item 3; spec §6 "the figure is dropped so its lowest point
rests on the floor"). The lowest point is the one definition the numpy solve grounds with
(:meth:`posecode_ssg.motion.fk.World.lowest`: the avatar's capsules, ellipsoid volumes and sole
boxes), evaluated on every sample at once (:func:`~posecode_ssg.motion.fk.lowest_by_bone_of_arrays`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.runs import run_violations
from posecode_ssg.evaluate.thresholds import METRIC, DocumentMetrics, Violation
from posecode_ssg.language.vocabulary import BONES
from posecode_ssg.motion.fk import lowest_by_bone_of_arrays, subtree
from posecode_ssg.motion.rig import avatar as rig_avatar


def held_up(ph: dict[str, Any]) -> bool:
    """True when a phase (motion JSON) hangs the body from something other than the floor (its
    ``hang``, decided by the compiler: a grip, or a pin to a prop anchor, motion/support.py
    ``hangs``); the wrap ({}) is free."""
    return bool(ph.get("hang"))


def bone_lows(ctx: Context) -> dict[str, np.ndarray]:
    """bone -> (N,) lowest mesh y (m) of the mesh each bone carries, on every sample
    (:func:`lowest_by_bone_of_arrays` of the samples' joint positions, world quaternions and
    landmarks), computed once per context."""
    if getattr(ctx, "_bone_lows", None) is None:
        s = ctx.s
        av = rig_avatar(ctx.motion.get("avatar") or ctx.rig["defaultAvatar"])
        q = s.orient / np.linalg.norm(s.orient, axis=-1, keepdims=True)
        x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
        # row y of the rotation matrix of [x, y, z, w] (motion.rotation.quat_matrices)
        row_y = np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], axis=-1)
        pos = {b: s.pos[:, i] for i, b in enumerate(s.bones)}
        rot_y = {b: row_y[:, i] for i, b in enumerate(s.bones)}
        marks = {m: s.lm[:, i] for i, m in enumerate(s.landmarks)}
        ctx._bone_lows = lowest_by_bone_of_arrays(av, pos, rot_y, marks)
    return ctx._bone_lows


def lowest_points(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """(N,) lowest mesh y (m) of every sample and (N,) the index into ``BONES`` order of
    :func:`lowest_by_bone_of_arrays`'s result of the bone that carries it (its name:
    ``list(lows)[k]``)."""
    lows = np.stack(list(bone_lows(ctx).values()), axis=1)
    k = np.argmin(lows, axis=1)
    return lows[np.arange(ctx.n), k], k


def subtree_low(ctx: Context, bone: str) -> np.ndarray:
    """(N,) lowest mesh y (m) of a bone and everything it carries (a hand: the wrist's palm and
    the fingers; a foot: the ankle's shoe and sole box), on every sample."""
    lows = bone_lows(ctx)
    return np.min(np.stack([lows[b] for b in subtree(bone)]), axis=0)


def _previous_phase(ctx: Context, seg: int) -> dict[str, Any]:
    """The phase a segment is entered from: the one before it; the first segment's is the last
    phase when the loop has no wrap (it is entered from there), else the wrap ({})."""
    if seg > 0:
        return ctx.phase(seg - 1)
    return ctx.phases[-1] if not float(ctx.motion.get("wrap") or 0.0) else {}


def _falls(ctx: Context, height: np.ndarray) -> list[tuple[int, int]]:
    """The drops after letting go (``(first sample, landing sample)`` pairs): a segment not held
    up entered from one that grips, whose figure starts above the floor and lands (comes within
    ``float``'s limit) no later than the smooth descent from that height whose acceleration
    never exceeds gravity's does, t = sqrt(6h/g) (smoothstep: peak acceleration 6h/t²; g:
    rig.json ``solver.gravity``; a free fall lands sooner, at sqrt(2h/g)), plus one sample. A
    slower descent is float."""
    out = []
    g = float(ctx.solver["gravity"])
    limit = METRIC["float"].limit
    step = float(np.median(np.diff(ctx.s.t))) if ctx.n > 1 else 0.0
    for seg, a, b in ctx.runs:
        if held_up(ctx.phase(seg)) or not _previous_phase(ctx, seg).get("grip") or height[a] <= limit:
            continue
        down = np.flatnonzero(height[a:b + 1] <= limit)
        if not len(down):
            continue
        land = a + int(down[0])
        if ctx.s.t[land] - ctx.s.t[a] <= np.sqrt(6.0 * height[a] / 1000.0 / g) + step:
            out.append((a, land))
    return out


def floor_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Float (mm): on every sample of a segment whose phase is not held up (:func:`held_up`; the
    wrap is measured), the height of the figure's lowest mesh point above y = 0, 0 when it is at
    or below the floor (float is the height above; sinking is not float). A body let go from a
    grip that drops to the floor at gravity's pace is not floating while it drops (:func:`_falls`). One violation per run
    over ``float``'s limit (one per loop time), its subject the bone carrying the lowest point at
    the worst sample."""
    measured = np.zeros(ctx.n, bool)
    for seg, a, b in ctx.runs:
        measured[a:b + 1] = not held_up(ctx.phase(seg))
    if not measured.any():
        res.worst["float"] = None
        return
    low, owner = lowest_points(ctx)
    height = np.where(measured, np.maximum(low, 0.0) * 1000.0, 0.0)
    for a, land in _falls(ctx, height):
        measured[a:land] = False
        height[a:land] = 0.0
    # the extended sample range repeats the first segment: one violation per loop time (the
    # larger), named from its own worst sample, so a left/right tie that rounds differently in
    # the two copies is not reported twice
    found: dict[float, Violation] = {}
    for v in run_violations(ctx, "float", "figure", height, measured, METRIC["float"].limit):
        key = round(v.t, 3)
        if key not in found or v.value > found[key].value:
            found[key] = v
    for v in found.values():
        k = int(np.flatnonzero((ctx.loop_t == v.t) & (height == v.value))[0])
        v.subject = BONES[int(owner[k])]
        res.violations.append(v)
    res.worst["float"] = float(height[measured].max())
