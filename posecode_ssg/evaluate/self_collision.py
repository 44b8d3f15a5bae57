"""Self-collision depth per limb on every sample, by the one definition the numpy solve shares
(:func:`posecode_ssg.motion.collide.deepest`; docs/eval.md ``self_collision``; KR §10.2)."""

from __future__ import annotations

import numpy as np

from posecode_ssg.evaluate.context import SIDES, Context
from posecode_ssg.evaluate.runs import run_violations
from posecode_ssg.evaluate.thresholds import METRIC, DocumentMetrics
from posecode_ssg.motion.collide import LIMBS, deepest
from posecode_ssg.motion.fk import World
from posecode_ssg.motion.rig import avatar as rig_avatar


def point_segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(...,) distances from points p to segments a→b (all (..., 3), broadcast)."""
    ab = b - a
    den = np.maximum(np.sum(ab * ab, axis=-1), 1e-12)
    u = np.clip(np.sum((p - a) * ab, axis=-1) / den, 0.0, 1.0)
    return np.linalg.norm(p - (a + u[..., None] * ab), axis=-1)


def _self_collision_candidates(ctx: Context) -> dict[str, np.ndarray]:
    """A conservative screen (speed only, not a definition): per limb, (N,) True where its
    distal segment, extended 0.1 m and sampled every ≤ 9 cm, comes within (limb radius +
    obstacle radius + 5 cm sampling slack) of the torso, head or other-leg axis (each extended
    0.1 m, more than collide's overhangs), so every sample :func:`collide.deepest` could find
    overlapping is kept."""
    s, col = ctx.s, ctx.avatar["collision"]
    pel, neck, head = s.bone("pelvis"), s.bone("neck"), s.bone("head")
    up = neck - pel
    up = up / np.maximum(np.linalg.norm(up, axis=-1, keepdims=True), 1e-9)
    hd = head - neck
    hd = hd / np.maximum(np.linalg.norm(hd, axis=-1, keepdims=True), 1e-9)
    out = {}
    for side in SIDES:
        other = "right" if side == "left" else "left"
        for limb, a, b in ((f"arm_{side}", s.bone(f"elbow_{side}"), s.bone(f"wrist_{side}")),
                           (f"leg_{side}", s.bone(f"knee_{side}"), s.bone(f"ankle_{side}"))):
            d = b - a
            dn = d / np.maximum(np.linalg.norm(d, axis=-1, keepdims=True), 1e-9)
            end = b + 0.1 * dn
            pts = np.stack([a + f * (end - a) for f in np.linspace(0.0, 1.0, 7)], axis=1)
            r = col["arm"] if limb.startswith("arm") else col["shin"]
            caps = [(pel - 0.1 * up, neck, col["torso"]), (head - 0.1 * hd, head + 0.1 * hd, col["head"])]
            if limb.startswith("leg"):
                caps += [(s.bone(f"hip_{other}"), s.bone(f"knee_{other}"), col["thigh"]),
                         (s.bone(f"knee_{other}"), s.bone(f"ankle_{other}"), col["shin"])]
            hit = np.zeros(ctx.n, bool)
            for ca, cb, rc in caps:
                dist = point_segment_distance(pts, ca[:, None, :], cb[:, None, :]).min(axis=1)
                hit |= dist < r + rc + 0.05
            out[limb] = hit
    return out


def self_collision_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Self-collision depth (mm): per limb (``arm_*``: forearm and hand samples against the torso
    and head; ``leg_*``: shin and foot samples against the torso and the other leg), the deepest
    overlap of :func:`posecode_ssg.motion.collide.deepest` — the one definition the numpy solve,
    its ``kinematic-self-collision`` diagnostic and the runtime's self-collision pass share
    (KR §10.2; radii ``avatar.collision``) — evaluated on every sample's joint positions."""
    s = ctx.s
    av = rig_avatar(ctx.motion.get("avatar") or ctx.rig["defaultAvatar"])
    depth = {limb: np.zeros(ctx.n) for limb in LIMBS}
    obstacle = {limb: [""] * ctx.n for limb in LIMBS}
    near = _self_collision_candidates(ctx)
    for i in np.flatnonzero(np.any(np.stack(list(near.values())), axis=0)):
        w = World(av, dict(zip(s.bones, s.pos[i])), {}, {}, np.zeros(3), np.eye(3))
        for limb in LIMBS:
            if not near[limb][i]:
                continue
            d, _p, _n, name = deepest(w, limb)
            depth[limb][i] = d * 1000.0
            obstacle[limb][i] = name
    total = np.zeros(ctx.n)
    for limb, vals in depth.items():
        for v in run_violations(ctx, "self_collision", limb, vals, np.ones(ctx.n, bool),
                             METRIC["self_collision"].limit):
            k = int(np.argmin(np.abs(ctx.loop_t - v.t) + np.abs(vals - v.value)))
            v.subject = f"{limb} {obstacle[limb][k]}"
            res.violations.append(v)
        total = np.maximum(total, vals)
    res.worst["self_collision"] = float(total.max())
