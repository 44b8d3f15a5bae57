"""The pin pass (KR §8; runtime twin: ``runtime/solvers/pin.js``): the root moves so each pinned
effector meets its anchor; a floor-pinned foot holds its footprint; a travelling gait's floor
foot pins are stance legs.
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.vocabulary import EFFECTOR_BONE, FLOOR

from ..fk import subtree
from ..rig import anchor_position
from .limb import leg_drop, level_foot, swivel, two_bone
from .measure import contact_height, effector_point, footprint, hold_error, side_of
from .pose import Pose
from .results import FootReport
from .swingclearance import clear_free_limbs


def stance_hold(pose: Pose, side: str, footprint: tuple[np.ndarray, np.ndarray], authored_x: float) -> None:
    """A stance foot of a travelling gait holds its footprint (no slide late in a step):
    twice — level the foot (``level_foot``), take its held point's error, lower the root until
    the hip is within a straight leg of the ankle target (the ankle moved by that error, at the
    height that keeps the foot on the floor), two-bone leg IK onto it — then level once more and
    move the root horizontally by what is left, which the leg's boxes (20° of hip extension, 15°
    of ankle dorsiflexion at the end of a long step) cannot take: the body stays back over the
    foot instead of dragging it. After each IK the leg swivels back to the foot's planted heading
    (:func:`swivel`): a leg leaning sideways over it turned the foot about its held point, the
    toe of box-step's side step sweeping 11 mm. Same steps in runtime/solvers/pin.js ``stance``."""
    ankle = f"ankle_{side}"
    for _ in range(2):
        level_foot(pose, side, authored_x)
        w = pose.world()
        t = w.pos[ankle] + hold_error(w, side, footprint)
        t[1] = w.pos[ankle][1] - w.lowest(subtree(ankle))
        pose.move((0.0, -max(0.0, leg_drop(pose.av, w, side, t)), 0.0))
        two_bone(pose, f"hip_{side}", f"knee_{side}", ankle, t)
        swivel(pose, side, footprint[1], 1.0)   # and keeps the heading it was planted with
    level_foot(pose, side, authored_x)
    e = hold_error(pose.world(), side, footprint)
    pose.move((float(e[0]), 0.0, float(e[2])))


def run(st) -> None:
    """The pin pass (KR §8): translate the root so each pinned effector meets its anchor.

    A floor pin plants where the effector was when the phase began (world fixed, KR §8: not
    carried by travel, so a walk steps over its stance foot), or where the same pin held it at the
    previous phase end; a floor-pinned foot holds its footprint like a locked foot (levelled,
    then its held point onto its footprint). In a travelling gait (:func:`posecode_ssg.motion.support.is_gait`) floor
    foot pins are stance legs: the root is lowered until each stance hip is within a straight leg
    of its plant and the leg's two-bone IK puts the foot there. A pinned floor foot is then
    levelled and set on the floor."""
    pose, kf, prev, res = st.pose, st.kf, st.prev, st.res
    pin_targets = st.pin_targets
    prints = st.prints
    for c in kf.pins:
        w = pose.world()
        key = (c.effector, c.target)
        if c.target == FLOOR:
            if key in prev.pins:
                a = prev.pins[key].copy()
            else:
                a = prev.world.pos[EFFECTOR_BONE[c.effector]].copy()
            a[1] = contact_height(w, c.effector)
            if c.effector.startswith("foot"):   # its footprint, held like a locked foot's
                prints[key] = prev.prints[key] if key in prev.pins else footprint(prev.world, side_of(c.effector))
        else:
            a = np.asarray(anchor_position(c.target), float)
        pin_targets.append((c, a))
    stance = st.stance = bool(st.gait and pin_targets and all(c.effector.startswith("foot") and c.target == FLOOR
                                                              for c, _ in pin_targets))
    if stance:
        # a tilted stance leg reaches less far down: lower the root until the hip is within a
        # straight leg of the plant, then the two-bone leg IK puts the foot on it
        if not kf.ground_lock:   # from the grounded pose, as the runtime's grounding pass leaves it
            pose.move((0.0, -pose.world().lowest(), 0.0))
        w = pose.world()
        drop = max(leg_drop(st.av, w, side_of(c.effector), a) for c, a in pin_targets)
        pose.move((0.0, -max(drop, 0.0), 0.0))
        for c, a in pin_targets:
            s = side_of(c.effector)
            two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", a)
        clear_free_limbs(pose, kf, arriving=st.arriving, start=prev.world, decided=st.decided)
    elif pin_targets:
        deltas = []
        for c, a in pin_targets:
            key = (c.effector, c.target)
            if key in prints:   # a floor foot: levelled, then its held point onto its footprint
                s = side_of(c.effector)
                level_foot(pose, s, st.sem_ankle[s])
                w = pose.world()
                d = hold_error(w, s, prints[key])
                d[1] = a[1] - w.pos[f"ankle_{s}"][1]
            else:
                w = pose.world()
                d = a - effector_point(w, c.effector, c.target)
            deltas.append(d)
        pose.move(np.mean(deltas, axis=0))
    for c, a in pin_targets:
        if c.effector.startswith("foot") and c.target == FLOOR:
            s = side_of(c.effector)
            rep = level_foot(pose, s, st.sem_ankle[s])
            # a stance foot of a travelling gait that cannot stay flat is pushing off (heel
            # rising): expected, not reported (KR §13 skips toe-down push-offs)
            if rep is not None and not stance:
                res.feet.append(FootReport(s, rep[0], rep[1], 0.0, 0.0))
            if stance:
                stance_hold(pose, s, prints[(c.effector, c.target)], st.sem_ankle[s])
            pose.move((0.0, -(pose.world().lowest(subtree(f"ankle_{s}"))), 0.0))
