/**
 * The timeline: a C1 spline through the keyframes of a motion program, shaped by each destination
 * phase's timing mode (spec §1 "Timing modes", §6 "Forward kinematics": "C1-continuous quaternion
 * splines between keyframes, shaped by the destination phase's timing mode"; loop
 * "base → phases → base", spec §6 "Looping").
 *
 * Keyframes: K0 = `base` at t = 0, Kᵢ = phase i's pose at the cumulative end of phase i, and, when
 * `wrap` > 0, the wrap keyframe = `base` again at `duration` (docs/motion-json.md).
 *
 * ## Joint coordinates
 *
 * Each bone's keyframe quaternion is read back as its intrinsic X-Y-Z Euler triple (degrees), the
 * rig's own joint coordinates: the authored angles (docs/motion-json.md) and the axes of the
 * rig.json `rom` boxes. Of the two triples of a rotation, (a, b, c) and (a + 180°, 180° − b,
 * c + 180°), each angle shifted by a full turn where that brings it into its box, the one nearest
 * its box is kept. Every angle is then a scalar channel, like the root's turn and travel, and the
 * bone's quaternion at `t` is qX(x)·qY(y)·qZ(z) of the interpolated angles.
 *
 * Why not a spline in quaternion space: a box is convex in these coordinates, not on the
 * quaternion sphere, so the shortest arc between two in-box poses can leave it (biceps curl:
 * from a pronated straight elbow to a flexed neutral one the arc swings the forearm 40° about the
 * elbow's locked Z axis). A channel that is monotone between its two keyframe values stays in
 * the box by construction. A curve that is C1 in the angles is C1 in the rotation (the angular
 * velocity is a continuous function of the angles and their rates), so continuity is kept.
 *
 * ## Construction (per channel)
 *
 * Each segment Kₖ → Kₖ₊₁ is a cubic Bézier in Bernstein form with controls
 * p₀, p₀ + v⁺ₖ·Δt/3, p₃ − v⁻ₖ₊₁·Δt/3, p₃, so the rate is exactly v⁺ₖ when leaving Kₖ and v⁻ₖ₊₁
 * when arriving at Kₖ₊₁; v⁻ₖ = v⁺ₖ makes the curve C1 at Kₖ. The timing mode only chooses these
 * end rates, so no time remap breaks continuity (the reference's remap does:
 * kinematics-reference §5.2 [GAP]). With both rates equal to chord/Δt the curve is linear, which
 * is how `linear` is drawn.
 *
 * ## End rates per timing mode
 *
 * - `settle` arrives at rest: v⁻ = 0, and the next segment leaves from rest: v⁺ = 0.
 * - `drive` leaves from rest: v⁺ = 0 at its start, so the segment arriving there also ends at
 *   v⁻ = 0 (a `flow` arriving is slowed to meet it).
 * - `flow` carries velocity: at a keyframe between two shaped segments v⁻ = v⁺ = the monotone
 *   tangent below.
 * - `snap` arrives fast (v⁻ = 1.5 × chord/Δt) and stops sharply: v⁺ = 0. The jump is the mode's
 *   meaning.
 * - `linear` moves evenly at chord/Δt; a shaped neighbour takes over that rate (C1) unless the
 *   no-overshoot cap or a rest end forbids it, where the jump is inherent.
 * - K0 and the last keyframe (the loop seam, `base`) are at rest.
 *
 * Monotone tangent (Fritsch & Carlson, "Monotone piecewise cubic interpolation", SIAM J. Numer.
 * Anal. 1980): with slopes dᵢₙ, dₒᵤₜ (chord/Δt) of the two segments, v = 0 when dᵢₙ·dₒᵤₜ ≤ 0 (a
 * reversal such as 0° → 160° → 0°, or a hold), else v = (chordᵢₙ + chordₒᵤₜ)/(Δtᵢₙ + Δtₒᵤₜ)
 * capped at 3|d| of both segments; every rate (snap's 1.5 d, linear's d included) lies in
 * Fritsch–Carlson's box 0 ≤ v/d ≤ 3, so each channel is monotone between its keyframe values: no
 * overshoot, no 180° flip, and no range-of-motion violation the keyframes do not have.
 *
 * Evaluation allocates nothing: all state lives in Float64Arrays built once.
 * @module timeline
 */

import { DEG, fromEulerXYZ, jointAngles, normalize } from "./quat.js";

/** numbers of a keyframe's rest (motion JSON `rest`) */
const REST = 6;
/** root channels a sample returns: yaw, travel x, travel z, then the rest */
export const ROOT_CHANNELS = 3 + REST;

/** Rate v (deg/s or m/s) capped so a segment with chord w and duration dt stays monotone. */
function cap(v, w, dt) {
  return v * w <= 0 ? 0 : Math.sign(v) * Math.min(Math.abs(v), (3 * Math.abs(w)) / dt);
}

/**
 * Fill arrival (vIn) and departure (vOut) rates of every keyframe of one scalar channel.
 * @param {Float64Array} chords S segment chords (key differences)
 * @param {Float64Array} dts S segment durations (s)
 * @param {string[]} modes S timing modes (destination mode of each segment)
 * @param {Float64Array} vIn K out
 * @param {Float64Array} vOut K out
 */
export function keyVelocities(chords, dts, modes, vIn, vOut) {
  const S = dts.length;
  vIn.fill(0); vOut.fill(0);
  for (let k = 0; k <= S; k++) {
    const inMode = k > 0 ? modes[k - 1] : null, outMode = k < S ? modes[k] : null;
    const ci = chords[k - 1], co = chords[k], ti = dts[k - 1], to = dts[k];
    // rates fixed by one side's mode alone
    if (inMode === "snap") vIn[k] = (1.5 * ci) / ti;
    if (inMode === "linear") vIn[k] = ci / ti;
    if (outMode === "linear") vOut[k] = co / to;
    const restOut = k === 0 || outMode === null || outMode === "drive" || inMode === "settle" || inMode === "snap";
    const restIn = inMode === "settle" || outMode === null || outMode === "drive";
    const inShaped = inMode === "flow" || inMode === "drive";
    const outShaped = outMode === "flow" || outMode === "settle" || outMode === "snap";
    if (inShaped && outShaped && !restIn && !restOut) {
      // monotone tangent shared by both sides (C1)
      vIn[k] = vOut[k] = cap(cap((ci + co) / (ti + to), ci, ti), co, to);
    } else if (inMode === "linear" && outShaped && !restOut) {
      vOut[k] = cap(vIn[k], co, to);       // take over the linear rate when it cannot overshoot
    } else if (outMode === "linear" && inShaped && !restIn) {
      vIn[k] = cap(vOut[k], ci, ti);
    }
    if (restOut && outMode !== "linear") vOut[k] = 0;
    if (restIn && inShaped) vIn[k] = 0;
  }
}

/**
 * A compiled motion program ready for sampling.
 *
 * @param {object} motion validated motion JSON (docs/motion-json.md)
 * @param {string[]} boneIds the rig's bone ids in rig.json order (27)
 * @param {object} [rom] rig.json `rom` boxes, which choose each keyframe's Euler triple (without
 *   them the principal triple, |y| ≤ 90°)
 */
export class Timeline {
  constructor(motion, boneIds, rom = {}) {
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
    /** @type {Float64Array} keyframe times (s) */
    this.times = new Float64Array(K);
    for (let i = 0; i < n; i++) this.times[i + 1] = this.times[i] + phases[i].d;
    if (hasWrap) this.times[K - 1] = this.times[n] + motion.wrap;
    /** segment durations (s), differences of the keyframe times so that a phase end is u = 1 exactly */
    const dts = (this.dts = new Float64Array(S));
    for (let s = 0; s < S; s++) dts[s] = this.times[s + 1] - this.times[s];
    /** loop length (s), the wrap included */
    this.duration = this.times[K - 1];
    this.modes = phases.map((p) => p.m);
    if (hasWrap) this.modes.push("flow"); // the wrap keyframe is a rest keyframe (end of loop)

    // --- channel keys, channel-major keys[c*K + k]: bone b's x, y, z angles (degrees) are
    // channels 3b…3b+2, then the root's yaw (radians), travel x and travel z (m), then the six
    // numbers of the keyframe's rest (motion JSON `rest`: rotation vector in degrees, root offset
    // in m; absent = 0, not carried: motion/rest.py decides it per keyframe)
    const C = 3 * N + 3 + REST;
    const keys = new Float64Array(C * K);
    const e = new Float64Array(3 * N);
    const q = new Float64Array(4);
    const put = (map) => {
      for (const id of Object.keys(map || {})) {
        const b = boneIds.indexOf(id);
        q.set(map[id]);
        jointAngles(normalize(q), 0, rom[id], e, 3 * b);
      }
    };
    const store = (k) => { for (let c = 0; c < 3 * N; c++) keys[c * K + k] = e[c]; };
    const rest = (k, r) => { for (let j = 0; j < REST; j++) keys[(3 * N + 3 + j) * K + k] = r ? r[j] : 0; };
    put(motion.base);
    const base = Float64Array.from(e);
    store(0);
    rest(0, motion.rest);
    let yaw = 0, tx = 0, tz = 0;
    for (let i = 0; i < n; i++) {
      const p = phases[i];
      put(p.q);
      store(i + 1);
      if (typeof p.turn === "number") yaw = p.turn * DEG;
      if (Array.isArray(p.tr)) { tx = p.tr[0]; tz = p.tr[1]; }
      keys[3 * N * K + i + 1] = yaw; keys[(3 * N + 1) * K + i + 1] = tx; keys[(3 * N + 2) * K + i + 1] = tz;
      rest(i + 1, p.rest);
    }
    if (hasWrap) {
      e.set(base);
      store(K - 1);
      keys[3 * N * K + K - 1] = (typeof motion.wrapTurn === "number" ? motion.wrapTurn : 0) * DEG;
      rest(K - 1, motion.rest);
    }
    /** channel keys (see above) */
    this.keys = keys;

    // --- Bézier controls per channel and segment: A = v⁺·Δt/3 at the start, B = v⁻·Δt/3 at the end
    this.A = new Float64Array(C * S);
    this.B = new Float64Array(C * S);
    this.chan = new Float64Array(C);
    const sc = new Float64Array(S), si = new Float64Array(K), so = new Float64Array(K);
    for (let c = 0; c < C; c++) {
      for (let s = 0; s < S; s++) sc[s] = keys[c * K + s + 1] - keys[c * K + s];
      keyVelocities(sc, dts, this.modes, si, so);
      for (let s = 0; s < S; s++) {
        this.A[c * S + s] = (so[s] * dts[s]) / 3;
        this.B[c * S + s] = (si[s + 1] * dts[s]) / 3;
      }
    }
  }

  /**
   * Wrap `t` (s) into [0, duration) and return the segment index containing it (a keyframe time
   * belongs to the segment that starts there); `this.u` is then the 0–1 position in it.
   */
  segmentAt(t) {
    const T = this.times, D = this.duration;
    let x = t % D;
    if (x < 0) x += D;
    let s = 0;
    // a time within 1 ns of a keyframe belongs to the segment starting there
    while (s < this.segmentCount - 1 && x >= T[s + 1] - 1e-9) s++;
    this.u = Math.min(1, Math.max(0, (x - T[s]) / this.dts[s]));
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
   * @param {Float64Array} outRoot [yaw (rad, about +Y), travel x (m), travel z (m), then the rest:
   *   rotation vector (degrees, world axes) and root offset x, y, z (m)]
   * @returns {number} the segment index (phase index, or phaseCount for the wrap)
   */
  evaluate(t, outQ, outRoot) {
    const s = this.segmentAt(t), u = this.u, w = 1 - u;
    const S = this.segmentCount, K = this.keyCount, N = this.boneCount, ch = this.chan;
    // cubic Bézier in Bernstein form, every channel
    const B0 = w * w * w, B1 = 3 * u * w * w, B2 = 3 * u * u * w, B3 = u * u * u;
    for (let c = 0; c < ch.length; c++) {
      const p0 = this.keys[c * K + s], p3 = this.keys[c * K + s + 1];
      ch[c] = B0 * p0 + B1 * (p0 + this.A[c * S + s]) + B2 * (p3 - this.B[c * S + s]) + B3 * p3;
    }
    for (let b = 0; b < N; b++) fromEulerXYZ(outQ, b * 4, ch[3 * b], ch[3 * b + 1], ch[3 * b + 2]);
    for (let c = 0; c < ROOT_CHANNELS; c++) outRoot[c] = ch[3 * N + c];
    return s;
  }
}
