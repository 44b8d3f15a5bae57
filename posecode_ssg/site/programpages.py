"""Program pages, their printable handouts, program cards and the programs listing (issue 22):
the build steps of :class:`posecode_ssg.site.build._Build` that read the programs' exercises
(site/programs.py) out of the other pages' records and figures.

A program page shows, for each exercise in order, its figure (the compiled figure of the
exercise page, from this build or the figure cache: never compiled again), its prescription
and cues, its time and a link to its page. ``<program>/handout/`` is the same session laid
out for paper, two exercises to a sheet, each with its phase strip instead of a player.
"""

from __future__ import annotations

import math

from markupsafe import Markup

from posecode_ssg.site.cards import card_figure
from posecode_ssg.site.markdown import FenceInfo, figure_html, namespace_ids
from posecode_ssg.site.prescription import prescription_lines, rep_target
from posecode_ssg.site.programs import REST_BETWEEN_DEFAULT, exercise_seconds, resolve_program, session_seconds
from posecode_ssg.site.strings import UI

#: the URL (under a program's URL) of its printable handout
HANDOUT = "handout/"
#: the site URL of the programs' listing (a section page: the content folder of that name's, or
#: made by the build)
PROGRAMS_URL = "programs/"


def handout_dest(page) -> str:
    """Output path of program ``page``'s handout (``<program url>handout/index.html``)."""
    return f"{page.url}{HANDOUT}index.html"


def page_outputs(page) -> list[str]:
    """The output files a content page makes: its ``index.html`` and, for a program page, its
    handout's."""
    return [page.dest_uri, handout_dest(page)] if page.is_program else [page.dest_uri]


def duration_text(seconds: float) -> str:
    """A time as a patient reads it: "45 s", "4 min", "4 min 30 s" (whole seconds)."""
    total = int(round(seconds))
    minutes, secs = divmod(total, 60)
    if not minutes:
        return UI["program.seconds"].format(seconds=secs)
    if not secs:
        return UI["program.minutes"].format(minutes=minutes)
    return UI["program.minutes_seconds"].format(minutes=minutes, seconds=secs)


def session_text(seconds: float) -> str:
    """A session's length, to the minute: "about 24 min" (at least 1 min)."""
    return UI["program.about"].format(time=UI["program.minutes"].format(minutes=max(1, math.floor(seconds / 60 + 0.5))))


class Programs:
    """The program steps of :class:`posecode_ssg.site.build._Build`."""

    def _resolve_programs(self) -> None:
        """Find every program page's exercises (site/programs.py ``resolve_program``) and time
        them: each program record gets ``program`` = ``{"exercises": [...], "seconds": s,
        "rest_between": s}`` and its broken references as errors among its diagnostics."""
        for page in self.pages:
            rec = self.records.get(page.src_uri)
            if not page.is_program or rec is None:
                continue
            meta = rec["meta"]
            found, problems = resolve_program(page, meta.get("program") or [], self.link_index, self.records)
            exercises = []
            for ex in found:
                target = self.records[ex["src_uri"]]
                fig = card_figure(target) or target["figures"][0]   # the one its card shows
                loop = float(fig.get("loop") or 0.0)
                exercises.append({**ex, "title": target["title"], "url": target["url"], "key": fig["key"],
                                  "summary": target["meta"].get("summary", ""), "loop": loop,
                                  "figure_title": fig.get("title") or fig.get("name"),
                                  "seconds": exercise_seconds(ex["rx"], loop, fig.get("repeat") or 1,
                                                              bool(fig.get("both_sides")))})
            rest_between = meta.get("rest_between", REST_BETWEEN_DEFAULT)
            rec["program"] = {"exercises": exercises, "rest_between": rest_between,
                              "seconds": session_seconds([e["seconds"] for e in exercises], rest_between)}
            rec["diagnostics"] = sorted([d for d in rec["diagnostics"] if d["code"] != "program-page"] + problems,
                                        key=lambda d: (d["line"], d["column"]))
            own = rec.setdefault("page_search", rec["search"])   # (a reused record was resolved before)
            rec["search"] = " ".join([own, UI["program.label"]] + [e["title"] for e in exercises])

    def _program_figure(self, key: str):
        """The compiled figure ``key`` (this build's, or the figure cache's), or None."""
        return self.figures.get(key) or self.cache.get(key)

    def _program_exercises(self, page, *, player: bool) -> list[dict]:
        """The template data of program ``page``'s exercises: title, URL, prescription lines,
        notes, time, steps (name, cue) and, with ``player``, the figure's markup (the page), or
        else its phase strip (the handout)."""
        rec = self.records[page.src_uri]
        out = []
        default_view = None if self.config.default_view == "auto" else self.config.default_view
        for n, ex in enumerate(rec["program"]["exercises"], 1):
            figure = self._program_figure(ex["key"])
            item = {"n": n, "title": ex["title"], "url": self.url(ex["url"]), "notes": ex.get("notes"),
                    "summary": ex["summary"], "prescription": prescription_lines(ex["rx"]),
                    "time": duration_text(ex["seconds"]), "figure": None, "strip": None,
                    "steps": [(p["name"], p.get("cue") or "") for p in (figure.phases if figure else [])]}
            if figure is not None and player:
                info = FenceInfo("posecode", {"title": ex["figure_title"] or ex["title"]})
                item["figure"] = Markup(figure_html(figure, info, f"exercise-{n}", default_view=default_view,
                                                    autoplay=self.config.autoplay, reps=rep_target(ex["rx"])))
            elif figure is not None and (figure.strip or figure.poster):   # (the poster: a figure after an error)
                item["strip"] = Markup(namespace_ids(figure.strip or figure.poster, f"exercise-{n}"))
            out.append(item)
        return out

    def _program_facts(self, rec: dict) -> dict:
        """The program's count, session time and frequency, as the page, handout and card say them."""
        prog, meta = rec["program"], rec["meta"]
        count = len(prog["exercises"])
        return {"count": UI.plural("program.count", count),
                "session": session_text(prog["seconds"]), "session_seconds": prog["seconds"],
                "frequency": meta.get("frequency"), "rest_between": duration_text(prog["rest_between"]),
                "exact": duration_text(prog["seconds"])}

    def _render_program(self, page, body: Markup, ctx: dict) -> str:
        """Program ``page``'s HTML (theme ``program.html``): ``ctx`` is the page context of an
        ordinary page (its prose, ``body``, in ``content``). Its handout goes into
        ``page_html`` beside it (:meth:`_render_handout`)."""
        rec = self.records[page.src_uri]
        ctx = {**ctx, "exercises": self._program_exercises(page, player=True), "facts": self._program_facts(rec),
               "handout_url": self.url(page.url + HANDOUT), "prescription": []}
        # its handout, with the same text (the program's advice to the patient)
        self.page_html[handout_dest(page)] = self._render_handout(page, body).encode("utf-8")
        return self.theme.render("program.html", self._page_context(page, page_ctx=ctx))

    def _render_handout(self, page, body: Markup) -> str:
        """Program ``page``'s printable handout (theme ``handout.html``; ``body``: the program
        page's own text, after the exercises): no player script."""
        rec = self.records[page.src_uri]
        ctx = {"title": UI["program.handout_title"].format(title=page.title), "heading": page.title,
               "content": body, "url": self.url(page.url + HANDOUT), "summary": rec["meta"].get("summary", ""),
               "program_url": self.url(page.url), "exercises": self._program_exercises(page, player=False),
               "facts": self._program_facts(rec),
               "breadcrumbs": self._breadcrumbs(page.url) + [{"title": page.title, "url": self.url(page.url)}]}
        return self.theme.render("handout.html", self._page_context(page, page_ctx=ctx, current_url=page.url + HANDOUT))

    def _program_cards(self) -> list[dict]:
        """A card for each program page (title, summary, its facts, the first exercise's
        poster), in the cards' order (weight, then title)."""
        cards = []
        for page in self.pages:
            rec = self.records.get(page.src_uri)
            if not page.is_program or rec is None or "program" not in rec:
                continue
            exercises = rec["program"]["exercises"]
            facts = self._program_facts(rec)
            card = {"src_uri": page.src_uri, "title": rec["title"], "url": self.url(page.url),
                    "summary": rec["meta"].get("summary", ""), "weight": rec["meta"].get("weight", 0),
                    "facts": " · ".join(filter(None, [facts["count"], facts["session"], facts["frequency"]])),
                    "exercises": [e["title"] for e in exercises],
                    "poster": self._poster_url(exercises[0]["key"]) if exercises else None}
            cards.append(card)
        cards.sort(key=lambda c: (c["weight"], c["title"].lower(), c["url"]))
        for card in cards:
            card["html"] = Markup(self.theme.render("partials/program-card.html", self._page_context(None, card=card)))
        return cards
