/**
 * Swing clearance (solve/swingclearance.py `clear_free_limbs`, `hinge_up`): while the body rests on a locked or
 * floor-pinned contact, a free leg that the pose pushes through the floor is lifted within its own
 * chain instead of the floor clamp lifting the body off its support. {@link clearFreeLimbs} is the
 * step the pin (stance legs), reach and self-collision passes run too; {@link swingClearance} the
 * pass. Allocates nothing per frame.
 * @module solvers/swingclearance
 */

import { fromEulerXYZ, jointAngles, matrix, mul, TO_DEG } from "../quat.js";
import { readChain, rotateJoint } from "./ccd.js";
import { setX } from "./limb.js";
import { holdWeight } from "./groundlock.js";

/**
 * Turn joint `j` about one of its Euler axes — `ax` 0: its x, about the parent's X axis (knee,
 * ankle); 2: its z, about its own Z axis after x and y (hip abduction) — so that the world point
 * at `o` of `V` rises by `dy` (m): with r = point − joint split about that axis u, the height
 * changes by A cos θ + B sin θ − A (A = r⊥·y, B = (u × r⊥)·y). Of the two roots: the one the
 * joint's rig.json `rom` range (widened to its angle) keeps best, then with `wideFirst` the one
 * toward the wider end of the range (a knee flexes; a hip abducts, the knee going round the
 * outside: the choice does not flip from frame to frame), then the nearest zero;
 * clamped to the range. With `uphill` (the ankle): the root the way that raises the point (the
 * sign of B), clamped, and only the share smoothstep(|B| / R / `solver.clearanceAnkleFade`) of
 * that turn, so a foot never swaps from pointed to flexed in one frame (solve/swingclearance.py
 * `hinge_up`). Returns the turn (degrees).
 */
function hingeUp(ctx, j, V, o, dy, ax = 0, wideFirst = ax > 0, uphill = false) {
  const sk = ctx.skeleton, P = sk.worldP, q = ctx.localQ, a = j * 3, qo = j * 4, rom = ctx.rig.rom[sk.boneIds[j]], e = _he, U = _hq;
  jointAngles(q, qo, rom, e, 0);
  if (ax) { fromEulerXYZ(U, 0, e[0], e[1], 0); mul(U, 0, sk.worldQ, sk.parent[j] * 4, U, 0); } else U.set(sk.worldQ.subarray(sk.parent[j] * 4, sk.parent[j] * 4 + 4));
  const m = matrix(U, 0, _m), c = ax ? 2 : 0, ux = m[c], uy = m[c + 3], uz = m[c + 6];   // its X or Z axis
  const rx = V[o] - P[a], ry = V[o + 1] - P[a + 1], rz = V[o + 2] - P[a + 2];
  const ru = rx * ux + ry * uy + rz * uz;
  const px = rx - ux * ru, py = ry - uy * ru, pz = rz - uz * ru;
  const A = py, B = uz * px - ux * pz, R = Math.hypot(A, B);
  if (R < 1e-9) return 0;
  const phi = Math.atan2(B, A), ac = Math.acos(Math.min(1, Math.max(-1, (py + dy) / R)));
  const r = ax ? rom.z : rom.x, x0 = e[ax], lo = Math.min(r[0], x0), hi = Math.max(r[1], x0), wide = wideFirst ? r[0] + r[1] : 0;
  let best = x0, key = Infinity;
  if (uphill) {
    const d = (B >= 0 ? Math.max(0, phi - ac) : Math.min(0, phi + ac)) * TO_DEG;
    const x = Math.min(1, Math.abs(B) / R / ctx.rig.solver.clearanceAnkleFade);
    best = x0 + x * x * (3 - 2 * x) * (Math.min(Math.max(x0 + d, lo), hi) - x0);
  } else {
    for (let i = 0; i < 2; i++) {
      const d = Math.atan2(Math.sin(phi + (i ? -ac : ac)), Math.cos(phi + (i ? -ac : ac))) * TO_DEG;
      const c = Math.min(Math.max(x0 + d, lo), hi);
      const k = Math.round(Math.abs(x0 + d - c) * 1e6) * 1e3 + (d * wide < 0 ? 360 : 0) + Math.abs(d);
      if (k < key) { key = k; best = c; }
    }
  }
  e[ax] = best;
  fromEulerXYZ(q, qo, e[0], e[1], e[2]);
  sk.forward(q);
  return best - x0;
}
const _he = new Float64Array(3), _hq = new Float64Array(4);
const _m = new Float64Array(9);

/**
 * Turn the knee of swing record `f` so the foot's lowest point — toe or heel landmark, or the
 * ankle joint when neither is below it — rises by `dy` (m; negative: comes down), the flexion
 * preferred with `wideFirst` ({@link hingeUp}). Returns the turn (degrees).
 */
function kneeTurn(ctx, f, dy, wideFirst) {
  const P = ctx.skeleton.worldP, L = ctx.skeleton.landmarkP, a = f.ankle * 3, h = f.heel * 3, t = f.toe * 3;
  const lowest = L[t + 1] < L[h + 1] ? (L[t + 1] < P[a + 1] ? t : -1) : (L[h + 1] < P[a + 1] ? h : -1);
  return hingeUp(ctx, f.knee, lowest < 0 ? P : L, lowest < 0 ? a : lowest, dy, 0, wideFirst);
}

/**
 * Swing clearance (solve/swingclearance.py `clear_free_limbs`): while the body rests on a ground-locked or
 * floor-pinned contact, a leg with no contact of its own this phase (or whose locked foot arrives
 * from the air) that the pose pushes through the floor is lifted within its own chain, not by the
 * floor clamp raising the body off its support: the toe turns up at the ankle; what the ankle's
 * range leaves, the knee flexes away (the lowest of toe, heel and ankle joint rises by the depth);
 * a knee still through the floor goes round it, the hip abducting ({@link hingeUp}); at most
 * `solver.clearanceIterations` rounds. A foot on its heel is not turned at the ankle (that
 * would drive the heel down): the knee lifts it; with its toes up on purpose (ankle dorsiflexed)
 * the hip flexes and the knee bends back by as much, setting it down on its heel with its pitch
 * kept (solve/swingclearance.py `heel_on_floor`) — the body
 * is never raised off its locked support over a free heel — unless it reaches for the floor
 * (`plan.reachSwing`, after the reach: a foot set down flat rests on its heel). The
 * self-collision pass runs it again after its leg push (selfcollision.js).
 */
export function clearFreeLimbs(ctx, sw = ctx.plan.swing) {
  const sk = ctx.skeleton, P = sk.worldP, L = sk.landmarkP, lb = sk.lowestByBone, q = ctx.localQ;
  // the floor the legs are kept above: y = 0, or the rest of the body's lowest point while a pin
  // or the feet have it below (the floor clamp lifts the whole figure afterwards)
  let fl = 0;
  sk.measureLowest();
  for (let b = 0; b < sk.boneCount; b++) if (lb[b] < fl && !sw.some((f) => f.knee === b || f.ankle === b)) fl = lb[b];
  // the knee and hip leave the floor clamp a graze of a fifth of `plantTolerance` (a sole edge of
  // a leg swinging out): flexing a knee over a flat foot first dips its toes
  const graze = fl - 0.2 * ctx.rig.solver.plantTolerance, reached = sw !== ctx.plan.swing;
  for (let i = 0; i < sw.length; i++) {
    const f = sw[i], h = f.heel * 3, t = f.toe * 3, k = f.knee * 4;
    // on its heel or not: decided once per phase for the first round (decided per frame, a flat
    // foot's tie would flip the branch from frame to frame): on its heel when the heel is no higher
    // than the toe (1 mm) at both keyframes, the phase's start (plan.js) and end (its first solve,
    // figuremodel.js); later rounds follow the foot as the first one left it
    if (f.heelDown === undefined) f.heelDown = f.heelDown0 && L[h + 1] <= L[t + 1] + 1e-3;
    for (let it = 0; it < ctx.rig.solver.clearanceIterations; it++) {
      sk.measureLowest();
      if (!(Math.min(lb[f.ankle], lb[f.knee]) < fl - 1e-4)) break;
      if (it ? L[h + 1] <= L[t + 1] : f.heelDown) {
        // on its heel: turning the toes up would drive the heel down; one with its toes up on
        // purpose (ankle dorsiflexed) is set down on its heel by its own leg (so the body is not
        // raised off its locked support), else — a foot reaching for the floor too — the knee
        // lifts it (below; solve/swingclearance.py)
        if (!reached && q[f.ankle * 4] < 0) {
          // toes up on purpose (ankle dorsiflexed): the hip flexes until the knee is as much
          // higher as the heel is low and the knee bends back by as much, so the shank and foot
          // keep their orientation and only rise, the heel coming forward (flexing the knee alone
          // would pitch the dorsiflexion away); the knee has x only (rig.json rom), its bend-back
          // kept within its range widened to its angle (a hip extending to rise can ask for a
          // hyperextension past it)
          const x = 2 * Math.atan2(q[k], q[k + 3]) * TO_DEG, r = ctx.rig.rom[sk.boneIds[f.knee]].x;
          setX(ctx, k, Math.min(Math.max(x - hingeUp(ctx, sk.parent[f.knee], P, f.knee * 3, fl - lb[f.ankle], 0, true), Math.min(r[0], x)), Math.max(r[1], x)));
          continue;
        }
      } else hingeUp(ctx, f.ankle, L, t, fl - lb[f.ankle], 0, false, true);
      sk.measureLowest();
      if (lb[f.ankle] < graze) {
        kneeTurn(ctx, f, graze - lb[f.ankle], true);
        sk.measureLowest();
      }
      if (lb[f.knee] < graze) hingeUp(ctx, sk.parent[f.knee], P, f.knee * 3, graze - lb[f.knee], 2);
    }
  }
}

/**
 * Free feet kept down through the entry blend (blend.js; runtime-only, no numpy twin: the blend is
 * nothing at a phase end): a free foot (not a locked one landing) that rests on the floor both where the previous phase left
 * it (`plan.swing[i].low0`) and in this segment's own solve before the blend's joint offsets were
 * added (`pre[i]`: its lowest points, m) — a trailing foot dragged forward on its toes — is
 * lowered back by as much as those offsets raised it (no lower than the floor), its knee turning (the nearest way,
 * {@link hingeUp}) about the foot's lowest point. By the share holdWeight(low0) × holdWeight(pre)
 * over `solver.shiftHeightBand` (all of it within 5 mm of the floor, none from 1 cm: a foot in
 * the air keeps the blend) × `ramp` (0 at the segment's start with no slope, so the boundary
 * stays the previous end's pose and rate). Without it the blend lifted a reverse lunge's trailing
 * toes 10 mm off the floor a third into the phase, leaving the body on its front foot alone,
 * 19 cm behind it.
 */
export function keepFreeFeetDown(ctx, pre, ramp) {
  const sk = ctx.skeleton, lb = sk.lowestByBone, sw = ctx.plan.swing, solver = ctx.rig.solver;
  const [lo, hi] = solver.shiftHeightBand, h = solver.plantedHeight;
  sk.measureLowest();
  for (let i = 0; i < sw.length; i++) {
    const f = sw[i], w = f.free ? ramp * holdWeight(pre[i], h, lo, hi) * holdWeight(f.low0, h, lo, hi) : 0;
    const rise = lb[f.ankle] - Math.max(pre[i], 0);   // never below the floor (the clearance put it there)
    if (!(w > 0) || !(rise > 1e-5)) continue;
    kneeTurn(ctx, f, -w * rise, false);
    sk.measureLowest();
  }
}

/**
 * Arm clearance (solve/swingclearance.py `clear_free_arms`, issue 18): while the body lies on a
 * locked or floor-pinned contact, its trunk on the floor (a `backBones` bone within
 * `solver.plantedHeight`) and nearer the horizontal than `solver.armClearanceTrunk`, a free arm (`plan.armSwing`: no lock, pin or grip of the hand or
 * forearm, no reach but for the floor) the pose pushes through the floor swings out to its side
 * about an axis through the shoulder along the trunk (the horizontal of pelvis → neck; tilted
 * outwards by the share of the arm's reach along the trunk, see below) until its
 * lowest point ({@link import("../skeleton.js").Skeleton#lowestPoint}) is half `plantTolerance` under
 * the floor (y = 0, or the rest of the body's lowest point while a pin holds it below; an arm
 * resting that little in it is left alone), not by the floor clamp lifting the body off its support: prone, the arm slides along
 * the floor from beside the hips to beside the head. The turn about a fixed axis has no
 * singularity where the arm points straight down, so it does not flip between frames; the
 * shoulder stays in its box widened to its angles. At most `solver.clearanceIterations` rounds,
 * each raising the lowest point exactly (A cos θ + B sin θ = A + dy, the smallest θ > 0: outwards).
 */
export function clearFreeArms(ctx) {
  const sk = ctx.skeleton, P = sk.worldP, lb = sk.lowestByBone, solver = ctx.rig.solver, arms = ctx.plan.armSwing;
  const pel = sk.index.get("pelvis") * 3, neck = sk.index.get("neck") * 3;
  const tx = P[neck] - P[pel], ty = P[neck + 1] - P[pel + 1], tz = P[neck + 2] - P[pel + 2], n = Math.hypot(tx, tz);
  if (n < solver.armClearanceTrunk * Math.hypot(tx, ty, tz)) return;   // an upright trunk: a swing about it cannot lift an arm
  sk.measureLowest();
  // a trunk off the floor (all fours): an arm comes down to the floor, it does not lie on it
  if (!ctx.rig.backBones.some((b) => lb[sk.index.get(b)] <= solver.plantedHeight)) return;
  const ax = tx / n, az = tz / n, p = _ap;
  let fl = 0;
  for (let b = 0; b < sk.boneCount; b++) if (lb[b] < fl && !arms.some((m) => m.arm[b])) fl = lb[b];
  // an arm resting on the floor at a keyframe sinks into it by a few millimetres: left alone (the
  // phases either side would hold it differently); deeper, swung out to that depth
  const graze = fl - 0.5 * solver.plantTolerance;
  for (const m of arms) {
    const s = m.shoulder * 3, o = m.other * 3;
    for (let it = 0; it < solver.clearanceIterations; it++) {
      const low = sk.lowestPoint(m.arm, p);
      if (!(low < graze - 1e-4)) break;
      // the axis: along the trunk, signed so that a positive turn takes an arm hanging down out to
      // its own side ((a × down)·out > 0), tilted towards the outward horizontal by the share c of
      // the arm's reach that runs along the trunk: an arm lying along the body turns up off the
      // floor at once, not only as it rolls about its own line (lifting by the square of the angle:
      // a jerk); an arm across the trunk swings out
      let ox = P[s] - P[o], oz = P[s + 2] - P[o + 2];
      const on = Math.hypot(ox, oz) || 1e-9;
      ox /= on; oz /= on;
      const sg = az * ox - ax * oz > 0 ? 1 : -1;
      const rx = p[0] - P[s], ry = p[1] - P[s + 1], rz = p[2] - P[s + 2];
      const c = -(rx * sg * ax + rz * sg * az) / (Math.hypot(rx, ry, rz) || 1e-9);
      let a0 = sg * ax + c * ox, a2 = sg * az + c * oz;
      const an = Math.hypot(a0, a2);
      a0 /= an; a2 /= an;
      const ra = rx * a0 + rz * a2;
      const px = rx - a0 * ra, py = ry, pz = rz - a2 * ra;
      const A = py, B = a2 * px - a0 * pz, R = Math.hypot(A, B);
      if (R < 1e-9) break;
      const phi = Math.atan2(B, A), ac = Math.acos(Math.min(1, Math.max(-1, (A + graze - low) / R)));
      let th = Infinity;
      for (const x of [phi + ac, phi - ac]) { const d = Math.atan2(Math.sin(x), Math.cos(x)); if (d > 1e-9 && d < th) th = d; }
      if (th === Infinity) break;
      readChain(ctx, m.chain, 1);
      const h = Math.sin(0.5 * th);
      _aq[0] = a0 * h; _aq[1] = 0; _aq[2] = a2 * h; _aq[3] = Math.cos(0.5 * th);
      rotateJoint(ctx, m.chain, 0, _aq);
    }
  }
}
const _ap = new Float64Array(3), _aq = new Float64Array(4);

/** Swing clearance as its own pass, after ground-lock and pin (see {@link clearFreeLimbs}, {@link clearFreeArms}). */
export const swingClearance = {
  run(ctx) {
    if (ctx.plan.swing.length) clearFreeLimbs(ctx);
    if (ctx.plan.armSwing.length) clearFreeArms(ctx);
  },
};
