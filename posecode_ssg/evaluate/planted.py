"""Planted contacts: drift, heel and toe lift, sole tilt of held floor contacts (docs/eval.md
"Which contacts are active when" and the ``drift``, ``heel_lift``, ``toe_lift``, ``sole_tilt``
rows)."""

from __future__ import annotations

from typing import Any

import numpy as np

from posecode_ssg.evaluate.context import Context, side_of
from posecode_ssg.evaluate.runs import intervals, merge_worst, run_violations, worst_of
from posecode_ssg.evaluate.thresholds import METRIC, DocumentMetrics
from posecode_ssg.motion.rotation import quat_matrices
from posecode_ssg.motion.support import BOTH_FEET


def previous_support(phase: dict[str, Any]) -> set[str]:
    """The contacts ``phase`` hands on to the phase after it: its motion JSON ``support``,
    decided by the compiler (``motion/support.py``); both feet for the start pose (``phase``
    empty). A foot ground-locked in the next phase that is not in it arrives during that segment
    (a tucked foot returning to the floor) and is not held there, as the solvers hold it."""
    return set(phase.get("support", BOTH_FEET))


def held_contacts(ctx: Context) -> dict[str, dict[str, np.ndarray]]:
    """Per floor contact (``foot_left``, ``hand_right``, ``elbow_left``, ``pelvis``...): boolean
    (N,) ``held`` samples and (N,) ``mode`` codes (0 none, 1 ground-lock in the choreography
    frame, 2 single locked foot (travel frame), 3 floor pin (world frame)). ``back`` is not
    measured (its contact is a surface, not a point)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    heights: dict[str, np.ndarray] = {}
    # the support of the phase before each run (the loop's last phase before the first run when
    # there is no wrap, the start pose's none after a wrap)
    prev = ctx.phase(len(ctx.phases) - 1 if not ctx.motion.get("wrap") else -1)
    for seg, a, b in ctx.runs:
        ph = ctx.phase(seg)
        support = previous_support(prev)
        prev = ph
        locks = [c for c in ph.get("gl", []) if c != "back"]
        pins = [e for e, anchor in ph.get("pin", []) if anchor == "floor"]
        held_here = []
        for c in locks + pins:
            if c.startswith("foot_") and c not in pins and c not in support:
                continue
            if c not in heights:
                heights[c] = ctx.contact_height(c)
            h = heights[c]
            if h[a] <= ctx.planted_h and h[b] <= ctx.planted_h:
                held_here.append(c)
        locked_held = [c for c in held_here if c in locks]
        for c in held_here:
            rec = out.setdefault(c, {"held": np.zeros(ctx.n, bool), "mode": np.zeros(ctx.n, int)})
            rec["held"][a:b + 1] = True
            if c in pins and c not in locks:
                mode = 3
            elif locked_held == [c] and c.startswith("foot_"):
                mode = 2
            else:
                mode = 1
            rec["mode"][a:b + 1] = mode
    return out


MODE_FRAME = {1: "chor", 2: "travel", 3: "world"}


def _interval_drift(ctx: Context, pts: np.ndarray, held: np.ndarray, mode: np.ndarray,
                    touch: bool = False) -> np.ndarray:
    """(N,) mm: horizontal distance of each point from where its interval began, worst point.
    With ``touch``, a point is followed from the first sample of the interval where it is on the
    floor (within ``plantTolerance``): toes that come down onto a planted heel are planted when
    they land, not while they are lowered."""
    drift = np.zeros(ctx.n)
    tol = float(ctx.solver["plantTolerance"])
    for a, b in intervals(held, mode):
        p = ctx.to_frame(pts[a:b + 1], MODE_FRAME[int(mode[a])], slice(a, b + 1))
        for j in range(p.shape[1]):
            start = 0
            if touch:
                down = np.flatnonzero(np.abs(pts[a:b + 1, j, 1]) <= tol)
                if down.size == 0:
                    continue
                start = int(down[0])
            d = np.linalg.norm((p[start:, j] - p[start, j])[:, [0, 2]], axis=-1) * 1000.0
            drift[a + start:b + 1] = np.maximum(drift[a + start:b + 1], d)
    return drift


def pivot_drift(heel: np.ndarray, toe: np.ndarray, steps: int = 41) -> np.ndarray:
    """(n,) mm: how far a foot has slid, allowing it to turn about any point of its sole line.

    ``heel``, ``toe``: (n, 3) metres, sample 0 the start of the hold. The horizontal rigid motion
    from sample 0 to sample i (rotation by the heel→toe heading change, then translation) moves
    each point c(s) = heel₀ + s·(toe₀ − heel₀), s ∈ [0, 1], of the starting sole line; the drift
    is the smallest such displacement. A foot pivoting on its ball, heel or sole centre has a
    point that stays put (drift 0); a foot that slides moves every point (drift = the slide).
    Source: spec §5 / pc-ground-lock-effectors — a single ground-locked foot is the pivot of a
    turn, "the right sole planted within 20 mm: the body turns about the planted foot"."""
    h, t = heel[:, [0, 2]], toe[:, [0, 2]]
    d0 = t[0] - h[0]
    d = t - h
    ang = np.arctan2(d[:, 1], d[:, 0]) - np.arctan2(d0[1], d0[0])
    c, sn = np.cos(ang)[:, None], np.sin(ang)[:, None]
    best = np.full(len(h), np.inf)
    for s_ in np.linspace(0.0, 1.0, steps):
        rel = s_ * d0                                         # point relative to the starting heel
        moved = np.stack([c[:, 0] * rel[0] - sn[:, 0] * rel[1], sn[:, 0] * rel[0] + c[:, 0] * rel[1]], axis=1) + h
        best = np.minimum(best, np.linalg.norm(moved - (h[0] + rel), axis=1))
    return best * 1000.0


def _turning_pivots(ctx: Context, held: np.ndarray, mode: np.ndarray, heel_pts: np.ndarray,
                    toe_pts: np.ndarray, drift: np.ndarray) -> np.ndarray:
    """``drift`` with each single-locked-foot interval (mode 2) in which the choreography turns
    (yaw changes by more than 1°) measured by :func:`pivot_drift` instead: the foot is the pivot
    of the turn and may rotate about a point of its sole, not slide."""
    out = drift.copy()
    for a, b in intervals(held, mode):
        if int(mode[a]) != 2 or np.ptp(ctx.s.yaw[a:b + 1]) <= 1.0:
            continue
        sl = slice(a, b + 1)
        hp = ctx.to_frame(heel_pts[sl][:, None, :], "travel", sl)[:, 0]
        tp = ctx.to_frame(toe_pts[sl][:, None, :], "travel", sl)[:, 0]
        out[sl] = pivot_drift(hp, tp)
    return out


def planted_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Drift (horizontal movement of a held contact's points from where its interval began, in
    its frame; a foot's toe always, its heel too while the foot is expected flat and the heel is
    down (within ``plantTolerance``) — a heel rising on tiptoe, or lifted by the ankle's range
    (kinematic-foot-flat), swings about the ball by design, KR §13 "toe centre when on tiptoe" —
    each sole point
    from when it touches down), heel and toe height (|y|, mm) of a held foot (the heel only while
    flat is expected), and sole tilt (angle between the sole normal, ankle local +Y, and world
    up) of a held foot expected flat. A segment whose held foot does not begin flat (heel or toe
    more than ``plantTolerance`` up: the author lowers the toes or heel onto the floor during the
    phase) is measured for lift and tilt at its phase end only."""
    s = ctx.s
    tol_mm = float(ctx.solver["plantTolerance"]) * 1000.0
    for contact, rec in held_contacts(ctx).items():
        held, mode = rec["held"], rec["mode"]
        pts = ctx.contact_points(contact)
        if not contact.startswith("foot_"):
            drift = _interval_drift(ctx, pts, held, mode)
            merge_worst(res, "drift", worst_of(drift, held))
            res.violations += run_violations(ctx, "drift", contact, drift, held, METRIC["drift"].limit)
            continue
        side = side_of(contact)
        toe = np.abs(s.landmark(f"toe_{side}")[:, 1]) * 1000.0
        heel = np.abs(s.landmark(f"heel_{side}")[:, 1]) * 1000.0
        flat = np.zeros(ctx.n, bool)
        lift_toe = held.copy()
        for seg, a, b in ctx.runs:
            if not held[a]:
                continue
            expect_flat = ctx.flat_expected(seg, side)
            if expect_flat:
                flat[a:b + 1] = True
            placing = toe[a] > tol_mm or (expect_flat and heel[a] > tol_mm)
            if placing:   # measured at the phase end only
                lift_toe[a:b] = False
                flat[a:b] = False
        flat &= held
        # the heel counts while it is down: a heel the ankle's range lifts (kinematic-foot-flat)
        # swings about the ball of the foot with the rest of the sole, as on tiptoe (issue 5)
        heel_drift = _interval_drift(ctx, pts[:, 0:1], flat, mode, touch=True)
        drift = np.maximum(_interval_drift(ctx, pts[:, 1:2], held, mode, touch=True),     # toe
                           np.where(heel <= tol_mm, heel_drift, 0.0))                     # heel
        drift = _turning_pivots(ctx, held, mode, pts[:, 0], pts[:, 1], drift)             # a pivot foot
        merge_worst(res, "drift", worst_of(drift, held))
        res.violations += run_violations(ctx, "drift", contact, drift, held, METRIC["drift"].limit)
        up = quat_matrices(s.orient[:, s.bones.index(f"ankle_{side}")])[:, :, 1]
        tilt = np.degrees(np.arccos(np.clip(up[:, 1], -1.0, 1.0)))
        for key, vals, mask in (("toe_lift", toe, lift_toe), ("heel_lift", heel, flat), ("sole_tilt", tilt, flat)):
            merge_worst(res, key, worst_of(vals, mask))
            res.violations += run_violations(ctx, key, contact, vals, mask, METRIC[key].limit)
    for key in ("drift", "toe_lift", "heel_lift", "sole_tilt"):
        res.worst.setdefault(key, None)
