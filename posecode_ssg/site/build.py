"""The build: content folder -> static site, deterministic, atomic, incremental.

Stages (data flows one way)::

    scan content ─▶ read + hash sources ─▶ (nothing changed? done)
      ─▶ parse pages (front matter, tokens, links) ─▶ compile new blocks
         (content-hash cache in .posecode-cache/figures.sqlite, worker processes
         when many) ─▶ check links ─▶ render pages + indexes + taxonomy +
         search index + sitemap + 404 with the theme ─▶ write a staging
         folder beside the output (unchanged pages hard-linked from the
         previous build) ─▶ swap it in

* **Deterministic**: sources are visited in sorted order, ids are numbered
  in document order, JSON is written with fixed separators, nothing carries
  a time stamp; a rebuild of unchanged input is byte-identical.
* **Atomic**: the new site is written to ``.<out>.building-<pid>`` in the
  output's parent folder and renamed into place; any error leaves the
  previous site untouched (and nothing is written).
* **Incremental**: compiled figures are cached by content hash
  (:func:`posecode_ssg.site.figures.figure_key`); a manifest per output
  folder remembers each page's source hash and record, so a no-change
  rebuild only reads and hashes the sources, and a one-page change
  re-renders that page plus the index pages.
* Shared assets (stylesheet, script, runtime bundle, ``rig.json``, search
  index) are written once with a content hash in their names.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import contextlib
import difflib
import gc
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import sqlite3
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from posecode_ssg.config import PosecodeError, SiteConfig
from posecode_ssg.site import taxonomy
from posecode_ssg.site.content import (
    INDEX_NAMES,
    LinkIndex,
    Page,
    Problem,
    create_markdown,
    decode_source,
    is_internal,
    new_page,
    parse_markdown_page,
    scan_content,
    url_quote,
)
from posecode_ssg.site.figures import (
    CompiledFigure,
    compile_figure,
    compiler_fingerprint,
    figure_key,
)
from posecode_ssg.site.markdown import FenceInfo, attach_figure, posecode_env
from posecode_ssg.site.render import Theme, hashed_name

PACKAGE = Path(__file__).resolve().parent.parent
RUNTIME_DIST = PACKAGE / "runtime" / "dist"
RUNTIME_BUNDLE = RUNTIME_DIST / "posecode-runtime.js"
MANIFEST_VERSION = 3
POOL_THRESHOLD = 24  # uncached figures before worker processes pay off
#: Pages to parse (not counting section index pages) before the build forks page workers
#: (:class:`_PageWorkers`: each parses, finishes, renders and writes a share of the pages).
#: Below it a build stays in one process: forking costs ~10-40 ms. The environment variable
#: ``POSECODE_PAGE_WORKERS_MIN`` overrides it (``0`` or ``1``: always fork, e.g. to test the
#: parallel path on a small site; a huge number: never fork).
PAGE_POOL_THRESHOLD = 64
#: Pages parsed between two :meth:`_Build._freeze` calls.
FREEZE_PAGES = 100
PROGRESS_THRESHOLD = 200  # pages before a progress bar is shown
NO_SITEMAP_NOTE = ("no sitemap.xml: base_url has no scheme and host (set base_url = "
                   "\"https://host/path/\" in posecode.toml)")

try:  # the one diagnostic record type of the project
    from posecode_ssg.language.diagnostics import Diagnostic
except ImportError:  # pragma: no cover - language package absent
    @dataclass
    class Diagnostic:  # type: ignore[no-redef]
        """Stand-in with the contract's fields, used only without the language package."""

        code: str
        severity: str
        line: int
        column: int
        message: str
        hint: str | None = None
        extra: dict = field(default_factory=dict)


class BuildError(PosecodeError):
    """The build could not run at all (missing content folder, unusable output path)."""


@dataclass
class PageSummary:
    """What a caller learns about each built page: source, output file, URL, title, figure count."""

    src_path: Path
    src_uri: str
    dest_uri: str
    url: str
    title: str
    figures: int


@dataclass
class BuildResult:
    """The outcome of :func:`build_site`.

    ``pages``: :class:`PageSummary` per content page; ``figures``: figures on
    them; ``errors`` / ``warnings``: ``(source path, Diagnostic)`` pairs with
    document lines; ``seconds``: wall time; ``written``: whether the output
    folder was replaced (false on errors, strict warnings, or when nothing
    changed); ``unchanged``: the no-change fast path was taken; ``notes``:
    informational lines (missing runtime bundle, no sitemap...); ``page_workers``: processes
    forked to parse, render and write pages (0: all in this process).
    """

    pages: list[PageSummary] = field(default_factory=list)
    figures: int = 0
    errors: list[tuple[Path, Any]] = field(default_factory=list)
    warnings: list[tuple[Path, Any]] = field(default_factory=list)
    seconds: float = 0.0
    output_dir: Path | None = None
    written: bool = False
    unchanged: bool = False
    notes: list[str] = field(default_factory=list)
    compiled: int = 0
    strict: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    page_workers: int = 0

    @property
    def failed(self) -> bool:
        """True when the build failed: any error, or any warning under ``strict``."""
        return bool(self.errors) or (self.strict and bool(self.warnings))


# --------------------------------------------------------------------------- helpers

def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _json_bytes(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8")



_SITE_FINGERPRINT: str | None = None
#: The manifest each output folder's last build in this process wrote, with the file's
#: (inode, size, mtime): a rebuild in the same process (the dev server) skips parsing it.
_MANIFESTS: dict[str, tuple[tuple[int, int, int], dict]] = {}


def site_fingerprint() -> str:
    """Hash of the site generator's own code (``site/*.py``, ``config.py``): part of every page key."""
    global _SITE_FINGERPRINT
    if _SITE_FINGERPRINT is None:
        digest = hashlib.sha256()
        for path in sorted((PACKAGE / "site").glob("*.py")) + [PACKAGE / "config.py"]:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        _SITE_FINGERPRINT = digest.hexdigest()[:16]
    return _SITE_FINGERPRINT


def as_diagnostic(d: dict) -> Any:
    """A :class:`Diagnostic` from a page record's diagnostic dict (``code, severity, line, column,
    message, hint``)."""
    return Diagnostic(code=d.get("code") or "site", severity=d["severity"], line=int(d.get("line") or 1),
                      column=int(d.get("column") or 1), message=d["message"], hint=d.get("hint"))


def _compile_job(job: tuple[str, dict]) -> dict:
    source, options = job
    return compile_figure(source, options).to_dict()


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


def figure_options(info: FenceInfo, config: SiteConfig) -> dict:
    """Compile options of one fence: its info-string ``view``/``avatar``/``title`` attributes over
    the config's defaults (``default_view = "auto"`` leaves the view to the poster module).
    Returns ``{"view", "avatar", "title", "default_avatar"}`` for :func:`figures.compile_figure`."""
    default = None if config.default_view == "auto" else config.default_view
    return {"view": info.attrs.get("view", default), "avatar": info.attrs.get("avatar"),
            "title": info.attrs.get("title"), "default_avatar": config.default_avatar}


class _FigureCache:
    """Compiled figures on disk, content-addressed by :func:`figures.figure_key`: one SQLite
    database, ``<cache_dir>/figures.sqlite`` (table ``figures``: ``key`` text primary key, ``data``
    the figure's JSON), written in batched transactions (Python's ``sqlite3``). A file per figure
    cost ~0.44 ms of CPU each (directory entry, temporary file, rename: 1.3 ms a page of the
    1,000-page benchmark); a row in a batch ~0.01 ms. A cache that cannot be opened, read or
    written only costs time: its errors are misses, and a damaged database is started afresh.
    Transactions are not synced to the disk (``PRAGMA synchronous = OFF``; SQLite docs,
    "PRAGMA synchronous"): a commit survives the process ending, not necessarily a power cut.

    :meth:`put` keeps a figure pending until :meth:`flush` (every :data:`BATCH` puts, the end of
    a compilation and :meth:`close`); :meth:`get` sees pending figures. The connection is made on
    first use and may be used from the thread that builds (the dev server builds in a worker
    thread); forked compile workers never touch it."""

    #: Figures this process read or wrote most recently (the dev server rebuilds a page with
    #: the same figures again and again): key -> figure, oldest first.
    recent: dict[str, CompiledFigure] = {}
    RECENT = 256
    #: puts written in one transaction
    BATCH = 512

    def __init__(self, root: Path):
        self.file = root / "figures.sqlite"
        self._db: sqlite3.Connection | None = None
        self._pending: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            for attempt in (0, 1):
                db = sqlite3.connect(self.file, timeout=10, check_same_thread=False)
                try:
                    # no fsync per transaction: a cache lost to a power cut only costs time
                    # (a commit waited ~5-10 ms for the disk, on the build's critical path)
                    db.execute("PRAGMA synchronous = OFF")
                    db.execute("CREATE TABLE IF NOT EXISTS figures (key TEXT PRIMARY KEY, data BLOB NOT NULL)")
                    break
                except sqlite3.DatabaseError:
                    db.close()
                    if attempt:
                        raise
                    self.file.unlink(missing_ok=True)   # not a database (damaged): start afresh
            self._db = db
        return self._db

    def get(self, key: str) -> CompiledFigure | None:
        figure = self.recent.get(key)
        if figure is not None:
            return figure
        data = self._pending.get(key)
        if data is None:
            with self._lock:
                try:
                    row = self._connect().execute("SELECT data FROM figures WHERE key = ?", (key,)).fetchone()
                except (sqlite3.Error, OSError):
                    return None
            if row is None:
                return None
            data = row[0]
        try:
            figure = CompiledFigure.from_dict(json.loads(data))
        except (ValueError, TypeError, KeyError):
            return None
        self._remember(figure)
        return figure

    def _remember(self, figure: CompiledFigure) -> None:
        self.recent[figure.key] = figure
        if len(self.recent) > self.RECENT:
            del self.recent[next(iter(self.recent))]

    def put(self, figure: CompiledFigure) -> None:
        self._remember(figure)
        self._pending[figure.key] = _json_bytes(figure.to_dict())
        if len(self._pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the pending figures in one transaction."""
        if not self._pending:
            return
        rows, self._pending = list(self._pending.items()), {}
        with self._lock:
            try:
                with self._connect() as db:
                    db.executemany("INSERT OR REPLACE INTO figures (key, data) VALUES (?, ?)", rows)
            except (sqlite3.Error, OSError):
                pass

    def close(self) -> None:
        """Flush, and close the connection (a later use opens it again)."""
        self.flush()
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _progress(iterable, total: int, desc: str, enabled: bool):
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit="page" if desc != "compile" else "fig",
                leave=False, file=sys.stderr, dynamic_ncols=True)


def _leading_comment(text: str, title: str) -> str | None:
    """The summary a ``.posecode`` file gives itself: the first sentence of the comment lines
    before its header.

    Comments start with ``#`` or ``//`` (spec §1, Grammar). Consecutive comment lines are one
    paragraph (a sentence may wrap onto the next line); it ends at a blank comment line or the
    first non-comment line, and the summary is its first sentence (up to ``.``, ``!`` or ``?``
    followed by a space, or the paragraph's end). A leading ``"<title>:"`` (the movement's own
    name) is dropped and the rest capitalised: ``// Arm waves: a flowing warm-up.`` on a movement
    named "Arm waves" gives "A flowing warm-up.". None when the file starts with no comment.
    """
    words: list[str] = []
    for raw in text.lstrip("\ufeff").splitlines():
        line = raw.strip()
        mark = next((m for m in ("//", "#") if line.startswith(m)), None)
        if mark is None:
            if line or words:
                break
            continue
        part = line[len(mark):].strip()
        if not part:
            if words:
                break
            continue
        words.append(part)
    paragraph = " ".join(words)
    if paragraph.lower().startswith(title.lower() + ":"):
        paragraph = paragraph[len(title) + 1:].strip()
    end = re.search(r"[.!?](\s|$)", paragraph)
    sentence = paragraph[:end.end()].strip() if end else paragraph
    return (sentence[:1].upper() + sentence[1:]) or None


def _humanize(name: str) -> str:
    return name.replace("-", " ").replace("_", " ").strip().capitalize() or name


class _InStaging:
    """Marks an output a page worker has already written into the staging folder."""

    def __repr__(self) -> str:
        return "<written by a page worker>"


IN_STAGING = _InStaging()


def page_pool_threshold() -> int:
    """Pages to parse before the build forks page workers: ``POSECODE_PAGE_WORKERS_MIN`` when set
    to a whole number, else :data:`PAGE_POOL_THRESHOLD`."""
    value = os.environ.get("POSECODE_PAGE_WORKERS_MIN", "").strip()
    try:
        return int(value) if value else PAGE_POOL_THRESHOLD
    except ValueError:
        return PAGE_POOL_THRESHOLD


# --------------------------------------------------------------------------- the build

def build_site(config: SiteConfig, *, out_dir: Path | None = None, strict: bool | None = None,
               progress: bool = True, keep_going: bool = False, in_place: bool = False) -> BuildResult:
    """Build the site described by ``config``.

    :param out_dir: output folder (default ``config.output_dir``).
    :param strict: fail on warnings (default ``config.strict``).
    :param progress: show a tqdm progress bar on long builds (on stderr).
    :param keep_going: write the site even when there are errors (the dev
        server's mode): pages render with their error boxes, broken links
        stay as written, and no-change rebuilds are not short-cut until a
        build without errors.
    :param in_place: update the output folder file by file (each file
        written beside its target and renamed over it, unchanged files left
        alone, files no longer produced deleted) instead of building a new
        folder and swapping it in. Only for an output folder nobody reads
        while the build runs (the dev server's private folder: its requests
        wait for the build); taken only when the previous build's manifest
        matches the folder exactly, otherwise the build swaps as usual. The
        files written are the same either way.
    :returns: a :class:`BuildResult`; without ``keep_going`` the output
        folder is replaced only when the build has no errors (and, with
        ``strict``, no warnings).
    :raises BuildError: the output folder cannot be created or swapped.
    """
    return _Build(config, out_dir, strict, progress, keep_going, in_place).run()


class _Build:
    def __init__(self, config: SiteConfig, out_dir: Path | None, strict: bool | None, progress: bool,
                 keep_going: bool = False, in_place: bool = False):
        self.keep_going = keep_going
        self.in_place = in_place
        self.config = config
        self.out = Path(out_dir or config.output_dir).resolve()
        self.strict = config.strict if strict is None else bool(strict)
        self.progress = progress
        self.base = config.base_path
        self.result = BuildResult(output_dir=self.out, strict=self.strict)
        self.cache = _FigureCache(config.cache_dir)
        self.manifest_path = config.cache_dir / f"manifest-{_sha(str(self.out).encode())[:12]}.json"
        self.outputs: dict[str, bytes | Path | _InStaging] = {}
        self.assets: dict[str, str] = {}
        self.figures: dict[str, CompiledFigure] = {}
        self.posters: dict[str, str] = {}  # figure key -> poster SVG of cards (from page workers)
        self.terms: dict[tuple[str, str], dict] = {}  # (taxonomy, term) -> {slug, label, url}
        self.urls: dict[str, str] = {}  # site-relative path -> URL (see url())
        self.page_workers: _PageWorkers | None = None
        self.frozen = False  # gc.freeze() called (see _freeze)
        self.parsed = 0  # pages parsed by this process
        self.compilation: _Compilation | None = None  # figures being compiled
        self.staging: Path | None = None

    # ---------------------------------------------------------------- driver
    def run(self) -> BuildResult:
        start = self.started = time.perf_counter()
        try:
            self._run()
        finally:
            if self.page_workers is not None:
                self.page_workers.close()
            if self.compilation is not None:  # an aborted build: its compile workers stop
                self.compilation.close()
            self.cache.close()
            if self.frozen:
                gc.unfreeze()
            if self.staging is not None and not self.result.written:
                shutil.rmtree(self.staging, ignore_errors=True)  # an aborted build leaves nothing behind
            self.result.seconds = time.perf_counter() - start
        return self.result

    def _freeze(self) -> None:
        """Leave every object made so far out of garbage collections until the end of the build
        (:meth:`run` undoes it). Done after each stage, every :data:`FREEZE_PAGES` pages parsed,
        and before forking workers. Most of what a build makes lives to its end (pages and
        their token streams, figures, records), and the cyclic collector's full collections
        walk every live object each time their number has grown by a quarter (~10 % of a
        figs-cached build's CPU, measured); and in forked workers a collection writes to every
        object it visits, which would copy the memory the fork shares (CPython's gc.freeze
        advice for fork without exec). The garbage of a build is collected once it ends."""
        gc.freeze()
        self.frozen = True

    def _error(self, path: Path, code: str, message: str, hint: str | None = None, line: int = 1) -> None:
        self.result.errors.append((path, Diagnostic(code=code, severity="error", line=line, column=1,
                                                    message=message, hint=hint)))

    def _run(self) -> None:
        config, result = self.config, self.result
        content = config.content_dir
        if not content.is_dir():
            self._error(content, "content-missing", f"content folder not found: {content}",
                        "pass --content DIR or set content_dir in posecode.toml", line=0)
            return
        if self.out == content or content.is_relative_to(self.out) or self.out.is_relative_to(content):
            self._error(self.out, "output-dir", "the output folder must not be, contain or be inside the content folder",
                        line=0)
            return
        self.theme = Theme.load(config.theme, config.theme_dir)
        page_paths, static_paths = scan_content(content)
        self.sources = {p.relative_to(content).as_posix(): p.read_bytes() for p in page_paths}
        self.static = {p.relative_to(content).as_posix(): p for p in static_paths}
        self.hashes = {uri: _sha(data) for uri, data in self.sources.items()}
        runtime = RUNTIME_BUNDLE.read_bytes() if RUNTIME_BUNDLE.is_file() else None
        self.runtime = runtime
        fingerprint = _sha(json.dumps([
            MANIFEST_VERSION, config.site_name, config.base_url, config.default_avatar, config.default_view,
            config.autoplay, config.language, config.description, config.theme, str(config.theme_dir),
            json.dumps(config.extra, sort_keys=True, default=str), self.theme.fingerprint(),
            compiler_fingerprint(), site_fingerprint(), _sha(runtime) if runtime else None,
        ]).encode())
        static_state = [[uri, p.stat().st_size, p.stat().st_mtime_ns] for uri, p in self.static.items()]
        inputs = _sha(json.dumps([sorted(self.hashes.items()), static_state]).encode())
        manifest = self._load_manifest()
        intact = bool(manifest) and self._output_intact(manifest)
        if (intact and manifest.get("fingerprint") == fingerprint and manifest.get("inputs") == inputs
                and manifest.get("clean", True)):
            self._replay(manifest)
            return
        old_pages = manifest.get("pages", {}) if manifest and manifest.get("fingerprint") == fingerprint else {}
        old_outputs = manifest.get("outputs", {}) if manifest else {}
        self.old_outputs = old_outputs if intact else None  # in-place writing needs an exact picture
        index_hashes = sorted((u, h) for u, h in self.hashes.items() if u.rsplit("/", 1)[-1] in INDEX_NAMES)
        context = _sha(json.dumps([fingerprint, sorted(self.hashes), sorted(self.static), index_hashes]).encode())
        result.timings["scan"] = time.perf_counter() - self.started
        self._make_pages(context, old_pages, old_outputs)
        if (result.errors or (self.strict and result.warnings)) and not self.keep_going:
            return
        self._lap("prepare", self._prepare_context)
        if self.page_workers is not None:  # they render and write their pages from now on
            self._dispatch_pages(self.to_render)
        # Site-wide pages (home, sections, taxonomies, search index, sitemap, 404, shared
        # assets) depend on the page records' card and search data only: when none of that
        # changed (an edit to a page's prose), the previous build's files are reused.
        self.site_key = _sha(json.dumps([context, static_state] + [
            [p.src_uri, _site_view(self.records[p.src_uri])] for p in self.pages if p.src_uri in self.records
        ], sort_keys=True).encode())
        self.reuse_site = self._reusable_site(manifest, old_outputs)
        unchanged_index = [p for p in self.pages if p.src_uri in self.index_unchanged]
        if self.reuse_site:
            for page in unchanged_index:
                if page.url:  # (the home page is one of the site-wide files)
                    self.page_html[page.dest_uri] = self.out / page.dest_uri
        elif unchanged_index:
            self._process(unchanged_index, self.show)
            self.to_render = self.to_render + unchanged_index
        if not self.reuse_site:
            self._lap("cards", self._prepare_cards)
        self._lap("render pages", lambda: self._render_pages(self.to_render, self.show))
        self._lap("render site", self._render_site)
        if result.errors and not self.keep_going:
            return
        self._lap("write", self._write)
        if result.written:
            self._lap("manifest", lambda: self._save_manifest(fingerprint, inputs))

    def _lap(self, name: str, step) -> None:
        """Run one stage of the build, timed (``result.timings``); what it made and kept (pages,
        figures, records, rendered pages) is then frozen (:meth:`_freeze`)."""
        start = time.perf_counter()
        step()
        self._freeze()
        self.result.timings[name] = self.result.timings.get(name, 0.0) + time.perf_counter() - start

    # ---------------------------------------------------------------- manifest
    def _load_manifest(self) -> dict | None:
        try:
            st = os.stat(self.manifest_path)
            held = _MANIFESTS.get(str(self.manifest_path))
            if held is not None and held[0] == (st.st_ino, st.st_size, st.st_mtime_ns):
                return held[1]  # the one this process wrote last (not parsed again)
            data = json.loads(self.manifest_path.read_bytes())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("version") == MANIFEST_VERSION else None

    def _output_intact(self, manifest: dict) -> bool:
        outputs = manifest.get("outputs") or {}
        if not outputs or not self.out.is_dir():
            return False
        out = f"{self.out}/"
        for dest, (size, mtime) in outputs.items():
            try:
                st = os.stat(out + dest)
            except OSError:
                return False
            if st.st_size != size or st.st_mtime_ns != mtime:
                return False
        return True

    def _replay(self, manifest: dict) -> None:
        result = self.result
        result.unchanged = True
        for uri, entry in manifest["pages"].items():
            record = entry["record"]
            path = self.config.content_dir / uri
            result.pages.append(PageSummary(path, uri, record["dest_uri"], record["url"], record["title"],
                                            len(record["figures"])))
            result.figures += len(record["figures"])
            for d in record["diagnostics"]:
                (result.warnings if d["severity"] == "warning" else result.errors).append((path, as_diagnostic(d)))
        result.notes.extend(manifest.get("notes", []))

    def _save_manifest(self, fingerprint: str, inputs: str) -> None:
        outputs = {}
        out = f"{self.out}/"  # (a string path: a Path made per file cost as much as the stat)
        for dest in self.outputs:
            st = os.stat(out + dest)
            outputs[dest] = [st.st_size, st.st_mtime_ns]
        pages = {uri: {"key": self.page_keys[uri], "record": rec} for uri, rec in self.records.items()}
        site_outputs = sorted(set(self.outputs) - set(self.page_html) - set(self.static))
        data = {"version": MANIFEST_VERSION, "fingerprint": fingerprint, "inputs": inputs, "pages": pages,
                "outputs": outputs, "notes": self.result.notes, "clean": not self.result.errors,
                "site_key": self.site_key, "site_outputs": site_outputs}
        try:
            self.config.cache_dir.mkdir(parents=True, exist_ok=True)
            tmp = self.manifest_path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(_json_bytes(data))
            os.replace(tmp, self.manifest_path)
            st = os.stat(self.manifest_path)
            _MANIFESTS[str(self.manifest_path)] = ((st.st_ino, st.st_size, st.st_mtime_ns), data)
        except OSError:
            pass

    # ---------------------------------------------------------------- pages
    def _make_pages(self, context: str, old_pages: dict, old_outputs: dict) -> None:
        config, result = self.config, self.result
        self.md = create_markdown(default_view=None if config.default_view == "auto" else config.default_view,
                                  autoplay=config.autoplay)
        self.pages: list[Page] = []
        self.records: dict[str, dict] = {}
        self.page_keys: dict[str, str] = {}
        self.page_html: dict[str, bytes | Path] = {}
        self.index_unchanged: set[str] = set()
        by_url: dict[str, Page] = {}
        reserved = {"tags/", "muscles/", "equipment/", "assets/"}
        for uri, data in self.sources.items():
            page = new_page(config.content_dir, uri)
            url = page.url
            if url in by_url:
                self._error(page.src_path, "duplicate-url",
                            f"'{uri}' and '{by_url[url].src_uri}' both become the page /{url}",
                            "rename one of them")
                continue
            top = url.split("/", 1)[0] + "/" if url else ""
            if top in reserved:
                self._error(page.src_path, "reserved-url", f"'{uri}' would become /{url}, a URL the build "
                            f"writes itself ({', '.join(sorted(reserved))} are reserved)", "move or rename it")
                continue
            by_url[url] = page
            self.pages.append(page)
        self.link_index = LinkIndex({p.src_uri: p for p in self.pages}, by_url, set(self.static))

        # reuse or parse
        to_parse: list[Page] = []
        for page in self.pages:
            key = _sha(f"{self.hashes[page.src_uri]}:{context}".encode())
            self.page_keys[page.src_uri] = key
            old = old_pages.get(page.src_uri)
            stat = old_outputs.get(page.dest_uri)
            same = bool(old and old.get("key") == key and stat and self._same_stat(page.dest_uri, stat))
            if same:
                rec = old["record"]
                self.records[page.src_uri] = rec
                page.title, page.meta = rec["title"], rec["meta"]
                page.links = [_LinkRec(*l) for l in rec["links"]]
                if page.is_index:
                    # index pages list the cards of their section: parsed and re-rendered
                    # unless the site-wide data is unchanged too (decided in _run once all
                    # records are known)
                    self.index_unchanged.add(page.src_uri)
                else:
                    self.page_html[page.dest_uri] = self.out / page.dest_uri
            else:
                to_parse.append(page)
        show = self.progress and len(self.pages) >= PROGRESS_THRESHOLD
        self._process(to_parse, show)
        # drafts (front matter draft: true) leave the site: no output, no card, not linkable
        drafts = {p.src_uri for p in self.pages if self.records.get(p.src_uri, {}).get("meta", {}).get("draft")}
        self.drafts = drafts
        if drafts:
            to_parse = [p for p in to_parse if p.src_uri not in drafts]
            self._drop_drafts(drafts)
        # diagnostics of every page + link check
        for page in self.pages:
            rec = self.records.get(page.src_uri)
            if rec is None:
                continue
            for d in rec["diagnostics"]:
                bucket = result.warnings if d["severity"] == "warning" else result.errors
                bucket.append((page.src_path, as_diagnostic(d)))
            for d in link_diagnostics(page, self.link_index, self._anchors):
                (result.warnings if d.severity == "warning" else result.errors).append((page.src_path, d))
            result.pages.append(PageSummary(page.src_path, page.src_uri, page.dest_uri, page.url, rec["title"],
                                            len(rec["figures"])))
            result.figures += len(rec["figures"])
        self.to_render = to_parse
        self.show = show

    def _anchors(self, src_uri: str) -> list[str] | None:
        rec = self.records.get(src_uri)
        return rec.get("anchors", []) if rec is not None else None

    def _drop_drafts(self, drafts: set[str]) -> None:
        """Leave the draft pages ``drafts`` (src_uris) out: pages, records, link targets."""
        self.pages = [p for p in self.pages if p.src_uri not in drafts]
        for uri in drafts:
            self.records.pop(uri, None)
        self.link_index = LinkIndex({p.src_uri: p for p in self.pages}, {p.url: p for p in self.pages},
                                    set(self.static))

    def _reusable_site(self, manifest: dict | None, old_outputs: dict) -> bool:
        """True when the previous build's site-wide files can be kept: same site key, every
        one of them still on disk as that build left it."""
        if not manifest or manifest.get("site_key") != self.site_key:
            return False
        site_outputs = manifest.get("site_outputs")
        if not isinstance(site_outputs, list):
            return False
        for dest in site_outputs:
            stat = old_outputs.get(dest)
            if not stat or not self._same_stat(dest, stat):
                return False
        self.site_outputs = site_outputs
        return True

    def _process(self, pages: list[Page], show: bool) -> None:
        """Parse ``pages``, compile their figures and store their records (in forked page
        workers when there are many, see :class:`_PageWorkers`; section index pages, which
        list the cards of every page, always here)."""
        shared = [page for page in pages if not page.is_index]
        count = self._page_worker_count(len(shared))
        if count:
            self._process_parallel(pages, shared, count, show)
            return
        self._lap("parse", lambda: [self._parse_page(page) for page in _progress(pages, len(pages), "parse", show)])
        self._lap("compile", lambda: self._compile(self._figure_jobs(pages), show))
        self._lap("finish", lambda: [self._finish_page(page) for page in pages])

    def _parse_page(self, page: Page) -> None:
        self.parsed += 1
        if self.parsed % FREEZE_PAGES == 0:
            self._freeze()  # the pages parsed so far live to the end of the build
        text, err = decode_source(self.sources[page.src_uri])
        if err:
            page.problems.append(Problem("error", "encoding", 1, 1, err))
            return
        page.text = text
        if page.source_kind == "markdown":
            parse_markdown_page(page, self.md)
        else:
            self._parse_posecode_page(page)

    def _page_worker_count(self, pages: int) -> int:
        """How many page workers to fork for ``pages`` pages (one per core but this one, which
        takes a share too): 0 (stay in this process) below :func:`page_pool_threshold`, on
        one core, for an in-place build, without ``fork``, or when this process runs other
        threads (the dev server builds in a worker thread; forking a threaded process can
        deadlock)."""
        cores = os.cpu_count() or 1
        if (self.in_place or self.page_workers is not None or cores < 2 or pages < max(2, page_pool_threshold())
                or threading.active_count() != 1 or "fork" not in multiprocessing.get_all_start_methods()):
            return 0
        return min(cores, 8) - 1

    def _process_parallel(self, pages: list[Page], shared: list[Page], count: int, show: bool) -> None:
        """:meth:`_process` with ``shared`` parsed and finished by ``count`` forked workers
        (which keep their token streams for rendering) and the rest here meanwhile."""
        mine, shares = _split_pages(shared, [MAIN_SHARE] + [1.0] * count, [len(self.sources[p.src_uri]) for p in shared])
        mine_uris = {page.src_uri for page in mine}
        local = [page for page in pages if page.is_index or page.src_uri in mine_uris]
        for name in self.theme.env.list_templates(extensions=["html", "xml"]):
            self.theme.env.get_template(name)  # compiled once, before the fork, for every worker
        self._freeze()
        pool = self.page_workers = _PageWorkers(self, shares)
        self.result.page_workers = count
        state: dict[str, Any] = {}

        def parse() -> None:  # this process's pages (and their cached figures) too, meanwhile
            pool.send_all(lambda k: ("parse",))
            pool.progress("parse", len(pages), show)
            state["mine"] = self._parse_share(local, pool.pump)
            # this process's figures go to the compile workers at once (they start while the
            # page workers still parse: this process has the smaller share, MAIN_SHARE)
            self.compilation = _Compilation(self.cache, show, self._freeze)
            self.compilation.add(state["mine"]["missing"])
            state["parsed"] = pool.gather()

        def compile_() -> None:  # what no cache held, for every process
            jobs: dict[str, tuple[str, dict]] = {}
            for reply in state["parsed"]:
                jobs.update(reply["missing"])
            self.compilation.add(jobs)
            self._store_compiled()
            if any(reply["motion_missing"] for reply in state["parsed"] + [state["mine"]]):
                self._note_motion_missing()

        def finish() -> None:
            pool.send_all(lambda k: ("finish", {key: self.figures[key] for key in state["parsed"][k]["missing"]}))
            pool.progress("finish", 0, False)
            for page in local:
                self._finish_page(page)
            done: dict[str, dict] = {}
            for reply in pool.gather():
                for uri, record, poster_key, poster in reply:
                    done[uri] = record
                    if poster_key is not None:
                        self.posters[poster_key] = poster
            for page in pages:  # records in page order, as the serial build stores them
                record = done[page.src_uri] if page.src_uri in done else self.records.pop(page.src_uri)
                self.records[page.src_uri] = record
                if page.src_uri in done:
                    page.title, page.meta = record["title"], record["meta"]
                    page.links = [_LinkRec(*link) for link in record["links"]]

        self._lap("parse", parse)
        self._lap("compile", compile_)
        self._lap("finish", finish)

    # ------------------------------------------------------------ a share of the pages
    def _parse_share(self, share: list[Page], tick) -> dict:
        """Parse a process's share of the pages (``tick()`` after each); load their figures
        from the cache. Returns ``{"missing": {key: compile job}, "motion_missing": bool}``."""
        for page in share:
            self._parse_page(page)
            tick()
        missing: dict[str, tuple[str, dict]] = {}
        motion_missing = False
        for key, job in self._figure_jobs(share).items():
            cached = self.cache.get(key)
            if cached is None:
                missing[key] = job
            else:
                self.figures[key] = cached
                motion_missing = motion_missing or cached.motion_missing
        return {"missing": missing, "motion_missing": motion_missing}

    def _finish_share(self, share: list[Page], compiled: dict[str, CompiledFigure]) -> list[tuple]:
        """Finish this worker's pages with the figures the main process compiled for them.
        Returns ``(src_uri, record, card poster key, card poster SVG)`` per page."""
        self.figures.update(compiled)
        out = []
        for page in share:
            self._finish_page(page)
            record = self.records[page.src_uri]
            first = _card_figure(record)
            key = first["key"] if first else None
            out.append((page.src_uri, record, key, self.figures[key].poster if key else None))
        return out

    def _render_share(self, share: list[Page], context: dict, tick) -> int:
        """Render this worker's pages named in ``context["uris"]`` with the site-wide context
        and write them into the staging folder. Returns the number of pages written."""
        for name in ("site_ctx", "nav", "assets", "runtime_url", "rig_url", "section_titles"):
            setattr(self, name, context[name])
        if context["drafts"]:
            self._drop_drafts(context["drafts"])
        staging = context["staging"]
        made: set[str] = set()
        written = 0
        for page in share:
            if page.src_uri in context["uris"]:
                try:
                    _place(self._render_page(page).encode("utf-8"), f"{staging}/{page.dest_uri}", made)
                except OSError as exc:
                    raise BuildError(f"cannot write the site to {self.out}: {exc}") from None
                written += 1
                tick()
        for dest, key in context["posters"].items():
            try:
                _place(self.figures[key].poster.encode("utf-8"), f"{staging}/{dest}", made)
            except OSError as exc:
                raise BuildError(f"cannot write the site to {self.out}: {exc}") from None
        return written

    def _same_stat(self, dest: str, stat: list) -> bool:
        try:
            st = os.stat(self.out / dest)
        except OSError:
            return False
        return [st.st_size, st.st_mtime_ns] == list(stat)

    def _parse_posecode_page(self, page: Page) -> None:
        from markdown_it.token import Token

        page.env = {}
        pc = posecode_env(page.env)
        pc.src_lines = page.text.split("\n")
        token = Token("posecode", "code", 0)
        token.content = page.text
        token.map = [-1, len(pc.src_lines)]
        token.meta = {"info": FenceInfo("posecode"), "id": "posecode-figure-1"}
        pc.ids.add("posecode-figure-1")
        pc.figures.append(token)
        page.tokens = [token]

    def _figure_jobs(self, pages: list[Page]) -> dict[str, tuple[str, dict]]:
        """Key every figure token of ``pages`` (``token.meta["key"]``); returns
        ``{key: (source, options)}`` in document order, one entry per distinct figure."""
        jobs: dict[str, tuple[str, dict]] = {}
        for page in pages:
            for token in posecode_env(page.env).figures if page.env else []:
                options = figure_options(token.meta["info"], self.config)
                key = figure_key(token.content, options)
                token.meta["key"] = key
                jobs.setdefault(key, (token.content, options))
        return jobs

    def _note_motion_missing(self) -> None:
        note = "motion compiler not installed: figures show their step listing only"
        if note not in self.result.notes:
            self.result.notes.append(note)

    def _compile(self, jobs: dict[str, tuple[str, dict]], show: bool) -> None:
        """Load the figures ``jobs`` names from the cache, compile the rest (:class:`_Compilation`)
        and cache them; all land in ``self.figures``."""
        missing: dict[str, tuple[str, dict]] = {}
        for key, job in jobs.items():
            cached = self.cache.get(key)
            if cached is not None:
                self.figures[key] = cached
            else:
                missing[key] = job
        self.compilation = _Compilation(self.cache, show, self._freeze)
        self.compilation.add(missing)
        self._store_compiled()

    def _store_compiled(self) -> None:
        """Wait for :attr:`compilation` and put its figures into ``self.figures``."""
        figures = self.compilation.finish()
        self.compilation = None
        self.result.compiled += len(figures)
        self.figures.update(figures)
        if any(f.motion_missing for f in figures.values()):
            self._note_motion_missing()

    def _finish_page(self, page: Page) -> None:
        """Attach figures, derive metadata, collect diagnostics, store the page record."""
        problems = [p.to_dict() for p in page.problems]
        figures_meta = []
        pc = posecode_env(page.env) if page.env else None
        if pc is not None:
            for token in pc.figures:
                figure = self.figures[token.meta["key"]]
                attach_figure(token, figure, page.env)
                figures_meta.append({"key": figure.key, "name": figure.name, "props": figure.props,
                                     "poster": bool(figure.poster), "line": (token.map[0] + 1) if token.map else 1,
                                     "steps": [[p["name"], p.get("cue") or ""] for p in figure.phases],
                                     "title": token.meta["info"].attrs.get("title")})
            problems.extend(pc.diagnostics)
        if page.source_kind == "posecode":
            first = figures_meta[0] if figures_meta else None
            page.title = (first and first["name"]) or _humanize(page.src_path.stem)
            kind = self.figures[pc.figures[0].meta["key"]].kind if pc and pc.figures else None
            category = taxonomy.KIND_CATEGORY.get(kind or "")
            page.meta = {"title": page.title, "equipment": list(dict.fromkeys(first["props"])) if first and first["props"] else ["none"]}
            described = _leading_comment(page.text, page.title)
            if described:
                page.meta["summary"] = described
            elif pc and pc.figures:
                fig = self.figures[pc.figures[0].meta["key"]]
                if fig.phases:
                    steps = len(fig.phases)
                    seconds = sum(p["duration"] for p in fig.phases)
                    page.meta["summary"] = (f"{(fig.kind or 'movement').capitalize()} in {steps} "
                                            f"step{'s' if steps != 1 else ''}, {seconds:g} s a repetition.")
            if category:
                page.meta["category"] = category
        elif "equipment" in page.meta:
            for fig in figures_meta:
                missing = [p for p in fig["props"] if p not in page.meta["equipment"]]
                if missing:
                    problems.append({"code": "front-matter-equipment", "severity": "warning", "line": fig["line"],
                                     "column": 1, "hint": "add it to the page's 'equipment' list",
                                     "message": f"figure '{fig['name']}' uses prop {', '.join(missing)} "
                                                f"but the front matter 'equipment' does not list it"})
        problems = [d for d in problems if d["severity"] in ("error", "warning")]
        problems.sort(key=lambda d: (d["line"], d["column"]))
        summary = page.meta.get("summary", "")
        search = " ".join([page.title, summary, " ".join(page.meta.get("tags", []))]
                          + [" ".join(filter(None, [f["name"], f["title"]] + [s for st in f["steps"] for s in st]))
                             for f in figures_meta]
                          + [taxonomy.MUSCLES.get(m, m) for m in page.meta.get("primary_muscles", [])
                             + page.meta.get("secondary_muscles", [])])
        self.records[page.src_uri] = {
            "title": page.title, "url": page.url, "dest_uri": page.dest_uri, "meta": page.meta,
            "is_index": page.is_index, "source_kind": page.source_kind, "diagnostics": problems,
            "links": [[l.target, l.line, l.column] for l in page.links], "figures": figures_meta,
            "search": " ".join(search.split()),
            "anchors": sorted(pc.ids) if pc is not None else [],
        }

    # ---------------------------------------------------------------- rendering
    def url(self, path: str) -> str:
        """Site URL of a site-relative path (``base_path`` prefixed, percent-encoded)."""
        found = self.urls.get(path)
        if found is None:
            found = self.urls[path] = self.base + url_quote(path)
        return found

    def _rewrite_links(self, page: Page) -> None:
        for block in page.tokens:
            for child in block.children or []:
                attr = "href" if child.type == "link_open" else "src" if child.type == "image" else None
                if attr is None:
                    continue
                target = str(child.attrGet(attr) or "")
                if not is_internal(target):
                    continue
                url, _msg, _hit = self.link_index.resolve(page, target)
                if url is not None:
                    path, hash_, frag = url.partition("#")
                    child.attrSet(attr, self.url(path) + (hash_ + frag if hash_ else ""))

    def _page_context(self, page: Page | None, **extra) -> dict:
        return {"site": self.site_ctx, "nav": self.nav, "asset": self.asset_url, "url": self.url,
                "runtime_url": self.runtime_url, "rig_url": self.rig_url, "page": extra.pop("page_ctx", None),
                "current_url": extra.pop("current_url", page.url if page else ""), **extra}

    def _term(self, tax: str, term: str) -> dict:
        """``{slug, label, url}`` of a taxonomy term (made once per build: pages share terms)."""
        found = self.terms.get((tax, term))
        if found is None:
            slug = taxonomy.slugify(term) if tax == "tags" else term
            found = self.terms[(tax, term)] = {"slug": slug, "label": taxonomy.label(tax, term),
                                               "url": self.url(f"{tax}/{slug}/")}
        return found

    def _meta_ctx(self, meta: dict) -> dict:
        def terms(tax: str, key: str) -> list[dict]:
            return [self._term(tax, t) for t in meta.get(key, [])]

        return {
            "level": meta.get("level"), "level_label": taxonomy.LEVELS.get(meta.get("level", ""), ""),
            "category": meta.get("category"), "category_label": taxonomy.CATEGORIES.get(meta.get("category", ""), ""),
            "equipment": terms("equipment", "equipment"), "primary_muscles": terms("muscles", "primary_muscles"),
            "secondary_muscles": terms("muscles", "secondary_muscles"), "tags": terms("tags", "tags"),
            "summary": meta.get("summary", ""),
        }

    def _body_tokens(self, page: Page) -> list:
        """The page's tokens without its leading level-1 heading (the template shows the title)."""
        tokens = page.tokens
        i = 0
        while i < len(tokens) and tokens[i].type == "front_matter":
            i += 1
        if i + 2 < len(tokens) and tokens[i].type == "heading_open" and tokens[i].tag == "h1":
            return tokens[:i] + tokens[i + 3:]
        return tokens

    def _render_page(self, page: Page) -> str:
        self._rewrite_links(page)
        body = self.md.renderer.render(self._body_tokens(page), self.md.options, page.env)
        rec = self.records[page.src_uri]
        ctx = {"title": page.title, "url": self.url(page.url), "content": Markup(body),
               "source": page.text if page.source_kind == "posecode" else None, "source_kind": page.source_kind,
               "figures": len(rec["figures"]), "breadcrumbs": self._breadcrumbs(page.url),
               **self._meta_ctx(page.meta)}
        if page.is_index:
            return self._render_section(page.url, page=page, body=Markup(body))
        return self.theme.render("page.html", self._page_context(page, page_ctx=ctx))

    def _breadcrumbs(self, url: str) -> list[dict]:
        crumbs = [{"title": "Home", "url": self.url("")}]
        parts = [p for p in url.split("/") if p]
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            crumbs.append({"title": self.section_titles.get(folder, _humanize(parts[i - 1])),
                           "url": self.url(folder + "/")})
        return crumbs

    # ---------------------------------------------------------------- site-wide
    def _prepare_context(self) -> None:
        """The site-wide render context: shared assets, runtime and rig URLs, sections, navigation."""
        config = self.config
        self.site_ctx = {"name": config.site_name, "base_url": config.base_url, "base_path": self.base,
                         "description": config.description, "language": config.language, "extra": config.extra}
        # assets: theme static files, runtime, rig
        for name, path in self.theme.static_files().items():
            data = path.read_bytes()
            out_name = hashed_name(name, data) if name.endswith((".css", ".js")) else name
            self.assets[name] = f"assets/{out_name}"
            self.outputs[f"assets/{out_name}"] = data
        self.runtime_url = self.rig_url = None
        rig = None
        try:
            from posecode_ssg.motion.rigjson import rig_json

            rig = _json_bytes(rig_json())
        except ImportError:
            pass
        if self.runtime is not None and rig is not None:
            name = hashed_name("posecode-runtime.js", self.runtime)
            self.outputs[f"assets/{name}"] = self.runtime
            self.runtime_url = self.url(f"assets/{name}")
            licence = RUNTIME_DIST / "THREE-LICENSE.txt"
            if licence.is_file():
                self.outputs["assets/THREE-LICENSE.txt"] = licence.read_bytes()
            rig_name = hashed_name("rig.json", rig)
            self.outputs[f"assets/{rig_name}"] = rig
            self.rig_url = self.url(f"assets/{rig_name}")
        else:
            self.result.notes.append(
                "runtime bundle not found (posecode_ssg/runtime/dist/posecode-runtime.js): pages show the "
                "static posters only; build it with `npm ci && npm run build` in posecode_ssg/runtime "
                "or reinstall the package" if self.runtime is None else
                "rig data unavailable (posecode_ssg.motion.rig): pages show the static posters only")
        # sections
        folders: set[str] = set()
        for page in self.pages:
            parts = page.src_uri.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                folders.add("/".join(parts[:i]))
        self.folders = sorted(folders)
        self.index_records: dict[str, dict] = {}
        for page in self.pages:
            rec = self.records[page.src_uri]
            if page.is_index:
                self.index_records[page.url.rstrip("/")] = rec
        self.section_titles = {f: (self.index_records[f]["title"] if f in self.index_records
                                   else _humanize(f.rsplit("/", 1)[-1])) for f in self.folders}
        top = [f for f in self.folders if "/" not in f]
        top.sort(key=lambda f: (self.index_records.get(f, {}).get("meta", {}).get("weight", 0),
                                self.section_titles[f].lower(), f))
        self.nav = [{"title": self.section_titles[f], "url": self.url(f + "/"), "path": f + "/"} for f in top]

    def _prepare_cards(self) -> None:
        """Cards (rendered once) and the search index, which feed the site-wide pages."""
        self.cards: list[dict] = []
        for page in self.pages:
            rec = self.records[page.src_uri]
            if page.is_index or not rec["figures"]:
                continue
            self.cards.append(self._card(page, rec))
        self.cards.sort(key=lambda c: (c["weight"], c["title"].lower(), c["url"]))
        card_template = self.theme.env.get_template("partials/card.html")
        for card in self.cards:  # rendered once, reused by home, sections and taxonomy pages
            card["html"] = Markup(card_template.render(self._page_context(None, card=card)))
        # search index
        entries = [{"t": c["title"], "u": c["url"], "s": c["summary"], "x": self.records[c["src_uri"]]["search"]}
                   for c in self.cards]
        for page in self.pages:
            rec = self.records[page.src_uri]
            if not rec["figures"] and page.url:
                entries.append({"t": rec["title"], "u": self.url(page.url), "s": rec["meta"].get("summary", ""),
                                "x": rec["search"]})
        entries.sort(key=lambda e: e["u"])
        data = _json_bytes({"pages": entries})
        name = hashed_name("search-index.json", data)
        self.outputs[f"assets/{name}"] = data
        self.search_url = self.url(f"assets/{name}")

    def asset_url(self, name: str) -> str:
        """URL of a theme static file (content-hashed name for .css/.js). Unknown names raise KeyError."""
        return self.url(self.assets[name])

    def _poster_url(self, key: str) -> str | None:
        dest = _poster_dest(key)
        if dest not in self.outputs:
            figure = self.figures.get(key)
            if figure is not None and figure.poster:
                self.outputs[dest] = figure.poster.encode("utf-8")
            elif self.posters.get(key):
                self.outputs[dest] = self.posters[key].encode("utf-8")
            elif (self.out / dest).is_file():
                self.outputs[dest] = self.out / dest
            else:
                cached = self.cache.get(key)
                if cached is None or not cached.poster:
                    return None
                self.outputs[dest] = cached.poster.encode("utf-8")
        return self.url(dest)

    def _card(self, page: Page, rec: dict) -> dict:
        meta = rec["meta"]
        first = _card_figure(rec)
        muscles = meta.get("primary_muscles", []) + [m for m in meta.get("secondary_muscles", [])
                                                      if m not in meta.get("primary_muscles", [])]
        return {
            "src_uri": page.src_uri, "title": rec["title"], "url": self.url(page.url), "summary": meta.get("summary", ""),
            "level": meta.get("level"), "level_label": taxonomy.LEVELS.get(meta.get("level", ""), ""),
            "category": meta.get("category"), "category_label": taxonomy.CATEGORIES.get(meta.get("category", ""), ""),
            "equipment": meta.get("equipment", []),
            "equipment_labels": [taxonomy.label("equipment", e) for e in meta.get("equipment", [])],
            "muscles": muscles, "primary_muscles": meta.get("primary_muscles", []),
            "poster": self._poster_url(first["key"]) if first else None,
            "poster_alt": f"Poster of {first['title'] or first['name']}" if first else "",
            "figures": len(rec["figures"]), "weight": meta.get("weight", 0),
            "section": self.section_titles.get(page.src_uri.split("/")[0], "") if "/" in page.src_uri else "",
        }

    def _dispatch_pages(self, pages: list[Page]) -> None:
        """Have the page workers render and write their share of ``pages`` into the staging
        folder (with the site-wide context, :meth:`_prepare_context`) while this process
        goes on; their outputs are marked :data:`IN_STAGING`."""
        pool = self.page_workers
        shared = {page.src_uri for page in pages if page.src_uri in pool.assigned}
        context = {"uris": shared, "staging": str(self._staging()), "site_ctx": self.site_ctx, "nav": self.nav,
                   "assets": self.assets, "runtime_url": self.runtime_url, "rig_url": self.rig_url,
                   "section_titles": self.section_titles, "drafts": self.drafts}
        # each worker also writes the card posters of the pages it renders (this process would
        # write them after its own pages, while the workers, done, wait: ~0.3 ms a file)
        posters: list[dict[str, str]] = [{} for _ in pool.shares]
        for k, share in enumerate(pool.shares):
            for page in share:
                rec = self.records.get(page.src_uri)
                if page.src_uri not in shared or rec is None:
                    continue
                first = _card_figure(rec)
                dest = _poster_dest(first["key"]) if first else None
                if dest is not None and dest not in self.outputs:
                    posters[k][dest] = first["key"]
                    self.outputs[dest] = IN_STAGING
        pool.send_all(lambda k: ("render", {**context, "posters": posters[k]}))
        pool.progress("render", len(pages), self.show)
        for page in pages:
            if page.src_uri in shared:
                self.page_html[page.dest_uri] = IN_STAGING

    def _render_pages(self, pages: list[Page], show: bool) -> None:
        pool = self.page_workers
        if pool is not None:
            pages = [page for page in pages if self.page_html.get(page.dest_uri) is not IN_STAGING]
        for page in _progress(pages, len(pages), "render", show and pool is None):
            if pool is not None:
                pool.pump(1)
            if page.is_index and page.url == "":
                continue  # the home page is rendered by _render_site
            self.page_html[page.dest_uri] = self._render_page(page).encode("utf-8")

    def _render_section(self, url: str, *, page: Page | None = None, body: Markup | None = None) -> str:
        folder = url.rstrip("/")
        prefix = folder + "/"
        cards = [c for c in self.cards if c["src_uri"].startswith(prefix)]
        others = []
        for p in self.pages:
            rec = self.records[p.src_uri]
            if p.src_uri.startswith(prefix) and not p.is_index and not rec["figures"]:
                others.append({"title": rec["title"], "url": self.url(p.url)})
        subsections = [{"title": self.section_titles[f], "url": self.url(f + "/"),
                        "count": sum(1 for c in self.cards if c["src_uri"].startswith(f + "/"))}
                       for f in self.folders if f.startswith(prefix) and "/" not in f[len(prefix):]]
        rec = self.index_records.get(folder)
        meta = rec["meta"] if rec else {}
        ctx = {"title": self.section_titles.get(folder, _humanize(folder)), "url": self.url(url),
               "content": body or Markup(""), "cards": cards, "pages": others, "subsections": subsections,
               "breadcrumbs": self._breadcrumbs(url), **self._meta_ctx(meta)}
        return self.theme.render("section.html", self._page_context(None, page_ctx=ctx, current_url=url))

    def _render_site(self) -> None:
        config = self.config
        if self.reuse_site:
            for dest in self.site_outputs:
                if self.outputs.get(dest) is not IN_STAGING:  # (a card poster a page worker wrote)
                    self.outputs[dest] = self.out / dest
            if not config.site_url and config.base_url != "/":
                self.result.notes.append(NO_SITEMAP_NOTE)
            self._add_pages_and_static()
            return
        pages_by_url = {p.url: p for p in self.pages}
        # home
        home = pages_by_url.get("")
        home_body = Markup("")
        home_title = config.site_name
        if home is not None and home.is_index and home.tokens:
            self._rewrite_links(home)
            home_body = Markup(self.md.renderer.render(home.tokens, self.md.options, home.env))
            home_title = self.records[home.src_uri]["title"]
        filters = {
            "muscles": [{"value": m, "label": label} for m, label in taxonomy.MUSCLES.items()
                        if any(m in c["muscles"] for c in self.cards)],
            "equipment": [{"value": e, "label": label} for e, label in taxonomy.equipment().items()
                          if any(e in c["equipment"] for c in self.cards)],
            "levels": [{"value": v, "label": label} for v, label in taxonomy.LEVELS.items()
                       if any(c["level"] == v for c in self.cards)],
        }
        ctx = {"title": home_title, "url": self.url(""), "content": home_body, "cards": self.cards,
               "filters": filters, "search_index_url": self.search_url, "breadcrumbs": []}
        self.outputs["index.html"] = self.theme.render(
            "home.html", self._page_context(None, page_ctx=ctx, current_url="")).encode()
        # generated section pages (folders without an index page)
        for folder in self.folders:
            if folder not in self.index_records:
                dest = f"{folder}/index.html"
                self.outputs[dest] = self._render_section(folder + "/").encode()
        # taxonomies
        terms: dict[str, dict[str, dict]] = {"tags": {}, "muscles": {}, "equipment": {}}
        for card in self.cards:
            meta = self.records[card["src_uri"]]["meta"]
            for tag in meta.get("tags", []):
                slug = taxonomy.slugify(tag)
                terms["tags"].setdefault(slug, {"label": tag, "cards": []})["cards"].append(card)
            for muscle in card["muscles"]:
                terms["muscles"].setdefault(muscle, {"label": taxonomy.MUSCLES.get(muscle, muscle),
                                                     "cards": []})["cards"].append(card)
            for item in card["equipment"]:
                terms["equipment"].setdefault(item, {"label": taxonomy.label("equipment", item),
                                                     "cards": []})["cards"].append(card)
        order = {"muscles": list(taxonomy.MUSCLES), "equipment": list(taxonomy.equipment())}
        self.taxonomy_urls: list[str] = []
        for tax, heading in taxonomy.TAXONOMIES.items():
            items = terms[tax]
            keys = sorted(items, key=lambda k: (order[tax].index(k) if tax in order and k in order[tax] else 0,
                                                items[k]["label"].lower()))
            listing = [{"slug": k, "label": items[k]["label"], "url": self.url(f"{tax}/{k}/"),
                        "count": len(items[k]["cards"])} for k in keys]
            url = f"{tax}/"
            ctx = {"title": heading, "url": self.url(url), "taxonomy": tax, "terms": listing,
                   "breadcrumbs": [{"title": "Home", "url": self.url("")}]}
            self.outputs[f"{url}index.html"] = self.theme.render(
                "terms.html", self._page_context(None, page_ctx=ctx, current_url=url)).encode()
            self.taxonomy_urls.append(url)
            for k in keys:
                term_url = f"{tax}/{k}/"
                ctx = {"title": items[k]["label"], "url": self.url(term_url), "taxonomy": tax,
                       "taxonomy_title": heading, "cards": items[k]["cards"],
                       "breadcrumbs": [{"title": "Home", "url": self.url("")},
                                       {"title": heading, "url": self.url(url)}]}
                self.outputs[f"{term_url}index.html"] = self.theme.render(
                    "taxonomy.html", self._page_context(None, page_ctx=ctx, current_url=term_url)).encode()
                self.taxonomy_urls.append(term_url)
        # 404
        ctx = {"title": "Page not found", "url": self.url("404.html"), "breadcrumbs": []}
        self.outputs["404.html"] = self.theme.render(
            "404.html", self._page_context(None, page_ctx=ctx, current_url="404.html")).encode()
        # sitemap
        if config.site_url:
            urls = sorted({p.url for p in self.pages} | {f + "/" for f in self.folders} | set(self.taxonomy_urls))
            from xml.sax.saxutils import escape

            lines = ['<?xml version="1.0" encoding="UTF-8"?>',
                     '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
            lines += [f"  <url><loc>{escape(config.site_url + self.url(u))}</loc></url>" for u in urls]
            lines.append("</urlset>")
            self.outputs["sitemap.xml"] = ("\n".join(lines) + "\n").encode()
        elif config.base_url != "/":  # a configured path without a host: say why there is no sitemap
            self.result.notes.append(NO_SITEMAP_NOTE)
        self._add_pages_and_static()

    def _add_pages_and_static(self) -> None:
        for uri, path in self.static.items():  # static content files
            self.outputs.setdefault(uri, path)
        for dest, data in self.page_html.items():
            self.outputs[dest] = data

    # ---------------------------------------------------------------- writing
    def _write(self) -> None:
        if self.in_place and self.old_outputs is not None and self.out.is_dir():
            self._write_in_place(self.old_outputs)
            return
        out = self.out
        parent = out.parent
        staging = self._staging()
        try:
            made: set[str] = set()
            for dest in sorted(self.outputs):
                data = self.outputs[dest]
                if data is not IN_STAGING:
                    _place(data, f"{staging}/{dest}", made)
            if self.page_workers is not None and self.page_workers.busy:
                self.page_workers.gather()  # their pages are in staging now
            old = parent / f".{out.name}.old-{os.getpid()}"
            if out.exists():
                os.rename(out, old)
                os.rename(staging, out)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(staging, out)
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise BuildError(f"cannot write the site to {out}: {exc}") from None
        except BaseException:  # Ctrl-C mid-write: leave no half-built folder behind
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self.result.written = True

    def _staging(self) -> Path:
        """The folder the new site is written to, beside the output (created once, empty)."""
        if self.staging is None:
            parent = self.out.parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BuildError(f"cannot create the output folder's parent {parent}: {exc.strerror}") from None
            staging = parent / f".{self.out.name}.building-{os.getpid()}"
            if staging.exists():
                shutil.rmtree(staging)
            try:
                staging.mkdir()
            except OSError as exc:
                raise BuildError(f"cannot write the site to {self.out}: {exc}") from None
            self.staging = staging
        return self.staging

    def _write_in_place(self, old_outputs: dict) -> None:
        """Update the output folder file by file (see ``build_site(in_place=True)``): each new
        or changed file is written to a temporary name beside its target and renamed over it;
        files whose bytes are unchanged keep their inode and time stamps; files the previous
        build wrote and this one does not are deleted (and folders left empty)."""
        out = self.out
        pid = os.getpid()
        try:
            made: set[str] = set()
            for dest in sorted(self.outputs):
                data = self.outputs[dest]
                target = out / dest
                if isinstance(data, Path):
                    if data == target:
                        continue  # kept from the previous build
                    try:
                        if os.path.samefile(data, target):
                            continue
                    except OSError:
                        pass
                elif dest in old_outputs:
                    try:
                        if os.stat(target).st_size == len(data) and target.read_bytes() == data:
                            continue
                    except OSError:
                        pass
                tmp = target.parent / f".{target.name}.tmp-{pid}"
                _place(data, tmp, made)
                os.replace(tmp, target)
            for dest in sorted(set(old_outputs) - set(self.outputs), reverse=True):
                target = out / dest
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()
                folder = target.parent
                while folder != out and folder.is_relative_to(out):
                    try:
                        folder.rmdir()  # only succeeds when empty
                    except OSError:
                        break
                    folder = folder.parent
        except OSError as exc:
            raise BuildError(f"cannot write the site to {out}: {exc}") from None
        self.result.written = True


def _place(data: bytes | Path, target: str | Path, made: set[str]) -> None:
    """Write ``data`` (bytes, or a file to hard-link, copied when linking fails) to ``target``,
    creating its folder unless it is in ``made`` (folders created so far)."""
    folder = os.path.dirname(target)
    if folder not in made:
        os.makedirs(folder, exist_ok=True)
        made.add(folder)
    if isinstance(data, Path):
        try:
            os.link(data, target)
        except OSError:
            shutil.copyfile(data, target)
    else:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            view = memoryview(data)
            while view:  # os.write may write less than asked
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)


class _PageWorkers:
    """Forked processes, each holding a fixed share of the pages through every phase of a
    build: parse (and load cached figures) -> finish (page records) -> render + write into
    the staging folder (the pages, and the card posters of those pages). Token streams and
    rendered pages never cross a process boundary; only compile jobs, page records and the
    site-wide render context (navigation, section titles, asset names) do, over one pipe per
    worker. The main process keeps a share of
    its own (see :func:`_split_pages`).

    Messages to a worker: ``("parse",)``, ``("finish", {key: CompiledFigure})``,
    ``("render", context)``, ``("stop",)``; replies ``("ok", payload)``, ``("tick", n)``
    (progress), ``("build-error", message)`` or ``("error", traceback text)``.
    """

    def __init__(self, build: "_Build", shares: list[list[Page]]):
        context = multiprocessing.get_context("fork")
        self.shares = shares
        self.assigned = {page.src_uri for share in shares for page in share}
        self.busy = False  # a message was sent and its replies are not all in
        self.replies: dict[int, Any] = {}
        self.phase = ""
        self.bar = None
        self.conns = []
        self.procs = []
        for share in self.shares:
            parent_end, child_end = context.Pipe()
            proc = context.Process(target=_page_worker, args=(build, share, child_end), daemon=True)
            proc.start()
            child_end.close()
            self.conns.append(parent_end)
            self.procs.append(proc)

    def send_all(self, message) -> None:
        """Send ``message(k)`` to worker ``k``, for every worker."""
        self.busy = True
        for k, conn in enumerate(self.conns):
            conn.send(message(k))

    def progress(self, phase: str, total: int, show: bool) -> None:
        """Name the phase under way; show a progress bar over ``total`` pages when ``show``
        (advanced by :meth:`pump` for this process's pages and by the workers' ticks)."""
        self.phase = phase
        if show and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=phase, unit="page", leave=False, file=sys.stderr, dynamic_ncols=True)

    def pump(self, done: int = 1) -> None:
        """Count ``done`` pages of this process and take in whatever the workers sent (no wait)."""
        if self.bar is not None:
            self.bar.update(done)
        for k, conn in enumerate(self.conns):
            while k not in self.replies and conn.poll():
                self._receive(k)

    def _receive(self, k: int) -> None:
        try:
            kind, payload = self.conns[k].recv()
        except EOFError:
            raise RuntimeError(f"page worker {k} died during {self.phase} "
                               f"(exit code {self.procs[k].exitcode})") from None
        if kind == "tick":
            if self.bar is not None:
                self.bar.update(payload)
        elif kind == "ok":
            self.replies[k] = payload
        elif kind == "build-error":
            raise BuildError(payload)
        else:
            raise RuntimeError(f"page worker {k} failed during {self.phase}:\n{payload}")

    def gather(self) -> list:
        """Every worker's reply to the last message, in worker order (waiting for them).
        Raises :class:`BuildError` (a worker's own message) or RuntimeError (a worker's
        traceback, or a worker that died)."""
        from multiprocessing.connection import wait

        try:
            while len(self.replies) < len(self.conns):
                pending = [conn for k, conn in enumerate(self.conns) if k not in self.replies]
                for conn in wait(pending):
                    self._receive(self.conns.index(conn))
        finally:
            if self.bar is not None:
                self.bar.close()
                self.bar = None
        replies = [self.replies[k] for k in range(len(self.conns))]
        self.replies = {}
        self.busy = False
        return replies

    def close(self) -> None:
        """Stop the workers (at once when they are still busy: an aborted build)."""
        busy = self.busy
        for conn in self.conns:
            with contextlib.suppress(OSError, ValueError):
                if not busy:
                    conn.send(("stop",))
                conn.close()
        for proc in self.procs:
            if busy:
                proc.terminate()
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join()


class _Compilation:
    """The figures no cache held: compiled in this process or, when there are many
    (:data:`POOL_THRESHOLD`), in forked compile workers (one per core), and cached. Jobs come
    in one or more :meth:`add` calls (a parallel build hands over this process's figures as
    soon as it has parsed its own pages, so compiling starts while the page workers still
    parse); :meth:`finish` returns them all, writing each worker result to the cache as it
    arrives (while the workers go on, not one after another once they are done).

    Worker processes are forked (cheap, no re-import of ``__main__``); forking a process that
    runs other threads can deadlock, so the dev server (which builds in a worker thread)
    compiles in-process.
    """

    def __init__(self, cache: _FigureCache, show: bool, freeze):
        self.cache, self.show, self.freeze = cache, show, freeze
        self.jobs: dict[str, tuple[str, dict]] = {}  # key -> (source, options), in the order added
        self.done: dict[str, CompiledFigure] = {}
        self.workers = min(os.cpu_count() or 1, 8)
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.submitted: list[tuple[list[str], Any]] = []  # (keys, their results' iterator) per batch

    def add(self, jobs: dict[str, tuple[str, dict]]) -> None:
        """Take ``jobs`` (``{key: (source, options)}``; a key already taken is skipped). The
        compile workers start as soon as :data:`POOL_THRESHOLD` jobs are known (fewer are
        compiled here, in :meth:`finish`); from then on every batch goes to them at once."""
        new = {key: job for key, job in jobs.items() if key not in self.jobs}
        self.jobs.update(new)
        if self.pool is not None:
            self._submit(list(new.items()))
        elif len(self.jobs) >= POOL_THRESHOLD and self.workers > 1 and threading.active_count() == 1 \
                and "fork" in multiprocessing.get_all_start_methods():
            self._start()

    def _start(self) -> None:
        # The first figure is compiled here before forking: imports, the parser's tables and
        # the rig's caches are then inherited instead of built again in every worker
        # (~0.14 s of CPU each); everything made so far is left out of the workers' garbage
        # collections (~4 % of a figure's CPU).
        (first_key, first_job), *rest = self.jobs.items()
        figure = self.done[first_key] = compile_figure(*first_job)
        self.cache.put(figure)
        self.freeze()
        self.pool = concurrent.futures.ProcessPoolExecutor(max_workers=self.workers,
                                                           mp_context=multiprocessing.get_context("fork"))
        self._submit(rest)

    def _submit(self, items: list[tuple[str, tuple[str, dict]]]) -> None:
        chunk = max(1, min(8, len(items) // (self.workers * 32)))
        outputs = self.pool.map(_compile_job, [job for _key, job in items], chunksize=chunk)
        self.submitted.append(([key for key, _job in items], outputs))

    def finish(self) -> dict[str, CompiledFigure]:
        """Every job's figure (compiled by the workers, or here: without them, or for what a
        worker that died left undone), in the order added; every one in the cache."""
        if self.pool is not None:
            results = ((key, data) for keys, outputs in self.submitted for key, data in zip(keys, outputs))
            try:
                with self.pool:
                    for key, data in _progress(results, len(self.jobs) - 1, "compile", self.show):
                        figure = self.done[key] = CompiledFigure.from_dict(data)
                        self.cache.put(figure)
            except concurrent.futures.process.BrokenProcessPool:
                pass  # a worker died (out of memory?): the rest is compiled here
            self.pool = None
        todo = [(key, job) for key, job in self.jobs.items() if key not in self.done]
        for key, job in _progress(todo, len(todo), "compile", self.show and len(todo) > 50):
            figure = self.done[key] = compile_figure(*job)
            self.cache.put(figure)
        self.cache.flush()
        return {key: self.done[key] for key in self.jobs}

    def close(self) -> None:
        """Stop the compile workers (an aborted build): queued jobs are dropped."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


#: The main process's share of the pages beside a worker's 1.0: it also renders the
#: site-wide pages and writes the shared assets while the workers render (each writes the
#: card posters of the pages it renders, :meth:`_Build._dispatch_pages`). 0.85 balances the
#: two processes' CPU after the compile on the 2-core benchmark (0.7: the worker ~25 % longer).
MAIN_SHARE = 0.85


def _split_pages(pages: list[Page], weights: list[float], sizes: list[int]) -> tuple[list[Page], list[list[Page]]]:
    """Deal ``pages`` (in order) to ``len(weights)`` takers, each page to the taker with the
    least source bytes per unit of weight so far (ties: the first). Returns the first
    taker's pages (the main process) and the others' (one list per worker)."""
    loads = [0.0] * len(weights)
    shares: list[list[Page]] = [[] for _ in weights]
    for page, size in zip(pages, sizes):
        k = min(range(len(weights)), key=lambda i: (loads[i] + size) / weights[i])
        loads[k] += size
        shares[k].append(page)
    return shares[0], shares[1:]


def _page_worker(build: "_Build", share: list[Page], conn) -> None:
    """Body of a page worker process (forked: ``build`` is the parent's build as it was)."""
    ticks = [0]

    def tick() -> None:
        ticks[0] += 1
        if ticks[0] == 8:
            conn.send(("tick", 8))
            ticks[0] = 0

    try:
        while True:
            message = conn.recv()
            ticks[0] = 0
            if message[0] == "parse":
                reply = build._parse_share(share, tick)
            elif message[0] == "finish":
                reply = build._finish_share(share, message[1])
            elif message[0] == "render":
                reply = build._render_share(share, message[1], tick)
            else:
                return
            if ticks[0]:
                conn.send(("tick", ticks[0]))
            conn.send(("ok", reply))
    except EOFError:
        return  # the main process is gone
    except BuildError as exc:
        conn.send(("build-error", str(exc)))
    except BaseException:  # noqa: BLE001 - reported to the main process, which raises
        conn.send(("error", traceback.format_exc()))


def _card_figure(record: dict) -> dict | None:
    """The figure whose poster a page's card shows: its first figure with a poster (a page
    record's ``figures`` entry), or None."""
    return next((f for f in record["figures"] if f["poster"]), None)


def _poster_dest(key: str) -> str:
    """Site path of the card poster file of the figure ``key`` (content hash)."""
    return f"assets/posters/{key[:20]}.svg"


def _site_view(record: dict) -> dict:
    """The part of a page record that site-wide pages (cards, sections, taxonomies, search
    index, sitemap) read: the record without its diagnostics, links, anchors and figure
    line numbers, which only the page itself uses."""
    view = {k: v for k, v in record.items() if k not in ("diagnostics", "links", "anchors")}
    view["figures"] = [{k: v for k, v in f.items() if k != "line"} for f in record.get("figures", [])]
    return view


@dataclass
class _LinkRec:
    target: str
    line: int
    column: int
