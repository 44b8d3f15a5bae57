"""Diagnostics: the one record type for errors, warnings and hints across posecode-ssg.

The parser's error codes are the kind names of ../shared/conformance/error-kinds.json wherever one
fits (e.g. ``unknown-joint``, ``bad-step-header``); its own extra codes are listed in
:data:`EXTRA_CODES`. Warnings from range-of-motion clamping use ``rom-clamp`` and carry the
conformance record fields (``phase``, ``joint``, ``action``, ``requested``, ``clamped``,
``limit: {min, max}``) in ``extra``. Hints use ``legacy-easing`` and ``axial-rotate``. The motion
compiler reports kinematic problems with the same class and codes ``kinematic-...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

SEVERITIES = ("error", "warning", "hint")

#: Codes the parser emits that have no kind in error-kinds.json.
EXTRA_CODES = {
    "rom-clamp": "warning: an authored angle was clamped into the joint's range of motion",
    "legacy-easing": "hint: a v0.1 easing name (ease-in/ease-out/ease-in-out) was used",
    "axial-rotate": "hint: rotate-in/rotate-out on spine, chest, neck or head",
    "unexpected-line": "error: a line the grammar could not read at all",
    "internal-error": "error: a bug in the parser (reported instead of a traceback)",
    "unreadable-file": "error (check): a file that cannot be read or is not UTF-8",
}

#: Parser stage of each error code (the stages of ../shared/conformance/error-kinds.json:
#: ``tokenize`` -> ``syntax`` -> ``schema`` -> ``resolve``). Range-of-motion warnings come from
#: the resolve stage, so they are only reported when no earlier stage failed (the conformance
#: corpus compares warnings exactly, and the reference resolves nothing after a syntax error).
CODE_STAGE = {
    "unexpected-character": "tokenize",
    **{code: "syntax" for code in (
        "empty-document", "bad-header", "unknown-kind", "top-level-not-indented",
        "top-level-indent-mismatch", "step-child-not-indented", "step-child-indent-mismatch",
        "start-override-not-indented", "start-override-indent-mismatch", "bad-rig",
        "unknown-rig", "bad-prop", "unknown-prop", "bad-clip", "unknown-avatar",
        "unknown-start-pose", "duplicate-start-pose", "bad-pose", "bad-repeat",
        "unknown-timing-mode", "bad-step-header", "outside-step", "bad-cue", "bad-ground-lock",
        "unknown-ground-lock-effector", "empty-ground-lock", "bad-reach", "bad-pin", "bad-grip",
        "bad-turn", "bad-travel", "bad-joint-target", "bad-hold",
    )},
    **{code: "schema" for code in ("no-steps", "non-positive-duration", "empty-name")},
    **{code: "resolve" for code in (
        "pin-with-ground-lock", "grip-with-ground-lock", "grip-with-pin", "multiple-pins",
        "unknown-joint", "unknown-action", "unsupported-action", "unknown-reach-effector",
        "reach-pelvis", "reach-own-joint", "reach-undeclared-prop", "unknown-reach-target",
        "unknown-pin-effector", "pin-body-anchor", "pin-undeclared-prop", "unknown-pin-anchor",
        "unknown-grip-effector", "grip-non-hand", "grip-bad-anchor", "grip-undeclared-prop",
        "grip-grouped-sided-anchor", "grip-anchor-side-mismatch",
    )},
}


def stage_of(code: str) -> str:
    """Stage of an error code (``tokenize``, ``syntax``, ``schema`` or ``resolve``); codes not
    in :data:`CODE_STAGE` count as ``syntax``."""
    return CODE_STAGE.get(code, "syntax")


@dataclass
class Diagnostic:
    """One problem found in a document.

    ``line`` and ``column`` are 1-based positions in the document (for a fenced block in Markdown,
    callers shift ``line`` to the Markdown file). ``severity`` is ``"error"``, ``"warning"`` or
    ``"hint"``; ``hint`` is an optional suggestion ("did you mean ...?"). ``extra`` holds
    machine-readable record fields (rom-clamp: ``phase, joint, action, requested, clamped,
    limit``) that :meth:`to_dict` merges into the top level.
    """

    code: str
    severity: str
    line: int
    column: int
    message: str
    hint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``line, column, code, severity, message``, ``hint`` when set, then the
        ``extra`` fields."""
        d: dict[str, Any] = {
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }
        if self.hint is not None:
            d["hint"] = self.hint
        for key, value in self.extra.items():
            d.setdefault(key, value)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Diagnostic":
        """Inverse of :meth:`to_dict`; unknown keys go to ``extra``."""
        known = {"line", "column", "code", "severity", "message", "hint"}
        return cls(
            code=d["code"],
            severity=d["severity"],
            line=int(d["line"]),
            column=int(d.get("column", 1)),
            message=d["message"],
            hint=d.get("hint"),
            extra={k: v for k, v in d.items() if k not in known},
        )

    def shifted(self, lines: int) -> "Diagnostic":
        """A copy moved down by ``lines`` lines (used for fenced blocks inside Markdown), the
        lines its message and hint name moved with it (:func:`map_line_refs`)."""
        return self.moved(self.line + lines, self.column, lambda n: n + lines)

    def moved(self, line: int, column: int, map_line: Callable[[int], int]) -> "Diagnostic":
        """A copy at file position ``line``/``column`` (1-based) whose message and hint name file
        lines too: every document line they refer to ("indent it like line 3") goes through
        ``map_line`` (document line -> file line), so a fenced block's hints point into the
        Markdown file as its position does."""
        return Diagnostic(self.code, self.severity, line, column, map_line_refs(self.message, map_line),
                          None if self.hint is None else map_line_refs(self.hint, map_line), dict(self.extra))


#: "line 12" / "lines 3" outside double-quoted author text (a step called "Hold line 2" is kept)
_LINE_REF = re.compile(r'"[^"\n]*"|\b(lines? )(\d+)\b')


def map_line_refs(text: str, map_line: Callable[[int], int]) -> str:
    """``text`` with each line number it names ("on line 4", "like line 17") replaced by
    ``map_line(n)``; quoted author text is left alone. The parser's messages name document lines
    this way (blocks.py, statements/); callers that move a diagnostic into a Markdown file map them too."""
    return _LINE_REF.sub(lambda m: m.group(0) if m.group(1) is None
                         else f"{m.group(1)}{map_line(int(m.group(2)))}", text)


def error(code: str, line: int, column: int, message: str, hint: str | None = None) -> Diagnostic:
    """Shorthand for an ``error`` diagnostic."""
    return Diagnostic(code, "error", line, column, message, hint)


def warning(code: str, line: int, column: int, message: str, hint: str | None = None,
            **extra: Any) -> Diagnostic:
    """Shorthand for a ``warning`` diagnostic with record fields in ``extra``."""
    return Diagnostic(code, "warning", line, column, message, hint, dict(extra))


def hint(code: str, line: int, column: int, message: str, suggestion: str | None = None) -> Diagnostic:
    """Shorthand for a ``hint`` diagnostic (never a warning, never an error)."""
    return Diagnostic(code, "hint", line, column, message, suggestion)


#: Whole-document verdicts that restate other errors (``no-steps``: "the step header on line 4
#: could not be read"); they are listed after the errors that explain them, not at line 1.
DOCUMENT_VERDICTS = frozenset({"no-steps"})


def reading_order(d: Diagnostic) -> tuple[bool, int, int]:
    """Sort key of diagnostics as a reader wants them: by line and column, whole-document
    verdicts (:data:`DOCUMENT_VERDICTS`) last, so the first error shown is the one to fix."""
    return (d.code in DOCUMENT_VERDICTS, d.line, d.column)
