"""Angular-velocity continuity at the keyframes where C1 is required (docs/eval.md
``velocity_jump``; spec §4 "C1-continuous")."""

from __future__ import annotations

import numpy as np

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.thresholds import (
    NON_C1_ARRIVAL,
    NON_C1_DEPARTURE,
    VELOCITY_ABS,
    VELOCITY_REL,
    DocumentMetrics,
    Violation,
)
from posecode_ssg.motion.rotation import rotation_vectors


def keyframe_c1_required(ctx: Context, k: int) -> tuple[bool, str, str]:
    """Whether keyframe ``k`` of the extended sample sequence must be C1, with its incoming and
    outgoing modes. Keyframe k ≥ number of segments is the loop seam again."""
    T = ctx.s.timing
    S = len(T.modes)
    j = k % S
    m_in, m_out = T.modes[(j - 1) % S], T.modes[j]
    req = m_in not in NON_C1_ARRIVAL and m_out not in NON_C1_DEPARTURE
    return req, m_in, m_out


def velocity_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Angular-velocity continuity: at each keyframe where C1 is required
    (:func:`keyframe_c1_required`), every bone's local angular velocity just before and just after
    the keyframe, body frame, rad/s, by second-order one-sided differences of the rotation
    vectors r(x) of q(t)⁻¹·q(t + x) at x = ±1, ±2 ms: ω₋ = (r(−2h) − 4 r(−h)) / 2h,
    ω₊ = (4 r(h) − r(2h)) / 2h (their error is O(h²), so acceleration does not read as a jump).
    The jump |ω₊ − ω₋| may be at most VELOCITY_ABS + VELOCITY_REL·max(|ω₋|, |ω₊|). The worst
    value is the largest jump in excess of that allowance (0 when all hold)."""
    s = ctx.s
    worst = 0.0
    for k, i in s.keys:
        req, m_in, m_out = keyframe_c1_required(ctx, k)
        if not req:
            continue
        h = (s.t[i + 2] - s.t[i - 2]) / 4.0
        q0 = s.local[i]
        r = {j: rotation_vectors(q0, s.local[i + j]) for j in (-2, -1, 1, 2)}
        wb = (r[-2] - 4.0 * r[-1]) / (2.0 * h)
        wa = (4.0 * r[1] - r[2]) / (2.0 * h)
        jump = np.linalg.norm(wa - wb, axis=-1)
        allow = VELOCITY_ABS + VELOCITY_REL * np.maximum(np.linalg.norm(wa, axis=-1), np.linalg.norm(wb, axis=-1))
        over = jump - allow
        b = int(np.argmax(over))
        if over[b] > 0:
            worst = max(worst, float(over[b]))
            res.violations.append(Violation("velocity_jump", float(ctx.loop_t[i]), ctx.phase_name(i),
                                            float(jump[b]), round(float(allow[b]), 3),
                                            f"{s.bones[b]} ({m_in}→{m_out})"))
    res.worst["velocity_jump"] = worst
