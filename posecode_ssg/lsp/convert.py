"""The server's results as LSP objects (lsprotocol types), every position converted from file
offsets or ``check`` positions into the negotiated encoding (:class:`~.documents.Lines`).

A diagnostic keeps ``check``'s text: ``code``, severity (error 1, warning 2, hint 4: LSP's own
Hint), ``message`` (the hint, when there is one, on a second line ``hint: …`` as ``check`` prints
it beneath), ``source`` ``posecode`` and ``data`` ``{"hint": …}``; its range starts at ``check``'s
line and column and covers what ``check``'s carets underline (:func:`~posecode_ssg.site.report.caret_width`).
"""

from __future__ import annotations

from lsprotocol import types as T

from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.site.report import caret_width

from .documents import Lines

SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
            "hint": T.DiagnosticSeverity.Hint}
SOURCE = "posecode"


def position(lines: Lines, offset: int, encoding: str) -> T.Position:
    p = lines.position(offset, encoding)
    return T.Position(line=p.line, character=p.character)


def span(lines: Lines, a: int, b: int, encoding: str) -> T.Range:
    return T.Range(start=position(lines, a, encoding), end=position(lines, max(a, b), encoding))


def diagnostic_offsets(lines: Lines, d: Diagnostic) -> tuple[int, int]:
    """The (start, end) offsets a ``check`` diagnostic covers (line 0: the document's start)."""
    if not d.line or d.line < 1:
        return 0, 0
    start = lines.check_offset(d.line, d.column)
    text = lines.check_line(d.line)
    width = getattr(d, "span", 0) or (d.extra or {}).get("width", 0)
    if not isinstance(width, int) or width <= 0:
        width = caret_width(text, d.column)
    line_end = lines.check_offset(d.line, len(text) + 1)
    return start, max(start, min(start + width, line_end))


def message_of(d: Diagnostic) -> str:
    return d.message + (f"\nhint: {d.hint}" if d.hint else "")


def diagnostic(lines: Lines, d: Diagnostic, encoding: str) -> T.Diagnostic:
    """One ``check`` diagnostic for the client."""
    a, b = diagnostic_offsets(lines, d)
    return T.Diagnostic(range=span(lines, a, b, encoding), message=message_of(d),
                        severity=SEVERITY.get(d.severity, T.DiagnosticSeverity.Information),
                        code=d.code, source=SOURCE, data={"hint": d.hint} if d.hint else None)


COMPLETION_KIND = {k: getattr(T.CompletionItemKind, k) for k in
                   ("Keyword", "EnumMember", "Field", "Method", "Variable", "Constant", "Value")}


def completion_item(item, rng: T.Range, order: int) -> T.CompletionItem:
    return T.CompletionItem(label=item.label, kind=COMPLETION_KIND.get(item.kind, T.CompletionItemKind.Text),
                            detail=item.detail, documentation=item.doc or None,
                            sort_text=f"{order:04d}", filter_text=item.label,
                            text_edit=T.TextEdit(range=rng, new_text=item.insert))
