"""Watch -> build -> notify behaviour of the dev server, with a stand-in build
(tests/serve/serve_standin.py) so these tests isolate the server: edits,
figure swaps, errors kept out of the served site, atomic saves, editor temp
files, creates/deletes/renames, config and theme edits, save bursts, a build
that crashes. The same behaviours against the real build are in
test_serve_cases.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest
from serve_helpers import EventLog, settle
from serve_standin import StandInSource

from posecode_ssg.site.serve import BuildReport, LiveSite, ServeOptions, ThreadedServer

FIGURE_PAGE = """# Knee drill

```posecode
posecode exercise "Knee bend"
  rig humanoid
  step "Bend" 1.5s settle:
    knees: flex 40
```

See also the other page.
"""


class Project:
    """A running dev server over a small content tree, with an SSE log."""

    def __init__(self, root: Path, source=None) -> None:
        self.root = root
        self.content = root / "content"
        (self.content / "sub").mkdir(parents=True)
        (root / "theme").mkdir()
        (root / "theme" / "style.css").write_text("body { color: black }\n")
        (root / "posecode.toml").write_text('title = "First"\n')
        (self.content / "index.md").write_text(FIGURE_PAGE, encoding="utf-8")
        (self.content / "other.md").write_text("# Other page\n\nPlain text, no figure.\n", encoding="utf-8")
        self.source = source or StandInSource(root)
        self.logs: list[str] = []
        self.live = LiveSite(self.source, out_dir=root / ".serve" / "site",
                             options=ServeOptions(debounce_ms=300, step_ms=30), log=self.logs.append)
        self.server = ThreadedServer(self.live)

    def __enter__(self) -> "Project":
        self.url = self.server.__enter__()
        self.events = EventLog(self.url)
        return self

    def __exit__(self, *exc) -> None:
        self.events.close()
        self.server.__exit__(*exc)

    def get(self, path: str = "") -> httpx.Response:
        return httpx.get(self.url + path, timeout=10, follow_redirects=True)

    def edit(self, rel: str, old: str, new: str) -> None:
        path = self.content / rel
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


@pytest.fixture
def project(tmp_path):
    with Project(tmp_path) as proj:
        yield proj


def test_text_edit_reloads_that_page_only(project):
    project.edit("other.md", "Plain text", "Changed text")
    event = project.events.wait_build_after(1)
    assert event["changes"]["pages"] == ["other/index.html"]
    assert event["changes"]["figures"] == {} and not event["changes"]["reloadAll"]
    assert "Changed text" in project.get("other/").text


def test_figure_edit_is_swapped_in_place(project):
    project.edit("index.md", "flex 40", "flex 55")
    event = project.events.wait_build_after(1)
    assert event["changes"]["pages"] == []
    (swap,) = event["changes"]["figures"]["index.html"]
    assert swap["id"] == "fig-1" and "flex 55" in swap["html"]
    assert "flex 55" in project.get().text


def test_error_shows_keeps_last_good_and_clears_on_fix(project):
    good = project.get().text
    project.edit("index.md", "knees: flex 40", "knees: flx 40")
    event = project.events.wait_build_after(1)
    (error,) = event["errors"]
    assert error["file"].endswith("index.md") and error["line"] == 7 and error["column"] == 12
    assert error["source"] == "    knees: flx 40" and error["hint"] == "did you mean 'flex'?"
    # The page keeps its last good version; the other page is unaffected.
    assert project.get().text == good
    assert "Plain text" in project.get("other/").text
    assert httpx.get(project.url + "__posecode/state").json()["errors"][0]["line"] == 7
    # The terminal shows the same diagnostic.
    text = "\n".join(project.logs)
    assert "index.md:7:12: error[unknown-action]: unknown action 'flx'" in text
    assert "hint: did you mean 'flex'?" in text
    version = event["version"]
    project.edit("index.md", "knees: flx 40", "knees: flex 45")
    fixed = project.events.wait_build_after(version)
    assert fixed["errors"] == []
    assert "flex 45" in project.get().text
    assert "fixed, no errors" in project.logs[-1]


def test_atomic_save_by_rename_is_seen_every_time(project):
    path = project.content / "other.md"
    version = 1
    for n in range(3):
        tmp = project.content / f".other.md.tmp{n}"
        tmp.write_text(f"# Other page\n\nAtomic {n}\n", encoding="utf-8")
        os.replace(tmp, path)
        version = project.events.wait_for(
            lambda e, v=version: e["type"] == "build" and e["version"] > v)["version"]
        assert f"Atomic {n}" in project.get("other/").text


def test_editor_temp_and_backup_files_never_build_or_become_pages(project):
    builds = project.live.builds
    for name in [".index.md.swp", "index.md~", "#index.md#", "4913", "index.md.bak", "index.md.tmp"]:
        (project.content / name).write_text("# Junk\n", encoding="utf-8")
    settle(0.8)
    assert project.live.builds == builds
    assert project.events.builds() == []
    listing = {p.relative_to(project.live.out_dir).as_posix() for p in project.live.out_dir.rglob("*.html")}
    assert listing == {"index.html", "other/index.html"}


def test_create_delete_rename_files_and_folders(project):
    (project.content / "sub" / "new page.md").write_text("# New\n\nFresh.\n", encoding="utf-8")
    event = project.events.wait_build_after(1)
    assert "sub/new page/index.html" in event["changes"]["pages"]
    assert project.get("sub/new%20page/").status_code == 200
    v = event["version"]
    os.rename(project.content / "sub", project.content / "moved")
    event = project.events.wait_build_after(v)
    assert set(event["changes"]["pages"]) == {"sub/new page/index.html", "moved/new page/index.html"}
    assert project.get("sub/new%20page/").status_code == 404
    assert project.get("moved/new%20page/").status_code == 200
    v = event["version"]
    (project.content / "other.md").unlink()
    event = project.events.wait_build_after(v)
    assert event["changes"]["pages"] == ["other/index.html"]
    assert project.get("other/").status_code == 404


def test_config_edit_reloads_config_and_rebuilds_everything(project):
    assert project.source.reloads == 0
    (project.root / "posecode.toml").write_text('title = "Second"\n')
    event = project.events.wait_build_after(1)
    assert project.source.reloads == 1
    assert set(event["changes"]["pages"]) == {"index.html", "other/index.html"}
    assert "<title>Second</title>" in project.get("other/").text


def test_config_atomic_save_is_seen(project):
    tmp = project.root / "posecode.toml.tmp"
    tmp.write_text('title = "Third"\n')
    os.replace(tmp, project.root / "posecode.toml")
    project.events.wait_build_after(1)
    assert "<title>Third</title>" in project.get().text


def test_theme_asset_edit_reloads_every_tab(project):
    (project.root / "theme" / "style.css").write_text("body { color: red }\n")
    event = project.events.wait_build_after(1)
    assert event["changes"]["reloadAll"] is True
    assert "red" in project.get("style.css").text


def test_burst_of_saves_is_coalesced_and_newest_wins(project):
    path = project.content / "index.md"
    for n in range(1, 11):
        path.write_text(FIGURE_PAGE.replace("flex 40", f"flex {n * 10}").replace('"Bend"', f'"Version {n}"'),
                        encoding="utf-8")
        time.sleep(0.02)
    project.events.wait_for(lambda e: e["type"] == "build" and not e["errors"]
                            and "Version 10" in project.get().text, timeout=5)
    settle(1.0)
    builds = project.events.builds()
    assert 1 <= len(builds) <= 3, [b["version"] for b in builds]
    assert project.source.builds - 1 <= 3
    assert "Version 10" in project.get().text and "flex 100" in project.get().text


def test_a_crashing_build_does_not_end_the_server(tmp_path):
    class Flaky(StandInSource):
        crash = False

        def build(self, out_dir: Path) -> BuildReport:
            if self.crash:
                raise RuntimeError("theme template exploded")
            return super().build(out_dir)

    source = Flaky(tmp_path)
    with Project(tmp_path, source=source) as project:
        good = project.get().text
        source.crash = True
        project.edit("index.md", "flex 40", "flex 41")
        event = project.events.wait_build_after(1)
        assert event["crashed"] == "RuntimeError: theme template exploded"
        assert event["errors"][0]["message"] == "theme template exploded"
        assert project.get().text == good
        source.crash = False
        project.edit("index.md", "flex 41", "flex 42")
        event = project.events.wait_build_after(event["version"])
        assert event["errors"] == [] and "flex 42" in project.get().text


def test_terminal_shows_new_warnings_once(tmp_path):
    from posecode_ssg.site.serve import Problem

    class Warns(StandInSource):
        def build(self, out_dir: Path) -> BuildReport:
            report = super().build(out_dir)
            for path in sorted(self.content.rglob("*.md")):
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                    if "flex 1" in line and "flex 1." not in line:
                        report.warnings.append(Problem.at(path, line=number, column=12, severity="warning",
                                                          code="rom-clamp", message="clamped to 150"))
            return report

    with Project(tmp_path, source=Warns(tmp_path)) as project:
        project.edit("index.md", "flex 40", "flex 170")
        event = project.events.wait_build_after(1)
        project.edit("other.md", "Plain text", "Other text")
        project.events.wait_build_after(event["version"])
        lines = [line for line in project.logs if "warning[rom-clamp]" in line]
        assert len(lines) == 1 and "index.md:7:12: warning[rom-clamp]: clamped to 150" in lines[0]
