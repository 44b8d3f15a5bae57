/**
 * Contact report: for every contact active in the current segment (the destination phase's
 * ground-lock, pin, grip and reach, kinematics-reference §5.3), the residual distance left after
 * the solver passes. One record per side; `effector` is a single-side name (`foot_left`, ...).
 *
 * Contact points (rig.json `landmarks`, `effectors`, `solver`):
 * - a foot on the floor: the lower of its heel and toe sole points; elsewhere its sole centre;
 * - a hand: its palm landmark; a fist, knee, elbow or the pelvis: its bone joint; on the floor
 *   the residual is the gap between that joint's height and its contact height (plan.js
 *   `contactHeight`: the knee cap's radius, the forearm's, the back's lowest point below the
 *   pelvis), as the numpy solve's `_residual` measures it;
 * - a grip holds the wrist joint at the anchor (the reference grip translates wrist → anchor);
 * - `back` on the floor: the lowest mesh point of rig.json `backBones`.
 * Residual: |height| for the floor, else the Euclidean distance to the anchor (m).
 * @module solvers/contacts
 */

import { contactHeight, contactHeightRule, propAnchor } from "./measure.js";
import { span } from "./ccd.js";

/**
 * Resolve the contact list of one phase into records the measure step can evaluate quickly.
 * @returns {{kind: string, effector: string, anchor: string, point: string|null, bone: number,
 *   floor: boolean, target: number[]|null, targetName: string|null}[]}
 */
export function resolveContacts(phase, rig, skeleton) {
  const out = [];
  const add = (kind, effector, anchor) => {
    const floor = anchor === "floor";
    let bone = -1, point = null;
    if (effector !== "back") {
      const boneId = rig.effectors[effector] || effector, [limb, side] = effector.split("_");
      bone = skeleton.index.has(boneId) ? skeleton.index.get(boneId) : -1;
      if (limb === "foot") point = `${floor ? "toe" : "sole"}_${side}`;
      else if (limb === "hand" && kind !== "grip") point = `palm_${side}`;
    }
    let target = null, targetName = null;
    if (!floor) {
      target = propAnchor(rig, anchor);
      if (!target) targetName = anchor; // a body landmark / bone id (reach)
    }
    const rule = floor && bone >= 0 && !point ? contactHeightRule(rig, skeleton, effector) : null;
    out.push({ kind, effector, anchor, point, bone, floor, target, targetName, rule });
  };
  for (const e of phase.gl || []) add("ground-lock", e, "floor");
  for (const [e, a] of phase.pin || []) add("pin", e, a);
  for (const [e, a] of phase.grip || []) add("grip", e, a);
  for (const [e, a] of phase.reach || []) add("reach", e, a);
  return out;
}

/**
 * Residual (m) of one resolved contact on the posed skeleton.
 * @param {object} c a record from {@link resolveContacts}
 * @param {import("../skeleton.js").Skeleton} sk
 * @param {string[]} backBones rig.json `backBones`
 */
export function contactResidual(c, sk, backBones) {
  if (c.floor) {
    if (c.effector === "back") {
      sk.measureLowest();
      let m = Infinity;
      for (const b of backBones) m = Math.min(m, sk.lowestByBone[sk.index.get(b)]);
      return Math.abs(m);
    }
    if (c.effector.startsWith("foot_")) {
      const side = c.effector.slice(5);
      const heel = sk.point(`heel_${side}`), toe = sk.point(`toe_${side}`);
      return Math.abs(Math.min(heel[1], toe[1]));
    }
    if (c.point) return Math.abs(sk.point(c.point)[1]);
    if (!c.rule) return NaN;
    sk.measureLowest();
    return Math.abs(sk.worldP[c.bone * 3 + 1] - contactHeight(sk, c.rule));
  }
  const p = c.point ? sk.point(c.point) : c.bone >= 0 ? sk.point(sk.boneIds[c.bone]) : null;
  const q = c.target || (c.targetName ? sk.point(c.targetName) : null);
  if (!p || !q) return NaN;
  return span(p, 0, q, 0);
}
