"""Figures inside the Markdown containers (issue 24), in Chromium: in an admonition, a closed
``???`` block, a second content tab and a MyST container, every figure reaches ready, and once
its container is opened or its tab chosen and it is scrolled into view, it is drawn at its size
and posed (``sample()`` puts its head at standing height), on a desktop and a phone viewport, light and dark."""

from __future__ import annotations

import pytest

from .conftest import serve_folder
from .pages import needs_browser

pytestmark = needs_browser


def _nod(title: str, angle: int, indent: str) -> str:
    body = [f"```posecode title=\"{title}\"", f'posecode posture "{title}"', "  rig humanoid",
            '  step "Nod" 1s settle:', f"    neck: flex {angle}", '  step "Up" 1s settle:', "    neck: flex 0", "```"]
    return "\n".join(indent + line for line in body) + "\n"


PAGE = ("# Containers\n\n"
        '!!! note "A note"\n    Text.\n\n' + _nod("In a note", 15, "    ") + "\n"
        '??? tip "Closed"\n    Hidden.\n\n' + _nod("In details", 20, "    ") + "\n"
        '=== "First"\n    First tab.\n\n=== "Second"\n    Second tab.\n\n' + _nod("In a tab", 25, "    ") + "\n"
        "::: warning Careful\nText.\n\n" + _nod("In a container", 10, "") + ":::\n")

TITLES = ["In a note", "In details", "In a tab", "In a container"]


@pytest.fixture(scope="module")
def containers_site(tmp_path_factory):
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import RUNTIME_BUNDLE, build_site

    if not RUNTIME_BUNDLE.exists():
        pytest.skip("runtime bundle not built (npm ci && npm run build)")
    work = tmp_path_factory.mktemp("containers-site")
    (work / "content").mkdir()
    (work / "content" / "index.md").write_text("# Home\n", encoding="utf-8")
    (work / "content" / "page.md").write_text(PAGE, encoding="utf-8")
    result = build_site(load_config(cwd=work), out_dir=work / "site", progress=False)
    assert not result.errors and result.figures == 4
    with serve_folder(work / "site") as base_url:
        yield base_url


@pytest.mark.parametrize("viewport,scheme", [((1280, 900), "light"), ((390, 844), "dark")])
def test_figures_in_every_container_come_up_posed(browser, containers_site, viewport, scheme):
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, color_scheme=scheme)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(containers_site + "/page/")
    figs = "[...document.querySelectorAll('posecode-figure')]"
    assert page.evaluate(f"Promise.all({figs}.map(f => f.ready.then(() => f.dataset.title)))") == TITLES
    # hidden at load: the closed block's and the second tab's figures
    assert page.evaluate(f"{figs}.map(f => f.checkVisibility())") == [True, False, False, True]
    page.click("summary")
    page.click("label.tabbed-label >> text=Second")
    for k, title in enumerate(TITLES):
        page.evaluate(f"{figs}[{k}].scrollIntoView({{block: 'center'}})")
        page.evaluate("posecode.frame()")
        state = page.evaluate(f"""(() => {{ const f = {figs}[{k}]; const s = f.sample();
            return {{w: f.canvas.width, h: f.canvas.height, box: Math.round(f.getBoundingClientRect().width),
                     live: f.view.dataset.state, head: !!(s && s.bones && s.bones.head && s.bones.head[1] > 1.3)}}; }})()""")
        assert state["box"] > 200 and state["w"] >= state["box"] - 40, (title, state)
        assert state["live"] == "live" and state["head"], (title, state)
    assert errors == []
    context.close()


def test_closed_blocks_print_open(browser, containers_site):
    """Printed, a closed ``???`` block's text and figure are on the paper (Chromium's
    ``::details-content``, theme print stylesheet): a handout keeps what the page tucked away."""
    import io

    pypdf = pytest.importorskip("pypdf")
    page = browser.new_page()
    page.goto(containers_site + "/page/")
    page.wait_for_load_state("load")
    text = " ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(page.pdf(format="A4"))).pages)
    assert "Hidden." in text and "In details" in text
    page.close()
