"""Hands on the floor and on bars (runtime twin: ``runtime/solvers/hands.js``): held palms and
forearms, the palm turned flat to the floor, the palm turned down onto a rail, the hand
closed round a bar.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.vocabulary import DIGITS

from ..fk import World, subtree
from ..rig import HAND_STATES, PARENT, SOLVER
from ..rotation import cross3, norm3, rot_y
from .ccd import aim
from .limb import two_bone
from .measure import side_of
from .pose import Pose, rom_box


def soft_reach(w: World, side: str, t: np.ndarray) -> np.ndarray:
    """Soft IK for a held arm near full extension: the elbow angle of a two-bone solve changes
    as √(L − d) near the straight arm (a millimetre of body motion bends it by degrees, a
    visible snap), so a wrist target further than L − δ from the shoulder (L the arm's length,
    δ = ``armSoftReach``) is pulled in to D = L − δ·exp(−(d − L + δ)/δ) — continuous with a
    continuous derivative, at most δ short: straight up or down (x, z kept: a hand that cannot
    reach the floor lifts off its anchor rather than slide) while its horizontal distance from
    the shoulder is under D, else along the shoulder line. Same rule in runtime/solvers/hands.js
    ``softReach``."""
    S = w.pos[f"shoulder_{side}"]
    L = float(norm3(w.pos[f"elbow_{side}"] - S) + norm3(w.pos[f"wrist_{side}"] - w.pos[f"elbow_{side}"]))
    k = float(SOLVER["armSoftReach"])
    d = float(norm3(t - S))
    if d <= L - k or d < 1e-9:
        return t
    D = L - k * math.exp(-(d - L + k) / k)
    h = math.hypot(float(t[0] - S[0]), float(t[2] - S[2]))
    if h < D:
        out = t.copy()
        out[1] = S[1] + math.copysign(math.sqrt(D * D - h * h), float(t[1] - S[1])) if t[1] != S[1] else S[1]
        return out
    return S + (t - S) * D / d


def hold_uppers(pose: Pose, uppers: list[str], anchors: dict[str, np.ndarray]) -> None:
    """Hands and forearms locked with the feet, after the pivot (each contact held where it was
    planted): a locked hand with an anchor gets its arm's two-bone IK (shoulder, elbow;
    elbow bending −x), twice (turning the arm swings the palm about the wrist), putting the palm
    on the anchor's x, z with the hand's lowest point on the floor (the target softened near full
    extension, :func:`soft_reach`); a locked elbow with an anchor is carried there by the
    shoulder (:func:`aim`, at ``elbowFloorHeight``); ``palmRounds`` rounds. Same steps in
    runtime/solvers/hands.js ``holdUppers``."""
    for _ in range(int(SOLVER["palmRounds"])):
        for c in uppers:
            s = side_of(c)
            if c.startswith("hand"):
                palm_flat(pose, s)   # a hand arriving on the floor turns its palm to it too
            if c not in anchors:
                continue
            if c.startswith("hand"):
                for _ik in range(2):   # again: turning the arm swings the palm about the wrist
                    w = pose.world()
                    d = anchors[c] - w.landmarks[f"palm_{s}"]
                    d[1] = -w.lowest(subtree(f"wrist_{s}"))
                    t = soft_reach(w, s, w.pos[f"wrist_{s}"] + d)
                    two_bone(pose, f"shoulder_{s}", f"elbow_{s}", f"wrist_{s}", t, -1.0)
            else:
                t = anchors[c].copy()
                t[1] = float(SOLVER["elbowFloorHeight"])
                aim(pose, f"shoulder_{s}", f"elbow_{s}", t)


def palm_slip(pose: Pose, uppers: list[str], anchors: dict[str, np.ndarray]) -> float:
    """The farthest (m) a held hand's palm lies from its anchor, horizontally (runtime/solvers/
    hands.js ``palmSlip``)."""
    w = pose.world()
    worst = 0.0
    for c in uppers:
        if c.startswith("hand") and c in anchors:
            d = w.landmarks[f"palm_{side_of(c)}"] - anchors[c]
            worst = max(worst, math.hypot(float(d[0]), float(d[2])))
    return worst


def palm_flat(pose: Pose, side: str) -> None:
    """A palm held on (or reaching) the floor presents its surface to it (spec §5 reach: the solver may
    redistribute incompatible authored roll into a legal forearm/wrist frame; KR §7.2).

    The palm normal (wrist local +Z) turns only with the forearm's roll ψ (elbow y) and the
    wrist's extension a (its x; its z turns the hand about the normal): with g = floor-down in
    the forearm's unrolled frame F₀ and d = R_y(−ψ)·g, the best extension is a = atan2(−d_y, d_z)
    clamped to the wrist's box, leaving the normal acos(n·d) off down. ψ is chosen on a 2.5° grid
    (refined by a parabola through the best and its neighbours) over the elbow's y box extended
    by the shoulder's room to turn inward times cos(elbow flexion) (a loaded palm turns in; the
    shoulder never turns out, which would point the elbows at each other; a bent elbow's shoulder
    rotation swings the forearm, flaring the elbow, more than it rolls it), minimising that error (degrees) + ¼ × how far
    beyond 20° of wrist deviation the fingers miss the body's forward heading (root up + root
    front, horizontal) + 0.01 × |ψ − authored|. The roll goes to the elbow, the rest to the
    shoulder's y; then the wrist extends (:func:`palm_down`) and deviates toward that heading,
    both strictly in their box. A vertical forearm needs 90° of extension (the box has 70): its
    palm stays 20° short and the roll sets the heading. Same steps in runtime/solvers/hands.js
    ``palmFlat``."""
    elbow, shoulder, wrist = f"elbow_{side}", f"shoulder_{side}", f"wrist_{side}"
    p = -1.0 if side == "left" else 1.0
    w = pose.world()
    ex, ye, ez = pose.euler[elbow]
    F0 = w.rot[elbow] @ rot_y(ye).T
    g0, g1, g2 = (-F0[1]).tolist()
    R = w.root_rot
    pref = math.atan2(float(R[0, 1] + R[0, 2]), float(R[2, 1] + R[2, 2]))
    lo_e, hi_e = rom_box(elbow)["y"]
    lo_e, hi_e = min(lo_e, ye), max(hi_e, ye)
    sx, ys, sz = pose.euler[shoulder]
    lo_s, hi_s = rom_box(shoulder)["y"]
    # a bent elbow's shoulder rotation swings the forearm (flaring the elbow) more than it rolls it
    room = max(0.0, math.cos(math.radians(ex))) * (max(0.0, ys - lo_s) if p < 0 else max(0.0, hi_s - ys))
    lo, hi = (lo_e - room, hi_e) if p < 0 else (lo_e, hi_e + room)
    ax_lo, ax_hi = rom_box(wrist)["x"]
    f = F0.tolist()

    def cost(psi: float) -> float:
        c, s_ = math.cos(math.radians(psi)), math.sin(math.radians(psi))
        d1, d2 = g1, s_ * g0 + c * g2
        a = math.radians(min(max(math.degrees(math.atan2(-d1, d2)), ax_lo), ax_hi))
        ca, sa = math.cos(a), math.sin(a)
        err = math.degrees(math.acos(min(1.0, max(-1.0, -sa * d1 + ca * d2))))
        v0, v1, v2 = -s_ * sa, -ca, -c * sa   # the fingers (−Y) with no deviation, unrolled frame
        hx, hz = f[0][0] * v0 + f[0][1] * v1 + f[0][2] * v2, f[2][0] * v0 + f[2][1] * v1 + f[2][2] * v2
        dh = math.degrees(math.atan2(math.sin(pref - math.atan2(hx, hz)), math.cos(pref - math.atan2(hx, hz))))
        return err + 0.25 * max(0.0, abs(dh) - 20.0) + 0.01 * abs(psi - ye) + 0.1 * max(0.0, -p * psi)

    n = max(1, math.ceil((hi - lo) / 2.5))
    h = (hi - lo) / n
    costs = [cost(lo + k * h) for k in range(n + 1)]
    k = min(range(n + 1), key=costs.__getitem__)
    psi = lo + k * h
    if 0 < k < n:
        cm, cp = cost(psi - h), cost(psi + h)
        den = cm - 2.0 * costs[k] + cp
        if den > 1e-12:
            psi += min(max(0.5 * h * (cm - cp) / den, -h), h)
    pe = min(max(psi, lo_e), hi_e)
    pose.set_euler(elbow, (ex, pe, ez))
    if abs(psi - pe) > 1e-9:
        pose.set_euler(shoulder, (sx, ys + psi - pe, sz))
    palm_down(pose, side)
    w = pose.world()
    nrm, fing = w.rot[wrist][:, 2], -w.rot[wrist][:, 1]
    if nrm[1] < -0.5:   # turn the hand about its normal toward the heading (wrist deviation)
        dh = pref - math.atan2(float(fing[0]), float(fing[2]))
        dh = math.degrees(math.atan2(math.sin(dh), math.cos(dh)))
        x, y, z = pose.euler[wrist]
        lo_z, hi_z = rom_box(wrist)["z"]
        pose.set_euler(wrist, (x, y, min(max(z + dh / float(nrm[1]), lo_z), hi_z)))


def palm_down(pose: Pose, side: str) -> None:
    """Dip bars (KR §9.2 step 4): extend the wrist so the palm (its local +Z) turns down onto the
    rail. Turning the wrist by θ about its parent's X axis u (adding θ to its intrinsic-XYZ x)
    takes the palm normal n to n∥ + n⊥ cos θ + (u × n) sin θ, whose downward part is largest at
    θ = atan2(−(u × n)_y, −n⊥_y); x is clamped to the wrist's ROM box (strict). Same rule in
    runtime/solvers/hands.js ``palmDown``."""
    wrist = f"wrist_{side}"
    w = pose.world()
    n = w.rot[wrist] @ np.array([0.0, 0.0, 1.0])
    u = w.rot[PARENT[wrist]] @ np.array([1.0, 0.0, 0.0])
    perp = n - u * float(n @ u)
    theta = math.degrees(math.atan2(-float(cross3(u, n)[1]), -float(perp[1])))
    x, y, z = pose.euler[wrist]
    lo, hi = rom_box(wrist)["x"]
    pose.set_euler(wrist, (min(max(x + theta, lo), hi), y, z))


def close_hand(pose: Pose, side: str, state: str = "grip") -> None:
    """Close a hand around the bar (KR §9.2 step 5, §9.3): index to pinky curl about their local
    X, the thumb curls and turns across (local Z: left −, right +) by rig ``HAND_STATES[state]``;
    a digit the document authors (non-zero angles) is left as written. Same rule in
    runtime/solvers/grip.js ``closeHand``."""
    for bone, e in closed_digits(side, state).items():
        if not any(abs(v) > 1e-9 for v in pose.euler[bone]):
            pose.set_euler(bone, e)


def closed_digits(side: str, state: str = "grip") -> dict[str, tuple[float, float, float]]:
    """The XYZ Euler degrees of each digit of hand ``side`` closed in rig ``HAND_STATES[state]``:
    index to pinky curl about their local X, the thumb curls and turns across (local Z: left −,
    right +). The one table of a closed hand: a grip on a bar (:func:`close_hand`) and a hand
    holding equipment (motion/equipment.py) take it."""
    hs = HAND_STATES[state]
    out = {}
    for d in DIGITS:
        if d == "thumb":
            out[f"{d}_{side}"] = (hs["thumbCurl"], 0.0, hs["thumbZ"] if side == "left" else -hs["thumbZ"])
        else:
            out[f"{d}_{side}"] = (hs["curl"], 0.0, 0.0)
    return out
