/**
 * Hands and forearms locked to the floor with the feet (plank, push-up, cat-cow, bird-dog; issue
 * 5: each contact held where it was planted), the same steps as the numpy keyframe solve
 * (posecode_ssg/motion/solve.py `_hold_uppers`; kinematics-reference §6.3): after the body's
 * pivot about the feet (root.js) each arm's two-bone IK (limb.js) holds the palm, or the shoulder
 * holds the elbow, where it was on the floor when the phase began.
 * @module solvers/hands
 */

import { contactHeight, contactHeightRule } from "./plan.js";
import { aim, eulerOf, makeChain } from "./ccd.js";
import { twoBone } from "./limb.js";

const _t = new Float64Array(3), _a = new Float64Array(2);

/**
 * The plan of one locked hand or elbow (plan.js): its contact-height rule plus the limb's bones,
 * chain and anchor — the palm landmark (hand) or elbow joint where it was on the floor (lowest
 * point ≤ `solver.plantedHeight`) in the solved pose `sk` ending the previous phase, kept in the
 * choreography frame (turn and travel removed) like a stance of feet; `held` 0 when it was not down.
 */
export function planUpper(rig, sk, c, startPos, prevRoot) {
  const u = contactHeightRule(rig, sk, c), s = c.slice(c.indexOf("_") + 1), hand = c.startsWith("hand");
  const ids = (b) => sk.index.get(`${b}_${s}`);
  Object.assign(u, { hand, shoulder: ids("shoulder"), elbow: ids("elbow"), wrist: ids("wrist"),
    palm: sk.landmarkIndex.get(`palm_${s}`), anchor: new Float64Array(2), held: 0,
    chain: hand ? makeChain(rig, sk, [`shoulder_${s}`, `elbow_${s}`], `wrist_${s}`) : makeChain(rig, sk, [`shoulder_${s}`], `elbow_${s}`) });
  sk.measureLowest();
  const src = hand ? sk.landmarkP : sk.worldP, o = (hand ? u.palm : u.elbow) * 3;
  const low = hand ? sk.worldP[u.bone * 3 + 1] - contactHeight(sk, u) : src[o + 1] - u.value;
  if (low <= rig.solver.plantedHeight) {
    const x = src[o] - startPos[0] - prevRoot[1], z = src[o + 2] - startPos[2] - prevRoot[2];
    const c0 = Math.cos(prevRoot[0]), s0 = Math.sin(prevRoot[0]);
    u.anchor[0] = c0 * x - s0 * z; u.anchor[1] = s0 * x + c0 * z; u.held = 1;
  }
  return u;
}

/**
 * Soft IK near full extension (solve.py `_soft_reach`): a wrist target `_t` further than
 * L − δ from the shoulder (L the arm's length, δ = `solver.armSoftReach`) is pulled in to
 * L − δ·exp(−(d − L + δ)/δ) along the same line, so the elbow does not snap straight.
 */
function softReach(ctx, u) {
  const P = ctx.skeleton.worldP, s = u.shoulder * 3, e = u.elbow * 3, w = u.wrist * 3, k = ctx.rig.solver.armSoftReach;
  const Ln = Math.hypot(P[e] - P[s], P[e + 1] - P[s + 1], P[e + 2] - P[s + 2]) + Math.hypot(P[w] - P[e], P[w + 1] - P[e + 1], P[w + 2] - P[e + 2]);
  const d = Math.hypot(_t[0] - P[s], _t[1] - P[s + 1], _t[2] - P[s + 2]);
  if (d <= Ln - k || d < 1e-9) return;
  const f = (Ln - k * Math.exp(-(d - Ln + k) / k)) / d;
  for (let i = 0; i < 3; i++) _t[i] = P[s + i] + (_t[i] - P[s + i]) * f;
}

/** World anchor [x, z] of held upper `u` under the current turn and travel, into `_a`. */
function anchorAt(ctx, u) {
  const r = ctx.root, c0 = Math.cos(r[0]), s0 = Math.sin(r[0]);
  _a[0] = c0 * u.anchor[0] + s0 * u.anchor[1] + ctx.startPos[0] + r[1];
  _a[1] = -s0 * u.anchor[0] + c0 * u.anchor[1] + ctx.startPos[2] + r[2];
}

/** Mean height (m) of the held hands / forearms (all, when none is held) above their floor
 * contact height: the error the body's pivot about the feet drives to zero (root.js). */
export function upperGap(ctx) {
  const sk = ctx.skeleton, U = ctx.plan.uppers, any = U.some((v) => v.held);
  sk.measureLowest();
  let e = 0, n = 0;
  for (let i = 0; i < U.length; i++) if (U[i].held || !any) { e += sk.worldP[U[i].bone * 3 + 1] - contactHeight(sk, U[i]); n++; }
  return e / n;
}

/**
 * After the pivot (solve.py `_hold_uppers`): `solver.palmRounds` rounds in which a held hand's arm
 * IK (elbow bends −x; twice, as turning the arm swings the palm about the wrist; the target
 * softened near full extension) puts the palm on its anchor's x, z with the hand's lowest point
 * on the floor, and a held elbow is aimed by the shoulder at its anchor at
 * `solver.elbowFloorHeight`. Anchors follow the current turn and travel.
 */
export function holdUppers(ctx) {
  const U = ctx.plan.uppers, sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP;
  for (let round = 0; round < ctx.rig.solver.palmRounds; round++) {
    for (let i = 0; i < U.length; i++) {
      const u = U[i];
      if (!u.held) continue;
      anchorAt(ctx, u);
      const ax = _a[0], az = _a[1];
      if (u.hand) {
        for (let k = 0; k < 2; k++) {   // again: turning the arm swings the palm about the wrist
          sk.measureLowest();
          const l = u.palm * 3, a = u.wrist * 3;
          _t[0] = P[a] + ax - L[l]; _t[1] = contactHeight(sk, u); _t[2] = P[a + 2] + az - L[l + 2];
          softReach(ctx, u);
          twoBone(ctx, u.chain, _t, -1);
        }
      } else {
        _t[0] = ax; _t[1] = u.value; _t[2] = az;
        eulerOf(ctx.localQ, u.shoulder * 4, u.chain.eul, 0);
        u.chain.wid.set(u.chain.eul);
        aim(ctx, u.chain, 0, _t);
      }
    }
  }
}
