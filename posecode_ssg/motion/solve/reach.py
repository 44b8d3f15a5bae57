"""The reach pass (KR §7, spec §5; runtime twin: ``runtime/solvers/reach.js``): CCD over the
limb chain of each reach, ROM-clamped every step; the root stays put. A hand on a wall rests on
its surface; a floor target is re-aimed as the limb's orientation changes its contact height,
and a palm reaching the floor presents its surface to it.
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.vocabulary import EFFECTOR_BONE, FLOOR

from ..rig import PROP_SURFACES, SOLVER, anchor_position
from .ccd import ccd
from .hands import palm_flat
from .limb import level_foot
from .measure import (
    arm_clearance,
    contact_height,
    effector_point,
    floor_target,
    landmark_bone,
    side_of,
)
from .swingclearance import clear_free_arms, clear_free_limbs


def run(st) -> None:
    """The reach pass of one phase end (``st``: :class:`~.plan.PhaseState`); then, while the body
    stands on a lock, a floor pin or a prop top, the feet reaching for the floor are kept out of it."""
    pose, kf = st.pose, st.kf
    chains = SOLVER["reachChains"]
    for c in kf.reaches:
        kind = c.effector.split("_")[0]
        chain = tuple(f"{j}_{side_of(c.effector)}" for j in chains[kind])
        w = pose.world()
        if c.target == FLOOR:
            tgt = floor_target(w, c)
        elif c.target in w.pos or c.target in EFFECTOR_BONE:
            tgt = w.pos[landmark_bone(c.target)].copy()
        else:
            tgt = np.asarray(anchor_position(c.target), float)
        end = (lambda ww, c=c: effector_point(ww, c.effector, c.target))
        widen = {j: pose.euler[j] for j in chain}
        ccd(pose, chain, end, tgt, widen)
        plane = PROP_SURFACES.get(c.target) if kind in ("hand", "fist") else None
        for _ in range(2 if plane else 0):
            # a hand on a wall rests on its surface: the target moves out along the face's
            # normal until the forearm and hand (capsule past the wrist) just touch it
            tgt = tgt + np.asarray(plane[:3], float) * arm_clearance(pose.world(), c.effector, plane)
            ccd(pose, chain, end, tgt, widen, float(SOLVER["gripStopDistance"]))
        if c.target == FLOOR:
            # the limb's new orientation changes its contact height: re-aim twice; a palm
            # reaching the floor presents its surface to it first (spec §5, palm_flat), thrice
            # (the re-aim turns the forearm again); so does the sole of a foot the weight shift
            # stands on (it bears the body: plantigrade levelling, KR §6.4; a foot on its ball by
            # intent keeps its pitch)
            sole = kind == "foot" and side_of(c.effector) in st.shift_sides
            for _ in range(3 if kind == "hand" else 2):
                if kind == "hand":
                    palm_flat(pose, side_of(c.effector))
                elif sole:
                    level_foot(pose, side_of(c.effector), st.sem_ankle[side_of(c.effector)])
                tgt = tgt.copy()
                tgt[1] = contact_height(pose.world(), c.effector)
                ccd(pose, chain, end, tgt, widen)
        st.reach_targets.append((c, tgt))
    if kf.reaches and (st.stands or st.on_top):
        clear_free_limbs(pose, kf, reached=True, start=st.prev.world, decided=st.decided)
    if st.stands:
        # a hand reaching for the floor presses its fingers through it: its arm swings out
        clear_free_arms(pose, kf, st.res.arms_swung)
