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
    self-collision depth. Explained violations do not fail (docs/eval.md)."""
    codes = {
        "heel_lift": ("kinematic-foot-flat",), "toe_lift": ("kinematic-foot-flat",),
        "sole_tilt": ("kinematic-foot-flat",),
        "drift": ("kinematic-foot-drift", "kinematic-ground-lock-lifted"),
        "grip_residual": ("kinematic-grip-unreachable",), "pin_residual": ("kinematic-pin-unreachable",),
        "reach_residual": ("kinematic-reach-short",),
        "self_collision": ("kinematic-self-collision",),
    }
    for v in violations:
        want = codes.get(v.metric)
        if not want:
            continue
        effector = v.subject.split()[0]
        # the phase of the violation, or the one before it (leaving an impossible keyframe)
        k = phases.index(v.phase) if v.phase in phases else len(phases)
        near = {v.phase, phases[k - 1] if phases else None}
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
