"""The public faults of MkDocs and Sphinx diagram integrations (../shared/cases/bugs: mk-asset-urls,
mk-hidden-containers, sx-latex-builder), each expected value a test, on the files each case
holds: asset URLs computed per page at every depth, with and without directory URLs, under a
sub-path and for an offline build; six figures in hidden containers in order, in their
containers, compiled as their blocks; a LaTeX, EPUB, text and man build that gets posters, escaped
captions and step lists, never HTML or the runtime."""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_path

from .test_mkdocs import ENV, figures_of, head_urls

CASES = Path(shared_path("cases", "bugs"))


def case_copy(name: str, tmp_path: Path) -> Path:
    if not (CASES / name).is_dir():
        pytest.skip(f"case {name} not available")
    return Path(shutil.copytree(CASES / name, tmp_path / name))


def mkdocs(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", *args], cwd=project, env=ENV,
                          capture_output=True, text=True, timeout=300)


# -- mk-asset-urls ------------------------------------------------------------------------------

PAGES_FILES = ["index.html", "strength/squat.html", "strength/upper body/curl.html"]
PAGES_DIRS = ["index.html", "strength/squat/index.html", "strength/upper body/curl/index.html"]


def _page_urls(site: Path, page: str) -> list[str]:
    """Every URL a page's figures use: the head's rig, stylesheet and runtime, each figure's
    motion file."""
    text = (site / page).read_text(encoding="utf-8")
    urls = list(head_urls(site / page).values())
    urls += re.findall(r'<posecode-figure [^>]*src="([^"]+)"', text)
    return urls


def _resolves(site: Path, page: str, url: str) -> bool:
    from urllib.parse import unquote

    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(url)))
    return not target.startswith("..") and (site / target).is_file()


@pytest.mark.parametrize("directory_urls", [False, True])
def test_asset_urls_are_per_page_at_every_depth(tmp_path, directory_urls):
    pytest.importorskip("material")
    project = case_copy("mk-asset-urls", tmp_path)
    if directory_urls:
        yml = project / "mkdocs.yml"
        yml.write_text(yml.read_text(encoding="utf-8").replace("use_directory_urls: false", "use_directory_urls: true"),
                       encoding="utf-8")
    run = mkdocs(project, "--strict")
    assert run.returncode == 0, run.stderr
    assert "posecode" not in run.stderr.lower()   # no plugin warning
    site = project / "site"
    pages = PAGES_DIRS if directory_urls else PAGES_FILES
    rigs = []
    for depth, page in enumerate(pages):
        assert len(figures_of(site / page)) == 1, page
        urls = _page_urls(site, page)
        for url in urls:
            assert _resolves(site, page, url), (page, url)
            assert not url.startswith("/"), url   # relative: right under the /docs/movement sub-path
        rigs.append(head_urls(site / page)["rig"])
    # the same relative text is not copied into pages of different depth
    assert len(set(rigs)) == len({len(Path(p).parts) for p in pages})
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert str(tmp_path) not in text and "/home/" not in text, page


def test_offline_build_for_file_urls(tmp_path):
    pytest.importorskip("material")
    project = case_copy("mk-asset-urls", tmp_path)
    run = mkdocs(project, "--strict", "-f", "mkdocs-offline.yml")
    assert run.returncode == 0, run.stderr
    site = project / "site"
    for page in PAGES_FILES:
        for url in _page_urls(site, page):
            assert _resolves(site, page, url), (page, url)
        text = (site / page).read_text(encoding="utf-8")
        # without the player the figure is its poster, caption and step list: never the source
        assert '<figure class="posecode-poster">' in text and '<ol class="posecode-phases"' in text
        assert "rig humanoid" not in text


# -- mk-hidden-containers -----------------------------------------------------------------------

HIDDEN_TITLES = ["Visible raise", "Collapsed squat", "Open curl", "Tab one raise", "Tab two hinge",
                 "Nested calf raise"]


def test_six_figures_in_their_containers_compiled_as_their_blocks(tmp_path):
    pytest.importorskip("material")
    from posecode_ssg.site.figures import compile_figure

    project = case_copy("mk-hidden-containers", tmp_path)
    run = mkdocs(project, "--strict")
    assert run.returncode == 0, run.stderr
    site = project / "site"
    found = figures_of(site / "index.html")
    assert [a["data-title"] for a, _ in found] == HIDDEN_TITLES
    text = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="language-posecode' not in text and "highlight" not in re.sub(r"<posecode-figure.*?</posecode-figure>",
                                                                                "", text, flags=re.S)
    around = [chain for _a, chain in found]
    assert any(e.startswith("details.") for e in around[1])
    assert sum(e.startswith("div.tabbed-block") for e in around[4]) == 1
    assert any(e.startswith("div.tabbed-block") for e in around[5]) and any(e.startswith("details.") for e in around[5])
    for n, (attrs, _chain) in enumerate(found, 1):
        block = (project / "blocks" / f"block-{n}.posecode").read_text(encoding="utf-8")
        motion = json.loads((site / attrs["src"]).read_text(encoding="utf-8"))
        assert motion == compile_figure(block, {"view": attrs.get("data-view")}).motion, n


# -- sx-latex-builder ---------------------------------------------------------------------------

def _sphinx(src: Path, builder: str, out: Path, *extra: str) -> int:
    from sphinx.cmd.build import build_main

    return build_main(["-q", "-W", "-b", builder, "-d", str(out.parent / f"{builder}-doctrees"), *extra,
                       str(src), str(out)])


def _steps(block: str) -> list[str]:
    return re.findall(r'^\s*step "([^"]+)"', block, re.M)


@pytest.fixture(scope="module")
def latex_case(tmp_path_factory):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    pytest.importorskip("PIL")
    tmp = tmp_path_factory.mktemp("sx-latex")
    src = case_copy("sx-latex-builder", tmp)
    out = {}
    for builder in ("html", "latex", "text", "man", "singlehtml"):
        assert _sphinx(src, builder, tmp / builder) == 0, builder
        out[builder] = tmp / builder
    # EPUB3 itself asks for a version and copyright (its own warnings, not ours)
    assert _sphinx(src, "epub", tmp / "epub", "-D", "version=1", "-D", "copyright=2026") == 0
    out["epub"] = tmp / "epub"
    blocks = [(src / "blocks" / f"block-{n}.posecode").read_text(encoding="utf-8") for n in (1, 2)]
    return src, out, blocks


def test_latex_gets_png_posters_escaped_captions_and_step_lists(latex_case):
    _src, out, blocks = latex_case
    tex = next(out["latex"].glob("*.tex")).read_text(encoding="utf-8")
    images = re.findall(r"\\sphinxincludegraphics(?:\[[^]]*\])?\{\{([^}]+)\}(\.\w+)\}", tex)
    assert len(images) == 2 and all(ext == ".png" for _b, ext in images)
    for base, ext in images:
        data = (out["latex"] / f"{base}{ext}").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert ("\\caption{Squat \\& press: 100\\% effort\\_\\#1 \\{set\\} \\textasciitilde{} \\textasciicircum{} "
            "\\textbackslash{}}") in tex
    assert "\\caption{Ćwiczenie: skłon w przód}" in tex
    for block in blocks:
        assert tex.count("\\begin{enumerate}") >= 2
        for step in _steps(block):
            assert step in tex
        for line in block.splitlines():   # no line of Posecode source
            if line.strip() and not line.strip().startswith("step"):
                assert line.strip() not in tex, line
    assert "<posecode-figure" not in tex and "<script" not in tex and not re.search(r"<[a-z][a-z-]*[ >]", tex)


@pytest.mark.parametrize("builder", ["text", "man"])
def test_text_and_man_get_caption_and_steps(latex_case, builder):
    _src, out, blocks = latex_case
    text = "\n".join(p.read_text(encoding="utf-8") for p in out[builder].rglob("*") if p.is_file()
                     and p.suffix in (".txt", ".1"))
    for block in blocks:
        for step in _steps(block):
            assert step in text
        assert "rig humanoid" not in text
    assert "<posecode-figure" not in text


def test_epub_shows_posters_and_no_player(latex_case):
    _src, out, _blocks = latex_case
    page = (out["epub"] / "index.xhtml").read_text(encoding="utf-8")
    srcs = re.findall(r'<img [^>]*src="([^"]+\.png)"', page)
    assert len(srcs) == 2 and all((out["epub"] / s).is_file() for s in srcs)
    assert "<posecode-figure" not in page


def test_runtime_only_in_html_outputs(latex_case):
    _src, out, _blocks = latex_case
    for builder in ("latex", "text", "man", "epub"):
        assert not [p for p in out[builder].rglob("*.js") if "posecode" in p.name or p.name == "rig.json"], builder
        assert not list(out[builder].rglob("rig.json")), builder
    assert (out["html"] / "_static" / "posecode" / "posecode-runtime.js").is_file() or not os.environ.get("CI")
    html = (out["html"] / "index.html").read_text(encoding="utf-8")
    assert html.count("<posecode-figure") == 2
