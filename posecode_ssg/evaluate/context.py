"""What every metric reads (:class:`Context`): the samples, the motion JSON, rig.json and the
avatar, the contiguous runs of one timeline segment, which floor contact is expected flat, the
contact points and heights, and the measuring frames.

Which contacts are active when: the destination phase's ground-locks, pins, grips and reaches
for its whole segment; none in the wrap (kinematics-reference §5.3). A floor contact is **held**
over a segment when it is within ``rig.json solver.plantedHeight`` (5 cm) of the floor at both
the segment's first and last sample (so a swing foot under ``feet`` is free, as in the numpy
solve and the bugs case mo-planted-feet-skate); consecutive held segments of the same kind form
one contact interval, measured from where it began (docs/eval.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from posecode_ssg.evaluate.sampler import Samples
from posecode_ssg.motion.rotation import euler_xyz

SIDES = ("left", "right")


def side_of(name: str) -> str:
    """``left`` or ``right``: the side of an effector or bone name (``foot_left``...)."""
    return "left" if name.endswith("_left") else "right"


class Context:
    """What every metric reads: the samples, the motion JSON, rig.json and the avatar."""

    def __init__(self, samples: Samples, motion: dict[str, Any], rig: dict[str, Any]):
        self.s = samples
        self.motion = motion
        self.rig = rig
        self.avatar = rig["avatars"][motion.get("avatar") or rig["defaultAvatar"]]
        self.solver = rig["solver"]
        self.planted_h = float(self.solver["plantedHeight"])
        phases = motion["phases"]
        self.phases = phases
        n = len(samples.t)
        self.n = n
        T = samples.timing
        self.names = T.names
        # contiguous runs of one segment, in time order: (segment, first index, last index)
        seg = samples.segment
        cuts = np.flatnonzero(np.diff(seg) != 0) + 1
        starts = np.concatenate([[0], cuts])
        ends = np.concatenate([cuts - 1, [n - 1]])
        self.runs = [(int(seg[a]), int(a), int(b)) for a, b in zip(starts, ends)]
        self.loop_t = samples.t % T.duration
        self.anchors = {name: np.asarray(p, float) for prop in rig["props"].values()
                        for name, p in prop.get("anchors", {}).items()}
        self._ankle_x = self._keyframe_ankle_x()

    def phase(self, seg: int) -> dict[str, Any]:
        """The phase of a segment ({} for the wrap)."""
        return self.phases[seg] if 0 <= seg < len(self.phases) else {}

    def phase_name(self, i: int) -> str:
        seg = int(self.s.segment[i])
        return self.names[seg] if 0 <= seg < len(self.names) else "wrap"

    def _keyframe_ankle_x(self) -> list[dict[str, float]]:
        """Authored ankle x (degrees, plantarflexion positive) at every keyframe (K0 = base)."""
        cur = {b: np.asarray(q, float) for b, q in self.motion.get("base", {}).items()}
        out = []
        for k in range(len(self.phases) + 1):
            if k > 0:
                cur.update({b: np.asarray(q, float) for b, q in (self.phases[k - 1].get("q") or {}).items()})
            row = {}
            for s in SIDES:
                q = cur.get(f"ankle_{s}", np.array([0.0, 0.0, 0.0, 1.0]))
                row[s] = float(euler_xyz(q)[0][0])
            out.append(row)
        return out

    def flat_expected(self, seg: int, side: str) -> bool:
        """A locked or floor-pinned foot is expected flat in segment ``seg`` unless its authored
        ankle x exceeds ``plantigradeMaxAnkle`` (tiptoe intent) at either end, hands or forearms
        are locked too (plank: the feet stand on their toes), or it is a stance foot of a
        travelling gait (push-off; the phase's motion JSON ``gait``) — the numpy solve's levelling
        rules (motion-json.md)."""
        ph = self.phase(seg)
        if any(c.startswith(("hand_", "elbow_")) for c in ph.get("gl", [])):
            return False
        if ph.get("gait") and any(e == f"foot_{side}" and a == "floor" for e, a in ph.get("pin", [])):
            return False
        lim = float(self.solver["plantigradeMaxAnkle"])
        k0, k1 = seg, min(seg + 1, len(self._ankle_x) - 1)
        return self._ankle_x[k0][side] <= lim and self._ankle_x[k1][side] <= lim

    # -- contact geometry ---------------------------------------------------------------------

    def contact_points(self, effector: str) -> np.ndarray:
        """(N, P, 3) the points of a floor contact whose floor position must not move: heel and
        toe of a foot, the palm of a hand, the joint of any other effector (a fist's
        wrist, an elbow, a knee, the pelvis)."""
        s = self.s
        if effector.startswith("foot_"):
            side = side_of(effector)
            return np.stack([s.landmark(f"heel_{side}"), s.landmark(f"toe_{side}")], axis=1)
        if effector.startswith("hand_"):
            return s.landmark(f"palm_{side_of(effector)}")[:, None, :]
        bone = self.rig["effectors"].get(effector, effector)
        return s.bone(bone)[:, None, :]

    def contact_height(self, effector: str) -> np.ndarray:
        """(N,) height (m) of a contact's lowest surface point above the floor: a foot's lower
        sole point (heel, toe); a hand's lowest of palm and fingertips; an elbow's joint minus
        ``elbowFloorHeight``; a knee's joint minus the thigh's distal radius; the pelvis's joint
        minus ``pelvisFloorMin``."""
        s = self.s
        side = side_of(effector)
        if effector.startswith("foot_"):
            return np.minimum(s.landmark(f"heel_{side}")[:, 1], s.landmark(f"toe_{side}")[:, 1])
        if effector.startswith(("hand_", "fist_")):
            names = [f"palm_{side}"] + [f"{d}_tip_{side}" for d in self.rig["digits"]]
            return np.min(np.stack([s.landmark(n)[:, 1] for n in names if n in s.landmarks]), axis=0)
        if effector.startswith("elbow_"):
            return s.bone(f"elbow_{side}")[:, 1] - float(self.solver["elbowFloorHeight"])
        if effector.startswith("knee_"):
            r = max(seg["r"][1] for seg in self.avatar["segments"] if seg["to"] == f"knee_{side}")
            return s.bone(f"knee_{side}")[:, 1] - r
        if effector == "pelvis":
            return s.bone("pelvis")[:, 1] - float(self.solver["pelvisFloorMin"])
        raise KeyError(effector)

    def to_frame(self, p: np.ndarray, mode: str, sl: slice = slice(None)) -> np.ndarray:
        """(n, P, 3) points (samples ``sl``) in a measuring frame: ``world``; ``travel`` (travel removed: a single
        locked foot is the pivot of a turn, carried by travel — solve.py); ``chor`` (turn and
        travel removed: the choreography frame, KR §13)."""
        if mode == "world":
            return p
        q = p.copy()
        q[..., 0] -= self.s.travel[sl, None, 0]
        q[..., 2] -= self.s.travel[sl, None, 1]
        if mode == "travel":
            return q
        th = np.radians(self.s.yaw[sl])[:, None]
        c, sn = np.cos(th), np.sin(th)
        x, z = q[..., 0].copy(), q[..., 2].copy()
        q[..., 0] = c * x - sn * z
        q[..., 2] = sn * x + c * z
        return q
