"""Fixtures for the browser tests: Debian's Chromium (or Playwright's own browser when it is
installed), a static HTTP server on 127.0.0.1 in a daemon thread, and a :class:`RuntimeSite`
that holds the runtime bundle, rig.json and generated pages (../shared/design/browser-stack.md §1).
Tests skip, not fail, when no Chromium is found."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from pages import RuntimeSite


def _find_chromium() -> str | None:
    for cand in (os.environ.get("POSECODE_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and Path(cand).exists():
            return cand
    return None


CHROMIUM = _find_chromium()


def _playwright_has_own_browser() -> bool:
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH", Path.home() / ".cache" / "ms-playwright"))
    return any(root.glob("chromium*/chrome-linux*/chrome")) or any(root.glob("chromium_headless_shell*/*/*shell"))


HAVE_BROWSER = CHROMIUM is not None or _playwright_has_own_browser()
needs_browser = pytest.mark.skipif(not HAVE_BROWSER, reason="no Chromium found (apt-get install chromium)")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium when present (Playwright's own download does not work here)."""
    if CHROMIUM is None:
        return browser_type_launch_args
    return {**browser_type_launch_args, "executable_path": CHROMIUM}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="session")
def runtime_site(tmp_path_factory):
    """A :class:`RuntimeSite` served from 127.0.0.1 for the whole session."""
    root = tmp_path_factory.mktemp("runtime-site")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield RuntimeSite(root, f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()


IGNORED_CONSOLE = ("GPU stall due to ReadPixels", "Automatic fallback to software WebGL")


@pytest.fixture
def rt_page(browser):
    """A fresh 800×600 page (device scale 1) whose console errors, warnings and page errors are
    collected in ``page.problems``."""
    context = browser.new_context(viewport={"width": 800, "height": 600}, device_scale_factor=1)
    page = context.new_page()
    page.problems = []

    def on_console(msg):
        if msg.type in ("error", "warning") and not any(s in msg.text for s in IGNORED_CONSOLE):
            page.problems.append(f"{msg.type}: {msg.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: page.problems.append(f"pageerror: {exc}"))
    yield page
    context.close()
