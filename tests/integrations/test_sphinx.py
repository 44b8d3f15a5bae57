"""The Sphinx extension ``posecode_ssg.sphinx`` (issue 23): the fixture project
tests/fixtures/sphinx_site built with ``sphinx.cmd.build.build_main`` by the HTML, text and LaTeX
builders, and variants of it (broken blocks, bad attributes, MyST forms, ``-j 2``) built in
temporary folders. Expected titles, views, steps and lines are read from the fixture's text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.cmd.build import build_main  # noqa: E402

from posecode_ssg.integrations.embed import CSS_NAME, RIG_NAME, RUNTIME_DIST, RUNTIME_NAME  # noqa: E402
from posecode_ssg.site.markdown import parse_info  # noqa: E402

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "sphinx_site"
FIGURE_TAG = re.compile(r"<posecode-figure ([^>]*)>")
FENCE = re.compile(r"^\s*(?:[-*]\s+)?(?:`{3,}|~{3,})\s*(\{\.posecode[^}]*\}|posecode\b.*)$", re.M)

NOD = ['posecode posture "Nod"', "  rig humanoid", '  step "Nod" 1s settle:', "    neck: flex 15",
       '  step "Up" 1s settle:', "    neck: flex 0"]


def build(src: Path, out: Path, builder: str = "html", *options: str) -> tuple[int, str]:
    """Build ``src`` into ``out``; returns the exit status and the warnings written."""
    warnings = out.parent / f"{out.name}-warnings.txt"
    doctrees = out.parent / f"{out.name}-doctrees"
    status = build_main(["-b", builder, "-q", "-N", "-w", str(warnings), "-d", str(doctrees), *options, str(src), str(out)])
    return status, warnings.read_text(encoding="utf-8") if warnings.exists() else ""


def figures(page: Path) -> list[dict]:
    """The attributes of each ``<posecode-figure>`` start tag of a built page."""
    out = []
    for attrs in FIGURE_TAG.findall(page.read_text(encoding="utf-8")):
        found = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        found["autoplay"] = bool(re.search(r"\bautoplay\b", attrs))
        out.append(found)
    return out


def project(tmp_path: Path, pages: dict[str, str], conf: str = "") -> Path:
    """A copy of the fixture project in ``tmp_path/src`` with ``pages`` added or replaced (and
    ``conf`` appended to conf.py; the added pages need not be in a toctree)."""
    src = tmp_path / "src"
    shutil.copytree(FIXTURE, src)
    for name, text in pages.items():
        (src / name).write_text(text, encoding="utf-8")
    with (src / "conf.py").open("a", encoding="utf-8") as f:   # the added pages are in no toctree
        f.write("\nsuppress_warnings = ['toc.not_included']\n" + conf + "\n")
    return src


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The fixture project built by the HTML builder: (output folder, warnings)."""
    out = tmp_path_factory.mktemp("sphinx") / "html"
    status, warnings = build(FIXTURE, out, "html")
    assert status == 0, warnings
    return out, warnings


def test_every_block_is_one_figure_with_its_title_and_view(site):
    out, warnings = site
    assert warnings == ""
    # index.md: every posecode fence (plain, in a list, braced in a note), its attributes as parse_info reads them
    infos = [parse_info(m.group(1)) for m in FENCE.finditer((FIXTURE / "index.md").read_text(encoding="utf-8"))]
    assert len(infos) == 3
    found = figures(out / "index.html")
    assert [f["data-title"] for f in found] == [i.attrs["title"] for i in infos]
    assert [f["data-view"] for f in found] == [i.attrs.get("view") or f["data-view"] for i, f in zip(infos, found)]
    assert [f["autoplay"] for f in found] == [i.attrs.get("autoplay", True) for i in infos]
    assert [f["id"] for f in found] == ["posecode-figure-1", "posecode-figure-2", "posecode-figure-3"]
    # guide/moves.rst: the options of the first directive, the argument of the second
    rst = (FIXTURE / "guide" / "moves.rst").read_text(encoding="utf-8")
    assert ":title: Nod from the side" in rst and ":view: side" in rst
    assert '.. posecode:: title="Hidden side bend" view=front' in rst
    found = figures(out / "guide" / "moves.html")
    assert [(f["data-title"], f["data-view"]) for f in found] == [("Nod from the side", "side"),
                                                                   ("Hidden side bend", "front")]
    assert len({f["id"] for f in found}) == 2
    # the raw HTML <details> pair wraps the second figure
    page = (out / "guide" / "moves.html").read_text(encoding="utf-8")
    assert page.index("<details") < page.index('data-title="Hidden side bend"') < page.index("</details>")


def test_assets_and_page_head(site):
    out, _ = site
    folder = out / "_static" / "posecode"
    expected = [RIG_NAME, CSS_NAME] + ([RUNTIME_NAME] if (RUNTIME_DIST / RUNTIME_NAME).is_file() else [])
    for name in expected:
        assert (folder / name).is_file() and (folder / name).stat().st_size > 0, name
    for page, prefix in (("index.html", ""), ("guide/moves.html", "../")):
        text = (out / page).read_text(encoding="utf-8")
        head = text[:text.index("</head>")]
        assert f'<meta name="posecode-rig" content="{prefix}_static/posecode/{RIG_NAME}"' in head, page
        assert re.search(rf'<script type="module" src="{re.escape(prefix)}_static/posecode/{RUNTIME_NAME}', head), page
        assert f'href="{prefix}_static/posecode/{CSS_NAME}' in head, page
    plain = (out / "plain.html").read_text(encoding="utf-8")
    assert "posecode" not in plain


@pytest.mark.parametrize("builder,suffix", [("text", ".txt"), ("latex", ".tex"), ("man", ".1"), ("epub", ".xhtml")])
def test_other_builders_get_the_step_list(tmp_path, builder, suffix):
    """Every builder but HTML gets the titles and steps, never raw HTML (EPUB too: its XHTML
    cannot hold the figure's bare attributes and its readers run no module scripts)."""
    status, warnings = build(FIXTURE, tmp_path / builder, builder, "-W", "-D", "copyright=2025", "-D", "version=1")
    assert status == 0, warnings
    text = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / builder).rglob(f"*{suffix}"))
    source = (FIXTURE / "index.md").read_text(encoding="utf-8") + (FIXTURE / "guide" / "moves.rst").read_text(encoding="utf-8")
    steps = re.findall(r'step "([^"]+)" ([\d.]+)s (\w+):', source)
    assert len(steps) == 10
    for name, seconds, mode in steps:
        if builder in ("text", "epub"):
            assert f"{name} — {float(seconds):g} s · {mode}" in text, name
        else:
            assert name in text, name
    for title in ("Squat", "Nod in a list", "Side bend", "Nod from the side", "Hidden side bend"):
        assert title in text
    assert "<posecode-figure" not in text and "<script" not in text
    assert not (tmp_path / builder / "_static" / "posecode").exists()


def test_broken_myst_fence_fails_with_W_at_its_file_line(tmp_path):
    page = "# Broken\n\nText.\n\n```posecode title=\"Bad nod\"\n" + "\n".join(NOD).replace("neck: flex 15", "nek: flex 15") + "\n```\n"
    src = project(tmp_path, {"broken.md": page})
    status, warnings = build(src, tmp_path / "out", "html", "-W")
    assert status != 0
    line = page.split("\n").index("    nek: flex 15") + 1
    assert re.search(rf"broken\.md:{line}:5: (WARNING|ERROR): error\[unknown-joint\]", warnings), warnings
    assert "did you mean `neck`?" in warnings and "nek: flex 15" in warnings


def test_broken_rst_directive_fails_with_W_at_its_file_line(tmp_path):
    body = "\n".join("   " + line for line in NOD).replace("neck: flex 15", "nek: flex 15")
    page = f"Broken\n======\n\n.. posecode::\n   :title: Bad nod\n   :view: top\n\n{body}\n"
    src = project(tmp_path, {"broken.rst": page})
    status, warnings = build(src, tmp_path / "out", "html", "-W")
    assert status != 0
    line = page.split("\n").index("       nek: flex 15") + 1
    assert re.search(rf"broken\.rst:{line}:8: (WARNING|ERROR): error\[unknown-joint\]", warnings), warnings
    # the bad option value: at its own line and column
    assert re.search(r"broken\.rst:6:11: (WARNING|ERROR): warning\[fence-attribute\]: view must be one of", warnings)


def test_bad_attribute_is_a_warning_and_the_figure_still_renders(tmp_path):
    page = "# Attributes\n\n```posecode title=\"Nod\" colour=red view=top\n" + "\n".join(NOD) + "\n```\n"
    src = project(tmp_path, {"attrs.md": page})
    status, warnings = build(src, tmp_path / "out", "html")
    assert status == 0
    opener = page.split("\n")[2]
    assert re.search(rf"attrs\.md:3:{opener.index('colour') + 1}: WARNING: warning\[fence-attribute\]: "
                     "unknown fence attribute 'colour'", warnings), warnings
    assert re.search(rf"attrs\.md:3:{opener.index('top') + 1}: WARNING: warning\[fence-attribute\]: "
                     "view must be one of", warnings), warnings
    assert [f["data-title"] for f in figures(tmp_path / "out" / "attrs.html")] == ["Nod"]
    assert build(src, tmp_path / "strict", "html", "-W")[0] != 0
    # warnings of type posecode, subtype warning: suppress_warnings silences them (docs/sphinx.md)
    src = project(tmp_path / "quiet", {"attrs.md": page}, conf='suppress_warnings += ["posecode.warning"]')
    assert build(src, tmp_path / "quiet-out", "html", "-W") == (0, "")


def test_myst_directive_forms_and_their_lines(tmp_path):
    """```{posecode}``` with options (its content starts after them), ```{.posecode}``` bare, and
    ```{.posecode title=...}```: attributes read, errors at the right file line."""
    nod = "\n".join(NOD)
    bad = nod.replace("neck: flex 0", "neck: flx 0")
    page = ("# Forms\n\n```{posecode}\n:title: Option title\n:view: front\n:autoplay: false\n\n" + bad + "\n```\n\n"
            "```{.posecode}\n" + nod + "\n```\n\n"
            '~~~{.posecode title="Braced" view=side}\n' + bad + "\n~~~\n")
    src = project(tmp_path, {"forms.md": page})
    status, warnings = build(src, tmp_path / "out", "html")
    assert status == 0
    lines = page.split("\n")
    bad_lines = [k + 1 for k, text in enumerate(lines) if text == "    neck: flx 0"]
    for line in bad_lines:
        assert re.search(rf"forms\.md:{line}:11: WARNING: error\[unknown-action\]", warnings), (line, warnings)
    assert warnings.count("WARNING") == 2
    page = (tmp_path / "out" / "forms.html").read_text(encoding="utf-8")
    assert page.count('class="posecode-error"') == 2
    assert [f["data-title"] for f in figures(tmp_path / "out" / "forms.html")] == ["Nod"]


def test_options_override_the_argument_and_autoplay_config(tmp_path):
    page = ("Options\n=======\n\n.. posecode:: title=\"From argument\" view=side\n   :title: From option\n\n"
            + "\n".join("   " + line for line in NOD) + "\n")
    src = project(tmp_path, {"opts.rst": page}, conf="posecode_autoplay = False")
    status, warnings = build(src, tmp_path / "out", "html", "-W")
    assert status == 0, warnings
    found = figures(tmp_path / "out" / "opts.html")
    assert [(f["data-title"], f["data-view"], f["autoplay"]) for f in found] == [("From option", "side", False)]


def test_parallel_build(tmp_path):
    """``-j 2`` over more pages than one worker reads: every figure page gets its head tags."""
    pages = {f"p{k}.md": f"# Page {k}\n\n```posecode title=\"Nod {k}\"\n" + "\n".join(NOD) + "\n```\n" for k in range(8)}
    src = project(tmp_path, pages)
    status, warnings = build(src, tmp_path / "out", "html", "-W", "-j", "2")
    assert status == 0, warnings
    for k in range(8):
        text = (tmp_path / "out" / f"p{k}.html").read_text(encoding="utf-8")
        assert [f["data-title"] for f in figures(tmp_path / "out" / f"p{k}.html")] == [f"Nod {k}"]
        assert 'name="posecode-rig"' in text
    assert "posecode" not in (tmp_path / "out" / "plain.html").read_text(encoding="utf-8")
    # a broken block read by a worker still fails the build
    pages["p3.md"] = pages["p3.md"].replace("neck: flex 15", "nek: flex 15")
    src = project(tmp_path / "broken", pages)
    status, warnings = build(src, tmp_path / "broken-out", "html", "-W", "--keep-going", "-j", "2")
    line = pages["p3.md"].split("\n").index("    nek: flex 15") + 1
    assert status != 0 and re.search(rf"p3\.md:{line}:5: \w+: error\[unknown-joint\]", warnings), warnings


def test_a_compiler_failure_is_a_warning_not_a_traceback(tmp_path, monkeypatch):
    from posecode_ssg.integrations import embed

    def broken(self, source, info, meta=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(embed.FigureRenderer, "figure", broken)
    status, warnings = build(FIXTURE, tmp_path / "out", "html")
    assert status == 0
    assert "the Posecode compiler failed on this block: boom" in warnings
    assert "Traceback" not in warnings


def test_setup_metadata():
    from sphinx.application import Sphinx

    from posecode_ssg import sphinx as ext

    class App:
        def __getattr__(self, name):
            return lambda *a, **k: None

    meta = ext.setup(App())
    assert meta["parallel_read_safe"] and meta["parallel_write_safe"]
    assert hasattr(Sphinx, "add_post_transform")


def test_front_matter_equipment_is_drawn(tmp_path):
    """A MyST page's front matter ``equipment`` list is drawn on its figures without the attribute
    (as ``posecode-ssg build`` does), and ``equipment=""`` draws none."""
    curl = "\n".join(['posecode exercise "Curl"', "  rig humanoid", "  pose start = standing",
                      '  step "Up" 1s settle:', "    elbows: flex 120", '  step "Down" 1s settle:', "    elbows: flex 0"])
    page = (f"---\nequipment: [dumbbell, mat]\n---\n# Curl\n\n```posecode\n{curl}\n```\n\n"
            f'```posecode equipment=""\n{curl}\n```\n')
    src = project(tmp_path, {"curl.md": page})
    status, warnings = build(src, tmp_path / "out", "html", "-W")
    assert status == 0, warnings
    text = (tmp_path / "out" / "curl.html").read_text(encoding="utf-8")
    motions = re.findall(r'<script type="application/json">(.*?)</script>', text)
    assert len(motions) == 2
    assert '"items":["dumbbells","mat"]' in motions[0] and "dumbbells" not in motions[1]


def test_a_hint_is_information_not_a_warning(tmp_path, capsys):
    """A squat whose centre of mass ends behind the heels gets the compiler's balance hint: shown
    (on the status output, at its file line) but not a warning, so ``-W`` passes, as
    ``posecode-ssg build`` and the MkDocs plugin treat hints."""
    squat = ["posecode exercise \"Upright squat\"", "  rig humanoid", "  pose start = standing",
             "  step \"Sit down\" 2s settle:", "    hips: flex 80", "    knees: flex 90", "    ground-lock: feet",
             "  step \"Stand up\" 1s drive:", "    hips: flex 0", "    knees: flex 0", "    ground-lock: feet"]
    page = "# Hint\n\n```posecode\n" + "\n".join(squat) + "\n```\n"
    src = project(tmp_path, {"hint.md": page})
    status = build_main(["-b", "html", "-N", "-W", str(src), str(tmp_path / "out")])
    out = capsys.readouterr()
    line = page.split("\n").index('  step "Sit down" 2s settle:') + 1
    assert status == 0, out.err
    assert re.search(rf"hint\.md:{line}:3: hint\[kinematic-balance\]", out.out), out.out
    assert "kinematic-balance" not in out.err


def test_posecode_code_blocks_are_highlighted_by_the_lexer(tmp_path):
    """``.. code-block:: posecode`` (a listing, not a figure) is coloured by the Pygments lexer the
    package registers (entry point ``pygments.lexers``: posecode), with no warning under ``-W``."""
    pytest.importorskip("pygments")
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        get_lexer_by_name("posecode")
    except ClassNotFound:
        pytest.skip("entry point not registered (an install that predates it: pip install -e .)")
    listing = "\n".join("   " + line for line in NOD)
    src = project(tmp_path, {"listing.rst": f"Listing\n=======\n\n.. code-block:: posecode\n\n{listing}\n"})
    status, warnings = build(src, tmp_path / "out", "html", "-W")
    assert status == 0, warnings
    html = (tmp_path / "out" / "listing.html").read_text(encoding="utf-8")
    assert "<posecode-figure" not in html
    # keywords and joint names in Pygments' spans (k: keyword, nb: builtin name)
    assert '<span class="k">posecode</span>' in html and '<span class="nb">neck</span>' in html
