"""The closed vocabularies of Posecode v0.4: the one place every part reads names from.

Sources: the normative spec (../shared/seeds/000_87ff9483bb3193ea.txt) §1 (grammar: kinds, rig,
avatars, props, start poses, timing modes and the v0.1 aliases, ground-lock contacts, reach/pin/grip
vocabularies), §2 (joints and groups), §3 (actions), §5–§6 (effectors, anchors); the
axis/sign conventions of ../shared/design/kinematics-reference.md §3.1 and the effector → bone map of
§2.4. This module holds *names* only: the geometry of props, start poses and the rig belongs to the
motion compiler, and the range-of-motion numbers live in :mod:`posecode_ssg.language.rom`.

Nothing here is mutable: tuples and read-only mappings.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

# ---------------------------------------------------------------------------------------------
# Header and top-level directives (spec §1)
# ---------------------------------------------------------------------------------------------

#: Movement kinds accepted in the ``posecode <kind> "<name>"`` header.
KINDS: tuple[str, ...] = ("exercise", "stretch", "posture")

#: Rigs accepted by ``rig``; the IR carries ``"humanoid"`` when the directive is absent.
RIGS: tuple[str, ...] = ("humanoid",)
DEFAULT_RIG = "humanoid"

#: Figures selectable with ``avatar`` (spec v0.4); the IR omits ``avatar`` when not declared.
AVATARS: tuple[str, ...] = ("avatar1", "avatar2", "avatar3")
DEFAULT_AVATAR = "avatar1"

#: Props accepted by ``prop`` (spec §1, §6).
PROPS: tuple[str, ...] = ("chair", "wall", "bar", "box", "dip-bars")

#: Named anchors each prop supplies as reach / pin / grip targets (spec §1, §6). The sided bar
#: anchors exist for single-hand grips (spec §1 "an explicitly sided grip anchor is valid only with
#: the matching single-hand effector").
PROP_ANCHORS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "chair": ("seat",),
        "wall": ("wall",),
        "bar": ("bar", "bar_left", "bar_right"),
        "box": ("box",),
        "dip-bars": ("bars", "bars_left", "bars_right"),
    }
)

#: anchor name -> the prop that supplies it.
ANCHOR_PROP: Mapping[str, str] = MappingProxyType(
    {anchor: prop for prop, anchors in PROP_ANCHORS.items() for anchor in anchors}
)

#: Props whose anchors ``grip`` accepts (spec §1: "grip accepts only anchors supplied by a declared
#: bar or dip-bars prop").
GRIP_PROPS: tuple[str, ...] = ("bar", "dip-bars")
#: The bare grip anchors a grouped ``grip: hands ...`` must use.
GRIP_BARE_ANCHORS: tuple[str, ...] = ("bar", "bars")

#: The world anchor every pin / reach may use without a prop.
FLOOR = "floor"

#: Built-in start poses (spec §1 ``startPose``).
START_POSES: tuple[str, ...] = (
    "neutral",
    "standing",
    "first-position",
    "plank",
    "supine",
    "prone",
    "seated",
)

#: Canonical timing modes (spec §1 ``timingMode``).
TIMING_MODES: tuple[str, ...] = ("flow", "settle", "drive", "snap", "linear")

#: Legacy v0.1 easing names and the canonical mode each normalises to (spec §1). Using one is
#: valid and earns a ``legacy-easing`` hint.
TIMING_ALIASES: Mapping[str, str] = MappingProxyType(
    {"ease-in": "drive", "ease-out": "settle", "ease-in-out": "settle"}
)

# ---------------------------------------------------------------------------------------------
# Bones, joint types and joint groups (spec §2)
# ---------------------------------------------------------------------------------------------

SIDES: tuple[str, ...] = ("left", "right")
AXIAL_BONES: tuple[str, ...] = ("pelvis", "spine", "chest", "neck", "head")
LIMB_JOINTS: tuple[str, ...] = ("shoulder", "elbow", "wrist", "hip", "knee", "ankle")
DIGITS: tuple[str, ...] = ("thumb", "index", "middle", "ring", "pinky")

#: The 27 IR bone ids in canonical order: axial, arms (left then right), legs, fingers.
BONES: tuple[str, ...] = (
    AXIAL_BONES
    + tuple(f"{j}_{s}" for j in ("shoulder", "elbow", "wrist") for s in SIDES)
    + tuple(f"{j}_{s}" for j in ("hip", "knee", "ankle") for s in SIDES)
    + tuple(f"{d}_{s}" for s in SIDES for d in DIGITS)
)

#: bone id -> joint type (the key of the range-of-motion table). Finger bones other than the thumb
#: share the type ``finger``.
BONE_JOINT_TYPE: Mapping[str, str] = MappingProxyType(
    {
        **{b: b for b in AXIAL_BONES},
        **{f"{j}_{s}": j for j in LIMB_JOINTS for s in SIDES},
        **{f"{d}_{s}": ("thumb" if d == "thumb" else "finger") for d in DIGITS for s in SIDES},
    }
)

#: Joint types in table order.
JOINT_TYPES: tuple[str, ...] = (
    "shoulder", "elbow", "wrist", "hip", "knee", "ankle",
    "pelvis", "spine", "chest", "neck", "head", "finger", "thumb",
)


def bone_side(bone_id: str) -> str | None:
    """Return ``"left"``/``"right"`` for a sided bone id, ``None`` for an axial bone."""
    for side in SIDES:
        if bone_id.endswith("_" + side):
            return side
    return None


#: Joint names an author may write before ``:`` and the bones each expands to, in expansion order
#: (spec §2). Plural groups move both sides, left first; ``forearms`` is the anatomical alias of
#: ``elbows``; ``fingers`` / ``fingers_left`` / ``fingers_right`` cover the five digits.
JOINT_GROUPS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        **{b: (b,) for b in BONES},
        **{j + "s": (f"{j}_left", f"{j}_right") for j in LIMB_JOINTS},
        "forearms": ("elbow_left", "elbow_right"),
        "fingers": tuple(f"{d}_{s}" for s in SIDES for d in DIGITS),
        "fingers_left": tuple(f"{d}_left" for d in DIGITS),
        "fingers_right": tuple(f"{d}_right" for d in DIGITS),
    }
)

#: Every name accepted before ``:`` in a joint target.
JOINT_NAMES: tuple[str, ...] = tuple(JOINT_GROUPS)

# ---------------------------------------------------------------------------------------------
# Actions (spec §3; axis and sign: kinematics-reference §3.1)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """One authored action: which local Euler channel it drives and with what sign.

    ``axis`` is ``"x"``, ``"y"`` or ``"z"``. The signed channel value for a right-side (or axial)
    bone is ``magnitude * sign`` where ``sign = base_sign * flexion_sign(joint type)`` when
    ``uses_flexion_sign`` else ``base_sign``; left-side bones negate the Y and Z channels
    (kinematics-reference §3.1, spec §2 "left-side bones mirror the Y and Z axes").
    """

    name: str
    axis: str
    base_sign: int
    uses_flexion_sign: bool = False


ACTIONS: Mapping[str, Action] = MappingProxyType(
    {
        a.name: a
        for a in (
            Action("flex", "x", +1, True),
            Action("extend", "x", -1, True),
            Action("abduct", "z", -1),
            Action("adduct", "z", +1),
            Action("rotate-in", "y", +1),
            Action("rotate-out", "y", -1),
            Action("twist-left", "y", +1),
            Action("twist-right", "y", -1),
            Action("pronate", "y", +1),
            Action("supinate", "y", -1),
            Action("dorsiflex", "x", -1),
            Action("plantarflex", "x", +1),
            Action("hinge", "x", +1),
        )
    }
)

#: Common words authors reach for that are not Posecode actions, and the action they probably
#: mean. Used only for did-you-mean hints; the parser never maps one silently (closed vocabulary,
#: spec §1).
ACTION_SYNONYMS: Mapping[str, str] = MappingProxyType(
    {
        "bend": "flex", "curl": "flex", "straighten": "extend", "raise": "flex",
        "lift": "flex", "rotate": "twist-left", "twist": "twist-left", "turn": "twist-left",
        "tilt": "abduct", "spread": "abduct", "point": "plantarflex", "hyperextend": "extend",
        "neutral": "hold neutral", "reset": "hold neutral", "rest": "hold neutral",
    }
)

#: The reset action ``<joint>: hold neutral`` (all three channels to 0, all marked authored).
HOLD = "hold"
HOLD_ARGUMENT = "neutral"

#: Every word accepted after ``<joint>:`` (the signed actions plus ``hold``).
ACTION_NAMES: tuple[str, ...] = tuple(ACTIONS) + (HOLD,)

#: Flexion sign per joint type (kinematics-reference §3.1): limbs flex toward −X, the knee and the
#: axial chain toward +X. Joint types without flex/extend are absent.
FLEXION_SIGN: Mapping[str, int] = MappingProxyType(
    {
        "shoulder": -1, "elbow": -1, "wrist": -1, "hip": -1, "finger": -1, "thumb": -1,
        "knee": +1, "spine": +1, "chest": +1, "neck": +1, "head": +1,
    }
)

#: Axial bones on which the legacy ``rotate-in`` / ``rotate-out`` are still readable (with an
#: ``axial-rotate`` hint suggesting ``twist-left`` / ``twist-right``; spec §3).
AXIAL_ROTATION_JOINTS: tuple[str, ...] = ("spine", "chest", "neck", "head")
AXIAL_ROTATE_REPLACEMENT: Mapping[str, str] = MappingProxyType(
    {"rotate-in": "twist-left", "rotate-out": "twist-right"}
)


def action_sign(action: str, bone_id: str) -> tuple[str, int]:
    """Return ``(axis, sign)`` for ``action`` applied to ``bone_id``, mirroring included.

    The channel value is ``sign * magnitude`` degrees. Raises ``KeyError`` for an unknown action
    or bone. Source: kinematics-reference §3.1 (worked values: ``shoulders: abduct 80`` gives
    z = +80 on the left and −80 on the right).
    """
    spec = ACTIONS[action]
    sign = spec.base_sign
    if spec.uses_flexion_sign:
        sign *= FLEXION_SIGN[BONE_JOINT_TYPE[bone_id]]
    if spec.axis in ("y", "z") and bone_side(bone_id) == "left":
        sign = -sign
    return spec.axis, sign


# ---------------------------------------------------------------------------------------------
# Effectors and contacts (spec §1, §5, §6; bone map: kinematics-reference §2.4)
# ---------------------------------------------------------------------------------------------

#: Single effector name -> the bone whose joint it sits on.
EFFECTOR_BONE: Mapping[str, str] = MappingProxyType(
    {
        **{f"hand_{s}": f"wrist_{s}" for s in SIDES},
        **{f"fist_{s}": f"wrist_{s}" for s in SIDES},
        **{f"foot_{s}": f"ankle_{s}" for s in SIDES},
        **{f"knee_{s}": f"knee_{s}" for s in SIDES},
        **{f"elbow_{s}": f"elbow_{s}" for s in SIDES},
        "pelvis": "pelvis",
    }
)

#: Grouped effectors and their single-side members (left first).
EFFECTOR_GROUPS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "hands": ("hand_left", "hand_right"),
        "fists": ("fist_left", "fist_right"),
        "forearms": ("elbow_left", "elbow_right"),
        "knees": ("knee_left", "knee_right"),
        "feet": ("foot_left", "foot_right"),
    }
)

#: Hand effectors accepted by ``grip`` (spec §1 ``handEffector``).
GRIP_EFFECTORS: tuple[str, ...] = ("hands", "hand_left", "hand_right")

#: Ground-lock groups kept as written in the IR, and the single-side contacts each covers.
GROUND_LOCK_EXPANSION: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "feet": ("foot_left", "foot_right"),
        "hands": ("hand_left", "hand_right"),
        "forearms": ("elbow_left", "elbow_right"),
        "back": ("back",),
    }
)

#: Single-side ground-lock contact names (spec §1 ``floorContact``).
GROUND_LOCK_SINGLES: tuple[str, ...] = (
    "hand_left", "hand_right", "elbow_left", "elbow_right", "foot_left", "foot_right",
)

#: Human-readable two-word ground-lock forms (``left foot``) -> canonical single-side name.
GROUND_LOCK_READABLE: Mapping[str, str] = MappingProxyType(
    {
        f"{side} {part}": f"{'elbow' if part == 'forearm' else part}_{side}"
        for side in SIDES
        for part in ("hand", "forearm", "elbow", "foot")
    }
)

#: Every accepted ground-lock contact spelling (groups, singles, readable forms).
GROUND_LOCK_NAMES: tuple[str, ...] = (
    tuple(GROUND_LOCK_EXPANSION) + GROUND_LOCK_SINGLES + tuple(GROUND_LOCK_READABLE)
)

#: Single-side contact names used by the motion JSON's ``gl`` list (groups expanded).
GROUND_LOCK_CONTACTS: tuple[str, ...] = GROUND_LOCK_SINGLES + ("back",)

#: The ground-lock ``back`` holds these bones on the floor (kinematics-reference §2.4, REF+).
BACK_BONES: tuple[str, ...] = ("pelvis", "spine", "chest")

#: Every anchor any prop supplies (declaration order of PROPS).
ALL_ANCHORS: tuple[str, ...] = tuple(a for anchors in PROP_ANCHORS.values() for a in anchors)

#: Body landmarks a ``reach`` may target: every rig bone (spec §6 "a body landmark bone").
REACH_LANDMARKS: tuple[str, ...] = BONES


def expand_effector(name: str) -> tuple[str, ...]:
    """Return the single effectors a (possibly grouped) effector name stands for.

    ``"hands"`` -> ``("hand_left", "hand_right")``, ``"hand_left"`` -> ``("hand_left",)``;
    raises ``KeyError`` for an unknown name.
    """
    if name in EFFECTOR_GROUPS:
        return EFFECTOR_GROUPS[name]
    EFFECTOR_BONE[name]  # KeyError on unknown names
    return (name,)


def expand_ground_lock(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Expand IR ground-lock names (groups or singles) into single-side contact names, deduplicated
    and in first-seen order: ``["hands", "foot_left"]`` -> ``("hand_left", "hand_right",
    "foot_left")``. Raises ``KeyError`` for an unknown name."""
    out: list[str] = []
    for n in names:
        members = GROUND_LOCK_EXPANSION.get(n) or (GROUND_LOCK_READABLE.get(n, n),)
        for m in members:
            if m not in GROUND_LOCK_CONTACTS:
                raise KeyError(n)
            if m not in out:
                out.append(m)
    return tuple(out)


__all__ = [name for name in dir() if name.isupper()] + [
    "Action", "action_sign", "bone_side", "expand_effector", "expand_ground_lock",
]
