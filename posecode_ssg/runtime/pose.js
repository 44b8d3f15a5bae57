/**
 * A figure's motion model without any drawing: timeline → forward kinematics → solver passes →
 * contact report. `evaluate(t)` is pure in `t` (no clock, no randomness), so a pose at a seeked
 * time is deterministic.
 * @module pose
 */

import { Skeleton } from "./skeleton.js";
import { Timeline } from "./timeline.js";
import { mul } from "./quat.js";
import { runPasses } from "./solvers/index.js";
import { contactResidual, resolveContacts } from "./solvers/contacts.js";

/**
 * @param {object} motion validated motion JSON
 * @param {object} rig rig.json
 */
export class FigureModel {
  constructor(motion, rig) {
    this.motion = motion;
    this.rig = rig;
    const sk = new Skeleton(rig, motion.avatar ?? rig.defaultAvatar);
    this.skeleton = sk;
    this.timeline = new Timeline(motion, sk.boneIds);
    this.duration = this.timeline.duration;
    const start = sk.startRoot(motion.startPose ?? rig.defaultStartPose);
    this.startPos = Float64Array.from(start.position);
    this.startQ = start.quaternion;
    this.localQ = new Float64Array(sk.boneCount * 4);
    this.rootChannels = new Float64Array(3);
    this._yawQ = new Float64Array(4);
    // per segment: contacts of the destination phase; floor-bound unless it hangs (grip, or a pin
    // to a non-floor anchor)
    const S = this.timeline.segmentCount;
    this.segContacts = [];
    this.segFloorBound = new Uint8Array(S);
    for (let s = 0; s < S; s++) {
      const ph = s < motion.phases.length ? motion.phases[s] : {};
      this.segContacts.push(resolveContacts(ph, rig, sk));
      const hangs = (ph.grip || []).length > 0 || (ph.pin || []).some(([, a]) => a !== "floor");
      this.segFloorBound[s] = hangs ? 0 : 1;
    }
    /** the solve context handed to every pass (solvers/index.js) */
    this.ctx = { skeleton: sk, localQ: this.localQ, floorBound: true, segment: 0, contacts: [], warnings: [], rig };
    this.t = 0;
    this.segment = 0;
  }

  /**
   * Pose the figure at `t` seconds (the loop wraps).
   * @returns {number} the segment index
   */
  evaluate(t) {
    const tl = this.timeline, sk = this.skeleton, r = this.rootChannels;
    const s = tl.evaluate(t, this.localQ, r);
    const y = this._yawQ;
    y[0] = 0; y[1] = Math.sin(0.5 * r[0]); y[2] = 0; y[3] = Math.cos(0.5 * r[0]);
    mul(sk.rootQ, 0, y, 0, this.startQ, 0);
    sk.rootPos[0] = this.startPos[0] + r[1];
    sk.rootPos[1] = this.startPos[1];
    sk.rootPos[2] = this.startPos[2] + r[2];
    sk.forward(this.localQ);
    const ctx = this.ctx;
    ctx.segment = s;
    ctx.floorBound = this.segFloorBound[s] === 1;
    ctx.contacts = this.segContacts[s];
    ctx.warnings.length = 0;
    runPasses(ctx);
    this.t = t;
    this.segment = s;
    return s;
  }

  /** Zero-based phase index at the last evaluated time (−1 in the wrap). */
  get phase() {
    return this.segment < this.timeline.phaseCount ? this.segment : -1;
  }

  /**
   * The test-hook snapshot of the current pose (world metres): see issue 4 item 7.
   * @returns {{t:number, phase:number, bones:Object<string,number[]>, landmarks:Object<string,number[]>,
   *   contacts:{kind:string,effector:string,anchor:string,residual_m:number}[], warnings:{code:string,message:string}[]}}
   */
  sample() {
    const sk = this.skeleton;
    const bones = {};
    for (const id of sk.boneIds) bones[id] = sk.point(id);
    const landmarks = {};
    for (const n of sk.landmarkNames) landmarks[n] = sk.point(n);
    const tol = this.rig.solver?.reachTolerance ?? 0.03;
    const contacts = [];
    const warnings = this.ctx.warnings.map((w) => ({ ...w }));
    for (const c of this.ctx.contacts) {
      const residual = contactResidual(c, sk, this.rig.backBones || []);
      contacts.push({ kind: c.kind, effector: c.effector, anchor: c.anchor, residual_m: residual });
      if (!(residual <= tol)) {
        warnings.push({
          code: "contact-residual",
          message: `${c.effector} is ${Number.isFinite(residual) ? residual.toFixed(3) + " m" : "unmeasurably far"} from ${c.anchor} (${c.kind})`,
        });
      }
    }
    return { t: this.t, phase: this.phase, bones, landmarks, contacts, warnings };
  }
}
