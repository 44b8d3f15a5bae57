/**
 * `window.posecode`, the page-wide registry of figures and the test hooks: `figures`, `frame()`
 * (resolves after the next drawn frame), `stats()` and `freeze(t)`.
 * @module registry
 */

import { nextFrame, stats } from "./stage.js";

/** The registry behind `window.posecode`. */
export function registry() {
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
