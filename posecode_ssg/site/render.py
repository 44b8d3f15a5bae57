"""Themes: Jinja2 template lookup, static files, fingerprints.

A theme is an ordered list of folders, searched first to last (the MkDocs
``custom_dir`` rule): the user's ``theme_dir`` (when configured), then the
built-in theme shipped inside the package at ``posecode_ssg/themes/<name>/``.
Each folder holds Jinja2 templates (``base.html``, ``page.html``, ...) and a
``static/`` folder; any file in ``theme_dir`` replaces the built-in file of
the same relative name, template or static. Templates are documented in
``docs/site.md``.
"""

from __future__ import annotations

import hashlib
import traceback
from pathlib import Path

import jinja2

from posecode_ssg.site.report import display_path
from posecode_ssg.site.result import BuildError

THEMES_DIR = Path(__file__).resolve().parent.parent / "themes"
_THEMES: dict[tuple[str, str | None], "Theme"] = {}  # Theme.load's per-process cache


class Theme:
    """A resolved theme: ``folders`` (override first), a Jinja2 environment and static files.

    :raises FileNotFoundError: the named built-in theme does not exist.
    """

    def __init__(self, name: str = "default", theme_dir: Path | None = None):
        builtin = THEMES_DIR / name
        if not builtin.is_dir():
            raise FileNotFoundError(f"theme '{name}' not found in {THEMES_DIR}")
        self.folders: list[Path] = ([theme_dir] if theme_dir else []) + [builtin]
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(f) for f in self.folders]),
            autoescape=jinja2.select_autoescape(["html", "xml"], default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,  # theme changes are detected by fingerprint (see Theme.load)
        )
        self._fingerprint: str | None = None

    @classmethod
    def load(cls, name: str = "default", theme_dir: Path | None = None) -> "Theme":
        """The theme ``name`` (with ``theme_dir`` overrides), reusing this process's previous
        instance when no template or static file changed since (compiled Jinja2 templates are
        kept between builds: the dev server rebuilds in ~ms instead of recompiling every
        template). Same errors as the constructor."""
        key = (name, str(theme_dir) if theme_dir else None)
        fresh = cls(name, theme_dir)
        cached = _THEMES.get(key)
        if cached is not None and cached.fingerprint() == fresh.fingerprint():
            return cached
        _THEMES[key] = fresh
        return fresh

    def static_files(self) -> dict[str, Path]:
        """Return ``{relative name: path}`` of the merged ``static/`` folders (override wins), sorted."""
        files: dict[str, Path] = {}
        for folder in reversed(self.folders):
            static = folder / "static"
            if static.is_dir():
                for path in static.rglob("*"):
                    if path.is_file() and not path.name.startswith("."):
                        files[path.relative_to(static).as_posix()] = path
        return dict(sorted(files.items()))

    def fingerprint(self) -> str:
        """Hash of every template and static file of the theme (names and bytes), computed once per instance."""
        if self._fingerprint is not None:
            return self._fingerprint
        digest = hashlib.sha256()
        for folder in self.folders:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    digest.update(path.relative_to(folder).as_posix().encode())
                    digest.update(path.read_bytes())
        self._fingerprint = digest.hexdigest()[:16]
        return self._fingerprint

    def render(self, template: str, context: dict) -> str:
        """Render ``template`` with ``context`` (autoescaped HTML/XML).

        :raises BuildError: the template (or one it extends or includes) has an error: a
            syntax error, a missing template, an interface string key that is not in
            :data:`posecode_ssg.site.strings.UI`; the message names the file and line.
        """
        try:
            return self.env.get_template(template).render(context)
        except jinja2.TemplateError as exc:
            raise BuildError(template_error(template, exc)) from None
        except Exception as exc:   # a template's expression failed in Python (1/0, a bad call)
            raise BuildError(template_error(template, exc)) from None

    def compile_all(self) -> None:
        """Compile every template of the theme (cached by the environment). Same errors as
        :meth:`render`."""
        for name in self.env.list_templates(extensions=["html", "xml"]):
            try:
                self.env.get_template(name)
            except jinja2.TemplateError as exc:
                raise BuildError(template_error(name, exc)) from None


def template_error(template: str, exc: Exception) -> str:
    """The build error message of ``exc``, raised rendering ``template``: the template file and
    line where it happened (from the syntax error, or the innermost template frame of the
    traceback), Jinja's (or Python's) message and a hint of what to check."""
    where = None
    if isinstance(exc, jinja2.TemplateSyntaxError) and exc.filename:
        where = (exc.filename, exc.lineno)
    else:
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            if frame.filename.endswith((".html", ".xml")):
                where = (frame.filename, frame.lineno)
                break
    place = f"{display_path(where[0])}:{where[1]}" if where else f"template '{template}'"
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    if not isinstance(exc, jinja2.TemplateError):
        message = f"{type(exc).__name__}: {message}"
    return f"{place}: template error: {message} (hint: {_template_hint(exc)})"


def _template_hint(exc: Exception) -> str:
    """What to check for a template error of ``exc``'s kind (docs/site.md "Themes")."""
    text = str(getattr(exc, "message", None) or exc)
    if isinstance(exc, jinja2.TemplateAssertionError) and "filter" in text:
        return "the filters are Jinja2's built-in ones and this theme's; check the name after the |"
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return "check the tag at that line: its spelling, and that each {% if %}, {% for %} and {% block %} is closed"
    if isinstance(exc, jinja2.TemplateNotFound):
        return "an overriding theme's templates are looked up before the default theme's; check the name"
    if isinstance(exc, jinja2.UndefinedError):
        if "interface string" in text:
            return "use a key of posecode_ssg/i18n/locales/en.toml, or add it to i18n/<language>.toml"
        return ("a variable or attribute the template uses is not there; docs/site.md (Themes) lists what each "
                "template gets")
    return "the expression at that line failed; compare it with the default theme's template"


def hashed_name(name: str, data: bytes) -> str:
    """Return ``stem.<first 10 hex of sha256>.ext`` for a shared asset (cache-busting name)."""
    digest = hashlib.sha256(data).hexdigest()[:10]
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{digest}.{ext}" if dot else f"{name}.{digest}"
