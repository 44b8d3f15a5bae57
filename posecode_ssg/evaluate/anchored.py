"""Anchored contacts: grip, prop-pin and reach residuals (docs/eval.md ``grip_residual``,
``pin_residual``, ``reach_residual``)."""

from __future__ import annotations

import numpy as np

from posecode_ssg.evaluate.context import Context, side_of
from posecode_ssg.evaluate.floor import subtree_low
from posecode_ssg.evaluate.runs import merge_worst, run_violations, worst_of
from posecode_ssg.evaluate.thresholds import METRIC, DocumentMetrics, Violation


def _effector_point(ctx: Context, effector: str, target: str) -> np.ndarray:
    """(N, 3): a foot meets a top surface (``box``, ``seat``) with its sole centre, everything
    else with its joint (solve.py ``_effector_point``); a grip holds the wrist joint."""
    if effector.startswith("foot_") and target in ("box", "seat"):
        return ctx.s.landmark(f"sole_{side_of(effector)}")
    return ctx.s.bone(ctx.rig["effectors"].get(effector, effector))


def anchored_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Grip residual (wrist joint to its bar anchor) and prop-pin residual (effector point to the
    prop anchor), in mm: over a whole segment when the previous phase already held the same
    effector on the same anchor, else at the phase end only (the body travels to the bar during
    the segment that takes hold). Reach residual (mm) at each phase end: distance to a prop anchor
    or body landmark, or for ``floor`` the height above it of the lowest mesh point of the
    effector's subtree (the floor target's definition, KR §7.1: evaluate/floor.py
    :func:`~posecode_ssg.evaluate.floor.subtree_low`)."""
    grip = np.zeros(ctx.n)
    gmask = np.zeros(ctx.n, bool)
    pin = np.zeros(ctx.n)
    pmask = np.zeros(ctx.n, bool)
    #: per metric: (values, mask, subject) of each anchored contact, for its own violations
    subjects: dict[str, list[tuple[np.ndarray, np.ndarray, str]]] = {"grip_residual": [], "pin_residual": []}
    for seg, a, b in ctx.runs:
        ph = ctx.phase(seg)
        prev = ctx.phase(seg - 1) if seg > 0 else (ctx.phases[-1] if ctx.s.timing.wrap == 0 else {})
        for kind, key, vals, mask in (("grip", "grip_residual", grip, gmask), ("pin", "pin_residual", pin, pmask)):
            for e, anchor in ph.get(kind, []):
                if anchor == "floor" or anchor not in ctx.anchors:
                    continue
                first = a if [e, anchor] in [list(x) for x in prev.get(kind, [])] else b
                p = _effector_point(ctx, e, anchor)[first:b + 1]
                r = np.linalg.norm(p - ctx.anchors[anchor], axis=-1) * 1000.0
                v = np.zeros(ctx.n)
                m = np.zeros(ctx.n, bool)
                v[first:b + 1] = r
                m[first:b + 1] = True
                subjects[key].append((v, m, f"{e} {anchor}"))
                vals[first:b + 1] = np.maximum(vals[first:b + 1], r)
                mask[first:b + 1] = True
    for key, vals, mask in (("grip_residual", grip, gmask), ("pin_residual", pin, pmask)):
        merge_worst(res, key, worst_of(vals, mask))
        for v, m, subject in subjects[key]:
            res.violations += run_violations(ctx, key, subject, v, m, METRIC[key].limit)

    worst = None
    for seg, a, b in ctx.runs:
        for e, target in ctx.phase(seg).get("reach", []):
            if target == "floor":
                # the target's own definition (KR §7.1): the effector's subtree rests its lowest
                # mesh point on y = 0 (a prone foot on its top, a hand on palm or fingers)
                r = float(abs(subtree_low(ctx, ctx.rig["effectors"][e])[b]))
            elif target in ctx.anchors:
                r = float(np.linalg.norm(_effector_point(ctx, e, target)[b] - ctx.anchors[target]))
            else:
                bone = ctx.rig["effectors"].get(target, target)
                if bone not in ctx.s.bones:
                    continue
                r = float(np.linalg.norm(_effector_point(ctx, e, target)[b] - ctx.s.bone(bone)[b]))
            r *= 1000.0
            worst = r if worst is None else max(worst, r)
            if r > METRIC["reach_residual"].limit:
                res.violations.append(Violation("reach_residual", float(ctx.loop_t[b]), ctx.phase_name(b), r,
                                                METRIC["reach_residual"].limit, f"{e} {target}", fails=False))
    merge_worst(res, "reach_residual", worst)
