"""The page set of a build: the content folder's sources, which of them become pages (one URL
each, none under a reserved folder), reused from the previous build or parsed, drafts left out,
and every page's diagnostics and link check in the result."""

from __future__ import annotations

from pathlib import Path

from posecode_ssg.site.content import (
    LinkIndex,
    Page,
    create_markdown,
    new_page,
    scan_content,
)
from posecode_ssg.site.digest import sha
from posecode_ssg.site.links import link_diagnostics
from posecode_ssg.site.programs import declares_program
from posecode_ssg.site.progress import PROGRESS_THRESHOLD, progress
from posecode_ssg.site.result import PageSummary, as_diagnostic, bucket_of
from posecode_ssg.site.vocabularies import vocabulary


class PageSet:
    """The page steps of :class:`posecode_ssg.site.build._Build`."""

    def _scan(self) -> None:
        """Read every source (``self.sources``: src_uri -> bytes) and hash it (``self.hashes``);
        ``self.static``: src_uri -> path of the static content files."""
        content = self.config.content_dir
        page_paths, static_paths = scan_content(content)
        self.sources = {p.relative_to(content).as_posix(): p.read_bytes() for p in page_paths}
        self.static = {p.relative_to(content).as_posix(): p for p in static_paths}
        self.hashes = {uri: sha(data) for uri, data in self.sources.items()}

    def _make_pages(self, context: str, old_pages: dict, old_outputs: dict) -> None:
        config, result = self.config, self.result
        self.vocabulary = vocabulary(config.taxonomies)   # built-in + posecode.toml taxonomies
        self.md = create_markdown(default_view=None if config.default_view == "auto" else config.default_view,
                                  autoplay=config.autoplay, raw_html=config.raw_html)
        self.pages: list[Page] = []
        self.records: dict[str, dict] = {}
        self.page_keys: dict[str, str] = {}
        self.page_html: dict[str, bytes | Path] = {}
        self.index_unchanged: set[str] = set()
        by_url: dict[str, Page] = {}
        reserved = {f"{name}/" for name in self.vocabulary.taxonomies} | {"assets/"}
        for uri in self.sources:
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
            page.is_program = (page.source_kind == "markdown" and not page.is_index
                               and declares_program(self.sources[uri]))
            self.pages.append(page)
        self.link_index = LinkIndex({p.src_uri: p for p in self.pages}, by_url, set(self.static))

        to_parse = self._reuse_pages(context, old_pages, old_outputs)
        show = self.progress and len(self.pages) >= PROGRESS_THRESHOLD
        self._process(to_parse, show)
        # drafts (front matter draft: true) leave the site: no output, no card, not linkable
        drafts = {p.src_uri for p in self.pages if self.records.get(p.src_uri, {}).get("meta", {}).get("draft")}
        self.drafts = drafts
        if drafts:
            to_parse = [p for p in to_parse if p.src_uri not in drafts]
            self._drop_drafts(drafts)
        self._resolve_programs()   # every record known: the programs' exercises (site/programpages.py)
        # diagnostics of every page + link check
        for page in self.pages:
            rec = self.records.get(page.src_uri)
            if rec is None:
                continue
            for d in rec["diagnostics"]:
                bucket_of(result, d["severity"]).append((page.src_path, as_diagnostic(d)))
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

    def _process(self, pages: list[Page], show: bool) -> None:
        """Parse ``pages``, compile their figures and store their records (in forked page
        workers when there are many, see :class:`PageWorkers`; section index pages, which
        list the cards of every page, always here)."""
        shared = [page for page in pages if not page.lists_pages]
        count = self._page_worker_count(len(shared))
        if count:
            self._process_parallel(pages, shared, count, show)
            return
        self._lap("parse", lambda: [self._parse_page(page) for page in progress(pages, len(pages), "parse", show)])
        self._lap("compile", lambda: self._compile(self._figure_jobs(pages), show))
        self._lap("finish", lambda: [self._finish_page(page) for page in pages])
