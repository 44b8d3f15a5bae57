/**
 * Quaternion and rotation-vector helpers on plain number arrays (no three.js, no allocation).
 *
 * Conventions (docs/motion-json.md, kinematics-reference §3.2): quaternions are `[x, y, z, w]`
 * (Hamilton product, `mul(a, b)` applies b first, then a); a *rotation vector* is axis × angle in
 * radians (the full angle, so `exp(v)` rotates by |v|); Euler triples are intrinsic X-Y-Z in
 * degrees: q = qX(x)·qY(y)·qZ(z). Every function reads from `a`/`ai` and writes to `out`/`oi`
 * (array + offset) so callers can keep all poses in flat Float64Arrays.
 *
 * Formulas: Shoemake, "Animating rotation with quaternion curves" (SIGGRAPH 1985) for the
 * product and slerp.
 * @module quat
 */

/** Normalise the quaternion at `out[oi..]` in place (renormalises the 4-decimal motion JSON values). */
export function normalize(out, oi = 0) {
  const x = out[oi], y = out[oi + 1], z = out[oi + 2], w = out[oi + 3];
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  out[oi] = x / n; out[oi + 1] = y / n; out[oi + 2] = z / n; out[oi + 3] = w / n;
  return out;
}

/** Hamilton product: out = a · b (safe when out aliases a or b). */
export function mul(out, oi, a, ai, b, bi) {
  const ax = a[ai], ay = a[ai + 1], az = a[ai + 2], aw = a[ai + 3];
  const bx = b[bi], by = b[bi + 1], bz = b[bi + 2], bw = b[bi + 3];
  out[oi] = aw * bx + ax * bw + ay * bz - az * by;
  out[oi + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oi + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oi + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** q[o..] := slerp(a[ao..], q[o..], w): from unit quaternion a toward q by w (shortest arc). */
export function slerpInto(q, o, a, ao, w) {
  let d = a[ao] * q[o] + a[ao + 1] * q[o + 1] + a[ao + 2] * q[o + 2] + a[ao + 3] * q[o + 3];
  const sg = d < 0 ? -1 : 1;
  d *= sg;
  let ka = 1 - w, kb = w * sg;
  if (d < 0.9995) {
    const th = Math.acos(d), sn = Math.sin(th);
    ka = Math.sin((1 - w) * th) / sn;
    kb = sg * Math.sin(w * th) / sn;
  }
  let n = 0;
  for (let i = 0; i < 4; i++) { q[o + i] = ka * a[ao + i] + kb * q[o + i]; n += q[o + i] * q[o + i]; }
  n = Math.sqrt(n);
  for (let i = 0; i < 4; i++) q[o + i] /= n;
}

/** Row-major 3×3 rotation matrix of unit quaternion `q[o..o+3]` into `m`. */
export function matrix(q, o, m) {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  m[0] = 1 - 2 * (y * y + z * z); m[1] = 2 * (x * y - w * z); m[2] = 2 * (x * z + w * y);
  m[3] = 2 * (x * y + w * z); m[4] = 1 - 2 * (x * x + z * z); m[5] = 2 * (y * z - w * x);
  m[6] = 2 * (x * z - w * y); m[7] = 2 * (y * z + w * x); m[8] = 1 - 2 * (x * x + y * y);
  return m;
}

/** The quaternion turning by `ang` rad about the unit axis (x, y, z), into `out[oi..]`. */
export function axisAngle(out, oi, x, y, z, ang) {
  const s = Math.sin(0.5 * ang);
  out[oi] = x * s; out[oi + 1] = y * s; out[oi + 2] = z * s; out[oi + 3] = Math.cos(0.5 * ang);
  return out;
}

/** [c·x + s·z, −s·x + c·z] (c, s: cos, sin of `ang`; a turn of the x, z plane by −ang about +Y) into `out[o..]`. */
export function turnXZ(out, o, ang, x, z) {
  const c = Math.cos(ang), s = Math.sin(ang);
  out[o] = c * x + s * z; out[o + 1] = -s * x + c * z;
}

/** Radians per degree. */
export const DEG = Math.PI / 180;

/** Degrees per radian (the solvers' angles in rig.json units). */
export const TO_DEG = 180 / Math.PI;

/**
 * Quaternion of intrinsic X-Y-Z Euler angles in degrees: q = qX(x)·qY(y)·qZ(z)
 * (kinematics-reference §3.2; three.js Euler order "XYZ").
 */
export function fromEulerXYZ(out, oi, xDeg, yDeg, zDeg) {
  const hx = 0.5 * xDeg * DEG, hy = 0.5 * yDeg * DEG, hz = 0.5 * zDeg * DEG;
  const c1 = Math.cos(hx), s1 = Math.sin(hx);
  const c2 = Math.cos(hy), s2 = Math.sin(hy);
  const c3 = Math.cos(hz), s3 = Math.sin(hz);
  out[oi] = s1 * c2 * c3 + c1 * s2 * s3;
  out[oi + 1] = c1 * s2 * c3 - s1 * c2 * s3;
  out[oi + 2] = c1 * c2 * s3 + s1 * s2 * c3;
  out[oi + 3] = c1 * c2 * c3 - s1 * s2 * s3;
  return out;
}

/** XYZ Euler degrees of the quaternion q[o..] into out[oi..] (the inverse of
 * {@link fromEulerXYZ}; rotation.py `matrix_to_euler`): y in [−90°, 90°]; at |y| = 90° z is 0. */
export function eulerOf(q, o, out, oi) {
  const m = matrix(q, o, _em), sb = Math.min(1, Math.max(-1, m[2]));
  out[oi + 1] = Math.asin(sb) / DEG;
  out[oi] = (Math.abs(sb) < 0.9999999 ? Math.atan2(-m[5], m[8]) : Math.atan2(m[7], m[4])) / DEG;
  out[oi + 2] = Math.abs(sb) < 0.9999999 ? Math.atan2(-m[1], m[0]) / DEG : 0;
}
const _em = new Float64Array(9);

const _j = new Float64Array(6);

/** Degrees by which angle v lies outside [lo, hi] (0 inside). */
function outside(v, lo, hi) {
  return Math.max(lo - v, v - hi, 0);
}

/**
 * The joint angles of unit quaternion q[o..] (intrinsic X-Y-Z degrees) nearest its rig.json
 * `rom` box (`{x: [lo, hi], y: …, z: …}`; none: the principal triple of {@link eulerOf}): of the
 * rotation's two triples (a, b, c) and (a + 180°, 180° − b, c + 180°), each angle shifted by a
 * full turn where that brings it nearer its interval, the one with the smaller total excess;
 * written to out[oi..oi+2]. No allocation.
 */
export function jointAngles(q, o, box, out, oi) {
  eulerOf(q, o, _j, 0);
  if (!box) { out[oi] = _j[0]; out[oi + 1] = _j[1]; out[oi + 2] = _j[2]; return; }
  _j[3] = _j[0] + 180; _j[4] = 180 - _j[1]; _j[5] = _j[2] + 180;
  let best = Infinity;
  for (let j = 0; j < 6; j += 3) {
    let ex = 0;
    for (let i = 0; i < 3; i++) {
      const r = box["xyz"[i]];
      let v = _j[j + i] - 360 * Math.round(_j[j + i] / 360);
      if (outside(v - 360, r[0], r[1]) < outside(v, r[0], r[1])) v -= 360;
      else if (outside(v + 360, r[0], r[1]) < outside(v, r[0], r[1])) v += 360;
      _j[j + i] = v;
      ex += outside(v, r[0], r[1]);
    }
    if (ex < best - 1e-9) { best = ex; out[oi] = _j[j]; out[oi + 1] = _j[j + 1]; out[oi + 2] = _j[j + 2]; }
  }
}

/** The dot product of 3-vectors `a[0..2]` and `b[0..2]`. */
export const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** Rotate vector `v[vi..]` by unit quaternion `q[qi..]`, writing `out[oi..oi+2]` (may alias v). */
export function rotateVec(out, oi, q, qi, v, vi) {
  const qx = q[qi], qy = q[qi + 1], qz = q[qi + 2], qw = q[qi + 3];
  const vx = v[vi], vy = v[vi + 1], vz = v[vi + 2];
  // t = 2 q×v ; v' = v + w t + q×t
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  out[oi] = vx + qw * tx + (qy * tz - qz * ty);
  out[oi + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oi + 2] = vz + qw * tz + (qx * ty - qy * tx);
  return out;
}
