"""The weight-shift pass (issue 19 item 2; runtime twin: ``runtime/solvers/balance.js``): a body
standing on one foot (that foot locked and held, or pinned to the floor; the other free: lifted,
reaching, tapping) moves its pelvis over the stance foot until the centre of mass lies over the
stance sole, the stance leg keeping its foot where it is; back to centre as the other foot
comes down to bear weight.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.rom import rom_box
from posecode_ssg.language.vocabulary import FLOOR

from ..fk import BONES, joint_xyz, subtree
from ..rest import centre_of_mass
from ..support import BOTH_FEET, stance_foot
from ..rig import SOLVER
from .groundlock import hold_weight
from .limb import flat_ankle, level_foot, swivel, tiptoe_share, two_bone
from .measure import footprint, hold_error
from .pose import Pose

def corner_weights(corners: np.ndarray) -> np.ndarray:
    """(4,) how much each bottom corner of a sole box bears (0–1), from ``corners`` (4, 3) in
    the box's order (heel −x, toe −x, heel +x, toe +x: :meth:`World.sole_corners`): by its
    height over the lowest of them, as the rest of the body is judged
    (:func:`~.groundlock.hold_weight` over ``solver.shiftHeightBand``: 1 within 5 mm, 0 from
    1 cm, where eval's support stops counting a contact). Same rule in runtime/solvers/balance.js
    ``measureStance``."""
    ys = corners[:, 1].tolist()
    low, band = min(ys), SOLVER["shiftHeightBand"]
    return np.array([hold_weight(h - low, band) for h in ys])


def foot_rect(corners: np.ndarray, w: np.ndarray) -> list[tuple[float, float]]:
    """The 4 corners (x, z) of what a sole bears: its rectangle (``corners`` (4, 2), in
    :func:`corner_weights`' order) in the foot's own axes, each edge moved in across it by 1 −
    the larger weight ``w`` of its two corners (the whole sole while flat or rolled a few
    degrees, the ball's edge alone once the heel is up 1 cm; continuous between: the back edge
    slides). Plain floats: it runs on every phase end. Same steps in runtime/solvers/balance.js
    ``overBase``."""
    (ox, oz), (tx, tz), (sx, sz), (qx, qz) = corners.tolist()
    ux, uz = 0.5 * (tx + qx - ox - sx), 0.5 * (tz + qz - oz - sz)   # heel -> toe
    vx, vz = 0.5 * (sx + qx - ox - tx), 0.5 * (sz + qz - oz - tz)   # -x side -> +x side
    w0, w1, w2, w3 = (float(x) for x in w)
    back, front, minus, plus = max(w0, w2), max(w1, w3), max(w0, w1), max(w2, w3)
    return [(ox + a * ux + b * vx, oz + a * uz + b * vz) for a in (1.0 - back, front) for b in (1.0 - minus, plus)]


def hull_nearest(points: list[tuple[float, float]], p: tuple[float, float]) -> tuple[float, float]:
    """The nearest point to ``p`` of the convex hull of ``points`` (a few (a, b) pairs): ``p``
    itself inside. The hull by Andrew's monotone chain (counter-clockwise, collinear points
    dropped); outside, the nearest of its edges' nearest points. 1-Lipschitz in ``p`` and
    continuous in the points. Plain floats: it runs on every phase end. Same steps in
    runtime/solvers/balance.js ``hullNearest``."""
    pts = sorted(set(points))

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for q in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], q) <= 0.0:
            lower.pop()
        lower.append(q)
    for q in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], q) <= 0.0:
            upper.pop()
        upper.append(q)
    hull = lower[:-1] + upper[:-1]
    k = len(hull)
    if k >= 3 and all(cross(hull[i], hull[(i + 1) % k], p) >= 0.0 for i in range(k)):
        return p
    best, out = math.inf, p
    for i in range(k):
        (ax, az), (bx, bz) = hull[i], hull[(i + 1) % k]
        dx, dz = bx - ax, bz - az
        t = min(1.0, max(0.0, ((p[0] - ax) * dx + (p[1] - az) * dz) / max(dx * dx + dz * dz, 1e-24)))
        qx, qz = ax + t * dx, az + t * dz
        d = (p[0] - qx) ** 2 + (p[1] - qz) ** 2
        if d < best:
            best, out = d, (qx, qz)
    return out


def free_corners(w, free: str) -> list[tuple[float, float, float]]:
    """What the free foot ``free`` adds to the base of a body standing on the other: each
    bottom corner (x, z) of its sole box and the lowest point of its shoe's ellipsoid (what
    touches first on a steep foot), with its weight, the hold weight of its height over the
    floor (:func:`~.groundlock.hold_weight` over ``solver.shiftHeightBand``: all of it within
    5 mm, none from 1 cm, where eval's support stops counting a contact). A foot touching with
    its toes (the touch of a step touch, the back foot of a lunge on its ball) adds them, a
    lifted one nothing, continuously between (:func:`over_base`). Same rule in
    runtime/solvers/balance.js ``measureStance``."""
    band = SOLVER["shiftHeightBand"]
    bone = f"ankle_{free}"
    points = w.sole_corners(free).tolist()
    for _n, b, rad, scale, off in w.avatar.volumes:
        if b == bone:   # the shoe's lowest point: c − M·g/|g|, g row y of M (rest.py `_Mesh.bottoms`)
            R = w.rot[bone]
            M = R * (rad * np.asarray(scale, float))[None, :]
            g = M[1, :]
            points.append((w.pos[bone] + R @ np.asarray(off, float) - M @ (g / max(float(np.linalg.norm(g)), 1e-12))).tolist())
    return [(x, z, hold_weight(y, band)) for x, y, z in points]


def over_base(feet: list[tuple[np.ndarray, np.ndarray]], c: np.ndarray,
              extra: list[tuple[float, float, float]] = ()) -> np.ndarray:
    """Where the centre of mass ``c`` (2, x z) goes to stand over the stance soles ``feet``
    ((corners (4, 2), weights (4,)) each: :func:`foot_rect`) and the points ``extra`` (x, z) the
    free foot adds (:func:`free_corners`: (x, z, weight), each drawn towards the centre of the
    stance soles' part by 1 − its weight): the nearest point of their base, ``c`` itself when
    inside. The stance soles' part is the rectangle, in the axes of the feet's mean heading,
    around what they bear, each edge ``solver.shiftMargin`` (15 mm) further out: the rig's sole
    box is 75 mm wide and 185 mm long, a person's forefoot about 100 mm and foot 250 mm, so the
    box's edges lie that far inside a real sole's (and the leg leans, and the sole rolls, less:
    the rig's ankle is a hinge); within eval's 20 mm. One foot: its own rectangle, whose nearest
    point is the inner edge of the ball on one's toes (where a calf raise bears weight, the
    first metatarsal head); two feet side by side: the convex hull of both. The nearest point of
    a rectangle in its own axes clamps each coordinate (1-Lipschitz in the point and the edges:
    the target moves with them, never jumps along an edge). With ``extra`` points outside it,
    the base is the convex hull of the rectangle's corners and them (eval's rule: the hull of
    what touches), its nearest point :func:`hull_nearest`'s. Same steps in
    runtime/solvers/balance.js ``overBase``."""
    ux = uz = 0.0
    pts: list[tuple[float, float]] = []
    for k, w in feet:
        (ox, oz), (tx, tz), (sx, sz), (qx, qz) = k.tolist()
        hx, hz = 0.5 * (tx + qx - ox - sx), 0.5 * (tz + qz - oz - sz)
        n = max(math.hypot(hx, hz), 1e-12)
        ux, uz = ux + hx / n, uz + hz / n
        pts += foot_rect(k, w)
    n = max(math.hypot(ux, uz), 1e-12)
    ux, uz = ux / n, uz / n
    vx, vz = uz, -ux
    pu = [x * ux + z * uz for x, z in pts]
    pv = [x * vx + z * vz for x, z in pts]
    m = float(SOLVER["shiftMargin"])
    a0, a1, b0, b1 = min(pu) - m, max(pu) + m, min(pv) - m, max(pv) + m
    cx, cz = float(c[0]), float(c[1])
    ca, cb = cx * ux + cz * uz, cx * vx + cz * vz
    sx, sz = sum(x for x, _z in pts) / len(pts), sum(z for _x, z in pts) / len(pts)
    near = [(sx + k * (x - sx), sz + k * (z - sz)) for x, z, k in extra]
    out = [(x * ux + z * uz, x * vx + z * vz) for x, z in near]
    out = [(pa, pb) for pa, pb in out if not (a0 <= pa <= a1 and b0 <= pb <= b1)]
    if out:
        a, b = hull_nearest([(a0, b0), (a1, b0), (a1, b1), (a0, b1)] + out, (ca, cb))
    else:
        a, b = min(max(ca, a0), a1), min(max(cb, b0), b1)
    return np.array((a * ux + b * vx, a * uz + b * vz))


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


def pitch_share(hip: np.ndarray, moved: np.ndarray, heading: np.ndarray, needed: float, box: tuple[float, float]) -> float:
    """The largest share (0–1) of the root move ``moved`` (3,) a stance foot stays flat for: the
    stance leg keeps its hip's distance from the ankle (the shift's height rule), so its hip →
    ankle line, and the shin with it (the knee keeps its angle), turns about the ankle in the
    foot's plane by the change of its lean φ = atan2(forward offset, height); the sole then needs
    that much more ankle dorsiflexion (leaning forward) or plantarflexion (back) to stay flat.
    ``hip`` (3,): the hip less the ankle before the move; ``heading`` (3,): heel → toe; ``needed``
    (degrees): the ankle x that levels the foot now (limb.py ``flat_ankle``); ``box``: the ankle
    x range (rig.json ``rom``). Found before the legs are re-solved, so a shift the ankle's range
    cannot hold (a squat whose knees would travel past the toes) is not searched for by halving
    (solve/balance.py ``shift_weight``). Same rule in runtime/solvers/balance.js."""
    hx, hz = float(heading[0]), float(heading[2])
    n = max(math.hypot(hx, hz), 1e-12)
    hx, hz = hx / n, hz / n
    px, py, pz = (float(v) for v in hip)
    f0, d = px * hx + pz * hz, float(moved[0]) * hx + float(moved[2]) * hz
    if abs(d) < 1e-12:
        return 1.0
    side = hz * px - hx * pz
    reach = math.sqrt(max(px * px + py * py + pz * pz - side * side, 1e-12))
    lean = math.atan2(f0, py)
    room = math.radians(needed - box[0]) if d > 0 else -math.radians(box[1] - needed)
    limit = reach * math.sin(min(max(lean + room, -math.pi / 2), math.pi / 2)) - f0
    if (d > 0 and limit >= d) or (d < 0 and limit <= d):
        return 1.0
    return min(1.0, max(0.0, limit / d))


def stance_sides(st) -> tuple[str, ...]:
    """The sides that bear the body on their own: one foot alone
    (:func:`~posecode_ssg.motion.support.stance_foot`: the phase's support less a foot reaching
    for the floor or locked while arriving from the air), locked and held since the phase began
    or pinned to the floor; or both feet are locked and the angles lift one
    (:func:`lifted_stance`: the lower foot alone); or nothing holds it and it reaches one foot
    for the floor as the angles lift the other (:func:`reached_stance`); or both feet held so, and nothing else in the
    support, in a document whose start pose stands (not tilted). Empty in a gait's phase (its root keeps its travelled place, KR §8) or otherwise."""
    kf = st.kf
    if kf.gait:
        return ()
    free = {c.effector for c in kf.reaches if c.target == FLOOR and c.effector.startswith("foot_")}
    free |= {c for c in kf.ground_lock if c.startswith("foot_") and c not in st.anchors}

    def held(side: str) -> bool:
        foot = f"foot_{side}"
        return foot in kf.ground_lock or any(c.effector == foot and c.target == FLOOR for c in kf.pins)

    side = stance_foot(kf.support, free)
    if side is not None and held(side):
        return (side,)
    reached = reached_stance(st)
    if reached is not None:
        return (reached,)
    if side is not None or free:
        return ()
    side = lifted_stance(st)
    if side is not None:
        return (side,)
    # a body whose start lies, sits or kneels (a bridge on its feet and shoulders) is the gravity
    # settle's (motion/settle.py), not balanced over its feet
    if set(kf.support) == BOTH_FEET and held("left") and held("right") and not st.program.tilted_base:
        return ("left", "right")
    return ()


def reached_stance(st) -> str | None:
    """The side a phase ends standing on when nothing of its own holds the body (no lock, pin or
    grip: its support is both feet by default, :func:`~posecode_ssg.motion.support.phase_support`)
    and it reaches one foot for the floor while the angles lift the other (a high-knee march's
    'Switch': the right foot comes down as the left knee drives up): the reaching foot, when it is
    down (its lowest point within ``plantedHeight``) and the other's lowest point more than
    ``solver.shiftHeightBand[0]`` × ``plantedHeight`` up, both measured at the weight-shift pass
    (before the reach). Reaching both feet for the floor (the march's 'Down'), the one that was
    down where the phase began while the other was up: it bears the body until the other lands.
    Not in a document whose start pose lies, sits or kneels, nor with props. None otherwise. Same
    rule in runtime/solvers/plan.js ``reachedStance`` and ``planSegment``."""
    kf = st.kf
    if kf.ground_lock or kf.pins or kf.grips or st.program.tilted_base or st.program.props:
        return None
    reached = [c.effector[5:] for c in kf.reaches if c.target == FLOOR and c.effector.startswith("foot_")]
    if not reached:
        return None
    # one foot reaching: the feet as they are at the pass; both: as the phase found them (the
    # foot already down bears the body while the other comes down to it, and over both at the end
    # the base is both: free_corners)
    w = st.pose.world() if len(reached) == 1 else st.prev.world
    low = {s: w.lowest(subtree(f"ankle_{s}")) for s in ("left", "right")}
    h = float(SOLVER["plantedHeight"])
    for side in reached:
        other = "left" if side == "right" else "right"
        if low[other] > SOLVER["shiftHeightBand"][0] * h and low[side] <= h:
            return side
    return None


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
    feet = []
    for s in sides:
        box = w.sole_corners(s)
        feet.append((box[:, [0, 2]], corner_weights(box)))
    # one foot: the free foot's corners that touch the floor are part of the base
    free = [f for f in ("left", "right") if f not in sides] if len(sides) == 1 else []
    extra = free_corners(w, free[0]) if free else []
    c = centre_of_mass(w)[[0, 2]]
    gap0 = over_base(feet, c, extra) - c
    if math.hypot(*gap0) <= SOLVER["shiftDone"]:
        return   # balanced as it stands (the first round's test, before the costlier measures)
    ankle = {s: np.array(joint_xyz(w, f"ankle_{s}")) for s in sides}
    heading = {s: w.landmarks[f"toe_{s}"] - w.landmarks[f"heel_{s}"] for s in sides}
    tiptoe = {s: tiptoe_share(semantic_ankle[s]) for s in sides}
    hip0 = {s: np.array(joint_xyz(w, f"hip_{s}")) - ankle[s] for s in sides}
    # each flat stance foot's levelling ankle x now and ankle range (a foot on its ball by intent
    # keeps its pitch: not limited by them)
    pitch = {s: (flat_ankle(w, s), rom_box(f"ankle_{s}")["x"]) for s in sides if tiptoe[s] <= 0.0}
    first = np.array((gap0[0], 0.0, gap0[1])) / SOLVER["shiftComShare"]
    if math.hypot(*first[[0, 2]]) * min([1.0] + [pitch_share(hip0[s], first, heading[s], *pitch[s]) for s in pitch]) \
            <= SOLVER["shiftDone"]:
        return   # the ankles' range holds no move (the first round's cut, before the costlier measures)
    legs = {f"{j}_{s}" for s in sides for j in ("hip", "knee", "ankle")} | {f"ankle_{f}" for f in free}
    lifted = 1.0 - hold_weight(w.lowest([b for b in BONES if b not in legs]), SOLVER["shiftHeightBand"])
    if lifted <= 0.0 or any(w.lowest(subtree(f"ankle_{s}")) > float(SOLVER["plantedHeight"]) for s in sides):
        return
    anchor = {s: footprint(w, s) for s in sides}
    tol = float(SOLVER["plantTolerance"])

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
                if max(abs(float(e[0])), abs(float(e[1])), abs(float(e[2]))) <= SOLVER["shiftHoldDone"]:
                    break   # held: the further rounds would move it by less
            ok = ok and miss is None and math.hypot(e[0], e[2]) <= tol
        return ok

    # the body leans over the feet about the ankles (the ankle strategy): the root goes `share`
    # of the way along the horizontal move found, at the height that keeps each stance hip's
    # distance from its ankle (the lower of them), so the pelvis comes down a little as it goes
    # over (8 mm for 12 cm over a straight leg) and the legs reach the floor as they did. The
    # height is set from the share, not scaled with it: near a straight knee a scaled height
    # would bend the knee by the square root of the share, a kink where the shift begins
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
        gap = over_base(feet, c, extra) - c
        if math.hypot(*gap) <= SOLVER["shiftDone"]:
            break
        step = moved + np.array((gap[0], 0.0, gap[1])) / SOLVER["shiftComShare"]
        # no further than the ankles' range keeps the soles flat (a foot on its ball by intent
        # keeps its pitch: not limited)
        step *= min([1.0] + [pitch_share(hip0[s], step, heading[s], *pitch[s]) for s in pitch])
        if math.hypot(step[0] - moved[0], step[2] - moved[2]) <= SOLVER["shiftDone"]:
            break
        moved[:] = step
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
        st.shift_sides = sides
        shift_weight(st.pose, sides, st.sem_ankle)
