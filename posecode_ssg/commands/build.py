"""``posecode-ssg build [--config FILE] [--content DIR] [--out DIR] [--strict]``.

Thin: load and validate the config, apply the flags, run
:func:`posecode_ssg.site.build.build_site`, print every diagnostic
(``file:line:col``, source line, hint) and one summary line. Exit status 0
on success, 1 when the build failed (errors, or warnings with ``--strict``;
the previous site is then left untouched), 2 on a configuration error.
"""

from __future__ import annotations

import argparse
import sys

from posecode_ssg.config import ConfigError, PosecodeError, load_config
from posecode_ssg.site.problems import Problem
from posecode_ssg.site.report import display_path, format_diagnostic


def run(args: argparse.Namespace) -> int:
    """Build the site; returns the exit status."""
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    config = config.with_overrides(content=args.content, out=args.out, strict=args.strict or None)
    from posecode_ssg.site.build import build_site

    try:
        result = build_site(config, progress=sys.stderr.isatty())
    except PosecodeError as exc:
        print(f"posecode-ssg: error: {exc}", file=sys.stderr)
        return 1
    cache: dict = {}
    items = sorted([*result.errors, *result.warnings, *result.hints],
                   key=lambda item: (str(item[0]), item[1].line, item[1].column))
    for path, diagnostic in items:
        print(format_diagnostic(path, Problem.of(diagnostic, path), cache), file=sys.stderr)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    out = display_path(result.output_dir) + "/"
    counts = (f"{_plural(len(result.pages), 'page')}, {_plural(result.figures, 'figure')}, "
              f"{_plural(len(result.errors), 'error')}, {_plural(len(result.warnings), 'warning')}"
              f"{', ' + _plural(len(result.hints), 'hint') if result.hints else ''} "
              f"in {result.seconds:.2f} s")
    if result.failed:
        why = "errors" if result.errors else \
            "warnings with --strict" if args.strict else "warnings with strict = true in the config"
        print(f"build failed ({why}): {counts}; {out} left unchanged", file=sys.stderr)
        return 1
    state = "unchanged" if result.unchanged else f"written to {out}"
    print(f"built {counts} ({_plural(result.compiled, 'figure')} compiled); site {state}")
    return 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
