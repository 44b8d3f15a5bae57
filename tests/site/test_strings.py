"""The interface strings of the pages live in one catalogue per language (English:
``posecode_ssg/i18n/locales/en.toml``, read through ``posecode_ssg/site/strings.py``): the default
theme's templates and the page-writing Python code name its keys, and a theme that names a
missing key gets a build error naming it (issue 17 step 9, issue 27)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import read, write_tree

from posecode_ssg.cli import main
from posecode_ssg.motion.postertext import POSTER_TEXT
from posecode_ssg.site.render import THEMES_DIR
from posecode_ssg.site.result import BuildError
from posecode_ssg.site.strings import UI, template_strings

PACKAGE = Path(__file__).resolve().parents[2] / "posecode_ssg"
TEMPLATES = sorted((THEMES_DIR / "default").rglob("*.html"))
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
KEY_USE = re.compile(r"""\bui(?:\[|\.plural\(|\.forms\()\s*(['"])(?P<key>[^'"]+)\1|\bui\.(?!plural\b|forms\b)(?P<attr>[A-Za-z_]\w*)""")
PY_KEY_USE = re.compile(r"""\bUI(?:\[|\.plural\()\s*(['"])(?P<key>[^'"]+)\1""")
#: keys read elsewhere than in the site's templates and Python: the player's (runtime/strings.js
#: from the page's strings block), the timing words, the vocabulary labels, the posters' words
#: and the default site name (read through the catalogue, not UI[...])
OTHER_READERS = ("player.", "mode.", "term.", "taxonomy.", "poster.", "site.", "page.kind.")
SHOWN_ATTRS = {"aria-label", "placeholder", "title", "alt", "value"}

#: The English texts the templates held before they read the table.
CONVERTED = ["Skip to content", "Site search", "Search the library", "Search exercises", ">Search<",
             "Browse by", "Figures are simplified models", "All exercises", "Filter the library",
             "Search names, steps and cues", "e.g. squat, knees, wall", ">Muscle<", ">Equipment<",
             ">Level<", ">Any<", ">Clear<", "No exercise matches", "Other matching pages", ">Category<",
             "Primary muscles", "Secondary muscles", ">Tags<", "Posecode source", ">Sections<",
             '"Sections"', '"Breadcrumb"', ">Exercises", "Other pages", "Nothing here yet", " exercise",
             "Page not found", "There is no page at this address", "Go to the library home",
             "or search above"]


def template_keys() -> dict[str, set[str]]:
    """``{key: template names}`` of every ``ui['key']`` / ``ui.key`` of the default theme."""
    keys: dict[str, set[str]] = {}
    for path in TEMPLATES:
        for match in KEY_USE.finditer(path.read_text(encoding="utf-8")):
            keys.setdefault(match["key"] or match["attr"], set()).add(path.name)
    return keys


class _ShownText(HTMLParser):
    """Text nodes and shown attribute values of an HTML fragment."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.shown: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.shown += [value for name, value in attrs if name in SHOWN_ATTRS and value]

    def handle_data(self, data):
        self.shown.append(data)


def test_table_is_read_only_and_keys_are_named_by_purpose():
    with pytest.raises(TypeError):
        UI["nav.home"] = "x"  # type: ignore[index]
    assert all(re.fullmatch(r"[a-z_]+(\.[a-zA-Z_-]+)+", key) for key in UI)
    assert all(isinstance(text, str) and text for text in UI.values())


def test_every_key_the_templates_use_is_in_the_table():
    keys = template_keys()
    assert len(keys) >= 40  # the parse finds the uses
    assert {key: names for key, names in keys.items() if key not in UI} == {}


def test_every_key_the_python_code_uses_is_in_the_table():
    used = set()
    for path in sorted((PACKAGE / "site").rglob("*.py")):
        used |= {m["key"] for m in PY_KEY_USE.finditer(path.read_text(encoding="utf-8"))}
    assert used and used <= set(UI)
    # no entry nobody reads
    assert {k for k in UI if not k.startswith(OTHER_READERS) or k == "taxonomy.count"} <= used | set(template_keys())
    poster = (PACKAGE / "motion" / "poster.py").read_text(encoding="utf-8")
    used = {m[1] for m in re.finditer(r'POSTER_TEXT(?:\[|\.plural\()"([^"]+)"', poster)}
    assert used | {"view.side", "view.front"} == set(POSTER_TEXT)   # the views through POSTER_TEXT.view
    assert {f"poster.{k}" for k in POSTER_TEXT} == {k for k in UI if k.startswith("poster.")}


def test_templates_hold_no_english_words():
    """Outside ``{{ }}`` / ``{% %}``, no text node or shown attribute of a template has a letter."""
    for path in TEMPLATES:
        text = path.read_text(encoding="utf-8")
        for phrase in CONVERTED:
            assert phrase not in text, (path.name, phrase)
        parser = _ShownText()
        parser.feed(JINJA.sub("", text))
        parser.close()
        words = [s.strip() for s in parser.shown if re.search(r"[A-Za-z]", s)]
        assert words == [], path.name


def test_template_strings_name_a_missing_key():
    ui = template_strings()
    assert ui["nav.home"] == UI["nav.home"] and "nav.home" in ui
    assert "nav.nope" not in ui and ui.get("nav.nope") is None
    with pytest.raises(Exception, match="'nav.nope'"):
        ui["nav.nope"]
    with pytest.raises(Exception, match="'nav.nope'"):
        ui.plural("nav.nope", 2)
    assert ui.plural("taxonomy.count", 1) == "1 exercise." and ui.plural("taxonomy.count", 0) == "0 exercises."


PAGE = "---\ntitle: Squat\nlevel: beginner\n---\n\n# Squat\n\nText.\n"


def test_theme_override_reads_the_table(make_site, tmp_path):
    write_tree(tmp_path / "over", {"partials/meta.html": "<p class=\"m\">{{ ui['meta.level'] }}: {{ ui.get('x', '-') }}</p>\n"})
    result, config = make_site({"index.md": "# Home\n", "squat.md": PAGE}, toml='theme_dir = "over"\n')
    assert result.written
    assert '<p class="m">Level: -</p>' in read(config.output_dir, "squat/index.html")


@pytest.mark.parametrize("use", ["ui['meta.levl']", "ui.levl"])
def test_missing_key_is_a_build_error_naming_key_and_template(make_site, tmp_path, use):
    write_tree(tmp_path / "over", {"page.html": "<main>\n{{ " + use + " }}\n</main>\n"})
    key = use.removeprefix("ui.").removeprefix("ui['").removesuffix("']")
    with pytest.raises(BuildError, match=rf"over/page\.html:2: template error: no interface string '{key}'"):
        make_site({"index.md": "# Home\n", "squat.md": PAGE}, toml='theme_dir = "over"\n')


def test_cli_reports_a_template_error_without_traceback(tmp_path, capsys, monkeypatch):
    write_tree(tmp_path, {"content/index.md": "# Home\n", "content/squat.md": PAGE,
                          "over/404.html": "{% extends 'base.html' %}{% block content %}\n"
                                           "<h1>{{ ui['not_found.titel'] }}</h1>{% endblock %}\n",
                          "posecode.toml": 'theme_dir = "over"\n'})
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 1
    err = capsys.readouterr().err
    assert err == ("posecode-ssg: error: over/404.html:2: template error: no interface string "
                   "'not_found.titel' (the keys are listed in posecode_ssg/i18n/locales/en.toml) "
                   "(hint: use a key of posecode_ssg/i18n/locales/en.toml, or add it to i18n/<language>.toml)\n")
    assert not (tmp_path / "site").exists()


def test_template_syntax_error_names_file_and_line(make_site, tmp_path):
    write_tree(tmp_path / "over", {"page.html": "<main>\n\n{{ ui['x' }}\n</main>\n"})
    with pytest.raises(BuildError, match=r"over/page\.html:3: template error: "):
        make_site({"index.md": "# Home\n", "squat.md": PAGE}, toml='theme_dir = "over"\n')


@pytest.mark.parametrize("body, line, what, hint", [
    ("<main>\n{{ page.title | shout }}\n</main>\n", 2, "No filter named 'shout'", "the filters are Jinja2's"),
    ("<main>\n\n{{ page.nothing.deeper }}\n</main>\n", 3, "has no attribute 'nothing'", "a variable or attribute"),
    ("<main>\n{{ 1 // 0 }}\n</main>\n", 2, "ZeroDivisionError", "the expression at that line failed"),
    ("<main>\n{% for x in page.tags %}\n</main>\n", 3, "Unexpected end of template", "check the tag"),
])
def test_theme_mistakes_are_one_line_errors_and_the_previous_site_stays(tmp_path, capsys, monkeypatch, body, line,
                                                                        what, hint):
    """A mistake in an overridden template (issue 27 item 6): the CLI prints one line naming the
    template's file and line, Jinja's or Python's message and a hint; no traceback; the site
    built before is left as it was."""
    write_tree(tmp_path, {"content/index.md": "# Home\n", "content/squat.md": PAGE, "posecode.toml": ""})
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 0
    before = read(tmp_path / "site", "squat/index.html")
    write_tree(tmp_path, {"over/page.html": body, "posecode.toml": 'theme_dir = "over"\n'})
    capsys.readouterr()
    assert main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"posecode-ssg: error: over/page.html:{line}: template error: "), err
    assert what in err and f"(hint: {hint}" in err and "Traceback" not in err and err.count("\n") == 1, err
    assert read(tmp_path / "site", "squat/index.html") == before
