/**
 * Prop-limbs pass, the last (kinematics-reference §10.1; solve/proplimbs.py `limb_lift`, which runs it after
 * its floor clamp): a free leg kept out of the declared props' **limb** faces (the box's near
 * face), every number from rig.json (`props[*].faces`, `avatars[*].collision`, `solver.prop*`,
 * `solver.shinOverhang`). A box is solid, so a free leg's shin (knee to `shinOverhang` past the
 * ankle) is kept out of its whole region — out of the face or over the top — by flexing the knee
 * (`limbLift`): a swing foot stepping onto or off the box goes over its near edge, not through
 * it. It runs on the pose as shown (after the entry blend), so the box is clear at every frame,
 * not only at phase ends. The per-figure face records: props.js. Declared supports are exempt:
 * a leg whose foot or knee is pinned, gripped or reached to a non-floor anchor this phase (the
 * foot that stands on the box) is not lifted, nor a leg standing on the floor (floor pin, held
 * ground-lock; {@link fixedLegs}). Nothing is allocated per frame.
 * @module solvers/proplimbs
 */

import { readChain, setJoint, xAxis } from "./ccd.js";
import { twoBone } from "./limb.js";
import { slerpInto, TO_DEG } from "../quat.js";
import { dot, setup } from "./props.js";

const _p = new Float64Array(3);

/**
 * Legs the limb faces leave alone in this segment, [left, right] (cached per plan): a declared
 * support (foot or knee pinned, gripped or reached to a non-floor anchor) and a leg standing on
 * the floor (its foot or knee floor-pinned, or its foot a held ground-lock, plan.js `lockHeld`).
 * Entries 2 and 3: a leg *stepping off* (see {@link release}): one that was such a declared
 * support in the phase before (segment − 1; the last phase before the first when no wrap
 * segment follows it) and is free now.
 */
function fixedLegs(st, ctx) {
  const plan = ctx.plan;
  let e = st.exempt.get(plan);
  if (e) return e;
  e = new Uint8Array(4);
  const S = ctx.segContacts.length, mark = (c, o) => {
    if (c.kind === "ground-lock" || (c.floor && c.kind !== "pin")) return;
    for (let s = 0; s < 2; s++) if (c.effector.endsWith(s ? "_right" : "_left") && /^(foot|knee)/.test(c.effector)) e[o + s] = 1;
  };
  for (const c of ctx.contacts) mark(c, 0);
  plan.lockFeet.forEach((s, k) => { if (plan.lockHeld[k]) e[s] = 1; });
  for (const c of ctx.segContacts[(ctx.segment + S - 1) % S]) if (!c.floor) mark(c, 2);
  for (let s = 0; s < 2; s++) e[2 + s] &= !e[s] && plan.at0 ? 1 : 0;
  st.exempt.set(plan, e);
  return e;
}

const ss = (x) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));
const _T = new Float64Array(3), _Q = new Float64Array(8);
/**
 * A foot stepping off the box (its leg stood on it in the phase before, free now) follows a path
 * planned over the segment instead of being lifted out per frame (which would throw the knee
 * up at once at the keyframe). From its ankle where the segment
 * starts, A (plan.js `at0`), to where it ends, B (recorded here from the segment's own end
 * solve at load, u = 1): it rises straight up off the top to the height Y at which a vertical
 * shin with its overhang clears the box (top + shin radius + `propLiftGap` + `shinOverhang`),
 * rise weight smoothstep(u / .35); moves across, A → B in x and z, by smoothstep((u − .15) / .55),
 * so it is over the near edge before it goes down; and descends Y → B.y by
 * smoothstep((u − .6) / .4). The leg's two-bone IK (limb.js) puts the ankle there. The path
 * starts and ends at rest on the pose as shown, and the pose's own ankle motion N(u) is added
 * near either end (weight 1 − smoothstep(u / .1)) so
 * joint velocity stays continuous at both keyframes whatever the timing; the ankle is A at u = 0
 * and B at u = 1, so phase ends (the numpy keyframe solve) are untouched. After the rise the
 * limb lift still runs as a safety net.
 */
function release(ctx, st, s, B) {
  const sk = ctx.skeleton, P = sk.worldP, A = ctx.plan.at0, a = st.ankle[s] * 3, f = st.limb[0], u = ctx.u, ch = st.chains[s];
  const Y = Math.max(A[a + 1], B[1], f.c[1] + f.halfV + st.col.shin + ctx.rig.solver.propLiftGap + ctx.rig.solver.shinOverhang);
  const w0 = 1 - ss(u / 0.1), h = ss((u - 0.15) / 0.55), w1 = ss((u - 0.8) / 0.2);
  for (let i = 0; i < 3; i++) {
    const q = i === 1 ? A[a + 1] + (Y - A[a + 1]) * ss(u / 0.35) + (B[1] - Y) * ss((u - 0.6) / 0.4) : A[a + i] + (B[i] - A[a + i]) * h;
    _T[i] = q + w0 * (P[a + i] - A[a + i]);
  }
  const q = ctx.localQ, o = ch.bones[0] * 4, k = ch.bones[1] * 4;
  _Q.set(q.subarray(o, o + 4)); _Q.set(q.subarray(k, k + 4), 4);
  twoBone(ctx, ch, _T);
  // joint velocity at the end keyframe: the pose as shown takes over (a straight leg's IK knee
  // goes as the root of the ankle's distance, so it would arrive moving)
  slerpInto(q, o, _Q, 0, 1 - w1); slerpInto(q, k, _Q, 4, 1 - w1);
  sk.forward(q);
}

const _t = new Float64Array(2);
/** Narrow the parameter interval `_t` to where a + b·t ≥ 0. */
function cut(a, b) {
  if (Math.abs(b) < 1e-12) { if (a < 0) _t[0] = 2; }
  else if (b > 0) _t[0] = Math.max(_t[0], -a / b);
  else _t[1] = Math.min(_t[1], -a / b);
}

/**
 * Lift a free leg out of the limb faces (the box). The shin, the segment from the knee to
 * `solver.shinOverhang` past the ankle with the shin radius r, must not enter the face's region
 * (what `ownedDepth` owns: in front within r of the face, or behind it within its capture depth,
 * within its half extents + r); a point of it inside falls short by the smaller of r − (p − c)·n
 * (out of the face) and top + r − p_y (over the box; top: the face's upper edge), each with
 * `solver.propLiftGap` to spare. Both are linear along the segment, so the worst point is an end of
 * the part inside the region or where they are equal. While one falls short, the knee flexes by the
 * shortfall over the rate at which that point leaves per radian of knee (at least a quarter of the
 * shin length; at most `solver.propLiftStepDeg`): the foot swings up and back, away from the face
 * and over the edge, the knee staying where the hip put it; once the knee's box is exhausted the
 * hip flexes. `solver.propLiftRounds` rounds, each joint clamped into its box widened to its
 * incoming angles (ccd.js `setJoint`).
 */
function limbLift(ctx, st, s) {
  const sk = ctx.skeleton, P = sk.worldP, W = sk.worldQ, solver = ctx.rig.solver, ch = st.chains[s];
  const kn = st.knee[s] * 3, an = st.ankle[s] * 3, r = st.col.shin + solver.propLiftGap;
  readChain(ctx, ch, 2);
  for (let it = 0; it < solver.propLiftRounds; it++) {
    const dx = P[an] - P[kn], dy = P[an + 1] - P[kn + 1], dz = P[an + 2] - P[kn + 2];
    const len = Math.max(Math.hypot(dx, dy, dz), 1e-9), ext = 1 + solver.shinOverhang / len;
    // the knee turns about the hip's X axis u; a point's velocity per radian of knee is u × (p − knee)
    const U = xAxis(W, ch.bones[0], _p), ux = U[0], uy = U[1], uz = U[2];
    let need = 0, rate = 0;
    for (let fi = 0; fi < st.limb.length; fi++) {
      const f = st.limb[fi], n = f.n, u = f.u, top = f.c[1] + f.halfV + r;
      const kx = P[kn] - f.c[0], ky = P[kn + 1] - f.c[1], kz = P[kn + 2] - f.c[2];
      // along the segment (t = 0 knee, 1 end): out-of-face shortfall h, over-the-top shortfall v
      const h0 = r - dot(n, kx, ky, kz), hd = -ext * dot(n, dx, dy, dz);
      const v0 = top - P[kn + 1], vd = -ext * dy;
      const u0 = dot(u, kx, ky, kz), ud = ext * dot(u, dx, dy, dz);
      // the part of the segment inside the face's region: h, v > 0, within capture, beside limits
      _t[0] = 0; _t[1] = 1;
      cut(h0, hd); cut(v0, vd); cut(f.capture + r - h0, -hd); cut(ky + f.halfV + r, ext * dy);
      cut(f.halfU + r - u0, -ud); cut(f.halfU + r + u0, ud);
      if (_t[0] > _t[1]) continue;
      const den = hd - vd, tx = Math.abs(den) > 1e-12 ? (v0 - h0) / den : 0;
      for (let c = 0; c < 3; c++) {
        const t = c < 2 ? _t[c] : Math.min(_t[1], Math.max(_t[0], tx));
        const ho = h0 + t * hd, vo = v0 + t * vd, short = Math.min(ho, vo);
        if (short > need) {
          const rx = t * ext * dx, ry = t * ext * dy, rz = t * ext * dz;
          const vx = uy * rz - uz * ry, vy = uz * rx - ux * rz, vz = ux * ry - uy * rx;
          // at the crossing of the two shortfalls (equal within 1e-9) the faster way out, so
          // rounding never picks the branch (solve/proplimbs.py alike)
          const hv = dot(n, vx, vy, vz);
          need = short;
          rate = Math.abs(ho - vo) <= 1e-9 ? Math.max(hv, vy) : ho < vo ? hv : vy;
        }
      }
    }
    if (need <= 1e-4) break;
    const step = Math.min(need / Math.max(rate, 0.25 * len) * TO_DEG, solver.propLiftStepDeg), kx = ch.eul[3];
    ch.eul[3] += step;
    setJoint(ctx, ch, 1);
    const left = step - (ch.eul[3] - kx);
    if (left > 1e-3) {
      // the knee's box is exhausted: the hip flexes (limb flexion is −x, KR §3.1)
      ch.eul[0] -= left;
      setJoint(ctx, ch, 0);
    }
  }
}

/**
 * The limb faces (the box), after the reaches: each free leg (not {@link fixedLegs}; a foot
 * reaching for the floor included) is lifted clear (`limbLift`). Not in a segment's first-instant
 * solve (figuremodel.js `startSolve`): the entry blend is recorded before this pass, which runs
 * after it (recording it after the lift would count the lift twice).
 */
export const propLimbs = {
  run(ctx) {
    if (ctx.segment < 0 || ctx.startSolve || !ctx.props || !ctx.props.length) return;
    const st = setup(ctx);
    if (!st.limb.length) return;
    const fixed = fixedLegs(st, ctx), ends = ctx.plan.ends || (ctx.plan.ends = []);
    for (let s = 0; s < 2; s++) {
      if (fixed[s]) continue;
      // a leg stepping off the box: its planned path (release), the lift only once it has risen
      const B = fixed[2 + s] && ends[s], a = st.ankle[s] * 3;
      if (B) release(ctx, st, s, B);
      if (!B || ctx.u >= 0.35) limbLift(ctx, st, s);
      // the segment's end solve at load (u = 1) gives the path's end
      if (fixed[2 + s] && ctx.u === 1) ends[s] = ends[s] || ctx.skeleton.worldP.slice(a, a + 3);
    }
  },
};
