"""A content page's HTML: its tokens (links rewritten, leading title dropped) rendered into the
theme's ``page.html`` (or ``section.html`` for a section index page)."""

from __future__ import annotations

from markupsafe import Markup

from posecode_ssg.site.content import Page
from posecode_ssg.site.links import rewrite_links
from posecode_ssg.site.markdown import posecode_env
from posecode_ssg.site.markdownext import highlight, table_of_contents
from posecode_ssg.site.prescription import prescription_lines, rep_target
from posecode_ssg.site.progress import progress
from posecode_ssg.site.write import IN_STAGING


class PageHTML:
    """The page-rendering steps of :class:`posecode_ssg.site.build._Build`."""

    def _body_tokens(self, page: Page) -> list:
        """The page's tokens without its leading level-1 heading (the template shows the title)."""
        tokens = page.tokens
        i = 0
        while i < len(tokens) and tokens[i].type == "front_matter":
            i += 1
        if i + 2 < len(tokens) and tokens[i].type == "heading_open" and tokens[i].tag == "h1":
            return tokens[:i] + tokens[i + 3:]
        return tokens

    def _download_links(self) -> dict[str, str]:
        """Figure key -> the markup of its "Download GIF" link (made once a build; ``{}`` without
        GIF exports)."""
        links = getattr(self, "_download_markup", None)
        if links is None or links[0] is not self.export_urls["gif"]:
            gifs = self.export_urls["gif"]
            if gifs:
                from posecode_ssg.site.exports import download_html

                links = (gifs, {key: download_html(link) for key, link in gifs.items()})
            else:
                links = (gifs, {})
            self._download_markup = links
        return links[1]

    def _render_page(self, page: Page) -> str:
        rewrite_links(page, self.link_index, self.url)
        if page.env:   # the figures count to the page's front matter reps (data-reps)
            pc = posecode_env(page.env)
            pc.reps = rep_target(page.meta)
            pc.downloads = self._download_links()   # "Download GIF" under the players (site/exports.py)
        tokens = self._body_tokens(page)
        body = self.md.renderer.render(tokens, self.md.options, page.env)
        rec = self.records[page.src_uri]
        toc = table_of_contents(tokens)
        ctx = {"title": page.title, "url": self.url(page.url), "content": Markup(body),
               "source": page.text if page.source_kind == "posecode" else None, "source_kind": page.source_kind,
               "source_html": Markup(highlight(page.text, "posecode", "")) if page.source_kind == "posecode" else None,
               "figures": len(rec["figures"]), "breadcrumbs": self._breadcrumbs(page.url),
               "prescription": prescription_lines(page.meta),
               "toc": toc if len(toc) >= 2 else [],   # "On this page" (site/markdownext.py)
               "card": self.export_urls["card"].get(page.src_uri),   # social card (partials/social.html)
               **self._meta_ctx(page.meta)}
        if page.is_index:
            return self._render_section(page.url, page=page, body=Markup(body))
        if page.is_program and "program" in rec:   # (site/programpages.py)
            return self._render_program(page, Markup(body), ctx)
        return self.theme.render("page.html", self._page_context(page, page_ctx=ctx))

    def _render_pages(self, pages: list[Page], show: bool) -> None:
        pool = self.page_workers
        if pool is not None:
            pages = [page for page in pages if self.page_html.get(page.dest_uri) is not IN_STAGING]
        for page in progress(pages, len(pages), "render", show and pool is None):
            if pool is not None:
                pool.pump(1)
            if page.is_index and page.url == "":
                continue  # the home page is rendered by _render_site
            self.page_html[page.dest_uri] = self._render_page(page).encode("utf-8")
