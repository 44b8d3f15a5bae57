"""``posecode-ssg lsp [--stdio]``: run the Posecode language server on stdin/stdout for editors
(docs/lsp.md; the server is :mod:`posecode_ssg.lsp`). It needs pygls, the ``lsp`` extra.

Exit status: 0 after the client's ``shutdown`` and ``exit``, 1 when the client exits without
``shutdown`` (LSP's rule), 2 when pygls is not installed. Log lines go to standard error
(``POSECODE_LSP_LOG=debug`` for more than warnings).
"""

from __future__ import annotations

import logging
import os
import sys

INSTALL = "pip install 'posecode-ssg[lsp]'"


def run(args) -> int:
    """Entry point of ``posecode-ssg lsp`` (argparse namespace with ``stdio``)."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        print("posecode-ssg lsp: the language server needs pygls, which is not installed; "
              f"install it with: {INSTALL}", file=sys.stderr)
        return 2
    # stdout carries the protocol: every log line goes to stderr
    level = os.environ.get("POSECODE_LSP_LOG", "WARNING").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.WARNING),
                        format="posecode-ssg lsp: %(levelname)s %(name)s: %(message)s")
    from posecode_ssg.lsp.server import serve

    return serve()
