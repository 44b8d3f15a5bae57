"""The build: determinism, atomicity, incremental rebuilds, subpath hosting, links, strict mode."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading
import urllib.request
from urllib.parse import urljoin

from conftest import figures, only_thread, parse_html, read, tree_bytes, write_tree

from posecode_ssg.cli import main
from posecode_ssg.config import load_config
from posecode_ssg.site.build import build_site
from tests.conftest import DEEP_SQUAT_PAGE, shared_path

SQUAT = '''posecode exercise "Squat"
  rig humanoid
  step "Down" 2s settle:
    hips: flex 70
    knees: flex 80
    ground-lock: feet
    cue "Knees over toes"
  step "Up" 2s settle:
    hips: flex 0
    knees: flex 0
    ground-lock: feet
'''

NOD = '''posecode posture "Nod"
  rig humanoid
  step "Nod" 1s linear:
    neck: flex 15
'''


def page(title: str, body: str = "", *, fm: str = "", block: str = SQUAT) -> str:
    return f"---\ntitle: {title}\n{fm}---\n\n# {title}\n\n{body}\n\n```posecode\n{block}```\n"


LIBRARY = {
    "index.md": "---\ntitle: My library\n---\n\n# My library\n\nSee [strength](strength/_index.md).\n",
    "strength/_index.md": "---\ntitle: Strength work\n---\n\n# Strength work\n\nLeg exercises.\n",
    "strength/squat.md": page("Squat", "Next: [nod](../posture/nod.md#steps), [top](#squat).",
                              fm="level: beginner\nequipment: [none]\nprimary_muscles: [quadriceps]\n"
                                 "tags: [legs, Lower Body]\nsummary: Sit and stand.\n"),
    "posture/nod.md": page("Nod", "## Steps\n\nBack to [squat](/strength/squat.md).", block=NOD,
                           fm="level: advanced\nequipment: [none]\nprimary_muscles: [neck]\n"),
    "posture/chin.posecode": NOD.replace('"Nod"', '"Chin tuck"'),
    "img/logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
}


def test_library_builds_every_page_kind(make_site):
    result, config = make_site(LIBRARY)
    assert result.written and not result.errors and not result.warnings
    site = config.output_dir
    for rel in ("index.html", "strength/index.html", "strength/squat/index.html", "posture/nod/index.html",
                "posture/chin/index.html", "posture/index.html", "404.html", "tags/index.html",
                "tags/legs/index.html", "tags/lower-body/index.html", "muscles/quadriceps/index.html",
                "equipment/none/index.html", "img/logo.svg"):
        assert (site / rel).is_file(), rel
    home = read(site, "index.html")
    # cards with filter data for the three figure pages
    cards = [a for tag, a, _ in parse_html(home).tags if tag == "li" and "card" in (a.get("class") or "")]
    assert sorted(c["data-url"] for c in cards) == ["/posture/chin/", "/posture/nod/", "/strength/squat/"]
    squat = next(c for c in cards if c["data-url"] == "/strength/squat/")
    assert squat["data-level"] == "beginner" and squat["data-muscles"] == "quadriceps"
    # the .posecode page: title from the movement, kind posture -> category, source shown
    chin = read(site, "posture/chin/index.html")
    assert "<h1>Chin tuck</h1>" in chin and 'class="language-posecode"' in chin
    assert len(figures(chin)) == 1
    # search index lists step names and cues
    index_name = re.search(r'data-search-index="/(assets/search-index\.[0-9a-f]{10}\.json)"', home).group(1)
    entries = json.loads(read(site, index_name))["pages"]
    squat_entry = next(e for e in entries if e["u"] == "/strength/squat/")
    assert "Knees over toes" in squat_entry["x"] and "Down" in squat_entry["x"]
    assert squat_entry["s"] == "Sit and stand."
    # generated section page lists its exercises; taxonomy page lists the squat
    assert "/strength/squat/" in read(site, "muscles/quadriceps/index.html")
    assert "Strength work" in read(site, "strength/squat/index.html")  # breadcrumb uses the section title


def test_links_are_rewritten(make_site):
    result, config = make_site(LIBRARY)
    squat = read(config.output_dir, "strength/squat/index.html")
    assert 'href="/posture/nod/#steps"' in squat and 'href="/strength/squat/#squat"' in squat
    nod = read(config.output_dir, "posture/nod/index.html")
    assert 'href="/strength/squat/"' in nod
    assert 'href="/strength/"' in read(config.output_dir, "index.html")


def test_broken_link_is_an_error_with_file_and_line(make_site):
    files = dict(LIBRARY)
    files["strength/squat.md"] = page("Squat", "Line one.\n\nSee [the lunge](lunge.md) too.")
    result, config = make_site(files)
    assert not result.written and not config.output_dir.exists()
    (path, diag), = [(p, d) for p, d in result.errors if d.code == "broken-link"]
    assert path.name == "squat.md"
    text = (config.content_dir / "strength/squat.md").read_text()
    line_no = next(i for i, l in enumerate(text.split("\n"), 1) if "lunge.md" in l)
    assert diag.line == line_no and diag.column == text.split("\n")[line_no - 1].index("lunge.md") + 1
    assert "lunge.md" in diag.message


def test_broken_link_suggestion_is_written_as_the_link_was(make_site):
    """The fresh-user trial: '../lunge.md' was offered 'index.md' and '/exercises/plank/' the
    section's '_index.md'. Names are compared without folder and extension, and the suggestion
    takes the link's own form: a site URL for a site URL, a path from this page for a path."""
    body = ("[a](/strength/squats/) [b](../mobility/squats.md) [c](squats.md) [d](../lunge.md) "
            "[e](/strength/plank/) [f](/strenght/)")
    result, _config = make_site({"index.md": "# Home\n", "strength/_index.md": "# Strength\n",
                                 "strength/squat.md": page("Squat", "Text."),
                                 "mobility/cat-cow.md": page("Cat cow", body)})
    hints = [d.message.partition("(did you mean ")[2].rstrip("?)'").lstrip("'") or None
             for _p, d in result.errors if d.code == "broken-link"]
    assert hints == ["/strength/squat/", "../strength/squat.md", "../strength/squat.md", None, None, "/strength/"]


def test_cli_reports_file_line_col_and_exits_nonzero(tmp_path, capsys, monkeypatch):
    write_tree(tmp_path / "content", {"a.md": "# A\n\n```posecode\n" + SQUAT.replace("flex 70", "flx 70") + "```\n"})
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 1
    err = capsys.readouterr().err
    assert re.search(r"^content/a\.md:7:\d+: error\[[a-z-]+\]: .*flx", err, re.M)
    assert "hips: flx 70" in err and "^" in err
    assert not (tmp_path / "site").exists()


def test_deterministic_rebuild(tmp_path):
    for name in ("one", "two"):
        write_tree(tmp_path / name / "content", LIBRARY)
        result = build_site(load_config(None, cwd=tmp_path / name), progress=False)
        assert result.written
    first = tree_bytes(tmp_path / "one" / "site")
    assert first == tree_bytes(tmp_path / "two" / "site")
    # a full rebuild from a cold cache in the same place is byte-identical too
    import shutil

    shutil.rmtree(tmp_path / "one" / ".posecode-cache")
    shutil.rmtree(tmp_path / "one" / "site")
    build_site(load_config(None, cwd=tmp_path / "one"), progress=False)
    assert tree_bytes(tmp_path / "one" / "site") == first


def test_atomic_failure_keeps_previous_site(make_site, tmp_path):
    result, config = make_site(LIBRARY)
    before = tree_bytes(config.output_dir)
    bad = dict(LIBRARY)
    bad["strength/squat.md"] = page("Squat", block=SQUAT.replace("knees: flex 80", "kneez: flex 80"))
    write_tree(config.content_dir, bad)
    result = build_site(config, progress=False)
    assert result.errors and not result.written
    assert tree_bytes(config.output_dir) == before
    leftovers = [p.name for p in config.output_dir.parent.iterdir() if p.name.startswith(".site.")]
    assert leftovers == []


def test_incremental_no_change_and_one_page_change(make_site):
    result, config = make_site(LIBRARY)
    site = config.output_dir
    nod_inode = os.stat(site / "posture/nod/index.html").st_ino
    again = build_site(config, progress=False)
    assert again.unchanged and not again.written and again.compiled == 0
    assert len(again.pages) == len(result.pages) and again.figures == result.figures
    # change one page: only its figure is compiled, the other pages are reused (hard links)
    write_tree(config.content_dir, {"strength/squat.md": LIBRARY["strength/squat.md"].replace("flex 70", "flex 60")})
    changed = build_site(config, progress=False)
    assert changed.written and changed.compiled == 1
    assert os.stat(site / "posture/nod/index.html").st_ino == nod_inode
    assert '"Squat"' in read(site, "strength/squat/index.html") or "Squat" in read(site, "strength/squat/index.html")
    # and the result equals a cold build of the same content
    cold_root = config.root / "cold"
    write_tree(cold_root / "content", {**LIBRARY, "strength/squat.md":
                                      LIBRARY["strength/squat.md"].replace("flex 70", "flex 60")})
    build_site(load_config(None, cwd=cold_root), progress=False)
    assert tree_bytes(site) == tree_bytes(cold_root / "site")


def test_figure_cache_serves_a_cold_rebuild_and_survives_damage(make_site):
    """Compiled figures live in one SQLite file (.posecode-cache/figures.sqlite): with the output
    and manifests gone, a rebuild compiles nothing and writes the same site. A damaged cache file
    costs only time: the build compiles again, succeeds, and leaves a working cache behind."""
    import shutil
    import sqlite3

    from posecode_ssg.site.figurecache import FigureCache

    FigureCache.recent.clear()   # this process's memory of recent figures (earlier tests built these)
    result, config = make_site(LIBRARY)
    first = tree_bytes(config.output_dir)
    db = config.cache_dir / "figures.sqlite"
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM figures").fetchone()[0] == result.compiled > 0

    def forget_output():
        shutil.rmtree(config.output_dir)
        for manifest in config.cache_dir.glob("manifest-*.json"):
            manifest.unlink()

    forget_output()
    FigureCache.recent.clear()   # this process's memory of recent figures: read them from disk
    again = build_site(config, progress=False)
    assert again.written and again.compiled == 0 and tree_bytes(config.output_dir) == first
    forget_output()
    FigureCache.recent.clear()
    db.write_bytes(b"not a database" * 100)
    damaged = build_site(config, progress=False)
    assert damaged.written and not damaged.errors and damaged.compiled == result.compiled
    assert tree_bytes(config.output_dir) == first
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM figures").fetchone()[0] == result.compiled


def test_warnings_replayed_and_strict(make_site):
    files = {"a.md": "---\ntitle: A\ncolour: red\n---\n\n# A\n"}
    result, config = make_site(files)
    assert result.written and [d.code for _p, d in result.warnings] == ["front-matter-unknown-key"]
    again = build_site(config, progress=False)
    assert again.unchanged and len(again.warnings) == 1
    strict = build_site(config, progress=False, strict=True)
    assert strict.failed and not strict.written


def test_subpath_hosting_every_link_resolves(make_site):
    result, config = make_site(LIBRARY, toml='site_name = "Lib"\nbase_url = "https://example.org/sub/lib/"\n')
    site = config.output_dir
    assert result.written
    sitemap = read(site, "sitemap.xml")
    assert "<loc>https://example.org/sub/lib/strength/squat/</loc>" in sitemap
    # serve the output under /sub/lib/ and follow every href/src of every page
    root = site.parent / "webroot"
    (root / "sub").mkdir(parents=True)
    os.symlink(site, root / "sub" / "lib")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.func.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        checked = set()
        for html_file in site.rglob("*.html"):
            rel = html_file.relative_to(site).as_posix()
            page_url = f"{base}/sub/lib/{rel}"
            for tag, attrs, _ in parse_html(html_file.read_text()).tags:
                for name in ("href", "src", "content"):
                    value = attrs.get(name)
                    if not value or (name == "content" and attrs.get("name") != "posecode-rig"):
                        continue
                    if value.startswith(("data:", "http:", "https:", "mailto:")) or value.startswith("#"):
                        continue
                    assert value.startswith("/sub/lib/"), (rel, tag, name, value)
                    target = urljoin(page_url, value).split("#")[0]
                    if target in checked:
                        continue
                    checked.add(target)
                    with urllib.request.urlopen(target) as response:
                        assert response.status == 200, target
        assert len(checked) > 10
    finally:
        server.shutdown()


def test_escaping_of_front_matter_and_info_string(make_site):
    files = {"x.md": '---\ntitle: "<script>alert(1)</script> & co"\nsummary: "\\"quoted\\" <b>"\n---\n\n'
                     '```posecode title="A \\"B\\" <i>C</i>"\n' + SQUAT + "```\n"}
    result, config = make_site(files)
    html = read(config.output_dir, "x/index.html")
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert figures(html)[0]["data-title"] == 'A "B" <i>C</i>'
    assert "<i>C</i>" not in html
    home = read(config.output_dir, "index.html")
    assert "<script>alert(1)" not in home


def test_fence_attributes_reach_the_figure(make_site):
    files = {"x.md": "```posecode autoplay=false view=front\n" + SQUAT + "```\n\n"
                     "```posecode titel=\"oops\"\n" + NOD + "```\n"}
    result, config = make_site(files)
    first, second = figures(read(config.output_dir, "x/index.html"))
    assert "autoplay" not in first and first["data-view"] == "front"
    assert "autoplay" in second and second["data-view"] == "side"
    (path, diag), = result.warnings
    assert diag.code == "fence-attribute" and "did you mean 'title'" in diag.message and diag.line == 15


def test_posecode_folder_alone_builds(tmp_path, monkeypatch):
    examples = shared_path("conformance", "examples")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--content", str(examples), "--out", "out"]) == 0
    count = len(list(examples.glob("*.posecode")))
    pages = [p for p in (tmp_path / "out").glob("*/index.html") if p.parent.name not in
             ("tags", "muscles", "equipment")]
    assert len(pages) == count
    home = (tmp_path / "out" / "index.html").read_text()
    assert home.count('class="card"') == count


def test_new_scaffold_builds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "lib"]) == 0
    monkeypatch.chdir(tmp_path / "lib")
    assert main(["build", "--strict"]) == 0
    assert len(figures((tmp_path / "lib/site/exercises/bodyweight-squat/index.html").read_text())) == 1
    monkeypatch.chdir(tmp_path)
    assert main(["new", "lib"]) == 2  # not empty


def test_missing_content_folder_is_an_error(tmp_path):
    result = build_site(load_config(None, cwd=tmp_path), progress=False)
    assert result.failed and "content folder not found" in result.errors[0][1].message


def test_missing_anchor_is_a_warning(make_site):
    files = dict(LIBRARY)
    files["strength/squat.md"] = page("Squat", "See [steps](../posture/nod.md#stepz).")
    result, config = make_site(files)
    (path, diag), = result.warnings
    assert diag.code == "broken-anchor" and path.name == "squat.md" and diag.hint == "did you mean '#steps'?"


def test_keep_going_writes_pages_with_error_boxes(make_site):
    """The dev server's mode: errors are reported, the site is still written, the bad block shows its error."""
    files = dict(LIBRARY)
    files["strength/squat.md"] = page("Squat", "See [gone](gone.md).", block=SQUAT.replace("flex 70", "flx 70"))
    result, config = make_site(files, keep_going=True)
    codes = sorted(d.code for _p, d in result.errors)
    assert "broken-link" in codes and len(codes) == 2 and result.written
    html = read(config.output_dir, "strength/squat/index.html")
    assert 'class="posecode-error"' in html and "flx" in html and 'href="gone.md"' in html
    assert (config.output_dir / "posture/nod/index.html").is_file()
    # the next normal build still fails and leaves that output alone
    again = build_site(config, progress=False)
    assert again.errors and not again.written


def test_theme_dir_overrides_file_by_file(make_site, tmp_path):
    over = tmp_path / "over"
    write_tree(over, {"partials/meta.html": '<p class="custom-meta">{{ page.level_label }}</p>\n',
                      "static/style.css": "body { color: rebeccapurple; }\n"})
    result, config = make_site(LIBRARY, toml='theme_dir = "over"\n')
    assert result.written
    squat = read(config.output_dir, "strength/squat/index.html")
    assert '<p class="custom-meta">Beginner</p>' in squat and 'class="page-meta"' not in squat
    css = re.search(r'href="/(assets/style\.[0-9a-f]{10}\.css)"', squat).group(1)
    assert read(config.output_dir, css) == "body { color: rebeccapurple; }\n"
    home = read(config.output_dir, "index.html")   # (site.js loads on the home: its filters)
    assert re.search(r'src="/assets/site\.[0-9a-f]{10}\.js"', home)  # not overridden: the default's


def test_default_avatar_and_view(make_site):
    files = {"a.md": "```posecode\n" + SQUAT + "```\n\n```posecode\n" +
                     SQUAT.replace("rig humanoid\n", "rig humanoid\n  avatar avatar3\n") + "```\n"}
    result, config = make_site(files, toml='default_avatar = "avatar2"\ndefault_view = "front"\nautoplay = false\n')
    html = read(config.output_dir, "a/index.html")
    data = [json.loads(m) for m in re.findall(r'<script type="application/json">(.*?)</script>', html, re.S)]
    assert [d["avatar"] for d in data] == ["avatar2", "avatar3"]
    assert [f.get("data-view") for f in figures(html)] == ["front", "front"]
    assert all("autoplay" not in f for f in figures(html))


def test_crlf_sources_and_unicode_paths(make_site):
    crlf_md = ("---\r\ntitle: Crlf\r\n---\r\n\r\n# Crlf\r\n\r\n```posecode\r\n" + SQUAT.replace("\n", "\r\n")
               + "```\r\n\r\nSee [the nod](n%C3%BCcken%20nod.posecode).\r\n")
    files = {"crlf.md": crlf_md, "nücken nod.posecode": NOD.replace("\n", "\r\n").replace('"Nod"', '"Nücken"')}
    result, config = make_site(files)
    assert result.written and not result.warnings, result.warnings
    html = read(config.output_dir, "crlf/index.html")
    assert 'href="/n%C3%BCcken%20nod/"' in html and "\r" not in html.split("<main", 1)[1].split("</main>")[0]
    assert [f["data-title"] for f in figures(html)] == ["Squat"]
    assert "<h1>Nücken</h1>" in read(config.output_dir, "nücken nod/index.html")
    bad = dict(files, **{"crlf.md": crlf_md.replace("knees: flex 80", "knees: flx 80")})
    result, _config = make_site(bad)
    (path, diag), = result.errors
    assert (path.name, diag.line) == ("crlf.md", 12)


def test_reserved_and_duplicate_urls_are_errors(make_site):
    result, _config = make_site({"tags/x.md": "# X\n", "a.md": "# A\n", "a.posecode": NOD})
    codes = sorted(d.code for _p, d in result.errors)
    assert codes == ["duplicate-url", "reserved-url"] and not result.written


def test_draft_pages_are_left_out(make_site):
    files = dict(LIBRARY)
    files["strength/wip.md"] = page("Work in progress", fm="draft: true\n")
    result, config = make_site(files)
    assert result.written and not (config.output_dir / "strength/wip").exists()
    assert "Work in progress" not in read(config.output_dir, "index.html")
    assert all(p.src_uri != "strength/wip.md" for p in result.pages)
    files["strength/squat.md"] = page("Squat", "See [wip](wip.md).")
    result, _config = make_site(files)
    assert [d.code for _p, d in result.errors] == ["broken-link"]


def test_auto_view_follows_the_plane_of_the_movement(make_site):
    raise_ = 'posecode exercise "Lateral raise"\n  rig humanoid\n  step "Raise" 1s settle:\n    shoulders: abduct 80\n'
    files = {"a.md": "```posecode\n" + SQUAT + "```\n\n```posecode\n" + raise_ + "```\n\n"
                     "```posecode view=side\n" + raise_ + "```\n"}
    result, config = make_site(files)
    views = [f["data-view"] for f in figures(read(config.output_dir, "a/index.html"))]
    assert views == ["side", "front", "side"]


def test_fence_view_auto_overrides_a_configured_default(make_site):
    """``view=auto`` on a fence leaves the plane to the movement even when the config sets
    ``default_view`` (docs/site.md, fence attributes): a squat is seen from the side."""
    files = {"a.md": "```posecode\n" + SQUAT + "```\n\n```posecode view=auto\n" + SQUAT + "```\n"}
    result, config = make_site(files, toml='default_view = "front"\n')
    assert not result.warnings, result.warnings
    assert [f["data-view"] for f in figures(read(config.output_dir, "a/index.html"))] == ["front", "side"]


def test_cli_config_error_exits_2(tmp_path, capsys, monkeypatch):
    (tmp_path / "posecode.toml").write_text('site_name = "X"\nstirct = true\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 2
    err = capsys.readouterr().err
    assert "posecode.toml:2:1: error[config]: unknown key 'stirct' (did you mean 'strict'?)" in err


def test_editor_swap_and_backup_files_are_not_published(make_site):
    """Vim/Emacs/JetBrains save artefacts beside a page are neither pages nor static files."""
    files = dict(LIBRARY)
    squat = files["strength/squat.md"]
    for name in ("strength/squat.md~", "strength/#squat.md#", "strength/4913", "strength/squat.md.bak",
                 "strength/squat.md___jb_tmp___", "strength/squat.md.swp"):
        files[name] = squat
    result, config = make_site(files)
    assert not result.errors
    published = sorted(p.relative_to(config.output_dir / "strength").as_posix()
                       for p in (config.output_dir / "strength").rglob("*") if p.is_file())
    assert published == ["index.html", "squat/index.html"]


def test_kinematic_warning_points_at_the_directive(tmp_path, capsys, monkeypatch):
    """A kinematic warning in a fence names the file line and the column of the directive that
    asked for it (the same place `check` reports), and does not fail the build."""
    block = ('posecode exercise "Floor reach"\n  rig humanoid\n  pose start = standing\n\n'
             '  step "Reach" 1s settle:\n    reach: hand_left floor\n')
    write_tree(tmp_path / "content", {"a.md": "# A\n\n```posecode\n" + block + "```\n"})
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"^content/a\.md:9:5: warning\[kinematic-reach-short\]: hand_left cannot reach floor", err, re.M)


def test_page_workers_build_the_same_bytes(tmp_path, monkeypatch):
    """POSECODE_PAGE_WORKERS_MIN=1 forces forked page workers on a small site: the site they
    build (cold cache, then figures cached; drafts, index pages, cards, a warning) is
    byte-identical to the one-process build, and an error is reported the same way."""
    import shutil

    if (os.cpu_count() or 1) < 2:
        import pytest

        pytest.skip("page workers need two cores")
    only_thread()   # the build forks only a process that runs no other thread (by design)
    files = dict(LIBRARY)
    files["strength/draft.md"] = page("Draft", fm="draft: true\n")
    files["strength/lunge.md"] = page("Lunge", "See [nod](../posture/nod.md#nowhere).", block=SQUAT.replace("70", "60"))
    results = {}
    for name, threshold in (("serial", "100000"), ("workers", "1")):
        monkeypatch.setenv("POSECODE_PAGE_WORKERS_MIN", threshold)
        write_tree(tmp_path / name / "content", files)
        config = load_config(None, cwd=tmp_path / name)
        cold = build_site(config, progress=False)
        cold_tree = tree_bytes(config.output_dir)
        shutil.rmtree(config.output_dir)
        for manifest in config.cache_dir.glob("manifest-*.json"):
            manifest.unlink()
        cached = build_site(config, progress=False)
        assert cold.written and cached.written and tree_bytes(config.output_dir) == cold_tree
        assert cold.page_workers == cached.page_workers == (0 if name == "serial" else min(os.cpu_count(), 8) - 1)
        # prose added to every page: the site-wide files are kept (no cards made), the pages
        # are rendered again (their card posters written by the workers): as a fresh build
        prose = {uri: text + "\nMore prose.\n" for uri, text in files.items() if uri.endswith(".md") and not uri.endswith("index.md")}
        write_tree(tmp_path / name / "content", prose)
        edited = build_site(config, progress=False)
        assert edited.written and "cards" not in edited.timings and edited.page_workers == cold.page_workers
        edited_tree = tree_bytes(config.output_dir)
        assert edited_tree != cold_tree
        shutil.rmtree(config.output_dir)
        for manifest in config.cache_dir.glob("manifest-*.json"):
            manifest.unlink()
        assert build_site(config, progress=False).written and tree_bytes(config.output_dir) == edited_tree
        write_tree(tmp_path / name / "content", {uri: files[uri] for uri in prose})
        assert build_site(config, progress=False).written and tree_bytes(config.output_dir) == cold_tree
        warnings = [(p.name, d.code, d.line, d.column) for p, d in cold.warnings]
        lines = files["strength/lunge.md"].split("\n")
        row = next(i for i, line in enumerate(lines) if "#nowhere" in line)
        assert ("lunge.md", "broken-anchor", row + 1, lines[row].index("../posture") + 1) in warnings
        results[name] = cold_tree
        results[name + " warnings"] = warnings
        # an error in a page a worker parsed: same file:line:col, nothing written
        write_tree(tmp_path / name / "content", {"posture/nod.md": page("Nod", block=NOD.replace("flex 15", "flx 15"))})
        broken = build_site(config, progress=False)
        assert not broken.written and tree_bytes(config.output_dir) == cold_tree
        results[name + " error"] = [(p.name, d.code, d.line, d.column) for p, d in broken.errors]
        assert results[name + " error"] and all(e[0] == "nod.md" for e in results[name + " error"])
        assert not list(config.output_dir.parent.glob(".site.building-*"))
    assert results["serial"] == results["workers"]
    assert "strength/draft/index.html" not in results["workers"]
    assert results["serial error"] == results["workers error"]


def test_posecode_page_summary_from_its_leading_comment(make_site):
    files = {"a.posecode": "// Nod: a small yes of the head.\n# more words\n" + NOD,
             "b.posecode": "# keeps the neck long\n" + NOD.replace('"Nod"', '"Other"'),
             "c.posecode": NOD.replace('"Nod"', '"Plain"'),
             "d.posecode": "# Tuck: draw the chin back, the eyes\n# level. Hold it there.\n" + NOD.replace('"Nod"', '"Tuck"'),
             "e.posecode": "# no full stop here\n#\n# a second paragraph\n" + NOD.replace('"Nod"', '"Fifth"')}
    result, config = make_site(files)
    assert not result.errors
    described = {}
    for name in ("a", "b", "c", "d", "e"):
        m = re.search(r'<meta name="description" content="([^"]*)"', read(config.output_dir, f"{name}/index.html"))
        described[name] = m and m.group(1)
    # the movement's own name before the colon is dropped; the first sentence of the first
    # comment paragraph (wrapping lines joined); no comment: the generated description
    assert described == {"a": "A small yes of the head.", "b": "Keeps the neck long",
                         "c": "Posture in 1 step, 1 s a repetition.",
                         "d": "Draw the chin back, the eyes level.", "e": "No full stop here"}


def test_an_output_folder_inside_the_content_is_reported_without_a_line(tmp_path, capsys, monkeypatch):
    """A problem with a folder names the folder alone: no ``:1:1`` as if it were a file."""
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "a.md").write_text("# A\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "content/site"]) != 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "error[output-dir]" in x)
    assert re.match(r"^\S*content/site: error\[output-dir\]: the output folder must not be", line), line


def test_strict_from_the_config_is_named_as_such(tmp_path, monkeypatch, capsys):
    content = tmp_path / "content"
    content.mkdir()
    (content / "index.md").write_text("# Home\n\n[gone](missing-anchor.md#x)\n", encoding="utf-8")
    (content / "missing-anchor.md").write_text("---\ntitle: A\nsumary: typo\n---\n\nText.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "posecode.toml").write_text("strict = true\n", encoding="utf-8")
    assert main(["build"]) == 1
    assert "build failed (warnings with strict = true in the config)" in capsys.readouterr().err
    (tmp_path / "posecode.toml").write_text("", encoding="utf-8")
    assert main(["build", "--strict"]) == 1
    assert "build failed (warnings with --strict)" in capsys.readouterr().err




def test_a_pages_hints_reach_the_build_result_and_the_terminal(make_site, capsys, tmp_path, monkeypatch):
    # kinematic-balance is a hint (advice, never a failure): the build reports it at its line in
    # the Markdown file (the fence's line 5 is the file's line 8), and still succeeds
    result, _config = make_site({"squat.md": DEEP_SQUAT_PAGE})
    assert not result.errors
    (hint,) = [(p, d) for p, d in result.hints if d.code == "kinematic-balance"]
    assert os.path.basename(hint[0]) == "squat.md" and hint[1].line == 8 and "behind the heels" in hint[1].message
    write_tree(tmp_path / "cli" / "content", {"squat.md": DEEP_SQUAT_PAGE})
    monkeypatch.chdir(tmp_path / "cli")
    assert main(["build"]) == 0
    out = capsys.readouterr()
    text = out.out + out.err
    assert re.search(r"squat\.md:8:\d+: hint\[kinematic-balance\]", text) and "1 hint" in text
