"""Headless Chromium for ``posecode-ssg eval`` and the browser tests: one home for finding and
launching the browser (../shared/design/browser-stack.md §1).

Debian's ``/usr/bin/chromium`` is preferred (``$POSECODE_CHROMIUM`` overrides it); Playwright's own
download is used when it is installed and no system Chromium is found. Playwright already passes
``--headless --no-sandbox``; the only flag added is ``--enable-unsafe-swiftshader`` (software
WebGL without the deprecation notice). ``--disable-software-rasterizer`` must never be passed: it
turns WebGL off.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: the one-line advice printed when Playwright or a browser is missing
INSTALL_HINT = ("install it with: pip install 'posecode-ssg[eval]' (Playwright for Python) and "
                "apt-get install chromium (the browser; `playwright install chromium` also works "
                "where its download is reachable)")

#: extra Chromium flags (browser-stack.md §1)
LAUNCH_ARGS = ("--enable-unsafe-swiftshader",)


class BrowserUnavailable(RuntimeError):
    """Playwright for Python or a Chromium binary is missing; the message says what to install."""


def find_chromium() -> str | None:
    """Path of a system Chromium (``$POSECODE_CHROMIUM``, ``chromium`` on PATH, /usr/bin/chromium),
    or None when there is none."""
    for cand in (os.environ.get("POSECODE_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and Path(cand).exists():
            return cand
    return None


def playwright_has_own_browser() -> bool:
    """True when Playwright's own Chromium download is installed (``PLAYWRIGHT_BROWSERS_PATH`` or
    ``~/.cache/ms-playwright``)."""
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH", Path.home() / ".cache" / "ms-playwright"))
    return any(root.glob("chromium*/chrome-linux*/chrome")) or any(root.glob("chromium_headless_shell*/*/*shell"))


def have_browser() -> bool:
    """True when some Chromium can be launched (system or Playwright's)."""
    return find_chromium() is not None or playwright_has_own_browser()


def launch_args() -> dict:
    """Keyword arguments for ``playwright.chromium.launch``: the system Chromium when present."""
    args: dict = {"headless": True, "args": list(LAUNCH_ARGS)}
    exe = find_chromium()
    if exe is not None:
        args["executable_path"] = exe
    return args


def start_browser():
    """Start Playwright and launch headless Chromium.

    Returns ``(playwright, browser)``; the caller closes the browser and stops Playwright.
    Raises :class:`BrowserUnavailable` (with an install hint) when the ``playwright`` package or
    any Chromium is missing, or when the launch fails."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise BrowserUnavailable(f"Playwright for Python is not installed ({exc}); {INSTALL_HINT}") from None
    if not have_browser():
        raise BrowserUnavailable(f"no Chromium browser found; {INSTALL_HINT}")
    pw = sync_playwright().start()
    try:
        browser = pw.chromium.launch(**launch_args())
    except Exception as exc:  # playwright raises its own Error type for a failed launch
        pw.stop()
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BrowserUnavailable(f"Chromium could not be started ({first}); {INSTALL_HINT}") from None
    return pw, browser
