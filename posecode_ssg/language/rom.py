"""Range-of-motion table: the one place joint limits live.

``LIMITS`` gives, per joint type and action, the largest magnitude (degrees) an author may request;
it is spec §4's "selected ceilings" completed with the reference values of
../shared/design/kinematics-reference.md §3.3 (wrist, chest, head, hip adduct/rotation and shoulder
adduct are the reference's). The set of actions listed for a joint type is also the set of actions
that joint accepts: any other action on it is an ``unsupported-action`` error.

``rom_box`` turns the table into signed local-Euler boxes per bone (kinematics-reference §2.5) using
the axis/sign conventions of :func:`posecode_ssg.language.vocabulary.action_sign`; the motion rig,
IK and contact solvers clamp to those boxes, so nobody retypes a limit.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from .vocabulary import BONE_JOINT_TYPE, action_sign


def _axial_rotations(limit: float) -> dict[str, float]:
    # twist-left/right are the v0.2+ names; rotate-in/out remain readable on axial bones (spec §3).
    return {"twist-left": limit, "twist-right": limit, "rotate-in": limit, "rotate-out": limit}


#: joint type -> {action: maximum magnitude in degrees}. The minimum of every action is 0
#: (a negative request is clamped to 0 with a warning).
LIMITS: Mapping[str, Mapping[str, float]] = MappingProxyType(
    {
        jt: MappingProxyType(table)
        for jt, table in {
            "shoulder": {"flex": 180.0, "extend": 60.0, "abduct": 180.0, "adduct": 50.0,
                         "rotate-in": 70.0, "rotate-out": 90.0},
            "elbow": {"flex": 154.0, "extend": 10.0, "supinate": 92.0, "pronate": 84.0},
            "wrist": {"flex": 80.0, "extend": 70.0, "abduct": 20.0, "adduct": 30.0},
            "hip": {"flex": 135.0, "extend": 20.0, "abduct": 45.0, "adduct": 30.0,
                    "rotate-in": 40.0, "rotate-out": 45.0},
            "knee": {"flex": 144.0, "extend": 5.0},
            "ankle": {"dorsiflex": 15.0, "plantarflex": 50.0},
            "pelvis": {"hinge": 120.0},
            "spine": {"flex": 90.0, "extend": 30.0, "abduct": 35.0, "adduct": 35.0,
                      **_axial_rotations(45.0)},
            "chest": {"flex": 30.0, "extend": 20.0, **_axial_rotations(35.0)},
            "neck": {"flex": 50.0, "extend": 60.0, "abduct": 45.0, "adduct": 45.0,
                     **_axial_rotations(80.0)},
            "head": {"flex": 25.0, "extend": 25.0, "abduct": 20.0, "adduct": 20.0,
                     **_axial_rotations(40.0)},
            "finger": {"flex": 100.0, "extend": 20.0},
            "thumb": {"flex": 80.0, "extend": 20.0, "abduct": 50.0, "adduct": 30.0},
        }.items()
    }
)

#: Spec §4: the composed local hip angle (hip x − pelvis x, with hip flexion negative) may not pass
#: 135° of flexion once a pelvis hinge counter-rotates the hips.
HINGE_HIP_COMBINED_MAX = 135.0

#: Hip x (degrees) a start pose seeds for the hinge coupling check (kinematics-reference §3.3:
#: "The seated start pose seeds hips at x = −90 for this check").
START_POSE_HIP_X: Mapping[str, float] = MappingProxyType({"seated": -90.0})

#: Travel is clamped to ±3 m per axis, silently (kinematics-reference §3.3, conformance README).
TRAVEL_LIMIT_M = 3.0


def joint_type(bone_id: str) -> str:
    """Return the joint type (key of :data:`LIMITS`) of an IR bone id, e.g. ``"knee_left"`` ->
    ``"knee"``, ``"index_right"`` -> ``"finger"``. Raises ``KeyError`` for an unknown bone."""
    return BONE_JOINT_TYPE[bone_id]


def supported_actions(bone_id: str) -> tuple[str, ...]:
    """Actions (besides ``hold``) a bone accepts, in table order. Raises ``KeyError``."""
    return tuple(LIMITS[joint_type(bone_id)])


def action_limit(bone_id: str, action: str) -> float | None:
    """Maximum magnitude (degrees) of ``action`` on ``bone_id``, or ``None`` when the bone does not
    support the action."""
    return LIMITS[joint_type(bone_id)].get(action)


def clamp_magnitude(bone_id: str, action: str, degrees: float) -> float:
    """Clamp a requested magnitude into ``[0, limit]`` for this bone and action (spec §4; a
    negative request clamps to 0, conformance README). Raises ``KeyError`` if unsupported."""
    limit = LIMITS[joint_type(bone_id)][action]
    return min(max(degrees, 0.0), limit)


def rom_box(bone_id: str) -> dict[str, tuple[float, float]]:
    """Signed local-Euler box of one bone: ``{"x": (lo, hi), "y": (lo, hi), "z": (lo, hi)}`` in
    degrees, left/right mirrored; an axis no action drives is locked at ``(0.0, 0.0)``.

    Derived from :data:`LIMITS` and the action signs; equals the table of
    kinematics-reference §2.5 (e.g. ``rom_box("shoulder_left")["z"] == (-50.0, 180.0)``).
    Raises ``KeyError`` for an unknown bone id.
    """
    box = {"x": [0.0, 0.0], "y": [0.0, 0.0], "z": [0.0, 0.0]}
    for action, limit in LIMITS[joint_type(bone_id)].items():
        axis, sign = action_sign(action, bone_id)
        end = sign * limit
        lo_hi = box[axis]
        lo_hi[0] = min(lo_hi[0], end)
        lo_hi[1] = max(lo_hi[1], end)
    return {axis: (float(lo), float(hi)) for axis, (lo, hi) in box.items()}


__all__ = [
    "LIMITS", "HINGE_HIP_COMBINED_MAX", "START_POSE_HIP_X", "TRAVEL_LIMIT_M",
    "joint_type", "supported_actions", "action_limit", "clamp_magnitude", "rom_box",
]
