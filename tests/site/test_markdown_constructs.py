"""The Markdown people write (issue 24): admonitions (``!!!``, collapsible ``???``/``???+``),
MyST ``:::`` containers, content tabs, footnotes, task and definition lists, attribute lists on
headings, the table of contents and anchor links, Pygments highlighting; a Posecode figure in
every container; raw HTML escaped unless ``raw_html``; an unclosed fence reported at its opening
line and nothing inside it; error boxes numbered by the Markdown file's lines; ``check`` finding
what the build finds."""

from __future__ import annotations

import re

import pytest
from conftest import parse_html, read

from posecode_ssg.cli import main
from posecode_ssg.site.fences import extract_posecode_blocks


def nod(title: str, angle: int = 15, indent: str = "") -> str:
    lines = ["```posecode title=\"%s\"" % title, f'posecode posture "{title}"', "  rig humanoid",
             '  step "Nod" 1s settle:', f"    neck: flex {angle}", '  step "Up" 1s settle:', "    neck: flex 0", "```"]
    return "\n".join(indent + line if line else line for line in lines) + "\n"


PAGE = ("---\ntitle: Constructs\n---\n\n# Constructs\n\n## Set-up {#setup .wide}\n\n"
        '!!! note "Watch the knees"\n    Knees over toes.\n\n' + nod("In a note", indent="    ") + "\n"
        '??? tip "Closed tip"\n    Hidden.\n\n' + nod("In details", 20, "    ") + "\n"
        '???+ warning\n    Open by default.\n\n'
        '## Variations\n\n=== "Easier"\n    Use a chair.\n\n=== "Harder"\n    Add a **load**.\n\n'
        + nod("In a tab", 25, "    ") + "\n"
        "::: danger Stop on pain\nSharp pain means stop.\n\n" + nod("In a container", 10) + ":::\n\n"
        "- [x] Warm up\n- [ ] Cool down\n\nDose\n: Three sets of ten.\n\nA footnote[^1].\n\n"
        "```python\ndef reps(sets):\n    return sets * 10\n```\n\n<b>raw</b>\n\n[^1]: As a physio says it.\n")


@pytest.fixture
def constructs(make_site):
    result, config = make_site({"index.md": "# Home\n", "page.md": PAGE})
    assert not result.errors and not result.warnings, (result.errors, result.warnings)
    return result, read(config.output_dir, "page/index.html")


def test_every_container_holds_a_figure(constructs):
    result, html = constructs
    assert result.figures == 4
    titles = re.findall(r'<posecode-figure id="[^"]+" data-title="([^"]+)"', html)
    assert titles == ["In a note", "In details", "In a tab", "In a container"]
    assert parse_html(html).errors == []
    # each inside its own container
    assert re.search(r'<div class="admonition note">\s*<p class="admonition-title">Watch the knees</p>.*?'
                     r'data-title="In a note".*?</div>', html, re.S)
    assert re.search(r'<details class="admonition tip">\s*<summary class="admonition-title">Closed tip</summary>'
                     r'.*?data-title="In details".*?</details>', html, re.S)
    assert '<details class="admonition warning" open>' in html
    tabs = re.search(r'<div class="tabbed-set" data-tabs>(.*?)</div>\s*<div class="admonition danger">', html, re.S).group(1)
    assert re.findall(r'<label class="tabbed-label" for="([^"]+)">([^<]+)</label>', tabs) == [
        ("tabs-1-1", "Easier"), ("tabs-1-2", "Harder")]
    assert 'id="tabs-1-1" checked' in tabs and "data-title=\"In a tab\"" in tabs.split("Harder")[1]
    assert re.search(r'<div class="admonition danger">\s*<p class="admonition-title">Stop on pain</p>.*?'
                     r'data-title="In a container"', html, re.S)


def test_lists_footnotes_headings_and_code(constructs):
    _result, html = constructs
    assert 'class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox"' in html
    assert "<dt>Dose</dt>" in html and "<dd>Three sets of ten.</dd>" in html
    assert 'href="#fn1"' in html and 'class="footnote-item"' in html
    # attribute list on a heading: its id and class, and the braces out of its text
    assert re.search(r'<h2 id="setup" class="wide">Set-up<a class="headerlink" href="#setup"', html)
    # the table of contents lists the level-2 headings
    toc = re.search(r'<nav class="toc".*?</nav>', html, re.S).group(0)
    assert re.findall(r'<a href="#([^"]+)">([^<]+)</a>', toc) == [("setup", "Set-up"), ("variations", "Variations")]
    # Pygments spans in a code block of a known language
    assert re.search(r'<pre class="highlight"><code class="language-python"><span class="k">def</span>', html)


def test_raw_html_is_escaped_unless_the_site_says(make_site, tmp_path):
    _result, html = None, None
    result, config = make_site({"index.md": "# Home\n", "page.md": PAGE})
    html = read(config.output_dir, "page/index.html")
    assert "&lt;b&gt;raw&lt;/b&gt;" in html and "<b>raw</b>" not in html
    result, config = make_site({"index.md": "# Home\n", "page.md": PAGE}, toml="raw_html = true\n")
    html = read(config.output_dir, "page/index.html")
    assert "<p><b>raw</b></p>" in html
    # the figures' data stays escaped either way
    assert "</script><" not in html.split("<posecode-figure")[1].split("</script>")[0]


UNCLOSED = ("# Page\n\nIntro.\n\n```posecode\nposecode posture \"Nod\"\n  rig humanoid\n"
            "  step \"Nod\" 1s settle:\n    neck: flex 15\n\nProse meant to follow.\nUse reach to bend.\n")


def test_an_unclosed_fence_is_reported_at_its_opening_line_and_nothing_inside(make_site):
    result, _config = make_site({"index.md": "# Home\n", "page.md": UNCLOSED})
    problems = [(d.code, d.line, d.column) for _p, d in result.errors + result.warnings]
    assert problems == [("fence-unclosed", 5, 1)]
    assert "never closed" in result.errors[0][1].message


def test_check_reports_the_unclosed_fence_as_the_build_does(tmp_path, capsys):
    (tmp_path / "page.md").write_text(UNCLOSED, encoding="utf-8")
    assert main(["check", str(tmp_path / "page.md")]) == 1
    out = capsys.readouterr().out
    assert "page.md:5:1: error[fence-unclosed]" in out
    assert "bad-joint-target" not in out and "step-child" not in out


def test_check_finds_the_fences_the_build_finds():
    """One pipeline (site/fences.py uses the build's): fences in an admonition, a tab, a details
    block and a container are blocks for check and the dev server, with their file lines."""
    blocks = extract_posecode_blocks(PAGE)
    assert [b.attrs.get("title") for b in blocks] == ["In a note", "In details", "In a tab", "In a container"]
    lines = PAGE.split("\n")
    for b in blocks:
        assert lines[b.fence_line - 1].strip().startswith("```posecode")
        assert lines[b.first_line - 1].strip() == f'posecode posture "{b.attrs["title"]}"'


def test_an_error_box_numbers_the_markdown_files_lines(make_site):
    bad = "# Page\n\nText.\n\n" + nod("Broken").replace("neck: flex 15", "nek: flex 15")
    result, config = make_site({"index.md": "# Home\n", "page.md": bad}, keep_going=True)
    (path, d), = [(p, d) for p, d in result.errors]
    html = read(config.output_dir, "page/index.html")
    box = re.search(r'<div class="posecode-error".*?</div>', html, re.S).group(0)
    assert d.line == 9 and f"line {d.line}:" in box   # the terminal's line, not the block's 4


SWALLOWED = ("# Page\n\n```posecode\nposecode posture \"Nod\"\n  rig humanoid\n  step \"Nod\" 1s settle:\n"
             "    neck: flex 15\n\nHold the stretch.\n\n## Terms\n\n```python\nx = 1\n```\n\nEnd.\n")


def test_a_fence_closed_by_the_next_blocks_end_is_reported_as_unclosed(make_site):
    """A forgotten closing line: the next block's closing line ends it, with prose and the next
    fence's opener inside. Reported at the opening line, naming the line where the next fence
    opens; nothing in it compiled; with keep_going the page shows the problem in place."""
    result, config = make_site({"index.md": "# Home\n", "page.md": SWALLOWED}, keep_going=True)
    problems = [(d.code, d.line, d.column) for _p, d in result.errors + result.warnings]
    assert problems == [("fence-unclosed", 3, 1)]
    assert "before line 13" in result.errors[0][1].message
    html = read(config.output_dir, "page/index.html")
    box = re.search(r'<div class="posecode-error" role="alert">(.*?)</div>', html, re.S).group(1)
    assert "not closed before line 13" in box and "Hold the stretch." in box
    assert "<posecode-figure" not in html and "<p>End.</p>" in html


def test_raw_html_shown_as_text_gets_a_hint(make_site):
    page = "# Page\n\nText.\n\n<details><summary>More</summary>Hidden</details>\n"
    result, _config = make_site({"index.md": "# Home\n", "page.md": page})
    assert [(d.code, d.severity, d.line) for _p, d in result.hints] == [("raw-html", "hint", 5)]
    assert "<details>" in result.hints[0][1].message and "raw_html = true" in result.hints[0][1].hint
    result, _config = make_site({"index.md": "# Home\n", "page.md": page}, toml="raw_html = true\n")
    assert result.hints == []


def test_the_error_box_carries_the_hint(make_site):
    bad = "# Page\n\n" + nod("Broken").replace("neck: flex 15", "nek: flex 15")
    result, config = make_site({"index.md": "# Home\n", "page.md": bad}, keep_going=True)
    (_path, d), = result.errors
    box = re.search(r'<div class="posecode-error".*?</div>', read(config.output_dir, "page/index.html"), re.S).group(0)
    # its quoted Posecode (`neck`) as code, as the terminal's backticks mean
    hint = re.sub(r"`([^`]+)`", r"<code>\1</code>", d.hint)
    assert "`" in d.hint and f'<span class="posecode-error-hint">{hint}</span>' in box.replace("&#x27;", "'")


def test_posecode_listings_are_highlighted_by_our_lexer(make_site):
    """A ``.posecode`` page's source listing and a ``posecode-draft`` code block (shown, not a
    figure) are coloured by the Posecode lexer (language/highlight.py)."""
    doc = 'posecode posture "Nod"\n  rig humanoid\n  step "Nod" 1s settle:\n    neck: flex 15\n'
    result, config = make_site({"index.md": "# Home\n", "nod.posecode": doc,
                                "draft.md": "# Draft\n\n```posecode-draft\n" + doc + "```\n"})
    assert result.written and not result.errors
    for rel in ("nod/index.html", "draft/index.html"):
        listing = re.search(r'<pre class="highlight"><code class="language-posecode(?:-draft)?">(.*?)</code></pre>',
                            read(config.output_dir, rel), re.S).group(1)
        assert '<span class="k">posecode</span>' in listing and '<span class="nb">neck</span>' in listing
        assert '<span class="nf">flex</span>' in listing and '<span class="s">&quot;Nod&quot;</span>' in listing
