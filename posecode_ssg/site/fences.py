"""Find the Posecode blocks of a Markdown document, with their line numbers in the file.

Fence detection is markdown-it-py's CommonMark fence rule (CommonMark 0.31 §4.5): backtick and
tilde fences of any length, closing fences matched by character and length, fences nested in list
items and block quotes. The body markdown-it hands back (``Token.content``) already has the
container indentation and ``>`` markers removed and tabs expanded, which is exactly the text the
Posecode parser must see. The language of a fence is decided by
:func:`posecode_ssg.site.markdown.parse_info` (first word of the trimmed info string, or the
``.class`` inside ``{...}`` braces, case-insensitive; ``posecode-draft`` is another language).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _pipeline():
    """The site's one Markdown pipeline (:func:`posecode_ssg.site.content.create_markdown`), so a
    fence is found here exactly when the page renders it as one: inside an admonition, a tab or a
    container too; a fence never closed is no block (the page reports it, ``fence-unclosed``)."""
    from posecode_ssg.site.content import create_markdown   # lazy: content.py imports markdown.py

    return create_markdown()


@dataclass(frozen=True)
class Block:
    """One ```` ```posecode ```` fence.

    ``source``: the body text for the parser; ``first_line``: 1-based file line of the body's first
    line (body line k is file line ``first_line + k - 1``); ``fence_line``: 1-based file line of the
    opening fence; ``info``: the raw info string; ``attrs``: the figure attributes read from it
    (``title``, ``autoplay``, ``view``, ``avatar``); ``prefixes``: per body line, the number of
    file characters in front of it (container indentation, ``>`` markers), for column mapping.
    """

    source: str
    first_line: int
    fence_line: int
    info: str
    attrs: dict[str, Any] = field(default_factory=dict)
    prefixes: tuple[int, ...] = ()

    def file_position(self, line: int, column: int) -> tuple[int, int]:
        """Map a 1-based (line, column) inside the body to the Markdown file."""
        shift = self.prefixes[line - 1] if 1 <= line <= len(self.prefixes) else 0
        return self.first_line + line - 1, column + shift


def extract_posecode_blocks(markdown_text: str) -> list[Block]:
    """Return the Posecode fences of a Markdown text in document order.

    A leading U+FEFF is ignored (it does not shift line numbers). Only fences whose language is
    ``posecode`` are returned, as the site's pipeline finds them (:func:`_pipeline`): an unclosed
    fence is none. Never raises for any ``str``.
    """
    from posecode_ssg.site.markdown import (
        parse_info,  # lazy: markdown.py may import this module
    )

    text = markdown_text[1:] if markdown_text.startswith("\ufeff") else markdown_text
    file_lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    for tok in _pipeline().parse(text, {}):
        if tok.type != "posecode" or not tok.map:
            continue
        info = parse_info(tok.info)
        first = tok.map[0] + 2
        body = tok.content
        body_lines = body.split("\n")
        if body_lines and body_lines[-1] == "":
            body_lines.pop()
        prefixes = []
        for k, bl in enumerate(body_lines):
            idx = first - 1 + k
            raw = file_lines[idx] if idx < len(file_lines) else ""
            prefixes.append(len(raw) - len(bl) if bl and raw.endswith(bl) else 0)
        blocks.append(Block(body, first, tok.map[0] + 1, tok.info, dict(info.attrs),
                            tuple(prefixes)))
    return blocks


def front_matter(text: str) -> dict:
    """The YAML front matter of a page's ``text`` as a mapping ({} without one, or unreadable):
    what a figure's equipment is drawn from when its fence names none (``serve``'s
    figure swap, ``check``)."""
    import yaml

    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() in ("---", "...")), None)
    try:
        data = yaml.safe_load("\n".join(lines[1:end])) if end else None
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


__all__ = ["Block", "extract_posecode_blocks", "front_matter"]
