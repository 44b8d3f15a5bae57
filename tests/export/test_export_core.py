"""The core of ``posecode-ssg export`` (issue 25): the format from OUT's suffix, the frame time of
--phase / --time, Markdown pages with several fences, --fence N, documents with errors reported
as ``check`` reports them, atomic writing, the lazy session."""

from __future__ import annotations

import argparse
import os
import textwrap
from pathlib import Path

import pytest

from posecode_ssg.cli import build_parser
from posecode_ssg.commands.export import resolve_format, run
from posecode_ssg.export import ExportError, ExportOptions, ExportSession, frame_time, load_documents, write_atomic
from posecode_ssg.export.core import atomic_output

SQUAT = textwrap.dedent('''\
    posecode exercise "Half Squat"
      rig humanoid
      pose start = standing

      step "Sit back" 1.5s settle:
        hips: flex 60
        knees: flex 70
        ankles: dorsiflex 20
        ground-lock: feet

      step "Stand up" 1.2s settle:
        hips: flex 0
        knees: flex 0
        ankles: dorsiflex 0
        ground-lock: feet
    ''')

NOD = textwrap.dedent('''\
    posecode exercise "Neck Nod"
      rig humanoid
      pose start = standing

      step "Nod down" 1s settle:
        neck: flex 20
        ground-lock: feet
    ''')

BROKEN = textwrap.dedent('''\
    posecode exercise "Broken"
      rig humanoid
      pose start = standing

      step "Bend" 1s settle:
        elbw_left: flex 30
    ''')


def page(*bodies: str) -> str:
    text = "---\ntitle: Two movements\n---\n\n# Two\n\n"
    for b in bodies:
        text += "Some words.\n\n```posecode\n" + b + "```\n\n"
    return text


def args(*argv: str):
    return build_parser().parse_args(["export", *argv])


def opts_of(**kw) -> ExportOptions:
    base = dict(fmt="svg", out=Path("x.svg"))
    base.update(kw)
    return ExportOptions(**base)


@pytest.mark.parametrize("name, fmt", [("a.png", "png"), ("a.SVG", "svg"), ("a.gif", "gif"), ("a.webm", "webm"),
                                       ("a.mp4", "mp4"), ("a.bvh", "bvh"), ("a.gltf", "gltf"), ("a.glb", "glb")])
def test_format_comes_from_the_suffix(tmp_path, name, fmt):
    assert resolve_format(None, tmp_path / name) == (fmt, None)


def test_format_option_wins_and_sheet_only_by_option(tmp_path):
    assert resolve_format("sheet", tmp_path / "a.png")[0] == "sheet"
    assert resolve_format(None, tmp_path / "a.png")[0] == "png"


def test_unknown_suffix_is_a_usage_error(tmp_path, capsys):
    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    assert run(args(str(src), "-o", str(tmp_path / "out.jpeg"))) == 2
    assert "unknown output suffix '.jpeg'" in capsys.readouterr().err
    assert not (tmp_path / "out.jpeg").exists()


def test_phase_is_the_end_of_the_nth_step_from_one(tmp_path):
    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    (doc,), failed, problems = load_documents([str(src)])
    assert not failed and not problems
    assert doc.name == "Half Squat" and doc.fence_line is None
    # the durations written in the source: 1.5 s then 1.2 s
    assert frame_time(doc, opts_of(phase=1)) == pytest.approx(1.5)
    assert frame_time(doc, opts_of(phase=2)) == pytest.approx(2.7)
    assert frame_time(doc, opts_of(time=0.4)) == pytest.approx(0.4)
    # the poster frame: the deepest squat, the end of step 1
    assert frame_time(doc, opts_of()) == pytest.approx(1.5)
    with pytest.raises(ExportError, match="has 2 steps"):
        frame_time(doc, opts_of(phase=3))
    with pytest.raises(ExportError, match="outside the loop"):
        frame_time(doc, opts_of(time=doc.duration + 1))


def test_markdown_page_with_two_fences_writes_one_file_each_named_after_the_movement(tmp_path, capsys):
    md = tmp_path / "page.md"
    md.write_text(page(SQUAT, NOD))
    out = tmp_path / "out"
    assert run(args(str(md), "-o", str(out), "--format", "svg")) == 0
    assert sorted(p.name for p in out.iterdir()) == ["half-squat.svg", "neck-nod.svg"]
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2 and all(line.startswith("wrote ") for line in printed)


def test_fence_n_picks_one_fence(tmp_path):
    md = tmp_path / "page.md"
    md.write_text(page(SQUAT, NOD))
    out = tmp_path / "nod.svg"
    assert run(args(str(md), "-o", str(out), "--fence", "2")) == 0
    assert "Neck Nod" in out.read_text()
    assert run(args(str(md), "-o", str(tmp_path / "x.svg"), "--fence", "3")) == 2
    assert not (tmp_path / "x.svg").exists()


def test_same_names_are_made_unique(tmp_path):
    md = tmp_path / "page.md"
    md.write_text(page(NOD, NOD))
    assert run(args(str(md), "-o", str(tmp_path / "o"), "--format", "svg")) == 0
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["neck-nod-2.svg", "neck-nod.svg"]


def test_errors_are_reported_as_check_reports_them_exit_1_nothing_written(tmp_path, capsys):
    md = tmp_path / "page.md"
    md.write_text(page(BROKEN))
    out = tmp_path / "broken.svg"
    assert run(args(str(md), "-o", str(out))) == 1
    err = capsys.readouterr().err
    # the fence's body starts at line 10 of the page (front matter 3 lines, heading, words, fence)
    lines = md.read_text().split("\n")
    row = next(i for i, l in enumerate(lines, 1) if "elbw_left" in l)
    col = lines[row - 1].index("elbw_left") + 1
    assert f"page.md:{row}:{col}: error[" in err
    assert "elbw_left" in err
    assert not out.exists()


def test_a_broken_document_does_not_stop_the_others(tmp_path):
    md = tmp_path / "page.md"
    md.write_text(page(SQUAT, BROKEN))
    out = tmp_path / "o"
    assert run(args(str(md), "-o", str(out), "--format", "svg")) == 1
    assert [p.name for p in out.iterdir()] == ["half-squat.svg"]


def test_several_documents_into_one_file_is_a_usage_error(tmp_path):
    md = tmp_path / "page.md"
    md.write_text(page(SQUAT, NOD))
    assert run(args(str(md), "-o", str(tmp_path / "one.svg"))) == 2
    assert not (tmp_path / "one.svg").exists()


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    out = tmp_path / "a.png"
    with pytest.raises(RuntimeError):
        with atomic_output(out) as tmp:
            tmp.write_bytes(b"partial")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ExportError):
        with atomic_output(out):
            pass   # nothing written: no 0-byte file
    assert list(tmp_path.iterdir()) == []
    out.write_bytes(b"old")
    write_atomic(out, b"new")
    assert out.read_bytes() == b"new" and list(tmp_path.iterdir()) == [out]


def test_a_failing_writer_leaves_no_file(tmp_path, monkeypatch):
    import posecode_ssg.motion.poster as poster

    def boom(*a, **k):
        raise ExportError("drawing failed")

    monkeypatch.setattr(poster, "render_poster", boom)
    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    assert run(args(str(src), "-o", str(tmp_path / "s.svg"))) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["squat.posecode"]


def test_the_session_starts_no_browser_for_2d_formats(tmp_path, monkeypatch):
    import posecode_ssg.evaluate.sampler as sampler

    class NoBrowser:
        def __init__(self, *a, **k):
            raise AssertionError("a browser was started")

    monkeypatch.setattr(sampler, "RuntimePage", NoBrowser)
    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    for name, extra in (("a.svg", []), ("b.png", ["--renderer", "2d"]), ("c.svg", ["--format", "sheet"]),
                        ("d.png", ["--format", "sheet"])):
        assert run(args(str(src), "-o", str(tmp_path / name), *extra)) == 0
        assert (tmp_path / name).stat().st_size > 0


def test_session_without_browser_is_unavailable_with_the_install_hint(monkeypatch):
    import posecode_ssg.evaluate.sampler as sampler
    from posecode_ssg.evaluate.browser import INSTALL_HINT, BrowserUnavailable
    from posecode_ssg.export import ExportUnavailable

    class NoBrowser:
        def __init__(self, *a, **k):
            pass

        def __enter__(self):
            raise BrowserUnavailable(f"no Chromium browser found; {INSTALL_HINT}")

    monkeypatch.setattr(sampler, "RuntimePage", NoBrowser)
    with ExportSession() as s:
        with pytest.raises(ExportUnavailable, match="apt-get install chromium"):
            s.runtime()
        assert not s.started


def test_missing_writer_module_says_not_available(tmp_path, capsys, monkeypatch):
    """A format whose writer module is not installed (a partial install) is a clear exit 2."""
    from posecode_ssg.export import core

    monkeypatch.setitem(core.WRITERS, "bvh", "posecode_ssg.export.not_installed:write_bvh")
    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    assert run(args(str(src), "-o", str(tmp_path / "a.bvh"))) == 2
    assert "not available in this version" in capsys.readouterr().err


def test_many_documents_in_worker_processes_each_get_their_file(tmp_path):
    files = []
    for n in "ABCDE":
        p = tmp_path / f"{n}.posecode"
        p.write_text(NOD.replace("Neck Nod", f"Nod {n}"))
        files.append(str(p))
    out = tmp_path / "o"
    assert run(args(*files, "-o", str(out), "--format", "svg")) == 0
    assert sorted(p.name for p in out.iterdir()) == [f"nod-{n}.svg" for n in "abcde"]
    assert all(f"Nod {n}" in (out / f"nod-{n.lower()}.svg").read_text() for n in "ABCDE")


def test_format_option_must_agree_with_the_suffix(tmp_path, capsys):
    """``-o gs.jpg --format png`` would write PNG data into a .jpg: refused, naming the file to use."""
    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    assert run(args(str(src), "-o", str(tmp_path / "gs.jpg"), "--format", "png", "--renderer", "2d")) == 2
    assert "name the file gs.png" in capsys.readouterr().err and not (tmp_path / "gs.jpg").exists()


def test_sheets_and_stills_of_one_movement_share_a_folder(tmp_path):
    """A folder gets ``<movement>.svg`` for the still and ``<movement>-sheet.svg`` for the contact
    sheet: the second export does not overwrite the first."""
    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    out = tmp_path / "out"
    out.mkdir()
    assert run(args(str(src), "-o", str(out), "--format", "svg")) == 0
    assert run(args(str(src), "-o", str(out), "--format", "sheet")) == 0
    assert sorted(p.name for p in out.iterdir()) == ["half-squat-sheet.svg", "half-squat.svg"]


def test_written_files_get_the_usual_mode(tmp_path):
    """An export is meant to be sent or served: its mode is what any new file gets under the umask
    (0644 under 022), not the temporary file's private 0600."""
    import os

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


SHARED = Path(os.environ.get("POSECODE_SHARED", Path(__file__).resolve().parents[3] / "shared"))
JAB_FILE = SHARED / "cases" / "bugs" / "ex-gif-timing" / "jab-timing.posecode"
RAISE_FILE = SHARED / "cases" / "bugs" / "ex-video-size-pixfmt" / "lateral-raise.posecode"


def test_the_command_counts_frames_of_each_animation(tmp_path, monkeypatch):
    """With a GIF or a video the bar counts the current document's frames: reset to each one's
    total at its first frame, described "export k/N", and full at its end."""
    from posecode_ssg.commands import export as command

    if not __import__("posecode_ssg.evaluate.browser", fromlist=["have_browser"]).have_browser():
        pytest.skip("no Chromium")

    class Bar:
        def __init__(self, total, unit):
            self.total, self.unit, self.n, self.desc, self.log = total, unit, 0, "export", []

        def reset(self, total):
            self.log.append(("reset", total))
            self.total, self.n = total, 0

        def set_description(self, desc, refresh=True):
            self.desc = desc

        def update(self, k):
            self.n += k
            if self.n == self.total:
                self.log.append(("full", self.desc, self.n))

        def write(self, text, file=None):
            pass

        def close(self):
            pass

    bars = []
    monkeypatch.setattr(command, "_progress", lambda total, unit="file": bars.append(Bar(total, unit)) or bars[-1])
    a, b = tmp_path / "a.posecode", tmp_path / "b.posecode"
    a.write_text(JAB_FILE.read_text())
    b.write_text(RAISE_FILE.read_text().replace("posecode exercise \"", "posecode exercise \"Other ", 1))
    argv = ["export", str(a), str(b), "-o", str(tmp_path / "out"), "--format", "gif", "--renderer", "2d",
            "--width", "64", "--height", "48", "--fps", "4"]
    assert command.run(build_parser().parse_args(argv)) == 0
    (bar,) = bars
    assert bar.unit == "frame"
    (other,), _failed, _problems = load_documents([str(b)], opts_of(fmt="gif"))
    totals = [e[1] for e in bar.log if e[0] == "reset"]
    assert totals == [round(2.75 * 4), round(other.duration * 4)]   # the jab's loop is 2.75 s
    assert [e[1:] for e in bar.log if e[0] == "full"] == [("export 1/2", totals[0]), ("export 2/2", totals[1])]


def test_warnings_are_printed_as_check_prints_them_and_the_file_is_written(tmp_path, capsys):
    """A document with warnings (an ankle past its range) is exported, exit 0, and its warnings
    are on standard error at file:line:col, as ``check`` gives them."""
    src = tmp_path / "deep.posecode"
    src.write_text(SQUAT.replace("ankles: dorsiflex 20", "ankles: dorsiflex 25"))
    assert run(args(str(src), "-o", str(tmp_path / "deep.svg"))) == 0
    err = capsys.readouterr().err
    assert (tmp_path / "deep.svg").stat().st_size > 0
    assert f"{src}:8:23: warning[rom-clamp]" in err and "clamped to 15°" in err


def test_a_page_without_fences_among_several_is_passed_over(tmp_path, capsys):
    """A folder's pages given together (``content/rehab/*.md``): its ``_index.md`` has no fence;
    the others are written and the command says it passed that one over."""
    (tmp_path / "_index.md").write_text("---\ntitle: Rehab\n---\n\n# Rehab\n")
    (tmp_path / "squat.md").write_text(page(SQUAT))
    out = tmp_path / "out"
    assert run(args(str(tmp_path / "_index.md"), str(tmp_path / "squat.md"), "-o", str(out), "--format", "svg")) == 0
    assert [p.name for p in out.iterdir()] == ["half-squat.svg"]
    assert "_index.md holds no ```posecode fence: passed over" in capsys.readouterr().err
    # alone, it is a usage error
    assert run(args(str(tmp_path / "_index.md"), "-o", str(tmp_path / "x.svg"))) == 2


@pytest.mark.parametrize("extra, fmt, said", [
    (["--mid"], "svg", "--mid does not apply to svg"),
    (["--time", "1"], "bvh", "--time does not apply to bvh"),
    (["--width", "300"], "bvh", "--width does not apply to bvh"),
    (["--renderer", "3d"], "svg", "--renderer does not apply to svg"),   # an SVG is always 2D
])
def test_an_option_the_format_ignores_is_said(tmp_path, capsys, extra, fmt, said):
    from posecode_ssg.commands.export import ignored_options

    assert any(said in n for n in ignored_options(args("x.posecode", "-o", f"x.{fmt}", *extra), fmt))
    assert ignored_options(args("x.posecode", "-o", f"x.{fmt}"), fmt) == []


def test_size_limits_are_the_same_for_every_format(tmp_path, capsys):
    from posecode_ssg.export.raster3d import MAX_SIDE, MIN_SIDE

    src = tmp_path / "squat.posecode"
    src.write_text(SQUAT)
    for width in ("10", "5000"):
        assert run(args(str(src), "-o", str(tmp_path / "x.svg"), "--width", width)) == 1
        assert f"between {MIN_SIDE} and {MAX_SIDE} pixels" in capsys.readouterr().err
