"""Generate the vocabulary and limits reference (Markdown) from the single sources of truth.

``docs/language.md`` embeds the output of :func:`vocabulary_markdown` between the markers
``<!-- vocabulary:begin -->`` and ``<!-- vocabulary:end -->``; a test keeps the two identical, so
the documentation never re-lists a name or a limit by hand. Regenerate with::

    python3 -m posecode_ssg.language.reference docs/language.md

``docs/authoring.md`` (the guide for people and language models) embeds the output of
:func:`authoring_markdown` between ``<!-- authoring:begin -->`` and ``<!-- authoring:end -->``:
every word of every closed vocabulary with its meaning, its limits and an example line. Names,
limits, axes and signs come from :mod:`vocabulary` and :mod:`rom` (anchor places, prop extents,
reach chains, figure heights from :mod:`posecode_ssg.motion.rig`); the meanings those modules do
not hold are the tables ``_MEANING`` and ``_DIRECTIVES`` below, and a word without one fails
:func:`authoring_entries` (so a new word fails CI until it is described). The demo site's page
``content/guide/_index.md`` is that file behind front matter (:func:`guide_page_text`).
Regenerate both with::

    python3 -m posecode_ssg.language.reference --authoring docs/authoring.md [--page content/guide/_index.md]
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from . import rom
from . import vocabulary as V
from .diagnostics import CODE_STAGE, EXTRA_CODES
from .lexer import KEYWORDS

BEGIN = "<!-- vocabulary:begin -->"
END = "<!-- vocabulary:end -->"


def _codes(items) -> str:
    return ", ".join(f"`{i}`" for i in items)


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def vocabulary_markdown() -> str:
    """The closed vocabularies, joint groups, action axes and signs, range-of-motion table and
    diagnostic codes as Markdown (headings at level 3)."""
    out: list[str] = []
    add = out.append
    add("### Closed vocabularies\n")
    add("| list | values |")
    add("| --- | --- |")
    add(f"| kinds | {_codes(V.KINDS)} |")
    add(f"| rigs | {_codes(V.RIGS)} |")
    add(f"| avatars | {_codes(V.AVATARS)} (default `{V.DEFAULT_AVATAR}`) |")
    add(f"| props | {_codes(V.PROPS)} |")
    add(f"| start poses | {_codes(V.START_POSES)} |")
    add(f"| timing modes | {_codes(V.TIMING_MODES)} |")
    add("| legacy easing (hint) | "
        + ", ".join(f"`{a}` → `{m}`" for a, m in V.TIMING_ALIASES.items()) + " |")
    add("")
    add("### Props and anchors\n")
    add("| prop | anchors |")
    add("| --- | --- |")
    for prop, anchors in V.PROP_ANCHORS.items():
        add(f"| `{prop}` | {_codes(anchors)} |")
    add("")
    add("### Joints\n")
    add("| name | bones |")
    add("| --- | --- |")
    for name, bones in V.JOINT_GROUPS.items():
        if len(bones) > 1:
            add(f"| `{name}` | {_codes(bones)} |")
    add(f"| single bones | {_codes(V.BONES)} |")
    add("")
    add("### Actions\n")
    add("Right-side (and axial) sign shown; left-side bones negate Y and Z. "
        "Flexion sign: −1 for " + ", ".join(t for t, s in V.FLEXION_SIGN.items() if s < 0)
        + "; +1 for " + ", ".join(t for t, s in V.FLEXION_SIGN.items() if s > 0) + ".\n")
    add("| action | axis | sign |")
    add("| --- | --- | --- |")
    for a in V.ACTIONS.values():
        sign = ("+" if a.base_sign > 0 else "−") + ("1 × flexion sign" if a.uses_flexion_sign
                                                  else "1")
        add(f"| `{a.name}` | {a.axis.upper()} | {sign} |")
    add(f"| `{V.HOLD} {V.HOLD_ARGUMENT}` | all | x = y = z = 0, all three channels authored |")
    add("")
    add("### Range of motion (degrees)\n")
    add("An action not listed for a joint is an `unsupported-action` error. "
        f"Pelvis hinge + hip flexion together may not exceed {_fmt(rom.HINGE_HIP_COMBINED_MAX)}°; "
        f"travel is clamped to ±{_fmt(rom.TRAVEL_LIMIT_M)} m per axis.\n")
    add("| joint | limits |")
    add("| --- | --- |")
    for jt, table in rom.LIMITS.items():
        add(f"| {jt} | " + ", ".join(f"{a} {_fmt(v)}" for a, v in table.items()) + " |")
    add("")
    add("### Diagnostic codes\n")
    add("| code | stage / meaning |")
    add("| --- | --- |")
    for code, stage in CODE_STAGE.items():
        add(f"| `{code}` | {stage} |")
    for code, meaning in EXTRA_CODES.items():
        if code not in CODE_STAGE:
            add(f"| `{code}` | {meaning} |")
    return "\n".join(out) + "\n"


def update_file(path: Path) -> bool:
    """Replace the generated section of ``path``; returns True when the file changed."""
    text = path.read_text("utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    new = f"{head}{BEGIN}\n{vocabulary_markdown()}{END}{tail}"
    if new != text:
        path.write_text(new, "utf-8")
        return True
    return False


# ---------------------------------------------------------------------------------------------
# The authoring guide's reference (docs/authoring.md)
# ---------------------------------------------------------------------------------------------

AUTHORING_BEGIN = "<!-- authoring:begin -->"
AUTHORING_END = "<!-- authoring:end -->"
#: The demo site's page that publishes docs/authoring.md (repository-relative).
GUIDE_PAGE = Path("content/guide/_index.md")

#: What a word means, where vocabulary.py, rom.py and motion/rig.py hold no description (spec
#: §1-§6, docs/language.md). Words made of parts (``knee_left``, ``hips``, ``left foot``,
#: ``bar_left``, the legacy easing names) are described from their parts.
_MEANING: dict[str, dict[str, str]] = {
    "kind": {"exercise": "a movement done for training or rehabilitation (the usual choice)",
             "stretch": "a movement whose point is a held, lengthening position",
             "posture": "a position or small correction held for alignment (posture, breathing)"},
    "rig": {"humanoid": "the one skeleton: pelvis, spine, chest, neck, head, arms, legs, fingers"},
    "start pose": {
        "neutral": "standing, arms at the sides, every joint at 0 (the rest pose); the default",
        "standing": "standing upright, arms at the sides, forearms turned toward the thighs",
        "first-position": "ballet first position: standing with both hips turned out 30°",
        "plank": "straight-arm plank on the hands and toes, shoulders flexed 90°",
        "supine": "lying on the back, face up", "prone": "lying on the front, face down",
        "seated": "long sit on the floor: legs straight in front, hands on the thighs"},
    "prop": {"chair": "a chair behind the figure, its seat at the backs of the knees",
             "wall": "a wall behind the figure, facing it; `prop wall` adds it, and `wall` in a "
                     "contact names its anchor (next row)",
             "bar": "a pull-up bar overhead, running left to right",
             "box": "a 30 cm step box on the floor in front of the feet",
             "dip-bars": "two parallel rails running front to back, one each side of the figure"},
    "anchor": {"seat": "the top of the chair's seat", "wall": "the wall's surface at hip height",
               "bar": "the middle of the bar", "box": "the middle of the box's top",
               "bars": "the middle between the two rails"},
    "timing": {"flow": "carries speed through the end of the step, no stop (sequences, dance)",
               "settle": "slows down and comes to rest (lowering, arriving in a hold)",
               "drive": "starts from rest and speeds up (the effort: standing up, pressing)",
               "snap": "arrives fast and stops sharply (quick, crisp moves)",
               "linear": "even speed, no shaping (holds, slow stretches)"},
    "joint": {
        "shoulder": "the upper arm at the shoulder", "wrist": "the hand at the wrist",
        "elbow": "the forearm at the elbow; it also carries the forearm roll (pronate, supinate)",
        "hip": "the thigh at the hip", "knee": "the shin at the knee", "ankle": "the foot at the ankle",
        "pelvis": "the base of the trunk; it only hinges (a hip hinge)",
        "spine": "the lower and middle back", "chest": "the upper back and rib cage",
        "neck": "the neck", "head": "the head on the neck",
        "thumb": "the thumb: a curl and a sideways spread",
        "finger": "the index, middle, ring and little (`pinky`) fingers: one curl each"},
    "joint group": {"forearms": "`forearms` names the same joints as `elbows`; in a contact "
                                "(`reach`, `pin`, `ground-lock`) it is the pair of elbow effectors",
                    "fingers": "all ten digits, thumbs included; `fingers_left` / `fingers_right`: "
                               "the five of one hand"},
    "action": {
        "flex": "bend: the arm forward and up, the thigh forward, elbow, knee and wrist bent, "
                "trunk, neck and head forward, fingers curled",
        "extend": "straighten and go past it: the arm or thigh behind the body, the trunk, neck "
                  "or head arching back",
        "abduct": "away from the midline: the arm or leg out to the side; on spine, neck and head "
                  "a side bend; the thumb away from the hand",
        "adduct": "toward and across the midline; the side bend the other way",
        "rotate-in": "turn the arm or thigh inward about its long axis (internal rotation)",
        "rotate-out": "turn the arm or thigh outward about its long axis (external rotation)",
        "twist-left": "turn the spine, chest, neck or head toward the figure's left",
        "twist-right": "turn the spine, chest, neck or head toward the figure's right",
        "pronate": "roll the forearm toward palm-down (arms at the sides: `pronate 80` turns the "
                   "palms to the thighs, `0` faces them forward)",
        "supinate": "roll the forearm toward palm-up", "dorsiflex": "pull the toes up toward the shin",
        "plantarflex": "point the foot (rise onto the toes when the foot is locked)",
        "hinge": "tip the whole trunk forward over the hips, the legs staying vertical: "
                 "deadlift, bent-over row, bow",
        "hold": "`hold neutral`: every channel of the joint back to its rest angle (0)"},
    "effector": {"hand": "the palm", "fist": "the knuckles of a closed fist",
                 "foot": "the sole of the foot", "knee": "the front of the knee",
                 "elbow": "the point of the elbow and the forearm",
                 "pelvis": "the seat of the pelvis (pin only: sit or lie on an anchor)"},
    "ground-lock": {"back": "the back lying on the floor: " + ", ".join(V.BACK_BONES) + " stay down",
                    "hand": "a planted palm", "elbow": "a planted forearm", "foot": "a planted foot"},
    "target": {"floor": "the floor under the figure: always available, no prop needed",
               "landmark": "a point of the body, named by its bone"},
}

#: Directive -> (meaning, limits, example line, place); the limits are the ones the grammar and
#: statements/ enforce.
_DIRECTIVES: dict[str, tuple[str, str, str, str]] = {
    "posecode": ("the header: the movement's kind and its name", "the first line, in the first "
                 "column; a kind and a non-empty quoted name", 'posecode exercise "Wall sit"', "header"),
    "rig": ("the skeleton", f"optional; `{V.DEFAULT_RIG}` when omitted", "rig humanoid", "top"),
    "avatar": ("which figure is drawn", f"optional; `{V.DEFAULT_AVATAR}` when omitted",
               "avatar avatar3", "top"),
    "prop": ("puts a piece of equipment in the scene; its anchors become contact targets",
             "one line per prop; a contact may use an anchor only of a declared prop", "prop wall", "top"),
    "pose": ("the start pose; an indented block of joint lines below it adjusts it", "`pose start = "
             "<start pose>`, at most one; its block takes joint lines only (no contacts, cue, turn, "
             "travel)", "pose start = standing", "top"),
    "clip": ("names a motion-capture clip a renderer may blend in; joints and contacts still come "
             "from the steps", "optional; a quoted name", 'clip "squat-take-2"', "top"),
    "repeat": ("how many times the whole sequence of steps plays, each time from the start pose",
               "a whole number from 1; 1 when omitted; it cannot repeat only some steps", "repeat 8",
               "top"),
    "step": ("one timed phase of the movement", '`step "Name" <seconds>s <timing>:`; name not empty, '
             "duration greater than 0; at least one step", 'step "Lower" 2.5s settle:', "step-header"),
    "ground-lock": ("keeps contacts already on the floor planted while the body moves", "one or "
                    "more contacts, commas optional; not with `pin` or `grip`; this step only",
                    "ground-lock: hands, feet", "step"),
    "reach": ("bends ONE LIMB so its end meets a target; the body does not move", "effector then "
              "target; any number per step; not the `pelvis`, not at its own joint; this step only",
              "reach: hand_right knee_left", "step"),
    "pin": ("moves the WHOLE BODY so one effector sits on a fixed anchor", "effector then `floor` "
            "or a prop anchor (never a body part); at most one per step; not with `ground-lock` or "
            "`grip`; this step only", "pin: knee_left floor", "step"),
    "grip": ("hands hold a bar or the dip rails: arms fit to it, fingers close, body hangs",
             f"`{'`, `'.join(V.GRIP_EFFECTORS)}` on an anchor of "
             f"{' or '.join(f'`{p}`' for p in V.GRIP_PROPS)}; `hands` takes the bare anchor "
             f"({', '.join(f'`{a}`' for a in V.GRIP_BARE_ANCHORS)}); not with `ground-lock` or "
             "`pin`; this step only", "grip: hands bar", "step"),
    "turn": ("faces the figure this many degrees about the vertical (90 = toward its start left)",
             "degrees, any value, absolute (`turn: 0` faces forward again); carried to later steps, "
             "home at the loop; standing start poses only", "turn: 90", "step"),
    "travel": ("moves the figure across the floor to x (toward its start left) and z (forward)",
               f"metres, absolute, each clamped to ±{_fmt(rom.TRAVEL_LIMIT_M)} m; carried to later "
               "steps, home at the loop; standing start poses only", "travel: 0 0.5", "step"),
    "cue": ("coaching text shown with the step; it changes nothing in the motion",
            "double-quoted text; display only", 'cue "Keep the heels down"', "step"),
}


@dataclass(frozen=True)
class Entry:
    """A row of the authoring reference: the ``words`` it describes (a left/right pair shares a
    row), their meaning, limits and an ``example`` line, which goes at ``place`` in a document:
    ``header``, ``top`` (under the header), ``step-header`` or ``step`` (inside a step)."""

    words: tuple[str, ...]
    meaning: str
    limits: str
    example: str
    place: str


@dataclass(frozen=True)
class Section:
    """A table of the authoring reference; ``vocabulary`` is its key in :func:`vocabularies`."""

    title: str
    vocabulary: str
    intro: str
    entries: tuple[Entry, ...]


def vocabularies() -> dict[str, tuple[str, ...]]:
    """Every closed vocabulary, read from the sources: name -> its words. The authoring reference
    has a described row for every word (a test checks it)."""
    return {
        "header words": V.KINDS + V.RIGS + V.AVATARS, "start poses": V.START_POSES,
        "props and anchors": V.PROPS + V.ALL_ANCHORS,
        "timing modes": V.TIMING_MODES + tuple(V.TIMING_ALIASES), "joints": V.JOINT_NAMES,
        "actions": V.ACTION_NAMES + (V.HOLD_ARGUMENT,),
        "effectors": tuple(V.EFFECTOR_BONE) + tuple(V.EFFECTOR_GROUPS),
        "ground-lock contacts": V.GROUND_LOCK_NAMES,
        "targets": (V.FLOOR,) + V.REACH_LANDMARKS + V.ALL_ANCHORS, "directives": KEYWORDS,
    }


def _meaning(table: str, word: str) -> str:
    found = (_DIRECTIVES.get(word, ("",))[0] if table == "directive" else
             _MEANING.get(table, {}).get(word))
    if not found:
        where = "_DIRECTIVES" if table == "directive" else f"_MEANING[{table!r}]"
        raise KeyError(f"no description of the {table} {word!r}: add one to "
                       f"posecode_ssg/language/reference.py {where}")
    return found


def _sided(word: str) -> tuple[str, str | None]:
    """``knee_left`` -> (``knee``, ``left``); an unsided word -> (word, None)."""
    side = V.bone_side(word)
    return (word[: -len(side) - 1], side) if side else (word, None)


def _pairs(words) -> list[tuple[str, ...]]:
    """``words`` in rows, ``x_left`` and ``x_right`` together at the place of the first."""
    words = tuple(words)
    rows: list[tuple[str, ...]] = []
    for w in words:
        base, side = _sided(w)
        if side == "left" and f"{base}_right" in words:
            rows.append((w, f"{base}_right"))
        elif not (side == "right" and f"{base}_left" in words):
            rows.append((w,))
    return rows


def _nice(limit: float) -> int:
    """An example angle well inside ``limit``: half of it, rounded down to 5° (at least 5)."""
    return max(5, int(limit // 2) // 5 * 5)


def _joint_key(name: str) -> str:
    """The row of a joint word: its bones' joint type (``shoulders``, ``forearms`` and
    ``shoulder_left`` share one), or ``fingers`` for a group of fingers and thumbs."""
    types = {rom.joint_type(b) for b in V.JOINT_GROUPS[name]}
    return types.pop() if len(types) == 1 else "fingers"


def _joint_entries() -> list[Entry]:
    rows: dict[str, list[str]] = {}
    for name in V.JOINT_NAMES:
        rows.setdefault(_joint_key(name), []).append(name)
    out = []
    for key, names in rows.items():
        words = tuple(sorted(names, key=lambda n: len(V.JOINT_GROUPS[n]) == 1))  # plurals first
        bones = [b for n in words for b in V.JOINT_GROUPS[n]]
        types = sorted({rom.joint_type(b) for b in bones},   # the most common type first
                       key=lambda t: -sum(rom.joint_type(b) == t for b in bones))
        limits = {a: [(t, rom.LIMITS[t][a]) for t in types] for a in rom.LIMITS[types[0]]
                  if all(a in rom.LIMITS[t] for t in types)}
        text = ", ".join(f"{a} 0-{_fmt(per[0][1])}°" + "".join(
            f" ({t} {_fmt(v)})" for t, v in per[1:] if v != per[0][1]) for a, per in limits.items())
        action = next(iter(limits))
        aliases = [n for n in words if n[:-1] != key and len(V.JOINT_GROUPS[n]) > 1 and key != "fingers"]
        meaning = (_meaning("joint group", key) if key == "fingers" else _meaning("joint", key)) + "".join(
            f"; {_meaning('joint group', a)}" for a in aliases)
        out.append(Entry(words, meaning, text + ", hold neutral",
                         f"{words[0]}: {action} {_nice(min(v for _, v in limits[action]))}", "step"))
    return out


def _action_entries() -> list[Entry]:
    out = []
    for a in V.ACTIONS.values():
        types = [t for t, table in rom.LIMITS.items() if a.name in table]
        signs: dict[int, list[str]] = {}
        for t in types:
            bone = next(b for b in V.BONES if rom.joint_type(b) == t and V.bone_side(b) != "left")
            signs.setdefault(V.action_sign(a.name, bone)[1], []).append(t)
        sign = "; ".join(f"{'+' if s > 0 else '−'}degrees on {', '.join(ts)}" for s, ts in signs.items())
        mirror = ", negated on the left side" if a.axis in ("y", "z") else ""
        legacy = "" if a.name not in V.AXIAL_ROTATE_REPLACEMENT else (
            f"; on {', '.join(V.AXIAL_ROTATION_JOINTS)} a legacy spelling of "
            f"`{V.AXIAL_ROTATE_REPLACEMENT[a.name]}` (hint `axial-rotate`)")
        first = next(t for t in types if not legacy or t not in V.AXIAL_ROTATION_JOINTS)
        group = next((g for g, bones in V.JOINT_GROUPS.items() if len(bones) == 2
                      and rom.joint_type(bones[0]) == first), first)
        out.append(Entry((a.name,), f"{_meaning('action', a.name)}. Axis {a.axis.upper()}: {sign}{mirror}",
                         ", ".join(f"{t} {_fmt(rom.LIMITS[t][a.name])}" for t in types) + legacy,
                         f"{group}: {a.name} {_nice(rom.LIMITS[first][a.name])}", "step"))
    out.append(Entry((V.HOLD, V.HOLD_ARGUMENT), _meaning("action", V.HOLD), "every joint; resets "
                     "all three channels", f"knees: {V.HOLD} {V.HOLD_ARGUMENT}", "step"))
    return out


def _header_entries() -> list[Entry]:
    from posecode_ssg.motion.rig import avatar

    return ([Entry(V.KINDS, "the kind: " + "; ".join(f"`{k}` {_meaning('kind', k)}" for k in V.KINDS),
                   "one per document", f'posecode {V.KINDS[0]} "Morning routine"', "header")]
            + [Entry((r,), _meaning("rig", r), "the only rig" if len(V.RIGS) == 1 else "one per document", f"rig {r}", "top") for r in V.RIGS]
            + [Entry(V.AVATARS, f"the figure drawn (`{V.DEFAULT_AVATAR}` by default), all on the same "
                     "skeleton with the same joints and limits",
                     "tall: " + ", ".join(f"`{a}` {avatar(a).height:.2f} m" for a in V.AVATARS),
                     f"avatar {V.AVATARS[-1]}", "top")])


def _start_pose_entries() -> list[Entry]:
    from posecode_ssg.motion.rig import START_POSES_TABLE

    return [Entry((p,), _meaning("start pose", p), "lying, seated or on the hands: no `turn` or "
                  "`travel`" if START_POSES_TABLE[p].tilted else "standing: `turn` and `travel` "
                  "allowed", f"pose start = {p}", "top") for p in V.START_POSES]


def _extent(prop: str) -> str:
    """Where ``prop``'s meshes (motion/rig.py ``PROP_GEOMETRY``) lie: x, y and z from-to, metres."""
    from posecode_ssg.motion.rig import PROP_GEOMETRY

    lo, hi = [9.0] * 3, [-9.0] * 3
    for m in PROP_GEOMETRY[prop]["meshes"]:
        half = ([s / 2 for s in m["size"]] if m["shape"] == "box" else
                [m["length"] / 2 if m["axis"] == ax else m["radius"] for ax in "xyz"])
        for i in range(3):
            lo[i], hi[i] = min(lo[i], m["center"][i] - half[i]), max(hi[i], m["center"][i] + half[i])
    return ", ".join(f"{ax} {round(a, 2):g} to {round(b, 2):g}" for ax, a, b in zip("xyz", lo, hi)) + " m"


def _prop_entries() -> list[Entry]:
    from posecode_ssg.motion.rig import anchor_position

    def at(anchor: str) -> str:
        return "(" + ", ".join(f"{c:g}" for c in anchor_position(anchor)) + ") m"

    rows = []
    for prop, anchors in V.PROP_ANCHORS.items():
        rows.append(Entry((prop,), _meaning("prop", prop), "anchors " + ", ".join(f"`{a}`" for a in anchors)
                          + f"; fills {_extent(prop)}", f"prop {prop}", "top"))
        grip = prop in V.GRIP_PROPS
        uses = "reach, pin" + (", grip" if grip else "")
        for words in _pairs(anchors):
            base, side = _sided(words[0])
            if side:
                rows.append(Entry(words, f"anchor of `{prop}`: one hand's place on the {base}, left "
                                  f"and right", f"{uses} (`hand_left` takes the `_left` one); "
                                  + ", ".join(at(w) for w in words),
                                  f"{'grip' if grip else 'reach'}: hand_left {words[0]}", "step"))
            else:
                rows.append(Entry(words, f"anchor of `{prop}`: " + _meaning("anchor", base),
                                  f"{uses}{' (`grip: hands` takes this one)' if grip else ''}; {at(base)}",
                                  f"grip: hands {base}" if grip else f"pin: foot_right {base}"
                                  if base == "box" else f"reach: hand_right {base}", "step"))
    return rows


def _effector_entries() -> list[Entry]:
    from posecode_ssg.motion.rig import SOLVER

    groups = {members: g for g, members in V.EFFECTOR_GROUPS.items()}
    rows = []
    for pair in _pairs(V.EFFECTOR_BONE):
        base, side = _sided(pair[0])
        group = groups.get(pair)
        words = (group,) * bool(group) + pair
        uses = ["pin"] if base == "pelvis" else ["reach", "pin"] + ["grip"] * (pair[0] in V.GRIP_EFFECTORS)
        bone_type = rom.joint_type(V.EFFECTOR_BONE[pair[0]])
        at = f", at the {bone_type}" if side and bone_type != base else ""
        chain = SOLVER["reachChains"].get(base)
        limits = ", ".join(uses) + (f"; a reach bends the {' and '.join(chain)}" if chain else "") + (
            "; a grouped pin counts as one pin" if group else "")
        example = (f"pin: {base} floor" if base == "pelvis" else f"grip: {group} bar"
                   if group in V.GRIP_EFFECTORS else f"pin: {group} floor" if group == "knees"
                   else f"reach: {group or pair[0]} floor")
        rows.append(Entry(words, _meaning("effector", base) + at + (f"; `{group}`: both" if group else ""),
                          limits, example, "step"))
    return rows


def _ground_lock_entries() -> list[Entry]:
    readable: dict[str, list[str]] = {}
    for words, single in V.GROUND_LOCK_READABLE.items():
        readable.setdefault(single, []).append(words)
    return [Entry((g,) + members * (members != (g,)) + tuple(r for m in members for r in readable.get(m, [])),
                  _meaning("ground-lock", g) if members == (g,) else
                  f"{_meaning('ground-lock', _sided(members[0])[0])}: `{g}` both, a `_left` / `_right` "
                  "name or its two-word form one",
                  "kept where they are; not with pin or grip", f"ground-lock: {g}", "step")
            for g, members in V.GROUND_LOCK_EXPANSION.items()]


def authoring_entries() -> tuple[Section, ...]:
    """The tables of the authoring reference, in page order. Raises ``KeyError`` naming a word
    that has no description."""
    missing = [w for w in KEYWORDS if w not in _DIRECTIVES]
    if missing:
        _meaning("directive", missing[0])
    targets = [Entry((V.FLOOR,), _meaning("target", V.FLOOR), "reach, pin", "reach: hands floor", "step"),
               Entry(V.REACH_LANDMARKS, _meaning("target", "landmark"), "reach only (a pin needs a "
                     "fixed anchor); not the effector's own joint", "reach: hand_left ankle_right", "step"),
               Entry(V.ALL_ANCHORS, "a declared prop's anchor (see the props table)", "reach, pin; grip "
                     "only on " + ", ".join(f"`{p}`" for p in V.GRIP_PROPS), "pin: pelvis seat", "step")]
    sections = [
        ("Header words", "header words", "The kind in the header line, then the optional `rig` and "
         "`avatar` lines.", _header_entries()),
        ("Start poses", "start poses", "Where the animation begins and returns on every loop. End "
         "the line with `:` and indent joint lines under it to adjust the pose. A movement done sitting "
         "starts sitting: `seated` is a long sit on the floor; on a chair, `pose start = standing:` with "
         "`hips: flex 90` and `knees: flex 90` under it, and `pin: pelvis seat` in every step (a start "
         "pose holds no contact).", _start_pose_entries()),
        ("Props and their anchors", "props and anchors", "Declare a prop with `prop`; its anchors are "
         "then targets. Places are world metres: x to the figure's left, y up, z forward, the figure "
         "standing at the origin. Props stay put: `turn` and `travel` move the figure, never a prop "
         "(after `turn: 180` the box is behind it).", _prop_entries()),
        ("Timing modes", "timing modes", "The last word of a step line: how the motion arrives at "
         "the step's end.", [Entry((m,), _meaning("timing", m), "any step", f'step "Lower" 2s {m}:',
                                   "step-header") for m in V.TIMING_MODES]
         + [Entry(tuple(V.TIMING_ALIASES), "legacy v0.1 names: " + ", ".join(
             f"`{a}` is `{m}`" for a, m in V.TIMING_ALIASES.items()), "valid, with a `legacy-easing` "
             "hint: write the new name", f'step "Lower" 2s {next(iter(V.TIMING_ALIASES))}:', "step-header")]),
        ("Joint names", "joints", "Before the colon of a joint line. A plural moves both sides; a "
         "`_left` / `_right` name moves one. Angles are magnitudes in degrees, from 0 to the limit; "
         "the action gives the direction. A negative angle or one past the limit is clamped, with a "
         "`rom-clamp` warning. A pelvis hinge and the hip flexion together may not pass "
         f"{_fmt(rom.HINGE_HIP_COMBINED_MAX)}°.", _joint_entries()),
        ("Actions and their limits", "actions", "After the colon. Limits per joint type; the sign is "
         "the one the channel gets on the right side and the axial bones.", _action_entries()),
        ("Contact effectors", "effectors", "The body part a `reach`, `pin` or `grip` puts on its "
         "target. A reach solves the joints its row names, whatever angles you wrote (rule 1).",
         _effector_entries()),
        ("Ground-lock contacts", "ground-lock contacts", "`ground-lock` keeps contacts that are "
         "already on the floor planted while the body moves; it cannot bring one down (use `reach` "
         "or `pin` in the step before).", _ground_lock_entries()),
        ("Contact targets", "targets", "What an effector is brought to.", targets),
        ("Directives", "directives", "The first word of every line. `posecode` starts the document; "
         "`step` and the words before it in this table sit under the header, the rest inside a step.",
         [Entry((w,), *_DIRECTIVES[w]) for w in KEYWORDS]),
    ]
    return tuple(Section(title, vocab, intro, tuple(rows)) for title, vocab, intro, rows in sections)


def authoring_markdown() -> str:
    """The authoring guide's reference (Markdown, headings at level 3): a table per vocabulary,
    a row per word (left/right pairs share one) with its meaning, limits and an example line."""
    out: list[str] = []
    for section in authoring_entries():
        out += [f"### {section.title}", section.intro + "\n",
                "| word | meaning | limits | example |", "| --- | --- | --- | --- |"]
        out += [f"| {', '.join(f'`{w}`' for w in e.words)} | {e.meaning.replace('|', '/')} | "
                f"{e.limits.replace('|', '/')} | `{e.example}` |" for e in section.entries]
        out.append("")
    return "\n".join(out)


def _replace(path: Path, new_text) -> bool:
    """Write ``new_text(old text)`` to ``path`` when it differs; True when the file changed."""
    text = path.read_text("utf-8")
    new = new_text(text)
    if new != text:
        path.write_text(new, "utf-8")
    return new != text


def update_authoring(path: Path) -> bool:
    """Replace the generated reference of the authoring guide ``path`` (between
    :data:`AUTHORING_BEGIN` and :data:`AUTHORING_END`); True when the file changed."""
    def new(text: str) -> str:
        head, found, rest = text.partition(AUTHORING_BEGIN)
        _, found_end, tail = rest.partition(AUTHORING_END)
        if not found or not found_end:
            raise ValueError(f"{path}: the markers {AUTHORING_BEGIN} and {AUTHORING_END} are missing")
        return f"{head}{AUTHORING_BEGIN}\n{authoring_markdown()}{AUTHORING_END}{tail}"
    return _replace(path, new)


def split_front_matter(text: str) -> tuple[str, str]:
    """``(front matter with its two --- lines, body)`` of a Markdown page; ``("", text)``
    without front matter."""
    lines = text.splitlines(keepends=True)
    if lines and lines[0].rstrip() == "---":
        for i, line in enumerate(lines[1:], 1):
            if line.rstrip() == "---":
                return "".join(lines[: i + 1]), "".join(lines[i + 1:])
    return "", text


def guide_page_text(guide: str, front_matter: str) -> str:
    """The site page of the authoring guide: ``front_matter``, then the guide's text without its
    two marker lines (HTML comments, which the site shows as text). The guide is the one source;
    a test checks the page equals this."""
    return front_matter + "".join(line for line in guide.splitlines(keepends=True)
                                  if line.strip() not in (AUTHORING_BEGIN, AUTHORING_END))


def update_guide_page(guide: Path, page: Path) -> bool:
    """Rewrite ``page`` from the guide, keeping its front matter; True when it changed."""
    return _replace(page, lambda text: guide_page_text(guide.read_text("utf-8"),
                                                       split_front_matter(text)[0]))


def _main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(prog="python3 -m posecode_ssg.language.reference")
    ap.add_argument("target", nargs="?", help="the language reference (default docs/language.md)")
    ap.add_argument("--authoring", metavar="GUIDE", type=Path,
                    help="update the authoring guide (docs/authoring.md) and its site page instead")
    ap.add_argument("--page", type=Path, default=GUIDE_PAGE,
                    help=f"the guide's site page (default {GUIDE_PAGE}, when it exists)")
    args = ap.parse_args(argv)
    done = ([(Path(args.target or "docs/language.md"), update_file)]
            if args.target or not args.authoring else [])
    if args.authoring:
        done.append((args.authoring, update_authoring))
        if args.page.is_file():
            done.append((args.page, lambda page: update_guide_page(args.authoring, page)))
    for path, update in done:
        print(f"{path}: {'updated' if update(path) else 'up to date'}")


if __name__ == "__main__":  # pragma: no cover
    _main(sys.argv[1:])
