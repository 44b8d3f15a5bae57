"""Posecode v0.4 parser: source text in, :class:`ParseResult` (IR + diagnostics) out.

Pipeline (spec ../shared/seeds/000_87ff9483bb3193ea.txt §1–§5, §7; reference behaviour recorded
in ../shared/conformance/README.md), one module a stage:

1. **Lines and statements** (``lexer.py``): the source split into lines, each non-blank line
   parsed on its own by the lark grammar ``posecode.lark`` into one statement, so one malformed
   line never hides the next.
2. **Blocks** (``blocks.py``): indentation places each statement: the header, top-level
   directives at one document indentation level, step children and start-pose overrides
   beneath their header.
3. **Statements** (``statements/``, one module per kind of statement): closed vocabularies
   checked (with did-you-mean hints), groups expanded, actions turned into signed, mirrored
   Euler channels, angles clamped to the range-of-motion table (``rom-clamp`` warnings, with the
   pelvis-hinge + hip 135° coupling of spec §4), contacts checked for capability and mutual
   exclusion (spec §1 "Contact mechanisms", §5).
4. **Document** (here): the directives, start pose and phases assembled into the :class:`IR`.

Every recoverable problem is reported in one run; ``ir`` is ``None`` exactly when there is an
error. :func:`parse` never raises for any ``str``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from posecode_ssg.language.blocks import group_blocks, split_header
from posecode_ssg.language.context import Context, did_you_mean
from posecode_ssg.language.diagnostics import Diagnostic, reading_order, stage_of
from posecode_ssg.language.ir import IR
from posecode_ssg.language.lexer import Block, read_statements, split_lines
from posecode_ssg.language.statements.directives import read_directives, read_props
from posecode_ssg.language.statements.start_pose import carried_from, read_overrides
from posecode_ssg.language.statements.steps import read_children, read_steps


@dataclass
class ParseResult:
    """What :func:`parse` returns: ``ir`` (``None`` exactly when ``errors`` is non-empty) and the
    diagnostics, each list sorted by line then column."""

    ir: IR | None
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    hints: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when there are no errors."""
        return not self.errors

    def diagnostics(self) -> list[Diagnostic]:
        """Errors, warnings and hints together, in :func:`reading_order` (by line and column)."""
        return sorted(self.errors + self.warnings + self.hints, key=reading_order)

    def to_dict(self) -> dict[str, Any]:
        """``{"ir": dict|None, "errors": [...], "warnings": [...], "hints": [...]}``."""
        return {
            "ir": self.ir.to_dict() if self.ir is not None else None,
            "errors": [d.to_dict() for d in self.errors],
            "warnings": [d.to_dict() for d in self.warnings],
            "hints": [d.to_dict() for d in self.hints],
        }


def _assemble(ctx: Context, kind: str | None, name: str | None, header_line: int,
              top: list[Block]) -> IR | None:
    """The IR of the document's top-level blocks, or None when an error was reported."""
    read_props(ctx, top)
    d = read_directives(ctx, top)
    carried = carried_from(d.start_pose)
    overrides = read_overrides(ctx, d.overrides_block, carried)

    # children of dropped blocks are still checked, so every mistake shows up in one run
    if d.dropped_children:
        marks = (len(ctx.warnings), len(ctx.hints))
        for children, of_pose in d.dropped_children:
            read_children(ctx, children, "", {}, pose_block=of_pose, dropped=True)
        del ctx.warnings[marks[0]:]
        del ctx.hints[marks[1]:]

    phases = read_steps(ctx, d.steps, carried, d.dropped_steps)
    if ctx.errors or kind is None or name is None:
        return None
    return IR(kind=kind, name=name, rig=d.rig, avatar=d.avatar, start_pose=d.start_pose,
              start_pose_overrides=overrides, props=list(ctx.props), clip=d.clip,
              repeat=d.repeat, phases=phases, line=header_line)


def _result(ctx: Context, ir: IR | None) -> ParseResult:
    key = reading_order
    errors = sorted(ctx.errors, key=key)
    warnings = ctx.warnings
    if any(stage_of(e.code) != "resolve" for e in errors):
        # range-of-motion checks belong to the resolve stage, which only counts once the
        # document is well formed (conformance README "Errors come in stages")
        warnings = []
    return ParseResult(None if errors else ir, errors, sorted(warnings, key=key),
                       sorted(ctx.hints, key=key))


def _run(source: str) -> ParseResult:
    ctx = Context(split_lines(source))
    stmts = read_statements(ctx)
    if not stmts:
        if not ctx.errors:
            ctx.err("empty-document", 1, 1, "empty document",
                    'start with a header such as `posecode exercise "Squat"`')
        return _result(ctx, None)
    kind, name, header_line, body = split_header(ctx, stmts)
    top = group_blocks(ctx, body)
    return _result(ctx, _assemble(ctx, kind, name, header_line, top))


def parse(source: str) -> ParseResult:
    """Parse one Posecode v0.4 document.

    ``source`` is the document text (lines split on LF/CRLF only; a leading BOM is ignored).
    Returns a :class:`ParseResult`; never raises for any ``str`` (an internal failure becomes an
    ``internal-error`` diagnostic rather than a traceback).
    """
    if not isinstance(source, str):
        raise TypeError("parse() expects str")
    try:
        return _run(source)
    except Exception as exc:  # pragma: no cover - last-resort guard, should never happen
        return ParseResult(None, [Diagnostic("internal-error", "error", 1, 1,
                                             f"internal parser error: {exc!r}")])


# split_lines and did_you_mean live in lexer.py and context.py; they stay importable here
__all__ = ["ParseResult", "did_you_mean", "parse", "split_lines"]
