/**
 * Ground-lock pass (solve/groundlock.py `ground_lock`; kinematics-reference §6.2–§6.4): each held foot on
 * its footprint by a stance shift of the root and a two-bone leg IK (limb.js), levelled; hands or
 * forearms locked with the feet pivot the body about the feet (hands.js holds the arms). Reads the
 * segment's {@link module:solvers/plan} (`ctx.plan`); allocates nothing per frame.
 * @module solvers/groundlock
 */

import { ankleX, holdError, holdMu, placeXZ } from "./measure.js";
import { axisAngle, matrix, mul, rotateVec, turnXZ } from "../quat.js";
import { holdUppers, upperGap } from "./hands.js";
import { levelFoot, levelled, shiftLeg, swivel } from "./limb.js";

/**
 * How firmly a ground-locked foot is held (0–1) from its lowest point `low` (m) before the hold:
 * 1 up to `lo` × `solver.plantedHeight`, smoothstep down to 0 at `hi` × (`[lo, hi]`: rig.json
 * `solver.holdHeightBand` for the height, `solver.holdPlaceBand` for the place). A foot the authored
 * joints lift (hamstring curl) is let go first in height (1–2 cm of authored lift), then in its
 * place on the floor (2–3 cm), so it rises before it slides (solve/groundlock.py `hold_weight`).
 */
function holdWeight(low, planted, lo, hi) {
  const x = Math.min(1, Math.max(0, (hi * planted - low) / ((hi - lo) * planted)));
  return x * x * (3 - 2 * x);
}

/**
 * Ground-lock of feet, per foot (solve/groundlock.py `ground_lock`): two rounds of — drop the locked feet
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
    const sk = ctx.skeleton, solver = ctx.rig.solver, planted = solver.plantedHeight, lb = sk.lowestByBone;
    const eps2 = solver.plantTolerance * solver.plantTolerance;
    const [placeLo, placeHi] = solver.holdPlaceBand, [heightLo, heightHi] = solver.holdHeightBand;
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
      // stance shift (solve/groundlock.py `stance_shift`): mean of the feet's errors weighted by
      // hold / (|error|² + ε²): a move all feet need is shared, one foot's own error is left to its leg
      let dx = 0, dz = 0, wsum = 0, any = false;
      for (let k = 0; k < n; k++) {
        const held = p.lockHeld[k] && p.lockPlanted[k], low = lb[p.lockAnkles[k]];
        const wk = held ? holdWeight(low, planted, placeLo, placeHi) : 0;
        p.lockWeight[k] = wk;
        p.lockWeightV[k] = held ? holdWeight(low, planted, heightLo, heightHi) : 0;
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
        if (Math.abs(miss) > solver.levelMissDeg && p.lockWeightV[k] >= solver.firmHold) { // a foot being let go is not planted
          const wr = p.footFlat[k];
          wr.value = levelled.needed; wr.limit = levelled.used;
          ctx.warnings.push(wr);
        }
        // levelling turned the foot about its ankle: the leg brings its held point back
        if (wk && p.lockLevel) holdLeg(ctx, A, k, wk, P[p.lockAnkles[k] * 3 + 1]);
      }
      // a held foot the leg could not bring back to its anchor is reported (never a silent slide)
      if (!(wk >= solver.firmHold)) continue;
      const e = holdError(ctx, A, k), d = Math.hypot(e[0], e[1]);
      if (d > tol) { p.footDrift[k].value = d; ctx.warnings.push(p.footDrift[k]); }
    }
  },
};

/** Held foot k's leg brings `wk` of its hold error back, its ankle at height `y`; then its heading. */
function holdLeg(ctx, A, k, wk, y) {
  const p = ctx.plan;
  shiftLeg(ctx, p.lockChain[k], p.lockAnkles[k] * 3, wk, holdError(ctx, A, k), y);
  turnBack(ctx, A, k, wk);
}

/**
 * Swivel held foot k's leg back to its anchored heading (limb.js `swivel`); not for feet standing
 * on their toes behind a hands/forearms lock (their heading is not on the floor).
 */
function turnBack(ctx, A, k, wk) {
  const p = ctx.plan, L = ctx.skeleton.landmarkP, h = p.lockHeel[k] * 3, t = p.lockToe[k] * 3;
  if (p.lockLevel) swivel(ctx, p.lockChain[k], L[t] - L[h], L[t + 2] - L[h + 2], A[k * 4 + 2], A[k * 4 + 3], wk);
}

const _m = new Float64Array(9);
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
 * Hands or forearms locked with the feet (plank, mountain-climber; KR §6.3 second path, solve/groundlock.py
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
      const probe = solver.pivotProbeStep;
      rotateRootAbout(ctx, _ax, probe, _pv);
      const d = (upperGap(ctx) - e0) / probe;
      rotateRootAbout(ctx, _ax, -probe, _pv);
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
