"""Range of motion: solved local rotations against the ``rig.json`` ``rom`` boxes (docs/eval.md
``rom``)."""

from __future__ import annotations

import numpy as np

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.runs import run_violations
from posecode_ssg.evaluate.thresholds import ROM_TOLERANCE_DEG, DocumentMetrics
from posecode_ssg.motion.rotation import euler_xyz


def box_excess(e: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """(...,) degrees by which Euler triples e (..., 3) lie outside the box [lo, hi] (3,), the
    largest over the axes; an angle counts modulo a full turn (a shoulder flexed to −180.2° reads
    as +179.8° from atan2 and is 0.2° past a −180° limit, not 119.8° past +60°)."""
    out = np.full(e.shape, np.inf)
    for turn in (-360.0, 0.0, 360.0):
        v = e + turn
        out = np.minimum(out, np.maximum(np.maximum(lo - v, v - hi), 0.0))
    return out.max(axis=-1)


def rom_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Range-of-motion violations: samples × bones whose solved local rotation lies outside its
    ``rig.json`` ``rom`` box by more than :data:`ROM_TOLERANCE_DEG` in both Euler decompositions
    (:func:`box_excess`). The worst value is the count over one loop; each violation's value is
    the excess in degrees."""
    s = ctx.s
    count = 0
    for bi, bone in enumerate(s.bones):
        box = ctx.rig["rom"].get(bone)
        if box is None:
            continue
        lo = np.array([box[a][0] for a in "xyz"])
        hi = np.array([box[a][1] for a in "xyz"])
        e1, e2 = euler_xyz(s.local[:, bi])
        excess = np.minimum(box_excess(e1, lo, hi), box_excess(e2, lo, hi))
        bad = (excess > ROM_TOLERANCE_DEG) & (s.t < s.timing.duration)   # one loop's samples
        count += int(bad.sum())
        res.violations += run_violations(ctx, "rom", bone, excess, np.ones(ctx.n, bool), ROM_TOLERANCE_DEG)
    for v in res.violations:
        if v.metric == "rom":
            v.limit = 0.0
    res.worst["rom"] = float(count)
