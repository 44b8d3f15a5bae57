"""The ground-lock pass (KR §6.3; runtime twin: ``runtime/solvers/groundlock.js``): the locked
feet held on their footprints by the stance shift and a two-bone leg IK, levelled; hands and
forearms locked with them reached by a pivot of the body about the feet; a locked back set on
the floor.
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.vocabulary import BACK_BONES, EFFECTOR_BONE

from ..fk import joint_xyz, subtree
from ..rig import SOLVER
from ..rest import centre_of_mass
from ..rotation import axis_angle_matrix, norm3, vadd, vdot, vscale
from .hands import hold_uppers, palm_slip
from .limb import level_angles, level_foot, level_report, swivel, swivel_turn, two_bone
from .measure import ANKLES, contact_height, hold_error, hold_error_xyz, hold_point
from .pose import Pose
from .results import FootReport, PhaseSolution


def hold_weight(low: float, band: tuple[float, float]) -> float:
    """How firmly a ground-locked foot is held (0–1) from its lowest point ``low`` (m) above the
    floor before the hold: 1 up to ``band[0]`` × ``solver.plantedHeight``, smoothstep down to 0
    at ``band[1]`` ×. A foot the authored joints lift off the floor (a hamstring curl) is let go
    over a few degrees of knee, not dropped in one frame: first its height
    (``solver.holdHeightBand``: 1–2 cm of authored lift), then its place on the floor
    (``solver.holdPlaceBand``: 2–3 cm), so it rises before it slides. Same rule in the runtime's
    ground-lock pass."""
    lo, hi = band
    h = float(SOLVER["plantedHeight"])
    x = min(1.0, max(0.0, (hi * h - low) / ((hi - lo) * h)))
    return x * x * (3.0 - 2.0 * x)


def stance_shift(errors: list[tuple[tuple[float, float, float], float]]) -> tuple[float, float, float]:
    """The root's horizontal move (m) that holds the planted feet: the mean of each foot's
    (anchor − sole) error weighted by hold / (|error|² + ε²), ε = ``solver.plantTolerance``.
    Feet that need the same move (a squat sitting back) share it; a foot whose error is its own
    (one foot curling, the feet spreading) barely moves the body, and its leg IK holds it
    instead. Continuous in every input. Same rule in runtime/solvers/groundlock.js."""
    eps2 = float(SOLVER["plantTolerance"]) ** 2
    num, den = (0.0, 0.0, 0.0), 0.0
    for e, k in errors:
        wk = k / (vdot(e, e) + eps2)
        num = vadd(num, vscale(e, wk))
        den += wk
    return (num[0] / den, num[1] / den, num[2] / den) if den > 0 else num


#: how far (m) the feet may be from what a ground-lock round asks of them, and how far (degrees) a
#: foot from level, for a round to be skipped as a no-op (:func:`round_settled`)
ROUND_SETTLED_M = 1e-7


ROUND_SETTLED_DEG = 1e-5


def level_weight(low: float) -> float:
    """How much of its levelling a locked foot gets (0–1) whose lowest point, with its authored
    pitch (measured once, before the ground-lock's first levelling), is ``low`` (m) over the
    floor: :func:`hold_weight` over ``solver.levelBand`` (all up to 3 cm, none from
    ``plantedHeight``, 5 cm, where it stops being planted). A foot the angles lift (a hamstring
    curl's) turns from level to its authored pitch as it rises, not in one frame at 5 cm (15°
    seen); a foot on its ball (relevé) is down and levelled as ever. Measured with the authored
    pitch, not after a levelling, which moves the foot's lowest point (it rises as the foot
    levels): the share would feed back into what it is measured on. Same rule in
    runtime/solvers/groundlock.js."""
    return hold_weight(low, SOLVER["levelBand"])


def planted_feet(low: dict[str, float], feet: list[str]) -> list[str]:
    """The locked ``feet`` (sides) whose lowest point (``low``: per ankle bone, m) is within
    ``plantedHeight`` of the floor."""
    planted_h = float(SOLVER["plantedHeight"])
    return [s for s in feet if low[f"ankle_{s}"] <= planted_h]


def held_feet(low: dict[str, float], planted: list[str], anchors: dict) -> list[tuple[str, float, float]]:
    """The planted feet that have an anchor, each with its horizontal and vertical hold weights
    (:func:`hold_weight` over ``solver.holdPlaceBand`` and ``solver.holdHeightBand``); a foot
    whose horizontal weight is 0 is let go."""
    place, height = SOLVER["holdPlaceBand"], SOLVER["holdHeightBand"]
    held = [(s, hold_weight(low[f"ankle_{s}"], place), hold_weight(low[f"ankle_{s}"], height))
            for s in planted if f"foot_{s}" in anchors]
    return [(s, kh, kv) for s, kh, kv in held if kh > 0.0]


def round_settled(pose: Pose, feet: list[str], carry: list[str], planted: list[str] | None,
                   held: list[tuple[str, float, float]] | None, anchors: dict, semantic_ankle: dict[str, float],
                   level: bool, levelled: dict[str, float] | None = None
                   ) -> tuple[list[str], list[tuple[str, float, float]]] | None:
    """Whether a round of :func:`ground_lock` would leave the pose as it is: the feet need no
    drop (within :data:`ROUND_SETTLED_M`), the same feet are planted and held as in the previous
    round (``planted``, ``held``; None before the first), each planted foot is level within
    :data:`ROUND_SETTLED_DEG`, each held foot is on its anchor and on the floor within
    ROUND_SETTLED_M and needs no swivel (within ROUND_SETTLED_M radians). Every step of the
    round then moves the pose by about as much, so it is skipped (numpy-only: the runtime solves
    frames, not rounds), and so are the rounds after it and the final levelling and re-hold,
    which correct the same residuals. Returns the planted feet and the held feet with their
    weights as the round would have them, or None when the round must run. ``levelled``: each
    foot's share of its levelling (:func:`level_weight`) as the first round found it (None before
    it: measured here)."""
    w = pose.world()
    tol, tol_deg = ROUND_SETTLED_M, ROUND_SETTLED_DEG
    low = w.lowest_by_bone(ANKLES)
    if abs(min(low[f"ankle_{s}"] for s in carry)) > tol:
        return None
    now = planted_feet(low, feet)
    if planted is not None and now != planted:
        return None
    for s in (now if level else ()):
        lv = level_angles(w, s, semantic_ankle[s])
        k = level_weight(low[f"ankle_{s}"]) if levelled is None else levelled[s]
        if lv is not None and abs(semantic_ankle[s] + k * (lv[0] - semantic_ankle[s]) - pose.euler[f"ankle_{s}"][0]) > tol_deg:
            return None
    again = held_feet(low, now, anchors)
    if held is not None and [s for s, _kh, _kv in again] != [s for s, _kh, _kv in held]:
        return None
    for s, kh, kv in again:
        ex, _ey, ez = hold_error_xyz(w, s, anchors[f"foot_{s}"])
        if abs(ex) > tol or abs(ez) > tol:
            return None
        if level:
            if abs(kv * w.lowest(subtree(f"ankle_{s}"))) > tol:
                return None
            turn = swivel_turn(w, s, anchors[f"foot_{s}"][1], kh)
            if turn is not None and abs(turn[1]) > tol:
                return None
    return now, again


def ground_lock(pose: Pose, locks: tuple[str, ...], anchors: dict[str, np.ndarray],
                 semantic_ankle: dict[str, float], result: PhaseSolution, kneeling: bool = False) -> None:
    feet = [s for s in ("left", "right") if f"foot_{s}" in locks]
    uppers = [c for c in locks if c.startswith(("hand", "elbow"))]
    if "back" in locks:
        pose.move((0.0, -pose.world().lowest(BACK_BONES), 0.0))
        return
    if not feet:
        return   # hands / forearms only: the floor clamp does the rest (KR §6.3)

    # the held feet when there are some (a foot arriving from the air does not carry the body)
    carry = [s for s in feet if f"foot_{s}" in anchors] or feet

    def drop_feet():
        low = pose.world().lowest_by_bone(ANKLES)
        pose.move((0.0, -min(low[f"ankle_{s}"] for s in carry), 0.0))

    planted: list[str] = []
    held: list[tuple[str, float, float]] = []
    levelled: dict[str, float] = {}   # each planted foot's share of its levelling (level_weight)
    level = not uppers   # feet behind a hands/forearms support stand on their toes (plank)
    # each held foot: the root moves by the shared part of the feet's (anchor − sole centre)
    # errors (stance_shift), then a two-bone leg IK puts that foot's sole exactly on its anchor and on the floor (the per-foot
    # lock KR §6.3 marks as missing); levelled before and after, in two rounds
    # A round, the rounds after it and the final levelling and re-hold are skipped when the pose
    # (as it comes, or as the first round left it) has nothing for them to correct
    # (round_settled: every residual within 1e-7 m / 1e-5°; numpy-only, see docs/runtime.md
    # "Speed of the numpy solve")
    settled = False
    for _round in range(2):
        again = round_settled(pose, feet, carry, planted if _round else None, held if _round else None,
                               anchors, semantic_ankle, level, levelled if _round else None)
        if again is not None:
            (planted, held), settled = again, True
            if not _round:   # as it comes: the first round's measure
                low = pose.world().lowest_by_bone(ANKLES)
                levelled = {s: level_weight(low[f"ankle_{s}"]) for s in feet}
            break
        drop_feet()
        low = pose.world().lowest_by_bone(ANKLES)
        planted = planted_feet(low, feet)
        if not _round:   # with the authored pitch, before any levelling (level_weight)
            levelled = {s: level_weight(low[f"ankle_{s}"]) for s in feet}
        for s in (planted if level else ()):
            level_foot(pose, s, semantic_ankle[s], levelled[s])
        drop_feet()
        held = held_feet(pose.world().lowest_by_bone(ANKLES), planted, anchors)
        if held:
            w = pose.world()
            errors = []
            for s, kh, _kv in held:
                errors.append((hold_error_xyz(w, s, anchors[f"foot_{s}"]), kh))
            pose.move(stance_shift(errors))
            # feet on their toes behind a hands/forearms lock: held by the stance shift and the
            # pivot about their toes only (a straight leg's IK to a point 15 cm off its end is
            # ill-posed: a sub-millimetre target bends the knee degrees and swings the toes)
            for s, kh, kv in (held if level else ()):
                w = pose.world()
                ex, _ey, ez = hold_error_xyz(w, s, anchors[f"foot_{s}"])
                err = (ex * kh, -kv * w.lowest(subtree(f"ankle_{s}")), ez * kh)
                two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", vadd(joint_xyz(w, f"ankle_{s}"), err))
                swivel(pose, s, anchors[f"foot_{s}"][1], kh)
    firm = {s for s, _kh, kv in held if kv >= float(SOLVER["firmHold"])} if feet else set()
    # the sit-back stands on both feet, each holding the body since the phase began (none arriving)
    if level and len(held) == 2 and len(carry) == 2 and sit_back(pose, held, anchors, semantic_ankle):
        settled = False
    for s in (planted if level else ()):
        # settled: level, on its anchor and heading within the tolerance: the report only
        rep = (level_report(level_angles(pose.world(), s, semantic_ankle[s])) if settled
               else level_foot(pose, s, semantic_ankle[s], levelled.get(s, 1.0)))
        if rep is not None and s in firm:   # a foot being let go is not a planted foot
            result.feet.append(FootReport(s, rep[0], rep[1], 0.0, 0.0))
        if settled:
            continue
        # levelling turned the foot about its ankle: the leg brings its held point back
        kh = next((k for f, k, _kv in held if f == s), 0.0)
        if kh:
            w = pose.world()
            err = vscale(hold_error_xyz(w, s, anchors[f"foot_{s}"]), kh)
            two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", vadd(joint_xyz(w, f"ankle_{s}"), err))
            swivel(pose, s, anchors[f"foot_{s}"][1], kh)
    if uppers:
        # hands/forearms + feet: pivot the rigid body about the lateral axis through the mean
        # planted ankle so the mean upper-support height reaches its floor height (KR §6.3).
        yaw_axis = pose.root_rot @ np.array([1.0, 0.0, 0.0])
        yaw_axis[1] = 0.0
        yaw_axis /= max(norm3(yaw_axis), 1e-9)

        # the body pivots onto the held hands / forearms (one arriving from the air is carried)
        support = [c for c in uppers if c in anchors] or uppers

        def err() -> float:
            w = pose.world()
            return float(np.mean([w.pos[EFFECTOR_BONE[c]][1] - contact_height(w, c) for c in support]))

        def knees() -> float:
            return min(k[1] for k in knee_bottoms(pose.world(), carry))

        # on all fours (``kneeling``: the phase starts on both knees, :func:`kneels`) the body
        # turns until the knees are on the floor and the arms reach the hands from there: a turn
        # onto the hands lifted the knees 2-3 cm between phase ends
        def pivot_onto(g) -> None:
            # pivot, then hold; again (``pivotRounds``) when a held arm could not reach its anchor
            # (a straight arm: the body pivots down to it)
            for _round in range(int(SOLVER["pivotRounds"])):
                for _ in range(int(SOLVER["pivotIterations"])):
                    e0 = g()
                    if abs(e0) < float(SOLVER["pivotTolerance"]):
                        break
                    w = pose.world()
                    # about the feet's floor contacts (the toes of feet on their toes): the turn
                    # keeps them in place
                    pivot = np.mean([hold_point(w, s)[0] for s in carry], axis=0)
                    probe = float(SOLVER["pivotProbeStep"])
                    pose.rotate_root_about(yaw_axis, probe, pivot)
                    d = (g() - e0) / probe
                    pose.rotate_root_about(yaw_axis, -probe, pivot)
                    if abs(d) < 1e-4:
                        break
                    lim = float(SOLVER["pivotMaxStep"])
                    step = float(np.clip(-e0 / d, -lim, lim))
                    pose.rotate_root_about(yaw_axis, step, pivot)
                hold_uppers(pose, uppers, anchors)

        if kneeling:
            saved = (pose.root_pos.copy(), pose.root_rot.copy(), dict(pose.euler))
            pivot_onto(knees)
            share = kneel_release(max(abs(err()), palm_slip(pose, uppers, anchors)))
            if share > 0.0:
                # as far as the arms cannot hold the hands where they were planted from the knees,
                # the body turns onto its hands instead, as on a plank
                for bone, e in saved[2].items():
                    pose.set_euler(bone, e)
                pose.place_root(saved[0], saved[1])
                pivot_onto(err if share >= 1.0 else (lambda: (1.0 - share) * knees() + share * err()))
        else:
            pivot_onto(err)
    result.planted.update({f"foot_{s}": pose.world().landmarks[f"sole_{s}"].copy() for s in planted})


def kneel_release(miss: float) -> float:
    """How far (0–1) a body on all fours turns from its knees onto its hands when, turned onto its
    knees, its arms miss the hands' anchors by ``miss`` (m: the larger of the hands' mean height
    gap and the farthest palm's slide): none up to ``solver.kneelReleaseBand[0]`` ×
    ``plantTolerance`` (2 mm), all from ``[1]`` × (5 mm, eval's drift limit), smoothstep between. The pivot's target is then (1 − s)·knees + s·hands, so the turn moves continuously
    from one to the other as the spine's angles take the shoulders out of the arms' reach (a
    choice between the two slid the hands 13.8 mm in one frame). Same rule in
    runtime/solvers/groundlock.js ``pivotOnFeet``."""
    tol = float(SOLVER["plantTolerance"])
    lo, hi = (b * tol for b in SOLVER["kneelReleaseBand"])
    x = min(1.0, max(0.0, (miss - lo) / (hi - lo)))
    return x * x * (3.0 - 2.0 * x)


def knee_bottoms(w, sides: list[str]) -> list[tuple[float, float, float]]:
    """The lowest points (m) of the knee ends of the shin capsules of legs ``sides``."""
    out = []
    for a, b, r0, _r1 in w.avatar.segments:
        if b in ("ankle_left", "ankle_right") and b[6:] in sides:
            x, y, z = (float(v) for v in w.pos[a])
            out.append((x, y - r0, z))
    return out


def kneels(w, locks) -> bool:
    """Whether a phase that locks hands or forearms with both feet starts on all fours: in ``w``
    (the pose it starts from: the previous phase's end) both knees (their shin capsules' knee
    ends) are within ``solver.plantedHeight`` of the floor and each lower than its foot's held
    point by ``plantTolerance`` (the legs rest on the knees, the feet behind; on a plank the toes
    are the lowest; a cat's feet come down to 3 cm over the floor as the back rounds). Decided
    once a phase. Same in runtime/solvers/plan.js (``lockKneel``)."""
    if not ({"foot_left", "foot_right"} <= set(locks)) or not any(c.startswith(("hand", "elbow")) for c in locks):
        return False
    band = float(SOLVER["plantedHeight"])
    sides = ["left", "right"]
    return all(abs(k[1]) <= band and k[1] < float(hold_point(w, s)[0][1]) - float(SOLVER["plantTolerance"])
               for k, s in zip(knee_bottoms(w, sides), sides))


def sit_back(pose: Pose, held: list[tuple[str, float, float]], anchors: dict,
             semantic_ankle: dict[str, float]) -> bool:
    """Heels down past the ankle's range (issue 18; runtime twin ``groundlock.js`` ``sitBack``).

    Both feet held since the phase began and firmly down, levelled (the caller's condition: a
    one-legged stance is balanced by its own rule), a shin leaning forward more than the ankle's
    dorsiflexion limit allows (a shallow demi-plié's knees over the toes) would lift its heel.
    A person with that ankle range sits back over the heels instead, as far as they stay
    balanced. At a sit-back g (m) the root moves back along the feet's mean heading ĥ by g and
    to the height at which the legs keep their hip-to-ankle lengths with the ankles over a flat
    sole (the knees keep their bend, the hips flex; with two feet, the lower of the two heights),
    and each held leg
    puts its foot back on its anchor, flat on the floor as far as the ankle's box allows
    (:func:`_seat`). g solves, by secant steps (the first turns a leg of
    mean length by the excess; at most ``SOLVER["sitBackRounds"]`` more),

    - excess(g) = 0: the most any foot's levelling angle is short of the ankle box (degrees);
    - unless first room(g) = 0: the centre of mass (Winter's segments,
      :func:`~posecode_ssg.motion.rest.centre_of_mass`) along ĥ, less the rear heel along ĥ and
      ``SOLVER["sitBackHeelMargin"]``. A body sitting back further would fall backwards, so its
      heels lift instead (``kinematic-foot-flat`` says by how much): each such foot is set down
      on its lowest point.

    Returns whether the body moved."""
    if any(kv < float(SOLVER["firmHold"]) for _s, _kh, kv in held):
        return False                             # the feet firmly down: a stance to sit back in
    w = pose.world()
    lvs = [level_angles(w, s, semantic_ankle[s]) for s, _kh, _kv in held]
    if any(lv is None or lv[3] > 0.0 for lv in lvs):
        return False                             # a foot kept on its toes: the pitch is authored
    ex = max(lv[2] - lv[1] for lv in lvs)
    if ex <= SIT_BACK_DONE_DEG:
        return False
    heads = []
    for s, _kh, _kv in held:
        f = w.landmarks[f"toe_{s}"] - w.landmarks[f"heel_{s}"]
        heads.append(np.array([f[0], 0.0, f[2]]) / max(math.hypot(float(f[0]), float(f[2])), 1e-9))
    hm = np.sum(heads, axis=0)
    if float(norm3(hm)) < 1e-9:
        return False
    hm = hm / float(norm3(hm))
    rear = min(float(w.landmarks[f"heel_{s}"].dot(hm)) for s, _kh, _kv in held) + float(SOLVER["sitBackHeelMargin"])
    room = float(centre_of_mass(w).dot(hm)) - rear
    if room <= 0.0:
        return False
    # each leg: its hip and ankle now, its length, its ankle's height over a flat sole; and the
    # sine of its foot's excess now (the ankle of a foot pivoted on its ball rises with it)
    legs, rise = [], []
    for (s, _kh, kv), lv in zip(held, lvs):
        hip, ank = w.pos[f"hip_{s}"].copy(), w.pos[f"ankle_{s}"].copy()
        legs.append((hip, ank, float(norm3(hip - ank)), kv * pose.av.sole_drop + (1.0 - kv) * float(ank[1])))
        rise.append(math.sin(math.radians(lv[2] - lv[1])))
    root0 = pose.root_pos.copy()

    def place(g: float, ankle_y: list[float] | None = None) -> tuple[float, float]:
        # the root at g, as high as keeps the lower-reaching leg's length to its ankle at
        # ``ankle_y`` (default: over a flat sole; the other leg bends a little more); the feet
        # seated flat (default) or on their lowest points
        dy = math.inf
        for k, (hip, ank, length, flat_y) in enumerate(legs):
            dh = (hip - ank + g * hm) * (1.0, 0.0, 1.0)
            y = flat_y if ankle_y is None else ankle_y[k]
            dy = min(dy, y + math.sqrt(max(length * length - float(dh.dot(dh)), 0.0)) - float(hip[1]))
        pose.move(tuple(root0 + g * hm + (0.0, dy, 0.0) - pose.root_pos))
        for (s, kh, kv), (_h, _a, _l, flat_y) in zip(held, legs):
            _seat(pose, s, kh, anchors[f"foot_{s}"], semantic_ankle[s], flat_y if ankle_y is None else None, kv)
        wg = pose.world()
        e = max(lv[2] - lv[1] for lv in (level_angles(wg, s, semantic_ankle[s]) for s, _kh, _kv in held))
        return e, float(centre_of_mass(wg).dot(hm)) - rear

    # secant steps from g = 0 and a first step that turns a leg of mean length by the excess or
    # takes the centre of mass to the heels' margin (it moves by SIT_BACK_COM_SHARE of the root's
    # move), at most SIT_BACK_FIRST_M; each later one at most SIT_BACK_STEP_M; the best point found (balanced, the least excess, then the
    # least sit-back) is where it ends
    g0, ex0, room0 = 0.0, ex, room
    g = -min(math.radians(ex) * float(np.mean([leg[2] for leg in legs])), room / SIT_BACK_COM_SHARE,
             SIT_BACK_FIRST_M)
    ex, room = place(g)
    best = (g, ex, room)
    for _i in range(int(SOLVER["sitBackRounds"])):
        if (ex <= SIT_BACK_DONE_DEG and room >= 0.0) or 0.0 <= room <= SIT_BACK_ROOM_DONE_M:
            break   # flat, or as far back as the balance allows
        # slopes along g (both fall as the body sits back); the step that flattens the feet,
        # unless the balance allows less (or less than has been taken: the centre of mass
        # does not move linearly in g)
        s_ex, s_room = (ex - ex0) / (g - g0), (room - room0) / (g - g0)
        g_next = max(g - ex / s_ex if s_ex > 1e-9 else -math.inf, g - room / s_room if s_room > 1e-9 else -math.inf)
        g_next = min(0.0, g + SIT_BACK_STEP_M, max(g_next, g - SIT_BACK_STEP_M))
        if abs(g_next - g) < 1e-6:
            break
        g0, ex0, room0 = g, ex, room
        g = g_next
        ex, room = place(g)
        if room >= 0.0 and (best[2] < 0.0 or (ex, -g) < (best[1], -best[0])):
            best = (g, ex, room)
    if (g, ex, room) != best:
        g, ex, room = best
        place(g)
    if ex > SIT_BACK_DONE_DEG:
        # short of flat: the heels lift, each foot pivots onto its lowest point, its ankle rising
        # as at the start in the ratio of the sines of the excesses (a foot turning about its
        # ball), and the root with it (the legs keep their lengths); so the pose tends to the
        # flat one as the shortfall vanishes
        wl = pose.world()
        place(g, [flat_y + (float(ank[1]) - flat_y) * min(1.0, _sine_ratio(wl, s, semantic_ankle[s], r))
                  for (s, _kh, _kv), (_h, ank, _l, flat_y), r in zip(held, legs, rise)])
    return True


def _sine_ratio(w, s: str, semantic_ankle: float, start: float) -> float:
    """sin(the excess of foot ``s`` now) / ``start`` (the sine at the sit-back's start; 0 when it
    was flat then)."""
    lv = level_angles(w, s, semantic_ankle)
    return math.sin(math.radians(lv[2] - lv[1])) / start if lv is not None and start > 1e-9 else 0.0


def _seat(pose: Pose, s: str, kh: float, anchor, semantic_ankle: float, flat_y: float | None,
          kv: float = 1.0) -> None:
    """Held foot ``s`` back on ``anchor`` (``kh`` of its place error), in ``SEAT_ROUNDS`` rounds
    of: level the foot; the leg's two-bone IK puts the ankle over the anchor at ``flat_y`` (its
    height over a flat sole) or, with ``flat_y`` None, lowers it by ``kv`` × the foot's lowest
    point; swivel the heading back. Then levelled once more, which turns the foot about its
    ankle: a foot the ankle's box lets lie flat rests on the floor."""
    for _r in range(SEAT_ROUNDS):
        level_foot(pose, s, semantic_ankle)
        w = pose.world()
        ex, _ey, ez = hold_error_xyz(w, s, anchor)
        a = joint_xyz(w, f"ankle_{s}")
        y = flat_y if flat_y is not None else a[1] - kv * w.lowest(subtree(f"ankle_{s}"))
        two_bone(pose, f"hip_{s}", f"knee_{s}", f"ankle_{s}", (a[0] + kh * ex, y, a[2] + kh * ez))
        swivel(pose, s, anchor[1], kh)
    level_foot(pose, s, semantic_ankle)


#: rounds of :func:`_seat`: the second takes up what the first one's turn of the foot moved
SEAT_ROUNDS = 2


#: degrees a levelled foot may be short of flat for the sit-back to leave it
SIT_BACK_DONE_DEG = 0.01
#: metres one step of the sit-back's search may move the root; its first guess
SIT_BACK_STEP_M = 0.1
SIT_BACK_FIRST_M = 0.3
#: the share of a sit-back the centre of mass follows (the body moves with the root, the feet
#: and shins stay: 1 − Winter's feet, legs and about half the thighs ≈ 0.8), for the first guess
SIT_BACK_COM_SHARE = 0.8
#: metres of balance room within which the sit-back has gone as far back as it may
SIT_BACK_ROOM_DONE_M = 2e-3


def run(st) -> None:
    """The ground-lock pass of one phase end (``st``: :class:`~.plan.PhaseState`)."""
    if st.kf.ground_lock:
        ground_lock(st.pose, st.kf.ground_lock, st.anchors, st.sem_ankle, st.res, kneels(st.prev.world, st.kf.ground_lock))


def measure_drift(st) -> None:
    """Record each held locked foot that ends more than ``plantTolerance`` off its footprint
    (``res.drift``); measured before the prop push, which may walk the feet."""
    kf, res, anchors = st.kf, st.res, st.anchors
    if kf.ground_lock:
        wd = st.pose.world()
        for s in ("left", "right"):
            key = f"foot_{s}"
            if key in kf.ground_lock and key in res.planted and key in anchors:
                drift = float(norm3(hold_error(wd, s, anchors[key])))
                if drift > float(SOLVER["plantTolerance"]):
                    res.drift.append((key, drift))
