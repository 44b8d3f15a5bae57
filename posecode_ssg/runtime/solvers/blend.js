/**
 * Entry blend: the last pass. A change of contacts at a phase boundary (taking hold of a bar,
 * letting go, a lock that starts or ends, hands that start to carry the body) changes the solve's
 * root and limb corrections at once, so the first frame of the new segment would jump. At load,
 * {@link setEntryBlend} records, per segment, the offset between the solved pose at the end of
 * the previous phase and this segment's own solve at its first instant: the root translation,
 * the root rotation (world frame) and each local joint rotation that differs. Each frame the
 * offset is applied with weight 1 − smoothstep(u) (u: 0–1 through the segment):
 *   root = root + k·Δp,  rootQ = slerp(1, ΔR, k)·rootQ,  e_b = e_b + k·(e_b,end − e_b,start),
 * so the pose is continuous at every boundary (equal to the previous end at u = 0) and equals
 * this segment's solve, hence the keyframe solve, at u = 1. Root slerp through the quaternion
 * logarithm (quat.js). A joint's offset is added in its joint angles e (quat.js `jointAngles`,
 * the axes of its rig.json `rom` box) and the sum is clamped into the box (widened to the
 * unblended and the end angle): a quaternion slerp between an open and a gripping hand leaves the thumb's
 * box by 3.3°, and a box is convex only in these angles (timeline.js). A floor-bound figure is
 * then kept from sinking below the floor.
 * @module solvers/blend
 */

import { expScaled, fromEulerXYZ, jointAngles, log, mul, mulConjA } from "../quat.js";

const _v = new Float64Array(3), _q = new Float64Array(4), _e = new Float64Array(9);

/**
 * Record the entry offset of `plan` (solvers/plan.js) from two solved states of one skeleton.
 * @param {object} plan the segment's plan (gains `blend`, `blendQ`, `blendBones`, `blendLocal` (the
 *   start and end local quaternions of each blended bone), `blends`)
 * @param {{pos: Float64Array, q: Float64Array, local: Float64Array}} end solved end of the previous phase
 * @param {{pos: Float64Array, q: Float64Array, local: Float64Array}} start this segment's solve at u = 0
 */
export function setEntryBlend(plan, end, start) {
  for (let a = 0; a < 3; a++) plan.blend[a] = end.pos[a] - start.pos[a];
  // world-frame root delta: ΔR = q_end · conj(q_start)
  const s = start.q, cs = [-s[0], -s[1], -s[2], s[3]];
  plan.blendQ = mul(new Float64Array(4), 0, end.q, 0, cs, 0);
  const bones = [], offs = [];
  for (let b = 0; b < end.local.length / 4; b++) {
    mulConjA(_q, 0, start.local, b * 4, end.local, b * 4);
    if (Math.abs(_q[3]) < 1 - 1e-12) { bones.push(b); offs.push(...start.local.subarray(b * 4, b * 4 + 4), ...end.local.subarray(b * 4, b * 4 + 4)); }
  }
  plan.blendBones = Int16Array.from(bones);
  plan.blendLocal = Float64Array.from(offs);
  plan.blends = Math.hypot(...plan.blend) > 1e-9 || Math.abs(plan.blendQ[3]) < 1 - 1e-12 || bones.length > 0;
}

/**
 * Blend joint `b` of local rotations `q` toward the recorded end: its angles plus k × (end − start)
 * angles (`L` at `li`: start then end quaternion), each clamped into `box` widened to the
 * unblended and the end angle (so the boundary stays continuous whatever the solves did).
 */
function blendJoint(q, b, L, li, box, k) {
  jointAngles(q, b * 4, box, _e, 0);
  jointAngles(L, li, box, _e, 3);
  jointAngles(L, li + 4, box, _e, 6);
  for (let i = 0; i < 3; i++) {
    const v = _e[i] + k * (_e[6 + i] - _e[3 + i]), r = box && box["xyz"[i]];
    _e[i] = r ? Math.min(Math.max(v, Math.min(r[0], _e[i], _e[6 + i])), Math.max(r[1], _e[i], _e[6 + i])) : v;
  }
  fromEulerXYZ(q, b * 4, _e[0], _e[1], _e[2]);
}

export const entryBlend = {
  name: "entry-blend",
  run(ctx) {
    const p = ctx.plan, u = ctx.u;
    if (!p.blends || !(u < 1)) return;
    const k = 1 - u * u * (3 - 2 * u), sk = ctx.skeleton;
    for (let a = 0; a < 3; a++) sk.rootPos[a] += k * p.blend[a];
    if (p.blendQ) {
      log(_v, 0, p.blendQ, 0);
      expScaled(_q, 0, _v, 0, k);
      mul(sk.rootQ, 0, _q, 0, sk.rootQ, 0);
    }
    const bb = p.blendBones, rom = ctx.rig.rom;
    if (bb) for (let i = 0; i < bb.length; i++) blendJoint(ctx.localQ, bb[i], p.blendLocal, i * 8, rom[sk.boneIds[bb[i]]], k);
    sk.forward(ctx.localQ);
    const low = sk.measureLowest();
    if (low < 0) sk.translate(0, -low, 0);
  },
};
