"""The self-collision pass (KR §10.2; runtime twin: ``runtime/solvers/selfcollision.js``): free
limbs are kept out of the torso, the head and the other leg.

The correction is KR §10.2's bounded push: up to ``selfIterations`` steps, each turning the
joint about (lever × push direction) by min(depth / lever, ``selfStepDeg``, what is left of the
cap), the Euler angles clamped into the joint's ROM box widened to the incoming value. It is a
pure function of the pose (no jitter). A limb that holds a contact (pin, grip or reach of its
hand, fist, elbow, foot or knee) is governed by its contact and is not moved. The overlaps are
measured by ``motion/collide.py``.
"""

from __future__ import annotations

import math

from ..collide import LIMBS, deepest, unit
from ..rig import SOLVER
from ..rotation import cross3, norm3, turned_euler
from .pose import clamp_box
from .swingclearance import clear_free_arms, clear_free_limbs


def resolve_self_collision(pose, exempt: set[str], held: set[str] = frozenset()) -> None:
    """Bounded self-collision push (module docstring) on a working pose of the keyframe solve
    (:class:`~.pose.Pose`).
    ``exempt``: effector names holding a contact this phase (their limbs are not pushed).
    ``held``: those of them held by a reach, pin or grip; an **arm** among them is instead
    **swivelled**: the shoulder turns about the shoulder → wrist axis, which moves the elbow and
    forearm out of the body while the hand stays on its target (each step by
    min(depth / distance from the axis, ``selfStepDeg``), in the direction that moves the deepest
    sample along its push, the same cap and box). Mutates ``pose``."""
    step_cap = float(SOLVER["selfStepDeg"])
    for limb, (side, joint, effectors) in LIMBS.items():
        swivel = limb.startswith("arm") and bool(held.intersection(effectors))
        if exempt.intersection(effectors) and not swivel:
            continue
        cap = float(SOLVER["selfArmMaxDeg"] if limb.startswith("arm") else SOLVER["selfLegMaxDeg"])
        widen = pose.euler[joint]
        total = 0.0
        for _ in range(int(SOLVER["selfIterations"])):
            w = pose.world()
            depth, p, n, _name = deepest(w, limb)
            if depth <= 1e-4 or n is None or total >= cap:
                break
            if swivel:
                ax = unit(w.pos[f"wrist_{side}"] - w.pos[joint])
                move = cross3(ax, p - w.pos[joint])   # sample velocity per radian about ax
                mn = float(norm3(move))
                along = float(move.dot(n))
                if mn < 1e-6 or abs(along) < 1e-9 or float(ax.dot(ax)) < 0.5:
                    break
                step = min(math.degrees(depth / mn), step_cap, cap - total)
                turned = turned_euler(pose.local[joint], w.rot[joint], ax, math.radians(step if along > 0 else -step))
                pose.set_euler(joint, clamp_box(joint, turned, widen))
                total += step
                continue
            lever = p - w.pos[joint]
            ln = float(norm3(lever))
            ax = cross3(lever, n)
            an = float(norm3(ax))
            if ln < 1e-6 or an < 1e-9:
                break
            step = min(math.degrees(depth / ln), step_cap, cap - total)
            turned = turned_euler(pose.local[joint], w.rot[joint], ax / an, math.radians(step))
            pose.set_euler(joint, clamp_box(joint, turned, widen))
            total += step


def run(st) -> None:
    """The self-collision pass of one phase end (``st``: :class:`~.plan.PhaseState`); then a free
    leg the push took through the floor is cleared in its own chain, not by the floor clamp."""
    kf = st.kf
    held = {c.effector for c in list(kf.pins) + list(kf.grips) + list(kf.reaches)}
    resolve_self_collision(st.pose, set(kf.ground_lock) | held, held)
    if st.stands:
        clear_free_limbs(st.pose, kf, arriving=st.arriving, start=st.prev.world, decided=st.decided)
        clear_free_arms(st.pose, kf, st.res.arms_swung)
