"""Lines and positions of an open document, in the three numberings the server meets.

- **LSP positions** (what the client sends and receives): 0-based lines split on ``\\r\\n``,
  ``\\r`` or ``\\n`` (LSP 3.17 "Text Documents"), ``character`` counted in the negotiated
  position encoding: UTF-16 code units by default (an emoji such as 💪 counts 2), UTF-8 bytes or
  UTF-32 code points when the client offered them and the server announced them. A position past
  the end of a line means the end of that line; one past the last line the end of the document.
- **check positions** (what :mod:`posecode_ssg.checking` reports): 1-based lines and code-point
  columns; a ``.posecode`` file's lines split on ``\\n`` as the parser splits them (``\\r`` before
  it dropped, a leading BOM dropped), a Markdown page's on ``\\r\\n``, ``\\r`` or ``\\n`` as its
  fences are found (:func:`posecode_ssg.site.fences.extract_posecode_blocks`).
- **offsets**: code-point indexes into the text; every conversion goes through them, so the two
  line numberings never have to agree (a lone ``\\r`` or U+2028 in a ``.posecode`` file is
  whitespace to the parser and, for U+2028, no line break to LSP either).

Nothing here imports pygls: :class:`Codec` does pygls' job (its own conversion rounds a position
past the end of the last line one character short and splits lines on U+2028 like
``str.splitlines``), and :mod:`.server` plugs it into pygls' workspace.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

_LSP_BREAK = re.compile(r"\r\n|\r|\n")
_MD_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the code units of ``encoding`` (``utf-8``, ``utf-16``, ``utf-32``)."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def index_of_units(text: str, count: int, encoding: str) -> int:
    """The code-point index in ``text`` at ``count`` code units of ``encoding``: the end of
    ``text`` when ``count`` is past it; a count inside a character (between the two UTF-16 halves
    of an emoji) rounds down to that character's start."""
    if count <= 0:
        return 0
    if encoding == UTF32 or (text.isascii()):
        return min(count, len(text))
    seen = 0
    for i, ch in enumerate(text):
        o = ord(ch)
        if encoding == UTF8:
            width = 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
        else:
            width = 2 if o > 0xFFFF else 1
        if seen + width > count:
            return i
        seen += width
    return len(text)


def is_markdown(uri: str, language_id: str | None = None) -> bool:
    """Whether a document is a Markdown page (its ```` ```posecode ```` fences are checked) rather
    than a Posecode document: by language id, else by the URI's suffix."""
    if language_id:
        lid = language_id.lower()
        if lid in ("markdown", "md", "mdx"):
            return True
        if lid == "posecode":
            return False
    path = uri.split("?", 1)[0].split("#", 1)[0].lower()
    return path.endswith(_MD_SUFFIXES)


@dataclass(frozen=True)
class Pos:
    """A 0-based LSP position (line, character in the negotiated encoding)."""

    line: int
    character: int


class Lines:
    """One text's line tables: LSP lines and ``check``'s lines, with conversions through
    code-point offsets (module docstring). ``markdown`` selects ``check``'s line splitting."""

    def __init__(self, text: str, markdown: bool = False):
        self.text = text
        self.markdown = markdown
        # LSP lines: (start offset, content end offset)
        self.lsp_starts = [0]
        self.lsp_ends: list[int] = []
        for m in _LSP_BREAK.finditer(text):
            self.lsp_ends.append(m.start())
            self.lsp_starts.append(m.end())
        self.lsp_ends.append(len(text))
        # check lines (1-based in the API, 0-based in the lists)
        bom = 1 if text.startswith("\ufeff") else 0
        self.check_starts: list[int] = []
        self.check_ends: list[int] = []
        if markdown:
            self.check_starts.append(bom)
            for m in _LSP_BREAK.finditer(text, bom):
                self.check_ends.append(m.start())
                self.check_starts.append(m.end())
            self.check_ends.append(len(text))
        else:
            start = bom
            while True:
                nl = text.find("\n", start)
                end = len(text) if nl < 0 else nl
                self.check_starts.append(start)
                self.check_ends.append(end - 1 if end > start and text[end - 1] == "\r" and nl >= 0 else end)
                if nl < 0:
                    break
                start = nl + 1

    # -- LSP side ----------------------------------------------------------------------------

    @property
    def lsp_line_count(self) -> int:
        return len(self.lsp_starts)

    def lsp_line(self, line: int) -> str:
        """The content of 0-based LSP line ``line`` (no line ending; ``""`` past the end)."""
        if 0 <= line < len(self.lsp_starts):
            return self.text[self.lsp_starts[line]:self.lsp_ends[line]]
        return ""

    def offset_at(self, line: int, character: int, encoding: str = UTF16) -> int:
        """The offset of an LSP position: a character past the end of its line is the line's
        end, a line past the last the end of the text, negative values the start."""
        if line < 0:
            return 0
        if line >= len(self.lsp_starts):
            return len(self.text)
        start, end = self.lsp_starts[line], self.lsp_ends[line]
        return start + index_of_units(self.text[start:end], character, encoding)

    def position(self, offset: int, encoding: str = UTF16) -> Pos:
        """The LSP position of an offset (clamped into the text; an offset inside a line break
        is the end of that line)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.lsp_starts, offset) - 1
        start, end = self.lsp_starts[line], self.lsp_ends[line]
        return Pos(line, units(self.text[start:min(offset, end)], encoding))

    def end_position(self, encoding: str = UTF16) -> Pos:
        """The position just past the last character."""
        return self.position(len(self.text), encoding)

    # -- check side --------------------------------------------------------------------------

    @property
    def check_line_count(self) -> int:
        return len(self.check_starts)

    def check_line(self, line: int) -> str:
        """The content of 1-based ``check`` line ``line`` (``""`` outside the text)."""
        if 1 <= line <= len(self.check_starts):
            return self.text[self.check_starts[line - 1]:self.check_ends[line - 1]]
        return ""

    def check_offset(self, line: int, column: int) -> int:
        """The offset of a 1-based ``check`` (line, code-point column), clamped into its line
        (a column just past the end is the line's end)."""
        if not self.check_starts:
            return 0
        line = max(1, min(line, len(self.check_starts)))
        start, end = self.check_starts[line - 1], self.check_ends[line - 1]
        return max(start, min(start + max(column, 1) - 1, end))

    def check_position(self, offset: int) -> tuple[int, int]:
        """The 1-based ``check`` (line, column) of an offset (an offset in a line break or the
        BOM is the nearest end or start of a line)."""
        offset = max(0, min(offset, len(self.text)))
        i = max(0, bisect_right(self.check_starts, offset) - 1)
        start, end = self.check_starts[i], self.check_ends[i]
        return i + 1, max(0, min(offset, end) - start) + 1

    def check_to_lsp(self, line: int, column: int, encoding: str = UTF16) -> Pos:
        """A ``check`` position as an LSP position."""
        return self.position(self.check_offset(line, column), encoding)

    def lsp_to_check(self, line: int, character: int, encoding: str = UTF16) -> tuple[int, int]:
        """An LSP position as a ``check`` position (1-based line and code-point column)."""
        return self.check_position(self.offset_at(line, character, encoding))


def apply_change(text: str, start: Pos, end: Pos, new_text: str, encoding: str = UTF16) -> str:
    """``text`` with the LSP range ``start``–``end`` replaced by ``new_text`` (an incremental
    ``didChange``); positions are clamped as LSP says, a reversed range is read forwards."""
    lines = Lines(text)
    a = lines.offset_at(start.line, start.character, encoding)
    b = lines.offset_at(end.line, end.character, encoding)
    if b < a:
        a, b = b, a
    return text[:a] + new_text + text[b:]
