/**
 * Hands and forearms locked to the floor with the feet (plank, push-up, cat-cow, bird-dog; issue
 * 5: each contact held where it was planted), the same steps as the numpy keyframe solve
 * (posecode_ssg/motion/solve.py `_level_palm`, `_hold_uppers`; kinematics-reference §6.3, §7.2):
 * a locked hand's palm is laid flat by the forearm's twist and the wrist's flexion, and after the
 * body's pivot about the feet (root.js) each arm's two-bone IK (limb.js) holds the palm, or the
 * shoulder holds the elbow, where it was on the floor when the phase began.
 * @module solvers/hands
 */

import { contactHeight, contactHeightRule } from "./plan.js";
import { aim, eulerOf, makeChain } from "./ccd.js";
import { fromEulerXYZ } from "../quat.js";
import { twoBone } from "./limb.js";

const DEG = 180 / Math.PI;
const _e = new Float64Array(6), _t = new Float64Array(3), _a = new Float64Array(2);

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
    chain: hand ? makeChain(rig, sk, [`shoulder_${s}`, `elbow_${s}`], `wrist_${s}`) : makeChain(rig, sk, [`shoulder_${s}`], `elbow_${s}`),
    box: Float64Array.from([...rig.rom[`elbow_${s}`].y, ...rig.rom[`wrist_${s}`].x]) });
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
 * Lay a floor hand's palm flat (solve.py `_level_palm`): with m the world-Y row of
 * S·Rx(elbow x) (S the shoulder's world rotation), the forearm twist moves from the authored
 * e_y toward e* = atan2(−m₀, −m₂) (clamped to the elbow's y box within ±70°, widened to e_y) by
 * smoothstep(min(1, |(m₀, m₂)| / 0.5)) · min(1, 2 cos(δ/2)), δ = e* − e_y wrapped to ±180°; the wrist x that turns the palm normal most downward,
 * atan2(m₁, −K) with K = m₀ sin e_y + m₂ cos e_y, is clamped to the wrist's box.
 */
function levelPalm(ctx, u) {
  const q = ctx.localQ, W = ctx.skeleton.worldQ, o = u.shoulder * 4, b = u.box;
  eulerOf(q, u.elbow * 4, _e, 0); eulerOf(q, u.wrist * 4, _e, 3);
  const x = W[o], y = W[o + 1], z = W[o + 2], w = W[o + 3];
  const r1 = 1 - 2 * (x * x + z * z), r2 = 2 * (y * z - w * x), ca = Math.cos(_e[0] / DEG), sa = Math.sin(_e[0] / DEG);
  const m0 = 2 * (x * y + w * z), m1 = r1 * ca + r2 * sa, m2 = r2 * ca - r1 * sa;
  let dev = Math.atan2(-m0, -m2) * DEG - _e[1];
  dev -= 360 * Math.floor((dev + 180) / 360);
  const e1 = Math.min(Math.max(_e[1] + dev, Math.min(Math.max(b[0], -70), _e[1])), Math.max(Math.min(b[1], 70), _e[1]));
  const t = Math.min(1, Math.hypot(m0, m2) / 0.5), f = Math.min(1, 2 * Math.cos(dev / DEG / 2));
  const ey = _e[1] + t * t * (3 - 2 * t) * f * (e1 - _e[1]);
  const K = m0 * Math.sin(ey / DEG) + m2 * Math.cos(ey / DEG);
  fromEulerXYZ(q, u.elbow * 4, _e[0], ey, _e[2]);
  fromEulerXYZ(q, u.wrist * 4, Math.min(Math.max(Math.atan2(m1, -K) * DEG, b[2]), b[3]), _e[4], _e[5]);
  ctx.skeleton.forward(q);
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

/** Palms of the locked hands flat (before the pivot: it aims at the hands' floor height). */
export function levelPalms(ctx) {
  const U = ctx.plan.uppers;
  for (let i = 0; i < U.length; i++) if (U[i].hand) levelPalm(ctx, U[i]);
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
 * After the pivot (solve.py `_hold_uppers`): `solver.palmRounds` rounds of — level each locked
 * palm, then a held hand's arm IK (elbow bends −x; twice, as turning the arm swings the palm
 * about the wrist) puts the palm on its anchor's x, z with the
 * hand's lowest point on the floor, a held elbow is aimed by the shoulder at its anchor at
 * `solver.elbowFloorHeight`. Anchors follow the current turn and travel.
 */
export function holdUppers(ctx) {
  const U = ctx.plan.uppers, sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP;
  for (let round = 0; round < ctx.rig.solver.palmRounds; round++) {
    for (let i = 0; i < U.length; i++) {
      const u = U[i];
      if (u.hand) levelPalm(ctx, u);
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
