"""Start-pose grounding (KR §4): the root position of a start pose after the bounding-box drop,
cached per avatar and exact angles. Used by the compiler (a program's base root), rig.json (the
grounded root of each built-in start pose) and the keyframe solve.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .fk import forward_kinematics
from .fkprep import euler_key
from .rig import START_POSES_TABLE, avatar
from .rotation import euler_to_matrix


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

