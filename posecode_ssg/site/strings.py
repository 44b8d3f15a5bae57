"""How the site's pages read their interface strings: every label, aria-label, placeholder,
heading, button text and message that the theme's templates and the Python code writing page
HTML show comes from the active catalogue (:mod:`posecode_ssg.i18n`: the site's language; the
keys and their English texts are ``posecode_ssg/i18n/locales/en.toml``, the player's among
them as ``player.*``).

- Python reads it as ``from posecode_ssg.site.strings import UI`` and fills the
  ``str.format`` fields of a text: ``UI["figure.steps_label"].format(title=...)`` (numbers
  in the language's form); a plural string as ``UI.plural("program.count", n)``.
- Templates read it through the ``ui`` variable of every template context
  (:class:`TemplateStrings`): ``{{ ui['nav.skip_to_content'] }}``; a text with fields is
  filled with ``.format``, a plural string with ``{{ ui.plural('taxonomy.count', n) }}``.
  Where a field is markup (a link), the text is escaped first so the link stays markup:
  ``{{ (ui['footer.browse_by']|e).format(muscle=link, ...) }}``.

A key that is not in the catalogue stops the build with an error naming the key and the
template (a theme that overrides templates and names a wrong key is told so, not given an
empty label). Poster texts live in :mod:`posecode_ssg.motion.postertext`.
"""

from __future__ import annotations

from collections.abc import Mapping

import jinja2

from posecode_ssg.i18n.catalogue import Catalogue, active

class ActiveStrings(Mapping):
    """The interface strings of the site being built: key -> text of the active catalogue
    (:func:`posecode_ssg.i18n.active`: the site's language with its fallbacks; English outside a
    build). A text's ``.format`` puts numbers in the language's form; a plural string reads
    as its ``other`` form here: :meth:`plural` picks the form for a count."""

    def __getitem__(self, key: str) -> str:
        return active()[key]

    def __iter__(self):
        return iter(active().texts)

    def __len__(self) -> int:
        return len(active().texts)

    def plural(self, key: str, count, **fields) -> str:
        """The form of plural string ``key`` for ``count`` (CLDR category), filled in."""
        return active().plural(key, count, **fields)


#: Interface strings of the pages (the active catalogue; posecode_ssg/i18n/locales/en.toml has
#: every key with its English text).
UI = ActiveStrings()


class TemplateStrings(dict):
    """A catalogue as templates see it (the ``ui`` context variable): ``ui['key']`` is the
    text (a plural string's ``other`` form), ``ui.plural('key', n)`` the form for ``n``; an
    unknown key raises :class:`jinja2.UndefinedError` naming it, which the build reports as an
    error of the template (:meth:`posecode_ssg.site.render.Theme.render`). Jinja turns a
    ``LookupError`` into a silent empty value, so the error is not a KeyError. A plain dict
    underneath: a template's lookups stay C-speed; only a miss runs Python."""

    def __init__(self, cat: Catalogue):
        super().__init__((k, cat[k]) for k in cat.texts)
        self.catalogue = cat

    def __missing__(self, key: str) -> str:
        raise jinja2.UndefinedError(
            f"no interface string {key!r} (the keys are listed in posecode_ssg/i18n/locales/en.toml)")

    def plural(self, key: str, count, **fields) -> str:
        """The form of plural string ``key`` for ``count``, filled in."""
        if key not in self.catalogue.texts:
            self.__missing__(key)
        return self.catalogue.plural(key, count, **fields)

    def forms(self, key: str) -> dict[str, str]:
        """Plural string ``key`` as {CLDR category: text} (``{"other": text}`` for a plain text),
        for a theme's script to choose from with ``Intl.PluralRules``."""
        if key not in self.catalogue.texts:
            self.__missing__(key)
        value = self.catalogue.texts[key]
        return {"other": str(value)} if isinstance(value, str) else {c: str(t) for c, t in value.items()}


def template_strings() -> TemplateStrings:
    """The ``ui`` variable of the template contexts of the active catalogue (made once each)."""
    cat = active()
    ui = _TEMPLATE_UI.get(id(cat))
    if ui is None or ui.catalogue is not cat:
        ui = _TEMPLATE_UI[id(cat)] = TemplateStrings(cat)
    return ui


_TEMPLATE_UI: dict[int, TemplateStrings] = {}


def mode_word(mode: str) -> str:
    """A step's timing word (``settle``, ``drive``: spec §3.3) in the site's language."""
    text = active().texts.get(f"mode.{mode}")
    return mode if text is None else str(text)


def _language_line(path) -> int:
    """The line of ``language =`` in the configuration file ``path`` (1 when there is none)."""
    try:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if raw.split("=")[0].strip() == "language":
                return n
    except (OSError, UnicodeDecodeError):
        pass
    return 1


def site_catalogue(config, result=None) -> Catalogue:
    """The catalogue of a site's ``language`` with the project's ``i18n/<tag>.toml`` files
    (beside ``posecode.toml``). With ``result`` (a build's), a project catalogue that cannot be
    read is an error at its line, and keys the language lacks (they fall back to English) are
    one warning listing them."""
    from posecode_ssg.i18n import catalogue
    from posecode_ssg.language.diagnostics import Diagnostic

    cat = catalogue(config.language, config.root)
    if result is not None:
        for problem in cat.problems:
            result.errors.append((problem.path, Diagnostic(
                code="i18n", severity="error", line=problem.line or 1, column=1, message=problem.message,
                hint="a text is a quoted string with its English text's {fields}; a plural string a table of "
                     "CLDR forms with `other` (docs/i18n.md)")))
        for note in cat.notes:
            result.warnings.append((note.path, Diagnostic(
                code="i18n", severity="warning", line=note.line or 1, column=1, message=note.message,
                hint="docs/i18n.md lists the keys and each language's plural forms")))
        if cat.missing:
            shown = ", ".join(cat.missing[:12]) + (f" and {len(cat.missing) - 12} more" if len(cat.missing) > 12 else "")
            where = config.config_path or config.root / "posecode.toml"
            result.warnings.append((where, Diagnostic(
                code="i18n-missing", severity="warning", line=_language_line(where), column=1,
                message=f"language '{cat.tag}': {len(cat.missing)} interface strings fall back to English: {shown}",
                hint=f"add them to i18n/{cat.chain[0]}.toml beside posecode.toml (docs/i18n.md lists the keys)")))
    return cat
