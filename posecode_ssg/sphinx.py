"""Sphinx extension: Posecode figures in Sphinx documentation (``extensions = ["posecode_ssg.sphinx"]``).

* the ``posecode`` directive (reStructuredText and MyST), options ``title``, ``autoplay``, ``view``,
  ``avatar``, ``equipment`` (the fence attributes of docs/site.md); its argument may also hold
  them as a fence's info string does (``.. posecode:: title="Squat" view=side``);
* with myst-parser, ```` ```posecode title="Squat" view=side ```` fences (``posecode`` is added to
  ``myst_fence_as_directive``), ```` ```{.posecode} ```` and ```` ```{.posecode title="Squat"} ````;
* each block is compiled at read time (:class:`~posecode_ssg.integrations.embed.FigureRenderer`)
  and its problems are Sphinx warnings at the file's line, with the text of ``posecode-ssg check``
  (so ``sphinx-build -W`` fails on a broken block);
* HTML builders get the ``<posecode-figure>`` markup and, on the pages holding figures, the rig
  ``<meta>``, the runtime module script and the stylesheet (copied to ``_static/posecode/``);
  every other builder (latex, text, man, epub...) gets the title and the step list.
"""

from __future__ import annotations

import html
import json
import re
import shlex
from pathlib import Path
from types import SimpleNamespace

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.logging import get_node_location

from posecode_ssg.config import VIEWS
from posecode_ssg.integrations.embed import (CSS_NAME, RIG_NAME, RUNTIME_NAME, FigureRenderer, figure_problems,
                                             format_problem, write_assets)
from posecode_ssg.site.figures import CompiledFigure
from posecode_ssg.site.markdown import FIGURE_ATTRS, FenceInfo, parse_info
from posecode_ssg.site.strings import UI

__version__ = "1.0"

logger = logging.getLogger(__name__)

#: the folder under the HTML output's ``_static`` holding the runtime, the rig and the stylesheet
STATIC_DIR = "posecode"
#: a figure without diagnostics: reports a fence's attribute problems alone (figure_problems)
_NO_DIAGNOSTICS = SimpleNamespace(diagnostics=[])


class posecode_figure(nodes.General, nodes.Element):
    """One compiled block in the doctree until it is written. Attributes: ``figure`` (the
    :meth:`CompiledFigure.to_dict`), ``info`` (its :class:`FenceInfo`), ``source`` (the block's
    text), ``first_line`` (the file line of its first line). Its children are what builders other
    than HTML show (title and step list): :func:`resolve_figures` swaps the node for the figure's
    HTML or for them."""


def _renderer(config) -> FigureRenderer:
    """The renderer of the project's ``posecode_*`` settings (cheap: compiled blocks are cached
    per process by content in embed.py)."""
    return FigureRenderer(default_view=config.posecode_default_view, default_avatar=config.posecode_default_avatar,
                          autoplay=config.posecode_autoplay)


def _figure_docs(env) -> set[str]:
    """The docnames whose doctrees hold figures (kept on the environment, so it is pickled with
    it and an incremental build knows the pages it did not re-read)."""
    if not hasattr(env, "posecode_docs"):
        env.posecode_docs = set()
    return env.posecode_docs


def _file_lines(env, path: str) -> list[str]:
    """The lines of the source file ``path`` (BOM dropped, LF or CRLF), read once per document:
    the diagnostics' excerpts and column shifts are taken from them."""
    cache = env.temp_data.setdefault("posecode_lines", {})
    if path not in cache:
        try:
            text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            text = ""
        cache[path] = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    return cache[path]


def _page_meta(env) -> dict | None:
    """The page's front matter ``equipment`` (what a figure without the attribute draws, as in
    ``posecode-ssg build``): MyST puts front matter in ``env.metadata`` while parsing, as text
    (a list as JSON)."""
    value = env.metadata.get(env.docname, {}).get("equipment")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = [word.strip() for word in value.split(",")]
    return {"equipment": value} if value else None


def _attribute_line(message: str, lines: list[str], head: range) -> int:
    """The line among ``head`` (the opening line and option lines of the block) holding the
    word a fence-attribute ``message`` quotes; the first of ``head`` when none does."""
    word = re.search(r"'([^']+)'", message)
    for line in head:
        if word and 0 < line <= len(lines) and word.group(1) in lines[line - 1]:
            return line
    return head.start


def _report(problems: list, path: str, lines: list[str]) -> None:
    """Each problem with ``format_problem``'s text (``posecode-ssg check``'s: severity, code,
    message, the source line with carets, the hint) at ``path:LINE:COL``, the location Sphinx
    prints before it: errors and warnings as Sphinx warnings (``type="posecode"``, subtype the
    severity, so ``suppress_warnings = ["posecode.warning"]`` silences the warnings alone and
    ``-W`` fails on the rest), hints (how a movement could balance, say) as information, as
    ``posecode-ssg build`` and the MkDocs plugin treat them."""
    for problem in problems:
        where = nodes.Element()
        where.source, where.line = path, problem.line
        location = f"{get_node_location(where)}:{problem.column}"
        text = format_problem(problem, "@", lines)
        prefix = f"@:{problem.line}:{problem.column}: "
        text = text[len(prefix):] if text.startswith(prefix) else text
        if problem.severity in ("error", "warning"):
            logger.warning(text, location=location, type="posecode", subtype=problem.severity)
        else:
            logger.info(text, location=location)


def _fallback(figure: CompiledFigure, info: FenceInfo, source: str) -> nodes.container:
    """What a non-HTML builder shows: the title and the numbered steps ``name — 1.5 s · settle —
    cue`` (or, for a block with errors, the heading of the error box and the source), in a
    container (the text writer runs paragraphs placed straight in an admonition together)."""
    title = info.attrs.get("title") or figure.name or UI["figure.default_title"]
    box = nodes.container(classes=["posecode-steps"])
    if figure.errors:
        box += [nodes.paragraph("", "", nodes.strong(text=f"{UI['figure.errors_heading']} ({title})")),
                nodes.literal_block(source, source)]
        return box
    repeat = UI["figure.repeat"].format(count=figure.repeat) if figure.repeat and figure.repeat > 1 else ""
    steps = nodes.enumerated_list(enumtype="arabic", prefix="", suffix=".")
    for phase in figure.phases:
        text = f"{phase['name']} — {UI['figure.duration'].format(seconds=phase['duration'])} · {phase['mode']}"
        if phase.get("cue"):
            text += f" — {phase['cue']}"
        steps += nodes.list_item("", nodes.paragraph(text=text))
    box += [nodes.paragraph("", "", nodes.strong(text=title + repeat)), steps]
    return box


def figure_nodes(env, info: FenceInfo, source: str, path: str, first_line: int, head: range) -> list[nodes.Node]:
    """Compile one block and return its doctree node (``[]`` when the compiler itself failed);
    report its problems as Sphinx warnings. ``path``: the source file; ``first_line``: the file line
    of the block's first line; ``head``: the lines of its opening (info string, options), where
    attribute problems are reported. Shared by the directive and the braced-fence transform."""
    lines = _file_lines(env, path)
    try:
        figure = _renderer(env.config).figure(source, info, _page_meta(env))
    except Exception as exc:  # never a traceback for the user: the block is reported and left out
        where = nodes.Element()
        where.source, where.line = path, head.start
        logger.warning("the Posecode compiler failed on this block: %s", exc, location=where,
                       type="posecode", subtype="error")
        return []
    problems = figure_problems(figure, FenceInfo(info.language, info.attrs), source=source, path=path,
                               fence_line=first_line - 1, file_lines=lines)
    for message in info.problems:
        problems += figure_problems(_NO_DIAGNOSTICS, FenceInfo(info.language, problems=[message]), source="",
                                    path=path, fence_line=_attribute_line(message, lines, head), file_lines=lines)
    _report(sorted(problems, key=lambda p: (p.line, p.column)), path, lines)
    _figure_docs(env).add(env.docname)
    node = posecode_figure("", _fallback(figure, info, source), figure=figure.to_dict(), info=info,
                           source=source, first_line=first_line)
    node.source, node.line = path, head.start
    return [node]


class PosecodeDirective(Directive):
    """``.. posecode:: [title="..." view=side ...]`` with options ``:title:``, ``:autoplay:``,
    ``:view:``, ``:avatar:``, ``:equipment:`` and the Posecode document as content; also what
    MyST's ```` ```posecode ... ```` fences become. Options override the argument's attributes;
    bad values are warnings (as in a fence), never a docutils error."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = {**{name: directives.unchanged for name in FIGURE_ATTRS},
                   "name": directives.unchanged, "class": directives.class_option}

    def info(self) -> FenceInfo:
        """The block's attributes: the argument read as a fence's info string, then the options
        (``:autoplay:`` alone means true)."""
        words = ["posecode", *self.arguments]
        for key in FIGURE_ATTRS:
            if key in self.options:
                value = self.options[key]
                words.append(key if key == "autoplay" and not value else f"{key}={shlex.quote(value)}")
        return parse_info(" ".join(words))

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        path, _ = self.state_machine.get_source_and_line(self.lineno)
        path = str(path or env.doc2path(env.docname))
        # the file line of the content's first line: MyST counts content_offset from the line after
        # the opening fence (options before the content); docutils' content items hold 0-based file lines
        # (an empty block: its "empty document" error at the directive's line)
        if not self.content:
            first = self.lineno
        elif type(self.state_machine).__module__.startswith("myst_parser"):
            first = self.lineno + 1 + self.content_offset
        else:
            first = self.content.items[0][1] + 1
        head = range(self.lineno, max(first, self.lineno + 1))
        out = figure_nodes(env, self.info(), "\n".join(self.content), path, first, head)
        for node in out:
            node["classes"] += self.options.get("class", [])
            self.add_name(node)
        return out


class BracedFences(SphinxTransform):
    """MyST writes ```` ```{.posecode title="Squat"} ```` as a code block whose language is
    ``{.posecode`` (the rest of the info string dropped): read the attributes from the opening
    line in the file and make the figure as the directive does."""

    default_priority = 100  # early: before Sphinx's own code-block transforms

    def apply(self, **kwargs) -> None:
        for block in list(self.document.findall(nodes.literal_block)):
            if str(block.get("language", "")).lower() != "{.posecode" or not block.source or not block.line:
                continue
            lines = _file_lines(self.env, block.source)
            opener = lines[block.line - 1] if block.line <= len(lines) else ""
            braces = re.search(r"(?:`{3,}|~{3,})\s*(\{.*\})\s*$", opener)
            info = parse_info(braces.group(1) if braces else "{.posecode}")
            block.replace_self(figure_nodes(self.env, info, block.astext(), block.source, block.line + 1,
                                            range(block.line, block.line + 1)))


def _live(builder) -> bool:
    """Whether ``builder`` writes pages a browser runs: HTML builders but EPUB (its XHTML cannot
    hold the markup's bare attributes, its readers run no module scripts): they get the figures
    and the assets; every other builder gets the step list."""
    return builder.format == "html" and not builder.name.startswith("epub")


def resolve_figures(app, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved`` (every builder, each written doctree; singlehtml's whole book once):
    each figure becomes its ``<posecode-figure>`` markup, a raw HTML node with the id
    ``posecode-figure-N`` numbered in that doctree (unique on the page), for HTML builders, or
    its children (title, step list: never raw HTML) for the others (latex, text, man, epub...)."""
    live = _live(app.builder)
    renderer = _renderer(app.config)
    images = "image/png" in getattr(app.builder, "supported_image_types", ())
    for number, node in enumerate(list(doctree.findall(posecode_figure)), 1):
        if not live:
            poster = _poster_figure(app, node) if images else None
            if poster is not None:
                doctree.set_id(poster, suggested_prefix="posecode-figure")   # EPUB numbers captioned figures by id
            node.replace_self([poster, *(c.deepcopy() for c in node.children[0].children[1:])] if poster is not None
                              else node.children or [])
            continue
        markup = renderer.html(CompiledFigure.from_dict(node["figure"]), node["info"], f"posecode-figure-{number}",
                               source=node["source"], first_line=node["first_line"])
        # a raw node with classes is wrapped in a <div> carrying them and the ids (``:class:``, ``:name:``)
        classes = node["classes"] or (["posecode-target"] if node["ids"] else [])
        node.replace_self(nodes.raw("", markup, format="html", classes=classes, ids=node["ids"]))


def _poster_figure(app, node: posecode_figure) -> nodes.figure | None:
    """For a builder that takes PNG images (LaTeX, EPUB, Texinfo): the figure's poster frame as a
    PNG (motion/posterpng.py; pdflatex reads no SVG) in a ``figure`` node captioned with its title,
    which the builder copies and writes as any image (``builder.images`` maps the file, made once
    per figure key under the doctree folder); None for a block with errors or without Pillow."""
    data = node["figure"]
    if data.get("motion_json") is None or any(d["severity"] == "error" for d in data.get("diagnostics", [])):
        return None
    path = Path(app.doctreedir) / STATIC_DIR / f"posecode-{data['key'][:20]}.png"
    if not path.is_file():
        try:
            from posecode_ssg.language import parse
            from posecode_ssg.motion import compile_ir
            from posecode_ssg.motion.posterpng import render_poster_png

            ir = parse(node["source"]).ir
            avatar = node["info"].attrs.get("avatar") or ir.avatar or app.config.posecode_default_avatar
            png = render_poster_png(compile_ir(ir, avatar=avatar), view=data.get("view"))
        except Exception as exc:  # Pillow missing, or a compiler fault: the step list stands alone
            logger.info("posecode: no poster image for %s (%s)", data.get("name"), exc)
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
    uri = str(path)
    app.builder.images[uri] = path.name
    image = nodes.image(uri=uri, candidates={"*": uri}, alt=node["info"].attrs.get("title") or data.get("name") or "")
    title = node["info"].attrs.get("title") or data.get("name") or UI["figure.default_title"]
    return nodes.figure("", image, nodes.caption(title, title), classes=["posecode-poster"])


def _page_context(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """On an HTML page holding figures: the rig's ``<meta>`` (URL relative to the page), the
    stylesheet and the runtime as a module script (added for this page only)."""
    docs = _figure_docs(app.env)
    if doctree is None or not _live(app.builder) or not (pagename in docs or (app.builder.name == "singlehtml" and docs)):
        return
    rig = context["pathto"](f"_static/{STATIC_DIR}/{RIG_NAME}", 1)
    context["metatags"] = context.get("metatags", "") + f'\n<meta name="posecode-rig" content="{html.escape(rig)}" />'
    app.add_css_file(f"{STATIC_DIR}/{CSS_NAME}")
    app.add_js_file(f"{STATIC_DIR}/{RUNTIME_NAME}", type="module")


def _copy_assets(app, env):
    """Write the runtime, ``rig.json``, the stylesheet and three.js' licence into
    ``_static/posecode/`` for an HTML builder when some page has figures. ``env-updated``: after
    reading, before any page is written, for every HTML builder (``singlehtml`` has no
    ``html-collect-pages``; ``epub`` packs its files before ``build-finished``)."""
    if _live(app.builder) and _figure_docs(env):
        written = write_assets(Path(app.outdir) / "_static" / STATIC_DIR)
        if not any(path.name == RUNTIME_NAME for path in written):
            logger.info("posecode: the runtime bundle is not built (npm ci && npm run build): "
                        "figures show their posters only")
    return []


def _purge(app, env, docname: str) -> None:
    _figure_docs(env).discard(docname)


def _merge(app, env, docnames, other) -> None:
    """Parallel reads: take the figure pages a worker read."""
    _figure_docs(env).update(_figure_docs(other) & set(docnames))


def _config_inited(app, config) -> None:
    """Check ``posecode_default_view``; with myst-parser, make ```` ```posecode ```` fences the
    directive (its info string after the language arrives as the directive's argument)."""
    if config.posecode_default_view not in VIEWS:
        logger.warning("posecode_default_view must be one of %s, got %r: using 'auto'", ", ".join(VIEWS),
                       config.posecode_default_view, type="posecode", subtype="config")
        config.posecode_default_view = "auto"
    if "myst_fence_as_directive" in config:
        names = list(config.myst_fence_as_directive or [])
        if "posecode" not in names:
            config.myst_fence_as_directive = [*names, "posecode"]


def setup(app) -> dict:
    """Register the directive (``posecode``; ``.posecode`` for MyST's ```` ```{.posecode} ````),
    the node, the braced-fence transform, the config values and the event handlers."""
    app.add_config_value("posecode_default_view", "auto", "env", types=frozenset({str}))
    app.add_config_value("posecode_default_avatar", None, "env", types=frozenset({str, type(None)}))
    app.add_config_value("posecode_autoplay", True, "env", types=frozenset({bool}))
    app.add_node(posecode_figure)
    app.add_directive("posecode", PosecodeDirective)
    app.add_directive(".posecode", PosecodeDirective)
    app.add_transform(BracedFences)
    app.connect("config-inited", _config_inited, priority=900)  # after myst-parser's own handler
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _page_context)
    app.connect("env-updated", _copy_assets)
    app.connect("doctree-resolved", resolve_figures)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
