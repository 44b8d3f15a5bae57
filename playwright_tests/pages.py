"""Test pages for the browser runtime: HTML following the page contract of <posecode-figure>
(docs/motion-json.md, /posecode_ssg/runtime/posecode-figure.js) built from motion JSON.

``RuntimeSite(root)`` owns a folder served over HTTP: it copies the built runtime bundle and
writes ``rig.json`` (from :func:`posecode_ssg.motion.rig.rig_json`) once, then writes pages made of
figures. Motion JSON comes from the motion compiler (:func:`compiled_example`) or is written by a
test directly (:func:`motion`), which keeps the timeline tests independent of the compiler.
"""

from __future__ import annotations

import html
import http.server
import json
import math
import shutil
from pathlib import Path
from typing import Iterable

import pytest

REPO = Path(__file__).resolve().parents[1]
RUNTIME_DIR = REPO / "posecode_ssg" / "runtime"
BUNDLE = RUNTIME_DIR / "dist" / "posecode-runtime.js"

from tests.conftest import SHARED, shared_path  # noqa: E402  (one home for ../shared)
from posecode_ssg.evaluate.browser import chromium_executable  # noqa: E402  (one home for the browser)


def script_json(data: dict) -> str:
    """Compact JSON safe inside <script>: < > & U+2028 U+2029 escaped (page contract)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def euler_quat(x: float = 0.0, y: float = 0.0, z: float = 0.0) -> list[float]:
    """Quaternion [x, y, z, w] of intrinsic XYZ Euler degrees (q = qX·qY·qZ), 6 decimals."""
    hx, hy, hz = (math.radians(a) / 2 for a in (x, y, z))
    c1, s1, c2, s2, c3, s3 = math.cos(hx), math.sin(hx), math.cos(hy), math.sin(hy), math.cos(hz), math.sin(hz)
    q = [s1 * c2 * c3 + c1 * s2 * s3, c1 * s2 * c3 - s1 * c2 * s3,
         c1 * c2 * s3 + s1 * s2 * c3, c1 * c2 * c3 - s1 * s2 * s3]
    return [round(v, 6) for v in q]


def motion(phases: list[dict], *, base: dict | None = None, wrap: float | None = None,
           name: str = "Test", repeat: int = 1, start_pose: str = "neutral",
           props: Iterable[str] = (), wrap_turn: float | None = None) -> dict:
    """A hand-written posecode-motion/1 document. ``phases`` items: {name, d, m, q?, ...};
    ``wrap`` defaults to the first phase's duration."""
    wrap = phases[0]["d"] if wrap is None else wrap
    doc = {"format": "posecode-motion/1", "name": name, "kind": "exercise", "avatar": "avatar1",
           "props": list(props), "repeat": repeat, "startPose": start_pose, "base": base or {},
           "phases": [{"line": 0, **p} for p in phases], "wrap": wrap,
           "duration": round(sum(p["d"] for p in phases) + wrap, 6)}
    if wrap_turn is not None:
        doc["wrapTurn"] = wrap_turn
    return doc


def compiled_example(name: str, avatar: str | None = None) -> dict:
    """Motion JSON of a conformance example (../shared/conformance/examples/NAME.posecode) via
    the language parser and the motion compiler; skips when either is not available yet."""
    path = shared_path("conformance", "examples", f"{name}.posecode")
    try:
        from posecode_ssg.language import parse
        from posecode_ssg.motion import compile_ir
    except (ImportError, AttributeError) as exc:  # parser / compiler not in this tree yet
        pytest.skip(f"motion compiler not available: {exc}")
    result = parse(path.read_text(encoding="utf-8"))
    assert result.ir is not None, f"{name}: {result.errors}"
    return compile_ir(result.ir, avatar=avatar).to_json()


def example_names() -> list[str]:
    """Names of the conformance examples (empty when ../shared is absent)."""
    folder = SHARED / "conformance" / "examples"
    return sorted(p.stem for p in folder.glob("*.posecode")) if folder.exists() else []


def figure_html(fig_id: str, data: dict | str, *, title: str | None = None, autoplay: bool = False,
                view: str | None = None, poster: str | None = None, src: str | None = None) -> str:
    """One <posecode-figure>: inline JSON (``data`` a dict, or raw text for broken-data tests),
    or ``src`` pointing at a JSON file."""
    attrs = [f'id="{html.escape(fig_id)}"']
    name = title or (data.get("name") if isinstance(data, dict) else fig_id)
    attrs.append(f'data-title="{html.escape(str(name))}"')
    if autoplay:
        attrs.append("autoplay")
    if view:
        attrs.append(f'data-view="{view}"')
    if src:
        attrs.append(f'src="{html.escape(src)}"')
        inner = ""
    else:
        payload = script_json(data) if isinstance(data, dict) else data
        inner = f'<script type="application/json">{payload}</script>'
    poster_html = f'<figure class="posecode-poster">{poster}</figure>' if poster else ""
    phases = ""
    if isinstance(data, dict) and isinstance(data.get("phases"), list):
        items = "".join(f"<li>{html.escape(str(p.get('name')))} {p.get('d')} s {p.get('m')}</li>"
                        for p in data["phases"] if isinstance(p, dict))
        phases = f'<ol class="posecode-phases">{items}</ol>'
    return f"<posecode-figure {' '.join(attrs)}>{inner}{poster_html}{phases}</posecode-figure>"


POSTER = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" role="img">'
          '<title>poster</title><rect width="100" height="100" fill="#eee"/>'
          '<circle cx="50" cy="20" r="8" fill="#555"/><line x1="50" y1="28" x2="50" y2="65" '
          'stroke="#555" stroke-width="6"/></svg>')


#: page script resolving when every figure on the page is ready (its data loaded, first pose computed)
READY_ALL = "Promise.all(posecode.figures.map(f => f.ready))"

#: the Chromium every browser test launches: Playwright's own where installed, else the system's
CHROMIUM = chromium_executable()
HAVE_BROWSER = CHROMIUM is not None
#: mark for tests that need a browser: they skip, not fail, without one
needs_browser = pytest.mark.skipif(not HAVE_BROWSER, reason="no Chromium found (apt-get install chromium)")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static file handler that does not log every request."""

    def log_message(self, *args):
        pass


#: init script counting the WebGL contexts a page creates (window.__webgl)
COUNT_CONTEXTS = """
window.__webgl = 0;
const orig = HTMLCanvasElement.prototype.getContext;
HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
  const had = this.__pcCtx;
  const ctx = orig.call(this, kind, ...rest);
  if (ctx && !had && /webgl/.test(kind)) { window.__webgl++; this.__pcCtx = true; }
  return ctx;
};
"""


class RuntimeSite:
    """A served folder holding the runtime bundle, rig.json and test pages."""

    def __init__(self, root: Path, base_url: str):
        self.root = root
        self.base_url = base_url.rstrip("/")
        if not BUNDLE.exists():
            pytest.skip("runtime bundle not built (pip install -e . with Node.js, or npm ci && npm run build)")
        from posecode_ssg.motion.rigjson import rig_json

        (root / "assets").mkdir(exist_ok=True)
        shutil.copyfile(BUNDLE, root / "assets" / "posecode-runtime.js")
        (root / "assets" / "rig.json").write_text(json.dumps(rig_json(), separators=(",", ":")))

    def page(self, name: str, figures: Iterable[str], *, head: str = "", body_style: str = "",
             between: str = "", rig: str = "assets/rig.json") -> str:
        """Write ``name``.html with the given figure snippets (``rig``: the rig.json URL in the
        page's <meta name="posecode-rig">); returns its URL."""
        body = between.join(f'<section class="fig">{f}</section>' for f in figures)
        text = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<meta name="posecode-rig" content="{html.escape(rig)}">
<title>{html.escape(name)}</title>
<style>body{{font:15px/1.4 "DejaVu Sans",sans-serif;margin:0 auto;max-width:1200px;padding:12px;{body_style}}}
.grid{{display:grid;grid-template-columns:repeat(auto-fill,minmax(280px,1fr));gap:14px}}</style>
{head}
<script type="module" src="assets/posecode-runtime.js"></script>
</head><body>
{body}
</body></html>"""
        (self.root / f"{name}.html").write_text(text, encoding="utf-8")
        return f"{self.base_url}/{name}.html"

    def write_json(self, name: str, data: dict) -> str:
        """Write a JSON file beside the pages; returns its relative URL."""
        (self.root / name).write_text(json.dumps(data))
        return name


#: JS run in a page beside assets/: builds the bundle's exported Timeline for a motion document
#: and measures, with finite differences of step ``h`` (s), the body angular velocity of every
#: bone and the rate of turn/travel just before and after every keyframe (``keys``), the worst
#: excursion of a bone past the lens between two keyframes (``worstLens``, rad), non-monotone
#: samples, the keyframe poses and ``phaseAt`` at t = 0 and each keyframe time.
TIMELINE_PROBE = """
async ({motion, h, samples}) => {
  const mod = await import('./assets/posecode-runtime.js');
  const rig = await (await fetch('./assets/rig.json')).json();
  const ids = rig.bones.map(b => b.id);
  const tl = new mod.Timeline(motion, ids);
  const N = ids.length, D = tl.duration;
  const qa = new Float64Array(N * 4), qb = new Float64Array(N * 4), ra = new Float64Array(3), rb = new Float64Array(3);
  // rotation vector of conj(a)·b (body frame), radians
  const relvec = (a, b, i) => {
    const ax = -a[i], ay = -a[i+1], az = -a[i+2], aw = a[i+3], bx = b[i], by = b[i+1], bz = b[i+2], bw = b[i+3];
    let x = aw*bx + ax*bw + ay*bz - az*by, y = aw*by - ax*bz + ay*bw + az*bx;
    let z = aw*bz + ax*by - ay*bx + az*bw, w = aw*bw - ax*bx - ay*by - az*bz;
    if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
    const s = Math.hypot(x, y, z); const f = s < 1e-12 ? 2 : 2 * Math.atan2(s, w) / s;
    return [x * f, y * f, z * f];
  };
  const angle = (a, i, b, j) => {
    const d = Math.min(1, Math.abs(a[i]*b[j] + a[i+1]*b[j+1] + a[i+2]*b[j+2] + a[i+3]*b[j+3]));
    return 2 * Math.acos(d);
  };
  const vel = (t0, t1) => {
    tl.evaluate(t0, qa, ra); tl.evaluate(t1, qb, rb);
    const w = [];
    for (let b = 0; b < N; b++) w.push(relvec(qa, qb, b * 4).map(c => c / (t1 - t0)));
    let dyaw = rb[0] - ra[0];
    dyaw -= 2 * Math.PI * Math.round(dyaw / (2 * Math.PI));   // the seam may wrap a full turn
    return { w, root: [dyaw / (t1 - t0), (rb[1] - ra[1]) / (t1 - t0), (rb[2] - ra[2]) / (t1 - t0)] };
  };
  const S = tl.segmentCount, modes = tl.modes;
  const keys = [];
  for (let k = 0; k < tl.keyCount - 1; k++) {
    const t = tl.times[k];
    const before = vel(t - h, t), after = vel(t, t + h);
    let jump = 0, vb = 0, va = 0, jumpBone = null;
    for (let b = 0; b < N; b++) {
      const d = Math.hypot(...before.w[b].map((c, i) => c - after.w[b][i]));
      if (d > jump) { jump = d; jumpBone = ids[b]; }
      vb = Math.max(vb, Math.hypot(...before.w[b])); va = Math.max(va, Math.hypot(...after.w[b]));
    }
    const rootJump = Math.max(...before.root.map((c, i) => Math.abs(c - after.root[i])));
    const rootBefore = Math.max(...before.root.map(Math.abs)), rootAfter = Math.max(...after.root.map(Math.abs));
    keys.push({ k, t, inMode: modes[(k - 1 + S) % S], outMode: modes[k], jump, jumpBone, vb, va, rootJump, rootBefore, rootAfter });
  }
  // overshoot: per segment and bone, distance to either end never exceeds the keyframe gap
  let worstLens = 0, worstLensAt = null, nonMonotone = 0;
  const K = tl.keyCount, q = new Float64Array(N * 4), r = new Float64Array(3);
  // keyframe poses as the timeline draws them (bone-major, like the segments below)
  const kq = new Float64Array(N * K * 4);
  for (let k = 0; k < K; k++) {
    tl.evaluate(k === 0 ? 0 : tl.times[k] - 1e-9, q, r);
    for (let b = 0; b < N; b++) for (let i = 0; i < 4; i++) kq[(b * K + k) * 4 + i] = q[b * 4 + i];
  }
  for (let s = 0; s < S; s++) {
    const t0 = tl.times[s], dt = tl.times[s + 1] - t0;
    const prevAngle = new Float64Array(N);
    for (let i = 1; i < samples; i++) {
      tl.evaluate(t0 + dt * i / samples, q, r);
      for (let b = 0; b < N; b++) {
        const o0 = (b * K + s) * 4, o1 = o0 + 4;
        const gap = angle(kq, o0, kq, o1);
        const ex = Math.max(angle(q, b * 4, kq, o0), angle(q, b * 4, kq, o1)) - gap;
        if (ex > worstLens) { worstLens = ex; worstLensAt = [s, ids[b], i / samples]; }
        const a0 = angle(q, b * 4, kq, o0);
        if (a0 < prevAngle[b] - 1e-9 && gap > 1e-6) nonMonotone++;
        prevAngle[b] = a0;
      }
    }
  }
  // values at the keyframes and in the wrap
  const poses = [];
  for (let k = 0; k < K; k++) { tl.evaluate(tl.times[k] === D ? D - 1e-9 : tl.times[k], q, r); poses.push({ t: tl.times[k], root: Array.from(r), q: Array.from(q) }); }
  return { keys, worstLens, worstLensAt, nonMonotone, duration: D, times: Array.from(tl.times), modes, poses,
           keyQ: Array.from(kq), ids, phaseAt: [0, ...Array.from(tl.times)].map(t => tl.phaseAt(t)) };
}
"""
