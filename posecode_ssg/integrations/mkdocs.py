"""The MkDocs plugin ``posecode`` (entry point group ``mkdocs.plugins``; ``plugins: [posecode]``):
```` ```posecode ```` fences of an MkDocs site become animated figures, as in a posecode-ssg site.

MkDocs renders with Python-Markdown, whose fenced-code extensions do not see a fence indented
in a list, an admonition (``!!!``), a collapsible block (``???``) or a content tab (``===``)
unless pymdownx.superfences is configured, and which wraps inline HTML in ``<p>``. So the plugin
finds the fences itself, before Python-Markdown runs (``on_page_markdown``), with posecode-ssg's
own Markdown pipeline (markdown-it-py with the same admonition, details and tab rules), and puts
a one-word placeholder paragraph in each one's place, at the fence's indentation: it stays inside
its list item, admonition, details or tab whatever extensions the site has. After rendering
(``on_page_content``) each placeholder paragraph is replaced by the figure's markup, compiled and
rendered by the build's own functions (:mod:`.embed`). Its motion JSON is a file of the site
(``assets/posecode/motion/<content hash>.json``, the figure's ``src``), not an inline script:
Material's instant navigation re-runs the scripts of the page it brings in, an inline JSON one
as JavaScript.

The runtime, ``rig.json`` and a small stylesheet are written under ``assets/posecode/`` of the
built site (``on_post_build``; no CDN). Every page's head gets the rig ``<meta>`` and the
stylesheet with URLs relative to the page (right under any ``site_url`` sub-path and with
``use_directory_urls: false``) and a few lines of script that load the runtime as soon as the
document has a figure: at once, or when Material's instant navigation brings one in.

Problems are logged through MkDocs' logger as ``docs/page.md:LINE:COL: severity[code]: message``
with the source line (the text of ``posecode-ssg check``): errors at level ERROR, warnings at
WARNING, so ``mkdocs build --strict`` fails on them; with the plugin's own ``strict: true`` any
Posecode problem fails the build.
"""

from __future__ import annotations

import html
import logging
import os
import re
import secrets
from pathlib import Path

from mkdocs.config import config_options as opt
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.utils import get_relative_url

from posecode_ssg.integrations.embed import (
    CSS_NAME,
    RIG_NAME,
    RUNTIME_NAME,
    FigureRenderer,
    figure_problems,
    format_problem,
    write_assets,
)

log = logging.getLogger("mkdocs.plugins.posecode")

#: where the runtime, rig and stylesheet go in the built site
ASSETS = "assets/posecode"


class PosecodeConfig(Config):
    """The plugin's options, named as in posecode.toml."""

    default_view = opt.Choice(("auto", "side", "front"), default="auto")
    default_avatar = opt.Optional(opt.Type(str))
    autoplay = opt.Type(bool, default=True)
    strict = opt.Type(bool, default=False)


def _loader(runtime_url: str) -> str:
    """The head script: the rig ``<meta>``'s URL made absolute (Material's instant navigation
    keeps this head while the page URL changes), and the runtime imported once the document has
    a ``<posecode-figure>`` (now, or after an instant navigation brings one). When the import
    fails (a page opened from ``file://``: Chromium runs no module script from there) the
    figures keep their posters and step lists, and the console says why, once."""
    return ('<script type="module">'
            'const m=document.querySelector(\'meta[name="posecode-rig"]\');m.content=new URL(m.content,document.baseURI).href;'
            f'const u=new URL({runtime_url!r},document.baseURI).href;'
            'const go=()=>!!document.querySelector("posecode-figure")&&(import(u).catch(e=>console.error('
            '"posecode: the player did not load, figures show their posters ("+e.message+")"+(location.protocol=="file:"'
            '?": browsers run no module scripts from file:// pages; serve the site over HTTP":""))),true);'
            'if(!go()){const o=new MutationObserver(()=>go()&&o.disconnect());'
            'o.observe(document.documentElement,{childList:true,subtree:true})}'
            '</script>')


class PosecodePlugin(BasePlugin[PosecodeConfig]):
    """Posecode figures in an MkDocs site (see the module docstring)."""

    supports_multiple_instances = False

    def on_config(self, config):
        self.renderer = FigureRenderer(default_view=self.config.default_view,
                                       default_avatar=self.config.default_avatar,
                                       autoplay=self.config.autoplay)
        self.root = Path(config.config_file_path or ".").resolve().parent
        self.problems = 0
        # a per-build word no author writes: the placeholders of this build's figures
        self.nonce = secrets.token_hex(6)
        self.pending: dict[str, dict[str, str]] = {}   # page src_uri -> {placeholder: markup}
        self.motions: dict[str, str] = {}   # figure key -> its motion JSON (assets/posecode/motion/<key>.json)
        return config

    # -- pages -------------------------------------------------------------------------------

    def on_page_markdown(self, markdown, page, config, files):
        """Replace each posecode fence of ``markdown`` by a placeholder paragraph at its
        indentation, remembering the figure's markup; log its problems at file lines."""
        from posecode_ssg.site.content import create_markdown
        from posecode_ssg.site.markdown import posecode_env

        env: dict = {}
        create_markdown(raw_html=True).parse(markdown, env)
        pc = posecode_env(env)
        path = page.file.abs_src_path or page.file.src_uri
        shown = self._shown(path)
        file_lines, offset = self._file_lines(path, markdown)
        for d in pc.diagnostics:   # fence-level problems (a fence left open), at document lines
            if d.get("code") == "fence-unclosed":
                self._report_raw(shown, d, offset)
        if not pc.figures:
            return markdown
        lines = markdown.split("\n")
        figures: dict[str, str] = {}
        for n, token in reversed(list(enumerate(pc.figures, 1))):
            start, end = token.map
            info = token.meta["info"]
            fence_line = offset + start + 1
            figure = self.renderer.figure(token.content, info, page.meta)
            marker = f"posecodefigure{self.nonce}n{n}"
            src = None
            if figure.motion_json is not None:
                self.motions[figure.key] = figure.motion_json
                src = get_relative_url(f"{ASSETS}/motion/{figure.key}.json", page.url)
            figures[marker] = self.renderer.html(figure, info, token.meta["id"], source=token.content,
                                                 first_line=fence_line + 1, motion_src=src)
            for problem in figure_problems(figure, info, source=token.content, path=path, fence_line=fence_line,
                                           file_lines=file_lines):
                self._report(problem, shown, file_lines)
            opener = lines[start]
            prefix = opener[:len(opener) - len(opener.lstrip(" \t>-*+.0123456789"))]
            blank = re.sub(r"[^\s>]", " ", prefix).rstrip()
            lines[start:end] = [blank, prefix + marker, blank]
        self.pending[page.file.src_uri] = figures
        return "\n".join(lines)

    def on_page_content(self, html_text, page, config, files):
        """Put each figure's markup where its placeholder paragraph was rendered."""
        figures = self.pending.pop(page.file.src_uri, None)
        if not figures:
            return html_text

        def swap(match: re.Match) -> str:
            return figures.get(match.group(1), match.group(0))
        html_text = re.sub(r"<p>\s*(posecodefigure" + self.nonce + r"n\d+)\s*</p>", swap, html_text)
        return re.sub(r"(posecodefigure" + self.nonce + r"n\d+)", swap, html_text)

    def on_post_page(self, output, page, config):
        """Every page's head: the rig ``<meta>``, the stylesheet and the runtime loader (so a
        figure that instant navigation brings in plays too)."""
        def url(name: str) -> str:
            return get_relative_url(f"{ASSETS}/{name}", page.url)
        head = (f'<meta name="posecode-rig" content="{html.escape(url(RIG_NAME))}">'
                f'<link rel="stylesheet" href="{html.escape(url(CSS_NAME))}">' + _loader(url(RUNTIME_NAME)))
        at = output.find("</head>")
        return output if at < 0 else output[:at] + head + output[at:]

    def on_post_build(self, config):
        """Write the runtime, rig and stylesheet into the site; with ``strict``, fail on any
        Posecode problem."""
        folder = Path(config.site_dir) / ASSETS
        write_assets(folder)
        (folder / "motion").mkdir(exist_ok=True)
        for key, text in self.motions.items():
            (folder / "motion" / f"{key}.json").write_text(text, encoding="utf-8")
        if self.config.strict and self.problems:
            raise PluginError(f"posecode: {self.problems} Posecode problem{'s' if self.problems != 1 else ''} "
                              "(strict: true in the posecode plugin's options)")

    # -- problems ----------------------------------------------------------------------------

    def _shown(self, path: str) -> str:
        try:
            return os.path.relpath(path, self.root)
        except ValueError:   # another drive
            return str(path)

    @staticmethod
    def _file_lines(path: str, markdown: str) -> tuple[list[str] | None, int]:
        """The source file's lines, and how many precede ``markdown`` (the front matter MkDocs
        took off: the plugin's lines are file lines)."""
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except OSError:
            return None, 0
        text = text.replace("\r\n", "\n")
        at = len(text) - len(markdown) if text.endswith(markdown) else text.find(markdown)
        return text.split("\n"), text[:at].count("\n") if at > 0 else 0

    def _report(self, problem, shown: str, file_lines) -> None:
        self._log(problem.severity, format_problem(problem, shown, file_lines))

    def _report_raw(self, shown: str, d: dict, offset: int) -> None:
        hint = f"\n    = hint: {d['hint']}" if d.get("hint") else ""
        self._log(d["severity"], f"{shown}:{d['line'] + offset}:{d['column']}: {d['severity']}[{d['code']}]: "
                                 f"{d['message']}{hint}")

    def _log(self, severity: str, text: str) -> None:
        """Errors at ERROR, warnings at WARNING (both counted for ``strict``), hints at INFO (as
        ``posecode-ssg build`` neither fails nor counts on them)."""
        if severity in ("error", "warning"):
            self.problems += 1
            (log.error if severity == "error" else log.warning)(text)
        else:
            log.info(text)
