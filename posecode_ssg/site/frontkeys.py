"""The front-matter keys of a Markdown page and what each holds: the one list the
front-matter validator (``posecode_ssg.site.content``) checks keys against and the
taxonomies of ``posecode.toml`` (``posecode_ssg.site.vocabularies``) are checked against (a
declared taxonomy may not read a key that holds something else than terms).
"""

from __future__ import annotations

from posecode_ssg.site.prescription import PRESCRIPTION_KEYS

FRONT_MATTER_KEYS: dict[str, str] = {
    "title": "page title (default: the first level-1 heading, else the file name)",
    "summary": "one-sentence description shown on cards and in search results",
    "level": "beginner | intermediate | advanced",
    "category": "strength | mobility | rehab | posture | dance | stretch | conditioning",
    "equipment": "list of equipment words (taxonomy)",
    "primary_muscles": "list of muscle words (taxonomy)",
    "secondary_muscles": "list of muscle words (taxonomy)",
    "tags": "free list of words",
    "weight": "integer sort key inside a section (smaller first; default: by title)",
    "draft": "true leaves the page out of the build",
    **PRESCRIPTION_KEYS,
    "program": "a program page's exercises: a list of {page, sets, reps, per_side, hold, rest, notes}",
    "rest_between": "a program's seconds of rest between two exercises (default 60)",
}
"""Front matter keys and what they hold; other keys are warned about (unless a taxonomy reads them)."""
