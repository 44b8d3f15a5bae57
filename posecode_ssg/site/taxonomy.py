"""Front-matter vocabularies of the site: the closed ``level`` and ``category`` lists, and the
built-in taxonomies (muscles, equipment, tags) seen as plain ``{term: label}`` tables.

``level`` and ``category`` are closed: front matter is validated against them
(``posecode_ssg.site.content``) and the library home builds its level filter from them. The
taxonomies' terms, labels and synonyms are data, ``vocabularies.toml``, read by
:mod:`posecode_ssg.site.vocabularies` (which also merges the ``[taxonomies.<name>]`` tables of
``posecode.toml``); :data:`MUSCLES` and :func:`equipment` are their built-in terms.
``docs/site.md`` documents them for authors.

Equipment reuses the Posecode prop names from
``posecode_ssg.language.vocabulary.PROPS`` (spec §1 ``prop``) so that a page
whose figure declares ``prop chair`` can be checked against its front matter;
a figure draws the unambiguous non-prop items (motion/equipment.py).
"""

from __future__ import annotations

from posecode_ssg.site.vocabularies import builtin_taxonomies, slugify, translated, vocabulary

__all__ = ["CATEGORIES", "KIND_CATEGORY", "LEVELS", "MUSCLES", "category_label", "equipment", "label", "level_label",
           "prop_names", "slugify", "translated"]

#: Difficulty levels, easiest first (front matter ``level``).
LEVELS: dict[str, str] = {
    "beginner": "Beginner",
    "intermediate": "Intermediate",
    "advanced": "Advanced",
}

#: Purpose of an exercise (front matter ``category``).
CATEGORIES: dict[str, str] = {
    "strength": "Strength",
    "mobility": "Mobility",
    "rehab": "Rehabilitation",
    "posture": "Posture",
    "dance": "Dance",
    "stretch": "Stretch",
    "conditioning": "Conditioning",
}

#: Muscle groups (front matter ``primary_muscles`` / ``secondary_muscles``): the built-in terms.
MUSCLES: dict[str, str] = builtin_taxonomies()["muscles"].terms

#: Category a stand-alone ``.posecode`` page gets from its document kind
#: (spec §1 ``kind``); ``exercise`` says nothing about purpose.
KIND_CATEGORY: dict[str, str | None] = {"exercise": None, "stretch": "stretch", "posture": "posture"}

#: The built-in vocabulary (no ``posecode.toml`` taxonomies).
BUILTIN = vocabulary()


def prop_names() -> tuple[str, ...]:
    """Return the Posecode prop names, read from the language vocabulary (spec §1)."""
    from posecode_ssg.language.vocabulary import PROPS

    return tuple(PROPS)


def equipment() -> dict[str, str]:
    """Return the built-in equipment vocabulary: ``{slug: label}``, ``none`` first, then props, then the rest."""
    return builtin_taxonomies()["equipment"].terms


def level_label(term: str) -> str:
    """The label of level ``term`` in the site's language ("" for none)."""
    return translated(f"term.levels.{term}", LEVELS[term]) if term in LEVELS else ""


def category_label(term: str) -> str:
    """The label of category ``term`` in the site's language ("" for none)."""
    return translated(f"term.categories.{term}", CATEGORIES[term]) if term in CATEGORIES else ""


def label(taxonomy: str, term: str) -> str:
    """Return the display label of ``term`` in the built-in ``taxonomy`` (tags are shown as
    written); a build uses its site's :class:`~posecode_ssg.site.vocabularies.Vocabulary`."""
    if taxonomy == "levels":
        return level_label(term) or term
    if taxonomy == "categories":
        return category_label(term) or term
    return BUILTIN.label(taxonomy, term)
