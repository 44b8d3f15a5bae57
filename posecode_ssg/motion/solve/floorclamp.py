"""The floor clamp (KR §6.1 step 14; runtime twin: ``runtime/solvers/floorclamp.js``):
floor-bound phases (no grip, no pin but on the floor) touch the floor; no phase sinks into it.
"""

from __future__ import annotations

from posecode_ssg.language.vocabulary import FLOOR


def run(st) -> None:
    """The floor clamp of one phase end (``st``: :class:`~.plan.PhaseState`)."""
    pose = st.pose
    floor_bound = not st.grip_targets and all(c.target == FLOOR for c, _ in st.pin_targets)
    low = pose.world().lowest()
    if low < 0 or floor_bound:
        pose.move((0.0, -low, 0.0))
