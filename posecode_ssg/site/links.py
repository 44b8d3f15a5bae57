"""Internal links: the link check of a page and the rewriting of its links to site URLs.

A link names a page by its source file (relative to the page, ``squat.md``) or by its URL
(``/strength/squat/``); :meth:`posecode_ssg.site.content.LinkIndex.resolve` places it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.site.content import LinkIndex, Page, internal_target


@dataclass
class LinkRec:
    """A link of a page as its record keeps it: target as written, line and column."""

    target: str
    line: int
    column: int


def link_diagnostics(page: Page, link_index: LinkIndex, anchors=None) -> list[Diagnostic]:
    """The link check of one page (``build`` and ``check``): a ``broken-link`` error per link
    :meth:`LinkIndex.resolve` cannot place, and, when ``anchors`` (``src_uri`` -> the target
    page's heading and figure ids, or None when unknown) is given, a ``broken-anchor`` warning
    per ``#fragment`` the target page does not have."""
    found: list[Diagnostic] = []
    for link in page.links:
        url, message, target = link_index.resolve(page, link.target)
        if url is None:
            found.append(Diagnostic(
                code="broken-link", severity="error", line=link.line, column=link.column, message=message,
                hint="link a page by its file relative to this page (squat.md, ../mobility/cat-cow.md) "
                     "or by its URL (/strength/squat/)"))
            continue
        fragment = link.target.partition("#")[2]
        known = anchors(target.src_uri) if anchors is not None and target is not None else None
        if fragment and known is not None and fragment not in known:
            close = difflib.get_close_matches(fragment, known, n=1)
            found.append(Diagnostic(
                code="broken-anchor", severity="warning", line=link.line, column=link.column,
                message=f"link '{link.target}': no heading or figure '#{fragment}' on {target.src_uri}",
                hint=f"did you mean '#{close[0]}'?" if close else "headings get ids from their text"))
    return found


def rewrite_links(page: Page, link_index: LinkIndex, url: Callable[[str], str]) -> None:
    """Point every internal link and image of ``page``'s tokens at its site URL (``url`` of the
    site path the link resolves to, fragment kept); links that do not resolve stay as written."""
    for block in page.tokens:
        for child in block.children or []:
            found_target = internal_target(child)
            if found_target is None:
                continue
            attr, target = found_target
            resolved, _msg, _hit = link_index.resolve(page, target)
            if resolved is not None:
                path, hash_, frag = resolved.partition("#")
                child.attrSet(attr, url(path) + (hash_ + frag if hash_ else ""))
