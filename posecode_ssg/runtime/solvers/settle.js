/**
 * The gravity settle between phase ends (issue 19 item 1). The compiler settles a lying, seated or
 * kneeling body's phase ends onto what holds it (posecode_ssg/motion/settle.py: the keyframe's
 * `rest`, a turn of the whole figure), and the timeline interpolates that turn like a joint. Between
 * phase ends the turn the body needs is not the interpolated one: a glute bridge's pelvis rises
 * as the hips extend, and a turn that grows in step with the hip angle leaves the shoulders a few
 * centimetres off the floor mid-lift, the body then held by its feet alone.
 *
 * So in a segment whose phase holds the body on the floor (a ground-lock, a pin to the floor)
 * and whose start or end keyframe has a rest, the rest's turn is corrected about its own axis
 * by Δθ(u): at {@link SETTLE_PROBES} − 1 inner probes of the segment (solved whole, at load:
 * figuremodel.js `_settleAhead`) the least correction that brings the lowest point of the body's
 * free part (everything but the held hands, feet, pinned bones) to the height interpolated
 * between its heights at the segment's two ends (on the floor at both, for the bridge) is found
 * ({@link probeSettle}), and Δθ(u) is the Catmull-Rom curve through the probes, 0 at both ends with zero slope
 * there (the probes mirrored about the ends). So the phase ends stay the numpy solve's, and the
 * rest channel keeps its velocity at the boundaries (C1). Runtime-only, like the entry blend: the
 * numpy solve has phase ends only, where the correction is 0.
 *
 * A body nothing holds but the floor (a long sit, a lying body: the rest's) is settled the same
 * way when the rest of it touches the floor at both ends of the segment: what it rocks on is found
 * from the segment's own poses ({@link restingHeld}), and the turn, about the pelvis above that
 * spot, comes with a horizontal move that keeps the spot where it was (`st.sx`, `st.sz`).
 * @module solvers/settle
 */

/**
 * Inner probes + 1 of a held body's settle segment (the correction's knots: u = k / N, N the
 * knots' count less one, `st.probes.length` − 1). A body the floor alone holds has twice as many:
 * the surface it keeps down passes from one part to another (heels to hands), a kink that 7 inner
 * knots rounded off, both 15–19 mm up for a fifth of a second; a held body's probes (the bracketing
 * search's steps) are rougher, and at 15 knots their curve jolted a dead bug's ankle 17 mm in a frame.
 */
export const SETTLE_PROBES = 8;
/** Degrees of the search's first step and its largest turn; its halvings. */
const FIRST_STEP = 0.5, MAX_TURN = 16, BISECT = 10;

/**
 * The settle record of a segment, or null: `phase` its motion JSON phase (the destination),
 * `r0`, `r1` the rests (motion JSON `rest`) of its start and end keyframes (undefined: none).
 * `held`: 1 for each bone that holds the body (a locked or floor-pinned foot or hand with all below
 * it; a pinned knee, elbow or pelvis alone; the back bones for `back`), null for a body the floor
 * alone holds ({@link restingHeld} finds it); `axis`: the unit axis of the larger rest's turn;
 * `probes`: Δθ (degrees) at the knots.
 */
export function settlePlan(rig, sk, phase, r0, r1) {
  if (phase.hang === true) return null;
  const holds = [...(phase.gl || []), ...(phase.pin || []).filter(([, a]) => a === "floor").map(([e]) => e)];
  const a0 = r0 ? Math.hypot(r0[0], r0[1], r0[2]) : 0, a1 = r1 ? Math.hypot(r1[0], r1[1], r1[2]) : 0;
  if (Math.max(a0, a1) < 1e-3) return null;
  const r = a1 >= a0 ? r1 : r0, n = Math.max(a0, a1);
  if (!holds.length) {
    // nothing holds it: a body the floor alone holds (the rest's); what holds it is found from
    // the segment's poses (restingHeld). Not one rolling over from one side to the other (the
    // rests turn opposite ways): it passes over its back, which no turn along one of them keeps
    // (a grip hangs it: `hang`, above; a rest is never a standing body's, so never a gait's)
    if (a0 && a1 && r0[0] * r1[0] + r0[1] * r1[1] + r0[2] * r1[2] < 0) return null;
    return { held: null, axis: Float64Array.of(r[0] / n, r[1] / n, r[2] / n), probes: new Float64Array(2 * SETTLE_PROBES + 1),
      probing: false, force: 0 };
  }
  const held = new Uint8Array(sk.boneCount);
  for (const e of holds) {
    if (e === "back") {
      for (const b of rig.backBones || []) if (sk.index.has(b)) held[sk.index.get(b)] = 1;
      continue;
    }
    const b = sk.index.get(rig.effectors[e] || e);
    if (b === undefined) continue;
    held[b] = 1;
    if (!e.startsWith("foot_") && !e.startsWith("hand_")) continue;
    for (let c = 0; c < sk.boneCount; c++) for (let d = c; d >= 0; d = sk.parent[d]) if (d === b) { held[c] = 1; break; }
  }
  return { held, axis: Float64Array.of(r[0] / n, r[1] / n, r[2] / n), probes: new Float64Array(SETTLE_PROBES + 1),
    probing: false, force: 0 };
}

/** Δθ (degrees) of settle record `st` at `u` (0–1): the probes' Catmull-Rom curve (or the probe's forced value). */
export function settleAngle(st, u) {
  return st.probing ? st.force : knotCurve(st.probes, u);
}

/**
 * The Catmull-Rom curve at `u` (0–1) through knots `P` (k = 0…N, N = `P.length` − 1), mirrored
 * about the ends (zero slope there): the settle's turn, and the slide (x, z: `st.sx`, `st.sz`)
 * that keeps a body the floor alone holds on the spot it rocks on (figuremodel.js `_settleAhead`).
 */
export function knotCurve(P, u) {
  const N = P.length - 1, x = Math.min(Math.max(u, 0), 1) * N, k = Math.min(Math.floor(x), N - 1), f = x - k;
  const p = (i) => P[i < 0 ? -i : i > N ? 2 * N - i : i];
  const p0 = p(k - 1), p1 = p(k), p2 = p(k + 1), p3 = p(k + 2);
  return 0.5 * (2 * p1 + (p2 - p0) * f + (2 * p0 - 5 * p1 + 4 * p2 - p3) * f * f + (3 * p1 - p0 - 3 * p2 + p3) * f * f * f);
}

/**
 * What holds a body the floor alone holds over a segment (a settle record of {@link settlePlan}
 * with `held` null): the bones within `band` (m; rig.json `solver.baseContact`) of the floor at
 * every knot, u = k / N, of the uncorrected segment (`lowestAt(k)`: the posed
 * skeleton's {@link Skeleton#measureLowest} per bone), the pivot it rocks on. The settle keeps the
 * rest of the body, which also touches the floor at both of the segment's ends (a long sit's
 * heels at its start, the fingers at its end), down between them: a seated forward fold's rest
 * tips the body forward until the hands touch at the phase end, but between the ends the hips'
 * flexion, growing faster than the interpolated turn, lifted the heels 27 cm and the centre of
 * mass stood 20 cm in front of the buttocks, nothing under it. Returns whether there is such a
 * second surface to keep down (else the segment needs no settle); sets `st.held`.
 */
export function restingHeld(st, sk, band, lowestAt) {
  const N = st.probes.length - 1, held = new Uint8Array(sk.boneCount).fill(1);
  let ends = [];
  for (let k = 0; k <= N; k++) {
    const low = lowestAt(k);
    low.forEach((y, b) => { if (!(y <= band)) held[b] = 0; });
    // each end's lowest point of the rest of the body (the held part is known once all are seen)
    if (k % N === 0) ends[k && 1] = low.slice();
  }
  st.held = held;
  // the rest of the body down at both ends (the legs at one, the hands at the other, say)
  ends = ends.map((low) => Math.min(...low.filter((y, b) => !held[b])));
  // (nothing held throughout: the free part is the whole body, on the floor at every knot, and
  // the probes find nothing to correct)
  return ends[0] <= band && ends[1] <= band;
}

/** The lowest mesh point (m) of the bones that do not hold the body (`st.held`) on the posed skeleton. */
export function freeLowest(sk, st) {
  sk.measureLowest();
  let low = Infinity;
  for (let b = 0; b < sk.boneCount; b++) if (!st.held[b] && sk.lowestByBone[b] < low) low = sk.lowestByBone[b];
  return low;
}

/**
 * Fill `st.probes`: at each inner knot, the smallest Δθ whose solved pose (`gapAt(k, Δθ)`: the
 * free part's lowest point) comes within `tol` (m; rig.json `solver.pivotTolerance`) of the height
 * interpolated between the segment's ends. The floor clamp keeps the free part from sinking, so
 * past that turn the height stays at the floor while the held contacts lift: the turn is found by
 * bracketing on both sides (steps from {@link FIRST_STEP}°, doubling, at most
 * {@link MAX_TURN}°: the turn that lowers the free part may be the rest's own way or back, as when
 * the rest brought held hands down) and {@link BISECT} halvings, never by a slope.
 */
export function probeSettle(st, gapAt, tol) {
  const N = st.probes.length - 1;
  st.probes.fill(0);
  const g0 = gapAt(0, 0), g1 = gapAt(N, 0);
  for (let k = 1; k < N; k++) {
    const target = g0 + ((g1 - g0) * k) / N, e0 = gapAt(k, 0) - target;
    if (!(Math.abs(e0) > tol)) continue;
    // the turn that meets it, either way (on past the rest, or back): the nearest of the two
    // found by steps outwards, then halved down to its edge
    const met = (d) => Math.sign(e0) * (gapAt(k, d) - target) <= tol;
    let lo = 0, hi = NaN, dir = 1;
    for (let d = FIRST_STEP; d <= MAX_TURN && Number.isNaN(hi); d *= 2) {
      if (met(d)) { hi = d; dir = 1; } else if (met(-d)) { hi = d; dir = -1; } else lo = d;
    }
    if (Number.isNaN(hi)) continue;   // out of reach: left as interpolated
    for (let i = 0; i < BISECT; i++) {
      const mid = 0.5 * (lo + hi);
      if (met(dir * mid)) hi = mid; else lo = mid;
    }
    st.probes[k] = dir * hi;
  }
}
