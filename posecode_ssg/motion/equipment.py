"""Equipment drawn on the solved body (issue 20): dumbbells, kettlebells, barbells, a medicine
ball, resistance bands and a mat.

Posecode v0.4's props carry the body and its vocabularies are closed, so equipment belongs to
the page, not to the language: a fence attribute ``equipment="dumbbells mat"`` names the items
(:func:`read_equipment`), or the page's front matter ``equipment`` list names the unambiguous
ones (:func:`page_equipment`). The geometry is data, :data:`GEOMETRY` (rig.json ``equipment``,
read by the browser runtime and the posters alike); what depends on the whole loop (the mat's
footprint, the band's anchor) is computed here at compile time into the motion JSON
``equipment`` (:func:`equipment_json`). Each item is attached to what holds it, every frame,
after the solver passes: a hand's grip point (the rig's ``grip_<side>`` landmark, along wrist
local X, the axis the digits curl about), the hands' midpoint, the upper back, the soles
(:func:`attach`; the runtime twin is runtime/equipment.js). A hand that holds an item closes
around it (the grip hand state: :func:`holding_sides`, motion/compile.py ``compile_ir``) unless
a contact plants it.
"""

from __future__ import annotations

import difflib
import math
from typing import Any

import numpy as np

from posecode_ssg.language.vocabulary import BONES

#: the words of the fence attribute, each the drawn items (item, holder) it stands for; holders:
#: ``left`` / ``right`` (that hand's grip point), ``both`` (the hands' midpoint), ``back`` (the
#: upper back), ``feet`` (a band from under both feet to both hands), ``anchor`` (a band from the
#: anchor to both hands), ``floor`` (the mat)
WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "dumbbells": (("dumbbell", "left"), ("dumbbell", "right")),
    "dumbbell-left": (("dumbbell", "left"),),
    "dumbbell-right": (("dumbbell", "right"),),
    "kettlebell": (("kettlebell", "both"),),
    "kettlebell-left": (("kettlebell", "left"),),
    "kettlebell-right": (("kettlebell", "right"),),
    "barbell": (("barbell", "both"),),
    "barbell-back": (("barbell", "back"),),
    "medicine-ball": (("medicine-ball", "both"),),
    "band": (("band", "feet"),),
    "band-anchor": (("band", "anchor"),),
    "mat": (("mat", "floor"),),
}

#: front-matter ``equipment`` words drawn without a fence attribute (the unambiguous ones: a
#: band may be under the feet or anchored, a barbell held or on the back)
FRONT_MATTER_WORDS: dict[str, str] = {
    "dumbbell": "dumbbells",
    "kettlebell": "kettlebell",
    "medicine-ball": "medicine-ball",
    "mat": "mat",
}

#: how high (m) a joint or landmark may be for the mat to lie under it: knee height, so a dead
#: bug's straightening leg and a bridge's feet are over the mat, not only what rests on it
MAT_REACH_M = 0.6

#: items a hand closes around (a medicine ball is held between open palms)
GRIPPED = frozenset({"dumbbell", "kettlebell", "barbell", "band"})

#: the items' sizes (m), rig.json ``equipment.geometry``. Dumbbell: handle (length, radius) and
#: heads (radius, length) at the handle's ends. Kettlebell: bell radius, its centre ``drop`` under
#: the handle, the handle (length, radius). Barbell: bar (length, radius), plates (radius,
#: thickness) centred ``plateAt`` either side of the middle, small enough that a plate seen
#: end-on in a side view leaves the head clear; on the back it lies ``back`` (x, y, z in the
#: chest's frame) from the shoulders' midpoint: up on the upper trapezius, behind the neck.
#: Medicine ball radius (a 4 kg ball is about 23 cm across). Band: strand radius; an anchored
#: band's anchor lies ``ahead`` in front of the start pose's sternum at its height. Mat: the
#: smallest (width, length) (a yoga mat, 61 × 183 cm), its thickness, and the margin it keeps
#: around the body's floor footprint.
GEOMETRY: dict[str, dict[str, Any]] = {
    "dumbbell": {"handle": [0.12, 0.015], "head": [0.045, 0.05]},
    "kettlebell": {"bell": 0.085, "drop": 0.1, "handle": [0.11, 0.011]},
    "barbell": {"bar": [1.5, 0.014], "plate": [0.06, 0.05], "plateAt": 0.6, "back": [0.0, 0.015, -0.075]},
    "medicine-ball": {"radius": 0.115},
    "band": {"radius": 0.006, "ahead": 1.0},
    "mat": {"size": [0.61, 1.83], "thickness": 0.006, "margin": 0.1},
}

#: the drawn colours' roles (the seed's props layer): items held on the body in a darker grey over
#: the limbs, scene items (the mat, a band's anchor) in a recessive grey behind the figure
COLOURS = {"load": "#5f656c", "scene": "#c9cdd1"}

#: how far apart (m) the palms' grip points may be for a barbell across both hands to attach:
#: the bar between its plates' inner faces (a snatch grip is about 0.9 m)
BARBELL_REACH = 2 * GEOMETRY["barbell"]["plateAt"] - GEOMETRY["barbell"]["plate"][1]


def rig_equipment() -> dict[str, Any]:
    """rig.json ``equipment``: ``words`` (each fence word's items and holders), ``frontMatter``,
    ``gripped``, ``geometry``, ``colours`` (docs/motion-json.md)."""
    return {"words": {w: [list(p) for p in items] for w, items in WORDS.items()},
            "frontMatter": dict(FRONT_MATTER_WORDS), "gripped": sorted(GRIPPED),
            "geometry": GEOMETRY, "colours": dict(COLOURS)}


#: other spellings of the fence words a user writes: the front matter's singular words, and the
#: two words of "medicine ball" (the attribute separates items by spaces)
ALIASES = {**{w: f for w, f in FRONT_MATTER_WORDS.items() if w != f}, "medicine ball": "medicine-ball"}


def read_equipment(value: str) -> tuple[tuple[str, ...], list[str]]:
    """The fence attribute ``equipment="..."`` (space-separated words of :data:`WORDS`, or their
    :data:`ALIASES`): the known words in a fixed order (duplicates dropped) and one problem message
    per unknown word, with a did-you-mean. ``""`` and ``none`` (the front-matter word for no
    equipment) are no equipment."""
    words, problems = [], []
    given = value.replace(",", " ").split()
    i = 0
    while i < len(given):
        word = given[i]
        w = word.strip().lower()
        pair = f"{w} {given[i + 1].lower()}" if i + 1 < len(given) else ""
        i += 1
        if pair in ALIASES:
            w, i = pair, i + 1
        w = ALIASES.get(w, w)
        if w == "none":
            continue
        if w in WORDS:
            if w not in words:
                words.append(w)
            continue
        close = difflib.get_close_matches(w, list(WORDS), n=1, cutoff=0.6)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(WORDS)}; none for no equipment)"
        problems.append(f"unknown equipment '{word}'{hint}")
    return tuple(sorted(words, key=list(WORDS).index)), problems


def page_equipment(listed) -> tuple[str, ...]:
    """The fence words a page's front matter ``equipment`` list draws (:data:`FRONT_MATTER_WORDS`),
    in :data:`WORDS` order. Each word is read as the site's built-in equipment taxonomy reads
    it (``Medicine ball``, ``kettlebells``: site/vocabularies.py ``equipment_term``)."""
    from posecode_ssg.site.vocabularies import equipment_term

    words = set()
    for w in listed if isinstance(listed, (list, tuple)) else []:
        term = equipment_term(w)
        if term in FRONT_MATTER_WORDS:
            words.add(FRONT_MATTER_WORDS[term])
    return tuple(w for w in WORDS if w in words)


#: front-matter equipment terms a figure draws only from its fence's ``equipment`` attribute (how
#: the item is held is not one thing), with the words that say it
FENCE_ONLY: dict[str, str] = {
    "band": 'equipment="band" (held in both hands) or equipment="band-anchor" (tied at its other end)',
    "barbell": 'equipment="barbell" (in the hands) or equipment="barbell-back" (across the upper back)',
}


def page_equipment_left_out(listed) -> tuple[str, ...]:
    """The terms of a page's front matter ``equipment`` list that no figure draws without its
    fence's attribute (:data:`FENCE_ONLY`), in the list's order."""
    from posecode_ssg.site.vocabularies import equipment_term

    terms = (equipment_term(w) for w in (listed if isinstance(listed, (list, tuple)) else []))
    return tuple(dict.fromkeys(t for t in terms if t in FENCE_ONLY))


def left_out_hints(terms, line: int) -> list:
    """One ``equipment-not-drawn`` hint (:class:`~posecode_ssg.language.diagnostics.Diagnostic`,
    at ``line``) per front-matter term of :func:`page_equipment_left_out`."""
    from posecode_ssg.language.diagnostics import Diagnostic

    return [Diagnostic("equipment-not-drawn", "hint", line, 1,
                       f"the front matter's '{t}' is not drawn on this figure: a {t} is drawn only when the "
                       f"fence says how it is held", f"add {FENCE_ONLY[t]} to the fence") for t in terms]


def drawn_items(words) -> list[tuple[str, str]]:
    """The (item, holder) pairs ``words`` draw, in order."""
    return [p for w in words for p in WORDS[w]]


def holding_sides(words) -> set[str]:
    """The hands (``left`` / ``right``) that close around an item of ``words`` (:data:`GRIPPED`)."""
    sides: set[str] = set()
    for item, holder in drawn_items(words):
        if item not in GRIPPED:
            continue
        sides |= {holder} if holder in ("left", "right") else {"left", "right"}
    return sides


def sternum(w) -> np.ndarray:
    """The sternum (m) of a world: the shoulders' midpoint lowered by a third of its height over
    the chest joint, on the ribcage's front (a point of the start pose that a band's anchor is
    measured from)."""
    mid = 0.5 * (np.asarray(w.pos["shoulder_left"]) + np.asarray(w.pos["shoulder_right"]))
    chest = np.asarray(w.pos["chest"])
    fwd = np.asarray(w.rot["chest"]) @ np.array([0.0, 0.0, 1.0])
    return mid + (chest - mid) / 3.0 + 0.09 * fwd


def equipment_json(words, start, ends, props=()) -> tuple[dict[str, Any] | None, list[tuple[int, str]]]:
    """Motion JSON ``equipment`` of the fence words ``words`` for a clip whose start pose's solved
    world is ``start`` and whose phase ends' are ``ends`` (in phase order), with its declared
    ``props``; and the attach problems as ``(phase index, message)``: −1 the start pose, None the
    whole clip (two items in one hand).

    ``items``: the words; ``anchor`` (band-anchor): [x, y, z] world metres, ``ahead`` in front of
    the start pose's sternum at its height, along its facing; ``mat``: ``{"center": [x, z],
    "size": [width, length], "yaw": degrees}`` (the length along the yawed +Z): the rectangle
    covering, with the margin, every joint and landmark within :data:`MAT_REACH_M` of the floor over the start
    pose and every phase end, along their principal axis (the figure's facing when the
    footprint is smaller than the mat)."""
    if not words:
        return None, []
    out: dict[str, Any] = {"items": list(words)}
    problems: list[tuple[int, str]] = []
    items = drawn_items(words)
    # one thing in each hand: a bar on the back, a band and a two-handed item take both
    held: dict[str, list[str]] = {"left": [], "right": []}
    for item, holder in items:
        for side in ({holder} if holder in held else set() if holder == "floor" else set(held)):
            if item not in held[side]:
                held[side].append(item)
    for side, things in held.items():
        if len(things) > 1:
            problems.append((None, f"the {side} hand would hold {' and '.join(things)} at once: name one "
                                 f"item for each hand in the fence's equipment attribute"))
            break
    worlds = [start, *ends]
    if ("barbell", "both") in items:
        for k, w in enumerate(worlds):
            apart = float(np.linalg.norm(np.asarray(w.landmarks["grip_left"]) - np.asarray(w.landmarks["grip_right"])))
            if apart > BARBELL_REACH:
                problems.append((k - 1, f"the hands are {apart:.2f} m apart, wider than a barbell's grip "
                                        f"between its plates ({BARBELL_REACH:.2f} m)"))
                break
    if ("band", "anchor") in items:
        fwd = np.asarray(start.rot["pelvis"]) @ np.array([0.0, 0.0, 1.0])
        fwd[1] = 0.0
        fwd /= max(float(np.linalg.norm(fwd)), 1e-9)
        anchor = sternum(start) + GEOMETRY["band"]["ahead"] * fwd
        out["anchor"] = [round(float(c), 4) for c in anchor]
        if "wall" in props:
            from .rig import PROP_GEOMETRY
            for k, w in enumerate(worlds):
                chest = np.asarray(w.pos["chest"])
                if _blocked(chest, anchor, PROP_GEOMETRY["wall"]):
                    problems.append((k - 1, "the band's anchor, 1.0 m in front of the chest, is behind "
                                            "the wall: the band would pass through it"))
                    break
    if ("mat", "floor") in items:
        out["mat"] = _mat(worlds)
    reported = set()
    for k, w in enumerate(worlds):
        for item, part in _through_body(w, out):
            if item not in reported:
                reported.add(item)
                problems.append((k - 1, f"the {item} passes through {part}: hold it clear of the body "
                                        f"(the arms in front of the trunk and thighs)"))
    return out, problems


#: what a held item may not pass through (collide.py ``obstacles``), by the name a reader knows
_PARTS = {"torso": "the trunk", "head": "the head", "thigh_left": "the left thigh", "thigh_right": "the right thigh",
          "shin_left": "the left shin", "shin_right": "the right shin"}


def _through_body(w, eq: dict[str, Any]) -> list[tuple[str, str]]:
    """The held items of ``eq`` that pass through the body on world ``w``, as (item, part): an
    item's solid (a bar's or a band's axis sampled along it, a bell's, ball's or dumbbell head's
    centre) nearer a body capsule's axis (collide.py ``obstacles``: trunk, head, thighs, shins)
    than the two radii less the overlap the capsules' coarseness allows (half the item's radius,
    at least 3 cm: a bar resting on the thighs, a bell against the chest are not through them). A
    bar on the back rests on the trunk, a band runs along the legs, and a dumbbell or a kettlebell
    in one hand hangs against them: none is tested there."""
    from .collide import _closest_on_segment, obstacles

    caps = obstacles(w)
    out = []
    for rec, (item, holder) in zip(attach(w, eq), drawn_items(eq["items"])):
        if item == "mat":
            continue
        p, x = np.asarray(rec["position"]), np.asarray(rec["axis"])
        g = GEOMETRY[item]
        if item == "barbell":
            solids = [(p + x * t, g["bar"][1]) for t in np.linspace(-g["plateAt"], g["plateAt"], 13)]
        elif item == "band":
            e = [np.asarray(v) for v in rec["ends"]]
            solids = [(a + (b - a) * t, g["radius"]) for a, b in (e[0:2], e[2:4]) for t in np.linspace(0.1, 0.9, 9)]
        elif item == "dumbbell":
            off = 0.5 * (g["handle"][0] + g["head"][1])
            solids = [(p + x * s * off, g["head"][0]) for s in (-1, 1)]
        elif item == "kettlebell":
            solids = [(p - np.array([0.0, g["drop"], 0.0]), g["bell"])]
        else:   # the medicine ball
            solids = [(p, g["radius"])]
        legs = {"thigh_left", "thigh_right", "shin_left", "shin_right"}
        # a bar on the back rests on the trunk; a band stood on runs along the legs, and an item
        # in one hand hangs against them (the rig's hanging hands touch the thighs)
        skip = {"torso"} if holder == "back" else legs if item == "band" or holder in ("left", "right") else set()
        hit = next((name for name, (a, b, r) in caps.items() if name not in skip for c, rc in solids
                    if float(np.linalg.norm(c - _closest_on_segment(c, a, b))) < r + rc - max(0.5 * rc, 0.03)), None)
        if hit is not None:
            out.append((item, _PARTS[hit]))
    return out


def place_equipment(program, words) -> list:
    """Set ``program.equipment`` (motion JSON ``equipment``, :func:`equipment_json` over the
    keyframe solve) for the fence words ``words`` and return the attach problems as warnings
    (:class:`~posecode_ssg.language.diagnostics.Diagnostic`, code ``equipment-attach``) at the
    line of the phase they name, or the document's. The build (site/figures.py) and ``check``
    (checking.py) both take them from here."""
    from posecode_ssg.language.diagnostics import Diagnostic

    from .solve import solve_keyframes

    sol = solve_keyframes(program)
    program.equipment, problems = equipment_json(words, sol.base, [p.world for p in sol.phases], program.props)
    out = []
    for k, message in problems:
        kf = program.keyframes[k] if k is not None and k >= 0 else None
        where = f" in phase '{kf.name}'" if kf is not None else "" if k is None else " in the start pose"
        out.append(Diagnostic("equipment-attach", "warning", (kf.line if kf is not None else program.ir.line) or 1, 1,
                              f"cannot attach the equipment{where}: {message}",
                              "change the fence's equipment attribute, or the movement"))
    return out


def page_words_that_fit(program, words) -> tuple[tuple[str, ...], list]:
    """The front-matter equipment ``words`` (:func:`page_equipment`: drawn without the fence
    asking) that can be drawn on ``program`` as written, and a hint
    (:class:`~posecode_ssg.language.diagnostics.Diagnostic`, code ``equipment-not-drawn``) for
    each left out: an item that would pass through the body, the later of two items in one hand
    (a generated library lists ``kettlebells`` on a deadlift whose arms hang: a goblet bell
    there would sit in the trunk). The fence's own attribute is drawn as written, with warnings
    (:func:`place_equipment`)."""
    from posecode_ssg.language.diagnostics import Diagnostic

    from .solve import solve_keyframes

    sol = solve_keyframes(program)
    worlds = [p.world for p in sol.phases]
    kept, hints = list(words), []
    for _round in range(len(words)):
        _eq, problems = equipment_json(tuple(kept), sol.base, worlds, program.props)
        drop = None
        for _k, message in problems:
            if " would hold " in message:
                drop = next(w for w in reversed(kept) if w != "mat")   # the later item held
            elif " passes through " in message:
                item = message.split(" passes through ")[0].removeprefix("the ")
                drop = next((w for w in kept if any(i == item for i, _h in WORDS[w])), None)
            if drop is not None:
                hints.append(Diagnostic(
                    "equipment-not-drawn", "hint", program.ir.line or 1, 1,
                    f"the front matter's '{drop}' is not drawn on this figure: {message}",
                    f"to draw it, name it in the fence's equipment attribute (equipment=\"{drop}\") "
                    f"with arms that hold it clear of the body"))
                kept.remove(drop)
                break
        if drop is None:
            break
    return tuple(kept), hints


def _blocked(a: np.ndarray, b: np.ndarray, prop: dict) -> bool:
    """Whether the segment a–b passes through one of ``prop``'s box meshes."""
    for m in prop.get("meshes", []):
        if m.get("shape") != "box":
            continue
        lo = np.asarray(m["center"]) - 0.5 * np.asarray(m["size"])
        hi = np.asarray(m["center"]) + 0.5 * np.asarray(m["size"])
        t0, t1, d = 0.0, 1.0, b - a
        for i in range(3):
            if abs(d[i]) < 1e-12:
                if not lo[i] <= a[i] <= hi[i]:
                    break
                continue
            u0, u1 = sorted(((lo[i] - a[i]) / d[i], (hi[i] - a[i]) / d[i]))
            t0, t1 = max(t0, u0), min(t1, u1)
            if t0 > t1:
                break
        else:
            return True
    return False


def _mat(worlds) -> dict[str, Any]:
    g = GEOMETRY["mat"]
    pts = []
    for w in worlds:
        for p in [*(w.pos[b] for b in BONES), *(w.landmarks[n] for n in w.avatar.landmarks)]:
            if float(p[1]) <= MAT_REACH_M:
                pts.append((float(p[0]), float(p[2])))
    P = np.array(pts) if pts else np.zeros((1, 2))
    c = P.mean(axis=0)
    # the footprint's principal axis (the body's length when it lies), else the figure's facing
    facing = np.asarray(worlds[0].rot["pelvis"]) @ np.array([0.0, 0.0, 1.0])
    yaw = math.atan2(float(facing[0]), float(facing[2]))
    if len(P) > 2:
        vals, vecs = np.linalg.eigh(np.cov((P - c).T))
        if vals[1] > 1e-9 and math.sqrt(vals[1]) * 4.0 > g["size"][1] * 0.5:
            v = vecs[:, 1]
            yaw = math.atan2(float(v[0]), float(v[1]))
    ax = np.array([math.sin(yaw), math.cos(yaw)])     # the length
    lat = np.array([ax[1], -ax[0]])                    # the width
    along, across = (P - c) @ ax, (P - c) @ lat
    length = max(g["size"][1], float(along.max() - along.min()) + 2 * g["margin"])
    width = max(g["size"][0], float(across.max() - across.min()) + 2 * g["margin"])
    centre = c + ax * 0.5 * float(along.max() + along.min()) + lat * 0.5 * float(across.max() + across.min())
    return {"center": [round(float(centre[0]), 4), round(float(centre[1]), 4)],
            "size": [round(width, 4), round(length, 4)], "yaw": round(math.degrees(yaw), 3)}


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / max(float(np.linalg.norm(v)), 1e-12)


def attach(w, eq: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Where each drawn item of motion JSON ``equipment`` ``eq`` is on world ``w`` (joints,
    landmarks and rotations, m): one record per item, as ``el.sample().equipment`` lists them
    (docs/runtime.md): ``item`` (singular name), ``position`` (its centre: a held item's grip
    point or the grip points' midpoint; a bar on the back the bar's middle; a band the mean of
    its ends; the mat's centre on the floor), ``axis`` (a handle's or bar's direction: wrist local
    X; the grip points' line; the shoulders' line; the mat's length), ``attached`` (the landmark,
    joint or anchor ids it follows) and ``ends`` (a band's strands, end points in pairs; else
    empty). The runtime's twin is runtime/equipment.js ``attachItems``."""
    if not eq:
        return []
    out = []
    grip = {s: np.asarray(w.landmarks[f"grip_{s}"], float) for s in ("left", "right")}
    axis = {s: np.asarray(w.rot[f"wrist_{s}"]) @ np.array([1.0, 0.0, 0.0]) for s in ("left", "right")}
    for item, holder in drawn_items(eq.get("items", [])):
        rec: dict[str, Any] = {"item": item, "ends": []}
        if holder in ("left", "right"):
            rec.update(position=grip[holder], axis=axis[holder], attached=[f"grip_{holder}"])
        elif holder == "both":
            palms = ("palm_left", "palm_right") if item == "medicine-ball" else ("grip_left", "grip_right")
            a, b = (np.asarray(w.landmarks[p], float) for p in palms)
            rec.update(position=0.5 * (a + b), axis=_unit(a - b), attached=list(palms))
        elif holder == "back":
            sl, sr = np.asarray(w.pos["shoulder_left"], float), np.asarray(w.pos["shoulder_right"], float)
            off = np.asarray(w.rot["chest"]) @ np.asarray(GEOMETRY["barbell"]["back"], float)
            rec.update(position=0.5 * (sl + sr) + off, axis=_unit(sl - sr),
                       attached=["shoulder_left", "shoulder_right", "chest"])
        elif holder in ("feet", "anchor"):
            ends = []
            for s in ("left", "right"):
                start = np.asarray(eq["anchor"], float) if holder == "anchor" else np.asarray(w.landmarks[f"sole_{s}"], float)
                ends += [start, grip[s]]
            rec.update(position=np.mean(ends, axis=0), axis=_unit(ends[1] - ends[0]), ends=ends,
                       attached=(["anchor"] if holder == "anchor" else ["sole_left", "sole_right"]) + ["grip_left", "grip_right"])
        else:   # the mat
            m = eq["mat"]
            yaw = math.radians(m["yaw"])
            rec.update(position=np.array([m["center"][0], 0.0, m["center"][1]]),
                       axis=np.array([math.sin(yaw), 0.0, math.cos(yaw)]), attached=["floor"])
        rec["position"] = [float(c) for c in rec["position"]]
        rec["axis"] = [float(c) for c in rec["axis"]]
        rec["ends"] = [[float(c) for c in e] for e in rec["ends"]]
        out.append(rec)
    return out
