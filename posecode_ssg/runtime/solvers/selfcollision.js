/**
 * Self-collision pass: forearms kept out of the torso and head, shins out of the torso and the
 * other leg (kinematics-reference §10.2), the same steps as the numpy keyframe solve
 * (posecode_ssg/motion/collide.py, whose docstring gives the model); every number from rig.json
 * (`avatars[*].collision`, `solver.self*`, `solver.armOverhang`, `headOverhang`,
 * `shinOverhang`).
 *
 * - Obstacles: torso capsule (`selfTorsoBelowPelvis` below the pelvis → neck), head capsule
 *   (head joint → `headOverhang` beyond it), each thigh (hip → knee) and shin (knee → ankle).
 * - Arms: samples at 15/45/75/100 % of elbow → wrist plus `armOverhang` past the wrist, against
 *   torso and head; the shoulder turns, at most `selfArmMaxDeg` in all. Legs: the same fractions
 *   of knee → ankle plus `shinOverhang`, against the torso and the other thigh and shin; the hip
 *   turns, at most `selfLegMaxDeg`.
 * - Per limb, up to `selfIterations` steps: find the deepest overlap (a sample clearly past an
 *   obstacle's axis — more than 120° from the limb's own side, that of its proximal joint — is
 *   pushed back to that side, its depth counted through the axis); turn the joint about (lever × push) by min(depth / lever, `selfStepDeg`,
 *   what is left of the cap), clamped into its ROM box widened to its incoming angles.
 * - A limb holding any contact this segment (ground-lock, pin, grip or reach of its hand, fist,
 *   elbow, foot or knee) is left to its contact, except an arm held by a reach, pin or grip: it
 *   is swivelled about the shoulder → wrist axis (the hand stays on its target; each step
 *   min(depth / distance from the axis, `selfStepDeg`) in the direction that moves the deepest
 *   sample along its push, same cap and box); a limb whose reach is ending (reach.js
 *   `ctx.leaving`) gets the correction slerped in by 1 − the reach's weight, so the boundary is
 *   continuous and the phase end is the keyframe solve's.
 * Then a free leg of a body standing on a locked or floor-pinned contact is cleared of the floor
 * within its own chain (swingclearance.js `clearFreeLimbs`), and, when this or an earlier limb pass (props,
 * reach) changed the pose, the floor clamp of the numpy solve: a floor-bound phase touches the floor, none sinks (KR §6.1 step 14).
 * Pure function of the pose (no state kept between frames); nothing is allocated per frame.
 * @module solvers/selfcollision
 */

import { makeChain, readChain, rotateJoint } from "./ccd.js";
import { axisAngle, dot, slerpInto, TO_DEG } from "../quat.js";
import { clearFreeArms, clearFreeLimbs } from "./swingclearance.js";
import { perFigure } from "./limb.js";
import { grounding } from "./grounding.js";

const FR = [0.15, 0.45, 0.75, 1];
const LIMB_EFFECTORS = [["hand_left", "fist_left", "elbow_left"], ["hand_right", "fist_right", "elbow_right"],
  ["foot_left", "knee_left"], ["foot_right", "knee_right"]];
const cache = new WeakMap();
// obstacles: 6 capsules × (a[3], b[3]) and radii; samples: 5 points
const OA = new Float64Array(18), OB = new Float64Array(18), OR = new Float64Array(6);
const SP = new Float64Array(15), _pre = new Float64Array(4), _t = new Float64Array(4);
const _u = new Float64Array(3), _e = new Float64Array(3), _q = new Float64Array(3), _side = new Float64Array(3), _n = new Float64Array(3), _bp = new Float64Array(3), _bn = new Float64Array(3);
// obstacle indices: 0 torso, 1 head, 2 thigh_left, 3 shin_left, 4 thigh_right, 5 shin_right
const AGAINST = [[0, 1], [0, 1], [0, 4, 5], [0, 2, 3]];

const setup = (ctx) => perFigure(cache, ctx, (c, sk, rig) => ({
  chains: [["shoulder", "wrist"], ["hip", "ankle"]].flatMap(([a, b]) => ["left", "right"].map((s) => makeChain(rig, sk, [`${a}_${s}`], `${b}_${s}`))) }));

function exemptLimbs(st, contacts) {
  let e = st.exempt.get(contacts);
  if (e) return e;
  // 0 free, 1 left to its contact, 2 an arm held by a reach, pin or grip: swivelled
  e = Uint8Array.from(LIMB_EFFECTORS.map((names, L) => {
    const mine = contacts.filter((c) => names.includes(c.effector));
    if (!mine.length) return 0;
    return L < 2 && mine.some((c) => c.kind !== "ground-lock") ? 2 : 1;
  }));
  st.exempt.set(contacts, e);
  return e;
}

function setCapsule(i, P, a, b, r) {
  for (let k = 0; k < 3; k++) { OA[i * 3 + k] = P[a * 3 + k]; OB[i * 3 + k] = P[b * 3 + k]; }
  OR[i] = r;
}

/** The unit vector from point a of `A` to point b of `B` (×3 offsets), into `_u` (zero when they meet). */
function unit(A, a, B, b) {
  for (let i = 0; i < 3; i++) _u[i] = B[b + i] - A[a + i];
  const l = Math.hypot(_u[0], _u[1], _u[2]);
  for (let i = 0; i < 3; i++) _u[i] = l > 1e-9 ? _u[i] / l : 0;
}

/** Fill the obstacle capsules from the current pose (collide.py `obstacles`). */
function obstacles(st, P, col, solver) {
  const p = st.pelvis * 3, n = st.neck * 3, h = st.head * 3;
  unit(P, p, P, n);
  for (let i = 0; i < 3; i++) { OA[i] = P[p + i] - _u[i] * solver.selfTorsoBelowPelvis; OB[i] = P[n + i]; }
  OR[0] = col.torso;
  unit(P, n, P, h);
  for (let i = 0; i < 3; i++) { OA[3 + i] = P[h + i]; OB[3 + i] = P[h + i] + _u[i] * solver.headOverhang; }
  OR[1] = col.head;
  for (let s = 0; s < 2; s++) {
    setCapsule(2 + 2 * s, P, st.hip[s], st.knee[s], col.thigh);
    setCapsule(3 + 2 * s, P, st.knee[s], st.ankle[s], col.shin);
  }
}

/** Closest point of capsule o's segment to sample point SP[s..], into _q. */
function closest(o, s) {
  let L2 = 0, t = 0;
  for (let c = 0; c < 3; c++) { _q[c] = OB[o * 3 + c] - OA[o * 3 + c]; L2 += _q[c] * _q[c]; }
  for (let c = 0; c < 3; c++) t += (SP[s + c] - OA[o * 3 + c]) * _q[c];
  t = Math.min(1, Math.max(0, L2 < 1e-12 ? 0 : t / L2));
  for (let c = 0; c < 3; c++) _q[c] = OA[o * 3 + c] + t * _q[c];
}

/** Deepest overlap of limb L (0 arm_left, 1 arm_right, 2 leg_left, 3 leg_right): depth m; point
 *  in _bp, push direction in _bn (collide.py `deepest`). */
function deepest(st, L, P, col, solver, joint) {
  const s = L % 2, arm = L < 2;
  const a = (arm ? st.elbow : st.knee)[s] * 3, b = (arm ? st.wrist : st.ankle)[s] * 3;
  const over = arm ? solver.armOverhang : solver.shinOverhang, r = arm ? col.arm : col.shin;
  for (let c = 0; c < 3; c++) _e[c] = P[b + c] - P[a + c];
  const len = Math.hypot(_e[0], _e[1], _e[2]), k = len > 1e-9 ? over / len : 0;
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < 4; i++) SP[i * 3 + c] = P[a + c] + FR[i] * _e[c];
    SP[12 + c] = P[b + c] + _e[c] * k;
  }
  const j = joint * 3;
  let best = 0;
  const against = AGAINST[L];
  for (let oi = 0; oi < against.length; oi++) {
    const o = against[oi];
    // the limb's side of the obstacle: its proximal joint, perpendicular to the obstacle's axis
    unit(OA, o * 3, OB, o * 3);
    for (let c = 0; c < 3; c++) _side[c] = P[j + c] - OA[o * 3 + c];
    const su = dot(_side, _u);
    for (let c = 0; c < 3; c++) _side[c] -= _u[c] * su;
    const sl = Math.hypot(_side[0], _side[1], _side[2]);
    for (let i = 0; i < 15; i += 3) {
      closest(o, i);
      for (let c = 0; c < 3; c++) _e[c] = SP[i + c] - _q[c];
      let dist = Math.hypot(_e[0], _e[1], _e[2]);
      if (dist >= OR[o] + r) continue;
      for (let c = 0; c < 3; c++) _n[c] = dist > 1e-9 ? _e[c] / dist : sl > 1e-9 ? _side[c] / sl : 0;
      const flip = sl > 1e-9 && dot(_n, _side) / sl < -0.5;
      if (flip) dist = -dist;
      const depth = OR[o] + r - dist;
      if (depth > best && dot(_n, _n) > 0.5) {
        best = depth;
        for (let c = 0; c < 3; c++) { _bp[c] = SP[i + c]; _bn[c] = flip ? -_n[c] : _n[c]; }
      }
    }
  }
  return best;
}

/**
 * Worst self-collision depth (m) of the current pose over the four limbs, contacts or not
 * (collide.py `self_collision_depth`), for reports and tests.
 */
export function selfCollisionDepth(ctx) {
  const st = setup(ctx), sk = ctx.skeleton, P = sk.worldP, col = sk.avatar.collision, solver = ctx.rig.solver;
  obstacles(st, P, col, solver);
  let worst = 0;
  for (let L = 0; L < 4; L++) worst = Math.max(worst, deepest(st, L, P, col, solver, st.chains[L].bones[0]));
  return worst;
}

/** The self-collision pass (see the module comment), then the floor clamp of limb changes. */
export const selfCollision = {
  run(ctx) {
    if (ctx.segment < 0) return;
    const st = setup(ctx), sk = ctx.skeleton, P = sk.worldP, col = sk.avatar.collision, solver = ctx.rig.solver;
    const ex = exemptLimbs(st, ctx.contacts);
    for (let L = 0; L < 4; L++) {
      const fade = ctx.leaving ? ctx.leaving[L] : 0;
      if (ex[L] === 1 || fade >= 1) continue;
      const swivel = ex[L] === 2;
      const ch = st.chains[L], joint = ch.bones[0];
      for (let c = 0; c < 4; c++) _pre[c] = ctx.localQ[joint * 4 + c];
      const cap = L < 2 ? solver.selfArmMaxDeg : solver.selfLegMaxDeg;
      let total = 0, started = false;
      for (let it = 0; it < solver.selfIterations; it++) {
        obstacles(st, P, col, solver);
        const depth = deepest(st, L, P, col, solver, joint);
        if (depth <= 1e-4 || total >= cap) break;
        // the turn's axis (unit) and the lever its step is measured by: a swivel about the
        // shoulder → wrist axis (the elbow and forearm move, the hand stays), in the direction that
        // moves the deepest sample along its push; else about (lever × push)
        const j = joint * 3, lx = _bp[0] - P[j], ly = _bp[1] - P[j + 1], lz = _bp[2] - P[j + 2];
        let ax, ay, az, an, lev, sg = 1;
        if (swivel) {
          const w = st.wrist[L] * 3;
          ax = P[w] - P[j]; ay = P[w + 1] - P[j + 1]; az = P[w + 2] - P[j + 2];
          an = Math.hypot(ax, ay, az);
          if (an < 1e-9) break;
          ax /= an; ay /= an; az /= an;
          const mx = ay * lz - az * ly, my = az * lx - ax * lz, mz = ax * ly - ay * lx, along = mx * _bn[0] + my * _bn[1] + mz * _bn[2];
          lev = Math.hypot(mx, my, mz);
          if (lev < 1e-6 || Math.abs(along) < 1e-9) break;
          if (along <= 0) sg = -1;
        } else {
          ax = ly * _bn[2] - lz * _bn[1]; ay = lz * _bn[0] - lx * _bn[2]; az = lx * _bn[1] - ly * _bn[0];
          an = Math.hypot(ax, ay, az); lev = Math.hypot(lx, ly, lz);
          if (lev < 1e-6 || an < 1e-9) break;
          ax /= an; ay /= an; az /= an;
        }
        if (!started) {
          readChain(ctx, ch, 1);
          started = true;
        }
        const step = Math.min(depth / lev * TO_DEG, solver.selfStepDeg, cap - total);
        rotateJoint(ctx, ch, 0, axisAngle(_t, 0, ax, ay, az, sg * step / TO_DEG));
        total += step;
        ctx.limbsMoved = true;
      }
      if (started && fade > 0) {
        // a reach of this limb is ending (reach.js): the correction fades in as the reach fades out
        slerpInto(ctx.localQ, joint * 4, _pre, 0, 1 - fade);
        sk.forward(ctx.localQ);
      }
    }
    // a free leg the push took through the floor is cleared in its own chain, not by the clamp
    // lifting the body off its locked feet
    if (ctx.plan.swing.length) clearFreeLimbs(ctx);
    if (ctx.plan.armSwing.length) clearFreeArms(ctx);
    if (ctx.limbsMoved) grounding.run(ctx);   // the floor clamp (grounding.js)
  },
};
