/**
 * Floor-clamp pass (kinematics-reference §6.1 step 14): after the root-moving passes a floor-bound
 * phase touches the floor, none sinks, and a held locked foot left off the floor is reported.
 * @module solvers/floorclamp
 */

import { grounding } from "./grounding.js";

/**
 * Floor clamp (kinematics-reference §6.1 step 14): after the root-moving passes, a floor-bound
 * phase touches the floor with its lowest point and no phase sinks below it (only when a
 * root-moving pass had something to do this segment); a held ground-locked foot left more than
 * half of `solver.plantTolerance` above the floor then raises a `foot-lifted` warning (never a
 * silent lift). The entry blend follows (blend.js).
 */
export const floorClamp = {
  run(ctx) {
    const p = ctx.plan, sk = ctx.skeleton;
    if (p.lockFeet.length || p.pins.length || p.grips.length) grounding.run(ctx);   // (grounding.js)
    // a firmly held locked foot that the rest of the pose keeps off the floor is reported
    const L = sk.landmarkP, tol = 0.5 * ctx.rig.solver.plantTolerance;   // so heel and toe stay within the tolerance
    for (let k = 0; k < p.lockFeet.length; k++) {
      if (!p.lockHeld[k] || !(p.lockWeightV[k] >= ctx.rig.solver.firmHold)) continue;
      const h = Math.min(L[p.lockHeel[k] * 3 + 1], L[p.lockToe[k] * 3 + 1]);
      if (h > tol) { p.footLifted[k].value = h; ctx.warnings.push(p.footLifted[k]); }
    }
  },
};
