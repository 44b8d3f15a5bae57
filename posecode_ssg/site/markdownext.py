"""The Markdown people write beyond CommonMark (issue 24), on markdown-it-py: what
mdit-py-plugins has (admonitions, containers, footnotes, task lists, definition lists,
attribute lists) with our renderers, and our own rules where it has none: content tabs
(``=== "Tab"``, the MkDocs Material syntax), heading anchor links, the page's table of
contents, and code highlighting with Pygments.

- Admonitions, MkDocs/Material syntax: ``!!! note "Title"`` (a ``<div class="admonition
  note">``), collapsible ``??? tip`` (a closed ``<details>``) and ``???+ tip`` (an open one),
  their content indented by four spaces.
- MyST containers: ``::: note Title`` … ``:::`` (``:::{note}`` too), rendered as admonitions.
- Content tabs: consecutive ``=== "Label"`` blocks, content indented by four spaces, are one
  set of tabs (``===!`` starts a new set, ``===+`` is the one shown first): radio buttons and
  labels, so they work without a script; printed, every tab shows under its label.
- Headings get an anchor link (``<a class="headerlink" href="#id">#</a>``), and
  :func:`table_of_contents` lists a page's level-2 and level-3 headings.
- Fenced code is highlighted with Pygments when its language is known (``class="highlight"``),
  Posecode (a ``posecode-draft`` fence, a ``.posecode`` page's source) by our lexer
  (:mod:`posecode_ssg.language.highlight`).
"""

from __future__ import annotations

import html
import re
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from posecode_ssg.site.strings import UI

#: the admonition kinds a MyST container may name (``::: note``), as MkDocs Material has them
ADMONITION_KINDS = ("note", "abstract", "info", "tip", "success", "question", "warning", "failure", "danger",
                    "bug", "example", "quote", "important", "caution", "hint", "seealso", "attention", "error")

_TAB = re.compile(r"===([!+]{0,2})[ \t]+\"([^\"]*)\"[ \t]*$")
_CONTAINER = re.compile(r"^\{?([A-Za-z][\w-]*)\}?\s*(.*)$")


def markdown_extensions(md: MarkdownIt) -> None:
    """Install the extensions of this module on ``md`` (the site's one pipeline,
    :func:`posecode_ssg.site.content.create_markdown`)."""
    md.use(admon_plugin).use(footnote_plugin).use(tasklists_plugin).use(deflist_plugin)
    md.use(attrs_plugin).use(attrs_block_plugin)
    md.use(container_plugin, name="admonition", marker=":", validate=_valid_container, render=_render_container)
    md.block.ruler.before("fence", "content_tabs", _tabs_rule, {"alt": ["paragraph", "reference", "blockquote", "list"]})
    for name in ("admonition_open", "admonition_close", "admonition_title_open", "admonition_title_close"):
        md.add_render_rule(name, _render_admonition)
    for name in ("tabbed_set_open", "tabbed_set_close", "tabbed_open", "tabbed_close"):
        md.add_render_rule(name, _render_tabs)
    md.add_render_rule("heading_close", _render_heading_close)
    md.options["highlight"] = highlight


# ----- admonitions ---------------------------------------------------------------------------

def _render_admonition(renderer, tokens, idx, options, env) -> str:
    """``!!!`` a ``<div>``; ``???`` a ``<details>`` (``???+`` open) whose title is its ``<summary>``."""
    token = tokens[idx]
    collapsible = token.markup.startswith("?")
    if token.type == "admonition_open":
        kind = html.escape(token.meta.get("tag") or "note")
        if not collapsible:
            return f'<div class="admonition {kind}">\n'
        return f'<details class="admonition {kind}"{" open" if token.markup.endswith("+") else ""}>\n'
    if token.type == "admonition_close":
        return "</details>\n" if collapsible else "</div>\n"
    if token.type == "admonition_title_open":
        return '<summary class="admonition-title">' if collapsible else '<p class="admonition-title">'
    opener = next((t for t in reversed(tokens[:idx]) if t.type == "admonition_title_open"), None)
    return "</summary>\n" if opener is not None and opener.markup.startswith("?") else "</p>\n"


def _valid_container(params: str, *args) -> bool:
    m = _CONTAINER.match(params.strip())
    return bool(m and m.group(1).lower() in ADMONITION_KINDS)


def _render_container(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    if token.nesting == -1:
        return "</div>\n"
    kind, title = _CONTAINER.match(token.info.strip()).groups()
    kind = kind.lower()
    label = title.strip().strip('"') or kind.capitalize()
    return (f'<div class="admonition {html.escape(kind)}">\n'
            f'<p class="admonition-title">{html.escape(label)}</p>\n')


# ----- content tabs --------------------------------------------------------------------------

def _tab_at(state: StateBlock, line: int) -> re.Match | None:
    if line >= state.lineMax or state.sCount[line] != state.blkIndent:
        return None
    start = state.bMarks[line] + state.tShift[line]
    return _TAB.match(state.src[start:state.eMarks[line]])


def _tabs_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """A set of content tabs: consecutive ``=== "Label"`` lines at this indent, each followed by
    its content indented four spaces more (blank lines inside); the set ends at the first line
    that is neither, or at a ``===!`` (which starts the next set)."""
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if state.src.startswith("===", pos) is False or state.sCount[start_line] - state.blkIndent >= 4:
        return False   # (the first check is most lines': a rule runs on every line)
    first = _tab_at(state, start_line)
    if first is None:
        return False
    if silent:
        return True
    env = state.env
    number = env["_tab_sets"] = env.get("_tab_sets", 0) + 1
    token = state.push("tabbed_set_open", "div", 1)
    token.map = [start_line, start_line]
    token.meta = {"set": number}
    tabs: list[tuple[int, re.Match]] = []
    line, match = start_line, first
    old_indent, old_parent, old_max = state.blkIndent, state.parentType, state.lineMax
    while match is not None:
        end = line + 1
        while end < end_line:   # the tab's content: indented lines and blank lines
            blank = state.bMarks[end] + state.tShift[end] >= state.eMarks[end]
            if not blank and state.sCount[end] < old_indent + 4:
                break
            end += 1
        last = end
        while last > line + 1 and state.bMarks[last - 1] + state.tShift[last - 1] >= state.eMarks[last - 1]:
            last -= 1   # trailing blank lines belong to no tab
        tabs.append((line, match))
        token = state.push("tabbed_open", "div", 1)
        token.map = [line, last]
        token.meta = {"set": number, "index": len(tabs), "label": match.group(2),
                      "checked": "+" in match.group(1)}
        state.parentType, state.blkIndent, state.lineMax = "tabbed", old_indent + 4, last
        state.md.block.tokenize(state, line + 1, last)
        state.parentType, state.blkIndent, state.lineMax = old_parent, old_indent, old_max
        state.push("tabbed_close", "div", -1)
        line = end
        match = _tab_at(state, line)
        if match is not None and "!" in match.group(1):
            break   # ===! starts a new set
    if not any(m.group(1).count("+") for _l, m in tabs):   # the first tab is shown first
        for t in state.tokens:
            if t.type == "tabbed_open" and t.meta["set"] == number:
                t.meta["checked"] = True
                break
    state.push("tabbed_set_close", "div", -1)
    state.line = line
    return True


def _render_tabs(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    if token.type == "tabbed_set_open":
        return '<div class="tabbed-set" data-tabs>\n'
    if token.type in ("tabbed_set_close", "tabbed_close"):
        return "</div>\n"
    meta = token.meta
    name = f"tabs-{meta['set']}"
    tab_id = f"{name}-{meta['index']}"
    return (f'<input class="tabbed-input" type="radio" name="{name}" id="{tab_id}"'
            f'{" checked" if meta["checked"] else ""}>'
            f'<label class="tabbed-label" for="{tab_id}">{html.escape(meta["label"])}</label>\n'
            f'<div class="tabbed-content">\n')


# ----- headings: anchor links and the table of contents ---------------------------------------

def _render_heading_close(renderer, tokens, idx, options, env) -> str:
    opener = next((t for t in reversed(tokens[:idx]) if t.type == "heading_open" and t.tag == tokens[idx].tag), None)
    anchor = opener.attrGet("id") if opener is not None else None
    if not anchor or tokens[idx].tag == "h1":
        return f"</{tokens[idx].tag}>\n"
    label = html.escape(UI["toc.anchor_label"], quote=True)
    return f'<a class="headerlink" href="#{html.escape(str(anchor), quote=True)}" aria-label="{label}">#</a></{tokens[idx].tag}>\n'


def table_of_contents(tokens: list) -> list[dict[str, Any]]:
    """The page's level-2 and level-3 headings as ``[{"level", "id", "title"}]``, in order (the
    theme's "On this page" list; a heading without an id is left out)."""
    out = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3") and token.attrGet("id") and i + 1 < len(tokens):
            title = "".join(c.content for c in (tokens[i + 1].children or []) if c.type in ("text", "code_inline"))
            out.append({"level": int(token.tag[1]), "id": str(token.attrGet("id")), "title": title})
    return out


# ----- code highlighting -------------------------------------------------------------------------

def highlight(code: str, lang: str, attrs: str) -> str:
    """Pygments' HTML of ``code`` in language ``lang`` (a ``<pre class="highlight">``), or ""
    (markdown-it then escapes it as plain code) when the language is unknown or none."""
    if not lang:
        return ""
    try:
        from pygments import highlight as pyg_highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ImportError:
        return ""
    if lang in ("posecode", "posecode-draft"):   # ours, registered or not (language/highlight.py)
        from posecode_ssg.language.highlight import PosecodeLexer

        lexer = PosecodeLexer()
    else:
        try:
            lexer = get_lexer_by_name(lang)
        except ClassNotFound:
            return ""
    return pyg_highlight(code, lexer, HtmlFormatter(nowrap=True))
