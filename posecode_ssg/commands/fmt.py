"""``posecode-ssg fmt [--check] PATH...``: rewrite Posecode in its one canonical layout (issue 26
item 2; the layout is :mod:`posecode_ssg.language.format`'s, documented in docs/language.md,
"Formatting").

Files and folders are found as ``check`` finds them (:func:`posecode_ssg.checking.find_documents_with_roots`:
``.posecode`` files and the ```` ```posecode ```` fences of ``.md`` files, folders searched
recursively, hidden folders and ``node_modules`` skipped). A ``.posecode`` file is formatted as
one document, a ``.md`` file fence by fence in place; files are rewritten only when they change,
keeping their line ends and byte order mark. Prints ``reformatted PATH`` for each file changed,
then a summary line.

A document with errors is left unchanged and its errors are printed exactly as ``check`` prints
them (:func:`posecode_ssg.site.report.format_diagnostic`, at the lines of the file as it is on disk
afterwards). ``--check`` writes nothing and prints ``would reformat PATH`` for each file that
would change.

Exit status: 0 all formatted (or, with ``--check``, nothing would change); 1 a document has
errors, a file cannot be read or written, or (``--check``) a file would change; 2 a path that does
not exist, or nothing to format.
"""

from __future__ import annotations

import sys
from pathlib import Path

from posecode_ssg.checking import _read, find_documents_with_roots
from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.format import FormatResult, format_markdown, format_source
from posecode_ssg.language.lexer import split_lines
from posecode_ssg.site.problems import Problem
from posecode_ssg.site.report import format_diagnostic

__all__ = ["run", "format_text"]


def format_text(path: Path, text: str) -> FormatResult:
    """Format the text of file ``path``: a ``.md`` page fence by fence, anything else as one
    Posecode document."""
    if path.suffix.lower() == ".md":
        return format_markdown(text)
    return format_source(text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _print_errors(shown: str, text: str, diagnostics: list) -> None:
    """Print ``diagnostics`` as ``check`` prints them, with source lines from ``text``."""
    lines = split_lines(text)
    for d in diagnostics:
        print(format_diagnostic(shown, Problem.of(d, shown), lines=lines, shown=shown))


def run(args) -> int:
    """Entry point of ``posecode-ssg fmt`` (argparse namespace with ``paths`` and ``check``).
    Returns the exit status."""
    check_only = bool(getattr(args, "check", False))
    files, _roots, problems = find_documents_with_roots(args.paths)
    for p in problems:
        print(f"posecode-ssg fmt: {p}", file=sys.stderr)
    if problems:
        return 2
    if not files:
        print("posecode-ssg fmt: no .posecode or .md files found in " + ", ".join(args.paths),
              file=sys.stderr)
        return 2

    changed = failed = unchanged = 0
    for path in files:
        shown = str(path)
        text, problem = _read(path)
        if text is None:
            failed += 1
            _print_errors(shown, "", [Diagnostic("unreadable-file", "error", 1, 1,
                                                 problem or "cannot read file")])
            continue
        result = format_text(path, text)
        final = text
        if result.changed:
            changed += 1
            if check_only:
                print(f"would reformat {shown}")
            else:
                try:
                    path.write_bytes(result.text.encode("utf-8"))
                except OSError as exc:
                    failed += 1
                    print(f"posecode-ssg fmt: {shown}: cannot write file: {exc.strerror or exc}",
                          file=sys.stderr)
                    continue
                final = result.text
                print(f"reformatted {shown}")
        if result.diagnostics:
            failed += 1
            diagnostics = result.diagnostics
            if final is not text:
                # the fences with errors were kept, but earlier fences may have grown or shrunk:
                # report them at the lines of the file as written (what `check` now prints)
                diagnostics = format_text(path, final).diagnostics
            _print_errors(shown, final, diagnostics)
        elif not result.changed:
            unchanged += 1

    verb = "would be reformatted" if check_only else "reformatted"
    summary = (f"{_plural(changed, 'file')} {verb}, "
               f"{_plural(unchanged, 'file')} {'already formatted' if check_only else 'left unchanged'}")
    if failed:
        summary += f", {_plural(failed, 'file')} with errors"
    print(summary)
    return 1 if failed or (check_only and changed) else 0
