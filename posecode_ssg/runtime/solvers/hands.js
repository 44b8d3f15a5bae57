/**
 * Hands and forearms locked to the floor with the feet (plank, push-up, cat-cow, bird-dog; issue
 * 5: each contact held where it was planted), the same steps as the numpy keyframe solve
 * (posecode_ssg/motion/solve/hands.py `hold_uppers`; kinematics-reference §6.3): after the body's
 * pivot about the feet (groundlock.js) each arm's two-bone IK (limb.js) holds the palm, or the shoulder
 * holds the elbow, where it was on the floor when the phase began.
 * @module solvers/hands
 */

import { contactHeight, placeXZ } from "./measure.js";
import { aim, readChain, span } from "./ccd.js";
import { fromEulerXYZ, jointAngles, matrix, mul, TO_DEG } from "../quat.js";
import { twoBone } from "./limb.js";

const _t = new Float64Array(3), _a = new Float64Array(2);

/**
 * Soft IK near full extension (solve/hands.py `soft_reach`): a wrist target `_t` further than
 * L − δ from the shoulder (L the arm's length, δ = `solver.armSoftReach`) is pulled in to
 * D = L − δ·exp(−(d − L + δ)/δ), so the elbow does not snap straight: straight up or down
 * (its x, z kept: a hand that cannot reach the floor lifts off its anchor rather than slide)
 * while its horizontal distance from the shoulder is under D, else along the shoulder line.
 */
function softReach(ctx, u) {
  const P = ctx.skeleton.worldP, s = u.shoulder * 3, k = ctx.rig.solver.armSoftReach;
  const Ln = span(P, u.elbow, P, u.shoulder) + span(P, u.wrist, P, u.elbow), d = span(_t, 0, P, u.shoulder);
  if (d <= Ln - k || d < 1e-9) return;
  const D = Ln - k * Math.exp(-(d - Ln + k) / k), h = Math.hypot(_t[0] - P[s], _t[2] - P[s + 2]);
  if (h < D) _t[1] = P[s + 1] + Math.sign(_t[1] - P[s + 1]) * Math.sqrt(D * D - h * h);
  else for (let i = 0; i < 3; i++) _t[i] = P[s + i] + (_t[i] - P[s + i]) * D / d;
}

/** World anchor [x, z] of held upper `u` under the current turn and travel, into `_a`. */
function anchorAt(ctx, u) {
  placeXZ(ctx, _a, 0, ctx.root[0], u.anchor[0], u.anchor[1]);
}

/** The farthest (m) a held hand's palm lies from its anchor, horizontally (solve/hands.py `palm_slip`). */
export function palmSlip(ctx) {
  const U = ctx.plan.uppers, L = ctx.skeleton.landmarkP;
  let worst = 0;
  for (let i = 0; i < U.length; i++) {
    const u = U[i];
    if (!u.hand || !u.held) continue;
    anchorAt(ctx, u);
    worst = Math.max(worst, Math.hypot(L[u.palm * 3] - _a[0], L[u.palm * 3 + 2] - _a[1]));
  }
  return worst;
}

/** Mean height (m) of the held hands / forearms (all, when none is held) above their floor
 * contact height: the error the body's pivot about the feet drives to zero (groundlock.js). */
export function upperGap(ctx) {
  const sk = ctx.skeleton, U = ctx.plan.uppers, any = U.some((v) => v.held);
  sk.measureLowest();
  let e = 0, n = 0;
  for (let i = 0; i < U.length; i++) if (U[i].held || !any) { e += sk.worldP[U[i].bone * 3 + 1] - contactHeight(sk, U[i]); n++; }
  return e / n;
}

/**
 * A palm held on the floor presents its surface to it (spec §5: the solver may redistribute
 * incompatible authored roll into a legal forearm/wrist frame; solve/hands.py `palm_flat`, which has
 * the derivation): the forearm's roll ψ (elbow y) is chosen on a 2.5° grid, refined by a
 * parabola, over the elbow's y box extended by the shoulder's room to turn inward, minimising
 * how far the palm normal stays off floor-down once the wrist extends (clamped) + ¼ × the
 * fingers' miss of the body's forward heading beyond 20° of wrist deviation + 0.01 × |ψ −
 * authored|; the elbow takes the roll, the shoulder's y the rest; then the wrist extends
 * ({@link palmDown}) and deviates toward that heading, strictly in its box.
 */
export function palmFlat(ctx, u) {
  const sk = ctx.skeleton, q = ctx.localQ, rom = ctx.rig.rom, e = _pd, E = u.elbow * 4, S = u.shoulder * 4, re = rom[sk.boneIds[u.elbow]], rs = rom[sk.boneIds[u.shoulder]];
  RW = rom[sk.boneIds[u.wrist]]; PRO = u.pro;
  jointAngles(q, E, re, _e, 0); jointAngles(q, S, rs, _e, 3);
  const ye = YE = _e[1], ys = _e[4], lo = Math.min(re.y[0], ye), hi = Math.max(re.y[1], ye);
  // F₀: the forearm's world frame without its roll (elbow world · qY(−ye)); the body's forward
  matrix(mul(_f, 0, sk.worldQ, E, fromEulerXYZ(_f, 0, 0, -ye, 0), 0), 0, _m);
  const R = matrix(sk.rootQ, 0, _r), room = Math.max(0, Math.cos(_e[0] / TO_DEG)) * Math.max(0, PRO < 0 ? ys - rs.y[0] : rs.y[1] - ys);
  PREF = Math.atan2(R[1] + R[2], R[7] + R[8]);
  const a = PRO < 0 ? lo - room : lo, n = Math.max(1, Math.ceil((PRO < 0 ? hi - a : hi + room - a) / 2.5)), h = (PRO < 0 ? hi - a : hi + room - a) / n;
  let k = 0, best = Infinity;
  for (let i = 0; i <= n; i++) { const c = palmCost(a + i * h); if (c < best) { best = c; k = i; } }
  let psi = a + k * h;
  if (k > 0 && k < n) {
    const cm = palmCost(psi - h), cp = palmCost(psi + h), den = cm - 2 * best + cp;
    if (den > 1e-12) psi += Math.min(Math.max(0.5 * h * (cm - cp) / den, -h), h);
  }
  const pe = Math.min(Math.max(psi, lo), hi);
  fromEulerXYZ(q, E, _e[0], pe, _e[2]);
  if (Math.abs(psi - pe) > 1e-9) fromEulerXYZ(q, S, _e[3], ys + psi - pe, _e[5]);
  sk.forward(q);
  palmDown(ctx, u.wrist);
  // turn the hand about its normal toward the heading (wrist deviation)
  const H = matrix(sk.worldQ, u.wrist * 4, _m), dh = PREF - Math.atan2(-H[1], -H[7]);
  if (H[5] < -0.5) {
    jointAngles(q, u.wrist * 4, RW, e, 0);
    fromEulerXYZ(q, u.wrist * 4, e[0], e[1], Math.min(Math.max(e[2] + Math.atan2(Math.sin(dh), Math.cos(dh)) * TO_DEG / H[5], RW.z[0]), RW.z[1]));
    sk.forward(q);
  }
}

/**
 * The cost of forearm roll ψ (degrees) in {@link palmFlat}: the palm normal's miss of floor-down
 * after the clamped wrist extension, + ¼ × the fingers' heading miss beyond 20°, + 0.01 × |ψ −
 * authored|, + 0.1 × the supination (F₀ in `_m`).
 */
function palmCost(psi) {
  const F = _m, c = Math.cos(psi / TO_DEG), s = Math.sin(psi / TO_DEG), d1 = -F[4], d2 = -s * F[3] - c * F[5];
  const a = Math.min(Math.max(Math.atan2(-d1, d2) * TO_DEG, RW.x[0]), RW.x[1]) / TO_DEG, ca = Math.cos(a), sa = Math.sin(a);
  const v0 = -s * sa, v2 = -c * sa, dh = PREF - Math.atan2(F[0] * v0 - F[1] * ca + F[2] * v2, F[6] * v0 - F[7] * ca + F[8] * v2);
  return Math.acos(Math.min(1, Math.max(-1, ca * d2 - sa * d1))) * TO_DEG + 0.01 * Math.abs(psi - YE) + 0.1 * Math.max(0, -PRO * psi) +
    0.25 * Math.max(0, Math.abs(Math.atan2(Math.sin(dh), Math.cos(dh)) * TO_DEG) - 20);
}

const _e = new Float64Array(6), _f = new Float64Array(4), _m = new Float64Array(9), _r = new Float64Array(9);
let RW, PRO = 1, YE = 0, PREF = 0;

/**
 * Dip bars (KR §9.2 step 4; solve/hands.py `palm_down`): extend the wrist so the palm (its local +Z)
 * turns down onto the rail. Turning the wrist by θ about its parent's X axis u (intrinsic XYZ:
 * adding θ to x) takes the palm normal n to n∥ + n⊥ cos θ + (u × n) sin θ, whose downward part is
 * largest at θ = atan2(−(u × n)_y, −n⊥_y); the wrist's x is clamped to its rig.json box (strict:
 * with 70° of extension a hanging hand stops 20° short of flat).
 */
export function palmDown(ctx, bone) {
  const sk = ctx.skeleton, q = ctx.localQ, N = matrix(sk.worldQ, bone * 4, _m), U = matrix(sk.worldQ, sk.parent[bone] * 4, _r);
  const nx = N[2], ny = N[5], nz = N[8], ux = U[0], uy = U[3], uz = U[6], rom = ctx.rig.rom[sk.boneIds[bone]];   // palm normal, parent's X
  jointAngles(q, bone * 4, rom, _pd, 0);
  fromEulerXYZ(q, bone * 4, Math.min(Math.max(_pd[0] + Math.atan2(ux * nz - uz * nx, uy * (nx * ux + ny * uy + nz * uz) - ny) * TO_DEG, rom.x[0]), rom.x[1]), _pd[1], _pd[2]);
  sk.forward(q);
}
const _pd = new Float64Array(3);

/**
 * After the pivot (solve/hands.py `hold_uppers`): `solver.palmRounds` rounds in which a held hand's arm
 * IK (elbow bends −x; twice, as turning the arm swings the palm about the wrist; the target
 * softened near full extension) puts the palm on its anchor's x, z with the hand's lowest point
 * on the floor, and a held elbow is aimed by the shoulder at its anchor at
 * `solver.elbowFloorHeight`. Anchors follow the current turn and travel. Each round first turns
 * every locked palm to the floor ({@link palmFlat}; a hand arriving on the floor too).
 */
export function holdUppers(ctx) {
  const U = ctx.plan.uppers, sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP;
  for (let round = 0; round < ctx.rig.solver.palmRounds; round++) {
    for (let i = 0; i < U.length; i++) {
      const u = U[i];
      if (u.hand) palmFlat(ctx, u);
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
        readChain(ctx, u.chain, 1);
        aim(ctx, u.chain, 0, _t);
      }
    }
  }
}
