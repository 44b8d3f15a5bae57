"""Leg and arm IK below the passes (runtime twin: ``runtime/solvers/limb.js``): the analytic
two-bone IK, the planted foot's heading swivel and levelling, and the straight-leg reach.
"""

from __future__ import annotations

import math

import numpy as np

from ..fk import World, joint_xyz, landmark_xyz
from ..rig import SOLVER, Avatar
from ..rotation import turned_euler, vadd, vcross, vdot, vnorm, vscale, vsub
from .ccd import aim
from .pose import Pose, clamp_box, rom_box

#: how near (m) its target :func:`two_bone` finds the end joint for it to leave the limb as it is
TWO_BONE_MET = 1e-9


def two_bone(pose: Pose, ball: str, hinge: str, end: str, target, sign: float = 1.0) -> None:
    """Analytic two-bone IK (ball joint + hinge, e.g. hip–knee–ankle): put the ``end`` joint on
    ``target`` (world m, (3,): an array or a float triple). The hinge turns about its parent's
    local X axis (intrinsic XYZ Euler: adding Δ to x is a rotation by Δ about that axis), by the
    angle the law of cosines asks for:
    with v = end − hinge split about the axis u into v∥ + v⊥ and w = hinge − ball,
    |w + Rᵤ(Δ)v|² = C + P cos Δ + Q sin Δ (C = |w + v∥|² + |v⊥|², P = 2 w·v⊥, Q = 2 w·(u × v⊥)),
    solved for the root that stays in the hinge's ROM box, bends the natural way (``sign``: knee
    +1, elbow −1; a straight limb has two near roots) and is nearest zero; then the ball joint turns by
    the shortest arc from (end − ball) to (target − ball), which keeps the limb's plane (the
    knee's swivel) as authored. Both joints are clamped to their ``rig`` ROM boxes widened to
    the incoming value (KR §2.5); a clamped or out-of-reach target is left short. The browser
    runtime runs the same steps (runtime/solvers/limb.js)."""
    w = pose.world()
    H, K, A = joint_xyz(w, ball), joint_xyz(w, hinge), joint_xyz(w, end)
    e = pose.euler[hinge]
    if e[0] * sign >= 0.0 and vnorm(vsub(tuple(map(float, target)), A)) <= TWO_BONE_MET:
        # the end is on its target and the hinge bends the natural way: the root the hinge
        # step picks is its current angle (to ~1e-9 rad) and the ball joint's arc is below the
        # 1e-7 rad aim turns for, so the limb stays as it is (numpy-only; at most ~1e-9 m)
        return
    Rb = w.rot[ball]
    u = (float(Rb[0, 0]), float(Rb[1, 0]), float(Rb[2, 0]))   # the ball joint's local X axis
    v = vsub(A, K)
    vpar = vscale(u, vdot(u, v))
    vperp = vsub(v, vpar)
    w0 = vsub(K, H)
    wv = vadd(w0, vpar)
    C = vdot(wv, wv) + vdot(vperp, vperp)
    P = 2.0 * vdot(w0, vperp)
    Q = 2.0 * vdot(w0, vcross(u, vperp))
    R = math.hypot(P, Q)
    if R > 1e-9:
        th = vsub(target, H)
        d2 = vdot(th, th)
        acos = math.acos(min(1.0, max(-1.0, (d2 - C) / R)))
        phi = math.atan2(Q, P)
        lo, hi = rom_box(hinge)["x"]
        lo, hi = min(lo, e[0]), max(hi, e[0])
        best = None
        for delta in (phi + acos, phi - acos):
            delta = math.atan2(math.sin(delta), math.cos(delta))
            x = e[0] + math.degrees(delta)
            xc = min(max(x, lo), hi)
            key = (round(abs(x - xc), 9), xc * sign < -1e-6, abs(delta))
            if best is None or key < best[0]:
                best = (key, xc)
        pose.set_euler(hinge, (best[1], e[1], e[2]))
    aim(pose, ball, end, target)


def swivel(pose: Pose, side: str, heading: np.ndarray, k: float) -> None:
    """Keep a planted foot's heading (a hip turned out or in must not turn a planted foot): swivel the leg about its hip → ankle axis a (the ankle stays put) by ψ / a_y, ψ the
    signed angle about +Y from the foot's heading (heel → toe) to ``heading`` — a leg hanging
    down turns its foot by about −a_y times its swivel; scaled by ``k`` (how firmly the foot is
    held), the hip clamped into its box widened to the incoming angles. Same steps in
    runtime/solvers/limb.js ``swivel``."""
    w = pose.world()
    turn = swivel_turn(w, side, heading, k)
    if turn is not None:
        hip = f"hip_{side}"
        pose.set_euler(hip, clamp_box(hip, turned_euler(pose.local[hip], w.rot[hip], *turn), pose.euler[hip]))


def swivel_turn(w: World, side: str, heading: np.ndarray, k: float) -> tuple[tuple[float, float, float], float] | None:
    """:func:`swivel`'s turn of the hip: (the unit hip → ankle axis, the angle in radians), or
    None when the leg does not hang down (no swivel)."""
    a = vsub(joint_xyz(w, f"ankle_{side}"), joint_xyz(w, f"hip_{side}"))
    n = vnorm(a)
    if not a[1] < -0.3 * n:
        return None
    (tx, _ty, tz), (hx, _hy, hz) = landmark_xyz(w, f"toe_{side}"), landmark_xyz(w, f"heel_{side}")
    u0, u2 = tx - hx, tz - hz
    h0, h2 = float(heading[0]), float(heading[2])
    psi = math.atan2(u2 * h0 - u0 * h2, u0 * h0 + u2 * h2)
    return (a[0] / n, a[1] / n, a[2] / n), k * psi * n / a[1]


def leg_drop(av: Avatar, w: World, side: str, target: np.ndarray) -> float:
    """How far (m) the hip of ``side`` must come down to be within a straight leg (thigh + shin
    offsets) of ``target`` (0 or less when it already is; KR §8 gait exception)."""
    leg = float(np.linalg.norm(av.offsets[f"knee_{side}"]) + np.linalg.norm(av.offsets[f"ankle_{side}"]))
    hip = w.pos[f"hip_{side}"]
    dxz2 = (hip[0] - target[0]) ** 2 + (hip[2] - target[2]) ** 2
    return float(hip[1] - target[1] - math.sqrt(leg * leg - dxz2)) if dxz2 < leg * leg else 0.0


def level_foot(pose: Pose, side: str, authored_x: float, weight: float = 1.0) -> tuple[float, float] | None:
    """Plantigrade levelling (KR §6.4): choose the ankle x that puts the sole flat (forward axis
    horizontal), clamped to the ankle box. Keeps tiptoe intent: up to ``plantigradeMaxAnkle``
    (15°) of authored x the foot is levelled, from there to 2 × ``plantigradeBlend`` (10°) more
    the levelled and the authored angle cross-fade (smoothstep), above that the authored pitch is
    kept; so a heel raise leaves the floor continuously instead of jumping at 15°. Returns
    (needed, used) when the box stopped a fully levelled foot, else None. With ``weight`` < 1 (a
    locked foot rising off the floor: groundlock.py ``level_weight``) the ankle goes only that
    share of the way from the authored angle. Same rule in runtime/solvers/limb.js ``levelFoot``."""
    lv = level_angles(pose.world(), side, authored_x)
    if lv is None:
        return None
    ankle = f"ankle_{side}"
    e = pose.euler[ankle]
    x = lv[0] if weight >= 1.0 else authored_x + weight * (lv[0] - authored_x)
    pose.set_euler(ankle, (x, e[1], e[2]))
    return level_report(lv)


def level_report(lv: tuple[float, float, float, float] | None) -> tuple[float, float] | None:
    """:func:`level_foot`'s report from :func:`level_angles`: (needed, used) degrees when the
    ankle box stopped a fully levelled foot by more than ``solver.levelMissDeg``, else None."""
    if lv is None:
        return None
    _x, needed, used, keep = lv
    return (needed, used) if keep == 0.0 and abs(used - needed) > float(SOLVER["levelMissDeg"]) else None


def tiptoe_share(authored_x: float) -> float:
    """How much of a foot's authored pitch is kept (0–1) at authored ankle x ``authored_x``
    (degrees): 0 up to ``solver.plantigradeMaxAnkle`` (15°), smoothstep to 1 over the next
    2 × ``plantigradeBlend`` (KR §6.4's tiptoe intent, made continuous): the levelling's
    cross-fade (:func:`level_angles`) and the weight shift's share of a foot on its ball by
    intent (balance.py). Same rule in runtime/solvers/limb.js ``tiptoeShare``."""
    m, band = float(SOLVER["plantigradeMaxAnkle"]), float(SOLVER["plantigradeBlend"])
    x = min(1.0, max(0.0, (authored_x - m) / (2.0 * band)))
    return x * x * (3.0 - 2.0 * x)


def flat_ankle(w: World, side: str) -> float:
    """The ankle x (degrees) that puts the sole flat (its forward axis horizontal) under the shin
    as it is: atan2(R[1][2], R[1][1]) of the knee's world rotation R. Same in
    runtime/solvers/measure.js ``flatAnkle``."""
    Rk = w.rot[f"knee_{side}"]
    return math.degrees(math.atan2(Rk[1, 2], Rk[1, 1]))


def level_angles(w: World, side: str, authored_x: float) -> tuple[float, float, float, float] | None:
    """:func:`level_foot`'s ankle x (degrees) with the angle that levels the sole, the box-clamped
    one and the authored pitch's share (0–1), or None when the authored pitch is kept."""
    keep = tiptoe_share(authored_x)
    if keep >= 1.0:
        return None
    needed = flat_ankle(w, side)
    lo, hi = rom_box(f"ankle_{side}")["x"]
    used = min(max(needed, lo), hi)
    return (1.0 - keep) * used + keep * authored_x, needed, used, keep
