"""Floor pins between keyframes (issue 18, floor contacts that hold): a phase whose authored path
takes the upper body (an arm, the head) through the floor while a pin holds the body on it. The
runtime's floor clamp then lifts the whole figure off its pinned contact mid-phase (prone-on-elbows'
arms sweeping from beside the hips to under the shoulders lifted the pinned pelvis 39 cm;
docs/runtime.md "Known gaps"), which no phase-end solve sees. :func:`pin_lifts` samples the
authored path and says by how much, for ``kinematic-pin-lifted`` (motion/diagnostics.py).
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.vocabulary import EFFECTOR_BONE

from .fk import World
from .rig import SOLVER, avatar
from .solve.measure import contact_height
from .solve.pose import Pose
from .solve.swingclearance import clear_free_arms

__all__ = ["MID_SAMPLES", "limb_name", "pin_lifts"]

#: where in a phase (0–1) the authored path is sampled
MID_SAMPLES = (0.2, 0.35, 0.5, 0.65, 0.8)
#: bones the runtime does not lift the body for: free legs are cleared in their own chain
#: (swing clearance), so only the rest of the body can lift it off a pinned contact
_LEGS = ("hip_", "knee_", "ankle_")


def limb_name(bone: str) -> str:
    """What a reader calls the mesh a bone carries (its capsule from the parent joint): a digit's
    is the hand, a wrist's the forearm, an elbow's the upper arm ("left forearm")."""
    base, _, side = bone.rpartition("_")
    part = {"wrist": "forearm", "elbow": "upper arm", "thumb": "hand", "index": "hand", "middle": "hand",
            "ring": "hand", "pinky": "hand"}.get(base)
    return f"{side} {part}" if part else bone.replace("_", " ")


def _upper_lowest(w: World) -> tuple[float, str]:
    """Lowest mesh point (m) of every bone but the legs', and the bone that has it."""
    low = w.lowest_by_bone()
    return min((v, b) for b, v in low.items() if not b.startswith(_LEGS))


def pin_lifts(program, sol) -> list[tuple[int, str, float, float, str]]:
    """Per phase with a floor pin (not a travelling gait's stance feet): ``(phase index, effector,
    lift m, u, bone)`` where the joint angles interpolated linearly between the phase's start and end
    keyframes (the runtime's channels are monotone between them; :data:`MID_SAMPLES`), with the
    root turned as at the phase end and lowered until the pinned effector stands at its floor
    contact height (solve/measure.py ``contact_height``) and free arms cleared as the swing
    clearance pass clears them (``clear_free_arms``), put some bone other than a leg's more
    than ``plantTolerance`` (5 mm) further under the floor than at either keyframe (u = 0, 1): the
    floor clamp lifts the pinned effector by that ``lift`` at ``u`` beyond where the phase's ends
    hold it (``bone``: the one lowest there, whose mesh goes through). Only the worst sample of each phase and effector is returned."""
    av = avatar(program.avatar)
    tol = float(SOLVER["plantTolerance"])
    out = []
    prev = program.base_euler
    for i, (kf, ph) in enumerate(zip(program.keyframes, sol.phases)):
        start, prev = prev, kf.euler
        pins = [c.effector for c in kf.pins if c.target == "floor"]
        if kf.gait:
            pins = [e for e in pins if not e.startswith("foot_")]
        if not pins:
            continue
        end = ph.world
        for eff in pins:
            worst, ends = (0.0, 0.0, ""), []
            for u in (0.0, 1.0, *MID_SAMPLES):
                euler = {b: tuple((1 - u) * np.asarray(start.get(b, (0.0, 0.0, 0.0)), float)
                                  + u * np.asarray(kf.euler.get(b, (0.0, 0.0, 0.0)), float))
                         for b in set(start) | set(kf.euler)}
                pose = Pose(av, euler, end.root_pos, end.root_rot)
                # the pinned effector at its floor contact height: the root moves down (up) by its
                # excess; then free arms of a lying body swing out along the floor (the swing
                # clearance pass, after the pin)
                w = pose.world()
                pose.move((0.0, contact_height(w, eff) - float(w.pos[EFFECTOR_BONE[eff]][1]), 0.0))
                clear_free_arms(pose, kf)
                low, low_bone = _upper_lowest(pose.world())
                lift = -low
                if len(ends) < 2:   # what the keyframes themselves lift it by (a pose resting on the arms)
                    ends.append(max(0.0, lift))
                    continue
                lift -= max(ends)
                if lift > max(tol, worst[0]):
                    worst = (lift, u, low_bone)
            if worst[0] > 0:
                out.append((i, eff, *worst))
    return out
