"""The site-wide pages: home, section pages, taxonomy term lists and term pages, 404 and the
sitemap, rendered from the cards (or kept from the previous build when their data is
unchanged)."""

from __future__ import annotations

from markupsafe import Markup

from posecode_ssg.site import taxonomy
from posecode_ssg.site.content import Page
from posecode_ssg.site.links import rewrite_links
from posecode_ssg.site.programpages import PROGRAMS_URL
from posecode_ssg.site.records import humanize
from posecode_ssg.site.strings import UI
from posecode_ssg.site.write import IN_STAGING

NO_SITEMAP_NOTE = ("no sitemap.xml: base_url has no scheme and host (set base_url = "
                   "\"https://host/path/\" in posecode.toml)")


class Listings:
    """The site-wide page steps of :class:`posecode_ssg.site.build._Build`."""

    def _render_section(self, url: str, *, page: Page | None = None, body: Markup | None = None) -> str:
        folder = url.rstrip("/")
        prefix = folder + "/"
        cards = [c for c in self.cards if c["src_uri"].startswith(prefix)]
        others = []
        for p in self.pages:
            rec = self.records[p.src_uri]
            if p.src_uri.startswith(prefix) and not p.lists_pages and not rec["figures"]:
                others.append({"title": rec["title"], "url": self.url(p.url)})
        # the programs of the folder; /programs/ lists every program (site/programpages.py)
        programs = [c for c in getattr(self, "program_cards", [])
                    if url == PROGRAMS_URL or c["src_uri"].startswith(prefix)]
        subsections = [{"title": self.section_titles[f], "url": self.url(f + "/"),
                        "count": sum(1 for c in self.cards if c["src_uri"].startswith(f + "/"))}
                       for f in self.folders if f.startswith(prefix) and "/" not in f[len(prefix):]]
        rec = self.index_records.get(folder)
        meta = rec["meta"] if rec else {}
        # the /programs/ listing the build makes (no programs/ folder) is titled in the site's language
        title = self.section_titles.get(folder) or (UI["program.programs_heading"] if url == PROGRAMS_URL
                                                    else humanize(folder))
        ctx = {"title": title, "url": self.url(url),
               "content": body or Markup(""), "cards": cards, "pages": others, "subsections": subsections,
               "programs": programs,
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
            rewrite_links(home, self.link_index, self.url)
            home_body = Markup(self.md.renderer.render(home.tokens, self.md.options, home.env))
            home_title = self.records[home.src_uri]["title"]
        filters = {
            "muscles": self._filter("muscles", "muscles"),
            "equipment": self._filter("equipment", "equipment"),
            "levels": [{"value": v, "label": taxonomy.level_label(v)} for v in taxonomy.LEVELS
                       if any(c["level"] == v for c in self.cards)],
        }
        ctx = {"title": home_title, "url": self.url(""), "content": home_body, "cards": self.cards,
               "filters": filters, "search_index_url": self.search_url, "breadcrumbs": [],
               "programs": self.program_cards, "programs_url": self.url(PROGRAMS_URL)}
        self.outputs["index.html"] = self.theme.render(
            "home.html", self._page_context(None, page_ctx=ctx, current_url="")).encode()
        # generated section pages (folders without an index page)
        for folder in self.folders:
            if folder not in self.index_records:
                dest = f"{folder}/index.html"
                self.outputs[dest] = self._render_section(folder + "/").encode()
        # the programs' listing, unless the content has a folder of that name (its section lists them)
        if self.program_cards and PROGRAMS_URL.rstrip("/") not in self.folders:
            self.outputs[f"{PROGRAMS_URL}index.html"] = self._render_section(PROGRAMS_URL).encode()
        # taxonomies: the built-in ones and those posecode.toml declares
        vocab = self.vocabulary
        terms: dict[str, dict[str, dict]] = {name: {} for name in vocab.taxonomies}
        for card in self.cards:
            meta = self.records[card["src_uri"]]["meta"]
            for tax in vocab.taxonomies.values():
                for key in tax.keys:
                    for word in meta.get(key, []):
                        slug = taxonomy.slugify(word) if tax.name == "tags" else word
                        entry = terms[tax.name].setdefault(slug, {"label": vocab.label(tax.name, word), "cards": []})
                        if not entry["cards"] or entry["cards"][-1] is not card:   # (primary and secondary)
                            entry["cards"].append(card)
        self.taxonomy_urls: list[str] = []
        for tax, heading in ((t.name, t.heading) for t in vocab.taxonomies.values()):
            items = terms[tax]
            order = {term: i for i, term in enumerate(vocab.taxonomies[tax].terms)}
            keys = sorted(items, key=lambda k: (order.get(k, len(order)), items[k]["label"].lower()))
            listing = [{"slug": k, "label": items[k]["label"], "url": self.url(f"{tax}/{k}/"),
                        "count": len(items[k]["cards"])} for k in keys]
            url = f"{tax}/"
            ctx = {"title": heading, "url": self.url(url), "taxonomy": tax, "terms": listing,
                   "breadcrumbs": [{"title": UI["nav.home"], "url": self.url("")}]}
            self.outputs[f"{url}index.html"] = self.theme.render(
                "terms.html", self._page_context(None, page_ctx=ctx, current_url=url)).encode()
            self.taxonomy_urls.append(url)
            for k in keys:
                term_url = f"{tax}/{k}/"
                ctx = {"title": items[k]["label"], "url": self.url(term_url), "taxonomy": tax,
                       "taxonomy_title": heading, "cards": items[k]["cards"],
                       "breadcrumbs": [{"title": UI["nav.home"], "url": self.url("")},
                                       {"title": heading, "url": self.url(url)}]}
                self.outputs[f"{term_url}index.html"] = self.theme.render(
                    "taxonomy.html", self._page_context(None, page_ctx=ctx, current_url=term_url)).encode()
                self.taxonomy_urls.append(term_url)
        # 404
        ctx = {"title": UI["not_found.title"], "url": self.url("404.html"), "breadcrumbs": []}
        self.outputs["404.html"] = self.theme.render(
            "404.html", self._page_context(None, page_ctx=ctx, current_url="404.html")).encode()
        # sitemap
        if config.site_url:
            urls = sorted({p.url for p in self.pages} | {f + "/" for f in self.folders} | set(self.taxonomy_urls)
                          | ({PROGRAMS_URL} if self.program_cards else set()))
            from xml.sax.saxutils import escape

            lines = ['<?xml version="1.0" encoding="UTF-8"?>',
                     '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
            lines += [f"  <url><loc>{escape(config.site_url + self.url(u))}</loc></url>" for u in urls]
            lines.append("</urlset>")
            self.outputs["sitemap.xml"] = ("\n".join(lines) + "\n").encode()
        elif config.base_url != "/":  # a configured path without a host: say why there is no sitemap
            self.result.notes.append(NO_SITEMAP_NOTE)
        self._add_pages_and_static()

    def _filter(self, taxonomy_name: str, card_field: str) -> list[dict]:
        """The home filter of a taxonomy: ``{value, label}`` of each term some card lists in
        ``card_field``, the taxonomy's terms in their order, then the other terms by label."""
        tax = self.vocabulary.taxonomies[taxonomy_name]
        used = dict.fromkeys(term for card in self.cards for term in card[card_field])
        ordered = [t for t in tax.terms if t in used]
        ordered += sorted((t for t in used if t not in tax.terms), key=lambda t: tax.label(t).lower())
        return [{"value": t, "label": tax.label(t)} for t in ordered]

    def _add_pages_and_static(self) -> None:
        for uri, path in self.static.items():  # static content files
            self.outputs.setdefault(uri, path)
        for dest, data in self.page_html.items():
            self.outputs[dest] = data
