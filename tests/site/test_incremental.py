"""Incremental rebuilds (issue 7's text-edit path): an edit rebuilds only what it touches, and the
output is byte-for-byte what a full build of the same content writes (determinism is a contract)."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

import pytest
from conftest import read, tree_bytes, write_tree
from test_build import LIBRARY

from posecode_ssg.config import load_config
from posecode_ssg.site.build import build_site


def full_build(tmp_path, files: dict, name: str = "cold"):
    """A cold build (no cache, no previous output) of ``files`` in a fresh project."""
    root = tmp_path / name
    if root.exists():
        shutil.rmtree(root)
    write_tree(root / "content", files)
    result = build_site(load_config(None, cwd=root), progress=False)
    assert result.written and not result.errors
    return tree_bytes(root / "site")


def stats(site, rels):
    return {rel: (os.stat(site / rel).st_ino, os.stat(site / rel).st_mtime_ns) for rel in rels}


SITE_WIDE = ["index.html", "strength/index.html", "posture/index.html", "tags/legs/index.html",
             "muscles/quadriceps/index.html", "404.html"]
OTHER_PAGES = ["posture/nod/index.html", "posture/chin/index.html"]


@pytest.fixture(params=[True, False], ids=["in-place", "swap"])
def project(request, tmp_path):
    """A built LIBRARY project and a ``rebuild()`` in the mode of the parameter (in place, as
    the dev server builds, or by swapping a new folder in, as ``posecode-ssg build`` does)."""
    write_tree(tmp_path / "p" / "content", LIBRARY)
    config = load_config(None, cwd=tmp_path / "p")
    first = build_site(config, progress=False, keep_going=True, in_place=request.param)
    assert first.written and not first.errors

    def rebuild():
        result = build_site(config, progress=False, keep_going=True, in_place=request.param)
        assert result.written and not result.errors
        return result

    return config, rebuild, request.param


def test_prose_edit_rewrites_only_that_page(project, tmp_path):
    config, rebuild, in_place = project
    site = config.output_dir
    before = stats(site, SITE_WIDE + OTHER_PAGES)
    folder = os.stat(site).st_ino
    squat = LIBRARY["strength/squat.md"].replace("Next:", "Then, next:")
    write_tree(config.content_dir, {"strength/squat.md": squat})
    result = rebuild()
    assert result.compiled == 0
    assert "Then, next:" in read(site, "strength/squat/index.html")
    after = stats(site, SITE_WIDE + OTHER_PAGES)
    if in_place:  # nothing else was touched: same folder, same files, same inodes and time stamps
        assert after == before and os.stat(site).st_ino == folder
    else:  # swapped in: the unchanged files are the previous build's, hard-linked
        assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}
    assert tree_bytes(site) == full_build(tmp_path, {**LIBRARY, "strength/squat.md": squat})


def test_title_edit_rerenders_the_site_wide_pages(project, tmp_path):
    config, rebuild, _in_place = project
    site = config.output_dir
    squat = LIBRARY["strength/squat.md"].replace("title: Squat", "title: Deep squat")
    write_tree(config.content_dir, {"strength/squat.md": squat})
    rebuild()
    assert "Deep squat" in read(site, "index.html") and "Deep squat" in read(site, "tags/legs/index.html")
    assert tree_bytes(site) == full_build(tmp_path, {**LIBRARY, "strength/squat.md": squat})


def test_front_matter_edit_moves_the_page_between_taxonomy_pages(project, tmp_path):
    config, rebuild, _in_place = project
    site = config.output_dir
    squat = LIBRARY["strength/squat.md"].replace("tags: [legs, Lower Body]", "tags: [knees]")
    write_tree(config.content_dir, {"strength/squat.md": squat})
    rebuild()
    assert (site / "tags/knees/index.html").is_file()
    assert not (site / "tags/legs").exists()  # no page has the tag any more: its page is gone
    assert tree_bytes(site) == full_build(tmp_path, {**LIBRARY, "strength/squat.md": squat})


def test_deleted_and_added_pages(project, tmp_path):
    config, rebuild, _in_place = project
    site = config.output_dir
    os.unlink(config.content_dir / "posture/chin.posecode")
    extra = {"posture/sway.md": LIBRARY["posture/nod.md"].replace("title: Nod", "title: Sway")}
    write_tree(config.content_dir, extra)
    rebuild()
    assert not (site / "posture/chin").exists() and (site / "posture/sway/index.html").is_file()
    files = {k: v for k, v in LIBRARY.items() if k != "posture/chin.posecode"} | extra
    assert tree_bytes(site) == full_build(tmp_path, files)


def test_index_page_edit_rerenders_its_section(project, tmp_path):
    config, rebuild, _in_place = project
    site = config.output_dir
    index = LIBRARY["strength/_index.md"].replace("Leg exercises.", "Exercises for the legs.")
    write_tree(config.content_dir, {"strength/_index.md": index})
    rebuild()
    assert "Exercises for the legs." in read(site, "strength/index.html")
    assert tree_bytes(site) == full_build(tmp_path, {**LIBRARY, "strength/_index.md": index})


def test_error_build_then_fix_equals_a_full_build(tmp_path):
    """The dev server's cycle: a broken save is written with its error box (keep_going), the
    fix is built incrementally on top of it, and the result is a clean full build's."""
    write_tree(tmp_path / "p" / "content", LIBRARY)
    config = load_config(None, cwd=tmp_path / "p")
    build_site(config, progress=False, keep_going=True, in_place=True)
    broken = LIBRARY["strength/squat.md"].replace("knees: flex 80", "kneez: flex 80")
    write_tree(config.content_dir, {"strength/squat.md": broken})
    result = build_site(config, progress=False, keep_going=True, in_place=True)
    assert result.errors and result.written
    again = build_site(config, progress=False, keep_going=True, in_place=True)
    assert again.errors and not again.unchanged  # a build with errors is never short-cut
    fixed = LIBRARY["strength/squat.md"].replace("Next:", "Fixed:")
    write_tree(config.content_dir, {"strength/squat.md": fixed})
    result = build_site(config, progress=False, keep_going=True, in_place=True)
    assert result.written and not result.errors
    assert tree_bytes(config.output_dir) == full_build(tmp_path, {**LIBRARY, "strength/squat.md": fixed})


def test_in_place_falls_back_to_a_swap_when_the_folder_was_touched(tmp_path):
    write_tree(tmp_path / "p" / "content", LIBRARY)
    config = load_config(None, cwd=tmp_path / "p")
    build_site(config, progress=False, in_place=True)
    site = config.output_dir
    (site / "stray.txt").write_text("not the build's")
    (site / "posture/nod/index.html").write_text("edited by hand")
    result = build_site(replace(config), progress=False, in_place=True)
    assert result.written
    assert not (site / "stray.txt").exists()  # a new folder was swapped in
    assert read(site, "posture/nod/index.html") != "edited by hand"
    assert tree_bytes(site) == full_build(tmp_path, LIBRARY)
