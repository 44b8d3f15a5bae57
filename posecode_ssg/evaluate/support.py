"""Support: how far the centre of mass's floor projection lies outside what holds the body up
(docs/eval.md ``support``; issue 19 item 4). A body stands, sits, lies or kneels balanced when
the vertical through its centre of mass meets the base of support: the convex hull, in the
horizontal plane, of where it touches the floor or a prop.

- **Centre of mass**: Winter's segment table (rig.json ``segmentMasses``; D. A. Winter,
  *Biomechanics and Motor Control of Human Movement*, 4th ed., 2009, Table 4.1) over the sampled
  joints and landmarks: each segment's share of body mass at its centre's place between its
  ends.
- **Contacts**: every primitive of the avatar's mesh (capsule end spheres, ellipsoid volumes,
  sole box corners; the primitives of the lowest-point measure) whose extreme point towards a
  surface lies within :data:`CONTACT_BAND_M` of it or in it: the floor (y = 0, or below it), and
  each face of a declared prop's solid boxes (its top: the box, the seat; its sides: the wall,
  the chair's backrest), within the face's extent; and a capsule lying along the floor as far
  along as its surface stays in the band (:func:`capsule_floor_contacts`). A prop's **blocking faces** (rig.json
  ``props.*.faces``: the wall, the backrest, the seat edge, the box's near face) are touched the
  way they are pushed against: by the body capsules the props pass rests on them and ``penetration``
  measures (evaluate/props.py :func:`body_capsules`, radii ``avatar.collision``) — a capsule
  sample within the band of the face touches it at its point nearest the face. The props pass
  leaves a wall-sit's torso capsule on the wall, where the mesh's narrower back is 2–3 cm off it:
  measured by the mesh alone the wall that holds the body would never touch it. The contact
  points' horizontal positions span the base.
- A sample with an active grip is not measured (the bar holds the body), nor one with no contact
  (the body is in the air: ``float`` says so).

The value per sample is the horizontal distance (mm) from the centre of mass to the base (0
inside); one violation per run over the limit.
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.props import body_capsules
from posecode_ssg.evaluate.runs import run_violations
from posecode_ssg.evaluate.thresholds import METRIC, DocumentMetrics
from posecode_ssg.motion.support import BASE_CONTACT, base_gaps

#: a mesh point this near (m) a surface touches it (issue 19: "within 10 mm of the floor")
CONTACT_BAND_M = BASE_CONTACT
#: the six axis directions the extreme points of the primitives are taken along
_DIRS = np.array([(0, -1, 0), (0, 1, 0), (-1, 0, 0), (1, 0, 0), (0, 0, -1), (0, 0, 1)], float)


def centre_of_mass(ctx: Context) -> np.ndarray:
    """(N, 3) centre of mass (m) of every sample: Σ share × segment centre over rig.json
    ``segmentMasses`` (a point named ``a+b`` is the midpoint of two)."""
    s = ctx.s
    bones = {b: i for i, b in enumerate(s.bones)}
    marks = {m: i for i, m in enumerate(s.landmarks)}

    def point(name: str) -> np.ndarray:
        parts = name.split("+")
        return sum(s.pos[:, bones[p]] if p in bones else s.lm[:, marks[p]] for p in parts) / len(parts)

    masses = ctx.rig["segmentMasses"]
    total = sum(m["mass"] for m in masses)
    com = np.zeros((ctx.n, 3))
    for m in masses:
        a, b = point(m["from"]), point(m["to"])
        com += m["mass"] / total * (a + m["centre"] * (b - a))
    return com


def _rotations(ctx: Context) -> np.ndarray:
    """(N, B, 3, 3) world rotation matrices of the sampled bones."""
    q = ctx.s.orient / np.linalg.norm(ctx.s.orient, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def extreme_points(ctx: Context) -> np.ndarray:
    """(N, P, 6, 3): for every mesh primitive of the avatar (capsule end spheres, ellipsoid
    volumes, the 8 corners of each sole box), its farthest point along each of :data:`_DIRS`."""
    s, av = ctx.s, ctx.avatar
    bones = {b: i for i, b in enumerate(s.bones)}
    marks = {m: i for i, m in enumerate(s.landmarks)}
    rot = _rotations(ctx)
    out = []
    for seg in av["segments"]:
        for name, r in ((seg["from"], seg["r"][0]), (seg["to"], seg["r"][1])):
            c = s.pos[:, bones[name]] if name in bones else s.lm[:, marks[name]]
            out.append(c[:, None, :] + r * _DIRS[None])
    for vol in av["volumes"]:
        i = bones[vol["bone"]]
        R = rot[:, i]
        c = s.pos[:, i] + np.einsum("nij,j->ni", R, np.asarray(vol["offset"], float))
        M = R * (vol["r"] * np.asarray(vol["scale"], float))[None, None, :]   # columns: the semi-axes
        mt = np.einsum("nji,dj->ndi", M, _DIRS)                                  # Mᵀ d
        n = np.linalg.norm(mt, axis=-1, keepdims=True)
        out.append(c[:, None, :] + np.einsum("nij,ndj->ndi", M, mt / np.maximum(n, 1e-12)))
    size, centre = np.asarray(av["sole"]["size"], float), np.asarray(av["sole"]["center"], float)
    corners = [centre + size * np.array([sx, sy, sz]) for sx in (-.5, .5) for sy in (-.5, .5) for sz in (-.5, .5)]
    for bone in ("ankle_left", "ankle_right"):
        i = bones[bone]
        for k in corners:
            p = s.pos[:, i] + np.einsum("nij,j->ni", rot[:, i], k)
            out.append(np.repeat(p[:, None, :], 6, axis=1))
    return np.stack(out, axis=1)


def _faces(ctx: Context) -> list[tuple[int, float, float, np.ndarray, np.ndarray]]:
    """The faces of the declared props' solid boxes: ``(axis, sign, level, lo, hi)`` — normal to
    world axis ``axis`` (0 x, 1 y, 2 z), facing ``sign`` (+1 / −1) along it, at ``level``, over
    the box's extent ``lo``–``hi`` (3,)."""
    faces = []
    for name in ctx.motion.get("props") or []:
        for mesh in ctx.rig["props"][name]["meshes"]:
            if mesh.get("shape") != "box" or mesh.get("role") != "solid":
                continue
            c, h = np.asarray(mesh["center"], float), 0.5 * np.asarray(mesh["size"], float)
            for ax in range(3):
                for sign in (1.0, -1.0):
                    faces.append((ax, sign, float(c[ax] + sign * h[ax]), c - h, c + h))
    return faces


#: the index into :data:`_DIRS` of the direction −sign along an axis (towards a face facing sign)
_TOWARDS = {(1, 1.0): 0, (1, -1.0): 1, (0, 1.0): 2, (0, -1.0): 3, (2, 1.0): 4, (2, -1.0): 5}


def contact_mask(ctx: Context, ext: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, P) whether each primitive touches the floor or a prop face (module docstring), and
    (N, P, 3) the touching point: its extreme point towards that surface."""
    band = CONTACT_BAND_M
    touch = ext[:, :, 0, 1] <= band             # the lowest point: at, near or under the floor
    point = ext[:, :, 0].copy()
    for ax, sign, level, lo, hi in _faces(ctx):
        q = ext[:, :, _TOWARDS[(ax, sign)]]
        off = (q[..., ax] - level) * sign        # > 0 outside the face, < 0 sunk into the box
        # sunk in counts (a pinned pelvis sits its joint on the seat, the hips' volume in it)
        hit = (off <= band) & (off >= -(hi[ax] - lo[ax])) & ~touch
        for other in range(3):
            if other != ax:
                hit &= (q[..., other] >= lo[other] - band) & (q[..., other] <= hi[other] + band)
        touch |= hit
        point = np.where(hit[..., None], q, point)
    return touch, point


def face_contacts(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """(N, K) whether each body capsule sample touches a blocking face of a declared prop, and
    (N, K, 3) its touching point (module docstring): a sample p of radius r at d = (p − c)·n from
    the face (centre c, outward normal n) touches it when −capture ≤ d ≤ r + band and it lies
    within the face's half extents + r (the ownership test of ``penetration``, widened by the
    band); it touches at p − r·n."""
    faces = [f for prop in ctx.motion.get("props") or [] for f in ctx.rig["props"][prop].get("faces", [])]
    touch, point = [], []
    if not faces:
        return np.zeros((ctx.n, 0), bool), np.zeros((ctx.n, 0, 3))
    caps = body_capsules(ctx)
    for f in faces:
        c, n = np.asarray(f["center"], float), np.asarray(f["normal"], float)
        u, v = np.asarray(f["u"], float), np.asarray(f["v"], float)
        blocks = set(f["blocks"])
        for part, _limb, pts, r in caps:
            if "all" not in blocks and part not in blocks:
                continue
            rel = pts - c
            d = rel @ n
            touch.append((d >= -f["capture"]) & (d <= r + CONTACT_BAND_M) & (np.abs(rel @ u) <= f["halfU"] + r)
                         & (np.abs(rel @ v) <= f["halfV"] + r))
            point.append(pts - r * n)
    return np.concatenate(touch, axis=1), np.concatenate(point, axis=1)


def capsule_floor_contacts(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """(N, K) whether each mesh capsule (``avatar.segments``) lies along the floor past one of its
    end spheres, and (N, K, 3) the far end of that stretch: a capsule touches the floor wherever
    its surface is within :data:`CONTACT_BAND_M`, not only at its ends (a prone body's lumbar
    capsule from the pelvis toward the chest). Its lowest surface point over the axis parameter
    s is taken as linear, h(s) = (1 − s)(y_a − r_a) + s(y_b − r_b) (exact at the end spheres; the
    rig's capsules taper little), so the stretch within the band ends at s* = (band − h_a) /
    (h_b − h_a) when exactly one end is in it; the point is the axis point there, put on the
    floor. Both ends in the band are already :func:`contact_mask`'s contacts."""
    s, av = ctx.s, ctx.avatar
    bones = {b: i for i, b in enumerate(s.bones)}
    marks = {m: i for i, m in enumerate(s.landmarks)}
    band = CONTACT_BAND_M
    touch, point = [], []
    for seg in av["segments"]:
        a, b = (s.pos[:, bones[n]] if n in bones else s.lm[:, marks[n]] for n in (seg["from"], seg["to"]))
        ha, hb = a[:, 1] - seg["r"][0], b[:, 1] - seg["r"][1]
        one = (ha <= band) != (hb <= band)
        t = np.clip((band - ha) / np.where(one, hb - ha, 1.0), 0.0, 1.0)[:, None]
        p = a + t * (b - a)
        p[:, 1] = np.minimum(ha, hb)
        touch.append(one)
        point.append(p)
    return np.stack(touch, axis=1), np.stack(point, axis=1)


def hull_distances(points: np.ndarray, touch: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(N,) distance (m) from each ``c`` (N, 2) to the convex hull of its touching ``points``
    (N, P, 2) (``touch`` (N, P)), 0 inside (motion/support.py :func:`base_gaps`)."""
    return base_gaps(points, touch, c)[0]


def support_distances(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """(N,) the centre of mass's horizontal distance (mm) outside the base of support, and (N,)
    whether the sample is measured (no active grip, something touching)."""
    com = centre_of_mass(ctx)
    touch, point = contact_mask(ctx, extreme_points(ctx))
    ftouch, fpoint = face_contacts(ctx)
    ctouch, cpoint = capsule_floor_contacts(ctx)
    touch = np.concatenate([touch, ftouch, ctouch], axis=1)
    point = np.concatenate([point, fpoint, cpoint], axis=1)
    gripped = np.zeros(ctx.n, bool)
    for seg, a, b in ctx.runs:
        gripped[a:b + 1] = bool(ctx.phase(seg).get("grip"))
    measured = ~gripped & touch.any(axis=1)
    out = np.zeros(ctx.n)
    if measured.any():
        out[measured] = hull_distances(point[measured][..., [0, 2]], touch[measured],
                                       com[measured][:, [0, 2]]) * 1000.0
    return out, measured


def support_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Support (mm): see the module docstring; one violation per run over ``support``'s limit,
    its subject ``centre of mass``."""
    dist, measured = support_distances(ctx)
    if not measured.any():
        res.worst["support"] = None
        return
    res.violations += run_violations(ctx, "support", "centre of mass", dist, measured, METRIC["support"].limit)
    res.worst["support"] = float(dist[measured].max())
