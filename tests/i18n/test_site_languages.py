"""Sites in other languages (issue 27): a German library of our own (tests/fixtures/i18n_de, with
German prose) and the demo library under ``language = "he"`` build with no English interface
text in their HTML (tests/i18n/english.py says which strings count); the Hebrew pages are
right-to-left with a left-to-right player; the player gets its texts from the page's strings
block; an English site is as it was; keys a language lacks are one warning; a project's
``i18n/<tag>.toml`` overrides strings, is checked at its line and rebuilds the pages it changes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from posecode_ssg.config import load_config
from posecode_ssg.i18n import catalogue
from posecode_ssg.site.build import build_site

from .english import interface_strings, leftovers, shown_texts, sources_of

REPO = Path(__file__).resolve().parents[2]
GERMAN = REPO / "tests" / "fixtures" / "i18n_de"


def build(root: Path, **kw):
    result = build_site(load_config(cwd=root), progress=False, **kw)
    assert not result.errors, result.errors[:3]
    return result


def pages(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text(encoding="utf-8") for p in sorted(site.rglob("*.html"))}


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    root = tmp_path_factory.mktemp("de")
    shutil.copytree(GERMAN, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("site", ".posecode-cache"))
    result = build(root)
    return root, result, pages(root / "site")


@pytest.fixture(scope="module")
def hebrew(tmp_path_factory):
    root = tmp_path_factory.mktemp("he")
    shutil.copytree(REPO / "content", root / "content")
    (root / "posecode.toml").write_text('language = "he"\n', encoding="utf-8")
    result = build(root)
    return root, result, pages(root / "site")


def test_german_library_has_no_english_interface_text(german):
    root, result, html = german
    assert not result.warnings, [d.message for _p, d in result.warnings]
    phrases = interface_strings("de", sources_of(root / "content"))
    assert len(phrases) > 150   # the catalogue's English, less what the author wrote
    assert len(html) >= 8
    found = {path: leftovers(shown_texts(text), phrases) for path, text in html.items()}
    assert {p: f for p, f in found.items() if f} == {}
    home = html["index.html"]
    assert '<html lang="de">' in home and "dir=" not in home.split(">", 2)[1]
    # German words where English had them: the filters, a level, the prescription box, plurals
    squat = html["kraeftigung/kniebeuge/index.html"]
    for word in ("Anfänger", "Trainingsvorgabe", "Dosierung", "3 × 8-12", "Pause", "Niveau"):
        assert word in squat, word
    assert "Alle Übungen" in home and "2 Übungen" in html["programs/index.html"]
    # a .posecode page without a leading comment: its summary is made, in German
    assert "Haltung in 2 Schritten, 2,5 s pro Wiederholung." in html["kraeftigung/kinn-einziehen/index.html"]


def test_the_player_gets_its_strings_from_the_page(german):
    _root, _result, html = german
    squat = html["kraeftigung/kniebeuge/index.html"]
    block = re.search(r'<script type="application/json" id="posecode-strings">(.*?)</script>', squat, re.S)
    assert block, "a page with a figure carries the strings block"
    data = json.loads(block.group(1))
    de = catalogue("de")
    assert data == {"player": de.table("player."), "mode": de.table("mode.")}
    assert data["player"]["rep"] == "Wiederholung {i} von {n}"
    # the static step list and the poster's label are German too
    assert f"1,5 s · {de.texts['mode.drive']}" in squat
    assert de.texts["poster.view.side"] in squat or de.texts["poster.view.front"] in squat
    assert "posecode-strings" not in html["programs/index.html"]   # no player there: no block


def test_demo_library_in_hebrew_is_right_to_left_with_no_english_interface_text(hebrew):
    root, result, html = hebrew
    assert not result.errors
    phrases = interface_strings("he", sources_of(root / "content"))
    found = {path: leftovers(shown_texts(text), phrases) for path, text in html.items()}
    assert {p: f for p, f in found.items() if f} == {}
    home = html["index.html"]
    assert home.startswith('<!DOCTYPE html>\n<html lang="he" dir="rtl">')
    assert catalogue("he").texts["home.library_heading"] in home
    # the demo names no site: the default name is the language's
    assert re.search(r'class="site-name" href="[^"]*">' + re.escape(catalogue("he").texts["site.default_name"]) + "<", home)


def test_an_english_site_is_as_it_was(tmp_path):
    shutil.copytree(GERMAN / "content", tmp_path / "content")
    (tmp_path / "posecode.toml").write_text("", encoding="utf-8")
    build(tmp_path)
    html = pages(tmp_path / "site")
    squat = html["kraeftigung/kniebeuge/index.html"]
    assert '<html lang="en">' in squat and "posecode-strings" not in squat
    assert "1.5 s · drive" in squat and "All exercises" in html["index.html"]


def test_a_language_without_a_catalogue_warns_once_listing_the_keys(tmp_path):
    shutil.copytree(GERMAN / "content", tmp_path / "content")
    (tmp_path / "posecode.toml").write_text('language = "sw"\n', encoding="utf-8")
    result = build(tmp_path)
    (warning,) = [d for _p, d in result.warnings if d.code == "i18n-missing"]
    assert "language 'sw'" in warning.message and "fall back to English" in warning.message
    assert "nav.skip_to_content" in warning.message and "i18n/sw.toml" in warning.hint
    assert 'lang="sw"' in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_projects_strings_override_and_rebuild_the_pages(tmp_path):
    shutil.copytree(GERMAN, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("site", ".posecode-cache"))
    (tmp_path / "i18n").mkdir()
    strings = tmp_path / "i18n" / "de.toml"
    strings.write_text('"home.library_heading" = "Unsere Übungen"\n', encoding="utf-8")
    build(tmp_path)
    home = tmp_path / "site" / "index.html"
    assert "Unsere Übungen" in home.read_text(encoding="utf-8")
    strings.write_text('"home.library_heading" = "Alle unsere Übungen"\n', encoding="utf-8")
    build(tmp_path)
    assert "Alle unsere Übungen" in home.read_text(encoding="utf-8")
    # a mistake in the file: an error at its line, and the site built before stays
    strings.write_text('"nav.home" = "Start"\n"home.library_heading" = 3\n', encoding="utf-8")
    result = build_site(load_config(cwd=tmp_path), progress=False)
    (path, diag), = result.errors
    assert path == strings and diag.line == 2 and "home.library_heading" in diag.message
    assert not result.written and "Alle unsere Übungen" in home.read_text(encoding="utf-8")


def test_new_writes_a_starter_in_the_language(tmp_path, capsys):
    """``new --language de Übungen``: the German starter, the home titled as the folder is
    written, ``language = "de"``; it builds with --strict and shows German."""
    from posecode_ssg.cli import main

    target = tmp_path / "Übungen"
    assert main(["new", "--language", "de", str(target)]) == 0
    config = (target / "posecode.toml").read_text(encoding="utf-8")
    assert 'site_name = "Übungen"' in config and 'language = "de"' in config
    assert "# Übungen" in (target / "content" / "index.md").read_text(encoding="utf-8")
    assert (target / "content" / "uebungen" / "kniebeuge.md").exists()
    result = build_site(load_config(cwd=target), strict=True, progress=False)
    assert result.written and not result.warnings and not result.errors
    assert '<html lang="de">' in (target / "site" / "index.html").read_text(encoding="utf-8")


def test_new_in_a_language_without_a_starter_says_so(tmp_path, capsys):
    from posecode_ssg.cli import main

    assert main(["new", "--language", "pt-BR", "--template", "physio", "--title", "Exercícios em casa",
                 str(tmp_path / "lib")]) == 0
    out = capsys.readouterr().out
    assert "no physio starter written in 'pt-BR'" in out
    config = (tmp_path / "lib" / "posecode.toml").read_text(encoding="utf-8")
    assert 'language = "pt-BR"' in config and 'site_name = "Exercícios em casa"' in config
    result = build_site(load_config(cwd=tmp_path / "lib"), strict=True, progress=False)
    assert result.written and not result.warnings


@pytest.mark.parametrize("folder, name", [("übungen", "Übungen"), ("Physio-Übungen", "Physio Übungen"),
                                          ("my_library", "My library"), ("MyLib", "MyLib")])
def test_the_library_is_named_as_its_folder_is_written(folder, name):
    from posecode_ssg.commands.new import library_name

    assert library_name(Path("/x") / folder) == name
