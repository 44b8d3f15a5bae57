"""Paths and documents shared by the editor-package tests."""

from __future__ import annotations

from itertools import cycle
from pathlib import Path

import posecode_ssg.language.vocabulary as V

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EXTENSION = REPO / "editors" / "vscode"
SYNTAXES = EXTENSION / "syntaxes"
#: the npm packages the tokenizer script needs (root package.json devDependencies)
TEXTMATE_PACKAGES = ("vscode-textmate", "vscode-oniguruma")

POSECODE = "source.posecode"
MARKDOWN = "text.html.markdown"


def vocabulary_document() -> str:
    """A document (read line by line, so not a valid movement) with every word of every closed
    vocabulary in each place that accepts it."""
    actions = list(V.ACTIONS)
    effectors = (*V.EFFECTOR_BONE, *V.EFFECTOR_GROUPS)
    reach_targets = (V.FLOOR, *V.ALL_ANCHORS, *V.REACH_LANDMARKS)
    pin_targets = (V.FLOOR, *V.ALL_ANCHORS)
    grip_anchors = [a for p in V.GRIP_PROPS for a in V.PROP_ANCHORS[p]]
    lines = [f'posecode {k} "Every word"' for k in V.KINDS]
    lines += [f"  rig {r}" for r in V.RIGS] + [f"  avatar {a}" for a in V.AVATARS]
    lines += [f"  prop {p}" for p in V.PROPS]
    lines += [f"  pose start = {p}" for p in V.START_POSES] + ["  pose start = standing:"]
    lines += ['  clip "squat_take_03"', "  repeat 3"]
    lines += [f'  step "Phase {n}" {n}.5s {m}:' for n, m in enumerate((*V.TIMING_MODES, *V.TIMING_ALIASES))]
    lines += [f"    {j}: {a} {10 + n}" for n, (j, a) in enumerate(zip(V.JOINT_NAMES, cycle(actions)))]
    lines += [f"    knees: {a} -10" for a in actions]
    lines += [f"    {j}: hold neutral" for j in V.JOINT_NAMES[:3]] + ["    hips: hold"]
    lines += [f"    ground-lock: {c}" for c in V.GROUND_LOCK_NAMES]
    lines += ["    ground-lock: hands, left foot, back"]
    lines += [f"    reach: {e} floor" for e in effectors]
    lines += [f"    reach: hand_left {t}" for t in reach_targets]
    lines += [f"    pin: {e} {t}" for e, t in zip(effectors, cycle(pin_targets))]
    lines += [f"    pin: knee_left {t}" for t in pin_targets]
    lines += [f"    grip: {e} {a}" for e in V.GRIP_EFFECTORS for a in grip_anchors]
    lines += ["    turn: -90", "    travel: 1.5 -0.5", '    cue "Keep the knees over the toes"']
    lines += ["# a comment line", "  // a comment line too", "    knees: flex 3  # after a statement"]
    return "\n".join(lines) + "\n"


#: words out of place, words that are not Posecode, comments and strings that look alike
TRICKY_DOCUMENT = """\
# a comment line
// another comment line
posecode exercise "Tricky # not a comment"   // a comment
  prop bar
  prop trampoline
  pose start = neutral:  # neutral is a start pose here
    knees: hold neutral
  step "Odd" 2s ease:
    kneez: flex 3
    knees: bend 30
    reach: hand_left moon
    reach: knee_left knee_right
    grip: hands bar
    cue "# not a comment" // but this is
    ground-lock: left foot, right hand
    turn: -90
    travel: 1.5 -0.5
  repeat 2
"""

SNIPPET = """\
posecode exercise "Squat"
  rig humanoid
  pose start = standing

  step "Down" 1.5s settle:
    # a Posecode comment, not a Markdown heading
    hips: flex 80
    knees: flex 90  # deep
    ground-lock: feet
    cue "Sit back"
  repeat 8"""


def markdown_page() -> tuple[str, list[dict]]:
    """A Markdown page with fences of Posecode (plain, with attributes, in list items, with
    tildes, in pandoc braces, in a block quote) and of other languages. Returns the page and, per
    fence, its ``open`` and ``close`` line indexes, its ``body`` without the container's prefix
    and whether it is ``posecode``."""
    lines: list[str] = ["# Squat", "", "A page with figures.", ""]
    fences: list[dict] = []

    def fence(opening: str, closing: str, posecode: bool, prefix: str = "", body: str = SNIPPET):
        body_lines = body.split("\n")
        start = len(lines)
        lines.append(prefix + opening)
        lines.extend((prefix + b) if b else prefix.rstrip() for b in body_lines)
        lines.append(prefix + closing)
        fences.append({"open": start, "close": len(lines) - 1, "body": body_lines, "posecode": posecode,
                       "prefix": prefix})

    fence("```posecode", "```", True)
    lines += ["", "knees: flex 90 is how a joint target reads.", ""]
    fence('```posecode title="Squat" autoplay=false', "```", True)
    lines += ["", "- First the squat:", ""]
    fence("```posecode view=front", "```", True, prefix="  ")
    lines += ["", "- Then more text.", "", "1. A numbered step", ""]
    fence("```posecode", "```", True, prefix="   ")
    lines += ["", "2. Done.", ""]
    fence("~~~~Posecode", "~~~~", True)
    lines += [""]
    fence('```{.posecode title="Hang"}', "```", True)
    lines += [""]
    fence("```posecode", "```", True, prefix="> ")
    lines += ["", "Not Posecode:", ""]
    fence("```python", "```", False, body='knees = "flex 90"  # python')
    lines += [""]
    fence("```posecode-draft", "```", False, body="knees: flex 90")
    lines += [""]
    fence("```", "```", False, body="knees: flex 90")
    lines += ["", "The end: step, rig and knees are words here.", ""]
    return "\n".join(lines), fences
