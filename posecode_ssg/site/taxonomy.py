"""Front-matter vocabularies of the site: levels, categories, equipment, muscles.

These closed lists are the one place the site's classification words live.
Front matter is validated against them (``posecode_ssg.site.content``), the
library home builds its filters from them and the taxonomy pages
(``/muscles/<slug>/``, ``/equipment/<slug>/``, ``/tags/<slug>/``) are named by
them. ``docs/site.md`` documents them for authors.

Equipment reuses the Posecode prop names from
``posecode_ssg.language.vocabulary.PROPS`` (spec §1 ``prop``) so that a page
whose figure declares ``prop chair`` can be checked against its front matter;
the extra, non-prop items (mat, dumbbell, kettlebell, barbell, medicine ball, band) and
``none`` are listed here; a figure draws the unambiguous ones (motion/equipment.py).

Muscle names follow the regional groups used in exercise-science teaching
texts (for instance the muscle-group index of the ACE Exercise Library and
the regional chapters of Kendall's *Muscles: Testing and Function*): coarse
enough that an author can tag honestly without an anatomy atlas.
"""

from __future__ import annotations

import re
import unicodedata

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

#: Equipment that is not a Posecode prop (front matter ``equipment``).
EXTRA_EQUIPMENT: dict[str, str] = {
    "none": "No equipment",
    "mat": "Mat",
    "dumbbell": "Dumbbell",
    "kettlebell": "Kettlebell",
    "barbell": "Barbell",
    "medicine-ball": "Medicine ball",
    "band": "Resistance band",
}

#: Display labels of the Posecode props (the names themselves come from the
#: language vocabulary; a prop without a label here is shown by its name).
PROP_LABELS: dict[str, str] = {
    "chair": "Chair",
    "wall": "Wall",
    "bar": "Pull-up bar",
    "box": "Box or step",
    "dip-bars": "Dip bars",
}

#: Muscle groups (front matter ``primary_muscles`` / ``secondary_muscles``).
MUSCLES: dict[str, str] = {
    "neck": "Neck",
    "trapezius": "Trapezius",
    "rhomboids": "Rhomboids",
    "upper-back": "Upper back",
    "lats": "Latissimus dorsi",
    "lower-back": "Lower back (erector spinae)",
    "chest": "Chest (pectorals)",
    "deltoids": "Deltoids",
    "rotator-cuff": "Rotator cuff",
    "serratus-anterior": "Serratus anterior",
    "biceps": "Biceps",
    "triceps": "Triceps",
    "forearms": "Forearms and grip",
    "core": "Core (deep trunk)",
    "abdominals": "Abdominals",
    "obliques": "Obliques",
    "hip-flexors": "Hip flexors",
    "glutes": "Glutes",
    "abductors": "Hip abductors",
    "adductors": "Hip adductors",
    "quadriceps": "Quadriceps",
    "hamstrings": "Hamstrings",
    "calves": "Calves",
    "tibialis-anterior": "Tibialis anterior (shin)",
    "feet": "Feet and ankles",
}

#: Category a stand-alone ``.posecode`` page gets from its document kind
#: (spec §1 ``kind``); ``exercise`` says nothing about purpose.
KIND_CATEGORY: dict[str, str | None] = {"exercise": None, "stretch": "stretch", "posture": "posture"}


def prop_names() -> tuple[str, ...]:
    """Return the Posecode prop names, read from the language vocabulary (spec §1)."""
    from posecode_ssg.language.vocabulary import PROPS

    return tuple(PROPS)


def equipment() -> dict[str, str]:
    """Return the equipment vocabulary: ``{slug: label}``, ``none`` first, then props, then the rest."""
    items = {"none": EXTRA_EQUIPMENT["none"]}
    for name in prop_names():
        items[name] = PROP_LABELS.get(name, name.replace("-", " ").capitalize())
    for name, label in EXTRA_EQUIPMENT.items():
        items.setdefault(name, label)
    return items


TAXONOMIES: dict[str, str] = {
    "tags": "Tags",
    "muscles": "Muscles",
    "equipment": "Equipment",
}
"""Taxonomy pages the build writes: ``{url folder: heading}``."""


def slugify(text: str) -> str:
    """Return a URL slug: NFKD-folded, lower case, runs of other characters as one ``-``.

    An empty result becomes ``"item"`` so a slug is never empty.
    """
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return slug or "item"


def label(taxonomy: str, term: str) -> str:
    """Return the display label of ``term`` in ``taxonomy`` (tags are shown as written)."""
    if taxonomy == "muscles":
        return MUSCLES.get(term, term)
    if taxonomy == "equipment":
        return equipment().get(term, term)
    if taxonomy == "levels":
        return LEVELS.get(term, term)
    if taxonomy == "categories":
        return CATEGORIES.get(term, term)
    return term
