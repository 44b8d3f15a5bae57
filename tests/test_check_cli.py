"""`posecode-ssg check`: compiler-style text, JSON, --strict, exit codes, Markdown fences."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from posecode_ssg.cli import main

GOOD = 'posecode exercise "Good"\n  step "Bend" 1s settle:\n    knees: flex 40\n'
WARN = 'posecode exercise "Deep"\n  step "Bend" 1s settle:\n    knees: flex 170\n'
THREE = ('posecode exercise "Three"\n  rig humanoid\n  step "A" 1s setle:\n'
         '    elbw_left: flex 30\n    ground-lock: foot_rigth\n  step "B" 1s flow:\n'
         '    knees: flex 0\n')


def run(capsys, *argv):
    code = main(["check", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_conformance_examples_are_clean(capsys, shared):
    """The examples parse clean; the motion compiler's kinematic warnings are reported beside the
    parser's (issue 3), only as warnings, with every reported line a kinematic-* one; the balance
    advice (issue 19) as hints."""
    code, out, _ = run(capsys, shared / "conformance" / "examples")
    assert code == 0
    lines = out.strip().splitlines()
    heads = [ln for ln in lines if ln.startswith(str(shared))]
    warned = [ln for ln in heads if ": warning[kinematic-" in ln]
    hinted = [ln for ln in heads if ": hint[kinematic-balance]" in ln]
    assert warned and hinted and len(warned) + len(hinted) == len(heads)
    n, h = len(warned), len(hinted)  # every one a kinematic one, and the summary says so once
    assert lines[-1] == f"checked 55 documents in 55 files: 0 errors, {n} warnings ({n} kinematic), {h} hints"


def test_kinematic_diagnostics_beside_parse_result(capsys, tmp_path):
    """An unreachable reach is a kinematic warning on its own line: exit 0, 1 with --strict, and
    it is kept out of the parse result's warnings in the JSON output."""
    f = tmp_path / "reach.posecode"
    f.write_text('posecode exercise "Floor reach"\n  rig humanoid\n  pose start = standing\n\n'
                 '  step "Reach" 1s settle:\n    reach: hand_left floor\n', "utf-8")
    code, out, _ = run(capsys, f)
    assert code == 0
    assert f"{f}:6:5: warning[kinematic-reach-short]: hand_left cannot reach floor" in out
    assert out.strip().splitlines()[-1] == "checked 1 document in 1 file: 0 errors, 1 warning (1 kinematic), 0 hints"
    assert run(capsys, "--strict", f)[0] == 1
    code, out, _ = run(capsys, "--format", "json", f)
    doc = json.loads(out)[0]
    assert doc["warnings"] == [] and [k["code"] for k in doc["kinematic"]] == ["kinematic-reach-short"]
    assert doc["kinematic"][0]["line"] == 6


def test_three_mistakes_reported_with_positions_carets_and_hints(capsys, tmp_path):
    f = tmp_path / "three.posecode"
    f.write_text(THREE, "utf-8")
    code, out, _ = run(capsys, f)
    assert code == 1
    heads = [line for line in out.splitlines() if line.startswith(str(f))]
    assert heads == [
        f'{f}:3:15: error[unknown-timing-mode]: unknown timing mode "setle"; expected one of '
        "flow, settle, drive, snap, linear",
        f'{f}:4:5: error[unknown-joint]: unknown joint: "elbw_left"',
        f'{f}:5:18: error[unknown-ground-lock-effector]: unknown ground-lock effector: '
        '"foot_rigth"; expected one of feet, hands, forearms, back, hand_left, hand_right, '
        "elbow_left, elbow_right, foot_left, foot_right, left hand, left forearm, left elbow, "
        "left foot, right hand, right forearm, right elbow, right foot",
    ]
    lines = out.splitlines()
    i = lines.index(heads[1])
    assert lines[i + 1] == "    4 |     elbw_left: flex 30"
    assert lines[i + 2] == "      |     ^^^^^^^^^"
    assert lines[i + 3] == "      = hint: did you mean `elbow_left`?"
    assert "hint: did you mean `settle`?" in out and "hint: did you mean `foot_right`?" in out
    assert lines[-1] == "checked 1 document in 1 file: 3 errors, 0 warnings, 0 hints (1 document failed)"


def test_warnings_pass_unless_strict(capsys, tmp_path):
    f = tmp_path / "deep.posecode"
    f.write_text(WARN, "utf-8")
    code, out, _ = run(capsys, f)
    assert code == 0 and "warning[rom-clamp]" in out and "2 warnings" in out
    code, out, _ = run(capsys, "--strict", f)
    assert code == 1


def test_json_format(capsys, tmp_path):
    (tmp_path / "a.posecode").write_text(GOOD, "utf-8")
    (tmp_path / "b.posecode").write_text(WARN, "utf-8")
    md = "# Page\n\nText.\n\n```posecode\n" + THREE + "```\n"
    (tmp_path / "page.md").write_text(md, "utf-8")
    code, out, _ = run(capsys, "--format", "json", tmp_path)
    assert code == 1
    data = json.loads(out)
    assert [Path(d["path"]).name for d in data] == ["a.posecode", "b.posecode", "page.md"]
    a, b, page = data
    assert set(a) == {"path", "ir", "errors", "warnings", "hints", "kinematic"}
    assert a["ir"]["name"] == "Good" and a["errors"] == []
    assert b["warnings"][0]["clamped"] == 144 and b["warnings"][0]["code"] == "rom-clamp"
    assert page["fence_line"] == 5 and page["ir"] is None
    # lines counted in the .md file: block line 3 is file line 8
    assert [(e["line"], e["code"]) for e in page["errors"]] == [
        (8, "unknown-timing-mode"), (9, "unknown-joint"), (10, "unknown-ground-lock-effector")]
    for e in page["errors"]:
        assert {"line", "column", "code", "severity", "message", "hint"} <= set(e)


def test_markdown_in_list_item_maps_columns(capsys, tmp_path):
    md = "1. Item\n\n   ```posecode\n   posecode exercise \"L\"\n     step \"a\" 1s flow:\n" \
         "       toes: flex 1\n   ```\n"
    f = tmp_path / "list.md"
    f.write_text(md, "utf-8")
    code, out, _ = run(capsys, f)
    assert code == 1 and f"{f}:6:8: error[unknown-joint]" in out
    assert "    6 |        toes: flex 1" in out


def test_lines_named_in_a_fenced_hint_are_file_lines(capsys, tmp_path):
    """A hint that names another line ("indent it like line N") names the Markdown file's line,
    as the diagnostic's own position does: in check and in the build's report alike."""
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import build_site

    body = ("posecode exercise \"Calf raise\"\n  rig humanoid\n  step \"Up\" 1s flow:\n"
            "    ankles: plantarflex 20\n      ground-lock: feet\n")
    md = "---\ntitle: Calf raise\n---\n\n# Calf raise\n\nText.\n\n```posecode\n" + body + "```\n"
    (tmp_path / "content").mkdir()
    f = tmp_path / "content" / "calf.md"
    f.write_text(md, "utf-8")
    # the block's line 4 ("ankles: ...") is file line 13; the over-indented line 5 is file line 14
    code, out, _ = run(capsys, f)
    assert code == 1 and f"{f}:14:7: error[step-child-indent-mismatch]" in out, out
    assert "indent it like line 13" in out and "like line 4" not in out
    result = build_site(load_config(None, cwd=tmp_path), progress=False)
    ((path, diag),) = [(p, d) for p, d in result.errors if d.code == "step-child-indent-mismatch"]
    assert (path.name, diag.line, diag.hint) == ("calf.md", 14, "indent it like line 13")


def test_usage_errors_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, tmp_path / "missing.posecode")
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, tmp_path)  # empty folder: nothing to check
    assert code == 2
    assert main(["check"]) == 2  # argparse: PATH is required


def test_bad_bytes_and_odd_input_never_traceback(capsys, tmp_path):
    (tmp_path / "latin1.posecode").write_bytes(b'posecode exercise "Caf\xe9"\n')
    (tmp_path / "nul.posecode").write_bytes(b"\x00\x01\x02")
    (tmp_path / "empty.posecode").write_bytes(b"")
    code, out, _ = run(capsys, tmp_path)
    assert code == 1
    assert "latin1.posecode:1:1: error[unreadable-file]: file is not valid UTF-8" in out
    assert "nul.posecode:1:1: error[unexpected-character]" in out
    assert "empty.posecode:1:1: error[empty-document]" in out
    assert "Traceback" not in out


def test_console_script_runs_as_module(tmp_path):
    f = tmp_path / "good.posecode"
    f.write_text(GOOD, "utf-8")
    proc = subprocess.run([sys.executable, "-m", "posecode_ssg", "check", str(f)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "checked 1 document in 1 file: 0 errors, 0 warnings, 0 hints" in proc.stdout


@pytest.mark.parametrize("folder", ["pc-closed-vocabulary", "pc-contact-family-conflicts",
                                    "pc-ground-lock-effectors"])
def test_bug_folders_fail_with_exit_1(capsys, shared, folder):
    code, out, _ = run(capsys, shared / "cases" / "bugs" / folder)
    assert code == 1 and "error[" in out


def test_closed_pipe_is_not_a_traceback(shared):
    """`check ... | head -1`: the reader closes the pipe early; no traceback reaches the user."""
    proc = subprocess.run(f"{sys.executable} -m posecode_ssg check '{shared / 'conformance' / 'examples'}' | head -1",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr


# ------------------------------------------------------------------ Markdown pages: what build checks

TRIAL = ("---\ntitle: Trial\nlevel: beginer\nequipment: [sandbag]\n---\n# Trial\n\n"
         "[x](nope.md) and [ok](other.md)\n")


def _site(tmp_path, page: str) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    (content / "page.md").write_text(page, "utf-8")
    (content / "other.md").write_text("# Other\n", "utf-8")
    return content


def test_page_front_matter_and_links_fail_like_build(capsys, tmp_path, monkeypatch):
    """The fresh-user trial: check used to pass a page build rejects. Now the front matter
    (the build's validator, with its hints) and the internal links are errors in check too."""
    content = _site(tmp_path, TRIAL)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "content")
    assert code == 1
    heads = [ln for ln in out.splitlines() if ln.startswith("content/")]
    assert heads == [
        "content/page.md:3:8: error[front-matter-value]: unknown level 'beginer'",
        # issue 21: an unknown taxonomy word is a warning and a term of its own
        "content/page.md:4:13: warning[front-matter-unknown-word]: unknown equipment word 'sandbag' "
        "(kept as its own term 'sandbag')",
        "content/page.md:8:5: error[broken-link]: broken link 'nope.md': no page or file 'nope.md' "
        "in the content folder",
    ]
    assert "= hint: did you mean 'beginner'?" in out and "[taxonomies.equipment] in posecode.toml" in out
    assert out.splitlines()[-1] == "checked 0 documents in 2 files: 2 errors, 1 warning, 0 hints (1 page failed)"
    # the same problems, with the same codes, as the build reports
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import build_site

    built = build_site(load_config(None, cwd=tmp_path), out_dir=tmp_path / "site", strict=False, progress=False)
    assert sorted((d.line, d.code) for _p, d in built.errors) == [(3, "front-matter-value"), (8, "broken-link")]
    assert [(d.line, d.code) for _p, d in built.warnings] == [(4, "front-matter-unknown-word")]
    code, out, _ = run(capsys, "--format", "json", "content/page.md")
    (doc,) = json.loads(out)
    assert doc["page"] is True and doc["ir"] is None
    assert [e["code"] for e in doc["errors"]] == ["front-matter-value", "broken-link"]
    assert [w["code"] for w in doc["warnings"]] == ["front-matter-unknown-word"]


def test_yaml_error_points_at_the_offending_line(capsys, tmp_path):
    """An unclosed flow list is reported where it opens (line 3), not at the closing --- (line 4)."""
    f = tmp_path / "page.md"
    f.write_text("---\ntitle: T\nprimary_muscles: [quads\n---\n# T\n", "utf-8")
    code, out, _ = run(capsys, f)
    assert code == 1
    assert (f"{f}:3:18: error[front-matter-yaml]: front matter is not valid YAML: did not find expected ',' "
            "or ']' (while parsing a flow sequence that starts here)") in out
    assert "    3 | primary_muscles: [quads" in out


def test_link_root_is_content_dir_else_folder_else_file_folder(capsys, tmp_path, monkeypatch):
    """A single file resolves its links in the config's content folder when it lies inside it,
    else in the folder argument, else in its own folder."""
    content = _site(tmp_path, "# P\n\n[up](/other.md)\n")
    (content / "sub").mkdir()
    (content / "sub" / "deep.md").write_text("# D\n\n[root](/other.md) [rel](../page.md)\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "content/sub/deep.md")[0] == 0  # root: ./content (default config)
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "a.md").write_text("# A\n\n[b](b.md) [missing](/other.md)\n", "utf-8")
    (loose / "b.md").write_text("# B\n", "utf-8")
    code, out, _ = run(capsys, loose / "a.md")  # outside the content folder: root is loose/
    assert code == 1 and "broken link '/other.md'" in out and "'b.md'" not in out
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)  # no content folder here: links of a folder argument resolve in it
    code, out, _ = run(capsys, content)
    assert code == 0, out


def test_clean_page_and_summary_counts_kinematic_inside_warnings(capsys, tmp_path):
    """A clean page adds no document; warnings (--strict) count the kinematic ones once."""
    content = _site(tmp_path, "---\ntitle: Fine\nlevel: beginner\n---\n# Fine\n\n[o](other.md)\n\n```posecode\n"
                    + WARN + "```\n")
    code, out, _ = run(capsys, content)
    assert code == 0
    assert out.splitlines()[-1] == "checked 1 document in 2 files: 0 errors, 2 warnings, 0 hints"
    assert run(capsys, "--strict", content)[0] == 1
