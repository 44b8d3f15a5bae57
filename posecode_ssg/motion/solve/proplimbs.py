"""The prop-limbs pass, the last of the solve (KR §10.1; runtime twin:
``runtime/solvers/proplimbs.js``): a free leg is lifted out of a limb-resolving face (the box)
rather than swung through its corner.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.vocabulary import FLOOR

from ..rig import PROP_GEOMETRY, SOLVER
from ..rotation import cross3, norm3
from .measure import side_of
from .pose import Pose, clamp_box


def owned_depth(face: dict, p: np.ndarray, r: float) -> float:
    """Penetration depth (m) of a sphere (centre p, radius r) owned by a blocking face, else 0
    (KR §10.1 ownership rule)."""
    c, n = np.asarray(face["center"]), np.asarray(face["normal"])
    u, v = np.asarray(face["u"]), np.asarray(face["v"])
    d = float((p - c) @ n)
    if -face["capture"] <= d < r and abs(float((p - c) @ u)) <= face["halfU"] + r \
            and abs(float((p - c) @ v)) <= face["halfV"] + r:
        return r - d
    return 0.0


def limb_lift(pose: Pose, props: list[str], fixed: set[str]) -> None:
    """Limb-resolving prop faces (the box's near face, KR §10.1), the last step: a box is solid, so a
    free leg (no side in ``fixed``; a foot reaching for the floor is free) is lifted out of it
    rather than swung through its corner. The shin, the segment from the knee to ``shinOverhang``
    past the ankle with the shin radius r, must not enter the face's region (what
    :func:`owned_depth` owns); a point of it inside falls short by the smaller of r − (p − c)·n
    (out of the face) and top + r − p_y (over the box; top: the face's upper edge), each with
    ``propLiftGap`` to spare. Both are linear along the segment, so the worst point is an end of the
    part inside the region or where they are equal. While one falls short, the knee flexes by the
    shortfall over the rate at which that point leaves per radian of knee (at least a quarter of the
    shin length; at most ``propLiftStepDeg``): the foot swings up and back, away from the face and
    over the edge, the knee staying where the hip put it; once the knee's box is exhausted the hip
    flexes. ``propLiftRounds`` rounds, each joint clamped into its box widened to its incoming
    angles. Runtime twin: ``runtime/solvers/props.js`` ``limbLift``."""
    faces = [f for p in props for f in PROP_GEOMETRY[p]["faces"] if f["resolve"] == "limb"]
    if not faces:
        return
    for side in ("left", "right"):
        if side in fixed:
            continue
        hip, knee = f"hip_{side}", f"knee_{side}"
        widen = {j: pose.euler[j] for j in (hip, knee)}
        for _ in range(int(SOLVER["propLiftRounds"])):
            w = pose.world()
            r = w.avatar.collision["shin"] + float(SOLVER["propLiftGap"])
            k = w.pos[knee]
            length = max(float(norm3(w.pos[f"ankle_{side}"] - k)), 1e-9)
            seg = (w.pos[f"ankle_{side}"] - k) * (1.0 + float(SOLVER["shinOverhang"]) / length)
            axis = w.rot[hip][:, 0]   # the knee turns about the hip's X axis
            need, rate = 0.0, 0.0
            for f in faces:
                c, n, u = np.asarray(f["center"]), np.asarray(f["normal"]), np.asarray(f["u"])
                top = float(c[1]) + float(f["halfV"]) + r
                # along the segment (t = 0 knee, 1 end): out-of-face shortfall h, over-the-top v
                h0, hd = r - float((k - c) @ n), -float(seg @ n)
                v0, vd = top - float(k[1]), -float(seg[1])
                u0, ud = float((k - c) @ u), float(seg @ u)
                # the part of the segment inside the face's region (each a + b·t ≥ 0)
                lo, hi = 0.0, 1.0
                for ca, cb in ((h0, hd), (v0, vd), (f["capture"] + r - h0, -hd),
                               (float(k[1] - c[1]) + f["halfV"] + r, float(seg[1])),
                               (f["halfU"] + r - u0, -ud), (f["halfU"] + r + u0, ud)):
                    if abs(cb) < 1e-12:
                        lo = lo if ca >= 0 else 2.0
                    elif cb > 0:
                        lo = max(lo, -ca / cb)
                    else:
                        hi = min(hi, -ca / cb)
                if lo > hi:
                    continue
                den = hd - vd
                tx = (v0 - h0) / den if abs(den) > 1e-12 else 0.0
                for t in (lo, hi, min(hi, max(lo, tx))):
                    ho, vo = h0 + t * hd, v0 + t * vd
                    if min(ho, vo) > need:
                        vel = cross3(axis, t * seg)   # the point's velocity per radian of knee
                        # where the two shortfalls cross (equal within 1e-9), the faster way out,
                        # so rounding never picks the branch (props.js alike)
                        need = min(ho, vo)
                        rate = max(float(vel @ n), float(vel[1])) if abs(ho - vo) <= 1e-9 else \
                            float(vel @ n) if ho < vo else float(vel[1])
            if need <= 1e-4:
                break
            step = min(math.degrees(need / max(rate, 0.25 * length)), float(SOLVER["propLiftStepDeg"]))
            ek = pose.euler[knee]
            new = clamp_box(knee, (ek[0] + step, ek[1], ek[2]), widen[knee])
            pose.set_euler(knee, new)
            left = step - (new[0] - ek[0])
            if left > 1e-3:   # the knee's box is exhausted: the hip flexes (limb flexion is −x)
                eh = pose.euler[hip]
                pose.set_euler(hip, clamp_box(hip, (eh[0] - left, eh[1], eh[2]), widen[hip]))


def run(st) -> None:
    """The prop-limbs pass of one phase end: legs not standing on a support are lifted over the
    box. Fixed: a leg pinned, gripped or reached to a prop anchor (that phase's support),
    floor-pinned, or whose foot is a held ground-lock."""
    kf = st.kf
    fixed = {side_of(c.effector) for c in list(kf.pins) + list(kf.grips) + list(kf.reaches)
             if c.effector.startswith(("foot", "knee")) and (c.target != FLOOR or c in kf.pins)}
    fixed |= {s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock and f"foot_{s}" in st.anchors}
    limb_lift(st.pose, st.program.props, fixed)
