"""Document symbols (the movement and its steps), folding ranges (steps, ``pose start`` blocks,
fences) and formatting (as ``posecode-ssg fmt``: one whole-document edit when the layout
changes) for the server. Positions are file offsets (:class:`~.documents.Lines` converts them).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from .analysis import Analysis, Unit
from .context import block_end, head_of, indent_of, is_blank, opens_block, step_blocks, tokens

log = logging.getLogger("posecode_ssg.lsp")


@dataclass
class Symbol:
    """A document symbol: ``kind`` ``movement`` or ``step``; offsets of the whole ``range`` and of
    the ``selection`` (the quoted name)."""

    name: str
    detail: str
    kind: str
    range: tuple[int, int]
    selection: tuple[int, int]
    children: list["Symbol"] = field(default_factory=list)


def _offset(analysis: Analysis, unit: Unit, index: int, col: int) -> int:
    """Offset of a 0-based unit line ``index`` and 0-based code-point column ``col``."""
    line, column = unit.file_position(index + 1, col + 1)
    return analysis.lines.check_offset(line, column)


def _line_end(analysis: Analysis, unit: Unit, index: int) -> int:
    return _offset(analysis, unit, index, len(unit.lines[index]) if index < len(unit.lines) else 0)


def symbols(analysis: Analysis) -> list[Symbol]:
    """The movement of each unit with its steps as children (steps alone when a unit has no
    header yet)."""
    out: list[Symbol] = []
    for unit in analysis.units:
        lines = unit.lines
        nonblank = [i for i, t in enumerate(lines) if not is_blank(t)]
        if not nonblank:
            continue
        steps = []
        for sb in step_blocks(lines):
            toks = [t.text for t in tokens(lines[sb.header]) if t.kind in ("word", "punct")]
            detail = " ".join(t for t in toks[1:] if t != ":")
            name = sb.name or "(unnamed step)"
            rng = (_offset(analysis, unit, sb.header, indent_of(lines[sb.header])), _line_end(analysis, unit, sb.last))
            sel = (_offset(analysis, unit, sb.header, sb.name_start), _offset(analysis, unit, sb.header, sb.name_end))
            steps.append(Symbol(name, detail, "step", rng, sel))
        first = nonblank[0]
        header = lines[first]
        if head_of(header) != "posecode":
            out += steps
            continue
        m = re.match(r'\s*posecode\s*([A-Za-z_\-]*)\s*("[^"]*"?)?', header)
        kind = m.group(1) if m else ""
        quoted = m.group(2) if m and m.group(2) else ""
        if quoted:
            a, b = m.start(2), m.end(2)
            name = quoted[1:-1] if quoted.endswith('"') and len(quoted) > 1 else quoted[1:]
        else:
            a, b = indent_of(header), indent_of(header) + len("posecode")
            name = ""
        rng = (_offset(analysis, unit, first, 0), _line_end(analysis, unit, nonblank[-1]))
        sel = (_offset(analysis, unit, first, a), _offset(analysis, unit, first, b))
        out.append(Symbol(name or "(unnamed movement)", kind, "movement", rng, sel, steps))
    return out


def folding(analysis: Analysis) -> list[tuple[int, int]]:
    """Folding ranges as (first, last) file offsets: each fence (opening to closing line),
    each step and ``pose start`` block with lines beneath it."""
    out: list[tuple[int, int]] = []
    for unit in analysis.units:
        if unit.fence_line is not None:
            a = analysis.lines.check_offset(unit.fence_line, 1)
            b = analysis.lines.check_offset(unit.last_line + 1, 1)
            out.append((a, b))
        for i, text in enumerate(unit.lines):
            if opens_block(text):
                last = block_end(unit.lines, i)
                if last > i:
                    out.append((_offset(analysis, unit, i, 0), _offset(analysis, unit, last, 0)))
    return out


def formatted(analysis: Analysis) -> str | None:
    """The document as ``posecode-ssg fmt`` lays it out, or None when that changes nothing, the
    document has errors (the formatter leaves it alone) or the formatter is not available."""
    try:
        from posecode_ssg.language.format import format_markdown, format_source
    except ImportError:
        log.warning("formatting is not available: posecode_ssg.language.format is missing")
        return None
    result = (format_markdown if analysis.markdown else format_source)(analysis.text)
    if not getattr(result, "changed", False) or result.text == analysis.text:
        return None
    return result.text
