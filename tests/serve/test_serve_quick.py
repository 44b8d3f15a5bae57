"""The figure fast path (``ProjectSource.quick_figures``): an edit inside a
Posecode block is compiled on its own and pushed before the build. Its markup
must be exactly what the build then writes (a drift would make tabs swap
twice or show something the build does not), and anything but a clean
block-only edit must leave the decision to the build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from posecode_ssg.site.serve import ProjectSource, split_figures, take_snapshot

pytest.importorskip("posecode_ssg.site.build", reason="the site build is not available")
REPO = Path(__file__).resolve().parents[2]
SQUAT = "strength/bodyweight-squat.md"


@pytest.fixture
def project(tmp_path, monkeypatch):
    if not (REPO / "content" / SQUAT).is_file():
        pytest.skip("demo content not available")
    shutil.copytree(REPO / "content", tmp_path / "content")
    monkeypatch.chdir(tmp_path)
    source = ProjectSource()
    out = tmp_path / "preview" / "site"
    report = source.build(out)
    assert report.errors == []
    return source, out, tmp_path / "content" / SQUAT


def edit(path: Path, old: str, new: str) -> str:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("old", "new", "index"),
    [
        ("    knees: flex 80", "    knees: flex 72", 0),  # first block
        ("    knees: flex 50", "    knees: flex 55", 1),  # second block (fence with title="...")
        ('  step "Stand" 1.2s drive:', '  step "Stand up" 1.4s settle:', 1),  # name, duration, timing mode
    ],
)
def test_quick_figure_markup_equals_the_build(project, old, new, index):
    source, out, page = project
    before = take_snapshot(out)
    changed = {edit(page, old, new)}
    quick = source.quick_figures(changed, before.pages)
    assert quick is not None and list(quick) == ["strength/bodyweight-squat/index.html"]
    (swap,) = quick["strength/bodyweight-squat/index.html"]
    assert source.build(out).errors == []
    after = take_snapshot(out, before)
    figures = split_figures(after.pages["strength/bodyweight-squat/index.html"])[1]
    assert swap["id"] == figures[index][0]
    assert swap["html"] == figures[index][1]


def test_text_outside_blocks_takes_the_build(project):
    source, out, page = project
    pages = take_snapshot(out).pages
    assert source.quick_figures({edit(page, "Let the arms hang.", "Let the arms hang loose.")}, pages) is None
    # The remembered text moved on: a block edit after it is quick again.
    assert source.quick_figures({edit(page, "    knees: flex 80", "    knees: flex 70")}, pages) is not None


def test_block_with_errors_takes_the_build(project):
    source, out, page = project
    pages = take_snapshot(out).pages
    assert source.quick_figures({edit(page, "    knees: flex 80", "    knees: flx 80")}, pages) is None


def test_added_block_or_two_files_take_the_build(project):
    source, out, page = project
    pages = take_snapshot(out).pages
    text = page.read_text(encoding="utf-8")
    page.write_text(text + '\n```posecode\nposecode exercise "Extra"\n  rig humanoid\n'
                    '  step "Up" 1s settle:\n    elbows: flex 30\n```\n', encoding="utf-8")
    assert source.quick_figures({str(page)}, pages) is None
    home = page.parents[1] / "index.md"
    assert home.is_file()
    changed = {edit(page, "    knees: flex 80", "    knees: flex 71"), str(home)}
    assert source.quick_figures(changed, pages) is None
