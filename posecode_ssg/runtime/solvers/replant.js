/**
 * Replant pass, runtime-only (no numpy twin: nothing moves at a phase end): after the entry blend
 * (blend.js), the firmly held feet back on their footprints. Reads the segment's
 * {@link module:solvers/plan} (`ctx.plan`); allocates nothing per frame.
 * @module solvers/replant
 */

import { ankleX, flatAnkle, holdError } from "./measure.js";
import { setX, shiftLeg } from "./limb.js";

/**
 * A stance foot of a travelling gait back on its footprint after the entry blend (replant): its
 * leg's two-bone IK moves the ankle by the held point's horizontal error, and the ankle then turns
 * with the shank so the sole keeps its pitch (its offset from the levelled angle, `flatAnkle`);
 * twice: the blend's share of the root and joint offsets walks the planted foot otherwise.
 * Continuous: at a segment's start the blended pose is the previous end, whose foot is on this
 * footprint. Neither its heading nor its height is restored here: either makes the joints jump at
 * the stance handovers.
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
 * them, or of the figure, is on the floor. Nothing moves at a phase end (no blend), so the numpy
 * keyframe solve has no twin of it.
 */
export const replant = {
  run(ctx) {
    const p = ctx.plan, n = p.lockFeet.length;
    if (!p.blends || !(ctx.u < 1)) return;
    if (p.stance) for (let i = 0; i < p.pins.length; i++) rehold(ctx, p.pins[i]);
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
