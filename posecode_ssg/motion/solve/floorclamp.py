"""The floor clamp (KR §6.1 step 14; runtime twin: ``runtime/solvers/floorclamp.js``):
floor-bound phases (no grip, no pin but on the floor) touch the floor; no phase sinks into it.
"""

from __future__ import annotations


def run(st) -> None:
    """The floor clamp of one phase end (``st``: :class:`~.plan.PhaseState`)."""
    pose = st.pose
    low = pose.world().lowest()
    if low < 0 or not st.kf.hang:   # floor-bound: set down (motion/support.py hangs)
        pose.move((0.0, -low, 0.0))
