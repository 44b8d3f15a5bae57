"""Front matter validation against the vocabularies of posecode_ssg.site.taxonomy."""

from __future__ import annotations

from posecode_ssg.site.content import validate_front_matter


def test_valid_front_matter_normalised():
    meta, problems = validate_front_matter(
        "title: Squat\nlevel: Beginner\nequipment: chair\nprimary_muscles: [glutes, quadriceps, glutes]\n"
        "tags: [legs, 3]\nweight: 2\n", 2)
    assert problems == []
    assert meta == {"title": "Squat", "level": "beginner", "equipment": ["chair"],
                    "primary_muscles": ["glutes", "quadriceps"], "tags": ["legs", "3"], "weight": 2}


def test_unknown_key_warns_with_line_and_hint():
    meta, problems = validate_front_matter("title: A\nsumary: typo\n", 2)
    (p,) = problems
    assert (p.severity, p.code, p.line, p.column) == ("warning", "front-matter-unknown-key", 3, 1)
    assert p.hint == "did you mean 'summary'?" and "summary" not in meta


def test_closed_vocabularies_are_errors_and_taxonomy_words_warnings():
    """level and category stay closed; an unknown equipment or muscle word is a warning kept as
    its own term (issue 21), and a synonym ("quads") is its term."""
    meta, problems = validate_front_matter(
        "level: expert\ncategory: cardio\nequipment: [chiar]\nsecondary_muscles: [quads]\n", 2)
    by_line = {p.line: p for p in problems}
    assert sorted(by_line) == [2, 3, 4]
    assert by_line[2].severity == "error" and by_line[2].message == "unknown level 'expert'"
    assert "beginner" in by_line[2].hint
    assert by_line[3].severity == "error" and by_line[3].message == "unknown category 'cardio'"
    assert (by_line[4].severity, by_line[4].code, by_line[4].column) == ("warning", "front-matter-unknown-word", 13)
    assert by_line[4].hint == "did you mean 'chair'?"
    assert meta == {"equipment": ["chiar"], "secondary_muscles": ["quadriceps"]}


def test_yaml_error_position():
    _meta, problems = validate_front_matter("title: A\ntags: [a, b\n", 2)
    (p,) = problems
    assert p.code == "front-matter-yaml" and p.severity == "error" and p.line >= 3


def test_wrong_types():
    _meta, problems = validate_front_matter("title: [a]\ntags: {a: 1}\ndraft: maybe\nweight: 1.5\n", 2)
    assert [p.line for p in problems] == [2, 3, 4, 5]
    assert all(p.code == "front-matter-type" for p in problems)


def test_not_a_mapping():
    _meta, problems = validate_front_matter("- a\n- b\n", 2)
    assert problems[0].code == "front-matter-type"


def test_docs_list_every_vocabulary_word():
    """docs/site.md and docs/taxonomies.md document the vocabularies exactly as taxonomy.py
    and vocabularies.toml define them."""
    from pathlib import Path

    from posecode_ssg.site import taxonomy

    root = Path(__file__).resolve().parents[2] / "docs"
    docs = "\n".join((root / name).read_text(encoding="utf-8") for name in ("site.md", "taxonomies.md"))
    section = docs.split("**Muscles**", 1)[1].split("**Synonyms**", 1)[0]
    listed = [w.strip("`") for w in __import__("re").findall(r"`[a-z-]+`", section)]
    assert listed == list(taxonomy.MUSCLES)
    for word in [*taxonomy.LEVELS, *taxonomy.CATEGORIES, *taxonomy.equipment()]:
        assert f"`{word}`" in docs, word


def test_comma_text_for_a_list_is_an_error_that_shows_the_list():
    _meta, problems = validate_front_matter("primary_muscles: quadriceps, glutes\n", 2)
    (p,) = problems
    assert (p.severity, p.code, p.line, p.column) == ("error", "front-matter-type", 2, 18)
    assert p.hint == "write a list: primary_muscles: [quadriceps, glutes]"


def test_wrong_types_have_hints():
    _meta, problems = validate_front_matter("summary: [Sit, down]\nequipment: {a: 1}\n", 2)
    assert [(p.line, p.code) for p in problems] == [(2, "front-matter-type"), (3, "front-matter-type")]
    assert "quotes" in problems[0].hint and problems[1].hint.startswith("write a list")


def test_a_key_given_twice_warns_at_the_later_one():
    meta, problems = validate_front_matter("title: First\nlevel: beginner\ntitle: Second\n", 2)
    (p,) = problems
    assert (p.severity, p.code, p.line, p.column) == ("warning", "front-matter-duplicate-key", 4, 1)
    assert "line 2" in p.message and meta["title"] == "Second"


def test_unclosed_front_matter_is_an_error_and_a_leading_rule_is_not(make_site):
    page = "---\ntitle: Squat\nlevel: beginner\n\n# Squat\n\nText.\n"
    result, _config = make_site({"index.md": "# Home\n", "squat.md": page})
    assert [(d.code, d.line, d.column) for _path, d in result.errors] == [("front-matter-unclosed", 1, 1)]
    assert not result.written
    # a thematic break first, then prose: the author's rule, no front matter meant
    result, _config = make_site({"index.md": "# Home\n", "squat.md": "---\n\nJust prose: fine.\n"})
    assert not result.errors and result.written
