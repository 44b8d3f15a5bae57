"""One open document as ``posecode-ssg check`` sees it: its Posecode units (the whole
``.posecode`` file, or each ```` ```posecode ```` fence of a Markdown page), parsed, with the
diagnostics at file positions exactly as :func:`posecode_ssg.checking.check_file` moves them, the
kinematic diagnostics of :func:`posecode_ssg.checking.add_kinematics` and, for a page of a site,
the :class:`~posecode_ssg.checking.PageChecker` problems (front matter, fence attributes, links).

The fast part (:func:`analyze`: parsing) runs at every change; the slow parts (:func:`kinematics`,
:meth:`Sites.page_diagnostics`) run debounced in the server's worker thread. Their results are
kept by what they depend on (:attr:`Unit.key`, :func:`page_key`), so the fast path can show the
previous kinematic and page diagnostics again while they are still exactly right (a fence that
did not change, a page whose text outside the fence bodies did not change) and drop them
otherwise: no stale position is ever published.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from posecode_ssg.language import parse
from posecode_ssg.language.diagnostics import Diagnostic, reading_order
from posecode_ssg.language.parser import ParseResult, split_lines

from .documents import Lines

log = logging.getLogger("posecode_ssg.lsp")


@dataclass
class Unit:
    """One Posecode document inside an open document.

    ``source`` is what the parser reads; ``result`` its raw parse (document positions);
    ``checked`` the :class:`~posecode_ssg.checking.CheckedDocument` ``check`` builds for it
    (diagnostics at file positions, the equipment of its figure). ``first_line`` is the file
    line (1-based, ``check``'s numbering) of the unit's line 1; ``prefixes`` the characters in
    front of each body line (a fence in a list or block quote)."""

    source: str
    lines: list[str]
    first_line: int
    fence_line: int | None
    prefixes: tuple[int, ...]
    result: ParseResult
    checked: Any
    info: str = ""

    @property
    def key(self) -> tuple:
        """What the kinematic diagnostics of this unit depend on."""
        c = self.checked
        return (self.source, self.fence_line, self.first_line, self.prefixes, c.equipment,
                c.equipment_from_page)

    def file_position(self, line: int, column: int) -> tuple[int, int]:
        """A unit (line, 1-based column) in the file (``check``'s numbering)."""
        shift = self.prefixes[line - 1] if 1 <= line <= len(self.prefixes) else 0
        return self.first_line + line - 1, column + shift

    def unit_position(self, line: int, column: int) -> tuple[int, int] | None:
        """A file (line, column) in the unit, or None when the line is not one of its lines."""
        k = line - self.first_line + 1
        if not 1 <= k <= len(self.lines):
            return None
        shift = self.prefixes[k - 1] if k - 1 < len(self.prefixes) else 0
        return k, max(1, column - shift)

    @property
    def last_line(self) -> int:
        """The file line of the unit's last line."""
        return self.first_line + len(self.lines) - 1


@dataclass
class Analysis:
    """An open document, parsed: ``units`` in document order, the text's :class:`Lines`."""

    text: str
    markdown: bool
    lines: Lines
    units: list[Unit]
    file_lines: list[str]
    version: int | None = None
    #: results of the slow path, filled by the server: unit key -> (kinematic diagnostics,
    #: program or None); the page diagnostics (None: not computed for this text)
    kinematic: dict = field(default_factory=dict)
    page: list[Diagnostic] | None = None

    def unit_at(self, line: int) -> Unit | None:
        """The unit holding file line ``line`` (1-based)."""
        for u in self.units:
            if u.first_line <= line <= u.last_line:
                return u
        return None

    def parser_diagnostics(self) -> list[Diagnostic]:
        """Every unit's parser diagnostics at file positions."""
        out: list[Diagnostic] = []
        for u in self.units:
            out += u.checked.result.diagnostics()
        return out


def _markdown_units(text: str) -> list[Unit]:
    from posecode_ssg.checking import CheckedDocument
    from posecode_ssg.site.fences import extract_posecode_blocks

    lines = split_lines(text)
    units = []
    meta = None
    for block in extract_posecode_blocks(text):
        result = parse(block.source)
        left_out: tuple[str, ...] = ()
        if "equipment" in block.attrs:
            equipment = tuple(block.attrs["equipment"])
        else:
            from posecode_ssg.motion.equipment import page_equipment, page_equipment_left_out
            from posecode_ssg.site.fences import front_matter

            meta = front_matter(text) if meta is None else meta
            equipment = page_equipment(meta.get("equipment"))
            left_out = page_equipment_left_out(meta.get("equipment"))

        def move(d: Diagnostic, block=block) -> Diagnostic:
            return d.moved(*block.file_position(d.line, d.column), lambda n: block.file_position(n, 1)[0])

        moved = ParseResult(result.ir, [move(d) for d in result.errors],
                            [move(d) for d in result.warnings], [move(d) for d in result.hints])
        checked = CheckedDocument("", block.fence_line, moved, lines, equipment=equipment,
                                  equipment_from_page="equipment" not in block.attrs, equipment_left_out=left_out)
        body = split_lines(block.source) if block.source else []
        if len(body) > 1 and body[-1] == "" and block.source.endswith("\n"):
            body.pop()   # the body's final line break: the next file line is the closing fence
        units.append(Unit(block.source, body, block.first_line, block.fence_line,
                          tuple(block.prefixes), result, checked, block.info))
    return units


def analyze(text: str, markdown: bool, version: int | None = None) -> Analysis:
    """Parse every Posecode unit of ``text`` (a ``.posecode`` document, or a Markdown page when
    ``markdown``), as ``check_file`` does. Never raises: a failure leaves the document without
    units (and is logged)."""
    from posecode_ssg.checking import CheckedDocument

    lines = Lines(text, markdown)
    file_lines = split_lines(text)
    try:
        if markdown:
            units = _markdown_units(text)
        else:
            result = parse(text)
            checked = CheckedDocument("", None, result, file_lines)
            units = [Unit(text, file_lines, 1, None, (), result, checked)]
    except Exception:   # pragma: no cover - parse() never raises; fence extraction is defensive
        log.exception("analysing the document failed")
        units = []
    return Analysis(text, markdown, lines, units, file_lines, version)


def kinematics(unit: Unit) -> tuple[list[Diagnostic], Any]:
    """The kinematic diagnostics (file positions) and compiled program of a unit that parses,
    exactly as ``check`` attaches them (:func:`~posecode_ssg.checking.add_kinematics`);
    ``([], None)`` for a unit with errors or when the solve fails (logged)."""
    from posecode_ssg.checking import add_kinematics

    if unit.result.ir is None:
        return [], None
    doc = replace(unit.checked, kinematic=[])
    try:
        program = add_kinematics(doc)
    except Exception:
        log.exception("the kinematic solve failed")
        return [], None
    return list(doc.kinematic), program


def page_key(analysis: Analysis) -> tuple:
    """What a page's front-matter, fence-attribute and link diagnostics depend on: its text with
    the fence bodies blanked (line numbers kept)."""
    if not analysis.markdown:
        return ()
    lines = analysis.lines
    blank: set[int] = set()
    for u in analysis.units:
        blank.update(range(u.first_line, u.last_line + 1))
    return tuple("" if i in blank else lines.check_line(i) for i in range(1, lines.check_line_count + 1))


class Sites:
    """Which pages are checked as pages of a site, and their :class:`PageChecker`.

    A Markdown page is checked as ``check`` checks it from its workspace folder when that folder
    (or a folder between it and the page) has a ``posecode.toml``, or the workspace folder has a
    ``content`` folder; otherwise only its fences are. Link indexes are rebuilt after
    :data:`INDEX_TTL` seconds (pages come and go while the editor is open)."""

    INDEX_TTL = 3.0

    def __init__(self, roots: list[Path] | None = None):
        self.roots = [r.resolve() for r in (roots or [])]
        self._checkers: dict[tuple, Any] = {}
        self._built: dict[tuple, float] = {}
        self._lock = threading.Lock()

    def site_of(self, path: Path) -> tuple[Path, Path | None] | None:
        """``(site folder, posecode.toml or None)`` of a page, or None (check the fences only)."""
        try:
            path = path.resolve()
        except OSError:
            return None
        inside = [r for r in self.roots if path.is_relative_to(r)]
        if not inside and Path.cwd().resolve() in path.parents:
            inside = [Path.cwd().resolve()]
        root = max(inside, key=lambda r: len(r.parts)) if inside else None
        for folder in path.parents:
            if (folder / "posecode.toml").is_file():
                return folder, folder / "posecode.toml"
            if root is not None and folder == root:
                break
        if root is not None and (root / "content").is_dir():
            return root, None
        return None

    def checker(self, path: Path):
        """The :class:`PageChecker` for a page (``check``'s: the site's content folder,
        taxonomies and raw-HTML setting), or None when the page belongs to no site."""
        site = self.site_of(path)
        if site is None:
            return None
        folder, config = site
        try:
            stamp = config.stat().st_mtime if config is not None else 0.0
        except OSError:
            stamp = 0.0
        key = (folder, stamp)
        with self._lock:
            checker = self._checkers.get(key)
            if checker is None:
                from posecode_ssg.checking import PageChecker
                from posecode_ssg.config import PosecodeError, load_config
                from posecode_ssg.site.vocabularies import vocabulary

                try:
                    cfg = load_config(config, cwd=folder)
                except (PosecodeError, OSError):
                    cfg = None
                checker = PageChecker(cfg.content_dir if cfg else None,
                                      vocabulary(cfg.taxonomies if cfg else None),
                                      raw_html=bool(cfg and cfg.raw_html))
                self._checkers = {k: v for k, v in self._checkers.items() if k[0] != folder}
                self._checkers[key] = checker
                self._built[key] = time.monotonic()
            elif time.monotonic() - self._built.get(key, 0.0) > self.INDEX_TTL:
                checker.indexes.clear()
                self._built[key] = time.monotonic()
        return checker

    def page_diagnostics(self, path: Path | None, text: str) -> list[Diagnostic]:
        """The page diagnostics of a Markdown page (``[]`` outside a site, for an unsaved page
        without a path, or when the check fails: logged)."""
        if path is None:
            return []
        try:
            checker = self.checker(path)
            if checker is None:
                return []
            doc = checker.check(path, text, split_lines(text), str(path), None)
        except Exception:
            log.exception("checking the page %s failed", path)
            return []
        return doc.diagnostics() if doc is not None else []


def uri_path(uri: str) -> Path | None:
    """The file path of a ``file:`` URI, else None."""
    if not uri.startswith("file:"):
        return None
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    path = unquote(parsed.path)
    if os.name == "nt" and len(path) > 2 and path[0] == "/" and path[2] == ":":  # pragma: no cover
        path = path[1:]
    if parsed.netloc and parsed.netloc != "localhost":  # pragma: no cover - UNC paths
        path = f"//{parsed.netloc}{path}"
    return Path(path)


def all_diagnostics(analysis: Analysis) -> list[Diagnostic]:
    """The document's diagnostics as ``check`` gives them: the page's (when computed), then per
    unit the parser's and the kinematic solve's (those computed for the unit as it is now), in
    reading order."""
    out = list(analysis.page or [])
    for u in analysis.units:
        out += u.checked.result.diagnostics()
        kin = analysis.kinematic.get(u.key)
        if kin is not None:
            out += kin[0]
    return sorted(out, key=reading_order)
