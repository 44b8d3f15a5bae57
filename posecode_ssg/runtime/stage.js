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

class Stage {
  constructor() {
    this.players = new Set();
    this.visible = new Set();
    this.renderer = null;
    this.contextLost = false;
    this.raf = 0;
    this.last = 0;
    this.dpr = Math.min(MAX_DPR, window.devicePixelRatio || 1);
    this.waiters = [];
    this.stats = { frames: 0, draws: 0, drawMs: 0, solveMs: 0, contexts: 0 };
    this._loop = this._loop.bind(this);
    this.io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const p = e.target.__posecodePlayer;
        if (!p) continue;
        if (e.isIntersecting) { this.visible.add(p); p.dirty = true; } else this.visible.delete(p);
      }
      this.wake();
    }, { rootMargin: "150px 0px" });
    this.ro = new ResizeObserver((entries) => {
      for (const e of entries) {
        const p = e.target.__posecodePlayer;
        if (p) { p.cssWidth = e.contentRect.width; p.cssHeight = e.contentRect.height; p.sizeDirty = true; p.dirty = true; }
      }
      this.wake();
    });
    document.addEventListener("visibilitychange", () => { this.last = 0; if (!document.hidden) this.wake(); });
  }

  /** Start tracking a player (its `view` element is observed). */
  add(player) {
    this.players.add(player);
    player.view.__posecodePlayer = player;
    this.io.observe(player.view);
    this.ro.observe(player.view);
  }

  /** Stop tracking a player. */
  remove(player) {
    this.players.delete(player);
    this.visible.delete(player);
    this.io.unobserve(player.view);
    this.ro.unobserve(player.view);
  }

  /** Make sure a frame is scheduled. */
  wake() {
    if (!this.raf) this.raf = requestAnimationFrame(this._loop);
  }

  /** Promise resolved after the next frame has been processed (test hook). */
  nextFrame() {
    return new Promise((resolve) => { this.waiters.push(resolve); this.wake(); });
  }

  _ensureRenderer() {
    if (this.renderer) return this.renderer;
    const r = new WebGLRenderer({ antialias: true, alpha: true, powerPreference: "low-power" });
    r.setPixelRatio(1);
    r.setClearColor(0x000000, 0);
    r.autoClear = true;
    r.domElement.addEventListener("webglcontextlost", (e) => { e.preventDefault(); this.contextLost = true; });
    r.domElement.addEventListener("webglcontextrestored", () => {
      this.contextLost = false;
      for (const p of this.players) p.dirty = true;
      this.wake();
    });
    this.renderer = r;
    this.stats.contexts++;
    const css = getComputedStyle(document.documentElement);
    const v = (n, d) => css.getPropertyValue(n).trim() || d;
    this.scene = new Scene();
    this.scene.add(new HemisphereLight(new Color(v("--pc-sky", "#f4f6fb")), new Color(v("--pc-ground-light", "#7d746a")), 2.2));
    const sun = new DirectionalLight(0xffffff, 1.8);
    sun.position.set(2.5, 5, 3.5);
    this.scene.add(sun);
    const floor = new Mesh(new CircleGeometry(25, 64), new MeshStandardMaterial({ color: v("--pc-ground", "#d9d5cc"), roughness: 0.95 }));
    floor.rotation.x = -Math.PI / 2;
    floor.position.y = -0.001;
    this.scene.add(floor);
    return r;
  }

  /** Render one figure and copy it into its canvas; false when nothing could be drawn. */
  _draw(p) {
    const w = p.canvas.width, h = p.canvas.height;
    if (w < 2 || h < 2) return false;   // no box yet (the ResizeObserver will report one)
    const r = this._ensureRenderer();
    if (this.contextLost) return false;
    const c = r.domElement;
    if (c.width < w || c.height < h) r.setSize(Math.max(c.width, w), Math.max(c.height, h), false);
    const t0 = performance.now();
    r.setViewport(0, 0, w, h);
    this.scene.add(p.mannequin.group);
    r.render(this.scene, p.camera);
    this.scene.remove(p.mannequin.group);
    p.ctx2d.clearRect(0, 0, w, h);
    p.ctx2d.drawImage(c, 0, c.height - h, w, h, 0, 0, w, h);
    this.stats.drawMs += performance.now() - t0;
    this.stats.draws++;
    return true;
  }

  _loop(now) {
    this.raf = 0;
    const dt = this.last ? Math.min(MAX_FRAME_DT, (now - this.last) / 1000) : 0;
    this.last = now;
    const dpr = Math.min(MAX_DPR, window.devicePixelRatio || 1);
    if (dpr !== this.dpr) {
      this.dpr = dpr;
      for (const p of this.players) { p.sizeDirty = true; p.dirty = true; }
    }
    let busy = false;
    for (const p of this.visible) {
      if (p.playing) {
        const t0 = performance.now();
        p.advance(dt);
        this.stats.solveMs += performance.now() - t0;
        busy = true;
      }
      if (p.dirty && p.wantsDraw) {
        p.prepareFrame(this.dpr);
        if (this._draw(p)) {
          p.dirty = false;
          p.drawn();
        }
      }
    }
    this.stats.frames++;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
    if (busy) this.wake(); else this.last = 0;
  }
}

let stage = null;
/** The page's single {@link Stage}. */
export function getStage() {
  if (!stage) stage = new Stage();
  return stage;
}
