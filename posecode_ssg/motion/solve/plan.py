"""The contact plan of one phase (runtime twin: ``runtime/solvers/plan.js``): what the phase
starts from (the previous phase's solved end), the anchors its locked feet, hands and forearms
are held on, the feet still arriving from the air, and the state the passes share while they
solve the phase end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from posecode_ssg.language.vocabulary import BACK_BONES, EFFECTOR_BONE, FLOOR

from ..fk import World, subtree
from ..rig import SOLVER, Avatar
from ..support import BOTH_FEET
from .measure import ANKLES, footprint, side_of
from ..rest import NO_REST, rest_rotation
from .pose import Pose, turn_matrix
from .results import PhaseSolution


@dataclass
class PreviousEnd:
    """What a phase starts from: the previous phase's solved ``world``, its turn (degrees) and
    travel (m, x and z), its floor pins' anchors and floor feet's footprints by (effector,
    target), the contacts that held the body (``support``) and the grips held at its end."""

    world: World
    turn: float = 0.0
    travel: tuple = (0.0, 0.0)
    pins: dict = field(default_factory=dict)
    prints: dict = field(default_factory=dict)
    support: frozenset | set = BOTH_FEET
    grips: set = field(default_factory=set)


@dataclass
class PhaseState:
    """One phase end being solved: the program and keyframe, the working ``pose``, the result
    record, where it starts from, and what the passes find and hand on (pin, grip and reach
    targets, the footprints of floor-pinned feet, the body-face push)."""

    program: object
    av: Avatar
    kf: object
    pose: Pose
    res: PhaseSolution
    prev: PreviousEnd
    gait: bool
    anchors: dict
    arriving: frozenset
    sem_ankle: dict
    decided: dict = field(default_factory=dict)   # swing clearance: on its heel, per (side, reached)
    pin_targets: list = field(default_factory=list)
    prints: dict = field(default_factory=dict)
    stance: bool = False
    shift_sides: tuple = ()   # the weight shift's stance sides (balance.py): their floor reaches present the sole
    grip_targets: list = field(default_factory=list)
    reach_targets: list = field(default_factory=list)
    push: np.ndarray | None = None

    @property
    def stands(self):
        """Whether the body rests on a ground-lock or a floor pin (swing clearance runs)."""
        return self.kf.ground_lock or any(c.target == FLOOR for c, _ in self.pin_targets)

    @property
    def on_top(self) -> bool:
        """Whether a foot is pinned on a prop's top surface (the box, the seat)."""
        return any(c.effector.startswith("foot") and c.target in SOLVER["propTops"] for c, _ in self.pin_targets)


def chor(p: np.ndarray, turn: float, travel, base_root: np.ndarray) -> np.ndarray:
    """A world point in the choreography frame (the clip's turn and travel removed)."""
    q = p - base_root - np.array([travel[0], 0.0, travel[1]])
    return turn_matrix(-turn).dot(q)


def unchor(p: np.ndarray, turn: float, travel, base_root: np.ndarray) -> np.ndarray:
    """A choreography-frame point in the world at ``turn`` (degrees) and ``travel`` (m)."""
    return turn_matrix(turn).dot(p) + base_root + np.array([travel[0], 0.0, travel[1]])


def plan_phase(program, av: Avatar, index: int, kf, prev: PreviousEnd, base_root: np.ndarray,
               base_rot: np.ndarray) -> PhaseState:
    """The state a phase end's solve starts from: the keyframe's pose at its turn and travel,
    and the anchors of its ground-locks.

    Anchors: every foot sole on the floor at the end of the previous phase and part of its
    support, carried by the change of turn and travel (KR §5.4, §6.2: the stance turns with the
    body, as in a pivot on both feet; drift is measured in this choreography frame, KR §13). A
    single held ground-locked foot is the pivot of a turn instead: it stays where it is in the
    world and the body turns about it. A locked foot not on the floor when the phase begins
    arrives from the air (``arriving``): free until it lands. Locked hands and forearms are held
    where they were on the floor (the palm; the elbow joint), carried like a stance of feet.
    Ground-locked contacts not near the floor when the phase begins are recorded as lifted."""
    planted_h = float(SOLVER["plantedHeight"])
    # the keyframe's rest (motion/rest.py: a lying or seated body tipped onto what holds it)
    root_rot = turn_matrix(kf.turn).dot(base_rot)
    root_pos = base_root + np.array([kf.travel[0], 0.0, kf.travel[1]])
    if kf.rest != NO_REST:
        root_rot = rest_rotation(kf.rest).dot(root_rot)
        root_pos = root_pos + np.asarray(kf.rest[3:], float)
    pose = Pose(av, kf.euler, root_pos, root_rot)
    res = PhaseSolution(index, None, {})   # type: ignore[arg-type]
    prev_world = prev.world
    travel_delta = np.array([kf.travel[0] - prev.travel[0], 0.0, kf.travel[1] - prev.travel[1]])
    # the locked feet held: on the floor and part of the previous support (a foot still landing
    # does not make a stance)
    locked_feet = [s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock
                   and prev_world.lowest(subtree(f"ankle_{s}")) <= planted_h and f"foot_{s}" in prev.support]
    anchors: dict[str, np.ndarray] = {}
    for s in ("left", "right"):
        # a foot's anchor is its footprint (C, D): centre and half sole line
        p, d = footprint(prev_world, s)
        low = prev_world.lowest(subtree(f"ankle_{s}"))
        if low <= planted_h and f"foot_{s}" in prev.support:
            if locked_feet == [s]:
                a = p + travel_delta
            else:
                a = unchor(chor(p, prev.turn, prev.travel, base_root), kf.turn, kf.travel, base_root)
            d = turn_matrix(kf.turn - prev.turn).dot(d)   # the heading turns with the body (a pivot too)
            a[1] = 0.0
            anchors[f"foot_{s}"] = (a, d)
    arriving = frozenset(s for s in ("left", "right") if f"foot_{s}" in kf.ground_lock and f"foot_{s}" not in anchors)
    for c in kf.ground_lock:
        if c.startswith("hand"):
            p, low = prev_world.landmarks[f"palm_{side_of(c)}"], prev_world.lowest(subtree(EFFECTOR_BONE[c]))
        elif c.startswith("elbow"):
            p = prev_world.pos[EFFECTOR_BONE[c]]
            low = float(p[1]) - float(SOLVER["elbowFloorHeight"])
        else:
            continue
        if low <= planted_h:
            anchors[c] = unchor(chor(p, prev.turn, prev.travel, base_root), kf.turn, kf.travel, base_root)
    prev_low = prev_world.lowest_by_bone(ANKLES)
    for c in kf.ground_lock:
        if c == "back":
            h = prev_world.lowest(BACK_BONES)
        elif c.startswith("foot"):
            h = prev_low[f"ankle_{side_of(c)}"]
        else:
            b = EFFECTOR_BONE[c] if c in EFFECTOR_BONE else c
            h = prev_world.lowest(subtree(b)) if not c.startswith("elbow") else \
                prev_world.pos[b][1] - float(SOLVER["elbowFloorHeight"])
        if h > planted_h:
            res.lifted_locks.append((c, float(h)))
    sem_ankle = {s: kf.semantic[f"ankle_{s}"][0] for s in ("left", "right")}
    return PhaseState(program, av, kf, pose, res, prev, kf.gait, anchors, arriving, sem_ankle)
