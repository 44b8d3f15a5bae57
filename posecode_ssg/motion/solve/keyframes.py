"""The keyframe solve's driver: the base pose and every phase end, each phase through the passes
of :data:`PASSES` in the order of docs/runtime.md "Solve order per frame", the loop seam and
the prop placement.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from posecode_ssg.language.vocabulary import BONES, FLOOR

from ..fk import World, forward_kinematics, joint_xyz
from ..fkprep import euler_key
from ..rig import SOLVER, START_POSES_TABLE, Avatar, avatar
from ..rest import NO_REST, rest_rotation
from ..rotation import euler_to_matrix, norm3
from ..support import BOTH_FEET
from . import (
    balance,
    contacts,
    floorclamp,
    grip,
    groundlock,
    pin,
    proplimbs,
    props,
    reach,
    selfcollision,
    swingclearance,
)
from .plan import PreviousEnd, plan_phase
from .pose import Pose, turn_matrix
from .props import body_faces, face_push
from .results import Solution

#: The passes of one phase end, in the order of docs/runtime.md "Solve order per frame" (each
#: file of this package carries the name of its twin in ``runtime/solvers/``). ``None``: a pass
#: only the runtime has, which works on frames between keyframes (grounding of an ungrounded
#: frame, the entry blend, the replant); "ground-lock drift" is a report only the numpy solve
#: makes. Every pass takes the phase's :class:`~.plan.PhaseState`.
PASSES: tuple[tuple[str, Callable | None], ...] = (
    ("grounding", None),
    ("ground-lock", groundlock.run),
    ("pin", pin.run),
    ("swing clearance", swingclearance.run),
    ("weight shift", balance.run),
    ("grip", grip.run),
    ("ground-lock drift", groundlock.measure_drift),
    ("props", props.run),
    ("reach", reach.run),
    ("self-collision", selfcollision.run),
    ("floor clamp", floorclamp.run),
    ("entry blend", None),
    ("replant", None),
    ("prop limbs", proplimbs.run),
    ("contact report", contacts.run),
)


def solve_keyframes(program) -> Solution:
    """Solve the base pose and every phase end of a compiled program (cached on the program).

    Returns a :class:`Solution` whose phase worlds hold joint and landmark positions in metres.
    Never raises for a program that :func:`~posecode_ssg.motion.compile_ir` produced.

    **Prop placement**: props are world-fixed (KR §10.1), so a figure whose start pose or any
    phase end passes through a body-resolving face (a chair's seat edge under a standing figure's
    shins, a wall behind a deep wall-sit) is placed clear of it for the whole clip: the solve runs
    once, the largest body-face push over the base pose and the phase ends becomes an offset of
    the start position, and the solve runs again from there. Planted feet are then anchored where
    the figure actually stands, instead of being walked by the push mid-clip. The runtime places
    the figure the same way (runtime/figuremodel.js ``_place``).
    """
    if program._solution is not None:
        return program._solution
    sol, push = _solve(program, np.zeros(3))
    if float(norm3(push)) > 1e-4:
        sol, _push = _solve(program, push)
    program._solution = sol
    return sol


#: how far (m; and per rotation-matrix entry) the loop seam's solved world may be from the start
#: pose's for the second solve pass to be skipped as a repeat of the first (``_solve``)
SEAM_TOLERANCE = 1e-6


def same_world(a: World, b: World) -> bool:
    """Whether two worlds of one avatar have every joint position (m) and world rotation entry
    within :data:`SEAM_TOLERANCE`."""
    if a is b:
        return True
    tol = SEAM_TOLERANCE
    for bone in BONES:
        (ax, ay, az), (bx, by, bz) = joint_xyz(a, bone), joint_xyz(b, bone)
        if abs(ax - bx) > tol or abs(ay - by) > tol or abs(az - bz) > tol:
            return False
    rot_a, rot_b = a.rot, b.rot
    # np.array of the 3 × 3 list: the same stacked values as np.stack, at half the cost
    return float(np.abs(np.array([rot_a[k] for k in BONES]) - np.array([rot_b[k] for k in BONES])).max()) <= tol


#: start-pose worlds by (avatar id, exact Euler bits, root position and rotation bits) -> (avatar, World)
_BASE_WORLDS: dict[tuple, tuple[Avatar, World]] = {}


def base_world(av: Avatar, euler: dict, root_pos: np.ndarray, root_rot: np.ndarray) -> World:
    """:func:`forward_kinematics` of a start pose, the same :class:`World` object for the same
    avatar, angles (bit for bit) and root transform: a figure's solve, view and poster read its
    footprints, lowest points, landmarks and self-collision answers, which a world remembers, so
    the figures that start from one pose measure it once per process (worlds are read-only)."""
    key = euler_key(euler)
    if key is None or len(euler) != len(BONES):
        return forward_kinematics(av, euler, root_pos, root_rot)
    key = (id(av), key, root_pos.tobytes(), root_rot.tobytes())
    hit = _BASE_WORLDS.get(key)
    if hit is None or hit[0] is not av:
        if len(_BASE_WORLDS) >= 64:
            _BASE_WORLDS.clear()
        # made as a phase pose's world is (Pose: the same key), so a phase that comes back to the
        # start pose at the start position is this very world
        hit = _BASE_WORLDS[key] = (av, Pose(av, euler, root_pos, root_rot).world())
    return hit[1]


def _solve(program, place: np.ndarray) -> tuple[Solution, np.ndarray]:
    """One keyframe solve with the start position moved by ``place`` (m); returns the solution and
    the largest body-face push (m) met at the base pose or a phase end.

    The loop seam: with no wrap segment (the last phase ends on the base pose, KR §5.1) the loop
    enters the first phase from the last one's solved end, so a second pass solves every phase
    from there and contacts planted at the end are handed over at the seam (runtime/figuremodel.js
    ``_buildPlans``). The second pass is kept when the loop closes: it ends within
    ``plantedHeight`` of where it started, or with its root and ankles where the first pass ended
    them (a prop pin or a support fixes the body, as a seat or a box does). Otherwise (world-fixed
    floor pins that travel: a gait's root keeps its travelled place while its plants move on) the
    first pass stands and the seam jumps home. The second pass is skipped when the seam's state
    (the previous end's world, turn, travel, pins, grips and support) is the first pass's start
    state within :data:`SEAM_TOLERANCE`: the solve is deterministic, so it would repeat the first
    pass. Numpy-only: the runtime solves frames, not passes."""
    av = avatar(program.avatar)
    sp = START_POSES_TABLE[program.start_pose]
    base_rot = euler_to_matrix(sp.root_euler)
    base_root = program.base_root() + place
    # the start pose's world with the root rotation a phase without turn has (turn_matrix(0) @
    # base_rot: the same values, signed zeros made +0), so a phase back home is this same world
    start_rot, start_root = turn_matrix(0.0).dot(base_rot), base_root
    if program.base_rest != NO_REST:   # the start pose's rest (motion/rest.py)
        start_rot = rest_rotation(program.base_rest).dot(start_rot)
        start_root = base_root + np.asarray(program.base_rest[3:], float)
    start = base_world(av, program.base_euler, start_root, start_rot)
    largest = face_push(Pose(av, program.base_euler, base_root, base_rot), program.props, apply=False) \
        if body_faces(program.props) else np.zeros(3)
    prev = PreviousEnd(start)
    phases = []
    planted_h = float(SOLVER["plantedHeight"])
    passes = 2 if program.wrap == 0 and program.keyframes else 1
    last_root = base_root
    first_end = None   # root and ankles at the end of the first pass
    for n_solved, (i, kf) in enumerate([*enumerate(program.keyframes)] * passes):
        if n_solved == len(program.keyframes):
            first_end = [last_root.copy(), prev.world.pos["ankle_left"], prev.world.pos["ankle_right"]]
            if (prev.turn == 0.0 and tuple(prev.travel) == (0.0, 0.0) and not prev.pins and not prev.prints
                    and not prev.grips and prev.support == BOTH_FEET and same_world(prev.world, start)):
                break   # the seam enters the first phase as the first pass did: it would repeat it
        st = plan_phase(program, av, i, kf, prev, base_root, base_rot)
        for _name, run in PASSES:
            if run is not None:
                run(st)
            if st.push is not None:
                if float(norm3(st.push)) > float(norm3(largest)):
                    largest = st.push
                st.push = None
        last_root = st.pose.root_pos.copy()
        phases.append(st.res)
        prev = PreviousEnd(st.res.world, kf.turn, kf.travel,
                           {(c.effector, c.target): a for c, a in st.pin_targets if c.target == FLOOR},
                           st.prints, kf.support, {(c.effector, c.target) for c in kf.grips})

    n_kf = len(program.keyframes)
    if first_end is not None and math.hypot(first_end[0][0] - base_root[0], first_end[0][2] - base_root[2]) > planted_h \
            and any(float(norm3(a - b)) > planted_h for a, b in zip(first_end, [
                last_root, prev.world.pos["ankle_left"], prev.world.pos["ankle_right"]])):
        return Solution(av, start, phases[:n_kf]), largest   # the loop does not close
    return Solution(av, start, phases[len(phases) - n_kf:]), largest
