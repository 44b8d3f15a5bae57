"""Rotations: intrinsic X-Y-Z Euler angles, quaternions and rotation matrices (numpy).

Conventions (kinematics-reference §3.2, the same as three.js ``Euler`` order ``"XYZ"``):

- A local Euler triple (x, y, z) in degrees means the rotation R = Rx(x) · Ry(y) · Rz(z), i.e. the
  quaternion q = qX · qY · qZ: Z is applied first in the bone frame, then Y, then X.
- Quaternions are ``[x, y, z, w]`` (vector part first), Hamilton product.

Formulas: the half-angle axis quaternions and the Hamilton product (Shoemake, "Animating rotation
with quaternion curves", SIGGRAPH 1985); the XYZ Euler extraction from a rotation matrix follows
from expanding Rx·Ry·Rz (its element [0, 2] is sin y).
"""

from __future__ import annotations

import math
import struct

import numpy as np

__all__ = [
    "euler_to_quat", "quat_mul", "quat_to_matrix", "euler_to_matrix", "matrix_to_euler",
    "align_hemisphere", "slerp", "rot_x", "rot_y", "rot_z", "axis_angle_matrix", "round_quat",
    "cross3", "norm3",
]


def cross3(a, b) -> np.ndarray:
    """Cross product a × b of two 3-vectors, (3,) array. The products and differences of
    ``numpy.cross`` in the same order (the same bits) without its axis handling, which costs
    ten times the arithmetic on 3-vectors."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0))


def norm3(v: np.ndarray) -> float:
    """Euclidean length of a 1-D float array: √(v·v), what ``numpy.linalg.norm`` computes for a
    vector (the same dot product, the same correctly rounded square root), as a Python float."""
    return math.sqrt(v.dot(v))


def _axis_quat(axis: int, deg: float) -> np.ndarray:
    h = math.radians(deg) / 2.0
    q = np.zeros(4)
    q[axis] = math.sin(h)
    q[3] = math.cos(h)
    return q


def _hamilton(a, b) -> tuple:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a·b of two ``[x, y, z, w]`` quaternions (apply b first, then a)."""
    return np.array(_hamilton(a, b))


def euler_to_quat(euler_deg) -> np.ndarray:
    """Quaternion ``[x, y, z, w]`` of the intrinsic XYZ Euler triple ``(x, y, z)`` in degrees:
    q = qX(x) · qY(y) · qZ(z) (kinematics-reference §3.2).

    Computed on Python floats (the same IEEE double operations, in the same order, as
    ``quat_mul`` of the three axis quaternions: identical results, without the array overhead).
    Remembered by the exact bits of the angles (a compile converts every bone of every keyframe,
    most of them unchanged); each call returns a fresh array."""
    key = _PACK3(*euler_deg)
    q = _QUATS.get(key)
    if q is None:
        if len(_QUATS) >= 4096:
            _QUATS.clear()
        q = _QUATS[key] = _euler_to_quat(euler_deg)
    return q.copy()


_QUATS: dict[bytes, np.ndarray] = {}
_PACK3 = struct.Struct("<3d").pack


def _euler_to_quat(euler_deg) -> np.ndarray:
    x, y, z = euler_deg
    hx, hy, hz = math.radians(x) / 2.0, math.radians(y) / 2.0, math.radians(z) / 2.0
    qx = (math.sin(hx), 0.0, 0.0, math.cos(hx))
    qy = (0.0, math.sin(hy), 0.0, math.cos(hy))
    qz = (0.0, 0.0, math.sin(hz), math.cos(hz))
    return np.array(_hamilton(_hamilton(qx, qy), qz))


def quat_to_matrix(q) -> np.ndarray:
    """3×3 rotation matrix of a unit quaternion ``[x, y, z, w]``."""
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def rot_x(deg: float) -> np.ndarray:
    """Rotation matrix about X by ``deg`` degrees (right-handed)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(deg: float) -> np.ndarray:
    """Rotation matrix about Y by ``deg`` degrees (right-handed; +90 turns +Z toward +X)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def rot_z(deg: float) -> np.ndarray:
    """Rotation matrix about Z by ``deg`` degrees (right-handed)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def euler_to_matrix(euler_deg) -> np.ndarray:
    """Rotation matrix Rx(x) · Ry(y) · Rz(z) of an XYZ Euler triple in degrees."""
    x, y, z = euler_deg
    return rot_x(x).dot(rot_y(y)).dot(rot_z(z))   # ndarray.dot: the bits of @, less overhead


def matrix_to_euler(m: np.ndarray) -> np.ndarray:
    """Inverse of :func:`euler_to_matrix`: the XYZ Euler triple (degrees) with y in [−90, 90].

    From R = Rx(a)·Ry(b)·Rz(c): R[0,2] = sin b, R[1,2] = −sin a cos b, R[2,2] = cos a cos b,
    R[0,1] = −cos b sin c, R[0,0] = cos b cos c. Near gimbal lock (|sin b| ≈ 1) c is set to 0.
    """
    sb = min(max(float(m[0, 2]), -1.0), 1.0)
    b = math.asin(sb)
    if abs(sb) < 0.9999999:
        a = math.atan2(-m[1, 2], m[2, 2])
        c = math.atan2(-m[0, 1], m[0, 0])
    else:
        a = math.atan2(m[2, 1], m[1, 1])
        c = 0.0
    # math.degrees multiplies by the same double 180/π as numpy.degrees (same bits, less overhead)
    return np.array((math.degrees(a), math.degrees(b), math.degrees(c)))


def axis_angle_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix about unit ``axis`` by ``angle`` radians (Rodrigues' formula)."""
    x, y, z = axis.tolist() if isinstance(axis, np.ndarray) else axis   # Python floats: same bits, faster
    c, s = math.cos(angle), math.sin(angle)
    t = 1 - c
    return np.array((
        (t * x * x + c, t * x * y - s * z, t * x * z + s * y),
        (t * x * y + s * z, t * y * y + c, t * y * z - s * x),
        (t * x * z - s * y, t * y * z + s * x, t * z * z + c),
    ))


def align_hemisphere(q: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Return ``q`` or ``−q`` (the same rotation), whichever has a non-negative dot product with
    ``reference``, so interpolating from ``reference`` takes the short way."""
    return -q if float(np.dot(q, reference)) < 0.0 else q


def slerp(a: np.ndarray, b: np.ndarray, t: float) -> np.ndarray:
    """Spherical linear interpolation from ``a`` (t = 0) to ``b`` (t = 1), short way round."""
    b = align_hemisphere(b, a)
    d = float(np.clip(np.dot(a, b), -1.0, 1.0))
    if d > 0.9995:
        q = a + t * (b - a)
        return q / np.linalg.norm(q)
    th = math.acos(d)
    return (math.sin((1 - t) * th) * a + math.sin(t * th) * b) / math.sin(th)


def round_quat(q: np.ndarray, digits: int = 4) -> list[float | int]:
    """``q`` as a JSON list rounded to ``digits`` decimals, ``-0`` written as ``0`` and integral
    values as ints (``1`` instead of ``1.0``) to keep the motion JSON small. Remembered by the
    exact bits of a float array (a motion JSON rounds every bone of every keyframe, most of them
    at rest or unchanged); each call returns a new list."""
    key = q.tobytes() if isinstance(q, np.ndarray) and q.dtype == np.float64 and q.ndim == 1 else None
    if key is not None:
        hit = _ROUNDED.get((key, digits))
        if hit is not None:
            return list(hit)
    out: list[float | int] = []
    for v in (q.tolist() if isinstance(q, np.ndarray) else map(float, q)):   # Python floats: the same values
        v = round(v, digits)
        if v == 0:
            out.append(0)
        elif v.is_integer():
            out.append(int(v))
        else:
            out.append(v)
    if key is not None:
        if len(_ROUNDED) >= 4096:
            _ROUNDED.clear()
        _ROUNDED[(key, digits)] = tuple(out)
    return out


_ROUNDED: dict[tuple[bytes, int], tuple] = {}
