"""``posecode-ssg check PATH...``: validate Posecode like a compiler.

Checks ``.posecode`` files and the ```` ```posecode ```` fences of ``.md`` files (folders are
searched recursively, skipping hidden folders and ``node_modules``). Line numbers are counted in the
file given, so a problem in a fence is reported at its line in the ``.md`` file.

Text output (default), one block per diagnostic, then a summary line::

    content/squat.posecode:4:5: error[unknown-joint]: unknown joint: "elbw_left"
        4 |     elbw_left: flex 30
          |     ^^^^^^^^^
          = hint: did you mean `elbow_left`?

Documents that parse are also compiled and solved at their phase ends, and the motion compiler's
kinematic diagnostics (codes ``kinematic-*``, issue 3) are reported beside the parser's, in the
same format; they are warnings, never part of ``parse()``'s result.

A ``.md`` file is also checked as a page, as ``build`` checks it (:class:`PageChecker`): front
matter, fence attributes and internal links, reported first, as one page document.

``--format json`` prints one JSON array with an object per document: ``path``, ``fence_line``
(fences only), ``page`` (page documents only), the keys of :meth:`ParseResult.to_dict` and
``kinematic`` (a list of diagnostic dicts). The summary counts kinematic warnings inside the
warnings (``2 warnings (2 kinematic)``). ``--strict`` makes warnings (kinematic ones included) fail.

Exit status: 0 clean, 1 problems found (errors, or warnings with ``--strict``), 2 usage error
(a path that does not exist, or nothing to check).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from posecode_ssg.language import parse
from posecode_ssg.language.diagnostics import Diagnostic, reading_order
from posecode_ssg.language.parser import ParseResult, split_lines
from posecode_ssg.site.report import format_diagnostic

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


def add_kinematics(doc: CheckedDocument):
    """Compile ``doc`` (when it parsed) and attach the kinematic diagnostics of its keyframe solve.

    Returns the :class:`~posecode_ssg.motion.compile.MotionProgram`, or None when the document has
    errors. Diagnostic lines are moved to file lines (fences) and columns to the first word of the
    line that asked for them."""
    if doc.result.ir is None:
        return None
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.diagnostics import kinematic_diagnostics, with_columns

    program = compile_ir(doc.result.ir)
    kin = kinematic_diagnostics(program)
    if doc.fence_line is not None:
        kin = [d.shifted(doc.fence_line) for d in kin]
    doc.kinematic = with_columns(kin, doc.file_lines)
    return program


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
        return [CheckedDocument(shown, None, parse(text), lines)]
    docs = []
    if pages is not None:
        page_doc = pages.check(path, text, lines, shown, folder_arg)
        if page_doc is not None:
            docs.append(page_doc)
    for block in extract_posecode_blocks(text):
        result = parse(block.source)

        def move(d: Diagnostic) -> Diagnostic:
            return d.moved(*block.file_position(d.line, d.column), lambda n: block.file_position(n, 1)[0])

        moved = ParseResult(result.ir, [move(d) for d in result.errors],
                            [move(d) for d in result.warnings], [move(d) for d in result.hints])
        docs.append(CheckedDocument(shown, block.fence_line, moved, lines))
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

    def __init__(self, content_dir: Path | None):
        from posecode_ssg.site.content import create_markdown

        self.content_dir = content_dir.resolve() if content_dir is not None else None
        self.md = create_markdown()
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
        from posecode_ssg.site.content import decode_source, new_page, parse_markdown_page
        from posecode_ssg.site.links import link_diagnostics
        from posecode_ssg.site.markdown import posecode_env
        from posecode_ssg.site.result import as_diagnostic

        root = self.root_of(path, folder_arg)
        page = new_page(root, path.resolve().relative_to(root).as_posix(),
                        text=decode_source(text.encode("utf-8"))[0])
        parse_markdown_page(page, self.md)
        found = [as_diagnostic(p.to_dict()) for p in page.problems]  # front matter
        found += [as_diagnostic(d) for d in posecode_env(page.env).diagnostics]  # fence attributes
        found += link_diagnostics(page, self._index(root))
        if not found:
            return None
        found.sort(key=reading_order)
        result = ParseResult(None, [d for d in found if d.severity == "error"],
                             [d for d in found if d.severity == "warning"], [])
        return CheckedDocument(shown, None, result, lines, page=True)


def format_text(docs: list[CheckedDocument], out: TextIO) -> None:
    """Write compiler-style diagnostics for every document (:func:`~posecode_ssg.site.report.format_diagnostic`)."""
    for doc in docs:
        for d in doc.diagnostics():
            out.write(format_diagnostic(doc.path, d, lines=doc.file_lines, shown=doc.path) + "\n")


def _content_dir(config: str | None) -> Path | None:
    """The site's content folder (``--config FILE``, else ``./posecode.toml``, else ``./content``);
    None when the config cannot be read (links then resolve in the checked folder)."""
    from posecode_ssg.config import PosecodeError, load_config

    try:
        return load_config(config).content_dir
    except (PosecodeError, OSError):
        return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run(args) -> int:
    """Entry point of ``posecode-ssg check`` (argparse namespace with ``paths``, ``format``,
    ``strict``). Returns the exit status."""
    files: list[Path] = []
    folder_args: list[Path | None] = []
    problems: list[str] = []
    for arg in args.paths:
        found, missing = find_documents([arg])
        files += found
        folder_args += [Path(arg) if Path(arg).is_dir() else None] * len(found)
        problems += missing
    for p in problems:
        print(f"posecode-ssg check: {p}", file=sys.stderr)
    if problems:
        return 2
    if not files:
        print("posecode-ssg check: no .posecode or .md files found in "
              + ", ".join(args.paths), file=sys.stderr)
        return 2
    pages = PageChecker(_content_dir(getattr(args, "config", None))) if any(
        f.suffix.lower() == ".md" for f in files) else None
    docs: list[CheckedDocument] = []
    for f, folder in zip(files, folder_args):
        docs.extend(check_file(f, pages=pages, folder_arg=folder))
    for doc in docs:
        add_kinematics(doc)

    errors = sum(len(d.result.errors) for d in docs)
    kinematic = sum(len(d.kinematic) for d in docs)
    warnings = sum(len(d.result.warnings) for d in docs) + kinematic
    hints = sum(len(d.result.hints) for d in docs)
    failed = errors > 0 or (getattr(args, "strict", False) and warnings > 0)

    if getattr(args, "format", "text") == "json":
        json.dump([d.to_dict() for d in docs], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        format_text(docs, sys.stdout)
        posecode = [d for d in docs if not d.page]
        bad = [_plural(sum(1 for d in docs if d.page and d.result.errors), "page"),
               _plural(sum(1 for d in posecode if d.result.errors), "document")]
        bad = [b for b in bad if not b.startswith("0 ")]
        summary = (f"checked {_plural(len(posecode), 'document')} in {_plural(len(files), 'file')}: "
                   f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
                   f"{f' ({kinematic} kinematic)' if kinematic else ''}, {_plural(hints, 'hint')}")
        if bad:
            summary += f" ({' and '.join(bad)} failed)"
        elif failed:
            summary += " (warnings fail with --strict)"
        print(summary)
    return 1 if failed else 0
