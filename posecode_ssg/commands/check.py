"""``posecode-ssg check PATH...``: validate Posecode like a compiler.

Checks ``.posecode`` files and the ```` ```posecode ```` fences of ``.md`` files (folders are
searched recursively, skipping hidden folders and ``node_modules``). Line numbers are counted in the
file given, so a problem in a fence is reported at its line in the ``.md`` file.

Text output (default), one block per diagnostic, then a summary line::

    content/squat.posecode:4:5: error[unknown-joint]: unknown joint: "elbw_left"
        4 |     elbw_left: flex 30
          |     ^^^^^^^^^
          = hint: did you mean `elbow_left`?

Documents that parse are also compiled and solved at their phase ends, and the motion compiler's
kinematic diagnostics (codes ``kinematic-*``, issue 3) are reported beside the parser's, in the
same format; they are warnings, never part of ``parse()``'s result.

``--format json`` prints one JSON array with an object per document: ``path``, ``fence_line``
(fences only), the keys of :meth:`ParseResult.to_dict` and ``kinematic`` (a list of diagnostic
dicts). ``--strict`` makes warnings (kinematic ones included) fail.

Exit status: 0 clean, 1 problems found (errors, or warnings with ``--strict``), 2 usage error
(a path that does not exist, or nothing to check).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from posecode_ssg.language import parse
from posecode_ssg.language.diagnostics import Diagnostic, reading_order
from posecode_ssg.language.parser import ParseResult, split_lines
from posecode_ssg.site.report import format_diagnostic

SUFFIXES = (".posecode", ".md")
_SKIP_DIRS = ("node_modules", "__pycache__")


@dataclass
class CheckedDocument:
    """One checked document: a ``.posecode`` file or one fence of a ``.md`` file.

    ``result`` has its diagnostics already moved to file lines and columns; ``file_lines`` are the
    file's lines (for the source excerpt)."""

    path: str
    fence_line: int | None
    result: ParseResult
    file_lines: list[str]
    kinematic: list[Diagnostic] = field(default_factory=list)

    def diagnostics(self) -> list[Diagnostic]:
        """Parser and kinematic diagnostics together, in :func:`reading_order` (line, column)."""
        return sorted(self.result.diagnostics() + self.kinematic, key=reading_order)

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "fence_line"?, "ir", "errors", "warnings", "hints", "kinematic"}`` (file lines)."""
        d: dict[str, Any] = {"path": self.path}
        if self.fence_line is not None:
            d["fence_line"] = self.fence_line
        d.update(self.result.to_dict())
        d["kinematic"] = [k.to_dict() for k in self.kinematic]
        return d


def add_kinematics(doc: CheckedDocument):
    """Compile ``doc`` (when it parsed) and attach the kinematic diagnostics of its keyframe solve.

    Returns the :class:`~posecode_ssg.motion.compile.MotionProgram`, or None when the document has
    errors. Diagnostic lines are moved to file lines (fences) and columns to the first word of the
    line that asked for them."""
    if doc.result.ir is None:
        return None
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.solve import kinematic_diagnostics, with_columns

    program = compile_ir(doc.result.ir)
    kin = kinematic_diagnostics(program)
    if doc.fence_line is not None:
        kin = [d.shifted(doc.fence_line) for d in kin]
    doc.kinematic = with_columns(kin, doc.file_lines)
    return program


def find_documents(paths: list[str]) -> tuple[list[Path], list[str]]:
    """Expand PATH arguments into files to check (sorted within each folder).

    Returns ``(files, problems)`` where problems are usage messages for missing paths."""
    files: list[Path] = []
    problems: list[str] = []
    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            found = []
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                found.extend(Path(root) / n for n in names if n.endswith(SUFFIXES))
            files.extend(sorted(found))
        elif p.is_file():
            files.append(p)
        else:
            problems.append(f"{arg}: no such file or directory")
    return files, problems


def _read(path: Path) -> tuple[str | None, str | None]:
    try:
        return path.read_bytes().decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"file is not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    except OSError as exc:
        return None, f"cannot read file: {exc.strerror or exc}"


def check_file(path: Path, display: str | None = None) -> list[CheckedDocument]:
    """Check one file; a ``.md`` file gives one document per Posecode fence (possibly none)."""
    from posecode_ssg.site.fences import extract_posecode_blocks

    shown = display or str(path)
    text, problem = _read(path)
    if text is None:
        diag = Diagnostic("unreadable-file", "error", 1, 1, problem or "cannot read file")
        return [CheckedDocument(shown, None, ParseResult(None, [diag]), [])]
    lines = split_lines(text)
    if path.suffix.lower() != ".md":
        return [CheckedDocument(shown, None, parse(text), lines)]
    docs = []
    for block in extract_posecode_blocks(text):
        result = parse(block.source)

        def move(d: Diagnostic) -> Diagnostic:
            return d.moved(*block.file_position(d.line, d.column), lambda n: block.file_position(n, 1)[0])

        moved = ParseResult(result.ir, [move(d) for d in result.errors],
                            [move(d) for d in result.warnings], [move(d) for d in result.hints])
        docs.append(CheckedDocument(shown, block.fence_line, moved, lines))
    return docs


def format_text(docs: list[CheckedDocument], out: TextIO) -> None:
    """Write compiler-style diagnostics for every document (:func:`~posecode_ssg.site.report.format_diagnostic`)."""
    for doc in docs:
        for d in doc.diagnostics():
            out.write(format_diagnostic(doc.path, d, lines=doc.file_lines, shown=doc.path) + "\n")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run(args) -> int:
    """Entry point of ``posecode-ssg check`` (argparse namespace with ``paths``, ``format``,
    ``strict``). Returns the exit status."""
    files, problems = find_documents(list(args.paths))
    for p in problems:
        print(f"posecode-ssg check: {p}", file=sys.stderr)
    if problems:
        return 2
    if not files:
        print("posecode-ssg check: no .posecode or .md files found in "
              + ", ".join(args.paths), file=sys.stderr)
        return 2
    docs: list[CheckedDocument] = []
    for f in files:
        docs.extend(check_file(f))
    for doc in docs:
        add_kinematics(doc)

    errors = sum(len(d.result.errors) for d in docs)
    warnings = sum(len(d.result.warnings) for d in docs)
    kinematic = sum(len(d.kinematic) for d in docs)
    hints = sum(len(d.result.hints) for d in docs)
    failed = errors > 0 or (getattr(args, "strict", False) and warnings + kinematic > 0)

    if getattr(args, "format", "text") == "json":
        json.dump([d.to_dict() for d in docs], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        format_text(docs, sys.stdout)
        bad = sum(1 for d in docs if d.result.errors)
        summary = (f"checked {_plural(len(docs), 'document')} in {_plural(len(files), 'file')}: "
                   f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}, "
                   f"{_plural(hints, 'hint')}")
        if kinematic:
            summary += f"; {_plural(kinematic, 'kinematic warning')}"
        if bad:
            summary += f" ({_plural(bad, 'document')} failed)"
        elif failed:
            summary += " (warnings fail with --strict)"
        print(summary)
    return 1 if failed else 0
