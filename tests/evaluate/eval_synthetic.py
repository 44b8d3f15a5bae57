"""Synthetic :class:`Samples` for the metric tests: the numpy forward kinematics
(posecode_ssg.motion.fk) of a pose, repeated over a hand-written timeline, so each test can move
one point by a known amount and check the metric reports exactly that."""

from __future__ import annotations

import numpy as np

from posecode_ssg.evaluate.sampler import Samples, Timing
from posecode_ssg.motion.fk import forward_kinematics
from posecode_ssg.motion.rig import avatar
from posecode_ssg.motion.rigjson import rig_json
from posecode_ssg.motion.rotation import euler_to_matrix
from posecode_ssg.motion.support import phase_support

RIG = rig_json()


def mat_quat(m: np.ndarray) -> np.ndarray:
    """[x, y, z, w] of a rotation matrix (Shepperd's method, w branch is enough here)."""
    w = np.sqrt(max(0.0, 1.0 + m[0, 0] + m[1, 1] + m[2, 2])) / 2.0
    if w < 1e-6:
        raise ValueError("rotation near 180°: not needed by these tests")
    return np.array([(m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w),
                     (m[1, 0] - m[0, 1]) / (4 * w), w])


def motion(phases: list[dict], *, wrap: float = 0.0, props=(), base=None) -> dict:
    """A posecode-motion/1 document with the given phases (each {name, d, m, gl?, pin?, ...});
    each phase's ``support`` is the compiler's (motion/support.py) unless given."""
    def support(p: dict) -> list[str]:
        return sorted(phase_support(p.get("gl", []), p.get("pin", []), p.get("grip", []), p.get("reach", [])))

    return {"format": "posecode-motion/1", "name": "T", "kind": "exercise", "avatar": "avatar1",
            "props": list(props), "repeat": 1, "startPose": "neutral", "base": base or {},
            "phases": [{"line": 0, "m": "flow", "support": support(p), **p} for p in phases], "wrap": wrap,
            "duration": sum(p["d"] for p in phases) + wrap}


def samples(mot: dict, hz: float = 100.0, euler=None, root=(0.0, 0.032, 0.0)) -> Samples:
    """Samples of a still pose (``euler``: bone → degrees; default neutral standing) at ``hz``
    over the loop; ``segment``/``phase`` follow ``Timing.of(mot)``. Every array is writable."""
    av = avatar("avatar1")
    w = forward_kinematics(av, euler or {}, np.array(root), np.eye(3))
    T = Timing.of(mot)
    t = np.arange(0.0, T.duration - 1e-9, 1.0 / hz)
    n = len(t)
    seg = np.searchsorted(np.array(T.times), t, side="right") - 1
    P = len(mot["phases"])
    bones = list(w.pos)
    lms = list(w.landmarks)
    local = np.array([mat_quat(euler_to_matrix((euler or {}).get(b, (0, 0, 0)))) for b in bones])
    orient = np.array([mat_quat(w.rot[b]) for b in bones])
    return Samples(
        t=t, phase=np.where(seg < P, seg, -1), segment=seg, bones=bones,
        pos=np.repeat(np.array([w.pos[b] for b in bones])[None], n, axis=0),
        local=np.repeat(local[None], n, axis=0), orient=np.repeat(orient[None], n, axis=0),
        landmarks=lms, lm=np.repeat(np.array([w.landmarks[x] for x in lms])[None], n, axis=0),
        yaw=np.zeros(n), travel=np.zeros((n, 2)), keys=[], timing=T)


def move_foot(s: Samples, side: str, delta: np.ndarray, mask: np.ndarray) -> None:
    """Translate a whole foot (ankle joint and its landmarks) by delta[i] (N, 3) where mask."""
    d = np.where(mask[:, None], delta, 0.0)
    s.pos[:, s.bones.index(f"ankle_{side}")] += d
    for n in (f"heel_{side}", f"toe_{side}", f"sole_{side}"):
        s.lm[:, s.landmarks.index(n)] += d
