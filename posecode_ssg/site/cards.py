"""Cards: a page's card (title, summary, levels, muscles, equipment, poster), the card poster
files, and the search index, which feed the home, section and taxonomy pages."""

from __future__ import annotations

from markupsafe import Markup

from posecode_ssg.site import taxonomy
from posecode_ssg.site.content import Page
from posecode_ssg.site.digest import json_bytes
from posecode_ssg.site.prescription import card_dose
from posecode_ssg.site.render import hashed_name
from posecode_ssg.site.strings import UI


def card_figure(record: dict) -> dict | None:
    """The figure whose poster a page's card shows: its first figure with a poster (a page
    record's ``figures`` entry), or None."""
    return next((f for f in record["figures"] if f["poster"]), None)


def poster_dest(key: str) -> str:
    """Site path of the card poster file of the figure ``key`` (content hash)."""
    return f"assets/posters/{key[:20]}.svg"


class Cards:
    """The card steps of :class:`posecode_ssg.site.build._Build`."""

    def _prepare_cards(self) -> None:
        """Cards (rendered once) and the search index, which feed the site-wide pages."""
        self.cards: list[dict] = []
        for page in self.pages:
            rec = self.records[page.src_uri]
            if page.is_index or not rec["figures"]:
                continue
            self.cards.append(self._card(page, rec))
        self.cards.sort(key=lambda c: (c["weight"], c["title"].lower(), c["url"]))
        for card in self.cards:  # rendered once, reused by home, sections and taxonomy pages
            card["html"] = Markup(self.theme.render("partials/card.html", self._page_context(None, card=card)))
        self.program_cards = self._program_cards()   # (site/programpages.py)
        # search index
        entries = [{"t": c["title"], "u": c["url"], "s": c["summary"], "x": self.records[c["src_uri"]]["search"]}
                   for c in self.cards]
        for page in self.pages:
            rec = self.records[page.src_uri]
            if not rec["figures"] and page.url:
                entries.append({"t": rec["title"], "u": self.url(page.url), "s": rec["meta"].get("summary", ""),
                                "x": rec["search"]})
        entries.sort(key=lambda e: e["u"])
        data = json_bytes({"pages": entries})
        name = hashed_name("search-index.json", data)
        self.outputs[f"assets/{name}"] = data
        self.search_url = self.url(f"assets/{name}")

    def _poster_url(self, key: str) -> str | None:
        dest = poster_dest(key)
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
        first = card_figure(rec)
        muscles = meta.get("primary_muscles", []) + [m for m in meta.get("secondary_muscles", [])
                                                      if m not in meta.get("primary_muscles", [])]
        return {
            "src_uri": page.src_uri, "title": rec["title"], "url": self.url(page.url), "summary": meta.get("summary", ""),
            "level": meta.get("level"), "level_label": taxonomy.level_label(meta.get("level", "")),
            "category": meta.get("category"), "category_label": taxonomy.category_label(meta.get("category", "")),
            "equipment": meta.get("equipment", []),
            "equipment_labels": [self.vocabulary.label("equipment", e) for e in meta.get("equipment", [])],
            "muscles": muscles, "primary_muscles": meta.get("primary_muscles", []),
            "poster": self._poster_url(first["key"]) if first else None,
            "poster_alt": UI["card.poster_alt"].format(title=first["title"] or first["name"]) if first else "",
            "figures": len(rec["figures"]), "weight": meta.get("weight", 0),
            "dose": card_dose(meta),   # the prescription's one-line dose, "3 × 10" (site/prescription.py)
            "section": self.section_titles.get(page.src_uri.split("/")[0], "") if "/" in page.src_uri else "",
        }
