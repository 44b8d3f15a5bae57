"""Position conversion in process (posecode_ssg/lsp/documents.py): ``check``'s 1-based code-point
columns to LSP positions in UTF-8, UTF-16 and UTF-32, with LSP's line breaks (``\\r\\n``, ``\\r``,
``\\n``) against the parser's (``\\n``; a lone ``\\r`` is whitespace to it), a BOM, and the
incremental edits of the ls-utf16-positions case.
"""

from __future__ import annotations

from posecode_ssg.language import parse
from posecode_ssg.lsp import convert
from posecode_ssg.lsp.analysis import all_diagnostics, analyze
from posecode_ssg.lsp.documents import UTF8, UTF16, UTF32, Lines, Pos, apply_change

LINE4 = '  step "Zejście 💪💪" 1.6s setle:'
TEXT = 'posecode exercise "Przysiad 💪 z 𝕏"\n  rig humanoid\n  pose start = standing\n\n' + LINE4 + \
    "\n    hips: flex 80\n    ground-lock: feet\n"


def _range(text: str, enc: str, markdown: bool = False):
    a = analyze(text, markdown)
    d = all_diagnostics(a)[0]
    r = convert.diagnostic(a.lines, d, enc).range
    return d, (r.start.line, r.start.character, r.end.line, r.end.character)


def test_setle_in_each_encoding():
    assert _range(TEXT, UTF16)[1] == (4, 27, 4, 32)
    assert _range(TEXT, UTF8)[1] == (4, 32, 4, 37)
    assert _range(TEXT, UTF32)[1] == (4, 25, 4, 30)


def test_crlf_lone_cr_and_bom():
    crlf = TEXT.replace("\n", "\r\n")
    assert _range(crlf, UTF16)[1] == (4, 27, 4, 32)
    assert _range("\ufeff" + TEXT, UTF16)[1] == (4, 27, 4, 32)   # the BOM is on line 0 only
    # a lone CR is a space to the parser (one line) and a line break to LSP (two lines)
    lone = TEXT.replace("  rig humanoid\n", "  rig humanoid  # a comment\rgoes on\n")
    d, r = _range(lone, UTF16)
    assert (d.line, d.column) == (5, 26)                          # check: line 5
    assert r == (5, 27, 5, 32)                                     # LSP: line 5 too (0-based)
    assert parse(lone).errors[0].line == 5


def test_incremental_edits_after_adjacent_emoji():
    t = apply_change(TEXT, Pos(4, 27), Pos(4, 32), "settle")
    assert t.split("\n")[4] == '  step "Zejście 💪💪" 1.6s settle:'
    t = apply_change(t, Pos(4, 18), Pos(4, 18), "!")
    assert t.split("\n")[4] == '  step "Zejście 💪!💪" 1.6s settle:'
    # UTF-8: the same places in bytes
    t8 = apply_change(TEXT, Pos(4, 32), Pos(4, 37), "settle", UTF8)
    assert t8.split("\n")[4].endswith("1.6s settle:")
    # past the end of a line is its end; past the last line is the end of the text
    assert apply_change("ab\ncd", Pos(0, 99), Pos(0, 99), "!") == "ab!\ncd"
    assert apply_change("ab\ncd", Pos(7, 0), Pos(9, 9), "!") == "ab\ncd!"
    assert apply_change("ab\r\ncd", Pos(0, 2), Pos(1, 0), "") == "abcd"


def test_lines_end_and_empty():
    lines = Lines("")
    assert lines.end_position() == Pos(0, 0) and lines.offset_at(3, 3) == 0
    lines = Lines("x💪\n")
    assert lines.end_position() == Pos(1, 0)
    assert lines.position(2) == Pos(0, 3) and lines.position(2, UTF8) == Pos(0, 5)
    assert lines.offset_at(0, 2) == 1          # inside the emoji: its start


def test_fence_in_a_list_item_maps_columns_on_the_markdown_line():
    page = "# 💪\n\n- 👣 item:\n\n  ```posecode\n" + "".join("  " + ln + "\n" for ln in TEXT.rstrip("\n").split("\n")) + "  ```\n"
    d, r = _range(page, UTF16, markdown=True)
    assert (d.line, d.column) == (10, 28)
    assert r == (9, 29, 9, 34)
