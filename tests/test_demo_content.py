"""The demo exercise library in ``content/`` (issue 6 item 7).

What must hold for the library the README's first command builds:

- every ```` ```posecode ```` fence and every ``.posecode`` file parses with no error, no warning
  and no hint (spec v0.4; canonical timing modes, no legacy spellings);
- every document compiles and its keyframe solve reports no kinematic diagnostic (each reach,
  pin and grip lands within 2 cm, no ground-locked contact starts in the air, planted feet stay
  flat and still) - so the figure does what its page says;
- together the documents use every feature of the language (kinds, start poses, overrides,
  avatars, props and anchors, timing modes, contact families and forms, turn, travel, cue,
  repeat, every action);
- every Markdown page has valid front matter (vocabularies of ``posecode_ssg.site.taxonomy``)
  and every exercise page carries the full set of keys with at least one posecode figure;
- the whole library builds with no errors and no warnings.

Vocabularies are read from :mod:`posecode_ssg.language.vocabulary`, never re-listed here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from posecode_ssg.language import parse
from posecode_ssg.language import vocabulary as V
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.diagnostics import kinematic_diagnostics
from posecode_ssg.site.programs import declares_program
from posecode_ssg.site.content import validate_front_matter
from posecode_ssg.site.fences import extract_posecode_blocks

CONTENT = Path(__file__).resolve().parent.parent / "content"
SECTIONS = ("strength", "mobility", "rehab", "posture", "dance", "props")
EXERCISE_KEYS = ("title", "summary", "level", "category", "equipment", "primary_muscles",
                 "secondary_muscles", "tags")


def _documents() -> list[tuple[str, str]]:
    """Every Posecode document of the library as ``(label, source)``; a fence is labelled with
    its file and the line of its opening fence."""
    docs: list[tuple[str, str]] = []
    for path in sorted(CONTENT.rglob("*")):
        rel = path.relative_to(CONTENT).as_posix()
        if path.suffix == ".posecode":
            docs.append((rel, path.read_bytes().decode("utf-8")))
        elif path.suffix == ".md":
            for block in extract_posecode_blocks(path.read_text(encoding="utf-8")):
                docs.append((f"{rel}:{block.fence_line}", block.source))
    return docs


DOCUMENTS = _documents()
MD_PAGES = sorted(CONTENT.rglob("*.md"))
#: the exercise pages: not section index pages, not programs (front matter `program:`, docs/programs.md)
EXERCISE_PAGES = [p for p in MD_PAGES if p.name not in ("index.md", "_index.md") and not declares_program(p.read_bytes())]


def _front_matter(path: Path) -> tuple[dict, list]:
    md = MarkdownIt("commonmark").use(front_matter_plugin)
    for tok in md.parse(path.read_text(encoding="utf-8")):
        if tok.type == "front_matter":
            return validate_front_matter(tok.content, (tok.map[0] if tok.map else 0) + 2)
    return {}, []


@pytest.fixture(scope="module")
def parsed() -> dict[str, object]:
    """``{label: ParseResult}`` for every document."""
    return {label: parse(src) for label, src in DOCUMENTS}


def test_library_has_the_promised_size_and_sections():
    assert (CONTENT / "index.md").is_file()
    for section in SECTIONS:
        assert (CONTENT / section / "_index.md").is_file(), section
        assert any(p.parent.name == section for p in EXERCISE_PAGES), section
    assert len(EXERCISE_PAGES) >= 32
    assert len(list(CONTENT.rglob("*.posecode"))) >= 2
    assert not (CONTENT / "README.md").exists()   # it would become a page


@pytest.mark.parametrize("label,source", DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_document_parses_without_diagnostics(label, source):
    result = parse(source)
    found = [f"{d.severity} {d.line}:{d.column} [{d.code}] {d.message}"
             for d in result.errors + result.warnings + result.hints]
    assert found == []
    assert result.ir is not None and result.ir.phases


@pytest.mark.parametrize("label,source", DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_document_solves_without_kinematic_diagnostics(label, source):
    program = compile_ir(parse(source).ir)
    found = [f"line {d.line} [{d.code}] {d.message}" for d in kinematic_diagnostics(program)]
    assert found == []


def test_library_uses_every_feature_of_the_language(parsed):
    irs = [r.ir for r in parsed.values()]
    phases = [ph for ir in irs for ph in ir.phases]
    assert {ir.kind for ir in irs} == set(V.KINDS)
    assert {ir.start_pose for ir in irs} == set(V.START_POSES)
    assert {ir.avatar for ir in irs} >= set(V.AVATARS)
    assert {p for ir in irs for p in ir.props} == set(V.PROPS)
    overridden = {ir.start_pose for ir in irs if ir.start_pose_overrides}
    assert len(overridden) >= 5          # overrides on most of the built-in poses
    assert {ph.easing for ph in phases} == set(V.TIMING_MODES)
    assert all(ir.repeat >= 1 for ir in irs) and any(ir.repeat > 1 for ir in irs)

    # ground-lock: the three groups, back, and every single-side contact
    locks = {c for ph in phases for c in ph.ground_lock}
    assert locks >= {"hands", "forearms", "feet", "back"} | set(V.GROUND_LOCK_SINGLES)

    # reach to the floor, to a body landmark and to a prop anchor; pins to floor and a prop
    reach_targets = {c.target for ph in phases for c in ph.reaches}
    assert V.FLOOR in reach_targets
    assert reach_targets & set(V.REACH_LANDMARKS)
    assert reach_targets & set(V.ALL_ANCHORS)
    reach_effectors = {c.effector.split("_")[0] for ph in phases for c in ph.reaches}
    assert reach_effectors >= {"hand", "foot", "knee", "elbow"}
    pin_targets = {c.target for ph in phases for c in ph.pins}
    assert V.FLOOR in pin_targets and pin_targets & set(V.ALL_ANCHORS)

    # every prop anchor is used by some contact (the IR expands a bare grip anchor such as
    # ``bar`` into its sided anchors, so bare grip anchors are read from the source lines)
    grip_lines = [line.strip() for _, src in DOCUMENTS for line in src.splitlines()
                  if line.strip().startswith("grip:")]
    bare = {a for a in V.GRIP_BARE_ANCHORS for g in grip_lines if g.split()[-1] == a}
    used = reach_targets | pin_targets | {c.target for ph in phases for c in ph.grips} | bare
    assert used >= set(V.ALL_ANCHORS)

    # grips: grouped on the bar and on the rails, sided, and one hand on a bare anchor
    assert "grip: hands bar" in grip_lines and "grip: hands bars" in grip_lines
    assert any(re.fullmatch(r"grip: hand_(left|right) bars?_(left|right)", g) for g in grip_lines)
    assert any(re.fullmatch(r"grip: hand_(left|right) bars?", g) for g in grip_lines)

    assert any(ph.turn_deg for ph in phases)
    assert any(ph.travel and any(ph.travel) for ph in phases)
    assert all(ph.cue for ph in phases)     # every step tells the reader what it does


def test_library_uses_every_action(parsed):
    sources = "\n".join(src for _, src in DOCUMENTS)
    for action in V.ACTIONS:
        assert re.search(rf":\s*{re.escape(action)}\s+\d", sources), action
    assert re.search(r":\s*hold neutral\b", sources)
    # rotation about the long axis on both ball-and-socket joints
    for joint in ("shoulder", "hip"):
        assert re.search(rf"\b{joint}s?(_left|_right)?:\s*rotate-(in|out)\s", sources), joint
    # single fingers, finger groups and the thumb's abduction
    for joint in ("fingers", "fingers_left", "index_right", "pinky_left", "thumb_left"):
        assert re.search(rf"\b{joint}:", sources), joint
    assert re.search(r"\bthumb_(left|right):\s*abduct\s", sources)


@pytest.mark.parametrize("path", MD_PAGES, ids=[p.relative_to(CONTENT).as_posix() for p in MD_PAGES])
def test_front_matter_is_valid(path):
    meta, problems = _front_matter(path)
    assert [f"{p}" for p in problems] == []
    assert meta.get("title") and meta.get("summary")
    if path in EXERCISE_PAGES:
        missing = [k for k in EXERCISE_KEYS if k not in meta]
        assert missing == []
        assert meta["equipment"] and meta["primary_muscles"]
        assert not set(meta["primary_muscles"]) & set(meta["secondary_muscles"])
        assert extract_posecode_blocks(path.read_text(encoding="utf-8")), "no posecode figure"


def test_some_fences_sit_in_list_items():
    in_lists = [p for p in EXERCISE_PAGES
                if re.search(r"^\s{2,}```posecode", p.read_text(encoding="utf-8"), re.M)]
    assert len(in_lists) >= 2


def test_relative_links_between_pages_resolve():
    link = re.compile(r"\]\(([^)#\s]+\.md)(#[^)]*)?\)")
    count = 0
    for page in MD_PAGES:
        for target in link.findall(page.read_text(encoding="utf-8")):
            if "://" in target[0]:
                continue
            count += 1
            assert (page.parent / target[0]).resolve().is_file(), f"{page.name} -> {target[0]}"
    assert count >= 60


def test_demo_library_builds_without_errors_or_warnings(tmp_path):
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import build_site

    config = load_config(None, cwd=tmp_path).with_overrides(content=CONTENT, out=tmp_path / "site")
    result = build_site(config, out_dir=tmp_path / "site", strict=True, progress=False)
    assert [f"{p}: {d.code} {d.message}" for p, d in result.errors] == []
    assert [f"{p}: {d.code} {d.message}" for p, d in result.warnings] == []
    assert len(result.pages) >= len(EXERCISE_PAGES) and result.figures == len(DOCUMENTS)


@pytest.mark.parametrize("section", SECTIONS)
def test_section_index_links_every_page_of_its_section(section):
    index = (CONTENT / section / "_index.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (CONTENT / section).glob("*.md") if p.name != "_index.md")
    assert [name for name in pages if f"]({name})" not in index] == []
