"""Taxonomies of the site: built-in ones (``vocabularies.toml``) and those ``posecode.toml``
declares (``[taxonomies.<name>]``), each with its terms, synonyms and front-matter keys.

A :class:`Taxonomy` maps a front-matter word onto one of its terms: case-insensitively and
slug-equal (``"Lower back"`` is ``lower-back``), through its synonyms (``"latissimus dorsi"``
is ``lats``) and its terms' labels. A word it does not know is, in an open taxonomy (the
default), kept as a term of its own with a warning; in a closed one (``open = false``) an
error; a taxonomy without terms (``tags``, or a declared one that lists none) is free: every
word is a term. The :class:`Vocabulary` of a site is the built-in taxonomies merged with the
declared ones (:func:`vocabulary`); the data file is read once per process.

``level`` and ``category`` are closed vocabularies, not taxonomies
(:mod:`posecode_ssg.site.taxonomy`).
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
import unicodedata
from pathlib import Path
from typing import Any, Callable

from posecode_ssg.i18n.catalogue import active, english
from posecode_ssg.site.frontkeys import FRONT_MATTER_KEYS

#: The built-in taxonomies: terms, labels, keys and synonyms, with their sources.
DATA_FILE = Path(__file__).with_name("vocabularies.toml")

#: The keys a ``[taxonomies.<name>]`` table may hold, and what each must be.
FIELDS: dict[str, str] = {
    "title": "a string",
    "terms": "a list of words or a table of word = label",
    "synonyms": "a table of word = term",
    "open": "true or false",
    "keys": "a list of front-matter keys",
    "replace": "true or false",
}

#: Names no declared taxonomy may take: the closed vocabularies, the free tags, and the URL
#: folder of the shared assets.
RESERVED_NAMES: dict[str, str] = {
    "level": "'level' is a closed vocabulary of the site (beginner, intermediate, advanced), not a taxonomy",
    "category": "'category' is a closed vocabulary of the site, not a taxonomy",
    "tags": "'tags' is the built-in free taxonomy; declare your own under another name",
    "assets": "'assets' is the folder of the site's shared files (/assets/); choose another name",
}

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_KEY = re.compile(r"[A-Za-z_][\w-]*")


def slugify(text: str) -> str:
    """Return a URL slug: NFKD-folded, lower case, runs of other characters as one ``-``.

    An empty result becomes ``"item"`` so a slug is never empty.
    """
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return slug or "item"


def humanize(slug: str) -> str:
    """The label of a term nobody labelled: its slug with spaces, capitalised (``hip-hinge`` ->
    ``Hip hinge``)."""
    return slug.replace("-", " ").replace("_", " ").strip().capitalize() or slug


def translated(key: str, written: str) -> str:
    """The active catalogue's text of ``key`` (``term.<taxonomy>.<term>``, ``taxonomy.<name>.title``,
    posecode_ssg/i18n/locales) where ``written`` is the English catalogue's text for it, that is,
    where the site did not label the term itself; otherwise ``written``. A project's own terms
    are translated by giving their keys in its ``i18n/<tag>.toml``."""
    cat = active()
    if cat is english():
        return written
    text = cat.texts.get(key)
    if text is None:
        return written
    base = english().texts.get(key)
    return str(text) if base is None or base == written else written


class Taxonomy:
    """One taxonomy: URL folder ``name``, heading ``title``, the front-matter ``keys`` it reads,
    its ``terms`` (``{term slug: label}``, display order), ``synonyms`` (``{word slug: term}``)
    and whether an unknown word is kept (``open``) or an error."""

    def __init__(self, name: str, title: str, keys: tuple[str, ...], terms: dict[str, str],
                 synonyms: dict[str, str], open: bool = True):
        self.name, self.title, self.keys, self.open = name, title, tuple(keys), open
        self.terms, self.synonyms = dict(terms), dict(synonyms)
        index = {slugify(label): term for term, label in self.terms.items()}
        index.update(self.synonyms)
        index.update({term: term for term in self.terms})
        self.index = index   # word slug -> term: terms first, then synonyms, then labels
        words: dict[str, list[str]] = {}
        for word, term in index.items():
            if word != term:
                words.setdefault(term, []).append(word)
        self.words = words   # term -> the other word slugs that map to it

    @property
    def free(self) -> bool:
        """Whether the taxonomy has no terms: every word is a term (tags)."""
        return not self.terms

    def term(self, word: str) -> str | None:
        """The term ``word`` maps to (a term, a synonym or a term's label, compared as slugs),
        or None."""
        found = self.index.get(word)   # most words are written as their term
        return found if found is not None else self.index.get(slugify(word))

    def label(self, term: str) -> str:
        """The display label of ``term`` in the site's language (:func:`translated`; a term
        nobody labelled: :func:`humanize`)."""
        return translated(f"term.{self.name}.{term}", self.terms.get(term) or humanize(term))

    @property
    def heading(self) -> str:
        """The taxonomy's title in the site's language (:func:`translated`)."""
        return translated(f"taxonomy.{self.name}.title", self.title)

    def suggest(self, word: str) -> str | None:
        """What ``word`` was most likely meant to be: the closest known spelling (difflib, cutoff
        0.6) as the hint shows it, a term (``'chair'``) or a synonym with its term
        (``'teres minor' (rotator-cuff)``); None when nothing is close."""
        close = difflib.get_close_matches(slugify(word), list(self.index), n=1)
        if not close:
            return None
        term = self.index[close[0]]
        return f"'{term}'" if close[0] == term else f"'{close[0].replace('-', ' ')}' ({term})"

    def resolve(self, word: str, what: str) -> tuple[str | None, tuple[str, str, str] | None]:
        """``(term, problem)`` of one front-matter word, ``what`` naming the key in messages.

        A known word gives its term and no problem; in a free taxonomy every word is its own
        slug. Otherwise the problem is ``(severity, message, hint)``: in an open taxonomy a
        warning and the word's slug as a new term, in a closed one an error and no term."""
        found = self.term(word)
        if found is not None:
            return found, None
        slug = slugify(word)
        if self.free and self.open:
            return slug, None
        close = self.suggest(word)
        if close is not None:
            hint = f"did you mean {close}?"
        elif self.open:
            hint = f"to make it known, add it to the terms or synonyms of [taxonomies.{self.name}] in posecode.toml"
        else:
            hint = f"known: {', '.join(self.terms)}"
        if self.open:
            return slug, ("warning", f"unknown {what} word '{word}' (kept as its own term '{slug}')", hint)
        return None, ("error", f"unknown {what} word '{word}'", hint)


class Vocabulary:
    """The taxonomies of a site by name (built-in ones first, in the data file's order, then
    the declared ones), with ``by_key`` (front-matter key -> taxonomy, tags left out: the
    front-matter validator reads tags itself) and ``dropped_keys`` (keys a built-in taxonomy
    reads by default that a declaration took away: unknown keys again)."""

    def __init__(self, taxonomies: dict[str, Taxonomy], builtin_names: tuple[str, ...], dropped_keys: frozenset):
        self.taxonomies = taxonomies
        self.builtin_names = builtin_names
        self.dropped_keys = dropped_keys
        self.by_key = {key: tax for tax in taxonomies.values() if tax.name != "tags" for key in tax.keys}

    def label(self, taxonomy: str, term: str) -> str:
        """The display label of ``term`` in ``taxonomy`` (tags are shown as written)."""
        tax = self.taxonomies.get(taxonomy)
        return term if tax is None or taxonomy == "tags" else tax.label(term)

    def declared(self) -> list[Taxonomy]:
        """The taxonomies ``posecode.toml`` adds to the built-in ones."""
        return [t for name, t in self.taxonomies.items() if name not in self.builtin_names]

    def search_words(self, meta: dict) -> list[str]:
        """The words a page is found by for its terms (tags aside): those of each term's label,
        of the term and of every synonym of it (``gluteus``, ``maximus`` for glutes), lower
        case, each once (the search matches word prefixes, in any order)."""
        out: dict[str, None] = {}
        for key, tax in self.by_key.items():
            for term in meta.get(key, ()):
                for text in (tax.label(term), term, *tax.words.get(term, ())):
                    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
                    out.update(dict.fromkeys(_WORDS.findall(folded.lower())))
        return list(out)


_WORDS = re.compile(r"[a-z0-9]+")


def _data() -> dict:
    global _DATA
    if _DATA is None:
        _DATA = tomllib.loads(DATA_FILE.read_text(encoding="utf-8"))
    return _DATA


_DATA: dict | None = None
_BUILTIN: dict[str, Taxonomy] | None = None
_VOCABULARIES: dict[str, Vocabulary] = {}


def _prop_names() -> tuple[str, ...]:
    try:
        from posecode_ssg.language.vocabulary import PROPS
    except ImportError:  # the language package absent: the data file's equipment only
        return ()
    return tuple(PROPS)


def builtin_taxonomies() -> dict[str, Taxonomy]:
    """The built-in taxonomies of :data:`DATA_FILE` (``tags``, ``muscles``, ``equipment``).

    Every Posecode prop is an equipment term (its label from the data file, else its name),
    listed after ``none`` and before the other items."""
    global _BUILTIN
    if _BUILTIN is None:
        found = {}
        for name, table in _data().items():
            terms = {slugify(t): label for t, label in table.get("terms", {}).items()}
            if name == "equipment":
                props = {p: terms.get(p, humanize(p)) for p in _prop_names()}
                head = {"none": terms["none"]} if "none" in terms else {}
                terms = {**head, **props, **terms}
            synonyms = {slugify(w): slugify(t) for w, t in table.get("synonyms", {}).items()}
            found[name] = Taxonomy(name, table["title"], tuple(table["keys"]), terms, synonyms)
        _BUILTIN = found
    return _BUILTIN


def _merge(name: str, table: dict, base: Taxonomy | None) -> Taxonomy:
    """The taxonomy ``name`` a checked ``[taxonomies.<name>]`` table makes of the built-in
    ``base`` (None: a new taxonomy)."""
    keep = base is not None and not table.get("replace", False)
    terms = {**(base.terms if keep else {}), **table.get("terms", {})}
    synonyms = {**(base.synonyms if keep else {}), **table.get("synonyms", {})}
    title = table.get("title") or (base.title if base else humanize(name))
    keys = tuple(table.get("keys") or (base.keys if base else (name,)))
    return Taxonomy(name, title, keys, terms, synonyms, table.get("open", base.open if base else True))


def vocabulary(tables: dict | None = None) -> Vocabulary:
    """The vocabulary of a site whose ``posecode.toml`` declares the checked ``tables``
    (``SiteConfig.taxonomies``; None or ``{}``: the built-in one). Made once per distinct
    ``tables`` in a process."""
    cache_key = json.dumps(tables or {}, sort_keys=True)
    found = _VOCABULARIES.get(cache_key)
    if found is None:
        builtin = builtin_taxonomies()
        merged = dict(builtin)
        for name, table in (tables or {}).items():
            merged[name] = _merge(name, table, builtin.get(name))
        default_keys = {k for t in builtin.values() for k in t.keys}
        read_keys = {k for t in merged.values() for k in t.keys}
        found = _VOCABULARIES[cache_key] = Vocabulary(merged, tuple(builtin), frozenset(default_keys - read_keys))
    return found


def equipment_term(word: str) -> str | None:
    """The built-in equipment term of a front-matter word (``kettlebells`` -> ``kettlebell``),
    or None: what a figure's drawn equipment is read from (motion/equipment.py)."""
    return builtin_taxonomies()["equipment"].term(word) if isinstance(word, str) else None


def fixed_front_matter_keys() -> set[str]:
    """The front-matter keys that hold something else than taxonomy terms (``title``,
    ``level``, ``weight``...): no taxonomy may read them."""
    return set(FRONT_MATTER_KEYS) - {k for t in builtin_taxonomies().values() for k in t.keys}


def check_tables(data: Any, line_of: Callable[[tuple[str, ...]], int | None],
                 fixed_keys: set[str]) -> tuple[dict, list[tuple[int | None, str]]]:
    """Check the ``taxonomies`` table of a ``posecode.toml``.

    :param data: the parsed ``taxonomies`` value.
    :param line_of: the line of a key path in the file (``("taxonomies", "muscles", "open")``;
        the nearest enclosing table's line when the key itself is not found).
    :param fixed_keys: front-matter keys that hold something else than terms (``title``...).
    :returns: ``(tables, problems)``: the valid tables, normalised (term and synonym words as
        slugs, term labels filled in), and ``(line, message)`` per problem.
    """
    problems: list[tuple[int | None, str]] = []
    if not isinstance(data, dict):
        return {}, [(line_of(("taxonomies",)), "'taxonomies' must be a table of [taxonomies.<name>] tables")]
    builtin = builtin_taxonomies()
    tables: dict[str, dict] = {}
    for name, table in data.items():
        at = ("taxonomies", name)

        def bad(tail: tuple[str, ...], message: str) -> None:
            problems.append((line_of(at + tail), message))

        if name in RESERVED_NAMES:
            bad((), RESERVED_NAMES[name])
        elif not _NAME.fullmatch(name):
            bad((), f"taxonomy name '{name}' must be lower-case letters, digits, '-' or '_' "
                    f"(it is the URL folder /{name}/)")
        elif not isinstance(table, dict):
            bad((), f"'taxonomies.{name}' must be a table: [taxonomies.{name}]")
        else:
            tables[name] = _check_table(name, table, bad, fixed_keys)
    _cross_check(tables, data, builtin, line_of, problems)
    return tables, problems


def _check_table(name: str, table: dict, bad, fixed_keys: set[str]) -> dict:
    """One ``[taxonomies.<name>]`` table's fields checked and normalised (see :func:`check_tables`)."""
    out: dict[str, Any] = {}
    for field, value in table.items():
        if field not in FIELDS:
            close = difflib.get_close_matches(field, list(FIELDS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known keys: {', '.join(FIELDS)})"
            bad((field,), f"unknown key '{field}' in [taxonomies.{name}]{hint}")
            continue
        wrong = f"'taxonomies.{name}.{field}' must be {FIELDS[field]}, got {type(value).__name__} {value!r}"
        if field in ("open", "replace"):
            if isinstance(value, bool):
                out[field] = value
            else:
                bad((field,), wrong)
        elif field == "title":
            if isinstance(value, str) and value.strip():
                out[field] = value.strip()
            else:
                bad((field,), wrong if not isinstance(value, str) else f"'taxonomies.{name}.title' must not be empty")
        elif field == "keys":
            if not isinstance(value, list) or not value or not all(isinstance(k, str) for k in value):
                bad((field,), wrong if not isinstance(value, list) or value else
                    f"'taxonomies.{name}.keys' must name at least one front-matter key")
                continue
            for key in value:
                if not _KEY.fullmatch(key):
                    bad((field,), f"'{key}' in taxonomies.{name}.keys is not a front-matter key "
                                  "(letters, digits, '_' or '-', not starting with a digit)")
                elif key in fixed_keys:
                    bad((field,), f"front-matter key '{key}' holds something else than terms; "
                                  f"taxonomies.{name}.keys cannot read it")
            out[field] = list(dict.fromkeys(value))
        elif field == "terms":
            out[field] = _check_terms(name, value, bad, wrong)
        else:  # synonyms
            if not isinstance(value, dict):
                bad((field,), wrong)
                continue
            synonyms = {}
            for word, term in value.items():
                if not isinstance(term, str) or not term.strip():
                    bad((field, word), f"synonym '{word}' of taxonomies.{name} must name a term (a string)")
                elif not re.search(r"[A-Za-z0-9]", word):
                    bad((field, word), f"synonym '{word}' of taxonomies.{name} has no letter or digit")
                else:
                    synonyms[slugify(word)] = slugify(term)
            out[field] = synonyms
    return out


def _check_terms(name: str, value: Any, bad, wrong: str) -> dict[str, str]:
    """``{slug: label}`` of a ``terms`` value: a list of words (each its own label, its first
    letter capitalised when it is all lower case) or a table ``word = label``."""
    if isinstance(value, list):
        pairs = [(w, None) for w in value]
    elif isinstance(value, dict):
        pairs = list(value.items())
    else:
        bad(("terms",), wrong)
        return {}
    terms: dict[str, str] = {}
    written: dict[str, str] = {}
    for word, label in pairs:
        where = ("terms",) if isinstance(value, list) else ("terms", str(word))
        if not isinstance(word, str) or (label is not None and not isinstance(label, str)):
            bad(where, wrong)
            continue
        if not re.search(r"[A-Za-z0-9]", word):
            bad(where, f"term '{word}' of taxonomies.{name} has no letter or digit")
            continue
        slug = slugify(word)
        if slug in written:
            bad(where, f"terms '{written[slug]}' and '{word}' of taxonomies.{name} are one term ('{slug}')")
            continue
        written[slug] = word
        if label is None:
            label = word[:1].upper() + word[1:] if word == word.lower() else word
        terms[slug] = label.strip() or humanize(slug)
    return terms


def _cross_check(tables: dict[str, dict], data: dict, builtin: dict[str, Taxonomy], line_of,
                 problems: list) -> None:
    """What needs every table (``tables`` checked, ``data`` as written): each front-matter key
    read by one taxonomy, each synonym naming a term, a closed taxonomy having terms."""
    merged = dict(builtin)
    for name, table in tables.items():
        merged[name] = _merge(name, table, builtin.get(name))
    owner: dict[str, str] = {}
    for name, tax in merged.items():
        for key in tax.keys:
            if key in owner and owner[key] != name:
                late = name if name in tables else owner[key]
                where = ("taxonomies", late, "keys") if "keys" in tables.get(late, {}) else ("taxonomies", late)
                problems.append((line_of(where), f"front-matter key '{key}' is read by both taxonomies "
                                                 f"'{owner[key]}' and '{name}'"))
            owner.setdefault(key, name)
    for name, table in tables.items():
        tax = merged[name]
        written = data[name].get("synonyms") if isinstance(data[name].get("synonyms"), dict) else {}
        for word, target in written.items():
            if not isinstance(target, str) or slugify(word) not in table.get("synonyms", {}):
                continue
            term, where = slugify(target), ("taxonomies", name, "synonyms", word)
            if term not in tax.terms:
                close = difflib.get_close_matches(term, list(tax.terms), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                problems.append((line_of(where), f"synonym '{word}' of taxonomies.{name} maps to '{target}', "
                                                 f"which is not one of its terms{hint}"))
            elif slugify(word) in tax.terms and slugify(word) != term:
                problems.append((line_of(where), f"'{word}' is a term of taxonomies.{name}; a synonym "
                                                 f"cannot send it to '{target}'"))
        if not tax.open and tax.free:
            problems.append((line_of(("taxonomies", name, "open")),
                             f"taxonomies.{name} has open = false but no terms: every word would be an error"))
