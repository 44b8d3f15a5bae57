"""Every md-* and html-* case of ../shared/cases/bugs, built through the real site build.

Each test names its case; the assertions follow the numbered items of the case's expected.md.
"""

from __future__ import annotations

import html as html_lib
import json
import re

from conftest import SCRIPT_RE, figures, parse_html, read, tree_bytes, visible_text, write_tree
from tests.conftest import shared_path

from posecode_ssg.config import load_config
from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.site.build import build_site
from posecode_ssg.site.content import create_markdown
from posecode_ssg.site.markdown import posecode_env


def case_text(case: str, name: str) -> str:
    return shared_path("cases", "bugs", case, name).read_bytes().decode("utf-8")


def motion_jsons(html: str) -> list[dict]:
    return [json.loads(m) for m in SCRIPT_RE.findall(html)]


def page_html(result, config, rel="page/index.html") -> str:
    assert not result.errors, [(str(p), d.message) for p, d in result.errors]
    return read(config.output_dir, rel)


# ------------------------------------------------------------------ md-fence-variants
def test_md_fence_variants(make_site):
    """md-fence-variants: ~~~ and 4-backtick posecode fences are figures; a longer markdown
    fence showing an example, and a ~~~~text fence holding ``` and ~~~ lines, stay code."""
    result, config = make_site({"page.md": case_text("md-fence-variants", "page.md")})
    html = page_html(result, config)
    assert not result.warnings
    figs = figures(html)
    assert [f["data-title"] for f in figs] == ["Tilde squat", "Long fence raise"]
    assert [j["name"] for j in motion_jsons(html)] == ["Tilde squat", "Long fence raise"]
    assert "Example only" not in "".join(SCRIPT_RE.findall(html))
    # (a code block of a language Pygments knows is highlighted: its text is the spans' text)
    codes = [re.sub(r"</?span[^>]*>", "", c)
             for c in re.findall(r'<pre(?: class="highlight")?><code[^>]*>(.*?)</code></pre>', html, re.DOTALL)]
    example = next(c for c in codes if "Example only" in c)
    assert "&amp;" not in example   # escaped once
    example = html_lib.unescape(example)
    assert "```posecode\n" in example
    assert 'posecode exercise "Example only"' in example and example.rstrip().endswith("```")
    text_block = next(c for c in codes if "still inside the text block" in c)
    assert text_block == "```\nstill inside the text block\n~~~\nstill inside too\n"
    visible = visible_text(html)
    assert "End of page." in visible and "~~~" not in visible and "```" not in visible
    assert re.search(r"<p>End of page\.</p>", html)


# ------------------------------------------------------------------ md-fence-in-containers
def test_md_fence_in_containers_block_text():
    """md-fence-in-containers item 2: each block hands exactly block-N.posecode to the parser."""
    md = create_markdown()
    env: dict = {}
    md.parse(case_text("md-fence-in-containers", "page.md"), env)
    blocks = [t.content for t in posecode_env(env).figures]
    expected = [case_text("md-fence-in-containers", f"block-{i}.posecode") for i in (1, 2, 3)]
    assert blocks == expected
    irs = [parse(b).ir.to_dict() for b in blocks]
    assert [ir["name"] for ir in irs] == ["Hinge in a list", "Quoted reach", "Tabbed"]
    assert len(irs[0]["phases"]) == 2


def test_md_fence_in_containers_page(make_site):
    """md-fence-in-containers items 1, 3-5: structure kept, figures inside their containers."""
    result, config = make_site({"page.md": case_text("md-fence-in-containers", "page.md")})
    html = page_html(result, config)
    assert not result.warnings
    figs = figures(html)
    assert [f["data-title"] for f in figs] == ["Hinge in a list", "Quoted reach", "Tabbed"]
    tree = parse_html(html.split('<div class="prose">', 1)[1])
    stacks = [stack for tag, _a, stack in tree.tags if tag == "posecode-figure"]
    assert stacks[0][-2:] == ["ol", "li"]
    assert "blockquote" in stacks[1]
    assert stacks[2][-2:] == ["ul", "li"]
    # one ordered list with exactly two items, the second "Then open the chest."
    body = html.split('<div class="prose">', 1)[1]
    outer = re.sub(r"<posecode-figure.*?</posecode-figure>", "", body, flags=re.DOTALL)
    ol = re.search(r"<ol>(.*?)</ol>\n<blockquote>", outer, re.DOTALL).group(1)
    assert len(re.findall(r"<li>", ol)) == 2 and "Then open the chest." in ol
    assert re.search(r"<blockquote>\s*<p>Coach.s note:</p>\s*<posecode-figure", body)
    assert "<p>Closing paragraph.</p>" in body
    visible = visible_text(html)
    assert "```" not in visible and "&gt;" not in visible and not re.search(r"^\s*>", visible, re.M)
    assert "posecode exercise" not in visible
    whole = parse_html(html)
    assert not whole.errors and not whole.stack, (whole.errors, whole.stack)
    # compiled data equals compiling each block alone
    alone = [compile_ir(parse(case_text("md-fence-in-containers", f"block-{i}.posecode")).ir).to_json()
             for i in (1, 2, 3)]
    assert motion_jsons(html) == json.loads(json.dumps(alone))


# ------------------------------------------------------------------ md-info-string-attributes
def test_md_info_string_attributes(make_site):
    """md-info-string-attributes: A-D are figures (titles for A, B), E and F stay code blocks,
    nothing from an info string leaks into a class, id or data attribute."""
    result, config = make_site({"page.md": case_text("md-info-string-attributes", "page.md")})
    html = page_html(result, config)
    assert not result.warnings
    figs = figures(html)
    assert [f["data-title"] for f in figs] == ["Morning squat", "Hinge drill", "Spaced C", "Capital D"]
    assert [j["name"] for j in motion_jsons(html)] == ["Squat A", "Hinge B", "Spaced C", "Capital D"]
    codes = re.findall(r'<pre(?: class="highlight")?><code([^>]*)>(.*?)</code></pre>', html, re.DOTALL)
    assert any("Draft E" in body and 'class="language-posecode-draft"' in attrs for attrs, body in codes)
    assert any("Plain F" in body and 'class="language-text"' in attrs for attrs, body in codes)
    for tag, attrs, _ in parse_html(html).tags:
        for name, value in attrs.items():
            if name == "class" or name == "id" or name.startswith("data-"):
                if name == "data-title":
                    continue
                assert not any(ch in (value or "") for ch in ("title=", "{", "}", '"', "'")), (tag, name, value)
    assert "<figcaption>Morning squat" in html


# ------------------------------------------------------------------ md-utf8-bom
def test_md_utf8_bom(make_site, tmp_path):
    """md-utf8-bom items 1-3 and 5: a BOM changes nothing, never reaches the output."""
    page = shared_path("cases", "bugs", "md-utf8-bom", "page.md").read_bytes()
    heading = shared_path("cases", "bugs", "md-utf8-bom", "heading.md").read_bytes()
    assert page.startswith(b"\xef\xbb\xbf")
    result, config = make_site({"page.md": page, "heading.md": heading})
    assert not result.errors and not result.warnings
    html = read(config.output_dir, "page/index.html")
    assert [f["data-title"] for f in figures(html)] == ["BOM first line"]
    assert len(motion_jsons(html)[0]["phases"]) == 2
    assert "<p>Text after the figure.</p>" in html and "```" not in visible_text(html)
    hhtml = read(config.output_dir, "heading/index.html")
    assert "<h1>Heading on the first line</h1>" in hhtml
    assert [f["data-title"] for f in figures(hhtml)] == ["After heading"]
    for path in config.output_dir.rglob("*"):
        if path.is_file():
            assert "\ufeff" not in path.read_bytes().decode("utf-8", "replace"), path
    # item 5: the same file without its BOM builds a byte-identical site
    plain_root = tmp_path / "plain"
    write_tree(plain_root / "content", {"page.md": page[3:], "heading.md": heading[3:]})
    plain = build_site(load_config(None, cwd=plain_root), progress=False)
    assert plain.written
    bom_root = tmp_path / "bom"
    write_tree(bom_root / "content", {"page.md": page, "heading.md": heading})
    bom = build_site(load_config(None, cwd=bom_root), progress=False)
    assert bom.written and not bom.warnings
    assert tree_bytes(plain_root / "site") == tree_bytes(bom_root / "site")


def test_md_utf8_bom_error_line(make_site):
    """md-utf8-bom item 4: the error names page-error.md, line 5 and the word flx."""
    data = shared_path("cases", "bugs", "md-utf8-bom", "page-error.md").read_bytes()
    result, config = make_site({"page-error.md": data})
    assert result.errors and not result.written
    path, diag = result.errors[0]
    assert path.name == "page-error.md" and diag.line == 5 and "flx" in diag.message
    assert diag.column == 11  # "    neck: flx 15": the action starts at column 11
    assert "unexpected" not in diag.message.lower() or "feff" not in diag.message.lower()


# ------------------------------------------------------------------ md-many-figures
def test_md_many_figures(make_site):
    """md-many-figures items 1-2: 24 figures in order, distinct ids, identical blocks kept apart."""
    text = case_text("md-many-figures", "page.md")
    result, config = make_site({"page.md": text})
    html = page_html(result, config)
    assert not result.warnings
    figs = figures(html)
    names = re.findall(r"^## \d+\. (.+)$", text, re.M)
    assert len(figs) == 24 and [f["data-title"] for f in figs] == names
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    data = motion_jsons(html)
    assert data[0] != data[1]  # same name, different depth
    assert data[2] == data[3] and figs[2]["id"] != figs[3]["id"]


# ------------------------------------------------------------------ html-script-breakout
def test_html_script_breakout(make_site):
    """html-script-breakout items 1, 3, 5, 6: hostile names and cues stay data and text."""
    text = case_text("html-script-breakout", "page.md")
    result, config = make_site({"page.md": text})
    html = page_html(result, config)
    assert not result.warnings
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.DOTALL | re.IGNORECASE)
    inline = [s for s in scripts if s.strip()]
    assert len(inline) == 1
    raw = inline[0]
    assert "</script" not in raw.lower() and "<!--" not in raw and "\u2028" not in raw and "\u2029" not in raw
    data = json.loads(raw)
    source = parse(text.split("```posecode\n")[1].split("```")[0]).ir
    assert data["name"] == source.name == "Squat </script><script>alert('name')</script>"
    assert [p["cue"] for p in data["phases"]] == [p.cue for p in source.phases]
    assert "\u2028" in data["phases"][1]["cue"] and "\u2029" in data["phases"][1]["cue"]
    assert len(data["phases"]) == 2
    # exactly one real <script> carrying content: no injected elements
    tags = [tag for tag, _a, _s in parse_html(html).tags]
    assert tags.count("img") == 0
    assert sum(1 for tag, attrs, _ in parse_html(html).tags if tag == "script" and "src" not in attrs) == 1
    assert "&lt;/script&gt;" in html and "&amp;lt;" not in html
    assert "<li><span class=\"posecode-phase-name\">Down &lt;!--</span>" in html
    assert "knees &lt; toes &amp; hips &gt; knees" in html
