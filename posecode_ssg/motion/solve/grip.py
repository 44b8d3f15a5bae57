"""The grip pass (KR §9.2; runtime twin: ``runtime/solvers/grip.js``): the body hangs from the
hands that take hold of a bar: the root moves by the mean (anchor − wrist) of the hands that
already held their bar at the previous phase end (the body hangs from them while another hand
takes hold), or of every gripping hand when none did; then each arm's CCD puts its wrist on
the anchor, the palm turns down onto dip-bar rails and the hand closes.
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.vocabulary import EFFECTOR_BONE

from ..rig import SOLVER, anchor_position
from .ccd import ccd
from .hands import close_hand, palm_down
from .measure import side_of


def run(st) -> None:
    """The grip pass of one phase end (``st``: :class:`~.plan.PhaseState`)."""
    pose = st.pose
    grip_targets = st.grip_targets
    grip_targets.extend((c, np.asarray(anchor_position(c.target), float)) for c in st.kf.grips)
    if not grip_targets:
        return
    w = pose.world()
    held = [(c, a) for c, a in grip_targets if (c.effector, c.target) in st.prev.grips] or grip_targets
    delta = np.mean([a - w.pos[EFFECTOR_BONE[c.effector]] for c, a in held], axis=0)
    pose.move(delta)
    for c, a in grip_targets:
        s = side_of(c.effector)
        chain = tuple(f"{j}_{s}" for j in SOLVER["reachChains"]["hand"])   # the arm, as a hand reaches
        ccd(pose, chain, lambda ww, b=EFFECTOR_BONE[c.effector]: ww.pos[b], a,
            {j: pose.euler[j] for j in chain}, float(SOLVER["gripStopDistance"]))
        if c.target.startswith("bars"):
            palm_down(pose, s)
        close_hand(pose, s)
