"""The English words of the SVG posters' titles and aria-labels (:mod:`posecode_ssg.motion.poster`).

The page interface strings live in :mod:`posecode_ssg.site.strings`; these stay in ``motion/``
because the compiler does not import the site generator. Keys are named by what the text is
for; fields are ``str.format`` fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Poster texts: key -> English text.
POSTER_TEXT: Mapping[str, str] = MappingProxyType({
    "frame.start": "start pose",
    "frame.phase_end": "end of phase {name!r}",
    "poster.label": "{name}: {view} view, {frame}",
    "strip.label": "{name}: phases {phases}",
    "strip.start": "Start",
    "sheet.title": "Contact sheet of {count} movements",
})
