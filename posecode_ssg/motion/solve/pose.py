"""The working pose of the keyframe solve: Euler angles, local matrices and the root transform
with incremental forward kinematics, and the ROM-box clamp every joint write goes through
(runtime twin: the skeleton of ``runtime/skeleton.js`` with ``ccd.js`` ``setJoint``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from posecode_ssg.language.rom import rom_box as _rom_box_uncached
from posecode_ssg.language.vocabulary import BONES

from ..fk import PoseFK, World
from ..fkprep import euler_key, local_matrix, same_angles
from ..rig import Avatar
from ..rotation import axis_angle_matrix, rot_y

rom_box = _rom_box_cached = lru_cache(maxsize=None)(_rom_box_uncached)   # a fixed table; callers only read it


#: full poses (packed angles, :func:`~posecode_ssg.motion.fk.euler_key`) -> (bone -> float angles,
#: bone -> local matrix), read-only: :class:`Pose` copies the first, PoseFK the second
_POSES: dict[bytes, tuple[dict, dict]] = {}


class Pose:
    """Mutable working pose: Euler angles (bone -> degrees), local rotation matrices and the root
    transform, with incremental forward kinematics (:class:`~posecode_ssg.motion.fk.PoseFK`: a
    change recomputes only the subtree it moves)."""

    def __init__(self, av: Avatar, euler, root_pos, root_rot):
        self.av = av
        # a full pose met before (each phase pose in both passes; the key packs the angles as
        # floats, so it is the key of the converted angles too): its angles and matrices again
        key = euler_key(euler) if len(euler) == len(BONES) else None
        hit = None if key is None else _POSES.get(key)
        if hit is None:
            angles = {b: tuple(map(float, e)) for b, e in euler.items()}
            hit = (angles, {b: local_matrix(e) for b, e in angles.items()})
            if key is not None:
                if len(_POSES) >= 256:
                    _POSES.clear()
                _POSES[key] = hit
        self.euler = dict(hit[0])
        self._fk = PoseFK(av, hit[1], np.asarray(root_pos, float).copy(), np.asarray(root_rot, float).copy(),
                          key=key if key is not None else euler_key(self.euler))
        self.local = self._fk.local
        self.world = self._fk.world   # the method below, without a wrapper call
        self.world = self._fk.world   # the method below, without a wrapper call

    @property
    def root_pos(self) -> np.ndarray:
        return self._fk.root_pos

    @property
    def root_rot(self) -> np.ndarray:
        return self._fk.root_rot

    def world(self) -> World:
        return self._fk.world()

    def move(self, delta) -> None:
        """Move the root by ``delta`` (m, (3,)); a move under :data:`MOVE_SKIP` on every axis (a
        drop or clamp onto a floor the figure is already on) is skipped: the world and what was
        measured of it stand (numpy-only; the result moves by at most as much)."""
        dx, dy, dz = (float(v) for v in delta)
        if abs(dx) < MOVE_SKIP and abs(dy) < MOVE_SKIP and abs(dz) < MOVE_SKIP:
            return
        self._fk.set_root(root_pos=self._fk.root_pos + np.array((dx, dy, dz)))

    def set_euler(self, bone: str, e) -> None:
        e = tuple(map(float, e))
        old = self.euler.get(bone)
        if old is not None and same_angles(e, old):
            return   # the angles it has, bit for bit (~45 % of the solver's sets): the world stands
        self.euler[bone] = e
        self._fk.set_local(bone, local_matrix(e))

    def place_root(self, root_pos: np.ndarray, root_rot: np.ndarray) -> None:
        """Put the root at ``root_pos`` (m, (3,)) with rotation ``root_rot`` (3, 3) (copied)."""
        self._fk.set_root(root_pos=np.asarray(root_pos, float).copy(), root_rot=np.asarray(root_rot, float).copy())

    def rotate_root_about(self, axis: np.ndarray, angle: float, pivot: np.ndarray) -> None:
        R = axis_angle_matrix(axis, angle)
        self._fk.set_root(root_pos=pivot + R.dot(self._fk.root_pos - pivot), root_rot=R.dot(self._fk.root_rot))


#: root moves (m, on every axis) below which :meth:`Pose.move` does nothing
MOVE_SKIP = 1e-12


def clamp_box(bone: str, e, widen=None) -> tuple[float, float, float]:
    """``e`` (x, y, z degrees) clamped into the bone's ROM box, widened to ``widen`` (the incoming
    angles) when given."""
    out = []
    for i, (lo, hi) in enumerate(box_limits(bone)):
        if widen is not None:
            lo, hi = min(lo, widen[i]), max(hi, widen[i])
        out.append(min(max(float(e[i]), lo), hi))
    return tuple(out)


@lru_cache(maxsize=None)
def box_limits(bone: str) -> tuple[tuple[float, float], ...]:
    """The bone's ROM box as ((lo, hi) of x, of y, of z), degrees."""
    box = rom_box(bone)
    return tuple(box[ax] for ax in "xyz")


@lru_cache(maxsize=256)
def turn_matrix(deg: float) -> np.ndarray:
    """``rot_y(deg)``, read-only and remembered (a clip's phases share a few turn angles)."""
    m = rot_y(deg)
    m.setflags(write=False)
    return m
