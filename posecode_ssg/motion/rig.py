"""The humanoid rig: the one source of truth for bone structure, proportions, props and start poses.

Everything numeric about the figure lives here and nowhere else. :func:`rig_json` emits it as the
``rig.json`` file the browser runtime reads (its only source of rig numbers); the Python solver and
poster read the same tables through :func:`avatar` and the module constants.

Facts are taken from ../shared/design/kinematics-reference.md (referred to below as KR):

- hierarchy, rest offsets and finger tips: KR §2.1 (procedural column = ``avatar1``, XBot driver
  column = ``avatar2``; ``avatar3`` = every ``avatar1`` length × 0.9, our choice for the v0.4
  ``avatar3`` that KR §2.6 marks as room);
- capsule radii and body volumes: KR §2.2; collision radii: KR §2.3;
- range-of-motion boxes: derived from :func:`posecode_ssg.language.rom.rom_box` (the one limit
  table, KR §2.5), never retyped;
- start poses: KR §4, except the plank ankle (see :data:`START_POSES`);
- props: KR §9.1 and §10.1; finger curls per hand state: KR §9.3.

Conventions (KR §1, spec §3): metres and degrees, right-handed, +Y up, the figure faces +Z at
rest, its left is +X. Every bone has an identity rest rotation, so its local frame is parallel to
the root frame at rest; an offset is the child joint's position in the parent's frame. Local
rotations compose as intrinsic X-Y-Z Euler angles (R = Rx·Ry·Rz).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

from posecode_ssg.language.rom import rom_box
from posecode_ssg.language.vocabulary import (
    AVATARS,
    BONE_JOINT_TYPE,
    BONES,
    DEFAULT_AVATAR,
    PROP_ANCHORS,
    PROPS,
    SIDES,
    START_POSES,
    bone_side,
)

FORMAT = "posecode-rig/1"

# ---------------------------------------------------------------------------------------------
# Hierarchy
# ---------------------------------------------------------------------------------------------

#: Parent joint type of each joint type (KR §2.1). ``None`` = the floating root.
_PARENT_TYPE: Mapping[str, str | None] = MappingProxyType({
    "pelvis": None, "spine": "pelvis", "chest": "spine", "neck": "chest", "head": "neck",
    "shoulder": "chest", "elbow": "shoulder", "wrist": "elbow",
    "hip": "pelvis", "knee": "hip", "ankle": "knee",
    "finger": "wrist", "thumb": "wrist",
})


def _parent(bone: str) -> str | None:
    ptype = _PARENT_TYPE[BONE_JOINT_TYPE[bone]]
    if ptype is None:
        return None
    side = bone_side(bone)
    if ptype in ("pelvis", "spine", "chest", "neck", "head"):
        return ptype
    return f"{ptype}_{side}"


#: bone id -> parent bone id (``None`` for the pelvis, whose parent is the root node).
PARENT: Mapping[str, str | None] = MappingProxyType({b: _parent(b) for b in BONES})

#: Fraction of the wrist→fingertip offset at which each finger bone (the knuckle) sits (KR §2.1).
KNUCKLE_FRACTION = 0.55

# ---------------------------------------------------------------------------------------------
# Proportions (KR §2.1–§2.3). Left-side values; right side = X negated.
# ---------------------------------------------------------------------------------------------

_PROCEDURAL_OFFSETS = {
    "pelvis": (0.0, 0.95, 0.0), "spine": (0.0, 0.14, 0.0), "chest": (0.0, 0.18, 0.0),
    "neck": (0.0, 0.16, 0.0), "head": (0.0, 0.10, 0.0),
    "shoulder": (0.18, 0.12, 0.0), "elbow": (0.0, -0.28, 0.0), "wrist": (0.0, -0.26, 0.0),
    "hip": (0.10, -0.06, 0.0), "knee": (0.0, -0.45, 0.0), "ankle": (0.0, -0.43, 0.0),
}
_PROCEDURAL_TIPS = {
    "thumb": (0.035, -0.040, 0.025), "index": (0.025, -0.085, 0.012),
    "middle": (0.008, -0.092, 0.012), "ring": (-0.010, -0.088, 0.012),
    "pinky": (-0.028, -0.075, 0.012),
}
_XBOT_OFFSETS = {
    "pelvis": (0.0, 1.005, 0.015), "spine": (0.0, 0.098, 0.0), "chest": (0.0, 0.186, 0.0),
    "neck": (0.0, 0.163, 0.0), "head": (0.0, 0.094, 0.0),
    "shoulder": (0.146, 0.106, -0.030), "elbow": (0.0, -0.268, 0.0), "wrist": (0.0, -0.273, 0.0),
    "hip": (0.079, -0.065, -0.015), "knee": (0.0, -0.428, 0.0), "ankle": (0.0, -0.429, 0.0),
}
_XBOT_TIPS = {
    "thumb": (0.043, -0.043, 0.033), "index": (0.038, -0.160, 0.014),
    "middle": (0.0, -0.167, 0.0), "ring": (-0.033, -0.160, -0.003),
    "pinky": (-0.067, -0.142, 0.0004),
}

#: Capsule segments parent→bone with radius at the parent end / bone end (KR §2.2), by joint type.
_SEGMENT_RADII = {
    "spine": (0.105, 0.085), "chest": (0.085, 0.100), "neck": (0.038, 0.034),
    "head": (0.034, 0.034), "shoulder": (0.042, 0.042), "elbow": (0.050, 0.038),
    "wrist": (0.042, 0.028), "hip": (0.060, 0.060), "knee": (0.078, 0.056),
    "ankle": (0.052, 0.032),
}
_PALM_BAR_RADIUS = 0.013   # KR §2.2: wrist→knuckle capsule r 0.012–0.014
_DIGIT_RADIUS = 0.012      # KR §2.2: ×0.92 of the palm bar

#: Ellipsoid body volumes (KR §2.2): bone (joint type), radius, per-axis scale, offset (left side).
_VOLUMES = (
    ("hips", "pelvis", 0.09, (1.4, 1.0, 1.05), (0.0, -0.02, 0.0)),
    ("ribcage", "chest", 0.10, (1.5, 1.22, 0.82), (0.0, 0.03, 0.0)),
    ("deltoid", "shoulder", 0.057, (1.02, 1.12, 1.02), (-0.006, -0.012, 0.0)),
    ("skull", "head", 0.062, (0.92, 1.12, 0.98), (0.0, 0.01, 0.0)),
    ("palm", "wrist", 0.045, (0.85, 1.05, 0.5), (0.0, -0.02, 0.004)),
    ("shoe", "ankle", 0.05, (0.75, 0.55, 1.9), (0.0, -0.012, 0.05)),
)

#: Sole box on the ankle (KR §2.2): size (x, y, z) and centre for a 0.042 m sole drop.
_SOLE_SIZE = (0.075, 0.012, 0.185)
_SOLE_CENTER = (0.0, -0.036, 0.05)
_SOLE_HEEL_Z, _SOLE_TOE_Z = -0.0425, 0.1425

_COLLISION = {
    "procedural": {"torso": 0.13, "head": 0.105, "thigh": 0.075, "shin": 0.055, "arm": 0.038},
    "xbot": {"torso": 0.105, "head": 0.10, "thigh": 0.068, "shin": 0.05, "arm": 0.034},
}


@dataclass(frozen=True)
class _ProportionSet:
    label: str
    offsets: Mapping[str, tuple[float, float, float]]
    tips: Mapping[str, tuple[float, float, float]]
    sole_drop: float      # ankle joint to the sole's bottom (m)
    head_top: float       # head joint to the top of the skull (m)
    collision: Mapping[str, float]
    scale: float          # applied to every length and radius


_AVATAR_SETS: Mapping[str, _ProportionSet] = MappingProxyType({
    # KR §2.1 "grounded procedural standing pose": skull top 1.656 with the head joint at 1.562.
    "avatar1": _ProportionSet("procedural mannequin (kinematics facts, 1.66 m)", _PROCEDURAL_OFFSETS,
                              _PROCEDURAL_TIPS, 0.042, 0.094, _COLLISION["procedural"], 1.0),
    # KR §2.1 XBot driver: sole 0.084 below the ankle, head mesh 0.224 above the head joint.
    "avatar2": _ProportionSet("driver-skeleton proportions (1.75 m character)", _XBOT_OFFSETS,
                              _XBOT_TIPS, 0.084, 0.224, _COLLISION["xbot"], 1.0),
    # Our choice (KR §2.6 [ROOM]): a smaller figure, every avatar1 length and radius × 0.9.
    "avatar3": _ProportionSet("smaller figure (0.9 × avatar1)", _PROCEDURAL_OFFSETS,
                              _PROCEDURAL_TIPS, 0.042, 0.094, _COLLISION["procedural"], 0.9),
})
assert tuple(_AVATAR_SETS) == tuple(AVATARS)


def _mirror(v: tuple[float, float, float], side: str | None) -> tuple[float, float, float]:
    return (-v[0], v[1], v[2]) if side == "right" else v


def round5(v: float) -> float:
    """``v`` rounded to 5 decimals (10 µm, 0.00001°): how rig numbers are written."""
    return round(float(v), 5)


def _vec(v, k: float = 1.0) -> list[float]:
    return [round5(c * k) for c in v]


@dataclass(frozen=True)
class Avatar:
    """One proportion set on the shared skeleton (all values metres, in bone-local frames).

    ``offsets``: bone -> rest offset from its parent joint (the pelvis: from the root origin).
    ``landmarks``: name -> (bone, offset) sample points (heels, toes, sole centres, palms,
    fingertips, head top). ``segments``: (parent bone, child bone or landmark, r_parent, r_child)
    capsules. ``volumes``: (name, bone, radius, scale xyz, offset). ``sole``: (size, centre) of the
    sole box on each ankle. ``collision``: KR §2.3 radii. ``height``: standing height (m).
    """

    id: str
    label: str
    offsets: Mapping[str, tuple[float, float, float]]
    landmarks: Mapping[str, tuple[str, tuple[float, float, float]]]
    segments: tuple[tuple[str, str, float, float], ...]
    volumes: tuple[tuple[str, str, float, tuple[float, float, float], tuple[float, float, float]], ...]
    sole_size: tuple[float, float, float]
    sole_center: tuple[float, float, float]
    sole_drop: float
    collision: Mapping[str, float]
    height: float


def _build_avatar(avatar_id: str) -> Avatar:
    ps = _AVATAR_SETS[avatar_id]
    k = ps.scale
    offsets: dict[str, tuple[float, float, float]] = {}
    landmarks: dict[str, tuple[str, tuple[float, float, float]]] = {}
    for bone in BONES:
        jt = BONE_JOINT_TYPE[bone]
        side = bone_side(bone)
        if jt in ("finger", "thumb"):
            digit = bone.split("_")[0]
            tip = _mirror(ps.tips[digit], side)
            offsets[bone] = tuple(round5(c * KNUCKLE_FRACTION * k) for c in tip)
            landmarks[f"{digit}_tip_{side}"] = (bone, tuple(round5(c * (1 - KNUCKLE_FRACTION) * k) for c in tip))
        else:
            offsets[bone] = tuple(round5(c * k) for c in _mirror(ps.offsets[jt], side))
    drop_shift = ps.sole_drop - 0.042   # KR §2.2: a calibrated shoe shifts down by (soleDrop − 0.042)
    sole_center = (0.0, round5((_SOLE_CENTER[1] - drop_shift) * k), round5(_SOLE_CENTER[2] * k))
    hand_len = abs(ps.tips["middle"][1])
    for side in SIDES:
        ankle = f"ankle_{side}"
        landmarks[f"heel_{side}"] = (ankle, (0.0, round5(-ps.sole_drop * k), round5(_SOLE_HEEL_Z * k)))
        landmarks[f"toe_{side}"] = (ankle, (0.0, round5(-ps.sole_drop * k), round5(_SOLE_TOE_Z * k)))
        landmarks[f"sole_{side}"] = (ankle, (0.0, round5(-ps.sole_drop * k), round5(_SOLE_CENTER[2] * k)))
        # palm centre on the palm surface (the palm faces wrist local +Z, KR §2.2)
        landmarks[f"palm_{side}"] = (f"wrist_{side}", (0.0, round5(-0.4 * hand_len * k), round5(0.025 * k)))
        # where a closed hand holds a handle: inside the curled fingers, in front of the palm
        # (issue 20: a dumbbell, a bar, a band's handle is drawn here, along wrist local X)
        landmarks[f"grip_{side}"] = (f"wrist_{side}", (0.0, round5(-0.5 * hand_len * k), round5(0.04 * k)))
    landmarks["head_top"] = ("head", (0.0, round5(ps.head_top * k), 0.0))
    segments: list[tuple[str, str, float, float]] = []
    for bone in BONES:
        jt = BONE_JOINT_TYPE[bone]
        parent = PARENT[bone]
        if parent is None:
            continue
        if jt in ("finger", "thumb"):
            digit = bone.split("_")[0]
            side = bone_side(bone)
            segments.append((parent, bone, round5(_PALM_BAR_RADIUS * k), round5(_PALM_BAR_RADIUS * k)))
            segments.append((bone, f"{digit}_tip_{side}", round5(_DIGIT_RADIUS * k), round5(_DIGIT_RADIUS * k)))
        else:
            r0, r1 = _SEGMENT_RADII[jt]
            segments.append((parent, bone, round5(r0 * k), round5(r1 * k)))
    volumes = []
    for name, jt, r, scale, off in _VOLUMES:
        bones = [jt] if jt in ("pelvis", "chest", "head") else [f"{jt}_{s}" for s in SIDES]
        for bone in bones:
            side = bone_side(bone)
            o = _mirror(off, side)
            if name == "shoe":
                o = (o[0], o[1] - drop_shift, o[2])
            volumes.append((name, bone, round5(r * k), scale, tuple(round5(c * k) for c in o)))
    # standing height: root origin to skull top, with the root grounded so the sole is on y = 0
    y_ankle = sum(offsets[b][1] for b in ("pelvis", "hip_left", "knee_left", "ankle_left"))
    y_head = sum(offsets[b][1] for b in ("pelvis", "spine", "chest", "neck", "head"))
    height = round5(y_head + ps.head_top * k - (y_ankle - ps.sole_drop * k))
    return Avatar(
        id=avatar_id, label=ps.label, offsets=MappingProxyType(offsets),
        landmarks=MappingProxyType(landmarks), segments=tuple(segments), volumes=tuple(volumes),
        sole_size=tuple(round5(c * k) for c in _SOLE_SIZE), sole_center=sole_center,
        sole_drop=round5(ps.sole_drop * k),
        collision=MappingProxyType({n: round5(v * k) for n, v in ps.collision.items()}), height=height,
    )


@lru_cache(maxsize=None)
def avatar(avatar_id: str | None = None) -> Avatar:
    """Return the :class:`Avatar` for ``avatar_id`` (``None`` = ``DEFAULT_AVATAR``).

    Raises ``KeyError`` for an id not in ``vocabulary.AVATARS``.
    """
    return _build_avatar(avatar_id or DEFAULT_AVATAR)


# ---------------------------------------------------------------------------------------------
# Range of motion (derived, never retyped)
# ---------------------------------------------------------------------------------------------

#: bone -> {"x": (lo, hi), "y": ..., "z": ...} signed local Euler degrees, from language.rom.
ROM: Mapping[str, Mapping[str, tuple[float, float]]] = MappingProxyType(
    {b: MappingProxyType(rom_box(b)) for b in BONES}
)

# ---------------------------------------------------------------------------------------------
# Start poses (KR §4)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartPose:
    """A built-in start pose: root position (m, before the bounding-box drop), root Euler XYZ
    (degrees), joint values bone -> (x, y, z) degrees, and whether the base is tilted (lying or
    seated: turn and travel are out of scope there, spec §6)."""

    name: str
    root_position: tuple[float, float, float]
    root_euler: tuple[float, float, float]
    joints: Mapping[str, tuple[float, float, float]]
    tilted: bool


_FOREARMS_TO_THIGHS = {"elbow_left": (0.0, -80.0, 0.0), "elbow_right": (0.0, 80.0, 0.0)}


def _both(bone: str, x: float) -> dict[str, tuple[float, float, float]]:
    """The same x (flexion/extension) value on the left and right ``bone``."""
    return {f"{bone}_left": (x, 0.0, 0.0), f"{bone}_right": (x, 0.0, 0.0)}


#: Body segments for the centre of mass (motion/rest.py): (segment, proximal point, distal point,
#: share of body mass, place of the segment's centre from the proximal end as a fraction of its
#: length). Shares and places: D. A. Winter, *Biomechanics and Motor Control of Human Movement*,
#: 4th ed. (2009), Table 4.1 (hand: wrist to the third knuckle; forearm: elbow to wrist; upper
#: arm: shoulder to elbow; foot: ankle to the toe; leg: knee to ankle; thigh: hip to knee; head
#: and neck: C7-T1 to the ear canal, its centre there; trunk: greater trochanter to glenohumeral
#: joint). Points are joints or landmarks; ``a+b`` is the midpoint of two. The shares sum to 1.
SEGMENT_MASSES: tuple[tuple[str, str, str, float, float], ...] = (
    ("trunk", "hip_left+hip_right", "shoulder_left+shoulder_right", 0.497, 0.50),
    ("head and neck", "neck", "head", 0.081, 1.00),
    *((f"{seg}_{s}", f"{a}_{s}", f"{b}_{s}", m, f) for s in ("left", "right") for seg, a, b, m, f in (
        ("upper arm", "shoulder", "elbow", 0.028, 0.436),
        ("forearm", "elbow", "wrist", 0.016, 0.430),
        ("hand", "wrist", "middle", 0.006, 0.506),
        ("thigh", "hip", "knee", 0.100, 0.433),
        ("leg", "knee", "ankle", 0.0465, 0.433),
        ("foot", "ankle", "toe", 0.0145, 0.50),
    )),
)


#: The seven built-in start poses. Every joint value lies inside its ROM box (tested). The
#: deliberate differences from KR §4 (docs/language.md "Start poses"):
#:
#: - plank: the reference sets the ankles to x = −25°, outside the ankle box [−15°, 50°]; ours
#:   uses −15° (full dorsiflexion), the legal value closest to it;
#: - the lying and seated poses rest on the surfaces a person rests on (issue 18), where the
#:   reference's joints at 0 left the prone body on its toes (trunk 40 mm up), the supine heels
#:   53 mm up and the seated body on its fingertips: prone ankles plantarflexed 50° (the box's
#:   end) with hips flexed 6° and knees 10°, so chest, pelvis, thighs and the tops of the feet
#:   lie within 10 mm of the floor; supine hips extended 3° and ankles plantarflexed 15° (relaxed feet), so back,
#:   pelvis, shoulder blades and heels lie down; seated hands resting on the thighs (shoulders
#:   flexed 20°, elbows 50°), so the sitting bones, thighs and heels carry the body.
START_POSES_TABLE: Mapping[str, StartPose] = MappingProxyType({
    "neutral": StartPose("neutral", (0, 0, 0), (0, 0, 0), {}, False),
    "standing": StartPose("standing", (0, 0, 0), (0, 0, 0), dict(_FOREARMS_TO_THIGHS), False),
    "first-position": StartPose("first-position", (0, 0, 0), (0, 0, 0),
                                {**_FOREARMS_TO_THIGHS, "hip_left": (0.0, 30.0, 0.0),
                                 "hip_right": (0.0, -30.0, 0.0)}, False),
    "plank": StartPose("plank", (0, 0.6, 0), (72, 0, 0),
                       {"shoulder_left": (-90.0, 0.0, 0.0), "shoulder_right": (-90.0, 0.0, 0.0),
                        "ankle_left": (-15.0, 0.0, 0.0), "ankle_right": (-15.0, 0.0, 0.0)}, True),
    "supine": StartPose("supine", (0, 0.5, 0), (-90, 0, 0),
                        {**_both("hip", 3.0), **_both("ankle", 15.0)}, True),
    "prone": StartPose("prone", (0, 0.5, 0), (90, 0, 0),
                       {**_both("hip", -6.0), **_both("knee", 10.0), **_both("ankle", 50.0)}, True),
    "seated": StartPose("seated", (0, 0.5, 0), (0, 0, 0),
                        {**_both("hip", -90.0), **_both("shoulder", -20.0),
                         "elbow_left": (-50.0, -80.0, 0.0), "elbow_right": (-50.0, 80.0, 0.0)}, True),
})
assert tuple(START_POSES_TABLE) == tuple(START_POSES)

#: The start pose used when a document declares none: the spec's rest pose (§3: "standing, arms at
#: sides, facing +Z"), i.e. ``neutral``.
DEFAULT_START_POSE = "neutral"

# ---------------------------------------------------------------------------------------------
# Props (KR §9.1, §10.1). World-fixed, axis-aligned.
# ---------------------------------------------------------------------------------------------


def _box(size, center, role="solid"):
    return {"shape": "box", "size": list(size), "center": list(center), "role": role}


def _cyl(axis, radius, length, center, role="solid"):
    return {"shape": "cylinder", "axis": axis, "radius": radius, "length": length,
            "center": list(center), "role": role}


def _face(name, center, normal, half_u, half_v, capture, blocks, resolve):
    n = tuple(normal)
    u = (1.0, 0.0, 0.0) if abs(n[0]) < 0.5 else (0.0, 0.0, 1.0)
    v = (0.0, 1.0, 0.0) if abs(n[1]) < 0.5 else (0.0, 0.0, 1.0)
    return {"name": name, "center": list(center), "normal": list(n), "u": list(u), "v": list(v),
            "halfU": half_u, "halfV": half_v, "capture": capture, "blocks": list(blocks),
            "resolve": resolve}


#: prop -> {"meshes": [...], "anchors": {name: [x, y, z]}, "faces": [...]} (metres, world frame).
#: Face ``blocks`` lists body parts (torso, head, arms, thighs, shins, or "all");
#: ``resolve`` is "body" (translate the root along the normal) or "limb" (bend the hip clear).
PROP_GEOMETRY: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "chair": {
        "meshes": [_box((0.42, 0.06, 0.42), (0, 0.50, -0.16)),
                   _box((0.42, 0.50, 0.06), (0, 0.78, -0.34))]
                  + [_box((0.05, 0.5, 0.05), (x, 0.25, z)) for x in (0.18, -0.18) for z in (0.0, -0.32)],
        "anchors": {"seat": [0, 0.53, -0.12]},
        "faces": [_face("backrest", (0, 0.78, -0.31), (0, 0, 1), 0.21, 0.25, 0.40, ("torso", "head"), "body"),
                  _face("seat-edge", (0, 0.47, 0.05), (0, 0, 1), 0.21, 0.03, 0.42, ("shins",), "body")],
    },
    "wall": {
        "meshes": [_box((2.2, 2.6, 0.1), (0, 1.3, -0.34))],
        "anchors": {"wall": [0, 0.9, -0.29]},
        "faces": [_face("wall", (0, 1.3, -0.29), (0, 0, 1), 1.1, 1.3, 0.80, ("all",), "body")],
    },
    "bar": {
        "meshes": [_cyl("x", 0.025, 1.2, (0, 2.30, 0)),
                   _cyl("y", 0.03, 2.30, (0.55, 1.15, 0), "post"),
                   _cyl("y", 0.03, 2.30, (-0.55, 1.15, 0), "post")],
        "anchors": {"bar": [0, 2.30, 0], "bar_left": [0.18, 2.30, 0], "bar_right": [-0.18, 2.30, 0]},
        "faces": [],
    },
    "box": {
        "meshes": [_box((0.5, 0.3, 0.42), (0, 0.15, 0.32))],
        "anchors": {"box": [0, 0.30, 0.30]},
        "faces": [_face("near", (0, 0.15, 0.11), (0, 0, -1), 0.25, 0.15, 0.42, ("shins",), "limb")],
    },
    "dip-bars": {
        "meshes": [_cyl("z", 0.022, 0.9, (x, 1.10, 0)) for x in (0.22, -0.22)]
                  + [_cyl("y", 0.026, 1.10, (x, 0.55, z), "post") for x in (0.22, -0.22) for z in (0.35, -0.35)],
        "anchors": {"bars": [0, 1.10, 0], "bars_left": [0.22, 1.10, 0], "bars_right": [-0.22, 1.10, 0]},
        "faces": [],
    },
})
assert tuple(PROP_GEOMETRY) == tuple(PROPS)
assert all(tuple(PROP_GEOMETRY[p]["anchors"]) == tuple(PROP_ANCHORS[p]) for p in PROPS)


def _arm_surfaces() -> dict[str, list[float]]:
    out = {}
    for geo in PROP_GEOMETRY.values():
        for name, a in geo["anchors"].items():
            for g in PROP_GEOMETRY.values():
                for f in g["faces"]:
                    off = sum(n * c for n, c in zip(f["normal"], f["center"]))
                    if {"all", "arms"} & set(f["blocks"]) and abs(sum(n * x for n, x in zip(f["normal"], a)) - off) < 1e-9:
                        out[name] = [*map(float, f["normal"]), off]
    return out


#: anchor -> [nx, ny, nz, n·c] (m): the plane of the blocking face that stops the arms and holds
#: the anchor (the wall's front face for ``wall``). A hand or fist reached to such an anchor rests
#: on that surface (solve/measure.py ``arm_clearance``, runtime reach.js); anchors on unblocked top
#: surfaces (box, seat) and the bars have none. Emitted in rig.json as ``surfaces``.
PROP_SURFACES: Mapping[str, list[float]] = MappingProxyType(_arm_surfaces())


def anchor_position(anchor: str) -> tuple[float, float, float]:
    """World position (m) of a prop anchor such as ``"bar_left"``; raises ``KeyError`` if unknown."""
    for geo in PROP_GEOMETRY.values():
        if anchor in geo["anchors"]:
            return tuple(geo["anchors"][anchor])
    raise KeyError(anchor)


# ---------------------------------------------------------------------------------------------
# Hand states (KR §9.3), degrees about local X; thumb Z for the left hand (right = negated).
# ---------------------------------------------------------------------------------------------

_HAND_STATES_RAD = {  # (index..pinky curl, thumb curl, left thumb Z) in radians, as KR §9.3 gives them
    "grip": (-1.35, -0.9, -0.5),
    "fist": (-1.5, -1.15, -0.45),
    "relaxed": (-0.32, -0.19, -0.26),
    "planted": (-0.06, -0.06, 0.0),
}
#: hand state -> {"curl", "thumbCurl", "thumbZ"} in degrees (thumbZ for the left hand).
HAND_STATES: Mapping[str, Mapping[str, float]] = MappingProxyType({
    k: {"curl": round(math.degrees(c), 2), "thumbCurl": round(math.degrees(t), 2),
        "thumbZ": round(math.degrees(z), 2)}
    for k, (c, t, z) in _HAND_STATES_RAD.items()
})

# ---------------------------------------------------------------------------------------------
# Solver constants shared by the build-time solve and the runtime (KR §6, §7, §12)
# ---------------------------------------------------------------------------------------------

SOLVER: Mapping[str, Any] = MappingProxyType({
    "ccdIterations": 12,          # KR §7
    "ccdStopDistance": 0.01,      # m, KR §7 (squared distance < 1e-4)
    "gripStopDistance": 0.002,    # m: a grip's arm CCD stops nearer (the eval's grip residual: ≤ 5 mm)
    "reachTolerance": 0.03,       # m: "reached" (KR §7)
    "reachShortReport": 0.02,     # m: build-time diagnostic threshold
    "plantedHeight": 0.05,        # m: a locked contact within this of the floor is planted (KR §6.3)
    "plantTolerance": 0.005,      # m: drift above this on a planted foot is reported
    # m: a body point this near the floor touches it and spans the base of support (issue 19:
    # "within 10 mm"), and how far the centre of mass may lie outside that base (eval `support`,
    # kinematic-balance, the runtime's `balance` warning)
    "baseContact": 0.010,
    "balanceLimit": 0.020,
    "plantigradeMaxAnkle": 15.0,  # deg: ankle x above this keeps tiptoe pitch (KR §6.4)
    "clearanceIterations": 3,     # swing clearance: ankle turns of a free foot whose toe is below the floor
    # swing clearance (solve/swingclearance.py hinge_up, uphill): the ankle turns the toe up the
    # way that raises it, fully while the toe lies more than this sine off the vertical under the
    # ankle (about 20 deg), fading to no turn where it hangs straight below (either way would
    # raise it there: the knee lifts it instead, so the ankle never swaps ways in one frame)
    "clearanceAnkleFade": 0.35,
    "plantigradeBlend": 5.0,      # deg: levelled → authored pitch cross-fade over 2× this above it
    "handFloorOutward": 0.04,     # m: floor hand target pushed outward from the shoulder (KR §7.1)
    "elbowFloorHeight": 0.038,    # m: elbow-on-floor joint height (arm radius, KR §7.1)
    "pelvisFloorMin": 0.08,       # m: KR §7.1
    "propBodyPasses": 2,          # body-resolving face passes (KR §10.1)
    "propLiftRounds": 16,         # limb-face lift (the box): knee steps per leg
    "propLiftStepDeg": 10.0,      # deg: largest knee step of the lift
    "propLiftGap": 0.002,         # m: clearance the lift leaves beyond a limb face's capsule contact
    "shinOverhang": 0.06,         # m: shin sample past the ankle (KR §10.1)
    "armOverhang": 0.09,          # m: forearm sample past the wrist (KR §10.2)
    "headOverhang": 0.05,         # m: head capsule past the head joint (KR §10.2)
    "selfTorsoBelowPelvis": 0.08, # m: torso capsule start below the pelvis (KR §10.2)
    "selfIterations": 8,          # self-collision steps per limb (KR §10.2)
    "selfStepDeg": 6.0,           # deg: largest step (KR §10.2)
    "selfArmMaxDeg": 30.0,        # deg: total shoulder correction cap (KR §10.2)
    "selfLegMaxDeg": 10.0,        # deg: total hip correction cap (KR §10.2)
    "selfCollisionReport": 0.005, # m: residual self-collision reported (the eval's threshold)
    "pivotIterations": 8,         # hands/forearms + feet pivot: Newton steps (KR §6.3)
    "pivotTolerance": 0.0005,     # m: stop; finer than a frame-to-frame step of a nearly straight held arm
    "pivotMaxStep": 0.35,         # rad
    "pivotRounds": 2,             # hands/forearms + feet: rounds of pivot + hold (solve/groundlock.py)
    "armSoftReach": 0.01,         # m: soft IK band of a held arm near full extension (solve/hands.py soft_reach)
    "palmRounds": 3,              # locked hands: rounds of the arm IK hold (solve/hands.py hold_uppers)
    # a ground-locked foot's hold weight (1 -> 0, smoothstep) over its lowest point's height as
    # fractions of plantedHeight: its height is let go over the first band, its place over the
    # second, so a foot the authored joints lift rises before it slides
    "holdHeightBand": (0.2, 0.4),
    "holdPlaceBand": (0.4, 0.6),
    # then its levelling (groundlock.py level_weight): fully levelled up to 3 cm, the authored
    # pitch from 5 cm (plantedHeight), smoothstep between, so the ankle does not snap from the
    # levelled to the authored angle in one frame as the foot rises (15 deg in a hamstring curl)
    "levelBand": (0.6, 1.0),
    # on all fours (groundlock.py kneel_release): the body turns from its knees onto its hands as
    # the arms' miss of the hands from the knees grows over this band (x plantTolerance)
    "kneelReleaseBand": (0.4, 1.0),
    "firmHold": 0.999,            # a hold weight at or above this is a firm hold (planted, reported)
    "levelMissDeg": 0.25,         # deg: a levelled foot short of flat by more than this is reported
    "pivotProbeStep": 0.01,       # rad: finite-difference step of the hands/forearms pivot's Newton step
    # reach CCD chains by effector kind: the joints turned, root first (the effector's own bone,
    # the chain's end, excluded)
    "reachChains": MappingProxyType({"hand": ("shoulder", "elbow"), "fist": ("shoulder", "elbow"),
                                     "elbow": ("shoulder",), "foot": ("hip", "knee"), "knee": ("hip",)}),
    "propTops": ("box", "seat"),  # props whose anchor is a top surface: a foot meets it with the sole
    # m/s²: standard gravity (CGPM 1901). A body let go from a grip above the floor falls freely
    # until it lands (runtime blend.js), and eval's float counts no such fall (evaluate/floor.py)
    "gravity": 9.80665,
    # ground-lock sit-back (solve/groundlock.py sit_back): a stance whose shins lean past the
    # ankle's dorsiflexion sits back over its heels, the centre of mass kept this far (m) ahead
    # of the rear heel; at most sitBackRounds secant steps after the first
    "sitBackHeelMargin": 0.03,
    # arm clearance (solve/swingclearance.py clear_free_arms): a body whose trunk (pelvis -> neck)
    # has at least this share of its length horizontal (cos 45 deg) lies; its free arms swing
    # out along the floor instead of through it
    "armClearanceTrunk": 0.7071,
    "sitBackRounds": 3,
    # weight shift (solve/balance.py): a point bears weight fully within the band's first
    # fraction of plantedHeight of the floor (5 mm) and none from its second (1 cm, where eval's
    # support stops counting a contact), smoothstep between: the free foot as it lifts (the
    # weight goes over the stance foot), a stance sole's corners (its base)
    "shiftHeightBand": (0.1, 0.2),
    # runtime only (solvers/balance.js): the weight goes over this long (s) before the free foot
    # lifts, as a body shifts its weight before it steps (anticipatory postural adjustment)
    "shiftLead": 0.3,
    # s: the shortest fade of the look-ahead from a segment's ends (runtime figuremodel.js
    # `_shiftAhead`): a free foot lifting sooner after a phase begins than shiftLead has its
    # weight shifted over that long, no faster
    "shiftLeadMin": 0.15,
    # its search (solve/balance.py shift_weight): rounds of a root move by what the centre of mass
    # still lacks over the share of a root move it follows (the stance leg stays: about 0.9), the
    # metres it may still lie off the base when it stops, the stance leg's IK rounds that bring
    # the foot's held point back onto its footprint, and halvings of a shift the leg cannot hold
    "shiftRounds": 3,
    # how far (m) outside the sole box's edges the centre of mass may stand (solve/balance.py
    # over_base): the box is narrower and shorter than a person's foot (75 x 185 mm against about
    # 100 x 250); within eval's 20 mm
    "shiftMargin": 0.015,
    # the most (degrees) the shift leans the stance leg across its foot: the rig's ankle is a
    # hinge, so the sole rolls onto its edge by the lean (eval fails a planted sole past 5°)
    "shiftLeanLimit": 4.8,
    "shiftComShare": 0.9,
    "shiftDone": 0.001,
    "shiftHoldRounds": 3,
    # m: a stance leg's hold rounds stop once the held point's correction is this small
    "shiftHoldDone": 0.0001,
    "shiftBisect": 8,
})
