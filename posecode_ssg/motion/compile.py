"""IR → :class:`MotionProgram`: full-pose keyframes, quaternions, contacts, loop wrap, compact JSON.

The rules (spec §3, §6; kinematics-reference §3.2, §3.4, §5.1) and our documented choices
(docs/motion-json.md):

- The base keyframe is the built-in start pose with the ``pose start`` overrides laid over it
  channel by channel (only the authored ``axes`` of each override).
- Each phase keyframe is a **full** pose: the previous keyframe's Euler channels with the phase's
  authored channels overwritten (targets are absolute and sparse per channel); ``hold neutral``
  arrives from the parser as a target of (0, 0, 0) on all three axes and needs no special case.
- Hinge coupling (kinematics-reference §3.4): when a keyframe's pelvis x ≠ 0, its hip x becomes
  clamp(hip x − pelvis x, −135, +20). The coupled values are what the quaternions and the solve
  use; the authored ("semantic") values are kept for posters and diagnostics.
- Euler → quaternion with intrinsic XYZ (q = qX·qY·qZ); each bone's sign is kept continuous with
  the previous keyframe (dot ≥ 0).
- ``turn`` and ``travel`` are absolute and carried; the loop returns home.
- Wrap: a segment of the first phase's duration back to the base, only when the last keyframe is
  not home (any bone > 0.5° away, turn not a multiple of 360, travel ≠ 0); otherwise 0 s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from posecode_ssg.language.ir import IR, Contact
from posecode_ssg.language.rom import rom_box as _rom_box_uncached
from posecode_ssg.language.vocabulary import (
    AVATARS,
    BONES,
    DEFAULT_AVATAR,
    EFFECTOR_BONE,
    FLOOR,
    expand_ground_lock,
)

from .fk import forward_kinematics, subtree
from .rest import NO_REST, keyframe_rest
from .rig import DEFAULT_START_POSE, START_POSES_TABLE
from .rig import avatar as rig_avatar
from .rotation import (
    align_hemisphere,
    euler_to_matrix,
    euler_to_quat,
    rot_y,
    round_quat,
)
from .startpose import grounded_start_root
from .support import BOTH_FEET, floor_foot_pin, hangs, is_gait, phase_support

#: the bones' ROM boxes, a fixed table made once per bone (callers only read it)
rom_box = lru_cache(maxsize=None)(_rom_box_uncached)

FORMAT = "posecode-motion/1"
HOME_TOLERANCE_DEG = 0.5
_AXIS_INDEX = {"x": 0, "y": 1, "z": 2}
_HIPS = ("hip_left", "hip_right")

Euler = dict[str, tuple[float, float, float]]


@dataclass
class Keyframe:
    """One phase-end keyframe (a full pose).

    ``euler``: every bone -> coupled local (x, y, z) degrees (what is played and solved);
    ``semantic``: the same before the hinge coupling (what was authored, carried);
    ``quat``: bone -> unit quaternion ``[x, y, z, w]`` (numpy), hemisphere-continuous;
    ``ground_lock``: single-side contact names; ``turn`` degrees and ``travel`` (x, z) metres are
    the carried absolute values; ``turn_authored`` / ``travel_authored`` say whether this phase
    wrote them. ``line`` is the step's source line, ``ground_lock_line`` the ground-lock line.
    ``support``: the contacts holding the body at the phase's end; ``gait``: its floor foot pins
    are stance legs of a travelling gait; ``hang``: it holds the body up off the floor (grip, a pin
    to a prop anchor) (decided once, :mod:`posecode_ssg.motion.support`).
    """

    name: str
    duration: float
    mode: str
    euler: Euler
    semantic: Euler
    quat: dict[str, np.ndarray]
    ground_lock: tuple[str, ...]
    pins: list[Contact]
    grips: list[Contact]
    reaches: list[Contact]
    turn: float
    travel: tuple[float, float]
    turn_authored: bool
    travel_authored: bool
    cue: str | None
    line: int
    ground_lock_line: int | None
    authored: dict[str, tuple[str, ...]] = field(default_factory=dict)
    support: frozenset = BOTH_FEET
    gait: bool = False
    hang: bool = False
    rest: tuple[float, ...] = NO_REST


@dataclass
class MotionProgram:
    """A compiled document: base pose, one :class:`Keyframe` per phase, loop timing.

    ``base_euler`` / ``base_semantic`` / ``base_quat`` describe the composed start pose;
    ``wrap`` (s) is the wrap segment's length, ``wrap_turn`` (degrees) the yaw it ends at,
    ``duration`` (s) the loop length. ``ir`` is the source IR (its lines anchor diagnostics).
    ``base_rest``: the start pose's rest (:func:`posecode_ssg.motion.rest.keyframe_rest`; a
    keyframe's is ``Keyframe.rest``).
    """

    ir: IR
    name: str
    kind: str
    avatar: str
    props: list[str]
    repeat: int
    start_pose: str
    clip: str | None
    base_euler: Euler
    base_semantic: Euler
    base_quat: dict[str, np.ndarray]
    keyframes: list[Keyframe]
    wrap: float
    wrap_turn: float
    duration: float
    base_rest: tuple[float, ...] = NO_REST
    #: motion JSON ``equipment`` (motion/equipment.py ``equipment_json``), None without any
    equipment: dict[str, Any] | None = None
    _solution: Any = None
    _base_root: Any = None

    def base_root(self) -> np.ndarray:
        """Root position (m) of the composed start pose after the bounding-box drop (the lowest
        mesh point on y = 0) for this program's avatar."""
        if self._base_root is None:
            self._base_root = grounded_start_root(self.start_pose, self.avatar, self.base_euler)
        return self._base_root.copy()

    @property
    def tilted_base(self) -> bool:
        """True when the start pose is lying or seated (plank, supine, prone, seated)."""
        return START_POSES_TABLE[self.start_pose].tilted

    def to_json(self) -> dict[str, Any]:
        """The compact motion JSON (``posecode-motion/1``), see docs/motion-json.md and
        motion.schema.json. Bones at identity are left out of ``base``; each phase's ``q`` holds
        only bones whose rounded quaternion changed since the previous keyframe; empty contact
        lists and un-authored ``turn`` / ``tr`` are left out. ``root`` (the grounded root of the
        composed start pose) is written only when it differs from ``rig.json``'s
        ``startPoses[pose].groundedRoot[avatar]`` (start-pose overrides that change the lowest
        point)."""
        out: dict[str, Any] = {
            "format": FORMAT, "name": self.name, "kind": self.kind, "avatar": self.avatar,
            "props": list(self.props), "repeat": self.repeat, "startPose": self.start_pose,
        }
        if self.clip is not None:
            out["clip"] = self.clip
        prev: dict[str, list] = {}
        base: dict[str, list] = {}
        for b in BONES:
            rq = round_quat(self.base_quat[b])
            prev[b] = rq
            if rq != [0, 0, 0, 1]:
                base[b] = rq
        out["base"] = base
        root = self.base_root()
        builtin = grounded_start_root(self.start_pose, self.avatar)
        if max(abs(a - b) for a, b in zip(root.tolist(), builtin.tolist())) > 5e-4:
            out["root"] = [_num(c) for c in root]
        if self.base_rest != NO_REST:
            out["rest"] = list(self.base_rest)
        phases = []
        before = self.base_quat
        for kf in self.keyframes:
            q = {}
            for b in BONES:
                if kf.quat[b] is before[b]:
                    continue  # the previous keyframe's quaternion (see _quats): not written again
                rq = round_quat(kf.quat[b])
                if rq != prev[b]:
                    q[b] = rq
                    prev[b] = rq
            before = kf.quat
            ph: dict[str, Any] = {"name": kf.name, "d": _num(kf.duration), "m": kf.mode}
            if q:
                ph["q"] = q
            if kf.ground_lock:
                ph["gl"] = list(kf.ground_lock)
            if kf.pins:
                ph["pin"] = [[c.effector, c.target] for c in kf.pins]
            if kf.grips:
                ph["grip"] = [[c.effector, c.target] for c in kf.grips]
            if kf.reaches:
                ph["reach"] = [[c.effector, c.target] for c in kf.reaches]
            if kf.turn_authored:
                ph["turn"] = _num(kf.turn)
            if kf.travel_authored:
                ph["tr"] = [_num(kf.travel[0]), _num(kf.travel[1])]
            ph["support"] = sorted(kf.support)
            if kf.gait:
                ph["gait"] = True
            if kf.hang:
                ph["hang"] = True
            if kf.rest != NO_REST:
                ph["rest"] = list(kf.rest)
            if kf.cue is not None:
                ph["cue"] = kf.cue
            ph["line"] = kf.line
            phases.append(ph)
        out["phases"] = phases
        out["wrap"] = _num(self.wrap)
        if self.wrap_turn:
            out["wrapTurn"] = _num(self.wrap_turn)
        out["duration"] = _num(self.duration)
        if self.equipment:
            out["equipment"] = self.equipment
        return out


def _num(v: float) -> float | int:
    f = round(float(v), 4)
    if f == 0:
        return 0
    return int(f) if f.is_integer() else f


def couple_hinge(euler: Euler) -> Euler:
    """Apply the hinge coupling of kinematics-reference §3.4 to a full pose: when pelvis x ≠ 0,
    hip x := clamp(hip x − pelvis x, −135, hip box max). Returns a new dict; y and z untouched."""
    px = euler["pelvis"][0]
    if px == 0:
        return dict(euler)
    out = dict(euler)
    for hip in _HIPS:
        lo, hi = rom_box(hip)["x"]
        x, y, z = euler[hip]
        out[hip] = (min(max(x - px, lo), hi), y, z)
    return out


def _overlay(pose: Euler, targets) -> tuple[Euler, dict[str, tuple[str, ...]]]:
    """Lay the authored channels of ``targets`` over ``pose``; each value is kept inside the
    bone's ROM box (the parser has already clamped and warned; this guards IRs built elsewhere,
    e.g. from JSON)."""
    out = dict(pose)
    authored: dict[str, tuple[str, ...]] = {}
    for t in targets:
        cur = list(out[t.bone_id])
        box = rom_box(t.bone_id)
        for ax in t.axes:
            lo, hi = box[ax]
            cur[_AXIS_INDEX[ax]] = min(max(float(t.euler[_AXIS_INDEX[ax]]), lo), hi)
        out[t.bone_id] = (cur[0], cur[1], cur[2])
        authored[t.bone_id] = tuple(sorted(set(authored.get(t.bone_id, ())) | set(t.axes)))
    return out, authored


def _quats(euler: Euler, prev: dict[str, np.ndarray] | None, prev_euler: Euler | None = None) -> dict[str, np.ndarray]:
    """Every bone's quaternion of the pose ``euler``, each in the hemisphere of the previous
    keyframe's ``prev`` (or with w ≥ 0 without one). A bone whose angles are the very triple of
    ``prev_euler`` (the same object: :func:`_overlay` and :func:`couple_hinge` carry unchanged
    bones over) keeps the previous quaternion object itself: the same value its conversion and
    alignment would give, without them (most bones of a keyframe do not move)."""
    out = {}
    for b in BONES:
        if prev_euler is not None and euler[b] is prev_euler[b]:
            out[b] = prev[b]
            continue
        q = euler_to_quat(euler[b])
        if prev is None:
            if q[3] < 0:
                q = -q
        else:
            q = align_hemisphere(q, prev[b])
        out[b] = q
    return out


def _start_pose(start: str, overrides) -> tuple[Euler, Euler, dict[str, np.ndarray]]:
    """The composed start pose: (authored angles, hinge-coupled angles, quaternions with w ≥ 0)
    of the built-in start pose ``start`` with the ``pose start`` ``overrides`` laid over it.
    Without overrides (most documents) it is the same for every program on that start pose: made
    once, each program gets its own dicts of the shared triples and quaternions (read-only)."""
    if overrides:
        return _compose_start_pose(start, overrides)
    hit = _START_POSES.get(start)
    if hit is None:
        hit = _START_POSES[start] = _compose_start_pose(start, ())
        for q in hit[2].values():
            q.flags.writeable = False
    return dict(hit[0]), dict(hit[1]), dict(hit[2])


_START_POSES: dict[str, tuple[Euler, Euler, dict[str, np.ndarray]]] = {}


def _compose_start_pose(start: str, overrides) -> tuple[Euler, Euler, dict[str, np.ndarray]]:
    rest: Euler = {b: (0.0, 0.0, 0.0) for b in BONES}
    for b, e in START_POSES_TABLE[start].joints.items():
        rest[b] = tuple(float(c) for c in e)
    base_sem, _ = _overlay(rest, overrides)
    base_eul = couple_hinge(base_sem)
    return base_sem, base_eul, _quats(base_eul, None)


def angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    """Angle (degrees, 0..180) of the rotation between two unit quaternions (x, y, z, w), from
    their dot product: 2·acos(|a·b|), either sign of a quaternion the same rotation."""
    d = abs(float(np.dot(a, b)))
    return math.degrees(2 * math.acos(min(1.0, d)))


def compile_ir(ir: IR, *, avatar: str | None = None, holding: frozenset[str] | set[str] = frozenset()) -> MotionProgram:
    """Compile an IR (spec §7) to a :class:`MotionProgram`.

    ``avatar`` is the build's default figure, used when the document declares none (the
    document's ``avatar`` directive wins; ``avatar1`` when neither is given). ``holding``: the
    hands (``left`` / ``right``) that hold equipment (motion/equipment.py ``holding_sides``): in
    the start pose and every phase that does not plant that hand, its digits the document leaves
    at 0 close around the item (the grip hand state, solve/hands.py ``closed_digits``). Raises
    ``ValueError`` for an IR without phases or with an unknown avatar / start pose (the parser
    never produces those).
    """
    if not ir.phases:
        raise ValueError(f"{ir.name!r}: a document needs at least one phase")
    av = ir.avatar or avatar or DEFAULT_AVATAR
    if av not in AVATARS:
        raise ValueError(f"unknown avatar {av!r}; expected one of {', '.join(AVATARS)}")
    start = ir.start_pose or DEFAULT_START_POSE
    if start not in START_POSES_TABLE:
        raise ValueError(f"unknown start pose {start!r}")

    base_sem, base_eul, base_q = _start_pose(start, ir.start_pose_overrides)
    if holding:
        base_eul = _hold(base_eul, holding)
        base_q = _quats(base_eul, None)

    keyframes: list[Keyframe] = []
    sem, prev_q, prev_eul = base_sem, base_q, base_eul
    turn, travel = 0.0, (0.0, 0.0)
    for ph in ir.phases:
        sem, authored = _overlay(sem, ph.targets)
        eul = couple_hinge(sem)
        if holding:
            eul = _hold(eul, {s for s in holding if not _plants_hand(ph, s)}, prev_eul)
        q = _quats(eul, prev_q, prev_eul)
        if ph.turn_deg is not None:
            turn = float(ph.turn_deg)
        if ph.travel is not None:
            travel = (float(ph.travel[0]), float(ph.travel[1]))
        keyframes.append(Keyframe(
            name=ph.name, duration=float(ph.duration_sec), mode=ph.easing, euler=eul, semantic=sem,
            quat=q, ground_lock=expand_ground_lock(ph.ground_lock), pins=list(ph.pins),
            grips=list(ph.grips), reaches=list(ph.reaches), turn=turn, travel=travel,
            turn_authored=ph.turn_deg is not None, travel_authored=ph.travel is not None,
            cue=ph.cue, line=ph.line, ground_lock_line=ph.ground_lock_line, authored=authored,
        ))
        prev_q, prev_eul = q, eul
    gait = is_gait(keyframes)
    for kf in keyframes:
        kf.support = phase_support(kf.ground_lock, *([(c.effector, c.target) for c in cs]
                                                     for cs in (kf.pins, kf.grips, kf.reaches)))
        kf.gait = gait and floor_foot_pin(kf.pins)
        kf.hang = hangs(kf.pins, kf.grips)

    last = keyframes[-1]
    home = (all(last.quat[b] is base_q[b] or angle_deg(last.quat[b], base_q[b]) <= HOME_TOLERANCE_DEG
                for b in BONES)
            and abs(turn - 360.0 * round(turn / 360.0)) < 1e-6
            and travel == (0.0, 0.0))
    wrap = 0.0 if home else keyframes[0].duration
    wrap_turn = 360.0 * round(turn / 360.0)
    duration = sum(k.duration for k in keyframes) + wrap
    program = MotionProgram(
        ir=ir, name=ir.name, kind=ir.kind, avatar=av, props=list(ir.props), repeat=ir.repeat,
        start_pose=start, clip=ir.clip, base_euler=base_eul, base_semantic=base_sem,
        base_quat=base_q, keyframes=keyframes, wrap=wrap, wrap_turn=wrap_turn or 0.0,
        duration=duration,
    )
    _decide_rests(program)
    from .settle import held_on_floor as settle_held_on_floor
    from .settle import settle_held
    from .solve import solve_keyframes   # the solve imports this module's package

    settle_held(program, solve_keyframes)
    if program.wrap == 0.0 and keyframes[-1].rest != program.base_rest and settle_held_on_floor(keyframes[-1]):
        # the loop ends on the base pose's joints, held and settled: the base pose (the start and
        # the loop's seam) rests as that last phase does, so the seam does not jump
        program.base_rest = keyframes[-1].rest
        program._solution = None
    return program


def _hold(euler: Euler, sides, prev: Euler | None = None) -> Euler:
    """``euler`` with the digits of hands ``sides`` that it leaves at 0 closed (the grip hand
    state); a digit closed as in ``prev`` keeps that very triple (:func:`_quats` then reuses its
    quaternion)."""
    from .solve.hands import closed_digits

    out = dict(euler)
    for s in sides:
        for bone, e in closed_digits(s).items():
            if not any(abs(v) > 1e-9 for v in out[bone]):
                out[bone] = prev[bone] if prev is not None and prev[bone] == e else e
    return out


def _plants_hand(ph, side: str) -> bool:
    """Whether IR phase ``ph`` plants hand ``side`` (a ground-lock, pin, grip or floor reach of its
    hand, fist or forearm): it then holds that, not the equipment."""
    names = {f"hand_{side}", f"fist_{side}", f"elbow_{side}"}
    if names & set(expand_ground_lock(ph.ground_lock)):
        return True
    return any(c.effector in names for c in (*ph.pins, *ph.grips)) or any(
        c.effector in names and c.target == "floor" for c in ph.reaches)


def _decide_rests(program: MotionProgram) -> None:
    """The rest (motion/rest.py) of the start pose and of every keyframe the floor alone holds
    (no ground-lock, pin or grip), on a lying or seated start pose in a scene without props (a
    body on a prop rests on the prop, and a standing body is never tipped, issue 18); the limbs
    of its reaches to a body landmark or an anchor are left out of the rest's mesh."""
    if not program.tilted_base or program.props:
        return
    av = rig_avatar(program.avatar)
    sp = START_POSES_TABLE[program.start_pose]
    base_rot = euler_to_matrix(sp.root_euler)
    root = program.base_root()
    program.base_rest = keyframe_rest(forward_kinematics(av, program.base_euler, root, base_rot))
    for kf in program.keyframes:
        if kf.ground_lock or kf.pins or kf.grips:
            continue
        at = root + np.array([kf.travel[0], 0.0, kf.travel[1]])
        # a limb reaching for a body landmark or an anchor goes there whatever the tip: it neither
        # holds the body nor stops the tip
        free = frozenset(b for c in kf.reaches if c.target != FLOOR for b in subtree(EFFECTOR_BONE[c.effector]))
        kf.rest = keyframe_rest(forward_kinematics(av, kf.euler, at, rot_y(kf.turn).dot(base_rot)), free)
