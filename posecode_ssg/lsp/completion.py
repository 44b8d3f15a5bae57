"""Completion of Posecode's closed vocabularies where each is valid (issue 26): the header's
kinds, the top-level directives, props, avatars, start poses, a step's timing modes, the joints
and child directives of a step, the actions valid for the joint written (for a group, valid on
each of its bones), ground-lock contacts, reach / pin / grip effectors and the targets valid with
the props the document declares. Each item has a line of documentation (:mod:`.words`).

:func:`complete` works on one Posecode unit's lines and a 0-based code-point cursor and returns
:class:`Item` s whose edit range is in the same coordinates; the server converts them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.lexer import SPACE, STEP_ONLY, TOP_LEVEL

from . import words as W
from .context import WORD_CHARS, declared_props, place_of, tokens

_S = "[" + re.escape(SPACE) + "]"


@dataclass(frozen=True)
class Item:
    """One completion: ``label`` (what is inserted, plus ``suffix`` when nothing follows),
    ``kind`` (an LSP CompletionItemKind name), ``detail`` (the list it comes from), ``doc`` (one
    line) and the replaced columns ``start``–``end`` of the cursor's line (0-based code points)."""

    label: str
    kind: str
    detail: str
    doc: str
    start: int
    end: int
    insert: str


def _items(names, kind: str, detail: str, doc, start: int, end: int, suffix: str = "") -> list[Item]:
    out = []
    for name in names:
        text = doc(name) if callable(doc) else doc.get(name, "")
        out.append(Item(name, kind, detail, text, start, end, name + suffix))
    return out


def _in_string_or_comment(line: str, col: int) -> bool:
    for t in tokens(line):
        if t.kind == "comment" and t.start < col:
            return True
        if t.kind == "string" and t.start < col and (col < t.end or not t.text.endswith('"') or len(t.text) == 1):
            return True
    return False


def _reach_targets(effector: str, props: list[str]) -> list[str]:
    own = {V.EFFECTOR_BONE.get(m) for m in (V.EFFECTOR_GROUPS.get(effector) or (effector,))}
    anchors = [a for p in props for a in V.PROP_ANCHORS[p]]
    return [V.FLOOR] + anchors + [b for b in V.REACH_LANDMARKS if b not in own]


def _grip_anchors(effector: str, props: list[str]) -> list[str]:
    out = []
    for p in props:
        if p not in V.GRIP_PROPS:
            continue
        for a in V.PROP_ANCHORS[p]:
            side = a.rsplit("_", 1)[1] if a.endswith(("_left", "_right")) else None
            if side is None or (effector == f"hand_{side}") or effector not in V.GRIP_EFFECTORS:
                if effector == "hands" and side is not None:
                    continue
                out.append(a)
    return out


def complete(lines: list[str], index: int, col: int) -> list[Item]:
    """The completions at 0-based line ``index``, code-point column ``col`` of a unit."""
    line = lines[index] if 0 <= index < len(lines) else ""
    col = max(0, min(col, len(line)))
    if _in_string_or_comment(line, col):
        return []
    start = col
    while start > 0 and WORD_CHARS.match(line[start - 1]):
        start -= 1
    end = col
    while end < len(line) and WORD_CHARS.match(line[end]):
        end += 1
    prior = line[:start]
    rest = line[end:]
    lead = prior.lstrip(SPACE)
    followed = bool(rest.strip(SPACE))   # something after the word: insert the word alone

    def items(names, kind, detail, doc, suffix=""):
        return _items(names, kind, detail, doc, start, end, "" if followed else suffix)

    if not lead:
        place = place_of(lines, index, len(prior))
        if place.block == "header":
            if len(prior) == 0:
                return items(["posecode"], "Keyword", "header", W.DIRECTIVES, " ")
            return []
        if place.block == "top":
            suffix = {"pose": " start = ", "repeat": " ", "rig": " ", "avatar": " ", "prop": " ",
                      "clip": ' "', "step": ' "'}
            return [Item(d, "Keyword", "directive", W.DIRECTIVES[d], start, end,
                         d if followed else d + suffix[d]) for d in TOP_LEVEL]
        joints = items(V.JOINT_NAMES, "Field", "joint", W.joint_doc,
                       "" if rest.lstrip(SPACE).startswith(":") else ": ")
        if place.block == "pose":
            return joints
        colon = "" if rest.lstrip(SPACE).startswith(":") else ": "
        children = [Item(d, "Keyword", "step directive", W.DIRECTIVES[d], start, end,
                         d + ("" if followed else (' "' if d == "cue" else colon))) for d in STEP_ONLY]
        return joints + children

    m = re.fullmatch(r"posecode" + _S + "+", lead)
    if m:
        return items(V.KINDS, "EnumMember", "kind", W.KINDS, ' "')
    for kw, names, detail, doc in (("rig", V.RIGS, "rig", {"humanoid": W.every_word()["humanoid"]}),
                                   ("avatar", V.AVATARS, "avatar", W.AVATARS),
                                   ("prop", V.PROPS, "prop", W.PROPS)):
        if re.fullmatch(kw + _S + "+", lead):
            return items(names, "EnumMember", detail, doc)
    if re.fullmatch(r"pose" + _S + "+", lead):
        return items(["start"], "Keyword", "pose", {"start": W.every_word()["start"]}, " = ")
    if re.fullmatch(r"pose" + _S + "+start" + _S + "*=" + _S + "*", lead):
        return items(V.START_POSES, "EnumMember", "start pose", W.START_POSES)
    if re.fullmatch(r'step' + _S + '+"[^"]*"' + _S + r"+\S+" + _S + "+", lead):
        return items(V.TIMING_MODES, "EnumMember", "timing mode", W.TIMING_MODES, ":")

    m = re.fullmatch(r"ground-lock" + _S + "*:(.*)", lead)
    if m:
        if m.group(1).strip(SPACE + ",") and not re.search("[," + re.escape(SPACE) + "]$", m.group(1)):
            return []
        written = set(re.findall(r"[A-Za-z_\-]+", m.group(1)))
        names = [n for n in tuple(V.GROUND_LOCK_EXPANSION) + V.GROUND_LOCK_SINGLES if n not in written]
        return items(names, "Value", "ground-lock contact", W.GROUND_LOCK)

    props = declared_props(lines)
    m = re.fullmatch(r"(reach|pin|grip)" + _S + "*:" + _S + r"*(?:(\S+)" + _S + "+)?", lead)
    if m:
        kw, effector = m.group(1), m.group(2)
        if effector is None:
            if kw == "grip":
                names = list(V.GRIP_EFFECTORS)
            else:
                names = list(V.EFFECTOR_GROUPS) + [e for e in V.EFFECTOR_BONE if kw == "pin" or e != "pelvis"]
            return items(names, "Variable", f"{kw} effector", W.effector_doc, " ")
        if kw == "reach":
            names = _reach_targets(effector, props)
        elif kw == "pin":
            names = [V.FLOOR] + [a for p in props for a in V.PROP_ANCHORS[p]]
        else:
            names = _grip_anchors(effector, props)
        return items(names, "Constant", f"{kw} target", W.anchor_doc)

    m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_\-]*)" + _S + "*:" + _S + "*(hold" + _S + "+)?", lead)
    if m and m.group(1) not in STEP_ONLY and m.group(1) not in TOP_LEVEL:
        if m.group(2):
            return items(["neutral"], "EnumMember", "hold", {"neutral": W.every_word()["neutral"]})
        joint = m.group(1)
        acts = [Item(a, "Method", "action", W.action_doc(a, joint if joint in V.JOINT_GROUPS else None),
                     start, end, a + ("" if followed else " ")) for a in W.actions_for(joint)]
        acts.append(Item("hold neutral", "Method", "action", W.ACTIONS["hold"][1], start, end, "hold neutral"))
        return acts
    return []
