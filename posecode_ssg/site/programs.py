"""Programs (issue 22): a page whose front matter has ``program:`` is a session of exercises
given by reference, as a physiotherapist gives a home-exercise program.

```yaml
rest_between: 60            # seconds between two exercises (default 60)
program:
  - page: rehab/heel-slides.md
  - page: rehab/glute-bridge.md
    sets: 2
    notes: Only as high as is comfortable
  - rehab/straight-leg-raise.md   # a bare path: the exercise as its page prescribes it
```

Each item names an exercise page (relative to the program page's folder, or to the content
folder) and may override that page's prescription (``sets``, ``reps``, ``per_side``, ``hold``,
``rest``, ``tempo``, ``frequency``, ``side``, ``load``: each checked as on an exercise page,
:func:`posecode_ssg.site.prescription.check_field`) and add ``notes``. A field it does not give
is the exercise page's own.

:func:`read_program` validates the front matter (at parse time, one page at a time);
:func:`resolve_program` finds the exercise pages once every page is parsed (a broken reference
is an error at its line and column, with a did-you-mean); :func:`exercise_seconds` and
:func:`session_seconds` give the session's time (docs/programs.md).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from typing import Any

import yaml

from posecode_ssg.site.prescription import PRESCRIPTION_KEYS, check_field, rep_target

#: the keys of one program item and what they hold (docs/programs.md)
ITEM_KEYS: dict[str, str] = {
    "page": "the exercise page (a path to its .md or .posecode file)",
    **PRESCRIPTION_KEYS,
    "notes": "a note to the patient about this exercise (text)",
}

#: seconds between two exercises when the program does not say (issue 22)
REST_BETWEEN_DEFAULT = 60

#: the longest ``notes`` text (characters)
NOTES_MAX = 500

#: a program page's front matter starts with ``---`` and has a top-level ``program:`` key
_FRONT = re.compile(rb"\A(?:\xef\xbb\xbf)?---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*\r?$", re.S | re.M)
_PROGRAM_KEY = re.compile(rb"^program[ \t]*:", re.M)


def declares_program(source: bytes) -> bool:
    """Whether a Markdown source's front matter has a top-level ``program:`` key (read before
    the page is parsed: a program page lists other pages, so the build keeps it in the process
    that sees every page, as it does section index pages)."""
    m = _FRONT.match(source)
    return bool(m and _PROGRAM_KEY.search(m.group(1)))


def _position(node: yaml.Node | None, offset: int, fallback: tuple[int, int]) -> tuple[int, int, int]:
    """``(line, column, span)`` of a YAML node on the document's lines (``offset``: the line of
    the front matter's first line)."""
    if node is None:
        return fallback[0], fallback[1], 0
    line, column = node.start_mark.line + offset, node.start_mark.column + 1
    one_line = isinstance(node, yaml.ScalarNode) and node.end_mark.line == node.start_mark.line
    return line, column, (node.end_mark.column - node.start_mark.column) if one_line else 0


def read_program(value: Any, node: yaml.Node | None, offset: int, at: tuple[int, int], problem) -> list[dict] | None:
    """Validate front matter ``program`` (``value`` as YAML read it, ``node`` its YAML node,
    ``offset`` the document line of the front matter's first line, ``at`` the key's position).

    ``problem(severity, code, line, column, message, hint, span)`` records each problem. Returns
    the items, each ``{"page": path, "at": [line, column, span], **fields}`` with the fields
    normalised (:func:`check_field`; ``notes`` as text), or None when ``program`` is not a list.
    An item that names no page is left out (an error); a field with a bad value is left out (an
    error); an unknown key is a warning with a did-you-mean."""
    nodes = node.value if isinstance(node, yaml.SequenceNode) else []
    if not isinstance(value, list) or not value:
        line, column, span = _position(node, offset, at)
        problem("error", "program-type", line, column,
                "'program' lists no exercise" if isinstance(value, list) else
                "'program' must be a list of exercises, one '- page: path/to/exercise.md' per line",
                "under 'program:', one line '- page: <the exercise page's file>' for each exercise", span)
        return None
    items: list[dict] = []
    for i, raw in enumerate(value):
        item_node = nodes[i] if i < len(nodes) else None
        where = _position(item_node, offset, at)
        keys: dict[str, yaml.Node] = {}
        if isinstance(raw, str):   # a bare path: the exercise as its page prescribes it
            raw, fields = {"page": raw}, {"page": item_node}
        elif isinstance(raw, dict):
            pairs = item_node.value if isinstance(item_node, yaml.MappingNode) else []
            fields = {str(k.value): v for k, v in pairs}
            keys = {str(k.value): k for k, _v in pairs}
        else:
            problem("error", "program-type", *where[:2],
                    f"exercise {i + 1} of 'program' must be a page path or a mapping with 'page:'",
                    "- page: rehab/heel-slides.md", where[2])
            continue
        item: dict = {}
        for key, val in raw.items():
            key = str(key)
            line, column, span = _position(fields.get(key), offset, where[:2])
            if key == "page":
                if not isinstance(val, str) or not val.strip():
                    problem("error", "program-type", line, column,
                            f"'page' of exercise {i + 1} must be the path of an exercise page", None, span)
                    continue
                item["page"], item["at"] = val.strip(), [line, column, span]
            elif key == "notes":
                if isinstance(val, bool) or not isinstance(val, (str, int, float)) or not str(val).strip():
                    problem("error", "front-matter-value", line, column, "'notes' must be text", None, span)
                elif len(str(val).strip()) > NOTES_MAX:
                    problem("error", "front-matter-value", line, column,
                            f"'notes' is {len(str(val).strip())} characters long (at most {NOTES_MAX})",
                            "keep it to a sentence or two", span)
                else:
                    item["notes"] = str(val).strip()
            elif key in PRESCRIPTION_KEYS:
                checked, bad = check_field(key, val)
                if bad is not None:
                    problem("error", "front-matter-value", line, column, *bad, span)
                else:
                    item[key] = checked
            else:
                close = difflib.get_close_matches(key, list(ITEM_KEYS), n=1)
                line, column, _span = _position(keys.get(key), offset, (line, column))
                problem("warning", "front-matter-unknown-key", line, column,
                        f"unknown key '{key}' in exercise {i + 1} of 'program' (ignored)",
                        f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(ITEM_KEYS)}", 0)
        if "page" not in item:
            if "page" not in raw:
                problem("error", "program-type", *where[:2], f"exercise {i + 1} of 'program' names no page",
                        "add 'page: path/to/exercise.md'", 0)
            continue
        items.append(item)
    return items


def resolve_program(page, items: list[dict], link_index,
                    records: dict[str, dict] | None) -> tuple[list[dict], list[dict]]:
    """The exercises of program ``page`` (its front matter ``items``, :func:`read_program`) found
    among the site's pages (``link_index``: :class:`~posecode_ssg.site.content.LinkIndex`;
    ``records``: src_uri -> page record). A path is read relative to the program page's folder,
    then to the content folder (``strength/squat.md`` from ``programs/knee.md``).

    With ``records`` None (``check``, which parses one page) only that each path names a page is
    checked, and no exercise is returned.

    Returns ``(exercises, problems)``: each exercise ``{"src_uri", "at", "rx", "notes"}`` (``rx``:
    the exercise page's prescription with the item's fields over it; its ``frequency`` left out
    when the program gives one); each problem a diagnostic
    dict, an error at the item's ``page`` value when the path names no page (with the closest
    page's path), a page without a figure, or another program."""
    exercises, problems = [], []
    for item in items:
        line, column, span = item["at"]
        target, hit = item["page"], None
        for candidate in (target, "/" + target.lstrip("/")):
            url, _err, hit = link_index.resolve(page, candidate)
            if url is not None and hit is not None:
                break
            hit = None
        message = None
        record = (records.get(hit.src_uri) if records is not None else {}) if hit is not None else None
        if hit is None or record is None:
            pages = [p for p, rec in records.items() if rec["figures"]] if records is not None else list(link_index.pages_by_src)
            guess = _closest_page(page, target, pages)
            message = (f"program exercise '{target}' names no page of the content folder"
                       + (f" (did you mean '{guess}'?)" if guess else ""))
        elif records is None:
            continue
        elif hit.src_uri == page.src_uri or record["meta"].get("program"):
            message = f"program exercise '{target}' is a program page, not an exercise"
        elif not record["figures"]:
            message = f"program exercise '{target}' has no Posecode figure: a program lists exercise pages"
        if message is not None:
            problems.append({"code": "program-page", "severity": "error", "line": line, "column": column,
                             "message": message, "hint": "write the path of an exercise page's file", "width": span})
            continue
        # (how often is the program's when it says: one frequency for the whole session)
        own = {k: v for k, v in record["meta"].items()
               if k in PRESCRIPTION_KEYS and not (k == "frequency" and "frequency" in page.meta)}
        rx = {**own, **{k: v for k, v in item.items() if k in PRESCRIPTION_KEYS}}
        if rx.get("per_side") and rx.get("side") in ("left", "right"):   # (as on an exercise page)
            problems.append({"code": "front-matter-value", "severity": "warning", "line": line, "column": column,
                             "message": f"program exercise '{target}' is dosed 'side: {rx['side']}' with 'per_side: "
                                        "true' (the item's or its page's): the reps are done on one side, not each side",
                             "hint": "give the item per_side: false, or side: both", "width": span})
        exercises.append({"src_uri": hit.src_uri, "at": item["at"], "rx": rx, "notes": item.get("notes")})
    return exercises, problems


def _closest_page(page, target: str, paths: list[str]) -> str | None:
    """The page of ``paths`` (content-relative) closest to ``target`` (difflib, cutoff 0.6),
    written as the author wrote the path: relative to ``page``'s folder when it was read that
    way, else from the content folder; or None."""
    joined = posixpath.normpath(posixpath.join(page.folder, target)) if not target.startswith("/") else ""
    relative = bool(joined) and not joined.startswith("..")
    close = difflib.get_close_matches(joined if relative else target.lstrip("/"), paths, n=1, cutoff=0.6)
    if not close:
        return None
    return posixpath.relpath(close[0], page.folder or ".") if relative else close[0]


def exercise_seconds(rx: dict, loop: float, repeat: int = 1, both_sides: bool = False) -> float:
    """Seconds one exercise of a program takes (issue 22, docs/programs.md):

    ``sets × reps × loop`` — or, for a hold exercise (a ``hold`` and no ``reps``),
    ``sets × hold``; doubled with ``per_side`` (unless ``both_sides``, with reps: one loop of the
    figure already works each side in turn, :func:`~posecode_ssg.site.figures.works_both_sides`,
    so a repetition each side is one loop); plus ``(sets − 1) × rest``.

    ``rx``: the exercise's prescription (front matter values as
    :func:`~posecode_ssg.site.prescription.check_field` returns them); ``loop``: the movement's
    loop duration (s: its figure's phases and the wrap back to the start, motion JSON
    ``duration``); ``repeat``: the figure's own repeat count, the reps when the prescription
    gives neither reps nor a hold. ``sets`` defaults to 1, ``rest`` to 0; a reps range
    (``8-12``) counts its upper end (the time the session may take)."""
    sets = int(rx.get("sets") or 1)
    reps = rep_target(rx)
    if reps is not None:
        work = sets * reps * loop
    elif rx.get("hold"):
        work = sets * float(rx["hold"])
    else:
        work = sets * max(1, int(repeat or 1)) * loop
    if rx.get("per_side") and not (both_sides and reps is not None):
        work *= 2
    return work + (sets - 1) * float(rx.get("rest") or 0)


def session_seconds(exercise_times: list[float], rest_between: float) -> float:
    """Seconds a whole program takes: its exercises' times (:func:`exercise_seconds`) and
    ``rest_between`` between each two of them."""
    return sum(exercise_times) + max(0, len(exercise_times) - 1) * rest_between
