"""What a line of a (possibly half-written) Posecode document is, read leniently for the editor
features: its words and strings with their columns, the block it belongs to (header, top level,
a step, a ``pose start`` override block), the props the document declares, and the step blocks.

The parser (:mod:`posecode_ssg.language`) decides validity; this module only has to place a
cursor, so it never fails on a partial line: everything is regular expressions over the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.lexer import SPACE, TOP_LEVEL

_TOKEN = re.compile(r'"[^"]*"?|#.*|//.*|[A-Za-z0-9_.\-+]+|\S')
WORD_CHARS = re.compile(r"[A-Za-z0-9_\-]")
_HEAD = re.compile(r"[" + re.escape(SPACE) + r"]*([A-Za-z_][A-Za-z0-9_\-]*)")
_STEP = re.compile(r'[' + re.escape(SPACE) + r']*step\b[' + re.escape(SPACE) + r']*("[^"]*"?)?')


@dataclass(frozen=True)
class Tok:
    """A token of one line: ``kind`` is ``word``, ``string``, ``comment`` or ``punct``; ``start``
    and ``end`` are 0-based code-point columns (end exclusive)."""

    kind: str
    text: str
    start: int
    end: int


def tokens(line: str) -> list[Tok]:
    """The tokens of a line, up to and including a comment."""
    out = []
    for m in _TOKEN.finditer(line):
        t = m.group(0)
        if t.startswith('"'):
            kind = "string"
        elif t.startswith("#") or t.startswith("//"):
            kind = "comment"
        elif re.match(r"[A-Za-z0-9_.\-+]", t):
            kind = "word"
        else:
            kind = "punct"
        if t.isspace() or t in SPACE:
            continue
        out.append(Tok(kind, t, m.start(), m.end()))
    return out


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(SPACE))


def is_blank(line: str) -> bool:
    s = line.strip(SPACE)
    return not s or s.startswith("#") or s.startswith("//")


def head_of(line: str) -> str:
    """The first word of a line (``""`` for none)."""
    m = _HEAD.match(line)
    return m.group(1) if m else ""


def opens_block(line: str) -> bool:
    """A ``step`` header or a ``pose start = X:`` line."""
    head = head_of(line)
    code = strip_comment(line).rstrip(SPACE)
    return head == "step" or (head == "pose" and code.endswith(":"))


def strip_comment(line: str) -> str:
    """The line without a trailing comment (``#`` or ``//`` outside a string)."""
    for t in tokens(line):
        if t.kind == "comment":
            return line[:t.start]
    return line


@dataclass(frozen=True)
class Place:
    """Where a line stands: ``block`` is ``header`` (the header line, or before it), ``top``,
    ``step`` or ``pose``; ``owner`` the 0-based index of the block's opening line (or -1)."""

    block: str
    owner: int = -1


def place_of(lines: list[str], index: int, indent: int | None = None) -> Place:
    """The block line ``index`` (0-based) belongs to, given its indentation (default: the
    line's own; for a blank line, pass the cursor's column)."""
    line = lines[index] if 0 <= index < len(lines) else ""
    if indent is None:
        indent = indent_of(line)
    header = next((i for i, text in enumerate(lines) if not is_blank(text)), None)
    if header is None or index <= header:
        return Place("header")
    if indent == 0 and head_of(line) == "posecode":
        return Place("header")
    for i in range(min(index, len(lines)) - 1, header, -1):
        text = lines[i]
        if is_blank(text):
            continue
        if indent_of(text) < indent:
            if opens_block(text):
                return Place("pose" if head_of(text) == "pose" else "step", i)
            if indent_of(text) > 0 and head_of(text) not in TOP_LEVEL:
                continue   # a child line with less indentation than this one: keep looking
            return Place("top")
    return Place("top")


def declared_props(lines: list[str]) -> list[str]:
    """The props the document's ``prop`` lines declare (known ones, in order)."""
    out = []
    for line in lines:
        toks = [t for t in tokens(line) if t.kind == "word"]
        if len(toks) >= 2 and toks[0].text == "prop" and toks[1].text in V.PROPS and toks[1].text not in out:
            out.append(toks[1].text)
    return out


@dataclass(frozen=True)
class StepBlock:
    """A ``step`` header and the lines of its block (0-based line indexes, ``last`` the last
    non-blank child line, or the header's own index)."""

    header: int
    last: int
    name: str
    name_start: int
    name_end: int


def block_end(lines: list[str], header: int) -> int:
    """The last non-blank line of the block that the line ``header`` opens (its own index when
    nothing is indented beneath it)."""
    base = indent_of(lines[header])
    last = header
    for i in range(header + 1, len(lines)):
        text = lines[i]
        if is_blank(text):
            continue
        if indent_of(text) <= base:
            break
        last = i
    return last


def step_blocks(lines: list[str]) -> list[StepBlock]:
    """Every ``step`` header of the document with its block (partial headers too)."""
    out = []
    for i, text in enumerate(lines):
        if head_of(text) != "step":
            continue
        m = _STEP.match(text)
        if m is None:
            continue
        quoted = m.group(1) or ""
        start = m.start(1) if m.group(1) else indent_of(text)
        end = m.end(1) if m.group(1) else start + 4
        name = quoted[1:-1] if quoted.endswith('"') and len(quoted) >= 2 else quoted[1:]
        out.append(StepBlock(i, block_end(lines, i), name, start, end))
    return out
