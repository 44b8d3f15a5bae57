"""Unit tests of the dev server's pure parts: figure split, output diff,
client injection, editor-file filter, diagnostic formatting."""

from __future__ import annotations

import os

import pytest
from watchfiles import Change

from posecode_ssg.site.serve import (
    CLIENT_TAG,
    Problem,
    Snapshot,
    SourceFilter,
    diff_snapshots,
    inject_client,
    split_figures,
)


def figure(fig_id: str, motion: str, title: str = "Squat") -> str:
    return (
        f'<posecode-figure id="{fig_id}" data-title="{title}" autoplay>'
        f'<script type="application/json">{motion}</script>'
        f'<figure class="posecode-poster"><svg><title>{title}</title></svg></figure>'
        f'<ol class="posecode-phases"><li>Down</li></ol></posecode-figure>'
    )


def page(body: str) -> str:
    return f"<!doctype html><html><head><title>t</title></head><body><main>{body}</main></body></html>"


def snap(files: dict[str, str]) -> Snapshot:
    s = Snapshot()
    for rel, text in files.items():
        s.digests[rel] = str(hash(text))
        if rel.endswith(".html"):
            s.pages[rel] = text
    return s


def test_split_figures_keeps_opening_tags_and_ids():
    html = page("<p>a</p>" + figure("fig-1", '{"d":1}') + "<p>b</p>" + figure("squat-2", '{"d":2}'))
    skeleton, figures = split_figures(html)
    assert [fid for fid, _ in figures] == ["fig-1", "squat-2"]
    assert '{"d":1}' in figures[0][1] and '{"d":2}' in figures[1][1]
    assert '{"d"' not in skeleton
    assert '<posecode-figure id="fig-1" data-title="Squat" autoplay></posecode-figure>' in skeleton
    assert "<p>a</p>" in skeleton and "<p>b</p>" in skeleton


def test_diff_figure_only_change_is_swapped_in_place():
    old = snap({"a/index.html": page("<p>x</p>" + figure("f1", '{"q":1}') + figure("f2", '{"q":5}'))})
    new = snap({"a/index.html": page("<p>x</p>" + figure("f1", '{"q":2}') + figure("f2", '{"q":5}'))})
    changes = diff_snapshots(old, new)
    assert not changes.reload_all and changes.pages == []
    assert [f["id"] for f in changes.figures["a/index.html"]] == ["f1"]
    assert '{"q":2}' in changes.figures["a/index.html"][0]["html"]


@pytest.mark.parametrize(
    "new_body",
    [
        "<p>y</p>" + figure("f1", '{"q":1}'),  # text edit
        "<p>x</p>" + figure("f1", '{"q":2}', title="Lunge"),  # caption (opening tag) changed
        "<p>x</p>" + figure("f1", '{"q":1}') + figure("f2", "{}"),  # a figure added
        "<p>x</p>" + figure("g1", '{"q":2}'),  # figure renamed (id changed)
    ],
)
def test_diff_other_page_changes_reload_the_page(new_body):
    old = snap({"index.html": page("<p>x</p>" + figure("f1", '{"q":1}')), "other.html": page("o")})
    new = snap({"index.html": page(new_body), "other.html": page("o")})
    changes = diff_snapshots(old, new)
    assert changes.pages == ["index.html"]
    assert changes.figures == {} and not changes.reload_all
    # only the prose edit (first case: same figures, same markup) may be merged in place
    same_figures = new_body.endswith(figure("f1", '{"q":1}')) and new_body.count("<posecode-figure") == 1
    assert changes.patch == ({"index.html": page(new_body)} if same_figures else {})


def test_diff_patch_is_left_out_for_many_pages():
    from posecode_ssg.site.serve.snapshots import PATCH_LIMIT

    names = [f"p{n}.html" for n in range(PATCH_LIMIT + 1)]
    old = snap({name: page("<p>x</p>" + figure("f1", '{"q":1}')) for name in names})
    new = snap({name: page("<p>y</p>" + figure("f1", '{"q":1}')) for name in names})
    changes = diff_snapshots(old, new)
    assert changes.pages == sorted(names) and changes.patch == {}  # every tab reloads instead
    few = diff_snapshots(snap({n: old.pages[n] for n in names[:2]}), snap({n: new.pages[n] for n in names[:2]}))
    assert sorted(few.patch) == names[:2]


def test_diff_pages_added_and_removed_and_assets():
    old = snap({"a.html": page("a"), "gone/index.html": page("g"), "style.css": "x", "search.json": "1"})
    new = snap({"a.html": page("a"), "new/index.html": page("n"), "style.css": "y", "search.json": "2"})
    changes = diff_snapshots(old, new)
    assert changes.pages == ["gone/index.html", "new/index.html"]
    assert changes.reload_all  # the stylesheet changed


def test_diff_data_files_alone_reload_nothing():
    old = snap({"a.html": page("a"), "search.json": "1", "sitemap.xml": "1"})
    new = snap({"a.html": page("a"), "search.json": "2", "sitemap.xml": "2"})
    assert diff_snapshots(old, new).empty


def test_diff_new_hashed_asset_alone_reloads_nothing():
    old = snap({"a.html": page("a"), "assets/posters/1111.svg": "<svg/>"})
    new = snap({"a.html": page("a"), "assets/posters/2222.svg": "<svg>x</svg>"})
    assert diff_snapshots(old, new).empty


def test_diff_rig_change_reloads_every_tab():
    changes = diff_snapshots(snap({"rig.json": "1"}), snap({"rig.json": "2"}))
    assert changes.reload_all


def test_inject_client_before_last_body_close():
    html = b"<html><body><pre>&lt;/body&gt;</pre></body></html>"
    out = inject_client(html)
    assert out == b"<html><body><pre>&lt;/body&gt;</pre>" + CLIENT_TAG.encode() + b"</body></html>"
    assert inject_client(b"<p>fragment") == b"<p>fragment" + CLIENT_TAG.encode()


@pytest.mark.parametrize(
    "name",
    [
        ".index.md.swp", ".index.md.swx", "index.md~", "4913", "#index.md#", ".#index.md",
        "index.md.tmp", "index.md.bak", "index.md.orig", "index.md___jb_tmp___", ".~lock.index.md#",
        "index.md.crswap", ".index.md.kate-swp", ".DS_Store",
    ],
)
def test_filter_ignores_editor_temp_and_backup_files(name):
    assert SourceFilter()(Change.added, f"/site/content/{name}") is False


@pytest.mark.parametrize("name", ["index.md", "über uns.md", "squat.posecode", "style.css", "base.html"])
def test_filter_passes_sources(name):
    assert SourceFilter()(Change.modified, f"/site/content/Plié drills/{name}") is True


def test_problem_reads_its_line_and_formats_like_the_build(tmp_path, monkeypatch):
    from posecode_ssg.language.diagnostics import Diagnostic
    from posecode_ssg.site.report import format_diagnostic

    monkeypatch.chdir(tmp_path)
    (tmp_path / "content").mkdir()
    page = tmp_path / "content" / "index.md"
    page.write_text("# Drill\n\n```posecode\n\tknees: flx 40\n```\n", encoding="utf-8")
    diagnostic = Diagnostic(code="unknown-action", severity="error", line=4, column=9,
                            message="unknown action 'flx'", hint="did you mean 'flex'?")
    problem = Problem.at(page, line=4, column=9, severity="error", code="unknown-action",
                         message="unknown action 'flx'", hint="did you mean 'flex'?")
    assert problem.file == "content/index.md"
    assert problem.source == " knees: flx 40"  # tab shown as one space, as in the terminal
    assert problem.source[problem.column - 1:].startswith("flx")
    assert problem.to_dict()["hint"] == "did you mean 'flex'?"
    # The terminal shows exactly what `posecode-ssg build` prints.
    assert problem.format() == format_diagnostic(page, diagnostic)
    assert problem.format().splitlines()[0] == "content/index.md:4:9: error[unknown-action]: unknown action 'flx'"
    # the overlay underlines as many characters as the terminal does (fresh-user trial: one caret)
    carets = problem.format().splitlines()[2]
    assert problem.to_dict()["width"] == carets.count("^") == len("flx")


def test_carets_underline_a_whole_link_target():
    """A broken link's caret run spans its target, absolute or relative with a fragment (it was a
    single ^ under the leading '/' or '.'); a word stops at the ')' after it."""
    from posecode_ssg.site.report import caret_width, excerpt

    line = "See [gone](/exercises/nope/) and [rel](../posture/nod.md#nowhere)."
    assert caret_width(line, line.index("/exercises") + 1) == len("/exercises/nope/")
    assert caret_width(line, line.index("../") + 1) == len("../posture/nod.md#nowhere")
    assert excerpt(7, 12, line)[1].endswith(" " * 11 + "^" * 16)
    assert caret_width('    cue "Keep tall" # note', 9) == len('"Keep tall"')
    assert caret_width("x", 5) == 1


def test_snapshot_rereads_replaced_files_and_reuses_hard_links(tmp_path):
    from posecode_ssg.site.serve import take_snapshot

    root = tmp_path / "site"
    root.mkdir()
    (root / "a.html").write_text("<p>one</p>")
    (root / "b.html").write_text("<p>two</p>")
    (root / "rig.json").write_text("{}")
    first = take_snapshot(root)
    assert set(first.digests) == {"a.html", "b.html", "rig.json"} and first.pages["a.html"] == "<p>one</p>"
    # The build's next output: a.html replaced (new inode), b.html hard-linked.
    nxt = tmp_path / "next"
    nxt.mkdir()
    (nxt / "a.html").write_text("<p>uno</p>")
    os.link(root / "b.html", nxt / "b.html")
    os.link(root / "rig.json", nxt / "rig.json")
    second = take_snapshot(nxt, first)
    assert second.pages["a.html"] == "<p>uno</p>" and second.digests["a.html"] != first.digests["a.html"]
    assert second.digests["b.html"] == first.digests["b.html"]
    changes = diff_snapshots(first, second)
    assert changes.pages == ["a.html"] and not changes.reload_all
    served = second.with_overrides({"a.html": b"<p>one</p>"})
    assert served.digests["a.html"] == first.digests["a.html"]
    assert diff_snapshots(first, served).empty
