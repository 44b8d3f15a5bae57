"""The build outcome the dev server shows: ``BuildReport``; ``SourceError``, raised by a project
that cannot be built at all. Each problem is a :class:`posecode_ssg.site.problems.Problem`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from posecode_ssg.site.problems import Problem


@dataclass
class BuildReport:
    """The outcome of one build, in the terms the dev server needs.

    ``errors``/``warnings``/``hints``: the build's diagnostics. ``error_pages``: output
    paths (relative to the output root, ``/``-separated) of pages whose
    document has errors — the server keeps their last good version.
    ``crashed``: a one-line description when the build raised instead of
    finishing (the previous output is kept untouched). ``seconds``: wall time.
    """

    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    #: advice that never fails a build (``kinematic-balance``): printed in the terminal with the
    #: warnings, as ``posecode-ssg build`` prints it; not in the browser overlay (errors only)
    hints: list[Problem] = field(default_factory=list)
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
