"""Contact statements (spec §1 "Contact mechanisms", §5): ``ground-lock``, ``reach``, ``pin``
and ``grip``, and the rule that ground-lock, pin and grip are root-solving families of which a
step uses one (:func:`check_families`).

Each rule checks its effector and target against the closed vocabularies, the capability of the
mechanism (a pin needs a fixed anchor, a grip a bar or rail, a reach may target a body
landmark) and the declared props, and returns the resolved contacts (empty after an error).
"""

from __future__ import annotations

import difflib

from lark import Token

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.context import Context, did_you_mean
from posecode_ssg.language.ir import Contact
from posecode_ssg.language.lexer import Statement


def read_ground_lock(ctx: Context, st: Statement) -> list[str] | None:
    """The contact names of a ``ground-lock:`` line (``hands``, ``feet``, ``back``, ``foot_left``
    …; ``left foot`` and the like normalise to the side-specific name, ``and`` and commas are
    skipped), or None after an error."""
    words = [t for t in st.tokens if t.type == "WORD"]
    if not words:
        ctx.err("empty-ground-lock", st.line, st.col,
                "`ground-lock` requires at least one contact",
                "contacts: " + ", ".join(V.GROUND_LOCK_NAMES))
        return None
    names: list[str] = []
    ok = True
    i = 0
    while i < len(words):
        tok = words[i]
        w = str(tok)
        if w == "and":
            i += 1
            continue
        if w in V.SIDES and i + 1 < len(words):
            pair = f"{w} {words[i + 1]}"
            if pair in V.GROUND_LOCK_READABLE:
                names.append(V.GROUND_LOCK_READABLE[pair])
                i += 2
                continue
            w = pair
            i += 1
        if w in V.GROUND_LOCK_EXPANSION or w in V.GROUND_LOCK_SINGLES:
            names.append(w)
        else:
            ok = False
            ctx.err("unknown-ground-lock-effector", st.line, tok.column,
                    f'unknown ground-lock effector: "{w}"; expected one of '
                    f'{", ".join(V.GROUND_LOCK_NAMES)}',
                    did_you_mean(w, V.GROUND_LOCK_NAMES)
                    or "ground-lock takes floor contacts only (hands, forearms, feet, back "
                       "or one side such as foot_left); use `pin:` or `reach:` for others")
        i += 1
    if ok and not names:
        ctx.err("empty-ground-lock", st.line, st.col,
                "`ground-lock` requires at least one contact",
                "contacts: " + ", ".join(V.GROUND_LOCK_NAMES))
        return None
    return names if ok else None


def _anchor_prop_error(ctx: Context, code_prefix: str, st: Statement, tok: Token, anchor: str,
                       what: str) -> bool:
    """Report an anchor whose prop is not declared; True when it is fine."""
    prop = V.ANCHOR_PROP[anchor]
    if prop in ctx.props:
        return True
    # a misspelt declaration of this prop is the thing to fix, not a missing one
    typo = next((line for line, word in ctx.unknown_props
                 if difflib.get_close_matches(word, [prop], n=1, cutoff=0.6)), None)
    ctx.err(f"{code_prefix}-undeclared-prop", st.line, tok.column,
            f'{what} "{anchor}" requires declared prop "{prop}"',
            f"fix the prop on line {typo}: `prop {prop}`" if typo is not None
            else f"add `prop {prop}` beneath the header")
    return False


def read_reach(ctx: Context, st: Statement) -> list[Contact]:
    """The contacts of ``reach: <effector> <target>``, one per effector bone (a group expands);
    the target is ``floor``, a body landmark other than the effector's own joint, or an anchor of
    a declared prop."""
    eff_tok, tgt_tok = st.tokens
    eff, tgt = str(eff_tok), str(tgt_tok)
    ok = True
    if eff == "pelvis":
        ctx.err("reach-pelvis", st.line, eff_tok.column,
                'reach effector "pelvis" is unsupported; use `pin: pelvis <anchor>`',
                "write `pin: pelvis floor` to move the body")
        ok = False
        members: tuple[str, ...] = ()
    elif eff in V.EFFECTOR_GROUPS or eff in V.EFFECTOR_BONE:
        members = V.expand_effector(eff)
    else:
        names = tuple(V.EFFECTOR_GROUPS) + tuple(e for e in V.EFFECTOR_BONE if e != "pelvis")
        ctx.err("unknown-reach-effector", st.line, eff_tok.column,
                f'unknown reach effector: "{eff}"',
                did_you_mean(eff, names) or "effectors: " + ", ".join(names))
        ok = False
        members = ()
    if tgt == V.FLOOR:
        pass
    elif tgt in V.REACH_LANDMARKS:
        for m in members:
            if V.EFFECTOR_BONE[m] == tgt:
                ctx.err("reach-own-joint", st.line, tgt_tok.column,
                        f'reach effector "{eff}" cannot target its own joint "{tgt}"',
                        "reach for floor, a prop anchor or another body landmark")
                ok = False
                break
    elif tgt in V.ANCHOR_PROP:
        ok = _anchor_prop_error(ctx, "reach", st, tgt_tok, tgt, "reach target") and ok
    else:
        cands = (V.FLOOR,) + V.REACH_LANDMARKS + V.ALL_ANCHORS
        hint = did_you_mean(tgt, cands)
        if tgt in V.EFFECTOR_BONE:
            hint = f"target the bone `{V.EFFECTOR_BONE[tgt]}`"
        ctx.err("unknown-reach-target", st.line, tgt_tok.column,
                f'unknown reach target: "{tgt}"',
                hint or "targets: floor, a prop anchor (seat, wall, bar, box, bars) or a "
                        "body landmark bone such as ankle_left")
        ok = False
    return [Contact(m, tgt, st.line) for m in members] if ok else []


def read_pin(ctx: Context, st: Statement) -> list[Contact]:
    """The contacts of ``pin: <effector> <anchor>``; the anchor is fixed: ``floor`` or an anchor
    of a declared prop, never a body landmark."""
    eff_tok, anc_tok = st.tokens
    eff, anc = str(eff_tok), str(anc_tok)
    ok = True
    if eff in V.EFFECTOR_GROUPS or eff in V.EFFECTOR_BONE:
        members = V.expand_effector(eff)
    else:
        names = tuple(V.EFFECTOR_GROUPS) + tuple(V.EFFECTOR_BONE)
        ctx.err("unknown-pin-effector", st.line, eff_tok.column,
                f'unknown pin effector: "{eff}"',
                did_you_mean(eff, names) or "effectors: " + ", ".join(names))
        ok = False
        members = ()
    if anc == V.FLOOR:
        pass
    elif anc in V.ANCHOR_PROP:
        ok = _anchor_prop_error(ctx, "pin", st, anc_tok, anc, "pin anchor") and ok
    elif anc in V.REACH_LANDMARKS or anc in V.EFFECTOR_BONE:
        ctx.err("pin-body-anchor", st.line, anc_tok.column,
                f'pin anchor "{anc}" is body-relative; a pin needs a fixed anchor (floor or '
                "a declared prop anchor)",
                f"use `reach: {eff} {anc}` to bring the limb to a body landmark")
        ok = False
    else:
        ctx.err("unknown-pin-anchor", st.line, anc_tok.column,
                f'unknown pin anchor: "{anc}"',
                did_you_mean(anc, (V.FLOOR,) + V.ALL_ANCHORS)
                or "anchors: floor, " + ", ".join(V.ALL_ANCHORS))
        ok = False
    return [Contact(m, anc, st.line) for m in members] if ok else []


def read_grip(ctx: Context, st: Statement) -> list[Contact]:
    """The contacts of ``grip: <hand effector> <anchor>`` on a declared bar or dip-bars prop:
    ``hands`` takes the bare anchor (``bar``, ``bars``) and expands it to ``<anchor>_left`` and
    ``<anchor>_right``; a sided anchor needs the matching single hand."""
    eff_tok, anc_tok = st.tokens
    eff, anc = str(eff_tok), str(anc_tok)
    ok = True
    if eff in V.GRIP_EFFECTORS:
        members = V.expand_effector(eff)
    elif eff in V.EFFECTOR_GROUPS or eff in V.EFFECTOR_BONE:
        ctx.err("grip-non-hand", st.line, eff_tok.column,
                f'grip effector "{eff}" must resolve to a hand',
                "grip effectors: " + ", ".join(V.GRIP_EFFECTORS))
        ok, members = False, ()
    else:
        ctx.err("unknown-grip-effector", st.line, eff_tok.column,
                f'unknown grip effector: "{eff}"',
                did_you_mean(eff, V.GRIP_EFFECTORS)
                or "grip effectors: " + ", ".join(V.GRIP_EFFECTORS))
        ok, members = False, ()
    prop = V.ANCHOR_PROP.get(anc)
    if prop not in V.GRIP_PROPS:
        grip_anchors = [a for p in V.GRIP_PROPS for a in V.PROP_ANCHORS[p]]
        ctx.err("grip-bad-anchor", st.line, anc_tok.column,
                f'grip anchor "{anc}" must be an overhead-bar or dip-rail anchor',
                did_you_mean(anc, grip_anchors) if anc not in V.ANCHOR_PROP and anc != "floor"
                else "grip anchors: " + ", ".join(grip_anchors)
                + "; use `pin:` or `reach:` for other contacts")
        return []
    if not _anchor_prop_error(ctx, "grip", st, anc_tok, anc, "grip anchor"):
        ok = False
    bare = anc in V.GRIP_BARE_ANCHORS
    if eff == "hands" and not bare:
        base = anc.rsplit("_", 1)[0]
        ctx.err("grip-grouped-sided-anchor", st.line, anc_tok.column,
                f'grouped grip effector "{eff}" requires a bare anchor such as "{base}"',
                f"write `grip: hands {base}` (it expands to {base}_left and {base}_right)")
        return []
    if not ok:
        return []
    out: list[Contact] = []
    for m in members:
        side = V.bone_side(m)
        if bare:
            out.append(Contact(m, f"{anc}_{side}", st.line))
        elif not anc.endswith("_" + side):
            ctx.err("grip-anchor-side-mismatch", st.line, anc_tok.column,
                    f'grip anchor "{anc}" does not match effector "{m}"',
                    f"use `{anc.rsplit('_', 1)[0]}_{side}` or the bare anchor")
            return []
        else:
            out.append(Contact(m, anc, st.line))
    return out


def check_families(ctx: Context, ground_lock_line: int | None, pin_lines: list[Statement],
                   grip_lines: list[Statement]) -> None:
    """Report the combinations spec §1 forbids in one step: more than one ``pin``, and
    ``ground-lock``, ``pin`` and ``grip`` together (one root-support family per step, further
    contacts as ``reach``)."""
    for extra in pin_lines[1:]:
        ctx.err("multiple-pins", extra.line, extra.col,
                "a step may declare only one primary `pin`; use a grouped effector or "
                "per-limb `reach` constraints for additional contacts",
                f"keep the pin on line {pin_lines[0].line} and turn this one into `reach:`")
    if ground_lock_line is not None:
        for st in pin_lines:
            ctx.err("pin-with-ground-lock", st.line, st.col,
                    "`pin` cannot be combined with `ground-lock` in one step; use one "
                    "root-support family per step",
                    f"drop the ground-lock on line {ground_lock_line} or express this "
                    "contact with `reach:`")
        for st in grip_lines:
            ctx.err("grip-with-ground-lock", st.line, st.col,
                    "`grip` cannot be combined with `ground-lock` in one step; use one "
                    "root-support family per step",
                    f"drop the ground-lock on line {ground_lock_line}")
    if pin_lines:
        for st in grip_lines:
            ctx.err("grip-with-pin", st.line, st.col,
                    "`grip` cannot be combined with `pin` in one step; use the grip as the "
                    "primary support plus `reach` for additional contacts",
                    f"turn the pin on line {pin_lines[0].line} into `reach:`")
