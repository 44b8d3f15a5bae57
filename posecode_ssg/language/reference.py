"""Generate the vocabulary and limits reference (Markdown) from the single sources of truth.

``docs/language.md`` embeds the output of :func:`vocabulary_markdown` between the markers
``<!-- vocabulary:begin -->`` and ``<!-- vocabulary:end -->``; a test keeps the two identical, so
the documentation never re-lists a name or a limit by hand. Regenerate with::

    python3 -m posecode_ssg.language.reference docs/language.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import rom
from . import vocabulary as V
from .diagnostics import CODE_STAGE, EXTRA_CODES

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


if __name__ == "__main__":  # pragma: no cover
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/language.md")
    print(f"{target}: {'updated' if update_file(target) else 'up to date'}")
