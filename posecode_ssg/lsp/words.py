"""One line of documentation for every word of Posecode's closed vocabularies (completion items
and hovers), built from :mod:`posecode_ssg.language.vocabulary` and
:mod:`posecode_ssg.language.rom` so no name or limit is typed twice; the sentences follow the spec
(../shared/seeds/000_87ff9483bb3193ea.txt §1–§6) and docs/language.md.
"""

from __future__ import annotations

from functools import lru_cache

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.rom import LIMITS, action_limit, joint_type, supported_actions

KINDS = {
    "exercise": "a movement done for strength or conditioning, usually repeated",
    "stretch": "a movement that lengthens muscles or works mobility",
    "posture": "a held position or alignment drill",
}

PROPS = {
    "chair": "a chair behind the figure; anchor `seat` (reach and pin target)",
    "wall": "a wall behind the figure; anchor `wall` (reach and pin target)",
    "bar": "an overhead bar; anchors `bar`, `bar_left`, `bar_right` (grip, reach and pin target)",
    "box": "a box in front of the figure; anchor `box` (reach and pin target)",
    "dip-bars": "dip rails either side; anchors `bars`, `bars_left`, `bars_right` (grip, reach and pin target)",
}

START_POSES = {
    "neutral": "standing at rest: arms at the sides, facing +Z, every joint at 0",
    "standing": "standing, arms at the sides with the forearms turned to the thighs",
    "first-position": "ballet first position: standing with the hips turned out 30°",
    "plank": "a plank on the hands and toes (shoulders flexed 90°)",
    "supine": "lying face up on the back",
    "prone": "lying face down",
    "seated": "a long sit on the floor, legs straight, hips flexed 90°",
}

TIMING_MODES = {
    "flow": "carry velocity smoothly through the pose (no stop)",
    "settle": "decelerate into a deliberate rest",
    "drive": "accelerate out of rest (the effort phase)",
    "snap": "arrive quickly and stop sharply",
    "linear": "even timing without a shaped acceleration curve",
}

#: spec §3: axis and meaning of each action
ACTIONS = {
    "flex": ("X (sagittal)", "bend"),
    "extend": ("X (sagittal)", "straighten (or bend backwards)"),
    "abduct": ("Z (frontal)", "away from the midline (a side bend on spine, neck and head)"),
    "adduct": ("Z (frontal)", "toward the midline"),
    "rotate-in": ("Y (longitudinal)", "internal rotation (shoulder or hip)"),
    "rotate-out": ("Y (longitudinal)", "external rotation (shoulder or hip)"),
    "twist-left": ("Y (longitudinal)", "axial turn to the left (spine, chest, neck, head)"),
    "twist-right": ("Y (longitudinal)", "axial turn to the right (spine, chest, neck, head)"),
    "supinate": ("Y", "forearm roll toward palm-up"),
    "pronate": ("Y", "forearm roll toward palm-down"),
    "dorsiflex": ("X", "ankle up (toes toward the shin)"),
    "plantarflex": ("X", "ankle down (point the foot)"),
    "hinge": ("X", "tip the torso forward over the hips, legs planted (pelvis only)"),
    "hold": ("all", "`hold neutral`: reset every channel of the joint to rest"),
}

#: spec §5 (and §1 "Contact mechanisms") in a line each
CONTACTS = {
    "ground-lock": "ground-lock preserves an existing floor support while the rest of the body moves: "
                   "the listed contacts (already planted) stay on the floor; one root-support family per step "
                   "(not with pin or grip).",
    "reach": "reach moves the limb, not the body: CCD inverse kinematics bends the limb toward the target "
             "within its range of motion, and a target out of reach leaves an explicit residual.",
    "pin": "pin moves the body: the whole figure translates so one primary effector sits on a fixed "
           "anchor (floor or a declared prop); at most one pin per step, not with ground-lock or grip.",
    "grip": "grip holds a declared bar or dip-bars: the body translates, each gripping arm is solved to the "
            "bar or rail and the fingers close; not with ground-lock or pin.",
}

DIRECTIVES = {
    "posecode": 'the header: `posecode <kind> "<name>"` (kinds: ' + ", ".join(V.KINDS) + ")",
    "rig": "the skeleton: `rig humanoid` (the only rig)",
    "avatar": "which figure is drawn: " + ", ".join(V.AVATARS) + f" (default {V.DEFAULT_AVATAR})",
    "prop": "equipment in the scene, one per line: " + ", ".join(V.PROPS) + "; its anchors become contact targets",
    "pose": "the start pose: `pose start = <pose>` (end it with `:` to adjust joints beneath it)",
    "clip": 'an optional motion-capture clip a renderer may blend in: `clip "<name>"`',
    "repeat": "how many times the whole sequence of steps plays: `repeat <count>`",
    "step": 'one timed phase: `step "<name>" <duration>s <timing>:` with indented joint lines and contacts',
    "turn": "`turn: <degrees>`: face this yaw by the end of the step (absolute, carried over)",
    "travel": "`travel: <x> <z>`: move across the floor to x z metres from the start spot (absolute, ±3 m)",
    "cue": '`cue "<text>"`: display-only coaching text; it never changes the motion',
    **CONTACTS,
}

AVATARS = {a: f"figure {a[-1]}" + (" (the default)" if a == V.DEFAULT_AVATAR else "") for a in V.AVATARS}

GROUND_LOCK = {
    "feet": "both feet stay planted",
    "hands": "both hands stay planted",
    "forearms": "both forearms (elbows) stay planted",
    "back": "the pelvis-to-ribcage surface stays on the floor (supine work such as dead bugs)",
    **{f"{part}_{side}": f"the {side} {'forearm (elbow)' if part == 'elbow' else part} stays planted"
       for part in ("hand", "elbow", "foot") for side in V.SIDES},
}


def degrees(v: float) -> str:
    return f"{int(v)}°" if float(v).is_integer() else f"{v}°"


def bones_of(joint: str) -> tuple[str, ...]:
    """The bones a joint name moves (``()`` for an unknown name)."""
    return V.JOINT_GROUPS.get(joint, ())


def actions_for(joint: str) -> list[str]:
    """The actions valid for a joint name (for a group: valid on every bone), in vocabulary
    order; every action for an unknown name."""
    bones = bones_of(joint)
    if not bones:
        return list(V.ACTIONS)
    ok = set(supported_actions(bones[0]))
    for b in bones[1:]:
        ok &= set(supported_actions(b))
    return [a for a in V.ACTIONS if a in ok]


def rom_line(joint: str) -> str:
    """The ranges of motion of a joint name per action, e.g. ``flex 0–144°, extend 0–5°``."""
    bones = bones_of(joint)
    if not bones:
        return ""
    types = []
    for b in bones:
        t = joint_type(b)
        if t not in types:
            types.append(t)
    parts = []
    for t in types:
        table = ", ".join(f"{a} 0–{degrees(lim)}" for a, lim in LIMITS[t].items()
                          if not (a.startswith("rotate-") and t in V.AXIAL_ROTATION_JOINTS))
        parts.append((f"{t}: " if len(types) > 1 else "") + table)
    return "; ".join(parts)


def joint_doc(joint: str) -> str:
    """One line about a joint name: the bones it moves and what it accepts."""
    bones = bones_of(joint)
    if not bones:
        return ""
    if len(bones) == 1:
        what = f"the bone {bones[0]}"
    else:
        what = "bones " + ", ".join(bones)
    alias = " (alias of elbows: forearm roll)" if joint == "forearms" else ""
    return f"{what}{alias}; actions: " + ", ".join(actions_for(joint)) + ", hold neutral"


def action_doc(action: str, joint: str | None = None) -> str:
    """One line about an action: its axis and meaning (and its limit on ``joint``)."""
    axis, meaning = ACTIONS.get(action, ("", ""))
    if not axis:
        return ""
    text = f"{meaning}; axis {axis}"
    if joint and action in V.ACTIONS:
        limits = sorted({action_limit(b, action) for b in bones_of(joint)} - {None})
        if limits:
            text += f"; {joint} limit " + "/".join(degrees(v) for v in limits)
    return text


def effector_doc(name: str) -> str:
    if name in V.EFFECTOR_GROUPS:
        return "both " + " and ".join(V.EFFECTOR_GROUPS[name]) + " (one contact each)"
    bone = V.EFFECTOR_BONE.get(name)
    if bone is None:
        return ""
    if name == "pelvis":
        return "the pelvis (pin only: `pin: pelvis floor` moves the body onto it)"
    part, side = name.rsplit("_", 1)
    what = {"hand": "hand (palm)", "fist": "fist", "foot": "foot", "knee": "knee", "elbow": "elbow (forearm)"}[part]
    return f"the {side} {what}, at the bone {bone}"


def anchor_doc(name: str) -> str:
    if name == V.FLOOR:
        return "the floor (no prop needed)"
    prop = V.ANCHOR_PROP.get(name)
    if prop is not None:
        side = name.rsplit("_", 1)[1] if name.endswith(("_left", "_right")) else ""
        return f"anchor of `prop {prop}`" + (f" ({side} side, single-hand grip)" if side else "")
    if name in V.REACH_LANDMARKS:
        return f"the body landmark {name} (reach only)"
    return ""


@lru_cache(maxsize=1)
def every_word() -> dict[str, str]:
    """Word -> one line, for the hover over a word whose role the line does not tell."""
    out: dict[str, str] = {}
    out.update({k: f"kind: {v}" for k, v in KINDS.items()})
    out.update({k: f"prop: {v}" for k, v in PROPS.items()})
    out.update({k: f"start pose: {v}" for k, v in START_POSES.items()})
    out.update({k: f"timing mode: {v}" for k, v in TIMING_MODES.items()})
    out.update({k: f"legacy timing mode: means `{v}` (write `{v}`)" for k, v in V.TIMING_ALIASES.items()})
    out.update({k: f"avatar: {v}" for k, v in AVATARS.items()})
    out.update({a: f"anchor: {anchor_doc(a)}" for a in V.ALL_ANCHORS + (V.FLOOR,)})
    out.update({e: f"effector: {effector_doc(e)}" for e in list(V.EFFECTOR_GROUPS) + list(V.EFFECTOR_BONE)})
    out.update({j: f"joint: {joint_doc(j)}" for j in V.JOINT_NAMES})
    out.update({a: f"action: {action_doc(a)}" for a in ACTIONS})
    out["neutral"] = "`hold neutral`: reset every channel of the joint to rest"
    out["humanoid"] = "the humanoid rig (the only rig)"
    out["start"] = "`pose start = <pose>`: the start pose"
    out.update(DIRECTIVES)
    return out
