"""Code actions (issue 26): every did-you-mean of a diagnostic as a quick fix, the hints that
name exactly one edit (a keyword's case, a legacy timing name, ``twist-left`` for an axial
``rotate-in``, ``reach`` for a second pin, a missing ``prop``, an indentation, ``°`` after an
angle...), ``reach: <contact> floor`` instead of a ground-lock whose contact is not yet planted,
and the solver-backed fixes of :func:`posecode_ssg.motion.fixes.propose_fixes` (moved from a
fence into its Markdown file).

A :class:`Fix` edits the document by code-point offsets; the server turns them into LSP ranges.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.lexer import SPACE

from .analysis import Analysis, Unit
from .context import head_of, indent_of, is_blank, strip_comment, tokens

log = logging.getLogger("posecode_ssg.lsp")

_DID_YOU_MEAN = re.compile(r"did you mean (?:`([^`]+)`|'([^']+)')\?")
_QUOTED = re.compile(r'"([^"\n]+)"')
_WORD = re.compile(r"[A-Za-z0-9_.\-°]+")


@dataclass
class Fix:
    """A quick fix: ``edits`` are (start offset, end offset, new text) in the document."""

    title: str
    diagnostic: Diagnostic | None
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    preferred: bool = False


def _word_span(analysis: Analysis, d: Diagnostic) -> tuple[int, int, str]:
    """(start, end, text) of what a diagnostic points at: the quoted word of its message when
    the text there starts with it (``left fot``), else the word at its column."""
    lines = analysis.lines
    text = lines.check_line(d.line)
    col = max(0, min(d.column - 1, len(text)))
    start = lines.check_offset(d.line, d.column)
    for q in _QUOTED.findall(d.message):
        if text.startswith(q, col):
            return start, start + len(q), q
    m = _WORD.match(text, col)
    word = m.group(0) if m else ""
    return start, start + len(word), word


def _page_span(analysis: Analysis, d: Diagnostic) -> tuple[int, int, str]:
    """(start, end, text) of what a page diagnostic's carets underline (its ``width``, else the
    word or quoted string at its column, as ``check`` draws them), quotes left out."""
    from posecode_ssg.site.report import caret_width

    lines = analysis.lines
    text = lines.check_line(d.line)
    width = (d.extra or {}).get("width")
    if not isinstance(width, int) or width <= 0:
        width = caret_width(text, d.column)
    start = lines.check_offset(d.line, d.column)
    word = analysis.text[start:start + width]
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        return start + 1, start + width - 1, word[1:-1]
    return start, start + len(word), word


def _line_span(analysis: Analysis, line: int) -> tuple[int, int, str]:
    """(start, content end, text) of a file line."""
    lines = analysis.lines
    text = lines.check_line(line)
    start = lines.check_offset(line, 1)
    return start, start + len(text), text


def _head_span(analysis: Analysis, line: int) -> tuple[int, int, str]:
    start, _end, text = _line_span(analysis, line)
    ind = indent_of(text)
    head = head_of(text)
    return start + ind, start + ind + len(head), head


def _doc_indent(analysis: Analysis, unit: Unit | None) -> str:
    lines = unit.lines if unit is not None else []
    for text in lines[1:]:
        if not is_blank(text) and head_of(text) in ("rig", "avatar", "prop", "pose", "clip", "repeat", "step"):
            return text[:indent_of(text)]
    return "  "


def _replace(title: str, d: Diagnostic, span: tuple[int, int, str], new: str, preferred: bool = True) -> Fix:
    return Fix(title, d, [(span[0], span[1], new)], preferred)


def parser_fixes(analysis: Analysis, d: Diagnostic) -> list[Fix]:
    """The fixes a parser diagnostic's hint names (none when it names no single edit)."""
    hint = d.hint or ""
    out: list[Fix] = []
    m = _DID_YOU_MEAN.search(hint) or _DID_YOU_MEAN.search(d.message)
    unit = analysis.unit_at(d.line)
    if m:
        new = m.group(1) or m.group(2)
        span = _word_span(analysis, d) if unit is not None else _page_span(analysis, d)
        if span[2] and span[2] != new:
            if new == "hold neutral":   # `knees: neutral 15` -> `knees: hold neutral`
                _s, end, _t = _line_span(analysis, d.line)
                text = analysis.text[span[0]:end]
                rest = re.match(r"\S+[" + re.escape(SPACE) + r"]*[-+0-9.]*", text)
                span = (span[0], span[0] + (rest.end() if rest else len(span[2])), span[2])
            out.append(_replace(f"Replace `{span[2]}` with `{new}`", d, span, new))
        return out
    code = d.code
    m = re.match(r"keywords are lower-case: write `([^`]+)`, not `([^`]+)`", hint)
    if m:
        span = _head_span(analysis, d.line)
        if span[2] == m.group(2):
            out.append(_replace(f"Write `{m.group(1)}`", d, span, m.group(1)))
        return out
    if code == "legacy-easing" and (m := re.fullmatch(r"write `([a-z\-]+)`", hint)):
        out.append(_replace(f"Write `{m.group(1)}`", d, _word_span(analysis, d), m.group(1)))
    elif code == "axial-rotate" and (m := re.search(r"`(twist-left|twist-right)` says", d.message)):
        out.append(_replace(f"Write `{m.group(1)}`", d, _word_span(analysis, d), m.group(1)))
    elif code in ("unknown-joint", "unknown-reach-target") and (
            m := re.match(r"(?:use|target the bone) `([A-Za-z_]+)`", hint)):
        out.append(_replace(f"Replace with `{m.group(1)}`", d, _word_span(analysis, d), m.group(1)))
    elif (m := re.match(r"put a `:` after `([^`]+)`", hint)):
        start, _e, word = _word_span(analysis, d)
        if word == m.group(1):
            end = start + len(word)
            out.append(Fix(f"Add `:` after `{word}`", d, [(end, end, ":")], True))
    elif code == "unexpected-character" and "°" in d.message:
        start = analysis.lines.check_offset(d.line, d.column)
        if analysis.text[start:start + 1] == "°":
            out.append(Fix("Remove `°` (angles are plain degrees)", d, [(start, start + 1, "")], True))
    elif code.endswith("-undeclared-prop") and (m := re.match(r"add `prop ([a-z\-]+)` beneath the header", hint)):
        out += _add_prop(analysis, unit, d, m.group(1))
    elif code.endswith("-undeclared-prop") and (m := re.match(r"fix the prop on line (\d+): `prop ([a-z\-]+)`", hint)):
        line = int(m.group(1))
        start, _e, text = _line_span(analysis, line)
        words = [t for t in tokens(text) if t.kind == "word"]
        if len(words) >= 2 and words[0].text == "prop":
            out.append(Fix(f"Write `prop {m.group(2)}` on line {line}", d,
                           [(start + words[1].start, start + words[1].end, m.group(2))], True))
    elif code in ("pin-body-anchor", "multiple-pins"):
        span = _head_span(analysis, d.line)
        if span[2] == "pin":
            out.append(_replace("Use `reach:` instead of `pin:`", d, span, "reach"))
    elif code == "grip-with-pin" and (m := re.match(r"turn the pin on line (\d+) into `reach:`", hint)):
        span = _head_span(analysis, int(m.group(1)))
        if span[2] == "pin":
            out.append(_replace(f"Turn the pin on line {m.group(1)} into `reach:`", d, span, "reach"))
    elif code == "reach-pelvis":
        span = _head_span(analysis, d.line)
        words = [t.text for t in tokens(_line_span(analysis, d.line)[2]) if t.kind == "word"]
        target = words[2] if len(words) > 2 else ""
        if span[2] == "reach" and (target == V.FLOOR or target in V.ANCHOR_PROP):
            out.append(_replace("Use `pin:` (moves the body) instead of `reach:`", d, span, "pin"))
    elif code == "grip-grouped-sided-anchor" and (m := re.match(r"write `grip: hands ([a-z_\-]+)`", hint)):
        out.append(_replace(f"Write `{m.group(1)}`", d, _word_span(analysis, d), m.group(1)))
    elif code == "grip-anchor-side-mismatch" and (m := re.match(r"use `([a-z_\-]+)` or the bare anchor", hint)):
        span = _word_span(analysis, d)
        out.append(_replace(f"Write `{m.group(1)}`", d, span, m.group(1), False))
        bare = m.group(1).rsplit("_", 1)[0]
        out.append(_replace(f"Write the bare anchor `{bare}`", d, span, bare, False))
    elif code in ("top-level-indent-mismatch", "top-level-not-indented", "step-child-indent-mismatch",
                  "start-override-indent-mismatch"):
        out += _reindent(analysis, unit, d)
    return out


def _add_prop(analysis: Analysis, unit: Unit | None, d: Diagnostic, prop: str) -> list[Fix]:
    if unit is None:
        return []
    after = 1   # the header (unit line 1)
    for k, text in enumerate(unit.lines, 1):
        if k > 1 and not is_blank(text) and head_of(text) in ("rig", "avatar", "prop", "clip"):
            after = k
        if head_of(text) in ("pose", "step"):
            break
    file_line = unit.file_position(after, 1)[0]
    _s, end, _t = _line_span(analysis, file_line)
    prefix = ""
    if unit.fence_line is not None and after - 1 < len(unit.prefixes):
        prefix = analysis.lines.check_line(file_line)[:unit.prefixes[after - 1]]
    eol = "\r\n" if analysis.text[end:end + 2] == "\r\n" else "\n"
    return [Fix(f"Add `prop {prop}` beneath the header", d,
                [(end, end, f"{eol}{prefix}{_doc_indent(analysis, unit)}prop {prop}")], True)]


def _reindent(analysis: Analysis, unit: Unit | None, d: Diagnostic) -> list[Fix]:
    hint = d.hint or ""
    start, _end, text = _line_span(analysis, d.line)
    shift = 0
    if unit is not None and unit.fence_line is not None:
        k = unit.unit_position(d.line, 1)
        shift = unit.prefixes[k[0] - 1] if k and k[0] - 1 < len(unit.prefixes) else 0
    body = text[shift:]
    if (m := re.match(r"indent it by (\d+) like the first directive", hint)):
        new = " " * int(m.group(1))
    elif (m := re.match(r"indent it like line (\d+)", hint)):
        other = analysis.lines.check_line(int(m.group(1)))[shift:]
        new = other[:indent_of(other)]
    elif d.code == "top-level-not-indented":
        new = _doc_indent(analysis, unit)
    else:
        return []
    old = indent_of(body)
    a, b = start + shift, start + shift + old
    if analysis.text[a:b] == new:
        return []
    return [Fix("Fix the indentation", d, [(a, b, new)], True)]


_LIFTED = re.compile(r"ground-lock (\S+) in phase")


def kinematic_fixes(analysis: Analysis, d: Diagnostic, kinematic: list[Diagnostic]) -> list[Fix]:
    """``reach: <contact> floor`` instead of the ground-lock of a contact that is not yet planted
    (``kinematic-ground-lock-lifted``): the contact (or its group, when every member is lifted)
    leaves the ground-lock line and reaches for the floor on a line of its own."""
    if d.code != "kinematic-ground-lock-lifted" or not (m := _LIFTED.match(d.message)):
        return []
    contact = m.group(1)
    start, end, text = _line_span(analysis, d.line)
    if head_of(text) != "ground-lock" or ":" not in text:
        return []
    lifted = {mm.group(1) for k in kinematic if k.code == d.code and k.line == d.line
              and (mm := _LIFTED.match(k.message))}
    code = strip_comment(text).rstrip(SPACE)
    comment = text[len(code):]
    colon = code.index(":")
    names = [n.strip(SPACE) for n in re.split(r",|\band\b", code[colon + 1:]) if n.strip(SPACE)]
    names = [V.GROUND_LOCK_READABLE.get(" ".join(n.split()), n) for n in names]
    moving = None
    for n in names:
        members = V.GROUND_LOCK_EXPANSION.get(n, (n,))
        if contact in members:
            moving = n if all(x in lifted for x in members) else contact
            break
    if moving is None or moving == "back" or (moving not in V.EFFECTOR_GROUPS and moving not in V.EFFECTOR_BONE):
        return []
    keep = []
    for n in names:
        if n == moving:
            continue
        if moving != n and moving in V.GROUND_LOCK_EXPANSION.get(n, ()):
            keep += [x for x in V.GROUND_LOCK_EXPANSION[n] if x != moving]
            continue
        keep.append(n)
    indent = text[:indent_of(text)]
    reach = f"{indent}reach: {moving} floor"
    if keep:
        eol = "\r\n" if analysis.text[end:end + 2] == "\r\n" else "\n"
        new = f"{code[:colon + 1]} {', '.join(keep)}{comment}{eol}{reach}"
    else:
        new = reach + comment
    return [Fix(f"Use `reach: {moving} floor` instead of ground-lock (not yet planted)", d,
                [(start, end, new)], True)]


def solver_fixes(analysis: Analysis, unit: Unit, proposed: list[Any], diagnostics: list[Diagnostic]) -> list[Fix]:
    """The fixes of :func:`posecode_ssg.motion.fixes.propose_fixes` for one unit (``proposed``: its
    fixes, or ``(document diagnostic, fix)`` pairs), moved into the file (a fence's lines and
    columns shift into the Markdown file; an insertion after the last line goes to the end of the
    unit's last line) and attached to the diagnostic they answer: same code and line (and message,
    when the pair names it)."""
    out = []
    n = len(unit.lines)
    for item in proposed:
        d_doc, f = item if isinstance(item, tuple) else (None, item)
        try:
            edits = []
            for e in f.edits:
                line = int(e.line)
                if line > n:
                    a = b = analysis.lines.check_offset(*unit.file_position(n, len(unit.lines[n - 1]) + 1))
                else:
                    file_line, col_a = unit.file_position(line, int(e.start) + 1)
                    _l, col_b = unit.file_position(line, int(e.end) + 1)
                    a = analysis.lines.check_offset(file_line, col_a)
                    b = analysis.lines.check_offset(file_line, col_b)
                edits.append((a, max(a, b), str(e.new_text)))
            file_line = unit.file_position(int(f.line), 1)[0]
            same = [d for d in diagnostics if d.code == f.code and d.line == file_line]
            if d_doc is not None and len(same) > 1:
                same = [d for d in same if d.message == getattr(d_doc, "message", None)] or same
            out.append(Fix(str(f.message), same[0] if same else None, edits, False))
        except Exception:   # a malformed proposal is skipped, never a failed request
            log.exception("skipping a proposed fix")
    return out
