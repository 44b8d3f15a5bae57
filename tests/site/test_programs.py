"""Programs (issue 22): front matter ``program:`` validated at its lines and columns, exercises
found by reference (a broken one an error with did-you-mean), the session time by the issue's
formula (expected values worked out by hand in each test), the program page reusing the
exercise pages' compiled figures, its handout, the /programs/ listing and the home link, and
the ``new --template physio|fitness`` libraries."""

from __future__ import annotations

import json
import re

import pytest
from conftest import only_thread, parse_html, read

from posecode_ssg.cli import main
from posecode_ssg.commands.new import TEMPLATES, scaffold
from posecode_ssg.config import load_config
from posecode_ssg.site.build import build_site
from posecode_ssg.site.content import validate_front_matter
from posecode_ssg.site.programs import declares_program, exercise_seconds, session_seconds


def figure(name: str, durations: list[float], repeat: int = 3) -> str:
    """A nodding figure whose steps last ``durations`` seconds and whose last step comes back to
    the start pose (so its loop is their sum: no wrap segment)."""
    steps = []
    for i, d in enumerate(durations):
        angle = 0 if i == len(durations) - 1 else 10 + 5 * i
        steps.append(f'  step "Step {i + 1}" {d:g}s settle:\n    neck: flex {angle}\n    cue "Cue {i + 1}"\n')
    return (f'```posecode autoplay=false\nposecode posture "{name}"\n  rig humanoid\n'
            + "".join(steps) + f"  repeat {repeat}\n```\n")


def page(title: str, front: str = "", body: str = "") -> str:
    return f"---\ntitle: {title}\n{front}---\n\n# {title}\n\n{body}"


# three exercises: loops of 2 s, 3 s and 4 s (their steps' durations summed)
NOD = page("Nod", "sets: 3\nreps: 10\nrest: 30\nfrequency: daily\n", figure("Nod", [1, 1]))
HOLD = page("Hold", "sets: 3\nhold: 20\nper_side: true\nrest: 10\n", figure("Hold", [1, 1, 1]))
PLAIN = page("Plain", "", figure("Plain", [2, 2], repeat=4))
PROGRAM = page("Neck program", """summary: Three neck exercises.
frequency: 2× daily
rest_between: 45
program:
  - page: ../ex/nod.md
    sets: 2
    notes: Gently.
  - ../ex/hold.md
  - page: /ex/plain.md
""", "Text for the patient.\n")
FILES = {"index.md": "# Home\n", "ex/nod.md": NOD, "ex/hold.md": HOLD, "ex/plain.md": PLAIN,
         "ex/notes.md": page("Notes", "", "No figure here.\n"), "plans/neck.md": PROGRAM}

#: by hand: nod 2 × 10 × 2 s + (2 − 1) × 30 s = 70 s; hold (no reps) 3 × 20 s, each side: 120 s,
#: + 2 × 10 s = 140 s; plain: no prescription, its figure's repeat 4 × 4 s = 16 s;
#: + 2 × 45 s between exercises = 316 s
SESSION = 70 + 140 + 16 + 2 * 45


# ----- front matter ------------------------------------------------------------------------

def test_program_items_are_normalised_and_keep_their_positions():
    meta, problems = validate_front_matter(
        "title: P\nrest_between: 30 s\nprogram:\n  - page: a/b.md\n    sets: 2\n    reps: 8 - 12\n"
        "  - c.md\n  - {page: d.md, notes: ' Slowly. '}\n", 2)
    assert problems == []
    assert meta["rest_between"] == 30
    assert meta["program"] == [
        {"page": "a/b.md", "at": [5, 11, 6], "sets": 2, "reps": "8-12"},
        {"page": "c.md", "at": [8, 5, 4]},
        {"page": "d.md", "at": [9, 12, 4], "notes": "Slowly."},
    ]


def test_program_problems_name_their_line_and_column():
    meta, problems = validate_front_matter(
        "title: P\nprogram:\n  - page: a.md\n    setz: 3\n    reps: 0\n  - sets: 2\n  - 7\n", 2)
    found = {(p.severity, p.code, p.line, p.column) for p in problems}
    assert ("warning", "front-matter-unknown-key", 5, 5) in found       # `setz` itself
    assert ("error", "front-matter-value", 6, 11) in found              # the 0
    assert ("error", "program-type", 7, 5) in found                     # no page
    assert ("error", "program-type", 8, 5) in found                     # a number
    hint = next(p.hint for p in problems if p.code == "front-matter-unknown-key")
    assert "sets" in hint
    assert meta["program"] == [{"page": "a.md", "at": [4, 11, 4]}]


@pytest.mark.parametrize("text", ["program: a.md", "program: []", "program: {page: a.md}", "program:"])
def test_a_program_that_is_not_a_list_is_an_error(text):
    _meta, problems = validate_front_matter(f"title: P\n{text}\n", 2)
    assert [(p.severity, p.code, p.line) for p in problems] == [("error", "program-type", 3)]


def test_declares_program_reads_only_the_front_matter():
    assert declares_program(b"---\ntitle: P\nprogram:\n  - a.md\n---\n# P\n")
    assert declares_program(b"\xef\xbb\xbf---\r\nprogram:\r\n  - a.md\r\n---\r\n")
    assert not declares_program(b"---\ntitle: P\n---\nprogram: in the text\n")
    assert not declares_program(b"# P\n\nprogram:\n")
    assert not declares_program(b"---\ntitle: P\n  program: nested\n---\n")


# ----- the session time, by the formula ----------------------------------------------

@pytest.mark.parametrize("rx,loop,repeat,expected", [
    ({"sets": 3, "reps": 10}, 4.0, 1, 3 * 10 * 4.0),                       # sets × reps × loop
    ({"sets": 3, "reps": 10, "rest": 60}, 4.0, 1, 120 + 2 * 60),           # + (sets − 1) × rest
    ({"sets": 2, "reps": 10, "per_side": True}, 5.0, 1, 2 * 2 * 10 * 5.0),  # per_side doubles
    ({"sets": 2, "reps": "8-12", "rest": 30}, 3.0, 1, 2 * 12 * 3.0 + 30),  # a range: its upper end
    ({"sets": 3, "hold": 30, "rest": 45}, 9.0, 1, 3 * 30 + 2 * 45),        # a hold exercise
    ({"sets": 2, "hold": 20, "per_side": True}, 9.0, 1, 2 * 2 * 20),
    ({"reps": 12}, 2.5, 1, 30.0),                                          # one set
    ({}, 2.0, 5, 10.0),                                                    # the figure's repeat
    ({"sets": 2, "rest": 15}, 2.0, 3, 2 * 3 * 2.0 + 15),
])
def test_exercise_seconds(rx, loop, repeat, expected):
    assert exercise_seconds(rx, loop, repeat) == pytest.approx(expected)


@pytest.mark.parametrize("rx,expected", [
    ({"sets": 2, "reps": 10, "per_side": True}, 2 * 10 * 9.0),        # one loop: a rep each side
    ({"sets": 2, "hold": 20, "per_side": True}, 2 * 2 * 20),          # a hold each side: still twice
    ({"sets": 2, "reps": 10}, 2 * 10 * 9.0),
])
def test_a_loop_that_works_both_sides_is_not_doubled(rx, expected):
    assert exercise_seconds(rx, 9.0, 1, both_sides=True) == pytest.approx(expected)


@pytest.mark.parametrize("targets,expected", [
    ([["hip_right", "knee_right"], ["hip_right"], ["hip_left", "knee_left"], ["hip_left"]], True),   # heel slides
    ([["knee_right"], ["knee_right"]], False),                                                     # one side
    ([["knees"], ["hips", "knees"]], False),                                                       # both at once
    ([["hip_right", "hip_left"], ["knee_right"]], False),
])
def test_works_both_sides(targets, expected):
    from types import SimpleNamespace

    from posecode_ssg.site.figures import works_both_sides

    ir = SimpleNamespace(phases=[SimpleNamespace(targets=[SimpleNamespace(bone_id=b) for b in bones]) for bones in targets])
    assert works_both_sides(ir) is expected


def test_session_seconds_adds_the_rest_between_exercises():
    assert session_seconds([70.0, 140.0, 16.0], 45) == pytest.approx(316.0)
    assert session_seconds([30.0], 60) == pytest.approx(30.0)
    assert session_seconds([], 60) == 0


# ----- the program page --------------------------------------------------------------------

@pytest.fixture
def program_site(make_site):
    result, config = make_site(FILES)
    assert not result.errors and not result.warnings, (result.errors, result.warnings)
    return result, config.output_dir


def motion_scripts(html: str) -> list[str]:
    return re.findall(r'<script type="application/json">(.*?)</script>', html)


def test_program_page_shows_each_exercise_with_its_dose_and_the_session_time(program_site):
    _result, site = program_site
    html = read(site, "plans/neck/index.html")
    assert re.search(r'data-session-seconds="([\d.]+)"', html).group(1) == f"{SESSION:.1f}"
    assert "5 min 16 s" in html                                   # the total, to the second
    assert "about 5 min" in html
    titles = re.findall(r'<h2 class="program-exercise-title">.*?<a href="([^"]+)">([^<]+)</a>', html)
    assert titles == [("/ex/nod/", "Nod"), ("/ex/hold/", "Hold"), ("/ex/plain/", "Plain")]
    items = html.split('class="program-exercise"')[1:]
    assert "2 × 10" in items[0] and "Gently." in items[0] and "1 min 10 s" in items[0]
    assert "30 s between sets" in items[0]
    assert "daily" not in items[0].replace("2× daily", "")        # the program's frequency only
    assert "3 sets each side" in items[1] and ">20 s<" in items[1] and "2 min 20 s" in items[1]
    assert "16 s" in items[2]
    assert "Text for the patient." in html
    assert 'href="/plans/neck/handout/"' in html
    # the rep counters count to the program's reps
    assert 'data-reps="10"' in items[0]


def test_program_page_reuses_the_exercise_pages_figures(program_site):
    result, site = program_site
    # the program page has no figure of its own: the build compiles (or takes from the cache)
    # the exercise pages' three, and the program inlines those very motion documents
    assert result.figures == 3
    assert next(p for p in result.pages if p.src_uri == "plans/neck.md").figures == 0
    program = motion_scripts(read(site, "plans/neck/index.html"))
    assert program == [motion_scripts(read(site, f"ex/{name}/index.html"))[0] for name in ("nod", "hold", "plain")]
    loops = [json.loads(m)["duration"] for m in program]
    assert loops == [2, 3, 4]


def test_handout_has_strips_doses_and_no_player(program_site):
    _result, site = program_site
    html = read(site, "plans/neck/handout/index.html")
    assert "posecode-runtime" not in html and "<posecode-figure" not in html
    doc = parse_html(html)
    assert doc.errors == []
    strips = [a for tag, a, _ in doc.tags if tag == "svg" and "pc-strip" in a.get("class", "")]
    assert len(strips) == 3
    sections = html.split('class="handout-exercise"')[1:]
    assert "Step 1" in sections[1] and "Cue 3" in sections[1]      # the strip's labels and the cues
    assert ">Start<" in sections[0]
    assert "2 × 10" in sections[0] and "Gently." in sections[0]
    assert "data-print" in html
    # the program's own text (its advice to the patient) after the exercises
    assert sections[-1].index("Text for the patient.") > sections[-1].index("Cue 2")


def test_exercise_pages_carry_their_strip_for_print(make_site):
    """A page's first figure (its exercise) carries its phase strip, hidden on screen; a further
    figure (a variation) prints its poster."""
    result, config = make_site({"ex/nod.md": NOD + "\n" + figure("Nod variation", [1, 1.5, 1])})
    assert result.written
    html = read(config.output_dir, "ex/nod/index.html")
    strips = re.findall(r'<div class="posecode-strip" hidden>(.*?)</div>', html, re.S)
    assert len(strips) == 1 and 'class="pc-strip"' in strips[0]
    assert re.findall(r'class="pc-label"[^>]*>([^<]+)<', strips[0]) == ["Start", "Step 1", "Step 2"]
    assert html.count('class="posecode-poster"') == 2


def test_programs_are_listed_apart_from_the_exercises(program_site):
    _result, site = program_site
    listing = read(site, "programs/index.html")
    assert 'class="card program-card"' in listing and 'href="/plans/neck/"' in listing
    assert "3 exercises · about 5 min · 2× daily" in listing
    home = read(site, "index.html")
    assert 'href="/programs/"' in home and "Neck program" in home
    # the exercise cards: the three exercises, not the program
    cards = re.search(r'<ul class="cards" data-cards>(.*?)</ul>', home, re.S).group(1)
    assert cards.count('class="card"') == 3 and "Neck program" not in cards
    nav = re.search(r'<nav class="wrap site-nav".*?</nav>', home, re.S).group(0)
    assert '>Programs<' in nav
    index = json.loads(read(site, next(p.name for p in (site / "assets").glob("search-index*.json")).join(["assets/", ""])))
    program_entry = next(e for e in index["pages"] if e["u"] == "/plans/neck/")
    assert "Nod" in program_entry["x"] and "Plain" in program_entry["x"]
    assert sum(1 for e in index["pages"] if e["t"] == "Nod") == 1


def test_a_programs_folder_is_the_listing(make_site):
    files = {**{k: v for k, v in FILES.items() if k != "plans/neck.md"}, "programs/neck.md": PROGRAM,
             "programs/_index.md": "---\ntitle: Our programs\n---\n\n# Our programs\n\nIntro text.\n"}
    result, config = make_site(files)
    assert not result.errors
    listing = read(config.output_dir, "programs/index.html")
    assert "Intro text." in listing and 'href="/programs/neck/"' in listing and "program-card" in listing
    nav = re.search(r'<nav class="wrap site-nav".*?</nav>', read(config.output_dir, "index.html"), re.S).group(0)
    assert nav.count(">Our programs<") == 1


@pytest.mark.parametrize("target,message,line,column", [
    ("../ex/nood.md", "did you mean '../ex/nod.md'?", 7, 11),
    ("../ex/notes.md", "has no Posecode figure", 7, 11),
    ("neck.md", "is a program page", 7, 11),
])
def test_a_broken_reference_is_an_error_at_its_line(make_site, target, message, line, column):
    bad = PROGRAM.replace("page: ../ex/nod.md", f"page: {target}")
    result, config = make_site({**FILES, "plans/neck.md": bad})
    errors = [(str(p), d) for p, d in result.errors]
    assert len(errors) == 1
    path, d = errors[0]
    assert path.endswith("neck.md") and d.code == "program-page" and message in d.message
    assert (d.line, d.column) == (line, column)
    assert not result.written


def test_an_item_dosed_on_one_side_each_side_is_warned_about(make_site):
    # the item's side: left with the page's per_side: true (HOLD's), as an exercise page warns
    bad = PROGRAM.replace("  - ../ex/hold.md\n", "  - page: ../ex/hold.md\n    side: left\n")
    result, _config = make_site({**FILES, "plans/neck.md": bad})
    assert not result.errors
    found = [(d.code, d.line, d.column) for _p, d in result.warnings]
    assert found == [("front-matter-value", 10, 11)]
    assert "side: left" in result.warnings[0][1].message


def test_a_draft_exercise_is_not_found(make_site):
    result, _config = make_site({**FILES, "ex/nod.md": NOD.replace("frequency: daily\n", "draft: true\n")})
    assert [d.code for _p, d in result.errors] == ["program-page"]


def test_an_exercise_page_edit_reaches_the_program(make_site, tmp_path):
    result, config = make_site(FILES)
    assert result.written
    (tmp_path / "content" / "ex" / "hold.md").write_text(HOLD.replace("hold: 20", "hold: 30"), encoding="utf-8")
    again = build_site(load_config(None, cwd=tmp_path), progress=False)
    assert again.written and not again.errors
    html = read(config.output_dir, "plans/neck/index.html")
    # hold 3 × 30 s each side + 2 × 10 s = 200 s; 70 + 200 + 16 + 90 = 376 s
    assert 'data-session-seconds="376.0"' in html


def test_page_workers_make_the_same_program_pages(make_site, tmp_path, monkeypatch):
    """A program page lists other pages, so it is rendered where every record is (not in a page
    worker): a build with page workers writes the same program page and handout."""
    result, config = make_site(FILES)
    only_thread()   # the build forks only a process that runs no other thread (by design)
    monkeypatch.setenv("POSECODE_PAGE_WORKERS_MIN", "1")
    parallel = build_site(config, out_dir=tmp_path / "parallel", progress=False)
    assert parallel.page_workers >= 1 and parallel.written
    for rel in ("plans/neck/index.html", "plans/neck/handout/index.html", "programs/index.html"):
        assert read(tmp_path / "parallel", rel) == read(config.output_dir, rel), rel


def test_check_reports_a_path_that_names_no_page(tmp_path, capsys):
    content = tmp_path / "content"
    for rel, text in {**FILES, "plans/neck.md": PROGRAM.replace("../ex/hold.md", "../ex/hodl.md")}.items():
        (content / rel).parent.mkdir(parents=True, exist_ok=True)
        (content / rel).write_text(text, encoding="utf-8")
    assert main(["check", str(content)]) == 1
    out = capsys.readouterr().out
    assert "neck.md:10:5: error[program-page]" in out and "did you mean '../ex/hold.md'?" in out


# ----- new --template ------------------------------------------------------------------------

@pytest.mark.parametrize("template", ["physio", "fitness"])
def test_templates_build_strictly_with_a_program(tmp_path, template):
    root = tmp_path / "lib"
    assert main(["new", str(root), "--template", template]) == 0
    config = load_config(None, cwd=root)
    result = build_site(config, progress=False, strict=True)
    assert result.written and not result.errors and not result.warnings, (result.errors, result.warnings)
    programs = [p for p in (config.content_dir / "programs").glob("*.md") if p.name != "_index.md"]
    assert len(programs) == 1
    out = config.output_dir / "programs" / programs[0].stem
    html = (out / "index.html").read_text(encoding="utf-8")
    listed = len(re.findall(r"^  - ", programs[0].read_text(encoding="utf-8"), re.M))
    assert html.count('class="program-exercise"') == listed >= 4
    assert (out / "handout" / "index.html").is_file()
    pages = [p for p in config.content_dir.rglob("*.md") if "programs" not in p.parts and p.name not in ("index.md", "_index.md")]
    assert all(re.search(r"^sets: \d+$", p.read_text(encoding="utf-8"), re.M) for p in pages)


def test_templates_are_the_documented_ones(tmp_path):
    assert set(TEMPLATES) == {"basic", "physio", "fitness"}
    written = scaffold(tmp_path / "b")
    names = sorted(p.relative_to(tmp_path / "b").as_posix() for p in written)
    assert names == [".gitignore", "content/exercises/_index.md", "content/exercises/bodyweight-squat.md",
                     "content/index.md", "posecode.toml"]
    assert 'site_name = "B"' in (tmp_path / "b" / "posecode.toml").read_text(encoding="utf-8")


def test_only_pages_with_a_figure_load_the_player(program_site):
    """The player script (and rig.json) load where a figure is shown: an exercise page, a program
    page; not the home, a section, the listing or a handout (which print the strips). The theme's
    site.js loads on the home (its filters) and a handout (its Print button)."""
    _result, site = program_site
    def scripts(rel: str) -> list[str]:
        return re.findall(r'<script[^>]* src="/assets/([a-z-]+)\.[0-9a-f]{10}\.js"', read(site, rel))
    assert scripts("ex/nod/index.html") == ["posecode-runtime"]
    assert scripts("plans/neck/index.html") == ["posecode-runtime"]
    assert scripts("index.html") == ["site"]
    assert scripts("plans/neck/handout/index.html") == ["site"]
    assert scripts("ex/index.html") == [] and scripts("programs/index.html") == []
    assert "posecode-rig" not in read(site, "index.html")
