"""Prescriptions in front matter (issue 21 item 4): each key's validation (good values and their
normal form, bad values as errors at the value's line and column), the page's prescription box,
the card's dose line, the search index's words and the ``data-reps`` the figures count to.
Expected values are written out by hand, not computed with the code under test."""

from __future__ import annotations

import json
import re

import pytest
from conftest import Collector, read

from posecode_ssg.cli import main
from posecode_ssg.site import prescription
from tests.conftest import NOD_FIGURE
from posecode_ssg.site.content import FRONT_MATTER_KEYS, validate_front_matter
from posecode_ssg.site.prescription import (PRESCRIPTION_KEYS, card_dose, check_field, prescription_lines,
                                            rep_target, search_text)

FIGURE = NOD_FIGURE.replace(" autoplay=false", "")

FULL = ("---\ntitle: Split squat\nsummary: Lunge down and up.\nlevel: beginner\n"
        "sets: 3\nreps: 10\nper_side: true\nhold: 30\n"
        "rest: 60\ntempo: 3-1-1\nfrequency: 2× daily\nside: alternating\nload: light band\n---\n\n"
        "# Split squat\n\n" + FIGURE)


# ----- each key: good values and their normal form ---------------------------------------------

@pytest.mark.parametrize("key,value,expected", [
    ("sets", 1, 1), ("sets", 3, 3),
    ("reps", 10, 10), ("reps", "8-12", "8-12"), ("reps", "8 - 12", "8-12"), ("reps", "8–12", "8-12"),
    ("reps", "8 to 12", "8-12"),
    ("per_side", True, True), ("per_side", False, False),
    ("hold", 30, 30), ("hold", 2.5, 2.5), ("hold", 30.0, 30), ("hold", "30 s", 30), ("hold", "45 seconds", 45),
    ("rest", 0, 0), ("rest", 90, 90), ("rest", "60s", 60),
    ("tempo", "3-1-1", "3-1-1"), ("tempo", "2-0-x-0", "2-0-x-0"), ("tempo", "3 / 1 / 1", "3-1-1"),
    ("tempo", "4-2", "4-2"),
    ("frequency", "2× daily", "2× daily"), ("frequency", "  3 times a week ", "3 times a week"),
    ("side", "left", "left"), ("side", "Right", "right"), ("side", "both", "both"),
    ("side", "alternating", "alternating"),
    ("load", "light band", "light band"), ("load", "2 kg", "2 kg"),
])
def test_good_values_are_kept_in_normal_form(key, value, expected):
    checked, bad = check_field(key, value)
    assert bad is None
    assert checked == expected and type(checked) is type(expected)


# ----- each key: bad values, with a message naming the key -------------------------------------

@pytest.mark.parametrize("key,value", [
    ("sets", 0), ("sets", -2), ("sets", 2.5), ("sets", "three"), ("sets", True), ("sets", [3]),
    ("reps", 0), ("reps", "12-8"), ("reps", "8-8"), ("reps", "0-5"), ("reps", "ten"), ("reps", 10.5),
    ("reps", False), ("reps", "8-12-16"),
    ("per_side", "yes please"), ("per_side", 1), ("per_side", "true"),
    ("hold", 0), ("hold", -5), ("hold", "long"), ("hold", True), ("hold", float("inf")), ("hold", float("nan")),
    ("rest", -1), ("rest", "a minute"), ("rest", [60]), ("rest", float("inf")),
    ("tempo", "slow"), ("tempo", "3"), ("tempo", "3-1-1-1-1"), ("tempo", 10861), ("tempo", True),
    ("frequency", ""), ("frequency", "   "), ("frequency", True), ("frequency", ["daily"]), ("frequency", "x" * 61),
    ("side", "up"), ("side", "both sides"), ("side", 1), ("side", True),
    ("load", ""), ("load", {"kg": 2}), ("load", False), ("load", "y" * 61),
])
def test_bad_values_are_refused_with_a_message_naming_the_key(key, value):
    checked, bad = check_field(key, value)
    assert checked is None
    message, _hint = bad
    assert f"'{key}'" in message


def test_the_front_matter_knows_every_prescription_key():
    keys = ["sets", "reps", "per_side", "hold", "rest", "tempo", "frequency", "side", "load"]
    assert list(PRESCRIPTION_KEYS) == keys
    assert all(key in FRONT_MATTER_KEYS for key in keys)


def test_valid_prescription_lands_in_meta_normalised():
    meta, problems = validate_front_matter(
        "title: Row\nsets: 3\nreps: 8 - 12\nper_side: false\nhold: 2 s\nrest: 90\ntempo: 2 / 0 / 1\n"
        "frequency: 3 times a week\nside: Both\nload: medium band\n", 2)
    assert problems == []
    assert meta == {"title": "Row", "sets": 3, "reps": "8-12", "per_side": False, "hold": 2, "rest": 90,
                    "tempo": "2-0-1", "frequency": "3 times a week", "side": "both", "load": "medium band"}


def test_each_bad_value_is_an_error_at_its_line_and_column():
    text = ("title: Row\n"          # line 2
            "sets: three\n"         # 3, value at column 7
            "reps:   12-8\n"        # 4, column 9
            "per_side: sometimes\n"  # 5, column 11
            "hold: 0\n"             # 6, column 7
            "rest: -30\n"           # 7, column 7
            "tempo: slow\n"         # 8, column 8
            "frequency: ''\n"       # 9, column 12
            "side: up\n"            # 10, column 7
            "load: [a, b]\n")       # 11, column 7
    meta, problems = validate_front_matter(text, 2)
    assert meta == {"title": "Row"}
    found = [(p.severity, p.code, p.line, p.column) for p in problems]
    assert found == [("error", "front-matter-value", 3, 7), ("error", "front-matter-value", 4, 9),
                     ("error", "front-matter-value", 5, 11), ("error", "front-matter-value", 6, 7),
                     ("error", "front-matter-value", 7, 7), ("error", "front-matter-value", 8, 8),
                     ("error", "front-matter-value", 9, 12), ("error", "front-matter-value", 10, 7),
                     ("error", "front-matter-value", 11, 7)]
    messages = [p.message for p in problems]
    assert messages[0] == "'sets' must be a whole number of sets (1 or more), got 'three'"
    assert messages[1] == "'reps' must be a whole number or a range such as 8-12, got '12-8'"
    assert messages[2] == "'per_side' must be true or false"
    assert messages[3] == "'hold' must be a number of seconds above 0, got 0"
    assert messages[4] == "'rest' must be a number of seconds, got -30"
    assert messages[7] == "'side' must be one of left, right, both, alternating, got 'up'"
    assert problems[0].hint == "for example: sets: 3" and problems[1].hint == "for example: reps: 10 or reps: 8-12"


def test_one_side_with_per_side_is_a_warning_at_the_side():
    _meta, problems = validate_front_matter("sets: 3\nper_side: true\nside: left\n", 2)
    (p,) = problems
    assert (p.severity, p.code, p.line, p.column) == ("warning", "front-matter-value", 4, 7)
    assert p.message == "'side: left' with 'per_side: true': the reps are done on one side, not each side"
    for side in ("both", "alternating"):
        assert validate_front_matter(f"per_side: true\nside: {side}\n", 2)[1] == []
    assert validate_front_matter("per_side: false\nside: right\n", 2)[1] == []


def test_none_with_other_equipment_is_underlined_where_none_was_written():
    text = "equipment: [dumbbell, body only]\n"   # "body only" (free-exercise-db) means none
    _meta, problems = validate_front_matter(text, 2)
    (p,) = problems
    assert (p.line, p.column, p.span) == (2, text.index("body only") + 1, len("body only"))
    assert p.message == "equipment lists 'none' together with other items"


def test_a_yaml_sexagesimal_tempo_gets_a_hint():
    _meta, problems = validate_front_matter("tempo: 3:1:1\n", 2)
    (p,) = problems
    assert (p.line, p.column) == (2, 8)
    assert p.message == "'tempo' must be seconds per part joined by '-', such as 3-1-1, got 10861"
    assert p.hint == "join the parts with '-', as in tempo: 3-1-1 (YAML reads 3:1:1 as a number)"


def test_check_reports_a_bad_value_with_file_line_and_column_and_no_traceback(tmp_path, capsys, monkeypatch):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "content" / "row.md").write_text("---\ntitle: Row\nreps: lots\nhold: .inf\n---\n\n# Row\n",
                                                 encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "content"]) == 1
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    assert re.search(r"row\.md:3:7: error.*'reps' must be a whole number or a range such as 8-12, got 'lots'", text)
    assert re.search(r"row\.md:4:7: error.*'hold' must be a number of seconds above 0, got inf", text)


# ----- the words: the box, the card, the search text, the count --------------------------------

FULL_META = {"sets": 3, "reps": 10, "per_side": True, "hold": 30, "rest": 60, "tempo": "3-1-1",
             "frequency": "2× daily", "side": "alternating", "load": "light band"}


def test_the_lines_of_a_full_prescription():
    assert prescription_lines(FULL_META) == [
        ("dose", "Dose", "3 × 10 each side"), ("hold", "Hold", "30 s"), ("rest", "Rest", "60 s between sets"),
        ("tempo", "Tempo", "3-1-1"), ("frequency", "How often", "2× daily"), ("side", "Side", "alternating"),
        ("load", "Load", "light band")]


@pytest.mark.parametrize("meta,lines,card", [
    ({}, [], ""),
    ({"title": "No dose", "level": "beginner"}, [], ""),
    ({"sets": 1}, [("dose", "Dose", "1 set")], "1 set"),
    ({"sets": 4}, [("dose", "Dose", "4 sets")], "4 sets"),
    ({"reps": 1}, [("dose", "Dose", "1 rep")], "1 rep"),
    ({"reps": "8-12"}, [("dose", "Dose", "8-12 reps")], "8-12 reps"),
    ({"sets": 3, "reps": "8-12"}, [("dose", "Dose", "3 × 8-12")], "3 × 8-12"),
    ({"sets": 3, "hold": 30}, [("dose", "Dose", "3 sets"), ("hold", "Hold", "30 s")], "3 sets · hold 30 s"),
    ({"hold": 30, "per_side": True}, [("hold", "Hold", "30 s each side")], "hold 30 s each side"),
    ({"reps": 3, "hold": 2.5, "per_side": True},
     [("dose", "Dose", "3 reps each side"), ("hold", "Hold", "2.5 s")], "3 reps each side · hold 2.5 s"),
    ({"per_side": True}, [("dose", "Dose", "each side")], "each side"),
    ({"per_side": False}, [], ""),
    ({"rest": 0}, [("rest", "Rest", "0 s between sets")], ""),
    ({"side": "left"}, [("side", "Side", "left")], ""),
    ({"side": "both"}, [("side", "Side", "both sides")], ""),
    ({"frequency": "daily", "load": "2 kg"}, [("frequency", "How often", "daily"), ("load", "Load", "2 kg")], ""),
])
def test_lines_and_card_dose(meta, lines, card):
    assert prescription_lines(meta) == lines
    assert card_dose(meta) == card


def test_search_text_carries_labels_and_values():
    assert search_text(FULL_META) == ("Dose 3 × 10 each side Hold 30 s Rest 60 s between sets Tempo 3-1-1 "
                                      "How often 2× daily Side alternating Load light band")
    assert search_text({"title": "x"}) == ""


def test_labels_come_from_the_interface_strings(monkeypatch):
    german = {"prescription.dose": "Dosis", "prescription.sets_reps": "{sets} × {reps}",
              "prescription.each_side": "{dose} pro Seite", "prescription.hold": "Halten",
              "prescription.seconds": "{seconds:g} Sek.", "prescription.card_hold": "halten {hold}",
              "prescription.side": "Seite", "prescription.side_left": "links", "prescription.side_right": "rechts",
              "prescription.side_both": "beide", "prescription.side_alternating": "abwechselnd"}
    monkeypatch.setattr(prescription, "UI", german)
    meta = {"sets": 2, "reps": 12, "per_side": True, "hold": 5, "side": "left"}
    assert prescription_lines(meta) == [("dose", "Dosis", "2 × 12 pro Seite"), ("hold", "Halten", "5 Sek."),
                                        ("side", "Seite", "links")]
    assert card_dose(meta) == "2 × 12 pro Seite · halten 5 Sek."


@pytest.mark.parametrize("meta,expected", [
    ({}, None), ({"sets": 3}, None), ({"reps": 10}, 10), ({"reps": "8-12"}, 12), ({"reps": "6 to 9"}, 9),
    ({"reps": "lots"}, None), ({"reps": 0}, None),
])
def test_rep_target(meta, expected):
    assert rep_target(meta) == expected


# ----- on the built site ------------------------------------------------------------------------

def test_built_pages_show_box_card_search_and_count(make_site):
    plain = "---\ntitle: Plain bend\nsummary: No dose.\n---\n\n# Plain bend\n\n" + FIGURE
    ranged = "---\ntitle: Ranged bend\nsets: 2\nreps: 8-12\n---\n\n# Ranged bend\n\n" + FIGURE + "\n" + FIGURE
    result, config = make_site({"index.md": "# Home\n", "legs/split-squat.md": FULL, "legs/plain.md": plain,
                                "legs/ranged.md": ranged})
    assert not result.errors and not result.warnings
    site = config.output_dir
    html = read(site, "legs/split-squat/index.html")
    tree = Collector()
    tree.feed(html)
    assert not tree.errors and not tree.stack
    box = re.search(r'<section class="prescription".*?</section>', html, re.S).group(0)
    assert re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>", box) == [
        ("Dose", "3 × 10 each side"), ("Hold", "30 s"), ("Rest", "60 s between sets"), ("Tempo", "3-1-1"),
        ("How often", "2× daily"), ("Side", "alternating"), ("Load", "light band")]
    assert html.index('class="prescription"') < html.index('class="page-meta"') < html.index("<posecode-figure")
    assert '<section class="prescription" aria-labelledby="page-prescription">' in html
    assert '<h2 class="prescription-heading" id="page-prescription">Prescription</h2>' in html
    # the rep counter counts to the page's reps; the caption says the same number
    assert re.findall(r'<posecode-figure[^>]*data-reps="(\d+)"', html) == ["10"]
    assert " · repeat ×10</span>" in html
    ranged_html = read(site, "legs/ranged/index.html")
    assert re.findall(r'<posecode-figure[^>]*data-reps="(\d+)"', ranged_html) == ["12", "12"]
    plain_html = read(site, "legs/plain/index.html")
    assert "data-reps" not in plain_html and 'class="prescription"' not in plain_html
    assert " · repeat ×3</span>" in plain_html
    # cards: a one-line dose on the cards that have one
    home = read(site, "index.html")
    doses = re.findall(r'<p class="card-dose"><span class="visually-hidden">Dose: </span>([^<]*)</p>', home)
    assert doses == ["2 × 8-12", "3 × 10 each side · hold 30 s"]   # Ranged bend, Split squat (Plain: none)
    assert home.count('class="card"') == 3
    # the search index: the page's words carry the prescription
    name = next(p.name for p in (site / "assets").iterdir() if p.name.startswith("search-index."))
    pages = {e["t"]: e for e in json.loads(read(site, f"assets/{name}"))["pages"]}
    assert "Dose 3 × 10 each side Hold 30 s Rest 60 s between sets Tempo 3-1-1 How often 2× daily " \
           "Side alternating Load light band" in pages["Split squat"]["x"]
    assert "Dose 2 × 8-12" in pages["Ranged bend"]["x"] and "Dose" not in pages["Plain bend"]["x"]


def test_one_set_has_no_rest_between_sets():
    """Rest is "between sets": a one-set dose shows none (and a program times none)."""
    assert [key for key, _label, _text in prescription_lines({"sets": 1, "reps": 15, "rest": 30})] == ["dose"]
    assert [key for key, _label, _text in prescription_lines({"sets": 2, "reps": 15, "rest": 30})] == ["dose", "rest"]
    assert [key for key, _label, _text in prescription_lines({"reps": 15, "rest": 30})] == ["dose", "rest"]
