/**
 * Props pass: the body pushed out of the declared props' blocking faces (kinematics-reference
 * §10.1), the same steps as the numpy keyframe solve (posecode_ssg/motion/solve.py `_face_push`,
 * `_limb_push`), every number from rig.json (`props[*].faces`, `avatars[*].collision`,
 * `solver.prop*`, `solver.shinOverhang`).
 *
 * A sphere (centre p, radius r) is **owned** by a face (centre c, outward normal n, in-plane axes
 * u, v with half-extents) when −capture ≤ d < r for d = (p − c)·n, |(p − c)·u| ≤ halfU + r and
 * |(p − c)·v| ≤ halfV + r; its depth is r − d.
 * - **body** faces (chair backrest and seat edge, wall): `solver.propBodyPasses` passes; for each
 *   face, the root moves along n by the deepest owned sample: torso (pelvis → neck at 0, .33,
 *   .66, 1; torso radius), head (head joint; head radius), shins (knee → ankle at 0, .33, .66, 1;
 *   shin radius), as the face's `blocks` list says ("all": the three);
 * - **limb** faces (the box's near face): per leg, shin samples at 9 even steps knee → ankle plus
 *   `shinOverhang` past the ankle; up to `propLimbIterations` times the hip turns about
 *   (lever × n) by min(depth / lever, `propLimbStepDeg`, what is left of `propLimbMaxDeg`),
 *   clamped into its rig.json `rom` box widened to its incoming angles.
 * Declared supports are exempt: a leg whose foot or knee is pinned, gripped or reached to a
 * non-floor anchor this phase (the foot that steps on the box) is not pushed by limb faces; a
 * body face sits behind or under what rests on it (seat under the pelvis, wall behind a back) and
 * only pushes what passes through it.
 * Nothing is allocated per frame (the face and chain records are built once per figure).
 * @module solvers/props
 */

import { mul } from "../quat.js";
import { eulerOf, makeChain, setJoint } from "./ccd.js";

const DEG = 180 / Math.PI;
const T4 = [0, 0.33, 0.66, 1];
const _q = new Float64Array(4), _r = new Float64Array(4), _s = new Float64Array(4);
const _p = new Float64Array(3);

/**
 * Turn joint k of chain `ch` by `ang` radians about the unit world axis (ax, ay, az), the turn
 * premultiplied in the world (local' = parent⁻¹ · R · parent · local, solve.py's
 * `parent_rot.T @ Rd @ parent_rot @ local`), then clamp its Euler angles into the box widened to
 * `ch.wid` and re-pose. The caller sets `ch.wid` (the incoming angles).
 */
export function turnJoint(ctx, ch, k, ax, ay, az, ang) {
  const W = ctx.skeleton.worldQ, j = ch.bones[k], par = ctx.skeleton.parent[j];
  const s = Math.sin(0.5 * ang);
  _q[0] = ax * s; _q[1] = ay * s; _q[2] = az * s; _q[3] = Math.cos(0.5 * ang);
  if (par < 0) {
    mul(_s, 0, _q, 0, ctx.localQ, j * 4);
  } else {
    _r[0] = -W[par * 4]; _r[1] = -W[par * 4 + 1]; _r[2] = -W[par * 4 + 2]; _r[3] = W[par * 4 + 3];
    mul(_s, 0, _r, 0, _q, 0);
    mul(_s, 0, _s, 0, W, par * 4);
    mul(_s, 0, _s, 0, ctx.localQ, j * 4);
  }
  eulerOf(_s, 0, ch.eul, k * 3);
  setJoint(ctx, ch, k);
}

/** Depth (m) of the sphere (p[o..], r) owned by face record f, else 0 (solve.py `_owned_depth`). */
function ownedDepth(f, P, o, r) {
  const x = P[o] - f.c[0], y = P[o + 1] - f.c[1], z = P[o + 2] - f.c[2];
  const d = x * f.n[0] + y * f.n[1] + z * f.n[2];
  if (d < -f.capture || d >= r) return 0;
  if (Math.abs(x * f.u[0] + y * f.u[1] + z * f.u[2]) > f.halfU + r) return 0;
  if (Math.abs(x * f.v[0] + y * f.v[1] + z * f.v[2]) > f.halfV + r) return 0;
  return r - d;
}

const cache = new WeakMap();

/** Per-figure records: body and limb faces of the motion's props, bone indices, hip chains. */
function setup(ctx) {
  let st = cache.get(ctx);
  if (st) return st;
  const sk = ctx.skeleton, rig = ctx.rig, col = sk.avatar.collision, ix = (b) => sk.index.get(b);
  const body = [], limb = [];
  for (const name of ctx.props || []) {
    const prop = rig.props[name];
    if (!prop) continue;
    for (const f of prop.faces || []) {
      const rec = { c: f.center, n: f.normal, u: f.u, v: f.v, halfU: f.halfU, halfV: f.halfV, capture: f.capture };
      const all = f.blocks.includes("all");
      rec.torso = all || f.blocks.includes("torso");
      rec.head = all || f.blocks.includes("head");
      rec.shins = all || f.blocks.includes("shins");
      (f.resolve === "limb" ? limb : body).push(rec);
    }
  }
  st = { body, limb, col, pelvis: ix("pelvis"), neck: ix("neck"), head: ix("head"),
    knee: [ix("knee_left"), ix("knee_right")], ankle: [ix("ankle_left"), ix("ankle_right")],
    hip: [ix("hip_left"), ix("hip_right")],
    chains: limb.length ? ["left", "right"].map((s) => makeChain(rig, sk, [`hip_${s}`], `ankle_${s}`)) : null,
    exempt: new Map() };
  cache.set(ctx, st);
  return st;
}

/** Legs exempt from limb faces in this segment: [left, right] (cached per contact list). */
function exemptLegs(st, contacts) {
  let e = st.exempt.get(contacts);
  if (e) return e;
  e = new Uint8Array(2);
  for (const c of contacts) {
    if (c.floor || c.kind === "ground-lock") continue;
    if (c.effector === "foot_left" || c.effector === "knee_left") e[0] = 1;
    if (c.effector === "foot_right" || c.effector === "knee_right") e[1] = 1;
  }
  st.exempt.set(contacts, e);
  return e;
}

function lerpPoint(P, a, b, t) {
  for (let i = 0; i < 3; i++) _p[i] = P[a * 3 + i] + t * (P[b * 3 + i] - P[a * 3 + i]);
  return _p;
}

function bodyFaceDepth(st, f, P) {
  let depth = 0;
  const col = st.col;
  if (f.torso) {
    for (let i = 0; i < 4; i++) depth = Math.max(depth, ownedDepth(f, lerpPoint(P, st.pelvis, st.neck, T4[i]), 0, col.torso));
  }
  if (f.head) depth = Math.max(depth, ownedDepth(f, P, st.head * 3, col.head));
  if (f.shins) {
    for (let s = 0; s < 2; s++) {
      for (let i = 0; i < 4; i++) depth = Math.max(depth, ownedDepth(f, lerpPoint(P, st.knee[s], st.ankle[s], T4[i]), 0, col.shin));
    }
  }
  return depth;
}

const _best = new Float64Array(3);

function limbPush(ctx, st, s) {
  const sk = ctx.skeleton, P = sk.worldP, solver = ctx.rig.solver, ch = st.chains[s];
  const hip = st.hip[s], knee = st.knee[s], ankle = st.ankle[s], r = st.col.shin;
  eulerOf(ctx.localQ, hip * 4, ch.eul, 0);
  ch.wid.set(ch.eul);
  const cap = solver.propLimbMaxDeg, over = solver.shinOverhang;
  let total = 0, moved = false;
  for (let it = 0; it < solver.propLimbIterations; it++) {
    const dx = P[ankle * 3] - P[knee * 3], dy = P[ankle * 3 + 1] - P[knee * 3 + 1], dz = P[ankle * 3 + 2] - P[knee * 3 + 2];
    const len = Math.max(Math.hypot(dx, dy, dz), 1e-9);
    let best = 0, bn = null;
    for (let fi = 0; fi < st.limb.length; fi++) {
      const f = st.limb[fi];
      for (let k = 0; k <= 9; k++) {
        if (k < 9) lerpPoint(P, knee, ankle, k / 8);
        else {
          _p[0] = P[ankle * 3] + dx / len * over;
          _p[1] = P[ankle * 3 + 1] + dy / len * over;
          _p[2] = P[ankle * 3 + 2] + dz / len * over;
        }
        const dep = ownedDepth(f, _p, 0, r);
        if (dep > best) { best = dep; bn = f.n; _best.set(_p); }
      }
    }
    if (best <= 1e-4 || total >= cap) break;
    const lx = _best[0] - P[hip * 3], ly = _best[1] - P[hip * 3 + 1], lz = _best[2] - P[hip * 3 + 2];
    const ln = Math.hypot(lx, ly, lz);
    const ax = ly * bn[2] - lz * bn[1], ay = lz * bn[0] - lx * bn[2], az = lx * bn[1] - ly * bn[0];
    const an = Math.hypot(ax, ay, az);
    if (ln < 1e-6 || an < 1e-9) break;
    const step = Math.min(best / ln * DEG, solver.propLimbStepDeg, cap - total);
    turnJoint(ctx, ch, 0, ax / an, ay / an, az / an, step / DEG);
    total += step;
    moved = true;
  }
  return moved;
}

/**
 * The props pass (see the module comment). Sets `ctx.limbsMoved` when it changed the pose and
 * leaves the body faces' total push (m) in `ctx.propPush`; on the base pose (segment −1) it only
 * measures that push (the figure's prop placement, pose.js `_place`).
 */
export const props = {
  name: "props",
  run(ctx) {
    ctx.limbsMoved = false;
    const push = ctx.propPush;
    if (push) push.fill(0);
    if (!ctx.props || !ctx.props.length) return;
    const st = setup(ctx), sk = ctx.skeleton;
    if (st.body.length) {
      for (let pass = 0; pass < ctx.rig.solver.propBodyPasses; pass++) {
        for (let fi = 0; fi < st.body.length; fi++) {
          const f = st.body[fi];
          const depth = bodyFaceDepth(st, f, sk.worldP);
          if (depth > 1e-4) {
            sk.translate(f.n[0] * depth, f.n[1] * depth, f.n[2] * depth);
            if (push) for (let a = 0; a < 3; a++) push[a] += f.n[a] * depth;
            ctx.limbsMoved = true;
          }
        }
      }
    }
    if (ctx.segment < 0) {
      // the base pose (plan building): measured for the prop placement (pose.js), not moved
      if (push) sk.translate(-push[0], -push[1], -push[2]);
      ctx.limbsMoved = false;
      return;
    }
    if (st.limb.length) {
      const ex = exemptLegs(st, ctx.contacts);
      for (let s = 0; s < 2; s++) if (!ex[s] && limbPush(ctx, st, s)) ctx.limbsMoved = true;
    }
  },
};
