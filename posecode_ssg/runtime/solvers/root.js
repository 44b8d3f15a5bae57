/**
 * Root-moving contact passes: ground-lock (feet), pin and grip translate the whole posed figure,
 * as the build-time keyframe solve does before its limb IK (posecode_ssg/motion/solve.py;
 * kinematics-reference §6.2, §8, §9.2; spec §5 "pin moves the body"). Each reads the segment's
 * {@link module:solvers/plan} (`ctx.plan`) and allocates nothing.
 *
 * Not yet here (the numpy solve has them): the per-leg CCD of ground-lock,
 * the hands/forearms pivot and the `back` lock, hand orientation and closed fingers of grip, the stance-leg IK of a
 * travelling gait's floor pins.
 * @module solvers/root
 */

import { contactHeight } from "./plan.js";
import { ccd } from "./ccd.js";

const DEG = 180 / Math.PI;

/**
 * Plantigrade levelling (kinematics-reference §6.4; solve.py `_level_foot`): set the ankle's x
 * angle so the sole is flat (its forward axis horizontal) — the angle is atan2(R[1][2], R[1][1])
 * of the knee's world rotation R — clamped to the ankle's box in rig.json `rom`; skipped when the
 * ankle is authored on tiptoe (x above `solver.plantigradeMaxAnkle`). The ankle's y and z are
 * locked (box [0, 0]), so its local rotation is qX(x). Re-runs forward kinematics.
 * @returns {boolean} whether the ankle changed
 */
function levelFoot(ctx, side) {
  const sk = ctx.skeleton, q = ctx.localQ, ankle = ctx.plan.ankle[side], knee = ctx.plan.knee[side];
  const o = ankle * 4;
  const authored = 2 * Math.atan2(q[o], q[o + 3]) * DEG;
  if (authored > ctx.rig.solver.plantigradeMaxAnkle) return false;
  const w = sk.worldQ, k = knee * 4;
  const x = w[k], y = w[k + 1], z = w[k + 2], qw = w[k + 3];
  const needed = Math.atan2(2 * (y * z - qw * x), 1 - 2 * (x * x + z * z)) * DEG;
  const box = ctx.plan.ankleBox;
  const used = Math.min(Math.max(needed, box[2 * side]), box[2 * side + 1]) / DEG;
  q[o] = Math.sin(0.5 * used); q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = Math.cos(0.5 * used);
  sk.forward(q);
  return true;
}

/**
 * Ground-lock of feet: drop the locked feet onto the floor, level the planted ones (unless hands
 * or forearms are locked too: a plank stands on its toes) and drop again, then move the root horizontally by
 * the mean (anchor − sole centre) of the feet that were planted when the phase began, the anchor
 * carried by the current turn and travel (solve.py `_ground_lock`, translation step).
 */
export const groundLock = {
  name: "ground-lock",
  run(ctx) {
    const p = ctx.plan, n = p.lockFeet.length;
    if (!n) return;
    const sk = ctx.skeleton, planted = ctx.rig.solver.plantedHeight;
    let low = dropFeet(sk, p);
    if (p.lockLevel) {
      let changed = false;
      for (let k = 0; k < n; k++) {
        if (sk.lowestByBone[p.lockAnkles[k]] - low <= planted) changed = levelFoot(ctx, p.lockFeet[k]) || changed;
      }
      if (changed) low = dropFeet(sk, p);
    }
    const r = ctx.root, c = Math.cos(r[0]), s = Math.sin(r[0]);
    let dx = 0, dz = 0, m = 0;
    for (let k = 0; k < n; k++) {
      if (!p.lockHeld[k] || sk.lowestByBone[p.lockAnkles[k]] - low > planted) continue;
      const ax = p.lockAnchor[k * 3], az = p.lockAnchor[k * 3 + 2];
      const wx = c * ax + s * az + ctx.startPos[0] + r[1];
      const wz = -s * ax + c * az + ctx.startPos[2] + r[2];
      const l = p.lockSole[k];
      dx += wx - sk.landmarkP[l * 3];
      dz += wz - sk.landmarkP[l * 3 + 2];
      m++;
    }
    if (m) sk.translate(dx / m, 0, dz / m);
  },
};

/** Drop the locked feet onto the floor (lowest foot point at y = 0); returns the old height. */
function dropFeet(sk, p) {
  sk.measureLowest();
  let low = Infinity;
  for (let k = 0; k < p.lockFeet.length; k++) if (sk.lowestByBone[p.lockAnkles[k]] < low) low = sk.lowestByBone[p.lockAnkles[k]];
  sk.translate(0, -low, 0);
  for (let k = 0; k < p.lockFeet.length; k++) sk.lowestByBone[p.lockAnkles[k]] -= low;
  return 0;
}

/**
 * Pin: translate the root by the mean (anchor − effector point) over the phase's pins; a floor
 * pin's anchor height is the effector's contact height; a pinned foot then rests on the floor
 * (solve.py, "pins (KR §8)").
 */
export const pin = {
  name: "pin",
  run(ctx) {
    const pins = ctx.plan.pins, n = pins.length;
    if (!n) return;
    const sk = ctx.skeleton;
    sk.measureLowest();
    let dx = 0, dy = 0, dz = 0;
    for (let i = 0; i < n; i++) {
      const q = pins[i];
      const src = q.sole >= 0 ? sk.landmarkP : sk.worldP, o = (q.sole >= 0 ? q.sole : q.bone) * 3;
      const ty = q.floor ? contactHeight(sk, q.rule) : q.target[1];
      dx += q.target[0] - src[o];
      dy += ty - src[o + 1];
      dz += q.target[2] - src[o + 2];
    }
    sk.translate(dx / n, dy / n, dz / n);
    for (let i = 0; i < n; i++) {
      const q = pins[i];
      if (!q.floor || !q.effector.startsWith("foot_")) continue;
      levelFoot(ctx, q.effector === "foot_left" ? 0 : 1);
      sk.measureLowest();
      sk.translate(0, -sk.lowestByBone[q.bone], 0);
    }
  },
};

/**
 * Grip: translate the root by the mean (anchor − wrist joint) over the gripping hands, then CCD
 * each arm (shoulder, elbow) onto its anchor (solve.py, "grips (KR §9.2)"; solvers/ccd.js).
 */
export const grip = {
  name: "grip",
  run(ctx) {
    const g = ctx.plan.grips, n = g.length;
    if (!n) return;
    const sk = ctx.skeleton, w = sk.worldP;
    let dx = 0, dy = 0, dz = 0;
    for (let i = 0; i < n; i++) {
      const o = g[i].bone * 3;
      dx += g[i].target[0] - w[o]; dy += g[i].target[1] - w[o + 1]; dz += g[i].target[2] - w[o + 2];
    }
    sk.translate(dx / n, dy / n, dz / n);
    // then each arm reaches its anchor (CCD, elbow bends −x)
    for (let i = 0; i < n; i++) ccd(ctx, g[i].chain, g[i].target, -1);
  },
};

/**
 * Floor clamp (kinematics-reference §6.1 step 14): after the root-moving passes, a floor-bound
 * phase touches the floor with its lowest point and no phase sinks below it (only when a
 * root-moving pass had something to do this segment). Then the entry blend: `plan.blend` is the
 * root offset (m) between the solved end of the previous phase and this segment's solve at its
 * start; it is added with weight 1 − smoothstep(u), so the pose is continuous at every phase
 * boundary and equals the keyframe solve at every phase end (u = 1).
 */
export const floorClamp = {
  name: "floor-clamp",
  run(ctx) {
    const p = ctx.plan, sk = ctx.skeleton;
    if (p.lockFeet.length || p.pins.length || p.grips.length) {
      const low = sk.measureLowest();
      if (Number.isFinite(low) && (ctx.floorBound || low < 0)) sk.translate(0, -low, 0);
    }
    // entry blend: the root offset left from the previous phase's end fades out over the
    // segment (smoothstep), so taking hold of a bar or dropping from it is a movement, not a jump
    if (p.blends && ctx.u < 1) {
      const u = ctx.u, k = 1 - u * u * (3 - 2 * u), b = p.blend;
      sk.translate(k * b[0], k * b[1], k * b[2]);
      if (b[1] < 0) {
        const low = sk.measureLowest();
        if (low < 0) sk.translate(0, -low, 0);
      }
    }
  },
};
