"""What the keyframe solve returns: per phase end the solved world and angles, each contact's
residual, the feet it could not level, drift, rolled soles and lifted locks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from posecode_ssg.language.ir import Contact

from ..fk import World
from ..rig import Avatar


@dataclass
class ContactResult:
    """The outcome of one reach, pin or grip at a phase end: ``residual`` metres between the
    effector's contact point and its target after the whole solve; ``target`` the world point."""

    kind: str          # "reach" | "pin" | "grip"
    contact: Contact
    target: np.ndarray
    residual: float


@dataclass
class FootReport:
    """A planted foot that could not be levelled: ``needed`` ankle x (degrees) to put the sole
    flat, ``limit`` the box edge used, ``heel`` / ``toe`` heights (m) after the solve."""

    side: str
    needed: float
    limit: float
    heel: float
    toe: float


@dataclass
class PhaseSolution:
    """The solved pose at the end of one phase (``world``: joints and landmarks in metres)."""

    index: int
    world: World
    euler: dict[str, tuple[float, float, float]]
    contacts: list[ContactResult] = field(default_factory=list)
    lifted_locks: list[tuple[str, float]] = field(default_factory=list)   # (contact, height m)
    feet: list[FootReport] = field(default_factory=list)
    drift: list[tuple[str, float]] = field(default_factory=list)          # (foot, metres)
    rolled: list[tuple[str, float, float]] = field(default_factory=list)  # (side, lean °, edge lift m)
    planted: dict[str, np.ndarray] = field(default_factory=dict)          # contact -> world point
    arms_swung: dict[str, tuple[float, float]] = field(default_factory=dict)  # side -> (depth m, hand moved m)


@dataclass
class Solution:
    """Solved base pose and one :class:`PhaseSolution` per keyframe."""

    avatar: Avatar
    base: World
    phases: list[PhaseSolution]
