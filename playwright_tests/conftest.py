"""Fixtures for the browser tests: Debian's Chromium (or Playwright's own browser when it is
installed), a static HTTP server on 127.0.0.1 in a daemon thread, and a :class:`RuntimeSite`
that holds the runtime bundle, rig.json and generated pages (../shared/design/browser-stack.md §1).
Tests skip, not fail, when no Chromium is found."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from .pages import CHROMIUM, QuietHandler, RuntimeSite


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium when present (Playwright's own download does not work here)."""
    if CHROMIUM is None:
        return browser_type_launch_args
    return {**browser_type_launch_args, "executable_path": CHROMIUM}


@pytest.fixture(scope="session")
def runtime_site(tmp_path_factory):
    """A :class:`RuntimeSite` served from 127.0.0.1 for the whole session."""
    root = tmp_path_factory.mktemp("runtime-site")
    handler = functools.partial(QuietHandler, directory=str(root))
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
