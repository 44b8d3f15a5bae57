"""Solver-backed fix proposals (issue 26 item 3): where a reach or pin misses its target
(``kinematic-reach-short``, ``kinematic-pin-unreachable``), a planted foot cannot stay flat
(``kinematic-foot-flat``) or an authored angle is clamped by the composed pelvis-hinge + hip
limit of spec §4 (a ``rom-clamp`` whose angle is inside its own joint's range), propose authored
angles that would work — "`knees: flex 70` with `hips: flex 85` puts foot_left on the box" —
found by a bounded search of the keyframe solve inside the range-of-motion boxes, and re-checked
clean. ``posecode-ssg check`` appends the proposal to the diagnostic's hint
(:func:`posecode_ssg.checking.add_kinematics` with ``fixes=True``) and the language server offers
it as a code action. The site build never calls this module (it is not imported by
``site/figures.py``' compile path): it costs up to ``max_solves`` keyframe solves per document.

**What is searched** (the *knobs*). The joints a diagnostic depends on, each one Euler channel
the author writes with one action pair (flex/extend, dorsiflex/plantarflex, abduct/adduct,
hinge), in the phase the diagnostic belongs to:

- a reach or pin of effector E: E's limb (hip/knee/ankle for a foot, hip/knee for a knee,
  shoulder/elbow for a hand, fist or elbow, plus the spine for an arm), the pelvis hinge, and the
  limbs that hold the body in that phase (its pins, ground-locks and grips other than E). A
  reach's own limb is already solved by CCD (spec §5: "reach moves the limb"), so what a reach
  can still gain is in the chain from the support to E — a step-up's reach of foot_left to the
  floor from a box is decided by the bend of the right (pinned) leg;
- a foot that cannot stay flat: that leg's hip, knee and ankle and the pelvis; for a sole
  rolled onto its edge (the leg leaning sideways) also both hips' abduction;
- a composed clamp: the other side of the coupling (a clamped hinge: the hips, written in the
  step or carried into it; a clamped hip: the pelvis hinge), the clamped line kept as written —
  the point is that the author's angle stands.

A knob whose channel the step writes edits that line (the last one that writes it: a later line
wins); otherwise a line is added to the step after its last joint line (a group name such as
``hips`` when both sides are added with the same value).

**How** (bounded, deterministic). Each candidate is the edited document, parsed, compiled and
solved (:func:`~posecode_ssg.motion.diagnostics.kinematic_diagnostics`: one keyframe solve, the
unit of ``max_solves``; the original document's solve counts too; a lying or seated start pose's
compile settles with re-solves of its own inside that unit). Values move on a 5° lattice from the
author's value, inside the joint's range of motion (rom.py ``LIMITS``). A candidate's score is the
diagnostic's own measure (reach/pin residual in cm, the ankle angle missing or the sideways lean
past 5° in degrees, the clamped-off degrees) plus a large penalty per *new* error or warning (one
absent from the original, lines mapped through the added lines; hints do not count). The search is
Hooke and Jeeves' pattern search ("Direct search solution of numerical and statistical problems",
J. ACM 8(2), 1961) restricted to coordinate moves: probe every knob ±5° from the current point
(from the author's values first, so a clean single 5° change wins), take the best improving probe,
walk that knob on while the score improves (its stride doubles, 10°, 20°, 40° …, after a gain, back
to 5° after a loss), probe again. A probe that made a new problem (a wall) is pushed out to 10°,
15°, 20° while none improves (:data:`PROBE_RINGS`): hips written under a clamped hinge take the
clamp themselves first. A move improves only by :data:`GAIN` of what is left (or :data:`EPS`): a
search creeping by millimetres stops. It ends at the first *clean* candidate (the diagnostic gone,
no new error or warning), where no probe improves, or with its budget. A clean proposal is then
*shrunk* towards the author's values (each changed knob, the largest change first, reset to the
author's value if that stays clean, else stepped back 5° at a time while clean): a locally smallest
change. Diagnostics are searched in reading order, each with an equal share of what is left of the
budget; candidates are cached by their text, so two feet answered by one edit cost one solve. A
fix's edits are exactly the candidate that was solved and found clean (the re-check). Why not a
grid: 3–8 joints at 5° steps is far beyond 200 solves, and the measures are mostly monotone in each
joint (a deeper bend of the pinned leg lowers the body), where coordinate moves do well; a fix that
needs two joints to move together against the score is missed (no fix is proposed, never a wrong
one).

Cost (measured on a shared 2-CPU machine, load 3–7): a candidate takes 3–20 ms (up to ~30 ms
under load). The tests' step-up, seated fold and deep squat find their fixes in 5–16 solves,
0.05–0.3 s; the conformance examples with fixes in 12–37 solves, 0.06–0.6 s; standing hands to
the floor (two 78 cm reaches, a deep fold) in 135 solves, 1.6 s; a search that finds nothing
stops after 20–80 solves (grapevine's four rolled feet, caused by travel, not an angle: 82
solves, 0.5–1.9 s). The bound is ``max_solves`` × one solve (200 × 30 ms = 6 s at worst).
Never raises: an internal failure returns ``[]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language import parse
from posecode_ssg.language.context import Context
from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.lexer import read_statements, split_lines
from posecode_ssg.language.rom import action_limit, clamp_magnitude

from .compile import compile_ir
from .diagnostics import kinematic_diagnostics

__all__ = ["TextEdit", "Fix", "propose_fixes", "fix_pairs", "apply_edits", "hint_with_fixes",
           "FIX_CODES", "STEP_DEG"]

#: the diagnostics a fix may answer
FIX_CODES = ("kinematic-reach-short", "kinematic-pin-unreachable", "kinematic-foot-flat", "rom-clamp")
#: the lattice step of a proposed angle (degrees)
STEP_DEG = 5.0
#: score penalty per new error or warning (far above any residual in cm or degrees)
NEW_PROBLEM = 1000.0
#: how many steps out a probe reaches (5°, 10°, … 20°) past a *wall* (a nearer probe that made a
#: new problem) while no probe improves: editing the hips under a clamped hinge first moves the
#: clamp onto the hips (two new warnings) before, 5° further, both stand
PROBE_RINGS = 4
#: least score gain that counts as an improvement: EPS (cm or degrees), or GAIN of what is left
#: (a joint that matters moves a residual by centimetres per 5°; a search that creeps by
#: millimetres cannot finish within the budget and stops early instead)
EPS = 0.05
GAIN = 0.01
#: the sole tilt the rolled-foot report allows (degrees; diagnostics ``SOLE_TILT_LIMIT``)
SOLE_TILT = 5.0

_LIMB = {"foot": ("hip", "knee", "ankle"), "knee": ("hip", "knee"), "hand": ("shoulder", "elbow"),
         "fist": ("shoulder", "elbow"), "elbow": ("shoulder", "elbow")}
_OPPOSITE = {"flex": "extend", "extend": "flex", "dorsiflex": "plantarflex",
             "plantarflex": "dorsiflex", "abduct": "adduct", "adduct": "abduct", "hinge": None}
_PROP_ANCHORS = ("box", "seat", "wall", "bar", "bars")


@dataclass
class TextEdit:
    """Replace columns [start, end) (0-based code points) of 1-based document ``line`` with
    ``new_text``; an insertion has start == end; a new line is an insertion at column 0 of the
    next line whose text ends in "\\n"."""

    line: int
    start: int
    end: int
    new_text: str


@dataclass
class Fix:
    """A clean proposal for the diagnostic ``code`` at document ``line``: ``message`` says it in
    words, ``edits`` make it."""

    code: str
    line: int
    message: str
    edits: list[TextEdit] = field(default_factory=list)


def _apply(source: str, edits: list[TextEdit]) -> tuple[str, list[int | None]]:
    """``source`` with ``edits`` made, and per line of the result (0-based index) the original
    1-based line it comes from (None: an added line). Edits of one line must not overlap."""
    lines = source.split("\n")
    by_line: dict[int, list[TextEdit]] = {}
    for e in edits:
        by_line.setdefault(e.line, []).append(e)
    out: list[str] = []
    origin: list[int | None] = []
    for n, text in enumerate(lines, 1):
        for e in sorted(by_line.get(n, ()), key=lambda e: (e.start, e.end), reverse=True):
            text = text[:e.start] + e.new_text + text[e.end:]
        parts = text.split("\n")
        out += parts
        origin += [None] * (len(parts) - 1) + [n]
    if len(lines) + 1 in by_line:   # insertions after the last line
        for e in by_line[len(lines) + 1]:
            parts = e.new_text.split("\n")
            out[-1] += parts[0]
            out += parts[1:]
            origin += [None] * (len(parts) - 1)
    return "\n".join(out), origin


def apply_edits(source: str, edits: list[TextEdit]) -> str:
    """``source`` with ``edits`` made (as a code action makes them)."""
    return _apply(source, edits)[0]


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".") if abs(v - round(v)) > 1e-9 else str(int(round(v)))


@dataclass
class _Knob:
    """One searched channel: the joint word written (``knees``, ``hip_right``), its bones, the
    action whose magnitude is the value (``ref``; a negative value is ``opp``), the author's value
    ``v0`` and the range [lo, hi]; ``st`` the step line that writes it (None: a line to add)."""

    joint: str
    bones: tuple[str, ...]
    ref: str
    opp: str | None
    v0: float
    lo: float
    hi: float
    st: object = None

    def words(self, v: float) -> tuple[str, float]:
        action = self.ref if v >= 0 or self.opp is None else self.opp
        return action, abs(v)

    def text(self, v: float) -> str:
        action, mag = self.words(v)
        return f"{self.joint}: {action} {_fmt(mag)}"


def _range(bones, ref, opp) -> tuple[float, float]:
    hi = min(action_limit(b, ref) or 0.0 for b in bones)
    lo = -min(action_limit(b, opp) or 0.0 for b in bones) if opp else 0.0
    return lo, hi


def _step_blocks(stmts) -> dict[int, tuple[object, list]]:
    """step header line -> (header statement, its child statements)."""
    out = {}
    for i, st in enumerate(stmts):
        if st.rule == "step":
            kids = []
            for c in stmts[i + 1:]:
                if c.indent <= st.indent:
                    break
                kids.append(c)
            out[st.line] = (st, kids)
    return out


def _writer(kids, bone: str, axis: str):
    """The last child line of a step that writes ``bone``'s ``axis`` channel: (statement,
    editable) — a ``hold neutral`` line is not (a line is added after it instead)."""
    found = None
    for st in kids:
        if st.rule not in ("joint_target", "hold_target") or len(st.tokens) < 2:
            continue
        if bone not in V.JOINT_GROUPS.get(str(st.tokens[0]), ()):
            continue
        if st.rule == "hold_target":
            found = (st, False)
        elif str(st.tokens[1]) in V.ACTIONS and V.ACTIONS[str(st.tokens[1])].axis == axis:
            found = (st, str(st.tokens[1]) in _OPPOSITE and len(st.tokens) >= 3)
    return found


def _default_action(bone: str, axis: str) -> str:
    return "abduct" if axis == "z" else "hinge" if bone == "pelvis" else \
        "dorsiflex" if bone.startswith("ankle") else "flex"


def _knobs(channels, kids, kf, exclude_line: int | None) -> list[_Knob]:
    """The knobs of ``channels`` ((bone, axis) in order) in a step (``kids``: its lines; ``kf``:
    its keyframe, for carried values)."""
    knobs: list[_Knob] = []
    seen_lines: set[int] = set()
    new: list[_Knob] = []
    for bone, axis in channels:
        w = _writer(kids, bone, axis)
        if w is not None and w[1]:
            st = w[0]
            if st.line in seen_lines or st.line == exclude_line:
                continue
            seen_lines.add(st.line)
            joint, ref = str(st.tokens[0]), str(st.tokens[1])
            bones = V.JOINT_GROUPS[joint]
            lo, hi = _range(bones, ref, _OPPOSITE[ref])
            v0 = min(max(float(str(st.tokens[2])), lo), hi)
            knobs.append(_Knob(joint, bones, ref, _OPPOSITE[ref], v0, lo, hi, st))
            continue
        if w is not None and w[0].line == exclude_line:
            continue
        ref = _default_action(bone, axis)
        carried = float(kf.semantic[bone]["xyz".index(axis)])
        v0 = V.action_sign(ref, bone)[1] * carried   # sign² = 1: the magnitude along ref
        if v0 < 0 and _OPPOSITE[ref]:
            ref, v0 = _OPPOSITE[ref], -v0
        lo, hi = _range((bone,), ref, _OPPOSITE[ref])
        k = _Knob(bone, (bone,), ref, _OPPOSITE[ref], min(max(round(v0, 6), lo), hi), lo, hi, None)
        twin = next((o for o in new if o.ref == k.ref and abs(o.v0 - k.v0) < 1e-6
                     and o.bones[0].rsplit("_", 1)[0] == bone.rsplit("_", 1)[0] and "_" in bone
                     and o.bones[0] != bone), None)
        if twin is not None:   # both sides added with one value: the group name
            twin.joint, twin.bones = bone.rsplit("_", 1)[0] + "s", (twin.bones[0], bone)
            continue
        if not any(bone in o.bones for o in new):
            new.append(k)
    return knobs + new


def _edits(knobs: list[_Knob], values, header, kids, lines: list[str]) -> list[TextEdit]:
    out: list[TextEdit] = []
    added = []
    for k, v in zip(knobs, values):
        if abs(v - k.v0) < 1e-9:
            continue
        if k.st is None:
            added.append(k.text(v))
            continue
        act_tok, num_tok = k.st.tokens[1], k.st.tokens[2]
        action, mag = k.words(v)
        if action == str(act_tok):
            out.append(TextEdit(k.st.line, num_tok.column - 1, num_tok.end_column - 1, _fmt(mag)))
        else:
            out.append(TextEdit(k.st.line, act_tok.column - 1, num_tok.end_column - 1, f"{action} {_fmt(mag)}"))
    if added:
        joints = [c for c in kids if c.rule in ("joint_target", "hold_target")]
        after = joints[-1].line if joints else header.line
        raw = lines[kids[0].line - 1] if kids else lines[header.line - 1]
        indent = raw[:len(raw) - len(raw.lstrip(" \t"))] + ("" if kids else "  ")
        eol = "\r\n" if lines[after - 1].endswith("\r") else "\n"   # the document's line ends
        body = "".join(f"{indent}{t}{eol}" for t in added)
        if after < len(lines):
            out.append(TextEdit(after + 1, 0, 0, body))
        else:   # the step's last joint line ends the document (no line after it): at its end
            out.append(TextEdit(after, len(lines[after - 1]), len(lines[after - 1]), eol + body[:-len(eol)]))
    return sorted(out, key=lambda e: (e.line, e.start))


def _effector(d) -> str | None:
    """The effector a reach/pin/grip diagnostic names ("foot_left cannot reach …", "pin
    foot_right box is out of reach …"): one line may hold several (``reach: hands floor``)."""
    words = d.message.split()
    if d.code == "kinematic-reach-short":
        return words[0] if words else None
    if d.code.startswith("kinematic-") and d.code.endswith("-unreachable"):
        return words[1] if len(words) > 1 else None
    return None


def _subject(d) -> tuple:
    """What tells apart two diagnostics of one code on one line: their text fields (foot,
    joint, phase …) and the effector of a contact."""
    return tuple(sorted([(k, v) for k, v in d.extra.items() if isinstance(v, str)]
                        + ([("effector", _effector(d))] if _effector(d) else [])))


def _measure(d) -> float:
    """The size of a diagnostic the search drives to zero (cm or degrees)."""
    x = d.extra
    if d.code == "rom-clamp":
        return abs(float(x.get("requested", 0)) - float(x.get("clamped", 0)))
    if d.code == "kinematic-foot-flat":
        if "lean" in x:
            return max(abs(float(x["lean"])) - SOLE_TILT, 0.0)
        return max(abs(float(x["needed"])) - abs(float(x["limit"])), 0.0)
    return 100.0 * float(x.get("residual", 0.0))


class _Budget(Exception):
    pass


class _Search:
    """The evaluations of one document: the original's problems and a text-keyed cache of
    candidates, within ``max_solves`` solves."""

    def __init__(self, source: str, max_solves: int):
        self.source, self.left, self.cache = source, max_solves, {}
        self.base, self.program = None, None

    def evaluate(self, edits: list[TextEdit]):
        """(parsed, {(code, original line, subject): diagnostic}) of the document with ``edits``
        (errors and warnings only; a diagnostic on an added line keys on ``None``). The first
        program compiled (the original's) is kept in ``program``."""
        text, origin = _apply(self.source, edits)
        if text in self.cache:
            return self.cache[text]
        if self.left <= 0:
            raise _Budget()
        self.left -= 1
        r = parse(text)
        if r.errors or r.ir is None:
            out = (False, {})
        else:
            program = compile_ir(r.ir)
            self.program = self.program or program
            found = list(r.warnings) + [d for d in kinematic_diagnostics(program) if d.severity != "hint"]
            probs = {}
            for d in found:
                line = origin[d.line - 1] if 1 <= d.line <= len(origin) else d.line
                probs.setdefault((d.code, line, _subject(d)), d)
            out = (True, probs)
        self.cache[text] = out
        return out

    def score(self, edits, key) -> tuple[bool, float]:
        """(clean, score) of a candidate for the diagnostic ``key``."""
        ok, probs = self.evaluate(edits)
        if not ok:
            return False, float("inf")
        new = sum(1 for k in probs if k not in self.base and k != key)
        target = probs.get(key)
        return (target is None and new == 0), (_measure(target) if target else 0.0) + NEW_PROBLEM * new


def _gain(score: float) -> float:
    return max(EPS, GAIN * (score % NEW_PROBLEM))


def _descend(search: _Search, knobs: list[_Knob], make, key):
    """Pattern search (module docstring) from the author's values; the clean values or None."""
    cur = tuple(k.v0 for k in knobs)
    _ok, cur_s = search.score(make(cur), key)
    found = None

    def moved(x, i, d):
        v = x[i] + d * STEP_DEG
        if v < knobs[i].lo - 1e-9 or v > knobs[i].hi + 1e-9:
            return None
        return x[:i] + (v,) + x[i + 1:]

    try:
        while found is None:
            best = None
            walled = [(i, d) for i in range(len(knobs)) for d in (1, -1)]
            for ring in range(1, PROBE_RINGS + 1):   # past a wall only while no probe improves
                blocked = []
                for i, d in walled:
                    x = moved(cur, i, d * ring)
                    if x is None:
                        continue
                    clean, s = search.score(make(x), key)
                    if clean:
                        found = x
                        break
                    if s < cur_s - _gain(cur_s) and (best is None or s < best[3]):
                        best = (i, d, x, s)
                    elif s >= NEW_PROBLEM > cur_s:
                        blocked.append((i, d))
                if found or best or not blocked:
                    break
                walled = blocked
            if found or best is None:
                break
            i, d, cur, cur_s = best
            stride = 2   # the walk doubles its stride while it gains, back to 5° when it does not
            while found is None:
                x = moved(cur, i, d * stride)
                clean, s = search.score(make(x), key) if x is not None else (False, float("inf"))
                if clean:
                    found = x
                elif s < cur_s - _gain(cur_s):
                    cur, cur_s, stride = x, s, stride * 2
                elif stride > 1:
                    stride = 1
                else:
                    break
    except _Budget:
        return None
    if found is None:
        return None
    try:   # shrink towards the author's values, the largest change first
        order = sorted(range(len(knobs)), key=lambda i: -abs(found[i] - knobs[i].v0))
        for i in order:
            if abs(found[i] - knobs[i].v0) < 1e-9:
                continue
            x = found[:i] + (knobs[i].v0,) + found[i + 1:]
            if search.score(make(x), key)[0]:
                found = x
                continue
            while True:
                step = STEP_DEG if found[i] < knobs[i].v0 else -STEP_DEG
                x = found[:i] + (found[i] + step,) + found[i + 1:]
                if abs(x[i] - knobs[i].v0) < 1e-9 or not search.score(make(x), key)[0]:
                    break
                found = x
    except _Budget:
        pass
    return found


def _limb(effector: str) -> tuple[str, ...]:
    kind, _, side = effector.rpartition("_")
    return tuple(f"{j}_{side}" for j in _LIMB.get(kind, ()))


def _channels(d, ir_phase, contact) -> list[tuple[str, str]]:
    """The (bone, axis) channels searched for diagnostic ``d`` (module docstring)."""
    if d.code == "rom-clamp":
        if d.extra.get("joint") == "pelvis":
            return [("hip_left", "x"), ("hip_right", "x")]
        return [("pelvis", "x")]
    if d.code == "kinematic-foot-flat":
        foot = str(d.extra.get("foot", ""))
        out = [(b, "x") for b in _limb(foot)] + [("pelvis", "x")]
        if "lean" in d.extra:
            side = foot.rpartition("_")[2]
            other = "left" if side == "right" else "right"
            out += [(f"hip_{side}", "z"), (f"hip_{other}", "z")]
        return out
    e = contact.effector
    out = [(b, "x") for b in _limb(e)]
    if e.split("_")[0] in ("hand", "fist", "elbow"):
        out.append(("spine", "x"))
    out.append(("pelvis", "x"))
    held = [c.effector for c in ir_phase.pins + ir_phase.grips] + list(V.expand_ground_lock(ir_phase.ground_lock))
    for s in held:
        if s != e:
            out += [(b, "x") for b in _limb(s)]
    return list(dict.fromkeys(out))


def _outcome(d, contact, knobs_fixed: str | None) -> str:
    if d.code == "rom-clamp":
        return f"lets {knobs_fixed} stand unclamped (the composed hip angle stays within 135°)"
    if d.code == "kinematic-foot-flat":
        return f"keeps {d.extra.get('foot')} flat"
    t = contact.target
    where = "the floor" if t == "floor" else f"the {t}" if t in _PROP_ANCHORS else t
    return f"puts {contact.effector} on {where}"


def _contact_at(ir_phase, d):
    for c in ir_phase.reaches + ir_phase.pins + ir_phase.grips:
        if c.line == d.line and c.effector == _effector(d):
            return c
    return None


def _wanted(d) -> bool:
    """Whether ``d`` is a diagnostic a fix answers (a ``rom-clamp`` only when composed: the
    requested angle is inside the joint's own range)."""
    if d.code not in FIX_CODES:
        return False
    if d.code == "rom-clamp":
        x = d.extra
        try:
            req = float(x["requested"])
            return clamp_magnitude(x["joint"], x["action"], req) == req and float(x["clamped"]) < req
        except (KeyError, TypeError, ValueError):
            return False
    return True


def fix_pairs(source: str, max_solves: int = 200) -> list[tuple[object, Fix]]:
    """:func:`propose_fixes` with the document diagnostic each fix answers:
    ``[(diagnostic, fix)]`` (the checker matches them to its own diagnostics)."""
    try:
        return _fix_pairs(source, max_solves)
    except Exception:   # never raises: an internal failure proposes nothing
        return []


def _fix_pairs(source: str, max_solves: int) -> list[tuple[object, Fix]]:
    if not isinstance(source, str) or max_solves < 1:
        return []
    r = parse(source)
    if r.errors or r.ir is None:
        return []
    search = _Search(source, max_solves)
    ok, base = search.evaluate([])
    if not ok:
        return []
    search.base, program = base, search.program   # the original's carried angles
    lines = source.split("\n")
    blocks = _step_blocks(read_statements(Context(split_lines(source))))
    phase_of = {}
    for i, ph in enumerate(r.ir.phases):
        if ph.line in blocks:
            header, kids = blocks[ph.line]
            for n in [ph.line] + [k.line for k in kids]:
                phase_of[n] = i
    todo = []
    for key, d in sorted(base.items(), key=lambda kv: (kv[1].line, kv[1].column, kv[1].code)):
        i = phase_of.get(d.line)
        if i is not None and _wanted(d):
            todo.append((key, d, i))
    out = []
    for n, (key, d, i) in enumerate(todo):
        share = search.left // (len(todo) - n)
        if share < 2:
            continue
        ir_phase, kf = r.ir.phases[i], program.keyframes[i]
        header, kids = blocks[ir_phase.line]
        contact = _contact_at(ir_phase, d)   # a reach, pin or grip (None for the others)
        if _effector(d) and contact is None:
            continue
        knobs = _knobs(_channels(d, ir_phase, contact), kids, kf,
                       d.line if d.code == "rom-clamp" else None)
        if not knobs:
            continue

        def make(values, knobs=knobs, header=header, kids=kids):
            return _edits(knobs, values, header, kids, lines)

        spare, search.left = search.left - share, share
        try:
            found = _descend(search, knobs, make, key)
        finally:
            search.left += spare
        if found is None:
            continue
        edits = make(found)
        said = " with ".join(f"`{k.text(v)}`" for k, v in zip(knobs, found) if abs(v - k.v0) > 1e-9)
        fixed = f"`{lines[d.line - 1].strip()}`" if d.code == "rom-clamp" else None
        out.append((d, Fix(d.code, d.line, f"{said} {_outcome(d, contact, fixed)}", edits)))
    return out


def propose_fixes(source: str, max_solves: int = 200) -> list[Fix]:
    """Clean fix proposals for the reach/pin misses, unflat feet and composed-limit clamps of the
    Posecode document ``source``, in reading order (module docstring: the search, its bound and
    its cost). At most ``max_solves`` keyframe solves; pure and deterministic; never raises."""
    return [f for _d, f in fix_pairs(source, max_solves)]


def hint_with_fixes(diagnostics: list, pairs: list, shift: int = 0) -> list:
    """``diagnostics`` (a checked document's, at file lines ``shift`` below the document's) with
    the proposal of the fix that answers each appended to its hint ("…; this works: `knees:
    flex 70` …"). A fix answers a diagnostic with its code, line and subject (foot, joint)."""
    by_key = {(f.code, f.line + shift, _subject(d)): f for d, f in pairs}
    out = []
    for d in diagnostics:
        f = by_key.get((d.code, d.line, _subject(d)))
        if f is not None:
            hint = f"{d.hint}; this works: {f.message}" if d.hint else f"this works: {f.message}"
            d = Diagnostic(d.code, d.severity, d.line, d.column, d.message, hint, dict(d.extra))
        out.append(d)
    return out

