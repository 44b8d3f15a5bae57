"""The diagnostics and build outcome the dev server shows: ``Problem``, ``BuildReport``.

A ``Problem`` is one diagnostic as the terminal and the browser overlay show it;
a ``BuildReport`` is what one build tells the server (``LiveSite``); a
``SourceError`` is raised by a project that cannot be built at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posecode_ssg.site.report import (
    caret_width,
    display_path,
    format_diagnostic,
    source_line,
)

DIAGNOSTIC_FIELDS = ("file", "line", "column", "severity", "code", "message", "hint", "source", "width")


@dataclass
class Problem:
    """One diagnostic as the terminal and the browser overlay show it.

    ``file`` is the path as the author would type it (relative to the current
    directory when possible), ``line``/``column`` are 1-based (0 when
    unknown), ``source`` is the text of that line of the file (tabs shown as
    spaces, ``""`` when it cannot be read), ``width`` how many carets underline
    the word at ``column`` (``report.caret_width``, as the terminal shows it).
    ``path`` is the file itself, for the terminal formatter.
    """

    file: str
    line: int
    column: int
    severity: str
    code: str
    message: str
    hint: str | None = None
    source: str = ""
    path: str = ""

    @property
    def width(self) -> int:
        return caret_width(self.source, self.column) if self.source else 1

    @classmethod
    def at(cls, path: str | os.PathLike[str], *, line: int, column: int, severity: str, code: str,
           message: str, hint: str | None = None) -> Problem:
        """A problem in file ``path``, its source line read from the file."""
        return cls(file=display_path(path), line=line, column=column, severity=severity, code=code,
                   message=message, hint=hint, source=read_source_line(path, line), path=os.fspath(path))

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready dict sent to the browser overlay."""
        return {name: getattr(self, name) for name in DIAGNOSTIC_FIELDS}

    def format(self) -> str:
        """The terminal text: exactly what ``posecode-ssg build`` prints for the same
        diagnostic (``posecode_ssg.site.report.format_diagnostic``)."""
        if self.path and Path(self.path).is_file():
            return format_diagnostic(self.path, self)
        return f"{self.file}:{self.line}:{self.column}: {self.severity}[{self.code}]: {self.message}" + (
            f"\n  hint: {self.hint}" if self.hint else "")


@dataclass
class BuildReport:
    """The outcome of one build, in the terms the dev server needs.

    ``errors``/``warnings``: the build's diagnostics. ``error_pages``: output
    paths (relative to the output root, ``/``-separated) of pages whose
    document has errors — the server keeps their last good version.
    ``crashed``: a one-line description when the build raised instead of
    finishing (the previous output is kept untouched). ``seconds``: wall time.
    """

    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    error_pages: set[str] = field(default_factory=set)
    crashed: str | None = None
    seconds: float = 0.0
    #: Optional breakdown of ``seconds`` by build stage (seconds), when the build gives one.
    stages: dict[str, float] = field(default_factory=dict)


class SourceError(Exception):
    """Raised by a ``PreviewSource`` when the project cannot be built at all
    (an invalid configuration); ``problems`` are shown like build errors."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))


def problem_from_diagnostic(path: str | os.PathLike[str], diagnostic: Any) -> Problem:
    """Turn ``(path, Diagnostic)`` (posecode_ssg.language.diagnostics) into a ``Problem``."""
    return Problem.at(
        path,
        line=int(getattr(diagnostic, "line", 0) or 0),
        column=int(getattr(diagnostic, "column", 0) or 0),
        severity=str(getattr(diagnostic, "severity", "error")),
        code=str(getattr(diagnostic, "code", "error")),
        message=str(getattr(diagnostic, "message", diagnostic)),
        hint=getattr(diagnostic, "hint", None),
    )


def read_source_line(path: str | os.PathLike[str], line: int) -> str:
    """Line ``line`` (1-based) of a UTF-8 text file, tabs shown as spaces (as the terminal
    formatter shows them), ``""`` when unreadable."""
    text = source_line(path, line) if line >= 1 and Path(path).is_file() else None
    return "" if text is None else text.replace("\t", " ")
