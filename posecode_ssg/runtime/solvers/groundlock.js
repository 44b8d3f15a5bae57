/**
 * Ground-lock pass (solve/groundlock.py `ground_lock`; kinematics-reference §6.2–§6.4): each held foot on
 * its footprint by a stance shift of the root and a two-bone leg IK (limb.js), levelled; hands or
 * forearms locked with the feet pivot the body about the feet (hands.js holds the arms). Reads the
 * segment's {@link module:solvers/plan} (`ctx.plan`); allocates nothing per frame.
 * @module solvers/groundlock
 */

import { ankleX, flatAnkle, holdError, holdMu, placeXZ } from "./measure.js";
import { axisAngle, DEG, matrix, mul, rotateVec, turnXZ } from "../quat.js";
import { holdUppers, palmSlip, upperGap } from "./hands.js";
import { levelFoot, levelled, shiftLeg, swivel } from "./limb.js";

/**
 * How firmly a ground-locked foot is held (0–1) from its lowest point `low` (m) before the hold:
 * 1 up to `lo` × `solver.plantedHeight`, smoothstep down to 0 at `hi` × (`[lo, hi]`: rig.json
 * `solver.holdHeightBand` for the height, `solver.holdPlaceBand` for the place). A foot the authored
 * joints lift (hamstring curl) is let go first in height (1–2 cm of authored lift), then in its
 * place on the floor (2–3 cm), so it rises before it slides (solve/groundlock.py `hold_weight`).
 */
export function holdWeight(low, planted, lo, hi) {
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
    const [placeLo, placeHi] = solver.holdPlaceBand, [heightLo, heightHi] = solver.holdHeightBand, [levelLo, levelHi] = solver.levelBand;
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
        // its levelling fades out as its lowest point with the authored pitch, measured once
        // before any levelling, rises to plantedHeight (solve/groundlock.py `level_weight`)
        if (!round) p.lockLevelW[k] = holdWeight(lb[p.lockAnkles[k]], planted, levelLo, levelHi);
        if (p.lockLevel && p.lockPlanted[k]) levelFoot(ctx, p.lockFeet[k], auth[k], p.lockLevelW[k]);
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
    // the sit-back stands on both feet, each holding the body since the phase began (none arriving)
    if (p.lockLevel && n === 2 && p.lockHeld[0] && p.lockHeld[1]) sitBack(ctx, A, auth);
    const tol = ctx.rig.solver.plantTolerance;
    for (let k = 0; k < n; k++) {
      const wk = p.lockWeight[k];
      if (p.lockPlanted[k]) {
        const miss = p.lockLevel ? levelFoot(ctx, p.lockFeet[k], auth[k], p.lockLevelW[k]) : 0;
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

/**
 * Heels down past the ankle's range (solve/groundlock.py `sit_back`, issue 18): both feet held
 * since the phase began (the caller's condition), firmly down and levelled, a shin leaning forward more than the ankle's dorsiflexion allows would lift
 * its heel; the body sits back over the heels as far as it stays balanced. At a sit-back g (m)
 * the root moves back along the feet's mean heading ĥ by g and to the height at which each leg
 * keeps its hip-to-ankle length with the ankle over a flat sole (`avatar.sole.drop`; with two
 * feet the lower of the two heights), and each held leg seats its foot ({@link seat}). g solves, by secant steps
 * (the first turns a leg of mean length by the excess; at most `solver.sitBackRounds` more),
 * excess(g) = 0 — the most a foot's levelling angle is short of the ankle box, degrees — unless
 * first room(g) = 0: the centre of mass along ĥ less the rear heel and
 * `solver.sitBackHeelMargin`. Short of flat at the end, the feet pivot onto their lowest points
 * (the heel lifts; a `foot-flat` warning says so). `auth`: the feet's authored ankle x.
 */
const _sb = { n: 0, k: new Int8Array(2), hx: 0, hz: 0, rear: 0, root: new Float64Array(3), legs: new Float64Array(14), com: new Float64Array(3),
  rise: new Float64Array(2) };
function sitBack(ctx, A, auth) {
  const p = ctx.plan, sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP, solver = ctx.rig.solver, sb = _sb, K = sb.k;
  // the held feet (a foot arriving from the air is not one), firmly down, neither kept on its toes
  let n = 0, ex = -Infinity, hx = 0, hz = 0;
  for (let k = 0; k < p.lockFeet.length; k++) {
    if (!(p.lockWeight[k] > 0)) continue;
    if (!(p.lockWeightV[k] >= solver.firmHold) || auth[k] > solver.plantigradeMaxAnkle) return;
    K[n++] = k;
    ex = Math.max(ex, excessOf(ctx, p.lockFeet[k]));
    const h = p.lockHeel[k] * 3, t = p.lockToe[k] * 3, fx = L[t] - L[h], fz = L[t + 2] - L[h + 2], d = Math.hypot(fx, fz) || 1e-9;
    hx += fx / d; hz += fz / d;
  }
  const hn = Math.hypot(hx, hz);
  if (!n || !(ex > SIT_BACK_DONE_DEG) || hn < 1e-9) return;
  sb.n = n;
  const legs = sb.legs;
  sb.hx = hx /= hn; sb.hz = hz /= hn;
  let rear = Infinity, lsum = 0;
  for (let i = 0; i < n; i++) {
    const k = K[i], h = p.lockHeel[k] * 3;
    rear = Math.min(rear, L[h] * hx + L[h + 2] * hz);
    // the leg: hip − ankle (x, y, z), its ankle's y, its hip's y, its length, its ankle's y over a flat sole
    const a = p.lockAnkles[k] * 3, hip = p.hip[p.lockFeet[k]] * 3, o = 7 * i;
    for (let c = 0; c < 3; c++) legs[o + c] = P[hip + c] - P[a + c];
    legs[o + 3] = P[a + 1];
    legs[o + 4] = P[hip + 1];
    legs[o + 5] = Math.hypot(legs[o], legs[o + 1], legs[o + 2]);
    legs[o + 6] = p.lockWeightV[k] * sk.avatar.sole.drop + (1 - p.lockWeightV[k]) * P[a + 1];
    // the sine of its foot's excess now (the ankle of a foot pivoted on its ball rises with it)
    sb.rise[i] = Math.sin(excessOf(ctx, p.lockFeet[k]) * DEG);
    lsum += legs[o + 5];
  }
  sb.rear = rear + solver.sitBackHeelMargin;
  let room = comAlong(sk) - sb.rear;
  if (!(room > 0)) return;
  sb.root.set(sk.rootPos);
  // secant steps from g = 0 and a first step that turns a leg of mean length by the excess or takes
  // the centre of mass to the heels' margin (SIT_BACK_COM_SHARE of the root's move), at most
  // SIT_BACK_FIRST_M; each later one at most SIT_BACK_STEP_M; the best point found (balanced, the least excess, then the least
  // sit-back) is where it ends
  let g0 = 0, ex0 = ex, room0 = room, g = -Math.min(ex * DEG * lsum / n, room / SIT_BACK_COM_SHARE, SIT_BACK_FIRST_M);
  place(ctx, A, auth, g, true);
  ex = _placed.ex; room = _placed.room;
  let bg = g, bex = ex, broom = room;
  for (let i = 0; i < solver.sitBackRounds; i++) {
    if ((ex <= SIT_BACK_DONE_DEG && room >= 0) || (room >= 0 && room <= SIT_BACK_ROOM_DONE_M)) break;   // flat, or as far back as the balance allows
    // slopes along g (both fall as the body sits back): the step that flattens the feet, unless
    // the balance allows less (or less than has been taken: the centre of mass is not linear in g)
    const sEx = (ex - ex0) / (g - g0), sRoom = (room - room0) / (g - g0);
    let next = Math.max(sEx > 1e-9 ? g - ex / sEx : -Infinity, sRoom > 1e-9 ? g - room / sRoom : -Infinity);
    next = Math.min(0, g + SIT_BACK_STEP_M, Math.max(next, g - SIT_BACK_STEP_M));
    if (Math.abs(next - g) < 1e-6) break;
    g0 = g; ex0 = ex; room0 = room; g = next;
    place(ctx, A, auth, g, true);
    ex = _placed.ex; room = _placed.room;
    if (room >= 0 && (broom < 0 || ex < bex || (ex === bex && -g < -bg))) { bg = g; bex = ex; broom = room; }
  }
  if (g !== bg || ex !== bex || room !== broom) {
    g = bg; ex = bex; room = broom;
    place(ctx, A, auth, g, true);
  }
  if (ex > SIT_BACK_DONE_DEG) {
    // short of flat: the heels lift, each foot pivots onto its lowest point, its ankle rising as at
    // the start in the ratio of the sines of the excesses (a foot turning about its ball), and the
    // root with it (the legs keep their lengths); so the pose tends to the flat one as the
    // shortfall vanishes
    for (let i = 0; i < n; i++) {
      const o = 7 * i, r0 = sb.rise[i], r = r0 > 1e-9 ? Math.min(1, Math.sin(excessOf(ctx, p.lockFeet[K[i]]) * DEG) / r0) : 0;
      _ankY[i] = legs[o + 6] + (legs[o + 3] - legs[o + 6]) * r;
    }
    place(ctx, A, auth, g, false);
  }
}
const _ankY = new Float64Array(2);

/** degrees a levelled foot may be short of flat for the sit-back to leave it (solve/groundlock.py SIT_BACK_DONE_DEG) */
const SIT_BACK_DONE_DEG = 0.01;
/** metres one step of the sit-back's search may move the root, its first guess (solve/groundlock.py SIT_BACK_STEP_M, SIT_BACK_FIRST_M) */
const SIT_BACK_STEP_M = 0.1, SIT_BACK_FIRST_M = 0.3;
/** the share of a sit-back the centre of mass follows, for the first guess (SIT_BACK_COM_SHARE) */
const SIT_BACK_COM_SHARE = 0.8;
/** metres of balance room within which the sit-back has gone as far back as it may (SIT_BACK_ROOM_DONE_M) */
const SIT_BACK_ROOM_DONE_M = 2e-3;

/** How far (degrees) the ankle box of `side` is short of laying its sole flat (0 when it can). */
function excessOf(ctx, side) {
  const box = ctx.plan.ankleBox, needed = flatAnkle(ctx, side);
  return Math.min(Math.max(needed, box[2 * side]), box[2 * side + 1]) - needed;
}

/** The centre of mass along the sit-back's heading. */
function comAlong(sk) {
  const c = sk.centreOfMass(_sb.com);
  return c[0] * _sb.hx + c[2] * _sb.hz;
}

const _placed = { ex: 0, room: 0 };

/**
 * The root at sit-back `g` ({@link sitBack}), as high as keeps the lower-reaching leg's length to its ankle over
 * a flat sole (`flat`: the search; the feet seated flat) or at `_ankY` (the feet seated on their
 * lowest points). Leaves the excess and the room in `_placed`.
 */
function place(ctx, A, auth, g, flat) {
  const p = ctx.plan, sk = ctx.skeleton, sb = _sb, legs = sb.legs, n = sb.n, K = sb.k;
  let dy = Infinity;
  for (let i = 0; i < n; i++) {
    const o = 7 * i, dx = legs[o] + g * sb.hx, dz = legs[o + 2] + g * sb.hz;
    dy = Math.min(dy, (flat ? legs[o + 6] : _ankY[i]) + Math.sqrt(Math.max(legs[o + 5] * legs[o + 5] - dx * dx - dz * dz, 0)) - legs[o + 4]);
  }
  const r = sk.rootPos;
  sk.translate(sb.root[0] + g * sb.hx - r[0], sb.root[1] + dy - r[1], sb.root[2] + g * sb.hz - r[2]);
  let ex = -Infinity;
  for (let i = 0; i < n; i++) seat(ctx, A, auth, K[i], flat ? legs[7 * i + 6] : NaN);
  for (let i = 0; i < n; i++) ex = Math.max(ex, excessOf(ctx, p.lockFeet[K[i]]));
  _placed.ex = ex;
  _placed.room = comAlong(sk) - sb.rear;
}

/**
 * `foot-flat` for the held feet of the pose the entry blend shows (blend.js): the blend carries
 * the body from the previous phase's end to this phase's solve, and a held foot it shows past the
 * ankle's range, or tilted by more than `solver.levelMissDeg` while the body settles, is not flat
 * on the floor in the picture, whatever this frame's solve managed (the pirouette's landing: the
 * solve sits back over flat feet at once, the picture on its heels over the next second). Never a
 * silent heel lift.
 */
export function flagUnlevelFeet(ctx) {
  const p = ctx.plan, solver = ctx.rig.solver, box = p.ankleBox;
  if (!p.lockLevel) return;
  for (let k = 0; k < p.lockFeet.length; k++) {
    const side = p.lockFeet[k];
    if (!(p.lockWeight[k] > 0) || !(p.lockWeightV[k] >= solver.firmHold) || ctx.warnings.includes(p.footFlat[k])) continue;
    if (p.lockAuthored[k] > solver.plantigradeMaxAnkle) continue;   // kept on its toes on purpose
    const needed = flatAnkle(ctx, side), used = Math.min(Math.max(needed, box[2 * side]), box[2 * side + 1]);
    if (Math.abs(used - needed) > solver.levelMissDeg) {
      const wr = p.footFlat[k];
      wr.value = needed; wr.limit = used; ctx.warnings.push(wr);
    } else {
      const tilt = Math.abs(needed - ankleX(ctx, side));
      if (tilt > solver.levelMissDeg) { p.footSettling[k].value = tilt; ctx.warnings.push(p.footSettling[k]); }
    }
  }
}

/**
 * Held foot k back on its anchor (solve/groundlock.py `_seat`), in two rounds of: level it; the
 * leg's two-bone IK puts the ankle over the anchor at `flatY` (its height over a flat sole) or,
 * with `flatY` NaN, lowers it by its hold weight × the foot's lowest point; swivel its heading
 * back. Then levelled once more (a turn about the ankle: a foot that can lie flat rests on the floor).
 */
function seat(ctx, A, auth, k, flatY) {
  const p = ctx.plan, sk = ctx.skeleton, P = sk.worldP, side = p.lockFeet[k], a = p.lockAnkles[k] * 3, wk = p.lockWeight[k];
  for (let r = 0; r < 2; r++) {
    levelFoot(ctx, side, auth[k]);
    let y = flatY;
    if (Number.isNaN(y)) { sk.measureLowest(); y = P[a + 1] - p.lockWeightV[k] * sk.lowestByBone[p.lockAnkles[k]]; }
    shiftLeg(ctx, p.lockChain[k], a, wk, holdError(ctx, A, k), y);
    turnBack(ctx, A, k, wk);
  }
  levelFoot(ctx, side, auth[k]);
}

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
  const gap = () => upperGap(ctx);
  if (!p.lockKneel) { pivotOnto(ctx, gap); return; }
  // on all fours (plan.lockKneel: the phase starts on both knees) the body turns until the knees
  // are on the floor, and the arms reach the hands from there; as far as they cannot hold them
  // where they were planted, it turns onto its hands instead, as on a plank: the turn is the root
  // of (1 − s)·knees + s·hands, s the kneel release of the hands' miss from the knees
  // (solve/groundlock.py `kneel_release`), continuous as the miss grows
  if (_kneelQ.length < ctx.localQ.length) _kneelQ = new Float64Array(ctx.localQ.length);
  _kneelQ.set(ctx.localQ); _kneelRoot.set(sk.rootPos); _kneelRoot.set(sk.rootQ, 3);
  const knees = () => kneesLow(sk, p);
  pivotOnto(ctx, knees);
  const tol = solver.plantTolerance, [rLo, rHi] = solver.kneelReleaseBand;
  const x = Math.min(1, Math.max(0, (Math.max(Math.abs(gap()), palmSlip(ctx)) - rLo * tol) / ((rHi - rLo) * tol)));
  const share = x * x * (3 - 2 * x);
  if (share > 0) {
    ctx.localQ.set(_kneelQ.subarray(0, ctx.localQ.length));
    sk.rootPos.set(_kneelRoot.subarray(0, 3)); sk.rootQ.set(_kneelRoot.subarray(3, 7));
    sk.forward(ctx.localQ);
    pivotOnto(ctx, share >= 1 ? gap : () => (1 - share) * knees() + share * gap());
  }
}

let _kneelQ = new Float64Array(0);
const _kneelRoot = new Float64Array(7);

/** Pivot rounds (`solver.pivotRounds`): Newton turns about the feet until `f()` is zero, then the
 * held hands / forearms are held (again when a held arm fell short). */
function pivotOnto(ctx, f) {
  const sk = ctx.skeleton, p = ctx.plan, solver = ctx.rig.solver;
  for (let round = 0; round < solver.pivotRounds; round++) {
    for (let it = 0; it < solver.pivotIterations; it++) {
      const e0 = f();
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
      const d = (f() - e0) / probe;
      rotateRootAbout(ctx, _ax, -probe, _pv);
      if (Math.abs(d) < 1e-4) break;
      const step = Math.min(Math.max(-e0 / d, -solver.pivotMaxStep), solver.pivotMaxStep);
      rotateRootAbout(ctx, _ax, step, _pv);
    }
    holdUppers(ctx);
  }
}

/** The lowest knee end (m) of the carrying legs' shin capsules (solve/groundlock.py `knee_bottoms`). */
function kneesLow(sk, p) {
  const any = p.lockHeld.some((h) => h), P = sk.worldP;
  let low = Infinity;
  for (let k = 0; k < p.lockAnkles.length; k++) {
    if (!p.lockHeld[k] && any) continue;
    low = Math.min(low, P[p.lockKnee[k] * 3 + 1] - p.lockKneeR[k]);
  }
  return low;
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
