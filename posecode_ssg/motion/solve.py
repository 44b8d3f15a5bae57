"""Keyframe solve (placeholder while the full solver is written)."""
from __future__ import annotations

import numpy as np

from .fk import forward_kinematics
from .rig import START_POSES_TABLE, avatar
from .rotation import euler_to_matrix


def grounded_start_root(pose: str, avatar_id: str | None = None) -> np.ndarray:
    """Root position (m) of a built-in start pose after the bounding-box drop (KR §4)."""
    sp = START_POSES_TABLE[pose]
    av = avatar(avatar_id)
    R = euler_to_matrix(sp.root_euler)
    p = np.asarray(sp.root_position, float)
    w = forward_kinematics(av, dict(sp.joints), p, R)
    p = p - np.array([0, w.lowest(), 0])
    return p
