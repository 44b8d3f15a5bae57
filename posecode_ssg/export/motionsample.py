"""The solved motion of one document, sampled from the browser runtime for the file exporters
(BVH, glTF; docs/export.md, "BVH and glTF").

The runtime (docs/runtime.md, test hooks) solves contacts every frame; the exporters must write
that solved motion, not the authored forward kinematics, or a planted foot skates in the file.
One ``page.evaluate`` creates a ``<posecode-figure>`` in the session's page, waits for
``el.ready``, then ``el.seek(t)`` + ``el.sample()`` at every frame time ``i / fps`` and returns
packed arrays: every bone's world joint position and world quaternion.

From those, :class:`SolvedMotion` keeps what a hierarchy needs: the pelvis (the top joint of the
exported hierarchy) as a world position and world rotation per frame, and every other bone's
local rotation relative to its parent, ``conj(q_parent) · q_bone`` (after every solver pass, the
same as ``sample().local``), with quaternion signs kept consistent between frames (each key's
sign chosen so that its dot product with the previous key is ≥ 0). Offsets are the chosen
avatar's (rig.json ``avatars[id].offsets``): a child's joint is fixed at its offset in the
parent's frame, so forward kinematics over these rotations gives back ``sample().bones``
(:func:`SolvedMotion.forward`).

Units: metres, +Y up, the figure facing +Z at the start, its left +X (rig.json ``conventions``).
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the probe run in the page: one figure, seek + sample at every time, packed Float64 arrays
PROBE = """
async ({motion, times}) => {
  const b64 = (a) => { const u = new Uint8Array(a.buffer); let s = '';
    for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
    return btoa(s); };
  const el = posecodeMount(motion);
  try { await el.ready; } catch (e) { el.remove(); return { error: String((e && e.message) || e) }; }
  const first = el.sample();
  const bones = Object.keys(first.bones);
  const n = times.length, B = bones.length;
  const P = new Float64Array(n * B * 3), WQ = new Float64Array(n * B * 4);
  for (let i = 0; i < n; i++) {
    el.seek(times[i]);
    const s = el.sample();
    for (let b = 0; b < B; b++) {
      P.set(s.bones[bones[b]], (i * B + b) * 3);
      WQ.set(s.orientation[bones[b]], (i * B + b) * 4);
    }
  }
  const duration = el.duration;
  el.remove();
  return { bones, duration, P: b64(P), WQ: b64(WQ) };
}
"""

DURATION_PROBE = """
async ({motion}) => {
  const el = posecodeMount(motion);
  try { await el.ready; } catch (e) { el.remove(); return { error: String((e && e.message) || e) }; }
  const d = el.duration; el.remove(); return { duration: d };
}
"""


# --- quaternion helpers ([x, y, z, w], numpy, vectorised over leading axes) ---------------------

def qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a·b of [x, y, z, w] quaternions."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def qconj(q: np.ndarray) -> np.ndarray:
    return q * np.array([-1.0, -1.0, -1.0, 1.0])


def qrotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v (..., 3) by unit quaternions q (..., 4)."""
    u, w = q[..., :3], q[..., 3:4]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def qmatrix(q: np.ndarray) -> np.ndarray:
    """3×3 rotation matrices (..., 3, 3) of unit quaternions."""
    x, y, z, w = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def continuous_signs(q: np.ndarray) -> np.ndarray:
    """(N, ..., 4) quaternion keys with each key's sign flipped where needed so that its dot
    product with the previous key is ≥ 0 (q and −q are the same rotation; interpolating between
    keys of opposite sign would take the long way round)."""
    out = q / np.linalg.norm(q, axis=-1, keepdims=True)
    out = out.copy()
    for i in range(1, len(out)):
        d = np.sum(out[i] * out[i - 1], axis=-1)
        out[i][d < 0] *= -1.0
    return out


@dataclass
class SolvedMotion:
    """One document's solved motion at ``fps``.

    ``bones`` rig.json bone ids (parents first); ``parents`` their parent indices (−1 for the
    pelvis, which hangs from the floating root); ``offsets`` (B, 3) the avatar's offsets (m):
    each bone's joint in its parent's frame; ``times`` (N,) seconds ``i / fps``; ``pos`` (N, B, 3)
    and ``world`` (N, B, 4) the runtime's world joint positions and quaternions; ``local``
    (N, B, 4) local rotations (the pelvis's is its world rotation), signs continuous between
    frames; ``top`` (N, 3) the pelvis's world position; ``rest_top`` its standing rest position;
    ``end_sites`` {leaf bone: (landmark, offset in the bone's frame)}; ``height`` the avatar's
    standing height (m)."""

    name: str
    avatar: str
    fps: float
    duration: float
    loops: int
    bones: list[str]
    parents: list[int]
    offsets: np.ndarray
    times: np.ndarray
    pos: np.ndarray
    world: np.ndarray
    local: np.ndarray
    top: np.ndarray
    rest_top: np.ndarray
    end_sites: dict[str, tuple[str, list[float]]]
    height: float
    rig: dict[str, Any]

    @property
    def frames(self) -> int:
        return len(self.times)

    def children(self, i: int) -> list[int]:
        return [j for j, p in enumerate(self.parents) if p == i]

    def forward(self, local: np.ndarray | None = None, top: np.ndarray | None = None) -> np.ndarray:
        """(N, B, 3) world joint positions by forward kinematics over ``local`` rotations (default
        this motion's) from the pelvis at ``top``."""
        local = self.local if local is None else local
        top = self.top if top is None else top
        n, B = local.shape[:2]
        wq = np.zeros((n, B, 4))
        wp = np.zeros((n, B, 3))
        for i, p in enumerate(self.parents):
            if p < 0:
                wq[:, i], wp[:, i] = local[:, i], top
            else:
                wq[:, i] = qmul(wq[:, p], local[:, i])
                wp[:, i] = wp[:, p] + qrotate(wq[:, p], np.broadcast_to(self.offsets[i], (n, 3)))
        return wp


def frame_count(duration: float, fps: float, loops: int = 1) -> int:
    """Frames of ``loops`` loops of ``duration`` s at ``fps``: ``round(loops · duration · fps)``,
    at least 1 (frame i at ``i / fps``; the loop's end, equal to its start, is not repeated)."""
    return max(1, int(round(loops * duration * fps + 1e-9)))


def _rig_of(runtime) -> dict[str, Any]:
    rig = getattr(runtime, "rig", None)
    if isinstance(rig, dict):
        return rig
    from posecode_ssg.motion.rigjson import rig_json

    return rig_json()


def _evaluate(page, script: str, arg: dict[str, Any]) -> dict[str, Any]:
    try:
        out = page.evaluate(script, arg)
    except Exception as exc:   # a page error or crash inside the runtime (playwright's Error)
        text = str(exc).strip().splitlines()
        raise ValueError(text[0] if text else type(exc).__name__) from None
    if "error" in out:
        raise ValueError(out["error"])
    return out


def sample_solved(runtime, motion: dict[str, Any], fps: float = 30.0, loops: int = 1,
                  name: str = "") -> SolvedMotion:
    """Sample ``motion`` (motion JSON) in ``runtime`` (a started RuntimePage-like object: its
    Playwright ``.page`` holds the runtime bundle, optionally ``.rig``) at frames ``i / fps``
    over ``loops`` loops. Raises ``ValueError`` with the runtime's message when it rejects the
    data."""
    if not (fps > 0 and math.isfinite(fps)):
        raise ValueError(f"fps must be a positive number, not {fps!r}")
    rig = _rig_of(runtime)
    page = runtime.page
    duration = float(_evaluate(page, DURATION_PROBE, {"motion": motion})["duration"])
    n = frame_count(duration, fps, loops)
    times = np.arange(n, dtype=float) / fps
    out = _evaluate(page, PROBE, {"motion": motion, "times": times.tolist()})
    got = list(out["bones"])
    B = len(got)
    P = np.frombuffer(base64.b64decode(out["P"]), dtype="<f8").reshape(n, B, 3)
    WQ = np.frombuffer(base64.b64decode(out["WQ"]), dtype="<f8").reshape(n, B, 4)
    # the rig's order (parents first)
    rig_ids = [b["id"] for b in rig["bones"]]
    bones = [b for b in rig_ids if b in got]
    idx = [got.index(b) for b in bones]
    P, WQ = P[:, idx].copy(), WQ[:, idx].copy()
    parent_of = {b["id"]: b["parent"] for b in rig["bones"]}
    parents = [bones.index(parent_of[b]) if parent_of[b] in bones else -1 for b in bones]
    avatar_id = motion.get("avatar") or rig.get("defaultAvatar")
    av = rig["avatars"][avatar_id]
    offsets = np.array([av["offsets"][b] for b in bones], dtype=float)
    WQ /= np.linalg.norm(WQ, axis=-1, keepdims=True)
    local = np.empty_like(WQ)
    for i, p in enumerate(parents):
        local[:, i] = WQ[:, i] if p < 0 else qmul(qconj(WQ[:, p]), WQ[:, i])
    local = continuous_signs(local)
    top_i = parents.index(-1)
    # the pelvis standing at rest: the start pose's grounded root plus the pelvis offset
    start = rig["startPoses"].get(rig.get("defaultStartPose", "neutral")) or {}
    root = (start.get("groundedRoot") or {}).get(avatar_id) or [0.0, 0.0, 0.0]
    rest_top = np.array(root, float) + offsets[top_i]
    # end sites: a leaf bone's landmark farthest from its joint (head_top, a digit's tip, a toe)
    end_sites: dict[str, tuple[str, list[float]]] = {}
    for i, b in enumerate(bones):
        if any(p == i for p in parents):
            continue
        marks = [(k, v["offset"]) for k, v in av["landmarks"].items() if v["bone"] == b]
        if marks:
            k, off = max(marks, key=lambda kv: (float(np.linalg.norm(kv[1])), kv[0]))
            end_sites[b] = (k, [float(x) for x in off])
        else:
            end_sites[b] = ("", [0.0, 0.0, 0.0])
    return SolvedMotion(name=name or str(motion.get("name", "")), avatar=avatar_id, fps=float(fps),
                        duration=duration, loops=loops, bones=bones, parents=parents,
                        offsets=offsets, times=times, pos=P, world=WQ, local=local,
                        top=P[:, top_i].copy(), rest_top=rest_top, end_sites=end_sites,
                        height=float(av.get("height", 0.0)), rig=rig)


def export_motion(doc, opts) -> dict[str, Any]:
    """The motion JSON to export: ``doc.motion()`` (the core resolves ``--avatar`` and the
    equipment into it, as the build does)."""
    return doc.motion()


def export_loops(opts) -> int:
    """How many loops to export: ``opts.loops`` / ``opts.repeat`` when the options carry one (a
    whole number ≥ 1), else one loop."""
    for key in ("loops", "repeat"):
        v = getattr(opts, key, None)
        if v is not None:
            try:
                k = int(v)
            except (TypeError, ValueError):
                continue
            if k >= 1:
                return k
    return 1


def export_fps(opts) -> float:
    v = getattr(opts, "fps", None)
    return float(v) if v else 30.0
