"""The 3D raster of ``posecode-ssg export`` (issue 25; docs/export.md, "3D, GIF and video"):
frames of the real browser runtime captured from headless Chromium.

:class:`FigureCapture` puts ONE ``<posecode-figure>`` into the session's runtime page
(:class:`~posecode_ssg.export.core.ExportSession`), its view sized exactly W×H CSS px at
device-pixel-ratio 1 (the page's context has ratio 1, so its canvas is W×H pixels) with the player's
controls hidden, and keeps it out of the page's layout (so undrawn) until the first capture: seeks
and ``el.sample()`` calls before it (a site card's search for its poster frame) draw nothing. For
each time ``t`` it calls ``el.seek(t)`` and waits for the stage frame that
draws it (``window.posecode.frame()``, checked with ``el.drawCount``), then composites the figure's
canvas (transparent where there is no floor) over :data:`BACKGROUND` into a W×H 2-D canvas
(mirrored for ``--flip``) and returns it as PNG (``toDataURL``). Frames are captured in batches of
:data:`BATCH` per ``page.evaluate``; a caller may pass ``on_frame`` to decode or encode each frame
while the next batch renders (the wait for Chromium releases the GIL).

The figure's camera is the player's own default framing of the whole loop (orbit.js), in the view
``--view`` names (``side``, ``front``; ``auto``: the player's three-quarter view), so frame after
frame the camera does not move. The colours are the runtime's defaults (docs/runtime.md, themes).

Measured on the 2-core machine (software WebGL, SwiftShader): about 35–60 ms a 480×360 frame,
the drawing itself most of it; Chromium's start about 1–1.7 s.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Callable

from posecode_ssg.export.core import ExportError, atomic_output, frame_time

#: the backdrop behind the 3D scene (the sky; the floor is drawn by the runtime): the player's own
#: default look on a white page (``--pc-view-bg``: 7 % of black text over white)
BACKGROUND = "#ededed"
#: default size of a 3D PNG (16:9, as the 2D PNG; one side given keeps 16:9)
PNG_SIZE = (960, 540)
#: the smallest side an image or video is drawn at (px)
MIN_SIDE = 16
#: the largest side (px): a bigger canvas is beyond what the software WebGL draws in useful time
MAX_SIDE = 4096
#: frames per ``page.evaluate``
BATCH = 6

_HOST = "posecode-export-host"

#: create the figure in its own host (sized, controls hidden), paused; nothing is drawn yet (the
#: first grab draws: a card or a still then costs one software-WebGL frame, not two)
SETUP = """
async ({motion, W, H, view, bg}) => {
  const old = document.getElementById('%(host)s'); if (old) old.remove();
  let st = document.getElementById('%(host)s-style');
  if (!st) { st = document.createElement('style'); st.id = '%(host)s-style'; document.head.appendChild(st); }
  st.textContent = `#%(host)s{position:absolute;left:0;top:0;width:${W}px;margin:0;padding:0}
#%(host)s .pc-view{width:${W}px!important;height:${H}px!important;aspect-ratio:auto!important;max-height:none!important;border-radius:0!important;background:${bg}!important}
#%(host)s .pc-controls,#%(host)s .pc-reset,#%(host)s .pc-rep,#%(host)s .pc-phase-list,#%(host)s .posecode-phases{display:none!important}`;
  // hidden until the first grab: seeks and samples before it (a card's poster search) draw nothing
  const host = document.createElement('div'); host.id = '%(host)s'; host.style.display = 'none';
  document.body.appendChild(host);
  const el = posecodeMount(motion, host, view);
  try { await el.ready; } catch (e) { host.remove(); return { error: String((e && e.message) || e) }; }
  el.pause();
  window.__pcExport = el;
  return { duration: el.duration };
}
""" % {"host": _HOST}

#: seek, wait for the frame that draws it on a W×H canvas (the first one also waits for the
#: ResizeObserver to size the canvas), composite and encode each time of a batch
GRAB = """
async ({times, W, H, bg, flip}) => {
  const el = window.__pcExport, c = el.querySelector('canvas');
  const host = document.getElementById('%(host)s');
  if (host.style.display === 'none') host.style.display = '';
  const o = window.__pcExportOut || (window.__pcExportOut = document.createElement('canvas'));
  if (o.width !== W) o.width = W;
  if (o.height !== H) o.height = H;
  const x = o.getContext('2d');
  const out = [];
  for (const t of times) {
    const before = el.drawCount;
    el.seek(t);
    for (let i = 0; i < 30 && !(el.drawCount !== before && c && c.width === W && c.height === H); i++) {
      await window.posecode.frame();
    }
    if (el.drawCount === before) return { error: `the figure was not drawn at t = ${t}` };
    if (c.width !== W || c.height !== H) return { error: `the runtime drew a ${c.width}×${c.height} canvas, not ${W}×${H}` };
    x.setTransform(1, 0, 0, 1, 0, 0);
    x.fillStyle = bg; x.fillRect(0, 0, W, H);
    if (flip) x.setTransform(-1, 0, 0, 1, W, 0);
    x.drawImage(c, 0, 0);
    out.push(o.toDataURL('image/png'));
  }
  return out;
}
""" % {"host": _HOST}

TEARDOWN = f"() => {{ const h = document.getElementById('{_HOST}'); if (h) h.remove(); window.__pcExport = null; }}"


def check_size(width: int, height: int, what: str = "image") -> None:
    """Refuse a size no exporter can draw (one line: the size and the rule)."""
    if width < MIN_SIDE or height < MIN_SIDE:
        raise ExportError(f"{width}×{height} is too small for a{'n' if what[0] in 'aeiou' else ''} {what}: "
                          f"width and height must be at least {MIN_SIDE} px")
    if width > MAX_SIDE or height > MAX_SIDE:
        raise ExportError(f"{width}×{height} is too large for a{'n' if what[0] in 'aeiou' else ''} {what}: "
                          f"width and height must be at most {MAX_SIDE} px")


def size_of(opts, default: tuple[int, int], aspect: float = 4 / 3) -> tuple[int, int]:
    """(W, H) from ``--width`` / ``--height``: both given, as given; one given, the other from
    ``aspect`` (W / H); neither, ``default``."""
    w, h = opts.width, opts.height
    if w is None and h is None:
        return default
    if h is None:
        return int(w), max(1, int(round(int(w) / aspect)))
    if w is None:
        return max(1, int(round(int(h) * aspect))), int(h)
    return int(w), int(h)


def view_name(opts, doc=None) -> str | None:
    """``side`` or ``front``: ``--view``, else the fence's ``view`` attribute; None for ``auto``."""
    for v in (getattr(opts, "view", None), (getattr(doc, "attrs", None) or {}).get("view")):
        if v in ("side", "front"):
            return v
    return None


def view_attr(opts, doc=None) -> str | None:
    """The runtime's ``data-view`` (:func:`view_name`; None: the player's three-quarter view)."""
    return view_name(opts, doc)


class FigureCapture:
    """One figure of ``motion`` in the session's runtime page, drawn W×H; a context manager.

    ``capture(times, on_frame=None)`` returns the PNG bytes of each time (s) or, with
    ``on_frame(k, png)``, hands each over as it arrives and returns ``[]``. Raises
    :class:`ExportError` when the runtime rejects the motion or a frame is not drawn."""

    def __init__(self, session, motion: dict, width: int, height: int, *, view: str | None = None,
                 flip: bool = False, background: str = BACKGROUND):
        self.session, self.motion = session, motion
        self.width, self.height = int(width), int(height)
        self.view, self.flip, self.background = view, bool(flip), background
        self.page = None
        self.duration = None

    def __enter__(self) -> "FigureCapture":
        rp = self.session.runtime()
        self.page = rp.page
        out = self._eval(SETUP, {"motion": self.motion, "W": self.width, "H": self.height,
                                 "view": self.view, "bg": self.background})
        self.duration = float(out["duration"])
        return self

    def __exit__(self, *exc) -> None:
        if self.page is not None:
            try:
                self.page.evaluate(TEARDOWN)
            except Exception:   # the page is gone (browser closed): nothing to tidy
                pass

    def _eval(self, js: str, arg):
        try:
            out = self.page.evaluate(js, arg)
        except Exception as exc:   # playwright's Error: the page or the runtime failed
            first = str(exc).strip().splitlines()
            raise ExportError(f"the runtime failed: {first[0] if first else type(exc).__name__}") from None
        if isinstance(out, dict) and "error" in out:
            raise ExportError(f"the runtime rejected the document: {out['error']}")
        return out

    def capture(self, times, on_frame: Callable[[int, bytes], None] | None = None) -> list[bytes]:
        times = [float(t) for t in times]
        frames: list[bytes] = []
        k = 0
        for i in range(0, len(times), BATCH):
            urls = self._eval(GRAB, {"times": times[i:i + BATCH], "W": self.width, "H": self.height,
                                     "bg": self.background, "flip": self.flip})
            for url in urls:
                png = base64.b64decode(url.split(",", 1)[1])
                if on_frame is None:
                    frames.append(png)
                else:
                    on_frame(k, png)
                k += 1
        return frames


def capture_frames(session, motion: dict, times, width: int, height: int, *, view: str | None = None,
                   flip: bool = False) -> list[bytes]:
    """PNG bytes of the runtime's figure at each time of ``times`` (s), W×H (see :class:`FigureCapture`)."""
    check_size(width, height)
    with FigureCapture(session, motion, width, height, view=view, flip=flip) as cap:
        return cap.capture(times)


def write_png3d(doc, opts, out: Path, session) -> list[str]:
    """``--format png --renderer 3d``: the runtime's figure at :func:`~posecode_ssg.export.core.frame_time`
    (``--time``, ``--phase``, else the poster's frame), ``--width``×``--height`` (default 960×540;
    one given, the other at 16:9), written atomically. Returns the notes to print."""
    from PIL import Image

    t = frame_time(doc, opts)
    w, h = size_of(opts, PNG_SIZE, 16 / 9)
    check_size(w, h, "image")
    png = capture_frames(session, doc.motion(), [t], w, h, view=view_attr(opts, doc), flip=opts.flip)[0]
    # re-encoded by Pillow: no browser metadata, the same bytes for the same pixels
    img = Image.open(io.BytesIO(png)).convert("RGB")
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    with atomic_output(Path(out)) as tmp:
        tmp.write_bytes(buf.getvalue())
    return [f"wrote {out} ({w}×{h}, 3D, t = {t:.3f} s)"]
