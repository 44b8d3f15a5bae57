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

import gc
import shutil
import time
from dataclasses import replace
from pathlib import Path

from posecode_ssg.config import DEFAULT_SITE_NAME, SiteConfig
from posecode_ssg.i18n import using
from posecode_ssg.site.cards import Cards
from posecode_ssg.site.compilation import Compilation, Compiling, figure_options
from posecode_ssg.site.context import RUNTIME_BUNDLE, SiteContext
from posecode_ssg.site.digest import sha
from posecode_ssg.site.exports import Exports
from posecode_ssg.site.figurecache import FigureCache
from posecode_ssg.site.figures import CompiledFigure
from posecode_ssg.site.links import link_diagnostics
from posecode_ssg.site.listings import Listings
from posecode_ssg.site.manifest import Incremental
from posecode_ssg.site.pagehtml import PageHTML
from posecode_ssg.site.pages import PageSet
from posecode_ssg.site.programpages import Programs, page_outputs
from posecode_ssg.site.records import PageRecords
from posecode_ssg.site.render import Theme
from posecode_ssg.site.strings import site_catalogue
from posecode_ssg.site.result import (
    BuildError,
    BuildResult,
    Diagnostic,
    PageSummary,
    as_diagnostic,
)
from posecode_ssg.site.workers import PageWorkers, ParallelPages
from posecode_ssg.site.write import InStaging, Writing

# names callers import from here (commands, the dev server, tests, docs)
__all__ = [
    "RUNTIME_BUNDLE",
    "BuildError",
    "BuildResult",
    "PageSummary",
    "as_diagnostic",
    "build_site",
    "figure_options",
    "link_diagnostics",
]


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


class _Build(Incremental, PageSet, PageRecords, Compiling, ParallelPages, SiteContext, Cards, Exports,
             PageHTML, Programs, Listings, Writing):
    """One build. Its state lives here; its steps live in the modules of its bases, one
    responsibility each:

    - :class:`~posecode_ssg.site.manifest.Incremental`: the manifest, what a build reuses;
    - :class:`~posecode_ssg.site.pages.PageSet`: sources, pages, drafts, diagnostics and links;
    - :class:`~posecode_ssg.site.records.PageRecords`: one page parsed and finished into its record;
    - :class:`~posecode_ssg.site.compilation.Compiling`: figures from the cache or compiled;
    - :class:`~posecode_ssg.site.workers.ParallelPages`: the page workers' share of it all;
    - :class:`~posecode_ssg.site.context.SiteContext`: assets, navigation, URLs, template context;
    - :class:`~posecode_ssg.site.cards.Cards`: cards, card posters and the search index;
    - :class:`~posecode_ssg.site.exports.Exports`: social cards and GIFs (``exports``, only when set);
    - :class:`~posecode_ssg.site.pagehtml.PageHTML`: content pages rendered;
    - :class:`~posecode_ssg.site.programpages.Programs`: programs' exercises, handouts, cards;
    - :class:`~posecode_ssg.site.listings.Listings`: home, sections, taxonomies, 404, sitemap;
    - :class:`~posecode_ssg.site.write.Writing`: staging folder and swap, or in place.
    """

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
        self.cache = FigureCache(config.cache_dir)
        self.manifest_path = config.cache_dir / f"manifest-{sha(str(self.out).encode())[:12]}.json"
        self.outputs: dict[str, bytes | Path | InStaging] = {}
        self.assets: dict[str, str] = {}
        self.figures: dict[str, CompiledFigure] = {}
        self.posters: dict[str, str] = {}  # figure key -> poster SVG of cards (from page workers)
        # social cards (src_uri -> {url, alt, width, height}) and GIFs (figure key -> {url, name})
        self.export_urls: dict[str, dict] = {"card": {}, "gif": {}}
        self.terms: dict[tuple[str, str], dict] = {}  # (taxonomy, term) -> {slug, label, url}
        self.urls: dict[str, str] = {}  # site-relative path -> URL (see url())
        self.page_workers: PageWorkers | None = None
        self.frozen = False  # gc.freeze() called (see _freeze)
        self.parsed = 0  # pages parsed by this process
        self.compilation: Compilation | None = None  # figures being compiled
        self.staging: Path | None = None

    # ---------------------------------------------------------------- driver
    def run(self) -> BuildResult:
        start = self.started = time.perf_counter()
        self.strings = site_catalogue(self.config, self.result)
        if self.config.site_name == DEFAULT_SITE_NAME:   # none given: the default in the site's language
            self.config = replace(self.config, site_name=str(self.strings["site.default_name"]))
        try:
            with using(self.strings):
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
        walk every live object each time their number has grown by a quarter (a large share of
        a build's CPU); and in forked workers a collection writes to every
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
        self._scan()
        self.runtime = RUNTIME_BUNDLE.read_bytes() if RUNTIME_BUNDLE.is_file() else None
        fingerprint = self._fingerprint()
        static_state = self._static_state()
        inputs = self._inputs(static_state)
        manifest = self._load_manifest()
        intact = bool(manifest) and self._output_intact(manifest)
        if (intact and manifest.get("fingerprint") == fingerprint and manifest.get("inputs") == inputs
                and manifest.get("clean", True)):
            self._replay(manifest)
            return
        old_pages = manifest.get("pages", {}) if manifest and manifest.get("fingerprint") == fingerprint else {}
        old_outputs = manifest.get("outputs", {}) if manifest else {}
        self.old_outputs = old_outputs if intact else None  # in-place writing needs an exact picture
        context = self._context_key(fingerprint)
        result.timings["scan"] = time.perf_counter() - self.started
        self._make_pages(context, old_pages, old_outputs)
        if (result.errors or (self.strict and result.warnings)) and not self.keep_going:
            return
        if config.exports:   # (site/exports.py; never imported nor run without)
            self._lap("exports", self._make_exports)
            if (result.errors or (self.strict and result.warnings)) and not self.keep_going:
                return
        self._lap("prepare", self._prepare_context)
        if self.page_workers is not None:  # they render and write their pages from now on
            self._dispatch_pages(self.to_render)
        # Site-wide pages (home, sections, taxonomies, search index, sitemap, 404, shared
        # assets) depend on the page records' card and search data only: when none of that
        # changed (an edit to a page's prose), the previous build's files are reused.
        self.site_key = self._site_key(context, static_state)
        self.reuse_site = self._reusable_site(manifest, old_outputs)
        unchanged_index = [p for p in self.pages if p.src_uri in self.index_unchanged]
        if self.reuse_site:
            for page in unchanged_index:
                for dest in page_outputs(page):
                    if page.url:  # (the home page is one of the site-wide files)
                        self.page_html[dest] = self.out / dest
        elif unchanged_index:
            self._process(unchanged_index, self.show)
            self._resolve_programs()   # (their records parsed again)
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
