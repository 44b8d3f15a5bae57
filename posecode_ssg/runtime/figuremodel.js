/**
 * A figure's motion model without any drawing: timeline → forward kinematics → solver passes →
 * contact report. `evaluate(t)` is pure in `t` (no clock, no randomness), so a pose at a seeked
 * time is deterministic.
 * @module figuremodel
 */

import { Skeleton } from "./skeleton.js";
import { ROOT_CHANNELS, Timeline } from "./timeline.js";
import { axisAngle, DEG, mul, TO_DEG } from "./quat.js";
import { runPasses } from "./solvers/index.js";
import { contactResidual, resolveContacts } from "./solvers/contacts.js";
import { emptyPlan, liftedStance, reachedStance, planSegment, planWrap, shiftPlan, SHIFT_PROBES } from "./solvers/plan.js";
import { setEntryBlend, setExitBlend } from "./solvers/blend.js";
import { span } from "./solvers/ccd.js";
import { ankleX } from "./solvers/measure.js";
import { measureStance } from "./solvers/balance.js";
import { balanceWarning } from "./solvers/balancewarn.js";
import { freeLowest, knotCurve, probeSettle, restingHeld, settleAngle, settlePlan } from "./solvers/settle.js";
import { attachItems } from "./equipment.js";

const NO_CONTACTS = [];
const NO_PLAN = emptyPlan();

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
    this.timeline = new Timeline(motion, sk.boneIds, rig.rom);
    this.duration = this.timeline.duration;
    const start = sk.startRoot(motion.startPose ?? rig.defaultStartPose);
    /** the start pose lies, sits or kneels (rig.json `startPoses[*].tilted`) */
    this.tiltedBase = rig.startPoses[motion.startPose ?? rig.defaultStartPose]?.tilted === true;
    this.startPos = Float64Array.from(start.position);
    this.startQ = start.quaternion;
    this.localQ = new Float64Array(sk.boneCount * 4);
    this.rootChannels = new Float64Array(ROOT_CHANNELS);
    this._yawQ = new Float64Array(4);
    this._restQ = new Float64Array(4);
    // per segment: contacts of the destination phase; floor-bound unless it hangs (motion JSON
    // `hang`: a grip, or a pin to a prop anchor; decided by the compiler)
    const S = this.timeline.segmentCount;
    this.segContacts = [];
    this.segFloorBound = new Uint8Array(S);
    for (let s = 0; s < S; s++) {
      const ph = s < motion.phases.length ? motion.phases[s] : {};
      this.segContacts.push(resolveContacts(ph, rig, sk));
      this.segFloorBound[s] = ph.hang === true ? 0 : 1;
    }
    /** the solve context handed to every pass (solvers/index.js) */
    this.ctx = { skeleton: sk, localQ: this.localQ, floorBound: true, segment: 0, contacts: [], warnings: [], rig,
      plan: emptyPlan(), root: this.rootChannels, startPos: this.startPos,
      // props, reach, self-collision (solvers/props.js, reach.js, selfcollision.js): the motion's
      // props, every segment's contacts (reaches blend across boundaries) and segment lengths
      props: motion.props || [], segContacts: this.segContacts, segDt: this.timeline.dts, limbsMoved: false,
      propPush: new Float64Array(3) };
    this.t = 0;
    this.segment = 0;
    this._buildPlans();
    if (this.ctx.props.length && this._place()) this._buildPlans();
  }

  /**
   * Prop placement (posecode_ssg/motion/solve/keyframes.py `solve_keyframes`): props are world-fixed, so
   * the largest body-face push (solvers/props.js leaves it in `ctx.propPush`) over the base pose
   * and every phase end moves the start position for the whole clip, and the plans are rebuilt
   * from there. Planted feet then stay where the figure stands instead of being walked by the push.
   * @returns {boolean} whether the start position moved
   */
  _place() {
    const tl = this.timeline, push = this.ctx.propPush, best = new Float64Array(3);
    let bn = 0;
    for (let s = -1; s < tl.phaseCount; s++) {
      this._solve(tl.times[s + 1], s);
      const n = Math.hypot(...push);
      if (n > bn) { bn = n; best.set(push); }
    }
    if (bn <= 1e-4) return false;
    for (let a = 0; a < 3; a++) this.startPos[a] += best[a];
    return true;
  }

  /**
   * The weight shift's look-ahead and look-behind over one-foot segment `s` (solvers/balance.js),
   * from probes at `SHIFT_PROBES` + 1 even steps of the segment: the lift shares of the rest of
   * the body and of the free foot (0 down … 1 a band up) and the weights of each stance sole's 4
   * base corners (and the free sole's). `w.ahead[k]`, `w.aheadF[k]`: the largest lift share within a probe step and `solver.shiftLead` seconds
   * either side of step k, each weighted by smoothstep(1 − its distance past the step /
   * shiftLead); `w.cornerE[4nk + j]`: stance corner j's smallest weight (n stance legs), likewise — the weight goes over
   * before the foot lifts and comes back after it is down, and a base corner (a heel) counts
   * only after it has come down. Both are faded to the probe's own values over shiftLead from the
   * segment's ends, whose instants keep them (the previous end; the numpy phase-end twin).
   */
  _shiftAhead(s, w) {
    const tl = this.timeline, N = SHIFT_PROBES, t0 = tl.times[s], T = tl.times[s + 1] - t0;
    // no look-ahead for a foot locked but lifted by the angles (plan.js `liftedStance`): the lock
    // holds it on the floor until the angles lift it, and a body moved over before would drag it
    const lead = w.lifted ? 0 : this.rig.solver.shiftLead;
    const C = w.corner.length, F = w.free >= 0 ? 4 * w.legs.length : C, corner = new Float64Array(C * (N + 1));
    // the lift shares of the rest of the body (`liftR`), of the free foot (`liftF`) and of both
    // (`lift`: the smaller, which times the fades)
    const lift = new Float64Array(N + 1), liftR = new Float64Array(N + 1), liftF = new Float64Array(N + 1);
    w.probing = true;
    // unshifted: over both feet the pose at the weight-shift pass (balance.js records it while
    // `probing`), over one the pose as shown (after every pass, the entry blend's offsets included)
    const atPass = w.legs.length === 2;
    for (let k = 0; k <= N; k++) {
      this._solve(t0 + (T * k) / N, s);
      liftR[k] = atPass ? w.probe : measureStance(this.ctx, w, w.corner);
      liftF[k] = w.free >= 0 ? w.freeLift : 1;
      lift[k] = Math.min(liftR[k], liftF[k]);
      corner.set(w.corner, C * k);
    }
    w.probing = false;
    const ease = (x) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));
    // within shiftLead of a probe, and fully within the probe step (whose instant of lift or
    // landing the probes do not see)
    const near = (dk) => (lead > 0 ? ease(1 - (Math.max(0, Math.abs(dk) - 1) * T) / N / lead) : dk === 0 ? 1 : 0);
    // the fades from the segment's ends: over shiftLead, or over the time the segment leaves
    // before the free foot first leaves the floor (after it is last down), but not under
    // solver.shiftLeadMin: a foot that lifts 0.15 s into its phase has its weight over by then,
    // instead of half of it (step touch's 'Touch left' stood 32 mm beside the stance sole)
    let first = N, last = 0;
    for (let k = 0; k <= N; k++) if (lift[k] > 0) { first = Math.min(first, k); last = k; }
    const short = this.rig.solver.shiftLeadMin;
    const fadeIn = Math.min(lead, Math.max(short, (first * T) / N)), fadeOut = Math.min(lead, Math.max(short, ((N - last) * T) / N));
    for (let k = 0; k <= N; k++) {
      const edge = lead > 0 ? Math.min(ease((k * T) / N / fadeIn), ease(((N - k) * T) / N / fadeOut)) : 0;
      let up = 0, upF = 0;
      for (let j = 0; j <= N; j++) { up = Math.max(up, liftR[j] * near(j - k)); upF = Math.max(upF, liftF[j] * near(j - k)); }
      w.ahead[k] = liftR[k] + (up - liftR[k]) * edge;
      w.aheadF[k] = liftF[k] + (upF - liftF[k]) * edge;
      // over both feet after a segment that was not (`rampIn`): from none at its start, which is
      // the previous phase's end, to the probe's own over shiftLead (or the whole segment if
      // shorter, so its end keeps the numpy twin's); else the entry blend's offsets, added after
      // the shift re-solved the legs, tipped the levelled soles (pivot turns' heels coming down)
      if (w.rampIn) w.ahead[k] *= ease((k * T) / N / Math.min(this.rig.solver.shiftLead, T));
      for (let c = 0; c < F; c++) {   // (a free sole's corners are measured as shown: balance.js)
        let down = 0;   // how far below 1 the corner's weight is kept
        for (let j = 0; j <= N; j++) down = Math.max(down, (1 - corner[C * j + c]) * near(j - k));
        w.cornerE[F * k + c] = Math.min(corner[C * k + c], 1 - down * edge);
      }
    }
  }

  /**
   * The settle's correction over segment `s` (solvers/settle.js): the segment solved whole at
   * each knot with a forced Δθ, the free part's lowest point measured. A body the floor alone
   * holds first has what holds it found (`restingHeld`). Returns false when it needs no settle.
   */
  _settleAhead(s, st) {
    const tl = this.timeline, t0 = tl.times[s], T = tl.times[s + 1] - t0, N = st.probes.length - 1;
    st.probing = true;
    const resting = st.held === null;
    if (resting) {   // a body the floor alone holds: what it rocks on, uncorrected
      st.force = 0;
      const sk = this.skeleton;
      const ok = restingHeld(st, sk, this.rig.solver.baseContact, (k) => {
        this._solve(t0 + (T * k) / N, s);
        sk.measureLowest();
        return sk.lowestByBone;
      });
      if (!ok) { st.probing = false; return false; }
    }
    probeSettle(st, (k, d) => {
      st.force = d;
      this._solve(t0 + (T * k) / N, s);
      return freeLowest(this.skeleton, st);
    }, this.rig.solver.pivotTolerance);
    if (resting) {
      // turned about the spot it rocks on, not about the pelvis above it (turned alone, a folding
      // body slid forward on its seat 10 cm and back): at each knot, the held part's lowest point
      // turned is moved back over where it was
      const sk = this.skeleton, p = new Float64Array(3), sx = new Float64Array(N + 1), sz = sx.slice();
      st.probes.forEach((d, k) => {
        for (const f of d ? [-1, 1] : []) {
          st.force = f > 0 ? d : 0;
          this._solve(t0 + (T * k) / N, s);
          sk.lowestPoint(st.held, p);
          sx[k] -= f * p[0];
          sz[k] -= f * p[2];
        }
      });
      st.sx = sx;   // read by _solve from now on
      st.sz = sz;
    }
    st.probing = false;
    return true;
  }

  /**
   * Contact plans per segment (solvers/plan.js), built in phase order: segment s is planned from
   * the solved pose at the end of phase s − 1 (the base pose for the first), which itself uses
   * the plan of s − 1. The wrap segment has no contacts of its own (a body left on one foot stays on it: plan.js `planWrap`).
   */
  _buildPlans() {
    this._planSegments();
    // the settle's probes last: they see the pose as shown, every entry blend final (solvers/settle.js)
    const phases = this.motion.phases;
    for (let s = 0; s < phases.length; s++) {
      const plan = this.segPlan[s];
      if (plan === this._emptyPlan) continue;
      plan.settle = settlePlan(this.rig, this.skeleton, phases[s], s > 0 ? phases[s - 1].rest : this.motion.rest, phases[s].rest);
      if (plan.settle && !this._settleAhead(s, plan.settle)) plan.settle = null;
    }
  }

  /** {@link _buildPlans}' contact plans and blends. */
  _planSegments() {
    const S = this.timeline.segmentCount, phases = this.motion.phases, tl = this.timeline;
    const empty = emptyPlan();
    this._emptyPlan = empty;
    this.segPlan = new Array(S).fill(empty);
    const prevRoot = new Float64Array(ROOT_CHANNELS);
    let prevPlan = null;
    const sk = this.skeleton, n = this.localQ.length;
    const state = () => ({ pos: new Float64Array(3), q: new Float64Array(4), local: new Float64Array(n) });
    const keep = (st) => { st.pos.set(sk.rootPos); st.q.set(sk.rootQ); st.local.set(this.localQ); return st; };
    const end = state(), start = state(), endV = state(), startV = state(), D = 1e-3;
    // the two solves at a boundary and 1 ms either side of it (blend.js: position and rate)
    const edge = (t, from, s, plan) => {
      this._solve(t - D, from); keep(endV);
      this._solve(t + D, s, true); keep(startV);
      this._solve(t, s, true);
      keep(start);
      // the loop's very start (no phase before it): no rate to carry over the seam
      if (from < 0) { endV.local.set(end.local); startV.local.set(start.local); }
      setEntryBlend(plan, end, start, endV, startV, D);
      if (from >= 0) setExitBlend(this.segPlan[from], plan, end, start, endV, startV);
    };
    // no wrap segment (the last phase ends on the base pose, KR §5.1): a second pass plans the
    // first phase from the last phase's solved end, so contacts planted there are handed over at
    // the loop seam. It is kept when the loop closes — it ends within `solver.plantedHeight` of
    // where it started, or with its root and ankles where the first pass ended them (a seat or box
    // pin fixes the body) — else (world-fixed pins that travel: a gait's root keeps its travelled
    // place while its plants move on) the first pass stands and the seam jumps home (solve/keyframes.py `_solve`)
    const passes = S === phases.length && S > 0 ? 2 : 1, h = this.rig.solver.plantedHeight;
    let handed = false, first = null;
    for (let pass = 0; pass < passes; pass++) for (let s = 0; s < S; s++) {
      // pose at the start of segment s, solved with the contacts of the segment before (its end, u = 1)
      const from = s > 0 ? s - 1 : pass ? S - 1 : -1;
      this._solve(tl.times[s], from);
      if (pass && !s) {
        first = { plans: this.segPlan.slice(), at: this._loopEnd(),
          far: Math.hypot(sk.rootPos[0] - this.startPos[0], sk.rootPos[2] - this.startPos[2]) > h };
      }
      handed = pass > 0;
      prevRoot.set(this.rootChannels);
      keep(end);
      const plan = s < phases.length
        ? planSegment(this.rig, this.skeleton, phases[s], from >= 0 ? phases[from] : null, prevPlan,
          this.startPos, prevRoot)
        : planWrap(this.rig, this.skeleton, phases[phases.length - 1], prevPlan, this.startPos, prevRoot);
      // both feet: a body whose start lies, sits or kneels is the settle's (solve/balance.py `stance_sides`)
      if (plan.shift && plan.shift.legs.length === 2 && this.tiltedBase) plan.shift = null;
      // a reached stance neither (nor with props: solve/balance.py `reached_stance`)
      if (plan.shift && plan.shift.reached && (this.tiltedBase || (this.motion.props || []).length)) plan.shift = null;
      // over both feet after a segment that was not: the shift comes in from the previous end
      // (`_shiftAhead`), which the numpy twin solved without it
      if (plan.shift) plan.shift.rampIn = plan.shift.legs.length === 2 && !(prevPlan && prevPlan.shift && prevPlan.shift.legs.length === 2);
      this.segPlan[s] = plan;
      prevPlan = plan;
      // its end keyframe first: a free foot's swing-clearance branch is decided there (solvers/swingclearance.js)
      if (s < phases.length) this._solve(tl.times[s + 1], s);
      // both feet locked, one lifted by the angles at the end: the weight goes over the other
      // (solvers/plan.js `liftedStance`, decided on the end keyframe as the numpy pass decides it)
      if (s < phases.length && (!plan.shift || plan.shift.legs.length === 2)) {
        // or nothing holds it and it ends on the one foot it reached for the floor (plan.js
        // `reachedStance`; not on a lying, seated or kneeling start, nor with props)
        const side = liftedStance(this.rig, sk, phases[s], plan, plan.shift ? plan.shift.low : null)
          || (!plan.shift && !this.tiltedBase && !(this.motion.props || []).length ? reachedStance(this.rig, phases[s], plan.stanceLow) : null);
        if (side) { plan.shift = shiftPlan(this.rig, sk, [side]); plan.shift.lifted = true; }
      }
      // after the end keyframe (the passes' once-a-phase decisions are made there), before the
      // boundary's solves (their blend reads it)
      if (plan.shift) this._shiftAhead(s, plan.shift);
      // the same instant solved with this segment's contacts, before any blend
      edge(tl.times[s], from, s, plan);   // solvers/blend.js: continuity at the boundary
    }
    if (handed) {   // the seam's entry blend from the last phase's end as finally planned
      this._solve(tl.times[0], S - 1);
      const a = first.at, b = this._loopEnd();
      if (first.far && a.some((v, i) => span(v, 0, b[i], 0) > h)) {
        this.segPlan = first.plans;   // the loop does not close
        return;
      }
      keep(end);
      edge(tl.times[0], S - 1, 0, this.segPlan[0]);
    }
  }

  /** Root and ankle positions of the solved pose (m): where a loop ends, for the seam test. */
  _loopEnd() {
    const sk = this.skeleton;
    return [Array.from(sk.rootPos), sk.point("ankle_left"), sk.point("ankle_right")];
  }

  /**
   * Timeline, forward kinematics and the solver passes at `t`; `seg` ≥ 0 forces whose contacts
   * apply (−1: none, floor-bound) as at that segment's end, otherwise the segment containing `t`;
   * `start` solves a segment's first instant without its entry blend (plan building).
   */
  _solve(t, seg, start = false) {
    const tl = this.timeline, sk = this.skeleton, r = this.rootChannels;
    let s = tl.evaluate(t, this.localQ, r);
    this.ctx.u = tl.u;
    // the settle's correction of the rest's turn between phase ends (solvers/settle.js)
    const st = this.segPlan && s < this.segPlan.length ? this.segPlan[s].settle : null;
    if (st) {
      const d = settleAngle(st, tl.u);
      for (let a = 0; a < 3; a++) r[3 + a] += d * st.axis[a];
    }
    const y = this._yawQ;
    y[0] = 0; y[1] = Math.sin(0.5 * r[0]); y[2] = 0; y[3] = Math.cos(0.5 * r[0]);
    mul(sk.rootQ, 0, y, 0, this.startQ, 0);
    // the keyframes' rest (motion/rest.py): a lying or seated body tipped onto what holds it
    const ang = Math.hypot(r[3], r[4], r[5]);
    if (ang > 0) {
      axisAngle(this._restQ, 0, r[3] / ang, r[4] / ang, r[5] / ang, ang * DEG);
      mul(sk.rootQ, 0, this._restQ, 0, sk.rootQ, 0);
    }
    sk.rootPos[0] = this.startPos[0] + r[1] + r[6];
    sk.rootPos[1] = this.startPos[1] + r[7];
    sk.rootPos[2] = this.startPos[2] + r[2] + r[8];
    if (st && st.sx) {   // a body the floor alone holds keeps the spot it rocks on
      sk.rootPos[0] += knotCurve(st.sx, tl.u);
      sk.rootPos[2] += knotCurve(st.sz, tl.u);
    }
    sk.forward(this.localQ);
    const ctx = this.ctx;
    if (seg !== undefined && seg !== s) { s = seg; ctx.u = 1; }
    if (start) ctx.u = 1;
    ctx.startSolve = start;   // reach.js: blend weights as at u = 0 (the entry blend holds the rest)
    ctx.segment = s;
    if (s < 0) {
      ctx.floorBound = true;
      ctx.contacts = NO_CONTACTS;
      ctx.plan = NO_PLAN;
    } else {
      ctx.floorBound = this.segFloorBound[s] === 1;
      ctx.contacts = this.segContacts[s];
      ctx.plan = this.segPlan ? this.segPlan[s] : NO_PLAN;
    }
    ctx.warnings.length = 0;
    // the stance foot's authored ankle, before any pass levels it (balance.js)
    if (ctx.plan.shift) for (const l of ctx.plan.shift.legs) l.auth = ankleX(ctx, l.side);
    runPasses(ctx);
    return s;
  }

  /**
   * Pose the figure at `t` seconds (the loop wraps).
   * @returns {number} the segment index
   */
  evaluate(t) {
    const s = this._solve(t);
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
   *   contacts:{kind:string,effector:string,anchor:string,residual_m:number}[], warnings:{code:string,message:string}[],
   *   local:Object<string,number[]>, orientation:Object<string,number[]>, frame:{yaw:number, travel:number[]},
   *   segment:number, u:number, equipment:{item:string, position:number[], axis:number[], attached:string[],
   *   ends:number[][]}[]}} `local`: each bone's solved local quaternion [x, y, z, w]; `orientation`: its
   *   world quaternion; `frame`: the timeline's turn (degrees) and travel [x, z] (m) at `t` (the choreography
   *   frame); `segment`: timeline segment index (phases, then the wrap); `u`: 0–1 position in it; `equipment`:
   *   where each drawn item is (equipment.js `attachItems`, world metres; [] without equipment)
   */
  sample() {
    const sk = this.skeleton, ids = sk.boneIds;
    const byName = (names, f) => Object.fromEntries(names.map((n, i) => [n, f(n, i)]));
    const quats = (Q) => byName(ids, (n, i) => Array.from(Q.subarray(i * 4, i * 4 + 4)));
    const tol = this.rig.solver?.reachTolerance ?? 0.03;
    const contacts = [];
    const warnings = this.ctx.warnings.map((w) => ({ ...w }));
    // issue 19: a body on its feet alone whose centre of mass is off them (measured here only)
    const off = balanceWarning(sk, this.rig, this.motion.phases[this.segment]);
    if (off) warnings.push(off);
    for (const c of this.ctx.contacts) {
      const residual = contactResidual(c, sk, this.rig.backBones || []);
      // weight: a reach's blend weight across the phase boundary (solvers/reach.js), else 1
      contacts.push({ kind: c.kind, effector: c.effector, anchor: c.anchor, residual_m: residual,
        weight: c.weight ?? 1 });
      if (!(residual <= tol)) {
        warnings.push({
          code: "contact-residual",
          message: `${c.effector} is ${Number.isFinite(residual) ? residual.toFixed(3) + " m" : "unmeasurably far"} from ${c.anchor} (${c.kind})`,
        });
      }
    }
    // eval fields (docs/eval.md): solved local and world rotations, the choreography frame and
    // the timeline segment, so a harness can measure ROM, sole tilt and drift without guessing
    const r = this.rootChannels;
    return { t: this.t, phase: this.phase, bones: byName(ids, sk.point.bind(sk)),
      landmarks: byName(sk.landmarkNames, sk.point.bind(sk)), contacts, warnings,
      local: quats(this.localQ), orientation: quats(sk.worldQ), frame: { yaw: r[0] * TO_DEG, travel: [r[1], r[2]] },
      segment: this.segment, u: this.ctx.u, equipment: attachItems(sk, this.rig, this.motion.equipment) };
  }
}
