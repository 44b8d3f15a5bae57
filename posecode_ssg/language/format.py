"""The Posecode formatter behind ``posecode-ssg fmt`` (issue 26 item 2) and the language server's
format request: one canonical layout for a document, or for every ```` ```posecode ```` fence of a
Markdown page.

The layout (documented for authors in docs/language.md, "Formatting"):

- the header in the first column, top-level directives indented 2 spaces, step children and
  start-pose overrides 4 (spec §1 writes its examples this way);
- every statement written with single spaces between its words (``step "Lower" 1.5s settle:``,
  ``knees: flex 40``, ``ground-lock: hand_left, foot_right``, ``pose start = standing:``); words,
  numbers and quoted text are kept exactly as written, except the v0.1 timing names, which become
  their canonical v0.2 modes (``ease-in`` -> ``drive``, ``ease-out`` and ``ease-in-out`` ->
  ``settle``: spec §1 "Legacy v0.1 spellings");
- a blank line before every step (above the comments that lead into it) and after every block
  (a step, or a ``pose start = X:`` with its overrides); no blank line right after the header nor
  inside a block; any other single blank line the author left between top-level lines is kept,
  runs of blank lines become one; no blank lines at the start or the end; one final newline;
- comments kept: a whole-line comment takes the indentation of the level it belongs to (a step's
  children when it sits among them or is indented beneath the step, else the document level; the
  first column before the header); a comment at the end of a statement keeps its column, moved
  right when needed so that two spaces separate it from the statement;
- the line endings of the input (the style of its first line break) and a leading byte order mark.

A document with errors is never changed: :func:`format_source` returns it as it is with its
errors. The formatter works from the parser's own statements (``lexer.read_statements``), and
checks its result: if the formatted text does not parse to the same IR and diagnostics (line and
column aside, and the ``legacy-easing`` hints the alias rewrite removes), the input is returned
unchanged with an ``internal-error`` diagnostic instead (a formatter bug, never silent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.context import Context
from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.lexer import SPACE, TOP_LEVEL, Statement, read_statements, split_lines
from posecode_ssg.language.parser import ParseResult, parse

#: one indentation level, as the spec writes it
INDENT = "  "
#: the spaces a trailing comment needs at least between itself and its statement
COMMENT_GAP = 2


@dataclass
class FormatResult:
    """What :func:`format_source` and :func:`format_markdown` return: the formatted ``text`` (the
    input itself when nothing could be formatted), whether it differs from the input
    (``changed``) and the parser's error diagnostics of what was left unformatted (empty when
    everything was formatted). Positions are those of the input text: document lines for
    :func:`format_source`, file lines for :func:`format_markdown`."""

    text: str
    changed: bool
    diagnostics: list = field(default_factory=list)


class _CannotFormat(Exception):
    """A line the formatter does not know how to write (never expected for a document that
    parses): the document is left unchanged."""


@dataclass
class _Item:
    """One non-blank line of the document: a statement (``kind`` header, top or child) or a
    whole-line comment, with the output text (without indentation) and layout facts."""

    kind: str
    text: str
    indent: int               # its indentation in the input (characters)
    blank_before: bool        # the author left a blank line above it
    level: int = 0            # output indentation level (0 header, 1 top level, 2 in a block)
    opens: bool = False       # a step or ``pose start = X:`` line
    step: bool = False
    comment: str = ""         # the comment at the end of a statement line, as written
    comment_column: int = 0   # its 0-based column in the input


def _comment_start(raw: str) -> int | None:
    """Index of the comment (``#`` or ``//``) on a statement line, outside quoted text; None
    when the line has none. Quoted text runs to the next ``"`` (no escapes, spec §1)."""
    quoted = False
    for i, ch in enumerate(raw):
        if ch == '"':
            quoted = not quoted
        elif not quoted and (ch == "#" or (ch == "/" and raw.startswith("//", i))):
            return i
    return None


def _statement_text(st: Statement) -> str:
    """The canonical text of one parsed statement (no indentation, no comment)."""
    rule, toks = st.rule, [str(t) for t in st.tokens]
    if rule == "header" and len(toks) == 2:
        return f"posecode {toks[0]} {toks[1]}"
    if rule in ("rig", "avatar", "prop", "clip", "repeat", "cue") and len(toks) == 1:
        return f"{rule} {toks[0]}"
    if rule == "pose" and toks:
        return f"pose start = {toks[0]}" + (":" if len(toks) > 1 else "")
    if rule == "step" and len(toks) == 3:
        name, duration, mode = toks
        return f"step {name} {duration} {V.TIMING_ALIASES.get(mode, mode)}:"
    if rule == "joint_target" and len(toks) == 3:
        return f"{toks[0]}: {toks[1]} {toks[2]}"
    if rule == "hold_target" and toks:
        return f"{toks[0]}: hold" + "".join(f" {t}" for t in toks[1:])
    if rule == "ground_lock" and toks:
        words = "".join("," if t.type == "COMMA" else f" {t}" for t in st.tokens)
        return "ground-lock:" + words
    if rule in ("reach", "pin", "grip", "turn", "travel") and toks:
        return f"{rule.replace('_', '-')}: " + " ".join(toks)
    raise _CannotFormat(rule)


def _items(lines: list[str], stmts: list[Statement]) -> list[_Item]:
    """The non-blank lines of a parsed document as items, statements and comments in order."""
    by_line = {st.line: st for st in stmts}
    items: list[_Item] = []
    blank = False
    for idx, raw in enumerate(lines):
        stripped = raw.strip(SPACE)
        if not stripped:
            blank = True
            continue
        indent = len(raw) - len(raw.lstrip(SPACE))
        st = by_line.get(idx + 1)
        if st is None:
            if not stripped.startswith(("#", "//")):
                raise _CannotFormat(raw)
            items.append(_Item("comment", stripped, indent, blank))
        else:
            if st.rule is None:
                raise _CannotFormat(raw)
            kind = "header" if st.rule == "header" else "top" if st.head in TOP_LEVEL else "child"
            item = _Item(kind, _statement_text(st), indent, blank, opens=st.opens_block,
                         step=st.head == "step")
            at = _comment_start(raw)
            if at is not None:
                item.comment, item.comment_column = raw[at:].rstrip(SPACE), at
            items.append(item)
        blank = False
    if not any(it.kind == "header" for it in items):
        raise _CannotFormat("no header")
    return items


def _levels(items: list[_Item]) -> None:
    """Set each item's indentation level: header 0, top-level directives 1, children 2; a
    comment before the header 0; a comment after a block opener at the children's level while a
    child of that block follows it, or while it is indented deeper than the opener (until a
    comment at the document level has been seen), else at the document level."""
    next_kind: list[str | None] = [None] * len(items)
    following = None
    for i in range(len(items) - 1, -1, -1):
        next_kind[i] = following
        if items[i].kind != "comment":
            following = items[i].kind
    header_seen, opener, doc_seen = False, None, False
    for i, it in enumerate(items):
        if it.kind == "header":
            header_seen, it.level = True, 0
        elif it.kind == "top":
            it.level, opener, doc_seen = 1, (it if it.opens else None), False
        elif it.kind == "child":
            it.level = 2
        elif not header_seen:
            it.level = 0
        elif opener is not None and (next_kind[i] == "child"
                                     or (not doc_seen and it.indent > opener.indent)):
            it.level = 2
        else:
            it.level, doc_seen = 1, True


def _attached(items: list[_Item], i: int) -> bool:
    """Whether item ``i`` is a document-level comment with the next line directly below it."""
    it = items[i]
    return (it.kind == "comment" and it.level == 1 and i + 1 < len(items)
            and not items[i + 1].blank_before)


def _starts_step_group(items: list[_Item], i: int) -> bool:
    """Whether item ``i`` begins a step together with the document-level comments directly
    above that step (the lines a blank line goes above)."""
    if i > 0 and _attached(items, i - 1):
        return False
    k = i
    while _attached(items, k):
        k += 1
    return items[k].step


def _blank_before(items: list[_Item], i: int) -> bool:
    """The blank-line rule between item ``i - 1`` and item ``i`` (module docstring)."""
    before, it = items[i - 1], items[i]
    if it.level == 2:
        return False          # inside a block
    if it.level == 1 and _starts_step_group(items, i):
        return True
    if before.level == 2 or before.opens:
        return it.level == 1  # after a block
    if before.kind == "header":
        return False
    return it.blank_before


def _lines(items: list[_Item]) -> list[str]:
    """The output lines of the items (no line ends)."""
    out: list[str] = []
    for i, it in enumerate(items):
        if i > 0 and _blank_before(items, i):
            out.append("")
        line = INDENT * it.level + it.text
        if it.comment:
            # the comment keeps its column when the statement leaves room for it
            column = max(it.comment_column, len(line) + COMMENT_GAP)
            line += " " * (column - len(line)) + it.comment
        out.append(line)
    return out


def _layout(text: str) -> str:
    """The canonical text of a document that parses (without BOM handling or line-end style:
    lines joined with LF, one final LF)."""
    lines = split_lines(text)
    stmts = read_statements(Context(lines))
    items = _items(lines, stmts)
    _levels(items)
    return "\n".join(_lines(items)) + "\n"


def _strip_positions(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_positions(v) for k, v in value.items() if k not in ("line", "column")}
    if isinstance(value, list):
        return [_strip_positions(v) for v in value]
    return value


def comparable(result: ParseResult) -> dict:
    """``result.to_dict()`` without line and column fields and without ``legacy-easing`` hints:
    what formatting must preserve (the alias rewrite removes those hints, by design)."""
    d = _strip_positions(result.to_dict())
    d["hints"] = [h for h in d["hints"] if h.get("code") != "legacy-easing"]
    return d


def _newline(text: str) -> str:
    """The line-end style of ``text``: that of its first line break (LF when it has none)."""
    at = text.find("\n")
    return "\r\n" if at > 0 and text[at - 1] == "\r" else "\n"


def format_source(text: str) -> FormatResult:
    """Format one whole Posecode document (the text of a ``.posecode`` file or of a fence).

    Returns the canonical text (module docstring), keeping the input's line-end style and a
    leading byte order mark. A document with errors is returned unchanged, ``changed`` False,
    with its error diagnostics (document lines). Pure, and never raises for any input.
    """
    if not isinstance(text, str):
        return FormatResult(text, False, [])
    try:
        result = parse(text)
        if result.errors:
            return FormatResult(text, False, list(result.errors))
        body = _layout(text)
        if comparable(parse(body)) != comparable(result):
            raise _CannotFormat("meaning changed")
        nl = _newline(text)
        out = ("\ufeff" if text.startswith("\ufeff") else "") + (body if nl == "\n" else body.replace("\n", nl))
        return FormatResult(out, out != text, [])
    except Exception as exc:  # a formatter bug: report it, change nothing
        return FormatResult(text, False, [Diagnostic(
            "internal-error", "error", 1, 1,
            f"the formatter could not lay this document out ({type(exc).__name__}); it was left unchanged",
            "this is a bug in posecode-ssg fmt: please report it with the document")])


# --------------------------------------------------------------------------------------------
# Markdown: the ```posecode fences of a page, formatted in place
# --------------------------------------------------------------------------------------------

_LINE_END = re.compile(r"\r\n|\r|\n")


@lru_cache(maxsize=1)
def _pipeline():
    """The site's Markdown pipeline (the one ``build`` and ``check`` read pages with), so a
    fence is formatted exactly when the page renders it as a figure. Only its block stage runs:
    the core rules after the one that finds the figures (inline parsing, heading ids...) cannot
    change which fences there are, and would double the time of a format request."""
    from posecode_ssg.site.content import create_markdown

    md = create_markdown()
    names = md.core.ruler.get_all_rules()
    if "posecode_fences" in names:
        md.core.ruler.disable(names[names.index("posecode_fences") + 1:])
    return md


def _fences(text: str) -> list:
    """The Posecode fence tokens of ``text`` (no BOM, any line ends), in page order, closed
    fences only (an unclosed one is no figure: the page reports it)."""
    from posecode_ssg.site.markdown import posecode_env

    env: dict = {}
    _pipeline().parse(text, env)
    return [t for t in posecode_env(env).figures if t.map and not (t.meta or {}).get("unclosed")]


def _split_keep_ends(text: str) -> tuple[list[str], list[str]]:
    """Lines (Markdown's line breaks: CRLF, CR or LF) and each one's line end ('' for the last)."""
    lines, ends, pos = [], [], 0
    for m in _LINE_END.finditer(text):
        lines.append(text[pos:m.start()])
        ends.append(m.group(0))
        pos = m.end()
    lines.append(text[pos:])
    ends.append("")
    return lines, ends


def _body(token) -> list[str]:
    body = token.content.split("\n")
    if body and body[-1] == "":
        body.pop()
    return body


def _fence_edit(token, lines: list[str]):
    """For one fence token: ``(first, count, new_lines, content, errors)`` — its body's first
    file line (0-based), how many body lines it has, the formatted body lines with their
    container prefix (None when unchanged or not formattable) and the content they hand back to
    the Markdown pipeline; ``errors`` holds the fence's parser errors moved to file positions."""
    from posecode_ssg.site.fences import Block

    first = token.map[0] + 1
    count = max(0, token.map[1] - 1 - first)
    body = _body(token)
    raw = lines[first:first + count]
    prefixes = tuple(len(r) - len(b) if b and r.endswith(b) else 0 for r, b in zip(raw, body))
    result = format_source(token.content)
    if result.diagnostics:
        block = Block(token.content, first + 1, token.map[0] + 1, token.info, {}, prefixes)
        errors = [d.moved(*block.file_position(d.line, d.column),
                          lambda n: block.file_position(n, 1)[0]) for d in result.diagnostics]
        return first, count, None, None, errors
    if not result.changed or len(body) != count:
        return first, count, None, None, []
    # the container prefix (list indentation, `> ` markers, the fence's own indentation) is the
    # one in front of the header line, which the parser requires in the body's first column
    prefix = None
    for r, b in zip(raw, body):
        if b and b[0] not in SPACE and not b.startswith(("#", "//")):
            prefix = r[:len(r) - len(b)] if r.endswith(b) else None
            break
    if prefix is None:
        return first, count, None, None, []
    new = result.text.removesuffix("\n").split("\n")
    blank = prefix.rstrip(" \t")
    return first, count, [prefix + ln if ln else blank for ln in new], result.text, []


def _apply(lines: list[str], ends: list[str], edits: list) -> str:
    """The page with the body lines of each edit replaced (later edits first, so earlier line
    numbers stay valid); new lines take the line end of the body's first line."""
    lines, ends = list(lines), list(ends)
    for first, count, new, _content in sorted(edits, key=lambda e: e[0], reverse=True):
        nl = ends[first] or next((e for e in ends if e), "\n")
        lines[first:first + count] = new
        ends[first:first + count] = [nl] * len(new)
    return "".join(line + end for line, end in zip(lines, ends))


def _verified(text: str, old: list, edits: list) -> bool:
    """Whether the edited page still has the same fences, each edited one handing exactly its
    formatted text to the pipeline and every other one its old body (so the page's structure,
    its containers and the other fences are untouched)."""
    new = _fences(text)
    if len(new) != len(old):
        return False
    contents = {e[0]: e[3] for e in edits}
    for before, after in zip(old, new):
        want = contents.get(before.map[0] + 1, before.content)
        if after.content != want or after.info != before.info:
            return False
    return True


def format_markdown(text: str) -> FormatResult:
    """Format every ```` ```posecode ```` fence of a Markdown page in place.

    Fences are found with the site's own Markdown pipeline, inside lists, block quotes,
    admonitions and content tabs too; each formatted body line keeps the container prefix of
    its fence (blank lines get the prefix without trailing spaces, ``>`` in a quote); the fence
    lines and everything outside the fences stay byte for byte, line ends and a BOM included. A
    fence with errors is left as it is and its errors are in ``diagnostics`` at file lines and
    columns of ``text``. Pure, and never raises for any input.
    """
    if not isinstance(text, str):
        return FormatResult(text, False, [])
    try:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        page = text[len(bom):]
        lines, ends = _split_keep_ends(page)
        tokens = _fences(page)
        edits, errors = [], []
        for token in tokens:
            first, count, new, content, errs = _fence_edit(token, lines)
            errors += errs
            if new is not None:
                edits.append((first, count, new, content))
        if not edits:
            return FormatResult(text, False, errors)
        out = _apply(lines, ends, edits)
        if not _verified(out, tokens, edits):
            # one fence at a time: keep the edits the page takes without changing anything else
            kept = []
            for edit in edits:
                trial = _apply(lines, ends, kept + [edit])
                if _verified(trial, tokens, kept + [edit]):
                    kept.append(edit)
            out = _apply(lines, ends, kept)
        out = bom + out
        return FormatResult(out, out != text, errors)
    except Exception:  # pragma: no cover - defensive: the page is left as it is
        return FormatResult(text, False, [])


__all__ = ["FormatResult", "format_source", "format_markdown", "comparable", "INDENT"]
