/**
 * Grip pass (solve/grip.py): the root translated so the wrists meet their bar, each
 * arm's CCD onto its anchor (ccd.js), the palm turned onto a dip-bar rail (hands.js `palmDown`)
 * and the hand closed. Reads the segment's {@link module:solvers/plan} (`ctx.plan`); allocates
 * nothing per frame.
 * @module solvers/grip
 */

import { fromEulerXYZ } from "../quat.js";
import { ccd } from "./ccd.js";
import { palmDown } from "./hands.js";

const _T = new Float64Array(3);

/**
 * Close a gripping hand around the bar (KR §9.2 step 5, §9.3; solve/hands.py `close_hand`): each digit
 * takes rig.json `handStates.grip` (index to pinky curl about X, the thumb's curl and its turn
 * across about Z, mirrored for the right hand), unless the document authors it (its timeline
 * rotation is not the identity).
 */
function closeHand(ctx, g) {
  const q = ctx.localQ, f = g.fingers;
  for (let i = 0; i < f.length; i++) {
    const o = f[i] * 4;
    if (Math.abs(q[o + 3]) < 1 - 1e-12) continue;
    fromEulerXYZ(q, o, g.curl[i * 3], g.curl[i * 3 + 1], g.curl[i * 3 + 2]);
  }
  ctx.skeleton.forward(q);
}


/**
 * Grip: translate the root by the mean (anchor − wrist joint) over the hands that already held
 * their bar at the previous phase end (the body hangs from them while another hand takes hold),
 * or over every gripping hand when none did; then CCD each arm (shoulder, elbow) onto its anchor,
 * stopping within `solver.gripStopDistance` (solve/grip.py; solvers/ccd.js).
 */
export const grip = {
  run(ctx) {
    const g = ctx.plan.grips, n = g.length;
    if (!n) return;
    const sk = ctx.skeleton, w = sk.worldP, some = g.some((x) => x.held);
    let m = 0;
    _T.fill(0);
    for (let i = 0; i < n; i++) {
      if (some && !g[i].held) continue;
      for (let c = 0; c < 3; c++) _T[c] += g[i].target[c] - w[g[i].bone * 3 + c];
      m++;
    }
    sk.translate(_T[0] / m, _T[1] / m, _T[2] / m);
    // then each arm reaches its anchor (CCD, elbow bends −x) and the hand closes
    for (let i = 0; i < n; i++) {
      ccd(ctx, g[i].chain, g[i].target, -1, false, ctx.rig.solver.gripStopDistance);
      if (g[i].rail) palmDown(ctx, g[i].bone);
      closeHand(ctx, g[i]);
    }
  },
};
