/**
 * Measuring helpers the solver passes and the contact plan share (the bottom of the solver
 * imports: only quat.js below it): prop anchors, an effector's contact height above the floor
 * (kinematics-reference §7.1), a planted foot's held point and footprint (issue 5), its hold error,
 * the ankle's authored and levelled angles, and choreography-frame points in the world. Nothing
 * here moves the figure; nothing is allocated per call.
 * @module solvers/measure
 */

import { matrix, TO_DEG, turnXZ } from "../quat.js";

/** A prop anchor's world point ([x, y, z] m) from rig.json `props`, or null. */
export function propAnchor(rig, name) {
  for (const p of Object.values(rig.props)) if (p.anchors && p.anchors[name]) return p.anchors[name];
  return null;
}

/** Bone indices of `bone`'s subtree (itself included). */
function subtree(sk, bone) {
  const out = [];
  for (let i = 0; i < sk.boneCount; i++) {
    let j = i;
    while (j >= 0 && j !== bone) j = sk.parent[j];
    if (j === bone) out.push(i);
  }
  return Int16Array.from(out);
}

/**
 * How the contact height of a floor effector is measured (kinematics-reference §7.1, the numpy
 * solve's `_contact_height`): `{mode, bone, bones, value}`; mode "subtree" (joint height above
 * the lowest mesh point of its subtree: feet, hands), "const" (elbow: rig.json
 * `solver.elbowFloorHeight`), "pelvis" (max of `solver.pelvisFloorMin` and the pelvis height
 * above the back bones' lowest point), "radius" (knee: the larger capsule radius at the knee).
 */
export function contactHeightRule(rig, sk, effector) {
  const bone = sk.index.get(rig.effectors[effector] || effector);
  if (effector.startsWith("elbow")) return { mode: "const", bone, bones: null, value: rig.solver.elbowFloorHeight };
  if (effector === "pelvis") {
    return { mode: "pelvis", bone, bones: Int16Array.from(rig.backBones.map((b) => sk.index.get(b))), value: rig.solver.pelvisFloorMin };
  }
  if (effector.startsWith("knee")) {
    const ankle = sk.index.get(`ankle_${effector.slice(5)}`);
    let r = 0;
    for (let i = 0; i < sk.segFrom.length; i++) {
      if (sk.segTo[i] === bone) r = Math.max(r, sk.segR[i * 2 + 1]);
      if (sk.segFrom[i] === bone && sk.segTo[i] === ankle) r = Math.max(r, sk.segR[i * 2]);
    }
    return { mode: "const", bone, bones: null, value: r };
  }
  return { mode: "subtree", bone, bones: subtree(sk, bone), value: 0 };
}

/**
 * Height (m) of an effector's joint when its own surface just touches the floor; call after
 * `sk.measureLowest()`.
 */
export function contactHeight(sk, rule) {
  if (rule.mode === "const") return rule.value;
  let low = Infinity;
  const lb = sk.lowestByBone;
  for (let i = 0; i < rule.bones.length; i++) if (lb[rule.bones[i]] < low) low = lb[rule.bones[i]];
  const h = sk.worldP[rule.bone * 3 + 1] - low;
  return rule.mode === "pelvis" ? Math.max(rule.value, h) : h;
}

/**
 * Where a planted foot holds the floor (issue 5: a heel raise pivots about the ball of the foot,
 * a foot on its heel about the heel): the point sole + μ·(toe − sole) of the sole line, μ =
 * x(3 − x²)/2 with x = (heel − toe height) / `tol` clamped to [−1, 1] — the sole centre while the
 * foot is flat, its toe edge once the heel is up, its heel once the toes are up.
 * @returns {number} μ
 */
export function holdMu(L, sole, toe, heel, tol) {
  const x = Math.min(1, Math.max(-1, (L[heel * 3 + 1] - L[toe * 3 + 1]) / tol));
  return 0.5 * x * (3 - x * x);
}

/**
 * The floor footprint of a foot (world, horizontal): `out` = [cx, cz, dx, dz], the centre C of
 * the flat sole and D, half the sole line (sole → toe) laid flat along the foot's heading, taken
 * so that C + μD is the held point now (`holdMu`); a held foot keeps C + μD under its sole
 * point sole + μ(toe − sole) whatever its pitch (solve/measure.py `footprint`).
 */
export function footprint(L, sole, toe, heel, tol, out) {
  const m = holdMu(L, sole, toe, heel, tol), s = sole * 3, t = toe * 3;
  const ux = L[t] - L[s], uz = L[t + 2] - L[s + 2];
  const k = Math.hypot(ux, L[t + 1] - L[s + 1], uz) / Math.max(Math.hypot(ux, uz), 1e-9);
  out[2] = ux * k; out[3] = uz * k;
  out[0] = L[s] + m * (ux - out[2]); out[1] = L[s + 2] + m * (uz - out[3]);
  return out;
}

const _e = new Float64Array(2);

/**
 * Horizontal error (m) of held foot k into `_e`: its footprint point C + μD (world, `A`;
 * {@link footprint}) minus its sole point sole + μ(toe − sole), μ = {@link holdMu} (the ball of
 * the foot while the heel is up, the heel while the toes are up, else the sole centre). The
 * foot's sole, toe and heel landmarks are the plan's locked foot k, or `lm` (a floor foot pin's).
 */
export function holdError(ctx, A, k, lm) {
  const p = ctx.plan, L = ctx.skeleton.landmarkP, a = k * 4, so = lm ? lm[0] : p.lockSole[k], to = lm ? lm[1] : p.lockToe[k];
  const s = so * 3, t = to * 3, m = holdMu(L, so, to, lm ? lm[2] : p.lockHeel[k], ctx.rig.solver.plantTolerance);
  for (let c = 0; c < 2; c++) _e[c] = A[a + c] + m * A[a + 2 + c] - L[s + 2 * c] - m * (L[t + 2 * c] - L[s + 2 * c]);
  return _e;
}

/** A choreography-frame point (x, z) in the world under turn `ang` and the current travel, into `out[o..]`. */
export function placeXZ(ctx, out, o, ang, x, z) {
  turnXZ(out, o, ang, x, z);
  out[o] = out[o] + ctx.startPos[0] + ctx.root[1];
  out[o + 1] = out[o + 1] + ctx.startPos[2] + ctx.root[2];
}

const _m = new Float64Array(9);

/** The ankle x (degrees) that lays `side`'s sole flat: atan2(R[1][2], R[1][1]) of the knee's world rotation R. */
export function flatAnkle(ctx, side) {
  const m = matrix(ctx.skeleton.worldQ, ctx.plan.knee[side] * 4, _m);
  return Math.atan2(m[5], m[4]) * TO_DEG;
}

/** The ankle x (degrees) of `side` from its local rotation (before any pass: the authored one). */
export function ankleX(ctx, side) {
  const o = ctx.plan.ankle[side] * 4;
  return 2 * Math.atan2(ctx.localQ[o], ctx.localQ[o + 3]) * TO_DEG;
}
