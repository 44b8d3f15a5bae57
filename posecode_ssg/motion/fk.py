"""Forward kinematics and mesh extents of the capsule mannequin (numpy).

``forward_kinematics(avatar, euler, root_pos, root_rot)`` walks the bone hierarchy of
:mod:`posecode_ssg.motion.rig` (parents before children, the canonical ``BONES`` order): a joint's
world position is its parent's position plus the parent's world rotation applied to the rest
offset, and its world rotation is the parent's world rotation times its local rotation
(kinematics-reference §2.1: identity rest rotations, offsets in the parent frame). Landmarks and
mesh primitives (capsules, ellipsoids, sole boxes) follow their bone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posecode_ssg.language.vocabulary import BONES

from .rig import PARENT, Avatar
from .rotation import euler_to_matrix

_BONE_INDEX = {b: i for i, b in enumerate(BONES)}
_UNIT_BOX = np.array([[sx, sy, sz] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5) for sz in (-0.5, 0.5)])


@dataclass
class World:
    """World-space result of forward kinematics (metres).

    ``pos``: bone -> (3,) joint position; ``rot``: bone -> (3, 3) world rotation; ``landmarks``:
    landmark name -> (3,) position; ``root_pos`` / ``root_rot``: the floating root's transform.
    """

    avatar: Avatar
    pos: dict[str, np.ndarray]
    rot: dict[str, np.ndarray]
    landmarks: dict[str, np.ndarray]
    root_pos: np.ndarray
    root_rot: np.ndarray

    def point(self, name: str) -> np.ndarray:
        """Position of a bone joint or a landmark by name; ``KeyError`` if neither."""
        if name in self.pos:
            return self.pos[name]
        return self.landmarks[name]

    def lowest_by_bone(self) -> dict[str, float]:
        """Lowest mesh y (m) per bone: each capsule is attributed to its child bone, each
        ellipsoid volume and sole box to the bone that carries it."""
        av = self.avatar
        low: dict[str, float] = {b: np.inf for b in BONES}
        for a, b, r0, r1 in av.segments:
            owner = b if b in low else av.landmarks[b][0]
            ya = self.pos[a][1] - r0
            yb = self.point(b)[1] - r1
            low[owner] = min(low[owner], ya, yb)
        for _name, bone, r, scale, off in av.volumes:
            R = self.rot[bone]
            c = self.pos[bone] + R @ np.asarray(off)
            m = R[1] * (r * np.asarray(scale))
            low[bone] = min(low[bone], c[1] - float(np.linalg.norm(m)))
        size = np.asarray(av.sole_size)
        center = np.asarray(av.sole_center)
        for side in ("left", "right"):
            bone = f"ankle_{side}"
            corners = (center + _UNIT_BOX * size) @ self.rot[bone].T + self.pos[bone]
            low[bone] = min(low[bone], float(corners[:, 1].min()))
        return low

    def lowest(self, bones=None) -> float:
        """Lowest mesh y (m) over ``bones`` (default: the whole figure)."""
        low = self.lowest_by_bone()
        keys = BONES if bones is None else bones
        return float(min(low[b] for b in keys))

    def sole_corners(self, side: str) -> np.ndarray:
        """The 4 bottom corners of a sole box, (4, 3) world metres: heel-outer, heel-inner,
        toe-outer, toe-inner order is not guaranteed; rows are (x, y, z)."""
        av = self.avatar
        size = np.asarray(av.sole_size)
        center = np.asarray(av.sole_center)
        bottom = np.array([[sx, -0.5, sz] for sx in (-0.5, 0.5) for sz in (-0.5, 0.5)])
        bone = f"ankle_{side}"
        return (center + bottom * size) @ self.rot[bone].T + self.pos[bone]


def subtree(bone: str) -> tuple[str, ...]:
    """``bone`` and all its descendants, in canonical order."""
    out = [bone]
    for b in BONES:
        p = PARENT[b]
        if p is not None and p in out and b not in out:
            out.append(b)
    return tuple(out)


def forward_kinematics(avatar: Avatar, euler: dict[str, tuple[float, float, float]] | dict,
                       root_pos, root_rot, local: dict[str, np.ndarray] | None = None) -> World:
    """World joint positions and rotations.

    ``euler``: bone -> local (x, y, z) degrees (missing bones are at rest); ``local`` optionally
    gives ready 3×3 local matrices (taking precedence over ``euler``); ``root_pos`` (3,) metres and
    ``root_rot`` (3, 3) place the floating root. Returns a :class:`World`.
    """
    root_pos = np.asarray(root_pos, dtype=float)
    root_rot = np.asarray(root_rot, dtype=float)
    pos: dict[str, np.ndarray] = {}
    rot: dict[str, np.ndarray] = {}
    for b in BONES:
        if local is not None and b in local:
            L = local[b]
        else:
            e = euler.get(b)
            L = euler_to_matrix(e) if e is not None and any(e) else np.eye(3)
        p = PARENT[b]
        off = np.asarray(avatar.offsets[b])
        if p is None:
            pos[b] = root_pos + root_rot @ off
            rot[b] = root_rot @ L
        else:
            pos[b] = pos[p] + rot[p] @ off
            rot[b] = rot[p] @ L
    landmarks = {n: pos[b] + rot[b] @ np.asarray(o) for n, (b, o) in avatar.landmarks.items()}
    return World(avatar, pos, rot, landmarks, root_pos, root_rot)
