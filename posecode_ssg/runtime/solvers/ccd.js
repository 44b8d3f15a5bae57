/**
 * Cyclic coordinate descent over a two-joint limb chain (ball joint + hinge), as the numpy
 * keyframe solve does it (posecode_ssg/motion/solve/ccd.py `ccd`, `prebend`, `ccd_run`;
 * kinematics-reference §7): distal → proximal, each joint rotated to swing the end point toward
 * the target, its XYZ Euler angles clamped into its rig.json `rom` box (widened to the authored
 * value) after every step; at most `solver.ccdIterations` passes, stopping within
 * `solver.ccdStopDistance`. A hinge (elbow, knee) turns only about its parent's local X axis.
 * A straight limb whose target is nearer than its end is pre-bent by the law of cosines; a chain
 * that stops short is retried with the hinge straightened, keeping the closer result.
 * All scratch is preallocated: nothing is allocated per call.
 * @module solvers/ccd
 */

import { dot, eulerOf, fromEulerXYZ, matrix, mul, TO_DEG } from "../quat.js";

const _qa = new Float64Array(4), _qb = new Float64Array(4), _qc = new Float64Array(4);
const _a = new Float64Array(3), _b = new Float64Array(3), _u = new Float64Array(3);

/**
 * A chain record for {@link ccd}: bones [ball, hinge], end bone, rom boxes, working Euler arrays.
 * @param {object} rig rig.json
 * @param {import("../skeleton.js").Skeleton} sk
 * @param {string[]} ids the two joint ids, proximal first (e.g. shoulder_left, elbow_left)
 * @param {string} end the end bone id (wrist_left)
 */
export function makeChain(rig, sk, ids, end) {
  const box = new Float64Array(12);
  ids.forEach((id, k) => {
    const r = rig.rom[id];
    ["x", "y", "z"].forEach((ax, i) => { box[k * 6 + i * 2] = r[ax][0]; box[k * 6 + i * 2 + 1] = r[ax][1]; });
  });
  return { bones: Int16Array.from(ids.map((id) => sk.index.get(id))), end: sk.index.get(end), box,
    eul: new Float64Array(6), wid: new Float64Array(6), start: new Float64Array(6), first: new Float64Array(6) };
}

/**
 * Read the angles of the first `n` joints of chain `ch` into its `eul` and, unless `keep`, widen
 * its boxes to them (`wid`).
 */
export function readChain(ctx, ch, n, keep = false) {
  for (let k = 0; k < n; k++) eulerOf(ctx.localQ, ch.bones[k] * 4, ch.eul, k * 3);
  if (!keep) ch.wid.set(ch.eul);
}

/** Clamp joint k of chain `ch` (its `eul`) into its box widened to `wid`, write it, re-pose. */
export function setJoint(ctx, ch, k) {
  const e = ch.eul, o = k * 3, b = ch.box, w = ch.wid;
  for (let i = 0; i < 3; i++) {
    const lo = Math.min(b[k * 6 + i * 2], w[o + i]), hi = Math.max(b[k * 6 + i * 2 + 1], w[o + i]);
    e[o + i] = Math.min(Math.max(e[o + i], lo), hi);
  }
  fromEulerXYZ(ctx.localQ, ch.bones[k] * 4, e[o], e[o + 1], e[o + 2]);
  ctx.skeleton.forward(ctx.localQ);
}

/** Distance (m) between point i of flat array `P` and point j of `Q` (both ×3 layouts). */
export const span = (P, i, Q, j) => Math.hypot(P[i * 3] - Q[j * 3], P[i * 3 + 1] - Q[j * 3 + 1], P[i * 3 + 2] - Q[j * 3 + 2]);

/**
 * The local X axis of world rotation `W[b..]` (a hinge's axis: its parent's X), into `out`.
 * @returns {Float64Array} out
 */
export function xAxis(W, b, out) {
  const m = matrix(W, b * 4, _m);
  for (let i = 0; i < 3; i++) out[i] = m[3 * i];
  return out;
}
const _m = new Float64Array(9), _c = new Float64Array(3);

/** _a × _b into `_c`. */
function cross() {
  _c[0] = _a[1] * _b[2] - _a[2] * _b[1]; _c[1] = _a[2] * _b[0] - _a[0] * _b[2]; _c[2] = _a[0] * _b[1] - _a[1] * _b[0];
  return _c;
}

/**
 * Turn ball joint k of `ch` by the shortest arc that takes _a (its joint → the end point) onto
 * _b (its joint → the target), both world vectors filled by the caller; clamp and re-pose.
 */
function swing(ctx, ch, k) {
  const na = Math.hypot(_a[0], _a[1], _a[2]), nb = Math.hypot(_b[0], _b[1], _b[2]);
  if (na * na < 1e-8 || nb * nb < 1e-8) return;
  for (let i = 0; i < 3; i++) { _a[i] /= na; _b[i] /= nb; }
  const c = cross(), cn = Math.hypot(c[0], c[1], c[2]);
  const ang = Math.atan2(cn, dot(_a, _b));
  if (ang < 1e-5 || cn < 1e-9) return;
  const s = Math.sin(0.5 * ang) / cn;
  for (let i = 0; i < 3; i++) _qa[i] = c[i] * s;
  _qa[3] = Math.cos(0.5 * ang);
  rotateJoint(ctx, ch, k, _qa);
}

/**
 * Turn joint k of `ch` by the world rotation `r` (quaternion): new local = conj(parent) · r ·
 * parent · local, clamped into its widened box; re-poses.
 */
export function rotateJoint(ctx, ch, k, r) {
  const W = ctx.skeleton.worldQ, j = ch.bones[k], par = ctx.skeleton.parent[j];
  _qb[0] = -W[par * 4]; _qb[1] = -W[par * 4 + 1]; _qb[2] = -W[par * 4 + 2]; _qb[3] = W[par * 4 + 3];
  mul(_qc, 0, _qb, 0, r, 0);
  mul(_qc, 0, _qc, 0, W, par * 4);
  mul(_qc, 0, _qc, 0, ctx.localQ, j * 4);
  eulerOf(_qc, 0, ch.eul, k * 3);
  setJoint(ctx, ch, k);
}

/** Fill _a (joint j → end point e) and _b (joint j → target t), world vectors of `P`. */
function arms(P, j, e, t) {
  for (let i = 0; i < 3; i++) { _a[i] = P[e * 3 + i] - P[j * 3 + i]; _b[i] = t[i] - P[j * 3 + i]; }
}

/**
 * Swing ball joint k of `ch` so the end point heads for target `t` (world m): the swing step of
 * CCD and of the analytic two-bone solve (limb.js).
 */
export function aim(ctx, ch, k, t) {
  arms(ctx.skeleton.worldP, ch.bones[k], ch.end, t);
  swing(ctx, ch, k);
}

/**
 * CCD passes over the first `n` joints of `ch` toward `t` (world m): at most
 * `solver.ccdIterations`, stopping within `stop` m (a one-joint chain: its ball joint swung).
 */
export function run(ctx, ch, n, t, stop = ctx.rig.solver.ccdStopDistance) {
  const sk = ctx.skeleton, P = sk.worldP, W = sk.worldQ;
  for (let it = 0; it < ctx.rig.solver.ccdIterations; it++) {
    if (span(P, ch.end, t, 0) < stop) return;
    for (let k = n - 1; k >= 0; k--) {
      const j = ch.bones[k];
      arms(P, j, ch.end, t);
      if (k === 1) {
        // hinge: the parent's local X axis in the world
        xAxis(W, sk.parent[j], _u);
        const au = dot(_a, _u), bu = dot(_b, _u);
        for (let i = 0; i < 3; i++) { _a[i] -= _u[i] * au; _b[i] -= _u[i] * bu; }
        const aa = dot(_a, _a), bb = dot(_b, _b);
        if (aa < 1e-8 || bb < 1e-8) continue;
        const ang = Math.atan2(dot(_u, cross()), dot(_a, _b));
        ch.eul[3] += ang * TO_DEG;
        setJoint(ctx, ch, 1);
        continue;
      }
      swing(ctx, ch, k);
    }
  }
}

/**
 * Solve one chain toward target `t` ([x, y, z] m) from the current pose; `hingeSign` is +1 for a
 * knee (bends +x), −1 for an elbow. Mutates `ctx.localQ` and re-poses the skeleton. The ROM
 * boxes are widened to the incoming angles, or with `keepWiden` to those already in `ch.wid`
 * (a re-aim keeps the authored widening, as solve/reach.py passes one `widen` to every try).
 * `stop` (m): the distance within which it stops (a grip asks for `solver.gripStopDistance`).
 */
export function ccd(ctx, ch, t, hingeSign, keepWiden = false, stop = ctx.rig.solver.ccdStopDistance) {
  const P = ctx.skeleton.worldP;
  readChain(ctx, ch, 2, keepWiden);
  // pre-bend a too-straight limb (solve/ccd.py `prebend`)
  const r = ch.bones[0], h = ch.bones[1], e = ch.end;
  const a = span(P, h, P, r), b = span(P, e, P, h), d = span(t, 0, P, r);
  if (a >= 1e-6 && b >= 1e-6 && d < span(P, e, P, r) - 1e-3) {
    const c = Math.min(1, Math.max(-1, (d * d - a * a - b * b) / (2 * a * b)));
    const theta = Math.acos(c) * TO_DEG;
    if (Math.abs(ch.eul[3]) < theta && ch.eul[3] * hingeSign >= -1e-9) {
      ch.eul[3] = hingeSign * theta;
      setJoint(ctx, ch, 1);
      run(ctx, ch, 1, t, stop);
    }
  }
  ch.start.set(ch.eul);
  run(ctx, ch, 2, t, stop);
  const d1 = span(P, e, t, 0);
  if (d1 <= stop) return;
  ch.first.set(ch.eul);
  ch.eul.set(ch.start);
  setJoint(ctx, ch, 0);
  ch.eul[3] = 0;
  setJoint(ctx, ch, 1);
  run(ctx, ch, 1, t, stop);
  if (span(P, e, t, 0) > d1) {
    ch.eul.set(ch.first);
    setJoint(ctx, ch, 0);
    setJoint(ctx, ch, 1);
  }
}
