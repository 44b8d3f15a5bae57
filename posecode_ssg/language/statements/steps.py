"""Steps (spec §1 ``step``, ``child``, ``timingMode``): a ``step "<name>" <duration> <mode>:``
header becomes one :class:`~posecode_ssg.language.ir.Phase`, its children the phase's targets,
contacts, ``turn``, ``travel`` and ``cue``.

:func:`read_children` also reads the ``pose start`` block (joint targets only) and the blocks of
directives that could not be read (checked, not kept). Joint angles carry from block to block in
``carried`` (bone -> [x, y, z] degrees), which the pelvis-hinge coupling reads.
"""

from __future__ import annotations

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.context import Context, did_you_mean
from posecode_ssg.language.ir import Contact, JointTarget, Phase
from posecode_ssg.language.lexer import Statement, unquote
from posecode_ssg.language.rom import TRAVEL_LIMIT_M
from posecode_ssg.language.statements.contacts import (
    check_families,
    read_grip,
    read_ground_lock,
    read_pin,
    read_reach,
)
from posecode_ssg.language.statements.joint_targets import (
    XSource,
    hinge_coupling,
    joint_line,
)

_JOINT_RULES = ("joint_target", "hold_target")


def read_children(ctx: Context, children: list[Statement], phase: str,
                  carried: dict[str, list[float]], *, pose_block: bool, dropped: bool = False):
    """Resolve one step's (or the start-pose block's) children. Returns the merged
    ``JointTarget`` list (first-mention order) and the Phase keyword fields for contacts,
    ``turn_deg`` (degrees), ``travel`` ((x, z) metres, clamped to ``TRAVEL_LIMIT_M``) and
    ``cue``. A ``pose_block`` takes joint targets only. Unless ``dropped``, the block's angles
    are hinge-coupled and written into ``carried``."""
    merged: dict[str, JointTarget] = {}
    x_source: XSource = {}
    ground_lock: list[str] = []
    ground_lock_line: int | None = None
    reaches: list[Contact] = []
    pins: list[Contact] = []
    grips: list[Contact] = []
    pin_lines: list[Statement] = []
    grip_lines: list[Statement] = []
    turn = None
    travel = None
    cue = None

    for st in children:
        r = st.rule
        if r is None:
            continue
        if pose_block and r not in _JOINT_RULES:
            ctx.err("outside-step", st.line, st.col,
                    f"`{st.head}` is not valid in a `pose start` block; start-pose "
                    "overrides take joint targets only",
                    "move it into a step")
            continue
        if r in _JOINT_RULES:
            joint_line(ctx, st, phase, merged, x_source)
        elif r == "ground_lock":
            names = read_ground_lock(ctx, st)
            if names is not None:
                ground_lock = names
                ground_lock_line = st.line
        elif r == "reach":
            reaches.extend(read_reach(ctx, st))
        elif r == "pin":
            pins.extend(read_pin(ctx, st))
            pin_lines.append(st)
        elif r == "grip":
            grips.extend(read_grip(ctx, st))
            grip_lines.append(st)
        elif r == "turn":
            turn = float(st.tokens[0])
        elif r == "travel":
            lim = TRAVEL_LIMIT_M
            x, z = (min(max(float(t), -lim), lim) for t in st.tokens)
            travel = (x, z)
        elif r == "cue":
            text = unquote(st.tokens[0])
            cue = text if text else None

    check_families(ctx, ground_lock_line, pin_lines, grip_lines)

    if not dropped:
        hinge_coupling(ctx, phase, merged, x_source, carried)
        for bone, t in merged.items():
            values = carried.setdefault(bone, [0.0, 0.0, 0.0])
            for i, axis in enumerate(("x", "y", "z")):
                if axis in t.axes:
                    values[i] = t.euler[i]

    targets = list(merged.values())
    extras = {"ground_lock": ground_lock, "ground_lock_line": ground_lock_line,
              "reaches": reaches, "pins": pins, "grips": grips, "turn_deg": turn,
              "travel": travel, "cue": cue}
    return targets, extras


def read_steps(ctx: Context, steps, carried: dict[str, list[float]],
               dropped_steps: list[int]) -> list[Phase]:
    """The phases of the ``step`` blocks (``steps``: (header, children) in document order).
    Reports a non-positive duration, an unknown timing mode (``flow`` is used meanwhile) and the
    v0.1 easing names (a hint; they mean their canonical mode). A document needs one step whose
    header reads (``no-steps`` otherwise, naming the failed headers: their lines and
    ``dropped_steps``)."""
    phases: list[Phase] = []
    bad_headers: list[int] = []
    for index, (st, children) in enumerate(steps):
        name_tok, dur_tok, mode_tok = st.tokens
        seconds = float(str(dur_tok)[:-1])
        if seconds <= 0:
            ctx.err("non-positive-duration", st.line, dur_tok.column,
                    f"steps.{index}.durationSec: a step duration must be a positive number "
                    f"of seconds (got {dur_tok})", "e.g. `1.5s`")
        mode = str(mode_tok)
        if mode in V.TIMING_MODES:
            easing = mode
        elif mode in V.TIMING_ALIASES:
            easing = V.TIMING_ALIASES[mode]
            ctx.hint("legacy-easing", st.line, mode_tok.column,
                     f"`{mode}` is a v0.1 easing name; it means `{easing}`",
                     f"write `{easing}`")
        else:
            easing = "flow"
            bad_headers.append(st.line)
            ctx.err("unknown-timing-mode", st.line, mode_tok.column,
                    f'unknown timing mode "{mode}"; expected one of '
                    f'{", ".join(V.TIMING_MODES)}',
                    did_you_mean(mode, V.TIMING_MODES + tuple(V.TIMING_ALIASES)))
        phase_name = unquote(name_tok)
        targets, extras = read_children(ctx, children, phase_name, carried, pose_block=False)
        phases.append(Phase(
            name=phase_name, duration_sec=seconds, easing=easing, targets=targets,
            line=st.line, **extras,
        ))

    if len(bad_headers) == len(steps):
        # as in the reference, a step whose header cannot be read does not count
        msg = "steps: a Posecode document requires at least one step"
        hint = 'add e.g. `  step "Lift" 1s flow:` with indented joint targets'
        failed = sorted(bad_headers + dropped_steps)
        if failed:
            where = ", ".join(map(str, failed))
            msg += f" (the step header on line {where} could not be read)"
            hint = f"fix the step header on line {where}"
        ctx.err("no-steps", 1, 1, msg, hint)
    return phases
