"""Cyclic coordinate descent over a limb chain, ROM-clamped every step (KR §7), and the ball
joint's shortest-arc aim (runtime twin: ``runtime/solvers/ccd.js``).
"""

from __future__ import annotations

import math

import numpy as np

from ..fk import joint_xyz
from ..rig import PARENT, SOLVER
from ..rotation import cross3, norm3, turned_euler, vcross, vdot, vnorm, vsub
from .pose import Pose, clamp_box


def ccd(pose: Pose, chain: tuple[str, ...], end_fn, target: np.ndarray, widen: dict,
         stop: float | None = None) -> None:
    """CCD from the authored pose and, when that stops short (a target out of reach), a second
    try with the hinge (elbow / knee) straightened and only the ball joint aiming; keeps the
    closer result. See :func:`ccd_run`; ``stop`` (m) defaults to ``ccdStopDistance`` (a grip
    asks for ``gripStopDistance``)."""
    stop = float(SOLVER["ccdStopDistance"]) if stop is None else stop
    prebend(pose, chain, end_fn, target, widen, stop)
    start = {j: pose.euler[j] for j in chain}
    ccd_run(pose, chain, end_fn, target, widen, stop)
    d1 = float(norm3(end_fn(pose.world()) - target))
    hinges = [j for j in chain if j.startswith(("elbow", "knee"))]
    if d1 <= stop or not hinges:
        return
    first = {j: pose.euler[j] for j in chain}
    for j in chain:
        pose.set_euler(j, start[j])
    for j in hinges:
        e = start[j]
        pose.set_euler(j, clamp_box(j, (0.0, e[1], e[2]), widen.get(j)))
    ccd_run(pose, tuple(j for j in chain if j not in hinges), end_fn, target, widen, stop)
    if float(norm3(end_fn(pose.world()) - target)) > d1:
        for j in chain:
            pose.set_euler(j, first[j])


def prebend(pose: Pose, chain: tuple[str, ...], end_fn, target: np.ndarray, widen: dict,
             stop: float | None = None) -> None:
    """Break CCD's straight-limb singularity: when the target is nearer the chain's root joint
    than the end point and the hinge is straighter than the law of cosines says it must be
    (d² = a² + b² + 2ab·cos θ), bend the hinge (knee +x, elbow −x) to that angle, inside its box,
    and aim the limb from its root joint."""
    if len(chain) != 2 or not chain[1].startswith(("elbow", "knee")):
        return
    w = pose.world()
    root, hinge = w.pos[chain[0]], w.pos[chain[1]]
    a = float(norm3(hinge - root))
    b = float(norm3(end_fn(w) - hinge))
    d = float(norm3(target - root))
    if a < 1e-6 or b < 1e-6 or d >= float(norm3(end_fn(w) - root)) - 1e-3:
        return
    c = (d * d - a * a - b * b) / (2 * a * b)
    theta = math.degrees(math.acos(float(np.clip(c, -1.0, 1.0))))
    sign = 1.0 if chain[1].startswith("knee") else -1.0
    e = pose.euler[chain[1]]
    if abs(e[0]) < theta and e[0] * sign >= -1e-9:
        pose.set_euler(chain[1], clamp_box(chain[1], (sign * theta, e[1], e[2]), widen.get(chain[1])))
        # then aim the whole bent limb from its root joint (a distal-first CCD pass would
        # straighten the hinge again)
        ccd_run(pose, chain[:1], end_fn, target, widen, stop)


def ccd_run(pose: Pose, chain: tuple[str, ...], end_fn, target: np.ndarray, widen: dict,
             stop: float | None = None) -> None:
    """CCD (KR §7): visit the chain distal → proximal, rotate each joint to swing the end point
    toward the target, clamp its Euler angles into the ROM box (widened to the authored value)
    after every step; at most ``ccdIterations`` passes, stop within ``stop`` (m, default
    ``ccdStopDistance``)."""
    stop2 = float(SOLVER["ccdStopDistance"] if stop is None else stop) ** 2
    for _ in range(int(SOLVER["ccdIterations"])):
        if float(np.sum((end_fn(pose.world()) - target) ** 2)) < stop2:
            return
        for joint in reversed(chain):
            w = pose.world()
            j = w.pos[joint]
            a = end_fn(w) - j
            b = target - j
            if joint.startswith(("elbow", "knee")):
                # hinge joints: only x moves the end point (elbow y is the forearm's own twist), so
                # rotate about the hinge axis (the parent's local X, outermost in XYZ order) by
                # the signed angle between the projections of a and b onto its normal plane
                u = w.rot[PARENT[joint]].dot(np.array([1.0, 0.0, 0.0]))
                ap, bp = a - u * a.dot(u), b - u * b.dot(u)
                if ap.dot(ap) < 1e-8 or bp.dot(bp) < 1e-8:
                    continue
                ang = math.atan2(float(u.dot(cross3(ap, bp))), float(ap.dot(bp)))
                e = pose.euler[joint]
                pose.set_euler(joint, clamp_box(joint, (e[0] + math.degrees(ang), e[1], e[2]),
                                                 widen.get(joint)))
                continue
            na, nb = norm3(a), norm3(b)
            if na * na < 1e-8 or nb * nb < 1e-8:
                continue
            a, b = a / na, b / nb
            ang = math.acos(float(np.clip(np.dot(a, b), -1.0, 1.0)))
            if ang < 1e-5:
                continue
            axis = cross3(a, b)
            n = norm3(axis)
            if n < 1e-9:
                continue
            e = clamp_box(joint, turned_euler(pose.local[joint], w.rot[joint], axis / n, ang), widen.get(joint))
            pose.set_euler(joint, e)


def aim(pose: Pose, ball: str, end: str, target) -> None:
    """Turn ``ball`` by the shortest arc that carries joint ``end`` toward ``target`` (world m,
    (3,)), clamped to its ROM box widened to the incoming value (the ball-joint step of
    :func:`two_bone`; runtime/solvers/ccd.js ``aim``)."""
    w = pose.world()
    H = joint_xyz(w, ball)
    a, b = vsub(joint_xyz(w, end), H), vsub(target, H)
    na, nb = vnorm(a), vnorm(b)
    if na < 1e-4 or nb < 1e-4:
        return
    a, b = (a[0] / na, a[1] / na, a[2] / na), (b[0] / nb, b[1] / nb, b[2] / nb)
    axis = vcross(a, b)
    n = vnorm(axis)
    ang = math.atan2(n, vdot(a, b))
    if n < 1e-9 or ang < 1e-7:
        return
    turned = turned_euler(pose.local[ball], w.rot[ball], (axis[0] / n, axis[1] / n, axis[2] / n), ang)
    pose.set_euler(ball, clamp_box(ball, turned, pose.euler[ball]))
