"""Live preview server: build into a private folder, watch sources, push updates.

Shape (see ../shared/design/browser-stack.md §5, the measured recipe): a small
Starlette app served by uvicorn, a ``watchfiles.awatch`` task started in the
app's ``lifespan``, and a Server-Sent Events stream at ``/__posecode/events``.
A tiny client (``livereload.js``, this folder) is injected into HTML responses
only by this server; the files the build writes never contain it.

Data flow for one change::

    editor save ─▶ awatch (debounced) ─▶ builder task (one build at a time,
    the newest change wins; waits until the changed files are quiet) ─▶
    [fast path: an edit inside Posecode blocks only is compiled on its own
    and sent at once as an SSE "figures" event] ─▶ build into the private
    output folder (worker thread) ─▶ snapshot + diff of the served files ─▶
    one SSE "build" event (none when the build was superseded by a newer
    change, or changed nothing)

The diff decides what each open tab does: when only the inside of
``<posecode-figure>`` elements changed, the tab swaps those figures' motion in
place (scroll and play state kept); when only the text around unchanged
figures changed (a prose edit), the event carries the new page and the tab
merges its ``<main>`` in place, keeping the live figures; any other change to
a page reloads that page (scroll restored); a changed stylesheet, script or
image reloads every tab. The build behind it is incremental and in place
(``build_site(keep_going=True, in_place=True)``): a prose edit re-renders one
page and rewrites one file. Build errors are sent with every event and drawn as an overlay; a page
whose document has errors keeps being served in its last good version (held
in memory) until the author fixes it.

Page requests wait while a build is running, so a tab that reloads never sees
a half-written site (the MkDocs dev-server rule).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html as html_lib
import json
import os
import re
import socket
import tempfile
import threading
import time
import unicodedata
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import h11
import uvicorn
import watchfiles
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from posecode_ssg.site.content import EDITOR_TEMP_PATTERNS
from posecode_ssg.site.report import (
    caret_width,
    display_path,
    format_diagnostic,
    source_line,
)

#: URL prefix reserved for the dev server's own endpoints (never a site path).
LIVE_PREFIX = "/__posecode"
#: The tag injected into every HTML response (and nowhere else).
CLIENT_TAG = f'<script src="{LIVE_PREFIX}/livereload.js" defer></script>'

#: Content types set explicitly: Python's ``mimetypes`` answers differently
#: per version and per /etc/mime.types (``.mjs`` is unknown on some systems,
#: ``.js`` was ``application/javascript`` before 3.12). RFC 9239 names
#: ``text/javascript`` for both script extensions.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".wasm": "application/wasm",
}

#: Output paths the build names by content hash (``assets/style.<10 hex>.css``,
#: ``assets/posters/<20 hex>.svg``): served as immutable.
HASHED_ASSET_RE = re.compile(r"^assets/(?:.*/)?(?:[^/]*\.)?[0-9a-f]{10,}\.[a-z0-9]+$")

#: Output file suffixes whose change reloads every open tab (shared assets).
SHARED_ASSET_SUFFIXES = frozenset(
    {".css", ".js", ".mjs", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico",
     ".woff", ".woff2", ".ttf", ".otf"}
)
#: Output data files that every figure reads (a change reloads every tab).
SHARED_DATA_NAMES = frozenset({"rig.json"})


#: Most pages whose new HTML one build event carries for in-place updates (``SiteChanges.patch``).
PATCH_LIMIT = 8

DIAGNOSTIC_FIELDS = ("file", "line", "column", "severity", "code", "message", "hint", "source", "width")


# --------------------------------------------------------------------------- #
# What serve needs from a project
# --------------------------------------------------------------------------- #


@dataclass
class Problem:
    """One diagnostic as the terminal and the browser overlay show it.

    ``file`` is the path as the author would type it (relative to the current
    directory when possible), ``line``/``column`` are 1-based (0 when
    unknown), ``source`` is the text of that line of the file (tabs shown as
    spaces, ``""`` when it cannot be read), ``width`` how many carets underline
    the word at ``column`` (``report.caret_width``, as the terminal shows it).
    ``path`` is the file itself, for the terminal formatter.
    """

    file: str
    line: int
    column: int
    severity: str
    code: str
    message: str
    hint: str | None = None
    source: str = ""
    path: str = ""

    @property
    def width(self) -> int:
        return caret_width(self.source, self.column) if self.source else 1

    @classmethod
    def at(cls, path: str | os.PathLike[str], *, line: int, column: int, severity: str, code: str,
           message: str, hint: str | None = None) -> "Problem":
        """A problem in file ``path``, its source line read from the file."""
        return cls(file=display_path(path), line=line, column=column, severity=severity, code=code,
                   message=message, hint=hint, source=read_source_line(path, line), path=os.fspath(path))

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready dict sent to the browser overlay."""
        return {name: getattr(self, name) for name in DIAGNOSTIC_FIELDS}

    def format(self) -> str:
        """The terminal text: exactly what ``posecode-ssg build`` prints for the same
        diagnostic (``posecode_ssg.site.report.format_diagnostic``)."""
        if self.path and Path(self.path).is_file():
            return format_diagnostic(self.path, self)
        return f"{self.file}:{self.line}:{self.column}: {self.severity}[{self.code}]: {self.message}" + (
            f"\n  hint: {self.hint}" if self.hint else "")


@dataclass
class BuildReport:
    """The outcome of one build, in the terms the dev server needs.

    ``errors``/``warnings``: the build's diagnostics. ``error_pages``: output
    paths (relative to the output root, ``/``-separated) of pages whose
    document has errors — the server keeps their last good version.
    ``crashed``: a one-line description when the build raised instead of
    finishing (the previous output is kept untouched). ``seconds``: wall time.
    """

    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    error_pages: set[str] = field(default_factory=set)
    crashed: str | None = None
    seconds: float = 0.0
    #: Optional breakdown of ``seconds`` by build stage (seconds), when the build gives one.
    stages: dict[str, float] = field(default_factory=dict)


class PreviewSource(Protocol):
    """The project side of the dev server (the real one is ``ProjectSource``).

    ``watch_dirs()`` lists folders watched recursively (content, theme);
    ``watch_files()`` lists single files (the config) — watched through their
    parent folder so an atomic save (rename over the file) is still seen.
    ``reload()`` re-reads the configuration (called before a build when a
    watched file changed); ``build(out_dir)`` builds the whole site into
    ``out_dir`` (incrementally when it can) and never raises for content
    errors. Optional: ``quick_figures(changed, served_pages)``, the figure
    fast path (see ``ProjectSource.quick_figures``).
    """

    def watch_dirs(self) -> list[Path]: ...

    def watch_files(self) -> list[Path]: ...

    def reload(self) -> None: ...

    def build(self, out_dir: Path) -> BuildReport: ...


def _outside_blocks(text: str, blocks: list[Any]) -> list[str]:
    """The lines of a Markdown text that are not inside a Posecode block's body."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    inside: set[int] = set()
    for block in blocks:
        count = len(block.source.split("\n")) if block.source else 0
        if block.source.endswith("\n"):
            count -= 1
        inside.update(range(block.first_line, block.first_line + count))
    return [line for number, line in enumerate(lines, start=1) if number not in inside]


class SourceError(Exception):
    """Raised by a ``PreviewSource`` when the project cannot be built at all
    (an invalid configuration); ``problems`` are shown like build errors."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))


def problem_from_diagnostic(path: str | os.PathLike[str], diagnostic: Any) -> Problem:
    """Turn ``(path, Diagnostic)`` (posecode_ssg.language.diagnostics) into a ``Problem``."""
    return Problem.at(
        path,
        line=int(getattr(diagnostic, "line", 0) or 0),
        column=int(getattr(diagnostic, "column", 0) or 0),
        severity=str(getattr(diagnostic, "severity", "error")),
        code=str(getattr(diagnostic, "code", "error")),
        message=str(getattr(diagnostic, "message", diagnostic)),
        hint=getattr(diagnostic, "hint", None),
    )


class ProjectSource:
    """The real ``PreviewSource``: a posecode-ssg project (``posecode.toml``,
    content folder, theme) built with ``posecode_ssg.site.build.build_site``.

    ``config_path``/``content``: the ``serve`` command's ``--config`` and
    ``--content``. The site is built for the server's root (``base_url`` is
    replaced by ``/``, so a site configured for ``https://host/sub/`` previews
    at ``http://127.0.0.1:8000/``) and never into the configured output
    folder. Raises ``posecode_ssg.config.ConfigError`` from the constructor
    when the configuration is invalid at start.
    """

    def __init__(self, config_path: str | os.PathLike[str] | None = None,
                 content: str | os.PathLike[str] | None = None) -> None:
        self._config_arg = config_path
        self._content_arg = content
        self.config = self._load()
        self._texts: dict[str, str] = {}  # last seen text of each Markdown page (quick_figures)

    def _remember_texts(self) -> None:
        for path in Path(self.config.content_dir).rglob("*.md"):
            with contextlib.suppress(OSError, UnicodeDecodeError):
                self._texts[str(path)] = path.read_text(encoding="utf-8")

    def _load(self) -> Any:
        from dataclasses import replace

        from posecode_ssg.config import load_config

        config = load_config(self._config_arg)
        if self._content_arg is not None:
            config = config.with_overrides(content=self._content_arg)
        return replace(config, base_url="/")

    @staticmethod
    def build_keeps_going() -> bool:
        """Whether ``build_site`` accepts ``keep_going=True`` (write the site even
        when some pages have errors, those pages showing their error boxes).
        Without it a build with errors writes nothing, so the server keeps the
        whole last good site, and a project that is broken at start has no
        site until it is fixed."""
        import inspect

        from posecode_ssg.site.build import build_site

        return "keep_going" in inspect.signature(build_site).parameters

    def watch_dirs(self) -> list[Path]:
        dirs = [Path(self.config.content_dir)]
        if self.config.theme_dir is not None:
            dirs.append(Path(self.config.theme_dir))
        return dirs

    def watch_files(self) -> list[Path]:
        from posecode_ssg.config import CONFIG_NAME

        path = self.config.config_path or Path(self.config.root) / CONFIG_NAME
        return [Path(path)]

    def reload(self) -> None:
        from posecode_ssg.config import ConfigError

        try:
            self.config = self._load()
        except ConfigError as exc:
            path = exc.path or "posecode.toml"
            raise SourceError([
                Problem.at(path, line=line or 1, column=1, severity="error", code="config", message=message)
                for line, message in exc.problems
            ]) from None

    def quick_figures(self, changed: set[str], served_pages: dict[str, str]) -> dict[str, list[dict[str, str]]] | None:
        """The fast path for an edit inside Posecode blocks only (see ``LiveSite``).

        When ``changed`` is one Markdown page whose text outside its
        ```` ```posecode ```` blocks (and their info strings) is unchanged
        since the last call, compile just the edited blocks and return
        ``{output page: [{"id", "html"}, ...]}`` with the figure markup the
        build will write, the k-th block matched to the k-th figure of the
        page being served. ``None`` when the edit is anything else, when a
        block does not compile cleanly, or when the page's figures do not
        line up (the full build then decides). The build runs in any case;
        a difference is corrected when it publishes.
        """
        from posecode_ssg.site.build import figure_options
        from posecode_ssg.site.content import page_url
        from posecode_ssg.site.fences import extract_posecode_blocks
        from posecode_ssg.site.figures import compile_figure
        from posecode_ssg.site.markdown import figure_html, parse_info

        content = Path(self.config.content_dir).resolve()
        edits: list[tuple[Path, str | None, str]] = []
        for name in changed:
            path = Path(name)
            if path.suffix != ".md":
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._texts.pop(name, None)
                continue
            edits.append((path, self._texts.get(name), text))
            self._texts[name] = text
        if len(changed) != 1 or len(edits) != 1:
            return None
        path, old_text, new_text = edits[0]
        if old_text is None:
            return None
        try:
            src_uri = path.resolve().relative_to(content).as_posix()
        except ValueError:
            return None
        old_blocks = extract_posecode_blocks(old_text)
        new_blocks = extract_posecode_blocks(new_text)
        if [b.info for b in old_blocks] != [b.info for b in new_blocks]:
            return None
        if _outside_blocks(old_text, old_blocks) != _outside_blocks(new_text, new_blocks):
            return None
        edited = [k for k, (a, b) in enumerate(zip(old_blocks, new_blocks)) if a.source != b.source]
        dest = page_url(src_uri)[1]
        page = served_pages.get(dest)
        if not edited or page is None:
            return None
        figures = split_figures(page)[1]
        if len(figures) != len(new_blocks) or not all(fid for fid, _html in figures):
            return None
        default_view = None if self.config.default_view == "auto" else self.config.default_view
        swaps = []
        for k in edited:
            block = new_blocks[k]
            info = parse_info(block.info)
            figure = compile_figure(block.source, figure_options(info, self.config))
            if figure.errors or figure.motion_json is None:
                return None
            swaps.append({"id": figures[k][0],
                          "html": figure_html(figure, info, figures[k][0], default_view=default_view,
                                              autoplay=self.config.autoplay, source=block.source).strip()})
        return {dest: swaps}

    def build(self, out_dir: Path) -> BuildReport:
        """Build the site into ``out_dir`` (never the configured output folder):
        not strict, pages with errors written with their error boxes when the
        build supports it; returns the diagnostics as ``Problem`` objects."""
        from posecode_ssg.site.build import build_site

        if not self._texts:
            self._remember_texts()

        options: dict[str, Any] = {}
        if self.build_keeps_going():
            # Pages with errors are written with their error boxes; the private folder is
            # updated file by file (requests wait while a build runs, so no tab sees a mix).
            options["keep_going"] = True
            options["in_place"] = True
        result = build_site(self.config, out_dir=out_dir, strict=False, progress=False, **options)
        report = BuildReport()
        for path, diagnostic in result.errors:
            report.errors.append(problem_from_diagnostic(path, diagnostic))
        for path, diagnostic in result.warnings:
            report.warnings.append(problem_from_diagnostic(path, diagnostic))
        report.stages = {name: float(value) for name, value in (getattr(result, "timings", None) or {}).items()}
        broken = {os.path.realpath(path) for path, _d in result.errors}
        for page in getattr(result, "pages", None) or []:
            src = getattr(page, "src_path", None)
            dest = getattr(page, "dest_uri", None) or getattr(page, "dest_path", None)
            if src is not None and dest is not None and os.path.realpath(src) in broken:
                report.error_pages.add(Path(dest).as_posix().lstrip("/"))
        return report


# --------------------------------------------------------------------------- #
# Snapshots of the served files and what changed between two of them
# --------------------------------------------------------------------------- #

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

    def with_overrides(self, overrides: dict[str, bytes]) -> "Snapshot":
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


# --------------------------------------------------------------------------- #
# File watching
# --------------------------------------------------------------------------- #


class SourceFilter(watchfiles.DefaultFilter):
    """watchfiles filter for content and theme folders: ignores editor swap,
    backup and lock files (``EDITOR_TEMP_PATTERNS``) and the given paths
    (the output and cache folders, when they sit inside a watched folder)."""

    ignore_entity_patterns = EDITOR_TEMP_PATTERNS


# --------------------------------------------------------------------------- #
# The live site: builder task, watcher task, subscribers
# --------------------------------------------------------------------------- #


@dataclass
class ServeOptions:
    """Tuning of the watcher and builder.

    ``debounce_ms``: longest time watchfiles groups a continuous stream of
    changes before yielding; ``step_ms``: quiet time after the last change
    before it yields (watchfiles' ``debounce``/``step``). ``quiet``: no
    terminal output (tests).
    """

    debounce_ms: int = 400
    step_ms: int = 10
    quiet: bool = False
    request_wait_s: float = 30.0
    #: Shortest time between the starts of two consecutive builds. A single
    #: save builds at once; in a burst of saves (format-on-save, "save all",
    #: a script) builds are spaced so the burst costs at most a few builds.
    min_build_interval_s: float = 0.25
    #: A build starts only once every changed file has been unmodified this
    #: long (a little more than ``step_ms``, so the watcher has reported all
    #: writes before the build reads the files)...
    quiet_s: float = 0.02
    #: ...or this long when the change comes within ``burst_window_s`` of the
    #: previous build's start (a burst; saves made by hand come further apart): more than the 20-40 ms between the writes of a
    #: scripted or format-on-save burst (sv-rapid-saves), so the rest of such a
    #: burst is one build, while a lone save keeps the short wait...
    burst_quiet_s: float = 0.06
    burst_window_s: float = 0.4
    #: ...but never waits longer than this for a file that keeps changing.
    max_quiet_wait_s: float = 2.0


class LiveSite:
    """Owns the private output folder, the build loop, the watcher and the SSE subscribers.

    ``source``: the project (``PreviewSource``). ``out_dir``: private output
    folder (created; a fresh temporary folder when ``None``). The object is
    driven from one asyncio loop: ``start()`` runs the first build and starts
    the tasks, ``stop()`` ends them.
    """

    def __init__(
        self,
        source: PreviewSource,
        *,
        out_dir: Path | None = None,
        watch: bool = True,
        options: ServeOptions | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.source = source
        self.options = options or ServeOptions()
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if out_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="posecode-serve-")
            out_dir = Path(self._tmp.name) / "site"
        self.out_dir = Path(out_dir)
        self.out_dir.parent.mkdir(parents=True, exist_ok=True)
        self.watch = watch
        self.instance = uuid.uuid4().hex[:12]
        self.version = 0
        self.builds = 0
        self.report = BuildReport()
        self.overrides: dict[str, bytes] = {}
        self._last_good: dict[str, bytes] = {}
        self._snapshot = Snapshot()
        self._disk_snapshot: Snapshot | None = None
        self._subscribers: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self._pending: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._change_seen_at: float | None = None  # epoch s of the first change not yet built
        self._timing: dict[str, float] = {}
        self._printed_errors: list[str] = []
        self._printed_warnings: set[str] = set()
        self._log = log or (lambda text: print(text, flush=True))
        self.last_event: dict[str, Any] | None = None

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Start the watcher, run the first build, then start the builder task."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._stop = asyncio.Event()
        if self.watch:  # watching first: a save during the first build is not lost
            self._tasks.append(asyncio.create_task(self._watch_loop(), name="posecode-watcher"))
        await self._build_and_publish(reload_config=False, first=True)
        self._idle.set()
        self._tasks.append(asyncio.create_task(self._build_loop(), name="posecode-builder"))

    async def stop(self) -> None:
        """Stop the tasks, close every SSE stream and delete the private output."""
        if self._stop is not None:
            self._stop.set()
        for queue in list(self._subscribers):
            queue.put_nowait(None)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                self._tmp.cleanup()

    def close_streams(self) -> None:
        """End every SSE stream (thread-safe); called when the server starts
        shutting down so open tabs do not hold the shutdown up."""
        loop = self._loop

        def _close() -> None:
            for queue in list(self._subscribers):
                queue.put_nowait(None)

        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(_close)

    def notify_changes(self, paths: Iterable[str]) -> None:
        """Queue changed source paths for the builder (the watcher calls this;
        tests may too). The newest state of the files is what gets built."""
        self._pending.update(paths)
        if self._change_seen_at is None:
            self._change_seen_at = time.time()
        if self._wake is not None:
            self._wake.set()

    async def wait_idle(self) -> None:
        """Wait (bounded by ``request_wait_s``) until no build is running."""
        if self._idle is None or self._idle.is_set():
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), self.options.request_wait_s)

    # -- building ----------------------------------------------------------

    async def _build_loop(self) -> None:
        assert self._wake is not None and self._idle is not None
        last_start = 0.0
        retries = 0
        interval = self.options.min_build_interval_s
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            # Burst guard: wait until the changed files have been quiet for a
            # moment (an editor or script still writing them makes a build
            # read half a file) and until the minimum interval since the last
            # build has passed; changes arriving meanwhile join this build.
            # A file written continuously is built anyway after max_quiet_wait_s.
            deadline = loop.time() + self.options.max_quiet_wait_s
            in_burst = last_start > 0 and loop.time() - last_start < self.options.burst_window_s
            quiet = self.options.burst_quiet_s if in_burst else self.options.quiet_s
            while loop.time() < deadline:
                pause = max(last_start + interval - loop.time(),
                            _quiet_remaining(self._pending, quiet))
                if pause <= 0:
                    break
                await asyncio.sleep(min(pause, deadline - loop.time()))
            self._wake.clear()
            changed, self._pending = self._pending, set()
            self._timing = {"changeSeenAt": _ms(self._change_seen_at), "buildStartAt": _ms(time.time())}
            self._change_seen_at = None
            last_start = loop.time()
            started_ns = time.time_ns()
            self._idle.clear()

            def superseded(changed: set[str] = changed, started_ns: int = started_ns) -> bool:
                # A newer change is queued, or a file this build read was
                # written again while it ran (its event is still on the way):
                # this output may mix versions, so nobody is told about it.
                return self._wake.is_set() or _modified_since(changed, started_ns)  # type: ignore[union-attr]

            try:
                config_paths = {str(p) for p in self.source.watch_files()}
                if not changed & config_paths:
                    await self._push_quick_figures(changed)
                published = await self._build_and_publish(
                    reload_config=bool(changed & config_paths),
                    superseded=superseded if retries < 3 else (lambda: False),
                )
                retries = 0 if published else retries + 1
                # A superseded build means writes are still going on: space
                # the next builds further apart (reset once one publishes).
                interval = (self.options.min_build_interval_s if published
                            else min(2 * interval, self.options.max_quiet_wait_s))
                if not published and not self._wake.is_set():
                    self.notify_changes(changed)  # build again once the writes are over
            finally:
                if not self._wake.is_set():
                    self._idle.set()

    async def _push_quick_figures(self, changed: set[str]) -> None:
        """Fast path for figure edits: when the source can compile just the
        edited Posecode blocks (``quick_figures``), tell the tabs at once;
        the full build that follows publishes as usual (tabs skip a figure
        they already show)."""
        quick = getattr(self.source, "quick_figures", None)
        if quick is None:
            return
        started = time.time()
        try:
            figures = await asyncio.to_thread(quick, changed, dict(self._snapshot.pages))
        except Exception:  # only an optimisation: the build will report any problem
            figures = None
        if not figures:
            return
        event = {
            "type": "figures",
            "instance": self.instance,
            "version": self.version,
            "changes": SiteChanges(figures=figures).to_dict(),
            "timing": {"changeSeenAt": self._timing.get("changeSeenAt"), "buildStartAt": _ms(started),
                       "buildEndAt": _ms(time.time()), "publishedAt": _ms(time.time())},
        }
        for queue in list(self._subscribers):
            queue.put_nowait(event)
        await self._drain()

    async def _drain(self, limit_s: float = 0.05) -> None:
        """Let the SSE streams send what is queued before a build thread
        starts competing with this loop for the GIL (bounded by ``limit_s``)."""
        # Each stream marks an item done once it has been handed to the transport.
        waiting = [queue.join() for queue in self._subscribers]
        if waiting:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waiting), limit_s)

    async def _build_and_publish(
        self,
        *,
        reload_config: bool,
        first: bool = False,
        superseded: Callable[[], bool] = lambda: False,
    ) -> bool:
        """Build, then tell every tab what changed; returns False when the
        build was superseded (a newer one follows and will publish)."""
        report, snapshot = await asyncio.to_thread(self._build_in_thread, reload_config)
        self._timing["buildEndAt"] = _ms(time.time())
        self.builds += 1
        if superseded() and report.crashed is None:
            # Tabs are told once, about the newest output, diffed against
            # what they were last told.
            return False
        changes = diff_snapshots(self._snapshot, snapshot) if not first else SiteChanges()
        same_problems = ([p.to_dict() for p in report.errors] == [p.to_dict() for p in self.report.errors]
                         and report.crashed == self.report.crashed)
        if not first and changes.empty and same_problems:
            self.report = report
            return True  # nothing any tab could show differently: stay quiet
        self._snapshot = snapshot
        self.report = report
        self.version += 1
        self._print_report(report, first=first, changes=changes)
        event = {
            "type": "build",
            "instance": self.instance,
            "version": self.version,
            "errors": [p.to_dict() for p in report.errors],
            "crashed": report.crashed,
            "changes": changes.to_dict(),
            "seconds": round(report.seconds, 4),
            "stages": {name: round(value, 4) for name, value in report.stages.items()},
            # Epoch milliseconds: first change seen by the watcher, build
            # start and end, event sent (for bench/serve.py's breakdown).
            "timing": {**self._timing, "publishedAt": _ms(time.time())},
        }
        self.last_event = event
        for queue in list(self._subscribers):
            queue.put_nowait(event)
        return True

    def _build_in_thread(self, reload_config: bool) -> tuple[BuildReport, Snapshot]:
        started = time.perf_counter()
        try:
            if reload_config:
                self.source.reload()
            report = self.source.build(self.out_dir)
        except SourceError as exc:
            report = BuildReport(crashed=str(exc), errors=list(exc.problems))
        except Exception as exc:  # a crash in the build must never end the server
            report = BuildReport(crashed=f"{type(exc).__name__}: {exc}")
            report.errors.append(
                Problem(file=display_path(getattr(exc, "path", "") or "(build)"),
                        line=int(getattr(exc, "line", 0) or 0), column=int(getattr(exc, "column", 0) or 0),
                        severity="error", code=getattr(exc, "code", None) or "build-failed",
                        message=str(exc) or type(exc).__name__, hint=getattr(exc, "hint", None))
            )
            report.error_pages = set()
        report.seconds = time.perf_counter() - started
        # Last good versions: a page whose document has errors keeps being
        # served as it was before the error (while one exists).
        snap_started = time.perf_counter()
        disk = take_snapshot(self.out_dir, self._disk_snapshot)
        self._disk_snapshot = disk
        self._timing["snapshotMs"] = round((time.perf_counter() - snap_started) * 1000, 1)
        if report.crashed is None:
            overrides = {rel: self._last_good[rel] for rel in sorted(report.error_pages)
                         if rel in self._last_good and rel in disk.pages}
            for rel, text in disk.pages.items():
                if rel not in report.error_pages:
                    self._last_good[rel] = text.encode("utf-8")
        else:
            overrides = dict(self.overrides)
        self.overrides = overrides
        return report, disk.with_overrides(overrides)

    def _print_report(self, report: BuildReport, *, first: bool, changes: SiteChanges) -> None:
        if self.options.quiet:
            return
        ms = report.seconds * 1000
        blocks = [p.format() for p in report.errors]
        if report.crashed and not report.errors:
            blocks.append(f"error: build failed: {report.crashed}")
        # Warnings: all of them at start, later only those that are new.
        warnings = [w.format() for w in report.warnings]
        for block in warnings:
            if block not in self._printed_warnings:
                self._log(block)
        self._printed_warnings = set(warnings)
        if blocks != self._printed_errors or first:
            for block in blocks:
                self._log(block)
        if report.errors:
            kept = ""
            if report.crashed or report.error_pages:
                kept = (" (no good version yet: the affected pages show the error)" if first
                        else " (serving the last good version)")
            self._log(f"build {self.version}: {len(report.errors)} error(s) in {ms:.0f} ms{kept}")
        elif self._printed_errors:
            self._log(f"build {self.version}: fixed, no errors ({ms:.0f} ms)")
        else:
            what = "initial build" if first else _describe_changes(changes)
            self._log(f"build {self.version}: {what} ({ms:.0f} ms)")
        self._printed_errors = blocks

    # -- watching ----------------------------------------------------------

    async def _watch_loop(self) -> None:
        assert self._stop is not None
        dirs = [d for d in self.source.watch_dirs() if d.is_dir()]
        files = list(self.source.watch_files())
        watchers = []
        if dirs:
            watchers.append(self._watch(dirs, recursive=True, keep=None))
        parents = sorted({f.parent for f in files if f.parent.is_dir()})
        if parents:
            watchers.append(self._watch(parents, recursive=False, keep={str(f) for f in files}))
        if watchers:
            await asyncio.gather(*watchers)

    async def _watch(self, roots: list[Path], *, recursive: bool, keep: set[str] | None) -> None:
        assert self._stop is not None
        ignore = [str(self.out_dir.parent)]
        watch_filter = SourceFilter(ignore_paths=ignore)
        async for batch in watchfiles.awatch(
            *roots,
            watch_filter=watch_filter,
            debounce=self.options.debounce_ms,
            step=self.options.step_ms,
            stop_event=self._stop,
            recursive=recursive,
        ):
            paths = {path for _change, path in batch}
            if keep is not None:
                paths &= keep
            if paths:
                self.notify_changes(paths)

    # -- subscribers -------------------------------------------------------

    def subscribe(self) -> asyncio.Queue[dict[str, Any] | None]:
        """Register an SSE client; the first item is the current state."""
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        queue.put_nowait(self.hello())
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any] | None]) -> None:
        """Forget an SSE client."""
        self._subscribers.discard(queue)

    @property
    def subscriber_count(self) -> int:
        """Number of connected SSE clients."""
        return len(self._subscribers)

    def hello(self) -> dict[str, Any]:
        """The state a newly connected tab starts from (errors for the overlay)."""
        return {
            "type": "hello",
            "instance": self.instance,
            "version": self.version,
            "errors": [p.to_dict() for p in self.report.errors],
            "crashed": self.report.crashed,
            "seconds": round(self.report.seconds, 4),
        }


def _ms(epoch_s: float | None) -> float | None:
    return None if epoch_s is None else round(epoch_s * 1000, 1)


def _quiet_remaining(paths: Iterable[str], quiet_s: float) -> float:
    """Seconds left until the most recently modified of ``paths`` has been unmodified for ``quiet_s``."""
    newest = 0
    for path in paths:
        try:
            newest = max(newest, os.stat(path).st_mtime_ns)
        except OSError:
            continue
    if not newest:
        return 0.0
    return quiet_s - (time.time_ns() - newest) / 1e9


def _modified_since(paths: Iterable[str], since_ns: int) -> bool:
    """True when any of ``paths`` has a modification time at or after ``since_ns`` (epoch ns)."""
    for path in paths:
        try:
            if os.stat(path).st_mtime_ns >= since_ns:
                return True
        except OSError:
            continue
    return False


def _describe_changes(changes: SiteChanges) -> str:
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


def read_source_line(path: str | os.PathLike[str], line: int) -> str:
    """Line ``line`` (1-based) of a UTF-8 text file, tabs shown as spaces (as the terminal
    formatter shows them), ``""`` when unreadable."""
    text = source_line(path, line) if line >= 1 and Path(path).is_file() else None
    return "" if text is None else text.replace("\t", " ")


# --------------------------------------------------------------------------- #
# HTTP: static files of the private output, client injection, SSE
# --------------------------------------------------------------------------- #


def inject_client(page: bytes) -> bytes:
    """Insert ``CLIENT_TAG`` before the last ``</body>`` (or append it)."""
    tag = CLIENT_TAG.encode()
    lower = page.lower()
    at = lower.rfind(b"</body>")
    if at < 0:
        return page + tag
    return page[:at] + tag + page[at:]


class SiteFiles(StaticFiles):
    """Starlette ``StaticFiles`` over the private output, for a dev server.

    Starlette already refuses ``..`` (normalised away), absolute paths and
    symlinks resolving outside the folder (``follow_symlink=False`` compares
    real paths). Added here: waiting for a running build, the live-reload
    client injected into HTML, the last good version of pages with errors,
    explicit content types, ``no-cache`` everywhere, and 404 pages that also
    carry the client (so a tab on a deleted page comes back when it returns).
    """

    def __init__(self, live: LiveSite) -> None:
        super().__init__(directory=live.out_dir, html=True, check_dir=False)
        self.live = live

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.live.wait_idle()
        await super().__call__(scope, receive, send)

    async def check_config(self) -> None:
        """No start-up check: the folder appears only once a build succeeds."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            response = await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code != 404:
                raise
            # A decomposed (NFD) spelling of a composed file name, as some
            # tools and macOS send it, names the same page.
            alt = unicodedata.normalize("NFC", path)
            if alt != path:
                with contextlib.suppress(HTTPException):
                    return await super().get_response(alt, scope)
            return self._not_found()
        if response.status_code == 404:
            return self._not_found()
        return response

    def _not_found(self) -> Response:
        if not self.live.out_dir.is_dir():
            # No build has succeeded yet (the build keeps nothing when it has
            # errors): say so; the injected client shows the errors.
            page = (b"<!doctype html><meta charset=utf-8><title>No site yet</title><body>"
                    b"<h1>The site has not been built yet</h1><p>The first build failed; the errors are "
                    b"listed here and in the terminal. Save a fix and this page reloads.</p></body>")
        else:
            page = b"<!doctype html><meta charset=utf-8><title>Not found</title><body><h1>404 Not found</h1></body>"
        custom = self.live.out_dir / "404.html"
        with contextlib.suppress(OSError):
            page = custom.read_bytes()
        return Response(inject_client(page), status_code=404, media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-store"})

    def file_response(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        suffix = os.path.splitext(os.fspath(full_path))[1].lower()
        if suffix in (".html", ".htm"):
            rel = Path(full_path).relative_to(Path(self.live.out_dir).resolve()).as_posix()
            body = self.live.overrides.get(rel)
            if body is None:
                try:
                    body = Path(full_path).read_bytes()
                except OSError:
                    return self._not_found()
            return Response(inject_client(body), status_code=status_code, media_type=CONTENT_TYPES[".html"],
                            headers={"Cache-Control": "no-store"})
        response = super().file_response(full_path, stat_result, scope, status_code)
        if suffix in CONTENT_TYPES:
            response.headers["content-type"] = CONTENT_TYPES[suffix]
        rel = Path(full_path).relative_to(Path(self.live.out_dir).resolve()).as_posix()
        # The build names shared assets by content hash (a new content gets a
        # new name), so the browser may keep them: a reload then costs no
        # round trip for the runtime bundle. Everything else is revalidated.
        immutable = HASHED_ASSET_RE.search(rel) is not None
        response.headers["cache-control"] = "max-age=31536000, immutable" if immutable else "no-cache"
        response.headers["x-content-type-options"] = "nosniff"
        return response


def _client_script() -> bytes:
    return resources.files("posecode_ssg.site").joinpath("livereload.js").read_bytes()


def create_app(live: LiveSite, *, allowed_hosts: list[str] | None = None, on_ready: Callable[[], None] | None = None
               ) -> Starlette:
    """Build the Starlette app serving ``live``.

    Routes: ``/__posecode/livereload.js`` (the client), ``/__posecode/events``
    (SSE: a ``hello`` event, then one ``build`` event per published build, a
    ``: ping`` comment every 15 s), ``/__posecode/state`` (JSON: version,
    build count, errors), everything else from the private output folder.
    ``allowed_hosts``: Host header values accepted (DNS-rebinding guard when
    bound to loopback); ``None`` accepts any.
    """
    client = _client_script()

    async def client_js(_request: Request) -> Response:
        return Response(client, media_type=CONTENT_TYPES[".js"], headers={"Cache-Control": "no-cache"})

    async def state(_request: Request) -> Response:
        return JSONResponse({**live.hello(), "builds": live.builds, "subscribers": live.subscriber_count},
                            headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        queue = live.subscribe()

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 500\n\n"
                while True:
                    try:
                        item = await asyncio.wait_for(queue.get(), 15.0)
                    except asyncio.TimeoutError:
                        yield ": ping\n\n"
                        continue
                    if item is None:
                        queue.task_done()
                        return
                    yield f"event: {item['type']}\ndata: {json.dumps(item, ensure_ascii=False)}\n\n"
                    queue.task_done()  # resumed: the event went out (LiveSite._drain waits for this)
            finally:
                live.unsubscribe(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await live.start()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            await live.stop()

    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    return Starlette(
        routes=[
            Route(f"{LIVE_PREFIX}/livereload.js", client_js),
            Route(f"{LIVE_PREFIX}/events", events),
            Route(f"{LIVE_PREFIX}/state", state),
            Mount("/", app=SiteFiles(live)),
        ],
        lifespan=lifespan,
        middleware=middleware,
    )


# --------------------------------------------------------------------------- #
# uvicorn glue
# --------------------------------------------------------------------------- #


class RawUTF8H11Protocol(H11Protocol):
    """uvicorn's h11 protocol, also accepting raw (unencoded) UTF-8 request paths.

    RFC 9112 allows only visible ASCII in a request-target, and h11 answers
    400 to anything else; browsers always percent-encode, but command-line
    tools and scripts do not (sv-unicode-space-paths asks both forms to
    work). Before h11 sees a new request line, bytes >= 0x80 in it are
    percent-encoded, which is exactly what a browser would have sent.
    """

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            end = data.find(b"\n")
            line, rest = (data, b"") if end < 0 else (data[: end + 1], data[end + 1 :])
            if any(byte >= 0x80 for byte in line):
                data = b"".join(b"%%%02X" % byte if byte >= 0x80 else bytes([byte]) for byte in line) + rest
        super().data_received(data)


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")


def open_socket(host: str, port: int) -> socket.socket:
    """Bind a listening TCP socket on ``host``:``port`` (0 picks a free port).

    Raises ``OSError`` with the OS reason (e.g. address in use).
    """
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class PreviewServer(uvicorn.Server):
    """uvicorn server that ends the SSE streams as soon as shutdown begins
    (Ctrl-C, SIGTERM or ``should_exit``), so shutdown never waits on them."""

    live: LiveSite

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.live.close_streams()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Ask the server to stop from any thread."""
        self.live.close_streams()
        self.should_exit = True


def make_server(live: LiveSite, sock: socket.socket, *, on_ready: Callable[[], None] | None = None) -> PreviewServer:
    """Return a uvicorn server for ``live`` on the already bound ``sock``.

    ``timeout_graceful_shutdown=1``: without it uvicorn waits for open SSE
    streams and Ctrl-C hangs (browser-stack.md §5).
    """
    host = sock.getsockname()[0]
    allowed = list(LOOPBACK_NAMES) if host in ("127.0.0.1", "::1") else None
    app = create_app(live, allowed_hosts=allowed, on_ready=on_ready)
    config = uvicorn.Config(
        app,
        http=RawUTF8H11Protocol,
        lifespan="on",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=1,
        ws="none",
    )
    server = PreviewServer(config)
    server.live = live
    return server


def server_url(sock: socket.socket, host: str) -> str:
    """The http URL a browser should open for a socket bound to ``host``."""
    port = sock.getsockname()[1]
    shown = host
    if host in ("0.0.0.0", "", "::"):
        shown = "127.0.0.1"
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


class ThreadedServer:
    """Run a ``LiveSite`` on a background thread (tests, benchmarks).

    ``with ThreadedServer(live) as url: ...`` starts the server on an
    ephemeral loopback port, waits for the first build, and stops it (and the
    watcher) on exit.
    """

    def __init__(self, live: LiveSite, host: str = "127.0.0.1", port: int = 0) -> None:
        self.live = live
        self.sock = open_socket(host, port)
        self.url = server_url(self.sock, host)
        self._ready = threading.Event()
        self.server = make_server(live, self.sock, on_ready=self._ready.set)
        self.server.config.install_signal_handlers = False  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._run, name="posecode-serve", daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.sock])
        except BaseException as exc:  # surfaced by __enter__
            self.error = exc
            self._ready.set()

    def __enter__(self) -> str:
        self._thread.start()
        if not self._ready.wait(60) or self.error is not None:
            raise RuntimeError(f"dev server did not start: {self.error!r}")
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self._thread.join(15)
        self.sock.close()


def run_server(
    live: LiveSite, *, host: str, port: int, open_browser: bool = False, log: Callable[[str], None] | None = None
) -> int:
    """Serve ``live`` until Ctrl-C / SIGTERM; returns the exit status (2 when the port cannot be bound)."""
    say = log or (lambda text: print(text, flush=True))
    try:
        sock = open_socket(host, port)
    except OSError as exc:
        say(f"posecode-ssg serve: cannot listen on {host}:{port}: {exc.strerror or exc}"
            f" (try another --port, or --port 0 for any free port)")
        return 2
    url = server_url(sock, host)

    def ready() -> None:
        say(f"Serving on {url}  (watching: {'on' if live.watch else 'off'}; press Ctrl-C to stop)")
        if host not in LOOPBACK_NAMES:
            say(f"warning: listening on {host}: the preview is reachable from other machines")
        if open_browser:
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    server = make_server(live, sock, on_ready=ready)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn re-raises the captured Ctrl-C after its clean shutdown.
        pass
    finally:
        sock.close()
    say("Stopped.")
    return 0


__all__ = [
    "BuildReport",
    "CLIENT_TAG",
    "LiveSite",
    "PreviewSource",
    "Problem",
    "ServeOptions",
    "SiteChanges",
    "Snapshot",
    "SourceFilter",
    "ThreadedServer",
    "create_app",
    "diff_snapshots",
    "inject_client",
    "read_source_line",
    "run_server",
    "split_figures",
    "take_snapshot",
]
