"""Snapshots of the served files and what changed between two of them.

``take_snapshot`` reads the private output folder (re-reading only the files a
build replaced); ``diff_snapshots`` classifies every difference into what open
tabs do (``SiteChanges``: swap figures, merge a page's ``<main>``, reload a page,
reload every tab).
"""

from __future__ import annotations

import hashlib
import html as html_lib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Output file suffixes whose change reloads every open tab (shared assets).
SHARED_ASSET_SUFFIXES = frozenset(
    {".css", ".js", ".mjs", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico",
     ".woff", ".woff2", ".ttf", ".otf"}
)
#: Output data files that every figure reads (a change reloads every tab).
SHARED_DATA_NAMES = frozenset({"rig.json"})


#: Most pages whose new HTML one build event carries for in-place updates (``SiteChanges.patch``).
PATCH_LIMIT = 8


_FIGURE_RE = re.compile(r"<posecode-figure\b([^>]*)>(.*?)</posecode-figure>", re.DOTALL | re.IGNORECASE)
_ID_RE = re.compile(r"""\bid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)


def split_figures(page_html: str) -> tuple[str, list[tuple[str, str]]]:
    """Split a page into its skeleton and its figures.

    Returns ``(skeleton, [(figure_id, figure_outer_html), ...])`` where the
    skeleton is the page with each ``<posecode-figure>``'s content removed
    (its opening tag kept, so a changed caption or attribute counts as a page
    change). Figures without an ``id`` get ``""``. The runtime contract
    (contracts.md) escapes ``<`` inside the inline motion JSON, so a figure
    never contains a literal ``</posecode-figure>``.
    """
    figures: list[tuple[str, str]] = []

    def _strip(match: re.Match[str]) -> str:
        attrs = match.group(1)
        found = _ID_RE.search(attrs)
        fig_id = html_lib.unescape(next(g for g in found.groups() if g is not None)) if found else ""
        figures.append((fig_id, match.group(0)))
        return f"<posecode-figure{attrs}></posecode-figure>"

    skeleton = _FIGURE_RE.sub(_strip, page_html)
    return skeleton, figures


@dataclass
class Snapshot:
    """Digests of every served file plus the text of every HTML page.

    Keys are output paths relative to the site root with ``/`` separators.
    ``stats`` remembers ``(inode, size, mtime_ns)`` per file so the next
    snapshot re-reads only files the build replaced (the build hard-links
    unchanged pages from the previous output).
    """

    digests: dict[str, str] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)
    stats: dict[str, tuple[int, int, int]] = field(default_factory=dict)

    def with_overrides(self, overrides: dict[str, bytes]) -> Snapshot:
        """A copy in which the pages of ``overrides`` have the given bytes (what is served)."""
        served = Snapshot(dict(self.digests), dict(self.pages), dict(self.stats))
        for rel, data in overrides.items():
            served.digests[rel] = _digest(data)
            served.pages[rel] = data.decode("utf-8", errors="replace")
        return served


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def take_snapshot(root: Path, previous: Snapshot | None = None) -> Snapshot:
    """Read the tree under ``root`` (symlinks not followed) into a ``Snapshot``.

    Files whose inode, size and modification time equal those in
    ``previous`` are not read again.
    """
    snap = Snapshot()
    if not root.is_dir():
        return snap
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = Path(dirpath, name)
            rel = full.relative_to(root).as_posix()
            try:
                st = full.lstat()
            except OSError:
                continue
            key = (st.st_ino, st.st_size, st.st_mtime_ns)
            is_page = rel.endswith((".html", ".htm"))
            if previous is not None and previous.stats.get(rel) == key and (not is_page or rel in previous.pages):
                snap.digests[rel] = previous.digests[rel]
                if is_page:
                    snap.pages[rel] = previous.pages[rel]
                snap.stats[rel] = key
                continue
            try:
                data = full.read_bytes()
            except OSError:
                continue
            snap.digests[rel] = _digest(data)
            snap.stats[rel] = key
            if is_page:
                snap.pages[rel] = data.decode("utf-8", errors="replace")
    return snap


@dataclass
class SiteChanges:
    """What open tabs must do after a build.

    ``reload_all``: a shared asset changed, every tab reloads. ``pages``:
    output paths of pages that changed in ways other than figure content, or
    appeared, or disappeared (tabs on them reload). ``patch``: output path ->
    new page HTML, for the pages of ``pages`` whose figures are all exactly
    as before (same ids, same markup) while the text around them changed — a
    prose edit (at most ``PATCH_LIMIT`` pages; more and the tabs reload):
    tabs replace the changed parts of ``<main>`` in place, keeping the figure
    elements (their play state) and the scroll position, and reload when
    that is not possible. The HTML travels in the event so a tab needs no
    request (each task on a busy page costs a frame). ``figures``: output path -> list of ``{"id",
    "html"}`` for figures whose content changed while the rest of the page
    did not (tabs swap them in place).
    """

    reload_all: bool = False
    pages: list[str] = field(default_factory=list)
    figures: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    patch: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """True when no tab needs to do anything."""
        return not (self.reload_all or self.pages or self.figures)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready form sent in the SSE ``build`` event."""
        return {"reloadAll": self.reload_all, "pages": self.pages, "figures": self.figures, "patch": self.patch}


def diff_snapshots(old: Snapshot, new: Snapshot) -> SiteChanges:
    """Compare two snapshots and classify every difference (see ``SiteChanges``)."""
    changes = SiteChanges()
    for rel in sorted(set(old.digests) | set(new.digests)):
        if old.digests.get(rel) == new.digests.get(rel):
            continue
        suffix = os.path.splitext(rel)[1].lower()
        name = rel.rsplit("/", 1)[-1]
        if rel in old.pages or rel in new.pages:
            if rel not in old.pages or rel not in new.pages:
                changes.pages.append(rel)
                continue
            old_skel, old_figs = split_figures(old.pages[rel])
            new_skel, new_figs = split_figures(new.pages[rel])
            same_shape = old_skel == new_skel and [f[0] for f in old_figs] == [f[0] for f in new_figs]
            swaps = [
                {"id": fid, "html": fhtml}
                for (fid, fhtml), (_, ohtml) in zip(new_figs, old_figs)
                if fhtml != ohtml
            ]
            if same_shape and swaps and all(s["id"] for s in swaps):
                changes.figures[rel] = swaps
            else:
                changes.pages.append(rel)
                if old_figs == new_figs and all(fid for fid, _html in new_figs):
                    changes.patch[rel] = new.pages[rel]
        elif (suffix in SHARED_ASSET_SUFFIXES or name in SHARED_DATA_NAMES) and rel in old.digests \
                and rel in new.digests:
            # An asset changed under the same name: any page may use it.
            # (Added or removed files, such as content-hashed assets, only
            # matter to pages that name them, and those pages changed too.)
            changes.reload_all = True
        # Other data (search index, sitemap, feeds) is fetched fresh when used.
    if len(changes.patch) > PATCH_LIMIT:
        changes.patch = {}
    return changes


def describe_changes(changes: SiteChanges) -> str:
    """The terminal's one-line summary of ``changes`` (``build N: ...``)."""
    if changes.empty:
        return "no visible change"
    parts = []
    if changes.reload_all:
        parts.append("assets changed, reloading every tab")
    if changes.pages:
        parts.append(f"{len(changes.pages)} page(s) changed")
    if changes.figures:
        count = sum(len(v) for v in changes.figures.values())
        parts.append(f"{count} figure(s) updated in place")
    return ", ".join(parts)
