"""What a poster shows of a movement (the Exercise Visual System seed, ../shared/seeds/003): the
side it is seen from (:func:`choose_view`), the working limbs drawn in the accent colour (:func:`working_limbs`) and
the primary phase a static poster draws (:func:`primary_index`), measured on the build-time
solve. Side view, or front view when the motion is mainly in the frontal plane.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.vocabulary import (
    AXIAL_BONES,
    BONES,
    DIGITS,
    JOINT_GROUPS,
    SIDES,
)

from .compile import angle_deg
from .fk import World, landmark_xyz
from .rig import PROP_GEOMETRY
from .rotation import euler_to_quat, rot_y
from .solve import solve_keyframes

#: (bone, weight) in canonical order: finger joints count a tenth in the view choice
_BONE_WEIGHTS = tuple((b, 0.1 if b.split("_")[0] in DIGITS else 1.0) for b in BONES)
_WEIGHTS = dict(_BONE_WEIGHTS)

#: the landmarks a figure is drawn with (:func:`figure_prims`): the facing frames hold these only
_DRAWN_MARKS = tuple(f"{m}_{s}" for s in SIDES for m in ("middle_tip", "heel", "toe"))

#: Limb groups for colouring, built from the vocabulary's names: each arm with its fingers, each
#: leg, the trunk (pelvis, spine, chest) and the head (neck, head).
_LIMBS = {
    **{f"arm_{s}": tuple(f"{j}_{s}" for j in ("shoulder", "elbow", "wrist")) + JOINT_GROUPS[f"fingers_{s}"]
       for s in SIDES},
    **{f"leg_{s}": tuple(f"{j}_{s}" for j in ("hip", "knee", "ankle")) for s in SIDES},
    "trunk": tuple(b for b in AXIAL_BONES if b not in ("neck", "head")),
    "head": ("neck", "head"),
}


def body_frame(world: World, turn: float, travel) -> dict[str, np.ndarray]:
    """Joint and landmark positions with the keyframe's turn and travel removed."""
    names, M = _body_points(world, turn, travel)
    return dict(zip(names, M))


def _body_points(world: World, turn: float, travel, marks=None) -> tuple[list[str], np.ndarray]:
    """:func:`body_frame` as (names, (n, 3) array of the points in that order); ``marks``: the
    landmarks to include (default: all)."""
    t = np.array([travel[0], 0.0, travel[1]])
    R = rot_y(-turn)
    marks = list(world.landmarks) if marks is None else marks
    names = [*world.pos, *marks]
    if world.fk_data is not None:   # a solved world: its joints and landmarks as floats (the same values)
        pos = world.fk_data[1]
        P = np.array([pos[b] for b in world.pos] + [landmark_xyz(world, n) for n in marks])
    else:
        P = np.array([world.pos[b] for b in world.pos] + [world.landmarks[n] for n in marks])
    # one stacked product (R broadcast over the points: the bits of R @ (p - t) for each point)
    return names, np.matmul(R, (P - t)[:, :, None])[:, :, 0]


def phase_frames(program):
    """[(label, world, turn, travel)] for the base pose and every phase end."""
    sol = solve_keyframes(program)
    out = [("start", sol.base, 0.0, (0.0, 0.0))]
    for kf, ph in zip(program.keyframes, sol.phases):
        out.append((kf.name, ph.world, kf.turn, kf.travel))
    return out


def facing_points_of(program) -> list[dict[str, tuple | list]]:
    """The frames of :func:`phase_frames` with their own turn and travel removed (the figure facing the
    camera) as joint and drawn-landmark positions (m), Python float triples: made once per
    program, then read by the view choice, the pick of the poster's pose and the drawing (single
    coordinates cost more from arrays)."""
    cached = getattr(program, "_poster_frames", None)
    solution = solve_keyframes(program)
    if cached is None or cached[0] is not solution:
        cached = program._poster_frames = (solution, [_facing_points(w, turn, travel)
                                                      for _l, w, turn, travel in phase_frames(program)])
    return cached[1]


def _facing_points(world: World, turn: float, travel) -> dict[str, tuple | list]:
    """:func:`body_frame` of one solved frame, joints and :data:`_DRAWN_MARKS` only, as float
    triples. A frame without turn and travel (most of them) is the world's own floats: removing
    nothing (a zero translation, the rotation by 0°) leaves every coordinate as it is, up to the
    sign of a zero, which no drawing or measure here sees."""
    if turn == 0 and travel[0] == 0 and travel[1] == 0 and world.fk_data is not None:
        pos = world.fk_data[1]
        return {**{b: pos[b] for b in world.pos}, **{n: landmark_xyz(world, n) for n in _DRAWN_MARKS}}
    names, M = _body_points(world, turn, travel, _DRAWN_MARKS)
    return dict(zip(names, M.tolist()))


def choose_view(program) -> str:
    """``"front"`` when the movement shows better from the front, else ``"side"``.

    Each keyframe's joints (turn and travel removed) are compared with the start pose; the
    displacement a side camera sees is (z, y), a front camera (x, y); the view that sees more than
    1.2 × the other wins (finger joints count a tenth). In a close call the anatomical plane of the
    authored change decides (abduction/adduction frontal, flexion/extension sagittal). A lying or
    seated start is always drawn from the side. A prop with an upright ("post" mesh of
    ``rig.PROP_GEOMETRY``) standing in the side camera's line through the body (|z| < 0.15 m:
    the pull-up bar's posts at its ends) would hide the figure from the side: front.
    """
    if program.tilted_base:
        return "side"
    if any(mesh.get("role") == "post" and abs(mesh["center"][2]) < 0.15
           for prop in program.props for mesh in PROP_GEOMETRY.get(prop, {}).get("meshes", [])):
        return "front"
    frames = facing_points_of(program)
    base = frames[0]  # the start frame has no turn and no travel
    front = side = 0.0
    for pts in frames[1:]:
        for b, weight in _BONE_WEIGHTS:
            (x, y, z), (x0, y0, z0) = pts[b], base[b]
            dy = y - y0
            front += weight * math.hypot(x - x0, dy)
            side += weight * math.hypot(z - z0, dy)
    if front > 1.2 * side:
        return "front"
    if side > 1.2 * front:
        return "side"
    # close call (e.g. arms ending overhead either way): the anatomical plane of the authored
    # change decides: abduction/adduction (local Z) is frontal, flexion/extension (X) sagittal
    frontal = sagittal = 0.0
    for kf in program.keyframes:
        for b in BONES:
            weight = _WEIGHTS[b]
            e, e0 = kf.semantic[b], program.base_semantic[b]
            sagittal += weight * abs(e[0] - e0[0])
            frontal += weight * abs(e[2] - e0[2])
    return "front" if frontal > sagittal else "side"


def working_limbs(program) -> set[str]:
    """Limb groups (``arm_left``, ``arm_right``, ``leg_left``, ``leg_right``, ``trunk``,
    ``head``) that move most: a group's score is its largest summed rotation (degrees) of the
    authored angles away from the start pose over the keyframes; groups scoring ≥ 50 % of the top score and ≥ 15° are
    working. Made once per program (the poster and the phase strip both ask)."""
    cached = getattr(program, "_working_limbs", None)
    if cached is not None:
        return cached
    scores = {}
    base = program.base_semantic
    for g, bones in _LIMBS.items():
        best = 0.0
        for kf in program.keyframes:
            tot = 0.0
            for b in bones:
                # authored (semantic) angles: the hinge's hip counter-rotation is not leg work;
                # a curled finger is not a limb (a tenth)
                tot += _WEIGHTS[b] * _rotation_deg(kf.semantic[b], base[b])
            best = max(best, tot)
        scores[g] = best
    top = max(scores.values()) if scores else 0.0
    working = program._working_limbs = frozenset(g for g, s in scores.items() if s >= 15.0 and s >= 0.5 * top)
    return working


def _rotation_deg(euler, euler0) -> float:
    """Angle (degrees, 0..180) of the rotation from one Euler triple of a bone to another
    (intrinsic XYZ, degrees), from their quaternions' dot product. Remembered by value: most bones
    of a keyframe keep the start pose's angles, the same pairs in every document on that start
    pose (a zero's sign, the only difference equal floats can have, does not change the angle)."""
    key = (*euler, *euler0)
    deg = _ROTATION_DEG.get(key)
    if deg is None:
        if len(_ROTATION_DEG) >= 4096:
            _ROTATION_DEG.clear()
        deg = _ROTATION_DEG[key] = angle_deg(euler_to_quat(euler), euler_to_quat(euler0))
    return deg


_ROTATION_DEG: dict[tuple, float] = {}


#: summed joint distance (m) within which two frames tie for the poster's pose
POSE_TIE_M = 1e-4


def primary_index(program) -> int:
    """Index (0 = start) of the frame farthest from the start pose: the poster's pose (the start
    pose itself scores 0). The score sums the joints' distances from the start (m); frames within
    :data:`POSE_TIE_M` of the best are a tie and the first of them is kept, so mirror-image
    phases (left then right) show the first, whatever solver rounding (~1e-7 m a joint) says."""
    frames = facing_points_of(program)
    base = np.array([frames[0][b] for b in BONES])
    best, best_i = 0.0, 0
    for i, pts in enumerate(frames[1:], 1):
        # |p − p0| per bone from the dot product numpy.linalg.norm takes: a stacked matmul of
        # 1 × 3 by 3 × 1 calls the same BLAS dot per bone (the same bits), in one call
        d = np.array([pts[b] for b in BONES]) - base
        score = sum(map(math.sqrt, np.matmul(d[:, None, :], d[:, :, None]).ravel().tolist()))
        if score > best + POSE_TIE_M:
            best, best_i = score, i
    return best_i
