"""The props pass (KR §10.1; runtime twin: ``runtime/solvers/props.js``): body-resolving prop
faces push the body out along their normals.
"""

from __future__ import annotations

import numpy as np

from ..rig import PROP_GEOMETRY, SOLVER
from .pose import Pose


def body_faces(props: list[str]) -> list[dict]:
    """The prop faces that push the body (KR §10.1: ``resolve: body``) of ``props``."""
    return [f for p in props for f in PROP_GEOMETRY[p]["faces"] if f["resolve"] == "body"]


def face_push(pose: Pose, props: list[str], apply: bool = True) -> np.ndarray:
    """Body-resolving prop faces (KR §10.1): sample torso, head and shins as spheres; translate the
    root along each face's normal by the deepest owned sample. Two passes. Returns the total
    translation (m); with ``apply`` false the pose is left where it was (a measurement)."""
    faces = body_faces(props)
    total = np.zeros(3)
    if not faces:
        return total
    start = pose.root_pos.copy()
    for _ in range(int(SOLVER["propBodyPasses"])):
        for f in faces:
            w = pose.world()
            col = w.avatar.collision
            samples = []
            parts = set(f["blocks"])
            if parts & {"torso", "all"}:
                samples += [(w.pos["pelvis"] + t * (w.pos["neck"] - w.pos["pelvis"]), col["torso"])
                            for t in (0, 0.33, 0.66, 1)]
            if parts & {"head", "all"}:
                samples.append((w.pos["head"], col["head"]))
            if parts & {"shins", "all"}:
                for s in ("left", "right"):
                    samples += [(w.pos[f"knee_{s}"] + t * (w.pos[f"ankle_{s}"] - w.pos[f"knee_{s}"]), col["shin"])
                                for t in (0, 0.33, 0.66, 1)]
            c, n = np.asarray(f["center"]), np.asarray(f["normal"])
            u, v = np.asarray(f["u"]), np.asarray(f["v"])
            depth = 0.0
            for p, r in samples:
                d = float((p - c) @ n)
                if -f["capture"] <= d < r and abs(float((p - c) @ u)) <= f["halfU"] + r \
                        and abs(float((p - c) @ v)) <= f["halfV"] + r:
                    depth = max(depth, r - d)
            if depth > 1e-4:
                pose.move(n * depth)
                total += n * depth
    if not apply:
        pose.move(start - pose.root_pos)
    return total


def run(st) -> None:
    """The props pass of one phase end: the body-resolving faces push the body (``st.push``: the
    translation)."""
    st.push = face_push(st.pose, st.program.props)
