"""The project side of the dev server: the ``PreviewSource`` protocol and ``ProjectSource``,
a posecode-ssg project built with ``posecode_ssg.site.build.build_site``, with the fast path
that compiles just the edited Posecode blocks of a page."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Protocol

from posecode_ssg.site.problems import Problem, problem_from_diagnostic

from .problems import BuildReport, SourceError
from .snapshots import split_figures


class PreviewSource(Protocol):
    """The project side of the dev server (the real one is ``ProjectSource``).

    ``watch_dirs()`` lists folders watched recursively (content, theme);
    ``watch_files()`` lists single files (the config) — watched through their
    parent folder so an atomic save (rename over the file) is still seen.
    ``reload()`` re-reads the configuration (called before a build when a
    watched file changed); ``build(out_dir)`` builds the whole site into
    ``out_dir`` (incrementally when it can) and never raises for content
    errors. Optional: ``quick_figures(changed, served_pages)``, the figure
    fast path (see ``ProjectSource.quick_figures``).
    """

    def watch_dirs(self) -> list[Path]: ...

    def watch_files(self) -> list[Path]: ...

    def reload(self) -> None: ...

    def build(self, out_dir: Path) -> BuildReport: ...


def _outside_blocks(text: str, blocks: list[Any]) -> list[str]:
    """The lines of a Markdown text that are not inside a Posecode block's body."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    inside: set[int] = set()
    for block in blocks:
        count = len(block.source.split("\n")) if block.source else 0
        if block.source.endswith("\n"):
            count -= 1
        inside.update(range(block.first_line, block.first_line + count))
    return [line for number, line in enumerate(lines, start=1) if number not in inside]


class ProjectSource:
    """The real ``PreviewSource``: a posecode-ssg project (``posecode.toml``,
    content folder, theme) built with ``posecode_ssg.site.build.build_site``.

    ``config_path``/``content``: the ``serve`` command's ``--config`` and
    ``--content``. The site is built for the server's root (``base_url`` is
    replaced by ``/``, so a site configured for ``https://host/sub/`` previews
    at ``http://127.0.0.1:8000/``) and never into the configured output
    folder. Raises ``posecode_ssg.config.ConfigError`` from the constructor
    when the configuration is invalid at start.
    """

    def __init__(self, config_path: str | os.PathLike[str] | None = None,
                 content: str | os.PathLike[str] | None = None) -> None:
        self._config_arg = config_path
        self._content_arg = content
        self.config = self._load()
        self._texts: dict[str, str] = {}  # last seen text of each Markdown page (quick_figures)

    def _remember_texts(self) -> None:
        for path in Path(self.config.content_dir).rglob("*.md"):
            with contextlib.suppress(OSError, UnicodeDecodeError):
                self._texts[str(path)] = path.read_text(encoding="utf-8")

    def _load(self) -> Any:
        from dataclasses import replace

        from posecode_ssg.config import load_config

        config = load_config(self._config_arg)
        if self._content_arg is not None:
            config = config.with_overrides(content=self._content_arg)
        return replace(config, base_url="/")

    @staticmethod
    def build_keeps_going() -> bool:
        """Whether ``build_site`` accepts ``keep_going=True`` (write the site even
        when some pages have errors, those pages showing their error boxes).
        Without it a build with errors writes nothing, so the server keeps the
        whole last good site, and a project that is broken at start has no
        site until it is fixed."""
        import inspect

        from posecode_ssg.site.build import build_site

        return "keep_going" in inspect.signature(build_site).parameters

    def watch_dirs(self) -> list[Path]:
        dirs = [Path(self.config.content_dir)]
        if self.config.theme_dir is not None:
            dirs.append(Path(self.config.theme_dir))
        return dirs

    def watch_files(self) -> list[Path]:
        from posecode_ssg.config import CONFIG_NAME

        path = self.config.config_path or Path(self.config.root) / CONFIG_NAME
        return [Path(path)]

    def reload(self) -> None:
        from posecode_ssg.config import ConfigError

        try:
            self.config = self._load()
        except ConfigError as exc:
            path = exc.path or "posecode.toml"
            raise SourceError([
                Problem.at(path, line=line or 1, column=1, severity="error", code="config", message=message)
                for line, message in exc.problems
            ]) from None

    def quick_figures(self, changed: set[str], served_pages: dict[str, str]) -> dict[str, list[dict[str, str]]] | None:
        """The fast path for an edit inside Posecode blocks only (see ``LiveSite``).

        When ``changed`` is one Markdown page whose text outside its
        ```` ```posecode ```` blocks (and their info strings) is unchanged
        since the last call, compile just the edited blocks and return
        ``{output page: [{"id", "html"}, ...]}`` with the figure markup the
        build will write, the k-th block matched to the k-th figure of the
        page being served. ``None`` when the edit is anything else, when a
        block does not compile cleanly, or when the page's figures do not
        line up (the full build then decides). The build runs in any case;
        a difference is corrected when it publishes.
        """
        from posecode_ssg.site.compilation import figure_options
        from posecode_ssg.site.content import page_url
        from posecode_ssg.site.fences import extract_posecode_blocks
        from posecode_ssg.site.figures import compile_figure
        from posecode_ssg.site.fences import front_matter
        from posecode_ssg.site.markdown import figure_html, parse_info
        from posecode_ssg.site.prescription import rep_target

        content = Path(self.config.content_dir).resolve()
        edits: list[tuple[Path, str | None, str]] = []
        for name in changed:
            path = Path(name)
            if path.suffix != ".md":
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._texts.pop(name, None)
                continue
            edits.append((path, self._texts.get(name), text))
            self._texts[name] = text
        if len(changed) != 1 or len(edits) != 1:
            return None
        path, old_text, new_text = edits[0]
        if old_text is None:
            return None
        try:
            src_uri = path.resolve().relative_to(content).as_posix()
        except ValueError:
            return None
        old_blocks = extract_posecode_blocks(old_text)
        new_blocks = extract_posecode_blocks(new_text)
        if [b.info for b in old_blocks] != [b.info for b in new_blocks]:
            return None
        if _outside_blocks(old_text, old_blocks) != _outside_blocks(new_text, new_blocks):
            return None
        edited = [k for k, (a, b) in enumerate(zip(old_blocks, new_blocks)) if a.source != b.source]
        dest = page_url(src_uri)[1]
        page = served_pages.get(dest)
        if not edited or page is None:
            return None
        figures = split_figures(page)[1]
        if len(figures) != len(new_blocks) or not all(fid for fid, _html in figures):
            return None
        default_view = None if self.config.default_view == "auto" else self.config.default_view
        swaps = []
        meta = front_matter(new_text)
        reps = rep_target(meta)   # the page's prescribed reps, as the build writes them (data-reps)
        for k in edited:
            block = new_blocks[k]
            info = parse_info(block.info)
            figure = compile_figure(block.source, figure_options(info, self.config, meta, first=k == 0))
            if figure.errors or figure.motion_json is None:
                return None
            swaps.append({"id": figures[k][0],
                          "html": figure_html(figure, info, figures[k][0], default_view=default_view,
                                              autoplay=self.config.autoplay, source=block.source,
                                              reps=reps).strip()})
        return {dest: swaps}

    def build(self, out_dir: Path) -> BuildReport:
        """Build the site into ``out_dir`` (never the configured output folder):
        not strict, pages with errors written with their error boxes when the
        build supports it; returns the diagnostics as ``Problem`` objects."""
        from posecode_ssg.site.build import build_site

        if not self._texts:
            self._remember_texts()

        options: dict[str, Any] = {}
        if self.build_keeps_going():
            # Pages with errors are written with their error boxes; the private folder is
            # updated file by file (requests wait while a build runs, so no tab sees a mix).
            options["keep_going"] = True
            options["in_place"] = True
        result = build_site(self.config, out_dir=out_dir, strict=False, progress=False, **options)
        report = BuildReport()
        for path, diagnostic in result.errors:
            report.errors.append(problem_from_diagnostic(path, diagnostic))
        for path, diagnostic in result.warnings:
            report.warnings.append(problem_from_diagnostic(path, diagnostic))
        for path, diagnostic in getattr(result, "hints", None) or []:
            report.hints.append(problem_from_diagnostic(path, diagnostic))
        report.stages = {name: float(value) for name, value in (getattr(result, "timings", None) or {}).items()}
        broken = {os.path.realpath(path) for path, _d in result.errors}
        for page in getattr(result, "pages", None) or []:
            src = getattr(page, "src_path", None)
            dest = getattr(page, "dest_uri", None) or getattr(page, "dest_path", None)
            if src is not None and dest is not None and os.path.realpath(src) in broken:
                report.error_pages.add(Path(dest).as_posix().lstrip("/"))
        return report

