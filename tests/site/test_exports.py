"""Exports in the site build (issue 25 item 3; docs/export.md, "In the site build"):
``exports = ["card", "gif"]`` gives exercise pages a social card and a "Download GIF" link.

The browser is replaced here (``site.exports.new_session`` and the two renderers): the cards are
still composed by Pillow and the GIFs encoded by the export command's encoder. The real
Chromium path is playwright_tests/test_site_exports.py."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import read, write_tree

from posecode_ssg.config import ConfigError, load_config
from posecode_ssg.site import exports
from posecode_ssg.site.build import build_site

REPO = Path(__file__).resolve().parents[2]

SQUAT = """posecode exercise "Half squat"
  rig humanoid
  pose start = standing

  step "Down" 1s settle:
    hips: flex 60
    knees: flex 70
    ankles: dorsiflex 10
    ground-lock: feet
    cue "Sit back"

  step "Up" 1s flow:
    hips: flex 0
    knees: flex 0
    ankles: dorsiflex 0
    ground-lock: feet
"""

PAGE = f"""---
title: Half squat
summary: A squat to half depth.
---

# Half squat

```posecode
{SQUAT}```

Keep the heels down.
"""

FILES = {"index.md": "# Library\n", "legs/half-squat.md": PAGE, "legs/about.md": "# About\n\nNo figure here.\n"}

TOML = 'site_name = "Test library"\nbase_url = "https://example.org/lib/"\nexports = ["card", "gif"]\n'


class Meta(HTMLParser):
    def __init__(self, text: str):
        super().__init__()
        self.meta: dict[str, str] = {}
        self.links: list[dict] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content")
        if tag == "a" and "download" in a:
            self.links.append(a)


class FakeSession:
    """Stands for ExportSession: counts the browsers it would start."""

    starts = 0

    def __init__(self, unavailable: str | None = None):
        self.unavailable = unavailable
        self.started = False

    def runtime(self):
        from posecode_ssg.export.core import ExportUnavailable

        if self.unavailable:
            raise ExportUnavailable(self.unavailable)
        if not self.started:
            FakeSession.starts += 1
            self.started = True
        return self

    def close(self):
        pass


def _figure_png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", exports.CARD_FIGURE, (200, 100, 50)).save(buf, format="PNG")
    return buf.getvalue()


def fake_card(session, motion, view, title, site_name):
    session.runtime()
    return exports.compose_card(_figure_png(), title, site_name)


def fake_gif(session, motion, view):
    from PIL import Image

    from posecode_ssg.export.animation import encode_gif, gif_schedule

    session.runtime()
    starts = gif_schedule(float(motion["duration"]), exports.GIF_FPS)
    frames = [Image.new("RGB", exports.GIF_SIZE, (k * 3 % 256, 80, 120)) for k in range(len(starts) - 1)]
    return encode_gif(frames, [b - a for a, b in zip(starts, starts[1:])], loop=0), len(frames)


@pytest.fixture
def fake_browser(monkeypatch):
    FakeSession.starts = 0
    monkeypatch.setattr(exports, "new_session", FakeSession)
    monkeypatch.setattr(exports, "render_card", fake_card)
    monkeypatch.setattr(exports, "render_gif", fake_gif)
    return FakeSession


def _build(tmp_path, toml=TOML, files=FILES):
    write_tree(tmp_path / "content", files)
    (tmp_path / "posecode.toml").write_text(toml, encoding="utf-8")
    config = load_config(None, cwd=tmp_path)
    return build_site(config, progress=False), config


def _asset(config, url: str) -> Path:
    """The output file of a site URL (absolute or a path under /lib/)."""
    path = url.split("example.org", 1)[-1]
    assert path.startswith("/lib/"), url
    return config.output_dir / path[len("/lib/"):]


# ----- configuration --------------------------------------------------------------------------

def test_exports_default_and_values(tmp_path):
    (tmp_path / "posecode.toml").write_text('site_name = "X"\n', encoding="utf-8")
    assert load_config(None, cwd=tmp_path).exports == ()
    (tmp_path / "posecode.toml").write_text('exports = ["gif", "card", "gif"]\n', encoding="utf-8")
    assert load_config(None, cwd=tmp_path).exports == ("card", "gif")


@pytest.mark.parametrize("value, message", [
    ('["cards"]', "unknown export 'cards' in 'exports' (one of card, gif) (did you mean 'card'?)"),
    ('"card"', "'exports' must be an array of strings, got str 'card'"),
    ("[1]", "'exports' must be an array of strings, got int 1 in it"),
])
def test_bad_exports_point_at_their_line(tmp_path, value, message):
    (tmp_path / "posecode.toml").write_text(f'site_name = "X"\n\nexports = {value}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(None, cwd=tmp_path)
    assert info.value.problems == [(3, message)]
    assert str(info.value).startswith(f"{tmp_path / 'posecode.toml'}:3:1: error[config]:")


# ----- the build ------------------------------------------------------------------------------

def test_card_and_gif_link(tmp_path, fake_browser):
    from PIL import Image

    result, config = _build(tmp_path)
    assert not result.errors and not result.warnings, (result.errors, result.warnings)
    assert fake_browser.starts == 1
    page = Meta(read(config.output_dir, "legs/half-squat/index.html"))
    card = page.meta["og:image"]
    assert card.startswith("https://example.org/lib/assets/cards/") and card.endswith(".png")
    assert page.meta["twitter:card"] == "summary_large_image" and page.meta["twitter:image"] == card
    assert page.meta["og:url"] == "https://example.org/lib/legs/half-squat/"
    assert (page.meta["og:image:width"], page.meta["og:image:height"]) == ("1200", "630")
    assert page.meta["og:title"] == "Half squat"
    with Image.open(_asset(config, card)) as img:
        assert img.format == "PNG" and img.size == (1200, 630)
    # the link under the player, its label from the strings table
    [link] = page.links
    assert link["download"] == "half-squat.gif" and link["href"].startswith("/lib/assets/gifs/")
    html = read(config.output_dir, "legs/half-squat/index.html")
    assert "</posecode-figure>\n<p class=\"posecode-download\"><a " in html
    assert ">Download GIF</a>" in html
    with Image.open(_asset(config, link["href"])) as gif:
        assert gif.format == "GIF" and gif.size == (480, 360)
        assert gif.n_frames == 30   # a 2 s loop at 15 fps
    # a page without a figure: neither
    other = Meta(read(config.output_dir, "legs/about/index.html"))
    assert "og:image" not in other.meta and not other.links
    assert "og:image" not in Meta(read(config.output_dir, "index.html")).meta


def test_cached_exports_start_no_browser(tmp_path, fake_browser, monkeypatch):
    result, config = _build(tmp_path)
    assert fake_browser.starts == 1 and result.written
    first = read(config.output_dir, "legs/half-squat/index.html")

    def no_browser():
        raise AssertionError("a cached export started a browser")

    monkeypatch.setattr(exports, "new_session", no_browser)
    # the prose changes (the page is built again), the figure does not
    result, config = _build(tmp_path, files={"legs/half-squat.md": PAGE + "\nMore prose.\n"})
    assert not result.errors and result.written
    second = read(config.output_dir, "legs/half-squat/index.html")
    card, link = Meta(first).meta["og:image"], Meta(first).links[0]["href"]
    assert Meta(second).meta["og:image"] == card and Meta(second).links[0]["href"] == link
    assert _asset(config, card).is_file() and _asset(config, link).is_file()
    # another page with the same figure: the same GIF, still no browser (its card has another title)
    monkeypatch.setattr(exports, "new_session", FakeSession)
    result, config = _build(tmp_path, files={"legs/again.md": PAGE.replace("title: Half squat", "title: Again")})
    assert fake_browser.starts == 2   # the new title's card only
    again = Meta(read(config.output_dir, "legs/again/index.html"))
    assert again.links[0]["href"] == link and again.meta["og:image"] != card


def test_card_needs_a_host(tmp_path, fake_browser):
    toml = 'site_name = "Test library"\nbase_url = "/lib/"\nexports = ["card", "gif"]\n'
    result, config = _build(tmp_path, toml=toml)
    assert not result.errors
    [(path, warning)] = result.warnings
    assert path == tmp_path / "posecode.toml" and warning.line == 2 and warning.code == "exports-card-url"
    assert "no host" in warning.message and "base_url" in (warning.hint or "")
    page = Meta(read(config.output_dir, "legs/half-squat/index.html"))
    assert "og:image" not in page.meta and page.links   # the GIF is still made
    assert not (config.output_dir / "assets" / "cards").exists()


def test_without_a_browser_the_build_fails_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(exports, "new_session", lambda: FakeSession(unavailable="install Chromium: apt-get install chromium"))
    monkeypatch.setattr(exports, "render_card", fake_card)
    monkeypatch.setattr(exports, "render_gif", fake_gif)
    result, config = _build(tmp_path)
    assert not result.written
    [(path, error)] = result.errors
    assert path == tmp_path / "posecode.toml" and error.line == 3 and error.code == "exports-unavailable"
    assert "apt-get install chromium" in error.message and "\n" not in error.message


def test_page_workers_render_the_links(tmp_path, fake_browser, monkeypatch):
    monkeypatch.setenv("POSECODE_PAGE_WORKERS_MIN", "1")
    files = {**FILES, **{f"legs/p{i}.md": PAGE.replace("title: Half squat", f"title: Squat {i}") for i in range(4)}}
    result, config = _build(tmp_path, files=files)
    assert not result.errors
    for i in range(4):
        page = Meta(read(config.output_dir, f"legs/p{i}/index.html"))
        assert page.meta["og:image"].endswith(".png") and page.links


def test_default_build_has_no_card_no_link_and_imports_no_exporter(tmp_path):
    write_tree(tmp_path / "content", FILES)
    (tmp_path / "posecode.toml").write_text('site_name = "T"\nbase_url = "https://example.org/lib/"\n',
                                            encoding="utf-8")
    code = textwrap.dedent(f"""
        import sys
        from posecode_ssg.config import load_config
        from posecode_ssg.site.build import build_site
        result = build_site(load_config(None, cwd={str(tmp_path)!r}), progress=False)
        assert result.written and not result.errors, result.errors
        bad = sorted(m for m in sys.modules if m.startswith(("posecode_ssg.export", "playwright", "PIL")))
        print("IMPORTED", bad)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "IMPORTED []" in out.stdout
    html = read(tmp_path / "site", "legs/half-squat/index.html")
    assert "og:image" not in html and "posecode-download" not in html and "twitter:" not in html
    assert not (tmp_path / "site" / "assets" / "cards").exists()
    assert not (tmp_path / ".posecode-cache" / "exports").exists()
