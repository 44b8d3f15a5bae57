/**
 * One WebGL renderer per page for every figure ("render and copy"): a single off-screen
 * `WebGLRenderer` draws each visible figure's scene into the corner of its canvas, and the result
 * is copied with `drawImage` into that figure's own 2-D canvas. Browsers allow about 16 live WebGL
 * contexts per page and drop the oldest beyond that (../shared/design/browser-stack.md §2), so a
 * page with 200 figures still holds exactly one. Compared with one full-page canvas and scissor
 * viewports, the copy keeps each figure in normal document flow: themes, sticky headers,
 * `<details>`, tabs and scrolling containers need no special case.
 *
 * Scheduling: one `requestAnimationFrame` loop for the page, running only while some visible
 * figure plays or needs a redraw. An IntersectionObserver tracks which figures are near the
 * viewport (off-screen ones pause and are never drawn; a figure inside a closed `<details>` has no
 * box and counts as off-screen until it is opened); a ResizeObserver and a device-pixel-ratio
 * check resize the figure canvases. The renderer itself is created on the first draw, so a page
 * whose figures never draw (reduced motion, all off-screen) creates no WebGL context at all.
 * @module stage
 */

import {
  CircleGeometry, Color, DirectionalLight, HemisphereLight, Mesh, MeshStandardMaterial, Scene, WebGLRenderer,
} from "three";

const MAX_DPR = 2;
/** Largest dt fed to a playing figure per frame (s): a tab resumed after a stall does not jump,
 *  yet a slow machine drawing 4 frames a second (software WebGL) still plays in real time. */
export const MAX_FRAME_DT = 0.25;

// The page's single stage lives in this module's scope (created by the first `add`/`nextFrame`).
const players = new Set(), visible = new Set();
/** Counters for `window.posecode.stats()` (frames looped, figures drawn, ms drawing and solving, WebGL contexts made). */
export const stats = { frames: 0, draws: 0, drawMs: 0, solveMs: 0, contexts: 0 };
let renderer = null, scene = null, floor = null, contextLost = false, raf = 0, last = 0, dpr = 0, waiters = [], io = null, ro = null;

/** A reader of the CSS custom properties on `el`: `v(name, fallback)` (themes set the colours). */
export const cssVars = (el) => {
  const css = getComputedStyle(el);
  return (n, d) => css.getPropertyValue(n).trim() || d;
};

/** Mark every tracked player for a redraw, or only its canvas size too (`size`). */
const dirtyAll = (size) => { for (const p of players) { p.dirty = true; if (size) p.sizeDirty = true; } };

function init() {
  if (io) return;
  dpr = Math.min(MAX_DPR, window.devicePixelRatio || 1);
  io = new IntersectionObserver((entries) => {
    for (const e of entries) {
      const p = e.target.__posecodePlayer;
      if (!p) continue;
      if (e.isIntersecting) { visible.add(p); p.dirty = true; } else visible.delete(p);
    }
    wake();
  }, { rootMargin: "150px 0px" });
  ro = new ResizeObserver((entries) => {
    for (const e of entries) {
      const p = e.target.__posecodePlayer;
      if (p) { p.cssWidth = e.contentRect.width; p.cssHeight = e.contentRect.height; p.sizeDirty = true; p.dirty = true; }
    }
    wake();
  });
  document.addEventListener("visibilitychange", () => { last = 0; if (!document.hidden) wake(); });
  // a colour-scheme change (the system's, or a theme's toggle writing a class or data attribute
  // on <html> or <body>: Material's `data-md-color-scheme`, `data-theme`): every figure is rebuilt
  // with the colours its CSS now gives (the mannequin is made on the next draw)
  const recolour = () => { for (const p of players) p.mannequin = null; dirtyAll(); wake(); };
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", recolour);
  const mo = new MutationObserver(recolour), attributeFilter = ["class", "data-md-color-scheme", "data-theme"];
  for (const el of [document.documentElement, document.body]) if (el) mo.observe(el, { attributes: true, attributeFilter });
}

/** Start tracking a player (its `view` element is observed). */
export function add(player) {
  init();
  players.add(player);
  player.view.__posecodePlayer = player;
  io.observe(player.view);
  ro.observe(player.view);
}

/** Stop tracking a player. */
export function remove(player) {
  players.delete(player);
  visible.delete(player);
  io.unobserve(player.view);
  ro.unobserve(player.view);
}

/** Make sure a frame is scheduled. */
export function wake() {
  if (!raf) raf = requestAnimationFrame(loop);
}

/** Promise resolved after the next frame has been processed (test hook). */
export function nextFrame() {
  init();
  return new Promise((resolve) => { waiters.push(resolve); wake(); });
}

function ensureRenderer() {
  if (renderer) return renderer;
  const r = new WebGLRenderer({ antialias: true, alpha: true, powerPreference: "low-power" });
  r.setPixelRatio(1);
  r.setClearColor(0x000000, 0);
  r.autoClear = true;
  r.domElement.addEventListener("webglcontextlost", (e) => { e.preventDefault(); contextLost = true; });
  r.domElement.addEventListener("webglcontextrestored", () => {
    contextLost = false;
    dirtyAll();
    wake();
  });
  renderer = r;
  stats.contexts++;
  const v = cssVars(document.documentElement);
  scene = new Scene();
  scene.add(new HemisphereLight(new Color(v("--pc-sky", "#f4f6fb")), new Color(v("--pc-ground-light", "#7d746a")), 2.2));
  const sun = new DirectionalLight(0xffffff, 1.8);
  sun.position.set(2.5, 5, 3.5);
  scene.add(sun);
  floor = new Mesh(new CircleGeometry(25, 64), new MeshStandardMaterial({ roughness: 0.95 }));
  floor.rotation.x = -Math.PI / 2;
  floor.position.y = -0.001;
  scene.add(floor);
  return r;
}

/** Render one figure and copy it into its canvas; false when nothing could be drawn. */
function draw(p) {
  const w = p.canvas.width, h = p.canvas.height;
  if (w < 2 || h < 2) return false;   // no box yet (the ResizeObserver will report one)
  const r = ensureRenderer();
  if (contextLost) return false;
  const c = r.domElement;
  if (c.width < w || c.height < h) r.setSize(Math.max(c.width, w), Math.max(c.height, h), false);
  const t0 = performance.now();
  r.setViewport(0, 0, w, h);
  floor.material.color.set(p.ground);   // the figure's own --pc-ground (its theme's scheme)
  scene.add(p.mannequin.group);
  r.render(scene, p.camera);
  scene.remove(p.mannequin.group);
  p.ctx2d.clearRect(0, 0, w, h);
  p.ctx2d.drawImage(c, 0, c.height - h, w, h, 0, 0, w, h);
  stats.drawMs += performance.now() - t0;
  stats.draws++;
  return true;
}

function loop(now) {
  raf = 0;
  const dt = last ? Math.min(MAX_FRAME_DT, (now - last) / 1000) : 0;
  last = now;
  const d = Math.min(MAX_DPR, window.devicePixelRatio || 1);
  if (d !== dpr) {
    dpr = d;
    dirtyAll(true);
  }
  let busy = false;
  for (const p of visible) {
    if (p.playing) {
      const t0 = performance.now();
      p.advance(dt);
      stats.solveMs += performance.now() - t0;
      busy = true;
    }
    if (p.dirty && p.wantsDraw) {
      p.prepareFrame(dpr);
      if (draw(p)) {
        p.dirty = false;
        p.drawn();
      }
    }
  }
  stats.frames++;
  const w = waiters;
  waiters = [];
  for (const f of w) f();
  if (busy) wake(); else last = 0;
}
