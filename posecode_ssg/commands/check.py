"""``posecode-ssg check PATH...``: validate Posecode like a compiler (the checks are
:mod:`posecode_ssg.checking`'s; this module parses the arguments, prints and sets the exit status).

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

A ``.md`` file is also checked as a page, as ``build`` checks it (:class:`PageChecker`): front
matter, fence attributes and internal links, reported first, as one page document.

``--format json`` prints one JSON array with an object per document: ``path``, ``fence_line``
(fences only), ``page`` (page documents only), the keys of :meth:`ParseResult.to_dict` and
``kinematic`` (a list of diagnostic dicts). The summary counts kinematic warnings inside the
warnings (``2 warnings (2 kinematic)``), and ``kinematic-balance`` (severity ``hint``: advice on
how the movement looks) inside the hints. ``--strict`` makes warnings (kinematic ones included)
fail, never hints.

Exit status: 0 clean, 1 problems found (errors, or warnings with ``--strict``), 2 usage error
(a path that does not exist, or nothing to check).
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from posecode_ssg.checking import (
    CheckedDocument,
    PageChecker,
    add_kinematics,
    check_documents,
    check_file,
    find_documents,
    find_documents_with_roots,
)
from posecode_ssg.site.problems import Problem
from posecode_ssg.site.report import format_diagnostic

__all__ = ["run", "format_text", "CheckedDocument", "PageChecker", "add_kinematics", "check_file", "find_documents"]


def format_text(docs: list[CheckedDocument], out: TextIO) -> None:
    """Write compiler-style diagnostics for every document (:func:`~posecode_ssg.site.report.format_diagnostic`)."""
    for doc in docs:
        for d in doc.diagnostics():
            out.write(format_diagnostic(doc.path, Problem.of(d, doc.path), lines=doc.file_lines, shown=doc.path) + "\n")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _warn_invalid_config(config: str | None) -> bool:
    """Say on stderr when the site's configuration cannot be used, and return True then: pages are
    checked with the defaults (links in the checked folder, the built-in taxonomies), and the check
    fails as the build would."""
    from posecode_ssg.config import PosecodeError, load_config

    try:
        load_config(config)
    except PosecodeError as exc:
        print(f"{exc}\nposecode-ssg check: the configuration is invalid (the build fails on it); pages "
              "are checked with the defaults (the built-in taxonomies)", file=sys.stderr)
        return True
    except OSError:
        pass
    return False


def run(args) -> int:
    """Entry point of ``posecode-ssg check`` (argparse namespace with ``paths``, ``format``,
    ``strict``). Returns the exit status."""
    files, roots, problems = find_documents_with_roots(args.paths)
    for p in problems:
        print(f"posecode-ssg check: {p}", file=sys.stderr)
    if problems:
        return 2
    if not files:
        print("posecode-ssg check: no .posecode or .md files found in "
              + ", ".join(args.paths), file=sys.stderr)
        return 2
    bad_config = _warn_invalid_config(getattr(args, "config", None))
    docs = check_documents(files, roots, getattr(args, "config", None))

    errors = sum(len(d.result.errors) for d in docs)
    kinematic = sum(1 for d in docs for k in d.kinematic if k.severity != "hint")
    warnings = sum(len(d.result.warnings) for d in docs) + kinematic
    hints = sum(len(d.result.hints) for d in docs) + sum(1 for d in docs for k in d.kinematic if k.severity == "hint")
    failed = bad_config or errors > 0 or (getattr(args, "strict", False) and warnings > 0)

    if getattr(args, "format", "text") == "json":
        json.dump([d.to_dict() for d in docs], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        format_text(docs, sys.stdout)
        posecode = [d for d in docs if not d.page]
        bad = [_plural(sum(1 for d in docs if d.page and d.result.errors), "page"),
               _plural(sum(1 for d in posecode if d.result.errors), "document")]
        bad = [b for b in bad if not b.startswith("0 ")]
        summary = (f"checked {_plural(len(posecode), 'document')} in {_plural(len(files), 'file')}: "
                   f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
                   f"{f' ({kinematic} kinematic)' if kinematic else ''}, {_plural(hints, 'hint')}")
        if bad_config:
            bad.insert(0, "the configuration")
        if bad:
            summary += f" ({' and '.join(bad)} failed)"
        elif failed:
            summary += " (warnings fail with --strict)"
        print(summary)
    return 1 if failed else 0
