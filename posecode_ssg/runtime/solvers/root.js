/**
 * Contact passes that hold the body on its supports: ground-lock (per foot: stance shift of the
 * root, two-bone leg IK, levelling; hands/forearms pivot), pin (root translation; stance legs of
 * a travelling gait), swing clearance, grip (root translation, arm CCD) and the floor clamp — the
 * same steps as the build-time keyframe solve (posecode_ssg/motion/solve.py; kinematics-reference
 * §6.2–§6.4, §8, §9.2; spec §5 "pin moves the body"). Each reads the segment's
 * {@link module:solvers/plan} (`ctx.plan`) and allocates nothing per frame.
 *
 * Not here yet: orienting a gripping hand to the bar (KR §9.2 step 4, dip bars).
 * @module solvers/root
 */

import { contactHeight, holdMu } from "./plan.js";
import { grounding } from "./grounding.js";
import { axisAngle, fromEulerXYZ, jointAngles, matrix, mul, rotateVec, TO_DEG as DEG, turnXZ } from "../quat.js";
import { ccd } from "./ccd.js";
import { holdUppers, palmDown, upperGap } from "./hands.js";
import { swivel, twoBone } from "./limb.js";


/**
 * Plantigrade levelling (kinematics-reference §6.4; solve.py `_level_foot`): set the ankle's x
 * angle so the sole is flat (its forward axis horizontal) — the angle is atan2(R[1][2], R[1][1])
 * of the knee's world rotation R — clamped to the ankle's box in rig.json `rom`. Tiptoe intent is
 * kept: up to `solver.plantigradeMaxAnkle` of authored x the foot is levelled, over the next
 * 2 × `solver.plantigradeBlend` the levelled and authored angles cross-fade (smoothstep), above
 * that the authored pitch is kept, so a heel raise leaves the floor continuously. The ankle's y and z are locked (box [0, 0]), so its
 * local rotation is qX(x). Re-runs forward kinematics.
 * @param {number} authored the ankle's authored x (degrees) this frame, before any pass
 * @returns {number} NaN when the authored pitch is kept, else how far (degrees) the box stopped
 *   short of flat (needed − used; 0 when flat); `_level.needed` / `_level.used` hold the angles
 */
function levelFoot(ctx, side, authored) {
  const m = ctx.rig.solver.plantigradeMaxAnkle, band = ctx.rig.solver.plantigradeBlend;
  let keep = Math.min(1, Math.max(0, (authored - m) / (2 * band)));
  keep = keep * keep * (3 - 2 * keep);
  if (keep >= 1) return NaN;
  const needed = flatAnkle(ctx, side), box = ctx.plan.ankleBox;
  const used = Math.min(Math.max(needed, box[2 * side]), box[2 * side + 1]);
  setX(ctx, ctx.plan.ankle[side] * 4, (1 - keep) * used + keep * authored);
  _level.needed = needed; _level.used = used;
  return keep > 0 ? NaN : needed - used;
}

/** The ankle x (degrees) that lays `side`'s sole flat: atan2(R[1][2], R[1][1]) of the knee's world rotation R. */
function flatAnkle(ctx, side) {
  const m = matrix(ctx.skeleton.worldQ, ctx.plan.knee[side] * 4, _m);
  return Math.atan2(m[5], m[4]) * DEG;
}

/** Set the joint whose local rotation is at `o` of `localQ` (an ankle, a knee: y and z locked) to x = `deg` degrees and re-pose. */
function setX(ctx, o, deg) {
  const q = ctx.localQ, a = deg / DEG;
  q[o] = Math.sin(0.5 * a); q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = Math.cos(0.5 * a);
  ctx.skeleton.forward(q);
}

/** The ankle x (degrees) of `side` from its local rotation (before any pass: the authored one). */
function ankleX(ctx, side) {
  const o = ctx.plan.ankle[side] * 4;
  return 2 * Math.atan2(ctx.localQ[o], ctx.localQ[o + 3]) * DEG;
}
const _level = { needed: 0, used: 0 }, _m = new Float64Array(9);

/**
 * How firmly a ground-locked foot is held (0–1) from its lowest point `low` (m) before the hold:
 * 1 up to `lo` × `solver.plantedHeight`, smoothstep down to 0 at `hi` ×. A foot the authored
 * joints lift (hamstring curl) is let go first in height (1–2 cm of authored lift), then in its
 * place on the floor (2–3 cm), so it rises before it slides (solve.py `_hold_weight`).
 */
function holdWeight(low, planted, lo, hi) {
  const x = Math.min(1, Math.max(0, (hi * planted - low) / ((hi - lo) * planted)));
  return x * x * (3 - 2 * x);
}

/**
 * Ground-lock of feet, per foot (solve.py `_ground_lock`): two rounds of — drop the locked feet
 * onto the floor, level the planted ones (unless hands or forearms are locked too: a plank stands
 * on its toes), drop again, move the root horizontally by the hold-weighted mean (anchor − sole
 * centre) of the feet planted when the phase began, then a two-bone leg IK (limb.js) puts each
 * such foot's sole on its anchor and on the floor; finally the planted feet are levelled once
 * more, and a foot the ankle's range cannot level raises a `foot-flat` warning. The anchors are
 * carried by the current turn and travel (the choreography frame), except a single locked foot,
 * which is the world-fixed pivot of a turn (travel only).
 */
export const groundLock = {
  run(ctx) {
    const p = ctx.plan, n = p.lockFeet.length;
    if (!n) return;
    const sk = ctx.skeleton, planted = ctx.rig.solver.plantedHeight, lb = sk.lowestByBone;
    const eps2 = ctx.rig.solver.plantTolerance * ctx.rig.solver.plantTolerance;
    const A = p.lockWorld, P = sk.worldP, N = p.lockAnchor;
    const auth = p.lockAuthored;
    for (let k = 0; k < n; k++) {
      auth[k] = ankleX(ctx, p.lockFeet[k]);
      placeXZ(ctx, A, k * 4, p.lockPivot ? 0 : ctx.root[0], N[k * 4], N[k * 4 + 1]);
      turnXZ(A, k * 4 + 2, ctx.root[0], N[k * 4 + 2], N[k * 4 + 3]);
    }
    for (let round = 0; round < 2; round++) {
      dropFeet(sk, p);
      for (let k = 0; k < n; k++) {
        p.lockPlanted[k] = lb[p.lockAnkles[k]] <= planted ? 1 : 0;
        if (p.lockLevel && p.lockPlanted[k]) levelFoot(ctx, p.lockFeet[k], auth[k]);
      }
      dropFeet(sk, p);
      // stance shift (solve.py `_stance_shift`): mean of the feet's errors weighted by
      // hold / (|error|² + ε²): a move all feet need is shared, one foot's own error is left to its leg
      let dx = 0, dz = 0, wsum = 0, any = false;
      for (let k = 0; k < n; k++) {
        const held = p.lockHeld[k] && p.lockPlanted[k], low = lb[p.lockAnkles[k]];
        const wk = held ? holdWeight(low, planted, 0.4, 0.6) : 0;
        p.lockWeight[k] = wk;
        p.lockWeightV[k] = held ? holdWeight(low, planted, 0.2, 0.4) : 0;
        if (!wk) continue;
        any = true;
        const e = holdError(ctx, A, k), ex = e[0], ez = e[1];
        const v = wk / (ex * ex + ez * ez + eps2);
        dx += v * ex; dz += v * ez; wsum += v;
      }
      if (!any) continue;
      sk.translate(dx / wsum, 0, dz / wsum);
      // feet on their toes behind a hands/forearms lock: held by the stance shift and the pivot
      // about their toes only — a straight leg's IK to a point 15 cm off its end is ill-posed
      for (let k = 0; k < n; k++) {
        const wk = p.lockLevel ? p.lockWeight[k] : 0;
        if (!wk) continue;
        sk.measureLowest();
        holdLeg(ctx, A, k, wk, P[p.lockAnkles[k] * 3 + 1] - p.lockWeightV[k] * lb[p.lockAnkles[k]]);
      }
    }
    if (p.uppers.length) pivotOnFeet(ctx);
    const tol = ctx.rig.solver.plantTolerance;
    for (let k = 0; k < n; k++) {
      const wk = p.lockWeight[k];
      if (p.lockPlanted[k]) {
        const miss = p.lockLevel ? levelFoot(ctx, p.lockFeet[k], auth[k]) : 0;
        if (Math.abs(miss) > 0.25 && p.lockWeightV[k] >= 0.999) { // a foot being let go is not planted
          const wr = p.footFlat[k];
          wr.value = _level.needed; wr.limit = _level.used;
          ctx.warnings.push(wr);
        }
        // levelling turned the foot about its ankle: the leg brings its held point back
        if (wk && p.lockLevel) holdLeg(ctx, A, k, wk, P[p.lockAnkles[k] * 3 + 1]);
      }
      // a held foot the leg could not bring back to its anchor is reported (never a silent slide)
      if (!(wk >= 0.999)) continue;
      const e = holdError(ctx, A, k), d = Math.hypot(e[0], e[1]);
      if (d > tol) { p.footDrift[k].value = d; ctx.warnings.push(p.footDrift[k]); }
    }
  },
};

const _e = new Float64Array(2), _T = new Float64Array(3);

/**
 * Two-bone IK of chain `ch` (limb.js) to the point `w` × the hold error `e` (x, z) off the joint at
 * `a` of the world positions, at height `y`; returns the target.
 */
function shiftLeg(ctx, ch, a, w, e, y, ik = true) {
  const P = ctx.skeleton.worldP;
  _T[0] = P[a] + w * e[0]; _T[1] = y; _T[2] = P[a + 2] + w * e[1];
  if (ik) twoBone(ctx, ch, _T);
  return _T;
}

/** Held foot k's leg brings `wk` of its hold error back, its ankle at height `y`; then its heading. */
function holdLeg(ctx, A, k, wk, y) {
  const p = ctx.plan;
  shiftLeg(ctx, p.lockChain[k], p.lockAnkles[k] * 3, wk, holdError(ctx, A, k), y);
  turnBack(ctx, A, k, wk);
}

/** A choreography-frame point (x, z) in the world under turn `ang` and the current travel, into `out[o..]`. */
export function placeXZ(ctx, out, o, ang, x, z) {
  turnXZ(out, o, ang, x, z);
  out[o] = out[o] + ctx.startPos[0] + ctx.root[1];
  out[o + 1] = out[o + 1] + ctx.startPos[2] + ctx.root[2];
}

/**
 * Swivel held foot k's leg back to its anchored heading (limb.js `swivel`); not for feet standing
 * on their toes behind a hands/forearms lock (their heading is not on the floor).
 */
function turnBack(ctx, A, k, wk) {
  const p = ctx.plan, L = ctx.skeleton.landmarkP, h = p.lockHeel[k] * 3, t = p.lockToe[k] * 3;
  if (p.lockLevel) swivel(ctx, p.lockChain[k], L[t] - L[h], L[t + 2] - L[h + 2], A[k * 4 + 2], A[k * 4 + 3], wk);
}

/**
 * Horizontal error (m) of held foot k into `_e`: its footprint point C + μD (world, `A`; plan.js
 * `footprint`) minus its sole point sole + μ(toe − sole), μ = plan.js `holdMu` (the ball of the
 * foot while the heel is up, the heel while the toes are up, else the sole centre).
 */
function holdError(ctx, A, k, lm) {
  const p = ctx.plan, L = ctx.skeleton.landmarkP, a = k * 4, so = lm ? lm[0] : p.lockSole[k], to = lm ? lm[1] : p.lockToe[k];
  const s = so * 3, t = to * 3, m = holdMu(L, so, to, lm ? lm[2] : p.lockHeel[k], ctx.rig.solver.plantTolerance);
  for (let c = 0; c < 2; c++) _e[c] = A[a + c] + m * A[a + 2 + c] - L[s + 2 * c] - m * (L[t + 2 * c] - L[s + 2 * c]);
  return _e;
}

const _rq = new Float64Array(4), _rv = new Float64Array(3), _ax = new Float64Array(3), _pv = new Float64Array(3);

/** Rotate the whole posed figure by `angle` rad about the world axis `ax` through `pivot`. */
function rotateRootAbout(ctx, ax, angle, pivot) {
  const sk = ctx.skeleton;
  mul(sk.rootQ, 0, axisAngle(_rq, 0, ax[0], ax[1], ax[2], angle), 0, sk.rootQ, 0);
  for (let a = 0; a < 3; a++) _rv[a] = sk.rootPos[a] - pivot[a];
  rotateVec(_rv, 0, _rq, 0, _rv, 0);
  for (let a = 0; a < 3; a++) sk.rootPos[a] = pivot[a] + _rv[a];
  sk.forward(ctx.localQ);
}

/**
 * Hands or forearms locked with the feet (plank, mountain-climber; KR §6.3 second path, solve.py
 * `_ground_lock`): Newton iterations (at most `solver.pivotIterations`, finite difference
 * 0.01 rad, steps clamped to `pivotMaxStep`, stop under `pivotTolerance`) turn the rigid body
 * about the horizontal lateral axis through the mean locked ankle until the mean upper-support
 * height error is zero; then nothing may sink below the floor.
 */
function pivotOnFeet(ctx) {
  const sk = ctx.skeleton, p = ctx.plan, solver = ctx.rig.solver, m = matrix(sk.rootQ, 0, _m);
  _ax[0] = m[0]; _ax[1] = 0; _ax[2] = m[6];
  const n = Math.max(Math.hypot(_ax[0], _ax[2]), 1e-9);
  _ax[0] /= n; _ax[2] /= n;
  for (let round = 0; round < solver.pivotRounds; round++) {   // again when a held arm fell short
    for (let it = 0; it < solver.pivotIterations; it++) {
      const e0 = upperGap(ctx);
      if (Math.abs(e0) < solver.pivotTolerance) break;
      _pv.fill(0);
      // about the feet's floor contacts (the toes of feet on their toes), which the turn keeps in place
      // (the held feet when there are some: one arriving from the air is carried)
      const any = p.lockHeld.some((h) => h);
      let nf = 0;
      for (let k = 0; k < p.lockAnkles.length; k++) {
        if (!p.lockHeld[k] && any) continue;
        const L = sk.landmarkP, so = p.lockSole[k] * 3, to = p.lockToe[k] * 3;
        const m = holdMu(L, p.lockSole[k], p.lockToe[k], p.lockHeel[k], solver.plantTolerance);
        for (let a = 0; a < 3; a++) _pv[a] += L[so + a] + m * (L[to + a] - L[so + a]);
        nf++;
      }
      for (let a = 0; a < 3; a++) _pv[a] /= nf;
      rotateRootAbout(ctx, _ax, 0.01, _pv);
      const d = (upperGap(ctx) - e0) / 0.01;
      rotateRootAbout(ctx, _ax, -0.01, _pv);
      if (Math.abs(d) < 1e-4) break;
      const step = Math.min(Math.max(-e0 / d, -solver.pivotMaxStep), solver.pivotMaxStep);
      rotateRootAbout(ctx, _ax, step, _pv);
    }
    holdUppers(ctx);
  }
}

/** Drop the locked feet onto the floor (lowest foot point at y = 0). */
function dropFeet(sk, p) {
  sk.measureLowest();
  let low = Infinity;
  // the held feet when there are some (a foot arriving from the air does not carry the body)
  const any = p.lockHeld.some((h) => h);
  for (let k = 0; k < p.lockFeet.length; k++) if ((p.lockHeld[k] || !any) && sk.lowestByBone[p.lockAnkles[k]] < low) low = sk.lowestByBone[p.lockAnkles[k]];
  sk.translate(0, -low, 0);
  for (let k = 0; k < p.lockFeet.length; k++) sk.lowestByBone[p.lockAnkles[k]] -= low;
}

/**
 * Pin: translate the root by the mean (anchor − effector point) over the phase's pins; a floor
 * pin's anchor height is the effector's contact height; a pinned foot then rests on the floor
 * (solve.py, "pins (KR §8)").
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
 * Stance legs of a travelling gait (solve.py "gait exception", KR §8): the root keeps its
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

/**
 * Turn joint `j` about one of its Euler axes — `ax` 0: its x, about the parent's X axis (knee,
 * ankle); 2: its z, about its own Z axis after x and y (hip abduction) — so that the world point
 * at `o` of `V` rises by `dy` (m): with r = point − joint split about that axis u, the height
 * changes by A cos θ + B sin θ − A (A = r⊥·y, B = (u × r⊥)·y). Of the two roots: the one the
 * joint's rig.json `rom` range (widened to its angle) keeps best, then with `wideFirst` the one
 * toward the wider end of the range (a knee flexes; a hip abducts, the knee going round the
 * outside: the choice does not flip from frame to frame), then the nearest zero;
 * clamped to the range (solve.py `_hinge_up`). Returns the turn (degrees).
 */
function hingeUp(ctx, j, V, o, dy, ax = 0, wideFirst = ax > 0) {
  const sk = ctx.skeleton, P = sk.worldP, q = ctx.localQ, a = j * 3, qo = j * 4, rom = ctx.rig.rom[sk.boneIds[j]], e = _he, U = _hq;
  jointAngles(q, qo, rom, e, 0);
  if (ax) { fromEulerXYZ(U, 0, e[0], e[1], 0); mul(U, 0, sk.worldQ, sk.parent[j] * 4, U, 0); } else U.set(sk.worldQ.subarray(sk.parent[j] * 4, sk.parent[j] * 4 + 4));
  const m = matrix(U, 0, _m), c = ax ? 2 : 0, ux = m[c], uy = m[c + 3], uz = m[c + 6];   // its X or Z axis
  const rx = V[o] - P[a], ry = V[o + 1] - P[a + 1], rz = V[o + 2] - P[a + 2];
  const ru = rx * ux + ry * uy + rz * uz;
  const px = rx - ux * ru, py = ry - uy * ru, pz = rz - uz * ru;
  const A = py, B = uz * px - ux * pz, R = Math.hypot(A, B);
  if (R < 1e-9) return 0;
  const phi = Math.atan2(B, A), ac = Math.acos(Math.min(1, Math.max(-1, (py + dy) / R)));
  const r = ax ? rom.z : rom.x, x0 = e[ax], lo = Math.min(r[0], x0), hi = Math.max(r[1], x0), wide = wideFirst ? r[0] + r[1] : 0;
  let best = x0, key = Infinity;
  for (let i = 0; i < 2; i++) {
    const d = Math.atan2(Math.sin(phi + (i ? -ac : ac)), Math.cos(phi + (i ? -ac : ac))) * DEG;
    const c = Math.min(Math.max(x0 + d, lo), hi);
    const k = Math.round(Math.abs(x0 + d - c) * 1e6) * 1e3 + (d * wide < 0 ? 360 : 0) + Math.abs(d);
    if (k < key) { key = k; best = c; }
  }
  e[ax] = best;
  fromEulerXYZ(q, qo, e[0], e[1], e[2]);
  sk.forward(q);
  return best - x0;
}
const _he = new Float64Array(3), _hq = new Float64Array(4);


/**
 * Swing clearance (solve.py `_clear_free_limbs`): while the body rests on a ground-locked or
 * floor-pinned contact, a leg with no contact of its own this phase (or whose locked foot arrives
 * from the air) that the pose pushes through the floor is lifted within its own chain, not by the
 * floor clamp raising the body off its support: the toe turns up at the ankle; what the ankle's
 * range leaves, the knee flexes away (the lowest of toe, heel and ankle joint rises by the depth);
 * a knee still through the floor goes round it, the hip abducting ({@link hingeUp}); at most
 * `solver.clearanceIterations` rounds. A foot on its heel is not turned at the ankle (that
 * would drive the heel down): the knee lifts it; with its toes up on purpose (ankle dorsiflexed)
 * the hip flexes and the knee bends back by as much, setting it down on its heel with its pitch
 * kept (solve.py `_heel_on_floor`) — the body
 * is never raised off its locked support over a free heel — unless it reaches for the floor
 * (`plan.reachSwing`, after the reach: a foot set down flat rests on its heel). The
 * self-collision pass runs it again after its leg push (selfcollision.js).
 */
export function clearFreeLimbs(ctx, sw = ctx.plan.swing) {
  const sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP, lb = sk.lowestByBone, q = ctx.localQ;
  // the floor the legs are kept above: y = 0, or the rest of the body's lowest point while a pin
  // or the feet have it below (the floor clamp lifts the whole figure afterwards)
  let fl = 0;
  sk.measureLowest();
  for (let b = 0; b < sk.boneCount; b++) if (lb[b] < fl && !sw.some((f) => f.knee === b || f.ankle === b)) fl = lb[b];
  // the knee and hip leave the floor clamp a graze of a fifth of `plantTolerance` (a sole edge of
  // a leg swinging out): flexing a knee over a flat foot first dips its toes
  const graze = fl - 0.2 * ctx.rig.solver.plantTolerance, reached = sw !== ctx.plan.swing;
  for (let i = 0; i < sw.length; i++) {
    const f = sw[i], a = f.ankle * 3, h = f.heel * 3, t = f.toe * 3, k = f.knee * 4;
    // on its heel or not: decided once per phase for the first round (a flat foot's tie flipped the
    // branch from frame to frame: grapevine's knee jumped ~800 rad/s): on its heel when the heel is
    // no higher than the toe (1 mm) at both keyframes, the phase's start (plan.js) and end (its
    // first solve, pose.js); later rounds follow the foot as the first one left it
    if (f.heelDown === undefined) f.heelDown = f.heelDown0 && L[h + 1] <= L[t + 1] + 1e-3;
    for (let it = 0; it < ctx.rig.solver.clearanceIterations; it++) {
      sk.measureLowest();
      if (!(Math.min(lb[f.ankle], lb[f.knee]) < fl - 1e-4)) break;
      if (it ? L[h + 1] <= L[t + 1] : f.heelDown) {
        // on its heel: turning the toes up would drive the heel down; a foot reaching for the
        // floor is left on it, one with its toes up on purpose (ankle dorsiflexed) is set down on
        // its heel by its own leg (the body rose off its locked support: directions' toes-up foot
        // lifted the held one 9.6 mm), else the knee lifts it (below)
        if (reached) break;
        if (q[f.ankle * 4] < 0) {
          // toes up on purpose (ankle dorsiflexed): the hip flexes until the knee is as much
          // higher as the heel is low and the knee bends back by as much, so the shank and foot
          // keep their orientation and only rise, the heel coming forward (flexing the knee alone
          // pitched 15° of dorsiflexion down to 7°); the knee has x only (rig.json rom), its
          // bend-back kept within its range widened to its angle (a hip extending to rise asked it to
          // hyperextend -78°)
          const x = 2 * Math.atan2(q[k], q[k + 3]) * DEG, r = ctx.rig.rom[sk.boneIds[f.knee]].x;
          setX(ctx, k, Math.min(Math.max(x - hingeUp(ctx, sk.parent[f.knee], P, f.knee * 3, fl - lb[f.ankle], 0, true), Math.min(r[0], x)), Math.max(r[1], x)));
          continue;
        }
      } else hingeUp(ctx, f.ankle, L, t, fl - lb[f.ankle]);
      sk.measureLowest();
      if (lb[f.ankle] < graze) {
        const lowest = L[t + 1] < L[h + 1] ? (L[t + 1] < P[a + 1] ? t : -1) : (L[h + 1] < P[a + 1] ? h : -1);
        hingeUp(ctx, f.knee, lowest < 0 ? P : L, lowest < 0 ? a : lowest, graze - lb[f.ankle], 0, true);
        sk.measureLowest();
      }
      if (lb[f.knee] < graze) hingeUp(ctx, sk.parent[f.knee], P, f.knee * 3, graze - lb[f.knee], 2);
    }
  }
}

/** Swing clearance as its own pass, after ground-lock and pin (see {@link clearFreeLimbs}). */
export const swingClearance = {
  run(ctx) {
    if (ctx.plan.swing.length) clearFreeLimbs(ctx);
  },
};

/**
 * Close a gripping hand around the bar (KR §9.2 step 5, §9.3; solve.py `_close_hand`): each digit
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
 * stopping within `solver.gripStopDistance` (solve.py, "grips (KR §9.2)"; solvers/ccd.js).
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

/**
 * A stance foot of a travelling gait back on its footprint after the entry blend (replant): its
 * leg's two-bone IK moves the ankle by the held point's horizontal error, and the ankle then turns
 * with the shank so the sole keeps its pitch (its offset from the levelled angle, `flatAnkle`);
 * twice. The blend's share of the root and joint offsets walked the planted foot (grapevine's
 * stance toe 33 mm). Continuous: at a segment's start the blended pose is the previous end, whose
 * foot is on this footprint. (Swivelling it to its heading here too, or lowering it onto the floor,
 * made the joints jump at the handovers.)
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
 * continuous at the boundary but, half applied, walks a firmly held foot (a contact change: the
 * half-kneel's pinned knee handing over to the feet moved the front foot 6 mm). The root is
 * translated by the mean hold error of the firmly held feet (plan.js footprints, as ground-lock
 * measured them this frame) and down until the lowest of them, or of the figure, is on the floor. Nothing moves at a
 * phase end (no blend), so the numpy keyframe solve has no twin of it.
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
      if (!p.lockHeld[k] || !(p.lockWeightV[k] >= 0.999)) continue;
      const h = Math.min(L[p.lockHeel[k] * 3 + 1], L[p.lockToe[k] * 3 + 1]);
      if (h > tol) { p.footLifted[k].value = h; ctx.warnings.push(p.footLifted[k]); }
    }
  },
};
