"""Sampling the real browser runtime: one headless Chromium page holding the built runtime
bundle (``posecode_ssg/runtime/dist/posecode-runtime.js``) and ``rig.json``, served from memory
through Playwright's request routing; per document one ``page.evaluate`` creates a
``<posecode-figure>``, waits for ``el.ready``, then ``el.seek(t)`` + ``el.sample()`` at every
requested time (docs/runtime.md, test hooks) and returns the packed arrays.

Sample times (:func:`sample_times`): every ``1/hz`` s from 0 over one whole loop **plus the first
segment again** (up to 1 ms before its end), so contacts held across the loop seam are followed through it; and, at every
keyframe (segment boundary, the seam included), the keyframe itself and ±1, ±2 ``KEY_PROBE``
(1 ms) around it for the angular-velocity continuity metric.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from posecode_ssg.evaluate.browser import start_browser

RUNTIME_BUNDLE = Path(__file__).resolve().parents[1] / "runtime" / "dist" / "posecode-runtime.js"
#: seconds either side of a keyframe for the finite-difference velocities
KEY_PROBE = 1e-3
ORIGIN = "http://posecode-eval.invalid"


class RuntimeMissing(RuntimeError):
    """The runtime bundle has not been built (needs Node.js: ``pip install -e .`` or
    ``npm ci && npm run build``)."""


@dataclass
class Timing:
    """Segment boundaries of a motion document's loop (seconds): ``times[k]`` is keyframe k
    (K0 = 0, one per phase end, then the loop end ``duration``); ``modes[s]`` the timing mode of
    segment s (the wrap segment is ``flow``); ``wrap`` its length (0: no wrap segment)."""

    times: list[float]
    modes: list[str]
    names: list[str]
    wrap: float
    duration: float

    @classmethod
    def of(cls, motion: dict[str, Any]) -> "Timing":
        """From motion JSON (docs/motion-json.md: ``phases[].d``, ``m``, ``wrap``)."""
        times, t = [0.0], 0.0
        for ph in motion["phases"]:
            t += float(ph["d"])
            times.append(t)
        wrap = float(motion.get("wrap") or 0.0)
        modes = [str(ph["m"]) for ph in motion["phases"]]
        names = [str(ph["name"]) for ph in motion["phases"]]
        if wrap > 0:
            times.append(t + wrap)
            modes.append("flow")
            names.append("wrap")
        return cls(times, modes, names, wrap, times[-1])


def sample_times(timing: Timing, hz: float) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Sorted sample times over ``[0, duration + first segment)`` and, per keyframe index k
    (0 … number of segments; the last one is the seam, measured at ``duration``), ``(k, i)`` with
    ``i`` the index of the keyframe's own sample; ``i ± 1`` and ``i ± 2`` are its probes at ±1 and
    ±2 ``KEY_PROBE``. K0 at t = 0 has no left side and is measured at the seam."""
    d0 = timing.times[1] - timing.times[0]
    # the extended range ends just before the second start of phase 2, so its last run is the
    # first segment's whole second occurrence
    end = timing.duration + d0 - KEY_PROBE
    n = int(math.floor(end * hz + 1e-9))
    grid = [i / hz for i in range(n + 1)]
    keys = list(timing.times[:-1]) + [timing.duration]
    probes = []
    for b in keys:
        probes += [b + j * KEY_PROBE for j in (-2, -1, 0, 1, 2)]
    probes.append(end)
    all_t = np.array(sorted(set(round(x, 9) for x in grid + probes if 0 <= x <= end + 1e-12)))
    # grid points falling between a keyframe's probes would break their even spacing
    near = np.zeros(len(all_t), bool)
    for b in keys:
        near |= (np.abs(all_t - b) < 2.5 * KEY_PROBE) & ~np.isclose((all_t - b) / KEY_PROBE,
                                                                    np.round((all_t - b) / KEY_PROBE), atol=1e-4)
    all_t = all_t[~near]
    key_index = []
    for k, b in enumerate(keys):
        i = int(np.argmin(np.abs(all_t - b)))
        if 2 <= i < len(all_t) - 2 and np.allclose(np.diff(all_t[i - 2:i + 3]), KEY_PROBE, atol=1e-7):
            key_index.append((k, i))
    return all_t, key_index


@dataclass
class Samples:
    """The sampled runtime of one document (world metres, Y up).

    ``t`` (N,) seconds (unwrapped: past ``duration`` the loop has started again); ``phase`` (N,)
    the runtime's phase index (−1 in the wrap); ``segment`` (N,); ``bones`` names with ``pos``
    (N, B, 3), ``local`` (N, B, 4) solved local quaternions [x, y, z, w] and ``orient`` (N, B, 4)
    world quaternions; ``landmarks`` names with ``lm`` (N, L, 3); ``yaw`` (N,) degrees and
    ``travel`` (N, 2) metres (the choreography frame); ``keys`` [(k, i)] keyframe sample
    indices; ``warnings`` the runtime's distinct warnings ``{code, message, t}``."""

    t: np.ndarray
    phase: np.ndarray
    segment: np.ndarray
    bones: list[str]
    pos: np.ndarray
    local: np.ndarray
    orient: np.ndarray
    landmarks: list[str]
    lm: np.ndarray
    yaw: np.ndarray
    travel: np.ndarray
    keys: list[tuple[int, int]]
    timing: Timing
    warnings: list[dict[str, Any]] = field(default_factory=list)

    def bone(self, name: str) -> np.ndarray:
        """(N, 3) world positions of one bone joint."""
        return self.pos[:, self.bones.index(name)]

    def landmark(self, name: str) -> np.ndarray:
        """(N, 3) world positions of one landmark."""
        return self.lm[:, self.landmarks.index(name)]


#: ``posecodeMount(motion, host, view)`` in the runtime page: a ``<posecode-figure>`` holding the
#: motion JSON inline (its ``data-view`` when given), appended to ``host`` (default ``#host``, else
#: the body) and returned; the page's scripts (this probe, export's) await its ``ready`` themselves
MOUNT_JS = """
window.posecodeMount = (motion, host, view) => {
  const el = document.createElement('posecode-figure');
  if (view) el.dataset.view = view;
  const script = document.createElement('script');
  script.type = 'application/json';
  script.textContent = JSON.stringify(motion);
  el.appendChild(script);
  (host || document.getElementById('host') || document.body).appendChild(el);
  return el;
};
"""

#: the probe run in the page for one document: returns packed Float64 arrays (base64)
PROBE = """
async ({motion, times}) => {
  const b64 = (a) => { const u = new Uint8Array(a.buffer); let s = '';
    for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
    return btoa(s); };
  const el = posecodeMount(motion);
  try { await el.ready; } catch (e) { el.remove(); return { error: String((e && e.message) || e) }; }
  const first = el.sample();
  const bones = Object.keys(first.bones), lms = Object.keys(first.landmarks);
  const n = times.length, B = bones.length, L = lms.length;
  const P = new Float64Array(n * B * 3), LQ = new Float64Array(n * B * 4), WQ = new Float64Array(n * B * 4);
  const LM = new Float64Array(n * L * 3), F = new Float64Array(n * 5);
  const seen = new Map();
  for (let i = 0; i < n; i++) {
    el.seek(times[i]);
    const s = el.sample();
    for (let b = 0; b < B; b++) {
      const id = bones[b], p = s.bones[id], l = s.local[id], w = s.orientation[id];
      P.set(p, (i * B + b) * 3); LQ.set(l, (i * B + b) * 4); WQ.set(w, (i * B + b) * 4);
    }
    for (let m = 0; m < L; m++) LM.set(s.landmarks[lms[m]], (i * L + m) * 3);
    F[i * 5] = s.phase; F[i * 5 + 1] = s.segment; F[i * 5 + 2] = s.frame.yaw;
    F[i * 5 + 3] = s.frame.travel[0]; F[i * 5 + 4] = s.frame.travel[1];
    for (const w of s.warnings) {
      if (w.code === 'contact-residual') continue;   // measured by the harness itself
      const key = w.code + '\\u0000' + w.message;
      if (!seen.has(key)) seen.set(key, { code: w.code, message: w.message, t: times[i] });
    }
  }
  const duration = el.duration;
  el.remove();
  return { bones, lms, duration, P: b64(P), LQ: b64(LQ), WQ: b64(WQ), LM: b64(LM), F: b64(F),
           warnings: Array.from(seen.values()) };
}
"""


class RuntimePage:
    """A headless Chromium page with the runtime loaded; use as a context manager.

    Raises :class:`~posecode_ssg.evaluate.browser.BrowserUnavailable` when no browser can be
    started and :class:`RuntimeMissing` when the bundle is not built. ``browser``: a Playwright
    browser already running (a test session's), in which the page opens a context of its own and
    which it leaves open; default: a headless Chromium of its own."""

    def __init__(self, rig: dict[str, Any] | None = None, browser=None):
        if not RUNTIME_BUNDLE.exists():
            raise RuntimeMissing(f"the runtime bundle {RUNTIME_BUNDLE} is not built; run "
                                 "`pip install -e .` (needs Node.js) or `npm ci && npm run build`")
        from posecode_ssg.motion.rigjson import rig_json

        self.rig = rig if rig is not None else rig_json()
        self._files = {
            "/assets/posecode-runtime.js": (RUNTIME_BUNDLE.read_bytes(), "text/javascript"),
            "/assets/rig.json": (json.dumps(self.rig, separators=(",", ":")).encode(), "application/json"),
            "/index.html": (PAGE.encode(), "text/html"),
        }
        self._pw = self._browser = self.page = self._context = None
        self._given = browser
        self.problems: list[str] = []

    def __enter__(self) -> "RuntimePage":
        if self._given is None:
            self._pw, self._browser = start_browser()
        try:
            ctx = (self._given or self._browser).new_context(viewport={"width": 400, "height": 300})
            self._context = ctx
            page = ctx.new_page()
            page.route(f"{ORIGIN}/**", self._serve)
            page.on("pageerror", lambda exc: self.problems.append(f"pageerror: {exc}"))
            page.goto(f"{ORIGIN}/index.html")
            page.wait_for_function("() => !!customElements.get('posecode-figure')")
            page.evaluate(MOUNT_JS)
            self.page = page
        except Exception:
            self.__exit__(None, None, None)
            raise
        return self

    def _serve(self, route) -> None:
        path = route.request.url[len(ORIGIN):].split("?")[0]
        if path in self._files:
            body, ctype = self._files[path]
            route.fulfill(status=200, body=body, content_type=ctype)
        else:
            route.fulfill(status=404, body=b"", content_type="text/plain")

    def __exit__(self, *exc) -> None:
        if self._given is not None and self._context is not None:
            self._context.close()
        self._context = None
        if self._browser is not None:
            self._browser.close()
        if self._pw is not None:
            self._pw.stop()
        self._browser = self._pw = None

    def sample(self, motion: dict[str, Any], hz: float) -> Samples:
        """Sample one motion document at ``hz`` (see the module docstring).

        Raises ``ValueError`` with the runtime's message when the figure rejects the data or the
        page fails while sampling."""
        timing = Timing.of(motion)
        t, keys = sample_times(timing, hz)
        try:
            out = self.page.evaluate(PROBE, {"motion": motion, "times": t.tolist()})
        except Exception as exc:   # a page error or crash inside the runtime (playwright's Error)
            text = str(exc).strip().splitlines()
            raise ValueError(text[0] if text else type(exc).__name__) from None
        if "error" in out:
            raise ValueError(out["error"])
        n, B, L = len(t), len(out["bones"]), len(out["lms"])

        def arr(key, *shape):
            return np.frombuffer(base64.b64decode(out[key]), dtype="<f8").reshape(n, *shape)

        F = arr("F", 5)
        return Samples(t=t, phase=F[:, 0].astype(int), segment=F[:, 1].astype(int), bones=out["bones"],
                       pos=arr("P", B, 3), local=arr("LQ", B, 4), orient=arr("WQ", B, 4),
                       landmarks=out["lms"], lm=arr("LM", L, 3), yaw=F[:, 2], travel=F[:, 3:5],
                       keys=keys, timing=timing, warnings=out["warnings"])


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>posecode-ssg eval</title>
<link rel="icon" href="data:,">
<meta name="posecode-rig" content="/assets/rig.json">
<script type="module" src="/assets/posecode-runtime.js"></script>
</head><body><div id="host"></div></body></html>
"""
