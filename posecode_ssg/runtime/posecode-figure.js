/**
 * `<posecode-figure>`: the player custom element (page contract: docs/motion-json.md and the
 * site templates).
 *
 *     <meta name="posecode-rig" content="URL of rig.json">            (once, in <head>)
 *     <posecode-figure id="…" data-title="caption" [autoplay] [data-view="side|front"] [src="…json"]>
 *       <script type="application/json">{compact motion JSON}</script>
 *       <figure class="posecode-poster"><svg>…</svg></figure>       (fallback / reduced-motion still)
 *       <ol class="posecode-phases">…</ol>                              (no-JS phase listing)
 *     </posecode-figure>
 *
 * The element reads rig.json once per page, validates its motion data, builds the model (timeline,
 * skeleton, solver passes) and a player: play/pause, scrub, speed, phase list with the current
 * phase and its cue, rep counter, orbit camera with zoom, pan and reset; keyboard operable, labelled
 * for screen readers. With `prefers-reduced-motion: reduce` it shows the poster and a play button,
 * the slider at the poster's pose (its `data-frame`: the end of that phase), and never autoplays.
 * Invalid data shows a `posecode-figure: …` message in place of the figure, rejects `ready` and
 * fires a `posecode-error` event; nothing is thrown to the console.
 *
 * Test hooks (stable API): `el.ready` (Promise), `el.duration` (s, wrap included), `el.seek(t)`
 * (synchronous, pauses), `el.sample()` ({t, phase, bones, landmarks, contacts, warnings}, world
 * metres) and `window.posecode.figures`.
 * @module posecode-figure
 */

import { PerspectiveCamera } from "three";
import { FigureModel } from "./pose.js";
import { DEG } from "./quat.js";
import { validateMotion, MotionDataError } from "./validate.js";
import { Mannequin } from "./mannequin.js";
import { add as track, cssVars, remove as untrack, wake, nextFrame, stats } from "./stage.js";

const SPEEDS = [0.25, 0.5, 1, 1.5, 2];
const FOV = 30;
const VIEWS = { side: -90, front: 0 };
const DEFAULT_AZIMUTH = -35, DEFAULT_ELEVATION = 10;
/** Keys that turn (azimuth, elevation in degrees) or zoom (factor) the view; with Shift the
 *  arrows pan it instead (about a quarter of the view's height per press, the sign of the turn). */
const ORBIT_KEYS = {
  ArrowLeft: [-15, 0], ArrowRight: [15, 0], ArrowUp: [0, 10], ArrowDown: [0, -10],
  "+": [0, 0, 1 / 1.15], "=": [0, 0, 1 / 1.15], "-": [0, 0, 1.15], _: [0, 0, 1.15],
};

/** `text` parsed as JSON, or a {@link MotionDataError} naming `what`. */
function parseJSON(text, what) {
  try { return JSON.parse(text); } catch (e) { throw new MotionDataError(`${what} is not valid JSON (${e.message})`); }
}

/** Fetch and parse the JSON at `url` (`what` names it in error messages). */
async function fetchJSON(url, what) {
  let res;
  try { res = await fetch(url); } catch (e) { throw new MotionDataError(`could not load ${what} (${e.message})`); }
  if (!res.ok) throw new MotionDataError(`could not load ${what} (HTTP ${res.status})`);
  return parseJSON(await res.text(), what);
}

let rigPromise = null;
/** Fetch the page's rig.json once (URL from `<meta name="posecode-rig">`). */
export function loadRig() {
  return rigPromise || (rigPromise = (async () => {
    const meta = document.querySelector('meta[name="posecode-rig"]');
    const href = meta && meta.getAttribute("content");
    if (!href) throw new MotionDataError('the page has no <meta name="posecode-rig" content="…/rig.json">');
    const url = new URL(href, document.baseURI);
    const rig = await fetchJSON(url, `the rig ${url}`);
    if (!rig || rig.format !== "posecode-rig/1") throw new MotionDataError(`the rig ${url} is not a "posecode-rig/1" file`);
    return rig;
  })());
}

const reducedMotionQuery = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

const STYLE = `\
posecode-figure{display:block}\
.pc-player{display:flex;flex-direction:column;gap:.4rem;container-type:inline-size}\
.pc-view{position:relative;aspect-ratio:4/3;width:100%;max-height:80vh;overflow:hidden;border-radius:6px;background:var(--pc-view-bg,color-mix(in srgb,currentColor 7%,transparent));touch-action:pan-y;cursor:grab;outline-offset:2px}\
.pc-view:focus-visible{outline:3px solid var(--pc-accent,#1f6feb)}\
.pc-view>*{position:absolute}\
.pc-view>canvas{inset:0;width:100%;height:100%;display:block}\
.pc-view>.posecode-poster{inset:0;margin:0;display:flex;flex-direction:column;align-items:center;justify-content:center}\
.pc-view>.posecode-poster svg{max-width:100%;min-height:0;flex:1 1 auto;width:auto;height:100%}\
.pc-view>.posecode-poster figcaption{flex:none;padding:.2em .5em;font-size:.9em}\
.pc-view[data-state=live]>.posecode-poster{display:none}\
.pc-view[data-state=poster]>canvas{visibility:hidden}\
.pc-controls{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem;font-size:.9em}\
.pc-controls button,.pc-controls select,.pc-reset{font:inherit;min-height:2.2rem;min-width:2.2rem;padding:0 .4rem}\
.pc-scrub{flex:1 1 4rem;min-width:4rem}\
@container (max-width:18rem){.pc-scrub{order:-1;flex-basis:100%}}\
.pc-time,.pc-rep{font-variant-numeric:tabular-nums;white-space:nowrap}\
.pc-reset,.pc-rep{background:#ffffffd9;color:#1b1b1b}\
.pc-reset{top:.4rem;right:.4rem;border-radius:50%;border:1px solid #00000040;padding:0;cursor:pointer}\
.pc-rep{top:.5rem;left:.5rem;padding:.1em .5em;border-radius:1em;font-size:.85em;pointer-events:none}\
.pc-phase-list{margin:0;padding-left:1.6em;font-size:.9em}\
.pc-phase-list li{padding:.1em .3em;border-left:3px solid transparent}\
.pc-phase-list button{font:inherit;background:none;border:0;padding:.1em 0;color:inherit;cursor:pointer;text-align:left}\
.pc-phase-list [aria-current]{border-left-color:var(--pc-accent,#1f6feb);background:var(--pc-current-bg,#1f6feb14)}\
.pc-phase-list [aria-current] button{font-weight:700}\
.pc-phase-cue{display:block;font-style:italic;opacity:.7}\
.pc-phase-list [aria-current] .pc-phase-cue{opacity:1}\
.pc-phase-meta{opacity:.75;font-weight:400}\
.pc-error{border:2px solid #b3261e;color:#8c1d18;background:#fdecea;padding:.6em .8em;border-radius:6px;font:inherit}`;

function injectStyle() {
  if (document.getElementById("posecode-runtime-style")) return;
  const s = el("style", { id: "posecode-runtime-style" }, STYLE);
  document.head.prepend(s);
}

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const fmt = (t) => t.toFixed(1);

/** The registry behind `window.posecode`. */
function registry() {
  const pc = (window.posecode = window.posecode || {});
  pc.figures = pc.figures || [];
  pc.frame = pc.frame || nextFrame;
  pc.stats = pc.stats || (() => ({ ...stats }));
  /** Pose every figure at `t` seconds, paused, and resolve once that frame is drawn (screenshots). */
  pc.freeze = pc.freeze || (async (t) => {
    await Promise.allSettled(pc.figures.map((f) => f.ready));
    for (const f of pc.figures) f.seek(t);
    await nextFrame();
    await nextFrame();
  });
  return pc;
}

export class PosecodeFigure extends HTMLElement {
  constructor() {
    super();
    this.ready = new Promise((res, rej) => { this._resolve = res; this._reject = rej; });
    this.ready.catch(() => {}); // an unobserved rejection must not reach the console
    this.playing = false;
    this.sizeDirty = true;
    this.cssWidth = 0;
    this.cssHeight = 0;
    this._speed = 1;
    /** frames copied into this figure's canvas so far (test and benchmark hook) */
    this.drawCount = 0;
  }

  /** Loop length in seconds, the wrap back to the base pose included (NaN before `ready`). */
  get duration() {
    return this._model ? this._model.duration : NaN;
  }

  connectedCallback() {
    const pc = registry();
    if (!pc.figures.includes(this)) pc.figures.push(this);
    if (this._started) {
      if (this._model) this._attach();
      return;
    }
    this._started = true;
    const go = () => this._init();
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", go, { once: true });
    else go();
  }

  disconnectedCallback() {
    const pc = registry();
    const i = pc.figures.indexOf(this);
    if (i >= 0) pc.figures.splice(i, 1);
    this._detach();
  }

  async _init() {
    try {
      const src = this.getAttribute("src");
      const script = this.querySelector(':scope > script[type="application/json"]');
      const motion = src ? fetchJSON(new URL(src, document.baseURI), src)
        : script ? parseJSON(script.textContent, "the motion data")
        : Promise.reject(new MotionDataError('no motion data: add a <script type="application/json"> child or a src attribute'));
      const [rig, m] = await Promise.all([loadRig(), motion]);
      this._install(m, rig);
      this._resolve(this);
    } catch (err) {
      this._reject(new Error(this._showError(err)));
    }
  }

  _install(motion, rig) {
    validateMotion(motion, rig);
    const model = new FigureModel(motion, rig);
    model.evaluate(0);
    if (this._player) this._teardown();
    this._model = model;
    this._clock = 0;      // seconds since the loop start, unwrapped (rep counter)
    this._frame();
    this._buildUI();
    this._attach();
  }

  /** Remove the player (the poster and the no-JS list go back to being plain children). */
  _teardown() {
    this._detach();
    const poster = this.view.querySelector(":scope > figure.posecode-poster");
    if (poster) this.insertBefore(poster, this._player);
    const nojs = this.querySelector(":scope > ol.posecode-phases");
    if (nojs) nojs.hidden = false;
    this._player.remove();
    this._clearErrors();
    this._player = this._ui = this.mannequin = this.view = null;
  }

  _clearErrors() {
    for (const e of this.querySelectorAll(":scope > .pc-error")) e.remove();
  }

  /** Show `err` in place of the figure (replacing an earlier error) and fire `posecode-error`; returns the message shown. */
  _showError(err) {
    this._clearErrors();
    const text = `posecode-figure: ${err instanceof MotionDataError ? err.message : `internal error (${err && err.message})`}`;
    this.prepend(el("div", { class: "pc-error", role: "alert" }, text));
    this.dispatchEvent(new CustomEvent("posecode-error", { detail: { message: text }, bubbles: true }));
    return text;
  }

  /**
   * Replace the figure's motion in place (live preview): validates `motion` against the rig,
   * rebuilds the player and keeps the element. Resolves to true, or shows the error and
   * resolves to false.
   * @param {object} motion motion JSON
   */
  async load(motion) {
    try {
      this._install(motion, await loadRig());
      this._clearErrors();
      return true;
    } catch (err) {
      this._showError(err);
      return false;
    }
  }

  // ----- camera framing and orbit -----------------------------------------------------------

  /** Bounding sphere of the whole loop (joints, landmarks, props), sampled at keyframes and midpoints. */
  _frame() {
    const m = this._model, sk = m.skeleton, T = m.timeline.times;
    // the floor (y = 0) is always in the box
    const lo = [Infinity, 0, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const grow = (p, i = 0) => {
      for (let a = 0; a < 3; a++) {
        if (a !== 1 && p[i + a] < lo[a]) lo[a] = p[i + a];
        if (p[i + a] > hi[a]) hi[a] = p[i + a];
      }
    };
    for (let k = 0; k < T.length - 1; k++) {
      for (const t of [T[k], 0.5 * (T[k] + T[k + 1])]) {
        m.evaluate(t);
        for (const P of [sk.worldP, sk.landmarkP]) for (let i = 0; i < P.length; i += 3) grow(P, i);
      }
    }
    for (const p of m.motion.props || []) {
      for (const mesh of m.rig.props[p].meshes || []) {
        const h = mesh.shape === "box" ? mesh.size.map((s) => s / 2)
          : [..."xyz"].map((a) => (mesh.axis === a ? mesh.length / 2 : mesh.radius));
        for (const s of [-1, 1]) grow(mesh.center.map((c, a) => c + s * h[a]));
      }
    }
    m.evaluate(0);
    this._target = [0, 1, 2].map((a) => (lo[a] + hi[a]) / 2);
    /** half extents: vertical, and horizontal in any viewing direction (m) */
    this._halfV = 0.5 * (hi[1] - lo[1]) + 0.05;
    this._halfH = 0.5 * Math.hypot(hi[0] - lo[0], hi[2] - lo[2]) + 0.05;
  }

  _resetView() {
    const v = this.getAttribute("data-view");
    this._azimuth = (v in VIEWS ? VIEWS[v] : DEFAULT_AZIMUTH) * DEG;
    this._elevation = (v in VIEWS ? 4 : DEFAULT_ELEVATION) * DEG;
    this._zoom = 1;
    this._pan = [0, 0];
    this.dirty = true;
    wake();
  }

  /**
   * Turn by `dAz`, `dEl` (radians), zoom by the factor `zoom` (the camera distance's) and pan the
   * look-at point by `right`, `up` metres (across the screen and along the vertical). Panning is
   * for a zoomed-in view: the look-at point keeps within (1 − zoom) of the loop's bounding box from
   * its centre, so the view reaches the box's edges (the feet, the hands overhead) and never leaves
   * the figure; zoomed back out, the pan shrinks back to none.
   */
  _orbit(dAz, dEl, zoom = 1, right = 0, up = 0) {
    const clamp = (x, a, b) => Math.max(a, Math.min(b, x)), p = this._pan;
    this._azimuth += dAz;
    this._elevation = clamp(this._elevation + dEl, -10 * DEG, 80 * DEG);
    this._zoom = clamp(this._zoom * zoom, 0.4, 2.5);
    const room = Math.max(0, 1 - this._zoom), h = room * this._halfH, v = room * this._halfV;
    p[0] = clamp(p[0] + right, -h, h);
    p[1] = clamp(p[1] + up, -v, v);
    this._wantLive = true;
    this.dirty = true;
    wake();
  }

  // ----- UI ---------------------------------------------------------------------------------

  _buildUI() {
    injectStyle();
    const m = this._model, motion = m.motion;
    const title = this.getAttribute("data-title") || motion.name;
    this.reduced = !!(reducedMotionQuery && reducedMotionQuery.matches);
    const player = el("div", { class: "pc-player", role: "group", "aria-label": `${title}: animated figure` });
    const view = el("div", {
      class: "pc-view", tabindex: "0", role: "application", "aria-roledescription": "3D figure",
      "aria-label": `${title}. Arrow keys turn the view, plus and minus zoom, Shift with the arrow keys or a drag pans, Home resets the view, Space plays or pauses.`,
    });
    const canvas = el("canvas", { "aria-hidden": "true" });
    view.append(canvas);
    const poster = this.querySelector(":scope > figure.posecode-poster");
    if (poster) view.append(poster);
    view.dataset.state = "poster";
    const controls = el("div", { class: "pc-controls" });
    const play = el("button", { type: "button", class: "pc-play", "aria-label": "Play" }, "▶");
    const scrub = el("input", {
      type: "range", class: "pc-scrub", min: "0", max: m.duration, step: "0.01", value: "0", "aria-label": "Time",
    });
    const time = el("span", { class: "pc-time", "aria-hidden": "true" }, `0.0 / ${fmt(m.duration)} s`);
    const speed = el("select", { class: "pc-speed", "aria-label": "Speed" });
    for (const s of SPEEDS) speed.append(el("option", { value: s }, `${s}×`));
    speed.value = "1";
    const rep = el("span", { class: "pc-rep" });
    const reset = el("button", { type: "button", class: "pc-reset", "aria-label": "Reset view", title: "Reset view" }, "⟲");
    view.append(rep, reset);
    controls.append(play, scrub, time, speed);
    const list = el("ol", { class: "pc-phase-list", "aria-label": "Phases" });
    motion.phases.forEach((p, i) => {
      const li = el("li");
      const b = el("button", { type: "button", "data-phase": i });
      b.append(`${p.name} `, el("span", { class: "pc-phase-meta" }, `${fmt(p.d)} s · ${p.m}`));
      b.addEventListener("click", () => this.seek(m.timeline.times[i]));
      li.append(b);
      if (p.cue) li.append(el("span", { class: "pc-phase-cue" }, p.cue));
      list.append(li);
    });
    player.append(view, controls, list);
    const nojs = this.querySelector(":scope > ol.posecode-phases");
    if (nojs) nojs.hidden = true;
    this.append(player);
    this._player = player;

    this.view = view;
    this.canvas = canvas;
    this.ctx2d = canvas.getContext("2d");
    this.camera = new PerspectiveCamera(FOV, 4 / 3, 0.05, 50);
    this.mannequin = null; // built on the first draw: figures never scrolled to cost no meshes
    this._ui = { play, scrub, time, rep, items: Array.from(list.children) };
    this._resetView();

    play.addEventListener("click", () => this.toggle());
    scrub.addEventListener("input", () => this.seek(parseFloat(scrub.value)));
    scrub.addEventListener("keydown", (e) => this._onScrubKey(e));
    speed.addEventListener("change", () => { this._speed = parseFloat(speed.value) || 1; });
    reset.addEventListener("click", () => this._resetView());
    // the poster's pose: the end of phase `data-frame` (the build's pick, poster.py); just before
    // it, so the readout names the phase that ends there
    const f = +poster?.querySelector("svg")?.getAttribute("data-frame");
    this._stillT = (f > 0 && m.timeline.times[f] - 1e-6) || 0;
    this.playing = this.hasAttribute("autoplay") && !this.reduced;
    this._updateUI(true);
    if (this.reduced) this._still();
  }

  /** Reduced motion: paused on the poster, the slider and readout at the poster's pose. */
  _still() {
    this.seek(this._stillT);
    this._wantLive = false;
    this.view.dataset.state = "poster";
  }

  /** Listen to the view (keys, pointer) and the reduced-motion setting; join the stage. */
  _attach() {
    const view = this.view;
    if (!view) return;
    const signal = (this._listening = new AbortController()).signal;
    view.addEventListener("keydown", (e) => this._onKey(e), { signal });
    view.addEventListener("pointerdown", (e) => this._onPointerDown(e), { signal });
    if (reducedMotionQuery) {
      reducedMotionQuery.addEventListener("change", () => {
        this.reduced = reducedMotionQuery.matches;
        if (this.reduced) this._still();
      }, { signal });
    }
    track(this);
    this.dirty = true;
    wake();
  }

  _detach() {
    if (!this.view) return;
    this._listening.abort();
    untrack(this);
  }

  _onKey(e) {
    if (e.target !== this.view) return;   // a key on the reset button is the button's own (Space/Enter: reset, not play)
    const k = e.key, o = ORBIT_KEYS[k], s = 0.5 * this._halfV * this._zoom;
    if (o && e.shiftKey && !o[2]) this._orbit(0, 0, 1, Math.sign(o[0]) * s, Math.sign(o[1]) * s);
    else if (o) this._orbit(o[0] * DEG, o[1] * DEG, o[2]);
    else if (k === "Home" || k === "0") this._resetView();
    else if (k === " " || k === "Enter" || k === "k") this.toggle();
    else return;
    e.preventDefault();
  }

  /**
   * Scrubber keys (the native range would step 0.01 s): arrows a tenth of the phase they move
   * through (stepping back from a phase start: the phase before), PageUp / PageDown to the next /
   * previous phase start, Home / End to the loop's start and end (its last instant, so the end pose
   * and phase are shown rather than the wrap back to the start).
   */
  _onScrubKey(e) {
    const m = this._model, T = m.timeline.times, D = m.duration, k = e.key, back = /Left|Down/.test(k);
    const x = m.t - D * Math.floor(m.t / D), s = m.timeline.segmentAt(x), b = back && s && x - T[s] < 1e-6 ? s - 1 : s;
    const t = { Home: 0, End: D, PageUp: T[s + 1], PageDown: T[b] }[k] ?? (/^Arrow/.test(k) ? x + (back ? -0.1 : 0.1) * (T[b + 1] - T[b]) : NaN);
    if (t !== t) return;
    e.preventDefault();
    this.seek(Math.min(D - 1e-6, Math.max(0, t)));
  }

  _onPointerDown(e) {
    if (e.button !== 0 || e.target.closest("button")) return;   // buttons on the view keep their clicks
    const view = this.view, drag = { x: e.clientX, y: e.clientY, id: e.pointerId, ac: new AbortController() };
    const signal = drag.ac.signal, up = () => { drag.ac.abort(); this._drag = null; };
    this._drag = drag;
    view.setPointerCapture(e.pointerId);
    view.addEventListener("pointermove", (e) => {
      if (this._drag !== drag || e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y, mpp = this._mpp || 0;
      drag.x = e.clientX; drag.y = e.clientY;
      // Shift-drag pans: the figure follows the pointer (metres per CSS pixel at the look-at point)
      if (e.shiftKey) this._orbit(0, 0, 1, -dx * mpp, dy * mpp);
      else this._orbit(-dx * 0.01, e.pointerType === "touch" ? 0 : dy * 0.01);
    }, { signal });
    view.addEventListener("pointerup", up, { signal });
    view.addEventListener("pointercancel", up, { signal });
  }

  _updateUI(force = false) {
    const ui = this._ui, m = this._model;
    if (!ui) return;
    const t = m.t, n = m.motion.phases.length;
    ui.scrub.value = String(t);
    const ph = m.phase;
    const tenths = Math.round(t * 10);
    if (force || tenths !== this._tenthsShown || ph !== this._phaseShown) {
      // texts change at most ten times a second: no string building on every frame
      this._tenthsShown = tenths;
      ui.scrub.setAttribute("aria-valuetext", `${fmt(t)} of ${fmt(m.duration)} seconds, ${ph >= 0 ? `phase ${ph + 1} of ${n}: ${m.motion.phases[ph].name}` : "back to start"}`);
      ui.time.textContent = `${fmt(t)} / ${fmt(m.duration)} s`;
    }
    if (force || ph !== this._phaseShown) {
      this._phaseShown = ph;
      ui.items.forEach((li, i) => { if (i === ph) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current"); });
    }
    const N = m.motion.repeat || 0;
    const repIdx = N > 0 ? (Math.floor(this._clock / m.duration + 1e-9) % N) + 1 : 0;
    if (force || repIdx !== this._repShown) {
      this._repShown = repIdx;
      ui.rep.textContent = N > 1 ? `Rep ${repIdx} of ${N}` : "";
      ui.rep.hidden = N <= 1;
    }
    const label = this.playing ? "Pause" : "Play";
    if (ui.play.getAttribute("aria-label") !== label) {
      ui.play.setAttribute("aria-label", label);
      ui.play.textContent = this.playing ? "❚❚" : "▶";
    }
  }

  // ----- stage callbacks ----------------------------------------------------------------------

  /** Advance a playing figure by `dt` seconds of wall time (called by the stage loop). */
  advance(dt) {
    const m = this._model;
    this._clock += dt * this._speed;
    m.evaluate(this._clock % m.duration);
    this.dirty = true;
    this._updateUI();
  }

  /** Size the canvas, build the mannequin on the first draw and place the camera (called by the stage). */
  prepareFrame(dpr) {
    const c = this.camera;
    if (this.sizeDirty) {
      const w = Math.max(1, Math.round(this.cssWidth * dpr)), h = Math.max(1, Math.round(this.cssHeight * dpr));
      if (this.canvas.width !== w) this.canvas.width = w;
      if (this.canvas.height !== h) this.canvas.height = h;
      c.aspect = this.cssWidth > 0 && this.cssHeight > 0 ? this.cssWidth / this.cssHeight : 4 / 3;
      this.sizeDirty = false;
    }
    if (!this.mannequin) {
      const m = this._model, v = cssVars(this);
      this.mannequin = new Mannequin(m.skeleton, m.rig, m.motion.props || [], {
        body: v("--pc-body", "#8d99a6"), right: v("--pc-right", "#2f6db5"), left: v("--pc-left", "#d9822b"), prop: v("--pc-prop", "#a08f7a"),
      });
    }
    this.mannequin.update();
    // camera: fit the height and the widest horizontal extent; the near half of the box sits closer
    const tanV = Math.tan((FOV / 2) * DEG), tanH = tanV * (c.aspect || 1), az = this._azimuth, P = this._pan;
    const d = (Math.max(this._halfV / tanV, this._halfH / tanH) + 0.6 * this._halfH) * this._zoom;
    const ce = Math.cos(this._elevation);
    // the look-at point: the box centre panned across the screen (right = (cos az, 0, −sin az)) and up
    const T = [this._target[0] + P[0] * Math.cos(az), this._target[1] + P[1], this._target[2] - P[0] * Math.sin(az)];
    this._mpp = (2 * d * tanV) / (this.cssHeight || 1);
    c.position.set(
      T[0] + d * ce * Math.sin(az),
      T[1] + d * Math.sin(this._elevation),
      T[2] + d * ce * Math.cos(az),
    );
    const r = this._halfV + this._halfH;
    c.near = Math.max(0.05, d - 3 * r);
    c.far = d + 30;
    c.lookAt(T[0], T[1], T[2]);
    c.updateProjectionMatrix();
  }

  /** False while a reduced-motion figure shows its poster and nobody asked for the 3-D view. */
  get wantsDraw() {
    return !this.reduced || this._wantLive === true;
  }

  /** Called by the stage after the frame was copied into this figure's canvas (only ever drawn
   *  while {@link wantsDraw}: the live figure replaces the poster). */
  drawn() {
    this.drawCount++;
    if (this.view.dataset.state !== "live") this.view.dataset.state = "live";
  }

  // ----- public API ---------------------------------------------------------------------------

  /** Start playback (reveals the live figure in reduced-motion mode: the user asked for it). */
  play() {
    if (!this._model) return;
    this.playing = true;
    this._wantLive = true;
    this._updateUI();
    wake();
  }

  /** Pause playback. */
  pause() {
    if (!this._model) return;
    this.playing = false;
    this._updateUI();
  }

  /** Toggle play/pause. */
  toggle() {
    if (this.playing) this.pause(); else this.play();
  }

  /**
   * Pose the figure at `t` seconds (wrapped into one loop) and pause. Synchronous: `sample()`
   * right after reflects `t`; the drawing follows on the next animation frame.
   */
  seek(t) {
    const m = this._model;
    if (!m || !Number.isFinite(t)) return;
    this.playing = false;
    let x = t % m.duration;
    if (x < 0) x += m.duration;
    const loops = Math.floor(this._clock / m.duration + 1e-9);
    this._clock = loops * m.duration + x;
    m.evaluate(x);
    m.t = t;
    this.dirty = true;
    this._wantLive = true;
    this._updateUI();
    wake();
  }

  /** Snapshot of the current pose (world metres), or null before `ready`. */
  sample() {
    return this._model ? this._model.sample() : null;
  }
}
