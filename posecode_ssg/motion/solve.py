"""Build-time keyframe solve and kinematic diagnostics (numpy).

:func:`solve_keyframes` poses the figure at the start pose and at every phase end: forward
kinematics, grounding, ground-lock, pin, grip, prop push-out, reach CCD, foot levelling and the
floor clamp. :func:`kinematic_diagnostics` turns what the solve finds into
:class:`~posecode_ssg.language.diagnostics.Diagnostic` records (codes ``kinematic-*``), each
anchored to the document line that asked for the thing that failed.

Sources: spec §5–§6 (contact semantics: pin moves the body, reach moves the limb, CCD with a ROM
clamp every iteration, residuals recorded); kinematics-reference (KR) §4 (bounding-box drop), §6
(per-frame order, ground-lock paths, foot levelling), §7 (CCD chains, 12 iterations, 1 cm stop,
floor targets), §8 (pin), §9 (grip), §10.1 (prop faces). Where KR marks a gap we do better:

- ground-lock keeps **each** planted contact where it was at the end of the previous phase
  (translation first, then a per-leg CCD for what translation cannot hold), not the average;
- a planted foot that cannot be levelled inside the ankle box is reported, never silently lifted.

The solve works on phase ends only (keyframes), which is what posters and diagnostics need; the
browser runtime solves every frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.ir import Contact
from posecode_ssg.language.rom import rom_box as _rom_box_uncached
from posecode_ssg.language.vocabulary import BACK_BONES, BONES, EFFECTOR_BONE, FLOOR, expand_ground_lock

from .collide import resolve_self_collision, self_collision_depth
from .fk import PoseFK, World, _local_matrix, euler_key, forward_kinematics, joint_xyz, landmark_xyz, same_angles, subtree
from .rig import DIGITS, HAND_STATES, PARENT, PROP_GEOMETRY, PROP_SURFACES, SOLVER, START_POSES_TABLE, Avatar, anchor_position, avatar
from .rotation import (axis_angle_matrix, cross3, euler_to_matrix, norm3, rot_y, turned_euler, vadd, vcross, vdot,
                       vnorm, vscale, vsub)

__all__ = ["solve_keyframes", "kinematic_diagnostics", "with_columns", "Solution", "PhaseSolution",
           "grounded_start_root"]

_CHAINS = {"hand": ("shoulder", "elbow"), "fist": ("shoulder", "elbow"), "elbow": ("shoulder",),
           "foot": ("hip", "knee"), "knee": ("hip",)}
_PROP_TARGET_TOPS = ("box", "seat")
BONES_SET = frozenset(BONES)   # anchors on a top surface: feet meet them with the sole
_ANKLES = ("ankle_left", "ankle_right")   # the feet's lowest points (World.lowest_by_bone)
rom_box = _rom_box_cached = lru_cache(maxsize=None)(_rom_box_uncached)   # a fixed table; callers only read it


def grounded_start_root(pose: str, avatar_id: str | None = None, euler=None) -> np.ndarray:
    """Root position (m) of a built-in start pose after the bounding-box drop (KR §4): the lowest
    mesh point of the figure is moved onto y = 0. ``euler`` (bone -> degrees) replaces the
    built-in joint values (e.g. a composed start pose)."""
    if euler is None:
        return _builtin_grounded_root(pose, avatar_id).copy()
    key = (pose, avatar_id, euler_key(euler))
    if key[2] is None:
        return _grounded(pose, avatar_id, euler)
    hit = _GROUNDED.get(key)
    if hit is None:
        if len(_GROUNDED) >= 256:
            _GROUNDED.clear()
        hit = _GROUNDED[key] = _grounded(pose, avatar_id, euler)
    return hit.copy()


_GROUNDED: dict[tuple, np.ndarray] = {}   # (pose, avatar, exact angles) -> grounded root


def _grounded(pose: str, avatar_id: str | None, euler) -> np.ndarray:
    sp = START_POSES_TABLE[pose]
    R = euler_to_matrix(sp.root_euler)
    p = np.asarray(sp.root_position, float)
    w = forward_kinematics(avatar(avatar_id), dict(sp.joints) if euler is None else euler, p, R)
    return p - np.array([0.0, w.lowest(), 0.0])


@lru_cache(maxsize=None)
def _builtin_grounded_root(pose: str, avatar_id: str | None) -> np.ndarray:
    return _grounded(pose, avatar_id, None)


@dataclass
class ContactResult:
    """The outcome of one reach, pin or grip at a phase end: ``residual`` metres between the
    effector's contact point and its target after the whole solve; ``target`` the world point."""

    kind: str          # "reach" | "pin" | "grip"
    contact: Contact
    target: np.ndarray
    residual: float


@dataclass
class FootReport:
    """A planted foot that could not be levelled: ``needed`` ankle x (degrees) to put the sole
    flat, ``limit`` the box edge used, ``heel`` / ``toe`` heights (m) after the solve."""

    side: str
    needed: float
    limit: float
    heel: float
    toe: float


@dataclass
class PhaseSolution:
    """The solved pose at the end of one phase (``world``: joints and landmarks in metres)."""

    index: int
    world: World
    euler: dict[str, tuple[float, float, float]]
    contacts: list[ContactResult] = field(default_factory=list)
    lifted_locks: list[tuple[str, float]] = field(default_factory=list)   # (contact, height m)
    feet: list[FootReport] = field(default_factory=list)
    drift: list[tuple[str, float]] = field(default_factory=list)          # (foot, metres)
    rolled: list[tuple[str, float, float]] = field(default_factory=list)  # (side, lean °, edge lift m)
    planted: dict[str, np.ndarray] = field(default_factory=dict)          # contact -> world point


@dataclass
class Solution:
    """Solved base pose and one :class:`PhaseSolution` per keyframe."""

    avatar: Avatar
    base: World
    phases: list[PhaseSolution]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


#: full poses (packed angles, :func:`~posecode_ssg.motion.fk.euler_key`) -> (bone -> float angles,
#: bone -> local matrix), read-only: :class:`_Pose` copies the first, PoseFK the second
_POSES: dict[bytes, tuple[dict, dict]] = {}


class _Pose:
    """Mutable working pose: Euler angles (bone -> degrees), local rotation matrices and the root
    transform, with incremental forward kinematics (:class:`~posecode_ssg.motion.fk.PoseFK`: a
    change recomputes only the subtree it moves)."""

    def __init__(self, av: Avatar, euler, root_pos, root_rot):
        self.av = av
        # a full pose met before (each phase pose in both passes; the key packs the angles as
        # floats, so it is the key of the converted angles too): its angles and matrices again
        key = euler_key(euler) if len(euler) == len(BONES) else None
        hit = None if key is None else _POSES.get(key)
        if hit is None:
            angles = {b: tuple(map(float, e)) for b, e in euler.items()}
            hit = (angles, {b: _local_matrix(e) for b, e in angles.items()})
            if key is not None:
                if len(_POSES) >= 256:
                    _POSES.clear()
                _POSES[key] = hit
        self.euler = dict(hit[0])
        self._fk = PoseFK(av, hit[1], np.asarray(root_pos, float).copy(), np.asarray(root_rot, float).copy(),
                          key=key if key is not None else euler_key(self.euler))
        self.local = self._fk.local
        self.world = self._fk.world   # the method below, without a wrapper call
        self.world = self._fk.world   # the method below, without a wrapper call

    @property
    def root_pos(self) -> np.ndarray:
        return self._fk.root_pos

    @property
    def root_rot(self) -> np.ndarray:
        return self._fk.root_rot

    def world(self) -> World:
        return self._fk.world()

    def move(self, delta) -> None:
        """Move the root by ``delta`` (m, (3,)); a move under :data:`MOVE_SKIP` on every axis (a
        drop or clamp onto a floor the figure is already on) is skipped: the world and what was
        measured of it stand (numpy-only; the result moves by at most as much)."""
        dx, dy, dz = (float(v) for v in delta)
        if abs(dx) < MOVE_SKIP and abs(dy) < MOVE_SKIP and abs(dz) < MOVE_SKIP:
            return
        self._fk.set_root(root_pos=self._fk.root_pos + np.array((dx, dy, dz)))

    def set_euler(self, bone: str, e) -> None:
        e = tuple(map(float, e))
        old = self.euler.get(bone)
        if old is not None and same_angles(e, old):
            return   # the angles it has, bit for bit (~45 % of the solver's sets): the world stands
        self.euler[bone] = e
        self._fk.set_local(bone, _local_matrix(e))

    def rotate_root_about(self, axis: np.ndarray, angle: float, pivot: np.ndarray) -> None:
        R = axis_angle_matrix(axis, angle)
        self._fk.set_root(root_pos=pivot + R.dot(self._fk.root_pos - pivot), root_rot=R.dot(self._fk.root_rot))


#: root moves (m, on every axis) below which :meth:`_Pose.move` does nothing
MOVE_SKIP = 1e-12
#: how near (m) its target :func:`_two_bone` finds the end joint for it to leave the limb as it is
TWO_BONE_MET = 1e-9


def _side(name: str) -> str:
    return "left" if name.endswith("_left") else "right"


def _clamp_box(bone: str, e, widen=None) -> tuple[float, float, float]:
    """``e`` (x, y, z degrees) clamped into the bone's ROM box, widened to ``widen`` (the incoming
    angles) when given."""
    out = []
    for i, (lo, hi) in enumerate(_box_limits(bone)):
        if widen is not None:
            lo, hi = min(lo, widen[i]), max(hi, widen[i])
        out.append(min(max(float(e[i]), lo), hi))
    return tuple(out)


@lru_cache(maxsize=None)
def _box_limits(bone: str) -> tuple[tuple[float, float], ...]:
    """The bone's ROM box as ((lo, hi) of x, of y, of z), degrees."""
    box = rom_box(bone)
    return tuple(box[ax] for ax in "xyz")


def _contact_height(w: World, effector: str) -> float:
    """Height (m) of the effector's joint when its own surface just touches the floor (KR §7.1)."""
    bone = EFFECTOR_BONE[effector]
    if effector.startswith("elbow"):
        return float(SOLVER["elbowFloorHeight"])
    if effector == "pelvis":
        return max(float(SOLVER["pelvisFloorMin"]), float(w.pos["pelvis"][1] - w.lowest(BACK_BONES)))
    if effector.startswith("knee"):
        # the knee cap: the larger of the thigh's distal and the shin's proximal capsule radius
        side = _side(effector)
        radii = [r1 for a, b, _r0, r1 in w.avatar.segments if b == bone]
        radii += [r0 for a, b, r0, _r1 in w.avatar.segments if a == bone and b == f"ankle_{side}"]
        return float(max(radii))
    return float(w.pos[bone][1] - w.lowest(subtree(bone)))


def _effector_point(w: World, effector: str, target: str) -> np.ndarray:
    """The point of an effector that meets ``target``: a foot meets a top surface (box, seat)
    with its sole centre, everything else with its joint."""
    if effector.startswith("foot") and target in _PROP_TARGET_TOPS:
        return w.landmarks[f"sole_{_side(effector)}"]
    return w.pos[EFFECTOR_BONE[effector]]


def _ccd(pose: _Pose, chain: tuple[str, ...], end_fn, target: np.ndarray, widen: dict,
         stop: float | None = None) -> None:
    """CCD from the authored pose and, when that stops short (a target out of reach), a second
    try with the hinge (elbow / knee) straightened and only the ball joint aiming; keeps the
    closer result. See :func:`_ccd_run`; ``stop`` (m) defaults to ``ccdStopDistance`` (a grip
    asks for ``gripStopDistance``)."""
    stop = float(SOLVER["ccdStopDistance"]) if stop is None else stop
    _prebend(pose, chain, end_fn, target, widen, stop)
    start = {j: pose.euler[j] for j in chain}
    _ccd_run(pose, chain, end_fn, target, widen, stop)
    d1 = float(norm3(end_fn(pose.world()) - target))
    hinges = [j for j in chain if j.startswith(("elbow", "knee"))]
    if d1 <= stop or not hinges:
        return
    first = {j: pose.euler[j] for j in chain}
    for j in chain:
        pose.set_euler(j, start[j])
    for j in hinges:
        e = start[j]
        pose.set_euler(j, _clamp_box(j, (0.0, e[1], e[2]), widen.get(j)))
    _ccd_run(pose, tuple(j for j in chain if j not in hinges), end_fn, target, widen, stop)
    if float(norm3(end_fn(pose.world()) - target)) > d1:
        for j in chain:
            pose.set_euler(j, first[j])


def _prebend(pose: _Pose, chain: tuple[str, ...], end_fn, target: np.ndarray, widen: dict,
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
        pose.set_euler(chain[1], _clamp_box(chain[1], (sign * theta, e[1], e[2]), widen.get(chain[1])))
        # then aim the whole bent limb from its root joint (a distal-first CCD pass would
        # straighten the hinge again)
        _ccd_run(pose, chain[:1], end_fn, target, widen, stop)


def _ccd_run(pose: _Pose, chain: tuple[str, ...], end_fn, target: np.ndarray, widen: dict,
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
                pose.set_euler(joint, _clamp_box(joint, (e[0] + math.degrees(ang), e[1], e[2]),
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
            e = _clamp_box(joint, turned_euler(pose.local[joint], w.rot[joint], axis / n, ang), widen.get(joint))
            pose.set_euler(joint, e)


def _two_bone(pose: _Pose, ball: str, hinge: str, end: str, target, sign: float = 1.0) -> None:
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
        # 1e-7 rad _aim turns for, so the limb stays as it is (numpy-only; at most ~1e-9 m)
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
    _aim(pose, ball, end, target)


def _aim(pose: _Pose, ball: str, end: str, target) -> None:
    """Turn ``ball`` by the shortest arc that carries joint ``end`` toward ``target`` (world m,
    (3,)), clamped to its ROM box widened to the incoming value (the ball-joint step of
    :func:`_two_bone`; runtime/solvers/ccd.js ``aim``)."""
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
    pose.set_euler(ball, _clamp_box(ball, turned, pose.euler[ball]))


def _soft_reach(w: World, side: str, t: np.ndarray) -> np.ndarray:
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


def _hold_uppers(pose: _Pose, uppers: list[str], anchors: dict[str, np.ndarray]) -> None:
    """Hands and forearms locked with the feet, after the pivot (issue 5: each contact held where
    it was planted): a locked hand with an anchor gets its arm's two-bone IK (shoulder, elbow;
    elbow bending −x), twice (turning the arm swings the palm about the wrist), putting the palm
    on the anchor's x, z with the hand's lowest point on the floor (the target softened near full
    extension, :func:`_soft_reach`); a locked elbow with an anchor is carried there by the
    shoulder (:func:`_aim`, at ``elbowFloorHeight``); ``palmRounds`` rounds. Same steps in
    runtime/solvers/hands.js ``holdUppers``."""
    for _ in range(int(SOLVER["palmRounds"])):
        for c in uppers:
            s = _side(c)
            if c.startswith("hand"):
                _palm_flat(pose, s)   # a hand arriving on the floor turns its palm to it too
            if c not in anchors:
                continue
            if c.startswith("hand"):
                for _ik in range(2):   # again: turning the arm swings the palm about the wrist
                    w = pose.world()
                    d = anchors[c] - w.landmarks[f"palm_{s}"]
                    d[1] = -w.lowest(subtree(f"wrist_{s}"))
                    t = _soft_reach(w, s, w.pos[f"wrist_{s}"] + d)
                    _two_bone(pose, f"shoulder_{s}", f"elbow_{s}", f"wrist_{s}", t, -1.0)
            else:
                t = anchors[c].copy()
                t[1] = float(SOLVER["elbowFloorHeight"])
                _aim(pose, f"shoulder_{s}", f"elbow_{s}", t)


def _palm_flat(pose: _Pose, side: str) -> None:
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
    shoulder's y; then the wrist extends (:func:`_palm_down`) and deviates toward that heading,
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
    _palm_down(pose, side)
    w = pose.world()
    nrm, fing = w.rot[wrist][:, 2], -w.rot[wrist][:, 1]
    if nrm[1] < -0.5:   # turn the hand about its normal toward the heading (wrist deviation)
        dh = pref - math.atan2(float(fing[0]), float(fing[2]))
        dh = math.degrees(math.atan2(math.sin(dh), math.cos(dh)))
        x, y, z = pose.euler[wrist]
        lo_z, hi_z = rom_box(wrist)["z"]
        pose.set_euler(wrist, (x, y, min(max(z + dh / float(nrm[1]), lo_z), hi_z)))


def _hold_mu(w: World, side: str) -> float:
    """Where a planted foot holds the floor (issue 5: a heel raise pivots about the ball of the
    foot, a foot on its heel about the heel): μ of the sole point sole + μ·(toe − sole), μ =
    x(3 − x²)/2 with x = (heel − toe height) / ``plantTolerance`` clamped to [−1, 1]: the sole
    centre while the foot is flat, its toe edge once the heel is up, its heel once the toes are
    up (feet on their toes behind a hands/forearms lock: their toes). Same rule in
    runtime/solvers/plan.js ``holdMu``."""
    return _mu_of_heights(landmark_xyz(w, f"heel_{side}")[1], landmark_xyz(w, f"toe_{side}")[1])


def _mu_of_heights(heel: float, toe: float) -> float:
    """:func:`_hold_mu` from the heel and toe heights (m)."""
    x = (heel - toe) / float(SOLVER["plantTolerance"])
    x = min(1.0, max(-1.0, x))
    return 0.5 * x * (3.0 - x * x)


def _hold_point(w: World, side: str) -> tuple[np.ndarray, float]:
    """The held sole point sole + μ(toe − sole) of a planted foot (world m) and its μ."""
    p, m = _hold_xyz(w, side)
    return np.array(p), m


def _hold_xyz(w: World, side: str) -> tuple[tuple[float, float, float], float]:
    """:func:`_hold_point` on Python floats (the same operations in the same order: the same
    bits, without the small-array overhead)."""
    sx, sy, sz = landmark_xyz(w, f"sole_{side}")
    tx, ty, tz = landmark_xyz(w, f"toe_{side}")
    m = _mu_of_heights(landmark_xyz(w, f"heel_{side}")[1], ty)
    return (sx + m * (tx - sx), sy + m * (ty - sy), sz + m * (tz - sz)), m


def _footprint(w: World, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The floor footprint of a foot (world, y = 0): C, the centre of its flat sole, and D, half
    its sole line (sole → toe) laid flat along its heading, taken so that C + μD is the held
    point now (:func:`_hold_point`). A held foot keeps C + μD under its held point whatever its
    pitch. Same rule in runtime/solvers/plan.js ``footprint``."""
    sole, toe = w.landmarks[f"sole_{side}"], w.landmarks[f"toe_{side}"]
    u = toe - sole
    uh = np.array([u[0], 0.0, u[2]])
    D = uh * (float(norm3(u)) / max(float(norm3(uh)), 1e-9))
    C = sole + _hold_mu(w, side) * (uh - D)
    C[1] = 0.0
    return C, D


def _swivel(pose: _Pose, side: str, heading: np.ndarray, k: float) -> None:
    """Keep a planted foot's heading (issue 5: a hip turned out or in must not turn a planted
    foot): swivel the leg about its hip → ankle axis a (the ankle stays put) by ψ / a_y, ψ the
    signed angle about +Y from the foot's heading (heel → toe) to ``heading`` — a leg hanging
    down turns its foot by about −a_y times its swivel; scaled by ``k`` (how firmly the foot is
    held), the hip clamped into its box widened to the incoming angles. Same steps in
    runtime/solvers/limb.js ``swivel``."""
    w = pose.world()
    turn = _swivel_turn(w, side, heading, k)
    if turn is not None:
        hip = f"hip_{side}"
        pose.set_euler(hip, _clamp_box(hip, turned_euler(pose.local[hip], w.rot[hip], *turn), pose.euler[hip]))


def _swivel_turn(w: World, side: str, heading: np.ndarray, k: float) -> tuple[tuple[float, float, float], float] | None:
    """:func:`_swivel`'s turn of the hip: (the unit hip → ankle axis, the angle in radians), or
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


def _hold_weight(low: float, lo: float = 0.2, hi: float = 0.4) -> float:
    """How firmly a ground-locked foot is held (0–1) from its lowest point ``low`` (m) above the
    floor before the hold: 1 up to ``lo`` × ``solver.plantedHeight``, smoothstep down to 0 at
    ``hi`` ×. A foot the authored joints lift off the floor (a hamstring curl) is let go over a
    few degrees of knee, not dropped in one frame: first its height (1–2 cm of authored lift),
    then its place on the floor (2–3 cm, ``lo=0.4, hi=0.6``), so it rises before it slides.
    Same rule in runtime/solvers/root.js."""
    h = float(SOLVER["plantedHeight"])
    x = min(1.0, max(0.0, (hi * h - low) / ((hi - lo) * h)))
    return x * x * (3.0 - 2.0 * x)


def _leg_drop(av: Avatar, w: World, side: str, target: np.ndarray) -> float:
    """How far (m) the hip of ``side`` must come down to be within a straight leg (thigh + shin
    offsets) of ``target`` (0 or less when it already is; KR §8 gait exception)."""
    leg = float(np.linalg.norm(av.offsets[f"knee_{side}"]) + np.linalg.norm(av.offsets[f"ankle_{side}"]))
    hip = w.pos[f"hip_{side}"]
    dxz2 = (hip[0] - target[0]) ** 2 + (hip[2] - target[2]) ** 2
    return float(hip[1] - target[1] - math.sqrt(leg * leg - dxz2)) if dxz2 < leg * leg else 0.0


def _stance_hold(pose: _Pose, side: str, footprint: tuple[np.ndarray, np.ndarray], authored_x: float) -> None:
    """A stance foot of a travelling gait holds its footprint (issue 5: no slide late in a step):
    twice — level the foot (``_level_foot``), take its held point's error, lower the root until
    the hip is within a straight leg of the ankle target (the ankle moved by that error, at the
    height that keeps the foot on the floor), two-bone leg IK onto it — then level once more and
    move the root horizontally by what is left, which the leg's boxes (20° of hip extension, 15°
    of ankle dorsiflexion at the end of a long step) cannot take: the body stays back over the
    foot instead of dragging it. After each IK the leg swivels back to the foot's planted heading
    (:func:`_swivel`): a leg leaning sideways over it turned the foot about its held point, the
    toe of box-step's side step sweeping 11 mm. Same steps in runtime/solvers/root.js ``pin``."""
    ankle = f"ankle_{side}"
    for _ in range(2):
        _level_foot(pose, side, authored_x)
        w = pose.world()
        t = w.pos[ankle] + _hold_error(w, side, footprint)
        t[1] = w.pos[ankle][1] - w.lowest(subtree(ankle))
        pose.move((0.0, -max(0.0, _leg_drop(pose.av, w, side, t)), 0.0))
        _two_bone(pose, f"hip_{side}", f"knee_{side}", ankle, t)
        _swivel(pose, side, footprint[1], 1.0)   # and keeps the heading it was planted with
    _level_foot(pose, side, authored_x)
    e = _hold_error(pose.world(), side, footprint)
    pose.move((float(e[0]), 0.0, float(e[2])))


def _hinge_up(pose: _Pose, joint: str, point: np.ndarray, dy: float, ax: int = 0, wide_first: bool | None = None) -> None:
    """Turn ``joint`` (hip, knee or ankle) about one of its Euler axes — ``ax`` 0: its x, about the
    parent's X axis (knee, ankle); 2: its z, about its own Z axis after x and y (hip abduction) —
    so that the world ``point`` (moving with it) rises by ``dy`` (m): with r = point − joint split
    about that axis u, its height changes by A cos θ + B sin θ − A (A = r⊥·y, B = (u × r⊥)·y).
    Of the two roots: the one the joint's ROM range (widened to its angle) keeps best, then with
    ``wide_first`` (default: for z) the one toward the wider end of the range (a knee flexes; a hip
    abducts, the knee going round the outside: the choice does not flip from frame to frame), then
    the nearest zero; clamped to the range. Same steps in runtime/solvers/root.js ``hingeUp``."""
    w = pose.world()
    e = list(pose.euler[joint])
    parent = w.rot[joint] @ pose.local[joint].T
    u = parent @ (euler_to_matrix((e[0], e[1], 0.0)) @ np.array([0.0, 0.0, 1.0]) if ax else np.array([1.0, 0.0, 0.0]))
    r = point - w.pos[joint]
    rperp = r - u * float(u @ r)
    A, B = float(rperp[1]), float(cross3(u, rperp)[1])
    R = math.hypot(A, B)
    if R < 1e-9:
        return
    phi, ac = math.atan2(B, A), math.acos(min(1.0, max(-1.0, (A + dy) / R)))
    lo, hi = rom_box(joint)["xyz"[ax]]
    wide = (lo + hi) if (ax > 0 if wide_first is None else wide_first) else 0.0
    lo, hi = min(lo, e[ax]), max(hi, e[ax])
    best = None
    for t in (phi + ac, phi - ac):
        d = math.degrees(math.atan2(math.sin(t), math.cos(t)))
        c = min(max(e[ax] + d, lo), hi)
        key = round(abs(e[ax] + d - c) * 1e6) * 1e3 + (360.0 if d * wide < 0 else 0.0) + abs(d)
        if best is None or key < best[0]:
            best = (key, c)
    e[ax] = best[1]
    pose.set_euler(joint, tuple(e))


def _clear_free_limbs(pose: _Pose, kf, reached: bool = False, arriving: frozenset = frozenset(),
                      start: World | None = None, decided: dict | None = None) -> None:
    """Swing clearance: while the body rests on a ground-locked or floor-pinned contact, a leg
    with no contact of its own this phase (no lock, pin or reach of the foot or knee), or whose
    locked foot arrives from the air (``arriving``: sides), that the pose pushes through the floor
    is lifted within its own chain, not by the floor clamp raising the body off its support: the
    toe turns up at the ankle, what the ankle's range leaves the knee flexes away (the lowest of
    toe, heel and ankle joint rises by the depth), and a knee still through the floor goes round
    it, the hip abducting (:func:`_hinge_up`); ``clearanceIterations`` rounds. The floor is y = 0,
    or the rest of the body's lowest point while a pin or the feet hold it below (the floor clamp
    lifts the figure afterwards); the knee and hip leave it a graze of ``plantTolerance`` / 5. A
    foot on its heel is not turned at the ankle (that would drive the heel down): the knee lifts
    it; with its toes up on purpose (ankle dorsiflexed) the hip and knee set it down on its heel
    with its pitch kept (:func:`_heel_on_floor`) — the body is never raised off its locked support
    over a free heel. Run again after the self-collision push. With ``reached``, each foot that reaches for the floor (neither locked nor pinned),
    after the reaches: a brushing foot (tendu, a tap coming down) is kept out of the floor instead
    of lifting the standing foot (but one on its heel is left there: a foot set down flat). On its
    heel or not is decided once per phase for the first round (:func:`_heel_down`, ``decided``
    keeps it per side and list); later rounds follow the foot as the first one left it. Same rule
    in runtime/solvers/root.js ``clearFreeLimbs`` (plan.js ``swing``, ``reachSwing``)."""
    busy = {c.effector for c in list(kf.pins) + list(kf.reaches) + list(kf.grips)} | set(kf.ground_lock)
    floor_reach = {c.effector for c in kf.reaches if c.target == FLOOR}
    fixed = {c.effector for c in kf.pins} | set(kf.ground_lock)
    sides = []
    for s in ("left", "right"):
        if reached != (f"foot_{s}" in floor_reach and f"foot_{s}" not in fixed):
            continue
        if not reached and s not in arriving and busy & {f"foot_{s}", f"knee_{s}"}:
            continue
        sides.append(s)
    if not sides:
        return
    legs = {f"{j}_{s}" for s in sides for j in ("knee", "ankle")}
    fl = min([0.0] + [v for b, v in pose.world().lowest_by_bone().items() if b not in legs])
    # the knee and hip leave the floor clamp a graze of a fifth of plantTolerance (a sole edge of
    # a leg swinging out): flexing a knee over a flat foot first dips its toes
    graze = fl - 0.2 * float(SOLVER["plantTolerance"])
    decided = {} if decided is None else decided
    for s in sides:
        ankle, knee = f"ankle_{s}", f"knee_{s}"
        if (s, reached) not in decided:
            decided[(s, reached)] = _heel_down(start, s) and _heel_down(pose.world(), s)
        for it in range(int(SOLVER["clearanceIterations"])):
            w = pose.world()
            low = w.lowest_by_bone((ankle, knee))
            heel, toe = w.landmarks[f"heel_{s}"], w.landmarks[f"toe_{s}"]
            if min(low[ankle], low[knee]) >= fl - 1e-4:
                break
            if heel[1] <= toe[1] if it else decided[(s, reached)]:
                # on its heel: turning the toes up would drive the heel down; a foot reaching for
                # the floor is left on it, one with its toes up on purpose (ankle dorsiflexed) is
                # set down on its heel by its own leg (the body rose off its locked support), else
                # the knee lifts it (below)
                if reached:
                    break
                if pose.euler[ankle][0] < 0:
                    _heel_on_floor(pose, s, fl - low[ankle])
                    continue
            else:
                _hinge_up(pose, ankle, toe, fl - low[ankle])
            w = pose.world()
            low = w.lowest_by_bone((ankle, knee))
            if low[ankle] < graze:
                heel, toe, joint = w.landmarks[f"heel_{s}"], w.landmarks[f"toe_{s}"], w.pos[ankle]
                p = toe if toe[1] < heel[1] else heel
                _hinge_up(pose, knee, (p if p[1] < joint[1] else joint).copy(), graze - low[ankle], 0, True)
                low = pose.world().lowest_by_bone((ankle, knee))
            if low[knee] < graze:
                _hinge_up(pose, f"hip_{s}", pose.world().pos[knee].copy(), graze - low[knee], 2)


def _heel_on_floor(pose: _Pose, side: str, dy: float) -> None:
    """A free foot with its toes up on purpose, through the floor on its heel, rises by ``dy`` (m)
    with its pitch kept: the hip flexes until the knee is ``dy`` higher (:func:`_hinge_up`) and the
    knee bends back by as much, so the shank and foot keep their orientation and only rise (the
    heel coming forward: a heel set down ahead, toes up). Flexing the knee alone would pitch the
    toes down by its angle (15° of dorsiflexion showed 7°). The knee's bend-back stays within its
    ROM box (widened to its angle, as :func:`_hinge_up` does): a hip that rises by extending (a
    leg over a body tipped back) would otherwise ask the knee to hyperextend past it (-78° seen).
    Same rule in runtime/solvers/root.js ``clearFreeLimbs``."""
    hip, knee = f"hip_{side}", f"knee_{side}"
    x0 = pose.euler[hip][0]
    _hinge_up(pose, hip, pose.world().pos[knee].copy(), dy, 0, True)
    e = list(pose.euler[knee])
    e[0] -= pose.euler[hip][0] - x0
    pose.set_euler(knee, _clamp_box(knee, e, pose.euler[knee]))


def _heel_down(w: World | None, side: str) -> bool:
    """Whether a free foot counts as on its heel at one keyframe for swing clearance: its heel no
    higher than its toe + 1 mm (a flat foot is). A phase's first clearance round treats the foot as
    on its heel when it is so at both of the phase's keyframes, its start (the previous phase's
    solved end) and its end (before clearance), so a foot flat at one end and pointed at the other
    takes one branch through the whole phase: decided per frame, a flat foot's tie flipped it
    (grapevine's knee jumped ~800 rad/s). Same rule in runtime/solvers/plan.js (``heelDown0``)
    and root.js ``clearFreeLimbs``. ``w`` None: no start to compare (counts as on its heel)."""
    if w is None:
        return True
    return float(w.landmarks[f"heel_{side}"][1]) <= float(w.landmarks[f"toe_{side}"][1]) + 1e-3


def _palm_down(pose: _Pose, side: str) -> None:
    """Dip bars (KR §9.2 step 4): extend the wrist so the palm (its local +Z) turns down onto the
    rail. Turning the wrist by θ about its parent's X axis u (adding θ to its intrinsic-XYZ x)
    takes the palm normal n to n∥ + n⊥ cos θ + (u × n) sin θ, whose downward part is largest at
    θ = atan2(−(u × n)_y, −n⊥_y); x is clamped to the wrist's ROM box (strict). Same rule in
    runtime/solvers/root.js ``palmDown``."""
    wrist = f"wrist_{side}"
    w = pose.world()
    n = w.rot[wrist] @ np.array([0.0, 0.0, 1.0])
    u = w.rot[PARENT[wrist]] @ np.array([1.0, 0.0, 0.0])
    perp = n - u * float(n @ u)
    theta = math.degrees(math.atan2(-float(cross3(u, n)[1]), -float(perp[1])))
    x, y, z = pose.euler[wrist]
    lo, hi = rom_box(wrist)["x"]
    pose.set_euler(wrist, (min(max(x + theta, lo), hi), y, z))


def _close_hand(pose: _Pose, side: str, state: str = "grip") -> None:
    """Close a hand around the bar (KR §9.2 step 5, §9.3): index to pinky curl about their local
    X, the thumb curls and turns across (local Z: left −, right +) by rig ``HAND_STATES[state]``;
    a digit the document authors (non-zero angles) is left as written. Same rule in
    runtime/solvers/root.js ``closeHand``."""
    hs = HAND_STATES[state]
    for d in DIGITS:
        bone = f"{d}_{side}"
        if any(abs(v) > 1e-9 for v in pose.euler[bone]):
            continue
        if d == "thumb":
            z = hs["thumbZ"] if side == "left" else -hs["thumbZ"]
            pose.set_euler(bone, (hs["thumbCurl"], 0.0, z))
        else:
            pose.set_euler(bone, (hs["curl"], 0.0, 0.0))


def _stance_shift(errors: list[tuple[tuple[float, float, float], float]]) -> tuple[float, float, float]:
    """The root's horizontal move (m) that holds the planted feet: the mean of each foot's
    (anchor − sole) error weighted by hold / (|error|² + ε²), ε = ``solver.plantTolerance``.
    Feet that need the same move (a squat sitting back) share it; a foot whose error is its own
    (one foot curling, the feet spreading) barely moves the body, and its leg IK holds it
    instead. Continuous in every input. Same rule in runtime/solvers/root.js."""
    eps2 = float(SOLVER["plantTolerance"]) ** 2
    num, den = (0.0, 0.0, 0.0), 0.0
    for e, k in errors:
        wk = k / (vdot(e, e) + eps2)
        num = vadd(num, vscale(e, wk))
        den += wk
    return (num[0] / den, num[1] / den, num[2] / den) if den > 0 else num


def _sole_metrics(w: World, side: str) -> tuple[float, float]:
    return float(w.landmarks[f"heel_{side}"][1]), float(w.landmarks[f"toe_{side}"][1])


#: largest sole tilt (degrees) of a planted foot (issue 5 item 4: "sole tilt of a locked foot ≤ 5°")
SOLE_TILT_LIMIT = 5.0


def _sideways_lean(w: World, side: str) -> float:
    """Sideways lean (degrees, signed) of a leg over its foot: the angle of the hip → ankle line
    from the vertical in the foot's frontal plane (normal to its heel → toe heading). The rig's
    ankle only flexes and extends (rig.json ``rom``: y and z locked) and the knee is a hinge, so
    the ankle's hinge axis is normal to the hip → ankle line and a sole keeping its heading rolls
    onto its edge by this angle whatever its pitch: a flat sole needs the hip straight above the
    ankle across the foot (runtime/solvers/plan.js has no twin: a build-time report)."""
    d = w.pos[f"hip_{side}"] - w.pos[f"ankle_{side}"]
    f = w.landmarks[f"toe_{side}"] - w.landmarks[f"heel_{side}"]
    n = math.hypot(float(f[0]), float(f[2]))
    if n < 1e-9:
        return 0.0
    across = (float(d[0]) * float(f[2]) - float(d[2]) * float(f[0])) / n
    return math.degrees(math.atan2(across, float(d[1])))


def _level_foot(pose: _Pose, side: str, authored_x: float) -> tuple[float, float] | None:
    """Plantigrade levelling (KR §6.4): choose the ankle x that puts the sole flat (forward axis
    horizontal), clamped to the ankle box. Keeps tiptoe intent: up to ``plantigradeMaxAnkle``
    (15°) of authored x the foot is levelled, from there to 2 × ``plantigradeBlend`` (10°) more
    the levelled and the authored angle cross-fade (smoothstep), above that the authored pitch is
    kept; so a heel raise leaves the floor continuously instead of jumping at 15°. Returns
    (needed, used) when the box stopped a fully levelled foot, else None. Same rule in runtime/solvers/root.js ``levelFoot``."""
    lv = _level_angles(pose.world(), side, authored_x)
    if lv is None:
        return None
    ankle = f"ankle_{side}"
    e = pose.euler[ankle]
    pose.set_euler(ankle, (lv[0], e[1], e[2]))
    return _level_report(lv)


def _level_report(lv: tuple[float, float, float, float] | None) -> tuple[float, float] | None:
    """:func:`_level_foot`'s report from :func:`_level_angles`: (needed, used) degrees when the
    ankle box stopped a fully levelled foot by more than 0.25°, else None."""
    if lv is None:
        return None
    _x, needed, used, keep = lv
    return (needed, used) if keep == 0.0 and abs(used - needed) > 0.25 else None


def _level_angles(w: World, side: str, authored_x: float) -> tuple[float, float, float, float] | None:
    """:func:`_level_foot`'s ankle x (degrees) with the angle that levels the sole, the box-clamped
    one and the authored pitch's share (0–1), or None when the authored pitch is kept."""
    m, band = float(SOLVER["plantigradeMaxAnkle"]), float(SOLVER["plantigradeBlend"])
    keep = min(1.0, max(0.0, (authored_x - m) / (2.0 * band)))
    keep = keep * keep * (3.0 - 2.0 * keep)
    if keep >= 1.0:
        return None
    Rk = w.rot[f"knee_{side}"]
    needed = math.degrees(math.atan2(Rk[1, 2], Rk[1, 1]))
    lo, hi = rom_box(f"ankle_{side}")["x"]
    used = min(max(needed, lo), hi)
    return (1.0 - keep) * used + keep * authored_x, needed, used, keep


def _body_faces(props: list[str]) -> list[dict]:
    """The prop faces that push the body (KR §10.1: ``resolve: body``) of ``props``."""
    return [f for p in props for f in PROP_GEOMETRY[p]["faces"] if f["resolve"] == "body"]


def _face_push(pose: _Pose, props: list[str], apply: bool = True) -> np.ndarray:
    """Body-resolving prop faces (KR §10.1): sample torso, head and shins as spheres; translate the
    root along each face's normal by the deepest owned sample. Two passes. Returns the total
    translation (m); with ``apply`` false the pose is left where it was (a measurement)."""
    faces = _body_faces(props)
    total = np.zeros(3)
    if not faces:
        return total
    start = pose.root_pos.copy()
    for _ in range(int(SOLVER["propBodyPasses"])):
        for f in faces:
            w = pose.world()
            col = w.avatar.collision
            samples = []
            parts = set(f["blocks"])
            if parts & {"torso", "all"}:
                samples += [(w.pos["pelvis"] + t * (w.pos["neck"] - w.pos["pelvis"]), col["torso"])
                            for t in (0, 0.33, 0.66, 1)]
            if parts & {"head", "all"}:
                samples.append((w.pos["head"], col["head"]))
            if parts & {"shins", "all"}:
                for s in ("left", "right"):
                    samples += [(w.pos[f"knee_{s}"] + t * (w.pos[f"ankle_{s}"] - w.pos[f"knee_{s}"]), col["shin"])
                                for t in (0, 0.33, 0.66, 1)]
            c, n = np.asarray(f["center"]), np.asarray(f["normal"])
            u, v = np.asarray(f["u"]), np.asarray(f["v"])
            depth = 0.0
            for p, r in samples:
                d = float((p - c) @ n)
                if -f["capture"] <= d < r and abs(float((p - c) @ u)) <= f["halfU"] + r \
                        and abs(float((p - c) @ v)) <= f["halfV"] + r:
                    depth = max(depth, r - d)
            if depth > 1e-4:
                pose.move(n * depth)
                total += n * depth
    if not apply:
        pose.move(start - pose.root_pos)
    return total


def _owned_depth(face: dict, p: np.ndarray, r: float) -> float:
    """Penetration depth (m) of a sphere (centre p, radius r) owned by a blocking face, else 0
    (KR §10.1 ownership rule)."""
    c, n = np.asarray(face["center"]), np.asarray(face["normal"])
    u, v = np.asarray(face["u"]), np.asarray(face["v"])
    d = float((p - c) @ n)
    if -face["capture"] <= d < r and abs(float((p - c) @ u)) <= face["halfU"] + r \
            and abs(float((p - c) @ v)) <= face["halfV"] + r:
        return r - d
    return 0.0


def _limb_lift(pose: _Pose, props: list[str], fixed: set[str]) -> None:
    """Limb-resolving prop faces (the box's near face, KR §10.1), the last step: a box is solid, so a
    free leg (no side in ``fixed``; a foot reaching for the floor is free) is lifted out of it
    rather than swung through its corner. The shin, the segment from the knee to ``shinOverhang``
    past the ankle with the shin radius r, must not enter the face's region (what
    :func:`_owned_depth` owns); a point of it inside falls short by the smaller of r − (p − c)·n
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
            new = _clamp_box(knee, (ek[0] + step, ek[1], ek[2]), widen[knee])
            pose.set_euler(knee, new)
            left = step - (new[0] - ek[0])
            if left > 1e-3:   # the knee's box is exhausted: the hip flexes (limb flexion is −x)
                eh = pose.euler[hip]
                pose.set_euler(hip, _clamp_box(hip, (eh[0] - left, eh[1], eh[2]), widen[hip]))


# ---------------------------------------------------------------------------------------------
# the solve
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _turn(deg: float) -> np.ndarray:
    """``rot_y(deg)``, read-only and remembered (a clip's phases share a few turn angles)."""
    m = rot_y(deg)
    m.setflags(write=False)
    return m


def _landmark_bone(name: str) -> str:
    """The bone of a body-landmark reach target: a bone id as is, an effector name (``foot_left``)
    through the effector map."""
    return name if name not in EFFECTOR_BONE or name in BONES_SET else EFFECTOR_BONE[name]


def _residual(w: World, c: Contact, target: np.ndarray) -> float:
    """Distance (m) between an effector and its target after the solve. For the floor: the
    horizontal distance of the joint from the target's x, z combined with the gap between the
    effector's own surface and the floor (KR §7: floor targets keep x, z and use the current
    contact-surface height)."""
    p = _effector_point(w, c.effector, c.target)
    if c.target != FLOOR:
        return float(norm3(p - target))
    gap = float(w.pos[EFFECTOR_BONE[c.effector]][1]) - _contact_height(w, c.effector)
    return float(math.hypot(p[0] - target[0], p[2] - target[2], max(gap, 0.0)) if gap > 0
                 else math.hypot(p[0] - target[0], p[2] - target[2], gap))


def _arm_clearance(w: World, effector: str, plane: list[float]) -> float:
    """Signed depth (m) of a reached arm in a surface plane (``PROP_SURFACES``: normal n, offset
    n·c): arm radius minus the smaller plane distance of its capsule's ends (the elbow, and
    ``armOverhang`` past the wrist along the forearm: the hand, KR §10.1 capsules); moving the
    wrist target out along the normal by it brings the deepest end onto the surface (the
    distance is linear along the segment)."""
    s = _side(effector)
    e, wr = w.pos[f"elbow_{s}"], w.pos[f"wrist_{s}"]
    tip = wr + (wr - e) / norm3(wr - e) * float(SOLVER["armOverhang"])
    n = np.asarray(plane[:3], float)
    return float(w.avatar.collision["arm"]) - min(float(e @ n), float(tip @ n)) + plane[3]


def _floor_target(w: World, c: Contact) -> np.ndarray:
    bone = EFFECTOR_BONE[c.effector]
    p = w.pos[bone].copy()
    if c.effector.startswith("hand"):
        sh = w.pos[f"shoulder_{_side(c.effector)}"]
        d = np.array([p[0] - sh[0], 0.0, p[2] - sh[2]])
        n = norm3(d)
        if n > 1e-6:
            p += d / n * float(SOLVER["handFloorOutward"])
    p[1] = _contact_height(w, c.effector)
    return p


def _hold_error(w: World, side: str, anchor: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Horizontal error (m, y = 0, (3,)) of a held foot: its footprint point C + μD (``anchor`` =
    (C, D), :func:`_footprint`) minus its held point (:func:`_hold_point`)."""
    return np.array(_hold_error_xyz(w, side, anchor))


def _hold_error_xyz(w: World, side: str, anchor: tuple[np.ndarray, np.ndarray]) -> tuple[float, float, float]:
    """:func:`_hold_error` as a float triple."""
    (px, _py, pz), m = _hold_xyz(w, side)
    (cx, _cy, cz), (dx, _dy, dz) = anchor[0].tolist(), anchor[1].tolist()
    return (cx + m * dx - px, 0.0, cz + m * dz - pz)


#: how far (m) the feet may be from what a ground-lock round asks of them, and how far (degrees) a
#: foot from level, for a round to be skipped as a no-op (:func:`_round_settled`)
ROUND_SETTLED_M = 1e-7
ROUND_SETTLED_DEG = 1e-5


def _planted(low: dict[str, float], feet: list[str]) -> list[str]:
    """The locked ``feet`` (sides) whose lowest point (``low``: per ankle bone, m) is within
    ``plantedHeight`` of the floor."""
    planted_h = float(SOLVER["plantedHeight"])
    return [s for s in feet if low[f"ankle_{s}"] <= planted_h]


def _held(low: dict[str, float], planted: list[str], anchors: dict) -> list[tuple[str, float, float]]:
    """The planted feet that have an anchor, each with its horizontal and vertical hold weights
    (:func:`_hold_weight`, the horizontal one ramping over 0.4-0.6 of ``plantedHeight``);
    a foot whose horizontal weight is 0 is let go."""
    held = [(s, _hold_weight(low[f"ankle_{s}"], 0.4, 0.6), _hold_weight(low[f"ankle_{s}"]))
            for s in planted if f"foot_{s}" in anchors]
    return [(s, kh, kv) for s, kh, kv in held if kh > 0.0]


def _round_settled(pose: _Pose, feet: list[str], carry: list[str], planted: list[str] | None,
                   held: list[tuple[str, float, float]] | None, anchors: dict, semantic_ankle: dict[str, float],
                   level: bool) -> tuple[list[str], list[tuple[str, float, float]]] | None:
    """Whether a round of :func:`_ground_lock` would leave the pose as it is: the feet need no
    drop (within :data:`ROUND_SETTLED_M`), the same feet are planted and held as in the previous
    round (``planted``, ``held``; None before the first), each planted foot is level within
    :data:`ROUND_SETTLED_DEG`, each held foot is on its anchor and on the floor within
    ROUND_SETTLED_M and needs no swivel (within ROUND_SETTLED_M radians). Every step of the
    round then moves the pose by about as much, so it is skipped (numpy-only: the runtime solves
    frames, not rounds), and so are the rounds after it and the final levelling and re-hold,
    which correct the same residuals. Returns the planted feet and the held feet with their
    weights as the round would have them, or None when the round must run."""
    w = pose.world()
    tol, tol_deg = ROUND_SETTLED_M, ROUND_SETTLED_DEG
    low = w.lowest_by_bone(_ANKLES)
    if abs(min(low[f"ankle_{s}"] for s in carry)) > tol:
        return None
    now = _planted(low, feet)
    if planted is not None and now != planted:
        return None
    for s in (now if level else ()):
        lv = _level_angles(w, s, semantic_ankle[s])
        if lv is not None and abs(lv[0] - pose.euler[f"ankle_{s}"][0]) > tol_deg:
            return None
    again = _held(low, now, anchors)
    if held is not None and [s for s, _kh, _kv in again] != [s for s, _kh, _kv in held]:
        return None
    for s, kh, kv in again:
        ex, _ey, ez = _hold_error_xyz(w, s, anchors[f"foot_{s}"])
        if abs(ex) > tol or abs(ez) > tol:
            return None
        if level:
            if abs(kv * w.lowest(subtree(f"ankle_{s}"))) > tol:
                return None
            turn = _swivel_turn(w, s, anchors[f"foot_{s}"][1], kh)
            if turn is not None and abs(turn[1]) > tol:
                return None
    return now, again


def _ground_lock(pose: _Pose, locks: tuple[str, ...], anchors: dict[str, np.ndarray],
                 semantic_ankle: dict[str, float], result: PhaseSolution) -> None:
    feet = [s for s in ("left", "right") if f"foot_{s}" in locks]
    uppers = [c for c in locks if c.startswith(("hand", "elbow"))]
    if "back" in locks:
        pose.move((0.0, -pose.world().lowest(BACK_BONES), 0.0))
        return
    if not feet:
        return   # hands / forearms only: the floor clamp does the rest (KR §6.3)

    # the held feet when there are some (a foot arriving from the air does not carry the body)
    carry = [s for s in feet if f"foot_{s}" in anchors] or feet

    def drop_feet():
        low = pose.world().lowest_by_bone(_ANKLES)
        pose.move((0.0, -min(low[f"ankle_{s}"] for s in carry), 0.0))

    planted: list[str] = []
    held: list[tuple[str, float, float]] = []
    level = not uppers   # feet behind a hands/forearms support stand on their toes (plank)
    # each held foot: the root moves by the shared part of the feet's (anchor − sole centre)
    # errors (_stance_shift), then a two-bone leg IK puts that foot's sole exactly on its anchor and on the floor (the per-foot
    # lock KR §6.3 marks as missing); levelled before and after, in two rounds
    # A round, the rounds after it and the final levelling and re-hold are skipped when the pose
    # (as it comes, or as the first round left it) has nothing for them to correct
    # (_round_settled: every residual within 1e-7 m / 1e-5°; numpy-only, see docs/runtime.md
    # "Speed of the numpy solve")
    settled = False
    for _round in range(2):
        again = _round_settled(pose, feet, carry, planted if _round else None, held if _round else None,
                               anchors, semantic_ankle, level)
        if again is not None:
            (planted, held), settled = again, True
            break
        drop_feet()
        planted = _planted(pose.world().lowest_by_bone(_ANKLES), feet)
        for s in (planted if level else ()):
            _level_foot(pose, s, semantic_ankle[s])
        drop_feet()
        held = _held(pose.world().lowest_by_bone(_ANKLES), planted, anchors)
        if held:
            w = pose.world()
            errors = []
            for s, kh, _kv in held:
                errors.append((_hold_error_xyz(w, s, anchors[f"foot_{s}"]), kh))
            pose.move(_stance_shift(errors))
            # feet on their toes behind a hands/forearms lock: held by the stance shift and the
            # pivot about their toes only (a straight leg's IK to a point 15 cm off its end is
            # ill-posed: a sub-millimetre target bends the knee degrees and swings the toes)
            for s, kh, kv in (held if level else ()):
                w = pose.world()
                ex, _ey, ez = _hold_error_xyz(w, s, anchors[f"foot_{s}"])
                err = (ex * kh, -kv * w.lowest(subtree(f"ankle_{s}")), ez * kh)
                _two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", vadd(joint_xyz(w, f"ankle_{s}"), err))
                _swivel(pose, s, anchors[f"foot_{s}"][1], kh)
    firm = {s for s, _kh, kv in held if kv >= 0.999} if feet else set()
    for s in (planted if level else ()):
        # settled: level, on its anchor and heading within the tolerance: the report only
        rep = (_level_report(_level_angles(pose.world(), s, semantic_ankle[s])) if settled
               else _level_foot(pose, s, semantic_ankle[s]))
        if rep is not None and s in firm:   # a foot being let go is not a planted foot
            result.feet.append(FootReport(s, rep[0], rep[1], 0.0, 0.0))
        if settled:
            continue
        # levelling turned the foot about its ankle: the leg brings its held point back
        kh = next((k for f, k, _kv in held if f == s), 0.0)
        if kh:
            w = pose.world()
            err = vscale(_hold_error_xyz(w, s, anchors[f"foot_{s}"]), kh)
            _two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", vadd(joint_xyz(w, f"ankle_{s}"), err))
            _swivel(pose, s, anchors[f"foot_{s}"][1], kh)
    if uppers:
        # hands/forearms + feet: pivot the rigid body about the lateral axis through the mean
        # planted ankle so the mean upper-support height reaches its floor height (KR §6.3).
        yaw_axis = pose.root_rot @ np.array([1.0, 0.0, 0.0])
        yaw_axis[1] = 0.0
        yaw_axis /= max(norm3(yaw_axis), 1e-9)

        # the body pivots onto the held hands / forearms (one arriving from the air is carried)
        support = [c for c in uppers if c in anchors] or uppers

        def err() -> float:
            w = pose.world()
            return float(np.mean([w.pos[EFFECTOR_BONE[c]][1] - _contact_height(w, c) for c in support]))

        # pivot, then hold; again (``pivotRounds``) when a held arm could not reach its anchor
        # (a straight arm: the body pivots down to it)
        for _round in range(int(SOLVER["pivotRounds"])):
            for _ in range(int(SOLVER["pivotIterations"])):
                e0 = err()
                if abs(e0) < float(SOLVER["pivotTolerance"]):
                    break
                w = pose.world()
                # about the feet's floor contacts (the toes of feet on their toes): the turn keeps
                # them in place
                pivot = np.mean([_hold_point(w, s)[0] for s in carry], axis=0)
                pose.rotate_root_about(yaw_axis, 0.01, pivot)
                d = (err() - e0) / 0.01
                pose.rotate_root_about(yaw_axis, -0.01, pivot)
                if abs(d) < 1e-4:
                    break
                lim = float(SOLVER["pivotMaxStep"])
                step = float(np.clip(-e0 / d, -lim, lim))
                pose.rotate_root_about(yaw_axis, step, pivot)
            _hold_uppers(pose, uppers, anchors)
    result.planted.update({f"foot_{s}": pose.world().landmarks[f"sole_{s}"].copy() for s in planted})


def solve_keyframes(program) -> Solution:
    """Solve the base pose and every phase end of a compiled program (cached on the program).

    Returns a :class:`Solution` whose phase worlds hold joint and landmark positions in metres.
    Never raises for a program that :func:`~posecode_ssg.motion.compile_ir` produced.

    **Prop placement**: props are world-fixed (KR §10.1), so a figure whose start pose or any
    phase end passes through a body-resolving face (a chair's seat edge under a standing figure's
    shins, a wall behind a deep wall-sit) is placed clear of it for the whole clip: the solve runs
    once, the largest body-face push over the base pose and the phase ends becomes an offset of
    the start position, and the solve runs again from there. Planted feet are then anchored where
    the figure actually stands, instead of being walked by the push mid-clip. The runtime places
    the figure the same way (runtime/pose.js ``_place``).
    """
    if program._solution is not None:
        return program._solution
    sol, push = _solve(program, np.zeros(3))
    if float(norm3(push)) > 1e-4:
        sol, _push = _solve(program, push)
    program._solution = sol
    return sol


#: how far (m; and per rotation-matrix entry) the loop seam's solved world may be from the start
#: pose's for the second solve pass to be skipped as a repeat of the first (``_solve``)
SEAM_TOLERANCE = 1e-6


def _same_world(a: World, b: World) -> bool:
    """Whether two worlds of one avatar have every joint position (m) and world rotation entry
    within :data:`SEAM_TOLERANCE`."""
    if a is b:
        return True
    tol = SEAM_TOLERANCE
    for bone in BONES:
        (ax, ay, az), (bx, by, bz) = joint_xyz(a, bone), joint_xyz(b, bone)
        if abs(ax - bx) > tol or abs(ay - by) > tol or abs(az - bz) > tol:
            return False
    rot_a, rot_b = a.rot, b.rot
    # np.array of the 3 × 3 list: the same stacked values as np.stack, at half the cost
    return float(np.abs(np.array([rot_a[k] for k in BONES]) - np.array([rot_b[k] for k in BONES])).max()) <= tol


#: start-pose worlds by (avatar id, exact Euler bits, root position and rotation bits) -> (avatar, World)
_BASE_WORLDS: dict[tuple, tuple[Avatar, World]] = {}


def _base_world(av: Avatar, euler: dict, root_pos: np.ndarray, root_rot: np.ndarray) -> World:
    """:func:`forward_kinematics` of a start pose, the same :class:`World` object for the same
    avatar, angles (bit for bit) and root transform: a figure's solve, view and poster read its
    footprints, lowest points, landmarks and self-collision answers, which a world remembers, so
    the figures that start from one pose measure it once per process (worlds are read-only)."""
    key = euler_key(euler)
    if key is None or len(euler) != len(BONES):
        return forward_kinematics(av, euler, root_pos, root_rot)
    key = (id(av), key, root_pos.tobytes(), root_rot.tobytes())
    hit = _BASE_WORLDS.get(key)
    if hit is None or hit[0] is not av:
        if len(_BASE_WORLDS) >= 64:
            _BASE_WORLDS.clear()
        # made as a phase pose's world is (_Pose: the same key), so a phase that comes back to the
        # start pose at the start position is this very world
        hit = _BASE_WORLDS[key] = (av, _Pose(av, euler, root_pos, root_rot).world())
    return hit[1]


def _solve(program, place: np.ndarray) -> tuple[Solution, np.ndarray]:
    """One keyframe solve with the start position moved by ``place`` (m); returns the solution and
    the largest body-face push (m) met at the base pose or a phase end."""
    av = avatar(program.avatar)
    sp = START_POSES_TABLE[program.start_pose]
    base_rot = euler_to_matrix(sp.root_euler)
    base_root = program.base_root() + place
    # the start pose's world with the root rotation a phase without turn has (_turn(0) @ base_rot:
    # the same values, signed zeros made +0), so a phase back home is this same world
    base_world = _base_world(av, program.base_euler, base_root, _turn(0.0).dot(base_rot))
    largest = _face_push(_Pose(av, program.base_euler, base_root, base_rot), program.props, apply=False) \
        if _body_faces(program.props) else np.zeros(3)

    def chor(p, turn, travel):   # world point -> choreography frame (yaw and travel removed)
        q = p - base_root - np.array([travel[0], 0.0, travel[1]])
        return _turn(-turn).dot(q)

    def unchor(p, turn, travel):
        return _turn(turn).dot(p) + base_root + np.array([travel[0], 0.0, travel[1]])

    prev_world, prev_turn, prev_travel = base_world, 0.0, (0.0, 0.0)
    prev_pins: dict[tuple[str, str], np.ndarray] = {}
    prev_prints: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
    prev_support = {"foot_left", "foot_right"}   # the start pose stands on whatever is down
    prev_grips: set = set()                       # (effector, anchor) held at the previous end
    phases: list[PhaseSolution] = []
    # gait exception (KR §8): a clip that travels and floor-pins feet on both sides treats floor
    # foot pins as stance feet: the root keeps its travelled position, the leg reaches the plant
    pinned_sides = {_side(c.effector) for k in program.keyframes for c in k.pins
                    if c.effector.startswith("foot") and c.target == FLOOR}
    gait = len(pinned_sides) == 2 and any(k.travel_authored for k in program.keyframes)
    planted_h = float(SOLVER["plantedHeight"])
    # no wrap segment (the last phase ends on the base pose, KR §5.1): the loop enters the first
    # phase from the last one's solved end, so a second pass solves every phase from there and
    # contacts planted at the end are handed over at the loop seam (runtime/pose.js `_buildPlans`).
    # The second pass is kept when the loop closes: it ends within plantedHeight of where it
    # started, or with its root and ankles where the first pass ended them (a prop pin or a
    # support fixes the body, as a seat or a box does, so solving from the loop's own end
    # reproduces it). Otherwise the loop does not close (world-fixed floor pins that travel: a
    # gait's root keeps its travelled place while its plants move on): the first pass stands and
    # the seam jumps home
    # The second pass is not run when the seam's state (the previous phase's solved world, turn,
    # travel, pins, grips and support) is the first pass's start state within SEAM_TOLERANCE: the
    # solve is deterministic, so it would repeat the first pass to within as much (most loops that
    # end where they began: 142 of the 181 two-pass figures among the conformance examples, the
    # demo fences and 90 bench blocks, their seams within 1e-7 m), halving their solve; results
    # move by at most ~1e-7 m (2.6e-6° on one joint angle). Numpy-only: the runtime solves frames,
    # not passes.
    passes = 2 if program.wrap == 0 and program.keyframes else 1
    last_root = base_root
    first_end = None   # root and ankles at the end of the first pass
    for n_solved, (i, kf) in enumerate([*enumerate(program.keyframes)] * passes):
        if n_solved == len(program.keyframes):
            first_end = [last_root.copy(), prev_world.pos["ankle_left"], prev_world.pos["ankle_right"]]
            if (prev_turn == 0.0 and tuple(prev_travel) == (0.0, 0.0) and not prev_pins and not prev_prints
                    and not prev_grips and prev_support == {"foot_left", "foot_right"}
                    and _same_world(prev_world, base_world)):
                break   # the seam enters the first phase as the first pass did: it would repeat it
        root_rot = _turn(kf.turn).dot(base_rot)
        root_pos = base_root + np.array([kf.travel[0], 0.0, kf.travel[1]])
        pose = _Pose(av, kf.euler, root_pos, root_rot)
        res = PhaseSolution(i, None, {})   # type: ignore[arg-type]
        decided: dict = {}   # swing clearance: on its heel or not, per (side, reached) (_heel_down)

        # anchors: every foot sole on the floor at the end of the previous phase, carried by the
        # change of turn and travel (KR §5.4, §6.2: the stance turns with the body, as in a
        # pivot on both feet; drift is measured in this choreography frame, KR §13). A single
        # held ground-locked foot is the pivot of a turn instead: it stays where it is in the world
        # and the body turns about it (pc-ground-lock-effectors: a crossover turn on one foot).
        travel_delta = np.array([kf.travel[0] - prev_travel[0], 0.0, kf.travel[1] - prev_travel[1]])
        # the locked feet held: on the floor and part of the previous support (a foot still landing
        # does not make a stance; runtime/solvers/plan.js ``holds``)
        locked_feet = [s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock
                       and prev_world.lowest(subtree(f"ankle_{s}")) <= planted_h and f"foot_{s}" in prev_support]
        anchors: dict[str, np.ndarray] = {}
        for s in ("left", "right"):
            # a foot's anchor is its footprint (C, D): centre and half sole line (_footprint)
            p, d = _footprint(prev_world, s)
            low = prev_world.lowest(subtree(f"ankle_{s}"))
            if low <= planted_h and f"foot_{s}" in prev_support:
                if locked_feet == [s]:
                    a = p + travel_delta
                else:
                    a = unchor(chor(p, prev_turn, prev_travel), kf.turn, kf.travel)
                d = _turn(kf.turn - prev_turn).dot(d)   # the heading turns with the body (a pivot too)
                a[1] = 0.0
                anchors[f"foot_{s}"] = (a, d)
        # a locked foot not on the floor when the phase began arrives from the air: free until it lands
        arriving = frozenset(s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock and f"foot_{s}" not in anchors)
        # hands and forearms held where they were on the floor when the phase began (the palm;
        # the elbow joint), carried like a stance of feet (runtime/solvers/hands.js ``planUpper``)
        for c in kf.ground_lock:
            if c.startswith("hand"):
                p, low = prev_world.landmarks[f"palm_{_side(c)}"], prev_world.lowest(subtree(EFFECTOR_BONE[c]))
            elif c.startswith("elbow"):
                p = prev_world.pos[EFFECTOR_BONE[c]]
                low = float(p[1]) - float(SOLVER["elbowFloorHeight"])
            else:
                continue
            if low <= planted_h:
                anchors[c] = unchor(chor(p, prev_turn, prev_travel), kf.turn, kf.travel)
        # ground-locked contacts not near the floor when the phase begins
        prev_low = prev_world.lowest_by_bone(_ANKLES)
        for c in kf.ground_lock:
            if c == "back":
                h = prev_world.lowest(BACK_BONES)
            elif c.startswith("foot"):
                h = prev_low[f"ankle_{_side(c)}"]
            else:
                b = EFFECTOR_BONE[c] if c in EFFECTOR_BONE else c
                h = prev_world.lowest(subtree(b)) if not c.startswith("elbow") else \
                    prev_world.pos[b][1] - float(SOLVER["elbowFloorHeight"])
            if h > planted_h:
                res.lifted_locks.append((c, float(h)))

        sem_ankle = {s: kf.semantic[f"ankle_{s}"][0] for s in ("left", "right")}
        if kf.ground_lock:
            _ground_lock(pose, kf.ground_lock, anchors, sem_ankle, res)

        # pins (KR §8): translate the root so the effector meets its anchor
        pin_targets = []
        prints: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        for c in kf.pins:
            w = pose.world()
            key = (c.effector, c.target)
            if c.target == FLOOR:
                if key in prev_pins:
                    a = prev_pins[key].copy()
                else:
                    # a floor pin plants where the effector was when the phase began (world
                    # fixed, KR §8: not carried by travel, so a walk steps over its stance foot)
                    a = prev_world.pos[EFFECTOR_BONE[c.effector]].copy()
                a[1] = _contact_height(w, c.effector)
                if c.effector.startswith("foot"):   # its footprint, held like a locked foot's
                    prints[key] = prev_prints[key] if key in prev_pins else _footprint(prev_world, _side(c.effector))
            else:
                a = np.asarray(anchor_position(c.target), float)
            pin_targets.append((c, a))
        stance = gait and pin_targets and all(c.effector.startswith("foot") and c.target == FLOOR
                                              for c, _ in pin_targets)
        if stance:
            # a tilted stance leg reaches less far down: lower the root until the hip is within a
            # straight leg of the plant, then the two-bone leg IK puts the foot on it
            if not kf.ground_lock:   # from the grounded pose, as the runtime's grounding pass leaves it
                pose.move((0.0, -pose.world().lowest(), 0.0))
            w = pose.world()
            drop = max(_leg_drop(av, w, _side(c.effector), a) for c, a in pin_targets)
            pose.move((0.0, -max(drop, 0.0), 0.0))
            for c, a in pin_targets:
                s = _side(c.effector)
                _two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", a)
            _clear_free_limbs(pose, kf, arriving=arriving, start=prev_world, decided=decided)
        elif pin_targets:
            deltas = []
            for c, a in pin_targets:
                key = (c.effector, c.target)
                if key in prints:   # a floor foot: levelled, then its held point onto its footprint
                    s = _side(c.effector)
                    _level_foot(pose, s, sem_ankle[s])
                    w = pose.world()
                    d = _hold_error(w, s, prints[key])
                    d[1] = a[1] - w.pos[f"ankle_{s}"][1]
                else:
                    w = pose.world()
                    d = a - _effector_point(w, c.effector, c.target)
                deltas.append(d)
            pose.move(np.mean(deltas, axis=0))
        if pin_targets:
            for c, a in pin_targets:
                if c.effector.startswith("foot") and c.target == FLOOR:
                    s = _side(c.effector)
                    rep = _level_foot(pose, s, sem_ankle[s])
                    # a stance foot of a travelling gait that cannot stay flat is pushing off
                    # (heel rising): expected, not reported (KR §13 skips toe-down push-offs)
                    if rep is not None and not stance:
                        res.feet.append(FootReport(s, rep[0], rep[1], 0.0, 0.0))
                    if stance:
                        _stance_hold(pose, s, prints[(c.effector, c.target)], sem_ankle[s])
                    pose.move((0.0, -(pose.world().lowest(subtree(f"ankle_{s}"))), 0.0))
        prev_pins = {(c.effector, c.target): a for c, a in pin_targets if c.target == FLOOR}
        prev_prints = prints
        # swing clearance while resting on a lock or a floor pin; a foot reaching for the floor
        # also while standing on a foot pinned on a top (the box), not a pelvis on the seat
        # (runtime/solvers/plan.js `rests`, `reachSwing`)
        stands = kf.ground_lock or any(c.target == FLOOR for c, _ in pin_targets)
        on_top = any(c.effector.startswith("foot") and c.target in ("box", "seat") for c, _ in pin_targets)
        if stands:
            _clear_free_limbs(pose, kf, arriving=arriving, start=prev_world, decided=decided)

        # grips (KR §9.2): translate by the mean (anchor − wrist) over the hands that already
        # held their bar at the previous phase end (the body hangs from them while another hand
        # takes hold), or over every gripping hand when none did, then CCD each arm
        grip_targets = [(c, np.asarray(anchor_position(c.target), float)) for c in kf.grips]
        if grip_targets:
            w = pose.world()
            held = [(c, a) for c, a in grip_targets if (c.effector, c.target) in prev_grips] or grip_targets
            delta = np.mean([a - w.pos[EFFECTOR_BONE[c.effector]] for c, a in held], axis=0)
            pose.move(delta)
            for c, a in grip_targets:
                s = _side(c.effector)
                chain = (f"shoulder_{s}", f"elbow_{s}")
                _ccd(pose, chain, lambda ww, b=EFFECTOR_BONE[c.effector]: ww.pos[b], a,
                     {j: pose.euler[j] for j in chain}, float(SOLVER["gripStopDistance"]))
                if c.target.startswith("bars"):
                    _palm_down(pose, s)
                _close_hand(pose, s)

        if kf.ground_lock:   # drift is measured before the prop push, which may walk the feet
            wd = pose.world()
            for s in ("left", "right"):
                key = f"foot_{s}"
                if key in kf.ground_lock and key in res.planted and key in anchors:
                    drift = float(norm3(_hold_error(wd, s, anchors[key])))
                    if drift > float(SOLVER["plantTolerance"]):
                        res.drift.append((key, drift))
        push = _face_push(pose, program.props)
        if float(norm3(push)) > float(norm3(largest)):
            largest = push

        # reaches (KR §7): CCD over the limb chain, ROM-clamped every step; the root stays put
        reach_targets = []
        for c in kf.reaches:
            kind = c.effector.split("_")[0]
            chain = tuple(f"{j}_{_side(c.effector)}" for j in _CHAINS[kind])
            w = pose.world()
            if c.target == FLOOR:
                tgt = _floor_target(w, c)
            elif c.target in w.pos or c.target in EFFECTOR_BONE:
                tgt = w.pos[_landmark_bone(c.target)].copy()
            else:
                tgt = np.asarray(anchor_position(c.target), float)
            end = (lambda ww, c=c: _effector_point(ww, c.effector, c.target))
            widen = {j: pose.euler[j] for j in chain}
            _ccd(pose, chain, end, tgt, widen)
            plane = PROP_SURFACES.get(c.target) if kind in ("hand", "fist") else None
            for _ in range(2 if plane else 0):
                # a hand on a wall rests on its surface: the target moves out along the face's
                # normal until the forearm and hand (capsule past the wrist) just touch it
                tgt = tgt + np.asarray(plane[:3], float) * _arm_clearance(pose.world(), c.effector, plane)
                _ccd(pose, chain, end, tgt, widen, float(SOLVER["gripStopDistance"]))
            if c.target == FLOOR:
                # the limb's new orientation changes its contact height: re-aim twice; a palm
                # reaching the floor presents its surface to it first (spec §5, _palm_flat), thrice
                # (the re-aim turns the forearm again: cobra 25° -> 9° off flat)
                for _ in range(3 if kind == "hand" else 2):
                    if kind == "hand":
                        _palm_flat(pose, _side(c.effector))
                    tgt = tgt.copy()
                    tgt[1] = _contact_height(pose.world(), c.effector)
                    _ccd(pose, chain, end, tgt, widen)
            reach_targets.append((c, tgt))

        if kf.reaches and (stands or on_top):
            _clear_free_limbs(pose, kf, reached=True, start=prev_world, decided=decided)

        # self-collision (KR §10.2, collide.py): free limbs kept out of the torso and the other leg
        held = {c.effector for c in list(kf.pins) + list(kf.grips) + list(kf.reaches)}
        resolve_self_collision(pose, set(kf.ground_lock) | held, held)
        if stands:   # a free leg the push took through the floor: cleared in its chain, not by the clamp
            _clear_free_limbs(pose, kf, arriving=arriving, start=prev_world, decided=decided)

        # floor clamp (KR §6.1 step 14): floor-bound phases touch the floor, no phase sinks
        floor_bound = not grip_targets and all(c.target == FLOOR for c, _ in pin_targets)
        low = pose.world().lowest()
        if low < 0 or floor_bound:
            pose.move((0.0, -low, 0.0))

        # limb faces (the box): legs not standing on a support are lifted over it. Fixed: a leg
        # pinned, gripped or reached to a prop anchor (that phase's support), floor-pinned, or
        # whose foot is a held ground-lock
        fixed = {_side(c.effector) for c in list(kf.pins) + list(kf.grips) + list(kf.reaches)
                 if c.effector.startswith(("foot", "knee")) and (c.target != FLOOR or c in kf.pins)}
        fixed |= {s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock and f"foot_{s}" in anchors}
        _limb_lift(pose, program.props, fixed)

        w = pose.world()
        for c, tgt in reach_targets:
            t = tgt.copy()
            if c.target != FLOOR and (c.target in w.pos or c.target in EFFECTOR_BONE):
                t = w.pos[_landmark_bone(c.target)]   # a landmark moves with the body: re-read
            res.contacts.append(ContactResult("reach", c, t, _residual(w, c, t)))
        for c, a in pin_targets:
            key = (c.effector, c.target)
            if key in prints:   # a floor foot: its held point off its footprint, and off the floor
                s = _side(c.effector)
                r = math.hypot(*_hold_error(w, s, prints[key])[[0, 2]], w.lowest(subtree(f"ankle_{s}")))
            else:
                r = _residual(w, c, a)
            res.contacts.append(ContactResult("pin", c, a, r))
        for c, a in grip_targets:
            res.contacts.append(ContactResult("grip", c, a, float(norm3(
                w.pos[EFFECTOR_BONE[c.effector]] - a))))
        for rep in res.feet:
            rep.heel, rep.toe = _sole_metrics(w, rep.side)
        # a planted foot (floor-pinned, or ground-locked and held) on the floor whose leg leans
        # sideways over it past the sole-tilt limit: the sole rolls onto its edge (_sideways_lean)
        planted_feet = {_side(c.effector) for c, _a in pin_targets if c.effector.startswith("foot") and c.target == FLOOR}
        planted_feet |= {s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock and f"foot_{s}" in anchors}
        for s in sorted(planted_feet):
            lean = _sideways_lean(w, s)
            if abs(lean) > SOLE_TILT_LIMIT and w.lowest(subtree(f"ankle_{s}")) <= float(SOLVER["plantTolerance"]):
                res.rolled.append((s, lean, 0.5 * av.sole_size[0] * math.sin(math.radians(abs(lean)))))
        res.world = w
        res.euler = dict(pose.euler)
        last_root = pose.root_pos.copy()
        phases.append(res)
        prev_world, prev_turn, prev_travel = w, kf.turn, kf.travel
        prev_grips = {(c.effector, c.target) for c in kf.grips}
        if kf.ground_lock or kf.pins or kf.grips:
            # its locks and pins, and the feet it reached to the floor (secondary contacts, spec §5)
            prev_support = set(kf.ground_lock) | {c.effector for c in kf.pins} | \
                {c.effector for c in kf.reaches if c.target == FLOOR}
        else:
            prev_support = {"foot_left", "foot_right"}

    n_kf = len(program.keyframes)
    if first_end is not None and math.hypot(first_end[0][0] - base_root[0], first_end[0][2] - base_root[2]) > planted_h \
            and any(float(norm3(a - b)) > planted_h for a, b in zip(first_end, [
                last_root, prev_world.pos["ankle_left"], prev_world.pos["ankle_right"]])):
        return Solution(av, base_world, phases[:n_kf]), largest   # the loop does not close
    return Solution(av, base_world, phases[len(phases) - n_kf:]), largest


# ---------------------------------------------------------------------------------------------
# diagnostics
# ---------------------------------------------------------------------------------------------


def _cm(m: float) -> str:
    return f"{m * 100:.0f} cm"


def _warn(code: str, line: int, message: str, hint: str | None = None, **extra) -> Diagnostic:
    return Diagnostic(code, "warning", max(int(line or 0), 0), 1, message, hint, dict(extra))


def with_columns(diagnostics: list[Diagnostic], lines: list[str]) -> list[Diagnostic]:
    """Copies of ``diagnostics`` whose column points at the first non-blank character of their
    line in ``lines`` (the document's or file's lines, 1-based ``line``). Kinematic diagnostics
    know their line from the IR but not the text, so they start at column 1."""
    out = []
    for d in diagnostics:
        col = d.column
        if 1 <= d.line <= len(lines):
            text = lines[d.line - 1]
            col = len(text) - len(text.lstrip(" \t\ufeff")) + 1
        out.append(Diagnostic(d.code, d.severity, d.line, col, d.message, d.hint, dict(d.extra)))
    return out


def kinematic_diagnostics(program) -> list[Diagnostic]:
    """Kinematic warnings for a compiled program (codes ``kinematic-*``; severity ``warning``).

    - ``kinematic-reach-short``: a reach ends more than ``reachShortReport`` (2 cm) from its target,
      at the reach's line ("hand_left cannot reach floor within range of motion: 23 cm short").
    - ``kinematic-pin-unreachable`` / ``kinematic-grip-unreachable``: the effector ends more than
      2 cm off its pin or grip anchor, at that line.
    - ``kinematic-ground-lock-lifted``: a ground-locked contact is more than ``plantedHeight``
      (5 cm) above the floor when its phase begins (for a group such as ``feet``, only when no
      member is near the floor), at the ground-lock line.
    - ``kinematic-foot-flat``: a planted foot cannot be levelled inside the ankle box; names the
      foot, phase, needed and allowed angle and the heel (or toe) height; or a planted foot on the
      floor whose leg leans sideways over it by more than ``SOLE_TILT_LIMIT`` (5°) at the phase's
      end, so its sole rolls onto its edge (:func:`_sideways_lean`); names the foot, phase, lean and
      the sole middle's lift; at the step line.
    - ``kinematic-self-collision``: a limb overlaps the torso, head or other leg by more than
      ``selfCollisionReport`` (5 mm) after the solve (collide.py), at the step line.
    - ``kinematic-foot-drift``: a planted foot ends more than 5 mm from where it was planted.
    - ``kinematic-choreography-base``: ``turn``/``travel`` on a lying or seated start pose (out of
      scope, spec §6), at the step line.
    - ``kinematic-loop-start``: a loop that ends on its start pose as written (no wrap segment,
      KR §5.1) whose solved end stands a foot more than :data:`LOOP_POSE_REPORT` (5 cm) from where
      the start pose stands it, in the body's frame (a ground-lock in the last step held a foot an
      earlier step moved): every repeat, the first included, begins from that end pose, not from the
      start pose the document names; at the last step's ground-lock line.
    """
    sol = solve_keyframes(program)
    out: list[Diagnostic] = []
    limit = float(SOLVER["reachShortReport"])
    for kf, ph in zip(program.keyframes, sol.phases):
        for cr in ph.contacts:
            if cr.residual <= limit:
                continue
            c = cr.contact
            line = c.line or kf.line
            if cr.kind == "reach":
                out.append(_warn("kinematic-reach-short", line,
                                 f"{c.effector} cannot reach {c.target} within range of motion: "
                                 f"{_cm(cr.residual)} short",
                                 "bend another joint (hinge, spine, knees) so the target comes "
                                 "within reach, or use pin to move the body",
                                 phase=kf.name, residual=round(cr.residual, 3)))
            else:
                out.append(_warn(f"kinematic-{cr.kind}-unreachable", line,
                                 f"{cr.kind} {c.effector} {c.target} is out of reach in phase "
                                 f"{kf.name!r}: the {c.effector} ends {_cm(cr.residual)} from the anchor",
                                 phase=kf.name, residual=round(cr.residual, 3)))
        if ph.lifted_locks:
            lifted = dict(ph.lifted_locks)
            authored = program.ir.phases[ph.index].ground_lock
            report = []
            for name in authored:
                members = expand_ground_lock([name])
                if all(m in lifted for m in members):
                    report += [(m, lifted[m]) for m in members]
            for contact, h in report:
                out.append(_warn("kinematic-ground-lock-lifted", kf.ground_lock_line or kf.line,
                                 f"ground-lock {contact} in phase {kf.name!r}: it is {_cm(h)} above "
                                 "the floor when the phase begins",
                                 "ground-lock keeps a contact that is already planted; use pin or "
                                 "reach to bring it to the floor", phase=kf.name, height=round(h, 3)))
        for rep in ph.feet:
            heel = rep.needed < rep.limit
            lifted = rep.heel if heel else rep.toe
            direction = "dorsiflexion" if heel else "plantarflexion"
            out.append(_warn("kinematic-foot-flat", kf.line,
                             f"foot_{rep.side} cannot stay flat in phase {kf.name!r}: the sole needs "
                             f"{abs(rep.needed):.0f}° of ankle {direction}, the range allows "
                             f"{abs(rep.limit):.0f}°; the {'heel' if heel else 'toe'} lifts "
                             f"{lifted * 100:.1f} cm",
                             "bend the knees less (less shin tilt) or let the heels rise on purpose "
                             "with ankles: plantarflex",
                             phase=kf.name, foot=f"foot_{rep.side}", needed=round(rep.needed, 1),
                             limit=rep.limit, heel=round(rep.heel, 3), toe=round(rep.toe, 3)))
        for side, lean, lift in ph.rolled:
            out.append(_warn("kinematic-foot-flat", kf.line,
                             f"foot_{side} cannot stay flat in phase {kf.name!r}: the leg leans "
                             f"{abs(lean):.0f}° sideways over the planted foot and the rig's ankle only "
                             f"flexes and extends (no inversion or eversion), so the sole rolls "
                             f"{abs(lean):.0f}° onto its edge (its middle {lift * 1000:.0f} mm up)",
                             "keep the hips over the planted foot: less sideways travel while one foot "
                             "is planted, or move the weight sideways with both feet down and close together",
                             phase=kf.name, foot=f"foot_{side}", lean=round(lean, 1), lift=round(lift, 3)))
        for limb, (depth, obstacle) in self_collision_depth(ph.world).items():
            if depth > float(SOLVER["selfCollisionReport"]):
                out.append(_warn("kinematic-self-collision", kf.line,
                                 f"{limb.replace('_', ' ')} passes {_cm(depth)} into the {obstacle.replace('_', ' ')} "
                                 f"in phase {kf.name!r}",
                                 "change the limb's angles so it clears the body", phase=kf.name,
                                 limb=limb, obstacle=obstacle, depth=round(depth, 3)))
        for foot, d in ph.drift:
            out.append(_warn("kinematic-foot-drift", kf.ground_lock_line or kf.line,
                             f"{foot} slides {d * 100:.1f} cm in phase {kf.name!r} although it is "
                             "ground-locked", phase=kf.name, foot=foot, drift=round(d, 3)))
        if program.tilted_base and (kf.turn_authored or kf.travel_authored):
            what = " and ".join(w for w, on in (("turn", kf.turn_authored), ("travel", kf.travel_authored)) if on)
            out.append(_warn("kinematic-choreography-base", kf.line,
                             f"{what} on the {program.start_pose} start pose is out of scope "
                             "(spec §6: standing poses only)", phase=kf.name))
    if program.wrap == 0 and sol.phases:
        kf, end, base = program.keyframes[-1], sol.phases[-1].world, sol.base
        offsets = {s: float(norm3(end.root_rot.T @ (end.pos[f"ankle_{s}"] - end.root_pos)
                                  - base.root_rot.T @ (base.pos[f"ankle_{s}"] - base.root_pos)))
                   for s in ("left", "right")}
        side = max(offsets, key=offsets.get)
        if offsets[side] > LOOP_POSE_REPORT:
            out.append(_warn("kinematic-loop-start", kf.ground_lock_line or kf.line,
                             f"the loop does not come back to its start pose: at the end of phase "
                             f"{kf.name!r} foot_{side} stands {_cm(offsets[side])} from where the start "
                             "pose puts it, so every repeat begins from that end pose",
                             f"let the foot step back in the last step (leave foot_{side} out of its "
                             "ground-lock), or add a step that brings it back",
                             phase=kf.name, foot=f"foot_{side}", offset=round(offsets[side], 3)))
    return out


#: how far (m) a foot may end from where the start pose stands it, in the body's frame, before a
#: loop that returns to its start pose as written is reported (``kinematic-loop-start``)
LOOP_POSE_REPORT = 0.05
