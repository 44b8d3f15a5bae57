"""``posecode-ssg export --format gltf|glb``: the rig with its capsule meshes and one animation
of the **solved** motion (docs/export.md, "BVH and glTF").

- nodes: one per rig bone, named by its bone id, in the rig's hierarchy; the scene's top node
  is the pelvis (the bone hanging from the rig's floating root). A node's ``translation`` is
  its bone's offset in the chosen avatar's proportions (the pelvis's: standing at rest), its
  rest ``rotation`` the identity (the rig's rest pose).
- meshes: each bone node carries the body's primitives that move with it (rig.json
  ``avatars[id].segments``: tapered capsules from the bone's joint to its child's joint or to
  one of its own landmarks; ``volumes``: the ellipsoids of hips, ribcage, deltoids, skull, palms
  and shoes) as one mesh in the bone's frame.
- one animation (the movement's name): per bone a ``rotation`` channel (unit quaternions, the
  sign of each key chosen so its dot product with the previous key is ≥ 0, so LINEAR slerp never
  takes the long way) and for the pelvis a ``translation`` channel (its world position), keys at
  ``i / fps``, sampled from the runtime after its contact solve
  (:mod:`posecode_ssg.export.motionsample`).
- units: metres, +Y up, the figure facing +Z — glTF's own conventions.

``.gltf`` is JSON with the buffer embedded as a base64 data URI; ``.glb`` the binary container.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np

from posecode_ssg.export.motionsample import (
    SolvedMotion,
    export_fps,
    export_loops,
    export_motion,
    sample_solved,
)

#: capsule and ellipsoid tessellation: around, and per hemisphere
AROUND = 12
CAP_RINGS = 4


def _frame(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An orthonormal basis (u, v, w) with w along d."""
    w = d / np.linalg.norm(d)
    a = np.array([1.0, 0.0, 0.0]) if abs(w[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(a, w)
    u /= np.linalg.norm(u)
    return u, np.cross(w, u), w


def _lathe(rings: list[tuple[float, float, float, float]], basis, origin) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A closed surface of revolution: ``rings`` (z, radius, normal_z, normal_r) from the south
    pole to the north pole, the poles single vertices (radius 0). Returns (positions, normals,
    triangle indices) with outward normals and counter-clockwise faces."""
    u, v, w = basis
    pos, nor = [], []
    south = rings[0]
    pos.append(origin + w * south[0])
    nor.append(-w)
    body = rings[1:-1]
    for z, r, nz, nr in body:
        for k in range(AROUND):
            ang = 2.0 * math.pi * k / AROUND
            radial = u * math.cos(ang) + v * math.sin(ang)
            pos.append(origin + w * z + radial * r)
            n = w * nz + radial * nr
            nor.append(n / np.linalg.norm(n))
    north = rings[-1]
    pos.append(origin + w * north[0])
    nor.append(w)
    tris = []
    top = len(pos) - 1
    for k in range(AROUND):
        tris.append((0, 1 + (k + 1) % AROUND, 1 + k))
    for ring in range(len(body) - 1):
        a0, b0 = 1 + ring * AROUND, 1 + (ring + 1) * AROUND
        for k in range(AROUND):
            k1 = (k + 1) % AROUND
            tris.append((a0 + k, a0 + k1, b0 + k1))
            tris.append((a0 + k, b0 + k1, b0 + k))
    last = 1 + (len(body) - 1) * AROUND
    for k in range(AROUND):
        tris.append((last + k, last + (k + 1) % AROUND, top))
    return np.array(pos), np.array(nor), np.array(tris, dtype=np.int64)


def capsule(a: np.ndarray, b: np.ndarray, ra: float, rb: float):
    """A tapered capsule from point a (radius ra) to b (radius rb): two hemispheres joined by
    their equators."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    length = float(np.linalg.norm(d))
    if length < 1e-9:
        d, length = np.array([0.0, 1.0, 0.0]), 0.0
    rings = []
    for h in range(CAP_RINGS + 1):            # south hemisphere, pole to equator
        th = math.pi / 2 * (1 - h / CAP_RINGS)
        rings.append((-ra * math.sin(th), ra * math.cos(th), -math.sin(th), math.cos(th)))
    for h in range(CAP_RINGS + 1):            # north hemisphere, equator to pole
        th = math.pi / 2 * h / CAP_RINGS
        rings.append((length + rb * math.sin(th), rb * math.cos(th), math.sin(th), math.cos(th)))
    rings[0] = (rings[0][0], 0.0, -1.0, 0.0)
    rings[-1] = (rings[-1][0], 0.0, 1.0, 0.0)
    return _lathe(rings, _frame(d), a)


def ellipsoid(centre, axes):
    """An ellipsoid with semi-axes ``axes`` along the frame's X, Y, Z around ``centre``."""
    axes = np.asarray(axes, float)
    rings = []
    n = 2 * CAP_RINGS
    for h in range(n + 1):
        th = -math.pi / 2 + math.pi * h / n
        rings.append((math.sin(th), math.cos(th), math.sin(th), math.cos(th)))
    basis = (np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, 1.0]))
    pos, nor, tris = _lathe(rings, basis, np.zeros(3))
    pos = pos * axes + np.asarray(centre, float)
    nor = nor / axes
    nor /= np.linalg.norm(nor, axis=1, keepdims=True)
    return pos, nor, tris


def bone_meshes(sm: SolvedMotion) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per bone index, its merged body geometry in the bone's frame (positions, normals,
    triangles)."""
    av = sm.rig["avatars"][sm.avatar]
    index = {b: i for i, b in enumerate(sm.bones)}
    parts: dict[int, list] = {}
    for seg in av.get("segments", []):
        f, t = seg["from"], seg["to"]
        if f not in index:
            continue
        i = index[f]
        if t in index and sm.parents[index[t]] == i:
            end = sm.offsets[index[t]]
        elif t in av["landmarks"] and av["landmarks"][t]["bone"] == f:
            end = np.array(av["landmarks"][t]["offset"], float)
        else:
            continue                       # not rigid in this bone's frame
        ra, rb = (float(x) for x in seg["r"])
        parts.setdefault(i, []).append(capsule(np.zeros(3), end, ra, rb))
    for vol in av.get("volumes", []):
        if vol["bone"] not in index:
            continue
        axes = [float(vol["r"]) * float(k) for k in vol["scale"]]
        parts.setdefault(index[vol["bone"]], []).append(ellipsoid(vol["offset"], axes))
    out = {}
    for i, ps in parts.items():
        pos, nor, tris, base = [], [], [], 0
        for p, n, t in ps:
            pos.append(p)
            nor.append(n)
            tris.append(t + base)
            base += len(p)
        out[i] = (np.concatenate(pos), np.concatenate(nor), np.concatenate(tris))
    return out


class _Buffer:
    """One binary buffer being built: bufferViews and accessors, each view 4-byte aligned."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict[str, Any]] = []
        self.accessors: list[dict[str, Any]] = []

    def add(self, arr: np.ndarray, ctype: int, atype: str, target: int | None = None,
            minmax: bool = False) -> int:
        while len(self.data) % 4:
            self.data.append(0)
        dtype = {5126: "<f4", 5123: "<u2", 5125: "<u4"}[ctype]
        raw = np.ascontiguousarray(arr, dtype=dtype)
        view: dict[str, Any] = {"buffer": 0, "byteOffset": len(self.data), "byteLength": raw.nbytes}
        if target is not None:
            view["target"] = target
        self.data += raw.tobytes()
        self.views.append(view)
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[atype]
        acc: dict[str, Any] = {"bufferView": len(self.views) - 1, "componentType": ctype,
                               "count": int(raw.size // width), "type": atype}
        if minmax:
            flat = raw.reshape(-1, width).astype(np.float64)
            cast = float if ctype == 5126 else int
            acc["min"] = [cast(x) for x in flat.min(axis=0)]
            acc["max"] = [cast(x) for x in flat.max(axis=0)]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def padded(self) -> bytes:
        out = bytes(self.data)
        return out + b"\0" * (-len(out) % 4)


def _f32_unit(q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return q.astype("<f4")


def gltf_document(sm: SolvedMotion, name: str = "") -> tuple[dict[str, Any], bytes]:
    """The glTF JSON (without the buffer's ``uri``) and the binary buffer of a solved motion."""
    buf = _Buffer()
    nodes: list[dict[str, Any]] = []
    meshes: list[dict[str, Any]] = []
    geometry = bone_meshes(sm)
    for i, b in enumerate(sm.bones):
        top = sm.parents[i] < 0
        node: dict[str, Any] = {"name": b,
                                "translation": [float(x) for x in (sm.rest_top if top else sm.offsets[i])]}
        kids = [j for j, p in enumerate(sm.parents) if p == i]
        if kids:
            node["children"] = kids
        if i in geometry:
            pos, nor, tris = geometry[i]
            ctype = 5123 if len(pos) < 65536 else 5125
            prim = {"attributes": {"POSITION": buf.add(pos, 5126, "VEC3", 34962, minmax=True),
                                   "NORMAL": buf.add(nor, 5126, "VEC3", 34962)},
                    "indices": buf.add(tris.reshape(-1), ctype, "SCALAR", 34963),
                    "material": 0, "mode": 4}
            meshes.append({"name": f"{b} body", "primitives": [prim]})
            node["mesh"] = len(meshes) - 1
        nodes.append(node)
    times = buf.add(sm.times, 5126, "SCALAR", minmax=True)
    samplers, channels = [], []
    for i, b in enumerate(sm.bones):
        if sm.parents[i] < 0:
            samplers.append({"input": times, "output": buf.add(sm.top, 5126, "VEC3"),
                             "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": i, "path": "translation"}})
        samplers.append({"input": times, "output": buf.add(_f32_unit(sm.local[:, i]), 5126, "VEC4"),
                         "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": i, "path": "rotation"}})
    body = buf.padded()
    doc = {
        "asset": {"version": "2.0", "generator": "posecode-ssg export"},
        "scene": 0,
        "scenes": [{"name": name or sm.name or "posecode",
                    "nodes": [i for i, p in enumerate(sm.parents) if p < 0]}],
        "nodes": nodes,
        "meshes": meshes,
        "materials": [{"name": "body", "pbrMetallicRoughness": {
            "baseColorFactor": [0.72, 0.74, 0.78, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.8}}],
        "animations": [{"name": name or sm.name or "motion", "channels": channels, "samplers": samplers}],
        "buffers": [{"byteLength": len(body)}],
        "bufferViews": buf.views,
        "accessors": buf.accessors,
        "extras": {"units": "metres", "up": "+Y", "forward": "+Z", "avatar": sm.avatar,
                   "fps": sm.fps, "frames": sm.frames, "loops": sm.loops,
                   "solved": "sampled from the posecode runtime after its contact solve"},
    }
    if not meshes:
        del doc["meshes"], doc["materials"]
    return doc, body


def gltf_bytes(doc: dict[str, Any], body: bytes, binary: bool) -> bytes:
    """The file's bytes: ``.glb`` (binary container) or ``.gltf`` (JSON, buffer as a data URI)."""
    if not binary:
        doc = json.loads(json.dumps(doc))
        doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(body).decode("ascii")
        return (json.dumps(doc, separators=(",", ":")) + "\n").encode("utf-8")
    js = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    js += b" " * (-len(js) % 4)
    total = 12 + 8 + len(js) + 8 + len(body)
    return (struct.pack("<4sII", b"glTF", 2, total) + struct.pack("<I4s", len(js), b"JSON") + js
            + struct.pack("<I4s", len(body), b"BIN\0") + body)


def write_gltf(doc, opts, out: Path, session) -> list[str]:
    """Write ``doc``'s rig and solved motion as ``.gltf`` or ``.glb`` (``opts.fmt``, else OUT's
    suffix) to ``out``. Returns the notes the command prints."""
    from posecode_ssg.export.core import ExportError, write_atomic

    out = Path(out)
    binary = (getattr(opts, "fmt", None) or out.suffix.lstrip(".").lower()) == "glb"
    fps = export_fps(opts)
    try:
        sm = sample_solved(session.runtime(), export_motion(doc, opts), fps=fps,
                           loops=export_loops(opts), name=getattr(doc, "name", ""))
    except ValueError as exc:
        raise ExportError(f"{getattr(doc, 'label', doc.name)}: the runtime rejected the motion: {exc}") from None
    gdoc, body = gltf_document(sm, getattr(doc, "name", ""))
    write_atomic(out, gltf_bytes(gdoc, body, binary))
    loops = "" if sm.loops == 1 else f", {sm.loops} loops"
    return [f"wrote {out} ({'GLB' if binary else 'glTF'}: {len(sm.bones)} bone nodes with capsule meshes, "
            f"one animation of {sm.frames} keys at {sm.fps:g} fps{loops}, avatar {sm.avatar}, solved by "
            f"the runtime; metres, +Y up, facing +Z)"]
