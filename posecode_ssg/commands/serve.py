"""``posecode-ssg serve``: live preview of the site with live reload.

Thin by design (the MkDocs shape): read the configuration, hand the project to
``posecode_ssg.site.serve`` and run until Ctrl-C. Exit status: 0 after a clean
stop, 1 when the configuration is invalid at start, 2 when the address
cannot be bound.
"""

from __future__ import annotations

import argparse
import sys

from posecode_ssg.config import ConfigError
from posecode_ssg.site.serve import LiveSite, ProjectSource, run_server


def run(args: argparse.Namespace) -> int:
    """Serve the project named by ``args`` (``config``, ``content``, ``watch``,
    ``host``, ``port``, ``open``); returns the exit status."""
    try:
        source = ProjectSource(args.config, args.content)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    if not source.config.content_dir.is_dir():
        print(f"posecode-ssg serve: content folder not found: {source.config.content_dir}", file=sys.stderr)
        return 1
    live = LiveSite(source, watch=args.watch)
    return run_server(live, host=args.host, port=args.port, open_browser=args.open)
