"""posecode_ssg/site/fences.py: Posecode fences found through markdown-it-py's CommonMark rules."""

from __future__ import annotations

from lang_shared import shared_path
from posecode_ssg.language import parse
from posecode_ssg.site.fences import extract_posecode_blocks


def _read(*parts):
    return shared_path("cases", "bugs", *parts).read_bytes().decode("utf-8")


def test_fences_in_list_item_block_quote_and_tabbed_item():
    blocks = extract_posecode_blocks(_read("md-fence-in-containers", "page.md"))
    assert len(blocks) == 3
    for i, block in enumerate(blocks, 1):
        assert block.source == _read("md-fence-in-containers", f"block-{i}.posecode")
    names = [parse(b.source).ir.name for b in blocks]
    assert names == ["Hinge in a list", "Quoted reach", "Tabbed"]
    assert len(parse(blocks[0].source).ir.phases) == 2


def test_fence_variants_tilde_long_and_nested():
    blocks = extract_posecode_blocks(_read("md-fence-variants", "page.md"))
    assert [parse(b.source).ir.name for b in blocks] == ["Tilde squat", "Long fence raise"]


def test_info_strings_attributes_and_case():
    blocks = extract_posecode_blocks(_read("md-info-string-attributes", "page.md"))
    assert [parse(b.source).ir.name for b in blocks] == ["Squat A", "Hinge B", "Spaced C",
                                                         "Capital D"]
    assert [b.attrs.get("title") for b in blocks] == ["Morning squat", "Hinge drill", None, None]


def test_bom_does_not_shift_lines():
    (block,) = extract_posecode_blocks(_read("md-utf8-bom", "page-error.md"))
    assert block.fence_line == 1 and block.first_line == 2
    r = parse(block.source)
    (e,) = r.errors
    assert block.file_position(e.line, e.column)[0] == 5 and "flx" in e.message


def test_line_and_column_mapping_in_containers():
    md = "Intro\n\n> Note:\n>\n> ```posecode\n> posecode exercise \"Q\"\n>   step \"a\" 1s flow:\n" \
         ">     toes: flex 1\n> ```\n"
    (block,) = extract_posecode_blocks(md)
    assert block.fence_line == 5 and block.first_line == 6
    (e,) = parse(block.source).errors
    line, col = block.file_position(e.line, e.column)
    assert (line, col) == (8, 7)
    assert md.split("\n")[line - 1][col - 1:].startswith("toes")


def test_non_posecode_and_draft_are_skipped():
    md = "```posecode-draft\nx\n```\n\n```text\ny\n```\n\n```\nz\n```\n"
    assert extract_posecode_blocks(md) == []


def test_front_matter_is_not_content_and_lines_stay_absolute():
    md = "---\ntitle: Squat\ntags: [a]\n---\n\n# Squat\n\n```posecode\nposecode exercise \"F\"\n" \
         "  step \"a\" 1s flow:\n    knees: flex 1\n```\n"
    (block,) = extract_posecode_blocks(md)
    assert block.fence_line == 8 and block.first_line == 9
    assert parse(block.source).ir.name == "F"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = ["```posecode\n", "~~~posecode\n", "````posecode\n", "```\n", "~~~\n", "````\n",
           "> ", "- ", "1. ", "   ", "\t", "\n", "posecode exercise \"X\"\n", "  step \"a\" 1s flow:\n",
           "    knees: flex 1\n", "text\n", "---\n", "title: x\n", "\ufeff", "\r\n", "```{.posecode}\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_fence_extraction_never_raises_and_lines_stay_in_the_file(md):
    n_lines = md.replace("\r\n", "\n").count("\n") + 1
    for block in extract_posecode_blocks(md):
        assert 1 <= block.fence_line < block.first_line <= n_lines + 1
        body_lines = block.source.split("\n")
        for k in range(1, len(body_lines)):
            line, col = block.file_position(k, 1)
            assert line == block.first_line + k - 1 and col >= 1
