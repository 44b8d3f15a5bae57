"""The dev server's check that a file it built from was written during the build."""

from __future__ import annotations

import os

from posecode_ssg.site.serve.watch import file_states, modified_since


def test_a_write_with_a_coarse_mtime_is_still_seen(tmp_path):
    # A file system stamping mtimes from a coarse clock can give a write made
    # just after a build started an mtime from before it (sv-rapid-saves):
    # the half-written file's size still moves.
    page = tmp_path / "index.md"
    page.write_text("# Version page\n\n")
    before = file_states([str(page)])
    stamp = os.stat(page).st_mtime_ns
    with page.open("a") as handle:
        handle.write("```posecode\nposecode exercise \"V\"\n```\n")
    os.utime(page, ns=(stamp, stamp))          # the coarse clock had not ticked
    assert not modified_since([str(page)], stamp + 1)
    assert file_states([str(page)]) != before


def test_an_untouched_file_and_a_missing_one_keep_their_state(tmp_path):
    page = tmp_path / "index.md"
    page.write_text("# Page\n")
    paths = [str(page), str(tmp_path / "gone.md")]
    before = file_states(paths)
    assert before[paths[1]] is None
    assert file_states(paths) == before
