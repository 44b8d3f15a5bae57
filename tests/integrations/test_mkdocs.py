"""The MkDocs plugin ``posecode`` (issue 23 item 1) on the fixture site tests/fixtures/mkdocs_site
(MkDocs Material, admonitions, details, content tabs, a sub-path ``site_url``): every fence
becomes a figure where it was written, the head points at the runtime, rig and stylesheet written
into the site, and problems are logged at Markdown file lines so ``--strict`` fails."""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("material")

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "mkdocs_site"
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
VOID = {"meta", "link", "img", "br", "hr", "input", "source", "col", "wbr"}


def copy_fixture(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project)
    return project


def mkdocs_build(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", *args], cwd=project, env=ENV,
                          capture_output=True, text=True, timeout=300)


class Figures(HTMLParser):
    """Each ``<posecode-figure>``'s attributes with the elements around it (``tag.class``)."""

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, str]] = []
        self.figures: list[tuple[dict, list[str]]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "posecode-figure":
            self.figures.append((a, [f"{t}.{c}" for t, c in self.stack]))
        if tag not in VOID:
            self.stack.append((tag, a.get("class") or ""))

    def handle_startendtag(self, tag, attrs):
        pass   # <path/> and the like: nothing to enclose

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break


def figures_of(path: Path) -> list[tuple[dict, list[str]]]:
    parser = Figures()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.figures


def head_urls(path: Path) -> dict[str, str]:
    """The rig meta's, the stylesheet's and the runtime's URLs in a page's head."""
    text = path.read_text(encoding="utf-8")
    head = text[:text.index("</head>")]
    return {"rig": re.search(r'<meta name="posecode-rig" content="([^"]+)"', head).group(1),
            "css": re.search(r'<link rel="stylesheet" href="([^"]*posecode\.css)"', head).group(1),
            "runtime": re.search(r"const u=new URL\('([^']+)'", head).group(1)}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = copy_fixture(tmp_path_factory.mktemp("mkdocs"))
    run = mkdocs_build(project, "--strict")
    assert run.returncode == 0, run.stderr
    return project / "site"


def test_every_fence_is_a_figure_where_it_was_written(built):
    home = figures_of(built / "index.html")
    assert [a["data-title"] for a, _ in home] == ["Bodyweight squat", "Chin nod"]
    # the second fence is indented under a numbered list item: it stays in that item
    assert any(e.startswith("li.") for e in home[1][1]) and not any(e.startswith("li.") for e in home[0][1])
    assert home[1][0]["data-view"] == "side"
    inside = figures_of(built / "guide" / "containers" / "index.html")
    assert [a["data-title"] for a, _ in inside] == ["In a note", "In details", "In a tab"]
    assert "div.admonition note" in inside[0][1]
    assert any(e.startswith("details.") for e in inside[1][1])
    assert "div.tabbed-block" in inside[2][1]
    for _a, around in home + inside:   # never wrapped in a paragraph (Python-Markdown's <p>)
        assert not any(e.startswith("p.") for e in around)
    text = (built / "guide" / "containers" / "index.html").read_text(encoding="utf-8")
    assert "posecodefigure" not in text and "Not a figure" in text   # a fence in a ````markdown listing stays code


# (not named "page": that is pytest-playwright's fixture, and a parameter of that name would pull
# this test into the browser tests' session group)
@pytest.mark.parametrize("built_page,depth", [("index.html", 0), ("guide/containers/index.html", 2),
                                              ("guide/reading/index.html", 2)])
def test_head_points_at_the_files_written_into_the_site(built, built_page, depth):
    page = built_page
    urls = head_urls(built / page)
    assert urls["rig"] == "../" * depth + "assets/posecode/rig.json"
    for url in urls.values():
        assert (built / posixpath.normpath(posixpath.join(posixpath.dirname(page), url))).is_file(), url
    rig = json.loads((built / "assets" / "posecode" / "rig.json").read_text(encoding="utf-8"))
    assert rig["format"] == "posecode-rig/1"
    bundle = Path(__file__).resolve().parents[2] / "posecode_ssg" / "runtime" / "dist" / "posecode-runtime.js"
    if bundle.is_file():
        assert (built / "assets" / "posecode" / "posecode-runtime.js").read_bytes() == bundle.read_bytes()


def test_dark_scheme_colours_come_from_the_theme(built):
    """The stylesheet gives the figures the default theme's dark colours under Material's slate."""
    css = (built / "assets" / "posecode" / "posecode.css").read_text(encoding="utf-8")
    theme = (Path(__file__).resolve().parents[2] / "posecode_ssg" / "themes" / "default" / "static" /
             "style.css").read_text(encoding="utf-8")
    dark_ground = re.findall(r"--pc-ground:\s*(#[0-9a-f]+)", theme)[1]
    rule = re.search(r'\[data-md-color-scheme="slate"\] posecode-figure[^{]*\{([^}]*)\}', css).group(1)
    assert f"--pc-ground:{dark_ground}" in rule


def test_directory_urls_off_and_no_superfences(tmp_path):
    project = copy_fixture(tmp_path)
    yml = (project / "mkdocs.yml").read_text(encoding="utf-8")
    yml = yml.replace("  - pymdownx.superfences\n", "").replace("site_url: https://example.org/library/\n",
                                                                  "site_url: https://example.org/library/\n"
                                                                  "use_directory_urls: false\n")
    (project / "mkdocs.yml").write_text(yml, encoding="utf-8")
    run = mkdocs_build(project, "--strict")
    assert run.returncode == 0, run.stderr
    page = project / "site" / "guide" / "containers.html"
    assert [a["data-title"] for a, _ in figures_of(page)] == ["In a note", "In details", "In a tab"]
    assert head_urls(page)["rig"] == "../assets/posecode/rig.json"
    assert head_urls(project / "site" / "index.html")["rig"] == "assets/posecode/rig.json"


BROKEN = """---
title: Broken
---

# A typo

!!! warning "Careful"
    ```posecode title="Typo" colour=red
    posecode exercise "Typo"
      rig humanoid
      pose start = standing
      step "Bend" 1s settle:
        kneees: flex 40
    ```
"""


def _line_col(text: str, needle: str) -> tuple[int, int]:
    for n, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return n, line.index(needle) + 1
    raise AssertionError(needle)


def test_problems_name_the_markdown_file_line_and_column(tmp_path):
    project = copy_fixture(tmp_path)
    (project / "docs" / "broken.md").write_text(BROKEN, encoding="utf-8")
    strict = mkdocs_build(project, "--strict")
    assert strict.returncode != 0
    line, col = _line_col(BROKEN, "kneees")
    assert f"docs/broken.md:{line}:{col}: error[unknown-joint]" in strict.stderr
    assert "did you mean `knees`?" in strict.stderr
    aline, acol = _line_col(BROKEN, "colour=red")
    assert f"docs/broken.md:{aline}:{acol}: warning[fence-attribute]" in strict.stderr
    # the same text `posecode-ssg check` prints for the same file
    check = subprocess.run([sys.executable, "-m", "posecode_ssg", "check", "docs/broken.md"], cwd=project,
                           capture_output=True, text=True, timeout=120)
    first = next(ln for ln in check.stdout.splitlines() if "unknown-joint" in ln)
    assert first in strict.stderr
    # without --strict MkDocs finishes, logging the error; the page shows the error box
    loose = mkdocs_build(project)
    assert loose.returncode == 0 and "ERROR" in loose.stderr
    page = (project / "site" / "broken" / "index.html").read_text(encoding="utf-8")
    assert 'class="posecode-error"' in page and f"line {line}:" in page


def test_plugin_strict_fails_on_a_warning(tmp_path):
    project = copy_fixture(tmp_path)
    (project / "docs" / "attr.md").write_text(
        "# Attr\n\n```posecode colour=red\nposecode posture \"Nod\"\n  rig humanoid\n"
        "  step \"Nod\" 1s settle:\n    neck: flex 10\n```\n", encoding="utf-8")
    assert mkdocs_build(project).returncode == 0
    yml = (project / "mkdocs.yml").read_text(encoding="utf-8").replace("default_view: auto", "strict: true")
    (project / "mkdocs.yml").write_text(yml, encoding="utf-8")
    run = mkdocs_build(project)
    assert run.returncode != 0 and "docs/attr.md:3:" in run.stderr and "1 Posecode problem" in run.stderr


def test_rebuilds_compile_only_what_changed(tmp_path, monkeypatch):
    """A second build in the same process (``mkdocs serve``'s rebuild) compiles only the edited
    block."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    project = copy_fixture(tmp_path)
    # a block no other test compiles (the process-wide cache may hold the fixture's)
    page = project / "docs" / "guide" / "reading.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n```posecode\nposecode posture \"Tilt\"\n  rig humanoid\n"
                    "  step \"Tilt\" 1s settle:\n    neck: flex 11\n```\n", encoding="utf-8")

    def once() -> int:
        config = load_config(str(project / "mkdocs.yml"))
        build(config)
        return config.plugins["posecode"].renderer.compiled

    once()
    assert once() == 0
    page.write_text(page.read_text(encoding="utf-8").replace("flex 11", "flex 12"), encoding="utf-8")
    assert once() == 1


def test_mkdocs_serve_shows_figures_and_rebuilds_an_edit(tmp_path):
    """``mkdocs serve`` (under the ``site_url`` sub-path) serves pages with figures and their
    files, and shows an edited block after its rebuild."""
    import socket
    import time
    import urllib.request

    project = copy_fixture(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                              cwd=project, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/library/"

    def fetch(path: str) -> str | None:
        try:
            with urllib.request.urlopen(base + path, timeout=5) as r:
                return r.read().decode("utf-8")
        except OSError:
            return None

    def wait_for(path: str, needle: str) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = fetch(path)
            if text and needle in text:
                return text
            time.sleep(0.3)
        raise AssertionError(f"{needle!r} never appeared in {path}")

    try:
        home = wait_for("", 'data-title="Chin nod"')
        src = re.search(r'<posecode-figure[^>]*data-title="Chin nod"[^>]*src="([^"]+)"', home).group(1)
        assert json.loads(fetch(src))["name"] == "Chin nod"
        assert fetch(head_urls_text(home)["runtime"]) is not None
        page = project / "docs" / "index.md"
        page.write_text(page.read_text(encoding="utf-8").replace('title="Chin nod"', 'title="Deep nod"'),
                        encoding="utf-8")
        wait_for("", 'data-title="Deep nod"')
    finally:
        server.terminate()
        server.wait(timeout=30)


def head_urls_text(text: str) -> dict[str, str]:
    head = text[:text.index("</head>")]
    return {"runtime": re.search(r"const u=new URL\('([^']+)'", head).group(1)}
