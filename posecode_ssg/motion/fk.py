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
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from posecode_ssg.language.vocabulary import BONES

from .rig import PARENT, Avatar
from .rotation import euler_to_matrix

_BONE_INDEX = {b: i for i, b in enumerate(BONES)}
_UNIT_BOX = np.array([[sx, sy, sz] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5) for sz in (-0.5, 0.5)])
_EYE = np.eye(3)
_EYE.setflags(write=False)
_PARENTS = tuple((b, PARENT[b]) for b in BONES)
_ANKLE_BONES = ("ankle_left", "ankle_right")
_ALL_INF = dict.fromkeys(BONES, math.inf)


class _Prepared:
    """An avatar's constants as numpy arrays, made once (forward kinematics and the mesh
    extents run thousands of times per figure; converting the same tuples every call cost
    more than the arithmetic). Values are exactly the avatar's: results are unchanged."""

    def __init__(self, av: Avatar):
        self.offsets = [(b, p, np.asarray(av.offsets[b], dtype=float)) for b, p in _PARENTS]
        self.landmark_index = {n: b for n, (b, _o) in av.landmarks.items()}   # landmark -> its bone
        # capsules: (parent bone, child bone or landmark, is a landmark, owner bone, r0, r1)
        self.segments = [(a, b, b not in _BONE_INDEX, b if b in _BONE_INDEX else av.landmarks[b][0], r0, r1)
                         for a, b, r0, r1 in av.segments]
        self.volumes = [(bone, np.asarray(off), r * np.asarray(scale)) for _n, bone, r, scale, off in av.volumes]
        self.sole_box = np.asarray(av.sole_center) + _UNIT_BOX * np.asarray(av.sole_size)
        self.off = {b: off for b, _p, off in self.offsets}
        # per owner bone, in the avatar's order: its capsules and volumes
        self.segments_of = {b: tuple((a, c, m, r0, r1) for a, c, m, o, r0, r1 in self.segments if o == b)
                            for b in BONES}
        self.volumes_of = {b: tuple((off, rs) for v, off, rs in self.volumes if v == b) for b in BONES}
        self.plans: dict[tuple, "_Plan"] = {}
        # the same constants as Python floats (the per-bone shares, :class:`_Shape`)
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
            if b in _ANKLE_BONES:
                reach.append(float(max(np.linalg.norm(c) for c in self.sole_box)))
            self.low_bound[b] = (starts, max(reach) * (1.0 + 1e-9) + 1e-9)


_PREPARED: dict[int, tuple[Avatar, _Prepared]] = {}
#: (avatar id, key of the local rotations, root rotation bytes) -> the world rotations, parent-frame
#: steps and bone shapes of a pose (PoseFK ``key``): a solve meets the same poses again (each
#: phase pose in both passes, the start pose for grounding and as the base), with the
#: ``World.rigid_memo`` its worlds share (the same rotations: the same shape), and the first
#: world made from them (a pose met again at the same root position is that world again)
_STATES: dict[tuple, tuple[dict, dict, dict, Avatar, dict, list]] = {}
_MATRICES: dict[bytes, np.ndarray] = {}
_PACK = struct.Struct("<3d").pack
_PACK_POSE = struct.Struct(f"<{3 * len(BONES)}d").pack


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


def same_angles(a, b) -> bool:
    """True when two Euler triples (degrees) are the same bits (−0.0 and 0.0 apart, as
    :func:`_local_matrix` keys them): setting one over the other changes nothing."""
    return a == b and _PACK(*a) == _PACK(*b)


def euler_key(euler: Mapping[str, tuple[float, float, float]]) -> bytes | None:
    """The exact bits of a full pose's Euler angles (bone -> degrees, every bone present), for
    :class:`PoseFK`'s ``key``; ``None`` when a bone is missing."""
    try:
        return _PACK_POSE(*[c for b in BONES for c in euler[b]])
    except (KeyError, struct.error):
        return None


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
    #: bone -> lowest mesh y already measured (filled by :meth:`lowest_by_bone`)
    low_cache: dict[str, float] = field(default_factory=dict, init=False, repr=False, compare=False)
    #: results of pure functions of this world (e.g. collide.obstacles), by key
    memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    #: results that a translation of the root leaves as they are (e.g. a limb certainly clear of
    #: the body, collide.deepest), by key: shared by the worlds a :class:`PoseFK` makes while
    #: only its root position changes
    rigid_memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    #: a world made by forward kinematics: (prepared avatar, bone -> joint position as a float
    #: triple, bone -> its :class:`_Shape`), for the float-only lowest-point measurement
    fk_data: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def point(self, name: str) -> np.ndarray:
        """Position of a bone joint or a landmark by name; ``KeyError`` if neither."""
        if name in self.pos:
            return self.pos[name]
        return self.landmarks[name]

    def lowest_by_bone(self, bones=None) -> dict[str, float]:
        """Lowest mesh y (m) per bone: each capsule is attributed to its child bone, each
        ellipsoid volume and sole box to the bone that carries it. With ``bones`` (an iterable
        of bone names) only those bones are measured (the others stay ``inf``). Each bone is
        measured once per world (remembered in ``low_cache``)."""
        cache = self.low_cache
        wanted = BONES if bones is None else bones
        missing = [b for b in wanted if b not in cache]
        if missing:
            self._measure_low(missing)
        low: dict[str, float] = _ALL_INF.copy()
        for b in wanted:
            low[b] = cache[b]
        return low

    def _measure_low(self, bones) -> None:
        cache = self.low_cache
        if self.fk_data is not None:
            # the same sums on Python floats: joint y from the float positions, the rotation's
            # share (landmark offsets, volume centres and extents, sole corners) from the bone's
            # shape, which survives root translations
            # (comparisons instead of min(): the same value, the first of equals kept)
            prep, pos_t, shapes = self.fk_data
            for owner in bones:
                low = math.inf
                for a, b, is_mark, r0, r1 in prep.segments_of[owner]:
                    if is_mark:
                        mb = prep.landmark_index[b]
                        yb = pos_t[mb][1] + shapes[mb].mark(b)[1]
                    else:
                        yb = pos_t[b][1]
                    ya = pos_t[a][1] - r0
                    if ya < low:
                        low = ya
                    yb -= r1
                    if yb < low:
                        low = yb
                if prep.volumes_of[owner] or owner in _ANKLE_BONES:
                    y = pos_t[owner][1]
                    shape = shapes[owner]
                    for cy, extent in shape.volumes():
                        v = (y + cy) - extent
                        if v < low:
                            low = v
                    if owner in _ANKLE_BONES:
                        v = shape.sole_low() + y
                        if v < low:
                            low = v
                cache[owner] = low
            return
        prep = _prepared(self.avatar)
        pos, rot, marks = self.pos, self.rot, self.landmarks
        for owner in bones:
            low = math.inf
            for a, b, is_mark, r0, r1 in prep.segments_of[owner]:
                ya = float(pos[a][1]) - r0
                yb = float((marks if is_mark else pos)[b][1]) - r1
                low = min(low, ya, yb)
            for off, rscale in prep.volumes_of[owner]:
                R = rot[owner]
                c = pos[owner] + R.dot(off)
                m = R[1] * rscale
                low = min(low, float(c[1]) - math.sqrt(float(m.dot(m))))  # = np.linalg.norm(m)
            if owner in _ANKLE_BONES:
                corners = prep.sole_box.dot(rot[owner].T) + pos[owner]
                low = min(low, float(corners[:, 1].min()))
            cache[owner] = low

    def lowest(self, bones=None) -> float:
        """Lowest mesh y (m) over ``bones`` (default: the whole figure). A world made by forward
        kinematics measures, of the bones not measured yet, only those whose mesh could reach
        below the lowest point found so far: in order of a lower bound (the lowest of the
        bone's joints minus how far its mesh reaches below them, ``_Prepared.low_bound``), until
        the bound is above it — the same minimum, without measuring a raised arm or the head."""
        keys = BONES if bones is None else tuple(bones)
        cache = self.low_cache
        missing = [b for b in keys if b not in cache]
        if len(missing) > 2 and self.fk_data is not None:
            prep, pos_t, _shapes = self.fk_data
            best = min([cache[b] for b in keys if b in cache], default=math.inf)
            bounds = []
            for b in missing:
                starts, reach = prep.low_bound[b]
                y = pos_t[b][1]
                for a in starts:
                    ya = pos_t[a][1]
                    if ya < y:
                        y = ya
                bounds.append((y - reach, b))
            bounds.sort()
            for bound, b in bounds:
                if bound > best:
                    break
                self._measure_low((b,))
                if cache[b] < best:
                    best = cache[b]
            return float(best)
        if missing:
            self._measure_low(missing)
        return float(min([cache[b] for b in keys]))

    def sole_corners(self, side: str) -> np.ndarray:
        """The 4 bottom corners of a sole box, (4, 3) world metres: heel-outer, heel-inner,
        toe-outer, toe-inner order is not guaranteed; rows are (x, y, z)."""
        av = self.avatar
        size = np.asarray(av.sole_size)
        center = np.asarray(av.sole_center)
        bottom = np.array([[sx, -0.5, sz] for sx in (-0.5, 0.5) for sz in (-0.5, 0.5)])
        bone = f"ankle_{side}"
        return (center + bottom * size) @ self.rot[bone].T + self.pos[bone]


@lru_cache(maxsize=None)
def subtree(bone: str) -> tuple[str, ...]:
    """``bone`` and all its descendants, in canonical order (remembered: the hierarchy is fixed)."""
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
    local = local or {}
    mats = {}
    angles = []
    for b in BONES:
        L = local.get(b)
        if L is None:
            e = euler.get(b)
            if e is not None and any(e):
                L = _local_matrix(e)
                angles += e
            else:
                L = _EYE
                angles += (0.0, 0.0, 0.0)
        mats[b] = L
    key = None if local else b"fk" + _PACK_POSE(*angles)
    return PoseFK(avatar, mats, root_pos, root_rot, key).world()


class _Shape:
    """The rotation-dependent share of one bone's landmarks and mesh extents, computed on first
    use and kept while the bone's world rotation ``R`` is unchanged (a root translation keeps
    every shape): landmark offsets ``R @ offset``, volume centre heights and vertical half
    extents, the lowest sole-box corner relative to the joint; on Python floats (the products of
    the array computation, summed in order: equal to its numbers within ~1e-16 m); positions add
    the joint afterwards."""

    __slots__ = ("prep", "bone", "R", "_rows", "_marks", "_volumes", "_sole")

    def __init__(self, prep: _Prepared, bone: str, R: np.ndarray):
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


class _Shapes(dict):
    """bone -> its :class:`_Shape`, made on first use from the bone's world rotation (most steps
    measure a few bones of a world); starts with the shapes a world carries over from the
    previous one (bones whose rotation did not change)."""

    __slots__ = ("_prep", "_rot")   # the prepared avatar; bone -> world rotation (read-only)

    def __missing__(self, bone: str) -> _Shape:
        v = self[bone] = _Shape(self._prep, bone, self._rot[bone])
        return v


class _BoneMap(dict):
    """A dict filled on first use, whose full set of bones is that of ``_keys`` (a mapping from
    bone, set by the maker): membership, iteration and length answer for every bone, made or not."""

    __slots__ = ("_keys",)

    def __contains__(self, bone: object) -> bool:
        return bone in self._keys

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class _Positions(_BoneMap):
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


class _Landmarks(Mapping):
    """Landmark name -> (3,) world position, each computed on first use (most solver steps read
    two or three of the avatar's landmarks); the values are those an eager computation gives
    (joint + R @ offset: the same sums, on the joint's floats and the bone's :class:`_Shape`)."""

    __slots__ = ("_spec", "_pos", "_shapes", "_done")

    def __init__(self, prep: _Prepared, pos: dict, shapes: dict):
        self._spec, self._pos, self._shapes, self._done = prep.landmark_index, pos, shapes, {}

    def __getitem__(self, name: str) -> np.ndarray:
        value = self._done.get(name)
        if value is None:
            value = self._done[name] = np.array(_mark_sum(self._pos, self._shapes, self._spec[name], name))
        return value

    def __iter__(self):
        return iter(self._spec)

    def __len__(self) -> int:
        return len(self._spec)

    def __contains__(self, name: object) -> bool:
        return name in self._spec


def landmark_xyz(w: World, name: str) -> tuple[float, float, float]:
    """A landmark's world position (m) as three Python floats, the same values as
    ``w.landmarks[name]`` without making an array (the solver's foot rules read single
    coordinates of the heel, toe and sole many times per keyframe)."""
    fk = w.fk_data
    if fk is not None:
        prep, pos, shapes = fk
        return _mark_sum(pos, shapes, prep.landmark_index[name], name)
    return tuple(w.landmarks[name].tolist())


def _mark_sum(pos, shapes, bone: str, name: str) -> tuple[float, float, float]:
    """Landmark ``name`` of ``bone``: joint + R @ offset on floats (``pos``: bone -> joint triple,
    ``shapes``: bone -> :class:`_Shape`)."""
    px, py, pz = pos[bone]
    ox, oy, oz = shapes[bone].mark(name)
    return (px + ox, py + oy, pz + oz)


def joint_xyz(w: World, bone: str) -> tuple[float, float, float]:
    """A joint's world position (m) as three Python floats, the values of ``w.pos[bone]``
    without making an array (the solver's IK steps read a few joints of each world)."""
    if w.fk_data is not None:
        return w.fk_data[1][bone]
    return tuple(w.pos[bone].tolist())


class _Joints(_BoneMap):
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


class _Plan:
    """What one :meth:`PoseFK.world` call recomputes after a given set of changes, in canonical
    order: world rotations (``rot``: bone, parent), the parent-frame steps ``R_parent @ offset``
    (``step``: bone, parent, offset) and the bones whose joint position moves (``moved``: a set;
    a root translation moves them all)."""

    __slots__ = ("rot", "step", "moved")

    def __init__(self, prep: _Prepared, av: Avatar, changed: frozenset, root_rot: bool, root_pos: bool):
        rot_dirty: set[str] = set()
        step_dirty: set[str] = set()
        pos_dirty: set[str] = set()
        for b, p in _PARENTS:
            if b in changed or (root_rot if p is None else p in rot_dirty):
                rot_dirty.add(b)
            if (root_rot if p is None else p in rot_dirty):
                step_dirty.add(b)
            if b in step_dirty or (root_pos if p is None else p in pos_dirty):
                pos_dirty.add(b)
        self.rot = tuple((b, p) for b, p in _PARENTS if b in rot_dirty)
        self.step = tuple((b, p, prep.off[b]) for b, p in _PARENTS if b in step_dirty)
        self.moved = frozenset(pos_dirty)


class PoseFK:
    """Forward kinematics of a pose that changes a little at a time (the keyframe solve's working
    pose: an IK step turns one joint, a grounding step moves the root).

    Holds the local 3×3 rotations (``local``: bone -> matrix, read-only arrays) and the root
    transform; :meth:`world` returns the same :class:`World` that :func:`forward_kinematics`
    gives for the current values — bit for bit: the same products in the same order — but
    recomputes only what changed since the previous call: the world rotations of the subtrees of
    changed joints and the parent-frame bone steps ``R_parent @ offset`` under them; joint
    positions (sums of the steps, on Python floats) are carried over where nothing moved them and
    summed when a step reads them (:class:`_Joints`: a root translation costs nothing until
    then). Each bone's rotation-dependent share of its landmarks and mesh extents
    (:class:`_Shape`) is kept while its world rotation is unchanged, so lowest points
    (:meth:`World.lowest_by_bone`) and landmarks after a root move are float sums. The tables a
    world was made from are never changed afterwards (a change copies them first), so a world
    handed out earlier keeps its values. Source of the recurrence: kinematics-reference §2.1
    (identity rest rotations, offsets in the parent frame)."""

    __slots__ = ("avatar", "local", "root_pos", "root_rot", "_prep", "_pos", "_rot", "_step",
                 "_shapes", "_changed", "_root_rot_changed", "_root_pos_changed", "_world", "_key", "_rigid")

    def __init__(self, avatar: Avatar, local: dict[str, np.ndarray], root_pos, root_rot,
                 key: bytes | None = None):
        """``key``: optional bytes that identify ``local`` exactly (e.g. the packed Euler angles
        they were made from): the first world then reuses the rotations of an earlier pose with
        the same key and root rotation (only the positions are summed again)."""
        self._key = None if key is None else (id(avatar), key, np.asarray(root_rot, dtype=float).tobytes())
        self.avatar = avatar
        self.local = dict(local)
        self.root_pos = np.asarray(root_pos, dtype=float)
        self.root_rot = np.asarray(root_rot, dtype=float)
        self._prep = _prepared(avatar)
        self._pos: dict[str, tuple[float, float, float]] = {}
        self._rot: dict[str, np.ndarray] = {}
        self._step: dict[str, list[float]] = {}
        self._shapes: dict[str, _Shape] = _Shapes()
        self._changed: set[str] = set()
        self._root_rot_changed = self._root_pos_changed = True
        self._world: World | None = None
        self._rigid: dict | None = None   # the last world's rigid_memo

    def set_local(self, bone: str, matrix: np.ndarray) -> None:
        """Set a bone's local rotation (3×3; not copied, must not be mutated afterwards)."""
        self._key = None
        self.local[bone] = matrix
        self._changed.add(bone)
        self._world = None

    def set_root(self, root_pos=None, root_rot=None) -> None:
        """Set the root position (3,) and/or rotation (3, 3) (metres; ``None`` keeps it)."""
        if root_pos is not None:
            self.root_pos = root_pos
            self._root_pos_changed = True
        if root_rot is not None:
            self._key = None
            self.root_rot = root_rot
            self._root_rot_changed = True
        self._world = None

    def world(self) -> World:
        """The posed :class:`World` (shared until the next change; treat it as read-only)."""
        w = self._world
        if w is not None:
            return w
        prep = self._prep
        state = None
        if self._key is not None:   # the first world of a pose seen before: its rotations again
            state = _STATES.get(self._key)
            if state is not None and state[3] is not self.avatar:   # an id reused after collection
                state = None
            if state is not None:
                self._rot, self._step, self._shapes, self._rigid = state[0], state[1], state[2], state[4]
                self._root_rot_changed = False
                first = state[5]
                if first and not self._changed and first[0].root_pos.tobytes() == self.root_pos.tobytes():
                    # the same rotations and root position: the same sums, so the same world (a
                    # phase back on the start pose, in every figure), with what was measured of it
                    w = self._world = first[0]
                    self._pos = w.fk_data[1]
                    self._key = None
                    self._root_pos_changed = False
                    return w
        rot, step, shapes = self._rot, self._step, self._shapes
        if self._changed or self._root_rot_changed:
            key = (frozenset(self._changed), self._root_rot_changed, self._root_pos_changed)
            plan = prep.plans.get(key)
            if plan is None:
                plan = prep.plans[key] = _Plan(prep, self.avatar, *key)
            moved = plan.moved
        else:   # a root translation (or the first world of a pose met before): joints only
            plan, moved = None, ()
        if plan is not None and plan.rot:
            # copies: the worlds handed out keep the tables they were made from
            local, root_rot = self.local, self.root_rot
            rot, step, shapes = self._rot, self._step, self._shapes = dict(rot), dict(step), _Shapes(shapes)
            shapes._prep, shapes._rot = prep, rot
            for b, p in plan.rot:
                L = local.get(b)
                if L is None:
                    L = _EYE
                rot[b] = (root_rot if p is None else rot[p]).dot(L)
                shapes.pop(b, None)
            for b, p, off in plan.step:
                step[b] = (root_rot if p is None else rot[p]).dot(off).tolist()
        pos = _Joints() if self._root_pos_changed else _Joints(self._pos)
        if not self._root_pos_changed:
            for b in moved:
                pos.pop(b, None)
        pos._root, pos._keys = self.root_pos.tolist(), step
        self._pos = pos
        stored = None   # the new state's list of its first world
        if self._key is not None:
            if state is None:
                stored = []
                if len(_STATES) >= 256:
                    _STATES.pop(next(iter(_STATES)))
                self._rigid = {}
                _STATES[self._key] = (rot, step, shapes, self.avatar, self._rigid, stored)
            self._key = None
        self._changed.clear()
        self._root_rot_changed = self._root_pos_changed = False
        positions = _Positions()
        positions._keys = pos
        w = World(self.avatar, positions, rot, _Landmarks(prep, pos, shapes), self.root_pos, self.root_rot)
        w.fk_data = (prep, pos, shapes)
        if self._rigid is not None and (plan is None or stored is not None):
            # a root translation, or a pose met before (or kept for later): the same shape
            w.rigid_memo = self._rigid
        else:
            self._rigid = w.rigid_memo
        if stored is not None:
            stored.append(w)
        self._world = w
        return w
