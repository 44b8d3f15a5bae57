"""Printed programs (issue 22 item 4): the demo library's five-exercise home knee program,
printed to PDF by Chromium (``page.pdf``) on A4 and on Letter, gives three sheets with two
exercises on each of the first two, each exercise whole on its sheet (its title, its phase
strip, its dose); the program page prints the same way. Read back with pypdf."""

from __future__ import annotations

import io
import re
import unicodedata

import pytest

from .pages import needs_browser

pytestmark = needs_browser

pypdf = pytest.importorskip("pypdf")

#: the demo program's exercises in order, each with a step name its strip and steps show
KNEE = [("Heel slides", "Slide it out"), ("Straight leg raise", "Tighten the thigh"),
        ("Seated knee extension", "Sit tall"), ("Glute bridge", "Lift"), ("Sit to stand", "Lean forward")]


def sheets(page, url: str, paper: str) -> list[str]:
    """The text of each printed sheet of ``url`` (ligatures such as "ﬀ" spelt out)."""
    page.goto(url)
    page.wait_for_load_state("load")
    data = page.pdf(format=paper, print_background=False)
    return [unicodedata.normalize("NFKC", p.extract_text()) for p in pypdf.PdfReader(io.BytesIO(data)).pages]


@pytest.mark.parametrize("paper", ["A4", "Letter"])
@pytest.mark.parametrize("path", ["programs/home-knee-program/handout/", "programs/home-knee-program/"])
def test_five_exercises_print_on_three_sheets(built_site, page, paper, path):
    texts = sheets(page, built_site.url(path), paper)
    assert len(texts) == 3, [t[:80] for t in texts]
    expected = [KNEE[0:2], KNEE[2:4], KNEE[4:5]]
    for k, (text, pair) in enumerate(zip(texts, expected)):
        flat = " ".join(text.split())
        assert f"{k + 1} / 3" in flat   # the sheet's number, in its margin
        # each sheet: its exercises' titles, each strip's first frame, each one's dose and time
        for title, step in pair:
            assert title in flat and step in flat, (title, flat[:300])
        assert flat.count("Start") == len(pair)
        assert len(re.findall(r"\bDose\b", flat)) == len(pair)
        assert len(re.findall(r"\bTime\b", flat)) == len(pair)
    # heel slides and the seated knee extension work both sides in one loop: not doubled
    assert "about 20 min" in " ".join(texts[0].split())
    assert "Ask your physiotherapist" in " ".join(texts[2].split())   # the program's own text, last


def test_an_exercise_page_prints_its_strip_and_cues(built_site, page):
    texts = sheets(page, built_site.url("props/chair-sit-to-stand/"), "A4")
    flat = [" ".join(t.split()) for t in texts]
    # the strip once, whole on one sheet with the steps' cues after it; no site navigation
    on = [i for i, t in enumerate(flat) if "Start" in t]
    assert len(on) == 1
    strip_sheet = flat[on[0]]
    assert all(name in strip_sheet for name in ("Sit down slowly", "Lean forward", "Lift off", "Stand tall"))
    assert "prescription" in flat[0].lower() and "3 × 10" in flat[0]
    assert not any("Search" in t for t in flat)
