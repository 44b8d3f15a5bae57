"""The weight-shift pass (issue 19 item 2; runtime twin: ``runtime/solvers/balance.js``): a body
standing on one foot (that foot locked and held, or pinned to the floor; the other free: lifted,
reaching, tapping) moves its pelvis over the stance foot until the centre of mass lies over the
stance sole, the stance leg keeping its foot where it is; back to centre as the other foot
comes down to bear weight.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.vocabulary import FLOOR

from ..fk import BONES, joint_xyz, subtree
from ..rest import centre_of_mass
from ..support import BOTH_FEET, stance_foot
from ..rig import SOLVER
from .groundlock import hold_weight
from .limb import level_foot, swivel, tiptoe_share, two_bone
from .measure import footprint, hold_error
from .pose import Pose

def corner_weights(corners: np.ndarray) -> np.ndarray:
    """(4,) how much each bottom corner of a sole box bears (0–1), from ``corners`` (4, 3) in
    the box's order (heel −x, toe −x, heel +x, toe +x: :meth:`World.sole_corners`): by its
    height over the lowest of them, as the rest of the body is judged
    (:func:`~.groundlock.hold_weight` over ``solver.shiftHeightBand``: 1 within 5 mm, 0 from
    1 cm, where eval's support stops counting a contact). Same rule in runtime/solvers/balance.js
    ``measureStance``."""
    low = corners[:, 1].min()
    return np.array([hold_weight(float(h - low), SOLVER["shiftHeightBand"]) for h in corners[:, 1]])


def over_base(corners: np.ndarray, w: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Where the centre of mass ``c`` (2, x z) goes to stand over a stance sole: the nearest point
    of its base, ``c`` itself when inside. The base is the sole's rectangle (``corners`` (4, 2),
    x z, in :func:`corner_weights`' order) in the foot's own axes, each edge moved in across the
    rectangle by 1 − the larger weight ``w`` of its two corners: the whole sole while flat or
    rolled a few degrees, the ball's edge alone once the heel is up 1 cm (continuous between:
    the back edge slides; a heel coming down does not make the base jump), and so the inner
    edge of the ball on one's toes (where a calf raise bears weight, the first metatarsal head).
    Each edge lies ``solver.shiftMargin`` (15 mm) outside the box: the rig's sole box is 75 mm
    wide and 185 mm long, a person's forefoot about 100 mm and foot 250 mm, so the box's edges
    lie that far inside a real sole's (and the leg leans, and the sole rolls, less: the rig's
    ankle is a hinge); within eval's 20 mm. The nearest point of a rectangle in its own axes
    clamps each coordinate (1-Lipschitz in the point and the edges: the target moves with
    them, never jumps along an edge). Same steps in
    runtime/solvers/balance.js ``overBase``."""
    origin = corners[0]
    u = 0.5 * (corners[1] + corners[3] - corners[0] - corners[2])   # heel -> toe
    v = 0.5 * (corners[2] + corners[3] - corners[0] - corners[1])   # -x side -> +x side
    length, width = float(np.hypot(*u)), float(np.hypot(*v))
    u, v = u / max(length, 1e-12), v / max(width, 1e-12)
    back, front, minus, plus = max(w[0], w[2]), max(w[1], w[3]), max(w[0], w[1]), max(w[2], w[3])
    m = float(SOLVER["shiftMargin"])
    a = min(max(float((c - origin) @ u), (1.0 - back) * length - m), length - (1.0 - front) * length + m)
    b = min(max(float((c - origin) @ v), (1.0 - minus) * width - m), width - (1.0 - plus) * width + m)
    return origin + a * u + b * v


def lean_share(hip: np.ndarray, moved: np.ndarray, heading: np.ndarray) -> float:
    """The largest share (0–1) of the root move ``moved`` (3,) that leans the stance leg no more
    than ``solver.shiftLeanLimit`` degrees across its foot, or no more than it already leans
    (``hip`` (3,): the stance hip joint less the ankle before the move; ``heading`` (3,): heel →
    toe). The lean is the angle of the hip → ankle line from the vertical in the foot's frontal
    plane (measure.py ``sideways_lean``); the rig's ankle only flexes and extends, so the sole
    rolls onto its edge by as much, and eval fails a planted sole tilted past 5°."""
    n = np.array((heading[2], 0.0, -heading[0]))
    n /= max(float(np.hypot(n[0], n[2])), 1e-12)
    a0, da = float(hip @ n), float(moved @ n)
    cap = math.tan(math.radians(float(SOLVER["shiftLeanLimit"]))) * float(hip[1])
    if abs(da) < 1e-12 or abs(a0 + da) <= max(cap, abs(a0)):
        return 1.0
    return min(1.0, max(0.0, (math.copysign(max(cap, abs(a0)), da) - a0) / da))


def stance_side(st) -> tuple[str, str] | None:
    """(stance side, free side) when one foot alone bears the body
    (:func:`~posecode_ssg.motion.support.stance_foot`: the phase's support less a foot reaching
    for the floor or locked while arriving from the air), locked and held since the phase began or
    pinned to the floor, in a phase that is not a gait's; or both feet are locked and the angles
    lift one (:func:`lifted_stance`). None otherwise."""
    kf = st.kf
    if kf.gait:   # a gait keeps its travelled root (KR §8): its stance legs reach the plants
        return None
    free = {c.effector for c in kf.reaches if c.target == FLOOR and c.effector.startswith("foot_")}
    free |= {c for c in kf.ground_lock if c.startswith("foot_") and c not in st.anchors}
    side = stance_foot(kf.support, free)
    if side is None:
        side = lifted_stance(st) if not free else None
        return None if side is None else (side, "right" if side == "left" else "left")
    foot = f"foot_{side}"
    if not (foot in kf.ground_lock or any(c.effector == foot and c.target == FLOOR for c in kf.pins)):
        return None
    return side, "right" if side == "left" else "left"


def lifted_stance(st) -> str | None:
    """The side left standing when both feet are locked and held since the phase began (the
    support both feet, nothing else) but the authored angles lift one of them off the floor (a
    standing hamstring curl written with ``ground-lock: feet``: the ground-lock lets the lifted
    foot go, groundlock.py ``hold_weight``): the lower foot, when the other's lowest point is more
    than ``solver.shiftHeightBand[0]`` × ``plantedHeight`` up (where :func:`shift_weight`'s lift
    share starts) and it is down. None otherwise. Same rule in runtime/solvers/plan.js
    ``liftedStance``, decided at the segment's end keyframe; between the phase ends the runtime
    does not shift ahead of the lift there (figuremodel.js ``_shiftAhead``): the lock holds the
    foot until the angles lift it, so moving the body over before that would drag it."""
    kf = st.kf
    if set(kf.support) != BOTH_FEET or not all(f in kf.ground_lock and f in st.anchors for f in BOTH_FEET):
        return None
    w = st.pose.world()
    low = {s: w.lowest(subtree(f"ankle_{s}")) for s in ("left", "right")}
    down, up = sorted(low, key=low.get)
    h = float(SOLVER["plantedHeight"])
    if low[up] > SOLVER["shiftHeightBand"][0] * h and low[down] <= h:
        return down
    return None


def shift_weight(pose: Pose, side: str, semantic_ankle: float) -> None:
    """Move the root horizontally so the centre of mass lies over the stance sole (``side``'s
    base, :func:`over_base`), by the share w = 1 − the hold weight of the lowest point of the rest
    of the body (all but the stance leg) over ``solver.shiftHeightBand`` (0 while the free foot,
    or a knee leaving the floor, is still down; 1 once it is 1 cm up: the weight goes over as it
    lifts, so the shift is continuous). The stance leg's two-bone IK keeps its foot where it was
    (its held point on its footprint: measure.footprint), swivelled back to its heading and
    levelled; where the leg cannot (out of reach, or the ankle's range would lift the heel) the
    shift is bisected back to the largest share it can hold ("within their ROM", issue 19 item 2),
    and capped where the stance leg leans ``solver.shiftLeanLimit`` across its foot
    (:func:`lean_share`: the rig's ankle cannot evert, so the sole would roll onto its edge).
    Same rule in runtime/solvers/balance.js ``weightShift``."""
    w = pose.world()
    leg = {f"hip_{side}", f"knee_{side}", f"ankle_{side}"}
    lifted = 1.0 - hold_weight(w.lowest([b for b in BONES if b not in leg]), SOLVER["shiftHeightBand"])
    if lifted <= 0.0 or w.lowest(subtree(f"ankle_{side}")) > float(SOLVER["plantedHeight"]):
        return
    ankle = np.array(joint_xyz(w, f"ankle_{side}"))
    heading = w.landmarks[f"toe_{side}"] - w.landmarks[f"heel_{side}"]
    box = w.sole_corners(side)
    corners, weights = box[:, [0, 2]], corner_weights(box)
    anchor = footprint(w, side)
    tol = float(SOLVER["plantTolerance"])
    tiptoe = tiptoe_share(semantic_ankle)

    def hold() -> bool:
        # the ankle back where it was, then on by the held point's own slip and its sole's height
        # (a foot on its ball keeps its authored pitch against the shin, so a leaning shin moves
        # and lifts the ball); whether the foot is held and flat
        target, miss = ankle.copy(), None
        for _ in range(SOLVER["shiftHoldRounds"]):
            two_bone(pose, f"hip_{side}", f"knee_{side}", f"ankle_{side}", tuple(target))
            swivel(pose, side, heading, 1.0)
            miss = level_foot(pose, side, semantic_ankle)
            w = pose.world()
            e = hold_error(w, side, anchor)
            if tiptoe > 0.0:   # on its ball by intent (level_foot keeps the authored pitch): its sole down
                e[1] = -tiptoe * max(0.0, float(w.sole_corners(side)[:, 1].min()))
            target += e
        return miss is None and math.hypot(e[0], e[2]) <= tol

    # the body leans over the foot about the ankle (the ankle strategy): the root goes `share`
    # of the way along the horizontal move found, at the height that keeps the stance hip's
    # distance from the ankle, so the pelvis comes down a little as it goes over (8 mm for 12 cm
    # over a straight leg) and the leg reaches the floor as it did. The height is set from the
    # share, not scaled with it: near a straight knee a scaled height would bend the knee by the
    # square root of the share, a kink where the shift begins
    hip0 = np.array(joint_xyz(w, f"hip_{side}")) - ankle
    reach2 = float(hip0 @ hip0)
    moved, at = np.zeros(3), np.zeros(3)

    def place(share: float) -> bool:
        x, z = share * moved[0], share * moved[2]
        y = math.sqrt(max(reach2 - (hip0[0] + x) ** 2 - (hip0[2] + z) ** 2, 0.0)) - hip0[1]
        pose.move((x - at[0], y - at[1], z - at[2]))
        at[:] = (x, y, z)
        return hold()

    ok = True
    for _round in range(SOLVER["shiftRounds"]):
        c = centre_of_mass(pose.world())[[0, 2]]
        gap = over_base(corners, weights, c) - c
        if math.hypot(*gap) <= SOLVER["shiftDone"]:
            break
        moved += np.array((gap[0], 0.0, gap[1])) / SOLVER["shiftComShare"]
        ok = place(1.0)
    if not moved.any():
        return
    # the largest share of the shift the leg holds (bisected), then the lift's share of that
    share, held = 1.0, 1.0
    if not ok:
        lo, hi = 0.0, 1.0
        for _ in range(SOLVER["shiftBisect"]):
            share = 0.5 * (lo + hi)
            lo, hi = (share, hi) if place(share) else (lo, share)
        held = lo
    # and no more than leans the stance leg `shiftLeanLimit` across its foot (measure.py
    # sideways_lean): the rig's ankle is a hinge, so the sole rolls by the lean
    held = min(held, lean_share(hip0, moved, heading))
    if lifted * held != share:
        place(lifted * held)


def run(st) -> None:
    """The weight-shift pass of one phase end (``st``: :class:`~.plan.PhaseState`)."""
    sides = stance_side(st)
    if sides is not None:
        shift_weight(st.pose, sides[0], st.sem_ankle[sides[0]])
