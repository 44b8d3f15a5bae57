/**
 * Limb moves the contact passes share: analytic two-bone IK of a limb (ball joint + hinge:
 * hip–knee–ankle, shoulder–elbow–wrist), the same steps as the numpy keyframe solve's `_two_bone`
 * (posecode_ssg/motion/solve/); the swivel that keeps a planted foot's heading; setting a
 * one-axis joint (ankle, knee); plantigrade levelling of a foot. Two-bone IK:
 *
 * 1. Hinge: it turns about its parent's local X axis u (intrinsic XYZ Euler: adding Δ to x is a
 *    rotation by Δ about that axis). With v = end − hinge split about u into v∥ + v⊥ and
 *    w = hinge − ball, the ball-to-end distance after the turn is
 *    |w + Rᵤ(Δ)v|² = C + P cos Δ + Q sin Δ, C = |w + v∥|² + |v⊥|², P = 2 w·v⊥, Q = 2 w·(u × v⊥)
 *    (the law of cosines for a hinge whose bones need not be collinear at rest). Set it equal to
 *    |target − ball|² and take the root Δ that stays inside the hinge's box, bends the natural way
 *    (knee +x, elbow −x: a nearly straight limb has two near roots) and is nearest zero.
 * 2. Ball joint: the shortest arc from (end − ball) to (target − ball), so the limb's plane (the
 *    knee's or elbow's swivel) stays as authored.
 * Each joint is clamped to its rig.json `rom` box widened to its incoming value; a target out of
 * reach or past a limit is left short (the caller measures the residual). No allocation.
 * @module solvers/limb
 */

import { aim, readChain, rotateJoint, setJoint, xAxis } from "./ccd.js";
import { TO_DEG } from "../quat.js";
import { flatAnkle } from "./measure.js";


/**
 * Per-figure records of a pass, made by `make(ctx)` on first use and kept in `cache` (a WeakMap
 * keyed by the solve context), with the bone indices the body passes share: pelvis, neck, head
 * and [left, right] of hip, knee, ankle, elbow, wrist.
 */
export function perFigure(cache, ctx, make) {
  let st = cache.get(ctx);
  if (!st) {
    const sk = ctx.skeleton, ix = (b) => sk.index.get(b), two = (b) => [ix(b + "_left"), ix(b + "_right")];
    st = Object.assign(make(ctx, sk, ctx.rig), { pelvis: ix("pelvis"), neck: ix("neck"), head: ix("head"), hip: two("hip"), knee: two("knee"),
      ankle: two("ankle"), elbow: two("elbow"), wrist: two("wrist"), exempt: new Map() });
    cache.set(ctx, st);
  }
  return st;
}
const _r = new Float64Array(4);

/**
 * Put the end joint of chain `ch` (solvers/ccd.js `makeChain`) on target `t` (world m).
 * @param {object} ctx solve context
 * @param {object} ch chain record
 * @param {Float64Array|number[]} t target
 * @param {number} sign the hinge's natural bend: +1 knee, −1 elbow
 */
export function twoBone(ctx, ch, t, sign = 1) {
  const sk = ctx.skeleton, P = sk.worldP;
  readChain(ctx, ch, 2);
  const h = ch.bones[0] * 3, kn = ch.bones[1] * 3, e = ch.end * 3;
  const u = xAxis(sk.worldQ, ch.bones[0], _r), ux = u[0], uy = u[1], uz = u[2];
  const vx = P[e] - P[kn], vy = P[e + 1] - P[kn + 1], vz = P[e + 2] - P[kn + 2];
  const vu = vx * ux + vy * uy + vz * uz;
  const px = vx - ux * vu, py = vy - uy * vu, pz = vz - uz * vu;            // v⊥
  const wx = P[kn] - P[h], wy = P[kn + 1] - P[h + 1], wz = P[kn + 2] - P[h + 2];
  const sx = wx + ux * vu, sy = wy + uy * vu, sz = wz + uz * vu;            // w + v∥
  const C = sx * sx + sy * sy + sz * sz + px * px + py * py + pz * pz;
  const Pc = 2 * (wx * px + wy * py + wz * pz);
  const cx = uy * pz - uz * py, cy = uz * px - ux * pz, cz = ux * py - uy * px; // u × v⊥
  const Qc = 2 * (wx * cx + wy * cy + wz * cz);
  const R = Math.hypot(Pc, Qc);
  if (R > 1e-9) {
    const dx = t[0] - P[h], dy = t[1] - P[h + 1], dz = t[2] - P[h + 2];
    const ac = Math.acos(Math.min(1, Math.max(-1, (dx * dx + dy * dy + dz * dz - C) / R)));
    const phi = Math.atan2(Qc, Pc);
    const x0 = ch.eul[3], lo = Math.min(ch.box[6], x0), hi = Math.max(ch.box[7], x0);
    let best = 0, bestOut = Infinity, bestHyper = 2, bestAbs = Infinity;
    for (let i = 0; i < 2; i++) {
      let d = i === 0 ? phi + ac : phi - ac;
      d = Math.atan2(Math.sin(d), Math.cos(d));
      const xv = x0 + d * TO_DEG, xc = Math.min(Math.max(xv, lo), hi);
      const out = Math.round(Math.abs(xv - xc) * 1e9) / 1e9, hyper = xc * sign < -1e-6 ? 1 : 0;
      // in the box first, then bent the natural way (a straight limb has two near roots), then nearest
      if (out < bestOut || (out === bestOut && (hyper < bestHyper || (hyper === bestHyper && Math.abs(d) < bestAbs)))) {
        best = xc; bestOut = out; bestHyper = hyper; bestAbs = Math.abs(d);
      }
    }
    ch.eul[3] = best;
    setJoint(ctx, ch, 1);
  }
  aim(ctx, ch, 0, t);
}

/**
 * Keep a planted foot's heading (issue 5: a hip turned out or in must not turn a planted foot):
 * swivel the leg of chain `ch` about its hip → ankle axis a (the ankle stays put) by ψ / a_y,
 * ψ the signed angle about +Y from the foot's heading (heel → toe `u`, world x, z) to the anchored
 * one `d` — a leg hanging down turns its foot by about −a_y times its swivel. Scaled by `k`
 * (how firmly the foot is held); the hip stays in its widened box (solve/limb.py `swivel`).
 */
export function swivel(ctx, ch, ux, uz, dx, dz, k) {
  const P = ctx.skeleton.worldP, b = ch.bones[0] * 3, e = ch.end * 3;
  const x = P[e] - P[b], y = P[e + 1] - P[b + 1], z = P[e + 2] - P[b + 2], n = Math.hypot(x, y, z);
  if (!(y < -0.3 * n)) return;
  const half = 0.5 * k * Math.atan2(uz * dx - ux * dz, ux * dx + uz * dz) * n / y, s = Math.sin(half) / n;
  _r[0] = x * s; _r[1] = y * s; _r[2] = z * s; _r[3] = Math.cos(half);
  rotateJoint(ctx, ch, 0, _r);
}

/** Set the joint whose local rotation is at `o` of `localQ` (an ankle, a knee: y and z locked) to x = `deg` degrees and re-pose. */
export function setX(ctx, o, deg) {
  const q = ctx.localQ, a = deg / TO_DEG;
  q[o] = Math.sin(0.5 * a); q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = Math.cos(0.5 * a);
  ctx.skeleton.forward(q);
}

/** The angles of the last {@link levelFoot} (degrees): the ankle x that lays the sole flat, and the x its box allowed. */
export const levelled = { needed: 0, used: 0 };

/**
 * How much of a foot's authored pitch is kept (0–1) at authored ankle x `authored` (degrees):
 * 0 up to `solver.plantigradeMaxAnkle`, smoothstep to 1 over the next 2 × `plantigradeBlend`
 * (solve/limb.py `tiptoe_share`): the plantigrade levelling's cross-fade, and the weight shift's
 * share of a foot on its ball by intent.
 */
export function tiptoeShare(solver, authored) {
  const x = Math.min(1, Math.max(0, (authored - solver.plantigradeMaxAnkle) / (2 * solver.plantigradeBlend)));
  return x * x * (3 - 2 * x);
}

/**
 * Plantigrade levelling (kinematics-reference §6.4; solve/limb.py `level_foot`): set the ankle's x
 * angle so the sole is flat (its forward axis horizontal) — the angle is atan2(R[1][2], R[1][1])
 * of the knee's world rotation R — clamped to the ankle's box in rig.json `rom`. Tiptoe intent is
 * kept: up to `solver.plantigradeMaxAnkle` of authored x the foot is levelled, over the next
 * 2 × `solver.plantigradeBlend` the levelled and authored angles cross-fade (smoothstep), above
 * that the authored pitch is kept, so a heel raise leaves the floor continuously. The ankle's y
 * and z are locked (box [0, 0]), so its local rotation is qX(x). Re-runs forward kinematics.
 * @param {number} authored the ankle's authored x (degrees) this frame, before any pass
 * @param {number} [weight] the share of the way from the authored angle the ankle goes (a locked
 *   foot rising off the floor: groundlock.js, solve/groundlock.py `level_weight`)
 * @returns {number} NaN when the authored pitch is kept, else how far (degrees) the box stopped
 *   short of flat (needed − used; 0 when flat); {@link levelled} holds the angles
 */
export function levelFoot(ctx, side, authored, weight = 1) {
  const keep = tiptoeShare(ctx.rig.solver, authored);
  if (keep >= 1) return NaN;
  const needed = flatAnkle(ctx, side), box = ctx.plan.ankleBox;
  const used = Math.min(Math.max(needed, box[2 * side]), box[2 * side + 1]), x = (1 - keep) * used + keep * authored;
  setX(ctx, ctx.plan.ankle[side] * 4, weight >= 1 ? x : authored + weight * (x - authored));
  levelled.needed = needed; levelled.used = used;
  return keep > 0 ? NaN : needed - used;
}

const _T = new Float64Array(3);

/**
 * Two-bone IK of chain `ch` to the point `w` × the hold error `e` (x, z) off the joint at `a` of
 * the world positions, at height `y` (with `ik` false only the target is computed); returns the
 * target.
 */
export function shiftLeg(ctx, ch, a, w, e, y, ik = true) {
  const P = ctx.skeleton.worldP;
  _T[0] = P[a] + w * e[0]; _T[1] = y; _T[2] = P[a + 2] + w * e[1];
  if (ik) twoBone(ctx, ch, _T);
  return _T;
}
