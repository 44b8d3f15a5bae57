"""Fixtures for the browser tests: Playwright's own Chromium where it is installed, else
Debian's, a static HTTP server on 127.0.0.1 in a daemon thread, and a :class:`RuntimeSite`
that holds the runtime bundle, rig.json and generated pages (../shared/design/browser-stack.md §1).
Tests skip, not fail, when no Chromium is found."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

from .pages import CHROMIUM, REPO, QuietHandler, RuntimeSite


def pytest_addoption(parser):
    """``--update-baselines``: rewrite the screenshot baselines (playwright_tests/baselines/)
    from this run instead of comparing with them (docs/testing.md)."""
    parser.addoption("--update-baselines", action="store_true", default=False,
                     help="rewrite the screenshot baselines in playwright_tests/baselines/ from this run")


@pytest.fixture(scope="session")
def update_baselines(pytestconfig) -> bool:
    """True when the run was started with ``--update-baselines``."""
    return bool(pytestconfig.getoption("--update-baselines"))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch :data:`CHROMIUM`: Playwright's own where installed, else Debian's (docs/testing.md)."""
    if CHROMIUM is None:
        return browser_type_launch_args
    return {**browser_type_launch_args, "executable_path": CHROMIUM}


@pytest.fixture(scope="session")
def runtime_site(tmp_path_factory):
    """A :class:`RuntimeSite` served from 127.0.0.1 for the whole session."""
    root = tmp_path_factory.mktemp("runtime-site")
    with serve_folder(root) as base_url:
        yield RuntimeSite(root, base_url)


#: the generated page of many figures in the built test library (test_pages.py)
MANY_FIGURES = 200


class BuiltSite:
    """The demo library (``content/`` of the repository) built once by
    :func:`posecode_ssg.site.build.build_site` and served on 127.0.0.1.

    ``root`` is the output folder, ``base_url`` its URL (no trailing slash), ``result`` the
    :class:`BuildResult`; ``url(path)`` joins a site path such as ``"strength/push-up/"``.
    One generated section is added to the copied content: ``zz-test/many-figures.md`` with
    :data:`MANY_FIGURES` Posecode fences."""

    def __init__(self, root: Path, base_url: str, result):
        self.root, self.base_url, self.result = root, base_url.rstrip("/"), result

    def url(self, path: str = "") -> str:
        return f"{self.base_url}/{path.lstrip('/')}"


def many_figures_page(n: int) -> str:
    """Markdown of one page holding ``n`` small Posecode figures (two alternating movements)."""
    fences = []
    for i in range(n):
        knees = 30 + 40 * (i % 2)
        fences.append(f"""```posecode autoplay=false
posecode exercise "Knee bend {i % 2 + 1}"
  rig humanoid
  pose start = standing

  step "Bend" 1s settle:
    knees: flex {knees}
    hips: flex {knees // 2}
    ground-lock: feet

  step "Stand" 1s drive:
    knees: flex 0
    hips: flex 0
    ground-lock: feet
```
""")
    return ("---\ntitle: Many figures\nsummary: A stress page of the browser tests.\n---\n\n"
            "# Many figures\n\n" + "\n".join(fences))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """A :class:`BuiltSite`: ``content/`` plus the many-figures page, built once per session
    and served from a daemon thread; skips when the runtime bundle is not built."""
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import RUNTIME_BUNDLE, build_site

    if not RUNTIME_BUNDLE.exists():
        pytest.skip("runtime bundle not built (pip install -e . with Node.js, or npm ci && npm run build)")
    work = tmp_path_factory.mktemp("built-site")
    shutil.copytree(REPO / "content", work / "content")
    (work / "content" / "zz-test").mkdir()
    (work / "content" / "zz-test" / "many-figures.md").write_text(many_figures_page(MANY_FIGURES), encoding="utf-8")
    result = build_site(load_config(cwd=work), out_dir=work / "site", progress=False)
    assert not result.errors, result.errors[:3]
    with serve_folder(work / "site") as base_url:
        yield BuiltSite(work / "site", base_url, result)


@contextlib.contextmanager
def serve_folder(folder: Path):
    """Serve ``folder`` over HTTP on 127.0.0.1 (a free port) from a daemon thread; yields the
    base URL (no trailing slash)."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
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
