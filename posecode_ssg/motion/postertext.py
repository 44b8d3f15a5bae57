"""The words of the SVG posters' titles, aria-labels and phase-strip labels
(:mod:`posecode_ssg.motion.poster`), in the language of the active catalogue
(:mod:`posecode_ssg.i18n`: the ``poster.*`` keys of ``posecode_ssg/i18n/locales/<tag>.toml``).

The page interface strings are read through :mod:`posecode_ssg.site.strings`; these stay in
``motion/`` because the compiler does not import the site generator. Keys are named by what the
text is for; fields are ``str.format`` fields. A build compiles its figures with its site's
catalogue active, and a figure's cache key names the language (site/compilation.py
``figure_options``), so a poster is never served in another language.
"""

from __future__ import annotations

from collections.abc import Mapping

from posecode_ssg.i18n.catalogue import active

#: the poster texts (``poster.<key>`` in the catalogues)
KEYS = ("start", "phase_end", "label", "strip_label", "strip_start", "sheet_title", "view.side", "view.front")


class PosterText(Mapping):
    """Poster text ``key`` (:data:`KEYS`) of the active catalogue; :meth:`plural` for a count."""

    def __getitem__(self, key: str) -> str:
        if key not in KEYS:
            raise KeyError(key)
        return active()[f"poster.{key}"]

    def __iter__(self):
        return iter(KEYS)

    def __len__(self) -> int:
        return len(KEYS)

    def plural(self, key: str, count, **fields) -> str:
        return active().plural(f"poster.{key}", count, **fields)

    def view(self, name: str) -> str:
        """The word of view ``name`` (``side``, ``front``; another name as it is)."""
        return self[f"view.{name}"] if f"view.{name}" in KEYS else name


#: Poster texts of the active catalogue.
POSTER_TEXT = PosterText()
