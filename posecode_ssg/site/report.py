"""Human-readable diagnostics: ``path:line:col: severity[code]: message``, source line, caret, hint.

The rustc / Elm shape (see ../shared/design/STYLE.md §11)::

    content/strength/squat.md:14:11: error[unknown-action]: unknown action 'flx' for neck
        14 |     neck: flx 15
           |           ^^^
           = hint: did you mean 'flex'?
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any


def display_path(path: str | os.PathLike[str]) -> str:
    """Return ``path`` relative to the working directory when it lies below it, else as given."""
    return _display_path(os.fspath(path), os.getcwd())


@functools.lru_cache(maxsize=4096)
def _display_path(path: str, cwd: str) -> str:
    # remembered per (path, working directory): resolving both walks every component with a
    # system call (37 µs a call), and a build prints several diagnostics a page
    try:
        return Path(path).resolve().relative_to(Path(cwd).resolve()).as_posix()
    except ValueError:
        return str(Path(path))


def source_line(path: str | os.PathLike[str], line: int, cache: dict | None = None) -> str | None:
    """Return 1-based ``line`` of a UTF-8 file (BOM dropped, LF/CRLF line ends only), or ``None``."""
    key = str(path)
    lines = cache.get(key) if cache is not None else None
    if lines is None:
        try:
            text = Path(path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None
        text = text[1:] if text.startswith("\ufeff") else text
        lines = [l[:-1] if l.endswith("\r") else l for l in text.split("\n")]
        if cache is not None:
            cache[key] = lines
    return lines[line - 1] if 1 <= line <= len(lines) else None


#: what a caret run underlines: a quoted string, or a word (names, numbers, paths and links:
#: ``kne_left``, ``1.5s``, ``../posture/nod.md#nowhere``, ``/exercises/nope/``)
_WORD = re.compile(r'"[^"]*"?|[A-Za-z0-9_.\-/#%~]+')


def caret_width(text: str, column: int) -> int:
    """How many carets underline the word (or quoted string) that starts at 1-based ``column`` of a
    source line ``text`` (tabs counted as one space, a BOM dropped): its length, at most 40, at least
    one. The terminal excerpt and the dev server's overlay (``Problem.width``) both use it."""
    raw = text.replace("\t", " ").replace("\ufeff", "")
    m = _WORD.match(raw, max(1, min(column, len(raw) + 1)) - 1)
    return max(1, min(len(m.group(0)) if m else 1, 40))


def excerpt(line: int, column: int, text: str, width: int = 0) -> list[str]:
    """The two excerpt rows under a diagnostic: the source line and a caret run of ``width``
    (when given; else under the word at ``column``, :func:`caret_width`). ``line`` and
    ``column`` are 1-based."""
    raw = text.replace("\t", " ").replace("\ufeff", "")
    number = str(line)
    col = max(1, min(column, len(raw) + 1))
    carets = width if width > 0 else caret_width(text, column)
    return [f"    {number} | {raw}", f"    {' ' * len(number)} | {' ' * (col - 1)}{'^' * carets}"]


def format_diagnostic(path: str | os.PathLike[str], diagnostic: Any, cache: dict | None = None, *,
                      lines: list[str] | None = None, shown: str | None = None) -> str:
    """Format one diagnostic (any object with ``code, severity, line, column, message, hint``).

    The source line comes from ``lines`` (the file's lines) when given, else from the file at
    ``path`` (read once per ``cache``). ``shown`` replaces the displayed path (default
    :func:`display_path`). The one formatter of ``check``, ``build``, ``serve`` and ``eval``.
    A diagnostic about a folder, or with line 0 (no position), is shown without line and column.
    The carets are ``diagnostic.span`` (or ``extra["width"]``) long when it has one (a multi-word
    front-matter value).
    """
    line, column = int(diagnostic.line or 1), int(diagnostic.column or 1)
    where = shown if shown is not None else display_path(path)
    if not diagnostic.line or Path(path).is_dir():   # about a folder, or no position (line 0)
        return f"{where}: {diagnostic.severity}[{diagnostic.code}]: {diagnostic.message}" + (
            f"\n    = hint: {diagnostic.hint}" if getattr(diagnostic, "hint", None) else "")
    out = [f"{where}:{line}:{column}: {diagnostic.severity}[{diagnostic.code}]: {diagnostic.message}"]
    if lines is not None:
        text = lines[line - 1] if 1 <= line <= len(lines) else None
    else:
        text = source_line(path, line, cache) if Path(path).is_file() else None
    if text is not None:
        width = getattr(diagnostic, "span", 0) or (getattr(diagnostic, "extra", None) or {}).get("width", 0)
        out.extend(excerpt(line, column, text, width if isinstance(width, int) else 0))
    if getattr(diagnostic, "hint", None):
        out.append(f"    {' ' * len(str(line))} = hint: {diagnostic.hint}")
    return "\n".join(out)
