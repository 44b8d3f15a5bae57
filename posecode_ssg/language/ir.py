"""Intermediate representation of a parsed Posecode document (spec §7).

Python attributes are snake_case and each node also carries the 1-based document ``line`` it came
from (``0`` when rebuilt with ``from_dict``); ``to_dict`` emits exactly the camelCase dict of the
conformance corpus (../shared/conformance/README.md "Expected-output format"): the keys of spec §7
plus ``props`` (always) and ``clip`` (when declared), no lines. Angles are degrees, durations
seconds, travel metres.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

AXES = ("x", "y", "z")


def _num(v: float) -> float | int:
    """Render a number for JSON: integral values as int, ``-0.0`` as ``0``."""
    if isinstance(v, bool):
        return int(v)
    f = float(v)
    if f == 0:
        return 0
    if f.is_integer() and abs(f) < 2**53:
        return int(f)
    return f


@dataclass
class JointTarget:
    """Absolute local Euler target of one bone in one phase (or in the start-pose overlay).

    ``euler`` is ``(x, y, z)`` degrees, signed and mirrored; ``axes`` lists the channels authored,
    in x, y, z order (the others carry over from the previous keyframe; spec §3).
    """

    bone_id: str
    euler: tuple[float, float, float]
    axes: tuple[str, ...]
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        """``{"boneId", "euler": {"x", "y", "z"} (degrees), "axes": [...]}``."""
        x, y, z = self.euler
        return {"boneId": self.bone_id, "euler": {"x": _num(x), "y": _num(y), "z": _num(z)},
                "axes": list(self.axes)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "JointTarget":
        """Inverse of :meth:`to_dict`; a missing ``axes`` means all three channels."""
        e = d["euler"]
        axes = d.get("axes")
        if axes is None:
            axes = AXES
        return cls(d["boneId"], (float(e["x"]), float(e["y"]), float(e["z"])),
                   tuple(a for a in AXES if a in axes))


@dataclass
class Contact:
    """One reach, pin or grip: ``effector`` (single side) and ``target`` (reach target, or the
    pin/grip anchor)."""

    effector: str
    target: str
    line: int = 0

    def to_dict(self, key: str = "target") -> dict[str, Any]:
        """``{"effector", key}``: ``key`` is ``"target"`` for reaches, ``"anchor"`` for pins
        and grips."""
        return {"effector": self.effector, key: self.target}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Contact":
        """Read a reach (``target``) or pin/grip (``anchor``) dict."""
        return cls(d["effector"], d.get("target", d.get("anchor", "")))


@dataclass
class Phase:
    """One ``step``: name, duration (s), canonical timing mode, joint targets and contacts.

    ``ground_lock`` keeps the names as written after normalisation (groups such as ``"feet"`` stay
    groups; readable forms become ``foot_left``...). ``turn_deg`` (degrees, absolute yaw) and
    ``travel`` (x, z metres from the load spot) are ``None`` when not authored.
    """

    name: str
    duration_sec: float
    easing: str
    targets: list[JointTarget] = field(default_factory=list)
    ground_lock: list[str] = field(default_factory=list)
    ground_lock_line: int | None = None
    reaches: list[Contact] = field(default_factory=list)
    pins: list[Contact] = field(default_factory=list)
    grips: list[Contact] = field(default_factory=list)
    turn_deg: float | None = None
    travel: tuple[float, float] | None = None
    cue: str | None = None
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The camelCase phase dict of spec §7 (``turnDeg``, ``travel``, ``cue`` only when
        authored)."""
        d: dict[str, Any] = {
            "name": self.name,
            "durationSec": _num(self.duration_sec),
            "easing": self.easing,
            "targets": [t.to_dict() for t in self.targets],
            "groundLock": list(self.ground_lock),
            "reaches": [c.to_dict("target") for c in self.reaches],
            "pins": [c.to_dict("anchor") for c in self.pins],
            "grips": [c.to_dict("anchor") for c in self.grips],
        }
        if self.turn_deg is not None:
            d["turnDeg"] = _num(self.turn_deg)
        if self.travel is not None:
            d["travel"] = {"x": _num(self.travel[0]), "z": _num(self.travel[1])}
        if self.cue is not None:
            d["cue"] = self.cue
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Phase":
        """Inverse of :meth:`to_dict` (source lines are 0)."""
        tr = d.get("travel")
        return cls(
            name=d["name"],
            duration_sec=float(d["durationSec"]),
            easing=d["easing"],
            targets=[JointTarget.from_dict(t) for t in d.get("targets", [])],
            ground_lock=list(d.get("groundLock", [])),
            ground_lock_line=None,
            reaches=[Contact.from_dict(c) for c in d.get("reaches", [])],
            pins=[Contact.from_dict(c) for c in d.get("pins", [])],
            grips=[Contact.from_dict(c) for c in d.get("grips", [])],
            turn_deg=float(d["turnDeg"]) if d.get("turnDeg") is not None else None,
            travel=(float(tr["x"]), float(tr["z"])) if tr is not None else None,
            cue=d.get("cue"),
        )


@dataclass
class IR:
    """A whole parsed document (spec §7). ``start_pose_overrides`` is ``None`` unless a
    ``pose start = X:`` block with at least one override was written; ``avatar``/``start_pose``/``clip`` are ``None`` when not
    declared; ``props`` keeps declaration order and duplicates."""

    kind: str
    name: str
    rig: str = "humanoid"
    avatar: str | None = None
    start_pose: str | None = None
    start_pose_overrides: list[JointTarget] | None = None
    props: list[str] = field(default_factory=list)
    clip: str | None = None
    repeat: int = 1
    phases: list[Phase] = field(default_factory=list)
    line: int = 0
    version: str = "0.4"

    def to_dict(self) -> dict[str, Any]:
        """The IR dict of the conformance corpus: spec §7 keys plus ``props`` (always) and
        ``clip`` (when declared); optional keys only when set."""
        d: dict[str, Any] = {"version": self.version, "kind": self.kind, "name": self.name,
                             "rig": self.rig}
        if self.avatar is not None:
            d["avatar"] = self.avatar
        if self.start_pose is not None:
            d["startPose"] = self.start_pose
        if self.start_pose_overrides is not None:
            d["startPoseOverrides"] = [t.to_dict() for t in self.start_pose_overrides]
        d["props"] = list(self.props)
        if self.clip is not None:
            d["clip"] = self.clip
        d["repeat"] = self.repeat
        d["phases"] = [p.to_dict() for p in self.phases]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "IR":
        """Rebuild an IR from its dict form (conformance ``ir`` objects); lines are 0."""
        spo = d.get("startPoseOverrides")
        return cls(
            version=str(d.get("version", "0.4")),
            kind=d["kind"],
            name=d["name"],
            rig=d.get("rig", "humanoid"),
            avatar=d.get("avatar"),
            start_pose=d.get("startPose"),
            start_pose_overrides=[JointTarget.from_dict(t) for t in spo] if spo is not None else None,
            props=list(d.get("props", [])),
            clip=d.get("clip"),
            repeat=int(d.get("repeat", 1)),
            phases=[Phase.from_dict(p) for p in d.get("phases", [])],
        )
