"""Forward kinematics and mesh extents of the capsule mannequin (numpy).

``forward_kinematics(avatar, euler, root_pos, root_rot)`` walks the bone hierarchy of
:mod:`posecode_ssg.motion.rig` (parents before children, the canonical ``BONES`` order): a joint's
world position is its parent's position plus the parent's world rotation applied to the rest
offset, and its world rotation is the parent's world rotation times its local rotation
(kinematics-reference §2.1: identity rest rotations, offsets in the parent frame). Landmarks and
mesh primitives (capsules, ellipsoids, sole boxes) follow their bone.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from posecode_ssg.language.vocabulary import BONES

from .rig import PARENT, Avatar
from .rotation import euler_to_matrix

_BONE_INDEX = {b: i for i, b in enumerate(BONES)}
_UNIT_BOX = np.array([[sx, sy, sz] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5) for sz in (-0.5, 0.5)])
_EYE = np.eye(3)
_EYE.setflags(write=False)
_PARENTS = tuple((b, PARENT[b]) for b in BONES)


class _Prepared:
    """An avatar's constants as numpy arrays, made once (forward kinematics and the mesh
    extents run thousands of times per figure; converting the same tuples every call cost
    more than the arithmetic). Values are exactly the avatar's: results are unchanged."""

    def __init__(self, av: Avatar):
        self.offsets = [(b, p, np.asarray(av.offsets[b], dtype=float)) for b, p in _PARENTS]
        self.landmark_index = {n: (b, np.asarray(o, dtype=float)) for n, (b, o) in av.landmarks.items()}
        # capsules: (parent bone, child bone or landmark, is a landmark, owner bone, r0, r1)
        self.segments = [(a, b, b not in _BONE_INDEX, b if b in _BONE_INDEX else av.landmarks[b][0], r0, r1)
                         for a, b, r0, r1 in av.segments]
        self.volumes = [(bone, np.asarray(off), r * np.asarray(scale)) for _n, bone, r, scale, off in av.volumes]
        self.sole_box = np.asarray(av.sole_center) + _UNIT_BOX * np.asarray(av.sole_size)


_PREPARED: dict[int, tuple[Avatar, _Prepared]] = {}
_MATRICES: dict[bytes, np.ndarray] = {}
_PACK = struct.Struct("<3d").pack


def _local_matrix(e) -> np.ndarray:
    """``euler_to_matrix(e)`` remembered by the exact bits of the angles (so -0.0 and 0.0 stay
    apart): a solve runs forward kinematics hundreds of times with most bones unchanged. The
    array is read-only (shared)."""
    key = _PACK(*e)
    m = _MATRICES.get(key)
    if m is None:
        if len(_MATRICES) >= 8192:
            _MATRICES.clear()
        m = euler_to_matrix(e)
        m.setflags(write=False)
        _MATRICES[key] = m
    return m


def _prepared(av: Avatar) -> _Prepared:
    hit = _PREPARED.get(id(av))
    if hit is None or hit[0] is not av:
        hit = (av, _Prepared(av))
        _PREPARED[id(av)] = hit
    return hit[1]


@dataclass
class World:
    """World-space result of forward kinematics (metres).

    ``pos``: bone -> (3,) joint position; ``rot``: bone -> (3, 3) world rotation; ``landmarks``:
    landmark name -> (3,) position; ``root_pos`` / ``root_rot``: the floating root's transform.
    """

    avatar: Avatar
    pos: dict[str, np.ndarray]
    rot: dict[str, np.ndarray]
    landmarks: Mapping[str, np.ndarray]
    root_pos: np.ndarray
    root_rot: np.ndarray

    def point(self, name: str) -> np.ndarray:
        """Position of a bone joint or a landmark by name; ``KeyError`` if neither."""
        if name in self.pos:
            return self.pos[name]
        return self.landmarks[name]

    def lowest_by_bone(self, bones=None) -> dict[str, float]:
        """Lowest mesh y (m) per bone: each capsule is attributed to its child bone, each
        ellipsoid volume and sole box to the bone that carries it. With ``bones`` (an iterable
        of bone names) only those bones are measured (the others stay ``inf``)."""
        prep = _prepared(self.avatar)
        pos, rot, marks = self.pos, self.rot, self.landmarks
        low: dict[str, float] = dict.fromkeys(BONES, math.inf)
        wanted = low if bones is None else frozenset(bones)
        for a, b, is_mark, owner, r0, r1 in prep.segments:
            if owner not in wanted:
                continue
            ya = float(pos[a][1]) - r0
            yb = float((marks if is_mark else pos)[b][1]) - r1
            low[owner] = min(low[owner], ya, yb)
        for bone, off, rscale in prep.volumes:
            if bone not in wanted:
                continue
            R = rot[bone]
            c = pos[bone] + R @ off
            m = R[1] * rscale
            low[bone] = min(low[bone], float(c[1]) - math.sqrt(float(m.dot(m))))  # = np.linalg.norm(m)
        box = prep.sole_box
        for bone in ("ankle_left", "ankle_right"):
            if bone not in wanted:
                continue
            corners = box @ rot[bone].T + pos[bone]
            low[bone] = min(low[bone], float(corners[:, 1].min()))
        return low

    def lowest(self, bones=None) -> float:
        """Lowest mesh y (m) over ``bones`` (default: the whole figure)."""
        keys = BONES if bones is None else tuple(bones)
        low = self.lowest_by_bone(None if bones is None else keys)
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
    prep = _prepared(avatar)
    pos: dict[str, np.ndarray] = {}
    rot: dict[str, np.ndarray] = {}
    local = local or {}
    for b, p, off in prep.offsets:
        L = local.get(b)
        if L is None:
            e = euler.get(b)
            L = _local_matrix(e) if e is not None and any(e) else _EYE
        if p is None:
            pos[b] = root_pos + root_rot @ off
            rot[b] = root_rot @ L
        else:
            R = rot[p]
            pos[b] = pos[p] + R @ off
            rot[b] = R @ L
    return World(avatar, pos, rot, _Landmarks(prep, pos, rot), root_pos, root_rot)


class _Landmarks(Mapping):
    """Landmark name -> (3,) world position, each computed on first use (most solver steps read
    two or three of the avatar's landmarks); the values are those an eager computation gives."""

    __slots__ = ("_spec", "_pos", "_rot", "_done")

    def __init__(self, prep: _Prepared, pos: dict, rot: dict):
        self._spec, self._pos, self._rot, self._done = prep.landmark_index, pos, rot, {}

    def __getitem__(self, name: str) -> np.ndarray:
        value = self._done.get(name)
        if value is None:
            bone, off = self._spec[name]
            value = self._done[name] = self._pos[bone] + self._rot[bone] @ off
        return value

    def __iter__(self):
        return iter(self._spec)

    def __len__(self) -> int:
        return len(self._spec)

    def __contains__(self, name: object) -> bool:
        return name in self._spec
