/**
 * Props pass: the body kept out of the declared props' blocking **body** faces (chair backrest and
 * seat edge, wall; kinematics-reference §10.1), the same steps as the numpy keyframe solve
 * (posecode_ssg/motion/solve/props.py `face_push`), every number from rig.json (`props[*].faces`,
 * `avatars[*].collision`, `solver.prop*`). The face records and the ownership test are shared
 * with the prop-limbs pass (proplimbs.js: the limb faces, the box).
 *
 * A sphere (centre p, radius r) is **owned** by a face (centre c, outward normal n, in-plane axes
 * u, v with half-extents) when −capture ≤ d < r for d = (p − c)·n, |(p − c)·u| ≤ halfU + r and
 * |(p − c)·v| ≤ halfV + r; its depth is r − d. After the root solvers, `solver.propBodyPasses`
 * passes; for each body face, the root moves along n by the deepest owned sample: torso (pelvis →
 * neck at 0, .33, .66, 1; torso radius), head (head joint; head radius), shins (knee → ankle at 0,
 * .33, .66, 1; shin radius), as the face's `blocks` list says ("all": the three). A body face sits
 * behind or under what rests on it (seat under the pelvis, wall behind a back) and only pushes
 * what passes through it. Nothing is allocated per frame (the face and chain records are built
 * once per figure).
 * @module solvers/props
 */

import { makeChain } from "./ccd.js";
import { perFigure } from "./limb.js";

const T4 = [0, 0.33, 0.66, 1];
const _p = new Float64Array(3);

/** v · (x, y, z). */
export const dot = (v, x, y, z) => x * v[0] + y * v[1] + z * v[2];

/** Depth (m) of the sphere (p[o..], r) owned by face record f, else 0 (solve/proplimbs.py `owned_depth`). */
function ownedDepth(f, P, o, r) {
  const x = P[o] - f.c[0], y = P[o + 1] - f.c[1], z = P[o + 2] - f.c[2];
  const d = dot(f.n, x, y, z);
  if (d < -f.capture || d >= r) return 0;
  if (Math.abs(dot(f.u, x, y, z)) > f.halfU + r) return 0;
  if (Math.abs(dot(f.v, x, y, z)) > f.halfV + r) return 0;
  return r - d;
}

const cache = new WeakMap();

/** Per-figure records: body and limb faces of the motion's props, bone indices, hip chains (prop-limbs). */
export const setup = (ctx) => perFigure(cache, ctx, (ctx, sk, rig) => {
  const body = [], limb = [];
  for (const name of ctx.props || []) {
    const prop = rig.props[name];
    if (!prop) continue;
    for (const f of prop.faces || []) {
      const has = (k) => f.blocks.includes("all") || f.blocks.includes(k);
      (f.resolve === "limb" ? limb : body).push({ ...f, c: f.center, n: f.normal, torso: has("torso"), head: has("head"), shins: has("shins") });
    }
  }
  return { body, limb, col: sk.avatar.collision,
    chains: limb.length ? ["left", "right"].map((s) => makeChain(rig, sk, [`hip_${s}`, `knee_${s}`], `ankle_${s}`)) : null };
});

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

/**
 * The props pass (see the module comment). Sets `ctx.limbsMoved` when it changed the pose and
 * leaves the body faces' total push (m) in `ctx.propPush`; on the base pose (segment −1) it only
 * measures that push (the figure's prop placement, figuremodel.js `_place`).
 */
export const props = {
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
      // the base pose (plan building): measured for the prop placement (figuremodel.js), not moved
      if (push) sk.translate(-push[0], -push[1], -push[2]);
      ctx.limbsMoved = false;
    }
  },
};
