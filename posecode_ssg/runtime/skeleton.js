/**
 * The skeleton: rig.json → bone hierarchy of one avatar, forward kinematics, landmarks and the
 * mesh extents used for grounding. Pure math on Float64Arrays (no three.js), so the solve cost is
 * measurable on its own and nothing is allocated per frame.
 *
 * Conventions (docs/motion-json.md, kinematics-reference §1–§2): metres, +Y up, the figure faces
 * +Z, its left is +X; identity rest rotations; a bone's offset is its joint's position in the
 * parent's frame; the pelvis hangs from the floating root. FK: p_child = p_parent + R_parent·offset,
 * R_child = R_parent·R_local (the same walk as posecode_ssg/motion/fk.py).
 *
 * Every number comes from rig.json: nothing about the body is typed here.
 * @module skeleton
 */

import { fromEulerXYZ, matrix, mul, rotateVec } from "./quat.js";

const _v = new Float64Array(3), _m = new Float64Array(9), _b = new Float64Array(3);

/**
 * One figure's skeleton and its world pose.
 * @param {object} rig parsed rig.json (`format: "posecode-rig/1"`)
 * @param {string} avatarId key into `rig.avatars`
 */
export class Skeleton {
  constructor(rig, avatarId) {
    // avatar and bone order are checked before (validate.js; rig.json lists parents first)
    const av = rig.avatars[avatarId];
    this.rig = rig;
    this.avatar = av;
    this.avatarId = avatarId;
    const ids = rig.bones.map((b) => b.id);
    this.boneIds = ids;
    const N = ids.length;
    this.boneCount = N;
    this.index = new Map(ids.map((id, i) => [id, i]));
    /** parent index per bone, −1 = the root node */
    this.parent = Int16Array.from(rig.bones, (b) => (b.parent === null ? -1 : this.index.get(b.parent)));
    this.offsets = Float64Array.from(rig.bones.flatMap((b) => av.offsets[b.id]));
    // landmarks
    const names = (this.landmarkNames = Object.keys(av.landmarks)), L = names.length;
    this.landmarkIndex = new Map(names.map((n, i) => [n, i]));
    this.landmarkBone = Int16Array.from(names, (n) => this.index.get(av.landmarks[n].bone));
    this.landmarkOffset = Float64Array.from(names.flatMap((n) => av.landmarks[n].offset));
    // mesh primitives for the lowest point (capsules, ellipsoids, sole boxes)
    const segs = av.segments, vols = av.volumes;
    this.segFrom = Int16Array.from(segs, (s) => this.index.get(s.from));
    // ≥ 0 bone, < 0: −1 − landmark index
    this.segTo = Int16Array.from(segs, (s) => (this.index.has(s.to) ? this.index.get(s.to) : -1 - this.landmarkIndex.get(s.to)));
    this.segR = Float64Array.from(segs.flatMap((s) => s.r));
    this.volBone = Int16Array.from(vols, (v) => this.index.get(v.bone));
    this.volAxes = Float64Array.from(vols.flatMap((v) => v.scale.map((k) => v.r * k)));
    this.volOffset = Float64Array.from(vols.flatMap((v) => v.offset));
    this.soleBones = ["ankle_left", "ankle_right"].filter((b) => this.index.has(b)).map((b) => this.index.get(b));
    // the 8 corners: corner k has half-size sign + on axis a when bit 2 − a of k is set
    this.soleCorners = new Float64Array(24);
    for (let c = 0; c < 24; c++) {
      const a = c % 3;
      this.soleCorners[c] = av.sole.center[a] + (((c / 3) >> (2 - a)) & 1 ? 0.5 : -0.5) * av.sole.size[a];
    }
    // centre of mass (rig.json segmentMasses: Winter's segments); a point is a bone (≥ 0) or a
    // landmark (< 0: −1 − its index), each end a pair whose midpoint it is ("a+b"; a point alone twice)
    const ref = (n) => (this.index.has(n) ? this.index.get(n) : -1 - this.landmarkIndex.get(n));
    const ends = (n) => { const [a, b] = n.split("+"); return [ref(a), b === undefined ? ref(a) : ref(b)]; };
    const sm = rig.segmentMasses || [];
    this.massPoints = Int16Array.from(sm.flatMap((m) => [...ends(m.from), ...ends(m.to)]));
    const total = sm.reduce((t, m) => t + m.mass, 0);
    this.massShare = Float64Array.from(sm.flatMap((m) => [m.mass / total, m.centre]));
    // world state
    this.rootPos = new Float64Array(3);
    this.rootQ = new Float64Array([0, 0, 0, 1]);
    this.worldQ = new Float64Array(N * 4);
    this.worldP = new Float64Array(N * 3);
    this.landmarkP = new Float64Array(L * 3);
    /** lowest mesh y per bone after the last {@link Skeleton#measureLowest} */
    this.lowestByBone = new Float64Array(N);
  }

  /**
   * Root transform of a built-in start pose: position (m, grounded for this avatar at build time
   * by the motion compiler) and rotation from its XYZ Euler degrees.
   * @returns {{position: number[], quaternion: Float64Array}}
   */
  startRoot(poseName) {
    const sp = this.rig.startPoses[poseName] || this.rig.startPoses[this.rig.defaultStartPose];
    const gr = sp.groundedRoot && sp.groundedRoot[this.avatarId];
    const e = sp.root.euler;
    return {
      position: (gr || sp.root.position).slice(),
      quaternion: fromEulerXYZ(new Float64Array(4), 0, e[0], e[1], e[2]),
    };
  }

  /**
   * Forward kinematics: world joint positions/rotations and landmarks from local rotations and
   * the root transform currently in `rootPos` / `rootQ`.
   * @param {Float64Array} localQ boneCount×4 local quaternions
   */
  forward(localQ) {
    const N = this.boneCount, P = this.parent, wq = this.worldQ, wp = this.worldP;
    for (let i = 0; i < N; i++) {
      // the parent's frame: the root transform for the bone hanging from it (p = −1)
      const p = P[i], pq = p < 0 ? this.rootQ : wq, pp = p < 0 ? this.rootPos : wp, o = p < 0 ? 0 : p;
      rotateVec(_v, 0, pq, o * 4, this.offsets, i * 3);
      for (let a = 0; a < 3; a++) wp[i * 3 + a] = pp[o * 3 + a] + _v[a];
      mul(wq, i * 4, pq, o * 4, localQ, i * 4);
    }
    this.updateLandmarks();
  }

  /** Recompute landmark world positions from the current bone transforms. */
  updateLandmarks() {
    const n = this.landmarkNames.length;
    for (let i = 0; i < n; i++) {
      const b = this.landmarkBone[i];
      rotateVec(_v, 0, this.worldQ, b * 4, this.landmarkOffset, i * 3);
      for (let a = 0; a < 3; a++) this.landmarkP[i * 3 + a] = this.worldP[b * 3 + a] + _v[a];
    }
  }

  /** Move the whole posed figure by (dx, dy, dz) metres (root, joints and landmarks). */
  translate(dx, dy, dz) {
    this.rootPos[0] += dx; this.rootPos[1] += dy; this.rootPos[2] += dz;
    const wp = this.worldP, lp = this.landmarkP;
    for (const P of [wp, lp]) for (let i = 0; i < P.length; i += 3) { P[i] += dx; P[i + 1] += dy; P[i + 2] += dz; }
  }

  /**
   * Lowest mesh point per bone (fills {@link Skeleton#lowestByBone}) and overall (returned), in
   * metres: capsule ends minus their radius (attributed to the child bone, or the landmark's
   * bone), ellipsoid volumes (lowest y = c_y − ‖row_y(R)·diag(axes)‖) and the 8 corners of each
   * sole box — the primitives of posecode_ssg/motion/fk.py `World.lowest_by_bone`.
   */
  measureLowest() {
    const low = this.lowestByBone.fill(Infinity);
    const wp = this.worldP, lp = this.landmarkP, wq = this.worldQ;
    for (let i = 0; i < this.segFrom.length; i++) {
      const a = this.segFrom[i], t = this.segTo[i];
      const owner = t >= 0 ? t : this.landmarkBone[-1 - t];
      const ya = wp[a * 3 + 1] - this.segR[i * 2];
      const yb = (t >= 0 ? wp[t * 3 + 1] : lp[(-1 - t) * 3 + 1]) - this.segR[i * 2 + 1];
      const m = ya < yb ? ya : yb;
      if (m < low[owner]) low[owner] = m;
    }
    for (let i = 0; i < this.volBone.length; i++) {
      const b = this.volBone[i];
      rotateVec(_v, 0, wq, b * 4, this.volOffset, i * 3);
      const cy = wp[b * 3 + 1] + _v[1];
      // row y of the rotation matrix of wq
      const R = matrix(wq, b * 4, _m);
      let r2 = 0;
      for (let k = 0; k < 3; k++) { const r = R[3 + k] * this.volAxes[i * 3 + k]; r2 += r * r; }
      const m = cy - Math.sqrt(r2);
      if (m < low[b]) low[b] = m;
    }
    for (const b of this.soleBones) {
      for (let c = 0; c < 8; c++) {
        rotateVec(_v, 0, wq, b * 4, this.soleCorners, c * 3);
        const m = wp[b * 3 + 1] + _v[1];
        if (m < low[b]) low[b] = m;
      }
    }
    let min = Infinity;
    for (let i = 0; i < low.length; i++) if (low[i] < min) min = low[i];
    return min;
  }

  /**
   * The lowest mesh point of the bones `mask` marks (a Uint8Array per bone) into `out` (3), and its
   * height (returned; Infinity when none has a mesh): capsule ends (centre less radius straight
   * down) and ellipsoid volumes c + R·diag(k)·s, lowest at c − R·(k ⊙ m)/|m| with m = k ⊙ R[1] —
   * the primitives and owners of {@link Skeleton#measureLowest}, sole boxes aside
   * (posecode_ssg/motion/solve/measure.py `lowest_point`).
   */
  lowestPoint(mask, out) {
    const wp = this.worldP, lp = this.landmarkP, wq = this.worldQ;
    let best = Infinity;
    for (let i = 0; i < this.segFrom.length; i++) {
      const a = this.segFrom[i], t = this.segTo[i];
      if (!mask[t >= 0 ? t : this.landmarkBone[-1 - t]]) continue;
      for (let e = 0; e < 2; e++) {
        const P = e === 0 || t >= 0 ? wp : lp, j = e === 0 ? a : t >= 0 ? t : -1 - t, y = P[j * 3 + 1] - this.segR[i * 2 + e];
        if (y < best) { best = y; out[0] = P[j * 3]; out[1] = y; out[2] = P[j * 3 + 2]; }
      }
    }
    for (let i = 0; i < this.volBone.length; i++) {
      if (!mask[this.volBone[i]]) continue;
      const y = this.volumeBottom(i, _b);
      if (y < best) { best = y; out[0] = _b[0]; out[1] = _b[1]; out[2] = _b[2]; }
    }
    return best;
  }

  /**
   * The lowest point of ellipsoid volume `i` into `out` (3), its height returned (Infinity for a
   * degenerate one): c + R·diag(k)·s is lowest at c − R·(k ⊙ m)/|m| with m = k ⊙ R[1]
   * (posecode_ssg/motion/rest.py `_Mesh.bottoms`).
   */
  volumeBottom(i, out) {
    const b = this.volBone[i], wp = this.worldP, wq = this.worldQ, R = matrix(wq, b * 4, _m), k = this.volAxes;
    let n = 0;
    for (let c = 0; c < 3; c++) { const m = R[3 + c] * k[i * 3 + c]; n += m * m; }
    n = Math.sqrt(n);
    if (!(n > 0)) return Infinity;
    rotateVec(_v, 0, wq, b * 4, this.volOffset, i * 3);
    for (let r = 0; r < 3; r++) {
      let d = 0;
      for (let c = 0; c < 3; c++) d += R[3 * r + c] * k[i * 3 + c] * k[i * 3 + c] * R[3 + c];
      out[r] = wp[b * 3 + r] + _v[r] - d / n;
    }
    return out[1];
  }

  /**
   * Whole-body centre of mass (m) into `out` (3): the mass-weighted centres of rig.json
   * `segmentMasses` (D. A. Winter, Biomechanics and Motor Control of Human Movement, 4th ed.,
   * Table 4.1: each segment's share of body mass and its centre's place from the proximal end),
   * as posecode_ssg/motion/rest.py `centre_of_mass`.
   * @param {Float64Array|number[]} out
   * @returns the same `out`
   */
  centreOfMass(out) {
    const M = this.massPoints, S = this.massShare, wp = this.worldP, lp = this.landmarkP;
    out[0] = out[1] = out[2] = 0;
    for (let i = 0; i < S.length / 2; i++) {
      const share = S[2 * i], f = S[2 * i + 1];
      for (let a = 0; a < 3; a++) {
        let from = 0, to = 0;
        for (let j = 0; j < 2; j++) {
          const r = M[4 * i + j], q = M[4 * i + 2 + j];
          from += 0.5 * (r >= 0 ? wp[r * 3 + a] : lp[(-1 - r) * 3 + a]);
          to += 0.5 * (q >= 0 ? wp[q * 3 + a] : lp[(-1 - q) * 3 + a]);
        }
        out[a] += share * (from + f * (to - from));
      }
    }
    return out;
  }

  /** World position of a bone joint or landmark as a new `[x, y, z]` (test hooks only). */
  point(name) {
    const bone = this.index.has(name), i = bone ? this.index.get(name) : this.landmarkIndex.get(name);
    return i === undefined ? null : Array.from((bone ? this.worldP : this.landmarkP).subarray(i * 3, i * 3 + 3));
  }
}

