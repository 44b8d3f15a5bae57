"""Prescriptions in front matter (issue 21 item 4): how an exercise is dosed, as a clinician writes
it on a home-exercise sheet: ``sets`` × ``reps`` (``per_side``), a ``hold`` in seconds, the
``rest`` between sets, a ``tempo``, a ``frequency``, the ``side`` and the ``load``.

:func:`check_field` validates one front-matter value and returns it normalised (the page's
``meta[key]``) or the problem's message and hint. :func:`prescription_lines` gives the page's
prescription as short labelled lines for the page's box (labels from the interface strings,
:mod:`posecode_ssg.site.strings`), :func:`card_dose` its card's one-line dose,
:func:`search_text` its words in the search index, and :func:`rep_target` the number its
figures count repetitions to.
"""

from __future__ import annotations

import math
import re
from typing import Any

from posecode_ssg.site.strings import UI

#: prescription keys and what they hold (front matter documentation, docs/site.md)
PRESCRIPTION_KEYS: dict[str, str] = {
    "sets": "number of sets (a whole number)",
    "reps": "repetitions a set (a whole number, or a range such as 8-12)",
    "per_side": "true when the reps are done on each side",
    "hold": "seconds each repetition is held (a number)",
    "rest": "seconds of rest between sets (a number)",
    "tempo": "seconds down-pause-up, such as 3-1-1",
    "frequency": "how often, such as 2× daily or 3 times a week",
    "side": "left | right | both | alternating",
    "load": "the load, such as 2 kg or a light band",
}

#: ``side`` words
SIDES = ("left", "right", "both", "alternating")

_RANGE = re.compile(r"^\s*(\d+)\s*(?:-|–|to)\s*(\d+)\s*$")
_SECONDS = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)\s*")   # "30 s", "45 seconds"
_TEMPO = re.compile(r"^\s*[\dxX]+(?:\s*[-–/:]\s*[\dxX]+){1,3}\s*$")


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        m = _SECONDS.fullmatch(value) if isinstance(value, str) else None
        return float(m.group(1)) if m else None
    return float(value) if math.isfinite(value) else None   # YAML's .inf and .nan are no duration


def check_field(key: str, value: Any) -> tuple[Any, tuple[str, str | None] | None]:
    """Validate prescription front matter ``key`` = ``value`` (as YAML read it).

    Returns ``(normalised value, None)`` or ``(None, (message, hint))``:

    - ``sets``: a whole number ≥ 1;
    - ``reps``: a whole number ≥ 1, or a range ``a-b`` with 1 ≤ a < b (kept as the text ``"8-12"``);
    - ``per_side``: true or false;
    - ``hold``, ``rest``: seconds, a number ≥ 0 (``hold`` > 0); ``30 s`` is read as 30;
    - ``tempo``: two to four numbers (or ``x``) joined by ``-``, such as ``3-1-1`` or ``2-0-x-0``;
    - ``frequency``, ``load``: short text (≤ 60 characters);
    - ``side``: one of :data:`SIDES`.
    """
    if key == "sets":
        n = _whole(value)
        if n is None or n < 1:
            return None, (f"'sets' must be a whole number of sets (1 or more), got {value!r}", "for example: sets: 3")
        return n, None
    if key == "reps":
        n = _whole(value)
        if n is not None:
            return (n, None) if n >= 1 else (None, ("'reps' must be 1 or more", "for example: reps: 10"))
        m = _RANGE.match(str(value)) if isinstance(value, str) else None
        if m and 1 <= int(m.group(1)) < int(m.group(2)):
            return f"{int(m.group(1))}-{int(m.group(2))}", None
        return None, (f"'reps' must be a whole number or a range such as 8-12, got {value!r}",
                      "for example: reps: 10 or reps: 8-12")
    if key == "per_side":
        if not isinstance(value, bool):
            return None, ("'per_side' must be true or false", "per_side: true when the reps are done on each side")
        return value, None
    if key in ("hold", "rest"):
        s = _seconds(value)
        if s is None or s < 0 or (key == "hold" and s == 0):
            return None, (f"'{key}' must be a number of seconds{' above 0' if key == 'hold' else ''}, got {value!r}",
                          f"for example: {key}: {30 if key == 'hold' else 60}")
        return (int(s) if s == int(s) else s), None
    if key == "tempo":
        text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
        if text is None or not _TEMPO.match(text):
            return None, (f"'tempo' must be seconds per part joined by '-', such as 3-1-1, got {value!r}",
                          "join the parts with '-', as in tempo: 3-1-1 (YAML reads 3:1:1 as a number)"
                          if isinstance(value, int) else
                          "lower-pause-lift, in seconds (x: as fast as possible)")
        return re.sub(r"\s*[-–/:]\s*", "-", text.strip()), None
    if key in ("frequency", "load"):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
            return None, (f"'{key}' must be text", "for example: frequency: 2× daily" if key == "frequency"
                          else "for example: load: 2 kg dumbbells")
        text = str(value).strip()
        if len(text) > 60:
            return None, (f"'{key}' is {len(text)} characters long (at most 60)", "keep it to a short phrase")
        return text, None
    if key == "side":
        word = str(value).strip().lower() if isinstance(value, str) else None
        if word not in SIDES:
            return None, (f"'side' must be one of {', '.join(SIDES)}, got {value!r}", None)
        return word, None
    raise KeyError(key)


def _side_words() -> dict[str, str]:
    return {"left": UI["prescription.side_left"], "right": UI["prescription.side_right"],
            "both": UI["prescription.side_both"], "alternating": UI["prescription.side_alternating"]}


def _dose(meta: dict) -> str:
    """``sets`` × ``reps``: "3 × 10", "3 sets", "10 reps" or "" (``per_side`` not included)."""
    sets, reps = meta.get("sets"), meta.get("reps")
    if sets and reps:
        return UI["prescription.sets_reps"].format(sets=sets, reps=reps)
    if sets:
        return UI.plural("prescription.sets", sets)
    if reps:
        return UI.plural("prescription.reps", reps)
    return ""


def prescription_lines(meta: dict) -> list[tuple[str, str, str]]:
    """The page's prescription (its normalised front matter ``meta``) as ``(key, label, text)``
    triples in reading order, labels and words from the site's interface strings
    (:data:`posecode_ssg.site.strings.UI`): ``("dose", "Dose", "3 × 10 each side")``,
    ``("hold", "Hold", "30 s")``, ``("rest", "Rest", "60 s between sets")`` (not for one set), then ``tempo``,
    ``frequency``, ``side``, ``load``. ``per_side`` reads "each side" after the dose, or after
    the hold when the page gives neither sets nor reps. Empty without any prescription key."""
    out: list[tuple[str, str, str]] = []
    dose, each = _dose(meta), bool(meta.get("per_side"))
    hold = UI["prescription.seconds"].format(seconds=meta["hold"]) if "hold" in meta else ""
    if each and (dose or not hold):
        dose = UI["prescription.each_side"].format(dose=dose).strip()
    elif each:
        hold = UI["prescription.each_side"].format(dose=hold)
    if dose:
        out.append(("dose", UI["prescription.dose"], dose))
    if hold:
        out.append(("hold", UI["prescription.hold"], hold))
    if "rest" in meta and meta.get("sets") != 1:   # (no rest between sets of one set)
        out.append(("rest", UI["prescription.rest"], UI["prescription.rest_seconds"].format(seconds=meta["rest"])))
    if "tempo" in meta:
        out.append(("tempo", UI["prescription.tempo"], meta["tempo"]))
    if "frequency" in meta:
        out.append(("frequency", UI["prescription.frequency"], meta["frequency"]))
    if "side" in meta:
        out.append(("side", UI["prescription.side"], _side_words().get(meta["side"], meta["side"])))
    if "load" in meta:
        out.append(("load", UI["prescription.load"], meta["load"]))
    return out


def card_dose(meta: dict) -> str:
    """A card's one-line dose: the dose and the hold of :func:`prescription_lines` joined by
    " · " ("3 × 10 each side", "3 sets · hold 30 s"); "" without either."""
    parts = []
    for key, _label, text in prescription_lines(meta):
        if key == "dose":
            parts.append(text)
        elif key == "hold":
            parts.append(UI["prescription.card_hold"].format(hold=text))
    return " · ".join(parts)


def search_text(meta: dict) -> str:
    """The prescription as words for the search index: each line's label and text ("Dose 3 × 10
    Hold 30 s ..."), so "3 × 10" or "hold" finds the page; "" without a prescription."""
    return " ".join(f"{label} {text}" for _key, label, text in prescription_lines(meta))


def rep_target(meta: dict) -> int | None:
    """The number a page's figures count repetitions to ("Rep k of N"): its front matter
    ``reps``, the upper end of a range (``8-12`` → 12); None without a valid ``reps`` (the
    figures then count to their document's ``repeat``). ``meta`` may be raw YAML (the dev
    server's figure swap): the value is checked with :func:`check_field`."""
    if "reps" not in meta:
        return None
    reps, bad = check_field("reps", meta["reps"])
    if bad is not None:
        return None
    return reps if isinstance(reps, int) else int(reps.rsplit("-", 1)[1])
