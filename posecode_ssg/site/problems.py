"""The one record of a problem shown to a user: ``Problem``.

A problem is one diagnostic (a content file's front matter or links, a Posecode document's
parse or kinematic diagnostic, a configuration error, a build that crashed) with its file, 1-based
``line``/``column`` (0 when unknown), severity (error|warning), code, message and hint. The
content loader makes them (``site/content.py``), the dev server shows them in the terminal and
the browser overlay (``site/serve/``), and the CLI (``check``, ``build``, ``eval``) prints them;
the terminal text is ``site/report.py``'s ``format_diagnostic``. ``language.Diagnostic`` stays
the parser's own public record and becomes a ``Problem`` with :meth:`Problem.of` (or
:func:`problem_from_diagnostic`, which also reads the source line for the overlay).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
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
    the word at ``column`` (``span`` when the maker knew the extent of what it
    means, a multi-word front-matter value; else ``report.caret_width``, as the
    terminal shows it). ``path`` is the file itself, for the terminal formatter.
    """

    severity: str
    code: str
    line: int
    column: int
    message: str
    hint: str | None = None
    file: str = ""
    source: str = ""
    path: str = ""
    span: int = 0

    @property
    def width(self) -> int:
        """How many carets underline the problem (``span``, else the word at ``column``)."""
        if self.span > 0:
            return self.span
        return caret_width(self.source, self.column) if self.source else 1

    @classmethod
    def at(cls, path: str | os.PathLike[str], *, line: int, column: int, severity: str, code: str,
           message: str, hint: str | None = None, span: int = 0) -> Problem:
        """A problem in file ``path``, its source line read from the file."""
        return cls(file=display_path(path), line=line, column=column, severity=severity, code=code,
                   message=message, hint=hint, source=read_source_line(path, line), path=os.fspath(path),
                   span=span)

    @classmethod
    def of(cls, diagnostic: Any, path: str | os.PathLike[str] = "") -> Problem:
        """The problem of a ``language.Diagnostic`` (or any record with ``severity``, ``code``,
        ``line``, ``column``, ``message`` and ``hint``) in file ``path``, without reading the
        file (the terminal formatter reads the source line itself)."""
        return cls(str(getattr(diagnostic, "severity", "error")), str(getattr(diagnostic, "code", "error")),
                   int(getattr(diagnostic, "line", 0) or 0), int(getattr(diagnostic, "column", 0) or 0),
                   str(getattr(diagnostic, "message", diagnostic)), getattr(diagnostic, "hint", None),
                   file=display_path(path) if path else "", path=os.fspath(path), span=span_of(diagnostic))

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready dict sent to the browser overlay (:data:`DIAGNOSTIC_FIELDS`)."""
        return {name: getattr(self, name) for name in DIAGNOSTIC_FIELDS}

    def as_record(self) -> dict[str, Any]:
        """Return ``{code, severity, line, column, message, hint}`` (and ``width`` when the
        problem has a ``span``): a diagnostic of a page record (the build's manifest,
        ``check --format json``)."""
        record = {"code": self.code, "severity": self.severity, "line": self.line, "column": self.column,
                  "message": self.message, "hint": self.hint}
        if self.span > 0:
            record["width"] = self.span
        return record

    def format(self) -> str:
        """The terminal text: exactly what ``posecode-ssg build`` prints for the same
        diagnostic (``posecode_ssg.site.report.format_diagnostic``)."""
        if self.path and Path(self.path).is_file():
            return format_diagnostic(self.path, self)
        return f"{self.file}:{self.line}:{self.column}: {self.severity}[{self.code}]: {self.message}" + (
            f"\n  hint: {self.hint}" if self.hint else "")


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
        span=span_of(diagnostic),
    )


def span_of(diagnostic: Any) -> int:
    """The caret count a diagnostic carries (a :class:`Problem`'s ``span``, a
    ``language.Diagnostic``'s ``extra["width"]``, from a page record's ``width``), else 0."""
    span = getattr(diagnostic, "span", 0) or (getattr(diagnostic, "extra", None) or {}).get("width", 0)
    return span if isinstance(span, int) and span > 0 else 0


def read_source_line(path: str | os.PathLike[str], line: int) -> str:
    """Line ``line`` (1-based) of a UTF-8 text file, tabs shown as spaces (as the terminal
    formatter shows them), ``""`` when unreadable."""
    text = source_line(path, line) if line >= 1 and Path(path).is_file() else None
    return "" if text is None else text.replace("\t", " ")
