"""The rep counter of a built page counts to the page's prescription (issue 21 item 4): a page
whose front matter gives ``reps`` writes ``data-reps`` on its figures and the player shows
"Rep k of N" with N = ``reps`` (the upper end of a range); a page without counts to the
motion document's ``repeat``. Built with the site generator, served, played in Chromium."""

from __future__ import annotations

import pytest

from tests.conftest import NOD_FIGURE

from .conftest import serve_folder
from .pages import READY_ALL, needs_browser

pytestmark = needs_browser

NOD = NOD_FIGURE


def _page(title: str, front: str) -> str:
    return f"---\ntitle: {title}\n{front}---\n\n# {title}\n\n{NOD}"


@pytest.fixture(scope="module")
def rx_site(tmp_path_factory):
    """Four pages of one nodding figure (document ``repeat 3``): ``reps: 8-12``, ``reps: 5``
    (two figures), ``reps: 1``, and no prescription; built and served for the module."""
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import RUNTIME_BUNDLE, build_site

    if not RUNTIME_BUNDLE.exists():
        pytest.skip("runtime bundle not built (npm ci && npm run build)")
    work = tmp_path_factory.mktemp("rx-site")
    content = work / "content"
    content.mkdir()
    pages = {"index.md": "# Home\n",
             "ranged.md": _page("Ranged", "sets: 3\nreps: 8-12\n"),
             "five.md": _page("Five", "reps: 5\nhold: 2\n") + "\n" + NOD,
             "once.md": _page("Once", "reps: 1\n"),
             "plain.md": _page("Plain", "")}
    for name, text in pages.items():
        (content / name).write_text(text, encoding="utf-8")
    result = build_site(load_config(cwd=work), out_dir=work / "site", progress=False)
    assert not result.errors, result.errors[:3]
    with serve_folder(work / "site") as base_url:
        yield base_url


def _counters(page) -> list[str | None]:
    """Each figure's rep counter text, None where it is hidden."""
    return page.evaluate("""() => posecode.figures.map(f => {
        const rep = f.querySelector('.pc-rep'); return rep.hidden ? null : rep.textContent; })""")


@pytest.mark.parametrize("path,expected", [
    ("ranged/", ["Rep 1 of 12"]),                   # a range: its upper end
    ("five/", ["Rep 1 of 5", "Rep 1 of 5"]),       # every figure of the page
    ("once/", [None]),                              # one rep: no counter, as with repeat 1
    ("plain/", ["Rep 1 of 3"]),                     # no reps: the document's repeat
])
def test_counter_counts_to_the_page_reps(rt_page, rx_site, path, expected):
    rt_page.goto(f"{rx_site}/{path}")
    rt_page.evaluate(READY_ALL)
    assert _counters(rt_page) == expected
    assert not rt_page.problems


def test_counter_goes_past_the_document_repeat(rt_page, rx_site):
    """Played at 2×, the counter of a ``reps: 5`` page reaches "Rep 4 of 5": beyond the
    document's ``repeat 3``, where a counter to 3 would have wrapped to 1."""
    rt_page.goto(f"{rx_site}/five/")
    rt_page.evaluate(READY_ALL)
    seen = rt_page.evaluate("""async () => { const el = posecode.figures[0]; const seen = [];
        el.querySelector('.pc-speed').value = '2'; el.querySelector('.pc-speed').dispatchEvent(new Event('change'));
        el.play();
        const t0 = performance.now();
        while (performance.now() - t0 < 40000 && seen.length < 4) {
          await posecode.frame();
          const text = el.querySelector('.pc-rep').textContent;
          if (seen[seen.length - 1] !== text) seen.push(text);
        }
        el.pause(); return seen; }""")
    assert seen == ["Rep 1 of 5", "Rep 2 of 5", "Rep 3 of 5", "Rep 4 of 5"]
    assert not rt_page.problems
