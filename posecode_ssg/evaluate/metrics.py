"""Fidelity metrics of a sampled runtime loop, computed with numpy from :class:`Samples` and
``rig.json`` (docs/eval.md lists every definition, threshold and source). The public entry:
:func:`evaluate_samples` runs every metric family on one document and :func:`explain` marks the
crossings a kinematic diagnostic predicts. One module per family, below this one:

- :mod:`~posecode_ssg.evaluate.thresholds`: the metrics, their limits and the result records;
- :mod:`~posecode_ssg.evaluate.context`: what every metric reads (samples, contacts, frames);
- :mod:`~posecode_ssg.evaluate.runs`: one violation per contiguous run of offending samples;
- :mod:`~posecode_ssg.evaluate.planted`: drift, heel and toe lift, sole tilt;
- :mod:`~posecode_ssg.evaluate.anchored`: grip, prop-pin and reach residuals;
- :mod:`~posecode_ssg.evaluate.props`: prop penetration;
- :mod:`~posecode_ssg.evaluate.self_collision`: self-collision depth;
- :mod:`~posecode_ssg.evaluate.floor`: float (the lowest point of a figure nothing holds up);
- :mod:`~posecode_ssg.evaluate.support`: support (the centre of mass over the base of support);
- :mod:`~posecode_ssg.evaluate.rom`: range of motion;
- :mod:`~posecode_ssg.evaluate.velocity`: angular-velocity continuity at keyframes;
- :mod:`~posecode_ssg.evaluate.explain`: explained crossings.

The quaternion maths comes from :mod:`posecode_ssg.motion.rotation`.
"""

from __future__ import annotations

from typing import Any

from posecode_ssg.evaluate.anchored import anchored_metrics
from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.explain import explain
from posecode_ssg.evaluate.floor import floor_metrics, held_up, lowest_points
from posecode_ssg.evaluate.planted import held_contacts, pivot_drift, planted_metrics
from posecode_ssg.evaluate.props import body_capsules, prop_metrics
from posecode_ssg.evaluate.support import support_metrics
from posecode_ssg.evaluate.rom import box_excess, rom_metrics
from posecode_ssg.evaluate.sampler import Samples
from posecode_ssg.evaluate.self_collision import (
    point_segment_distance,
    self_collision_metrics,
)
from posecode_ssg.evaluate.thresholds import (
    METRIC,
    METRICS,
    NON_C1_ARRIVAL,
    NON_C1_DEPARTURE,
    ROM_TOLERANCE_DEG,
    VELOCITY_ABS,
    VELOCITY_REL,
    DocumentMetrics,
    Metric,
    Violation,
)
from posecode_ssg.evaluate.pops import pop_metrics
from posecode_ssg.evaluate.velocity import keyframe_c1_required, velocity_metrics
from posecode_ssg.motion.rotation import euler_xyz, quat_matrices, rotation_vectors

__all__ = [
    "evaluate_samples", "explain", "Context", "Metric", "METRICS", "METRIC", "Violation", "DocumentMetrics",
    "ROM_TOLERANCE_DEG", "VELOCITY_ABS", "VELOCITY_REL", "NON_C1_ARRIVAL", "NON_C1_DEPARTURE",
    "planted_metrics", "held_contacts", "pivot_drift", "anchored_metrics", "prop_metrics", "body_capsules",
    "self_collision_metrics", "point_segment_distance", "floor_metrics", "held_up", "lowest_points",
    "rom_metrics", "box_excess", "velocity_metrics",
    "keyframe_c1_required", "quat_matrices", "euler_xyz", "rotation_vectors",
]


def evaluate_samples(samples: Samples, motion: dict[str, Any], rig: dict[str, Any]) -> DocumentMetrics:
    """Every metric of one sampled document (``samples`` of the runtime over one loop and the first
    segment again, its ``motion`` JSON, ``rig.json``); violations sorted by time."""
    ctx = Context(samples, motion, rig)
    res = DocumentMetrics()
    planted_metrics(ctx, res)
    anchored_metrics(ctx, res)
    prop_metrics(ctx, res)
    self_collision_metrics(ctx, res)
    floor_metrics(ctx, res)
    support_metrics(ctx, res)
    rom_metrics(ctx, res)
    velocity_metrics(ctx, res)
    pop_metrics(ctx, res)
    res.worst = {m.key: res.worst.get(m.key) for m in METRICS}
    # the extended sample range repeats the first segment: keep one copy of each violation
    # (the larger, should the two loops differ by rounding)
    best: dict[tuple, Violation] = {}
    for v in res.violations:
        key = (v.metric, v.subject, round(v.t, 3))
        if key not in best or v.value > best[key].value:
            best[key] = v
    res.violations = sorted(best.values(), key=lambda v: (v.t, v.metric, v.subject))
    return res
