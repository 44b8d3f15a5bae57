"""Explained crossings: the kinematic diagnostic of the numpy keyframe solve that predicts a
violation (docs/eval.md "Kinematically impossible documents")."""

from __future__ import annotations

from posecode_ssg.evaluate.thresholds import Violation


def explain(violations: list[Violation], diagnostics: list, phases: list[str]) -> None:
    """Attach to each violation the kinematic diagnostic of the numpy keyframe solve that
    predicts it (same effector; the same phase, or the phase before it — the segment leaving an
    impossible keyframe starts from it; ``phases`` the phase names in order, the wrap after
    them): ``kinematic-foot-flat`` explains heel/toe lift and
    sole tilt of that foot, ``kinematic-foot-drift`` and ``kinematic-ground-lock-lifted`` its
    drift, ``kinematic-grip-unreachable`` / ``kinematic-pin-unreachable`` those residuals,
    ``kinematic-reach-short`` a reach residual, ``kinematic-self-collision`` (same limb) a
    self-collision depth, ``kinematic-balance`` a centre of mass outside its base of support. A float is explained by :func:`_explain_float`. Explained violations
    do not fail (docs/eval.md)."""
    codes = {
        "heel_lift": ("kinematic-foot-flat",), "toe_lift": ("kinematic-foot-flat",),
        "sole_tilt": ("kinematic-foot-flat",),
        "drift": ("kinematic-foot-drift", "kinematic-ground-lock-lifted"),
        "grip_residual": ("kinematic-grip-unreachable",), "pin_residual": ("kinematic-pin-unreachable",),
        "reach_residual": ("kinematic-reach-short",),
        "self_collision": ("kinematic-self-collision",),
        "support": ("kinematic-balance",),
    }
    for v in violations:
        # the phase of the violation, or the one before it (leaving an impossible keyframe)
        k = phases.index(v.phase) if v.phase in phases else len(phases)
        near = {v.phase, phases[k - 1] if phases else None}
        if v.metric == "float":
            _explain_float(v, diagnostics, near)
            continue
        want = codes.get(v.metric)
        if not want:
            continue
        effector = v.subject.split()[0]
        for d in diagnostics:
            extra = getattr(d, "extra", {}) or {}
            if d.code not in want or extra.get("phase") not in near:
                continue
            named = extra.get("foot") or extra.get("limb")
            if named is not None and named != effector:
                continue
            if named is None and effector not in d.message:
                continue
            v.explained = {"line": d.line, "column": d.column, "code": d.code, "message": d.message}
            break


def _explain_float(v: Violation, diagnostics: list, near: set) -> None:
    """A float (mm) is explained by a ``kinematic-ground-lock-lifted`` diagnostic of its own phase
    or the one before it (``near``: the segment leaving that phase starts where it ended, as for
    every other metric) whose contact is at least as high (its ``extra.height``, m, + the float
    limit) when the phase begins: the keyframe solve already says the phase starts with that
    contact in the air, and the figure comes down during the segment (a ground-lock after a hang
    or a box, docs/eval.md). The figure's lowest point can be no higher than that contact there,
    so a higher float is another one."""
    for d in diagnostics:
        extra = getattr(d, "extra", {}) or {}
        if d.code != "kinematic-ground-lock-lifted" or extra.get("phase") not in near:
            continue
        if v.value <= float(extra.get("height", 0.0)) * 1000.0 + v.limit:
            v.explained = {"line": d.line, "column": d.column, "code": d.code, "message": d.message}
            return
