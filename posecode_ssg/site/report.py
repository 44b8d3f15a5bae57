"""Human-readable diagnostics: ``path:line:col: severity[code]: message``, source line, caret, hint.

The rustc / Elm shape (see ../shared/design/STYLE.md §11)::

    content/strength/squat.md:14:11: error[unknown-action]: unknown action 'flx' for neck
       14 |     neck: flx 15
          |           ^
      hint: did you mean 'flex'?
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def display_path(path: str | os.PathLike[str]) -> str:
    """Return ``path`` relative to the working directory when it lies below it, else as given."""
    path = Path(path)
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


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


def format_diagnostic(path: str | os.PathLike[str], diagnostic: Any, cache: dict | None = None) -> str:
    """Format one diagnostic (any object with ``code, severity, line, column, message, hint``)."""
    line, column = int(diagnostic.line or 1), int(diagnostic.column or 1)
    out = [f"{display_path(path)}:{line}:{column}: {diagnostic.severity}[{diagnostic.code}]: {diagnostic.message}"]
    text = source_line(path, line, cache) if Path(path).is_file() else None
    if text is not None:
        shown = text.replace("\t", " ")
        gutter = " " * len(str(line))
        out.append(f"  {line} | {shown}")
        out.append(f"  {gutter} | {' ' * (max(column, 1) - 1)}^")
    if getattr(diagnostic, "hint", None):
        out.append(f"  hint: {diagnostic.hint}")
    return "\n".join(out)
