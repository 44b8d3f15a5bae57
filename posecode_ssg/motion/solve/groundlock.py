"""The ground-lock pass (KR §6.3; runtime twin: ``runtime/solvers/groundlock.js``): the locked
feet held on their footprints by the stance shift and a two-bone leg IK, levelled; hands and
forearms locked with them reached by a pivot of the body about the feet; a locked back set on
the floor.
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.vocabulary import BACK_BONES, EFFECTOR_BONE

from ..fk import joint_xyz, subtree
from ..rig import SOLVER
from ..rotation import norm3, vadd, vdot, vscale
from .hands import hold_uppers
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
                   level: bool) -> tuple[list[str], list[tuple[str, float, float]]] | None:
    """Whether a round of :func:`ground_lock` would leave the pose as it is: the feet need no
    drop (within :data:`ROUND_SETTLED_M`), the same feet are planted and held as in the previous
    round (``planted``, ``held``; None before the first), each planted foot is level within
    :data:`ROUND_SETTLED_DEG`, each held foot is on its anchor and on the floor within
    ROUND_SETTLED_M and needs no swivel (within ROUND_SETTLED_M radians). Every step of the
    round then moves the pose by about as much, so it is skipped (numpy-only: the runtime solves
    frames, not rounds), and so are the rounds after it and the final levelling and re-hold,
    which correct the same residuals. Returns the planted feet and the held feet with their
    weights as the round would have them, or None when the round must run."""
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
        if lv is not None and abs(lv[0] - pose.euler[f"ankle_{s}"][0]) > tol_deg:
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
                 semantic_ankle: dict[str, float], result: PhaseSolution) -> None:
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
                               anchors, semantic_ankle, level)
        if again is not None:
            (planted, held), settled = again, True
            break
        drop_feet()
        planted = planted_feet(pose.world().lowest_by_bone(ANKLES), feet)
        for s in (planted if level else ()):
            level_foot(pose, s, semantic_ankle[s])
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
    for s in (planted if level else ()):
        # settled: level, on its anchor and heading within the tolerance: the report only
        rep = (level_report(level_angles(pose.world(), s, semantic_ankle[s])) if settled
               else level_foot(pose, s, semantic_ankle[s]))
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

        # pivot, then hold; again (``pivotRounds``) when a held arm could not reach its anchor
        # (a straight arm: the body pivots down to it)
        for _round in range(int(SOLVER["pivotRounds"])):
            for _ in range(int(SOLVER["pivotIterations"])):
                e0 = err()
                if abs(e0) < float(SOLVER["pivotTolerance"]):
                    break
                w = pose.world()
                # about the feet's floor contacts (the toes of feet on their toes): the turn keeps
                # them in place
                pivot = np.mean([hold_point(w, s)[0] for s in carry], axis=0)
                probe = float(SOLVER["pivotProbeStep"])
                pose.rotate_root_about(yaw_axis, probe, pivot)
                d = (err() - e0) / probe
                pose.rotate_root_about(yaw_axis, -probe, pivot)
                if abs(d) < 1e-4:
                    break
                lim = float(SOLVER["pivotMaxStep"])
                step = float(np.clip(-e0 / d, -lim, lim))
                pose.rotate_root_about(yaw_axis, step, pivot)
            hold_uppers(pose, uppers, anchors)
    result.planted.update({f"foot_{s}": pose.world().landmarks[f"sole_{s}"].copy() for s in planted})


def run(st) -> None:
    """The ground-lock pass of one phase end (``st``: :class:`~.plan.PhaseState`)."""
    if st.kf.ground_lock:
        ground_lock(st.pose, st.kf.ground_lock, st.anchors, st.sem_ankle, st.res)


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
