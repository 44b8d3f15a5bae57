/**
 * The timeline: a C1 quaternion spline through the keyframes of a motion program, shaped by each
 * destination phase's timing mode (spec §1 "Timing modes", §6 "Forward kinematics": "C1-continuous
 * quaternion splines between keyframes, shaped by the destination phase's timing mode"; loop
 * "base → phases → base", spec §6 "Looping").
 *
 * Keyframes: K0 = `base` at t = 0, Kᵢ = phase i's pose at the cumulative end of phase i, and, when
 * `wrap` > 0, the wrap keyframe = `base` again at `duration` (docs/motion-json.md).
 *
 * ## Construction (per bone; the root's turn and travel use the same rules on scalars)
 *
 * Each segment Kₖ → Kₖ₊₁ is a *cumulative cubic Bézier quaternion curve* (Kim, Kim & Shin,
 * "A general construction scheme for unit quaternion curves with simple high order derivatives",
 * SIGGRAPH 1995):
 *
 *     q(u) = qₖ · exp(a·β₁(u)) · exp(m·β₂(u)) · exp(b·β₃(u)),   u = (t − tₖ)/Δt ∈ [0, 1]
 *     β₁ = 1 − (1 − u)³,  β₂ = 3u² − 2u³,  β₃ = u³
 *     a = v⁺ₖ·Δt/3,  b = v⁻ₖ₊₁·Δt/3,  m = log((qₖ·exp(a))⁻¹ · (qₖ₊₁·exp(−b)))
 *
 * where `exp`/`log` map rotation vectors (radians) to unit quaternions and back. Because
 * β₁′(0) = 3 and β₂′ = β₃′ = 0 at u = 0 (symmetrically at u = 1), the body angular velocity is
 * exactly v⁺ₖ when leaving Kₖ and v⁻ₖ₊₁ when arriving at Kₖ₊₁. Choosing v⁻ₖ = v⁺ₖ makes the curve
 * C1 at Kₖ; the timing mode only chooses these end velocities, so no time remap breaks continuity
 * (the reference's remap does: kinematics-reference §5.2 [GAP]). With a = b = m = chord/3 the
 * curve is the constant-speed slerp (β₁ + β₂ + β₃ = 3u), which is how `linear` is drawn.
 *
 * ## End velocities per timing mode (v in the keyframe's local frame, rad/s)
 *
 * - `settle` arrives at rest: v⁻ = 0, and the next segment leaves from rest: v⁺ = 0.
 * - `drive` leaves from rest: v⁺ = 0 at its start, so the segment arriving there also ends at
 *   v⁻ = 0 (a `flow` arriving is slowed to meet it).
 * - `flow` carries velocity: at a keyframe between two shaped segments v⁻ = v⁺ = the monotone
 *   tangent below.
 * - `snap` arrives fast (v⁻ = 1.5 × chord/Δt along the chord) and stops sharply: v⁺ = 0. The jump
 *   is the mode's meaning.
 * - `linear` moves evenly at chord/Δt; a shaped neighbour takes over that velocity (C1) unless the
 *   no-overshoot cap or a rest end forbids it, where the jump is inherent.
 * - K0 and the last keyframe (the loop seam, `base`) are at rest.
 *
 * Monotone tangent (a 3-D form of Fritsch & Carlson, "Monotone piecewise cubic interpolation",
 * SIAM J. Numer. Anal. 1980): with chords wᵢₙ = log(qₖ₋₁⁻¹qₖ), wₒᵤₜ = log(qₖ⁻¹qₖ₊₁) (the axis of a
 * relative rotation is the same in both end frames) and slopes d = w/Δt: v = 0 when
 * wᵢₙ·wₒᵤₜ ≤ 0 (a reversal such as 0° → 160° → 0°, or a hold), else v = (wᵢₙ + wₒᵤₜ)/(Δtᵢₙ + Δtₒᵤₜ)
 * scaled down until, for both chords, |v| ≤ 3|d| (Fritsch–Carlson's sufficient box, which keeps a
 * single-axis motion monotone) and |v| ≤ 6·(d·v̂) (keeps every Bézier control inside the ball of
 * radius |w| around both ends, so the curve cannot pass a keyframe). Each segment's middle log
 * takes the short arc between two points inside that segment, so a reversal never flips through
 * 180°.
 *
 * Evaluation allocates nothing: all state lives in Float64Arrays built once.
 * @module timeline
 */

import { copy4, dot4, expScaled, identity, log, mul, mulConjA, normalize } from "./quat.js";

const DEG = Math.PI / 180;
const EPS = 1e-9;

const _e = new Float64Array(4);
const _t = new Float64Array(4);

/**
 * Scale v (length `dim` at `vi`) down so a segment with chord w (at `wi`) and duration dt cannot
 * overshoot: zero when v·w ≤ 0, |v| ≤ 3|w|/dt and |v| ≤ 6 (w·v̂)/dt.
 */
function capVelocity(v, vi, w, wi, dt, dim) {
  let vv = 0, vw = 0, ww = 0;
  for (let i = 0; i < dim; i++) {
    vv += v[vi + i] * v[vi + i]; vw += v[vi + i] * w[wi + i]; ww += w[wi + i] * w[wi + i];
  }
  if (vv < EPS * EPS) return;
  if (vw <= 0 || ww < EPS * EPS) { for (let i = 0; i < dim; i++) v[vi + i] = 0; return; }
  const vn = Math.sqrt(vv);
  const lim = Math.min((3 * Math.sqrt(ww)) / dt, (6 * vw) / vn / dt);
  if (vn > lim) { const k = lim / vn; for (let i = 0; i < dim; i++) v[vi + i] *= k; }
}

/**
 * Fill arrival (vIn) and departure (vOut) velocities of every keyframe for one channel.
 * @param {Float64Array} chords S×dim segment chords (rotation vectors, or scalar differences)
 * @param {Float64Array} dts S segment durations (s)
 * @param {string[]} modes S timing modes (destination mode of each segment)
 * @param {number} dim 3 for rotations, 1 for scalars
 * @param {Float64Array} vIn K×dim out
 * @param {Float64Array} vOut K×dim out
 */
export function keyVelocities(chords, dts, modes, dim, vIn, vOut) {
  const S = dts.length, K = S + 1;
  vIn.fill(0); vOut.fill(0);
  for (let k = 0; k < K; k++) {
    const inMode = k > 0 ? modes[k - 1] : null;
    const outMode = k < S ? modes[k] : null;
    const io = (k - 1) * dim, oo = k * dim, ko = k * dim;
    // arrival velocities fixed by the incoming mode alone
    if (inMode === "snap") for (let i = 0; i < dim; i++) vIn[ko + i] = (1.5 * chords[io + i]) / dts[k - 1];
    if (inMode === "linear") for (let i = 0; i < dim; i++) vIn[ko + i] = chords[io + i] / dts[k - 1];
    // departure velocities fixed by the outgoing mode alone
    if (outMode === "linear") for (let i = 0; i < dim; i++) vOut[ko + i] = chords[oo + i] / dts[k];
    const restOut = k === 0 || outMode === null || outMode === "drive" || inMode === "settle" || inMode === "snap";
    const restIn = inMode === "settle" || outMode === null || outMode === "drive";
    if (inMode === null || outMode === null) {
      if (outMode !== "linear") for (let i = 0; i < dim; i++) vOut[ko + i] = 0;
      if (inMode === "flow" || inMode === "drive") for (let i = 0; i < dim; i++) vIn[ko + i] = 0;
      continue;
    }
    const inShaped = inMode === "flow" || inMode === "drive";
    const outShaped = outMode === "flow" || outMode === "settle" || outMode === "snap";
    if (inShaped && outShaped && !restIn && !restOut) {
      // monotone tangent shared by both sides (C1)
      let dd = 0, n1 = 0, n2 = 0;
      for (let i = 0; i < dim; i++) {
        dd += chords[io + i] * chords[oo + i]; n1 += chords[io + i] ** 2; n2 += chords[oo + i] ** 2;
      }
      if (dd > 0 && n1 > EPS * EPS && n2 > EPS * EPS) {
        const T = dts[k - 1] + dts[k];
        for (let i = 0; i < dim; i++) vOut[ko + i] = (chords[io + i] + chords[oo + i]) / T;
        capVelocity(vOut, ko, chords, io, dts[k - 1], dim);
        capVelocity(vOut, ko, chords, oo, dts[k], dim);
      }
      for (let i = 0; i < dim; i++) vIn[ko + i] = vOut[ko + i];
    } else if (inMode === "linear" && outShaped && !restOut) {
      // take over the linear velocity when it cannot overshoot the outgoing segment
      for (let i = 0; i < dim; i++) vOut[ko + i] = vIn[ko + i];
      capVelocity(vOut, ko, chords, oo, dts[k], dim);
    } else if (outMode === "linear" && inShaped && !restIn) {
      for (let i = 0; i < dim; i++) vIn[ko + i] = vOut[ko + i];
      capVelocity(vIn, ko, chords, io, dts[k - 1], dim);
    }
    if (restOut && outMode !== "linear") for (let i = 0; i < dim; i++) vOut[ko + i] = 0;
    if (restIn && inShaped) for (let i = 0; i < dim; i++) vIn[ko + i] = 0;
  }
}

/**
 * A compiled motion program ready for sampling.
 *
 * @param {object} motion validated motion JSON (docs/motion-json.md)
 * @param {string[]} boneIds the rig's bone ids in rig.json order (27)
 */
export class Timeline {
  constructor(motion, boneIds) {
    const phases = motion.phases;
    const n = phases.length;
    const N = boneIds.length;
    const hasWrap = motion.wrap > 0;
    const K = n + 1 + (hasWrap ? 1 : 0);
    const S = K - 1;
    this.boneIds = boneIds;
    this.boneCount = N;
    this.phaseCount = n;
    this.keyCount = K;
    this.segmentCount = S;
    this.repeat = motion.repeat;
    /** @type {Float64Array} keyframe times (s) */
    this.times = new Float64Array(K);
    for (let i = 0; i < n; i++) this.times[i + 1] = this.times[i] + phases[i].d;
    if (hasWrap) this.times[K - 1] = this.times[n] + motion.wrap;
    /** loop length (s), the wrap included */
    this.duration = this.times[K - 1];
    this.modes = [];
    for (let i = 0; i < n; i++) this.modes.push(phases[i].m);
    if (hasWrap) this.modes.push("flow"); // the wrap keyframe is a rest keyframe (end of loop)
    const dts = new Float64Array(S);
    for (let s = 0; s < S; s++) dts[s] = this.times[s + 1] - this.times[s];
    this.dts = dts;

    // --- keyframe quaternions, bone-major: keyQ[(b*K + k)*4]
    const index = new Map(boneIds.map((id, i) => [id, i]));
    const keyQ = new Float64Array(N * K * 4);
    const cur = new Float64Array(N * 4);
    for (let b = 0; b < N; b++) identity(cur, b * 4);
    const put = (map) => {
      if (!map) return;
      for (const id of Object.keys(map)) {
        const b = index.get(id);
        copy4(cur, b * 4, map[id], 0);
        normalize(cur, b * 4);
      }
    };
    put(motion.base);
    const base = Float64Array.from(cur);
    const store = (k) => { for (let b = 0; b < N; b++) copy4(keyQ, (b * K + k) * 4, cur, b * 4); };
    store(0);
    for (let i = 0; i < n; i++) { put(phases[i].q); store(i + 1); }
    if (hasWrap) { cur.set(base); store(K - 1); }
    // hemisphere continuity (the wrap keyframe is not aligned by the compiler)
    for (let b = 0; b < N; b++) {
      for (let k = 1; k < K; k++) {
        const o = (b * K + k) * 4;
        if (dot4(keyQ, o - 4, keyQ, o) < 0) for (let i = 0; i < 4; i++) keyQ[o + i] = -keyQ[o + i];
      }
    }
    this.keyQ = keyQ;

    // --- per-bone segment controls
    const chords = new Float64Array(S * 3);
    const vIn = new Float64Array(K * 3), vOut = new Float64Array(K * 3);
    this.segQ = new Float64Array(N * S * 4);
    this.segA = new Float64Array(N * S * 3);
    this.segM = new Float64Array(N * S * 3);
    this.segB = new Float64Array(N * S * 3);
    this.segMoving = new Uint8Array(N * S);
    const q1 = new Float64Array(4), q2 = new Float64Array(4), r = new Float64Array(4);
    for (let b = 0; b < N; b++) {
      for (let s = 0; s < S; s++) {
        const o = (b * K + s) * 4;
        mulConjA(r, 0, keyQ, o, keyQ, o + 4);
        log(chords, s * 3, r, 0);
      }
      keyVelocities(chords, dts, this.modes, 3, vIn, vOut);
      for (let s = 0; s < S; s++) {
        const so = b * S + s;
        const qo = (b * K + s) * 4;
        const k3 = dts[s] / 3;
        let moving = 0;
        for (let i = 0; i < 3; i++) {
          this.segA[so * 3 + i] = vOut[s * 3 + i] * k3;
          this.segB[so * 3 + i] = vIn[(s + 1) * 3 + i] * k3;
          if (Math.abs(chords[s * 3 + i]) > 1e-7 || Math.abs(this.segA[so * 3 + i]) > 1e-9 ||
              Math.abs(this.segB[so * 3 + i]) > 1e-9) moving = 1;
        }
        copy4(this.segQ, so * 4, keyQ, qo);
        this.segMoving[so] = moving;
        if (!moving) continue;
        expScaled(_e, 0, this.segA, so * 3, 1);
        mul(q1, 0, keyQ, qo, _e, 0);
        expScaled(_e, 0, this.segB, so * 3, -1);
        mul(q2, 0, keyQ, qo + 4, _e, 0);
        mulConjA(r, 0, q1, 0, q2, 0);
        log(this.segM, so * 3, r, 0);
      }
    }

    // --- root channels: yaw (radians), travel x, travel z; scalar Bézier controls
    this.rootKeys = new Float64Array(3 * K); // channel-major
    let yaw = 0, tx = 0, tz = 0;
    for (let i = 0; i < n; i++) {
      const p = phases[i];
      if (typeof p.turn === "number") yaw = p.turn * DEG;
      if (Array.isArray(p.tr)) { tx = p.tr[0]; tz = p.tr[1]; }
      this.rootKeys[i + 1] = yaw; this.rootKeys[K + i + 1] = tx; this.rootKeys[2 * K + i + 1] = tz;
    }
    if (hasWrap) {
      this.rootKeys[K - 1] = (typeof motion.wrapTurn === "number" ? motion.wrapTurn : 0) * DEG;
    }
    this.rootA = new Float64Array(3 * S);
    this.rootB = new Float64Array(3 * S);
    const sc = new Float64Array(S), si = new Float64Array(K), so = new Float64Array(K);
    for (let c = 0; c < 3; c++) {
      for (let s = 0; s < S; s++) sc[s] = this.rootKeys[c * K + s + 1] - this.rootKeys[c * K + s];
      keyVelocities(sc, dts, this.modes, 1, si, so);
      for (let s = 0; s < S; s++) {
        this.rootA[c * S + s] = (so[s] * dts[s]) / 3;
        this.rootB[c * S + s] = (si[s + 1] * dts[s]) / 3;
      }
    }
  }

  /**
   * Wrap `t` (s) into [0, duration) and return the segment index containing it (a keyframe time
   * belongs to the segment that starts there).
   */
  segmentAt(t) {
    const T = this.times;
    let x = t % this.duration;
    if (x < 0) x += this.duration;
    let s = 0;
    // a time within 1 ns of a keyframe belongs to the segment starting there
    while (s < this.segmentCount - 1 && x >= T[s + 1] - 1e-9) s++;
    return s;
  }

  /**
   * Zero-based index of the phase playing at `t` (s); at an exact boundary the phase that starts
   * there; −1 during the wrap back to the base pose.
   */
  phaseAt(t) {
    const s = this.segmentAt(t);
    return s < this.phaseCount ? s : -1;
  }

  /**
   * Sample the pose at time `t` (s, any real; the loop wraps).
   * @param {number} t seconds
   * @param {Float64Array} outQ boneCount×4 local quaternions [x,y,z,w] in rig bone order
   * @param {Float64Array} outRoot [yaw (rad, about +Y), travel x (m), travel z (m)]
   * @returns {number} the segment index (phase index, or phaseCount for the wrap)
   */
  evaluate(t, outQ, outRoot) {
    const s = this.segmentAt(t);
    const S = this.segmentCount;
    let x = t % this.duration;
    if (x < 0) x += this.duration;
    const u = Math.min(1, Math.max(0, (x - this.times[s]) / this.dts[s]));
    const w = 1 - u;
    const b1 = 1 - w * w * w, b2 = u * u * (3 - 2 * u), b3 = u * u * u;
    for (let b = 0; b < this.boneCount; b++) {
      const so = b * S + s;
      if (!this.segMoving[so]) { copy4(outQ, b * 4, this.segQ, so * 4); continue; }
      expScaled(_e, 0, this.segA, so * 3, b1);
      mul(_t, 0, this.segQ, so * 4, _e, 0);
      expScaled(_e, 0, this.segM, so * 3, b2);
      mul(_t, 0, _t, 0, _e, 0);
      expScaled(_e, 0, this.segB, so * 3, b3);
      mul(outQ, b * 4, _t, 0, _e, 0);
    }
    // scalar cubic Bézier in Bernstein form
    const B0 = w * w * w, B1 = 3 * u * w * w, B2 = 3 * u * u * w, B3 = u * u * u;
    const K = this.keyCount;
    for (let c = 0; c < 3; c++) {
      const p0 = this.rootKeys[c * K + s], p3 = this.rootKeys[c * K + s + 1];
      outRoot[c] = B0 * p0 + B1 * (p0 + this.rootA[c * S + s]) + B2 * (p3 - this.rootB[c * S + s]) + B3 * p3;
    }
    return s;
  }
}

