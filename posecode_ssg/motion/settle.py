"""The gravity settle (issue 19 item 1): a lying, seated or kneeling body that its own contacts
hold on the floor (a ground-lock, a pin to the floor) is tipped, as gravity would tip it, about
what holds it until its centre of mass lies over its support.

The rest (motion/rest.py, issue 18) tips a body the floor alone holds, from the keyframe's
authored pose. A held body's place is the solve's: its locked feet stay on their anchors, its
pinned pelvis on its spot. So the settle is found from the solved phase end: the solve runs
once, each held phase end whose centre of mass lies outside its support is turned rigidly about
what touches the floor (the same tip as the rest: :func:`~posecode_ssg.motion.rest.rest_transform`,
about the nearest feature of the support, until a second surface comes down or the centre of
mass lies over it), the turn becomes that keyframe's ``rest`` and the solve runs again from it.

A glute bridge written as people write it (supine, knees bent, ``ground-lock: feet``, hips
extend) solves first as a table, the feet on their anchors and the shoulders in the air; the
settle turns it about the heels until the shoulders come down. A prone body pinned at the
pelvis rocks onto its chest or thighs; hands and feet locked on a plank base with the knees
bent come down onto the knees (cat-cow's all-fours).

The settle turns the root only: the authored joint angles are kept (the solve's passes then
hold the locks and pins as they do for every keyframe), a reach does not move it (the limbs
reaching for a body landmark are left out, as for the rest), and it stops at the floor (the tip
ends where a new surface touches). A standing body is never tipped (a standing start pose), nor
one on a prop (it rests on the prop) or hanging from a grip. The runtime reads the ``rest`` like
any keyframe's and interpolates it like a joint (C1, runtime/timeline.js), so the settled phase
ends are the numpy solve's; between them it corrects the interpolated turn so the body stays on
what holds it (runtime/solvers/settle.js, runtime-only: 0 at the phase ends).
"""

from __future__ import annotations

import numpy as np

from posecode_ssg.language.vocabulary import EFFECTOR_BONE, FLOOR

from .fk import subtree
from .rest import NO_REST, moved_world, rest_transform, rotation_vector, support_gap
from .rig import SOLVER, START_POSES_TABLE
from .rotation import euler_to_matrix
from .solve.pose import turn_matrix

#: degrees below which a phase end is taken as settled already
SETTLED_DEG = 0.05
#: how far (m) outside its support a held body's centre of mass may lie and be over it: the weight
#: shift's margin (rig.py ``solver.shiftMargin``: the rig's contact shapes are smaller than a
#: person's), so a body its holds already balance within eval's 20 mm is left as solved
SETTLE_OVER_M = float(SOLVER["shiftMargin"])


def held_on_floor(kf) -> bool:
    """Whether keyframe ``kf``'s own contacts hold it on the floor: a ground-lock or a pin to the
    floor, and no grip or pin to a prop (:func:`~posecode_ssg.motion.support.hangs`)."""
    return bool(kf.ground_lock or any(c.target == FLOOR for c in kf.pins)) and not kf.hang


def hold_heights(w, kf) -> list[float]:
    """The heights (m) over the floor of what ``kf`` holds on it, in a fixed order: each locked
    or floor-pinned foot's 4 sole corners (a sole rolled onto its edge lifts two), each locked
    hand's or forearm's lowest point, each other floor-pinned effector's lowest point (its own
    bone: a pinned pelvis)."""
    out: list[float] = []
    feet = {c for c in kf.ground_lock if c.startswith("foot_")}
    feet |= {c.effector for c in kf.pins if c.target == FLOOR and c.effector.startswith("foot_")}
    for c in sorted(feet):
        out += [float(y) for y in w.sole_corners(c[5:])[:, 1]]
    for c in sorted(kf.ground_lock):
        if c.startswith(("hand_", "elbow_")):
            out.append(w.lowest(subtree(EFFECTOR_BONE[c])))
    for c in kf.pins:
        if c.target == FLOOR and not c.effector.startswith("foot_"):
            out.append(w.lowest((EFFECTOR_BONE[c.effector],)))
    return out


def holds_kept(before: list[float], after: list[float]) -> bool:
    """Whether every held point that was on the floor (within ``solver.plantTolerance``) still is
    (:func:`hold_heights` of the same keyframe before and after its settle)."""
    tol = float(SOLVER["plantTolerance"])
    return all(b > tol or a <= tol for b, a in zip(before, after))


def _settled_rest(program, kf, w, base_rot, base_root) -> tuple[float, ...] | None:
    """The ``rest`` that settles keyframe ``kf`` solved as ``w`` (module docstring), or None when
    it is settled already."""
    free = frozenset(b for c in kf.reaches if c.target != FLOOR for b in subtree(EFFECTOR_BONE[c.effector]))
    low = w.lowest()
    if low > float(SOLVER["plantedHeight"]):
        return None                       # its holds did not bring it down: nothing rests on the floor
    drop = np.array([0.0, -low, 0.0])
    Q, shift = rest_transform(moved_world(w, drop), free=free, over=SETTLE_OVER_M)
    if float(np.degrees(np.linalg.norm(rotation_vector(Q)))) < SETTLED_DEG:
        return None
    r0 = turn_matrix(kf.turn).dot(base_rot)
    p0 = base_root + np.array([kf.travel[0], 0.0, kf.travel[1]])
    v = np.degrees(rotation_vector(Q @ w.root_rot @ r0.T))
    return tuple(round(float(c), 4) + 0.0 for c in (*v, *(w.root_pos + shift + drop - p0)))


def settle_held(program, solve) -> None:
    """Set ``rest`` on each keyframe of ``program`` that :func:`held_on_floor` holds and whose
    solved end is not over its support (module docstring), on a lying or seated start pose
    without props. ``solve``: :func:`~posecode_ssg.motion.solve.solve_keyframes` (passed in: the
    solve imports this package). The program's cached solution is dropped when a rest changes.

    A keyframe's ``rest`` is relative to its unrested root (turn and travel applied): the
    rotation vector of R·R₀ᵀ (degrees), R the settled root rotation and R₀ the unrested one, and
    the settled root's offset (m) from the unrested root position. A settle that would lift what
    the keyframe holds off the floor (:func:`holds_kept`: a foot locked on its toes behind a body
    that tips onto its knees) is scaled back, by halving (:data:`SETTLE_BISECT` times), to the
    largest share of it that keeps them down."""
    if not program.tilted_base or program.props:
        return
    held = [i for i, kf in enumerate(program.keyframes) if held_on_floor(kf)]
    if not held:
        return
    sol = solve(program)
    base_rot = euler_to_matrix(START_POSES_TABLE[program.start_pose].root_euler)
    base_root = program.base_root()
    full: dict[int, tuple[float, ...]] = {}
    before: dict[int, list[float]] = {}
    gap0: dict[int, float] = {}
    for i in held:
        kf = program.keyframes[i]
        rest = _settled_rest(program, kf, sol.phases[i].world, base_rot, base_root)
        if rest is not None:
            full[i], before[i] = rest, hold_heights(sol.phases[i].world, kf)
            gap0[i] = support_gap(sol.phases[i].world)
    if not full:
        return
    # each settle at the largest share (of 1, then halved) whose re-solved end keeps its holds
    lo = dict.fromkeys(full, 0.0)
    hi = dict.fromkeys(full, 1.0)
    share = dict.fromkeys(full, 1.0)
    for rnd in range(SETTLE_BISECT + 1):
        for i, s in share.items():
            program.keyframes[i].rest = tuple(round(s * c, 4) + 0.0 for c in full[i])
        program._solution = None
        sol = solve(program)
        open_ = False
        for i in full:
            kept = holds_kept(before[i], hold_heights(sol.phases[i].world, program.keyframes[i]))
            if rnd == 0 and kept:
                lo[i] = hi[i] = 1.0
                continue
            if kept:
                lo[i] = share[i]
            else:
                hi[i] = share[i]
            if hi[i] - lo[i] > 1e-9:
                open_ = True
            share[i] = 0.5 * (lo[i] + hi[i]) if rnd < SETTLE_BISECT else lo[i]
        if not open_:
            break
    for i in full:
        program.keyframes[i].rest = tuple(round(lo[i] * c, 4) + 0.0 for c in full[i]) if lo[i] > 0.0 else NO_REST
    # a settle scaled back is kept only where it brings the centre of mass nearer its support
    partial = [i for i in full if 0.0 < lo[i] < 1.0]
    if partial:
        program._solution = None
        sol = solve(program)
        for i in partial:
            if support_gap(sol.phases[i].world) >= gap0[i]:
                program.keyframes[i].rest = NO_REST
    program._solution = None


#: halvings of a settle that would lift a held point (:func:`settle_held`)
SETTLE_BISECT = 6
