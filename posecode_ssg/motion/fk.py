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
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from posecode_ssg.language.vocabulary import BONES

from .fkprep import (
    _STATES,
    ALL_INF,
    ANKLE_BONES,
    EYE,
    PACK_POSE,
    PARENTS_ORDER,
    Joints,
    Landmarks,
    Positions,
    Prepared,
    Shape,
    Shapes,
    local_matrix,
    mark_sum,
    prepared,
)
from .rig import PARENT, Avatar


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
    #: triple, bone -> its :class:`Shape`), for the float-only lowest-point measurement
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
        low: dict[str, float] = ALL_INF.copy()
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
                if prep.volumes_of[owner] or owner in ANKLE_BONES:
                    y = pos_t[owner][1]
                    shape = shapes[owner]
                    for cy, extent in shape.volumes():
                        v = (y + cy) - extent
                        if v < low:
                            low = v
                    if owner in ANKLE_BONES:
                        v = shape.sole_low() + y
                        if v < low:
                            low = v
                cache[owner] = low
            return
        prep = prepared(self.avatar)
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
            if owner in ANKLE_BONES:
                corners = prep.sole_box.dot(rot[owner].T) + pos[owner]
                low = min(low, float(corners[:, 1].min()))
            cache[owner] = low

    def lowest(self, bones=None) -> float:
        """Lowest mesh y (m) over ``bones`` (default: the whole figure). A world made by forward
        kinematics measures, of the bones not measured yet, only those whose mesh could reach
        below the lowest point found so far: in order of a lower bound (the lowest of the
        bone's joints minus how far its mesh reaches below them, ``Prepared.low_bound``), until
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
        bone = f"ankle_{side}"
        return _sole_bottom(self.avatar) @ self.rot[bone].T + self.pos[bone]


_SOLE_BOTTOM: dict[int, tuple[Avatar, np.ndarray]] = {}


def _sole_bottom(av: Avatar) -> np.ndarray:
    """(4, 3) the sole box's bottom corners in the ankle's frame (m), of avatar ``av`` (cached):
    :meth:`World.sole_corners`' order."""
    hit = _SOLE_BOTTOM.get(id(av))
    if hit is None or hit[0] is not av:
        bottom = np.array([[sx, -0.5, sz] for sx in (-0.5, 0.5) for sz in (-0.5, 0.5)])
        hit = _SOLE_BOTTOM[id(av)] = (av, np.asarray(av.sole_center) + bottom * np.asarray(av.sole_size))
    return hit[1]


def lowest_by_bone_of_arrays(avatar: Avatar, pos: Mapping[str, np.ndarray], rot_y: Mapping[str, np.ndarray],
                             landmarks: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """:meth:`World.lowest_by_bone` over many poses at once, by the same primitives and owners:
    ``pos`` bone -> (N, 3) joint positions, ``rot_y`` bone -> (N, 3) row y of its world rotation
    (``R[1]``: the only row a height reads), ``landmarks`` name -> (N, 3); returns bone -> (N,)
    lowest mesh y (m; ``inf`` for a bone with no mesh). Per pose equal to ``World.lowest_by_bone``
    of a world holding the same positions, rotations and landmarks (tests/evaluate/test_floor.py):
    capsule ends (joint or landmark y − its end radius), ellipsoid volumes (centre y − \\|R[1] ·
    diag(r · scale)\\|) and the sole box's lowest corner, each attributed to the bone that carries it."""
    prep = prepared(avatar)
    n = len(next(iter(pos.values())))
    out: dict[str, np.ndarray] = {}
    for owner in BONES:
        low = np.full(n, np.inf)
        for a, b, is_mark, r0, r1 in prep.segments_of[owner]:
            low = np.minimum(low, pos[a][:, 1] - r0)
            low = np.minimum(low, (landmarks if is_mark else pos)[b][:, 1] - r1)
        if prep.volumes_of[owner] or owner in ANKLE_BONES:
            R1, y = rot_y[owner], pos[owner][:, 1]
            for off, rscale in prep.volumes_of[owner]:
                low = np.minimum(low, y + R1 @ off - np.linalg.norm(R1 * rscale, axis=-1))
            if owner in ANKLE_BONES:
                low = np.minimum(low, y + (R1 @ prep.sole_box.T).min(axis=-1))
        out[owner] = low
    return out


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
                L = local_matrix(e)
                angles += e
            else:
                L = EYE
                angles += (0.0, 0.0, 0.0)
        mats[b] = L
    key = None if local else b"fk" + PACK_POSE(*angles)
    return PoseFK(avatar, mats, root_pos, root_rot, key).world()


def landmark_xyz(w: World, name: str) -> tuple[float, float, float]:
    """A landmark's world position (m) as three Python floats, the same values as
    ``w.landmarks[name]`` without making an array (the solver's foot rules read single
    coordinates of the heel, toe and sole many times per keyframe)."""
    fk = w.fk_data
    if fk is not None:
        prep, pos, shapes = fk
        return mark_sum(pos, shapes, prep.landmark_index[name], name)
    return tuple(w.landmarks[name].tolist())


def joint_xyz(w: World, bone: str) -> tuple[float, float, float]:
    """A joint's world position (m) as three Python floats, the values of ``w.pos[bone]``
    without making an array (the solver's IK steps read a few joints of each world)."""
    if w.fk_data is not None:
        return w.fk_data[1][bone]
    return tuple(w.pos[bone].tolist())


class _Plan:
    """What one :meth:`PoseFK.world` call recomputes after a given set of changes, in canonical
    order: world rotations (``rot``: bone, parent), the parent-frame steps ``R_parent @ offset``
    (``step``: bone, parent, offset) and the bones whose joint position moves (``moved``: a set;
    a root translation moves them all)."""

    __slots__ = ("rot", "step", "moved")

    def __init__(self, prep: Prepared, av: Avatar, changed: frozenset, root_rot: bool, root_pos: bool):
        rot_dirty: set[str] = set()
        step_dirty: set[str] = set()
        pos_dirty: set[str] = set()
        for b, p in PARENTS_ORDER:
            if b in changed or (root_rot if p is None else p in rot_dirty):
                rot_dirty.add(b)
            if (root_rot if p is None else p in rot_dirty):
                step_dirty.add(b)
            if b in step_dirty or (root_pos if p is None else p in pos_dirty):
                pos_dirty.add(b)
        self.rot = tuple((b, p) for b, p in PARENTS_ORDER if b in rot_dirty)
        self.step = tuple((b, p, prep.off[b]) for b, p in PARENTS_ORDER if b in step_dirty)
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
    summed when a step reads them (:class:`Joints`: a root translation costs nothing until
    then). Each bone's rotation-dependent share of its landmarks and mesh extents
    (:class:`Shape`) is kept while its world rotation is unchanged, so lowest points
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
        self._prep = prepared(avatar)
        self._pos: dict[str, tuple[float, float, float]] = {}
        self._rot: dict[str, np.ndarray] = {}
        self._step: dict[str, list[float]] = {}
        self._shapes: dict[str, Shape] = Shapes()
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
            rot, step, shapes = self._rot, self._step, self._shapes = dict(rot), dict(step), Shapes(shapes)
            shapes._prep, shapes._rot = prep, rot
            for b, p in plan.rot:
                L = local.get(b)
                if L is None:
                    L = EYE
                rot[b] = (root_rot if p is None else rot[p]).dot(L)
                shapes.pop(b, None)
            for b, p, off in plan.step:
                step[b] = (root_rot if p is None else rot[p]).dot(off).tolist()
        pos = Joints() if self._root_pos_changed else Joints(self._pos)
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
        positions = Positions()
        positions._keys = pos
        w = World(self.avatar, positions, rot, Landmarks(prep, pos, shapes), self.root_pos, self.root_rot)
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
