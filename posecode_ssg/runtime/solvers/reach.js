/**
 * Reach pass: CCD over the limb chain toward the target, every joint clamped into its rig.json
 * `rom` box (widened to the authored angle) at every step (spec §5 "reach moves the limb";
 * kinematics-reference §7), the same steps as the numpy keyframe solve (posecode_ssg/motion/
 * solve/reach.py); the root does not move.
 *
 * - Chains (KR §7; rig.json `solver.reachChains`): hand, fist → shoulder, elbow (end: wrist); elbow → shoulder (end: elbow);
 *   foot → hip, knee (end: ankle); knee → hip (end: knee). Two-joint chains use solvers/ccd.js
 *   `ccd` (pre-bend, CCD, straight-hinge retry); one-joint chains swing the ball joint (`aim`)
 *   up to `solver.ccdIterations` times, stopping within `solver.ccdStopDistance`.
 * - Targets: `floor` — the joint's own x, z (a hand's pushed `solver.handFloorOutward` outward
 *   from its shoulder, horizontally) at the effector's contact height (KR §7.1, plan.js
 *   `contactHeightRule`), re-aimed twice at the height the new limb pose gives, with the same
 *   widened boxes (a hand: three times, its palm turned to the floor before each, hands.js
 *   `palmFlat`; its elbow and wrist then blend by angle, in their boxes; a foot the weight shift
 *   stands on: its sole laid flat before each, limb.js `levelFoot`); a body landmark (bone
 *   id or effector name) — its current world position; a prop anchor — rig.json
 *   `props[*].anchors`; a hand or fist on an anchor of rig.json `surfaces`
 *   (the wall) rests on that surface: the target moves out along its normal until the forearm +
 *   hand capsule just touches it, re-aimed twice (solve/measure.py `arm_clearance`).
 * - Blending across phase boundaries (KR §5.3): a reach held in the previous segment too has
 *   weight 1; one that starts in this segment weight smoothstep(u); one that ends (held in the
 *   previous segment, not in this one) weight 1 − smoothstep(u). Each chain joint's local
 *   rotation is slerped from its pre-solve value toward the solved one by the weight, so at a
 *   phase end (u → 1) the pose is the keyframe solve and every boundary is continuous.
 * - `ctx.leaving[L]` (limbs: arm_left, arm_right, leg_left, leg_right) is the weight of a reach
 *   of limb L that is ending; the self-collision pass fades its correction in by 1 − that weight.
 * - The residual is not hidden: `sample().contacts` reports it per reach (solvers/contacts.js)
 *   with the reach's current `weight`, and a residual above `solver.reachTolerance` adds a
 *   `contact-residual` warning.
 * A reach of a foot onto a top surface (box, seat) is aimed with the ankle joint, not the sole
 * (the numpy solve aims the sole); no conformance example or demo uses one.
 * Nothing is allocated per frame: chain records are built once per figure and segment.
 * @module solvers/reach
 */

import { ccd, makeChain, readChain, run } from "./ccd.js";
import { fromEulerXYZ, jointAngles, slerpInto } from "../quat.js";
import { ankleX, contactHeight, contactHeightRule } from "./measure.js";
import { levelFoot } from "./limb.js";
import { clearFreeArms, clearFreeLimbs } from "./swingclearance.js";
import { palmFlat } from "./hands.js";


const cache = new WeakMap();
const _t = new Float64Array(3);
const _save = new Float64Array(12), _e = new Float64Array(6);   // the chain's joints and its end; angles

function record(ctx, c, mode) {
  const sk = ctx.skeleton, rig = ctx.rig;
  const kind = c.effector.split("_")[0], left = c.effector.endsWith("_left"), side = left ? "left" : "right";
  // the chain's joints (rig.json `solver.reachChains`) and its end, the effector's bone
  const ids = rig.solver.reachChains[kind];
  if (!ids) return null;
  const joints = ids.map((j) => `${j}_${side}`), n = joints.length, ch = makeChain(rig, sk, joints, rig.effectors[c.effector]);
  // blended (bl): the chain's joints and its end (a palm turned to the floor: the wrist)
  const r = { contact: mode === 2 ? null : c, mode, ch, bl: [...ch.bones, ch.end],
    limb: (ids[0] === "hip" ? 2 : 0) + !left, n, sign: kind === "foot" ? 1 : -1, floor: c.floor };
  if (c.floor) {
    r.rule = contactHeightRule(rig, sk, c.effector);
    // a hand's palm is presented to the floor (hands.js palmFlat reads pro, shoulder, elbow, wrist),
    // and the sole of a foot the weight shift stands on (side 0 / 1: limb.js levelFoot)
    if (kind === "hand") Object.assign(r, { shoulder: ch.bones[0], elbow: ch.bones[1], wrist: ch.end, pro: left ? -1 : 1 });
    if (kind === "foot") r.sole = left ? 0 : 1;
  } else if (c.target) {
    r.target = c.target;   // rig.json `props[*].anchors`, read only
    // a hand on a surface that blocks the arms (the wall): rig.json `surfaces`, [n, n·c]
    if (kind === "hand" || kind === "fist") r.face = rig.surfaces[c.anchor];
  } else {
    const name = sk.index.has(c.anchor) ? c.anchor : rig.effectors[c.anchor];
    if (!sk.index.has(name)) return null;
    r.targetBone = sk.index.get(name);
  }
  return r;
}

/** This segment's reach records: its own (mode 0 held over, 1 starting) then those ending (2). */
function segmentReaches(ctx) {
  let st = cache.get(ctx);
  if (!st) { st = []; cache.set(ctx, st); }
  const s = ctx.segment;
  if (st[s]) return st[s];
  const S = ctx.segContacts.length;
  const reaches = (k) => ctx.segContacts[k].filter((c) => c.kind === "reach"), cur = reaches(s), prev = reaches((s - 1 + S) % S);
  const same = (a, b) => a.effector === b.effector && a.anchor === b.anchor;
  const out = [];
  for (const c of cur) out.push(record(ctx, c, prev.some((p) => same(p, c)) ? 0 : 1));
  // an ending reach of a foot the weight shift stands on (balance.js) is not faded out: the
  // stance foot is held by this segment's lock or pin, its leg re-solved under the shifted body
  const w = ctx.plan && ctx.plan.shift;
  for (const c of prev) if (!cur.some((p) => same(p, c)) && !(w && w.legs.some((l) => l.foot === c.effector))) out.push(record(ctx, c, 2));
  st[s] = out.filter(Boolean);
  return st[s];
}

function solveOne(ctx, r) {
  const sk = ctx.skeleton, P = sk.worldP, ch = r.ch, b = ch.end, solver = ctx.rig.solver;
  if (r.target) _t.set(r.target);
  else {   // the effector's own joint (floor) or the target landmark's
    const o = (r.floor ? b : r.targetBone) * 3;
    _t[0] = P[o]; _t[1] = P[o + 1]; _t[2] = P[o + 2];
  }
  if (r.floor) {
    if (r.pro) {   // a hand: pushed outward from its shoulder
      const dx = _t[0] - P[r.shoulder * 3], dz = _t[2] - P[r.shoulder * 3 + 2], n = Math.hypot(dx, dz);
      if (n > 1e-6) { _t[0] += dx / n * solver.handFloorOutward; _t[2] += dz / n * solver.handFloorOutward; }
    }
    sk.measureLowest();
    _t[1] = contactHeight(sk, r.rule);
  }
  if (r.n === 2) {
    // a foot the weight shift stands on bears the body: its sole is laid flat before each re-aim
    // (solve/reach.py; pointed by intent: kept), from its authored ankle x
    const w = r.floor && r.sole >= 0 ? ctx.plan.shift : null;
    const level = w !== null && w.legs.some((l) => l.side === r.sole), auth = level ? ankleX(ctx, r.sole) : 0;
    ccd(ctx, ch, _t, r.sign);
    // re-aimed twice: on the floor at the contact height the new limb pose gives; on a surface
    // (r.face = [n, n·c]) the target moves out along n by the arm radius minus the smaller plane
    // distance of the elbow and of `armOverhang` past the wrist (solve/measure.py `arm_clearance`)
    for (let k = 0, f = r.face, e = ch.bones[1] * 3; (f || r.floor) && k < (r.pro ? 3 : 2); k++) {
      if (f) {
        let de = -f[3], dw = 0, L = 0;
        for (let i = 0; i < 3; i++) { const x = P[b * 3 + i] - P[e + i]; de += P[e + i] * f[i]; dw += x * f[i]; L += x * x; }
        const depth = sk.avatar.collision.arm - de - Math.min(0, dw * (1 + solver.armOverhang / Math.sqrt(L)));
        for (let i = 0; i < 3; i++) _t[i] += f[i] * depth;
      } else {
        if (r.pro) palmFlat(ctx, r);   // thrice: the re-aim turns the forearm again
        else if (level) levelFoot(ctx, r.sole, auth);
        sk.measureLowest();
        _t[1] = contactHeight(sk, r.rule);
      }
      ccd(ctx, ch, _t, r.sign, true, f && solver.gripStopDistance);
    }
    return;
  }
  readChain(ctx, ch, 1);
  for (let round = 0; round < (r.floor ? 3 : 1); round++) {
    if (round) { sk.measureLowest(); _t[1] = contactHeight(sk, r.rule); }
    run(ctx, ch, 1, _t);   // the ball joint swung (ccd.js)
  }
}

/** The reach pass (see the module comment). Sets `ctx.limbsMoved` when it ran a reach. */
export const reach = {
  run(ctx) {
    if (!ctx.leaving) ctx.leaving = new Float64Array(4);
    ctx.leaving.fill(0);
    if (ctx.segment < 0 || !ctx.segContacts) return;
    const list = segmentReaches(ctx);
    if (!list.length) return;
    // a segment's first instant solved for its entry blend (figuremodel.js `startSolve`) is at u = 0
    const u = ctx.startSolve ? 0 : ctx.u, sm = u * u * (3 - 2 * u), q = ctx.localQ, sk = ctx.skeleton;
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      const w = r.mode === 0 ? 1 : r.mode === 1 ? sm : 1 - sm;
      if (r.contact) r.contact.weight = w;   // reported by sample().contacts
      else ctx.leaving[r.limb] = Math.max(ctx.leaving[r.limb], w);   // selfcollision.js fades in
      if (w <= 0) continue;
      const bones = r.bl;
      for (let k = 0; k <= r.n; k++) for (let c = 0; c < 4; c++) _save[k * 4 + c] = q[bones[k] * 4 + c];
      solveOne(ctx, r);
      if (w < 1) {
        for (let k = 0; k <= r.n; k++) {
          const o = bones[k] * 4, box = ctx.rig.rom[sk.boneIds[bones[k]]];
          if (r.pro && k) {   // a palm turned to the floor: elbow and wrist by angle, in their boxes (elbow z, wrist y fixed)
            jointAngles(_save, k * 4, box, _e, 0); jointAngles(q, o, box, _e, 3);
            for (let i = 0; i < 3; i++) _e[i] += w * (_e[i + 3] - _e[i]);
            fromEulerXYZ(q, o, _e[0], _e[1], _e[2]);
          } else slerpInto(q, o, _save, k * 4, w);
        }
        sk.forward(q);
      }
      ctx.limbsMoved = true;
    }
    // a foot reaching for the floor while the body stands on another: what the blend leaves
    // through the floor is turned up at its ankle (swingclearance.js), not lifted with the body
    if (ctx.plan.reachSwing.length) clearFreeLimbs(ctx, ctx.plan.reachSwing);
    // a hand reaching for the floor (or a reach fading out) presses its fingers through it: its
    // arm swings out along the floor (swingclearance.js)
    if (ctx.plan.armSwing.length) clearFreeArms(ctx);
  },
};
