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
import { flatAnkle, footprint, holdError } from "./measure.js";


const _c = new Float64Array(3), _v = new Float64Array(3), _q = new Float64Array(2), _ring = new Float64Array(18);
const BOTTOM = [0, 1, 4, 5], _y = new Float64Array(9), _target = new Float64Array(3);
const _moved = new Float64Array(3), _at = new Float64Array(3), _saved = new Float64Array(24);

/**
 * Where the centre of mass (cx, cz) goes to stand over `n` stance soles, into `out`: the nearest
 * point of their base, itself when inside (solve/balance.py `over_base`, `foot_rect`). `pts`:
 * each sole's 4 bottom corners x, z in soleCorners' order (heel −x, toe −x, heel +x, toe +x), 8
 * numbers a sole; `w`: their weights, 4 a sole; `m`: the margin (m) each edge lies outside.
 */
export function overBase(pts, w, n, m, cx, cz, out, nf = 0) {
  let ux = 0, uz = 0;
  for (let k = 0; k < n; k++) {
    const p = 8 * k, hx = 0.5 * (pts[p + 2] + pts[p + 6] - pts[p] - pts[p + 4]), hz = 0.5 * (pts[p + 3] + pts[p + 7] - pts[p + 1] - pts[p + 5]);
    const l = Math.max(Math.hypot(hx, hz), 1e-12);
    ux += hx / l; uz += hz / l;
  }
  const ul = Math.max(Math.hypot(ux, uz), 1e-12);
  ux /= ul; uz /= ul;
  const vx = uz, vz = -ux;
  let a0 = Infinity, a1 = -Infinity, b0 = Infinity, b1 = -Infinity, mx = 0, mz = 0;
  for (let k = 0; k < n; k++) {
    const p = 8 * k, q = 4 * k, ox = pts[p], oz = pts[p + 1];
    const fx = 0.5 * (pts[p + 2] + pts[p + 6] - pts[p] - pts[p + 4]), fz = 0.5 * (pts[p + 3] + pts[p + 7] - pts[p + 1] - pts[p + 5]);
    const sx = 0.5 * (pts[p + 4] + pts[p + 6] - pts[p] - pts[p + 2]), sz = 0.5 * (pts[p + 5] + pts[p + 7] - pts[p + 1] - pts[p + 3]);
    const back = Math.max(w[q], w[q + 2]), front = Math.max(w[q + 1], w[q + 3]), minus = Math.max(w[q], w[q + 1]), plus = Math.max(w[q + 2], w[q + 3]);
    for (let i = 0; i < 4; i++) {
      const fa = i & 2 ? front : 1 - back, fb = i & 1 ? plus : 1 - minus;
      const x = ox + fa * fx + fb * sx, z = oz + fa * fz + fb * sz, pu = x * ux + z * uz, pv = x * vx + z * vz;
      if (pu < a0) a0 = pu; if (pu > a1) a1 = pu; if (pv < b0) b0 = pv; if (pv > b1) b1 = pv;
      mx += x / (4 * n); mz += z / (4 * n);   // the centre the free sole's points are drawn to
    }
  }
  a0 -= m; a1 += m; b0 -= m; b1 += m;
  const ca = cx * ux + cz * uz, cb = cx * vx + cz * vz;
  // the free sole's corners (after the stance soles' in `pts` and `w`), each drawn towards the
  // centre of what the stance soles bear by 1 − its weight; those outside the rectangle widen the base to the
  // hull of its corners and them (balance.py `over_base`, `free_corners`)
  let k = 0;
  if (nf) {
    for (let j = 0; j < nf; j++) {
      const f = w[4 * n + j], x = mx + f * (pts[8 * n + 2 * j] - mx), z = mz + f * (pts[8 * n + 2 * j + 1] - mz);
      const pa = x * ux + z * uz, pb = x * vx + z * vz;
      if (pa >= a0 && pa <= a1 && pb >= b0 && pb <= b1) continue;
      _hp[8 + 2 * k] = pa; _hp[9 + 2 * k] = pb; k++;
    }
  }
  let a, b;
  if (k) {
    _hp[0] = a0; _hp[1] = b0; _hp[2] = a1; _hp[3] = b0; _hp[4] = a1; _hp[5] = b1; _hp[6] = a0; _hp[7] = b1;
    hullNearest(_hp, 4 + k, ca, cb, _q2);
    a = _q2[0]; b = _q2[1];
  } else {
    a = Math.min(Math.max(ca, a0), a1); b = Math.min(Math.max(cb, b0), b1);
  }
  out[0] = a * ux + b * vx; out[1] = a * uz + b * vz;
  return out;
}

const _hp = new Float64Array(18), _q2 = new Float64Array(2), _ord = new Int8Array(9), _hull = new Int8Array(19);

/**
 * The nearest point to (px, pz) of the convex hull of the first `k` points (pairs) of `pts`, into
 * `out`: the point itself inside (balance.py `hull_nearest`: Andrew's monotone chain, collinear
 * points dropped, then the nearest of the edges' nearest points).
 */
export function hullNearest(pts, k, px, pz, out) {
  for (let i = 0; i < k; i++) {   // sorted by x, then z (insertion sort: a handful of points)
    let j = i;
    for (; j > 0; j--) {
      const o = _ord[j - 1], ax = pts[2 * o], bx = pts[2 * i];
      if (ax < bx || (ax === bx && pts[2 * o + 1] <= pts[2 * i + 1])) break;
      _ord[j] = o;
    }
    _ord[j] = i;
  }
  const cross = (o, a, bx, bz) => (pts[2 * a] - pts[2 * o]) * (bz - pts[2 * o + 1]) - (pts[2 * a + 1] - pts[2 * o + 1]) * (bx - pts[2 * o]);
  let h = 0;
  for (let i = 0; i < k; i++) {   // the lower chain
    const q = _ord[i];
    if (h && pts[2 * _hull[h - 1]] === pts[2 * q] && pts[2 * _hull[h - 1] + 1] === pts[2 * q + 1]) continue;
    while (h >= 2 && cross(_hull[h - 2], _hull[h - 1], pts[2 * q], pts[2 * q + 1]) <= 0) h--;
    _hull[h++] = q;
  }
  for (let i = k - 2, lo = h + 1; i >= 0; i--) {   // the upper chain
    const q = _ord[i];
    while (h >= lo && cross(_hull[h - 2], _hull[h - 1], pts[2 * q], pts[2 * q + 1]) <= 0) h--;
    _hull[h++] = q;
  }
  if (h > 1) h--;   // the first point closes the chain
  let inside = h >= 3;
  for (let i = 0; i < h && inside; i++) if (cross(_hull[i], _hull[(i + 1) % h], px, pz) < 0) inside = false;
  if (inside) { out[0] = px; out[1] = pz; return out; }
  let best = Infinity;
  for (let i = 0; i < h; i++) {
    const a = _hull[i], c = _hull[(i + 1) % h], ax = pts[2 * a], az = pts[2 * a + 1], dx = pts[2 * c] - ax, dz = pts[2 * c + 1] - az;
    const t = Math.min(1, Math.max(0, ((px - ax) * dx + (pz - az) * dz) / Math.max(dx * dx + dz * dz, 1e-24)));
    const qx = ax + t * dx, qz = az + t * dz, d = (px - qx) ** 2 + (pz - qz) ** 2;
    if (d < best) { best = d; out[0] = qx; out[1] = qz; }
  }
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
 * (returned: all but the stance legs — the free foot, a knee or a hand leaving the floor — 0 while
 * its lowest point is down, 1 a band up: solve/balance.py `shift_weight`), each stance sole's base
 * corners (x, z) into `_ring` (8 a leg) and their weights into `corner` (4 a leg; balance.py
 * `corner_weights`: the bottom corners of its box, skeleton.js soleCorners with the y bit clear,
 * each weighted by its height over the lowest by the same band).
 */
export function measureStance(ctx, w, corner) {
  const sk = ctx.skeleton, P = sk.worldP, solver = ctx.rig.solver, lb = sk.lowestByBone, q = sk.worldQ, band = solver.shiftHeightBand;
  sk.measureLowest();
  let rest = Infinity;
  for (let b = 0; b < lb.length; b++) if (!w.leg[b] && lb[b] < rest) rest = lb[b];
  w.legs.forEach((l, k) => {
    const a = l.ankle * 3;
    let low = Infinity;
    for (let j = 0; j < 4; j++) {
      rotateVec(_v, 0, q, l.ankle * 4, sk.soleCorners, BOTTOM[j] * 3);
      _ring[8 * k + 2 * j] = P[a] + _v[0]; _ring[8 * k + 2 * j + 1] = P[a + 2] + _v[2]; corner[4 * k + j] = _v[1];
      if (_v[1] < low) low = _v[1];
    }
    for (let j = 0; j < 4; j++) corner[4 * k + j] = holdWeight(corner[4 * k + j] - low, solver.plantedHeight, band[0], band[1]);
  });
  if (w.free >= 0) {   // the free sole's corners, by their height over the floor (balance.py `free_corners`)
    const n = w.legs.length, a = w.free * 3;
    w.freeLift = 1 - holdWeight(lb[w.free], solver.plantedHeight, band[0], band[1]);   // the whole foot's
    for (let j = 0; j < 4; j++) {
      rotateVec(_v, 0, q, w.free * 4, sk.soleCorners, BOTTOM[j] * 3);
      _ring[8 * n + 2 * j] = P[a] + _v[0]; _ring[8 * n + 2 * j + 1] = P[a + 2] + _v[2];
      corner[4 * n + j] = holdWeight(P[a + 1] + _v[1], solver.plantedHeight, band[0], band[1]);
    }
    const y = w.freeShoe >= 0 ? sk.volumeBottom(w.freeShoe, _v) : Infinity;
    _ring[8 * n + 8] = _v[0]; _ring[8 * n + 9] = _v[2];
    corner[4 * n + 4] = holdWeight(y, solver.plantedHeight, band[0], band[1]);
  }
  return 1 - holdWeight(rest, solver.plantedHeight, band[0], band[1]);
}

/**
 * The largest share (0–1) of the root move (mx, mz) stance leg `l` keeps its sole flat for
 * (`l.h0`: hip less ankle; `l.hx`, `l.hz`: heading; `l.needed`: the levelling ankle x, degrees;
 * `box`: plan.ankleBox): solve/balance.py `pitch_share`.
 */
function pitchShare(l, mx, mz, box) {
  const hn = Math.max(Math.hypot(l.hx, l.hz), 1e-12), hx = l.hx / hn, hz = l.hz / hn, H = l.h0;
  const f0 = H[0] * hx + H[2] * hz, d = mx * hx + mz * hz;
  if (Math.abs(d) < 1e-12) return 1;
  const side = hz * H[0] - hx * H[2];
  const reach = Math.sqrt(Math.max(H[0] * H[0] + H[1] * H[1] + H[2] * H[2] - side * side, 1e-12));
  const lean = Math.atan2(f0, H[1]);
  const room = d > 0 ? (l.needed - box[2 * l.side]) * Math.PI / 180 : -(box[2 * l.side + 1] - l.needed) * Math.PI / 180;
  const limit = reach * Math.sin(Math.min(Math.max(lean + room, -Math.PI / 2), Math.PI / 2)) - f0;
  if ((d > 0 && limit >= d) || (d < 0 && limit <= d)) return 1;
  return Math.min(1, Math.max(0, limit / d));
}

export const weightShift = {
  run(ctx) {
    const w = ctx.plan.shift;
    if (!w) {   // the feet's lowest points where the numpy twin decides a reached stance (plan.js `reachedStance`)
      const low = ctx.plan.stanceLow;
      if (low) {
        ctx.skeleton.measureLowest();
        low[0] = ctx.skeleton.lowestByBone[ctx.plan.ankle[0]]; low[1] = ctx.skeleton.lowestByBone[ctx.plan.ankle[1]];
      }
      return;
    }
    // figuremodel.js `_shiftAhead` probes the pose unshifted: over both feet here, as the numpy
    // twin measures it at its pass (before the reaches: hands reaching for the toes are not yet
    // down); over one foot as shown, after every pass (a swinging foot's toe the swing clearance
    // lifts leaves the floor when the figure shows it)
    if (w.probing) { if (w.legs.length === 2) w.probe = measureStance(ctx, w, w.corner); return; }
    const sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP, solver = ctx.rig.solver, lb = sk.lowestByBone;
    const legs = w.legs, n = legs.length, q = sk.worldQ, tol = solver.plantTolerance;
    measureStance(ctx, w, _y);
    // both feet: their lowest points here, where the numpy twin decides whether the angles lift
    // one (plan.js `liftedStance`, read after the end keyframe's solve)
    if (n === 2) { w.low[0] = lb[legs[0].ankle]; w.low[1] = lb[legs[1].ankle]; }
    // between the phase ends, the plan's look-ahead and look-behind (figuremodel.js
    // `_shiftAhead`): the weight goes over before the rest of the body lifts and comes back after
    // it is down, and a base corner (a heel coming down) counts only after it has; at the phase
    // ends its probes are the pose's own measures (the numpy twin's)
    const u = ctx.startSolve ? 0 : ctx.u;   // a segment's first instant (figuremodel.js `_solve` start)
    const lifted = probed(w.ahead, 1, 0, u);
    if (!(lifted > 0) || legs.some((l) => lb[l.ankle] > solver.plantedHeight)) return;
    for (const l of legs) {
      const a = l.ankle * 3, h = l.heel * 3, t = l.toe * 3;
      for (let i = 0; i < 3; i++) l.at[i] = P[a + i];
      l.hx = L[t] - L[h]; l.hz = L[t + 2] - L[h + 2];
      footprint(L, l.sole, l.toe, l.heel, tol, l.print);
      l.tiptoe = tiptoeShare(solver, l.auth);
      l.needed = flatAnkle(ctx, l.side);
      const hp = l.hip * 3;
      l.h0[0] = P[hp] - l.at[0]; l.h0[1] = P[hp + 1] - l.at[1]; l.h0[2] = P[hp + 2] - l.at[2];
    }
    // the base's corner weights: a heel counts only once it is down (balance.py `over_base`)
    // a free sole's corners as they are now (measured above: the shift moves the free foot with
    // the body, so the unshifted probes do not tell its height), as far as the foot is not about
    // to lift (its look-ahead)
    const C = w.corner.length, keepF = 1 - probed(w.aheadF, 1, 0, u);
    for (let j = 0; j < C; j++) _y[j] = j < 4 * n ? probed(w.cornerE, 4 * n, j, u) : Math.min(_y[j], keepF);
    // each ankle back where it was, then on by the held point's own slip and its sole's height (a
    // foot on its ball keeps its authored pitch against the shin, so a leaning shin moves and lifts
    // the ball); whether every foot is held and flat
    const hold = () => {
      let ok = true;
      for (const l of legs) {
        const a = l.ankle * 3, h = l.heel * 3, t = l.toe * 3;
        _target.set(l.at);
        let miss = 0, e = null;
        for (let i = 0; i < solver.shiftHoldRounds; i++) {
          twoBone(ctx, l.chain, _target);
          swivel(ctx, l.chain, L[t] - L[h], L[t + 2] - L[h + 2], l.hx, l.hz, 1);
          miss = levelFoot(ctx, l.side, l.auth);
          e = holdError(ctx, l.print, 0, l.lm);
          _target[0] += e[0]; _target[2] += e[1];
          let ey = 0;
          if (l.tiptoe > 0) {   // on its ball by intent (limb.js levelFoot keeps the authored pitch): its sole down
            let y = Infinity;
            for (let j = 0; j < 4; j++) {
              rotateVec(_v, 0, q, l.ankle * 4, sk.soleCorners, BOTTOM[j] * 3);
              y = Math.min(y, P[a + 1] + _v[1]);
            }
            ey = l.tiptoe * Math.max(0, y);
            _target[1] -= ey;
          }
          // held: the further rounds would move it by less (balance.py `shift_weight`)
          if (Math.max(Math.abs(e[0]), Math.abs(e[1]), ey) <= solver.shiftHoldDone) break;
        }
        ok = ok && !(Math.abs(miss) > solver.levelMissDeg) && Math.hypot(e[0], e[1]) <= tol;
      }
      return ok;
    };
    // the body leans over the feet about the ankles (balance.py `shift_weight`): the root goes
    // `share` of the way along the horizontal move found, its height keeping each stance hip's
    // distance from its ankle (the lower of them)
    _moved.fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < 3; j++) _saved.set(ctx.localQ.subarray(4 * legs[i].joints[j], 4 * legs[i].joints[j] + 4), 12 * i + 4 * j);
    const place = (share) => {
      const x = share * _moved[0], z = share * _moved[2];
      let y = Infinity;
      for (const l of legs) {
        const r2 = l.h0[0] ** 2 + l.h0[1] ** 2 + l.h0[2] ** 2;
        y = Math.min(y, Math.sqrt(Math.max(r2 - (l.h0[0] + x) ** 2 - (l.h0[2] + z) ** 2, 0)) - l.h0[1]);
      }
      sk.translate(x - _at[0], y - _at[1], z - _at[2]);
      _at[0] = x; _at[1] = y; _at[2] = z;
      return hold();
    };
    _at.fill(0);
    let ok = true;
    for (let r = 0; r < solver.shiftRounds; r++) {
      sk.centreOfMass(_c);
      overBase(_ring, _y, n, solver.shiftMargin, _c[0], _c[2], _q, C - 4 * n);
      const dx = (_q[0] - _c[0]) / solver.shiftComShare, dz = (_q[1] - _c[2]) / solver.shiftComShare;
      if (Math.hypot(dx, dz) * solver.shiftComShare <= solver.shiftDone) break;
      // no further than the ankles' range keeps the soles flat (balance.py `pitch_share`; a foot
      // on its ball by intent keeps its pitch: not limited)
      let sx = _moved[0] + dx, sz = _moved[2] + dz, cap = 1;
      for (const l of legs) if (!(l.tiptoe > 0)) cap = Math.min(cap, pitchShare(l, sx, sz, ctx.plan.ankleBox));
      sx *= cap; sz *= cap;
      if (Math.hypot(sx - _moved[0], sz - _moved[2]) <= solver.shiftDone) break;
      _moved[0] = sx; _moved[2] = sz;
      ok = place(1);
    }
    if (!_moved[0] && !_moved[2]) return;
    // the largest share of the shift the legs hold (bisected), then the lift's share of that
    let share = 1, kept = 1;
    if (!ok) {
      let lo = 0, hi = 1;
      for (let i = 0; i < solver.shiftBisect; i++) {
        share = 0.5 * (lo + hi);
        if (place(share)) lo = share; else hi = share;
      }
      kept = lo;
    }
    // and no more than leans a stance leg `shiftLeanLimit` across its foot (balance.py `lean_share`)
    for (const l of legs) {
      let nx = l.hz, nz = -l.hx;
      const nn = Math.max(Math.hypot(nx, nz), 1e-12);
      nx /= nn; nz /= nn;
      const a0 = l.h0[0] * nx + l.h0[2] * nz, da = _moved[0] * nx + _moved[2] * nz;
      const cap = Math.max(Math.tan(solver.shiftLeanLimit * Math.PI / 180) * l.h0[1], Math.abs(a0));
      if (Math.abs(da) > 1e-12 && Math.abs(a0 + da) > cap) kept = Math.min(kept, Math.min(1, Math.max(0, (Math.sign(da) * cap - a0) / da)));
    }
    if (lifted * kept <= 0) {   // no shift at all: the legs and the root exactly as they were
      for (let i = 0; i < n; i++) for (let j = 0; j < 3; j++) ctx.localQ.set(_saved.subarray(12 * i + 4 * j, 12 * i + 4 * j + 4), 4 * legs[i].joints[j]);
      sk.translate(-_at[0], -_at[1], -_at[2]);
      sk.forward(ctx.localQ);
    } else if (lifted * kept !== share) place(lifted * kept);
  },
};
