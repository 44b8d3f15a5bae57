"""What forward kinematics is made of (numpy and Python floats): an avatar's constants prepared
once (:class:`Prepared`), the local rotation matrices remembered by the exact bits of their
angles, and the lazy per-bone tables a :class:`~posecode_ssg.motion.fk.World` reads (joint
positions, landmarks, each bone's rotation-dependent mesh share), each computed on first use.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping

import numpy as np

from posecode_ssg.language.vocabulary import BONES

from .rig import PARENT, Avatar
from .rotation import euler_to_matrix

BONE_INDEX = {b: i for i, b in enumerate(BONES)}
UNIT_BOX = np.array([[sx, sy, sz] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5) for sz in (-0.5, 0.5)])
EYE = np.eye(3)
EYE.setflags(write=False)
PARENTS_ORDER = tuple((b, PARENT[b]) for b in BONES)
ANKLE_BONES = ("ankle_left", "ankle_right")
ALL_INF = dict.fromkeys(BONES, math.inf)


class Prepared:
    """An avatar's constants as numpy arrays, made once (forward kinematics and the mesh
    extents run thousands of times per figure; converting the same tuples every call cost
    more than the arithmetic). Values are exactly the avatar's: results are unchanged."""

    def __init__(self, av: Avatar):
        self.offsets = [(b, p, np.asarray(av.offsets[b], dtype=float)) for b, p in PARENTS_ORDER]
        self.landmark_index = {n: b for n, (b, _o) in av.landmarks.items()}   # landmark -> its bone
        # capsules: (parent bone, child bone or landmark, is a landmark, owner bone, r0, r1)
        self.segments = [(a, b, b not in BONE_INDEX, b if b in BONE_INDEX else av.landmarks[b][0], r0, r1)
                         for a, b, r0, r1 in av.segments]
        self.volumes = [(bone, np.asarray(off), r * np.asarray(scale)) for _n, bone, r, scale, off in av.volumes]
        self.sole_box = np.asarray(av.sole_center) + UNIT_BOX * np.asarray(av.sole_size)
        self.off = {b: off for b, _p, off in self.offsets}
        # per owner bone, in the avatar's order: its capsules and volumes
        self.segments_of = {b: tuple((a, c, m, r0, r1) for a, c, m, o, r0, r1 in self.segments if o == b)
                            for b in BONES}
        self.volumes_of = {b: tuple((off, rs) for v, off, rs in self.volumes if v == b) for b in BONES}
        self.plans: dict[tuple, object] = {}   # changes -> fk._Plan, made by PoseFK
        # the same constants as Python floats (the per-bone shares, :class:`Shape`)
        self.landmark_offsets = {n: tuple(float(c) for c in o) for n, (_b, o) in av.landmarks.items()}
        self.volume_floats = {b: tuple((tuple(off.tolist()), tuple(rs.tolist())) for off, rs in vols)
                              for b, vols in self.volumes_of.items()}
        self.sole_corners = [tuple(c) for c in self.sole_box.tolist()]
        # per bone: the joints its capsules start from, and how far (m) its mesh can reach below
        # the lowest of them and its own joint (capsule radii, landmark offsets, volume offsets
        # plus their largest semi-axis, sole-box corners), widened by 1e-9 relative + 1e-9 m so
        # the bound holds for the rounded sums as well (World.lowest)
        self.low_bound = {}
        for b in BONES:
            starts = tuple(dict.fromkeys(a for a, *_rest in self.segments_of[b]))
            reach = [0.0]
            for _a, c, is_mark, r0, r1 in self.segments_of[b]:
                reach += [r0, r1 + (float(np.linalg.norm(av.landmarks[c][1])) if is_mark else 0.0)]
            reach += [float(np.linalg.norm(off) + max(rs)) for off, rs in self.volumes_of[b]]
            if b in ANKLE_BONES:
                reach.append(float(max(np.linalg.norm(c) for c in self.sole_box)))
            self.low_bound[b] = (starts, max(reach) * (1.0 + 1e-9) + 1e-9)


_PREPARED: dict[int, tuple[Avatar, Prepared]] = {}
#: (avatar id, key of the local rotations, root rotation bytes) -> the world rotations, parent-frame
#: steps and bone shapes of a pose (PoseFK ``key``): a solve meets the same poses again (each
#: phase pose in both passes, the start pose for grounding and as the base), with the
#: ``World.rigid_memo`` its worlds share (the same rotations: the same shape), and the first
#: world made from them (a pose met again at the same root position is that world again)
_STATES: dict[tuple, tuple[dict, dict, dict, Avatar, dict, list]] = {}
_MATRICES: dict[bytes, np.ndarray] = {}
PACK = struct.Struct("<3d").pack
PACK_POSE = struct.Struct(f"<{3 * len(BONES)}d").pack


def local_matrix(e) -> np.ndarray:
    """``euler_to_matrix(e)`` remembered by the exact bits of the angles (so -0.0 and 0.0 stay
    apart): a solve runs forward kinematics hundreds of times with most bones unchanged. The
    array is read-only (shared)."""
    key = PACK(*e)
    m = _MATRICES.get(key)
    if m is None:
        if len(_MATRICES) >= 8192:
            _MATRICES.clear()
        m = euler_to_matrix(e)
        m.setflags(write=False)
        _MATRICES[key] = m
    return m


def same_angles(a, b) -> bool:
    """True when two Euler triples (degrees) are the same bits (−0.0 and 0.0 apart, as
    :func:`local_matrix` keys them): setting one over the other changes nothing."""
    return a == b and PACK(*a) == PACK(*b)


def euler_key(euler: Mapping[str, tuple[float, float, float]]) -> bytes | None:
    """The exact bits of a full pose's Euler angles (bone -> degrees, every bone present), for
    :class:`PoseFK`'s ``key``; ``None`` when a bone is missing."""
    try:
        return PACK_POSE(*[c for b in BONES for c in euler[b]])
    except (KeyError, struct.error):
        return None


def prepared(av: Avatar) -> Prepared:
    hit = _PREPARED.get(id(av))
    if hit is None or hit[0] is not av:
        hit = (av, Prepared(av))
        _PREPARED[id(av)] = hit
    return hit[1]


class Shape:
    """The rotation-dependent share of one bone's landmarks and mesh extents, computed on first
    use and kept while the bone's world rotation ``R`` is unchanged (a root translation keeps
    every shape): landmark offsets ``R @ offset``, volume centre heights and vertical half
    extents, the lowest sole-box corner relative to the joint; on Python floats (the products of
    the array computation, summed in order: equal to its numbers within ~1e-16 m); positions add
    the joint afterwards."""

    __slots__ = ("prep", "bone", "R", "_rows", "_marks", "_volumes", "_sole")

    def __init__(self, prep: Prepared, bone: str, R: np.ndarray):
        self.prep, self.bone, self.R = prep, bone, R
        self._rows = None
        self._marks: dict[str, tuple[float, float, float]] = {}
        self._volumes = self._sole = None

    def rows(self) -> list[list[float]]:
        """``R`` as rows of Python floats."""
        r = self._rows
        if r is None:
            r = self._rows = self.R.tolist()
        return r

    def mark(self, name: str) -> tuple[float, float, float]:
        """``R @ offset`` of landmark ``name`` (on this bone) as three floats."""
        v = self._marks.get(name)
        if v is None:
            (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = self.rows()
            ox, oy, oz = self.prep.landmark_offsets[name]
            v = self._marks[name] = (r00 * ox + r01 * oy + r02 * oz, r10 * ox + r11 * oy + r12 * oz,
                                     r20 * ox + r21 * oy + r22 * oz)
        return v

    def volumes(self) -> list[tuple[float, float]]:
        """Per volume of the bone: (centre y − joint y, vertical half extent) in metres: the
        ellipsoid R·diag(r·scale) spans ±|row 1 of R·diag(r·scale)| vertically."""
        v = self._volumes
        if v is None:
            r10, r11, r12 = self.rows()[1]
            v = self._volumes = []
            for (ox, oy, oz), (sx, sy, sz) in self.prep.volume_floats[self.bone]:
                mx, my, mz = r10 * sx, r11 * sy, r12 * sz
                v.append((r10 * ox + r11 * oy + r12 * oz, math.sqrt(mx * mx + my * my + mz * mz)))
        return v

    def sole_low(self) -> float:
        """Lowest sole-box corner y relative to the ankle joint (adding the joint's y after the
        minimum is exact: rounding is monotonic)."""
        v = self._sole
        if v is None:
            r10, r11, r12 = self.rows()[1]
            v = self._sole = min([r10 * x + r11 * y + r12 * z for x, y, z in self.prep.sole_corners])
        return v


class Shapes(dict):
    """bone -> its :class:`Shape`, made on first use from the bone's world rotation (most steps
    measure a few bones of a world); starts with the shapes a world carries over from the
    previous one (bones whose rotation did not change)."""

    __slots__ = ("_prep", "_rot")   # the prepared avatar; bone -> world rotation (read-only)

    def __missing__(self, bone: str) -> Shape:
        v = self[bone] = Shape(self._prep, bone, self._rot[bone])
        return v


class BoneMap(dict):
    """A dict filled on first use, whose full set of bones is that of ``_keys`` (a mapping from
    bone, set by the maker): membership, iteration and length answer for every bone, made or not."""

    __slots__ = ("_keys",)

    def __contains__(self, bone: object) -> bool:
        return bone in self._keys

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class Positions(BoneMap):
    """bone -> (3,) joint position array, each array made on first use from the float triple
    (most solver steps read a handful of joints of a world); behaves as the full dict.
    ``_keys``: bone -> (x, y, z) floats."""

    __slots__ = ()

    def __missing__(self, bone: str) -> np.ndarray:
        v = self[bone] = np.array(self._keys[bone])
        return v

    def _fill(self) -> None:
        if dict.__len__(self) != len(self._keys):
            for b in self._keys:
                if not dict.__contains__(self, b):
                    dict.__setitem__(self, b, np.array(self._keys[b]))

    def get(self, bone, default=None):
        return self[bone] if bone in self._keys else default

    def keys(self):
        self._fill()
        return dict.keys(self)

    def values(self):
        self._fill()
        return dict.values(self)

    def items(self):
        self._fill()
        return dict.items(self)

    def copy(self) -> dict:
        self._fill()
        return dict(dict.items(self))

    def __eq__(self, other) -> bool:
        self._fill()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._fill()
        return dict.__repr__(self)

    def __reduce__(self):
        return (dict, (self.copy(),))


class Landmarks(Mapping):
    """Landmark name -> (3,) world position, each computed on first use (most solver steps read
    two or three of the avatar's landmarks); the values are those an eager computation gives
    (joint + R @ offset: the same sums, on the joint's floats and the bone's :class:`Shape`)."""

    __slots__ = ("_spec", "_pos", "_shapes", "_done")

    def __init__(self, prep: Prepared, pos: dict, shapes: dict):
        self._spec, self._pos, self._shapes, self._done = prep.landmark_index, pos, shapes, {}

    def __getitem__(self, name: str) -> np.ndarray:
        value = self._done.get(name)
        if value is None:
            value = self._done[name] = np.array(mark_sum(self._pos, self._shapes, self._spec[name], name))
        return value

    def __iter__(self):
        return iter(self._spec)

    def __len__(self) -> int:
        return len(self._spec)

    def __contains__(self, name: object) -> bool:
        return name in self._spec


def mark_sum(pos, shapes, bone: str, name: str) -> tuple[float, float, float]:
    """Landmark ``name`` of ``bone``: joint + R @ offset on floats (``pos``: bone -> joint triple,
    ``shapes``: bone -> :class:`Shape`)."""
    px, py, pz = pos[bone]
    ox, oy, oz = shapes[bone].mark(name)
    return (px + ox, py + oy, pz + oz)


class Joints(BoneMap):
    """bone -> world joint position as a float triple, each summed on first use (joint = parent
    joint + the parent-frame step ``R_parent @ offset``, from the root down: the additions of an
    eager pass, in the same order, on the bones a step reads). Starts with the positions a world
    carries over from the previous one (those no change moved); behaves as the full mapping."""

    __slots__ = ("_root",)   # the root position triple; ``_keys``: bone -> step triple (read-only)

    def __missing__(self, bone: str) -> tuple[float, float, float]:
        p = PARENT[bone]
        px, py, pz = self._root if p is None else self[p]
        sx, sy, sz = self._keys[bone]
        v = self[bone] = (px + sx, py + sy, pz + sz)
        return v
