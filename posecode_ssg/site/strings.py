"""The interface strings of the site's pages: the one home of every label, aria-label,
placeholder, heading, button text and message that the default theme's templates and the
Python code writing page HTML show (the JS player has its own, ``runtime/strings.js``).

:data:`UI` maps a key, named by what the string is for (``"search.site_placeholder"``,
``"nav.skip_to_content"``), to its English text. A translation replaces this table; the
templates and the code only name keys.

- Python reads it as ``from posecode_ssg.site.strings import UI`` and fills the
  ``str.format`` fields of a text: ``UI["figure.steps_label"].format(title=...)``.
- Templates read it through the ``ui`` variable of every template context
  (:class:`TemplateStrings`): ``{{ ui['nav.skip_to_content'] }}``; a text with fields is
  filled with ``.format``: ``{{ ui['taxonomy.count_other'].format(count=n) }}``. Where a field
  is markup (a link), the text is escaped first so the link stays markup:
  ``{{ (ui['footer.browse_by']|e).format(muscle=link, ...) }}``.

A key that is not in the table stops the build with an error naming the key and the
template (a theme that overrides templates and names a wrong key is told so, not given an
empty label). Vocabulary labels (levels, categories, muscles, equipment, taxonomy names) live
in :mod:`posecode_ssg.site.taxonomy`; poster texts in :mod:`posecode_ssg.motion.postertext`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import jinja2

#: Interface strings of the pages: key -> English text (``str.format`` fields in braces).
UI: Mapping[str, str] = MappingProxyType({
    # navigation (base.html, breadcrumbs)
    "nav.skip_to_content": "Skip to content",
    "nav.sections_label": "Sections",
    "nav.breadcrumb_label": "Breadcrumb",
    "nav.home": "Home",
    # header search (base.html)
    "search.site_label": "Site search",
    "search.site_input_label": "Search the library",
    "search.site_placeholder": "Search exercises",
    "search.submit": "Search",
    # footer (base.html): {muscle}, {equipment}, {tag} are the links
    "footer.browse_by": "Browse by {muscle}, {equipment} or {tag}.",
    "footer.muscle": "muscle",
    "footer.equipment": "equipment",
    "footer.tag": "tag",
    "footer.disclaimer": "Figures are simplified models with reference joint limits, not medical advice.",
    # library home (home.html)
    "home.library_heading": "All exercises",
    "filters.label": "Filter the library",
    "filters.search_label": "Search names, steps and cues",
    "filters.search_placeholder": "e.g. squat, knees, wall",
    "filters.muscle": "Muscle",
    "filters.equipment": "Equipment",
    "filters.level": "Level",
    "filters.any": "Any",
    "filters.clear": "Clear",
    "filters.no_results": "No exercise matches. Try fewer words or clear the filters.",
    "filters.other_results": "Other matching pages",
    # page metadata (partials/meta.html)
    "meta.level": "Level",
    "meta.category": "Category",
    "meta.equipment": "Equipment",
    "meta.primary_muscles": "Primary muscles",
    "meta.secondary_muscles": "Secondary muscles",
    "meta.tags": "Tags",
    # content page (page.html)
    "page.source_summary": "Posecode source",
    # section page (section.html)
    "section.subsections": "Sections",
    "section.exercises": "Exercises",
    "section.other_pages": "Other pages",
    # taxonomy pages (terms.html, taxonomy.html)
    "terms.empty": "Nothing here yet.",
    "taxonomy.count_one": "{count} exercise.",
    "taxonomy.count_other": "{count} exercises.",
    # 404 page (404.html): {home_link} is the link to the home page
    "not_found.title": "Page not found",
    "not_found.message": "There is no page at this address. It may have moved.",
    "not_found.go_home": "{home_link} or search above.",
    "not_found.home_link": "Go to the library home",
    # cards (site/cards.py)
    "card.poster_alt": "Poster of {title}",
    # the social card of an exercise page (site/exports.py, partials/social.html): its og:image:alt
    "card.image_alt": "{title}: the movement at its key pose",
    # Posecode figures in pages (site/markdown.py)
    "figure.default_title": "Posecode figure",
    "figure.errors_heading": "This Posecode block has errors",
    "figure.error_line": "line {line}: {message}",
    "figure.repeat": " · repeat ×{count}",
    "figure.duration": "{seconds:g} s",
    "figure.steps_label": "Steps of {title}",
    "figure.download_gif": "Download GIF",
    # prescriptions (site/prescription.py): the page's box, the card's dose line, the search text
    "prescription.heading": "Prescription",
    "prescription.dose": "Dose",
    "prescription.sets_reps": "{sets} × {reps}",
    "prescription.sets_one": "{count} set",
    "prescription.sets_other": "{count} sets",
    "prescription.reps_one": "{count} rep",
    "prescription.reps_other": "{count} reps",
    "prescription.each_side": "{dose} each side",
    "prescription.hold": "Hold",
    "prescription.seconds": "{seconds:g} s",
    "prescription.rest": "Rest",
    "prescription.rest_seconds": "{seconds:g} s between sets",
    "prescription.tempo": "Tempo",
    "prescription.frequency": "How often",
    "prescription.side": "Side",
    "prescription.side_left": "left",
    "prescription.side_right": "right",
    "prescription.side_both": "both sides",
    "prescription.side_alternating": "alternating",
    "prescription.load": "Load",
    "prescription.card_hold": "hold {hold}",
    # headings (site/markdownext.py) and the page's table of contents (page.html)
    "toc.anchor_label": "Link to this section",
    "toc.heading": "On this page",
    # programs (site/programpages.py; program.html, handout.html, partials/program-card.html)
    "program.label": "Program",
    "program.nav": "Programs",
    "program.seconds": "{seconds} s",
    "program.minutes": "{minutes} min",
    "program.minutes_seconds": "{minutes} min {seconds} s",
    "program.about": "about {time}",
    "program.count_one": "{count} exercise",
    "program.count_other": "{count} exercises",
    "program.facts_label": "About this program",
    "program.session": "Session",
    "program.frequency": "How often",
    "program.rest_between": "Rest between exercises",
    "program.exercises_heading": "Exercises",
    "program.exercise_time": "Time",
    "program.notes": "Note",
    "program.open_exercise": "Open the exercise page",
    "program.handout_link": "Printable handout",
    "program.handout_title": "Handout: {title}",
    "program.print": "Print",
    "program.back": "Back to the program",
    "program.time_heading": "Session time",
    "program.time_explained": "Each exercise takes sets × reps × the movement's loop (a hold: sets × the hold), twice with each side, plus the rest between sets; {rest} of rest between two exercises.",
    "program.time_total": "Total",
    "program.handout_name": "Name",
    "program.handout_date": "Date",
    "program.handout_steps": "Steps",
    "program.programs_heading": "Programs",
    "program.all_programs": "All programs",
    "program.card_exercises": "Exercises: {titles}",
})


class TemplateStrings(dict):
    """:data:`UI` as templates see it (the ``ui`` context variable): ``ui['key']`` is the
    text; an unknown key raises :class:`jinja2.UndefinedError` naming it, which the build
    reports as an error of the template (:meth:`posecode_ssg.site.render.Theme.render`).
    Jinja turns a ``LookupError`` into a silent empty value, so the error is not a KeyError.
    A plain dict underneath: a template's lookups stay C-speed; only a miss runs Python."""

    def __init__(self, table: Mapping[str, str] = UI):
        super().__init__(table)

    def __missing__(self, key: str) -> str:
        raise jinja2.UndefinedError(
            f"no interface string {key!r} (the keys are listed in posecode_ssg/site/strings.py)")


#: The ``ui`` variable of every template context.
TEMPLATE_UI = TemplateStrings()
