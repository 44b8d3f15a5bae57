"""markdown-it-py plugin: ```` ```posecode ```` fences become ``<posecode-figure>`` elements.

Usable from any markdown-it-py pipeline (MkDocs via a Markdown extension
bridge, Sphinx/MyST via ``myst_parser``'s ``md`` instance, or plain
``MarkdownIt``)::

    from markdown_it import MarkdownIt
    from posecode_ssg.site.markdown import posecode_plugin

    md = MarkdownIt("commonmark").use(posecode_plugin)
    html = md.render(text)          # figures compiled on the fly
    env = {}; md.render(text, env)  # env["posecode"].diagnostics: problems with document lines

The plugin adds (markdown-it-py's model: small named rules, no core patch):

* core rule ``posecode_bom`` (after ``normalize``): drops a leading U+FEFF so a
  file saved "UTF-8 with BOM" still starts with its fence or heading;
* core rule ``posecode_fences`` (after ``block``): every ``fence`` token whose
  language is ``posecode`` is retyped ``posecode``. Fence detection itself is
  markdown-it-py's CommonMark fence rule, so backtick and tilde fences of any
  length, fences inside list items and block quotes (container indentation
  and ``>`` markers removed, tabs expanded) and closing-fence matching all
  follow CommonMark §4.5;
* core rule ``posecode_heading_ids`` (after ``inline``): unique ``id``
  attributes on headings, never colliding with figure ids;
* render rules ``posecode`` (the figure, page contract of the runtime) and
  ``fence`` (ordinary code blocks with a sanitised ``language-`` class).

The language of a fence is the first word of its trimmed info string, or the
first ``.class`` inside pandoc-style braces, compared case-insensitively.
Attributes after it (``title="Squat" autoplay=false view=front avatar=avatar2``)
configure the figure; unknown attributes and bad values are warnings.
"""

from __future__ import annotations

import difflib
import html
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from posecode_ssg.config import VIEWS
from posecode_ssg.language.diagnostics import map_line_refs
from posecode_ssg.site.figures import script_json  # noqa: F401 - re-exported: the page's JSON rule
from posecode_ssg.site.strings import UI, mode_word
from posecode_ssg.site.taxonomy import slugify

LANGUAGE = "posecode"
FIGURE_ATTRS = ("title", "autoplay", "view", "avatar", "equipment")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass
class FenceInfo:
    """A parsed fence info string.

    ``language``: the lower-cased language word ("" when none); ``attrs``:
    the recognised attributes (``title`` str, ``autoplay`` bool, ``view``
    ``side|front``, ``avatar`` str, ``equipment`` a tuple of equipment words,
    motion/equipment.py); ``problems``: messages about attributes
    that were ignored (unknown names, bad values, unbalanced quotes).
    """

    language: str
    attrs: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _split_words(text: str) -> tuple[list[str], str | None]:
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer), None
    except ValueError as exc:  # unbalanced quote
        return text.split(), f"cannot read the attributes ({exc}); check the quotes"


def parse_info(info: str) -> FenceInfo:
    """Parse a fence info string into language + figure attributes.

    Forms (case-insensitive language word)::

        posecode title="Squat" autoplay=false view=front
        {.posecode title="Squat"}          pandoc / MyST attribute braces
        Posecode                           any capitalisation

    ``posecode-draft`` is a different language. Attribute values may be
    quoted with ``"`` or ``'``. Only the five figure attributes are read;
    the rest produce ``problems`` (warnings), never markup.
    """
    text = info.strip()
    if text.startswith("{") and text.endswith("}"):
        words, problem = _split_words(text[1:-1])
        language = ""
        rest = []
        for word in words:
            if word.startswith(".") and not language:
                language = word[1:]
            elif word.startswith(".") or word.startswith("#"):
                continue  # further classes / ids are not ours to use
            else:
                rest.append(word)
    else:
        head, _, tail = text.partition(" ")
        language = head
        words, problem = _split_words(tail)
        rest = words
    result = FenceInfo(language=language.lower())
    if result.language != LANGUAGE:
        return result
    if problem:
        result.problems.append(problem)
    for word in rest:
        key, eq, value = word.partition("=")
        key = key.strip().lower()
        if key not in FIGURE_ATTRS:
            close = difflib.get_close_matches(key, FIGURE_ATTRS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(FIGURE_ATTRS)})"
            result.problems.append(f"unknown fence attribute '{key}'{hint}")
            continue
        if key == "autoplay":
            if not eq:
                result.attrs["autoplay"] = True
            elif value.lower() in _TRUE:
                result.attrs["autoplay"] = True
            elif value.lower() in _FALSE:
                result.attrs["autoplay"] = False
            else:
                result.problems.append(f"autoplay must be true or false, got '{value}'")
        elif key == "equipment" and eq:
            # equipment drawn on the figure (motion/equipment.py); "" draws none
            from posecode_ssg.motion.equipment import read_equipment

            result.attrs["equipment"], problems = read_equipment(value)
            result.problems.extend(problems)
        elif not eq or not value:
            result.problems.append(f"fence attribute '{key}' needs a value ({key}=\"...\")")
        elif key == "view":
            if value.lower() in VIEWS:
                # `auto` overrides a configured default: the poster module picks the plane
                result.attrs["view"] = None if value.lower() == "auto" else value.lower()
            else:
                result.problems.append(f"view must be one of {', '.join(VIEWS)}, got '{value}'")
        elif key == "avatar":
            result.attrs["avatar"] = value
        else:
            result.attrs[key] = value
    return result


@dataclass
class PosecodeEnv:
    """Per-document state the plugin keeps in ``env["posecode"]``.

    ``figures``: the retyped tokens in document order; ``diagnostics``:
    dicts ``{code, severity, line, column, message, hint}`` with 1-based
    *document* lines and columns; ``ids``: every id assigned (figures,
    headings); ``src_lines``: the normalised source split on LF only; ``reps``: the
    repetitions the page's front matter prescribes (its figures count to it, ``data-reps``),
    None when it gives none.
    """

    figures: list[Token] = field(default_factory=list)
    diagnostics: list[dict] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    src_lines: list[str] = field(default_factory=list)
    reported: set[int] = field(default_factory=set)
    reps: int | None = None
    #: figure key -> the markup of its "Download GIF" link, put under its player
    #: (``exports = ["gif"]``: site/exports.py ``download_html``)
    downloads: dict = field(default_factory=dict)


def _word_column(line: str, message: str) -> int:
    """1-based column in a fence's opening ``line`` of the first word ``message`` quotes (the
    attribute or value a fence-attribute problem is about), after the opening fence; 1 when
    the message quotes none or the word is not on the line."""
    quoted = re.search(r"'([^']+)'", message)
    fence = re.match(r"\s*(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?(?:`{3,}|~{3,})", line)
    if quoted is None:
        return 1
    # the word as a whole key or value (not inside another attribute's quoted text)
    word = re.compile(r"(?<=[\s={])" + re.escape(quoted.group(1)) + r"(?=[=\s}]|$)")
    found = word.search(line, fence.end() if fence else 0)
    if found:
        return found.start() + 1
    # or a word of the equipment attribute's quoted list (equipment="dumbells mat")
    listed = re.search(r"\bequipment\s*=\s*([\"'])(.*?)\1", line)
    if listed:
        inner = re.search(r"(?<![\w-])" + re.escape(quoted.group(1)) + r"(?![\w-])", listed.group(2))
        if inner:
            return listed.start(2) + inner.start() + 1
    return 1


def posecode_env(env: dict) -> PosecodeEnv:
    """Return (creating) the plugin's state in a markdown-it ``env`` dict."""
    state = env.get("posecode")
    if not isinstance(state, PosecodeEnv):
        state = env["posecode"] = PosecodeEnv()
    return state


def document_position(token: Token, state: PosecodeEnv, line: int, column: int) -> tuple[int, int]:
    """Map a 1-based (line, column) inside a fence body to the Markdown document.

    Body line 1 is the line after the opening fence: document line
    ``token.map[0] + 1 + line`` (1-based). The column is shifted by the
    container prefix (list indentation, ``> `` markers) found on that
    document line.
    """
    if not token.map:
        return line, column
    doc_index = token.map[0] + line  # 0-based index of the document line
    doc_line = line + token.map[0] + 1
    body_lines = token.content.split("\n")
    if 0 <= doc_index < len(state.src_lines) and 1 <= line <= len(body_lines):
        raw = state.src_lines[doc_index]
        body = body_lines[line - 1]
        if body and raw.endswith(body):
            column += len(raw) - len(body)
    return doc_line, column


def _strip_bom(state: StateCore) -> None:
    if state.src.startswith("\ufeff"):
        state.src = state.src[1:]


def _unique_id(base: str, used: set[str]) -> str:
    candidate, n = base, 1
    while candidate in used:
        n += 1
        candidate = f"{base}-{n}"
    used.add(candidate)
    return candidate


def posecode_plugin(
    md: MarkdownIt,
    *,
    compile_figure: Callable[[str, dict], Any] | None = None,
    defer: bool = False,
    id_prefix: str = "posecode-figure-",
    default_view: str | None = None,
    autoplay: bool = True,
) -> None:
    """Install the posecode fence rules on ``md``.

    :param compile_figure: ``f(source, attrs) -> CompiledFigure`` (see
        :mod:`posecode_ssg.site.figures`); default: compile with the
        language and motion packages, no cache.
    :param defer: when true the core rule only records figures (the site
        build compiles them in bulk and sets ``token.meta["figure"]``);
        figures still without one are compiled when rendered.
    :param id_prefix: figure ids are ``id_prefix + n`` (n = 1, 2, ... in
        document order, made unique against heading ids), so identical
        blocks still get distinct ids.
    :param default_view: ``side|front`` written as ``data-view`` when a fence
        does not say; ``None``: the view the poster module chooses for the
        movement (``motion.poster.choose_view``).
    :param autoplay: whether figures autoplay unless ``autoplay=false``.
    """
    if compile_figure is None:
        from posecode_ssg.site.figures import compile_figure as default_compile

        compile_figure = default_compile

    def fences_rule(state: StateCore) -> None:
        pc = posecode_env(state.env)
        pc.src_lines = state.src.split("\n")
        count = 0
        for token in _walk(state.tokens):
            if token.type != "fence":
                continue
            info = parse_info(token.info)
            unclosed = _unclosed(token, pc.src_lines, info.language == LANGUAGE)
            if unclosed is not None:
                # reported at its opening line; what it swallowed is not compiled (its errors
                # would point into the prose the author meant to write after it)
                line = token.map[0] + 1
                opener = pc.src_lines[line - 1] if 0 < line <= len(pc.src_lines) else ""
                pc.diagnostics.append(_diag("fence-unclosed", "error", line,
                                            len(opener) - len(opener.lstrip(" \t>")) + 1, unclosed,
                                            f"end the block with a line {token.markup}"))
                token.meta = {**(token.meta or {}), "unclosed": unclosed}
                continue
            if info.language != LANGUAGE:
                continue
            count += 1
            token.type = "posecode"
            token.meta = dict(token.meta or {})
            token.meta["info"] = info
            token.meta["id"] = _unique_id(f"{id_prefix}{count}", pc.ids)
            pc.figures.append(token)
            for problem in info.problems:
                line = token.map[0] + 1 if token.map else 1
                opener = pc.src_lines[line - 1] if 0 < line <= len(pc.src_lines) else ""
                pc.diagnostics.append(_diag("fence-attribute", "warning", line, _word_column(opener, problem),
                                            problem, None))
            if not defer:
                attach_figure(token, compile_figure(token.content, _figure_options(info)), state.env)

    def heading_ids_rule(state: StateCore) -> None:
        pc = posecode_env(state.env)
        tokens = state.tokens
        for i, token in enumerate(tokens):
            if token.type == "heading_open" and i + 1 < len(tokens):
                _heading_attributes(token, tokens[i + 1], pc.ids)
            if token.type == "heading_open" and not token.attrGet("id") and i + 1 < len(tokens):
                text = "".join(child.content for child in (tokens[i + 1].children or [])
                               if child.type in ("text", "code_inline"))
                token.attrSet("id", _unique_id(slugify(text), pc.ids))

    def _figure_options(info: FenceInfo) -> dict:
        return {"view": info.attrs.get("view", default_view), "avatar": info.attrs.get("avatar"),
                "title": info.attrs.get("title")}

    def render_posecode(renderer, tokens, idx, options, env) -> str:
        token = tokens[idx]
        figure = token.meta.get("figure")
        if figure is None:
            figure = compile_figure(token.content, _figure_options(token.meta["info"]))
            attach_figure(token, figure, env)
        pc = posecode_env(env)
        out = figure_html(figure, token.meta["info"], token.meta["id"], default_view=default_view,
                          autoplay=autoplay, source=token.content, reps=pc.reps,
                          first_line=token.map[0] + 2 if token.map else 1)
        link = pc.downloads.get(getattr(figure, "key", None)) if pc.downloads else None
        if link is not None and not figure.errors:
            out += link
        return out

    md.core.ruler.after("normalize", "posecode_bom", _strip_bom)
    md.core.ruler.after("block", "posecode_fences", fences_rule)
    md.core.ruler.after("inline", "posecode_heading_ids", heading_ids_rule)
    md.add_render_rule("posecode", render_posecode)
    md.add_render_rule("fence", render_code_fence)


_HEADING_ATTRS = re.compile(r"[ \t]*\{:?[ \t]*((?:[#.][\w-]+[ \t]*)+)\}[ \t]*$")


def _heading_attributes(token: Token, inline: Token, ids: set[str]) -> None:
    """``## Title {#id .class}`` (Python-Markdown's attribute lists, as MkDocs users write them):
    the id and classes go onto the heading and the braces leave its text."""
    last = inline.children[-1] if inline.children else None
    m = _HEADING_ATTRS.search(last.content) if last is not None and last.type == "text" else None
    if m is None:
        return
    last.content = last.content[:m.start()]
    inline.content = _HEADING_ATTRS.sub("", inline.content)
    for word in m.group(1).split():
        if word.startswith("#") and word[1:] not in ids:
            token.attrSet("id", word[1:])
            ids.add(word[1:])
        elif word.startswith("."):
            token.attrJoin("class", word[1:])


def _unclosed(token: Token, src_lines: list[str], posecode: bool) -> str | None:
    """Why fence ``token`` was never closed, or None when it was. Unclosed: its last line
    (markdown-it runs an unclosed fence to the end of its container) is not the opener's
    character, as many times or more, alone on the line (after any container prefix: spaces,
    ``>``). A Posecode block is taken for unclosed too when a line of its body opens another
    fence (the opener's character run followed by a language word: a closing fence has none;
    Posecode has no such line), so that it was closed by the closing line of the next block."""
    if not token.map:
        return None
    last = token.map[1] - 1
    where = " in its container" if token.level else ""
    if last <= token.map[0] or last >= len(src_lines) or not _fence_line(src_lines[last], token.markup, closing=True):
        return f"this {token.markup} fence is never closed: everything after it{where} is read as its content"
    if posecode:
        ch = token.markup[0]
        for n in range(token.map[0] + 1, last):
            if ch in src_lines[n] and _fence_line(src_lines[n], token.markup, closing=False):
                return (f"this {token.markup} fence is not closed before line {n + 1}, where another fence "
                        f"opens: the text between them was read as Posecode")
    return None


def _fence_line(line: str, markup: str, closing: bool) -> bool:
    """Whether ``line`` is a closing fence of ``markup`` (``closing``: the character run alone) or
    opens a fence of that character with a language word."""
    text = line.lstrip(" \t>").rstrip()
    run = len(text) - len(text.lstrip(markup[0]))
    if run < len(markup):
        return False
    rest = text[run:].strip()
    return not rest if closing else bool(rest) and rest[0].isalpha()


def _walk(tokens: list[Token]):
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def _diag(code: str, severity: str, line: int, column: int, message: str, hint: str | None) -> dict:
    return {"code": code, "severity": severity, "line": line, "column": column, "message": message, "hint": hint}


def attach_figure(token: Token, figure: Any, env: dict) -> None:
    """Store a compiled figure on its token and record its diagnostics in ``env``.

    Block-relative diagnostic positions are mapped to document lines and
    columns (:func:`document_position`); each token is reported once.
    """
    pc = posecode_env(env)
    token.meta["figure"] = figure
    if id(token) in pc.reported:
        return
    pc.reported.add(id(token))
    def file_line(n: int) -> int:
        return document_position(token, pc, n, 1)[0]

    for d in figure.diagnostics:
        line, column = document_position(token, pc, d.get("line") or 1, d.get("column") or 1)
        moved = {**d, "line": line, "column": column, "message": map_line_refs(d["message"], file_line)}
        if d.get("hint"):
            moved["hint"] = map_line_refs(d["hint"], file_line)
        pc.diagnostics.append(moved)


def render_code_fence(renderer, tokens, idx, options, env) -> str:
    """Render an ordinary fence as ``<pre><code class="language-x">``.

    Only the language word (letters, digits, ``+ - _ .``) reaches the class,
    never the rest of the info string (no ``title=``, braces or quotes).
    """
    token = tokens[idx]
    unclosed = (token.meta or {}).get("unclosed")
    if unclosed:   # (a page with errors, written by the dev server's build: shown, not hidden)
        return (f'<div class="posecode-error" role="alert"><p><strong>{_esc(unclosed)}</strong></p>'
                f"<pre><code>{html.escape(token.content, quote=False)}</code></pre></div>\n")
    info = token.info.strip()
    if info.startswith("{"):
        match = re.search(r"\.([A-Za-z0-9_+\-]+)", info)
        language = match.group(1) if match else ""
    else:
        language = info.split(None, 1)[0] if info else ""
        language = re.sub(r"[^A-Za-z0-9_+\-.]", "", language)
    cls = f' class="language-{html.escape(language.lower())}"' if language else ""
    highlight = options.get("highlight")   # Pygments' spans (site/markdownext.py), or ""
    code = highlight(token.content, language.lower(), "") if highlight and language else ""
    if code:
        return f'<pre class="highlight"><code{cls}>{code}</code></pre>\n'
    return f"<pre><code{cls}>{html.escape(token.content, quote=False)}</code></pre>\n"


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_-"


def _svg_ids(svg: str) -> set[str]:
    """The values of the ``id="..."`` attributes in ``svg``: each non-empty ``id="value"`` whose
    ``id`` follows no word character (letter, digit, ``_``), the matches of the regular
    expression ``\\bid="([^"]+)"``. Found with ``str.find``: that expression, tried at every
    position of the poster, was half the cost of :func:`figure_html`."""
    ids = set()
    at = svg.find('id="')
    while at >= 0:
        end = svg.find('"', at + 4)
        if end < 0:
            break  # no closing quote for this one, nor for any later one
        before = svg[at - 1] if at else ""
        if end > at + 4 and not (before.isalnum() or before == "_"):
            ids.add(svg[at + 4:end])
            at = svg.find('id="', end + 1)
        else:
            at = svg.find('id="', at + 1)
    return ids


def namespace_ids(svg: str, prefix: str) -> str:
    """Prefix every ``id`` of an inline SVG (and each whole-word reference to it) with ``prefix-``.

    Two identical posters on one page would otherwise repeat their ids
    (``<title id>`` + ``aria-labelledby``, gradients, clip paths). A whole
    word is an occurrence not touching a letter, digit, ``_`` or ``-``.
    Plain substring search (no per-poster regex to compile: the ids differ
    for every poster, and compiling was most of this function's cost).
    """
    ids = _svg_ids(svg)
    if not ids:
        return svg
    cuts: list[tuple[int, int]] = []
    for name in sorted(ids, key=len, reverse=True):
        at = svg.find(name)
        while at >= 0:
            end = at + len(name)
            if ((at == 0 or not _is_name_char(svg[at - 1])) and (end == len(svg) or not _is_name_char(svg[end]))
                    and not any(a <= at < b for a, b in cuts)):
                cuts.append((at, end))
            at = svg.find(name, end)
    out, last = [], 0
    for at, end in sorted(cuts):
        out.append(svg[last:at])
        out.append(f"{prefix}-{svg[at:end]}")
        last = end
    out.append(svg[last:])
    return "".join(out)


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _code(text: Any) -> str:
    """``text`` escaped, each `` `word` `` of it (a diagnostic's quoted Posecode) as ``<code>``."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", _esc(text))


def _duration(seconds: float) -> str:
    return UI["figure.duration"].format(seconds=seconds)


def figure_html(figure: Any, info: FenceInfo, figure_id: str, *, default_view: str | None = None,
                autoplay: bool = True, source: str = "", reps: int | None = None, first_line: int = 1,
                motion_src: str | None = None) -> str:
    """Return the ``<posecode-figure>`` markup of one compiled block (runtime page contract).

    Structure: ``<posecode-figure id data-title [autoplay] [data-view] [data-reps]>`` holding
    the inline motion JSON (:func:`script_json`), the SVG poster in
    ``<figure class="posecode-poster">`` with a ``<figcaption>``, an
    ``<ol class="posecode-phases">`` listing phase name, duration, timing
    mode and cue (works without JavaScript), and the phase strip in
    ``<div class="posecode-strip" hidden>`` (hidden on screen whatever the stylesheet; the
    theme's print stylesheet shows it). A block with errors renders an
    error box with the escaped source instead. All author text is escaped. ``reps``: the
    repetitions the page prescribes (front matter ``reps``), written as ``data-reps``: the
    player's rep counter and the caption count to it instead of the document's ``repeat``.
    ``first_line``: the Markdown file's line of the block's first line, so the error box numbers
    lines as the terminal and the dev server's overlay do. ``motion_src``: the URL of the motion
    JSON as a file, written as ``src`` instead of the inline script (a host page whose scripts
    are re-run, as Material's instant navigation does, would run the JSON as JavaScript).
    """
    title = info.attrs.get("title") or figure.name or UI["figure.default_title"]
    if figure.errors:
        items = "".join(
            f"<li>{UI['figure.error_line'].format(line=d['line'] + first_line - 1, message=_code(d['message']))}"
            + (f' <span class="posecode-error-hint">{_code(d["hint"])}</span>' if d.get("hint") else "") + "</li>"
            for d in figure.diagnostics
            if d["severity"] == "error")
        return (f'<div class="posecode-error" id="{_esc(figure_id)}" role="alert">'
                f"<p><strong>{UI['figure.errors_heading']}</strong> ({_esc(title)}):</p><ul>{items}</ul>"
                f"<pre><code>{html.escape(source, quote=False)}</code></pre></div>\n")
    view = info.attrs.get("view") or getattr(figure, "view", None) or default_view
    play = info.attrs.get("autoplay", autoplay)
    attrs = f' id="{_esc(figure_id)}" data-title="{_esc(title)}"'
    if play:
        attrs += " autoplay"
    if view:
        attrs += f' data-view="{_esc(view)}"'
    if reps:
        attrs += f' data-reps="{int(reps)}"'
    if motion_src:
        attrs += f' src="{_esc(motion_src)}"'
    parts = [f"<posecode-figure{attrs}>"]
    motion = getattr(figure, "motion_json", None)   # encoded where it was compiled
    if motion is None and getattr(figure, "motion", None) is not None:   # another compile_figure's figure
        motion = script_json(figure.motion)
    if motion is not None and not motion_src:
        parts.append(f'<script type="application/json">{motion}</script>')
    count = reps or figure.repeat
    reps = UI["figure.repeat"].format(count=count) if count and count > 1 else ""
    caption = f'<figcaption>{_esc(title)}<span class="posecode-reps">{_esc(reps)}</span></figcaption>'
    if figure.poster:
        parts.append(f'<figure class="posecode-poster">{namespace_ids(figure.poster, figure_id)}{caption}</figure>')
    else:
        parts.append(f'<figure class="posecode-poster posecode-poster-missing">{caption}</figure>')
    items = []
    for phase in figure.phases:
        cue = f'<span class="posecode-phase-cue">{_esc(phase["cue"])}</span>' if phase.get("cue") else ""
        items.append(
            f'<li><span class="posecode-phase-name">{_esc(phase["name"])}</span> '
            f'<span class="posecode-phase-meta">{_esc(_duration(phase["duration"]))} · {_esc(mode_word(phase["mode"]))}</span>'
            f"{cue}</li>")
    steps = UI["figure.steps_label"].format(title=_esc(title))
    parts.append(f'<ol class="posecode-phases" aria-label="{steps}">{"".join(items)}</ol>')
    strip = getattr(figure, "strip", None)
    if strip:   # the key frames side by side: what a printed page shows instead of the player
        parts.append(f'<div class="posecode-strip" hidden>{namespace_ids(strip, figure_id + "-strip")}</div>')
    parts.append("</posecode-figure>\n")
    return "".join(parts)
