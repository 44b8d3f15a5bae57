"""Joint-target lines (spec §1 ``jointTarget``, §2 joints, §3 actions, §4 range of motion):
``<joint>: <action> <degrees>`` and ``<joint>: hold neutral``, in a step or a ``pose start``
block.

A joint name expands to its bones (plural groups move both sides); each action sets one signed,
mirrored Euler channel, clamped to the range-of-motion table (``rom-clamp`` warnings), and
``hold neutral`` resets all three channels. :func:`hinge_coupling` then applies the
pelvis-hinge + hip 135° rule of spec §4 to the block's merged targets.
"""

from __future__ import annotations

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.context import Context, did_you_mean, fmt
from posecode_ssg.language.ir import JointTarget
from posecode_ssg.language.lexer import Statement
from posecode_ssg.language.rom import (
    HINGE_HIP_COMBINED_MAX,
    LIMITS,
    action_limit,
    clamp_magnitude,
    joint_type,
    supported_actions,
)

#: per bone: the (line, column, action, requested degrees) of the last line that set its x channel
XSource = dict[str, tuple[int, int, str, float]]


def joint_line(ctx: Context, st: Statement, phase: str, merged: dict[str, JointTarget],
               x_source: XSource) -> None:
    """Merge one ``joint_target`` / ``hold_target`` line into ``merged`` (bone -> target, in
    first-mention order; a later line on the same channel wins), reporting unknown joints,
    unknown or unsupported actions, the axial ``rotate-in/out`` hint and range clamps (degrees;
    ``phase`` names the block in the clamp record)."""
    joint_tok = st.tokens[0]
    joint = str(joint_tok)
    bones = V.JOINT_GROUPS.get(joint)
    ok = True
    if bones is None:
        hint = did_you_mean(joint, V.JOINT_NAMES)
        if joint.startswith("forearm_"):
            hint = f"use `elbow_{joint[8:]}` (only the plural `forearms` is an alias)"
        ctx.err("unknown-joint", st.line, joint_tok.column, f'unknown joint: "{joint}"',
                hint or "joints: " + ", ".join(
                    n for n in V.JOINT_NAMES if "_" not in n or n.startswith("fingers")))
        ok = False
    if st.rule == "hold_target":
        arg = st.tokens[1] if len(st.tokens) > 1 else None
        if arg is None or str(arg) != V.HOLD_ARGUMENT:
            col = arg.column if arg is not None else joint_tok.end_column + 1
            ctx.err("bad-hold", st.line, col,
                    "expected `<joint>: hold neutral`"
                    + (f"; found `hold {arg}`" if arg is not None else ""),
                    "`hold` takes only the word `neutral`")
            return
        if not ok:
            return
        for bone in bones:
            t = merged.get(bone)
            if t is None:
                merged[bone] = JointTarget(bone, (0.0, 0.0, 0.0), ("x", "y", "z"), st.line)
            else:
                t.euler = (0.0, 0.0, 0.0)
                t.axes = ("x", "y", "z")
            x_source[bone] = (st.line, st.col, "hold", 0.0)
        return

    action_tok, number_tok = st.tokens[1], st.tokens[2]
    action = str(action_tok)
    if action not in V.ACTIONS:
        synonym = V.ACTION_SYNONYMS.get(action.lower())
        ctx.err("unknown-action", st.line, action_tok.column, f'unknown action: "{action}"',
                (f"did you mean `{synonym}`?" if synonym else did_you_mean(action, V.ACTION_NAMES))
                or "actions: " + ", ".join(V.ACTION_NAMES[:-1]) + ", hold neutral")
        return
    if not ok:
        return
    unsupported = [b for b in bones if action_limit(b, action) is None]
    if unsupported:
        types = sorted({joint_type(b) for b in unsupported}, key=V.JOINT_TYPES.index)
        allowed = {a for b in unsupported for a in supported_actions(b)}
        allowed_list = [a for a in V.ACTIONS if a in allowed]
        ctx.err("unsupported-action", st.line, action_tok.column,
                f'action "{action}" is not supported for {joint}'
                f' ({", ".join(types)} accepts: {", ".join(allowed_list)}, hold neutral)',
                did_you_mean(action, allowed_list))
        return
    requested = float(number_tok)
    jt0 = joint_type(bones[0])
    if action in V.AXIAL_ROTATE_REPLACEMENT and jt0 in V.AXIAL_ROTATION_JOINTS:
        better = V.AXIAL_ROTATE_REPLACEMENT[action]
        ctx.hint("axial-rotate", st.line, action_tok.column,
                 f"`{action}` on the axial joint `{joint}` is a legacy spelling; "
                 f"`{better}` says the same thing unambiguously",
                 f"write `{joint}: {better} {number_tok}`")
    for bone in bones:
        limit = action_limit(bone, action)
        clamped = clamp_magnitude(bone, action, requested)
        if clamped != requested:
            why = ("negative angles are not allowed; the action name gives the direction"
                   if requested < 0 else f"{joint_type(bone)} {action} limit {fmt(limit)}°")
            ctx.clamp_warning(st.line, number_tok.column, phase, bone, action, requested,
                              clamped, 0.0, limit, why)
        axis, sign = V.action_sign(action, bone)
        value = sign * clamped + 0.0
        i = "xyz".index(axis)
        t = merged.get(bone)
        if t is None:
            e = [0.0, 0.0, 0.0]
            e[i] = value
            merged[bone] = JointTarget(bone, tuple(e), (axis,), st.line)
        else:
            e = list(t.euler)
            e[i] = value
            t.euler = tuple(e)
            if axis not in t.axes:
                t.axes = tuple(a for a in "xyz" if a in t.axes or a == axis)
        if axis == "x":
            x_source[bone] = (st.line, number_tok.column, action, requested)


def hinge_coupling(ctx: Context, phase: str, merged: dict[str, JointTarget], x_source: XSource,
                   carried: dict[str, list[float]]) -> None:
    """Spec §4: with the hips counter-rotated under a pelvis hinge, the composed local hip
    angle (hip x − pelvis x) may not pass −135°. A newly authored hinge yields to carried hip
    flexion; a newly authored hip yields to the (authored or carried) hinge
    (kinematics-reference §3.3). ``carried`` is bone -> [x, y, z] degrees before this block."""
    hips = ("hip_left", "hip_right")
    pelvis = merged.get("pelvis")
    pelvis_authored = pelvis is not None and "x" in pelvis.axes
    pelvis_x = pelvis.euler[0] if pelvis_authored else carried.get("pelvis", [0.0])[0]
    authored_hips = [h for h in hips if h in merged and "x" in merged[h].axes]
    if pelvis_authored:
        carried_hips = [h for h in hips if h not in authored_hips]
        if carried_hips:
            ceiling = min([LIMITS["pelvis"]["hinge"]]
                          + [carried.get(h, [0.0])[0] + HINGE_HIP_COMBINED_MAX
                             for h in carried_hips])
            if pelvis_x > ceiling + 1e-9:
                line, col, action, requested = x_source["pelvis"]
                ctx.clamp_warning(
                    line, col, phase, "pelvis", action, requested, ceiling, 0.0, ceiling,
                    f"hinge + carried hip flexion may not exceed "
                    f"{fmt(HINGE_HIP_COMBINED_MAX)}°")
                pelvis_x = ceiling
                pelvis.euler = (ceiling, pelvis.euler[1], pelvis.euler[2])
    if pelvis_x <= 0:
        return
    floor = pelvis_x - HINGE_HIP_COMBINED_MAX
    for h in authored_hips:
        t = merged[h]
        if t.euler[0] < floor - 1e-9:
            line, col, action, requested = x_source[h]
            ceiling = HINGE_HIP_COMBINED_MAX - pelvis_x
            ctx.clamp_warning(
                line, col, phase, h, action, requested, ceiling, 0.0, ceiling,
                f"hip flexion + pelvis hinge {fmt(pelvis_x)}° may not exceed "
                f"{fmt(HINGE_HIP_COMBINED_MAX)}°")
            t.euler = (floor + 0.0, t.euler[1], t.euler[2])
