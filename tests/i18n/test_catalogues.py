"""The catalogues of interface strings (issue 27; posecode_ssg/i18n, docs/i18n.md): every bundled
language has every key with English's fields, plural tables hold the language's CLDR categories
(read through Babel, not written here), plural forms are right for 0, 1, 2, 5 and 22 (expected
strings written by hand), numbers take the language's decimal sign, tags fall back along their
chain, and a project's ``i18n/<tag>.toml`` overrides, adds and is checked with its line."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from babel import Locale

from posecode_ssg.i18n import bundled_languages, catalogue, fallback_chain, normalise_tag
from posecode_ssg.i18n.catalogue import LOCALES

REPO = Path(__file__).resolve().parents[2]
ENGLISH = tomllib.loads((LOCALES / "en.toml").read_text(encoding="utf-8"))
FIELD = re.compile(r"\{[^{}]*\}")

#: The nine languages issue 27 bundles.
BUNDLED = ["en", "de", "fr", "es", "it", "nl", "pt", "pl", "he"]


def fields(value) -> set[str]:
    texts = [value] if isinstance(value, str) else list(value.values())
    return {f for t in texts for f in FIELD.findall(t)}


def test_the_nine_languages_are_bundled():
    assert sorted(bundled_languages()) == sorted(BUNDLED) and bundled_languages()[0] == "en"


@pytest.mark.parametrize("tag", BUNDLED)
def test_every_key_with_english_fields_and_the_languages_plural_categories(tag):
    table = tomllib.loads((LOCALES / f"{tag}.toml").read_text(encoding="utf-8"))
    assert list(table) == list(ENGLISH), "the same keys in the same order"
    categories = set(Locale.parse(tag).plural_form.tags) | {"other"}
    for key, value in table.items():
        assert fields(value) == fields(ENGLISH[key]) or (
            # a form may name the number in words ("one movement"), not with {count}
            isinstance(value, dict) and fields(value) <= fields(ENGLISH[key])), (tag, key)
        assert isinstance(value, str) == isinstance(ENGLISH[key], str), (tag, key)
        if isinstance(value, dict):
            assert set(value) == categories, (tag, key, sorted(value), sorted(categories))
        texts = [value] if isinstance(value, str) else list(value.values())
        assert all(t.strip() for t in texts), (tag, key)
    assert catalogue(tag).missing == [] and catalogue(tag).problems == []


#: program.count for 0, 1, 2, 5, 22 (typed here; CLDR: French and Brazilian Portuguese put 0 with
#: 1; Polish 2-4 and 22-24 "few", 0, 5-21 "many"; Hebrew 2 "two")
PLURALS = {
    "en": ["0 exercises", "1 exercise", "2 exercises", "5 exercises", "22 exercises"],
    "de": ["0 Übungen", "1 Übung", "2 Übungen", "5 Übungen", "22 Übungen"],
    "fr": ["0 exercice", "1 exercice", "2 exercices", "5 exercices", "22 exercices"],
    "es": ["0 ejercicios", "1 ejercicio", "2 ejercicios", "5 ejercicios", "22 ejercicios"],
    "it": ["0 esercizi", "1 esercizio", "2 esercizi", "5 esercizi", "22 esercizi"],
    "nl": ["0 oefeningen", "1 oefening", "2 oefeningen", "5 oefeningen", "22 oefeningen"],
    "pt": ["0 exercício", "1 exercício", "2 exercícios", "5 exercícios", "22 exercícios"],
    "pl": ["0 ćwiczeń", "1 ćwiczenie", "2 ćwiczenia", "5 ćwiczeń", "22 ćwiczenia"],
    "he": ["0 תרגילים", "1 תרגיל", "2 תרגילים", "5 תרגילים", "22 תרגילים"],
}

#: the CLDR category of 0, 1, 2, 5, 22 per language (from the CLDR plural rules tables)
CATEGORIES = {
    "en": ["other", "one", "other", "other", "other"],
    "de": ["other", "one", "other", "other", "other"],
    "fr": ["one", "one", "other", "other", "other"],
    "es": ["other", "one", "other", "other", "other"],
    "it": ["other", "one", "other", "other", "other"],
    "nl": ["other", "one", "other", "other", "other"],
    "pt": ["one", "one", "other", "other", "other"],
    "pl": ["many", "one", "few", "many", "few"],
    "he": ["other", "one", "two", "other", "other"],
}


@pytest.mark.parametrize("tag", BUNDLED)
def test_plurals_for_0_1_2_5_22(tag):
    cat = catalogue(tag)
    assert [cat.category(n) for n in (0, 1, 2, 5, 22)] == CATEGORIES[tag]
    assert [cat.plural("program.count", n) for n in (0, 1, 2, 5, 22)] == PLURALS[tag]


def test_polish_sets_and_reps_take_all_three_forms():
    cat = catalogue("pl")
    assert [cat.plural("prescription.sets", n) for n in (1, 2, 5, 22)] == ["1 seria", "2 serie", "5 serii", "22 serie"]
    assert [cat.plural("prescription.reps", n) for n in (1, 3, 12)] == ["1 powtórzenie", "3 powtórzenia",
                                                                        "12 powtórzeń"]


def test_numbers_take_the_languages_decimal_sign():
    assert catalogue("de").text("prescription.seconds", seconds=1.5) == "1,5 s"
    assert catalogue("en").text("prescription.seconds", seconds=1.5) == "1.5 s"
    assert catalogue("fr").number(2.5) == "2,5" and catalogue("he").number(2.5) == "2.5"
    assert catalogue("de").plural("program.count", 1000) == "1.000 Übungen"


def test_tags_fall_back_along_their_chain():
    assert normalise_tag("pt_br") == "pt-BR" and normalise_tag("zh-hant-tw") == "zh-Hant-TW"
    assert fallback_chain("pt-BR") == ["pt-BR", "pt", "en"] and fallback_chain("en-GB") == ["en-GB", "en"]
    pt_br = catalogue("pt-BR")
    assert pt_br.texts["nav.home"] == catalogue("pt").texts["nav.home"] != catalogue("en").texts["nav.home"]
    assert pt_br.missing == []
    # a language with no catalogue: English, every key with words listed as missing (the build
    # warns once); icons and a bare field with a sign need no translation
    sw = catalogue("sw")
    assert sw.texts["nav.home"] == "Home" and "nav.home" in sw.missing
    assert {k for k in ENGLISH if k not in sw.missing} == {"player.playIcon", "player.pauseIcon", "player.resetIcon",
                                                            "player.speedOption", "prescription.sets_reps"}
    assert catalogue("he").direction == "rtl" and catalogue("de").direction == "ltr"


def test_a_projects_file_overrides_adds_and_is_checked(tmp_path):
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "de.toml").write_text(
        '"home.library_heading" = "Unsere Übungen"\n'
        '"program.count" = { one = "eine Übung", other = "{count} Übungen" }\n'
        '"term.muscles.glutes" = "Po"\n', encoding="utf-8")
    cat = catalogue("de", tmp_path)
    assert cat.texts["home.library_heading"] == "Unsere Übungen"
    assert cat.plural("program.count", 1) == "eine Übung" and cat.plural("program.count", 3) == "3 Übungen"
    assert cat.texts["nav.home"] == catalogue("de").texts["nav.home"]   # the rest as bundled
    (tmp_path / "i18n" / "de.toml").write_text('"nav.home" = "Start"\n"program.count" = { one = "x" }\n',
                                               encoding="utf-8")
    bad = catalogue("de", tmp_path)
    (problem,) = bad.problems
    assert problem.line == 2 and "'program.count'" in problem.message and "other" in problem.message
    assert bad.texts["nav.home"] == catalogue("de").texts["nav.home"]   # the broken file is left out


def test_the_runtime_english_is_the_catalogues(tmp_path):
    """runtime/strings.js's built-in English equals the catalogue's ``player.*`` texts."""
    node = subprocess.run(["node", "-e", "import('./posecode_ssg/runtime/strings.js').then((m) =>"
                                         " console.log(JSON.stringify(m.ENGLISH)))"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    if node.returncode != 0 and "not found" in node.stderr:
        pytest.skip("no node")
    assert node.returncode == 0, node.stderr
    built_in = json.loads(node.stdout)
    assert built_in == catalogue("en").table("player.")


def test_a_projects_wrong_fields_are_errors_and_typos_warnings(tmp_path):
    """A text naming a field its key does not have, or a format its value cannot take, is an
    error at its line (the file is left out); a key no string has, and a plural form the
    language does not use, are warnings with the line (and the closest key)."""
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "de.toml").write_text(
        '"prescription.rest_seconds" = "{sekunden} s Pause"\n'
        '"figure.duration" = "{seconds:x} s"\n'
        '"home.libary_heading" = "Unsere Übungen"\n'
        '"filters.count" = { one = "{count} Übung", few = "{count} Übungen", other = "{count} Übungen" }\n',
        encoding="utf-8")
    cat = catalogue("de", tmp_path)
    assert [(p.line, p.message) for p in cat.problems] == [
        (1, "'prescription.rest_seconds': unknown field {sekunden} (its English text has {seconds})"),
        (2, "'figure.duration': {seconds:x}: Unknown format code 'x' for object of type 'float'")]
    assert [(p.line, p.message) for p in cat.notes] == [
        (3, "'home.libary_heading' is not an interface string (did you mean 'home.library_heading'?)"),
        (4, "'filters.count': the plural form 'few' is not one the language uses (one, other)")]
    assert cat.texts["prescription.rest_seconds"] == catalogue("de").texts["prescription.rest_seconds"]
