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
 * product, exp and log maps.
 * @module quat
 */

/** Write the identity quaternion at `out[oi..oi+3]`. */
export function identity(out, oi = 0) {
  out[oi] = 0; out[oi + 1] = 0; out[oi + 2] = 0; out[oi + 3] = 1;
  return out;
}

/** Copy 4 numbers. */
export function copy4(out, oi, a, ai) {
  out[oi] = a[ai]; out[oi + 1] = a[ai + 1]; out[oi + 2] = a[ai + 2]; out[oi + 3] = a[ai + 3];
  return out;
}

/** Normalise the quaternion at `out[oi..]` in place (identity when its length is 0). */
export function normalize(out, oi = 0) {
  const x = out[oi], y = out[oi + 1], z = out[oi + 2], w = out[oi + 3];
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  if (n < 1e-12) return identity(out, oi);
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

const _c = new Float64Array(4);
/** out = conj(a) · b, the rotation taking frame a to frame b, expressed in a's frame. */
export function mulConjA(out, oi, a, ai, b, bi) {
  _c[0] = -a[ai]; _c[1] = -a[ai + 1]; _c[2] = -a[ai + 2]; _c[3] = a[ai + 3];
  return mul(out, oi, _c, 0, b, bi);
}

/** Dot product of two quaternions. */
export function dot4(a, ai, b, bi) {
  return a[ai] * b[bi] + a[ai + 1] * b[bi + 1] + a[ai + 2] * b[bi + 2] + a[ai + 3] * b[bi + 3];
}

/**
 * Exponential map: the unit quaternion of rotation vector `v` (radians), scaled by `k`.
 * out = exp(k·v) = [sin(θ/2)·axis, cos(θ/2)] with θ = |k·v|.
 */
export function expScaled(out, oi, v, vi, k) {
  const x = v[vi] * k, y = v[vi + 1] * k, z = v[vi + 2] * k;
  const th = Math.sqrt(x * x + y * y + z * z);
  const h = 0.5 * th;
  // sin(h)/th -> 1/2 as th -> 0 (Taylor: 1/2 - th²/48)
  const s = th < 1e-6 ? 0.5 - (th * th) / 48 : Math.sin(h) / th;
  out[oi] = x * s; out[oi + 1] = y * s; out[oi + 2] = z * s; out[oi + 3] = Math.cos(h);
  return out;
}

/**
 * Logarithm map: the rotation vector (radians, shortest arc, angle in [0, π]) of unit quaternion
 * `q`, written to `out[oi..oi+2]`.
 */
export function log(out, oi, q, qi) {
  let x = q[qi], y = q[qi + 1], z = q[qi + 2], w = q[qi + 3];
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const s = Math.sqrt(x * x + y * y + z * z);
  // angle = 2·atan2(s, w); factor = angle / s -> 2 as s -> 0
  const f = s < 1e-9 ? 2 / (w || 1) : (2 * Math.atan2(s, w)) / s;
  out[oi] = x * f; out[oi + 1] = y * f; out[oi + 2] = z * f;
  return out;
}

/** Angle in radians (0..π) of the rotation between unit quaternions a and b. */
export function angleBetween(a, ai, b, bi) {
  const d = Math.min(1, Math.abs(dot4(a, ai, b, bi)));
  return 2 * Math.acos(d);
}

const DEG = Math.PI / 180;

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
 * {@link fromEulerXYZ}; solve.py `matrix_to_euler`): y in [−90°, 90°]; at |y| = 90° z is 0. */
export function eulerOf(q, o, out, oi) {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  const m02 = 2 * (x * z + w * y);
  const sb = Math.min(1, Math.max(-1, m02));
  out[oi + 1] = Math.asin(sb) / DEG;
  if (Math.abs(sb) < 0.9999999) {
    out[oi] = Math.atan2(-2 * (y * z - w * x), 1 - 2 * (x * x + y * y)) / DEG;
    out[oi + 2] = Math.atan2(-2 * (x * y - w * z), 1 - 2 * (y * y + z * z)) / DEG;
  } else {
    out[oi] = Math.atan2(2 * (y * z + w * x), 1 - 2 * (x * x + z * z)) / DEG;
    out[oi + 2] = 0;
  }
}

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
