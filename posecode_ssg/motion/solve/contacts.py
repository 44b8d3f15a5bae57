"""The contact report of one solved phase end (runtime twin: ``runtime/solvers/contacts.js``):
each reach, pin and grip with its residual, the heel and toe heights of the reported feet, and
the planted feet whose sole rolls onto its edge.
"""

from __future__ import annotations

import math

from posecode_ssg.language.vocabulary import EFFECTOR_BONE, FLOOR

from ..fk import subtree
from ..rig import SOLVER
from ..rotation import norm3
from .measure import (
    SOLE_TILT_LIMIT,
    contact_residual,
    hold_error,
    landmark_bone,
    side_of,
    sideways_lean,
    sole_metrics,
)
from .results import ContactResult


def run(st) -> None:
    """Fill ``st.res`` (contacts, foot heel/toe heights, rolled soles), its world and angles.

    A reach to a landmark is measured against where the landmark is now (it moves with the
    body); a floor foot pin by its held point off its footprint and off the floor. A planted foot
    (floor-pinned, or ground-locked and held) on the floor whose leg leans sideways over it past
    the sole-tilt limit (:data:`~.measure.SOLE_TILT_LIMIT`, degrees) rolls onto its edge:
    recorded as (side, lean in degrees, the sole edge's rise in m)."""
    kf, res, pose = st.kf, st.res, st.pose
    w = pose.world()
    for c, tgt in st.reach_targets:
        t = tgt.copy()
        if c.target != FLOOR and (c.target in w.pos or c.target in EFFECTOR_BONE):
            t = w.pos[landmark_bone(c.target)]
        res.contacts.append(ContactResult("reach", c, t, contact_residual(w, c, t)))
    for c, a in st.pin_targets:
        key = (c.effector, c.target)
        if key in st.prints:
            s = side_of(c.effector)
            r = math.hypot(*hold_error(w, s, st.prints[key])[[0, 2]], w.lowest(subtree(f"ankle_{s}")))
        else:
            r = contact_residual(w, c, a)
        res.contacts.append(ContactResult("pin", c, a, r))
    for c, a in st.grip_targets:
        res.contacts.append(ContactResult("grip", c, a, float(norm3(w.pos[EFFECTOR_BONE[c.effector]] - a))))
    for rep in res.feet:
        rep.heel, rep.toe = sole_metrics(w, rep.side)
    planted = {side_of(c.effector) for c, _a in st.pin_targets if c.effector.startswith("foot") and c.target == FLOOR}
    planted |= {s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock and f"foot_{s}" in st.anchors}
    for s in sorted(planted):
        lean = sideways_lean(w, s)
        if abs(lean) > SOLE_TILT_LIMIT and w.lowest(subtree(f"ankle_{s}")) <= float(SOLVER["plantTolerance"]):
            res.rolled.append((s, lean, 0.5 * st.av.sole_size[0] * math.sin(math.radians(abs(lean)))))
    res.world = w
    res.euler = dict(pose.euler)
