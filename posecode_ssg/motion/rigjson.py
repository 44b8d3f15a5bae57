"""``rig.json``: the rig of :mod:`posecode_ssg.motion.rig` as the JSON the browser runtime reads
(its only source of rig numbers; layout in docs/motion-json.md), with each built-in start pose's
grounded root per avatar (:mod:`posecode_ssg.motion.startpose`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from posecode_ssg.language.vocabulary import (
    AVATARS,
    BACK_BONES,
    BONE_JOINT_TYPE,
    BONES,
    DEFAULT_AVATAR,
    DIGITS,
    EFFECTOR_BONE,
)

from .rig import (
    DEFAULT_START_POSE,
    FORMAT,
    HAND_STATES,
    PARENT,
    PROP_GEOMETRY,
    PROP_SURFACES,
    ROM,
    SEGMENT_MASSES,
    SOLVER,
    START_POSES_TABLE,
    Avatar,
    avatar,
    round5,
)
from .equipment import rig_equipment
from .startpose import grounded_start_root


def _avatar_json(av: Avatar) -> dict[str, Any]:
    return {
        "label": av.label,
        "height": av.height,
        "offsets": {b: list(v) for b, v in av.offsets.items()},
        "landmarks": {n: {"bone": b, "offset": list(o)} for n, (b, o) in av.landmarks.items()},
        "segments": [{"from": a, "to": b, "r": [r0, r1]} for a, b, r0, r1 in av.segments],
        "volumes": [{"name": n, "bone": b, "r": r, "scale": list(s), "offset": list(o)}
                    for n, b, r, s, o in av.volumes],
        "sole": {"size": list(av.sole_size), "center": list(av.sole_center), "drop": av.sole_drop},
        "collision": dict(av.collision),
    }


def rig_json() -> dict[str, Any]:
    """Return the rig as a JSON-ready dict (the content of ``rig.json``; layout in
    docs/motion-json.md). Includes every avatar, the ROM boxes, start poses (with their grounded
    root position per avatar, computed by :mod:`posecode_ssg.motion.startpose`), props, effector map,
    hand states and solver constants."""
    start_poses = {}
    for name, sp in START_POSES_TABLE.items():
        start_poses[name] = {
            "root": {"position": list(sp.root_position), "euler": list(sp.root_euler)},
            "joints": {b: list(v) for b, v in sp.joints.items()},
            "tilted": sp.tilted,
            "groundedRoot": {a: [round5(c) for c in grounded_start_root(name, a)] for a in AVATARS},
        }
    return {
        "format": FORMAT,
        "conventions": {
            "units": "metres, degrees",
            "up": "+Y", "forward": "+Z", "figureLeft": "+X",
            "euler": "intrinsic XYZ: q = qX(x) * qY(y) * qZ(z)",
            "quaternion": "[x, y, z, w]",
        },
        "bones": [{"id": b, "parent": PARENT[b], "type": BONE_JOINT_TYPE[b]} for b in BONES],
        "rom": {b: {ax: list(lim) for ax, lim in ROM[b].items()} for b in BONES},
        "defaultAvatar": DEFAULT_AVATAR,
        "avatars": {a: _avatar_json(avatar(a)) for a in AVATARS},
        "defaultStartPose": DEFAULT_START_POSE,
        "startPoses": start_poses,
        "props": {p: dict(g) for p, g in PROP_GEOMETRY.items()},
        "surfaces": dict(PROP_SURFACES),
        "effectors": dict(EFFECTOR_BONE),
        "backBones": list(BACK_BONES),
        "handStates": {k: dict(v) for k, v in HAND_STATES.items()},
        "digits": list(DIGITS),
        "solver": {k: dict(v) if isinstance(v, Mapping) else v for k, v in SOLVER.items()},
        "segmentMasses": [{"segment": n, "from": a, "to": b, "mass": m, "centre": f}
                          for n, a, b, m, f in SEGMENT_MASSES],
        "equipment": rig_equipment(),
    }


def write_rig_json(path: str | Path) -> Path:
    """Write :func:`rig_json` to ``path`` (compact UTF-8 JSON) and return the path."""
    p = Path(path)
    p.write_text(json.dumps(rig_json(), separators=(",", ":")), encoding="utf-8")
    return p
