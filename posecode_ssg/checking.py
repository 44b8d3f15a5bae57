"""Checking Posecode like a compiler: the library behind ``posecode-ssg check`` (and ``compile``,
``eval``). It finds the documents (``.posecode`` files and the ```` ```posecode ```` fences of
``.md`` files; folders searched recursively, skipping hidden folders and ``node_modules``),
parses them with diagnostics moved to file lines and columns (a problem in a fence is reported at
its line in the ``.md`` file), attaches the motion compiler's kinematic diagnostics (codes
``kinematic-*``, issue 3: warnings, never part of ``parse()``'s result; for ``check``, with the
fix a bounded search of the solve proposes in their hints, issue 26: :func:`add_fixes`), and
checks a ``.md`` file as a page, as ``build`` checks it (:class:`PageChecker`: front matter, fence attributes and
internal links). The command (``posecode_ssg/commands/check.py``) only parses arguments, prints
and picks the exit status.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posecode_ssg.language import parse
from posecode_ssg.language.diagnostics import Diagnostic, reading_order
from posecode_ssg.language.parser import ParseResult, split_lines

SUFFIXES = (".posecode", ".md")
_SKIP_DIRS = ("node_modules", "__pycache__")


@dataclass
class CheckedDocument:
    """One checked document: a ``.posecode`` file or one fence of a ``.md`` file.

    ``result`` has its diagnostics already moved to file lines and columns; ``file_lines`` are the
    file's lines (for the source excerpt)."""

    path: str
    fence_line: int | None
    result: ParseResult
    file_lines: list[str]
    kinematic: list[Diagnostic] = field(default_factory=list)
    page: bool = False  # the page-level problems of a .md file (front matter, links), no Posecode
    #: the equipment words drawn on a fence's figure (its ``equipment`` attribute, else its page's
    #: front matter: motion/equipment.py), as the build draws them
    equipment: tuple[str, ...] = ()
    #: the equipment comes from the page's front matter (what cannot be held is left out, with a
    #: hint: motion/equipment.py ``page_words_that_fit``), not the fence's attribute
    equipment_from_page: bool = False
    #: the document's Posecode text (a fence's body), for the fix proposals (motion/fixes.py)
    source: str | None = None
    #: front-matter equipment its figure does not draw without the fence's attribute (band,
    #: barbell: motion/equipment.py ``page_equipment_left_out``), told as a hint
    equipment_left_out: tuple[str, ...] = ()

    def diagnostics(self) -> list[Diagnostic]:
        """Parser and kinematic diagnostics together, in :func:`reading_order` (line, column)."""
        return sorted(self.result.diagnostics() + self.kinematic, key=reading_order)

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "fence_line"?, "page"?, "ir", "errors", "warnings", "hints", "kinematic"}`` (file lines)."""
        d: dict[str, Any] = {"path": self.path}
        if self.fence_line is not None:
            d["fence_line"] = self.fence_line
        if self.page:
            d["page"] = True
        d.update(self.result.to_dict())
        d["kinematic"] = [k.to_dict() for k in self.kinematic]
        return d


def add_kinematics(doc: CheckedDocument, fixes: bool = False):
    """Compile ``doc`` (when it parsed) and attach the kinematic diagnostics of its keyframe solve.

    The figure holds the document's equipment (``doc.equipment``) as the build draws it, and
    its attach problems are among the diagnostics. Returns the
    :class:`~posecode_ssg.motion.compile.MotionProgram`, or None when the document has
    errors. Diagnostic lines are moved to file lines (fences) and columns to the first word of the
    line that asked for them. With ``fixes`` (``check`` only: up to 200 more solves,
    :func:`add_fixes`), a diagnostic that a clean fix answers has it in its hint."""
    if doc.result.ir is None:
        return None
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.diagnostics import kinematic_diagnostics, with_columns
    from posecode_ssg.motion.equipment import holding_sides, place_equipment

    words = doc.equipment
    program = compile_ir(doc.result.ir, holding=holding_sides(words))
    hints = []
    if words and doc.equipment_from_page:
        from posecode_ssg.motion.equipment import page_words_that_fit

        kept, hints = page_words_that_fit(program, words)
        if kept != words:
            words = kept
            program = compile_ir(doc.result.ir, holding=holding_sides(words))
    if doc.equipment_left_out and doc.equipment_from_page:
        from posecode_ssg.motion.equipment import left_out_hints

        hints = hints + left_out_hints(doc.equipment_left_out, doc.result.ir.line or 1)
    kin = kinematic_diagnostics(program) + hints
    if words:
        kin += place_equipment(program, words)
    if doc.fence_line is not None:
        kin = [d.shifted(doc.fence_line) for d in kin]
    doc.kinematic = with_columns(kin, doc.file_lines)
    if fixes:
        add_fixes(doc)
    return program


def add_fixes(doc: CheckedDocument) -> None:
    """Append to the hint of each kinematic diagnostic and composed-limit ``rom-clamp`` of ``doc``
    the proposal of the clean fix that answers it, if any ("…; this works: `knees: flex 70` with
    `hips: flex 85` puts foot_left on the box"): :func:`posecode_ssg.motion.fixes.fix_pairs`, a
    bounded search of the solve (issue 26 item 3). ``check`` only: the build never searches."""
    from posecode_ssg.motion.fixes import FIX_CODES, fix_pairs, hint_with_fixes

    if doc.source is None or doc.result.ir is None or not any(
            d.code in FIX_CODES for d in doc.kinematic + doc.result.warnings):
        return   # nothing a fix answers: no second solve
    pairs = fix_pairs(doc.source)
    if pairs:
        shift = doc.fence_line or 0
        r = doc.result
        doc.result = ParseResult(r.ir, r.errors, hint_with_fixes(r.warnings, pairs, shift), r.hints)
        doc.kinematic = hint_with_fixes(doc.kinematic, pairs, shift)


def find_documents(paths: list[str]) -> tuple[list[Path], list[str]]:
    """Expand PATH arguments into files to check (sorted within each folder).

    Returns ``(files, problems)`` where problems are usage messages for missing paths."""
    files: list[Path] = []
    problems: list[str] = []
    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            found = []
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                found.extend(Path(root) / n for n in names if n.endswith(SUFFIXES))
            files.extend(sorted(found))
        elif p.is_file():
            files.append(p)
        else:
            problems.append(f"{arg}: no such file or directory")
    return files, problems


def _read(path: Path) -> tuple[str | None, str | None]:
    try:
        return path.read_bytes().decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"file is not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    except OSError as exc:
        return None, f"cannot read file: {exc.strerror or exc}"


def check_file(path: Path, display: str | None = None, pages: PageChecker | None = None,
               folder_arg: Path | None = None) -> list[CheckedDocument]:
    """Check one file; a ``.md`` file gives one document per Posecode fence (possibly none), and,
    with ``pages``, first a page document with its front matter and link problems (if any)."""
    from posecode_ssg.site.fences import extract_posecode_blocks

    shown = display or str(path)
    text, problem = _read(path)
    if text is None:
        diag = Diagnostic("unreadable-file", "error", 1, 1, problem or "cannot read file")
        return [CheckedDocument(shown, None, ParseResult(None, [diag]), [])]
    lines = split_lines(text)
    if path.suffix.lower() != ".md":
        return [CheckedDocument(shown, None, parse(text), lines, source=text)]
    docs = []
    if pages is not None:
        page_doc = pages.check(path, text, lines, shown, folder_arg)
        if page_doc is not None:
            docs.append(page_doc)
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

        def move(d: Diagnostic) -> Diagnostic:
            return d.moved(*block.file_position(d.line, d.column), lambda n: block.file_position(n, 1)[0])

        moved = ParseResult(result.ir, [move(d) for d in result.errors],
                            [move(d) for d in result.warnings], [move(d) for d in result.hints])
        docs.append(CheckedDocument(shown, block.fence_line, moved, lines, equipment=equipment,
                                    equipment_from_page="equipment" not in block.attrs, source=block.source,
                                    equipment_left_out=left_out))
    return docs


class PageChecker:
    """The per-page checks ``build`` makes on a Markdown page, for ``check``: front matter
    (:func:`~posecode_ssg.site.content.validate_front_matter`, through ``parse_markdown_page``),
    ```` ```posecode ```` fence attributes and internal links
    (:func:`~posecode_ssg.site.links.link_diagnostics`).

    Links resolve inside a content root: the site's content folder when the page lies in it,
    else the folder argument the page was found under, else the page's own folder. Draft pages
    of the root count as link targets here (``build`` drops them), and ``#fragment``s are not
    checked (that needs every target page parsed)."""

    def __init__(self, content_dir: Path | None, vocabulary=None, raw_html: bool = False):
        from posecode_ssg.site.content import create_markdown

        self.content_dir = content_dir.resolve() if content_dir is not None else None
        self.vocabulary = vocabulary  # the site's taxonomies (None: the built-in ones)
        self.md = create_markdown(raw_html=raw_html)   # the build's pipeline (site/content.py)
        self.indexes: dict[Path, Any] = {}

    def root_of(self, path: Path, folder_arg: Path | None) -> Path:
        """The content root the links of ``path`` resolve in (see the class docstring)."""
        path = path.resolve()
        for root in (self.content_dir, folder_arg.resolve() if folder_arg is not None else None):
            if root is not None and path.is_relative_to(root):
                return root
        return path.parent

    def _index(self, root: Path):
        from posecode_ssg.site.content import LinkIndex, new_page, scan_content

        if root not in self.indexes:
            pages, static = scan_content(root)
            by_src, by_url = {}, {}
            for p in pages:
                page = new_page(root, p.relative_to(root).as_posix())
                by_src[page.src_uri] = page
                by_url.setdefault(page.url, page)
            self.indexes[root] = LinkIndex(by_src, by_url, {p.relative_to(root).as_posix() for p in static})
        return self.indexes[root]

    def check(self, path: Path, text: str, lines: list[str], shown: str,
              folder_arg: Path | None = None) -> CheckedDocument | None:
        """Front matter and link diagnostics of the Markdown page ``path`` (``text``), or None
        when it has none."""
        from posecode_ssg.site.content import (
            decode_source,
            new_page,
            parse_markdown_page,
        )
        from posecode_ssg.site.links import link_diagnostics
        from posecode_ssg.site.markdown import posecode_env
        from posecode_ssg.site.result import as_diagnostic

        root = self.root_of(path, folder_arg)
        page = new_page(root, path.resolve().relative_to(root).as_posix(),
                        text=decode_source(text.encode("utf-8"))[0])
        parse_markdown_page(page, self.md, self.vocabulary)
        found = [as_diagnostic(p.as_record()) for p in page.problems]  # front matter
        found += [as_diagnostic(d) for d in posecode_env(page.env).diagnostics]  # fence attributes
        found += link_diagnostics(page, self._index(root))
        if page.meta.get("program"):   # each exercise names a page (site/programs.py)
            from posecode_ssg.site.programs import resolve_program

            found += [as_diagnostic(d) for d in resolve_program(page, page.meta["program"], self._index(root), None)[1]]
        if not found:
            return None
        found.sort(key=reading_order)
        result = ParseResult(None, [d for d in found if d.severity == "error"],
                             [d for d in found if d.severity == "warning"], [])
        return CheckedDocument(shown, None, result, lines, page=True)


def content_dir(config: str | None) -> Path | None:
    """The site's content folder (``--config FILE``, else ``./posecode.toml``, else ``./content``);
    None when the config cannot be read (links then resolve in the checked folder)."""
    site = site_config(config)
    return site.content_dir if site is not None else None


def site_config(config: str | None):
    """The site's :class:`~posecode_ssg.config.SiteConfig` (``--config FILE``, else
    ``./posecode.toml``, else the defaults), or None when it cannot be read."""
    from posecode_ssg.config import PosecodeError, load_config

    try:
        return load_config(config)
    except (PosecodeError, OSError):
        return None


def find_documents_with_roots(paths: list[str]) -> tuple[list[Path], list[Path | None], list[str]]:
    """:func:`find_documents` per PATH argument, with the folder argument each file was found
    under (None for a file given by name: its links resolve in the site's content folder or its
    own folder, :meth:`PageChecker.root_of`). Returns ``(files, roots, problems)``."""
    files: list[Path] = []
    roots: list[Path | None] = []
    problems: list[str] = []
    for arg in paths:
        found, missing = find_documents([arg])
        files += found
        roots += [Path(arg) if Path(arg).is_dir() else None] * len(found)
        problems += missing
    return files, roots, problems


def check_documents(files: list[Path], roots: list[Path | None], config: str | None = None) -> list[CheckedDocument]:
    """Check every file (:func:`check_file`; a ``.md`` file as a page too, its links resolved in
    the site's content folder of ``config`` or its root) and attach the kinematic diagnostics of
    every document that parses (:func:`add_kinematics`, with the fix proposals). Returns the
    documents in file order."""
    pages = None
    if any(f.suffix.lower() == ".md" for f in files):
        from posecode_ssg.site.vocabularies import vocabulary

        site = site_config(config)   # its content folder (links) and taxonomies (front matter)
        pages = PageChecker(site.content_dir if site else None, vocabulary(site.taxonomies if site else None),
                            raw_html=bool(site and site.raw_html))
    docs: list[CheckedDocument] = []
    for f, folder in zip(files, roots):
        docs.extend(check_file(f, pages=pages, folder_arg=folder))
    for doc in docs:
        add_kinematics(doc, fixes=True)
    return docs
