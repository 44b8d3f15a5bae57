"""Self-collision of the body (numpy): limbs kept out of the torso and the other leg.

The body is sampled as spheres along limb capsules and tested against obstacle capsules
(kinematics-reference §10.2; radii from the avatar's ``collision`` table, KR §2.3; every
length and limit from rig.py ``SOLVER``):

- obstacles: the **torso** capsule from ``selfTorsoBelowPelvis`` below the pelvis (along the
  pelvis → neck direction) up to the neck, at the torso radius; the **head** capsule from the head
  joint to ``headOverhang`` beyond it (continuing neck → head), at the head radius; each leg's
  **thigh** (hip → knee) and **shin** (knee → ankle) capsules;
- **arms**: forearm samples at 15/45/75/100 % of elbow → wrist plus ``armOverhang`` past the
  wrist (the hand), at the arm radius, against the torso and the head; the correction turns the
  **shoulder**, at most ``selfArmMaxDeg`` in all;
- **legs**: shin samples at 15/45/75/100 % of knee → ankle plus ``shinOverhang`` past the ankle
  (the foot), at the shin radius, against the torso and the **other** leg's thigh and shin; the
  correction turns the **hip**, at most ``selfLegMaxDeg`` in all.

This module measures: :func:`deepest` finds a limb's deepest overlap, :func:`self_collision_depth`
what is left after the solve (a ``kinematic-self-collision`` diagnostic above
``selfCollisionReport``). The correction is the self-collision pass of the keyframe solve
(``motion/solve/selfcollision.py``; runtime twin ``runtime/solvers/selfcollision.js``).
"""

from __future__ import annotations

import math

import numpy as np

from .fk import World
from .rig import SOLVER
from .rotation import cross3, norm3, turned_euler

__all__ = ["obstacles", "limb_samples", "deepest", "self_collision_depth", "resolve_self_collision",
           "LIMBS"]

_FRACTIONS = (0.15, 0.45, 0.75, 1.0)
#: limb name -> (side, proximal joint it turns, effectors whose contact exempts it)
LIMBS = {
    "arm_left": ("left", "shoulder_left", ("hand_left", "fist_left", "elbow_left")),
    "arm_right": ("right", "shoulder_right", ("hand_right", "fist_right", "elbow_right")),
    "leg_left": ("left", "hip_left", ("foot_left", "knee_left")),
    "leg_right": ("right", "hip_right", ("foot_right", "knee_right")),
}


def unit(v: np.ndarray) -> np.ndarray:
    n = float(norm3(v))
    return v / n if n > 1e-9 else np.zeros(3)


def obstacles(w: World) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    """Obstacle capsules of a posed body: name -> (start, end, radius), metres (torso, head,
    thigh_S, shin_S). Made once per world (``World.memo``)."""
    out = w.memo.get("obstacles")
    if out is None:
        out = w.memo["obstacles"] = _obstacles(w)
    return out


def _obstacles(w: World) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    col = w.avatar.collision
    pel, neck, head = w.pos["pelvis"], w.pos["neck"], w.pos["head"]
    up = unit(neck - pel)
    out = {"torso": (pel - up * float(SOLVER["selfTorsoBelowPelvis"]), neck, float(col["torso"])),
           "head": (head, head + unit(head - neck) * float(SOLVER["headOverhang"]), float(col["head"]))}
    for s in ("left", "right"):
        out[f"thigh_{s}"] = (w.pos[f"hip_{s}"], w.pos[f"knee_{s}"], float(col["thigh"]))
        out[f"shin_{s}"] = (w.pos[f"knee_{s}"], w.pos[f"ankle_{s}"], float(col["shin"]))
    return out


def limb_samples(w: World, limb: str) -> tuple[list[np.ndarray], float, tuple[str, ...]]:
    """Sample points (m) of a limb's distal segment, their radius and the obstacles they are
    tested against (see the module docstring)."""
    side = LIMBS[limb][0]
    other = "right" if side == "left" else "left"
    col = w.avatar.collision
    if limb.startswith("arm"):
        a, b = w.pos[f"elbow_{side}"], w.pos[f"wrist_{side}"]
        over, r, against = float(SOLVER["armOverhang"]), float(col["arm"]), ("torso", "head")
    else:
        a, b = w.pos[f"knee_{side}"], w.pos[f"ankle_{side}"]
        over, r, against = float(SOLVER["shinOverhang"]), float(col["shin"]), \
            ("torso", f"thigh_{other}", f"shin_{other}")
    pts = [a + t * (b - a) for t in _FRACTIONS] + [b + unit(b - a) * over]
    return pts, r, against


def _closest_on_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    L2 = float(ab.dot(ab))
    t = 0.0 if L2 < 1e-12 else min(1.0, max(0.0, float((p - a).dot(ab)) / L2))
    return a + t * ab


def deepest(w: World, limb: str) -> tuple[float, np.ndarray | None, np.ndarray | None, str]:
    """The deepest overlap of a limb's samples with its obstacles: (depth m, sample point, unit
    push direction away from the obstacle axis, obstacle name); depth 0 and ``None`` when clear.
    A sample that has clearly crossed the obstacle's axis (its direction from the axis more than
    120° from the limb's own side, the side of its proximal joint) is pushed back towards that
    side, its depth counted through the axis, so a push never drives a limb through the body. Samples and obstacles are visited in a fixed order; the first
    maximum wins. Remembered per world (``World.memo``); a limb certainly clear (:func:`_far`,
    by 1 µm) stays clear when the root moves, so that answer is kept for the worlds that differ
    from this one by a root translation only (``World.rigid_memo``; the same answer: the 1 µm
    margin is far above the ~1e-16 m rounding a translation brings)."""
    key = ("deepest", limb)
    hit = w.memo.get(key) or w.rigid_memo.get(key)
    if hit is None:
        if _far(*_float_geometry(w, limb)):
            hit = w.rigid_memo[key] = _CLEAR
        else:
            hit = w.memo[key] = _deepest(w, limb)
    return hit


_CLEAR = (0.0, None, None, "")   # deepest(): no overlap


def _far(pts: list[tuple[float, float, float]], r: float,
         capsules: list[tuple[tuple[float, float, float], tuple[float, float, float], float]]) -> bool:
    """True when the limb's samples (float triples, radius ``r``; they lie on the segment from
    the first to the last sample) are certainly clear of every capsule (float end points, radius),
    so :func:`deepest`'s loop can be skipped: the distance between that segment and each capsule
    axis, the closest points of two segments (Ericson, *Real-Time Collision Detection*, §5.1.9),
    exceeds the radii by more than 1e-6 m (the rounding of this float computation, and of
    :func:`_float_geometry`, is far below that). Nearly parallel segments are measured sample by
    sample instead (point to segment, the same margin)."""
    p1x, p1y, p1z = pts[0]
    q1x, q1y, q1z = pts[-1]
    d1x, d1y, d1z = q1x - p1x, q1y - p1y, q1z - p1z
    aa = d1x * d1x + d1y * d1y + d1z * d1z
    if aa < 1e-12:
        return False
    for p2, q2, ro in capsules:
        p2x, p2y, p2z = p2
        q2x, q2y, q2z = q2
        d2x, d2y, d2z = q2x - p2x, q2y - p2y, q2z - p2z
        rx, ry, rz = p1x - p2x, p1y - p2y, p1z - p2z
        e = d2x * d2x + d2y * d2y + d2z * d2z
        bb = d1x * d2x + d1y * d2y + d1z * d2z
        denom = aa * e - bb * bb
        reach = ro + r + 1e-6
        if e < 1e-12:
            return False
        if denom <= 1e-6 * aa * e:   # (nearly) parallel: each sample against the axis
            for px, py, pz in pts:
                wx, wy, wz = px - p2x, py - p2y, pz - p2z
                t = min(1.0, max(0.0, (wx * d2x + wy * d2y + wz * d2z) / e))
                wx, wy, wz = wx - t * d2x, wy - t * d2y, wz - t * d2z
                if wx * wx + wy * wy + wz * wz <= reach * reach:
                    return False
            continue
        c = d1x * rx + d1y * ry + d1z * rz
        f = d2x * rx + d2y * ry + d2z * rz
        s = min(1.0, max(0.0, (bb * f - c * e) / denom))
        t = (bb * s + f) / e
        if t < 0.0:
            t, s = 0.0, min(1.0, max(0.0, -c / aa))
        elif t > 1.0:
            t, s = 1.0, min(1.0, max(0.0, (bb - c) / aa))
        dx = rx + d1x * s - d2x * t
        dy = ry + d1y * s - d2y * t
        dz = rz + d1z * s - d2z * t
        if dx * dx + dy * dy + dz * dz <= reach * reach:
            return False
    return True


def _float_geometry(w: World, limb: str) -> tuple[list, float, list]:
    """:func:`limb_samples` and the limb's :func:`obstacles` on Python floats (for :func:`_far`):
    (sample triples, sample radius, [(start, end, radius)] of the obstacles it is tested
    against); the same formulas, rounded apart from the arrays' by ~1e-16 m."""
    pos = w.fk_data[1] if w.fk_data is not None else {b: tuple(v.tolist()) for b, v in w.pos.items()}

    def unit_step(a, b, length):   # b + unit(b − a) · length (b itself when a = b)
        dx, dy, dz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
        n = math.sqrt(dx * dx + dy * dy + dz * dz)
        k = length / n if n > 1e-9 else 0.0
        return (b[0] + dx * k, b[1] + dy * k, b[2] + dz * k)

    side = LIMBS[limb][0]
    other = "right" if side == "left" else "left"
    col = w.avatar.collision
    if limb.startswith("arm"):
        a, b = pos[f"elbow_{side}"], pos[f"wrist_{side}"]
        over, r = float(SOLVER["armOverhang"]), float(col["arm"])
        pel, neck, head = pos["pelvis"], pos["neck"], pos["head"]
        caps = [(unit_step(neck, pel, float(SOLVER["selfTorsoBelowPelvis"])), neck, float(col["torso"])),
                (head, unit_step(neck, head, float(SOLVER["headOverhang"])), float(col["head"]))]
    else:
        a, b = pos[f"knee_{side}"], pos[f"ankle_{side}"]
        over, r = float(SOLVER["shinOverhang"]), float(col["shin"])
        pel, neck = pos["pelvis"], pos["neck"]
        caps = [(unit_step(neck, pel, float(SOLVER["selfTorsoBelowPelvis"])), neck, float(col["torso"])),
                (pos[f"hip_{other}"], pos[f"knee_{other}"], float(col["thigh"])),
                (pos[f"knee_{other}"], pos[f"ankle_{other}"], float(col["shin"]))]
    pts = [(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])) for t in _FRACTIONS]
    pts.append(unit_step(a, b, over))
    return pts, r, caps


def _deepest(w: World, limb: str) -> tuple[float, np.ndarray | None, np.ndarray | None, str]:
    """:func:`deepest` measured sample by sample, without the memo and the clearance screen."""
    obs = obstacles(w)
    pts, r, against = limb_samples(w, limb)
    joint = w.pos[LIMBS[limb][1]]
    best = _CLEAR
    for name in against:
        a, b, ro = obs[name]
        # the limb's own side of the obstacle: from its axis towards the limb's proximal joint
        ax = unit(b - a)
        side = joint - a
        side = side - ax * float(side.dot(ax))   # perpendicular to the obstacle's axis
        side_u = unit(side)
        for p in pts:
            q = _closest_on_segment(p, a, b)
            d = p - q
            dist = float(norm3(d))
            if dist >= ro + r:
                continue
            n = d / dist if dist > 1e-9 else unit(side)
            if n.dot(side_u) < -0.5:
                # a sample past the axis is pushed back to the limb's side, the long way out
                n, dist = -n, -dist
            depth = ro + r - dist
            if depth > best[0] and float(n.dot(n)) > 0.5:
                best = (depth, p, n, name)
    return best


def self_collision_depth(w: World) -> dict[str, tuple[float, str]]:
    """Residual self-collision per limb of a posed body: limb -> (depth m, obstacle), only limbs
    that overlap something."""
    out = {}
    for limb in LIMBS:
        depth, _p, _n, name = deepest(w, limb)
        if depth > 0.0:
            out[limb] = (depth, name)
    return out
