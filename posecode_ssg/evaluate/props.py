"""Prop penetration: body capsules against the blocking faces of the declared props, declared
supports exempt (docs/eval.md ``penetration``; KR §10.1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from posecode_ssg.evaluate.context import SIDES, Context, side_of
from posecode_ssg.evaluate.runs import run_violations
from posecode_ssg.evaluate.thresholds import METRIC, DocumentMetrics

#: sample fractions along a capsule (KR §10.1)
CAPSULE_T = (0.0, 0.33, 0.66, 1.0)


def body_capsules(ctx: Context) -> list[tuple[str, str, np.ndarray, float]]:
    """Body sample points for the prop pass (KR §10.1): ``(part, limb, (N, P, 3) points,
    radius)`` where part is ``torso``, ``head``, ``thighs``, ``shins`` or ``arms`` and limb the
    effector side it belongs to (``leg_left``...; "" for torso and head). Torso pelvis→neck;
    head neck→head plus 0.05 m; thighs; shins plus ``shinOverhang``; upper arms; forearms plus
    0.09 m; samples at t = 0, 0.33, 0.66, 1 and the overhang; radii ``avatar.collision``."""
    s, col = ctx.s, ctx.avatar["collision"]

    def seg(a, b, over=0.0):
        pa, pb = s.bone(a), s.bone(b)
        pts = [pa + t * (pb - pa) for t in CAPSULE_T]
        if over > 0:
            d = pb - pa
            d = d / np.maximum(np.linalg.norm(d, axis=-1, keepdims=True), 1e-9)
            pts.append(pb + over * d)
        return np.stack(pts, axis=1)

    out = [("torso", "", seg("pelvis", "neck"), col["torso"]),
           ("head", "", seg("neck", "head", 0.05), col["head"])]
    for side in SIDES:
        out.append(("thighs", f"leg_{side}", seg(f"hip_{side}", f"knee_{side}"), col["thigh"]))
        out.append(("shins", f"leg_{side}", seg(f"knee_{side}", f"ankle_{side}", float(ctx.solver["shinOverhang"])), col["shin"]))
        out.append(("arms", f"arm_{side}", seg(f"shoulder_{side}", f"elbow_{side}"), col["arm"]))
        out.append(("arms", f"arm_{side}", seg(f"elbow_{side}", f"wrist_{side}", 0.09), col["arm"]))
    return out


def _limb_of(effector: str) -> str:
    side = side_of(effector)
    return f"leg_{side}" if effector.startswith(("foot_", "knee_")) else f"arm_{side}"


def _supports(ph: dict[str, Any]) -> set[str]:
    """Limbs a phase rests on a prop: pinned, gripped or reached to a non-floor anchor (KR §10.1
    declared supports; the pelvis on a seat is not a limb)."""
    return {_limb_of(e) for kind in ("pin", "grip", "reach") for e, anchor in ph.get(kind, [])
            if anchor != "floor" and not e.startswith("pelvis")}


def prop_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Prop penetration (mm): for each declared prop's blocking face (``rig.json`` ``faces``),
    the depth r − (p − c)·n of every body sample it owns (−capture ≤ (p − c)·n < r, inside the
    face's half extents + r), skipping limbs pinned, gripped or reached to a non-floor anchor in
    that segment (declared supports, KR §10.1).

    A leg **stepping off** a prop (a declared support of the phase before, free in this one: the
    foot that stood on the box) starts the segment standing on it, where the shin model (radius
    and overhang past the ankle) already reads as deep inside; it is measured by its sole until
    its shin first clears the face (its depth 0): the sole landmarks (heel, toe, sole centre) may
    not go below the top while over the prop (depth top − y). From then on the shin model holds
    for the rest of the segment."""
    faces = [f for prop in ctx.motion.get("props", []) for f in ctx.rig["props"].get(prop, {}).get("faces", [])]
    if not faces:
        res.worst["penetration"] = None
        return
    order = ["leg_left", "leg_right", "arm_left", "arm_right"]
    exempt = np.zeros((ctx.n, 4), bool)   # leg_left, leg_right, arm_left, arm_right
    leaving = []                          # (limb, first, last): stepping off a prop
    wrap = ctx.s.timing.wrap > 0
    for seg, a, b in ctx.runs:
        now = _supports(ctx.phase(seg))
        for limb in now:
            exempt[a:b + 1, order.index(limb)] = True
        before = seg - 1 if seg > 0 else (-1 if wrap else len(ctx.phases) - 1)
        leaving += [(limb, a, b) for limb in _supports(ctx.phase(before)) - now if limb.startswith("leg_")]
    depth_all = np.zeros(ctx.n)
    for face in faces:
        c, nrm = np.asarray(face["center"], float), np.asarray(face["normal"], float)
        u, v = np.asarray(face["u"], float), np.asarray(face["v"], float)
        blocks = set(face["blocks"])
        depth = np.zeros(ctx.n)
        for part, limb, pts, r in body_capsules(ctx):
            if "all" not in blocks and part not in blocks:
                continue
            rel = pts - c
            d = rel @ nrm
            own = (d >= -face["capture"]) & (d < r) & (np.abs(rel @ u) <= face["halfU"] + r) & \
                (np.abs(rel @ v) <= face["halfV"] + r)
            dep = np.where(own, r - d, 0.0).max(axis=1)
            if limb:
                dep = np.where(exempt[:, order.index(limb)], 0.0, dep)
                for who, a, b in leaving:
                    if who != limb:
                        continue
                    clear = np.flatnonzero(dep[a:b + 1] <= 0.0)
                    end = a + int(clear[0]) if clear.size else b + 1
                    sole = np.stack([ctx.s.landmark(f"{n}_{limb[4:]}")[a:end] - c for n in ("heel", "toe", "sole")], axis=1)
                    over = (sole @ nrm <= 0) & (sole @ nrm >= -face["capture"]) & (np.abs(sole @ u) <= face["halfU"])
                    dep[a:end] = np.where(over, np.maximum(face["halfV"] - sole @ v, 0.0), 0.0).max(axis=1)
            depth = np.maximum(depth, dep * 1000.0)
        mask = np.ones(ctx.n, bool)
        res.violations += run_violations(ctx, "penetration", face["name"], depth, mask, METRIC["penetration"].limit)
        depth_all = np.maximum(depth_all, depth)
    res.worst["penetration"] = float(depth_all.max())
