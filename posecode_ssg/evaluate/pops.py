"""Continuity between the keyframes (docs/eval.md ``pop``): a solved joint that jumps from one
sample to the next inside a segment.

``velocity_jump`` checks the keyframes, where the timeline's modes decide what continuity is
owed. Inside a segment the authored angles are interpolated smoothly (runtime/timeline.js), so
a joint's step from one sample to the next changes only by its acceleration times the square of
the sample spacing (0.5° at 60 Hz for 2000°/s², a quick arm swing's); a solver pass that
switches from one solution to another between two samples (a free foot's ankle turned the other
way, an arm's reach flipping its elbow) makes one step stand out from both of its neighbours.

For each bone and each sample step i inside one segment (steps i − 1, i, i + 1 all between
samples of the same segment): the step's rotation angle θᵢ (degrees: the angle of qᵢ⁻¹·qᵢ₊₁ of
its local quaternion) less the larger of its neighbours', max(0, θᵢ − max(θᵢ₋₁, θᵢ₊₁)). The
document's worst value is the largest; above its limit (5°, :data:`~.thresholds.METRICS`) it is listed (it does
not fail the document: a measure of what the solver passes do between keyframes, meaningful at
30 Hz and above, where smooth motion stays far under the limit)."""

from __future__ import annotations

import numpy as np

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.runs import merge_worst, run_violations
from posecode_ssg.evaluate.thresholds import METRIC, DocumentMetrics


def step_angles(local: np.ndarray) -> np.ndarray:
    """(N − 1, B) the angle (degrees) each bone's local rotation turns between consecutive
    samples of ``local`` (N, B, 4) unit quaternions: 2·acos|qᵢ·qᵢ₊₁|."""
    d = np.abs(np.sum(local[1:] * local[:-1], axis=-1))
    return np.degrees(2.0 * np.arccos(np.clip(d, 0.0, 1.0)))


def pop_excess(steps: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """(N − 1, B) each step's excess (degrees) over the larger of its two neighbours, 0 where the
    step or a neighbour is not ``inside`` ((N − 1,): between two samples of one segment, time
    advancing)."""
    out = np.zeros_like(steps)
    ok = inside[1:-1] & inside[:-2] & inside[2:]
    ex = steps[1:-1] - np.maximum(steps[:-2], steps[2:])
    out[1:-1] = np.where(ok[:, None], np.maximum(ex, 0.0), 0.0)
    return out


def pop_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """``pop``: see the module docstring; one listed violation per run of a bone's excess over
    the limit, at the later sample of the step (its subject the bone)."""
    s, metric = ctx.s, METRIC["pop"]
    if ctx.n < 4:
        merge_worst(res, "pop", None)
        return
    inside = (s.segment[1:] == s.segment[:-1]) & (np.diff(s.t) > 1e-9)
    excess = pop_excess(step_angles(s.local), inside)
    merge_worst(res, "pop", float(excess.max()))
    at_sample = np.zeros(ctx.n)
    for bi, bone in enumerate(s.bones):
        at_sample[1:] = excess[:, bi]
        res.violations += run_violations(ctx, "pop", bone, at_sample, np.ones(ctx.n, bool), metric.limit,
                                         metric.fails)
