"""What a build reports: :class:`BuildResult` (with a :class:`PageSummary` per page) and
:class:`BuildError`, raised when the build cannot run at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posecode_ssg.config import PosecodeError
from posecode_ssg.language.diagnostics import Diagnostic


class BuildError(PosecodeError):
    """The build could not run at all (missing content folder, unusable output path)."""


@dataclass
class PageSummary:
    """What a caller learns about each built page: source, output file, URL, title, figure count."""

    src_path: Path
    src_uri: str
    dest_uri: str
    url: str
    title: str
    figures: int


@dataclass
class BuildResult:
    """The outcome of :func:`build_site`.

    ``pages``: :class:`PageSummary` per content page; ``figures``: figures on
    them; ``errors`` / ``warnings`` / ``hints``: ``(source path, Diagnostic)`` pairs with
    document lines (hints: advice that never fails a build, ``kinematic-balance``); ``seconds``: wall time; ``written``: whether the output
    folder was replaced (false on errors, strict warnings, or when nothing
    changed); ``unchanged``: the no-change fast path was taken; ``notes``:
    informational lines (missing runtime bundle, no sitemap...); ``page_workers``: processes
    forked to parse, render and write pages (0: all in this process).
    """

    pages: list[PageSummary] = field(default_factory=list)
    figures: int = 0
    errors: list[tuple[Path, Any]] = field(default_factory=list)
    warnings: list[tuple[Path, Any]] = field(default_factory=list)
    hints: list[tuple[Path, Any]] = field(default_factory=list)
    seconds: float = 0.0
    output_dir: Path | None = None
    written: bool = False
    unchanged: bool = False
    notes: list[str] = field(default_factory=list)
    compiled: int = 0
    strict: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    page_workers: int = 0

    @property
    def failed(self) -> bool:
        """True when the build failed: any error, or any warning under ``strict``."""
        return bool(self.errors) or (self.strict and bool(self.warnings))


def bucket_of(result: BuildResult, severity: str) -> list:
    """The list of ``result`` a diagnostic of ``severity`` goes to (anything unknown is an error)."""
    return {"warning": result.warnings, "hint": result.hints}.get(severity, result.errors)


def as_diagnostic(d: dict) -> Any:
    """A :class:`Diagnostic` from a page record's diagnostic dict (``code, severity, line, column,
    message, hint``, and ``width``, the caret count, kept in ``extra``)."""
    return Diagnostic(code=d.get("code") or "site", severity=d["severity"], line=int(d.get("line") or 1),
                      column=int(d.get("column") or 1), message=d["message"], hint=d.get("hint"),
                      extra={"width": d["width"]} if d.get("width") else {})
