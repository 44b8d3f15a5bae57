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
 * this segment's solve, hence the keyframe solve, at u = 1. Letting go of a grip (`plan.release`)
 * the root's height offset Δy > 0 drops instead as fast as a smooth descent at no more than
 * gravity's acceleration, min(k·Δy, Δy·(1 − smoothstep(t/√(6Δy/g)))) (g: rig.json
 * `solver.gravity`), so the body drops off the bar and lands. The velocity too: the difference of
 * the two solves' rates at the boundary (from solves 1 ms either side, recorded at load) is added
 * with the cubic Hermite weight g(u) = T·u(1 − u)² (T the segment's length: g(0) = g(1) = 0,
 * dg/dt = 1 at u = 0 and 0 at u = 1) to each joint's angles, so a contact handover (a stance foot
 * changing at a step) does not jerk the free leg (eval's C1 metric): knees and ankles only (and
 * hips in a travelling gait's stance), not
 * the root nor a leg a pin or lock holds in this segment (that slides the planted foot), nor the
 * arms (the self-collision pass, before this one, could no longer keep them clear). Root slerp: quat.js `slerpInto`. A joint's offset is added in its joint angles e (quat.js `jointAngles`,
 * the axes of its rig.json `rom` box) and the sum is clamped into the box (widened to the
 * unblended and the end angle): a quaternion slerp between an open and a gripping hand leaves the thumb's
 * box by 3.3°, and a box is convex only in these angles (timeline.js). A floor-bound figure is
 * then kept on the floor (entered from the floor) or from sinking below it (entered from a hang
 * or a prop, which it leaves by the blend or the fall).
 * @module solvers/blend
 */

import { fromEulerXYZ, jointAngles, mul, slerpInto } from "../quat.js";
import { flagUnlevelFeet } from "./groundlock.js";
import { clearFreeLimbs, keepFreeFeetDown } from "./swingclearance.js";

const _pre = new Float64Array(2);
/** s over which a free foot's keeping down comes in from a segment's start (swingclearance.js `keepFreeFeetDown`) */
const KEEP_DOWN_RAMP = 0.15;

const _q = new Float64Array(4), _e = new Float64Array(15), ID = Float64Array.of(0, 0, 0, 1);
/** Largest joint-angle offset (degrees) a rate blend may add (a touch-down or a turn's needs stay under it). */
const RATE_DEG = 12;

/** Whether a floor pin's stance leg or a locked foot's leg of `plan` contains bone `b`. */
const holds = (plan, b) => (plan.pins || []).some((x) => x.chain && (x.chain.bones.includes(b) || x.chain.end === b)) ||
  (plan.lockChain || []).some((c) => c.bones.includes(b) || c.end === b);

/**
 * Record the entry offset of `plan` (solvers/plan.js) from two solved states of one skeleton.
 * @param {object} plan the segment's plan (gains `blend`, `blendQ`, `blendBones`, `blendLocal` (the
 *   start and end local quaternions of each blended bone), `blends`)
 * @param {{pos: Float64Array, q: Float64Array, local: Float64Array}} end solved end of the previous phase
 * @param {{pos: Float64Array, q: Float64Array, local: Float64Array}} start this segment's solve at u = 0
 * @param {{local: Float64Array}} endV the previous segment's solve `D` s before the boundary
 * @param {{local: Float64Array}} startV this segment's solve `D` s after it
 * @param {number} D seconds
 */
export function setEntryBlend(plan, end, start, endV, startV, D) {
  for (let a = 0; a < 3; a++) plan.blend[a] = end.pos[a] - start.pos[a];
  plan.blendD = D;
  // world-frame root delta: ΔR = q_end · conj(q_start)
  const s = start.q, cs = [-s[0], -s[1], -s[2], s[3]];
  plan.blendQ = mul(new Float64Array(4), 0, end.q, 0, cs, 0);
  const bones = [], offs = [];
  for (let b = 0; b < end.local.length / 4; b++) {
    let moved = false;
    // only a free knee or ankle (a stance handover's swing leg), and its hip in a travelling gait's
    // stance (elsewhere a hip's rate would swing a foot reaching for the floor into it, and the
    // floor clamp would lift the standing foot): a held leg's rate is left to its contact
    // (offsetting it slides the planted foot), an arm's to the self-collision pass before
    const held = !(plan.knee || []).includes(b) && !(plan.ankle || []).includes(b) && !(plan.stance && plan.hip.includes(b)) || holds(plan, b);
    // moved: the rotation between the start and another solve (conj(start)·o, whose w is their dot product) is not 0
    for (const o of [end.local, endV.local, startV.local]) {
      let w = 0;
      for (let i = b * 4; i < b * 4 + 4; i++) w += start.local[i] * o[i];
      moved ||= Math.abs(w) < 1 - 1e-12;
    }
    if (moved) for (const o of held ? [start, end, start, end] : [start, end, startV, endV]) offs.push(...o.local.subarray(b * 4, b * 4 + 4));
    if (moved) bones.push(b);
  }
  plan.blendBones = Int16Array.from(bones);
  plan.blendLocal = Float64Array.from(offs);
  plan.blends = Math.hypot(...plan.blend) > 1e-9 || Math.abs(plan.blendQ[3]) < 1 - 1e-12 || bones.length > 0;
}

/**
 * Blend joint `b` of local rotations `q` toward the recorded end: its angles plus k × (end − start)
 * angles plus g × (the end's rate − the start's rate) (`L` at `li`: start, end, start + D, end − D
 * quaternions), each clamped into `box` widened to the unblended and the end angle (so the
 * boundary stays continuous whatever the solves did).
 */
function blendJoint(q, b, L, li, box, k, g, rmax) {
  jointAngles(q, b * 4, box, _e, 0);
  for (let j = 0; j < 4; j++) jointAngles(L, li + 4 * j, box, _e, 3 + 3 * j);
  for (let i = 0; i < 3; i++) {
    const dr = Math.min(Math.max(_e[6 + i] - _e[12 + i] - _e[9 + i] + _e[3 + i], -rmax), rmax);
    const v = _e[i] + k * (_e[6 + i] - _e[3 + i]) + g * dr, r = box && box["xyz"[i]];
    _e[i] = r ? Math.min(Math.max(v, Math.min(r[0], _e[i], _e[6 + i])), Math.max(r[1], _e[i], _e[6 + i])) : v;
  }
  fromEulerXYZ(q, b * 4, _e[0], _e[1], _e[2]);
}

/**
 * The other side of a stance handover: the leg a pin or lock of the next segment holds, free in
 * `prev` (a foot about to land), is given the next segment's joint rates at its end — the rate
 * difference with the Hermite weight −T·u²(1 − u) (0 at both ends, d/dt = −1 at u = 1), stored
 * on `prev` as `exitBones` / `exitLocal` (same layout as the entry offsets).
 */
export function setExitBlend(prev, plan, end, start, endV, startV) {
  const bones = [], offs = [];
  for (let b = 0; b < end.local.length / 4; b++) {
    if (!holds(plan, b) || holds(prev, b)) continue;
    bones.push(b);
    for (const o of [start, end, startV, endV]) offs.push(...o.local.subarray(b * 4, b * 4 + 4));
  }
  prev.exitBones = Int16Array.from(bones);
  prev.exitLocal = Float64Array.from(offs);
}

export const entryBlend = {
  run(ctx) {
    const p = ctx.plan, u = ctx.u, T = ctx.segDt[ctx.segment], sk = ctx.skeleton, rom = ctx.rig.rom, xb = p.exitBones;
    if (!(u < 1)) return;
    // a rate offset peaks at 4T/27 × the rate difference: at most RATE_DEG (a start solve that is
    // itself discontinuous right after the boundary must not fling a limb about)
    const rmax = RATE_DEG * 27 / (4 * T) * p.blendD;
    if (xb) for (let i = 0; i < xb.length; i++) blendJoint(ctx.localQ, xb[i], p.exitLocal, i * 16, rom[sk.boneIds[xb[i]]], 0, T * u * u * (1 - u) / p.blendD, rmax);
    if (!p.blends) { if (xb) sk.forward(ctx.localQ); return; }
    const k = 1 - u * u * (3 - 2 * u), g = T * u * (1 - u) * (1 - u);
    for (let a = 0; a < 3; a++) sk.rootPos[a] += k * p.blend[a];
    // let go of a grip above the floor: the body drops from where it hung (at rest) as fast as
    // a smooth descent whose acceleration never exceeds gravity's, h·(1 − smoothstep(t/tf)) with
    // tf = √(6h/g) (its peak acceleration 6h/tf² = g), not eased down over the whole phase (a
    // float), and lands without a jolt the authored knees could not absorb; never slower than
    // the ease, so the phase still ends where the keyframe solve puts it
    if (p.release && p.blend[1] > 0) {
      const h = p.blend[1], eased = k * h, x = Math.min(1, u * T / Math.sqrt(6 * h / ctx.rig.solver.gravity));
      sk.rootPos[1] += Math.min(eased, h * (1 - x * x * (3 - 2 * x))) - eased;
    }
    if (p.blendQ) {
      _q.set(p.blendQ);
      slerpInto(_q, 0, ID, 0, k);   // slerp(1, ΔR, k)
      mul(sk.rootQ, 0, _q, 0, sk.rootQ, 0);
    }
    const bb = p.blendBones;
    // the free feet's lowest points before the joints' offsets (kept down after them:
    // swingclearance.js `keepFreeFeetDown`; the root's offsets move the whole body, feet and all)
    if (bb && p.swing.length) {
      sk.forward(ctx.localQ);
      sk.measureLowest();
      for (let i = 0; i < p.swing.length; i++) _pre[i] = sk.lowestByBone[p.swing[i].ankle];
    }
    if (bb) for (let i = 0; i < bb.length; i++) blendJoint(ctx.localQ, bb[i], p.blendLocal, i * 16, rom[sk.boneIds[bb[i]]], k, g / p.blendD, rmax);
    sk.forward(ctx.localQ);
    // a held foot the blended pose shows past the ankle's range is named
    flagUnlevelFeet(ctx);
    // a free leg the blended angles push through the floor is lifted by its own chain while the
    // body rests on a pin or lock (swingclearance.js), not the whole body off its support
    if (p.swing.length) {
      clearFreeLimbs(ctx);
      const x = Math.min(1, (u * T) / KEEP_DOWN_RAMP);
      if (bb) keepFreeFeetDown(ctx, _pre, x * x * (3 - 2 * x));
    }
    // a floor-bound figure entered from the floor stays on it (the blended root would otherwise
    // float it until the offset has decayed); none sinks below it
    const low = sk.measureLowest();
    if (low < 0 || (ctx.floorBound && p.fromFloor)) sk.translate(0, -low, 0);
  },
};
