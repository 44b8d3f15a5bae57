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

from posecode_ssg.language.vocabulary import FLOOR

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
