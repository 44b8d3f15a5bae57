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
    "cross3", "norm3", "turned_euler", "vsub", "vadd", "vscale", "vdot", "vcross", "vnorm",
    "quat_matrices", "euler_xyz", "rotation_vectors",
]


def cross3(a, b) -> np.ndarray:
    """Cross product a × b of two 3-vectors, (3,) array. The products and differences of
    ``numpy.cross`` in the same order (the same bits) without its axis handling, which costs
    ten times the arithmetic on 3-vectors (:func:`vcross` as an array)."""
    return np.array(vcross(a, b))


def norm3(v: np.ndarray) -> float:
    """Euclidean length of a 1-D float array: √(v·v), what ``numpy.linalg.norm`` computes for a
    vector (the same dot product, the same correctly rounded square root), as a Python float."""
    return math.sqrt(v.dot(v))


# Python-float 3-vectors (tuples): the solver's IK steps work on a handful of joint positions at
# a time, where a numpy call costs several times the arithmetic it does


def vsub(a, b) -> tuple[float, float, float]:
    """a − b of two float triples."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def vadd(a, b) -> tuple[float, float, float]:
    """a + b of two float triples."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def vscale(a, k: float) -> tuple[float, float, float]:
    """k · a of a float triple."""
    return (a[0] * k, a[1] * k, a[2] * k)


def vdot(a, b) -> float:
    """a · b of two float triples."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def vcross(a, b) -> tuple[float, float, float]:
    """a × b of two float triples (the products of :func:`cross3`)."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)


def vnorm(a) -> float:
    """|a| of a float triple."""
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


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
    """Rotation matrix Rx(x) · Ry(y) · Rz(z) of an XYZ Euler triple in degrees, multiplied out
    on Python floats (one array made instead of three and two products)."""
    return np.array(_euler_rows(*euler_deg))


def _euler_rows(x: float, y: float, z: float) -> tuple:
    """The rows of Rx(x) · Ry(y) · Rz(z) (degrees) as float triples: Rx·Ry = [[cy, 0, sy],
    [sx sy, cx, −sx cy], [−cx sy, sx, cx cy]], times Rz = [[cz, −sz, 0], [sz, cz, 0], [0, 0, 1]]."""
    a, b, c = math.radians(x), math.radians(y), math.radians(z)
    ca, sa, cb, sb, cc, sc = math.cos(a), math.sin(a), math.cos(b), math.sin(b), math.cos(c), math.sin(c)
    sasb, casb = sa * sb, ca * sb
    return ((cb * cc, -cb * sc, sb),
            (sasb * cc + ca * sc, ca * cc - sasb * sc, -sa * cb),
            (sa * sc - casb * cc, casb * sc + sa * cc, ca * cb))


def matrix_to_euler(m: np.ndarray) -> np.ndarray:
    """Inverse of :func:`euler_to_matrix`: the XYZ Euler triple (degrees) with y in [−90, 90].

    From R = Rx(a)·Ry(b)·Rz(c): R[0,2] = sin b, R[1,2] = −sin a cos b, R[2,2] = cos a cos b,
    R[0,1] = −cos b sin c, R[0,0] = cos b cos c. Near gimbal lock (|sin b| ≈ 1) c is set to 0.
    """
    return np.array(_euler_of_rows(m.tolist() if isinstance(m, np.ndarray) else m))


def _euler_of_rows(m) -> tuple[float, float, float]:
    """:func:`matrix_to_euler` of a matrix given as rows of Python floats."""
    sb = min(max(m[0][2], -1.0), 1.0)
    b = math.asin(sb)
    if abs(sb) < 0.9999999:
        a = math.atan2(-m[1][2], m[2][2])
        c = math.atan2(-m[0][1], m[0][0])
    else:
        a = math.atan2(m[2][1], m[1][1])
        c = 0.0
    # math.degrees multiplies by the same double 180/π as numpy.degrees
    return (math.degrees(a), math.degrees(b), math.degrees(c))


def turned_euler(local: np.ndarray, world_rot: np.ndarray, axis, angle: float) -> tuple[float, float, float]:
    """The local Euler angles (degrees) of a joint turned by ``angle`` radians about the unit
    world ``axis`` (3,), its local rotation ``local`` and world rotation ``world_rot`` (3 × 3)
    given: the new local rotation is Pᵀ · R(axis, angle) · P · L with P = ``world_rot`` · Lᵀ the
    parent's world rotation, which is R(Pᵀ·axis, angle) · L (a rotation seen from the parent's
    frame turns about the axis seen from there). On Python floats: one axis brought into the
    parent frame, one Rodrigues matrix, one product. The IK and collision steps (CCD, aim,
    swivel, self-collision push) turn joints this way."""
    (l00, l01, l02), (l10, l11, l12), (l20, l21, l22) = local.tolist()
    (w00, w01, w02), (w10, w11, w12), (w20, w21, w22) = world_rot.tolist()
    x, y, z = axis.tolist() if isinstance(axis, np.ndarray) else axis
    # q = world_rotᵀ · axis (the axis in the joint's own frame), then Pᵀ · axis = L · q
    q0, q1, q2 = w00 * x + w10 * y + w20 * z, w01 * x + w11 * y + w21 * z, w02 * x + w12 * y + w22 * z
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = _axis_angle_rows(
        l00 * q0 + l01 * q1 + l02 * q2, l10 * q0 + l11 * q1 + l12 * q2, l20 * q0 + l21 * q1 + l22 * q2, angle)
    # R(Pᵀ·axis, angle) · L, the entries the Euler extraction reads
    m = ((r00 * l00 + r01 * l10 + r02 * l20, r00 * l01 + r01 * l11 + r02 * l21, r00 * l02 + r01 * l12 + r02 * l22),
         (None, r10 * l01 + r11 * l11 + r12 * l21, r10 * l02 + r11 * l12 + r12 * l22),
         (None, r20 * l01 + r21 * l11 + r22 * l21, r20 * l02 + r21 * l12 + r22 * l22))
    return _euler_of_rows(m)


def axis_angle_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix about unit ``axis`` by ``angle`` radians (Rodrigues' formula)."""
    x, y, z = axis.tolist() if isinstance(axis, np.ndarray) else axis   # Python floats: same bits, faster
    return np.array(_axis_angle_rows(x, y, z, angle))


def _axis_angle_rows(x: float, y: float, z: float, angle: float) -> tuple:
    """The rows of :func:`axis_angle_matrix` as float triples."""
    c, s = math.cos(angle), math.sin(angle)
    t = 1 - c
    return (
        (t * x * x + c, t * x * y - s * z, t * x * z + s * y),
        (t * x * y + s * z, t * y * y + c, t * y * z - s * x),
        (t * x * z - s * y, t * y * z + s * x, t * z * z + c),
    )


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


# Vectorised forms over (..., 4) arrays of quaternions: the eval metrics measure every bone of
# every sample of a loop at once


def quat_matrices(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices of (..., 4) quaternions ``[x, y, z, w]``, renormalised first
    (the elements of :func:`quat_to_matrix`)."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def euler_xyz(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both intrinsic-XYZ Euler decompositions (degrees, (..., 3) each) of (..., 4) quaternions:
    R = Rx(a)·Ry(b)·Rz(c) gives b = asin R₀₂, a = atan2(−R₁₂, R₂₂), c = atan2(−R₀₁, R₀₀)
    (:func:`matrix_to_euler` without its gimbal-lock branch; docs/motion-json.md conventions);
    the second is (a + 180°, 180° − b, c + 180°), wrapped to [−180°, 180°). A rotation lies in
    an Euler box when either triple does."""
    m = quat_matrices(q)
    b = np.degrees(np.arcsin(np.clip(m[..., 0, 2], -1.0, 1.0)))
    a = np.degrees(np.arctan2(-m[..., 1, 2], m[..., 2, 2]))
    c = np.degrees(np.arctan2(-m[..., 0, 1], m[..., 0, 0]))
    first = np.stack([a, b, c], axis=-1)

    def wrap(v):
        return (v + 180.0) % 360.0 - 180.0

    second = np.stack([wrap(a + 180.0), wrap(180.0 - b), wrap(c + 180.0)], axis=-1)
    return first, second


def rotation_vectors(qa: np.ndarray, qb: np.ndarray) -> np.ndarray:
    """(..., 3) rotation vectors (radians) of conj(a)·b for (..., 4) unit quaternions: the
    rotation from a to b in a's frame (the Hamilton product of :func:`quat_mul`, taken in the
    hemisphere w ≥ 0, then axis × angle)."""
    ax, ay, az, aw = -qa[..., 0], -qa[..., 1], -qa[..., 2], qa[..., 3]
    bx, by, bz, bw = qb[..., 0], qb[..., 1], qb[..., 2], qb[..., 3]
    x = aw * bx + ax * bw + ay * bz - az * by
    y = aw * by - ax * bz + ay * bw + az * bx
    z = aw * bz + ax * by - ay * bx + az * bw
    w = aw * bw - ax * bx - ay * by - az * bz
    sgn = np.where(w < 0, -1.0, 1.0)
    x, y, z, w = x * sgn, y * sgn, z * sgn, w * sgn
    s = np.sqrt(x * x + y * y + z * z)
    f = np.where(s < 1e-12, 2.0, 2.0 * np.arctan2(s, w) / np.maximum(s, 1e-300))
    return np.stack([x * f, y * f, z * f], axis=-1)
