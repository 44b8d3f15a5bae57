/**
 * Entry blend: the last pass. A change of contacts at a phase boundary (taking hold of a bar,
 * letting go, a lock that starts or ends, hands that start to carry the body) changes the solve's
 * root and limb corrections at once, so the first frame of the new segment would jump. At load,
 * {@link setEntryBlend} records, per segment, the offset between the solved pose at the end of
 * the previous phase and this segment's own solve at its first instant: the root translation,
 * the root rotation (world frame) and each local joint rotation that differs. Each frame the
 * offset is applied with weight 1 − smoothstep(u) (u: 0–1 through the segment):
 *   root = root + k·Δp,  rootQ = slerp(1, ΔR, k)·rootQ,  q_b = q_b·slerp(1, Δq_b, k),
 * so the pose is continuous at every boundary (equal to the previous end at u = 0) and equals
 * this segment's solve, hence the keyframe solve, at u = 1. Slerp through the quaternion
 * logarithm (quat.js). A floor-bound figure is then kept from sinking below the floor.
 * @module solvers/blend
 */

import { expScaled, log, mul, mulConjA } from "../quat.js";

const _v = new Float64Array(3), _q = new Float64Array(4);

/**
 * Record the entry offset of `plan` (solvers/plan.js) from two solved states of one skeleton.
 * @param {object} plan the segment's plan (gains `blend`, `blendQ`, `blendBones`, `blendLocal`, `blends`)
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
    if (Math.abs(_q[3]) < 1 - 1e-12) { bones.push(b); offs.push(..._q); }
  }
  plan.blendBones = Int16Array.from(bones);
  plan.blendLocal = Float64Array.from(offs);
  plan.blends = Math.hypot(...plan.blend) > 1e-9 || Math.abs(plan.blendQ[3]) < 1 - 1e-12 || bones.length > 0;
}

/** q (at qi) ← slerp(identity, d (at di), k) · q when `pre`, else q · slerp(identity, d, k). */
function blendInto(q, qi, d, di, k, pre) {
  log(_v, 0, d, di);
  expScaled(_q, 0, _v, 0, k);
  if (pre) mul(q, qi, _q, 0, q, qi);
  else mul(q, qi, q, qi, _q, 0);
}

export const entryBlend = {
  name: "entry-blend",
  run(ctx) {
    const p = ctx.plan, u = ctx.u;
    if (!p.blends || !(u < 1)) return;
    const k = 1 - u * u * (3 - 2 * u), sk = ctx.skeleton;
    for (let a = 0; a < 3; a++) sk.rootPos[a] += k * p.blend[a];
    if (p.blendQ) blendInto(sk.rootQ, 0, p.blendQ, 0, k, true);
    const bb = p.blendBones;
    if (bb) for (let i = 0; i < bb.length; i++) blendInto(ctx.localQ, bb[i] * 4, p.blendLocal, i * 4, k, false);
    sk.forward(ctx.localQ);
    const low = sk.measureLowest();
    if (low < 0) sk.translate(0, -low, 0);
  },
};
