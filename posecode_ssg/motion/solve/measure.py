"""What the passes measure on a solved world (runtime twin: ``runtime/solvers/measure.js``):
contact heights and points, the held point and footprint of a planted foot, the sole's heights
and sideways lean, floor targets and contact residuals.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.ir import Contact
from posecode_ssg.language.vocabulary import BACK_BONES, BONES, EFFECTOR_BONE, FLOOR

from ..fk import World, landmark_xyz, subtree
from ..fkprep import prepared
from ..rig import SOLVER
from ..rotation import norm3

BONES_SET = frozenset(BONES)   # anchors on a top surface: feet meet them with the sole


ANKLES = ("ankle_left", "ankle_right")   # the feet's lowest points (World.lowest_by_bone)


def side_of(name: str) -> str:
    return "left" if name.endswith("_left") else "right"


def contact_height(w: World, effector: str) -> float:
    """Height (m) of the effector's joint when its own surface just touches the floor (KR §7.1)."""
    bone = EFFECTOR_BONE[effector]
    if effector.startswith("elbow"):
        return float(SOLVER["elbowFloorHeight"])
    if effector == "pelvis":
        return max(float(SOLVER["pelvisFloorMin"]), float(w.pos["pelvis"][1] - w.lowest(BACK_BONES)))
    if effector.startswith("knee"):
        # the knee cap: the larger of the thigh's distal and the shin's proximal capsule radius
        side = side_of(effector)
        radii = [r1 for a, b, _r0, r1 in w.avatar.segments if b == bone]
        radii += [r0 for a, b, r0, _r1 in w.avatar.segments if a == bone and b == f"ankle_{side}"]
        return float(max(radii))
    return float(w.pos[bone][1] - w.lowest(subtree(bone)))


def effector_point(w: World, effector: str, target: str) -> np.ndarray:
    """The point of an effector that meets ``target``: a foot meets a top surface (box, seat)
    with its sole centre, everything else with its joint."""
    if effector.startswith("foot") and target in SOLVER["propTops"]:
        return w.landmarks[f"sole_{side_of(effector)}"]
    return w.pos[EFFECTOR_BONE[effector]]


def hold_mu(w: World, side: str) -> float:
    """Where a planted foot holds the floor (a heel raise pivots about the ball of the foot, a
    foot on its heel about the heel): μ of the sole point sole + μ·(toe − sole), μ =
    x(3 − x²)/2 with x = (heel − toe height) / ``plantTolerance`` clamped to [−1, 1]: the sole
    centre while the foot is flat, its toe edge once the heel is up, its heel once the toes are
    up (feet on their toes behind a hands/forearms lock: their toes). Same rule in
    runtime/solvers/plan.js ``holdMu``."""
    return mu_of_heights(landmark_xyz(w, f"heel_{side}")[1], landmark_xyz(w, f"toe_{side}")[1])


def mu_of_heights(heel: float, toe: float) -> float:
    """:func:`hold_mu` from the heel and toe heights (m)."""
    x = (heel - toe) / float(SOLVER["plantTolerance"])
    x = min(1.0, max(-1.0, x))
    return 0.5 * x * (3.0 - x * x)


def hold_point(w: World, side: str) -> tuple[np.ndarray, float]:
    """The held sole point sole + μ(toe − sole) of a planted foot (world m) and its μ."""
    p, m = hold_xyz(w, side)
    return np.array(p), m


def hold_xyz(w: World, side: str) -> tuple[tuple[float, float, float], float]:
    """:func:`hold_point` on Python floats (the same operations in the same order: the same
    bits, without the small-array overhead)."""
    sx, sy, sz = landmark_xyz(w, f"sole_{side}")
    tx, ty, tz = landmark_xyz(w, f"toe_{side}")
    m = mu_of_heights(landmark_xyz(w, f"heel_{side}")[1], ty)
    return (sx + m * (tx - sx), sy + m * (ty - sy), sz + m * (tz - sz)), m


def footprint(w: World, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The floor footprint of a foot (world, y = 0): C, the centre of its flat sole, and D, half
    its sole line (sole → toe) laid flat along its heading, taken so that C + μD is the held
    point now (:func:`hold_point`). A held foot keeps C + μD under its held point whatever its
    pitch. Same rule in runtime/solvers/plan.js ``footprint``."""
    sole, toe = w.landmarks[f"sole_{side}"], w.landmarks[f"toe_{side}"]
    u = toe - sole
    uh = np.array([u[0], 0.0, u[2]])
    D = uh * (float(norm3(u)) / max(float(norm3(uh)), 1e-9))
    C = sole + hold_mu(w, side) * (uh - D)
    C[1] = 0.0
    return C, D


def hold_error(w: World, side: str, anchor: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Horizontal error (m, y = 0, (3,)) of a held foot: its footprint point C + μD (``anchor`` =
    (C, D), :func:`footprint`) minus its held point (:func:`hold_point`)."""
    return np.array(hold_error_xyz(w, side, anchor))


def hold_error_xyz(w: World, side: str, anchor: tuple[np.ndarray, np.ndarray]) -> tuple[float, float, float]:
    """:func:`hold_error` as a float triple."""
    (px, _py, pz), m = hold_xyz(w, side)
    (cx, _cy, cz), (dx, _dy, dz) = anchor[0].tolist(), anchor[1].tolist()
    return (cx + m * dx - px, 0.0, cz + m * dz - pz)


def sole_metrics(w: World, side: str) -> tuple[float, float]:
    return float(w.landmarks[f"heel_{side}"][1]), float(w.landmarks[f"toe_{side}"][1])


#: largest sole tilt (degrees) of a planted foot (the eval threshold: sole tilt of a locked foot ≤ 5°)
SOLE_TILT_LIMIT = 5.0


def sideways_lean(w: World, side: str) -> float:
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


def landmark_bone(name: str) -> str:
    """The bone of a body-landmark reach target: a bone id as is, an effector name (``foot_left``)
    through the effector map."""
    return name if name not in EFFECTOR_BONE or name in BONES_SET else EFFECTOR_BONE[name]


def contact_residual(w: World, c: Contact, target: np.ndarray) -> float:
    """Distance (m) between an effector and its target after the solve. For the floor: the
    horizontal distance of the joint from the target's x, z combined with the gap between the
    effector's own surface and the floor (KR §7: floor targets keep x, z and use the current
    contact-surface height)."""
    p = effector_point(w, c.effector, c.target)
    if c.target != FLOOR:
        return float(norm3(p - target))
    gap = float(w.pos[EFFECTOR_BONE[c.effector]][1]) - contact_height(w, c.effector)
    return float(math.hypot(p[0] - target[0], p[2] - target[2], max(gap, 0.0)) if gap > 0
                 else math.hypot(p[0] - target[0], p[2] - target[2], gap))


def arm_clearance(w: World, effector: str, plane: list[float]) -> float:
    """Signed depth (m) of a reached arm in a surface plane (``PROP_SURFACES``: normal n, offset
    n·c): arm radius minus the smaller plane distance of its capsule's ends (the elbow, and
    ``armOverhang`` past the wrist along the forearm: the hand, KR §10.1 capsules); moving the
    wrist target out along the normal by it brings the deepest end onto the surface (the
    distance is linear along the segment)."""
    s = side_of(effector)
    e, wr = w.pos[f"elbow_{s}"], w.pos[f"wrist_{s}"]
    tip = wr + (wr - e) / norm3(wr - e) * float(SOLVER["armOverhang"])
    n = np.asarray(plane[:3], float)
    return float(w.avatar.collision["arm"]) - min(float(e @ n), float(tip @ n)) + plane[3]


def floor_target(w: World, c: Contact) -> np.ndarray:
    bone = EFFECTOR_BONE[c.effector]
    p = w.pos[bone].copy()
    if c.effector.startswith("hand"):
        sh = w.pos[f"shoulder_{side_of(c.effector)}"]
        d = np.array([p[0] - sh[0], 0.0, p[2] - sh[2]])
        n = norm3(d)
        if n > 1e-6:
            p += d / n * float(SOLVER["handFloorOutward"])
    p[1] = contact_height(w, c.effector)
    return p


def heel_down(w: World | None, side: str) -> bool:
    """Whether a free foot counts as on its heel at one keyframe for swing clearance: its heel no
    higher than its toe + 1 mm (a flat foot is). A phase's first clearance round treats the foot as
    on its heel when it is so at both of the phase's keyframes, its start (the previous phase's
    solved end) and its end (before clearance), so a foot flat at one end and pointed at the other
    takes one branch through the whole phase (decided per frame, a flat foot's tie would flip
    the branch at a stance handover). Same rule in the runtime's plan (``heelDown0``) and swing
    clearance. ``w`` None: no start to compare (counts as on its heel)."""
    if w is None:
        return True
    return float(w.landmarks[f"heel_{side}"][1]) <= float(w.landmarks[f"toe_{side}"][1]) + 1e-3


def lowest_point(w: World, bones) -> tuple[float, np.ndarray]:
    """The lowest mesh point of ``bones`` (the primitives and owners of
    :meth:`~posecode_ssg.motion.fk.World.lowest_by_bone`, sole boxes aside): its height (m) and
    the point (3,). A capsule end: its centre less its radius straight down; an ellipsoid volume
    c + R·diag(k)·s (|s| ≤ 1): c − R·(k ⊙ m)/|m| with m = k ⊙ R[1] (its lowest y, c_y − |m|, is the
    one the lowest-point measure reads). Same rule in runtime/skeleton.js ``lowestPoint``."""
    prep = prepared(w.avatar)
    best, point = math.inf, None
    for owner in bones:
        for a, b, is_mark, r0, r1 in prep.segments_of[owner]:
            for c, r in ((w.pos[a], r0), ((w.landmarks if is_mark else w.pos)[b], r1)):
                if float(c[1]) - r < best:
                    best, point = float(c[1]) - r, np.array((c[0], c[1] - r, c[2]), float)
        for off, rscale in prep.volumes_of[owner]:
            R = w.rot[owner]
            m = R[1] * rscale
            n = math.sqrt(float(m.dot(m)))
            c = w.pos[owner] + R.dot(off)
            if n > 0.0 and float(c[1]) - n < best:
                best, point = float(c[1]) - n, c - R.dot(rscale * m) / n
    return best, point
