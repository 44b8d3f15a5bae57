"""Kinematic diagnostics: what the keyframe solve finds (a reach short, a pin or grip it cannot
make, a ground-lock lifted, a foot that cannot stay flat, a limb through the body, a drifting
foot, a loop that does not close) as :class:`~posecode_ssg.language.diagnostics.Diagnostic`
warnings (codes ``kinematic-*``), each anchored to the document line that asked for the thing
that failed (docs/motion-json.md).
"""

from __future__ import annotations

import math

import numpy as np

from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.rom import rom_box
from posecode_ssg.language.vocabulary import EFFECTOR_BONE, FLOOR, expand_ground_lock

from .collide import self_collision_depth
from .fk import BONES
from .midphase import limb_name, pin_lifts
from .rest import centre_of_mass, feet_floor_points
from .rig import SOLVER
from .rotation import norm3
from .solve import solve_keyframes
from .support import BALANCE_LIMIT, BASE_CONTACT, base_gap, bearing_feet

__all__ = ["LOOP_POSE_REPORT", "kinematic_diagnostics", "with_columns"]


def _cm(m: float) -> str:
    return f"{m * 100:.0f} cm"


def _warn(code: str, line: int, message: str, hint: str | None = None, **extra) -> Diagnostic:
    return Diagnostic(code, "warning", max(int(line or 0), 0), 1, message, hint, dict(extra))


def _hint(code: str, line: int, message: str, hint: str | None = None, **extra) -> Diagnostic:
    """A kinematic diagnostic of severity ``hint``: advice on how the movement looks (the build
    and ``check`` print it, it never fails a build, strict or not)."""
    return Diagnostic(code, "hint", max(int(line or 0), 0), 1, message, hint, dict(extra))


def with_columns(diagnostics: list[Diagnostic], lines: list[str]) -> list[Diagnostic]:
    """Copies of ``diagnostics`` whose column points at the first non-blank character of their
    line in ``lines`` (the document's or file's lines, 1-based ``line``). Kinematic diagnostics
    know their line from the IR but not the text, so they start at column 1."""
    out = []
    for d in diagnostics:
        col = d.column
        if 1 <= d.line <= len(lines):
            text = lines[d.line - 1]
            col = len(text) - len(text.lstrip(" \t\ufeff")) + 1
        out.append(Diagnostic(d.code, d.severity, d.line, col, d.message, d.hint, dict(d.extra)))
    return out


def kinematic_diagnostics(program) -> list[Diagnostic]:
    """Kinematic warnings for a compiled program (codes ``kinematic-*``; severity ``warning``).

    - ``kinematic-reach-short``: a reach ends more than ``reachShortReport`` (2 cm) from its target,
      at the reach's line ("hand_left cannot reach floor within range of motion: 23 cm short").
    - ``kinematic-pin-unreachable`` / ``kinematic-grip-unreachable``: the effector ends more than
      2 cm off its pin or grip anchor, at that line.
    - ``kinematic-ground-lock-lifted``: a ground-locked contact is more than ``plantedHeight``
      (5 cm) above the floor when its phase begins (for a group such as ``feet``, only when no
      member is near the floor), at the ground-lock line.
    - ``kinematic-foot-flat``: a planted foot cannot be levelled inside the ankle box; names the
      foot, phase, needed and allowed angle and the heel (or toe) height; or a planted foot on the
      floor whose leg leans sideways over it by more than ``SOLE_TILT_LIMIT`` (5°) at the phase's
      end, so its sole rolls onto its edge (:func:`_sideways_lean`); names the foot, phase, lean and
      the sole middle's lift; at the step line.
    - ``kinematic-self-collision``: a limb overlaps the torso, head or other leg by more than
      ``selfCollisionReport`` (5 mm) after the solve (collide.py), at the step line.
    - ``kinematic-foot-drift``: a planted foot ends more than 5 mm from where it was planted.
    - ``kinematic-pin-lifted``: mid-phase, the authored path takes an arm or the head through the
      floor while a floor pin holds the body on it, so the floor clamp lifts the pinned effector
      off the floor (midphase.py :func:`~posecode_ssg.motion.midphase.pin_lifts`); names the
      phase, the effector and the lift, at the pin's line.
    - ``kinematic-arm-floor``: at a phase end, the authored angles put a free arm of a body lying
      on the floor through it, and the arm clearance (solve/swingclearance.py ``clear_free_arms``)
      swings it out along the floor, its hand more than :data:`ARM_SWING_REPORT` (5 cm) from where
      the angles put it; at the step line.
    - ``kinematic-balance``: at the end of a phase that stands on its feet alone (one or both,
      each locked or pinned to the floor, nothing else within ``BASE_CONTACT`` of it; no grip,
      no props in the document; not a gait's step), the centre of mass (Winter's segment table)
      lies more than ``BALANCE_LIMIT`` (20 mm, eval's ``support``) outside the base of support
      (the sole corners within ``BASE_CONTACT`` of the floor) after the solver's balance (the
      weight shift over one foot) did what it could without changing an authored angle: names
      the phase, the distance and the direction (behind the heels, ahead of the toes, beside a
      foot) and what would balance it (:func:`_balance_hint`: behind the heels, the pelvis hinge
      that would), at the step line.
    - ``kinematic-choreography-base``: ``turn``/``travel`` on a lying or seated start pose (out of
      scope, spec §6), at the step line.
    - ``kinematic-reach-released`` (a hint): a reach held a limb in one phase and the next is a
      hold (no angle, turn or travel written) that does not repeat it, so the limb goes back to
      its angles and the effector moves more than :data:`REACH_RELEASE_REPORT` (5 cm) in the
      body's frame (:func:`_released_reaches`), at the hold's step line.
    - ``kinematic-loop-start``: a loop that ends on its start pose as written (no wrap segment,
      KR §5.1) whose solved end stands a foot more than :data:`LOOP_POSE_REPORT` (5 cm) from where
      the start pose stands it, in the body's frame (a ground-lock in the last step held a foot an
      earlier step moved): every repeat, the first included, begins from that end pose, not from the
      start pose the document names; at the last step's ground-lock line.
    """
    sol = solve_keyframes(program)
    out: list[Diagnostic] = []
    limit = float(SOLVER["reachShortReport"])
    for kf, ph in zip(program.keyframes, sol.phases):
        for cr in ph.contacts:
            if cr.residual <= limit:
                continue
            c = cr.contact
            line = c.line or kf.line
            if cr.kind == "reach":
                out.append(_warn("kinematic-reach-short", line,
                                 f"{c.effector} cannot reach {c.target} within range of motion: "
                                 f"{_cm(cr.residual)} short",
                                 "bend another joint (hinge, spine, knees) so the target comes "
                                 "within reach, or use pin to move the body",
                                 phase=kf.name, residual=round(cr.residual, 3)))
            else:
                out.append(_warn(f"kinematic-{cr.kind}-unreachable", line,
                                 f"{cr.kind} {c.effector} {c.target} is out of reach in phase "
                                 f"{kf.name!r}: the {c.effector} ends {_cm(cr.residual)} from the anchor",
                                 phase=kf.name, residual=round(cr.residual, 3)))
        if ph.lifted_locks:
            lifted = dict(ph.lifted_locks)
            authored = program.ir.phases[ph.index].ground_lock
            report = []
            for name in authored:
                members = expand_ground_lock([name])
                if all(m in lifted for m in members):
                    report += [(m, lifted[m]) for m in members]
            for contact, h in report:
                out.append(_warn("kinematic-ground-lock-lifted", kf.ground_lock_line or kf.line,
                                 f"ground-lock {contact} in phase {kf.name!r}: it is {_cm(h)} above "
                                 "the floor when the phase begins",
                                 "ground-lock keeps a contact that is already planted; use pin or "
                                 "reach to bring it to the floor", phase=kf.name, height=round(h, 3)))
        for rep in ph.feet:
            heel = rep.needed < rep.limit
            lifted = rep.heel if heel else rep.toe
            direction = "dorsiflexion" if heel else "plantarflexion"
            out.append(_warn("kinematic-foot-flat", kf.line,
                             f"foot_{rep.side} cannot stay flat in phase {kf.name!r}: the sole needs "
                             f"{abs(rep.needed):.0f}° of ankle {direction}, the range allows "
                             f"{abs(rep.limit):.0f}°; the {'heel' if heel else 'toe'} lifts "
                             f"{lifted * 100:.1f} cm",
                             "bend the knees less (less shin tilt) or let the heels rise on purpose "
                             "with ankles: plantarflex",
                             phase=kf.name, foot=f"foot_{rep.side}", needed=round(rep.needed, 1),
                             limit=rep.limit, heel=round(rep.heel, 3), toe=round(rep.toe, 3)))
        for side, lean, lift in ph.rolled:
            out.append(_warn("kinematic-foot-flat", kf.line,
                             f"foot_{side} cannot stay flat in phase {kf.name!r}: the leg leans "
                             f"{abs(lean):.0f}° sideways over the planted foot and the rig's ankle only "
                             f"flexes and extends (no inversion or eversion), so the sole rolls "
                             f"{abs(lean):.0f}° onto its edge (its middle {lift * 1000:.0f} mm up)",
                             "keep the hips over the planted foot: less sideways travel while one foot "
                             "is planted, or move the weight sideways with both feet down and close together",
                             phase=kf.name, foot=f"foot_{side}", lean=round(lean, 1), lift=round(lift, 3)))
        for limb, (depth, obstacle) in self_collision_depth(ph.world).items():
            if depth > float(SOLVER["selfCollisionReport"]):
                out.append(_warn("kinematic-self-collision", kf.line,
                                 f"{limb.replace('_', ' ')} passes {_cm(depth)} into the {obstacle.replace('_', ' ')} "
                                 f"in phase {kf.name!r}",
                                 "change the limb's angles so it clears the body", phase=kf.name,
                                 limb=limb, obstacle=obstacle, depth=round(depth, 3)))
        for foot, d in ph.drift:
            out.append(_warn("kinematic-foot-drift", kf.ground_lock_line or kf.line,
                             f"{foot} slides {d * 100:.1f} cm in phase {kf.name!r} although it is "
                             "ground-locked", phase=kf.name, foot=foot, drift=round(d, 3)))
        if program.tilted_base and (kf.turn_authored or kf.travel_authored):
            what = " and ".join(w for w, on in (("turn", kf.turn_authored), ("travel", kf.travel_authored)) if on)
            out.append(_warn("kinematic-choreography-base", kf.line,
                             f"{what} on the {program.start_pose} start pose is out of scope "
                             "(spec §6: standing poses only)", phase=kf.name))
    for kf, ph in zip(program.keyframes, sol.phases):
        bad = None if program.props else _balance(kf, ph.world)
        if bad is not None:
            out.append(bad)
        for side, (depth, moved) in sorted(ph.arms_swung.items()):
            if moved <= ARM_SWING_REPORT:
                continue
            out.append(_warn("kinematic-arm-floor", kf.line,
                             f"in phase {kf.name!r} the authored angles put the {side} arm {_cm(depth)} "
                             f"through the floor; it is swung out along the floor to clear it, its hand "
                             f"{_cm(moved)} from where the angles put it",
                             "raise the arm (less shoulder flexion for a body lying face down) or bend the "
                             "elbow, so that the hand rests on the floor where it should",
                             phase=kf.name, side=side, depth=round(depth, 3), moved=round(moved, 3)))
    for i, effector, lift, u, bone in pin_lifts(program, sol):
        kf = program.keyframes[i]
        line = next((c.line for c in kf.pins if c.effector == effector and c.line), kf.line)
        out.append(_warn("kinematic-pin-lifted", line,
                         f"pin {effector} floor cannot hold in phase {kf.name!r}: about {u:.0%} of the way "
                         f"through, the authored angles take the {limb_name(bone)} {_cm(lift)} through the floor, so "
                         f"the {effector} lifts {_cm(lift)} off it",
                         "move the limb round the floor instead of through it (an arm out to the side "
                         "first, then forward), or split the phase so it passes above the floor",
                         phase=kf.name, effector=effector, lift=round(lift, 3), at=round(u, 2), bone=bone))
    out += _released_reaches(program, sol)
    if program.wrap == 0 and sol.phases:
        kf, end, base = program.keyframes[-1], sol.phases[-1].world, sol.base
        offsets = {s: _moved_in_body(base, end, f"ankle_{s}") for s in ("left", "right")}
        side = max(offsets, key=offsets.get)
        if offsets[side] > LOOP_POSE_REPORT:
            out.append(_warn("kinematic-loop-start", kf.ground_lock_line or kf.line,
                             f"the loop does not come back to its start pose: at the end of phase "
                             f"{kf.name!r} foot_{side} stands {_cm(offsets[side])} from where the start "
                             "pose puts it, so every repeat begins from that end pose",
                             f"let the foot step back in the last step (leave foot_{side} out of its "
                             "ground-lock), or add a step that brings it back",
                             phase=kf.name, foot=f"foot_{side}", offset=round(offsets[side], 3)))
    return out


def _moved_in_body(a, b, bone: str) -> float:
    """How far (m) joint ``bone`` lies from where it was, from world ``a`` to world ``b``, in the
    body's own frame (the root's position and rotation taken out)."""
    return float(norm3(b.root_rot.T @ (b.pos[bone] - b.root_pos) - a.root_rot.T @ (a.pos[bone] - a.root_pos)))


#: how far (m, in the body's own frame) a released reach's effector may move for
#: ``kinematic-reach-released`` to stay quiet
REACH_RELEASE_REPORT = 0.05


def _released_reaches(program, sol) -> list[Diagnostic]:
    """``kinematic-reach-released``: a reach held a limb in one phase, the next phase is a hold
    (it writes no joint angle, turn or travel) that does not repeat the reach, and the effector
    moves more than :data:`REACH_RELEASE_REPORT` in the body's frame between the two phase
    ends. Contacts hold for their own phase only while angles carry over (spec §3), so the limb
    goes back to the angles the reach had bent it away from: a seated toe reach followed by a
    'Hold' with only a cue swings the arms back up from the ankles, and the body rolls back. A
    step that writes angles is moving on, and letting go there is the author's (a knee hug's
    'Release', a hand leaving the box to stand up). At the hold's step line."""
    out = []
    kfs, phases = program.keyframes, sol.phases
    for k in range(1, min(len(kfs), len(phases))):
        prev, kf = kfs[k - 1], kfs[k]
        if kf.authored or kf.turn_authored or kf.travel_authored:
            continue
        kept = {c.effector for c in kf.reaches}
        for c in prev.reaches:
            bone = EFFECTOR_BONE.get(c.effector)
            if c.effector in kept or bone is None:
                continue
            moved = _moved_in_body(phases[k - 1].world, phases[k].world, bone)
            if moved <= REACH_RELEASE_REPORT:
                continue
            out.append(_hint("kinematic-reach-released", kf.line,
                             f"the reach of {c.effector} for {c.target} holds it in phase {prev.name!r} "
                             f"only: in {kf.name!r} the limb goes back to its angles, the {c.effector} "
                             f"moving {_cm(moved)}",
                             f"repeat `reach: {c.effector} {c.target}` in {kf.name!r} to keep it there, "
                             "or write the limb's angles for this step",
                             phase=kf.name, effector=c.effector, moved=round(moved, 3)))
    return out


def _balance(kf, w) -> Diagnostic | None:
    """``kinematic-balance`` of one phase end (``kf``: the keyframe, ``w``: its solved world), or
    None: see :func:`kinematic_diagnostics`. The body must stand on its feet alone: the feet that
    bear it (:func:`~posecode_ssg.motion.support.bearing_feet`: one or both, each locked or pinned
    to the floor) and nothing else within ``BASE_CONTACT`` of the floor (a body sitting, kneeling
    or lying on the floor rests on more than its feet: the gravity settle's, motion/settle.py), no
    grip, no step of a gait (the caller leaves out documents with props, whose faces carry the
    body too). The base is every primitive of the feet within ``BASE_CONTACT`` of the floor
    (:func:`~posecode_ssg.motion.rest.feet_floor_points`: a foot on its ball touches with its
    shoe ellipsoid, its sole box's front corners a little up), as eval's support takes it."""
    if kf.gait or kf.hang or not bearing_feet(kf):
        return None
    pts = feet_floor_points(w, BASE_CONTACT)
    if not len(pts):
        return None
    com = centre_of_mass(w)
    c = com[[0, 2]]
    gap, way = base_gap(pts, c)
    # judged only off its feet alone (measured last: the costlier, and most stances balance)
    if gap <= BALANCE_LIMIT or w.lowest(NOT_FEET) <= BASE_CONTACT:
        return None
    # no heel down: on the balls of the feet (a calf raise)
    heels_up = all(float(w.landmarks[f"heel_{s}"][1]) > BASE_CONTACT for s in ("left", "right"))
    heading = [0.0, 0.0]
    for side in ("left", "right"):
        f = w.landmarks[f"toe_{side}"] - w.landmarks[f"heel_{side}"]
        n = max(math.hypot(float(f[0]), float(f[2])), 1e-9)
        heading[0] += float(f[0]) / n
        heading[1] += float(f[2]) / n
    heading = np.array(heading)
    heading /= max(float(np.hypot(*heading)), 1e-9)
    ahead = float(way @ heading)
    left = float(way @ np.array((heading[1], -heading[0])))
    if ahead >= 0.7071:
        where, said = "ahead of the toes", "ahead of the toes"
    elif ahead <= -0.7071:
        # on the balls of the feet (no heel corner down: a calf raise) the base ends at the balls
        where = "behind the heels"
        said = "behind the balls of the feet" if heels_up else "behind the heels"
    else:
        where, said = "beside", f"beside the {'left' if left > 0 else 'right'} foot"
    return _hint("kinematic-balance", kf.line,
                 f"the body cannot balance at the end of phase {kf.name!r}: its centre of mass is "
                 f"{gap * 1000:.0f} mm {said}, outside what the feet cover",
                 _balance_hint(where, gap, w, com, heels_up, float(kf.semantic["pelvis"][0])),
                 phase=kf.name, distance=round(gap, 3), where=where)


def _balance_hint(where: str, gap: float, w, com: np.ndarray, heels_up: bool = False, hinge0: float = 0.0) -> str:
    """What would balance a body whose centre of mass lies ``gap`` (m) ``where`` off its feet
    (``w``: the solved world, ``com``: its centre of mass). Behind the heels, the hinge that would
    bring it back: the head, arms and trunk (Winter's HAT, 67.8 % of the mass) turn forward about
    the hip joints, so a hinge θ moves the centre of mass forward by about 0.678 · r · sin θ, r
    the height of the hip joints under the whole body's centre of mass plus what the hips lie under
    it (the centre of mass of HAT is higher still: the estimate errs towards a larger hinge), to
    the base's edge and ``solver.shiftMargin`` in; added to the phase's own hinge ``hinge0``
    (degrees: the hinge is an absolute angle), named when within the pelvis's range. ``heels_up``:
    the base is the balls of the feet."""
    if where == "behind the heels":
        hips = 0.5 * (w.pos["hip_left"] + w.pos["hip_right"])
        r = float(np.linalg.norm(com - hips)) + 0.1
        need = (gap + float(SOLVER["shiftMargin"])) / (HAT_SHARE * r)
        hinge = ""
        if need < 1.0:   # else no hinge brings it back alone
            total = 5 * math.ceil((hinge0 + math.degrees(math.asin(need))) / 5)
            if total <= PELVIS_HINGE_MAX:
                hinge = f" (`pelvis: hinge {total:.0f}` or so)"
        if heels_up:
            return f"lean forward over the balls of the feet as the heels rise: tip the trunk forward{hinge} or reach the arms forward"
        return f"lean the trunk forward{hinge}, reach the arms forward, or let the knees travel forward over the toes"
    if where == "ahead of the toes":
        return "send the hips back (bend the hips and knees more) or lean the trunk less"
    return "keep the lifted leg closer under the body (less abduction), or stand on both feet"


#: every bone but the feet (their lowest points: anything else on the floor)
NOT_FEET = tuple(b for b in BONES if b not in ("ankle_left", "ankle_right"))

#: the pelvis hinge's range (degrees; rig.json ``rom``, spec §4: hinge 120)
PELVIS_HINGE_MAX = float(rom_box("pelvis")["x"][1])

#: Winter's head, arms and trunk (HAT) share of the body's mass (2009, Table 4.1)
HAT_SHARE = 0.678


#: how far (m) the arm clearance may move a hand at a phase end before ``kinematic-arm-floor`` says so
ARM_SWING_REPORT = 0.05

#: how far (m) a foot may end from where the start pose stands it, in the body's frame, before a
#: loop that returns to its start pose as written is reported (``kinematic-loop-start``)
LOOP_POSE_REPORT = 0.05
