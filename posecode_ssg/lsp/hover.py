"""Hover (issue 26): a joint's bones and its range of motion per action, an action's axis and
meaning, the limit a clamped angle hit, a contact's semantics (spec §5 in a line), a step's
duration and its solved residuals, and one line for every other vocabulary word.

:func:`hover` works on one Posecode unit (its lines, its raw parse, and the compiled program when
the kinematic solve has run) and returns Markdown with the hovered token's columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.lexer import TOP_LEVEL

from . import words as W
from .context import Tok, head_of, step_blocks, tokens


@dataclass(frozen=True)
class HoverText:
    """Markdown ``text`` about the token at columns ``start``–``end`` (0-based, code points)."""

    text: str
    start: int
    end: int


def token_at(line: str, col: int) -> Tok | None:
    """The token under a cursor (a cursor just after a word counts as on it)."""
    toks = tokens(line)
    for t in toks:
        if t.start <= col < t.end and t.kind != "punct":
            return t
    for t in toks:
        if t.end == col and t.kind in ("word", "string"):
            return t
    return None


def _cm(m: float) -> str:
    return f"{m * 100:.1f} cm"


def step_text(lines: list[str], header: int, result, program: Any, solved: bool) -> str:
    """The hover of a step header (0-based line ``header``): duration, timing, place in the loop
    and, once solved, the residual of every contact at the phase's end."""
    toks = [t for t in tokens(lines[header]) if t.kind in ("word", "string")]
    name = toks[1].text.strip('"') if len(toks) > 1 and toks[1].kind == "string" else ""
    ir = getattr(result, "ir", None)
    phases = list(ir.phases) if ir is not None else []
    index = next((i for i, p in enumerate(phases) if p.line == header + 1), None)
    out = [f'**step "{name}"**']
    if index is not None:
        ph = phases[index]
        t0 = sum(p.duration_sec for p in phases[:index])
        total = sum(p.duration_sec for p in phases)
        out[0] += (f": {ph.duration_sec:g} s, {ph.easing} ({W.TIMING_MODES.get(ph.easing, '')}); "
                   f"step {index + 1} of {len(phases)}, {t0:g}–{t0 + ph.duration_sec:g} s of the {total:g} s of steps")
    else:
        dur = next((t.text for t in toks[2:] if t.text.endswith("s") and t.text[:-1].replace(".", "", 1).isdigit()), None)
        mode = toks[3].text if len(toks) > 3 else None
        if dur:
            out[0] += f": {dur[:-1]} s" + (f", {mode}" if mode else "")
        out.append("")
        out.append("Not solved: the document has errors.")
        return "\n".join(out)
    out.append("")
    if program is None:
        out.append("Solved residuals: " + ("none (the solve failed)" if solved else "solving…"))
        return "\n".join(out)
    from posecode_ssg.motion.solve import solve_keyframes

    sol = solve_keyframes(program)
    kf_index = next((i for i, kf in enumerate(program.keyframes) if kf.line == header + 1), index)
    if kf_index >= len(sol.phases):
        return "\n".join(out)
    ph, kf = sol.phases[kf_index], program.keyframes[kf_index]
    rows = []
    for cr in ph.contacts:
        rows.append(f"- {cr.kind} {cr.contact.effector} → {cr.contact.target}: {_cm(cr.residual)}")
    lifted = dict(ph.lifted_locks)
    for contact in kf.ground_lock:
        h = lifted.get(contact)
        rows.append(f"- ground-lock {contact}: " + ("planted" if h is None else f"{_cm(h)} above the floor when the phase begins"))
    for foot, d in ph.drift:
        rows.append(f"- {foot} drifts {_cm(d)}")
    for rep in ph.feet:
        rows.append(f"- foot_{rep.side} cannot stay flat: needs {abs(rep.needed):.0f}°, the ankle allows {abs(rep.limit):.0f}°")
    out.append("Solved residuals at the phase's end:" if rows else "Solved: no contacts in this step.")
    out += rows
    return "\n".join(out)


def _clamp_text(result, line_no: int, col1: int) -> str | None:
    rows = []
    warnings = list(getattr(result, "warnings", []) or [])
    for w in warnings:
        if w.code == "rom-clamp" and w.line == line_no and w.column == col1:
            e = w.extra
            lim = e.get("limit", {})
            rows.append(f"- {e.get('joint')}: `{e.get('action')} {W.degrees(float(e.get('requested', 0)))[:-1]}` "
                        f"clamped to {W.degrees(float(e.get('clamped', 0)))} (range {W.degrees(float(lim.get('min', 0)))}"
                        f"–{W.degrees(float(lim.get('max', 0)))})")
    if not rows:
        return None
    return "**Clamped to the range of motion** (spec §4):\n" + "\n".join(rows)


def hover(lines: list[str], index: int, col: int, result=None, program: Any = None,
          solved: bool = False) -> HoverText | None:
    """The hover at 0-based line ``index``, code-point column ``col`` of a unit; ``result`` is
    the unit's raw :class:`~posecode_ssg.language.parser.ParseResult`, ``program`` its compiled
    program (None before the solve, or when ``solved`` and it failed)."""
    if not 0 <= index < len(lines):
        return None
    line = lines[index]
    col = max(0, min(col, len(line)))
    tok = token_at(line, col)
    if tok is None or tok.kind == "comment":
        return None
    toks = [t for t in tokens(line) if t.kind != "comment"]
    pos = toks.index(tok) if tok in toks else 0
    head = head_of(line)
    word = tok.text
    every = W.every_word()

    def done(text: str | None) -> HoverText | None:
        return HoverText(text, tok.start, tok.end) if text else None

    if head == "posecode" and pos <= 2:
        if tok.kind == "string":
            ir = getattr(result, "ir", None)
            if ir is None:
                return done(f"**{word}**: a movement ({len(step_blocks(lines))} steps)")
            total = sum(p.duration_sec for p in ir.phases)
            return done(f"**{word}**: {ir.kind}, {len(ir.phases)} step{'s' if len(ir.phases) != 1 else ''}, "
                        f"{total:g} s a repetition, repeat {ir.repeat}; start pose {ir.start_pose}")
        return done(f"**{word}**: " + (W.KINDS.get(word) or W.DIRECTIVES.get(word, "")) if word in W.KINDS or word in W.DIRECTIVES else None)

    if head == "step":
        if pos == 3 and word in W.TIMING_MODES:
            return done(f"**{word}** (timing mode): {W.TIMING_MODES[word]}")
        if pos == 3 and word in V.TIMING_ALIASES:
            return done(f"**{word}**: {every[word]}")
        if pos == 3 and tok.kind == "word":
            return done(f"**{word}** is not a timing mode; the modes: "
                        + "; ".join(f"`{m}` {d}" for m, d in W.TIMING_MODES.items()))
        if pos <= 2 or tok.kind == "string":
            return done(step_text(lines, index, result, program, solved))
        return None

    if head in W.CONTACTS:
        if pos == 0:
            return done(f"**{head}** (spec §5): {W.CONTACTS[head]}")
        if head == "ground-lock" and word in W.GROUND_LOCK:
            return done(f"**{word}** (ground-lock contact): {W.GROUND_LOCK[word]}")
        if pos == 2 and (word in V.EFFECTOR_GROUPS or word in V.EFFECTOR_BONE):
            return done(f"**{word}** ({head} effector): {W.effector_doc(word)}")
        if pos >= 3:
            text = W.anchor_doc(word)
            return done(f"**{word}** ({head} target): {text}" if text else None)
        return None

    if head in TOP_LEVEL or head in ("turn", "travel", "cue"):
        if head == "cue" and tok.kind == "string":
            return done(f"**cue** {word}: {W.DIRECTIVES['cue']}")
        if pos == 0:
            return done(f"**{head}**: {W.DIRECTIVES[head]}")
        if word in every and tok.kind == "word":
            return done(f"**{word}**: {every[word]}")
        return None

    # a joint line: <joint>: <action> <degrees> | <joint>: hold neutral
    if len(toks) >= 2 and toks[1].text == ":" and toks[0].kind == "word":
        joint = toks[0].text
        if pos == 0:
            if joint not in V.JOINT_GROUPS:
                return None
            return done(f"**{joint}**: {W.joint_doc(joint)}\n\nRange of motion (degrees): {W.rom_line(joint)}")
        if pos == 2 and word in W.ACTIONS:
            return done(f"**{word}**: {W.action_doc(word, joint if joint in V.JOINT_GROUPS else None)}")
        if pos == 3 and word == "neutral":
            return done(f"**hold neutral**: {W.ACTIONS['hold'][1]}")
        if pos == 3 and tok.kind == "word":
            clamp = _clamp_text(result, index + 1, tok.start + 1)
            if clamp:
                return done(clamp)
            action = toks[2].text if len(toks) > 2 else ""
            if joint in V.JOINT_GROUPS and action in V.ACTIONS:
                limits = sorted({W.action_limit(b, action) for b in W.bones_of(joint)} - {None})
                if limits:
                    return done(f"**{word}°** {action} on {joint}: within its range "
                                f"(0–{'/'.join(W.degrees(v) for v in limits)})")
        return None
    if tok.kind == "word" and word in every:
        return done(f"**{word}**: {every[word]}")
    return None
