"""The ``pose start = X:`` override block (spec §1 ``startOverride``, §7
``startPoseOverrides``): indented joint targets laid sparsely over the built-in start pose X,
read like a phase without time (same vocabulary, mirroring, clamps; no contacts or step-only
directives), the phase being named ``start pose`` in clamp records."""

from __future__ import annotations

from posecode_ssg.language.context import Context
from posecode_ssg.language.ir import JointTarget
from posecode_ssg.language.lexer import Block
from posecode_ssg.language.rom import START_POSE_HIP_X
from posecode_ssg.language.statements.steps import read_children

#: The phase name of the override block in ``rom-clamp`` records.
START_POSE_PHASE = "start pose"


def carried_from(start_pose: str | None) -> dict[str, list[float]]:
    """The authored angles the first block builds on (bone -> [x, y, z] degrees): the hip
    flexion of a start pose that has one (``rom.START_POSE_HIP_X``), which the pelvis-hinge
    coupling of spec §4 reads; empty otherwise."""
    carried: dict[str, list[float]] = {}
    if start_pose is not None:
        seed = START_POSE_HIP_X.get(start_pose)
        if seed is not None:
            carried["hip_left"] = [seed, 0.0, 0.0]
            carried["hip_right"] = [seed, 0.0, 0.0]
    return carried


def read_overrides(ctx: Context, block: Block | None,
                   carried: dict[str, list[float]]) -> list[JointTarget] | None:
    """The start-pose overrides of ``block`` (the ``pose start = X:`` line and its children),
    merged per bone in first-mention order and written into ``carried``; None without a block or
    when the block holds no override (spec §7: ``startPoseOverrides`` is optional)."""
    if block is None:
        return None
    overrides = read_children(ctx, block[1], START_POSE_PHASE, carried, pose_block=True)[0]
    return overrides or None
