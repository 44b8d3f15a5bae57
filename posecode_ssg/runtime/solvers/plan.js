/**
 * Per-segment contact plan for the root-moving passes (ground-lock, pin, grip), built once when a
 * figure loads so the per-frame passes only read typed arrays.
 *
 * It mirrors the anchor rules of the build-time keyframe solve (posecode_ssg/motion/solve/plan.py
 * `plan_phase`; kinematics-reference §5.4, §6.2, §8, §9.2):
 * - a ground-locked foot is held at its sole centre as it was at the end of the previous phase,
 *   if that foot was then on the floor (lowest foot point ≤ rig.json `solver.plantedHeight`) and
 *   part of the previous support (the previous phase's motion JSON `support`, decided by the
 *   compiler; both feet at the start). The point is kept in the choreography frame (turn and travel
 *   removed) so it moves with authored turn/travel, as the numpy solve carries it; a single
 *   locked foot is instead the world-fixed pivot of a turn (carried by travel only);
 * - a floor pin plants (x, z) where the effector's joint was when the phase began, or where the
 *   same pin planted it in the previous phase; its height is the effector's own contact height,
 *   measured per frame; a pin to a prop uses the fixed anchor point of rig.json `props`;
 * - a grip holds the wrist joint at the prop anchor.
 * @module solvers/plan
 */

import { makeChain } from "./ccd.js";
import { contactHeight, contactHeightRule, footprint, holdMu, propAnchor } from "./measure.js";
import { turnXZ } from "../quat.js";

const SIDES = ["left", "right"];

/**
 * A warning a held ground-locked foot raises (issue 5: never a silent heel lift or slide), reused
 * every frame it applies: `{code, foot, phase, value, limit, message}`; `message` is built when
 * read, so nothing is allocated per frame. Codes: `foot-flat` (the ankle's range cannot level the
 * sole: `value` the needed ankle x, `limit` the box edge, degrees; motion/diagnostics.py `kinematic-foot-flat`),
 * `foot-lifted` (the rest of the pose keeps the foot off the floor: `value` its height, m),
 * `foot-drift` (the leg cannot bring it back to its anchor: `value` the distance, m;
 * motion/diagnostics.py `kinematic-foot-drift`); `settling`, a `foot-flat` of the pose the entry
 * blend shows while the body settles from the previous phase (`value` the sole's tilt, degrees).
 */
function footWarning(code, foot, phase, settling = false) {
  const w = { code, foot, phase, value: 0, limit: 0 };
  Object.defineProperty(w, "message", { enumerable: true, get() {
    const v = this.value, at = `${this.foot} in phase "${this.phase}"`;
    if (settling) return `${at} is not flat yet: the body is still settling from the previous phase (the sole ${v.toFixed(0)}° off level)`;
    if (code === "foot-lifted") return `${at} is ground-locked but held ${(v * 1000).toFixed(0)} mm above the floor`;
    if (code === "foot-drift") return `${at} slides ${(v * 1000).toFixed(0)} mm although it is ground-locked`;
    return `${at} cannot stay flat: the sole needs ${Math.abs(v).toFixed(0)}° of ankle ` +
      `${v < this.limit ? "dorsiflexion" : "plantarflexion"}, the range allows ${Math.abs(this.limit).toFixed(0)}°`;
  } });
  return w;
}

const _f = new Float64Array(4);

/**
 * The plan of one locked hand or elbow (plan.js): its contact-height rule plus the limb's bones,
 * chain and anchor — the palm landmark (hand) or elbow joint where it was on the floor (lowest
 * point ≤ `solver.plantedHeight`) in the solved pose `sk` ending the previous phase, kept in the
 * choreography frame (turn and travel removed) like a stance of feet; `held` 0 when it was not down.
 */
function planUpper(rig, sk, c, startPos, prevRoot) {
  const u = contactHeightRule(rig, sk, c), s = c.slice(c.indexOf("_") + 1), hand = c.startsWith("hand");
  const ids = (b) => sk.index.get(`${b}_${s}`);
  Object.assign(u, { hand, pro: s === "left" ? -1 : 1, shoulder: ids("shoulder"), elbow: ids("elbow"), wrist: ids("wrist"),
    palm: sk.landmarkIndex.get(`palm_${s}`), anchor: new Float64Array(2), held: 0,
    chain: hand ? makeChain(rig, sk, [`shoulder_${s}`, `elbow_${s}`], `wrist_${s}`) : makeChain(rig, sk, [`shoulder_${s}`], `elbow_${s}`) });
  sk.measureLowest();
  const src = hand ? sk.landmarkP : sk.worldP, o = (hand ? u.palm : u.elbow) * 3;
  const low = hand ? sk.worldP[u.bone * 3 + 1] - contactHeight(sk, u) : src[o + 1] - u.value;
  if (low <= rig.solver.plantedHeight) {
    const x = src[o] - startPos[0] - prevRoot[1], z = src[o + 2] - startPos[2] - prevRoot[2];
    turnXZ(u.anchor, 0, -prevRoot[0], x, z);
    u.held = 1;
  }
  return u;
}

/** An empty plan (no root-moving contact). */
export function emptyPlan() {
  return { lockFeet: new Int8Array(0), lockAnchor: new Float64Array(0), lockHeld: new Uint8Array(0),
    lockAnkles: new Int16Array(0), lockPivot: false, uppers: [], pins: [], stance: false, swing: [], reachSwing: [], armSwing: [], grips: [], blend: new Float64Array(3), blends: false, shift: null, settle: null };
}

/** The leg joints' bone indices per side (left, right) and the ankles' x boxes (levelling: limb.js). */
function legIds(rig, sk, plan) {
  for (const j of ["ankle", "knee", "hip"]) plan[j] = Int16Array.from(SIDES, (s) => sk.index.get(`${j}_${s}`));
  plan.ankleBox = Float64Array.from([...rig.rom.ankle_left.x, ...rig.rom.ankle_right.x]);
}

/** Probes of a one-foot segment's free-foot lift (figuremodel.js `_shiftAhead`). */
export const SHIFT_PROBES = 32;

/**
 * The side left standing at the end of a segment whose phase locks both feet, held since it
 * began (the support both feet, nothing else), when the authored angles lift one of them off the
 * floor (a standing hamstring curl with `ground-lock: feet`): the lower foot, when the other's
 * lowest point is more than `solver.shiftHeightBand[0]` × `plantedHeight` up and it is down; else
 * null (solve/balance.py `lifted_stance`). `sk`: posed at the segment's end keyframe; `low`:
 * the feet's lowest points (left, right) at its weight-shift pass, where the numpy twin measures
 * them (a plan over both feet records them: balance.js), else measured on `sk`.
 */
export function liftedStance(rig, sk, phase, plan, low = null) {
  const support = phase.support || [], gl = phase.gl || [];
  if (phase.gait === true || support.length !== 2 || !SIDES.every((s) => support.includes(`foot_${s}`) && gl.includes(`foot_${s}`))) return null;
  if (plan.lockHeld.length !== 2 || !plan.lockHeld.every((h) => h)) return null;
  if (!low) {
    sk.measureLowest();
    low = SIDES.map((s) => sk.lowestByBone[sk.index.get(`ankle_${s}`)]);
  }
  const h = rig.solver.plantedHeight;
  const down = low[0] <= low[1] ? 0 : 1, up = 1 - down;
  return low[up] > rig.solver.shiftHeightBand[0] * h && low[down] <= h ? SIDES[down] : null;
}

/**
 * The side a phase ends standing on when nothing of its own holds the body (no lock, pin or grip)
 * and it reaches one foot for the floor while the angles lift the other (a high-knee march's
 * 'Switch'): the reaching foot, when its lowest point is within `plantedHeight` and the other's
 * more than `solver.shiftHeightBand[0]` × `plantedHeight` up, `low` the feet's lowest points
 * (left, right) at the end keyframe's weight-shift pass (`plan.stanceLow`, recorded by
 * balance.js; or, both feet reaching, where the segment starts: `planSegment`); else null
 * (solve/balance.py `reached_stance`).
 */
export function reachedStance(rig, phase, low) {
  if (!low || Number.isNaN(low[0])) return null;
  const h = rig.solver.plantedHeight;
  for (const [e, a] of phase.reach || []) {
    if (a !== "floor" || !e.startsWith("foot_")) continue;
    const k = e === "foot_left" ? 0 : 1;
    if (low[1 - k] > rig.solver.shiftHeightBand[0] * h && low[k] <= h) return SIDES[k];
  }
  return null;
}

/** The weight-shift record of stance sides `sides` ("left" / "right"; one or both: balance.js). */
export function shiftPlan(rig, sk, sides) {
  const legs = sides.map((s) => {
    const lm = (n) => sk.landmarkIndex.get(`${n}_${s}`);
    return { side: s === "left" ? 0 : 1, foot: `foot_${s}`, ankle: sk.index.get(`ankle_${s}`), hip: sk.index.get(`hip_${s}`),
      heel: lm("heel"), toe: lm("toe"), sole: lm("sole"), lm: Int16Array.from(["sole", "toe", "heel"].map(lm)), auth: 0,
      chain: makeChain(rig, sk, [`hip_${s}`, `knee_${s}`], `ankle_${s}`),
      joints: Int16Array.from(["hip", "knee", "ankle"], (j) => sk.index.get(`${j}_${s}`)),
      // per frame (balance.js): the ankle where it was, the hip from it, heading, footprint, tiptoe share
      at: new Float64Array(3), h0: new Float64Array(3), hx: 0, hz: 0, print: new Float64Array(4), tiptoe: 0, needed: 0 };
  });
  const n = legs.length, joints = new Set(sides.flatMap((s) => ["hip", "knee", "ankle"].map((j) => sk.index.get(`${j}_${s}`))));
  // on one foot, the free foot: its sole's corners touching the floor are part of the base
  // (balance.py `free_corners`), so it is not part of the rest of the body's lift
  const free = n === 1 ? sk.index.get(`ankle_${sides[0] === "left" ? "right" : "left"}`) : -1;
  if (free >= 0) joints.add(free);
  const C = 4 * n + (free >= 0 ? 5 : 0);
  // and its shoe's lowest point (the ellipsoid on its ankle: skeleton.js volumeBottom; balance.py `free_corners`)
  return { legs, free, freeShoe: free >= 0 ? sk.volBone.indexOf(free) : -1,
    // the look-ahead share of the weight over u (figuremodel.js `_shiftAhead`), the probe's state
    ahead: new Float64Array(SHIFT_PROBES + 1), aheadF: new Float64Array(SHIFT_PROBES + 1), freeLift: 0, cornerE: new Float64Array(4 * n * (SHIFT_PROBES + 1)), probing: false, probe: 0,
    // the base corners' weights: 4 a stance sole, then 4 of the free sole and its shoe's lowest point
    corner: new Float64Array(C), low: new Float64Array(2),
    // the stance legs' bones and the free foot (the rest of the body's lowest point leaves them out)
    leg: Uint8Array.from({ length: sk.boneCount }, (_, b) => (joints.has(b) ? 1 : 0)) };
}

/**
 * The plan of the wrap segment (back to the base pose; no contacts of its own): a body that ended
 * its last phase on one foot (motion JSON `support`: that foot alone, or of two the one locked or
 * pinned to the floor while the other only reaches for it), still down, stays on it —
 * the foot held where it is (a floor pin: pin.js), the other cleared of the floor as it comes down
 * (swingclearance.js), the weight over the stance foot until the other bears it (balance.js).
 * Else no contacts (an empty plan). Arguments as {@link planSegment}'s, `last` the last phase.
 */
export function planWrap(rig, sk, last, prevPlan, startPos, prevRoot) {
  // the foot that bore the body: its support alone, or of two feet the one locked or pinned to the
  // floor while the other only reached for it (step touch ends over the left foot, the right toes
  // touching: without the pin the left foot rose as the wrap came home, 170 mm from the toes)
  const support = last.support || [], held = (e) => (last.gl || []).includes(e) || (last.pin || []).some(([p, a]) => p === e && a === "floor");
  const bearing = support.length === 1 ? support : support.filter((e) => e.startsWith("foot_") && held(e));
  sk.measureLowest();
  if (bearing.length !== 1 || !bearing[0].startsWith("foot_")
      || !(sk.lowestByBone[sk.index.get(`ankle_${bearing[0].slice(5)}`)] <= rig.solver.plantedHeight)) return emptyPlan();
  const wrap = { name: last.name, pin: [[bearing[0], "floor"]], support: bearing };
  return planSegment(rig, sk, wrap, last, prevPlan, startPos, prevRoot);
}

/**
 * Build the plan of segment `s` from the solved pose at the end of the previous phase.
 * @param {object} rig rig.json
 * @param {import("../skeleton.js").Skeleton} sk posed at the end of the previous phase (solved)
 * @param {object} phase motion JSON phase of this segment
 * @param {object|null} prevPhase the previous phase (null at the start)
 * @param {object|null} prevPlan the previous segment's plan (floor pins carry over)
 * @param {Float64Array} startPos grounded base root (m)
 * @param {Float64Array} prevRoot [turn rad, travel x, travel z] at the end of the previous phase
 */
export function planSegment(rig, sk, phase, prevPhase, prevPlan, startPos, prevRoot) {
  const plan = emptyPlan();
  plan.swing = [];
  const planted = rig.solver.plantedHeight;
  // bone (or, `map`, landmark) indices of `name`_side for each side in `sides`
  const ids = (name, sides = SIDES, map = sk.index) => Int16Array.from(sides, (s) => map.get(`${name}_${s}`));
  legIds(rig, sk, plan);
  // joint positions where the segment starts (props.js: a foot stepping off the box starts there)
  plan.at0 = sk.worldP.slice();
  sk.measureLowest();
  // the previous support, decided by the compiler (motion JSON `support`; the start pose stands
  // on both feet)
  const support = new Set(prevPhase ? prevPhase.support : ["foot_left", "foot_right"]);
  // let go: the previous phase hung from a grip and this one does not (blend.js: the drop)
  plan.release = !!(prevPhase && (prevPhase.grip || []).length && !(phase.grip || []).length);
  // entered from a phase the floor carried (no grip, no pin to a prop): blend.js keeps it down
  plan.fromFloor = !prevPhase || prevPhase.hang !== true;
  const gl = phase.gl || [];
  const feet = SIDES.filter((s) => gl.includes(`foot_${s}`));
  if (feet.length && !gl.includes("back")) {
    plan.lockFeet = Int8Array.from(feet.map((s) => (s === "left" ? 0 : 1)));
    plan.lockAnkles = ids("ankle", feet);
    plan.lockAnchor = new Float64Array(feet.length * 4);
    plan.lockHeld = new Uint8Array(feet.length);
    plan.lockLevel = !gl.some((c) => c.startsWith("hand_") || c.startsWith("elbow_"));
    // hands / forearms locked with the feet: the body pivots about the feet (groundlock.js)
    plan.uppers = gl.filter((c) => c.startsWith("hand_") || c.startsWith("elbow_")).map((c) => planUpper(rig, sk, c, startPos, prevRoot));
    plan.lockSole = ids("sole", feet, sk.landmarkIndex);
    plan.lockChain = feet.map((s) => makeChain(rig, sk, [`hip_${s}`, `knee_${s}`], `ankle_${s}`));
    plan.lockWeight = new Float64Array(feet.length);
    plan.lockWeightV = new Float64Array(feet.length);
    plan.lockAuthored = new Float64Array(feet.length);
    plan.lockPlanted = new Uint8Array(feet.length);
    plan.lockLevelW = new Float64Array(feet.length);
    plan.lockWorld = new Float64Array(feet.length * 4);
    plan.footFlat = feet.map((s) => footWarning("foot-flat", `foot_${s}`, phase.name));
    plan.footSettling = feet.map((s) => footWarning("foot-flat", `foot_${s}`, phase.name, true));
    plan.footLifted = feet.map((s) => footWarning("foot-lifted", `foot_${s}`, phase.name));
    plan.footDrift = feet.map((s) => footWarning("foot-drift", `foot_${s}`, phase.name));
    plan.lockHeel = ids("heel", feet, sk.landmarkIndex);
    plan.lockToe = ids("toe", feet, sk.landmarkIndex);
    // on all fours from the start (`sk`: the previous phase's end): both knees (their shin
    // capsules' knee ends) within plantedHeight of the floor and each lower than its foot's held
    // point by plantTolerance; the body then turns onto its knees, not its hands (groundlock.js
    // `pivotOnFeet`; solve/groundlock.py `kneels`)
    plan.lockKnee = ids("knee", feet);
    plan.lockKneeR = Float64Array.from(plan.lockKnee, (knee, k) => {
      for (let i = 0; i < sk.segFrom.length; i++) if (sk.segFrom[i] === knee && sk.segTo[i] === plan.lockAnkles[k]) return sk.segR[2 * i];
      return 0;
    });
    const band = rig.solver.plantedHeight, LP = sk.landmarkP;
    plan.lockKneel = feet.length === 2 && !plan.lockLevel && feet.every((_s, k) => {
      const knee = sk.worldP[plan.lockKnee[k] * 3 + 1] - plan.lockKneeR[k];
      const so = plan.lockSole[k] * 3, to = plan.lockToe[k] * 3;
      const m = holdMu(LP, plan.lockSole[k], plan.lockToe[k], plan.lockHeel[k], rig.solver.plantTolerance);
      return Math.abs(knee) <= band && knee < LP[so + 1] + m * (LP[to + 1] - LP[so + 1]) - rig.solver.plantTolerance;
    });
    // held: on the floor and part of the previous support (a foot arriving from the air is not)
    const holds = feet.map((s) => sk.lowestByBone[sk.index.get(`ankle_${s}`)] <= planted && support.has(`foot_${s}`));
    // a single held foot is the pivot of a turn: world-fixed, only carried by travel (a foot
    // still landing does not make a stance: wall-leg-swings turns back on its standing foot)
    plan.lockPivot = holds.filter(Boolean).length === 1;
    const turn = plan.lockPivot ? 0 : prevRoot[0];
    const L = sk.landmarkP, F = _f;
    feet.forEach((s, k) => {
      if (!holds[k]) return;
      // the footprint (feet on their toes behind a hands/forearms lock: their toes)
      footprint(L, plan.lockSole[k], plan.lockToe[k], plan.lockHeel[k], rig.solver.plantTolerance, F);
      const x = F[0] - startPos[0] - prevRoot[1], z = F[1] - startPos[2] - prevRoot[2];
      // choreography frame: rotate by −turn about +Y (travel frame only, for a pivot foot; its
      // heading still turns with the body)
      turnXZ(plan.lockAnchor, k * 4, -turn, x, z);
      turnXZ(plan.lockAnchor, k * 4 + 2, -prevRoot[0], F[2], F[3]);
      plan.lockHeld[k] = 1;
    });
  }
  for (const [effector, anchor] of phase.pin || []) {
    const floor = anchor === "floor";
    const bone = sk.index.get(rig.effectors[effector] || effector);
    const side = effector.endsWith("_left") ? "left" : "right";
    const top = effector.startsWith("foot_") && rig.solver.propTops.includes(anchor);
    // side: 0 left, 1 right (pin.js: a foot pin's ankle)
    const pin = { effector, anchor, floor, bone, side: effector === "foot_left" ? 0 : 1, sole: top ? sk.landmarkIndex.get(`sole_${side}`) : -1,
      target: new Float64Array(3), rule: floor ? contactHeightRule(rig, sk, effector) : null, chain: null, leg: 0 };
    if (floor && effector.startsWith("foot_")) {
      // a stance leg of a travelling gait (pin pass): two-bone IK from the hip, leg length
      pin.chain = makeChain(rig, sk, [`hip_${side}`, `knee_${side}`], `ankle_${side}`);
      const o = (b) => { const i = sk.index.get(b) * 3; return Math.hypot(sk.offsets[i], sk.offsets[i + 1], sk.offsets[i + 2]); };
      pin.leg = o(`knee_${side}`) + o(`ankle_${side}`);
      // its footprint (world), held like a locked foot's (measure.js `holdError`)
      pin.lm = Int16Array.from(["sole", "toe", "heel"].map((n) => sk.landmarkIndex.get(`${n}_${side}`)));
      pin.print = footprint(sk.landmarkP, pin.lm[0], pin.lm[1], pin.lm[2], rig.solver.plantTolerance, new Float64Array(4));
      // how high its lowest point was at the previous end (m, ≥ 0): replant.js lowers it from there
      sk.measureLowest();
      pin.h0 = Math.max(0, sk.lowestByBone[bone]);
    }
    if (floor) {
      const prev = prevPlan && prevPlan.pins.find((p) => p.floor && p.effector === effector);
      if (prev) { pin.target.set(prev.target); if (pin.print) pin.print.set(prev.print); }
      else for (let a = 0; a < 3; a++) pin.target[a] = sk.worldP[bone * 3 + a];
    } else {
      const p = propAnchor(rig, anchor);
      if (!p) continue;
      pin.target.set(p);
    }
    plan.pins.push(pin);
  }
  // gait exception (KR §8, motion JSON `gait`, decided by the compiler): a gait's phase whose pins
  // are all floor foot pins keeps its travelled root; the stance legs reach the plants, and a free
  // foot pushed through the floor is lifted by its own leg
  // weight shift (balance.js, solve/balance.py `stance_sides`): one foot alone bears the body — the
  // compiler's support less a foot reaching for the floor or locked while arriving from the air
  // (motion/support.py `stance_foot`) — locked and held since the phase began or pinned to the
  // floor; or both feet so, and nothing else in the support
  const free = new Set((phase.reach || []).filter(([e, a]) => a === "floor" && e.startsWith("foot_")).map(([e]) => e));
  feet.forEach((s, k) => { if (!plan.lockHeld[k]) free.add(`foot_${s}`); });
  const bearing = (phase.support || []).filter((e) => !free.has(e));
  const heldSide = (s) => (phase.pin || []).some(([e, a]) => e === `foot_${s}` && a === "floor") || feet.includes(s);
  // (not in a gait: its root keeps its travelled place, KR §8)
  if (phase.gait !== true) {
    const one = bearing.length === 1 && bearing[0].startsWith("foot_") ? bearing[0].slice(5) : null;
    const both = !free.size && (phase.support || []).length === 2 && SIDES.every((s) => bearing.includes(`foot_${s}`));
    if (one && heldSide(one)) plan.shift = shiftPlan(rig, sk, [one]);
    else if (both && SIDES.every(heldSide)) plan.shift = shiftPlan(rig, sk, SIDES);
    // nothing of its own holds the body and one foot reaches for the floor: the feet's lowest
    // points at the end keyframe's weight-shift pass decide whether it ends on that foot
    // ({@link reachedStance}; balance.js records them)
    else if (!feet.length && !(phase.pin || []).length && !(phase.grip || []).length) {
      const reached = (phase.reach || []).filter(([e, a]) => a === "floor" && e.startsWith("foot_"));
      if (reached.length === 1) plan.stanceLow = Float64Array.of(NaN, NaN);
      else if (reached.length === 2) {
        // both: the foot down where the segment starts bears the body while the other comes
        // down to it (`sk` is posed there)
        const side = reachedStance(rig, phase, Float64Array.from(plan.ankle, (b) => sk.lowestByBone[b]));
        if (side) { plan.shift = shiftPlan(rig, sk, [side]); plan.shift.reached = true; }
      }
    }
  }
  plan.stance = phase.gait === true && plan.pins.length > 0 && plan.pins.every((q) => q.chain);
  // swing clearance (swingclearance.js `clearFreeLimbs`): while resting on a locked or floor-pinned contact,
  // a free foot whose toe the pose pushes through the floor is turned up at the ankle
  const busy = new Set([...(phase.pin || []), ...(phase.reach || []), ...(phase.grip || [])].map(([e]) => e).concat(phase.gl || []));
  // and a foot reaching for the floor is kept out of it by its own ankle after the reach's blend
  // (reach.js), so a reach fading in never pushes the body up off the standing foot — or off the
  // box, a foot pinned on it (`sole`: a foot reaching down from the box would lift the body off
  // its pin); a free foot there is not turned (it dips as the body rises onto the box, and turning
  // it would jerk its ankle); a pelvis on the seat is neither (its free legs would flip between
  // frames)
  plan.reachSwing = [];
  const rests = (phase.gl || []).length || plan.pins.some((q) => q.floor);
  if (rests || plan.pins.some((q) => q.sole >= 0)) {
    sk.measureLowest();
    const floorReach = new Set((phase.reach || []).filter(([, a]) => a === "floor").map(([e]) => e));
    for (const s of SIDES) {
      const reached = floorReach.has(`foot_${s}`) && !gl.includes(`foot_${s}`) && !(phase.pin || []).some(([e]) => e === `foot_${s}`);
      // a locked foot not on the floor when the phase began (arriving from the air) is free until it lands
      const arriving = gl.includes(`foot_${s}`) && !plan.lockHeld[feet.indexOf(s)];
      if (!reached && (!rests || (!arriving && (busy.has(`foot_${s}`) || busy.has(`knee_${s}`))))) continue;
      const heel = sk.landmarkIndex.get(`heel_${s}`), toe = sk.landmarkIndex.get(`toe_${s}`);
      (reached ? plan.reachSwing : plan.swing).push({ ankle: sk.index.get(`ankle_${s}`), knee: sk.index.get(`knee_${s}`),
        heel, toe, heelDown0: sk.landmarkP[heel * 3 + 1] <= sk.landmarkP[toe * 3 + 1] + 1e-3,   // swingclearance.js `clearFreeLimbs`
        // where the previous phase left it, and whether it is free (not a locked foot landing): `keepFreeFeetDown`
        low0: sk.lowestByBone[sk.index.get(`ankle_${s}`)], free: !arriving });
    }
  }
  // arm clearance (swingclearance.js `clearFreeArms`): while resting on a locked or floor-pinned
  // contact, an arm with no contact of its own but a reach for the floor swings out along the floor
  plan.armSwing = [];
  if (rests) {
    const held = new Set([...(phase.pin || []), ...(phase.grip || []), ...(phase.reach || []).filter(([, a]) => a !== "floor")]
      .map(([e]) => e).concat(gl));
    for (const s of SIDES) {
      if ([`hand_${s}`, `fist_${s}`, `elbow_${s}`].some((e) => held.has(e))) continue;
      const elbow = sk.index.get(`elbow_${s}`), arm = new Uint8Array(sk.boneCount);
      // the bones the shoulder turns: the elbow and all below it
      for (let b = 0; b < sk.boneCount; b++) for (let c = b; c >= 0; c = sk.parent[c]) if (c === elbow) { arm[b] = 1; break; }
      plan.armSwing.push({ shoulder: sk.index.get(`shoulder_${s}`), other: sk.index.get(`shoulder_${s === "left" ? "right" : "left"}`),
        arm, chain: makeChain(rig, sk, [`shoulder_${s}`], `elbow_${s}`) });
    }
  }
  for (const [effector, anchor] of phase.grip || []) {
    const p = propAnchor(rig, anchor);
    if (!p) continue;
    const side = effector.endsWith("_left") ? "left" : "right";
    const wrist = rig.effectors[effector] || effector;
    // the closed hand (KR §9.3, rig.json handStates.grip): per digit its bone and XYZ Euler degrees
    const hs = rig.handStates.grip, digits = rig.digits || [];
    const fingers = Int16Array.from(digits.map((d) => sk.index.get(`${d}_${side}`)));
    const curl = Float64Array.from(digits.flatMap((d) => (d === "thumb"
      ? [hs.thumbCurl, 0, side === "left" ? hs.thumbZ : -hs.thumbZ] : [hs.curl, 0, 0])));
    // held: the previous phase ended holding this bar with this hand (grip.js)
    const held = (prevPhase?.grip || []).some(([e, an]) => e === effector && an === anchor);
    plan.grips.push({ effector, anchor, bone: sk.index.get(wrist), target: Float64Array.from(p),
      chain: makeChain(rig, sk, [`shoulder_${side}`, `elbow_${side}`], wrist), fingers, curl, held,
      rail: anchor.startsWith("bars") });   // dip bars: the palm turns down onto the rail
  }
  return plan;
}
