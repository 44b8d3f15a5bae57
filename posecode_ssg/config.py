"""Site configuration: ``posecode.toml`` -> a validated :class:`SiteConfig`.

The file is TOML (read with the standard library's ``tomllib``), flat keys::

    site_name = "Movement library"
    base_url = "https://example.org/library/"   # subpath hosting works
    content_dir = "content"
    output_dir = "site"
    theme = "default"
    theme_dir = "overrides"        # templates/static files that replace the theme's, file by file
    strict = false                 # warnings fail the build
    default_avatar = "avatar1"     # spec §1 avatar vocabulary
    default_view = "auto"          # auto (chosen per movement) | side | front
    autoplay = true
    language = "en"
    description = "..."
    exports = ["card", "gif"]     # social cards and "Download GIF" links (need Chromium; default [])

    [taxonomies.muscles]           # extend a built-in taxonomy, or declare a new one
    synonyms = { "rhomboid major" = "rhomboids" }

Every key is optional; without any file the defaults build ``./content`` into
``./site``. Paths are relative to the folder holding the config file (or the
working directory when there is none). Validation collects every problem and
raises one :class:`ConfigError` listing them, each with its line in the file
(the MkDocs rule: report all, then stop). Validation uses explicit checks,
never ``assert``.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

CONFIG_NAME = "posecode.toml"
VIEWS = ("auto", "side", "front")
THEMES = ("default",)
#: what ``exports`` may list (docs/export.md, "In the site build"): ``card`` a PNG social card per
#: exercise page, ``gif`` a "Download GIF" link under each player
EXPORT_KINDS = ("card", "gif")


class PosecodeError(Exception):
    """Base of the errors posecode-ssg reports to a user as one line (no traceback)."""


class ConfigError(PosecodeError):
    """The configuration is invalid. ``problems`` holds ``(line or None, message)`` pairs."""

    def __init__(self, path: Path | None, problems: list[tuple[int | None, str]]):
        self.path = path
        self.problems = problems
        name = str(path) if path else "configuration"
        lines = [f"{name}:{line or 1}:1: error[config]: {msg}" for line, msg in problems]
        super().__init__("\n".join(lines))


#: the site name of a configuration that gives none (a build shows it in the site's language)
DEFAULT_SITE_NAME = "Movement library"


@dataclass(frozen=True)
class SiteConfig:
    """A validated site configuration (all paths absolute).

    ``base_url`` is kept as written (with a trailing ``/``); ``base_path`` is
    its path part (``/`` or ``/sub/path/``), the prefix of every URL the build
    writes. ``site_url`` is the scheme+host part, empty when ``base_url`` is a
    bare path (then no ``sitemap.xml`` can hold absolute URLs).
    """

    root: Path
    content_dir: Path
    output_dir: Path
    cache_dir: Path
    config_path: Path | None = None
    site_name: str = DEFAULT_SITE_NAME   # its text in the site's language: the catalogue's site.default_name
    base_url: str = "/"
    theme: str = "default"
    theme_dir: Path | None = None
    strict: bool = False
    default_avatar: str | None = None
    default_view: str = "auto"
    autoplay: bool = True
    #: raw HTML in Markdown passed through to the page (unsafe with untrusted authors); default
    #: false: shown as text
    raw_html: bool = False
    language: str = "en"
    description: str = ""
    extra: dict = field(default_factory=dict)
    #: the checked ``[taxonomies.<name>]`` tables (``posecode_ssg.site.vocabularies.check_tables``)
    taxonomies: dict = field(default_factory=dict)
    #: the exports the build makes (:data:`EXPORT_KINDS`, in that order; default none: no Chromium)
    exports: tuple[str, ...] = ()

    @property
    def base_path(self) -> str:
        """The URL path prefix of the site: ``/`` or ``/sub/``."""
        path = urlsplit(self.base_url).path or "/"
        return path if path.endswith("/") else path + "/"

    @property
    def site_url(self) -> str:
        """``scheme://host`` of ``base_url``, or ``""`` for a bare path."""
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""

    def with_overrides(self, *, content: str | Path | None = None, out: str | Path | None = None,
                       strict: bool | None = None) -> "SiteConfig":
        """Return a copy with command-line overrides applied (paths relative to the working directory)."""
        cfg = self
        if content is not None:
            cfg = replace(cfg, content_dir=Path(content).resolve())
        if out is not None:
            cfg = replace(cfg, output_dir=Path(out).resolve())
        if strict:
            cfg = replace(cfg, strict=True)
        return cfg


_KEYS = {
    "site_name": str, "base_url": str, "content_dir": str, "output_dir": str, "cache_dir": str,
    "theme": str, "theme_dir": str, "strict": bool, "default_avatar": str, "default_view": str,
    "autoplay": bool, "raw_html": bool, "language": str, "description": str, "extra": dict, "taxonomies": dict,
    "exports": list,
}


def _key_line(text: str, key: str) -> int | None:
    match = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


_TOML_KEY = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_TOML_HEADER = re.compile(rf"^\s*\[\s*({_TOML_KEY}(?:\s*\.\s*{_TOML_KEY})*)\s*\]\s*(?:#.*)?$")
_TOML_ASSIGN = re.compile(rf"^\s*({_TOML_KEY}(?:\s*\.\s*{_TOML_KEY})*)\s*=")


def _toml_path(dotted: str) -> tuple[str, ...]:
    parts = re.findall(_TOML_KEY, dotted)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def toml_key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The 1-based line of each table header and key of a TOML ``text``, by key path
    (``[taxonomies.muscles]`` then ``open = true`` gives ``("taxonomies", "muscles", "open")``);
    keys inside inline tables and arrays are not listed (see :func:`line_of`)."""
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.split("\n"), 1):
        header = _TOML_HEADER.match(line)
        if header:
            table = _toml_path(header.group(1))
            lines.setdefault(table, number)
            continue
        assign = _TOML_ASSIGN.match(line)
        if assign:
            path = table + _toml_path(assign.group(1))
            for i in range(len(table) + 1, len(path) + 1):
                lines.setdefault(path[:i], number)
    return lines


def line_of(lines: dict[tuple[str, ...], int], path: tuple[str, ...]) -> int | None:
    """The line of the key ``path`` in :func:`toml_key_lines`, else of its nearest enclosing
    key or table that has one, else None."""
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _avatars() -> tuple[str, ...]:
    from posecode_ssg.language.vocabulary import AVATARS

    return tuple(AVATARS)


def load_config(path: str | Path | None = None, *, cwd: str | Path | None = None) -> SiteConfig:
    """Read and validate a ``posecode.toml``.

    :param path: the file; ``None`` looks for ``posecode.toml`` in ``cwd`` and
        falls back to the defaults when there is none.
    :param cwd: working directory (default: the process's).
    :returns: a :class:`SiteConfig` with absolute paths.
    :raises ConfigError: the file is missing (when named), not TOML, or has
        unknown keys / wrong types / bad values; every problem is listed with
        its line.
    """
    cwd = Path(cwd or Path.cwd()).resolve()
    if path is None:
        candidate = cwd / CONFIG_NAME
        if not candidate.is_file():
            return SiteConfig(root=cwd, content_dir=cwd / "content", output_dir=cwd / "site",
                              cache_dir=cwd / ".posecode-cache")
        path = candidate
    path = Path(path)
    if not path.is_absolute():
        path = cwd / path
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(path, [(None, "config file not found")]) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(path, [(None, f"not UTF-8 text ({exc.reason})")]) from None
    except OSError as exc:
        raise ConfigError(path, [(None, f"cannot read: {exc.strerror}")]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(match.group(1)) if match else None
        raise ConfigError(path, [(line, f"invalid TOML: {exc}")]) from None
    return _validate(data, text, path.parent.resolve(), path.resolve())


def _validate(data: dict, text: str, root: Path, path: Path) -> SiteConfig:
    problems: list[tuple[int | None, str]] = []
    values: dict = {}
    for key, value in data.items():
        line = _key_line(text, key)
        if key not in _KEYS:
            close = difflib.get_close_matches(key, list(_KEYS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known keys: {', '.join(sorted(_KEYS))})"
            problems.append((line, f"unknown key '{key}'{hint}"))
            continue
        expected = _KEYS[key]
        if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
            tname = {str: "a string", bool: "true or false", dict: "a table",
                     list: "an array of strings"}[expected]
            problems.append((line, f"'{key}' must be {tname}, got {type(value).__name__} {value!r}"))
            continue
        values[key] = value

    taxonomies: dict = {}
    if "taxonomies" in values:
        from posecode_ssg.site.vocabularies import check_tables, fixed_front_matter_keys

        key_lines = toml_key_lines(text)
        taxonomies, found = check_tables(values["taxonomies"], lambda p: line_of(key_lines, p),
                                         fixed_front_matter_keys())
        problems.extend(found)

    def path_value(key: str, default: str | None) -> Path | None:
        raw = values.get(key, default)
        if raw is None:
            return None
        if not raw.strip():
            problems.append((_key_line(text, key), f"'{key}' must not be empty"))
            return None
        return (root / raw).resolve()

    content_dir = path_value("content_dir", "content")
    output_dir = path_value("output_dir", "site")
    cache_dir = path_value("cache_dir", ".posecode-cache")
    theme_dir = path_value("theme_dir", None)
    if theme_dir is not None and not theme_dir.is_dir():
        problems.append((_key_line(text, "theme_dir"), f"theme_dir '{values['theme_dir']}' is not a folder"))
    if output_dir is not None and content_dir is not None and (
            output_dir == content_dir or content_dir.is_relative_to(output_dir)
            or output_dir.is_relative_to(content_dir)):
        problems.append((_key_line(text, "output_dir"),
                         "output_dir must not be the content folder, inside it, or contain it"))
    if output_dir is not None and output_dir == root:
        problems.append((_key_line(text, "output_dir"), "output_dir must not be the project folder itself"))

    theme = values.get("theme", "default")
    if theme not in THEMES:
        problems.append((_key_line(text, "theme"),
                         f"unknown theme '{theme}' (available: {', '.join(THEMES)}; "
                         "use theme_dir to override its templates)"))
    view = values.get("default_view", "auto")
    if view not in VIEWS:
        problems.append((_key_line(text, "default_view"), f"default_view must be one of {', '.join(VIEWS)}, got '{view}'"))
    avatar = values.get("default_avatar")
    if avatar is not None:
        try:
            avatars = _avatars()
        except ImportError:  # language package absent: cannot check
            avatars = (avatar,)
        if avatar not in avatars:
            close = difflib.get_close_matches(avatar, avatars, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append((_key_line(text, "default_avatar"),
                             f"default_avatar must be one of {', '.join(avatars)}, got '{avatar}'{hint}"))
    base_url = values.get("base_url", "/").strip() or "/"
    parts = urlsplit(base_url)
    if parts.query or parts.fragment:
        problems.append((_key_line(text, "base_url"), "base_url must not have a query or fragment"))
    elif parts.scheme and parts.scheme not in ("http", "https"):
        problems.append((_key_line(text, "base_url"), f"base_url scheme must be http or https, got '{parts.scheme}'"))
    elif parts.scheme and not parts.netloc:
        problems.append((_key_line(text, "base_url"), "base_url has a scheme but no host"))
    elif not parts.scheme and not base_url.startswith("/"):
        problems.append((_key_line(text, "base_url"),
                         "base_url must be an absolute URL (https://host/path/) or a path starting with '/'"))
    if not base_url.endswith("/"):
        base_url += "/"
    exports: list[str] = []
    for item in values.get("exports", []):
        if not isinstance(item, str):
            problems.append((_key_line(text, "exports"),
                             f"'exports' must be an array of strings, got {type(item).__name__} {item!r} in it"))
        elif item not in EXPORT_KINDS:
            close = difflib.get_close_matches(item, EXPORT_KINDS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append((_key_line(text, "exports"),
                             f"unknown export '{item}' in 'exports' (one of {', '.join(EXPORT_KINDS)}){hint}"))
        elif item not in exports:
            exports.append(item)
    site_name = values.get("site_name", DEFAULT_SITE_NAME).strip()
    if not site_name:
        problems.append((_key_line(text, "site_name"), "site_name must not be empty"))
    if problems:
        raise ConfigError(path, problems)
    return SiteConfig(
        root=root, content_dir=content_dir, output_dir=output_dir, cache_dir=cache_dir, config_path=path,
        site_name=site_name, base_url=base_url, theme=theme, theme_dir=theme_dir,
        strict=values.get("strict", False), default_avatar=avatar, default_view=view,
        autoplay=values.get("autoplay", True), raw_html=values.get("raw_html", False),
        language=values.get("language", "en"),
        description=values.get("description", ""), extra=values.get("extra", {}), taxonomies=taxonomies,
        exports=tuple(k for k in EXPORT_KINDS if k in exports),
    )
