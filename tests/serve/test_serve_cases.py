"""The sv-* bug cases of ../shared/cases/bugs, run against the real site build
(``ProjectSource`` -> ``posecode_ssg.site.build.build_site``) on a live dev
server: each test follows the case's scenario.md and asserts its expected.md.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import httpx
import pytest
from tests.conftest import DEEP_SQUAT_PAGE, shared_path
from serve_helpers import EventLog, raw_get, settle

from posecode_ssg.site.serve import CLIENT_TAG, LiveSite, ServeOptions, ThreadedServer

pytest.importorskip("posecode_ssg.site.build", reason="the site build is not available")
from posecode_ssg.site.serve import ProjectSource  # noqa: E402

FIGURE_JSON = re.compile(
    r'<posecode-figure\b[^>]*>\s*<script type="application/json">(.*?)</script>', re.DOTALL)


class CaseServer:
    """A copy of a case's library/ served live from its own folder (cwd)."""

    def __init__(self, case: str, tmp_path: Path, monkeypatch, on_build=None) -> None:
        self.root = tmp_path / "library"
        shutil.copytree(shared_path("cases", "bugs", case, "library"), self.root)
        self.case_dir = shared_path("cases", "bugs", case)
        monkeypatch.chdir(self.root)
        self.logs: list[str] = []
        self.on_build = on_build

    def start(self) -> "CaseServer":
        self.live = LiveSite(ProjectSource(), options=ServeOptions(), log=self.logs.append)
        self.server = ThreadedServer(self.live)
        self.url = self.server.__enter__()
        self.events = EventLog(self.url, on_build=self.on_build)
        return self

    def stop(self) -> None:
        self.events.close()
        self.server.__exit__(None, None, None)

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=15, follow_redirects=True)


def motions(page_html: str) -> list[dict]:
    """The inline motion JSON of every figure on a page (parsed: it must be complete)."""
    return [json.loads(text) for text in FIGURE_JSON.findall(page_html)]


def rotation_deg(quat: list[float]) -> float:
    """Rotation angle of a unit quaternion [x, y, z, w], in degrees (2·acos|w|)."""
    return math.degrees(2 * math.acos(min(1.0, abs(quat[3]))))


def phase_bone_angle(motion: dict, phase: int, bone: str) -> float:
    """Angle of ``bone``'s local rotation at keyframe ``phase`` (carried forward, per the motion JSON)."""
    quat = motion.get("base", {}).get(bone, [0, 0, 0, 1])
    for item in motion["phases"][: phase + 1]:
        quat = item.get("q", {}).get(bone, quat)
    return rotation_deg(quat)


# --------------------------------------------------------------------------- sv-rebuild-error-keeps-serving


def test_sv_rebuild_error_keeps_serving(tmp_path, monkeypatch):
    case = CaseServer("sv-rebuild-error-keeps-serving", tmp_path, monkeypatch)
    index = case.root / "content" / "index.md"
    original = index.read_text(encoding="utf-8")
    assert original.splitlines()[7] == "    knees: flex 40"
    case.start()
    try:
        good = case.get("")
        assert good.status_code == 200 and len(motions(good.text)) == 1
        # Step 2: break line 8.
        index.write_text(original.replace("    knees: flex 40", "    knees: flx 40"), encoding="utf-8")
        event = case.events.wait_build_after(1, timeout=10)
        (error,) = event["errors"]
        assert error["file"] == os.path.join("content", "index.md")
        assert error["line"] == 8 and "flx" in (error["message"] + error["source"])
        assert error["source"] == "    knees: flx 40"
        terminal = "\n".join(case.logs)
        assert re.search(r"content/index\.md:8:\d+: error", terminal) and "flx" in terminal
        # Expected 1: still running and answering; the page shows its last
        # good version (the overlay in the browser carries the error); the
        # other page is served normally.
        assert case.server._thread.is_alive()
        broken = case.get("")
        assert broken.status_code == 200 and len(motions(broken.text)) == 1
        other = case.get("other/")
        assert other.status_code == 200 and "Plain text, no figure." in other.text
        assert httpx.get(case.url + "__posecode/state").json()["errors"][0]["line"] == 8
        # Step 4: fix it.
        index.write_text(original, encoding="utf-8")
        fixed = case.events.wait_build_after(event["version"], timeout=10)
        assert fixed["errors"] == []
        assert httpx.get(case.url + "__posecode/state").json()["errors"] == []
        (motion,) = motions(case.get("").text)
        assert [p["name"] for p in motion["phases"]] == ["Bend", "Stand"]
        assert phase_bone_angle(motion, 0, "knee_left") == pytest.approx(40, abs=0.5)
        assert "fixed, no errors" in case.logs[-1]
    finally:
        case.stop()
    # Step 5: break it again, start from scratch.
    index.write_text(original.replace("    knees: flex 40", "    knees: flx 40"), encoding="utf-8")
    case.logs.clear()
    case.start()
    try:
        state = httpx.get(case.url + "__posecode/state").json()
        assert len(state["errors"]) == 1 and state["errors"][0]["line"] == 8
        assert re.search(r"content/index\.md:8:\d+: error", "\n".join(case.logs))
        if not ProjectSource.build_keeps_going():
            # The build writes nothing when a page has errors: the server
            # answers with its "not built yet" page, whose client shows the
            # error overlay. Serving other.md needs build_site(keep_going=True).
            page = case.get("other/")
            assert page.status_code == 404 and CLIENT_TAG in page.text and "not been built" in page.text
            pytest.xfail("build_site has no keep_going: a site broken at start is not served until fixed")
        other = case.get("other/")
        assert other.status_code == 200 and "Plain text, no figure." in other.text
        page = case.get("")
        assert page.status_code == 200 and "flx" in page.text  # the build's in-place error box
    finally:
        case.stop()


def test_sv_rebuild_error_build_is_strict(tmp_path, monkeypatch):
    """Step 6: `posecode-ssg build` on the broken tree exits non-zero and names file, line, word."""
    pytest.importorskip("posecode_ssg.commands.build", reason="the build command is not available")
    case = CaseServer("sv-rebuild-error-keeps-serving", tmp_path, monkeypatch)
    index = case.root / "content" / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("knees: flex 40", "knees: flx 40"),
                     encoding="utf-8")
    proc = subprocess.run([os.sys.executable, "-m", "posecode_ssg", "build"], cwd=case.root, text=True,
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert proc.returncode != 0
    assert re.search(r"index\.md:8:\d+", proc.stdout + proc.stderr) and "flx" in proc.stdout + proc.stderr


# --------------------------------------------------------------------------- sv-rapid-saves


def test_sv_rapid_saves(tmp_path, monkeypatch):
    fetched: list[tuple[int, int, str]] = []

    def fetch_now(event):
        response = httpx.get(case.url, timeout=15)
        fetched.append((event["version"], response.status_code, response.text))

    case = CaseServer("sv-rapid-saves", tmp_path, monkeypatch, on_build=fetch_now)
    script = case.case_dir / "write-versions.sh"
    case.start()
    fds: list[int] = []
    threads: list[int] = []
    pool: list[int] = []
    try:
        for burst in range(5):
            builds_before = case.live.builds
            events_before = len(case.events.builds())
            subprocess.run(["bash", str(script)], cwd=case.root, check=True)
            last_write = time.monotonic()
            # Expected 1: within 2 s of the last write the page shows version 10.
            while True:
                motion = motions(case.get("").text)
                if motion and motion[0]["phases"][0]["name"] == "Version 10":
                    break
                assert time.monotonic() - last_write < 2.0, "page did not settle on version 10 within 2 s"
                time.sleep(0.05)
            assert phase_bone_angle(motion[0], 0, "elbow_left") == pytest.approx(100, abs=0.5)
            assert phase_bone_angle(motion[0], 0, "elbow_right") == pytest.approx(100, abs=0.5)
            settle(3.0)
            later = motions(case.get("").text)
            assert later[0]["phases"][0]["name"] == "Version 10", "a later fetch showed an older version"
            # Expected 2: at most 3 rebuilds and 3 notifications per burst.
            assert case.live.builds - builds_before <= 3
            assert len(case.events.builds()) - events_before <= 3
            fds.append(len(os.listdir("/proc/self/fd")))
            # asyncio's default-executor workers ("asyncio_N") start lazily and stay: a bounded
            # pool, counted apart from every other thread
            names = [th.name for th in threading.enumerate()]
            threads.append(sum(not n.startswith("asyncio_") for n in names))
            pool.append(sum(n.startswith("asyncio_") for n in names))
        # Expected 3: every fetch right after a notification was a complete page.
        assert fetched
        for _version, status, text in fetched:
            assert status == 200
            assert text.rstrip().endswith("</html>")
            (motion,) = motions(text)
            assert motion["phases"][0]["name"].startswith("Version ")
        # Expected 4: the burst ends clean (no error left over).
        assert case.events.builds()[-1]["errors"] == []
        # Expected 5: no growth of open files or threads across bursts.
        assert fds[-1] <= fds[0] + 2, fds
        assert threads[-1] <= threads[0] + 1, threads
        assert max(pool) <= min(32, (os.cpu_count() or 1) + 4), pool   # asyncio's default max_workers
    finally:
        case.stop()


# --------------------------------------------------------------------------- sv-unicode-space-paths

DEMI = "Plié drills/demi plié/"
UBER = "über uns/"


def local_links(page_html: str) -> list[str]:
    return [m for m in re.findall(r'(?:href|src)="([^"]*)"', page_html)
            if not re.match(r"^(?:[a-z]+:|#|//)", m)]


def test_sv_unicode_space_paths(tmp_path, monkeypatch):
    case = CaseServer("sv-unicode-space-paths", tmp_path, monkeypatch)
    case.start()
    try:
        for page in (DEMI, UBER, ""):
            encoded = quote(page)
            first = case.get(encoded)
            assert first.status_code == 200, page
            status, raw_body = raw_get(case.url, ("/" + page.replace(" ", "%20")).encode("utf-8"))
            assert status == 200 and raw_body.decode("utf-8") == first.text
            # Every link and asset reference is a valid URL and resolves here.
            base = case.url + encoded
            for link in set(local_links(first.text)):
                assert not re.search(r"[\s\x80-\U0010ffff]", link), f"unencoded URL {link!r} on {page!r}"
                target = urljoin(base, link)
                if urlsplit(target).path.startswith("/__posecode/"):
                    continue
                assert httpx.get(target.split("#")[0], timeout=15).status_code == 200, (page, link)
        demi = case.get(quote(DEMI)).text
        (motion,) = motions(demi)
        assert motion["name"] == "Demi-plié"
        assert [p["name"] for p in motion["phases"]] == ["Plié", "Étendre"]
        (uber,) = motions(case.get(quote(UBER)).text)
        assert uber["name"] == "Schulterkreis"
        # Step 3: edit the figure; a rebuild and a live update within 3 s.
        source = case.root / "content" / "Plié drills" / "demi plié.md"
        started = time.monotonic()
        source.write_text(source.read_text(encoding="utf-8").replace("knees: flex 20", "knees: flex 25"),
                          encoding="utf-8")
        event = case.events.wait_build_after(1, timeout=3)
        assert time.monotonic() - started < 3
        changes = event["changes"]
        assert "Plié drills/demi plié/index.html" in (changes["pages"] + list(changes["figures"]))
        (motion,) = motions(case.get(quote(DEMI)).text)
        assert phase_bone_angle(motion, 0, "knee_left") == pytest.approx(25, abs=0.5)
        # Step 4: rename über uns.md and back, no restart.
        uber_src = case.root / "content" / "über uns.md"
        renamed = case.root / "content" / "über uns 2.md"
        os.rename(uber_src, renamed)
        event = case.events.wait_build_after(event["version"], timeout=5)
        assert {"über uns/index.html", "über uns 2/index.html"} <= set(event["changes"]["pages"])
        assert case.get(quote(UBER)).status_code == 404
        assert case.get(quote("über uns 2/")).status_code == 200
        os.rename(renamed, uber_src)
        event = case.events.wait_build_after(event["version"], timeout=5)
        assert case.get(quote(UBER)).status_code == 200
        assert case.get(quote("über uns 2/")).status_code == 404
        assert case.server._thread.is_alive()
        logs = "\n".join(case.logs)
        assert "???" not in logs and "Ã" not in logs
        for path in case.live.out_dir.rglob("*"):
            assert "Ã" not in str(path) and "?" not in path.name
        assert CLIENT_TAG not in (case.live.out_dir / "index.html").read_text(encoding="utf-8")
    finally:
        case.stop()


# --------------------------------------------------------------------------- deletes, links, config (real build)


def test_deleted_page_disappears_and_links_to_it_are_reported(tmp_path, monkeypatch):
    case = CaseServer("sv-rebuild-error-keeps-serving", tmp_path, monkeypatch)
    index_lines = (case.root / "content" / "index.md").read_text(encoding="utf-8").splitlines()
    link_line = next(n for n, line in enumerate(index_lines, start=1) if "(other.md)" in line)
    case.start()
    try:
        assert case.get("other/").status_code == 200
        (case.root / "content" / "other.md").unlink()
        event = case.events.wait_build_after(1, timeout=10)
        assert "other/index.html" in event["changes"]["pages"]
        assert case.get("other/").status_code == 404
        (error,) = event["errors"]
        assert error["file"] == os.path.join("content", "index.md") and error["line"] == link_line
        assert error["code"] == "broken-link" and "other.md" in error["source"]
        assert case.get("").status_code == 200
        # Bring it back: the error clears.
        (case.root / "content" / "other.md").write_text("# Other page\n\nBack again.\n", encoding="utf-8")
        event = case.events.wait_build_after(event["version"], timeout=10)
        assert event["errors"] == [] and "Back again." in case.get("other/").text
    finally:
        case.stop()


def test_config_edit_rebuilds_every_page(tmp_path, monkeypatch):
    case = CaseServer("sv-rebuild-error-keeps-serving", tmp_path, monkeypatch)
    config = case.root / "posecode.toml"
    config.write_text('site_name = "First name"\n', encoding="utf-8")
    case.start()
    try:
        assert "First name" in case.get("other/").text
        tmp = case.root / "posecode.toml.tmp"
        tmp.write_text('site_name = "Second name"\n', encoding="utf-8")
        os.replace(tmp, config)  # an atomic save
        event = case.events.wait_build_after(1, timeout=10)
        assert {"index.html", "other/index.html"} <= set(event["changes"]["pages"])
        assert "Second name" in case.get("other/").text and "Second name" in case.get("").text
        # A broken config is reported like any error and the site stays up.
        config.write_text('site_name = "Third"\nsite_nme = "typo"\n', encoding="utf-8")
        event = case.events.wait_build_after(event["version"], timeout=10)
        (error,) = event["errors"]
        assert error["file"] == "posecode.toml" and error["line"] == 2 and "site_nme" in error["message"]
        assert "Second name" in case.get("other/").text
        config.write_text('site_name = "Third"\n', encoding="utf-8")
        event = case.events.wait_build_after(event["version"], timeout=10)
        assert event["errors"] == [] and "Third" in case.get("other/").text
    finally:
        case.stop()


def test_editor_files_never_trigger_builds_or_become_pages(tmp_path, monkeypatch):
    case = CaseServer("sv-rebuild-error-keeps-serving", tmp_path, monkeypatch)
    content = case.root / "content"
    case.start()
    try:
        pages = sorted(p.relative_to(case.live.out_dir).as_posix() for p in case.live.out_dir.rglob("*.html"))
        builds = case.live.builds
        # Vim, Emacs, JetBrains and generic temp/backup names, as editors write them on save.
        for name in [".index.md.swp", "index.md~", "#index.md#", ".#index.md", "4913", "index.md.bak",
                     "index.md___jb_tmp___", "other.md.tmp"]:
            (content / name).write_text("# Not a page\n", encoding="utf-8")
        settle(1.0)
        assert case.live.builds == builds and case.events.builds() == []
        # A vim-style atomic save: write a swap file, rename it over the page.
        swap = content / ".other.md.swp"
        swap.write_text("# Other page\n\nSaved by rename.\n", encoding="utf-8")
        os.replace(swap, content / "other.md")
        event = case.events.wait_build_after(1, timeout=10)
        assert "Saved by rename." in case.get("other/").text
        after = sorted(p.relative_to(case.live.out_dir).as_posix() for p in case.live.out_dir.rglob("*.html"))
        assert after == pages, "an editor file became a page"
        assert event["errors"] == []
    finally:
        case.stop()


# --------------------------------------------------------------------------- hints in the terminal



def test_serve_prints_build_hints_once(tmp_path, monkeypatch):
    """A hint (kinematic-balance: advice that never fails a build) is printed in the dev server's
    terminal as ``posecode-ssg build`` prints it, once; the browser overlay stays for errors."""
    root = tmp_path / "library"
    (root / "content").mkdir(parents=True)
    (root / "posecode.toml").write_text('site_name = "Hints"\n', encoding="utf-8")
    index = root / "content" / "index.md"
    index.write_text(DEEP_SQUAT_PAGE, encoding="utf-8")
    monkeypatch.chdir(root)
    logs: list[str] = []
    live = LiveSite(ProjectSource(), options=ServeOptions(), log=logs.append)
    server = ThreadedServer(live)
    url = server.__enter__()
    events = EventLog(url)
    try:
        # the squat's centre of mass falls behind its heels at the end of 'Down' (line 8)
        said = [line for line in logs if "hint[kinematic-balance]" in line]
        assert len(said) == 1 and re.search(r"content/index\.md:8:\d+: hint\[kinematic-balance\]: .*behind the heels", said[0])
        assert httpx.get(url + "__posecode/state").json()["errors"] == []
        # an edit elsewhere on the page: the same hint is not printed again
        index.write_text(DEEP_SQUAT_PAGE.replace("# Deep squat", "# A deep squat"), encoding="utf-8")
        events.wait_build_after(1, timeout=15)
        assert len([line for line in logs if "hint[kinematic-balance]" in line]) == 1
    finally:
        events.close()
        server.__exit__(None, None, None)
