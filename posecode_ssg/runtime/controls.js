/**
 * The player's controls: the DOM of the player (view, play/pause, scrubber, time readout, speed,
 * rep counter, reset-view button, phase list with cues), kept up to date with the model, and the
 * scrubber's keys. Texts come from strings.js; state lives on the element `fig`.
 * @module controls
 */

import { STRINGS, number, seconds } from "./strings.js";
import { injectStyle } from "./style.js";
import { makeCamera, resetView } from "./orbit.js";

const SPEEDS = [0.25, 0.5, 1, 1.5, 2];

/** The page's `prefers-reduced-motion: reduce` query (null outside a browser). */
export const reducedMotionQuery = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

/** A new element `tag` with attributes `attrs` and text `text`. */
export function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const fmt = seconds;   // one decimal, in the page's language

/** Build `fig`'s player (the poster moves into its view; the no-JS phase list is hidden). */
export function buildUI(fig) {
  injectStyle();
  const m = fig._model, motion = m.motion;
  const title = fig.getAttribute("data-title") || motion.name;
  fig.reduced = !!(reducedMotionQuery && reducedMotionQuery.matches);
  const player = el("div", { class: "pc-player", role: "group", "aria-label": STRINGS.player(title) });
  // the figure and the controls stay left-to-right on a right-to-left page (the slider runs with
  // time; the pointer and the arrow keys agree with it); the step list follows the page
  const view = el("div", {
    class: "pc-view", dir: "ltr", tabindex: "0", role: "application", "aria-roledescription": STRINGS.viewRole,
    "aria-label": STRINGS.view(title),
  });
  const canvas = el("canvas", { "aria-hidden": "true" });
  view.append(canvas);
  const poster = fig.querySelector(":scope > figure.posecode-poster");
  if (poster) view.append(poster);
  view.dataset.state = "poster";
  const controls = el("div", { class: "pc-controls", dir: "ltr" });
  const play = el("button", { type: "button", class: "pc-play", "aria-label": STRINGS.play }, STRINGS.playIcon);
  const scrub = el("input", {
    type: "range", class: "pc-scrub", min: "0", max: m.duration, step: "0.01", value: "0", "aria-label": STRINGS.time,
  });
  const time = el("span", { class: "pc-time", "aria-hidden": "true" }, STRINGS.clock(fmt(0), fmt(m.duration)));
  const speed = el("select", { class: "pc-speed", "aria-label": STRINGS.speed });
  for (const s of SPEEDS) speed.append(el("option", { value: s }, STRINGS.speedOption(number(s))));
  speed.value = "1";
  const rep = el("span", { class: "pc-rep" });
  const reset = el("button", { type: "button", class: "pc-reset", "aria-label": STRINGS.resetView, title: STRINGS.resetView }, STRINGS.resetIcon);
  view.append(rep, reset);
  controls.append(play, scrub, time, speed);
  const list = el("ol", { class: "pc-phase-list", "aria-label": STRINGS.phases });
  motion.phases.forEach((p, i) => {
    const li = el("li");
    const b = el("button", { type: "button", "data-phase": i });
    b.append(`${p.name} `, el("span", { class: "pc-phase-meta" }, STRINGS.phaseMeta(fmt(p.d), p.m)));
    b.addEventListener("click", () => fig.seek(m.timeline.times[i]));
    li.append(b);
    if (p.cue) li.append(el("span", { class: "pc-phase-cue" }, p.cue));
    list.append(li);
  });
  player.append(view, controls, list);
  const nojs = fig.querySelector(":scope > ol.posecode-phases");
  if (nojs) nojs.hidden = true;
  fig.append(player);
  fig._player = player;

  fig.view = view;
  fig.canvas = canvas;
  fig.ctx2d = canvas.getContext("2d");
  fig.camera = makeCamera();
  fig.mannequin = null; // built on the first draw: figures never scrolled to cost no meshes
  fig._ui = { play, scrub, time, rep, items: Array.from(list.children) };
  resetView(fig);

  play.addEventListener("click", () => fig.toggle());
  scrub.addEventListener("input", () => fig.seek(parseFloat(scrub.value)));
  scrub.addEventListener("keydown", (e) => onScrubKey(fig, e));
  speed.addEventListener("change", () => { fig._speed = parseFloat(speed.value) || 1; });
  reset.addEventListener("click", () => resetView(fig));
  // the poster's pose: the end of phase `data-frame` (the build's pick, poster.py); just before
  // it, so the readout names the phase that ends there
  const f = +poster?.querySelector("svg")?.getAttribute("data-frame");
  fig._stillT = (f > 0 && m.timeline.times[f] - 1e-6) || 0;
  fig.playing = fig.hasAttribute("autoplay") && !fig.reduced;
  updateUI(fig, true);
  if (fig.reduced) still(fig);
}

/** Reduced motion: paused on the poster, the slider and readout at the poster's pose. */
export function still(fig) {
  fig.seek(fig._stillT);
  fig._wantLive = false;
  fig.view.dataset.state = "poster";
}

/**
 * Scrubber keys (the native range would step 0.01 s): arrows a tenth of the phase they move
 * through (stepping back from a phase start: the phase before), PageUp / PageDown to the next /
 * previous phase start, Home / End to the loop's start and end (its last instant, so the end pose
 * and phase are shown rather than the wrap back to the start).
 */
function onScrubKey(fig, e) {
  const m = fig._model, T = m.timeline.times, D = m.duration, k = e.key, back = /Left|Down/.test(k);
  const x = m.t - D * Math.floor(m.t / D), s = m.timeline.segmentAt(x), b = back && s && x - T[s] < 1e-6 ? s - 1 : s;
  const t = { Home: 0, End: D, PageUp: T[s + 1], PageDown: T[b] }[k] ?? (/^Arrow/.test(k) ? x + (back ? -0.1 : 0.1) * (T[b + 1] - T[b]) : NaN);
  if (t !== t) return;
  e.preventDefault();
  fig.seek(Math.min(D - 1e-6, Math.max(0, t)));
}

/** Bring `fig`'s controls up to date with its model (texts at most ten times a second; `force`: all now). */
export function updateUI(fig, force = false) {
  const ui = fig._ui, m = fig._model;
  if (!ui) return;
  const t = m.t, n = m.motion.phases.length;
  ui.scrub.value = String(t);
  const ph = m.phase;
  const tenths = Math.round(t * 10);
  if (force || tenths !== fig._tenthsShown || ph !== fig._phaseShown) {
    // texts change at most ten times a second: no string building on every frame
    fig._tenthsShown = tenths;
    ui.scrub.setAttribute("aria-valuetext", STRINGS.scrubValue(fmt(t), fmt(m.duration), ph >= 0 ? STRINGS.phaseOf(ph + 1, n, m.motion.phases[ph].name) : STRINGS.backToStart));
    ui.time.textContent = STRINGS.clock(fmt(t), fmt(m.duration));
  }
  if (force || ph !== fig._phaseShown) {
    fig._phaseShown = ph;
    ui.items.forEach((li, i) => { if (i === ph) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current"); });
  }
  const N = +fig.dataset.reps || m.motion.repeat || 0;   // the page's prescribed reps, else the document's
  const repIdx = N > 0 ? (Math.floor(fig._clock / m.duration + 1e-9) % N) + 1 : 0;
  if (force || repIdx !== fig._repShown) {
    fig._repShown = repIdx;
    ui.rep.textContent = N > 1 ? STRINGS.rep(repIdx, N) : "";
    ui.rep.hidden = N <= 1;
  }
  const label = fig.playing ? STRINGS.pause : STRINGS.play;
  if (ui.play.getAttribute("aria-label") !== label) {
    ui.play.setAttribute("aria-label", label);
    ui.play.textContent = fig.playing ? STRINGS.pauseIcon : STRINGS.playIcon;
  }
}
