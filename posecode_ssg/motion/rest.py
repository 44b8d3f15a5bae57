"""Resting on the floor (issue 18): the centre of mass of a posed figure and the **rest** of a
lying, seated or kneeling body: the rigid turn of the whole figure about what touches the floor
that brings a second (and third) surface down, as gravity would, until the centre of mass lies
over the support.

Spec §6 drops the figure so its lowest point rests on the floor. A body held by that one point
alone (the seated heels of bent knees, the sitting bones of a fold whose legs rose) is not at
rest: it tips about that point until more of it is down. :func:`rest_transform` finds that tip;
the compiler writes it per keyframe (motion JSON ``rest``) for the phases the floor alone holds
(no ground-lock, pin or grip) on a lying or seated start pose, so the keyframe solve and the
runtime (which interpolates it like a joint and drops the figure every frame) show the same
resting pose. A standing body is never tipped.

Mesh: the same primitives as :meth:`posecode_ssg.motion.fk.World.lowest` (capsule end spheres,
ellipsoid volumes, sole boxes), whose lowest points are exact under a rigid turn.
"""

from __future__ import annotations

import math

import numpy as np

from .fk import World
from .fkprep import prepared
from .rig import SEGMENT_MASSES
from .rotation import axis_angle_matrix

#: a mesh point this close (m) to the lowest one bears on the floor with it: the give of the
#: soft tissue between a rigid capsule and the floor (a lying back, chest or thigh sinks ~1 cm)
REST_BAND_M = 0.010
#: a tip ends when a new surface comes this close (m) to the floor
TOUCH_M = 0.001
#: touching points closer than this (m, horizontally) are one contact
SAME_CONTACT_M = 0.03
#: the centre of mass is over the support when within this (m) of its hull
OVER_SUPPORT_M = 0.01
#: the search step (radians) of a tip and its bisections
_STEP = math.radians(1.0)
_MAX_TIP = math.radians(60.0)
_BISECT = 10


def centre_of_mass(w: World) -> np.ndarray:
    """(3,) whole-body centre of mass (m) of a posed figure: the mass-weighted centres of the
    segments of :data:`posecode_ssg.motion.rig.SEGMENT_MASSES` (Winter 2009, Table 4.1: each
    segment's share of body mass and its centre's place from the proximal end). Points named by a
    pair (``hip_left+hip_right``) are the midpoint of the two. Summed as one weight per named
    point (:data:`_COM_WEIGHTS`), the same sum regrouped. Kept relative to the root in the
    world's ``rigid_memo`` (the weights sum to 1, so a translation of the root moves the centre of
    mass by as much): the weight shift, the sit-back and the balance check ask it of the same
    world, or of one only translated, again."""
    r = w.root_pos
    rel = w.rigid_memo.get("com")
    if rel is None:
        x = y = z = 0.0
        pos, marks = w.pos, w.landmarks
        for name, k in _COM_WEIGHTS:
            p = pos[name] if name in pos else marks[name]
            x += k * float(p[0])
            y += k * float(p[1])
            z += k * float(p[2])
        rel = w.rigid_memo["com"] = (x - float(r[0]), y - float(r[1]), z - float(r[2]))
    return np.array((rel[0] + float(r[0]), rel[1] + float(r[1]), rel[2] + float(r[2])))


def _com_weights() -> tuple[tuple[str, float], ...]:
    """Each point's share of :func:`centre_of_mass`: a segment (from, to, share m, centre f) gives
    m·(1 − f) to ``from`` and m·f to ``to``, a pair half of it to each; normalised to sum 1."""
    acc: dict[str, float] = {}
    total = sum(m for *_x, m, _f in SEGMENT_MASSES)
    for _name, prox, dist, mass, frac in SEGMENT_MASSES:
        for end, share in ((prox, mass * (1.0 - frac)), (dist, mass * frac)):
            parts = end.split("+")
            for part in parts:
                acc[part] = acc.get(part, 0.0) + share / len(parts) / total
    return tuple(acc.items())


_COM_WEIGHTS = _com_weights()


class _Mesh:
    """The lowest-point primitives of a world, turnable rigidly: sphere centres ``c`` (n, 3) with
    radii ``r`` (n,), ellipsoid centres ``e`` (m, 3) with axis matrices ``M`` (m, 3, 3) (columns:
    the semi-axes in world space), and the corners ``k`` (16, 3) of both sole boxes."""

    def __init__(self, w: World, skip: frozenset = frozenset()):
        av = w.avatar
        prep = prepared(av)
        c, r = [], []
        for (a, b, r0, r1), (*_x, owner, _r0, _r1) in zip(av.segments, prep.segments):
            if owner not in skip:
                c += [w.pos[a], w.point(b)]
                r += [r0, r1]
        self.c, self.r = np.array(c).reshape(-1, 3), np.array(r)
        e, M = [], []
        for _n, bone, rad, scale, off in av.volumes:
            if bone in skip:
                continue
            R = w.rot[bone]
            e.append(w.pos[bone] + R @ np.asarray(off))
            M.append(R * (rad * np.asarray(scale)))
        self.e, self.M = np.array(e).reshape(-1, 3), np.array(M).reshape(-1, 3, 3)
        self.k = np.vstack([prep.sole_box @ w.rot[f"ankle_{s}"].T + w.pos[f"ankle_{s}"]
                            for s in ("left", "right") if f"ankle_{s}" not in skip]).reshape(-1, 3)

    def turned(self, Q: np.ndarray, p: np.ndarray) -> _Mesh:
        """This mesh turned by rotation ``Q`` (3, 3) about point ``p`` (3,)."""
        out = object.__new__(_Mesh)
        out.c = (self.c - p) @ Q.T + p
        out.r = self.r
        out.e = (self.e - p) @ Q.T + p
        out.M = np.einsum("ij,njk->nik", Q, self.M)
        out.k = (self.k - p) @ Q.T + p
        return out

    def moved(self, d: np.ndarray) -> _Mesh:
        """This mesh translated by ``d`` (3,)."""
        out = self.turned(np.eye(3), np.zeros(3))
        out.c, out.e, out.k = out.c + d, out.e + d, out.k + d
        return out

    def bottoms(self) -> np.ndarray:
        """(P, 3) the lowest point of every primitive (a sphere's bottom, an ellipsoid's point of
        least y, every sole-box corner)."""
        s = self.c - np.outer(self.r, [0.0, 1.0, 0.0])
        g = self.M[:, 1, :]                       # (m, 3): row y of each axis matrix
        n = np.linalg.norm(g, axis=1)
        ell = self.e - np.einsum("nij,nj->ni", self.M, g / np.maximum(n, 1e-12)[:, None])
        return np.vstack([s, ell, self.k])


def floor_points(w: World, skip: frozenset | tuple = frozenset()) -> np.ndarray:
    """(P, 3) the lowest point of every mesh primitive of ``w`` (m): their least y is
    :meth:`World.lowest`; ``skip``: bones whose primitives are left out."""
    return _Mesh(w, frozenset(skip)).bottoms()


def feet_floor_points(w: World, band: float) -> np.ndarray:
    """(P, 2) the x, z of the lowest points of the feet's primitives (those :func:`floor_points`
    takes: the capsule ends the ankle bones carry, their ellipsoid volumes and the sole boxes'
    corners) within ``band`` (m) of the floor: the base a body on its feet alone stands on, as
    eval's support takes it.
    The feet's primitives only, straight from the world (a phase end's check: kinematic-balance)."""
    caps, vols, box = _feet_primitives(w.avatar)
    pos, rot, out = w.pos, w.rot, []
    # plain floats: a handful of points, for which numpy's per-call cost is most of the work
    for name, r in zip(caps[0], caps[1][:, 1].tolist()):
        x, y, z = (pos[name] if name in pos else w.point(name)).tolist()
        if y - r <= band:
            out.append((x, z))
    for bone, off, k in zip(vols[0], vols[1].tolist(), vols[2].tolist()):
        R = rot[bone].tolist()
        px, py, pz = pos[bone].tolist()
        c = [(px, py, pz)[i] + R[i][0] * off[0] + R[i][1] * off[1] + R[i][2] * off[2] for i in range(3)]
        g = [R[1][j] * k[j] for j in range(3)]                  # row y of M = R·diag(k)
        n = max(math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]), 1e-12)
        b = [c[i] - sum(R[i][j] * k[j] * g[j] for j in range(3)) / n for i in range(3)]
        if b[1] <= band:
            out.append((b[0], b[2]))
    for ankle in ("ankle_left", "ankle_right"):
        R = rot[ankle].tolist()
        px, py, pz = pos[ankle].tolist()
        for cx, cy, cz in box:
            if py + R[1][0] * cx + R[1][1] * cy + R[1][2] * cz <= band:
                out.append((px + R[0][0] * cx + R[0][1] * cy + R[0][2] * cz, pz + R[2][0] * cx + R[2][1] * cy + R[2][2] * cz))
    return np.array(out).reshape(-1, 2)


def _feet_primitives(av) -> tuple[tuple, tuple, list]:
    """Of avatar ``av`` (cached): the feet's capsule ends (the names of their centres, (E, 3) the
    radius straight down), their ellipsoid volumes (bones, (m, 3) offsets, (m, 3) semi-axes) and
    the sole box's 8 corners in the ankle's frame."""
    hit = _FEET.get(id(av))
    if hit is None or hit[0] is not av:
        prep = prepared(av)
        feet = ("ankle_left", "ankle_right")
        names, drop = [], []
        for (a, b, r0, r1), (*_x, owner, _r0, _r1) in zip(av.segments, prep.segments):
            if owner in feet:
                names += [a, b]
                drop += [(0.0, r0, 0.0), (0.0, r1, 0.0)]
        vols = [(bone, off, rad * np.asarray(scale, float)) for _n, bone, rad, scale, off in av.volumes if bone in feet]
        caps = (tuple(names), np.array(drop).reshape(-1, 3))
        vols_t = (tuple(v[0] for v in vols), np.array([v[1] for v in vols], float).reshape(-1, 3),
                  np.array([v[2] for v in vols], float).reshape(-1, 3))
        hit = (av, (caps, vols_t, [tuple(c) for c in np.asarray(prep.sole_box, float).tolist()]))
        _FEET[id(av)] = hit
    return hit[1]


_FEET: dict = {}


def _contacts(pts: np.ndarray) -> np.ndarray:
    """(k, 2) horizontal (x, z) places of the points within REST_BAND_M of the lowest one,
    merged within SAME_CONTACT_M."""
    low = pts[:, 1].min()
    touch = pts[pts[:, 1] <= low + REST_BAND_M][:, [0, 2]]
    out: list[np.ndarray] = []
    for p in touch:
        if all(np.hypot(*(p - q)) > SAME_CONTACT_M for q in out):
            out.append(p)
    return np.array(out)


def _hull(pts: np.ndarray) -> np.ndarray:
    """Convex hull (counter-clockwise, Andrew's monotone chain) of (k, 2) points."""
    P = sorted(map(tuple, pts))
    if len(P) <= 2:
        return np.array(P)

    def half(seq):
        h: list = []
        for p in seq:
            while len(h) >= 2 and ((h[-1][0] - h[-2][0]) * (p[1] - h[-2][1])
                                   - (h[-1][1] - h[-2][1]) * (p[0] - h[-2][0])) <= 0:
                h.pop()
            h.append(p)
        return h
    lower, upper = half(P), half(reversed(P))
    return np.array(lower[:-1] + upper[:-1])


def _pivot(hull: np.ndarray, c: np.ndarray, over: float = OVER_SUPPORT_M) -> tuple[np.ndarray, np.ndarray] | None:
    """The pivot the body tips about with its centre of mass at ``c`` (x, z) over support
    ``hull``: None when ``c`` is over it (within ``over``, m); else ``(point, axis)``, the
    nearest feature of the hull: a point (the axis horizontal, across the line to ``c``) or an
    edge (the axis along it). Both (x, z)."""
    best = None
    n = len(hull)
    for i in range(n):
        a, b = hull[i], hull[(i + 1) % n] if n > 1 else hull[i]
        ab = b - a
        L2 = float(ab @ ab)
        u = 0.0 if L2 < 1e-12 else min(1.0, max(0.0, float((c - a) @ ab) / L2))
        q = a + u * ab
        d = float(np.hypot(*(c - q)))
        if best is None or d < best[0]:
            edge = L2 >= 1e-12 and 0.0 < u < 1.0
            best = (d, q, ab / math.sqrt(L2) if edge else None)
    d, q, along = best
    if n >= 3:
        inside = all(((hull[(i + 1) % n][0] - hull[i][0]) * (c[1] - hull[i][1])
                      - (hull[(i + 1) % n][1] - hull[i][1]) * (c[0] - hull[i][0])) >= 0 for i in range(n))
        if inside:
            return None
    if d <= over:
        return None
    if along is None:
        toward = (c - q) / d
        along = np.array([-toward[1], toward[0]])
    return q, along


def support_gap(w: World) -> float:
    """How far (m) the horizontal projection of ``w``'s centre of mass lies outside its support:
    the convex hull of the mesh points within REST_BAND_M of its lowest (0 over it)."""
    c = centre_of_mass(w)[[0, 2]]
    piv = _pivot(_hull(_contacts(floor_points(w))), c, 0.0)
    return 0.0 if piv is None else float(np.hypot(*(c - piv[0])))


def _tip(mesh: _Mesh, com: np.ndarray, p: np.ndarray, axis: np.ndarray, old: np.ndarray, theta: float):
    """The figure tipped by ``theta`` (radians) about ``axis`` through ``p``: ``(Q, mesh, lowest y,
    centre of mass, done)``; done when a surface away from the support ``old`` (k, 2) touches or
    the centre of mass has crossed the pivot's vertical plane (balanced over it)."""
    Q = axis_angle_matrix(axis, theta)
    m = mesh.turned(Q, p)
    b = m.bottoms()
    low = float(b[:, 1].min())
    c = (com - p) @ Q.T + p
    new = any(min(np.hypot(*(x - o)) for o in old) > SAME_CONTACT_M
              for x in b[b[:, 1] <= low + TOUCH_M][:, [0, 2]])
    side = float(np.cross(axis, c - np.array([p[0], c[1], p[2]]))[1])
    return Q, m, low, c, new or side > 0


def rest_transform(w: World, max_pivots: int = 3, free: frozenset = frozenset(),
                   over: float = OVER_SUPPORT_M) -> tuple[np.ndarray, np.ndarray]:
    """The rest of a dropped figure ``w`` (lowest point on y = 0): ``(Q, shift)``, the rotation
    (3, 3) and root translation (3,) (m) that turn the whole figure, rigidly, about what touches
    the floor until its centre of mass lies over the support (the convex hull of the touching
    points) or a new surface comes down, for up to ``max_pivots`` pivots (a point, then the line
    of two contacts, then a third), each within 60°. The new root is ``Q @ root_rot`` at
    ``root_pos + shift``; its lowest point stays on y = 0. ``(I, 0)`` when the body already
    rests. ``free``: bones whose mesh neither holds the body nor stops a tip (a hand reaching for
    the ankles is moved there by the reach, wherever the tip leaves it); ``over``: how far (m)
    outside the support the centre of mass may lie and be over it."""
    mesh = _Mesh(w, free)
    com = centre_of_mass(w)
    Qt, shift = np.eye(3), np.zeros(3)
    root = w.root_pos.astype(float).copy()
    for _ in range(max_pivots):
        support = _contacts(mesh.bottoms())
        piv = _pivot(_hull(support), com[[0, 2]], over)
        if piv is None:
            break
        q2, along = piv
        p = np.array([q2[0], 0.0, q2[1]])
        axis = np.array([along[0], 0.0, along[1]])
        axis /= np.linalg.norm(axis)
        if np.cross(axis, com - p)[1] > 0:      # tip so the centre of mass goes down
            axis = -axis
        lo, hi, th = 0.0, None, _STEP
        while th <= _MAX_TIP + 1e-12:
            if _tip(mesh, com, p, axis, support, th)[4]:
                hi = th
                break
            lo, th = th, th + _STEP
        if hi is None:
            break                               # nothing comes down within the limit: leave it
        for _i in range(_BISECT):
            mid = 0.5 * (lo + hi)
            if _tip(mesh, com, p, axis, support, mid)[4]:
                hi = mid
            else:
                lo = mid
        Q, mesh, low, com, _done = _tip(mesh, com, p, axis, support, hi)
        drop = np.array([0.0, -low, 0.0])
        mesh, com = mesh.moved(drop), com + drop
        new_root = (root - p) @ Q.T + p + drop
        shift += new_root - root
        root = new_root
        Qt = Q @ Qt
    return Qt, shift


#: the rest of a keyframe that does not tip: rotation vector (degrees) and root offset (m)
NO_REST: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def keyframe_rest(w: World, free: frozenset = frozenset()) -> tuple[float, ...]:
    """The motion JSON ``rest`` of a keyframe posed as ``w`` (its root where the timeline puts
    it, before the drop): ``(rx, ry, rz, dx, dy, dz)``, the rotation vector (degrees, world axes)
    that turns the figure's root rotation (left-multiplied) and the offset (m) of its root, drop
    included, rounded as the motion JSON writes them (4 decimals) so the keyframe solve and the
    runtime use the same numbers; ``free`` as for :func:`rest_transform`. :data:`NO_REST` when
    the dropped figure already rests."""
    drop = np.array([0.0, -w.lowest(), 0.0])
    Q, shift = rest_transform(moved_world(w, drop), free=free)
    v = rotation_vector(Q)
    if float(np.linalg.norm(v)) < 1e-3:
        return NO_REST
    d = shift + drop
    return tuple(round(float(c), 4) + 0.0 for c in (*np.degrees(v), *d))


def moved_world(w: World, d: np.ndarray) -> World:
    """``w`` translated by ``d`` (3,) (m)."""
    return World(w.avatar, {b: p + d for b, p in w.pos.items()}, w.rot,
                 {n: p + d for n, p in w.landmarks.items()}, w.root_pos + d, w.root_rot)


def rest_rotation(rest) -> np.ndarray:
    """(3, 3) the rotation of a ``rest`` tuple (its first three numbers, a rotation vector in
    degrees)."""
    v = np.radians(np.asarray(rest[:3], float))
    a = float(np.linalg.norm(v))
    return np.eye(3) if a < 1e-12 else axis_angle_matrix(v / a, a)


def rotation_vector(Q: np.ndarray) -> np.ndarray:
    """(3,) rotation vector (radians) of a rotation matrix (angle below 180°)."""
    c = min(1.0, max(-1.0, (float(np.trace(Q)) - 1.0) / 2.0))
    a = math.acos(c)
    if a < 1e-12:
        return np.zeros(3)
    axis = np.array([Q[2, 1] - Q[1, 2], Q[0, 2] - Q[2, 0], Q[1, 0] - Q[0, 1]]) / (2.0 * math.sin(a))
    return axis * a
