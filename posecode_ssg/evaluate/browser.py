"""Headless Chromium for ``posecode-ssg eval`` and the browser tests: one home for finding and
launching the browser (../shared/design/browser-stack.md §1).

The browser is, in this order: ``$POSECODE_CHROMIUM``; Playwright's own Chromium, where its download
is installed for the installed Playwright version (the build Playwright is tested with); else the
system Chromium (Debian's ``/usr/bin/chromium``, which is what CI installs: Playwright's download
does not work on this machine kind). Playwright already passes
``--headless --no-sandbox``; the only flag added is ``--enable-unsafe-swiftshader`` (software
WebGL without the deprecation notice). ``--disable-software-rasterizer`` must never be passed: it
turns WebGL off.
"""

from __future__ import annotations

import functools
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
    """Path of a system Chromium (``chromium`` on PATH, else /usr/bin/chromium), or None."""
    for cand in (shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and Path(cand).exists():
            return cand
    return None


@functools.lru_cache(maxsize=1)
def playwright_chromium() -> str | None:
    """Path of Playwright's own Chromium for the installed ``playwright`` package when that download
    is present (``playwright install chromium``), else None (also without Playwright).

    Asks Playwright itself (``BrowserType.executable_path``, Playwright for Python docs), which names
    the build matching its version without launching it."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    try:
        with sync_playwright() as pw:
            exe = pw.chromium.executable_path
    except Exception:  # no driver, or a broken install: treat as "not installed"
        return None
    return exe if exe and Path(exe).exists() else None


def playwright_has_own_browser() -> bool:
    """True when Playwright's own Chromium download is installed for this Playwright version."""
    return playwright_chromium() is not None


def chromium_executable() -> str | None:
    """The Chromium to launch: ``$POSECODE_CHROMIUM``, else Playwright's own, else the system's;
    None when there is none."""
    env = os.environ.get("POSECODE_CHROMIUM")
    if env and Path(env).exists():
        return env
    return playwright_chromium() or find_chromium()


def have_browser() -> bool:
    """True when some Chromium can be launched (see :func:`chromium_executable`)."""
    return chromium_executable() is not None


def launch_args() -> dict:
    """Keyword arguments for ``playwright.chromium.launch``: headless, the flags above and the
    executable of :func:`chromium_executable`."""
    args: dict = {"headless": True, "args": list(LAUNCH_ARGS)}
    exe = chromium_executable()
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
