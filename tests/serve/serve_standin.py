"""A tiny stand-in for the site build, used to test the dev server on its own.

It knows just enough Markdown for the server's needs: one page per ``.md``
file (``a/b.md`` -> ``a/b/index.html``, ``index.md`` -> ``index.html``), each
```` ```posecode ```` fence becomes a ``<posecode-figure>`` holding the fence
text as JSON, and a fence line containing ``flx`` is an error (the typo of
sv-rebuild-error-keeps-serving). Like the real build it writes into a sibling
folder and swaps it in, so a reader never sees a half-written site.
"""

from __future__ import annotations

import html
import json
import os
import shutil
from pathlib import Path

from posecode_ssg.site.serve import BuildReport, Problem


def page_path(rel_md: str) -> str:
    """Output path of a content file (``/``-separated)."""
    stem = rel_md[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem + ".html"
    return stem + "/index.html"


class StandInSource:
    """``PreviewSource`` over ``root/content`` (+ ``root/theme``, ``root/posecode.toml``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.content = root / "content"
        self.theme = root / "theme"
        self.config = root / "posecode.toml"
        self.reloads = 0
        self.builds = 0
        self.title = "Site"

    def watch_dirs(self) -> list[Path]:
        return [self.content, self.theme]

    def watch_files(self) -> list[Path]:
        return [self.config]

    def reload(self) -> None:
        self.reloads += 1
        text = self.config.read_text(encoding="utf-8") if self.config.exists() else ""
        for line in text.splitlines():
            if line.startswith("title"):
                self.title = line.split("=", 1)[1].strip().strip('"')

    def build(self, out_dir: Path) -> BuildReport:
        self.builds += 1
        report = BuildReport()
        staging = out_dir.with_name(out_dir.name + ".new")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        if self.theme.is_dir():  # theme assets are copied as they are
            for asset in sorted(self.theme.rglob("*")):
                if asset.is_file() and not asset.name.startswith("."):
                    target = staging / asset.relative_to(self.theme)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(asset, target)
        (staging / "rig.json").write_text('{"bones": []}', encoding="utf-8")
        for path in sorted(self.content.rglob("*.md")):
            rel = path.relative_to(self.content).as_posix()
            if any(part.startswith(".") for part in rel.split("/")):
                continue
            out_rel = page_path(rel)
            body, problems = self._render(path, rel)
            if problems:
                report.errors.extend(problems)
                report.error_pages.add(out_rel)
            target = staging / out_rel
            target.parent.mkdir(parents=True, exist_ok=True)
            scripts = "".join(
                f'<script type="module" src="/{js.name}"></script>' for js in sorted(self.theme.glob("*.js"))
            ) if self.theme.is_dir() else ""
            target.write_text(
                f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(self.title)}</title>"
                f'<link rel="icon" href="data:,"><link rel="stylesheet" href="/style.css">{scripts}</head>'
                f"<body>{body}</body></html>",
                encoding="utf-8",
            )
        old = out_dir.with_name(out_dir.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if out_dir.exists():
            os.rename(out_dir, old)
        os.rename(staging, out_dir)
        shutil.rmtree(old, ignore_errors=True)
        return report

    def _render(self, path: Path, rel: str) -> tuple[str, list[Problem]]:
        lines = path.read_text(encoding="utf-8").splitlines()
        out: list[str] = []
        problems: list[Problem] = []
        fence: list[str] | None = None
        figures = 0
        for number, line in enumerate(lines, start=1):
            if fence is None and line.strip().startswith("```posecode"):
                fence = []
            elif fence is not None and line.strip() == "```":
                figures += 1
                text = "\n".join(fence)
                data = json.dumps({"text": text}).replace("<", "\\u003c")
                out.append(
                    f'<posecode-figure id="fig-{figures}"><script type="application/json">{data}</script>'
                    f'<figure class="posecode-poster">{html.escape(text)}</figure></posecode-figure>'
                )
                fence = None
            elif fence is not None:
                fence.append(line)
                if "flx" in line:
                    column = line.index("flx") + 1
                    problems.append(Problem.at(
                        path, line=number, column=column, severity="error", code="unknown-action",
                        message="unknown action 'flx'", hint="did you mean 'flex'?"))
            elif line.startswith("# "):
                out.append(f"<h1>{html.escape(line[2:])}</h1>")
            elif line.strip():
                out.append(f"<p>{html.escape(line)}</p>")
        return "\n".join(out), problems
