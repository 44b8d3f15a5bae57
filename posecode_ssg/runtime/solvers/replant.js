/**
 * Replant pass, runtime-only (no numpy twin: nothing moves at a phase end): after the entry blend
 * (blend.js), the firmly held feet back on their footprints. Reads the segment's
 * {@link module:solvers/plan} (`ctx.plan`); allocates nothing per frame.
 * @module solvers/replant
 */

import { ankleX, flatAnkle, holdError } from "./measure.js";
import { setX, shiftLeg } from "./limb.js";
import { clearFreeLimbs } from "./swingclearance.js";

/** Seconds a stance foot takes to come down from where the previous phase ended it (replant). */
const LAND = 0.15;

/**
 * A stance foot of a travelling gait back on its footprint after the entry blend (replant): its
 * leg's two-bone IK moves the ankle by the held point's horizontal error, and the ankle then turns
 * with the shank so the sole keeps its pitch (its offset from the levelled angle, `flatAnkle`);
 * twice: the blend's share of the root and joint offsets walks the planted foot otherwise.
 * Continuous: at a segment's start the blended pose is the previous end, whose foot is on this
 * footprint. Its heading is not restored here (the joints jump at the stance handovers); its
 * height is, by the root (see {@link replant}), not the leg: a near-straight leg's IK turns a
 * millimetre of ankle height into degrees of knee (box-step's knee jumped 15.8 rad/s).
 */
function rehold(ctx, q) {
  const P = ctx.skeleton.worldP, side = q.side, box = ctx.plan.ankleBox;
  for (let round = 0; round < 2; round++) {
    const e = holdError(ctx, q.print, 0, q.lm), off = ankleX(ctx, side) - flatAnkle(ctx, side);
    shiftLeg(ctx, q.chain, q.bone * 3, 1, e, P[q.bone * 3 + 1]);
    setX(ctx, ctx.plan.ankle[side] * 4, Math.min(Math.max(flatAnkle(ctx, side) + off, box[2 * side]), box[2 * side + 1]));
  }
}

/**
 * Replant, after the entry blend (blend.js): the blend adds a fading share of the offset between
 * the previous phase's end and this segment's start — root and joints — which keeps the pose
 * continuous at the boundary but, half applied, walks a firmly held foot (at a contact change: a pinned
 * knee handing over to the feet). The root is translated by the mean hold error of the firmly held
 * feet (plan.js footprints, as ground-lock measured them this frame) and down until the lowest of
 * them, or of the figure, is on the floor. A travelling gait's stance feet are re-held, then the
 * root is lowered until the lowest of them is on the floor, or, while a foot that the previous
 * phase ended in the air is landing, at its height there (plan.js `h0`) times 1 − smoothstep over
 * the first {@link LAND} s; a free leg that this pushes through the floor is lifted by its own
 * chain (swingclearance.js). Without it the blend's offsets lifted the planted foot (box-step
 * 'Right foot back': its sole 72 mm off the floor mid-phase). Nothing moves at a phase end (no
 * blend), so the numpy keyframe solve has no twin of it.
 */
export const replant = {
  run(ctx) {
    const p = ctx.plan, n = p.lockFeet.length;
    if (!p.blends || !(ctx.u < 1)) return;
    if (p.stance) {
      // the stance feet down: the root lowered (raised) so the lowest of them is where the
      // blend's weight k puts it, from its height at the previous end (plan.js `h0`) to the floor
      const sk = ctx.skeleton, lb = sk.lowestByBone, x = Math.min(1, ctx.u * ctx.segDt[ctx.segment] / LAND), k = 1 - x * x * (3 - 2 * x);
      let dy = Infinity;
      for (let i = 0; i < p.pins.length; i++) rehold(ctx, p.pins[i]);
      sk.measureLowest();
      for (let i = 0; i < p.pins.length; i++) dy = Math.min(dy, lb[p.pins[i].bone] - k * p.pins[i].h0);
      sk.translate(0, -dy, 0);
      if (p.swing.length) clearFreeLimbs(ctx);
    }
    if (!n) return;
    const sk = ctx.skeleton, lb = sk.lowestByBone;
    let dx = 0, dz = 0, low = sk.measureLowest(), m = 0;   // (no lower than the whole figure's lowest point)
    for (let k = 0; k < n; k++) {
      if (!(p.lockWeight[k] >= 0.999 && p.lockWeightV[k] >= 0.999)) continue;
      const e = holdError(ctx, p.lockWorld, k), w = ctx.warnings.indexOf(p.footLifted[k]);
      dx += e[0]; dz += e[1]; m++;
      low = Math.min(low, lb[p.lockAnkles[k]]);
      if (w >= 0) ctx.warnings.splice(w, 1);   // the floor clamp's warning, now on the floor again
    }
    if (m) sk.translate(dx / m, -low, dz / m);
  },
};
