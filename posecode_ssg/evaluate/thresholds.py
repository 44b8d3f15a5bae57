"""Thresholds of the eval metrics and the records they fill. Every definition, threshold and
source is listed in docs/eval.md; in short:

=====================  ======  ==========  =====================================================
metric (JSON key)      unit    limit       source
=====================  ======  ==========  =====================================================
``drift``              mm      ≤ 5         issue 5 item 4; bugs README "sole planted within N mm"
``heel_lift``          mm      ≤ 5         issue 5 item 4; bugs README
``toe_lift``           mm      ≤ 5         issue 5 item 4; bugs README
``sole_tilt``          °       ≤ 5         issue 5 item 4 (KR §12 uses 12°)
``grip_residual``      mm      ≤ 5         issue 5 item 4
``pin_residual``       mm      ≤ 5         our choice: a prop pin is exact (spec §5 "pin")
``reach_residual``     mm      listed >10  issue 5 item 4 (never fails)
``penetration``        mm      ≤ 5         issue 5 item 4; faces and capsules KR §10.1
``self_collision``     mm      ≤ 5         issue 5 item 4; capsules KR §10.2
``float``              mm      ≤ 5         issue 18 item 3; spec §6 (lowest point on the floor)
``support``            mm      ≤ 20        issue 19 item 4 (centre of mass over the base of support)
``rom``                count   0           issue 5 item 4; boxes ``rig.json`` ``rom`` ± 0.5°
``velocity_jump``      rad/s   see below   spec §4 "C1-continuous"; docs/runtime.md exemptions
``pop``                °       listed >5   our choice: a joint's step between samples (never fails)
=====================  ======  ==========  =====================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from posecode_ssg.motion.support import BALANCE_LIMIT


@dataclass(frozen=True)
class Metric:
    """One metric: JSON ``key``, table ``label``, ``unit``, the ``limit`` a value may reach, and
    whether crossing it fails the document (``fails``; reach residuals are only listed)."""

    key: str
    label: str
    unit: str
    limit: float
    fails: bool = True


METRICS: tuple[Metric, ...] = (
    Metric("drift", "drift", "mm", 5.0),
    Metric("heel_lift", "heel", "mm", 5.0),
    Metric("toe_lift", "toe", "mm", 5.0),
    Metric("sole_tilt", "tilt", "°", 5.0),
    Metric("grip_residual", "grip", "mm", 5.0),
    Metric("pin_residual", "pin", "mm", 5.0),
    Metric("reach_residual", "reach", "mm", 10.0, fails=False),
    Metric("penetration", "prop", "mm", 5.0),
    Metric("self_collision", "self", "mm", 5.0),
    Metric("float", "float", "mm", 5.0),
    Metric("support", "support", "mm", BALANCE_LIMIT * 1000.0),
    Metric("rom", "rom", "", 0.0),
    Metric("velocity_jump", "C1", "rad/s", 0.0),   # limit per keyframe: VELOCITY_* below
    Metric("pop", "pop", "°", 5.0, fails=False),
)
METRIC = {m.key: m for m in METRICS}

#: Euler tolerance (degrees) of the range-of-motion check: quaternions in the motion JSON are
#: rounded to 4 decimals (≈ 0.012°) and the solver clamps in Euler space; 0.5° is far above both
ROM_TOLERANCE_DEG = 0.5
#: angular-velocity continuity at a keyframe where C1 is required: the jump of any bone's local
#: angular velocity across the keyframe may be at most VELOCITY_ABS + VELOCITY_REL × the larger
#: of the two speeds (second-order one-sided differences over ±2 ms: their error is O(h²·jerk),
#: far under VELOCITY_ABS). 0.5 rad/s changes the per-frame step at 60 Hz by under 0.5°, which
#: no reader sees; the relative part keeps fast moves from failing on rounding.
VELOCITY_ABS = 0.5
VELOCITY_REL = 0.1
#: timing modes whose keyframes are not C1 by design (docs/runtime.md "Timeline": a snap arrival
#: stops sharply; a linear segment moves at constant speed)
NON_C1_ARRIVAL = ("snap", "linear")
NON_C1_DEPARTURE = ("linear",)


@dataclass
class Violation:
    """A threshold crossed: ``metric`` key, time ``t`` (s, within the loop), ``phase`` name
    (``"wrap"`` for the loop reset), ``value`` (the worst of a contiguous run), ``limit``,
    ``subject`` (the contact, bone or body part), ``explained`` (the numpy solve's kinematic
    diagnostic that predicts it: ``{line, column, code, message}``) and ``fails``."""

    metric: str
    t: float
    phase: str
    value: float
    limit: float
    subject: str
    fails: bool = True
    explained: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"metric": self.metric, "t": round(self.t, 4), "phase": self.phase,
             "value": round(self.value, 3), "limit": self.limit, "subject": self.subject,
             "fails": self.fails and self.explained is None}
        if self.explained is not None:
            d["explained"] = self.explained
        return d


@dataclass
class DocumentMetrics:
    """Worst value per metric (None: nothing to measure) and the violations."""

    worst: dict[str, float | None] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
