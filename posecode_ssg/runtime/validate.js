/**
 * Checks a motion JSON object (docs/motion-json.md, posecode_ssg/motion/motion.schema.json)
 * against the page's rig.json before anything is built from it, so bad data becomes one readable
 * message instead of a NaN pose or an exception deep in the render loop.
 * @module validate
 */

/** The timing modes of spec §1 `timingMode` (aliases are normalised by the compiler). */
export const TIMING_MODES = ["flow", "settle", "drive", "snap", "linear"];

/** An error in the motion data; `message` says what to fix. */
export class MotionDataError extends Error {
  constructor(message) {
    super(message);
    this.name = "MotionDataError";
  }
}

const isNum = (x) => typeof x === "number" && Number.isFinite(x);
const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const isStrings = (x) => Array.isArray(x) && x.every((s) => typeof s === "string");
const describe = (x) => (x === undefined ? "nothing" : JSON.stringify(x)?.slice(0, 40));
/** Throw a {@link MotionDataError} with `message` unless `ok`. */
const need = (ok, message) => { if (!ok) throw new MotionDataError(message); };

function checkQuatMap(map, where, bones) {
  if (map === undefined) return;
  need(isObject(map), `${where} must be an object {bone: [x, y, z, w]}, got ${describe(map)}`);
  for (const [bone, q] of Object.entries(map)) {
    need(bones.has(bone), `${where}: unknown bone "${bone}"`);
    need(Array.isArray(q) && q.length === 4 && q.every(isNum), `${where}.${bone} must be a quaternion [x, y, z, w] of 4 numbers, got ${describe(q)}`);
    const n = Math.hypot(...q);
    need(Math.abs(n - 1) <= 0.01, `${where}.${bone} is not a unit quaternion (length ${n.toFixed(3)})`);
  }
}

/**
 * Validate `m` against `rig`; returns `m` or throws {@link MotionDataError}.
 * @param {any} m parsed motion JSON
 * @param {object} rig parsed rig.json
 */
export function validateMotion(m, rig) {
  need(isObject(m), "the motion data must be a JSON object");
  need(m.format === "posecode-motion/1", `unsupported motion format ${describe(m.format)} (this runtime reads "posecode-motion/1"); rebuild the site`);
  const bones = new Set(rig.bones.map((b) => b.id));
  need(rig.avatars[m.avatar ?? rig.defaultAvatar], `unknown avatar ${describe(m.avatar)}; expected one of ${Object.keys(rig.avatars).join(", ")}`);
  need(rig.startPoses[m.startPose ?? rig.defaultStartPose], `unknown start pose ${describe(m.startPose)}`);
  for (const p of m.props ?? []) need(rig.props[p], `unknown prop ${describe(p)}`);
  need(m.repeat === undefined || (Number.isInteger(m.repeat) && m.repeat >= 0), `"repeat" must be a whole number ≥ 0, got ${describe(m.repeat)}`);
  checkQuatMap(m.base, '"base"', bones);
  need(Array.isArray(m.phases) && m.phases.length > 0, '"phases" must be a non-empty list');
  let total = 0;
  m.phases.forEach((p, i) => {
    const where = `phase ${i + 1}${p && typeof p.name === "string" ? ` ("${p.name}")` : ""}`;
    need(isObject(p), `${where} must be an object`);
    need(typeof p.name === "string", `${where}: "name" must be a string`);
    need(isNum(p.d) && p.d > 0, `${where}: "d" must be a positive number of seconds, got ${describe(p.d)}`);
    need(TIMING_MODES.includes(p.m), `${where}: timing mode "m" must be one of ${TIMING_MODES.join(", ")}, got ${describe(p.m)}`);
    checkQuatMap(p.q, `${where} "q"`, bones);
    need(p.gl === undefined || isStrings(p.gl), `${where}: "gl" must be a list of contact names`);
    for (const k of ["pin", "grip", "reach"]) {
      const list = p[k];
      need(list === undefined || (Array.isArray(list) && list.every((x) => isStrings(x) && x.length === 2)),
        `${where} "${k}" must be a list of [effector, anchor] pairs, got ${describe(list)}`);
    }
    need(p.turn === undefined || isNum(p.turn), `${where}: "turn" must be a number of degrees`);
    need(p.tr === undefined || (Array.isArray(p.tr) && p.tr.length === 2 && p.tr.every(isNum)), `${where}: "tr" must be [x, z] in metres`);
    need(p.cue === undefined || typeof p.cue === "string", `${where}: "cue" must be text`);
    total += p.d;
  });
  const wrap = m.wrap ?? 0;
  need(isNum(wrap) && wrap >= 0, `"wrap" must be ≥ 0 seconds, got ${describe(m.wrap)}`);
  need(m.wrapTurn === undefined || isNum(m.wrapTurn), '"wrapTurn" must be a number of degrees');
  need(m.duration === undefined || (isNum(m.duration) && Math.abs(m.duration - (total + wrap)) <= 0.01),
    `"duration" ${describe(m.duration)} does not equal the phases (${total.toFixed(2)} s) plus the wrap (${wrap} s)`);
  return m;
}
