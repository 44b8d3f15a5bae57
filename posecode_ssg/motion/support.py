"""What holds the body, decided once at compile time and carried per phase in the motion JSON
(``support``, ``gait``, ``hang``), so that the numpy solve, the browser runtime and ``eval``
read the same answer instead of each deriving it.

- **support** of a phase: the contacts that hold the body at its end, which the next phase's
  ground-locks hold on: its ground-locks and pins, and the feet it reached to the floor
  (secondary contacts, spec §5); both feet (:data:`BOTH_FEET`) after a phase with no lock, pin
  or grip, and for the start pose, which stands on whatever is down.
- **gait** (KR §8, the gait exception): a clip that travels (a phase writes ``travel``) and
  floor-pins feet on both sides treats its floor foot pins as stance legs (the root keeps its
  travelled position, the leg reaches the plant). Carried on the phases that floor-pin a foot,
  the only phases the rule changes.
- **hang** (:func:`hangs`): the phase holds the body up off the floor (a grip, a pin to a prop
  anchor).
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.vocabulary import FLOOR

from .rig import SOLVER

#: the support of a phase without contacts, and of the start pose
BOTH_FEET = frozenset({"foot_left", "foot_right"})


def phase_support(ground_lock, pins, grips, reaches) -> frozenset:
    """The support a phase leaves for the next (module docstring): effector names.

    ``ground_lock``: single-side contact names; ``pins``, ``grips``, ``reaches``: (effector,
    target) pairs, as the motion JSON writes them."""
    if ground_lock or pins or grips:
        return frozenset(ground_lock) | {e for e, _t in pins} | {e for e, t in reaches if t == FLOOR}
    return BOTH_FEET


def stance_foot(support, free=()) -> str | None:
    """The side ("left" / "right") a phase stands on when one foot alone bears the body: its
    support less the contacts not bearing weight yet (``free``: a foot reaching for the floor, a
    locked foot arriving from the air) is that foot (the weight shift: solve/balance.py,
    runtime/solvers/balance.js). None otherwise."""
    bearing = set(support) - set(free)
    if len(bearing) == 1:
        (only,) = bearing
        if only.startswith("foot_"):
            return only[5:]
    return None


def bearing_feet(kf) -> tuple[str, ...]:
    """The sides whose feet alone bear keyframe ``kf`` at its end: its support (decided above) is
    one foot or both, each locked, pinned to the floor or reaching for it (a reach ends on the
    floor, bearing weight). Empty when anything else holds it (a knee, a hand, a grip, a prop)."""
    bearing = set(kf.support)
    if not bearing or not all(e.startswith("foot_") for e in bearing):
        return ()
    down = {c.effector for c in (*kf.pins, *kf.reaches) if c.target == FLOOR}
    if not all(e in kf.ground_lock or e in down for e in bearing):
        return ()
    return tuple(sorted(e[5:] for e in bearing))


def hangs(pins, grips) -> bool:
    """Whether a phase holds the body up off the floor: it grips (a bar, the dip bars) or pins
    an effector to a prop's anchor (the box, the seat), so the floor is not where it rests (the
    floor clamp does not set it down; eval's float does not count it; the runtime's entry blend
    does not keep it on the floor). ``pins``, ``grips``: contacts with ``target``."""
    return bool(grips) or any(c.target != FLOOR for c in pins)


def floor_foot_pin(pins) -> bool:
    """Whether a phase pins a foot to the floor."""
    return any(c.effector.startswith("foot") and c.target == FLOOR for c in pins)


def is_gait(phases) -> bool:
    """The gait exception (module docstring) over a clip's phases: each with ``pins`` and
    ``travel_authored``."""
    sides = {c.effector.rsplit("_", 1)[-1] for k in phases for c in k.pins
             if c.effector.startswith("foot") and c.target == FLOOR}
    return len(sides) == 2 and any(k.travel_authored for k in phases)


#: a point this near (m) the floor (or a prop's face) touches it and spans the base of support
#: (issue 19: "body surfaces within 10 mm of the floor"): eval's support, kinematic-balance, the
#: runtime's ``balance`` warning (rig.json ``solver.baseContact``)
BASE_CONTACT = float(SOLVER["baseContact"])

#: how far (m) the centre of mass may lie outside the base of support (issue 19: support ≤ 20 mm):
#: eval's ``support`` threshold, ``kinematic-balance`` (rig.json ``solver.balanceLimit``)
BALANCE_LIMIT = float(SOLVER["balanceLimit"])

#: unit directions of the horizontal plane a base's support function is taken along (every 2.5°)
AROUND = np.stack([np.cos(np.radians(np.arange(0.0, 360.0, 2.5))), np.sin(np.radians(np.arange(0.0, 360.0, 2.5)))], -1)


def base_gaps(points: np.ndarray, touch: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How far each centre of mass ``c`` (N, 2; x z, m) lies outside the convex hull of its
    touching ``points`` (N, P, 2) (``touch`` (N, P)): (N,) distances (0 inside) and (N, 2) the unit
    horizontal direction it lies out in. The distance from a point to a convex set is the largest,
    over unit directions u, of u·c − h(u), h the set's support function (its farthest point along
    u); taken over :data:`AROUND`, short of the exact distance by at most 1 − cos 1.25° (0.02 %).
    eval's ``support`` (evaluate/support.py) and ``kinematic-balance`` (diagnostics.py) read it."""
    proj = np.einsum("npk,dk->npd", points, AROUND)
    h = np.where(touch[..., None], proj, -np.inf).max(axis=1)           # (N, D)
    gap = c @ AROUND.T - h
    worst = gap.argmax(axis=1)
    return np.maximum(gap[np.arange(len(c)), worst], 0.0), AROUND[worst]


def base_gap(points: np.ndarray, c: np.ndarray) -> tuple[float, np.ndarray]:
    """:func:`base_gaps` of one centre of mass ``c`` (2,) and its base ``points`` (P, 2): the
    distance (m, 0 inside) and the unit direction it lies out in. The same support function, one
    matrix product (a phase end's check: kinematic-balance)."""
    g = c @ AROUND.T - (points @ AROUND.T).max(axis=0)
    k = int(g.argmax())
    return max(float(g[k]), 0.0), AROUND[k]
