"""Catalogues of interface strings, one per language, with CLDR plural rules and locale numbers.

A catalogue is a TOML table, key -> text (``str.format`` fields in braces), or key -> a table
of CLDR plural categories (``{one = "{count} exercise", other = "{count} exercises"}``). The
bundled ones are ``posecode_ssg/i18n/locales/<tag>.toml``; a project adds or overrides strings
in ``i18n/<tag>.toml`` beside its ``posecode.toml`` (docs/i18n.md lists the keys).

A site's ``language`` (a BCP 47 tag: ``de``, ``pt-BR``, ``he``) is looked up along its fallback
chain, ``pt-BR`` -> ``pt`` -> English, the project's file before the bundled one at each step;
English (bundled) has every key, so a string is never a raw key or empty. Keys the site's
language and its chain lack before English are listed once (:attr:`Catalogue.missing`), for the
build's warning.

Plural categories come from the Unicode CLDR rules through Babel (``Locale.plural_form``), the
decimal sign and digit grouping of numbers put into a text from Babel's locale data
(``1,5 s`` in German), the writing direction from Babel's ``Locale.text_direction``.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator

LOCALES = Path(__file__).resolve().parent / "locales"

#: the CLDR plural categories a plural table may name ("other" is required)
CATEGORIES = ("zero", "one", "two", "few", "many", "other")


def normalise_tag(tag: str) -> str:
    """A BCP 47 tag as the catalogues' files are named: ``pt_br`` / ``PT-br`` -> ``pt-BR``,
    ``zh-hant-tw`` -> ``zh-Hant-TW`` (language lower case, script title case, region upper)."""
    parts = [p for p in tag.replace("_", "-").strip().split("-") if p]
    if not parts:
        return "en"
    out = [parts[0].lower()]
    for p in parts[1:]:
        out.append(p.title() if len(p) == 4 else p.upper() if len(p) in (2, 3) else p.lower())
    return "-".join(out)


def fallback_chain(tag: str) -> list[str]:
    """The tags a language falls back along, most specific first, ending in ``en``:
    ``pt-BR`` -> ``["pt-BR", "pt", "en"]``."""
    parts = normalise_tag(tag).split("-")
    chain = ["-".join(parts[:n]) for n in range(len(parts), 0, -1)]
    return chain + ([] if "en" in chain else ["en"])


def bundled_languages() -> tuple[str, ...]:
    """The tags of the bundled catalogues (``en`` first)."""
    tags = sorted(p.stem for p in LOCALES.glob("*.toml"))
    return tuple(["en"] + [t for t in tags if t != "en"])


class CatalogueError(ValueError):
    """A catalogue file that cannot be read: ``path``, ``line`` (1-based or None) and the message."""

    def __init__(self, path: Path, line: int | None, message: str):
        super().__init__(f"{path}{f':{line}' if line else ''}: {message}")
        self.path, self.line, self.message = path, line, message


def read_table(path: Path) -> dict[str, str | dict[str, str]]:
    """One catalogue file: key -> text, or key -> {CLDR category: text} (with ``other``).
    Raises :class:`CatalogueError` naming the file and line of a TOML error or of a value of the
    wrong shape."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise CatalogueError(path, line, str(exc).split(" (at line")[0]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueError(path, None, f"cannot be read ({exc})") from None

    def line_of(key: str) -> int | None:
        for n, raw in enumerate(text.splitlines(), 1):
            if raw.lstrip().startswith((f'"{key}"', f"'{key}'", f"{key} ", f"{key}=")):
                return n
        return None

    out: dict[str, str | dict[str, str]] = {}

    def walk(prefix: str, table: dict) -> None:
        for key, value in table.items():
            name = f"{prefix}{key}"
            if isinstance(value, str):
                out[name] = value
            elif isinstance(value, dict) and value and set(value) <= set(CATEGORIES) \
                    and all(isinstance(v, str) for v in value.values()):
                if "other" not in value:
                    raise CatalogueError(path, line_of(name), f"the plural string {name!r} has no 'other' form")
                out[name] = dict(value)
            elif isinstance(value, dict):
                walk(f"{name}.", value)   # a dotted key written as nested tables
            else:
                raise CatalogueError(path, line_of(name), f"{name!r} must be a text or a table of plural forms "
                                                          f"({', '.join(CATEGORIES)}), not {type(value).__name__}")

    walk("", data)
    return out


def check_project_table(path: Path, table: dict, english: dict, locale) -> list[tuple[str, CatalogueError]]:
    """What is wrong in a project's catalogue file (``table``, read from ``path``) against the
    English catalogue: ``("error", …)`` for a text naming a field its key does not have
    (``{anzahl}`` where English has ``{count}``) or a format spec its value cannot take;
    ``("warning", …)`` for a key no interface string has (with the closest key) and a plural form
    the language's CLDR rules do not use (``few`` in German). Each names the line."""
    import difflib
    import string

    text = path.read_text(encoding="utf-8")

    def line_of(key: str) -> int | None:
        for n, raw in enumerate(text.splitlines(), 1):
            if raw.lstrip().startswith((f'"{key}"', f"'{key}'")):
                return n
        return None

    used = set(getattr(getattr(locale, "plural_form", None), "tags", ()) or ()) | {"other"}
    found: list[tuple[str, CatalogueError]] = []
    for key, value in table.items():
        base = english.get(key)
        if base is None:
            if not key.startswith(("term.", "taxonomy.")):   # a project's own terms are its own
                close = difflib.get_close_matches(key, list(english), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                found.append(("warning", CatalogueError(path, line_of(key), f"{key!r} is not an interface string{hint}")))
            continue
        fields: dict[str, str] = {}
        for t in ([base] if isinstance(base, str) else base.values()):
            fields.update({f: spec for _lit, f, spec, _conv in string.Formatter().parse(t) if f})
        texts = [value] if isinstance(value, str) else list(value.values())
        if isinstance(value, dict) and locale is not None:
            for form in value:
                if form not in used:
                    found.append(("warning", CatalogueError(path, line_of(key), (
                        f"{key!r}: the plural form {form!r} is not one the language uses "
                        f"({', '.join(sorted(used))})"))))
        for t in texts:
            try:
                parts = list(string.Formatter().parse(t))
            except ValueError as exc:
                found.append(("error", CatalogueError(path, line_of(key), f"{key!r}: {exc}")))
                continue
            for _lit, name, spec, _conv in parts:
                if not name:
                    continue
                if name not in fields:
                    have = ", ".join("{" + f + "}" for f in fields) or "no fields"
                    found.append(("error", CatalogueError(path, line_of(key), (
                        f"{key!r}: unknown field {{{name}}} (its English text has {have})"))))
                elif spec:
                    try:
                        format(1.5, spec)   # a spec is a number's (``{seconds:g}``)
                    except (ValueError, TypeError) as exc:
                        found.append(("error", CatalogueError(path, line_of(key), f"{key!r}: {{{name}:{spec}}}: {exc}")))
    return found


@lru_cache(maxsize=None)
def _bundled(tag: str) -> dict[str, str | dict[str, str]]:
    path = LOCALES / f"{tag}.toml"
    return read_table(path) if path.is_file() else {}


class LocalNumber:
    """A number put into a text: formatted with the locale's decimal sign and grouping (``{n}``,
    ``{n:g}``, ``{n:.1f}`` all work as for a float)."""

    __slots__ = ("value", "locale")

    def __init__(self, value, locale):
        self.value, self.locale = value, locale

    def __format__(self, spec: str) -> str:
        v = self.value
        if isinstance(v, int) and not spec:
            if -1000 < v < 1000 and _latin_digits(self.locale):   # no grouping below a thousand
                return str(v)
            from babel.numbers import format_decimal

            return format_decimal(v, locale=self.locale)
        text = format(v, spec or "g")
        sign = _decimal_sign(self.locale)
        return text.replace(".", sign) if sign != "." else text

    def __str__(self) -> str:
        return self.__format__("")


_SIGNS: dict[str, str] = {}


def _decimal_sign(locale) -> str:
    """The decimal sign of ``locale`` (Babel's locale data), remembered per locale."""
    key = str(locale)
    sign = _SIGNS.get(key)
    if sign is None:
        from babel.numbers import get_decimal_symbol

        sign = _SIGNS[key] = get_decimal_symbol(locale)
    return sign


_LATIN: dict[str, bool] = {}


def _latin_digits(locale) -> bool:
    """Whether ``locale`` writes numbers with the digits 0-9 as Python does (Babel's locale data;
    not, for instance, a locale whose default digits are Arabic-Indic), remembered per locale."""
    key = str(locale)
    latin = _LATIN.get(key)
    if latin is None:
        from babel.numbers import format_decimal

        latin = _LATIN[key] = format_decimal(-987, locale=locale) == "-987"
    return latin


class Text(str):
    """A catalogue text: a ``str`` whose :meth:`format` puts numbers in the locale's form."""

    __slots__ = ("locale",)

    def format(self, *args, **fields) -> str:   # noqa: A003 - str.format's own name
        loc = getattr(self, "locale", None)
        if loc is None:
            return super().format(*args, **fields)
        return super().format(*[_local(a, loc) for a in args], **{k: _local(v, loc) for k, v in fields.items()})


def _local(value, locale):
    """``value`` as a text puts it: a number (not a bool) in the locale's form."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return LocalNumber(value, locale)
    return value


def _text(value: str, locale) -> Text:
    t = Text(value)
    t.locale = locale
    return t


@dataclass
class Catalogue:
    """The interface strings of one site language (:func:`catalogue`).

    ``tag``: the language as configured (normalised); ``chain``: its fallback tags; ``texts``:
    key -> :class:`Text` or {category: Text}; ``missing``: the keys English has, with words to
    translate (:func:`wants_words`), that no file before English in the chain gives (empty for
    English); ``direction``: ``"ltr"`` or ``"rtl"``;
    ``problems``: :class:`CatalogueError` s of the project's files (they are then left out)."""

    tag: str
    chain: list[str]
    texts: dict
    missing: list[str] = field(default_factory=list)
    direction: str = "ltr"
    locale: object = None
    problems: list[CatalogueError] = field(default_factory=list)
    #: what a project's files may have wrong but the build goes on with (an unknown key, a plural
    #: form the language does not use): warnings
    notes: list[CatalogueError] = field(default_factory=list)
    _fingerprint: str | None = field(default=None, repr=False, compare=False)

    def __getitem__(self, key: str) -> Text:
        value = self.texts[key]
        return value if isinstance(value, str) else value["other"]

    def __contains__(self, key: str) -> bool:
        return key in self.texts

    def text(self, key: str, **fields) -> str:
        """The text of ``key`` with ``fields`` filled in (numbers in the locale's form)."""
        return self[key].format(**fields)

    def category(self, count) -> str:
        """The CLDR plural category of ``count`` in this language (Babel's ``plural_form``)."""
        try:
            return self.locale.plural_form(abs(count))
        except (AttributeError, TypeError):
            return "one" if count == 1 else "other"

    def plural(self, key: str, count, **fields) -> str:
        """The form of plural string ``key`` for ``count`` (its CLDR category, else ``other``),
        with ``count`` and ``fields`` filled in."""
        value = self.texts[key]
        if isinstance(value, str):
            return value.format(count=count, **fields)
        form = value.get(self.category(count)) or value["other"]
        return form.format(count=count, **fields)

    def number(self, value, spec: str = "") -> str:
        """``value`` formatted in the locale (``1,5`` in German)."""
        return format(LocalNumber(value, self.locale), spec)

    def fingerprint(self) -> str:
        """A hash of the language and every text (a build's pages depend on them)."""
        import hashlib
        import json

        if self._fingerprint is None:
            data = json.dumps([self.tag, {k: (v if isinstance(v, str) else dict(v)) for k, v in self.texts.items()}],
                              sort_keys=True, ensure_ascii=False)
            self._fingerprint = hashlib.sha256(data.encode()).hexdigest()[:16]
        return self._fingerprint

    def table(self, prefix: str) -> dict:
        """The texts whose keys start with ``prefix`` (without it), plural tables as they are: the
        runtime's strings block (``player.``)."""
        n = len(prefix)
        return {k[n:]: (str(v) if isinstance(v, str) else {c: str(t) for c, t in v.items()})
                for k, v in self.texts.items() if k.startswith(prefix)}


def wants_words(value) -> bool:
    """Whether an English text (or plural table) has words to translate: not an icon (``▶``) or a
    bare field with a sign (``{s}×``), which every language shows as they are."""
    texts = [value] if isinstance(value, str) else list(value.values())
    return any(re.search(r"[^\W\d_]", re.sub(r"\{[^{}]*\}", "", t)) for t in texts)


def _babel_locale(chain: list[str]):
    from babel import Locale, UnknownLocaleError

    for tag in chain:
        try:
            return Locale.parse(tag, sep="-")
        except (UnknownLocaleError, ValueError):
            continue
    return Locale.parse("en")


def catalogue(tag: str = "en", project_dir: Path | None = None) -> Catalogue:
    """The catalogue of language ``tag``: along :func:`fallback_chain`, the project's
    ``i18n/<tag>.toml`` (in ``project_dir``, when given) over the bundled file, for every key of
    the bundled English catalogue (and any key a project file adds)."""
    chain = fallback_chain(tag)
    loc = _babel_locale(chain)
    layers: list[tuple[str, dict]] = []   # (tag, table), most specific first
    problems: list[CatalogueError] = []
    notes: list[CatalogueError] = []
    english = _bundled("en")
    for t in chain:
        if project_dir is not None:
            path = Path(project_dir) / "i18n" / f"{t}.toml"
            if path.is_file():
                try:
                    table = read_table(path)
                    found = check_project_table(path, table, english, _babel_locale([t]))
                except CatalogueError as exc:
                    problems.append(exc)
                else:
                    errors = [p for severity, p in found if severity == "error"]
                    notes += [p for severity, p in found if severity == "warning"]
                    if errors:
                        problems += errors
                    else:
                        layers.append((t, table))
        layers.append((t, _bundled(t)))
    keys = list(english) + list(dict.fromkeys(k for _t, table in layers for k in table if k not in english))
    texts: dict = {}
    for key in keys:
        value = next(table[key] for _t, table in layers if key in table)
        texts[key] = _text(value, loc) if isinstance(value, str) else {c: _text(v, loc) for c, v in value.items()}
    own = [table for t, table in layers if t != "en"]
    missing = [k for k in english if wants_words(english[k]) and not any(k in table for table in own)] \
        if chain[0] != "en" else []
    direction = "rtl" if getattr(loc, "text_direction", "ltr") == "rtl" else "ltr"
    return Catalogue(normalise_tag(tag), chain, texts, missing, direction, loc, problems, notes)


#: the catalogue the code that writes a site reads (:func:`active`), set by the build
_ACTIVE: contextvars.ContextVar[Catalogue | None] = contextvars.ContextVar("posecode_catalogue", default=None)


@lru_cache(maxsize=1)
def english() -> Catalogue:
    """The bundled English catalogue (what :func:`active` gives outside a build)."""
    return catalogue("en")


def active() -> Catalogue:
    """The catalogue of the site being built (:func:`using`), English outside a build."""
    cat = _ACTIVE.get()
    return cat if cat is not None else english()


def set_active(cat: Catalogue | None) -> None:
    """Make ``cat`` the active catalogue of this thread's context (None: English)."""
    _ACTIVE.set(cat)


@contextlib.contextmanager
def using(cat: Catalogue) -> Iterator[Catalogue]:
    """Make ``cat`` the active catalogue for the ``with`` block (a build)."""
    token = _ACTIVE.set(cat)
    try:
        yield cat
    finally:
        _ACTIVE.reset(token)
