"""The swing-clearance pass (runtime twin: ``runtime/solvers/swingclearance.js``): a free leg the
pose pushes through the floor while the body rests on a lock or a floor pin is lifted within
its own chain, and a free arm of a lying body swung out to its side along the floor, not by the
floor clamp raising the body off its support.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.vocabulary import BACK_BONES, FLOOR

from ..fk import World, subtree
from ..rig import SOLVER
from ..rotation import cross3, euler_to_matrix, turned_euler
from .measure import heel_down, lowest_point
from .pose import Pose, clamp_box, rom_box


def hinge_up(pose: Pose, joint: str, point: np.ndarray, dy: float, ax: int = 0, wide_first: bool | None = None,
             uphill: bool = False) -> None:
    """Turn ``joint`` (hip, knee or ankle) about one of its Euler axes — ``ax`` 0: its x, about the
    parent's X axis (knee, ankle); 2: its z, about its own Z axis after x and y (hip abduction) —
    so that the world ``point`` (moving with it) rises by ``dy`` (m): with r = point − joint split
    about that axis u, its height changes by A cos θ + B sin θ − A (A = r⊥·y, B = (u × r⊥)·y).
    Of the two roots: the one the joint's ROM range (widened to its angle) keeps best, then with
    ``wide_first`` (default: for z) the one toward the wider end of the range (a knee flexes; a hip
    abducts, the knee going round the outside: the choice does not flip from frame to frame), then
    the nearest zero; clamped to the range. With ``uphill`` (the ankle), the root the way that
    raises the point (the sign of B: where its height grows from θ = 0), clamped, and only the
    share smoothstep(|B| / R / ``solver.clearanceAnkleFade``) of that turn (R = |r⊥|): the two
    roots of a point hanging straight below the joint are the two ways round, and choosing between
    them, or between two roots both clamped by the range, swapped the foot from pointed to flexed
    in one frame (a reverse lunge's trailing ankle, 63°); the turn fades to none there instead,
    and the knee (the caller's next step) lifts what it leaves. Same steps in
    runtime/solvers/swingclearance.js ``hingeUp``."""
    w = pose.world()
    e = list(pose.euler[joint])
    parent = w.rot[joint] @ pose.local[joint].T
    u = parent @ (euler_to_matrix((e[0], e[1], 0.0)) @ np.array([0.0, 0.0, 1.0]) if ax else np.array([1.0, 0.0, 0.0]))
    r = point - w.pos[joint]
    rperp = r - u * float(u @ r)
    A, B = float(rperp[1]), float(cross3(u, rperp)[1])
    R = math.hypot(A, B)
    if R < 1e-9:
        return
    phi, ac = math.atan2(B, A), math.acos(min(1.0, max(-1.0, (A + dy) / R)))
    lo, hi = rom_box(joint)["xyz"[ax]]
    wide = (lo + hi) if (ax > 0 if wide_first is None else wide_first) else 0.0
    lo, hi = min(lo, e[ax]), max(hi, e[ax])
    if uphill:
        d = math.degrees(max(0.0, phi - ac) if B >= 0.0 else min(0.0, phi + ac))
        x = min(1.0, abs(B) / R / float(SOLVER["clearanceAnkleFade"]))
        e[ax] += x * x * (3.0 - 2.0 * x) * (min(max(e[ax] + d, lo), hi) - e[ax])
        pose.set_euler(joint, tuple(e))
        return
    best = None
    for t in (phi + ac, phi - ac):
        d = math.degrees(math.atan2(math.sin(t), math.cos(t)))
        c = min(max(e[ax] + d, lo), hi)
        key = round(abs(e[ax] + d - c) * 1e6) * 1e3 + (360.0 if d * wide < 0 else 0.0) + abs(d)
        if best is None or key < best[0]:
            best = (key, c)
    e[ax] = best[1]
    pose.set_euler(joint, tuple(e))


def clear_free_limbs(pose: Pose, kf, reached: bool = False, arriving: frozenset = frozenset(),
                      start: World | None = None, decided: dict | None = None) -> None:
    """Swing clearance: while the body rests on a ground-locked or floor-pinned contact, a leg
    with no contact of its own this phase (no lock, pin or reach of the foot or knee), or whose
    locked foot arrives from the air (``arriving``: sides), that the pose pushes through the floor
    is lifted within its own chain, not by the floor clamp raising the body off its support: the
    toe turns up at the ankle, what the ankle's range leaves the knee flexes away (the lowest of
    toe, heel and ankle joint rises by the depth), and a knee still through the floor goes round
    it, the hip abducting (:func:`hinge_up`); ``clearanceIterations`` rounds. The floor is y = 0,
    or the rest of the body's lowest point while a pin or the feet hold it below (the floor clamp
    lifts the figure afterwards); the knee and hip leave it a graze of ``plantTolerance`` / 5. A
    foot on its heel is not turned at the ankle (that would drive the heel down): the knee lifts
    it; with its toes up on purpose (ankle dorsiflexed) the hip and knee set it down on its heel
    with its pitch kept (:func:`heel_on_floor`) — the body is never raised off its locked support
    over a free heel. Run again after the self-collision push. With ``reached``, each foot that reaches for the floor (neither locked nor pinned),
    after the reaches: a brushing foot (tendu, a tap coming down) is kept out of the floor instead
    of lifting the standing foot (but one on its heel is left there: a foot set down flat). On its
    heel or not is decided once per phase for the first round (:func:`heel_down`, ``decided``
    keeps it per side and list); later rounds follow the foot as the first one left it. Same rule
    in runtime/solvers/swingclearance.js ``clearFreeLimbs`` (plan.js ``swing``, ``reachSwing``)."""
    busy = {c.effector for c in list(kf.pins) + list(kf.reaches) + list(kf.grips)} | set(kf.ground_lock)
    floor_reach = {c.effector for c in kf.reaches if c.target == FLOOR}
    fixed = {c.effector for c in kf.pins} | set(kf.ground_lock)
    sides = []
    for s in ("left", "right"):
        if reached != (f"foot_{s}" in floor_reach and f"foot_{s}" not in fixed):
            continue
        if not reached and s not in arriving and busy & {f"foot_{s}", f"knee_{s}"}:
            continue
        sides.append(s)
    if not sides:
        return
    legs = {f"{j}_{s}" for s in sides for j in ("knee", "ankle")}
    fl = min([0.0] + [v for b, v in pose.world().lowest_by_bone().items() if b not in legs])
    # the knee and hip leave the floor clamp a graze of a fifth of plantTolerance (a sole edge of
    # a leg swinging out): flexing a knee over a flat foot first dips its toes
    graze = fl - 0.2 * float(SOLVER["plantTolerance"])
    decided = {} if decided is None else decided
    for s in sides:
        ankle, knee = f"ankle_{s}", f"knee_{s}"
        if (s, reached) not in decided:
            decided[(s, reached)] = heel_down(start, s) and heel_down(pose.world(), s)
        for it in range(int(SOLVER["clearanceIterations"])):
            w = pose.world()
            low = w.lowest_by_bone((ankle, knee))
            heel, toe = w.landmarks[f"heel_{s}"], w.landmarks[f"toe_{s}"]
            if min(low[ankle], low[knee]) >= fl - 1e-4:
                break
            if heel[1] <= toe[1] if it else decided[(s, reached)]:
                # on its heel: turning the toes up would drive the heel down; one with its toes
                # up on purpose (ankle dorsiflexed) is set down on its heel by its own leg (the body
                # rose off its locked support), else — a foot reaching for the floor too — the
                # knee lifts it (below): left through the floor, a foot stepping down from the box
                # on its heel had the floor clamp lift the body 5 mm off its pinned foot
                if not reached and pose.euler[ankle][0] < 0:
                    heel_on_floor(pose, s, fl - low[ankle])
                    continue
            else:
                hinge_up(pose, ankle, toe, fl - low[ankle], uphill=True)
            w = pose.world()
            low = w.lowest_by_bone((ankle, knee))
            if low[ankle] < graze:
                heel, toe, joint = w.landmarks[f"heel_{s}"], w.landmarks[f"toe_{s}"], w.pos[ankle]
                p = toe if toe[1] < heel[1] else heel
                hinge_up(pose, knee, (p if p[1] < joint[1] else joint).copy(), graze - low[ankle], 0, True)
                low = pose.world().lowest_by_bone((ankle, knee))
            if low[knee] < graze:
                hinge_up(pose, f"hip_{s}", pose.world().pos[knee].copy(), graze - low[knee], 2)


def clear_free_arms(pose: Pose, kf, swung: dict | None = None) -> None:
    """Arm clearance (issue 18): while the body lies on a lock or a floor pin, its trunk on the
    floor (its back bones within ``plantedHeight``) and nearer the horizontal than
    ``SOLVER["armClearanceTrunk"]`` (prone, supine; not all fours), an arm
    with no contact of its own this phase but a reach for the floor (no lock, pin or grip of the
    hand or forearm, no reach for a landmark or a prop) that the pose pushes through the floor is
    swung out to its side, about an axis through the shoulder along the trunk (the horizontal
    of pelvis → neck, tilted outwards by the share of the arm's reach that runs along the trunk,
    so an arm lying along the body lifts at once), until its lowest point (:func:`~.measure.lowest_point`) grazes the floor
    (y = 0, or the rest of the body's lowest point while a pin holds it below; a fifth of
    ``plantTolerance`` under it, as the legs), not by the floor clamp lifting the body off its
    support. Prone, that is the arm sliding along the floor from beside the hips to beside the
    head, as a person moves it (a cobra's or superman's arms swept by the shoulders' flexion
    through the floor lifted the pinned pelvis 27–57 cm). The turn about a fixed axis has no
    singularity where the arm points straight down, so it does not flip between frames; the
    shoulder stays in its ROM box (widened to its angles). ``clearanceIterations`` rounds, each
    raising the arm's lowest point exactly (A cos θ + B sin θ = A + dy, θ > 0: outwards). With
    ``swung``, each arm it moves is recorded there: side -> (how deep its lowest point went
    through the floor, how far its wrist moved; m, the larger of the calls), for
    ``kinematic-arm-floor``. Same rule in runtime/solvers/swingclearance.js ``clearFreeArms``."""
    held = {c.effector for c in list(kf.pins) + list(kf.grips)} | set(kf.ground_lock)
    held |= {c.effector for c in kf.reaches if c.target != FLOOR}
    sides = [s for s in ("left", "right") if not held & {f"hand_{s}", f"fist_{s}", f"elbow_{s}"}]
    if not sides:
        return
    w = pose.world()
    t = w.pos["neck"] - w.pos["pelvis"]
    n = math.hypot(float(t[0]), float(t[2]))
    if n < float(SOLVER["armClearanceTrunk"]) * float(np.linalg.norm(t)):
        return   # an upright trunk: a swing about it cannot lift an arm
    if w.lowest(BACK_BONES) > float(SOLVER["plantedHeight"]):
        return   # a trunk off the floor (all fours): an arm comes down to the floor, it does not lie on it
    along = np.array((float(t[0]) / n, 0.0, float(t[2]) / n))
    arms = {s: subtree(f"elbow_{s}") for s in sides}
    moving = {b for bones in arms.values() for b in bones}
    fl = min([0.0] + [v for b, v in w.lowest_by_bone().items() if b not in moving])
    # an arm resting on the floor at a keyframe sinks into it by a few millimetres (a forearm
    # laid down): left alone, as the floor clamp leaves it, so the pass does not change a pose
    # the phases on either side of it hold differently; deeper, it is swung out to that depth
    graze = fl - 0.5 * float(SOLVER["plantTolerance"])
    for s in sides:
        shoulder, other = f"shoulder_{s}", f"shoulder_{'right' if s == 'left' else 'left'}"
        wrist0, depth = pose.world().pos[f"wrist_{s}"].copy(), 0.0
        for _it in range(int(SOLVER["clearanceIterations"])):
            w = pose.world()
            low, p = lowest_point(w, arms[s])
            if low >= graze - 1e-4:
                break
            depth = max(depth, fl - low)
            # the axis: along the trunk, signed so that a positive turn takes an arm hanging down
            # out to its own side, tilted towards the outward horizontal by the share of the
            # arm's reach that runs along the trunk (c): an arm lying along the body turns up off
            # the floor at once, not only as it rolls about its own line (its lowest point lies
            # under the trunk's line through the shoulder, where that roll lifts it by the square
            # of the angle, so the arm would start with a jerk); an arm across the trunk swings
            # out
            out = w.pos[shoulder] - w.pos[other]
            out = np.array((float(out[0]), 0.0, float(out[2])))
            out /= max(float(np.linalg.norm(out)), 1e-9)
            a = along if float(cross3(along, np.array((0.0, -1.0, 0.0))).dot(out)) > 0.0 else -along
            r = p - w.pos[shoulder]
            c = -float(r.dot(a)) / max(float(np.linalg.norm(r)), 1e-9)
            a = a + c * out
            a = a / float(np.linalg.norm(a))
            rperp = r - a * float(a.dot(r))
            A, B = float(rperp[1]), float(cross3(a, rperp)[1])
            R = math.hypot(A, B)
            if R < 1e-9:
                break
            phi, ac = math.atan2(B, A), math.acos(min(1.0, max(-1.0, (A + graze - low) / R)))
            turns = [math.atan2(math.sin(x), math.cos(x)) for x in (phi + ac, phi - ac)]
            theta = min([x for x in turns if x > 1e-9], default=None)
            if theta is None:
                break
            e = turned_euler(pose.local[shoulder], w.rot[shoulder], a, theta)
            pose.set_euler(shoulder, clamp_box(shoulder, e, pose.euler[shoulder]))
        if swung is not None and depth > 0.0:
            moved = float(np.linalg.norm(pose.world().pos[f"wrist_{s}"] - wrist0))
            old = swung.get(s, (0.0, 0.0))
            swung[s] = (max(old[0], depth), max(old[1], moved))


def heel_on_floor(pose: Pose, side: str, dy: float) -> None:
    """A free foot with its toes up on purpose, through the floor on its heel, rises by ``dy`` (m)
    with its pitch kept: the hip flexes until the knee is ``dy`` higher (:func:`hinge_up`) and the
    knee bends back by as much, so the shank and foot keep their orientation and only rise (the
    heel coming forward: a heel set down ahead, toes up). Flexing the knee alone would pitch the
    toes down by its angle (15° of dorsiflexion showed 7°). The knee's bend-back stays within its
    ROM box (widened to its angle, as :func:`hinge_up` does): a hip that rises by extending (a
    leg over a body tipped back) would otherwise ask the knee to hyperextend past it (-78° seen).
    Same rule in runtime/solvers/swingclearance.js ``clearFreeLimbs``."""
    hip, knee = f"hip_{side}", f"knee_{side}"
    x0 = pose.euler[hip][0]
    hinge_up(pose, hip, pose.world().pos[knee].copy(), dy, 0, True)
    e = list(pose.euler[knee])
    e[0] -= pose.euler[hip][0] - x0
    pose.set_euler(knee, clamp_box(knee, e, pose.euler[knee]))


def run(st) -> None:
    """The swing-clearance pass: while the body rests on a lock or a floor pin
    (:attr:`~.plan.PhaseState.stands`), free legs are kept out of the floor in their own chain."""
    if st.stands:
        clear_free_limbs(st.pose, st.kf, arriving=st.arriving, start=st.prev.world, decided=st.decided)
        clear_free_arms(st.pose, st.kf, st.res.arms_swung)
