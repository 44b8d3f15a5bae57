"""What every integration shares: a fence compiled and rendered as ``posecode-ssg build`` does it
(:func:`~posecode_ssg.site.figures.compile_figure`, :func:`~posecode_ssg.site.markdown.figure_html`),
its diagnostics as the project's one problem record (:class:`~posecode_ssg.site.problems.Problem`,
printed by :func:`~posecode_ssg.site.report.format_diagnostic`: the text of ``posecode-ssg
check``), and the files a page with figures needs (the runtime bundle, ``rig.json``, and a small
stylesheet giving the figures the default theme's colours in a host theme's dark scheme).
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from pathlib import Path
from types import SimpleNamespace

from posecode_ssg.language.diagnostics import map_line_refs
from posecode_ssg.site.figures import CompiledFigure, compile_figure, figure_key
from posecode_ssg.site.markdown import FenceInfo, figure_html
from posecode_ssg.site.problems import Problem
from posecode_ssg.site.report import format_diagnostic

#: the folder (under the host site's output) and the names of the files a page with figures loads
RUNTIME_NAME, RIG_NAME, CSS_NAME, LICENCE_NAME = "posecode-runtime.js", "rig.json", "posecode.css", "THREE-LICENSE.txt"
RUNTIME_DIST = Path(__file__).resolve().parent.parent / "runtime" / "dist"
THEME_CSS = Path(__file__).resolve().parent.parent / "themes" / "default" / "static" / "style.css"

#: the host themes' dark-scheme markers: Material for MkDocs (``slate``), pydata-sphinx-theme
#: (``html[data-theme=dark]``), Furo (``body[data-theme=dark]``; ``auto`` follows the system)
DARK_SELECTORS = ('[data-md-color-scheme="slate"]', '[data-theme="dark"]')
AUTO_SELECTORS = ('[data-theme="auto"]',)


def _palettes() -> tuple[str, str]:
    """The ``--pc-*`` declarations of the default theme's light ``:root`` block and of its dark
    (``prefers-color-scheme: dark``) one, read from its stylesheet (their one source)."""
    text = THEME_CSS.read_text(encoding="utf-8")
    dark_at = text.find("prefers-color-scheme: dark")
    blocks = [text[:dark_at], text[dark_at:text.find("}", text.find("{", text.find("{", dark_at) + 1))]]
    out = []
    for block in blocks:
        root = block[block.find(":root"):]
        decls = re.findall(r"(--pc-[\w-]+)\s*:\s*([^;]+);", root)
        out.append(";".join(f"{name}:{value.strip()}" for name, value in decls))
    return out[0], out[1]


def figure_css() -> str:
    """The stylesheet an integration adds, from the default theme's stylesheet (one source):
    its figure colours on ``posecode-figure``, its dark ones under each host theme's dark-scheme
    marker (:data:`DARK_SELECTORS`; :data:`AUTO_SELECTORS` when the system is dark; the runtime
    re-reads the colours when the scheme is toggled), its rules for the static figure (poster,
    step list: what shows before the player starts or without it), and its print rules and
    print colours (black on white, whatever scheme the page was in)."""
    light, dark = _palettes()
    dark_sel = ",".join(f"{s} posecode-figure" for s in DARK_SELECTORS)
    auto_sel = ",".join(f"{s} posecode-figure" for s in AUTO_SELECTORS)
    print_sel = ",".join(["posecode-figure", *(f"{s} posecode-figure" for s in DARK_SELECTORS + AUTO_SELECTORS)])
    return (f"posecode-figure{{{light}}}\n{dark_sel}{{{dark}}}\n"
            f"@media (prefers-color-scheme: dark){{{auto_sel}{{{dark}}}}}\n"
            f"{_section('figure static')}\n"
            f"@media print{{{print_sel}{{{_print_palette()}}} {_section('figure print')}}}\n"
            # a figure's step list is numbered 1, 2, 3 wherever it stands (Material letters the
            # lists nested in a list item, with a more specific rule)
            "posecode-figure ol{list-style-type:decimal!important}\n")


def _section(name: str) -> str:
    """The default theme's stylesheet between the ``/* NAME: begin`` and ``/* NAME: end``
    comments, on one line."""
    text = THEME_CSS.read_text(encoding="utf-8")
    begin, end = text.index(f"{name}: begin"), text.index(f"/* {name}: end")
    return " ".join(line.strip() for line in text[text.index("*/", begin) + 2:end].splitlines() if line.strip())


def _print_palette() -> str:
    """The ``--pc-*`` declarations of the theme's print ``:root`` block."""
    text = THEME_CSS.read_text(encoding="utf-8")
    at = text.index("@media print")
    root = text[text.index(":root", at):]
    root = root[:root.index("}")]
    return ";".join(f"{n}:{v.strip()}" for n, v in re.findall(r"(--pc-[\w-]+)\s*:\s*([^;]+);", root))


def asset_files() -> dict[str, bytes]:
    """``{file name: bytes}`` of what a page with figures loads: the runtime bundle (when built:
    without it pages show their posters only), ``rig.json``, :func:`figure_css` and three.js'
    licence."""
    from posecode_ssg.motion.rigjson import rig_json
    from posecode_ssg.site.digest import json_bytes

    files = {RIG_NAME: json_bytes(rig_json()), CSS_NAME: figure_css().encode("utf-8")}
    for name in (RUNTIME_NAME, LICENCE_NAME):
        path = RUNTIME_DIST / name
        if path.is_file():
            files[name] = path.read_bytes()
    return files


def write_assets(folder: str | os.PathLike[str]) -> list[Path]:
    """Write :func:`asset_files` into ``folder`` (made when missing); returns the paths written
    (a file already holding the same bytes is left alone)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in asset_files().items():
        path = folder / name
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
        written.append(path)
    return written


#: compiled figures by key (:func:`~posecode_ssg.site.figures.figure_key`), newest last, shared by
#: every renderer of the process: a dev server's rebuild (``mkdocs serve``, ``sphinx-autobuild``)
#: compiles only the blocks that changed
_CACHE: OrderedDict[str, CompiledFigure] = OrderedDict()
_CACHE_SIZE = 2048
_LOCK = threading.Lock()


class FigureRenderer:
    """Compiles and renders the fences of one host site with its options (named as in
    posecode.toml: ``default_view`` ``auto|side|front``, ``default_avatar``, ``autoplay``).
    ``compiled`` counts the blocks this renderer compiled (cache misses)."""

    def __init__(self, *, default_view: str | None = "auto", default_avatar: str | None = None,
                 autoplay: bool = True):
        self.config = SimpleNamespace(default_view=default_view or "auto", default_avatar=default_avatar)
        self.autoplay = autoplay
        self.compiled = 0

    def options(self, info: FenceInfo, meta: dict | None = None) -> dict:
        """The compile options of a fence (the build's rule: site/compilation.py
        ``figure_options``; ``meta``: the page's front matter, for its ``equipment``)."""
        from posecode_ssg.site.compilation import figure_options

        return figure_options(info, self.config, meta)

    def figure(self, source: str, info: FenceInfo, meta: dict | None = None) -> CompiledFigure:
        """The compiled block ``source`` (remembered by content and options)."""
        options = self.options(info, meta)
        key = figure_key(source, options)
        with _LOCK:
            hit = _CACHE.get(key)
            if hit is not None:
                _CACHE.move_to_end(key)
                return hit
        figure = compile_figure(source, options, key)
        self.compiled += 1
        with _LOCK:
            _CACHE[key] = figure
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
        return figure

    def html(self, figure: CompiledFigure, info: FenceInfo, figure_id: str, *, source: str,
             first_line: int = 1, motion_src: str | None = None) -> str:
        """The ``<posecode-figure>`` markup (or error box) of ``figure``, as the build writes it;
        ``first_line``: the file line of the block's first line (the error box's numbers);
        ``motion_src``: the URL of its motion JSON file, instead of the inline script."""
        view = None if self.config.default_view == "auto" else self.config.default_view
        return figure_html(figure, info, figure_id, default_view=view, autoplay=self.autoplay,
                           source=source, first_line=first_line, motion_src=motion_src)


def figure_problems(figure: CompiledFigure, info: FenceInfo, *, source: str, path: str | os.PathLike[str],
                    fence_line: int, file_lines: list[str] | None = None) -> list[Problem]:
    """The problems of one fence (block text ``source``) in the file ``path``: its attribute
    problems at the opening line ``fence_line`` (1-based, at the attribute's word), then the
    block's diagnostics moved to file lines (block line n is file line ``fence_line + n``, as
    site/markdown.py ``document_position`` moves them) and columns (shifted by the container
    prefix, list indentation or ``>``, found on that line of ``file_lines``), line references in
    their messages and hints too (``map_line_refs``)."""
    out = []
    opener = file_lines[fence_line - 1] if file_lines and 0 < fence_line <= len(file_lines) else ""
    for message in info.problems:
        word = re.search(r"'([^']+)'", message)
        at = opener.find(word.group(1)) if word else -1
        out.append(_problem(path, fence_line, at + 1 if at >= 0 else 1, "warning", "fence-attribute", message,
                            None, 0, opener))
    body = source.split("\n")

    def to_file(k: int) -> int:
        return fence_line + k

    for d in figure.diagnostics:
        n, column = int(d.get("line") or 1), int(d.get("column") or 1)
        line = fence_line + n
        text = file_lines[line - 1] if file_lines and 0 < line <= len(file_lines) else ""
        src = body[n - 1].rstrip("\r") if 0 < n <= len(body) else ""
        if src and text.endswith(src):
            column += len(text) - len(src)
        width = d.get("width", 0)
        out.append(_problem(path, line, column, d["severity"], d.get("code") or "error",
                            map_line_refs(d["message"], to_file),
                            map_line_refs(d["hint"], to_file) if d.get("hint") else None,
                            width if isinstance(width, int) else 0, text))
    return out


def _problem(path, line: int, column: int, severity: str, code: str, message: str, hint: str | None, span: int,
             text: str) -> Problem:
    return Problem(severity, code, line, column, message, hint, file=str(path), path=os.fspath(path), span=span,
                   source=text.replace("\t", " "))


def format_problem(problem: Problem, shown: str, file_lines: list[str] | None = None) -> str:
    """``shown:LINE:COL: severity[code]: message``, the source line with carets under the word,
    and the hint: exactly what ``posecode-ssg check`` prints for it."""
    return format_diagnostic(problem.path, problem, lines=file_lines, shown=shown)
