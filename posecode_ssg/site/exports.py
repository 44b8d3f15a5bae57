"""Exports in the site build (issue 25 item 3; docs/export.md, "In the site build"):
``exports = ["card", "gif"]`` in ``posecode.toml``.

- ``card``: every exercise page (a non-index page with a figure) gets a 1200×630 PNG social card
  (``og:image``, ``twitter:card``; ``partials/social.html``): its card figure (the first with a
  poster, :func:`~posecode_ssg.site.cards.card_figure`) drawn by the real runtime at its poster
  frame (the pose farthest from the start, as the SVG poster), the page title and the site name
  drawn with Pillow beside it. ``og:image`` must be absolute: without a ``base_url`` with a host
  the build warns (naming ``posecode.toml``) and makes no card.
- ``gif``: every figure of those pages gets a GIF of one loop (480×360, 15 fps: ``posecode-ssg
  export --format gif``'s defaults) and a "Download GIF" link under its player
  (:func:`download_html`, an ``<a download>``).

Both are cached as files in ``<cache_dir>/exports/``, named by a hash of the figure key (which
holds the source, the figure options and the compiler), the export's options (the card's title
and site name), the runtime bundle and the exporters' code (:func:`export_fingerprint`): an
unchanged figure costs a ``stat`` and starts no browser. The site gets them as assets
(``assets/cards/<hash>.png``, ``assets/gifs/<hash>.gif``, hard-linked from the cache).

Only what is missing starts the ONE headless Chromium of :class:`~posecode_ssg.export.core.ExportSession`
(:func:`new_session`). Without Playwright or Chromium the build fails with one line naming what to
install (as Hugo and MkDocs Material's social plugin stop when a configured feature's tool is
missing), unless every export is cached.

This module imports nothing of the export package or Playwright at import time: the build imports
it always, and a build with ``exports = []`` never calls it.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from posecode_ssg.site.cards import card_figure
from posecode_ssg.site.digest import sha
from posecode_ssg.site.strings import UI

#: bump to remake every cached card and GIF
EXPORT_VERSION = 1
#: the social card (the size Open Graph and X/Twitter's summary_large_image show unscaled)
CARD_SIZE = (1200, 630)
#: the figure's part of the card: the right half, full height
CARD_FIGURE = (600, 630)
#: the card's colours: the text panel, the title, the site name (the figure's backdrop is the
#: runtime's, ``raster3d.BACKGROUND``)
CARD_PANEL = (255, 255, 255)
CARD_TITLE = (26, 26, 26)
CARD_SITE = (96, 96, 96)
#: the GIF of each figure: ``posecode-ssg export --format gif``'s defaults
GIF_SIZE = (480, 360)
GIF_FPS = 15.0
#: the folder of the cached exports, in the cache folder
EXPORT_DIR = "exports"

_PACKAGE = Path(__file__).resolve().parent.parent
#: the exporters' code: a change remakes the exports (and the pages that link them)
_EXPORT_CODE = ("export/raster3d.py", "export/animation.py", "site/exports.py")


@lru_cache(maxsize=1)
def export_fingerprint() -> str:
    """Hash of the exporters' code and :data:`EXPORT_VERSION` (part of every export key and, with
    exports on, of the build's fingerprint)."""
    digest = hashlib.sha256(f"exports/{EXPORT_VERSION}".encode())
    for rel in _EXPORT_CODE:
        path = _PACKAGE / rel
        digest.update(rel.encode())
        digest.update(path.read_bytes() if path.is_file() else b"absent")
    return digest.hexdigest()[:16]


def export_key(salt: str, kind: str, figure_key: str, options: list) -> str:
    """The cache key of one export: ``salt`` (exporters' code + runtime bundle), the kind, the
    figure's key and the export's options."""
    return sha(json.dumps([salt, kind, figure_key, options], ensure_ascii=False).encode("utf-8"))


def new_session():
    """The export session the build's exports render in (tests replace it)."""
    from posecode_ssg.export.core import ExportSession

    return ExportSession()


def download_html(link: dict) -> str:
    """The "Download GIF" link under a player: ``link`` ``{url, name}`` (the URL and the file
    name the browser saves it as)."""
    from html import escape

    return (f'<p class="posecode-download"><a href="{escape(link["url"])}" download="{escape(link["name"])}" '
            f'type="image/gif">{escape(UI["figure.download_gif"])}</a></p>\n')


# ----- rendering (Chromium + Pillow) ----------------------------------------------------------

#: the runtime's pose at each time (raster3d's figure, set up by ``FigureCapture``): joints and the
#: timeline's turn and travel (``el.sample()``, docs/runtime.md)
POSES = """
async ({times}) => {
  const el = window.__pcExport, out = [];
  for (const t of times) { el.seek(t); const s = el.sample(); out.push({ bones: s.bones, frame: s.frame }); }
  return out;
}
"""


def key_times(motion: dict) -> list[float]:
    """The start (0) and each phase's end (s) of a motion JSON."""
    out, t = [0.0], 0.0
    for phase in motion.get("phases") or []:
        t += float(phase.get("d") or 0.0)
        out.append(t)
    return out


def poster_index(samples: list[dict]) -> int:
    """Index of the sample farthest from the first (the poster's pose: motion/view.py
    ``primary_index``'s score, over the runtime's joints with the turn and travel removed; within
    ``POSE_TIE_M`` of the best the first is kept)."""
    import numpy as np

    from posecode_ssg.motion.rotation import rot_y
    from posecode_ssg.motion.view import BONES, POSE_TIE_M

    def facing(sample):
        frame = sample.get("frame") or {}
        tx, tz = (frame.get("travel") or (0.0, 0.0))[:2]
        names = [b for b in BONES if b in sample["bones"]]
        P = np.array([sample["bones"][b] for b in names], float) - np.array([tx, 0.0, tz])
        return dict(zip(names, (P @ rot_y(-float(frame.get("yaw") or 0.0)).T)))

    base = facing(samples[0])
    best, best_i = 0.0, 0
    for i, sample in enumerate(samples[1:], 1):
        pts = facing(sample)
        score = sum(math.dist(pts[b], base[b]) for b in base if b in pts)
        if score > best + POSE_TIE_M:
            best, best_i = score, i
    return best_i


@lru_cache(maxsize=8)
def _font(px: int):
    from posecode_ssg.motion.posterpng import label_font

    return label_font(px)


def _wrap(draw, text: str, font, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=font) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]


def compose_card(figure_png: bytes, title: str, site_name: str) -> bytes:
    """The 1200×630 card: the figure's picture (``figure_png``, :data:`CARD_FIGURE`) on the right,
    the title (wrapped, up to four lines, smaller when long) and the site name on the left."""
    from PIL import Image, ImageDraw

    W, H = CARD_SIZE
    fw, fh = CARD_FIGURE
    card = Image.new("RGB", CARD_SIZE, CARD_PANEL)
    fig = Image.open(io.BytesIO(figure_png)).convert("RGB")
    if fig.size != CARD_FIGURE:
        fig = fig.resize(CARD_FIGURE)
    card.paste(fig, (W - fw, 0))
    draw = ImageDraw.Draw(card)
    margin = 56
    text_w = W - fw - 2 * margin
    for px in (68, 58, 50, 42, 36):
        font = _font(px)
        lines = _wrap(draw, title, font, text_w)
        if len(lines) <= 4 and all(draw.textlength(line, font=font) <= text_w for line in lines):
            break
    lines = lines[:4]
    while lines and draw.textlength(lines[-1], font=font) > text_w:   # an unbreakable word: cut it
        lines[-1] = lines[-1][:-2] + "…"
    step = int(px * 1.2)
    y = margin
    for line in lines:
        draw.text((margin, y), line, font=font, fill=CARD_TITLE)
        y += step
    small = _font(30)
    name = site_name
    while draw.textlength(name, font=small) > text_w and len(name) > 2:
        name = name[:-2] + "…"
    draw.text((margin, H - margin - 30), name, font=small, fill=CARD_SITE)
    draw.rectangle([margin, H - margin - 52, margin + 72, H - margin - 46], fill=CARD_TITLE)
    buf = io.BytesIO()
    card.save(buf, format="PNG", compress_level=6)
    return buf.getvalue()


def render_card(session, motion: dict, view: str | None, title: str, site_name: str) -> bytes:
    """The PNG card of one figure (``motion``: its motion JSON; ``view``: ``side``/``front``, the
    player's) at its poster frame."""
    from posecode_ssg.export.raster3d import FigureCapture

    with FigureCapture(session, motion, *CARD_FIGURE, view=view) as cap:
        times = key_times(motion)
        t = times[poster_index(cap._eval(POSES, {"times": times}))] if len(times) > 1 else 0.0
        png = cap.capture([t])[0]
    return compose_card(png, title, site_name)


class _Doc:
    """What ``animation.frames_3d`` reads of a document: the motion JSON and the fence's view."""

    def __init__(self, motion: dict, view: str | None):
        self._motion = motion
        self.attrs = {"view": view} if view else {}

    def motion(self) -> dict:
        return self._motion


class _Opts:
    view = None
    flip = False


def render_gif(session, motion: dict, view: str | None) -> tuple[bytes, int]:
    """One loop of the figure as a GIF (:data:`GIF_SIZE`, :data:`GIF_FPS`; the export command's
    timing and palette, posecode_ssg/export/animation.py) and its frame count."""
    from posecode_ssg.export.animation import encode_gif, frames_3d, gif_schedule

    starts = gif_schedule(float(motion.get("duration") or 0.0), GIF_FPS)
    delays = [b - a for a, b in zip(starts, starts[1:])]
    times = [s / 100 for s in starts[:-1]]
    frames: list = [None] * len(times)

    def keep(k, img):
        frames[k] = img

    frames_3d(session, _Doc(motion, view), _Opts(), times, *GIF_SIZE, keep)
    return encode_gif(frames, delays, loop=0), len(frames)


def _store(path: Path, data: bytes) -> None:
    """Write a cached export through a temporary file and a rename (never a partial file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)   # (mkstemp's 0600: a web server must read the site's copy)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def slug(text: str) -> str:
    """A download file name's stem: lower-case ASCII words joined by ``-``."""
    import re
    import unicodedata

    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-") or "movement"


# ----- the build step -------------------------------------------------------------------------

class Exports:
    """The export step of :class:`posecode_ssg.site.build._Build` (only with ``exports``)."""

    def _config_diagnostic(self, severity: str, code: str, message: str, key: str, hint: str | None = None) -> None:
        """An error or warning about ``posecode.toml`` at the line of ``key`` (else ``exports``)."""
        from posecode_ssg.config import CONFIG_NAME, line_of, toml_key_lines
        from posecode_ssg.site.result import Diagnostic

        config = self.config
        path = config.config_path or config.root / CONFIG_NAME
        line = 1
        try:
            lines = toml_key_lines(path.read_text(encoding="utf-8-sig"))
            line = line_of(lines, (key,)) or line_of(lines, ("exports",)) or 1
        except (OSError, UnicodeDecodeError):
            pass
        bucket = self.result.errors if severity == "error" else self.result.warnings
        bucket.append((path, Diagnostic(code=code, severity=severity, line=line, column=1, message=message,
                                        hint=hint)))

    def _make_exports(self) -> None:
        """Cards and GIFs of the exercise pages: from the cache, else rendered (one Chromium); their
        URLs in :attr:`export_urls` (``card``: src_uri -> ``{url, alt, page_url, width, height}``, absolute; ``gif``:
        figure key -> ``{url, name}``) and their files in the site's outputs."""
        config = self.config
        cards_on = "card" in config.exports
        if cards_on and not config.site_url:
            self._config_diagnostic(
                "warning", "exports-card-url",
                f"exports = [\"card\"]: social cards need absolute URLs, but base_url '{config.base_url}' has no "
                "host; no cards were made", "base_url",
                "set base_url in posecode.toml to the site's address, e.g. base_url = \"https://example.org/\"")
            cards_on = False
        gifs_on = "gif" in config.exports
        salt = sha(json.dumps([export_fingerprint(), sha(self.runtime) if self.runtime else None]).encode())[:16]
        folder = config.cache_dir / EXPORT_DIR
        jobs: dict[str, tuple] = {}   # export key -> (kind, figure key, page, payload)
        cards: dict[str, tuple[str, str, str]] = {}   # src_uri -> (export key, alt, page's site path)
        gifs: dict[str, tuple[str, str]] = {}    # figure key -> (export key, file name)
        for page in self.pages:
            rec = self.records.get(page.src_uri)
            if rec is None or page.is_index or not rec["figures"]:
                continue
            first = card_figure(rec)
            if cards_on and first is not None:
                key = export_key(salt, "card", first["key"], [rec["title"], config.site_name, CARD_SIZE, CARD_FIGURE])
                jobs.setdefault(key, ("card", first["key"], page, first, rec["title"]))
                cards[page.src_uri] = (key, UI["card.image_alt"].format(title=rec["title"]), page.url)
            if gifs_on:
                for fig in rec["figures"]:
                    if not fig["poster"] or fig["key"] in gifs:
                        continue
                    key = export_key(salt, "gif", fig["key"], [GIF_SIZE, GIF_FPS])
                    jobs.setdefault(key, ("gif", fig["key"], page, fig, None))
                    gifs[fig["key"]] = (key, slug(fig["title"] or fig["name"] or rec["title"]) + ".gif")
        suffix = {"card": ".png", "gif": ".gif"}
        cached = {key: folder / f"{job[0]}-{key[:32]}{suffix[job[0]]}" for key, job in jobs.items()}
        missing = [key for key in jobs if not cached[key].is_file()]
        if missing and not self._render_exports(jobs, missing, cached):
            return
        site_url = config.site_url
        urls: dict[str, dict] = {"card": {}, "gif": {}}
        for uri, (key, alt, path) in cards.items():
            if cached[key].is_file():
                dest = f"assets/cards/{key[:20]}.png"
                self.outputs[dest] = cached[key]
                urls["card"][uri] = {"url": site_url + self.url(dest), "alt": alt, "page_url": site_url + self.url(path),
                                     "width": CARD_SIZE[0], "height": CARD_SIZE[1]}
        for fkey, (key, name) in gifs.items():
            if cached[key].is_file():
                dest = f"assets/gifs/{key[:20]}.gif"
                self.outputs[dest] = cached[key]
                urls["gif"][fkey] = {"url": self.url(dest), "name": name}
        self.export_urls = urls
        if missing:
            made = [jobs[key][0] for key in missing if cached[key].is_file()]
            self.result.notes.append(f"exports: {made.count('card')} card(s) and {made.count('gif')} GIF(s) made, "
                                     f"{len(jobs) - len(missing)} from the cache ({config.cache_dir / EXPORT_DIR})")

    def _render_exports(self, jobs: dict, missing: list[str], cached: dict) -> bool:
        """Render the ``missing`` exports into the cache in one browser session. False (with an
        error) when no browser can run."""
        from posecode_ssg.export.core import ExportError, ExportUnavailable
        from posecode_ssg.site.progress import progress
        from posecode_ssg.site.result import Diagnostic

        session = new_session()
        try:
            for key in progress(missing, len(missing), "exports", self.progress and len(missing) > 1):
                kind, fkey, page, fig, title = jobs[key]
                figure = self.figures.get(fkey) or self.cache.get(fkey)
                motion = figure.motion if figure is not None else None
                if motion is None:
                    continue
                try:
                    if kind == "card":
                        data = render_card(session, motion, figure.view, title, self.config.site_name)
                    else:
                        data = render_gif(session, motion, figure.view)[0]
                except ExportUnavailable as exc:
                    self._config_diagnostic("error", "exports-unavailable",
                                            f"exports = {list(self.config.exports)} needs a browser: {exc}",
                                            "exports")
                    return False
                except ExportError as exc:
                    self.result.warnings.append((page.src_path, Diagnostic(
                        code="export-failed", severity="warning", line=fig.get("line") or 1, column=1,
                        message=f"the {kind} of figure '{fig.get('name')}' could not be made: {exc}", hint=None)))
                    continue
                _store(cached[key], data)
        finally:
            session.close()
        return True
