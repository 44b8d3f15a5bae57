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


def foot_rect(corners: np.ndarray, w: np.ndarray) -> np.ndarray:
    """(4, 2) the corners (x z) of what a sole bears: its rectangle (``corners`` (4, 2), in
    :func:`corner_weights`' order) in the foot's own axes, each edge moved in across it by 1 −
    the larger weight ``w`` of its two corners (the whole sole while flat or rolled a few
    degrees, the ball's edge alone once the heel is up 1 cm; continuous between: the back edge
    slides). Same steps in runtime/solvers/balance.js ``overBase``."""
    origin = corners[0]
    u = 0.5 * (corners[1] + corners[3] - corners[0] - corners[2])   # heel -> toe
    v = 0.5 * (corners[2] + corners[3] - corners[0] - corners[1])   # -x side -> +x side
    back, front, minus, plus = max(w[0], w[2]), max(w[1], w[3]), max(w[0], w[1]), max(w[2], w[3])
    a0, a1 = 1.0 - back, front
    b0, b1 = 1.0 - minus, plus
    return np.array([origin + a * u + b * v for a in (a0, a1) for b in (b0, b1)])


def over_base(feet: list[tuple[np.ndarray, np.ndarray]], c: np.ndarray) -> np.ndarray:
    """Where the centre of mass ``c`` (2, x z) goes to stand over the stance soles ``feet``
    ((corners (4, 2), weights (4,)) each: :func:`foot_rect`): the nearest point of their base,
    ``c`` itself when inside. The base is the rectangle, in the axes of the feet's mean heading,
    around what they bear, each edge ``solver.shiftMargin`` (15 mm) further out: the rig's sole
    box is 75 mm wide and 185 mm long, a person's forefoot about 100 mm and foot 250 mm, so the
    box's edges lie that far inside a real sole's (and the leg leans, and the sole rolls, less:
    the rig's ankle is a hinge); within eval's 20 mm. One foot: its own rectangle, whose nearest
    point is the inner edge of the ball on one's toes (where a calf raise bears weight, the
    first metatarsal head); two feet side by side: the convex hull of both. The nearest point of
    a rectangle in its own axes clamps each coordinate (1-Lipschitz in the point and the edges:
    the target moves with them, never jumps along an edge). Same steps in
    runtime/solvers/balance.js ``overBase``."""
    heading = sum(0.5 * (k[1] + k[3] - k[0] - k[2]) / max(float(np.hypot(*(0.5 * (k[1] + k[3] - k[0] - k[2])))), 1e-12)
                  for k, _w in feet)
    u = heading / max(float(np.hypot(*heading)), 1e-12)
    v = np.array((u[1], -u[0]))
    pts = np.concatenate([foot_rect(k, w) for k, w in feet])
    m = float(SOLVER["shiftMargin"])
    pu, pv = pts @ u, pts @ v
    a = min(max(float(c @ u), pu.min() - m), pu.max() + m)
    b = min(max(float(c @ v), pv.min() - m), pv.max() + m)
    return a * u + b * v


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


def stance_sides(st) -> tuple[str, ...]:
    """The sides that bear the body on their own: one foot alone
    (:func:`~posecode_ssg.motion.support.stance_foot`: the phase's support less a foot reaching
    for the floor or locked while arriving from the air), locked and held since the phase began
    or pinned to the floor; or both feet so, and nothing else in the support. Empty in a gait's
    phase (its root keeps its travelled place, KR §8) or otherwise."""
    kf = st.kf
    if kf.gait:
        return ()
    free = {c.effector for c in kf.reaches if c.target == FLOOR and c.effector.startswith("foot_")}
    free |= {c for c in kf.ground_lock if c.startswith("foot_") and c not in st.anchors}

    def held(side: str) -> bool:
        foot = f"foot_{side}"
        return foot in kf.ground_lock or any(c.effector == foot and c.target == FLOOR for c in kf.pins)

    side = stance_foot(kf.support, free)
    if side is not None:
        return (side,) if held(side) else ()
    if not free and set(kf.support) == BOTH_FEET and held("left") and held("right"):
        return ("left", "right")
    return ()


def shift_weight(pose: Pose, sides: tuple[str, ...], semantic_ankle: dict[str, float]) -> None:
    """Move the root horizontally so the centre of mass lies over the stance soles (``sides``'
    base, :func:`over_base`), by the share w = 1 − the hold weight of the lowest point of the rest
    of the body (all but the stance legs) over ``solver.shiftHeightBand`` (0 while the free foot,
    a knee or a hand is still down; 1 once it is 1 cm up: the weight goes over as it lifts, so
    the shift is continuous). Each stance leg's two-bone IK keeps its foot where it was (its held
    point on its footprint: measure.footprint), swivelled back to its heading and levelled; where
    a leg cannot (out of reach, or the ankle's range would lift the heel) the shift is bisected
    back to the largest share they hold ("within their ROM", issue 19 item 2), and capped where a
    stance leg leans ``solver.shiftLeanLimit`` across its foot (:func:`lean_share`: the rig's
    ankle cannot evert, so the sole would roll onto its edge). Same rule in
    runtime/solvers/balance.js ``weightShift``."""
    w = pose.world()
    legs = {f"{j}_{s}" for s in sides for j in ("hip", "knee", "ankle")}
    lifted = 1.0 - hold_weight(w.lowest([b for b in BONES if b not in legs]), SOLVER["shiftHeightBand"])
    if lifted <= 0.0 or any(w.lowest(subtree(f"ankle_{s}")) > float(SOLVER["plantedHeight"]) for s in sides):
        return
    ankle = {s: np.array(joint_xyz(w, f"ankle_{s}")) for s in sides}
    heading = {s: w.landmarks[f"toe_{s}"] - w.landmarks[f"heel_{s}"] for s in sides}
    feet = []
    for s in sides:
        box = w.sole_corners(s)
        feet.append((box[:, [0, 2]], corner_weights(box)))
    anchor = {s: footprint(w, s) for s in sides}
    tol = float(SOLVER["plantTolerance"])
    tiptoe = {s: tiptoe_share(semantic_ankle[s]) for s in sides}

    def hold() -> bool:
        # each ankle back where it was, then on by the held point's own slip and its sole's
        # height (a foot on its ball keeps its authored pitch against the shin, so a leaning shin
        # moves and lifts the ball); whether every foot is held and flat
        ok = True
        for s in sides:
            target, miss = ankle[s].copy(), None
            for _ in range(SOLVER["shiftHoldRounds"]):
                two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", tuple(target))
                swivel(pose, s, heading[s], 1.0)
                miss = level_foot(pose, s, semantic_ankle[s])
                w = pose.world()
                e = hold_error(w, s, anchor[s])
                if tiptoe[s] > 0.0:   # on its ball by intent (level_foot keeps the authored pitch): its sole down
                    e[1] = -tiptoe[s] * max(0.0, float(w.sole_corners(s)[:, 1].min()))
                target += e
            ok = ok and miss is None and math.hypot(e[0], e[2]) <= tol
        return ok

    # the body leans over the feet about the ankles (the ankle strategy): the root goes `share`
    # of the way along the horizontal move found, at the height that keeps each stance hip's
    # distance from its ankle (the lower of them), so the pelvis comes down a little as it goes
    # over (8 mm for 12 cm over a straight leg) and the legs reach the floor as they did. The
    # height is set from the share, not scaled with it: near a straight knee a scaled height
    # would bend the knee by the square root of the share, a kink where the shift begins
    hip0 = {s: np.array(joint_xyz(w, f"hip_{s}")) - ankle[s] for s in sides}
    reach2 = {s: float(hip0[s] @ hip0[s]) for s in sides}
    moved, at = np.zeros(3), np.zeros(3)
    saved = {f"{j}_{s}": tuple(pose.euler[f"{j}_{s}"]) for s in sides for j in ("hip", "knee", "ankle")}

    def place(share: float) -> bool:
        x, z = share * moved[0], share * moved[2]
        y = min(math.sqrt(max(reach2[s] - (hip0[s][0] + x) ** 2 - (hip0[s][2] + z) ** 2, 0.0)) - hip0[s][1]
                for s in sides)
        pose.move((x - at[0], y - at[1], z - at[2]))
        at[:] = (x, y, z)
        return hold()

    ok = True
    for _round in range(SOLVER["shiftRounds"]):
        c = centre_of_mass(pose.world())[[0, 2]]
        gap = over_base(feet, c) - c
        if math.hypot(*gap) <= SOLVER["shiftDone"]:
            break
        moved += np.array((gap[0], 0.0, gap[1])) / SOLVER["shiftComShare"]
        ok = place(1.0)
    if not moved.any():
        return
    # the largest share of the shift the legs hold (bisected), then the lift's share of that
    share, held = 1.0, 1.0
    if not ok:
        lo, hi = 0.0, 1.0
        for _ in range(SOLVER["shiftBisect"]):
            share = 0.5 * (lo + hi)
            lo, hi = (share, hi) if place(share) else (lo, share)
        held = lo
    held = min([held] + [lean_share(hip0[s], moved, heading[s]) for s in sides])
    if lifted * held <= 0.0:   # no shift at all: the legs and the root exactly as they were
        for bone, e in saved.items():
            pose.set_euler(bone, e)
        pose.move(tuple(-at))
    elif lifted * held != share:
        place(lifted * held)


def run(st) -> None:
    """The weight-shift pass of one phase end (``st``: :class:`~.plan.PhaseState`)."""
    sides = stance_sides(st)
    if sides:
        shift_weight(st.pose, sides, st.sem_ankle)
