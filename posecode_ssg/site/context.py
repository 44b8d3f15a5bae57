"""The site-wide render context: shared assets (theme static files, runtime bundle, rig.json),
sections and navigation, site URLs, taxonomy terms, breadcrumbs and the context every template
gets."""

from __future__ import annotations

import json

from pathlib import Path

from markupsafe import Markup

from posecode_ssg.site import taxonomy
from posecode_ssg.site.content import Page, url_quote
from posecode_ssg.site.digest import json_bytes
from posecode_ssg.site.programpages import PROGRAMS_URL
from posecode_ssg.site.records import humanize
from posecode_ssg.site.render import hashed_name
from posecode_ssg.site.strings import UI, template_strings

RUNTIME_DIST = Path(__file__).resolve().parent.parent / "runtime" / "dist"
RUNTIME_BUNDLE = RUNTIME_DIST / "posecode-runtime.js"


def player_strings(cat) -> Markup | None:
    """The strings block of a page with figures (docs/runtime.md "Strings"): the player's texts
    and the timing words of catalogue ``cat`` as JSON (``</`` escaped), or None where they are
    the runtime's built-in English (an English site: the page stays as it was)."""
    from posecode_ssg.i18n.catalogue import english

    data = {"player": cat.table("player."), "mode": cat.table("mode.")}
    base = english()
    if data == {"player": base.table("player."), "mode": base.table("mode.")}:
        return None
    return Markup(json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/"))


class SiteContext:
    """The render-context steps of :class:`posecode_ssg.site.build._Build`."""

    def _prepare_context(self) -> None:
        """The site-wide render context: shared assets, runtime and rig URLs, sections, navigation."""
        config = self.config
        self.site_ctx = {"name": config.site_name, "base_url": config.base_url, "base_path": self.base,
                         "description": config.description, "language": config.language, "extra": config.extra,
                         "direction": self.strings.direction, "player_strings": player_strings(self.strings)}
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

            rig = json_bytes(rig_json())
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
                "static posters only; build it with `npm ci && npm run build` at the repository root "
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
                                   else humanize(f.rsplit("/", 1)[-1])) for f in self.folders}
        top = [f for f in self.folders if "/" not in f]
        top.sort(key=lambda f: (self.index_records.get(f, {}).get("meta", {}).get("weight", 0),
                                self.section_titles[f].lower(), f))
        self.nav = [{"title": self.section_titles[f], "url": self.url(f + "/"), "path": f + "/"} for f in top]
        if PROGRAMS_URL.rstrip("/") not in top and any(p.is_program for p in self.pages):   # the listing the build makes
            self.nav.append({"title": UI["program.nav"], "url": self.url(PROGRAMS_URL), "path": PROGRAMS_URL})

    def url(self, path: str) -> str:
        """Site URL of a site-relative path (``base_path`` prefixed, percent-encoded)."""
        found = self.urls.get(path)
        if found is None:
            found = self.urls[path] = self.base + url_quote(path)
        return found

    def asset_url(self, name: str) -> str:
        """URL of a theme static file (content-hashed name for .css/.js). Unknown names raise KeyError."""
        return self.url(self.assets[name])

    def _page_context(self, page: Page | None, **extra) -> dict:
        """The template context of a page (``page_ctx``: its ``page`` variable). ``runtime_url``
        and ``rig_url`` are given only to a page that shows a figure (its ``content`` holds a
        ``<posecode-figure>``, or a program's exercises do): a page without one loads no
        player (the home, sections, term pages, a handout)."""
        page_ctx = extra.pop("page_ctx", None)
        shows = page_ctx is not None and ("<posecode-figure" in (page_ctx.get("content") or "")
                                          or any(e.get("figure") for e in page_ctx.get("exercises") or ()))
        return {"site": self.site_ctx, "nav": self.nav, "asset": self.asset_url, "url": self.url, "ui": template_strings(),
                "runtime_url": self.runtime_url if shows else None, "rig_url": self.rig_url if shows else None,
                "page": page_ctx, "current_url": extra.pop("current_url", page.url if page else ""), **extra}

    def _term(self, tax: str, term: str) -> dict:
        """``{slug, label, url}`` of a taxonomy term (made once per build: pages share terms)."""
        found = self.terms.get((tax, term))
        if found is None:
            slug = taxonomy.slugify(term) if tax == "tags" else term
            found = self.terms[(tax, term)] = {"slug": slug, "label": self.vocabulary.label(tax, term),
                                               "url": self.url(f"{tax}/{slug}/")}
        return found

    def _meta_ctx(self, meta: dict) -> dict:
        def terms(tax: str, key: str) -> list[dict]:
            return [self._term(tax, t) for t in meta.get(key, [])]

        return {
            "level": meta.get("level"), "level_label": taxonomy.level_label(meta.get("level", "")),
            "category": meta.get("category"), "category_label": taxonomy.category_label(meta.get("category", "")),
            "equipment": terms("equipment", "equipment"), "primary_muscles": terms("muscles", "primary_muscles"),
            "secondary_muscles": terms("muscles", "secondary_muscles"), "tags": terms("tags", "tags"),
            "summary": meta.get("summary", ""),
            # the taxonomies posecode.toml declares: [{title, terms}] of those the page uses
            "taxonomies": [{"name": t.name, "title": t.heading, "terms": found}
                           for t in self.vocabulary.declared()
                           if (found := [self._term(t.name, term) for term in
                                         dict.fromkeys(w for key in t.keys for w in meta.get(key, []))])],
        }

    def _breadcrumbs(self, url: str) -> list[dict]:
        crumbs = [{"title": UI["nav.home"], "url": self.url("")}]
        parts = [p for p in url.split("/") if p]
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            crumbs.append({"title": self.section_titles.get(folder, humanize(parts[i - 1])),
                           "url": self.url(folder + "/")})
        return crumbs
