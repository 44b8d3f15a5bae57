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
 * The element holds the lifecycle and the public API; loading.js the JSON, controls.js the player's
 * DOM, orbit.js the camera, style.js the stylesheet, strings.js every text it shows, registry.js
 * `window.posecode`.
 * @module posecode-figure
 */

import { add as track, cssVars, remove as untrack, wake } from "./stage.js";
import { Mannequin } from "./mannequin.js";
import { FigureModel } from "./figuremodel.js";
import { STRINGS } from "./strings.js";
import { frameLoop, onPointerDown, onViewKey, placeCamera } from "./orbit.js";
import { loadMotion, loadRig } from "./loading.js";
import { validateMotion, MotionDataError } from "./validate.js";
import { registry } from "./registry.js";
import { buildUI, el, reducedMotionQuery, still, updateUI } from "./controls.js";

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
      const [rig, m] = await Promise.all([loadRig(), loadMotion(this)]);
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
    frameLoop(this);
    buildUI(this);
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
    const text = STRINGS.error(err instanceof MotionDataError ? err.message : STRINGS.internalError(err && err.message));
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

  /** Listen to the view (keys, pointer) and the reduced-motion setting; join the stage. */
  _attach() {
    const view = this.view;
    if (!view) return;
    const signal = (this._listening = new AbortController()).signal;
    view.addEventListener("keydown", (e) => onViewKey(this, e), { signal });
    view.addEventListener("pointerdown", (e) => onPointerDown(this, e), { signal });
    if (reducedMotionQuery) {
      reducedMotionQuery.addEventListener("change", () => {
        this.reduced = reducedMotionQuery.matches;
        if (this.reduced) still(this);
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

  // ----- stage callbacks ----------------------------------------------------------------------

  /** Advance a playing figure by `dt` seconds of wall time (called by the stage loop). */
  advance(dt) {
    const m = this._model;
    this._clock += dt * this._speed;
    m.evaluate(this._clock % m.duration);
    this.dirty = true;
    updateUI(this);
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
      const m = this._model, v = cssVars(this), C = m.rig.equipment?.colours || {};
      this.ground = v("--pc-ground", "#d9d5cc");
      this.mannequin = new Mannequin(m.skeleton, m.rig, m.motion.props || [], {
        body: v("--pc-body", "#8d99a6"), right: v("--pc-right", "#2f6db5"), left: v("--pc-left", "#d9822b"), prop: v("--pc-prop", "#a08f7a"),
        load: v("--pc-load", C.load), scene: v("--pc-scene", C.scene),
      }, m.motion.equipment);
    }
    this.mannequin.update();
    placeCamera(this, c);
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
    updateUI(this);
    wake();
  }

  /** Pause playback. */
  pause() {
    if (!this._model) return;
    this.playing = false;
    updateUI(this);
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
    updateUI(this);
    wake();
  }

  /** Snapshot of the current pose (world metres), or null before `ready`. */
  sample() {
    return this._model ? this._model.sample() : null;
  }
}
