/**
 * The player's camera: framing the whole loop, the orbit (turn, zoom, pan) by keys and pointer,
 * and placing the three.js camera before each draw. State lives on the element `fig`
 * (`_azimuth`, `_elevation`, `_zoom`, `_pan`, `_target`, `_halfV`, `_halfH`, `_mpp`).
 * @module orbit
 */

import { PerspectiveCamera } from "three";
import { attachItems } from "./equipment.js";
import { DEG } from "./quat.js";
import { wake } from "./stage.js";

const FOV = 30;
const VIEWS = { side: -90, front: 0 };
const DEFAULT_AZIMUTH = -35, DEFAULT_ELEVATION = 10;
/** Keys that turn (azimuth, elevation in degrees) or zoom (factor) the view; with Shift the
 *  arrows pan it instead (about a quarter of the view's height per press, the sign of the turn). */
const ORBIT_KEYS = {
  ArrowLeft: [-15, 0], ArrowRight: [15, 0], ArrowUp: [0, 10], ArrowDown: [0, -10],
  "+": [0, 0, 1 / 1.15], "=": [0, 0, 1 / 1.15], "-": [0, 0, 1.15], _: [0, 0, 1.15],
};

/** A new camera of the player's field of view. */
export const makeCamera = () => new PerspectiveCamera(FOV, 4 / 3, 0.05, 50);

/** Bounding sphere of the whole loop (joints, landmarks, props, equipment), sampled at keyframes and midpoints. */
export function frameLoop(fig) {
  const m = fig._model, sk = m.skeleton, T = m.timeline.times;
  // the floor (y = 0) is always in the box
  const lo = [Infinity, 0, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const grow = (p, i = 0) => {
    for (let a = 0; a < 3; a++) {
      if (a !== 1 && p[i + a] < lo[a]) lo[a] = p[i + a];
      if (p[i + a] > hi[a]) hi[a] = p[i + a];
    }
  };
  const eq = m.motion.equipment;
  for (let k = 0; k < T.length - 1; k++) {
    for (const t of [T[k], 0.5 * (T[k] + T[k + 1])]) {
      m.evaluate(t);
      for (const P of [sk.worldP, sk.landmarkP]) for (let i = 0; i < P.length; i += 3) grow(P, i);
      // the equipment too (equipment.js): a bar's ends, a band's, the mat's corners (a square
      // round it), a small item's half length either side
      if (eq) for (const { item, position: p, axis: x, ends } of attachItems(sk, m.rig, eq)) {
        const h = item === "barbell" ? m.rig.equipment.geometry.barbell.bar[0] / 2 : 0.12;
        const d = item === "mat" ? Math.hypot(...eq.mat.size) / 2 : 0;
        for (const s of [-1, 1]) grow(p.map((c, a) => c + s * (d ? (a === 1 ? 0 : d) : h * x[a])));
        ends.forEach((e) => grow(e));
      }
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
  fig._target = [0, 1, 2].map((a) => (lo[a] + hi[a]) / 2);
  /** half extents: vertical, and horizontal in any viewing direction (m) */
  fig._halfV = 0.5 * (hi[1] - lo[1]) + 0.05;
  fig._halfH = 0.5 * Math.hypot(hi[0] - lo[0], hi[2] - lo[2]) + 0.05;
}

/** Back to the element's `data-view` (side, front) or the default three-quarter view, unzoomed. */
export function resetView(fig) {
  const v = fig.getAttribute("data-view");
  fig._azimuth = (v in VIEWS ? VIEWS[v] : DEFAULT_AZIMUTH) * DEG;
  fig._elevation = (v in VIEWS ? 4 : DEFAULT_ELEVATION) * DEG;
  fig._zoom = 1;
  fig._pan = [0, 0];
  fig.dirty = true;
  wake();
}

/**
 * Turn by `dAz`, `dEl` (radians), zoom by the factor `zoom` (the camera distance's) and pan the
 * look-at point by `right`, `up` metres (across the screen and along the vertical). Panning is
 * for a zoomed-in view: the look-at point keeps within (1 − zoom) of the loop's bounding box from
 * its centre, so the view reaches the box's edges (the feet, the hands overhead) and never leaves
 * the figure; zoomed back out, the pan shrinks back to none.
 */
export function orbit(fig, dAz, dEl, zoom = 1, right = 0, up = 0) {
  const clamp = (x, a, b) => Math.max(a, Math.min(b, x)), p = fig._pan;
  fig._azimuth += dAz;
  fig._elevation = clamp(fig._elevation + dEl, -10 * DEG, 80 * DEG);
  fig._zoom = clamp(fig._zoom * zoom, 0.4, 2.5);
  const room = Math.max(0, 1 - fig._zoom), h = room * fig._halfH, v = room * fig._halfV;
  p[0] = clamp(p[0] + right, -h, h);
  p[1] = clamp(p[1] + up, -v, v);
  fig._wantLive = true;
  fig.dirty = true;
  wake();
}

/** Keys on the view: arrows turn (Shift: pan), plus / minus zoom, Home or 0 resets, Space, Enter or k plays / pauses. */
export function onViewKey(fig, e) {
  if (e.target !== fig.view) return;   // a key on the reset button is the button's own (Space/Enter: reset, not play)
  const k = e.key, o = ORBIT_KEYS[k], s = 0.5 * fig._halfV * fig._zoom;
  if (o && e.shiftKey && !o[2]) orbit(fig, 0, 0, 1, Math.sign(o[0]) * s, Math.sign(o[1]) * s);
  else if (o) orbit(fig, o[0] * DEG, o[1] * DEG, o[2]);
  else if (k === "Home" || k === "0") resetView(fig);
  else if (k === " " || k === "Enter" || k === "k") fig.toggle();
  else return;
  e.preventDefault();
}

/** A drag on the view turns it (horizontally only by touch); Shift-drag pans. */
export function onPointerDown(fig, e) {
  if (e.button !== 0 || e.target.closest("button")) return;   // buttons on the view keep their clicks
  const view = fig.view, drag = { x: e.clientX, y: e.clientY, id: e.pointerId, ac: new AbortController() };
  const signal = drag.ac.signal, up = () => { drag.ac.abort(); fig._drag = null; };
  fig._drag = drag;
  view.setPointerCapture(e.pointerId);
  view.addEventListener("pointermove", (e) => {
    if (fig._drag !== drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y, mpp = fig._mpp || 0;
    drag.x = e.clientX; drag.y = e.clientY;
    // Shift-drag pans: the figure follows the pointer (metres per CSS pixel at the look-at point)
    if (e.shiftKey) orbit(fig, 0, 0, 1, -dx * mpp, dy * mpp);
    else orbit(fig, -dx * 0.01, e.pointerType === "touch" ? 0 : dy * 0.01);
  }, { signal });
  view.addEventListener("pointerup", up, { signal });
  view.addEventListener("pointercancel", up, { signal });
}

/** Place camera `c` of `fig`: fit the height and the widest horizontal extent; the near half of the box sits closer. */
export function placeCamera(fig, c) {
  const tanV = Math.tan((FOV / 2) * DEG), tanH = tanV * (c.aspect || 1), az = fig._azimuth, P = fig._pan;
  const d = (Math.max(fig._halfV / tanV, fig._halfH / tanH) + 0.6 * fig._halfH) * fig._zoom;
  const ce = Math.cos(fig._elevation);
  // the look-at point: the box centre panned across the screen (right = (cos az, 0, −sin az)) and up
  const T = [fig._target[0] + P[0] * Math.cos(az), fig._target[1] + P[1], fig._target[2] - P[0] * Math.sin(az)];
  fig._mpp = (2 * d * tanV) / (fig.cssHeight || 1);
  c.position.set(
    T[0] + d * ce * Math.sin(az),
    T[1] + d * Math.sin(fig._elevation),
    T[2] + d * ce * Math.cos(az),
  );
  const r = fig._halfV + fig._halfH;
  c.near = Math.max(0.05, d - 3 * r);
  c.far = d + 30;
  c.lookAt(T[0], T[1], T[2]);
  c.updateProjectionMatrix();
}
