/**
 * Pin pass (solve/pin.py; spec §5 "pin moves the body"): the root translated so the
 * pinned effectors meet their anchors; a travelling gait's floor foot pins are stance legs held by
 * their own two-bone IK (limb.js). Reads the segment's {@link module:solvers/plan} (`ctx.plan`);
 * allocates nothing per frame.
 * @module solvers/pin
 */

import { ankleX, contactHeight, holdError } from "./measure.js";
import { levelFoot, shiftLeg, swivel, twoBone } from "./limb.js";
import { clearFreeLimbs } from "./swingclearance.js";

/**
 * Pin: translate the root by the mean (anchor − effector point) over the phase's pins; a floor
 * pin's anchor height is the effector's contact height; a pinned foot then rests on the floor
 * (solve/pin.py).
 */
export const pin = {
  run(ctx) {
    const pins = ctx.plan.pins, n = pins.length;
    if (!n) return;
    const sk = ctx.skeleton;
    sk.measureLowest();
    if (ctx.plan.stance) stance(ctx, pins);
    else {
      let dx = 0, dy = 0, dz = 0;
      for (let i = 0; i < n; i++) {
        const q = pins[i], print = q.floor && q.print, side = q.side;
        if (q.chain) levelFoot(ctx, side, q.auth = ankleX(ctx, side));
        const src = q.sole >= 0 ? sk.landmarkP : sk.worldP, o = (q.sole >= 0 ? q.sole : q.bone) * 3;
        const ty = q.floor ? contactHeight(sk, q.rule) : q.target[1], e = print && holdError(ctx, print, 0, q.lm);
        // a floor foot holds its footprint (the ball while the heel is up), other effectors their joint
        dx += print ? e[0] : q.target[0] - src[o];
        dy += ty - src[o + 1];
        dz += print ? e[1] : q.target[2] - src[o + 2];
      }
      sk.translate(dx / n, dy / n, dz / n);
    }
    for (let i = 0; i < n; i++) {
      const q = pins[i];
      if (!q.floor || !q.effector.startsWith("foot_")) continue;
      const side = q.side;
      // a stance leg brings the levelled foot's held point onto its footprint, the ankle at the
      // height that keeps the foot on the floor; the root is lowered first when the hip is more
      // than a straight leg from there (late in a step the heel is up and the ankle further ahead)
      const auth = ctx.plan.stance ? ankleX(ctx, side) : q.auth;
      for (let round = 0; round < (ctx.plan.stance ? 3 : 1); round++) {
        levelFoot(ctx, side, auth);
        if (!ctx.plan.stance) break;
        const e = holdError(ctx, q.print, 0, q.lm);
        // what the leg's boxes leave (hip extension, ankle dorsiflexion at the end of a long
        // step) the root makes up: the body stays back over the foot instead of dragging it
        if (round === 2) { sk.translate(e[0], 0, e[1]); break; }
        sk.measureLowest();
        const T = shiftLeg(ctx, q.chain, q.bone * 3, 1, e, contactHeight(sk, q.rule), false);
        sk.translate(0, -Math.max(0, legDrop(sk.worldP, q, T)), 0);
        twoBone(ctx, q.chain, T);
        keepHeading(ctx, q);
      }
      sk.measureLowest();
      sk.translate(0, -sk.lowestByBone[q.bone], 0);
    }
  },
};

/** Swivel floor foot pin q's leg back to the heading its footprint was planted with (limb.js `swivel`). */
function keepHeading(ctx, q) {
  const L = ctx.skeleton.landmarkP, t = q.lm[1] * 3, h = q.lm[2] * 3;
  swivel(ctx, q.chain, L[t] - L[h], L[t + 2] - L[h + 2], q.print[2], q.print[3], 1);
}

/** How far (m) stance pin q's hip must come down to be within a straight leg of `T` (0 when it is). */
function legDrop(P, q, T) {
  const h = q.chain.bones[0] * 3, dxz2 = (P[h] - T[0]) ** 2 + (P[h + 2] - T[2]) ** 2;
  return dxz2 < q.leg * q.leg ? P[h + 1] - T[1] - Math.sqrt(q.leg * q.leg - dxz2) : 0;
}

/**
 * Stance legs of a travelling gait (motion/support.py, KR §8): the root keeps its
 * travelled position; it is lowered until every stance hip is within a straight leg of its plant,
 * each stance leg's two-bone IK (limb.js) puts the ankle on the plant (at the foot's contact
 * height), and a free foot the lowered body pushes through the floor is lifted by its own leg.
 */
function stance(ctx, pins) {
  const sk = ctx.skeleton, P = sk.worldP;
  let drop = 0;
  for (let i = 0; i < pins.length; i++) {
    const q = pins[i];
    q.target[1] = contactHeight(sk, q.rule);
    drop = Math.max(drop, legDrop(P, q, q.target));
  }
  sk.translate(0, -drop, 0);
  for (let i = 0; i < pins.length; i++) twoBone(ctx, pins[i].chain, pins[i].target);
  clearFreeLimbs(ctx);
}
