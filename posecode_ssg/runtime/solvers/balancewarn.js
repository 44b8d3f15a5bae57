/**
 * The `balance` warning of `el.sample()` (issue 19 item 3; the build's twin is
 * posecode_ssg/motion/diagnostics.py `kinematic-balance`): a body standing on its feet alone
 * (the feet that bear the destination phase — its `support`, each locked, pinned to the floor or
 * reaching for it — and no other body point within `solver.baseContact` of the floor;
 * no grip, no prop anchor, not a gait's step) whose centre of mass (Winter's segment table) lies
 * more than `solver.balanceLimit` outside the base of support (the sole corners within
 * `solver.baseContact` of the floor: every primitive of the feet, a foot on its ball touching with
 * its shoe's ellipsoid, as eval's base). The distance is the support function's, as eval's `support`
 * and the build's measure it (motion/support.py `base_gap`, every 2.5°). Measured when the pose is
 * sampled (the test hook), never in the per-frame solve.
 * @module solvers/balancewarn
 */

import { rotateVec } from "../quat.js";

/** the directions of the base's support function: every 2.5° (motion/support.py `AROUND`) */
const AROUND = 144;
const _v = new Float64Array(3), _c = new Float64Array(3), _b = new Float64Array(3);
/** x, z of the base's points: per foot its capsule ends, shoe volume and 8 sole-box corners */
const _p = new Float64Array(64);

/**
 * The sides whose feet alone bear motion JSON phase `phase` at its end (motion/support.py
 * `bearing_feet`): its `support`, all feet, each locked, pinned to the floor or reaching for it;
 * else none.
 * @returns {string[]} "left" / "right"
 */
export function bearingFeet(phase) {
  const bearing = phase.support || [];
  if (!bearing.length || !bearing.every((e) => e.startsWith("foot_"))) return [];
  const down = new Set([...(phase.pin || []), ...(phase.reach || [])].filter(([, a]) => a === "floor").map(([e]) => e));
  if (!bearing.every((e) => (phase.gl || []).includes(e) || down.has(e))) return [];
  return bearing.map((e) => e.slice(5)).sort();
}

/**
 * The `balance` warning of the posed skeleton `sk` in phase `phase` (motion JSON), or null.
 * @returns {{code: string, message: string, value: number, limit: number, phase: string}|null}
 *   `value` the centre of mass's distance outside the base (m), `limit` `solver.balanceLimit`
 */
export function balanceWarning(sk, rig, phase) {
  if (!phase || phase.hang === true || phase.gait === true || !bearingFeet(phase).length) return null;
  const band = rig.solver.baseContact, limit = rig.solver.balanceLimit;
  const feet = ["left", "right"].map((s) => sk.index.get(`ankle_${s}`));
  sk.measureLowest();
  for (let b = 0; b < sk.boneCount; b++) if (!feet.includes(b) && sk.lowestByBone[b] <= band) return null;
  const n = footPoints(sk, feet, band);
  if (!n) return null;
  sk.centreOfMass(_c);
  let gap = -Infinity;
  for (let k = 0; k < AROUND; k++) {
    const ux = Math.cos((k * 2 * Math.PI) / AROUND), uz = Math.sin((k * 2 * Math.PI) / AROUND);
    let h = -Infinity;
    for (let i = 0; i < n; i++) h = Math.max(h, _p[2 * i] * ux + _p[2 * i + 1] * uz);
    gap = Math.max(gap, _c[0] * ux + _c[2] * uz - h);
  }
  if (!(gap > limit)) return null;
  // one message per phase (a harness lists distinct warnings), the distance in `value`
  return { code: "balance", phase: phase.name, value: gap, limit,
    message: `the centre of mass is more than ${(limit * 1000).toFixed(0)} mm outside what the feet cover in phase '${phase.name}'` };
}

/**
 * The x, z (into `_p`) of every mesh primitive of the bones `feet` whose lowest point is within
 * `band` of the floor: capsule ends (the centre less the radius), ellipsoid volumes (skeleton.js
 * `volumeBottom`) and the sole boxes' corners — the
 * primitives eval's support and motion/rest.py `floor_points` take. Returns their number.
 */
function footPoints(sk, feet, band) {
  const wp = sk.worldP, lp = sk.landmarkP, wq = sk.worldQ;
  let n = 0;
  const add = (x, y, z) => { if (y <= band) { _p[2 * n] = x; _p[2 * n + 1] = z; n++; } };
  for (let i = 0; i < sk.segFrom.length; i++) {
    const a = sk.segFrom[i], t = sk.segTo[i];
    if (!feet.includes(t >= 0 ? t : sk.landmarkBone[-1 - t])) continue;
    add(wp[a * 3], wp[a * 3 + 1] - sk.segR[i * 2], wp[a * 3 + 2]);
    const P = t >= 0 ? wp : lp, j = t >= 0 ? t : -1 - t;
    add(P[j * 3], P[j * 3 + 1] - sk.segR[i * 2 + 1], P[j * 3 + 2]);
  }
  for (let i = 0; i < sk.volBone.length; i++) {
    if (feet.includes(sk.volBone[i]) && sk.volumeBottom(i, _b) <= band) add(_b[0], _b[1], _b[2]);
  }
  for (const a of feet) {
    for (let j = 0; j < 8; j++) {
      rotateVec(_v, 0, wq, a * 4, sk.soleCorners, j * 3);
      add(wp[a * 3] + _v[0], wp[a * 3 + 1] + _v[1], wp[a * 3 + 2] + _v[2]);
    }
  }
  return n;
}
