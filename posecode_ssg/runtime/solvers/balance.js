/**
 * Weight-shift pass (solve/balance.py, issue 19): a body standing on one foot (`plan.shift`: that
 * foot locked and held since the phase began, or pinned to the floor; the other free) moves its
 * pelvis over the stance foot until the centre of mass lies over the stance sole, the stance leg
 * keeping its foot where it is; back to centre as the other foot comes down to bear weight.
 * Its buffers are module-level: no array is allocated per frame.
 * @module solvers/balance
 */

import { rotateVec } from "../quat.js";
import { holdWeight } from "./groundlock.js";
import { levelFoot, swivel, tiptoeShare, twoBone } from "./limb.js";
import { footprint, holdError } from "./measure.js";


const _c = new Float64Array(3), _v = new Float64Array(3), _q = new Float64Array(2), _ring = new Float64Array(8);
const BOTTOM = [0, 1, 4, 5], _y = new Float64Array(4);
const _print = new Float64Array(4), _target = new Float64Array(3);
const _ankle = new Float64Array(3), _moved = new Float64Array(3), _at = new Float64Array(3);

/**
 * Where the centre of mass (cx, cz) goes to stand over a stance sole, into `out`: the nearest
 * point of its base, itself when inside — the sole's rectangle (`pts`: its 4 bottom corners x, z
 * in soleCorners' order heel −x, toe −x, heel +x, toe +x) in the foot's own axes, each edge moved
 * in by 1 − the larger weight `w` of its two corners, then `m` m out (solve/balance.py `over_base`).
 */
export function overBase(pts, w, m, cx, cz, out) {
  const ox = pts[0], oz = pts[1];
  let ux = 0.5 * (pts[2] + pts[6] - pts[0] - pts[4]), uz = 0.5 * (pts[3] + pts[7] - pts[1] - pts[5]);
  let vx = 0.5 * (pts[4] + pts[6] - pts[0] - pts[2]), vz = 0.5 * (pts[5] + pts[7] - pts[1] - pts[3]);
  const length = Math.hypot(ux, uz), width = Math.hypot(vx, vz);
  ux /= Math.max(length, 1e-12); uz /= Math.max(length, 1e-12); vx /= Math.max(width, 1e-12); vz /= Math.max(width, 1e-12);
  const back = Math.max(w[0], w[2]), front = Math.max(w[1], w[3]), minus = Math.max(w[0], w[1]), plus = Math.max(w[2], w[3]);
  const a = Math.min(Math.max((cx - ox) * ux + (cz - oz) * uz, (1 - back) * length - m), length - (1 - front) * length + m);
  const b = Math.min(Math.max((cx - ox) * vx + (cz - oz) * vz, (1 - minus) * width - m), width - (1 - plus) * width + m);
  out[0] = ox + a * ux + b * vx; out[1] = oz + a * uz + b * vz;
  return out;
}

/**
 * A plan table probed at even steps of a segment (`T[stride·k + j]`, k = 0 … N), at u (0–1):
 * Catmull-Rom through the probes (C1, so the body moves without kinks between them), level at
 * both ends, in [0, 1].
 */
function probed(T, stride, j, u) {
  const N = T.length / stride - 1, k = Math.min(N - 1, Math.floor(u * N)), f = u * N - k;
  // reflected past the ends: the curve is level at a segment's first and last instant, so the
  // shift starts and stops with the segment at rest (C1 with a segment that does not shift)
  const at = (i) => T[stride * (i < 0 ? -i : i > N ? 2 * N - i : i) + j];
  const p0 = at(k - 1), p1 = at(k), p2 = at(k + 1), p3 = at(k + 2);
  const v = p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)));
  return Math.min(1, Math.max(0, v));
}

/**
 * The stance state of plan record `w` on the pose as it is: the lift share of the rest of the body
 * (returned: all but the stance leg — the free foot, a knee leaving the floor — 0 while its lowest
 * point is down, 1 a band up: solve/balance.py `shift_weight`), the stance sole's base corners
 * (x, z) into `_ring` and their weights into `corner` (balance.py `corner_weights`: the bottom corners of
 * its box, skeleton.js soleCorners with the y bit clear, each weighted by its height over the
 * lowest by the same band).
 */
export function measureStance(ctx, w, corner) {
  const sk = ctx.skeleton, P = sk.worldP, solver = ctx.rig.solver, lb = sk.lowestByBone, q = sk.worldQ, a = w.ankle * 3;
  sk.measureLowest();
  let rest = Infinity;
  for (let b = 0; b < lb.length; b++) if (!w.leg[b] && lb[b] < rest) rest = lb[b];
  let low = Infinity;
  for (let j = 0; j < 4; j++) {
    rotateVec(_v, 0, q, w.ankle * 4, sk.soleCorners, BOTTOM[j] * 3);
    _ring[2 * j] = P[a] + _v[0]; _ring[2 * j + 1] = P[a + 2] + _v[2]; corner[j] = _v[1];
    if (_v[1] < low) low = _v[1];
  }
  const band = solver.shiftHeightBand;
  for (let j = 0; j < 4; j++) corner[j] = holdWeight(corner[j] - low, solver.plantedHeight, band[0], band[1]);
  return 1 - holdWeight(rest, solver.plantedHeight, band[0], band[1]);
}

export const weightShift = {
  run(ctx) {
    const w = ctx.plan.shift;
    if (!w || w.probing) return;   // figuremodel.js `_shiftAhead` measures the unshifted pose
    const sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP, solver = ctx.rig.solver, lb = sk.lowestByBone;
    measureStance(ctx, w, _y);
    // between the phase ends, the plan's look-ahead and look-behind (figuremodel.js
    // `_shiftAhead`): the weight goes over before the rest of the body lifts and comes back after
    // it is down, and a base corner (a heel coming down) counts only after it has; at the phase
    // ends its probes are the pose's own measures (the numpy twin's)
    const u = ctx.startSolve ? 0 : ctx.u;   // a segment's first instant (figuremodel.js `_solve` start)
    const lifted = probed(w.ahead, 1, 0, u);
    if (!(lifted > 0) || lb[w.ankle] > solver.plantedHeight) return;
    const a = w.ankle * 3, h = w.heel * 3, t = w.toe * 3, q = sk.worldQ, tol = solver.plantTolerance;
    for (let i = 0; i < 3; i++) _ankle[i] = P[a + i];
    const hx = L[t] - L[h], hz = L[t + 2] - L[h + 2];
    // the base's corner weights: a heel counts only once it is down (balance.py `over_base`)
    for (let j = 0; j < 4; j++) _y[j] = probed(w.cornerE, 4, j, u);
    footprint(L, w.sole, w.toe, w.heel, tol, _print);
    // the ankle back where it was, then on by the held point's own slip and its sole's height (a
    // foot on its ball keeps its authored pitch against the shin, so a leaning shin moves and lifts
    // the ball); whether the foot is held and flat
    const tiptoe = tiptoeShare(solver, w.auth);
    const hold = () => {
      _target.set(_ankle);
      let miss = 0, e = null;
      for (let i = 0; i < solver.shiftHoldRounds; i++) {
        twoBone(ctx, w.chain, _target);
        swivel(ctx, w.chain, L[t] - L[h], L[t + 2] - L[h + 2], hx, hz, 1);
        miss = levelFoot(ctx, w.side, w.auth);
        e = holdError(ctx, _print, 0, w.lm);
        _target[0] += e[0]; _target[2] += e[1];
        if (tiptoe > 0) {   // on its ball by intent (limb.js levelFoot keeps the authored pitch): its sole down
          let y = Infinity;
          for (let j = 0; j < 4; j++) {
            rotateVec(_v, 0, q, w.ankle * 4, sk.soleCorners, BOTTOM[j] * 3);
            y = Math.min(y, P[a + 1] + _v[1]);
          }
          _target[1] -= tiptoe * Math.max(0, y);
        }
      }
      return !(Math.abs(miss) > solver.levelMissDeg) && Math.hypot(e[0], e[1]) <= tol;
    };
    // the body leans over the foot about the ankle (balance.py `shift_weight`): the root goes
    // `share` of the way along the horizontal move found, its height keeping the stance hip's
    // distance from the ankle
    const hp = w.hip * 3, hx0 = P[hp] - _ankle[0], hy0 = P[hp + 1], hz0 = P[hp + 2] - _ankle[2];
    const reach2 = hx0 * hx0 + (hy0 - _ankle[1]) ** 2 + hz0 * hz0;
    _moved.fill(0);
    const place = (share) => {
      const x = share * _moved[0], z = share * _moved[2];
      const y = _ankle[1] + Math.sqrt(Math.max(reach2 - (hx0 + x) ** 2 - (hz0 + z) ** 2, 0)) - hy0;
      sk.translate(x - _at[0], y - _at[1], z - _at[2]);
      _at[0] = x; _at[1] = y; _at[2] = z;
      return hold();
    };
    _at.fill(0);
    let ok = true;
    for (let r = 0; r < solver.shiftRounds; r++) {
      sk.centreOfMass(_c);
      overBase(_ring, _y, solver.shiftMargin, _c[0], _c[2], _q);
      const dx = (_q[0] - _c[0]) / solver.shiftComShare, dz = (_q[1] - _c[2]) / solver.shiftComShare;
      if (Math.hypot(dx, dz) * solver.shiftComShare <= solver.shiftDone) break;
      _moved[0] += dx; _moved[2] += dz;
      ok = place(1);
    }
    if (!_moved[0] && !_moved[2]) return;
    // the largest share of the shift the leg holds (bisected), then the lift's share of that
    let share = 1, kept = 1;
    if (!ok) {
      let lo = 0, hi = 1;
      for (let i = 0; i < solver.shiftBisect; i++) {
        share = 0.5 * (lo + hi);
        if (place(share)) lo = share; else hi = share;
      }
      kept = lo;
    }
    // and no more than leans the stance leg `shiftLeanLimit` across its foot (balance.py `lean_share`)
    let nx = hz, nz = -hx;
    const nn = Math.max(Math.hypot(nx, nz), 1e-12);
    nx /= nn; nz /= nn;
    const a0 = hx0 * nx + hz0 * nz, da = _moved[0] * nx + _moved[2] * nz;
    const cap = Math.max(Math.tan(solver.shiftLeanLimit * Math.PI / 180) * (hy0 - _ankle[1]), Math.abs(a0));
    if (Math.abs(da) > 1e-12 && Math.abs(a0 + da) > cap) kept = Math.min(kept, Math.min(1, Math.max(0, (Math.sign(da) * cap - a0) / da)));
    if (lifted * kept !== share) place(lifted * kept);
  },
};
